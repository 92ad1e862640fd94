/* Completes a device's object dictionary from its description: identity and
 * communication objects, PDO mapping (0x16xx/0x1Axx) and assignment (0x1C1x), SM
 * parameters 0x1C32/0x1C33 and the application objects the PDOs map (ETG.1000.6 5.6.7). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "ecat/proto.h"
#include "sim/device_ext.h"

#define PDO_CONFIG_SLOTS 16   /* entries a configurable mapping object can hold */

static int add_string(struct sim_od *od, uint16_t index, const char *name, const char *value)
{
    if (od_find(od, index))
        return 0;
    size_t n = strlen(value);
    struct od_entry *e = od_add_var(od, index, name, OD_VSTRING, (uint16_t)(8 * (n ? n : 1)), OD_RO, 0);
    if (!e)
        return -ENOMEM;
    memcpy(e->val, value, n);
    return 0;
}

static int add_u32(struct sim_od *od, uint16_t index, const char *name, uint32_t v)
{
    if (od_find(od, index))
        return 0;
    return od_add_var(od, index, name, OD_UDINT, 32, OD_RO, v) ? 0 : -ENOMEM;
}

static struct od_object *add_record(struct sim_od *od, uint16_t index, uint8_t code,
                                    uint16_t dtype, const char *name, uint8_t n, uint16_t sub0_access)
{
    struct od_object *o = od_add_object(od, index, code, dtype, name);
    if (!o)
        return NULL;
    struct od_entry *e = od_add_entry(o, 0, OD_USINT, 8, sub0_access, "SubIndex 000");
    if (!e)
        return NULL;
    od_set(e, n);
    return o;
}

static int identity(struct sim_dev *d)
{
    struct sim_od *od = &d->od;
    if (od_find(od, 0x1018))
        return 0;
    struct od_object *o = add_record(od, 0x1018, OD_RECORD, 0x0023, "Identity", 4, OD_RO);
    static const char *const names[] = { "Vendor ID", "Product code", "Revision", "Serial number" };
    const uint32_t v[] = { d->desc.vendor, d->desc.product, d->desc.revision, d->desc.serial };
    for (unsigned i = 0; o && i < 4; i++) {
        struct od_entry *e = od_add_entry(o, (uint8_t)(i + 1), OD_UDINT, 32, OD_RO, names[i]);
        if (!e)
            return -ENOMEM;
        od_set(e, v[i]);
    }
    return o ? 0 : -ENOMEM;
}

static int sm_types(struct sim_dev *d)
{
    struct sim_od *od = &d->od;
    if (od_find(od, 0x1C00) || !d->desc.n_sm)
        return 0;
    struct od_object *o = add_record(od, 0x1C00, OD_ARRAY, OD_USINT, "Sync manager type",
                                     (uint8_t)d->desc.n_sm, OD_RO);
    for (unsigned i = 0; o && i < d->desc.n_sm; i++) {
        char n[24];
        snprintf(n, sizeof n, "SubIndex %03u", i + 1);
        struct od_entry *e = od_add_entry(o, (uint8_t)(i + 1), OD_USINT, 8, OD_RO, n);
        if (!e)
            return -ENOMEM;
        od_set(e, d->desc.sm[i].type);
    }
    return o ? 0 : -ENOMEM;
}

/* Application object for a PDO entry, created when the ESI dictionary lacks it. */
static int app_entry(struct sim_dev *d, const struct sim_pdo_entry *pe, bool rx)
{
    if (!pe->index)
        return 0;
    uint16_t map = rx ? OD_RXPDO : OD_TXPDO;
    struct od_entry *e = od_find_entry(&d->od, pe->index, pe->sub);
    if (e) {
        e->access |= map;
        return 0;
    }
    uint16_t access = (uint16_t)((rx ? OD_RW : OD_RO) | map);
    struct od_object *o = od_find(&d->od, pe->index);
    if (!o && pe->sub == 0)
        return od_add_var(&d->od, pe->index, pe->name, pe->datatype, pe->bits, access, 0) ? 0 : -ENOMEM;
    if (!o) {
        o = add_record(&d->od, pe->index, OD_RECORD, 0, pe->name, 0, OD_RO);
        if (!o)
            return -ENOMEM;
    }
    if (!od_add_entry(o, pe->sub, pe->datatype, pe->bits, access, pe->name))
        return -ENOMEM;
    if (o->code != OD_VAR && od_max_sub(o) < pe->sub)
        od_set(&o->e[0], pe->sub);
    return 0;
}

static int mapping(struct sim_dev *d, const struct sim_pdo *p, bool rx)
{
    for (unsigned k = 0; k < p->n; k++)
        if (app_entry(d, &p->e[k], rx))
            return -ENOMEM;
    if (od_find(&d->od, p->index))
        return 0;
    bool config = (d->desc.coe_details & 0x08) && !p->fixed;
    uint16_t acc = config ? OD_RW_PREOP : OD_RO;
    unsigned slots = config && p->n < PDO_CONFIG_SLOTS ? PDO_CONFIG_SLOTS : p->n;
    struct od_object *o = add_record(&d->od, p->index, OD_RECORD, 0x0021, p->name, (uint8_t)p->n, acc);
    for (unsigned k = 0; o && k < slots; k++) {
        char n[24];
        snprintf(n, sizeof n, "SubIndex %03u", k + 1);
        struct od_entry *e = od_add_entry(o, (uint8_t)(k + 1), OD_UDINT, 32, acc, n);
        if (!e)
            return -ENOMEM;
        if (k < p->n)
            od_set(e, (uint32_t)p->e[k].index << 16 | (uint32_t)p->e[k].sub << 8 | p->e[k].bits);
    }
    return o ? 0 : -ENOMEM;
}

/* 0x1C10 + n: PDOs assigned to SM n (0x1C12 = SM2 outputs, 0x1C13 = SM3 inputs). */
static int assignment(struct sim_dev *d, unsigned sm)
{
    const struct sim_device_desc *s = &d->desc;
    bool rx = s->sm[sm].type == SIM_SM_OUTPUTS;
    const struct sim_pdo *p = rx ? s->rxpdo : s->txpdo;
    unsigned np = rx ? s->n_rxpdo : s->n_txpdo;
    uint16_t index = (uint16_t)(0x1C10 + sm);
    if (od_find(&d->od, index))
        return 0;
    uint16_t acc = (s->coe_details & 0x04) ? OD_RW_PREOP : OD_RO;
    unsigned assigned = 0;
    for (unsigned i = 0; i < np; i++)
        assigned += p[i].sm == (int)sm;
    char name[40];
    snprintf(name, sizeof name, "%s process data mapping", rx ? "RxPDO assign" : "TxPDO assign");
    struct od_object *o = add_record(&d->od, index, OD_ARRAY, OD_UINT, rx ? "RxPDO assign" : "TxPDO assign",
                                     (uint8_t)assigned, acc);
    unsigned k = 0;
    for (unsigned i = 0; o && i < (np ? np : 1); i++) {
        char n[24];
        snprintf(n, sizeof n, "SubIndex %03u", i + 1);
        struct od_entry *e = od_add_entry(o, (uint8_t)(i + 1), OD_UINT, 16, acc, n);
        if (!e)
            return -ENOMEM;
        if (np && p[i].sm == (int)sm)
            od_set(&o->e[1 + k++], p[i].index);
    }
    return o ? 0 : -ENOMEM;
}

/* 0x1C32/0x1C33 SM output/input parameters (ETG.1020 sync modes) for DC devices. */
static int sm_params(struct sim_dev *d, uint16_t index, const char *name)
{
    if (od_find(&d->od, index))
        return 0;
    static const struct { uint8_t sub; uint16_t type, bits, acc; const char *name; } ent[] = {
        { 1, OD_UINT, 16, OD_RW_PREOP, "Sync mode" },
        { 2, OD_UDINT, 32, OD_RW_PREOP, "Cycle time" },
        { 3, OD_UDINT, 32, OD_RO, "Shift time" },
        { 4, OD_UINT, 16, OD_RO, "Sync modes supported" },
        { 5, OD_UDINT, 32, OD_RO, "Minimum cycle time" },
        { 6, OD_UDINT, 32, OD_RO, "Calc and copy time" },
        { 9, OD_UDINT, 32, OD_RO, "Delay time" },
        { 0x20, OD_BOOL, 1, OD_RO | OD_TXPDO, "Sync error" },
    };
    struct od_object *o = add_record(&d->od, index, OD_RECORD, 0, name, 0x20, OD_RO);
    for (size_t i = 0; o && i < sizeof ent / sizeof ent[0]; i++)
        if (!od_add_entry(o, ent[i].sub, ent[i].type, ent[i].bits, ent[i].acc, ent[i].name))
            return -ENOMEM;
    if (!o)
        return -ENOMEM;
    uint32_t cycle = d->desc.n_dc_opmode ? d->desc.dc_opmode[0].cycle0 : 0;
    od_set_u(&d->od, index, 1, d->desc.dc_required ? 2 : 0);  /* 2 = DC SYNC0 */
    od_set_u(&d->od, index, 2, cycle ? cycle : 1000000);
    od_set_u(&d->od, index, 4, 0x0007);                        /* free run, SM, SYNC0 */
    od_set_u(&d->od, index, 5, 125000);
    od_set_u(&d->od, index, 6, 10000);
    return 0;
}

int sim_device_build_od(struct sim_dev *d)
{
    const struct sim_device_desc *s = &d->desc;
    bool servo = !strcmp(s->behaviour, "servo");
    char rev[16];
    snprintf(rev, sizeof rev, "%02X", (unsigned)(s->revision >> 16 & 0xFF));
    if (add_u32(&d->od, 0x1000, "Device type", servo ? 0x00020192 : 0x00001389) ||
        add_string(&d->od, 0x1008, "Device name", s->name) ||
        add_string(&d->od, 0x1009, "Hardware version", rev) ||
        add_string(&d->od, 0x100A, "Software version", "takt " TAKT_VERSION) ||
        identity(d) || sm_types(d))
        return -ENOMEM;
    for (unsigned i = 0; i < s->n_rxpdo; i++)
        if (mapping(d, &s->rxpdo[i], true))
            return -ENOMEM;
    for (unsigned i = 0; i < s->n_txpdo; i++)
        if (mapping(d, &s->txpdo[i], false))
            return -ENOMEM;
    for (unsigned sm = 0; sm < s->n_sm; sm++)
        if ((s->sm[sm].type == SIM_SM_OUTPUTS || s->sm[sm].type == SIM_SM_INPUTS) &&
            assignment(d, sm))
            return -ENOMEM;
    if (s->n_dc_opmode && (s->mbx_protocols & MBX_PROTO_COE) &&
        (sm_params(d, 0x1C32, "SM output parameter") || sm_params(d, 0x1C33, "SM input parameter")))
        return -ENOMEM;
    for (unsigned i = 0; i < d->od.n; i++)
        if (d->od.obj[i].code != OD_VAR)
            od_layout(&d->od.obj[i]);
    return 0;
}
