/* A simulated device shaped after one ENI slave (ETG.2100): identity, SMs, the PDOs the
 * master assigns or configures, mailbox, DC, and every object its CoE init commands
 * write — so that the network a master expects can be simulated exactly. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/eni.h"
#include "sim/device_ext.h"
#include "sim/esi.h"
#include "util/wire.h"

static bool in_map_range(uint16_t i) { return (i >= 0x1600 && i <= 0x17FF) || (i >= 0x1A00 && i <= 0x1BFF); }
static bool in_assign_range(uint16_t i) { return i >= 0x1C10 && i <= 0x1C2F; }

static bool coe_writes(const struct ecat_eni_slave *sl, uint16_t index)
{
    for (unsigned i = 0; i < sl->n_coe; i++)
        if (sl->coe[i].ccs == 1 && sl->coe[i].index == index)
            return true;
    return false;
}

static int sm_of_pdo(const struct ecat_eni_slave *sl, const struct ecat_eni_pdo *p)
{
    for (unsigned s = 0; s < sl->n_sm; s++)
        for (unsigned k = 0; k < sl->sm[s].n_pdo && k < 64; k++)
            if (sl->sm[s].pdo[k] == p->index)
                return sl->sm[s].no;
    return -1;
}

static uint16_t entry_type(const struct ecat_eni_entry *e)
{
    uint16_t bits;
    uint16_t t = e->data_type && *e->data_type ? od_type_from_name(e->data_type, &bits) : 0;
    if (t)
        return t;
    return e->bitlen == 1 ? OD_BOOL : e->bitlen < 8 ? (uint16_t)(OD_BIT1 + e->bitlen - 1)
         : e->bitlen == 8 ? OD_USINT : e->bitlen == 16 ? OD_UINT : e->bitlen == 32 ? OD_UDINT : OD_OSTRING;
}

static int add_pdo(struct sim_device_desc *d, const struct ecat_eni_slave *sl,
                   const struct ecat_eni_pdo *p, int sm, char *err, size_t errlen)
{
    struct sim_pdo *arr = p->input ? d->txpdo : d->rxpdo;
    unsigned *n = p->input ? &d->n_txpdo : &d->n_rxpdo;
    for (unsigned i = 0; i < *n; i++)
        if (arr[i].index == p->index)
            return 0;
    if (*n == SIM_MAX_PDO || p->n_entries > SIM_MAX_PDO_ENTRY) {
        snprintf(err, errlen, "slave '%s': more than %d %s or %d entries in PDO 0x%04X",
                 sl->name ? sl->name : "", SIM_MAX_PDO, p->input ? "TxPDOs" : "RxPDOs",
                 SIM_MAX_PDO_ENTRY, p->index);
        return -EINVAL;
    }
    struct sim_pdo *q = &arr[(*n)++];
    memset(q, 0, sizeof *q);
    q->index = p->index;
    q->sm = (int8_t)sm;
    /* a PDO the master configures over CoE cannot be fixed, whatever the ENI says */
    q->fixed = p->fixed && !coe_writes(sl, p->index);
    q->mandatory = p->mandatory;
    snprintf(q->name, sizeof q->name, "%s", p->name ? p->name : "");
    for (unsigned k = 0; k < p->n_entries; k++) {
        const struct ecat_eni_entry *e = &p->entry[k];
        struct sim_pdo_entry *qe = &q->e[q->n++];
        qe->index = e->index;
        qe->sub = e->subindex;
        qe->bits = e->bitlen;
        qe->datatype = e->index ? entry_type(e) : 0;
        snprintf(qe->name, sizeof qe->name, "%s", e->name ? e->name : "");
    }
    return 0;
}

/* PDOs in SM assignment order first (that order is the image layout and the default
 * assignment), then the rest unassigned. */
static int pdos(struct sim_device_desc *d, const struct ecat_eni_slave *sl, char *err, size_t errlen)
{
    for (unsigned s = 0; s < sl->n_sm; s++)
        for (unsigned k = 0; k < sl->sm[s].n_pdo && k < 64; k++)
            for (unsigned i = 0; i < sl->n_pdo; i++)
                if (sl->pdo[i].index == sl->sm[s].pdo[k]) {
                    int rc = add_pdo(d, sl, &sl->pdo[i], sl->sm[s].no, err, errlen);
                    if (rc)
                        return rc;
                }
    /* then every other PDO the ENI lists (the device's offer, e.g. a drive's 31/35):
     * assignable by a master that chooses other PDOs than this ENI does */
    for (unsigned i = 0; i < sl->n_pdo; i++) {
        int rc = add_pdo(d, sl, &sl->pdo[i], sm_of_pdo(sl, &sl->pdo[i]), err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

/* --- PDOs the ENI does not describe but configures over CoE ------------------------ */

static struct sim_pdo *find_pdo(struct sim_device_desc *d, uint16_t index)
{
    struct sim_pdo *arr = index >= 0x1A00 ? d->txpdo : d->rxpdo;
    unsigned n = index >= 0x1A00 ? d->n_txpdo : d->n_rxpdo;
    for (unsigned i = 0; i < n; i++)
        if (arr[i].index == index)
            return &arr[i];
    return NULL;
}

static struct sim_pdo *new_pdo(struct sim_device_desc *d, const struct ecat_eni_slave *sl, uint16_t index,
                               char *err, size_t errlen)
{
    bool tx = index >= 0x1A00;
    unsigned *n = tx ? &d->n_txpdo : &d->n_rxpdo;
    if (*n == SIM_MAX_PDO) {
        snprintf(err, errlen, "slave '%s': more than %d %s (CoE init commands configure 0x%04X)",
                 sl->name ? sl->name : "", SIM_MAX_PDO, tx ? "TxPDOs" : "RxPDOs", index);
        return NULL;
    }
    struct sim_pdo *q = &(tx ? d->txpdo : d->rxpdo)[(*n)++];
    memset(q, 0, sizeof *q);
    q->index = index;
    q->sm = -1;
    snprintf(q->name, sizeof q->name, "%s", tx ? "Inputs" : "Outputs");
    return q;
}

/* A slave whose ENI lists no PDO (EC-Engineer for a device whose ESI it did not have)
 * but whose CoE init commands write mappings (0x16xx/0x1Axx) and assignments (0x1C1n):
 * the device has those PDOs, mapped as the downloads leave them, assigned to the SM the
 * downloads put them in. A PDO only assigned, never mapped, takes what the SM carries
 * by the ENI's ProcessData (Send/Recv BitLength) as padding, so its size is right. */
static int coe_pdos(struct sim_device_desc *d, const struct ecat_eni_slave *sl, char *err, size_t errlen)
{
    uint32_t v[SIM_MAX_PDO_ENTRY + 1];
    for (unsigned i = 0; i < sl->n_coe; i++) {
        const struct ecat_eni_coe *c = &sl->coe[i];
        if (c->ccs != 1 || !in_map_range(c->index) || find_pdo(d, c->index))
            continue;
        struct sim_pdo *q = new_pdo(d, sl, c->index, err, errlen);
        if (!q)
            return -EINVAL;
        /* the content the downloads of this object leave, in file order */
        unsigned n = ecat_eni_coe_array(sl, c->index, 4, v, SIM_MAX_PDO_ENTRY + 1);
        for (unsigned k = 1; k <= n; k++) {
            struct sim_pdo_entry *e = &q->e[q->n++];
            e->index = (uint16_t)(v[k] >> 16);
            e->sub = (uint8_t)(v[k] >> 8);
            e->bits = (uint8_t)v[k];
            struct ecat_eni_entry ee = { .index = e->index, .subindex = e->sub, .bitlen = e->bits };
            e->datatype = e->index ? entry_type(&ee) : 0;
            snprintf(e->name, sizeof e->name, "0x%04X:%02X", e->index, e->sub);
        }
    }
    /* the assignments: each PDO to the SM whose 0x1C1n lists it */
    for (unsigned i = 0; i < sl->n_coe; i++) {
        const struct ecat_eni_coe *c = &sl->coe[i];
        if (c->ccs != 1 || c->index < 0x1C12 || c->index > 0x1C17)
            continue;
        unsigned top = ecat_eni_coe_array(sl, c->index, 2, v, SIM_MAX_PDO_ENTRY + 1);
        for (unsigned k = 1; k <= top; k++) {
            uint16_t idx = (uint16_t)v[k];
            if (!in_map_range(idx))
                continue;
            struct sim_pdo *q = find_pdo(d, idx);
            if (!q && !(q = new_pdo(d, sl, idx, err, errlen)))
                return -EINVAL;
            if (q->sm < 0)
                q->sm = (int8_t)(c->index - 0x1C10);
        }
    }
    /* assigned but never mapped: padding for what the ENI's ProcessData leaves over */
    for (int tx = 0; tx < 2; tx++) {
        struct sim_pdo *arr = tx ? d->txpdo : d->rxpdo;
        unsigned n = tx ? d->n_txpdo : d->n_rxpdo, bits = 0;
        struct sim_pdo *empty = NULL;
        for (unsigned i = 0; i < n; i++) {
            if (arr[i].sm < 0)
                continue;
            for (unsigned k = 0; k < arr[i].n; k++)
                bits += arr[i].e[k].bits;
            if (!arr[i].n && !empty)
                empty = &arr[i];
        }
        uint32_t want = tx ? sl->recv_bitlen : sl->send_bitlen;
        for (uint32_t left = want > bits ? want - bits : 0; empty && left && empty->n < SIM_MAX_PDO_ENTRY;) {
            uint8_t b = left > 248 ? 248 : (uint8_t)left;
            empty->e[empty->n++] = (struct sim_pdo_entry){ .bits = b };
            left -= b;
        }
    }
    return 0;
}

static void sms(struct sim_device_desc *d, const struct ecat_eni_slave *sl)
{
    if (sl->has_mbx) {
        d->sm[0] = (struct sim_sm_desc){ sl->mbx_send_start, sl->mbx_send_len, 0x26, 1, SIM_SM_MBX_OUT };
        d->sm[1] = (struct sim_sm_desc){ sl->mbx_recv_start, sl->mbx_recv_len, 0x22, 1, SIM_SM_MBX_IN };
        d->n_sm = 2;
    }
    for (unsigned s = 0; s < sl->n_sm; s++) {
        const struct ecat_eni_sm *e = &sl->sm[s];
        if (e->no < 0 || e->no >= SIM_MAX_SM || (!e->outputs && !e->input))
            continue;
        d->sm[e->no] = (struct sim_sm_desc){ e->start, e->default_size, e->ctrl, e->enable,
                                             e->outputs ? SIM_SM_OUTPUTS : SIM_SM_INPUTS };
        if ((unsigned)e->no + 1 > d->n_sm)
            d->n_sm = (unsigned)e->no + 1;
    }
}

/* Objects the CoE init commands write that neither the PDOs nor the standard objects
 * provide: plain read/write entries of the written size (complete access: a record
 * whose sub 1 takes the rest). */
static int extra_objects(struct sim_od *od, const struct sim_device_desc *d,
                         const struct ecat_eni_slave *sl)
{
    for (unsigned i = 0; i < sl->n_coe; i++) {
        const struct ecat_eni_coe *c = &sl->coe[i];
        if (c->ccs != 1 || in_map_range(c->index) || in_assign_range(c->index) ||
            (c->index >= 0x1000 && c->index <= 0x101F) || c->index == 0x1C00 || !c->len)
            continue;
        if ((c->index == 0x1C32 || c->index == 0x1C33) && d->n_dc_opmode)
            continue;                 /* built by device_od.c */
        bool in_pdo = false;
        for (unsigned p = 0; p < sl->n_pdo; p++)
            for (unsigned k = 0; k < sl->pdo[p].n_entries; k++)
                in_pdo |= sl->pdo[p].entry[k].index == c->index &&
                          (c->complete_access || sl->pdo[p].entry[k].subindex == c->subindex);
        if (in_pdo)
            continue;
        unsigned bytes = c->len > 512 ? 512 : c->len;
        uint16_t t = bytes == 1 ? OD_USINT : bytes == 2 ? OD_UINT : bytes == 4 ? OD_UDINT : OD_OSTRING;
        struct od_object *o = od_find(od, c->index);
        if (c->complete_access) {
            if (o || bytes < 3)
                continue;
            o = od_add_object(od, c->index, OD_RECORD, 0, c->comment ? c->comment : "");
            if (!o || !od_add_entry(o, 0, OD_USINT, 8, OD_RO, "SubIndex 000") ||
                !od_add_entry(o, 1, OD_OSTRING, (uint16_t)(8 * (bytes - 2)), OD_RW, "Data"))
                return -ENOMEM;
            od_set(&o->e[0], 1);
            continue;
        }
        if (c->subindex == 0 && !o) {
            if (!od_add_var(od, c->index, c->comment ? c->comment : "", t, (uint16_t)(8 * bytes), OD_RW, 0))
                return -ENOMEM;
            continue;
        }
        if (!o) {
            o = od_add_object(od, c->index, OD_RECORD, 0, c->comment ? c->comment : "");
            if (!o || !od_add_entry(o, 0, OD_USINT, 8, OD_RO, "SubIndex 000"))
                return -ENOMEM;
        }
        if (o->code == OD_VAR || od_entry(o, c->subindex))
            continue;
        if (!od_add_entry(o, c->subindex, t, (uint16_t)(8 * bytes), OD_RW, ""))
            return -ENOMEM;
        if (od_max_sub(o) < c->subindex)
            od_set(&o->e[0], c->subindex);
    }
    /* every object any PDO of the slave maps, so configured mappings find them */
    for (unsigned p = 0; p < sl->n_pdo; p++)
        for (unsigned k = 0; k < sl->pdo[p].n_entries; k++) {
            const struct ecat_eni_entry *e = &sl->pdo[p].entry[k];
            uint16_t acc = sl->pdo[p].input ? (OD_RO | OD_TXPDO) : (OD_RW | OD_RXPDO);
            if (!e->index)
                continue;
            struct od_entry *x = od_find_entry(od, e->index, e->subindex);
            if (x) {
                x->access |= acc & (OD_RXPDO | OD_TXPDO);
                continue;
            }
            struct od_object *o = od_find(od, e->index);
            if (!o && e->subindex == 0) {
                if (!od_add_var(od, e->index, e->name ? e->name : "", entry_type(e), e->bitlen, acc, 0))
                    return -ENOMEM;
                continue;
            }
            if (!o) {
                o = od_add_object(od, e->index, OD_RECORD, 0, e->name ? e->name : "");
                if (!o || !od_add_entry(o, 0, OD_USINT, 8, OD_RO, "SubIndex 000"))
                    return -ENOMEM;
            }
            if (o->code == OD_VAR)
                continue;
            if (!od_add_entry(o, e->subindex, entry_type(e), e->bitlen, acc, e->name ? e->name : ""))
                return -ENOMEM;
            if (od_max_sub(o) < e->subindex)
                od_set(&o->e[0], e->subindex);
        }
    return 0;
}

int sim_device_desc_from_eni(const struct ecat_eni_slave *sl, struct sim_device_desc *d,
                             struct sim_od *extra, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    od_init(extra);
    const char *n = sl->name ? sl->name : "ENI slave";
    const char *p = strchr(n, '('), *q = p ? strchr(p, ')') : NULL;
    if (p && q && q > p + 1)          /* TwinCAT's "Term 2 (EL2008)": the device is EL2008 */
        snprintf(d->name, sizeof d->name, "%.*s", (int)(q - p - 1), p + 1);
    else
        snprintf(d->name, sizeof d->name, "%s", n);
    snprintf(d->type, sizeof d->type, "%s", sl->product_revision && *sl->product_revision
                                                ? sl->product_revision : d->name);
    d->vendor = sl->id.vendor;
    d->product = sl->id.product;
    d->revision = sl->id.revision;
    d->serial = sl->id.serial;
    d->esc_type = 0x11;
    d->n_fmmu_hw = 8;
    d->n_sm_hw = 8;
    d->ram_kb = 8;
    d->features = 0x01CC;
    sms(d, sl);
    int rc = pdos(d, sl, err, errlen);
    if (!rc)
        rc = coe_pdos(d, sl, err, errlen);
    /* the ENI lists the device's whole offer (a drive's 31/35 PDOs); the SII holds
     * the ones assigned, the rest is in the dictionary */
    d->sii_assigned_pdos_only = true;
    if (rc)
        return rc;
    d->n_fmmu = 0;
    if (d->n_rxpdo)
        d->fmmu_use[d->n_fmmu++] = 1;
    if (d->n_txpdo)
        d->fmmu_use[d->n_fmmu++] = 2;
    if (sl->has_mbx) {
        d->boot_out_start = sl->boot_send_start;   /* the master sends into SM0 */
        d->boot_out_len = sl->boot_send_len;
        d->boot_in_start = sl->boot_recv_start;
        d->boot_in_len = sl->boot_recv_len;
        d->mbx_protocols = (uint8_t)(sl->mbx_proto ? sl->mbx_proto : MBX_PROTO_COE);
        /* an <SoE> or <EoE> element in <Mailbox> means the slave speaks it (ETG.2100) */
        d->mbx_protocols |= (uint8_t)((sl->has_soe ? MBX_PROTO_SOE : 0) | (sl->has_eoe ? MBX_PROTO_EOE : 0));
        d->coe_details = 0x01 | 0x02 | 0x20;      /* SDO, SDO info, complete access */
        for (unsigned i = 0; i < sl->n_coe; i++) {
            if (sl->coe[i].ccs != 1)
                continue;
            if (in_assign_range(sl->coe[i].index))
                d->coe_details |= 0x04;
            if (in_map_range(sl->coe[i].index))
                d->coe_details |= 0x08;
        }
    }
    if (sl->has_dc && sl->assign_activate) {
        d->n_dc_opmode = 1;
        d->dc_opmode[0] = (struct sim_dc_opmode){ "DC", sl->assign_activate, sl->cycle0,
                                                  (uint32_t)sl->shift0 };
        d->dc_required = (sl->assign_activate & 0x0300) != 0;
    }
    rc = extra_objects(extra, d, sl);
    if (rc) {
        od_free(extra);
        snprintf(err, errlen, "slave '%s': out of memory", d->name);
        return rc;
    }
    sim_desc_guess_behaviour(d, extra);
    return 0;
}

int sim_device_from_eni(const struct ecat_eni_slave *sl, struct sim_device **out,
                        char *err, size_t errlen)
{
    struct sim_device_desc *d = malloc(sizeof *d);
    struct sim_od extra;
    if (!d)
        return -ENOMEM;
    int rc = sim_device_desc_from_eni(sl, d, &extra, err, errlen);
    if (!rc) {
        rc = sim_device_new(d, &extra, out);
        if (rc)
            snprintf(err, errlen, "slave '%s': cannot build it: %s", d->name, strerror(-rc));
        od_free(&extra);
    }
    free(d);
    return rc;
}
