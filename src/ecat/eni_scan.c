/* The ENI-like description of a scanned network (`takt ecat xml`): identities, mailbox,
 * SMs and PDOs from each slave's SII, and, given a layout, process data offsets, the
 * cyclic LRW frames and the process image variables. */
#include "ecat/eni_internal.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "ecat/pdo.h"
#include "util/wire.h"

static int scan_pdos(struct ecat_eni *e, struct ecat_eni_slave *s, const struct ecat_sii *sii)
{
    s->n_pdo = sii->n_pdo;
    s->pdo = eni_alloc(e, (s->n_pdo ? s->n_pdo : 1) * sizeof *s->pdo);
    if (!s->pdo)
        return -ENOMEM;
    for (unsigned i = 0; i < sii->n_pdo; i++) {
        const struct ecat_sii_pdo *p = &sii->pdo[i];
        struct ecat_eni_pdo *q = &s->pdo[i];
        *q = (struct ecat_eni_pdo){ .index = p->index, .input = p->tx,
            .sm = p->sm < ECAT_SII_MAX_SM ? p->sm : -1, .name = eni_strdup(e, ecat_sii_str(sii, p->name)),
            .n_entries = p->n_entries };
        q->entry = eni_alloc(e, (q->n_entries ? q->n_entries : 1) * sizeof *q->entry);
        if (!q->entry || !q->name)
            return -ENOMEM;
        for (unsigned k = 0; k < p->n_entries; k++) {
            const struct ecat_sii_entry *x = &sii->entry[p->first_entry + k];
            q->entry[k] = (struct ecat_eni_entry){ .index = x->index, .subindex = x->subindex,
                .bitlen = x->bitlen, .name = eni_strdup(e, ecat_sii_str(sii, x->name)),
                .data_type = x->data_type == 1 && x->bitlen == 1 ? "BIT" : takt_ecat_coe_type_name(x->data_type) };
        }
    }
    return 0;
}

static void scan_sms(struct ecat_eni_slave *s, const struct ecat_sii *sii, const struct ecat_pdo_slave *ly)
{
    for (unsigned i = 0; i < sii->n_sm && s->n_sm < TAKT_ARRAY_SIZE(s->sm); i++) {
        const struct ecat_sii_sm *m = &sii->sm[i];
        if (m->type != ECAT_SII_SM_OUTPUTS && m->type != ECAT_SII_SM_INPUTS)
            continue;           /* mailbox SMs are described by <Mailbox> */
        struct ecat_eni_sm *q = &s->sm[s->n_sm++];
        *q = (struct ecat_eni_sm){ .no = (int)i, .input = m->type == ECAT_SII_SM_INPUTS,
            .outputs = m->type == ECAT_SII_SM_OUTPUTS, .start = m->start, .ctrl = m->ctrl,
            .enable = m->enable, .default_size = m->len };
        for (unsigned k = 0; ly && k < ly->n_sm; k++)
            if (ly->sm[k].index == i)
                q->default_size = ly->sm[k].len;
        for (unsigned k = 0; k < sii->n_pdo && q->n_pdo < TAKT_ARRAY_SIZE(q->pdo); k++)
            if (sii->pdo[k].sm == i)
                q->pdo[q->n_pdo++] = sii->pdo[k].index;
    }
}

static int scan_slave(struct ecat_eni *e, unsigned i, const struct ecat_sii *sii, uint16_t phys,
                      const struct ecat_pdo_slave *ly, uint32_t cycle_us)
{
    struct ecat_eni_slave *s = &e->slave[i];
    char name[96];
    const char *order = sii->has_general ? ecat_sii_str(sii, sii->gen.order) : "";
    snprintf(name, sizeof name, "Slave %u%s%s%s", i + 1, *order ? " (" : "", order, *order ? ")" : "");
    s->name = eni_strdup(e, name);
    s->product_revision = "";
    s->phys_addr = phys;
    s->auto_inc = (uint16_t)(0u - i);
    s->id = sii->id;
    if (sii->std_rx.size && sii->std_tx.size) {
        s->has_mbx = true;
        s->mbx_send_start = sii->std_rx.offset;     /* master -> slave */
        s->mbx_send_len = sii->std_rx.size;
        s->mbx_recv_start = sii->std_tx.offset;
        s->mbx_recv_len = sii->std_tx.size;
        s->boot_send_start = sii->boot_rx.offset;
        s->boot_send_len = sii->boot_rx.size;
        s->boot_recv_start = sii->boot_tx.offset;
        s->boot_recv_len = sii->boot_tx.size;
        s->mbx_proto = sii->mbx_proto;
    }
    scan_sms(s, sii, ly);
    if (ly && ly->out_len) {
        s->has_send = true;
        s->send_bitstart = ly->out_off * 8;
        s->send_bitlen = ly->out_len * 8;
    }
    if (ly && ly->in_len) {
        s->has_recv = true;
        s->recv_bitstart = ly->in_off * 8;
        s->recv_bitlen = ly->in_len * 8;
    }
    if (sii->n_dc) {
        s->has_dc = true;
        s->ref_clock = i == 0;
        s->cycle0 = cycle_us * 1000u;
        s->assign_activate = sii->dc[0].assign_activate;
    }
    return s->name ? scan_pdos(e, s, sii) : -ENOMEM;
}

static int scan_image(struct ecat_eni *e, const struct ecat_pdo_image *img)
{
    e->in_bytes = e->out_bytes = img->size;
    e->n_frames = img->n_frames;
    e->frame = eni_alloc(e, (img->n_frames ? img->n_frames : 1) * sizeof *e->frame);
    e->var = eni_alloc(e, (img->n_vars ? img->n_vars : 1) * sizeof *e->var);
    if (!e->frame || !e->var)
        return -ENOMEM;
    for (unsigned f = 0; f < img->n_frames; f++) {
        const struct ecat_pdo_frame *p = &img->frame[f];
        e->frame[f].n_cmd = 1;
        e->frame[f].cycle_us = e->cycle_us;
        e->frame[f].cmd = eni_alloc(e, sizeof *e->frame[f].cmd);
        if (!e->frame[f].cmd)
            return -ENOMEM;
        *e->frame[f].cmd = (struct ecat_eni_fcmd){ .states = 1u << AL_SAFEOP | 1u << AL_OP,
            .comment = "process data", .cmd = ECAT_LRW, .addr = p->log_start, .has_addr = true,
            .len = p->len, .has_cnt = true, .cnt = p->wkc, .input_offs = p->img_off, .output_offs = p->img_off };
    }
    for (unsigned i = 0; i < img->n_vars; i++) {
        const struct ecat_pdo_var *v = &img->var[i];
        const char *slave = v->pos < e->n_slaves ? e->slave[v->pos].name : "?";
        char name[256];
        snprintf(name, sizeof name, "%s.%s.%s", slave, v->pdo_name, v->name);
        e->var[e->n_vars++] = (struct ecat_eni_var){ .name = eni_strdup(e, name),
            .data_type = v->bitlen == 1 ? "BIT" : takt_ecat_coe_type_name(v->data_type),
            .bitsize = v->bitlen, .bitoffs = v->bit_off, .input = v->input };
    }
    return 0;
}

int ecat_eni_from_scan(struct ecat_eni **out, const struct ecat_sii *const *sii,
                       const uint16_t *phys, unsigned n, const struct ecat_pdo_image *img,
                       uint32_t cycle_us)
{
    *out = NULL;
    struct ecat_eni *e = eni_new();
    if (!e)
        return -ENOMEM;
    e->master_name = "takt";
    e->cycle_us = cycle_us;
    e->n_slaves = n;
    e->slave = eni_alloc(e, (n ? n : 1) * sizeof *e->slave);
    int rc = e->slave ? 0 : -ENOMEM;
    for (unsigned i = 0; rc == 0 && i < n; i++)
        rc = scan_slave(e, i, sii[i], phys ? phys[i] : (uint16_t)(0x1001 + i),
                        img ? ecat_pdo_slave(img, (uint16_t)i) : NULL, cycle_us);
    if (rc == 0 && img)
        rc = scan_image(e, img);
    if (rc < 0) {
        ecat_eni_free(e);
        return rc;
    }
    *out = e;
    return 0;
}
