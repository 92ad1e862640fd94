/* Simulating exactly the slaves an ENI expects: a slave whose identity is in takt's
 * device catalogue is that device; any other is described from the ENI itself
 * (identity, SyncManagers, mailbox, PDOs, DC) so a master configured by that ENI
 * finds what it expects. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "ecat/eni.h"
#include "sim/esi.h"
#include "sim/net.h"

static uint16_t dtype_of(const char *t, unsigned bits)
{
    static const struct { const char *n; uint16_t v; } map[] = {
        { "BOOL", 0x0001 }, { "BIT", 0x0001 }, { "SINT", 0x0002 }, { "INT", 0x0003 },
        { "DINT", 0x0004 }, { "USINT", 0x0005 }, { "UINT", 0x0006 }, { "UDINT", 0x0007 },
        { "REAL", 0x0008 }, { "LREAL", 0x0011 }, { "LINT", 0x0015 }, { "ULINT", 0x001B },
        { "BYTE", 0x001E }, { "WORD", 0x001F }, { "DWORD", 0x0020 },
    };
    for (size_t i = 0; t && i < sizeof map / sizeof map[0]; i++)
        if (!strcasecmp(t, map[i].n))
            return map[i].v;
    /* unknown names (BIT2, ARRAY...): choose by size */
    return bits == 1 ? 0x0001 : bits <= 8 ? 0x0005 : bits <= 16 ? 0x0006 : bits <= 32 ? 0x0007 : 0x001B;
}

static void copy_pdo(struct sim_pdo *d, const struct ecat_eni_pdo *p)
{
    d->index = p->index;
    d->sm = (int8_t)p->sm;
    d->fixed = p->fixed;
    d->mandatory = p->mandatory;
    snprintf(d->name, sizeof d->name, "%s", p->name ? p->name : "");
    d->n = p->n_entries < SIM_MAX_PDO_ENTRY ? p->n_entries : SIM_MAX_PDO_ENTRY;
    for (unsigned i = 0; i < d->n; i++) {
        const struct ecat_eni_entry *e = &p->entry[i];
        d->e[i].index = e->index;
        d->e[i].sub = e->subindex;
        d->e[i].bits = e->bitlen;
        d->e[i].datatype = e->index ? dtype_of(e->data_type, e->bitlen) : 0;
        snprintf(d->e[i].name, sizeof d->e[i].name, "%s", e->name ? e->name : "");
    }
}

static void add_sm(struct sim_device_desc *d, uint16_t start, uint16_t len, uint8_t ctrl,
                   uint8_t enable, uint8_t type)
{
    if (d->n_sm < SIM_MAX_SM)
        d->sm[d->n_sm++] = (struct sim_sm_desc){ .start = start, .len = len, .control = ctrl,
                                                 .enable = enable, .type = type };
}

/* The description a slave of the ENI implies. */
static void desc_from_eni(struct sim_device_desc *d, const struct ecat_eni_slave *s)
{
    memset(d, 0, sizeof *d);
    const char *n = s->name ? s->name : "ENI slave";
    const char *p = strchr(n, '('), *q = p ? strchr(p, ')') : NULL;
    if (p && q && q > p + 1)          /* "Term 2 (EL2008)" -> "EL2008" */
        snprintf(d->name, sizeof d->name, "%.*s", (int)(q - p - 1), p + 1);
    else
        snprintf(d->name, sizeof d->name, "%s", n);
    snprintf(d->type, sizeof d->type, "%s", d->name);
    d->vendor = s->id.vendor;
    d->product = s->id.product;
    d->revision = s->id.revision;
    d->serial = s->id.serial;
    d->esc_type = 0x11;
    d->n_fmmu_hw = 8;
    d->n_sm_hw = 8;
    d->ram_kb = 8;
    d->features = s->has_dc ? 0x01CC : 0x01C0;
    if (s->has_mbx) {
        add_sm(d, s->mbx_send_start, s->mbx_send_len, 0x26, 1, SIM_SM_MBX_OUT);
        add_sm(d, s->mbx_recv_start, s->mbx_recv_len, 0x22, 1, SIM_SM_MBX_IN);
        d->mbx_protocols = (uint8_t)s->mbx_proto;
        if (s->mbx_proto & MBX_PROTO_COE)
            d->coe_details = 0x01 | 0x02 | 0x04 | 0x08 | 0x20;
    }
    for (unsigned i = 0; i < s->n_sm; i++) {
        const struct ecat_eni_sm *e = &s->sm[i];
        if (!e->input && !e->outputs)
            continue;
        /* keep the ENI's SM numbering: pad with unused SMs */
        while (d->n_sm < (unsigned)e->no && d->n_sm < SIM_MAX_SM)
            add_sm(d, 0, 0, 0, 0, SIM_SM_UNUSED);
        add_sm(d, e->start, e->default_size, e->ctrl ? e->ctrl : (e->outputs ? 0x64 : 0x20),
               1, e->outputs ? SIM_SM_OUTPUTS : SIM_SM_INPUTS);
    }
    for (unsigned i = 0; i < s->n_pdo; i++) {
        const struct ecat_eni_pdo *pd = &s->pdo[i];
        if (pd->input && d->n_txpdo < SIM_MAX_PDO)
            copy_pdo(&d->txpdo[d->n_txpdo++], pd);
        else if (!pd->input && d->n_rxpdo < SIM_MAX_PDO)
            copy_pdo(&d->rxpdo[d->n_rxpdo++], pd);
    }
    d->n_fmmu = 3;
    d->fmmu_use[0] = 1;
    d->fmmu_use[1] = 2;
    d->fmmu_use[2] = 3;
    if (s->has_dc && s->assign_activate) {
        d->n_dc_opmode = 1;
        snprintf(d->dc_opmode[0].name, sizeof d->dc_opmode[0].name, "DC");
        d->dc_opmode[0].assign_activate = s->assign_activate;
        d->dc_opmode[0].cycle0 = s->cycle0;
    }
    snprintf(d->behaviour, sizeof d->behaviour, "%s",
             d->n_txpdo ? "di" : d->n_rxpdo ? "do" : "coupler");
}

/* A catalogue device with the same identity, if takt has one. */
static int from_catalogue(const struct ecat_ident *id, struct sim_device **out, const char **name)
{
    for (unsigned i = 0; sim_device_names[i]; i++) {
        struct sim_device *d = NULL;
        if (sim_device_create(sim_device_names[i], &d, NULL, 0) || !d)
            continue;
        if (d->desc->vendor == id->vendor && d->desc->product == id->product) {
            *out = d;
            *name = sim_device_names[i];
            return 0;
        }
        d->ops->destroy(d);
    }
    return -ENOENT;
}

int takt_sim_create_eni(const char *path, const struct takt_sim_opts *o,
                        struct takt_sim **out, char *err, size_t errlen)
{
    struct ecat_eni *eni = NULL;
    struct takt_sim *s = NULL;
    *out = NULL;
    int rc = ecat_eni_load(path, &eni, err, errlen);
    if (rc)
        return rc;
    if (!eni->n_slaves) {
        snprintf(err, errlen, "%s: the ENI lists no slaves", path);
        ecat_eni_free(eni);
        return -EINVAL;
    }
    rc = sim_net_alloc(&s, eni->n_slaves, o);
    struct sim_device_desc *desc = rc ? NULL : malloc(sizeof *desc);
    if (!rc && !desc)
        rc = -ENOMEM;
    unsigned k = 0;
    for (; !rc && k < eni->n_slaves; k++) {
        const struct ecat_eni_slave *sl = &eni->slave[k];
        struct sim_device *d = NULL;
        const char *name = NULL;
        if (from_catalogue(&sl->id, &d, &name)) {
            desc_from_eni(desc, sl);
            name = "";                  /* not rebuilt from the catalogue after power loss */
            rc = sim_device_from_desc(desc, &d);
            if (rc)
                snprintf(err, errlen, "%s:%u: slave %u '%s': cannot build a device from the ENI: %s",
                         path, sl->line, k + 1, sl->name ? sl->name : "", strerror(-rc));
        }
        if (!rc && (rc = sim_net_add(s, k, d, name[0] ? name : d->desc->name))) {
            d->ops->destroy(d);
            snprintf(err, errlen, "slave %u: %s", k + 1, strerror(-rc));
        }
    }
    free(desc);
    ecat_eni_free(eni);
    if (rc) {
        if (s) {
            s->n = k ? k - 1 : 0;       /* the failed slot holds nothing */
            takt_sim_destroy(s);
        }
        return rc;
    }
    s->make_dev = NULL;
    s->reach = s->n;
    sim_net_topology(s, 0);
    *out = s;
    return 0;
}
