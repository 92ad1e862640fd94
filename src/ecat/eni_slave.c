/* ENI reader, Config/Slave: Info, ProcessData (Send/Recv, SMs, PDOs), Mailbox with its
 * CoE init commands, InitCmds and DC (ETG.2100). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <takt/takt.h>
#include "util/wire.h"
#include "ecat/eni_read.h"
#include "ecat/eoe.h"

static int coe_cmd(struct rd *r, const xmlNode *n, struct ecat_eni_coe *c)
{
    int rc = eni_transitions(r, n, &c->transitions);
    if (rc < 0)
        return rc;
    c->line = (unsigned)xmlGetLineNo(n);
    c->comment = eni_text(r, eni_child(n, "Comment"));
    c->fixed = eni_attr_true(n, "Fixed");
    c->complete_access = eni_attr_true(n, "CompleteAccess");
    c->ccs = 1;
    OPT_NUM(r, n, "Ccs", 1, 2, c->ccs);
    REQ_NUM(r, n, "Index", 0, 0xFFFF, c->index);
    OPT_NUM(r, n, "SubIndex", 0, 0xFF, c->subindex);
    OPT_NUM(r, n, "Timeout", 0, UINT32_MAX, c->timeout_ms);
    xmlNode *d = eni_child(n, "Data");
    size_t len = 0;
    if (d && (rc = eni_hexdata(r, d, &c->data, &len)) < 0)
        return rc;
    if (c->ccs == 1 && !d)
        return eni_fail(r, n, -TAKT_ECONFIG, "expected <Data> for a download (Ccs 1) of 0x%04X:%02X, found none",
                       c->index, c->subindex);
    c->len = (uint16_t)len;
    return 0;
}

/* ETG.2100 Mailbox/SoE/InitCmds/InitCmd: Transition, Comment, Timeout, OpCode, DriveNo,
 * IDN, Elements, Attribute, Data. takt runs writes (OpCode 3, ETG.1000.6 Write Request). */
static int soe_cmd(struct rd *r, const xmlNode *n, struct ecat_eni_soe *c)
{
    int rc = eni_transitions(r, n, &c->transitions);
    if (rc < 0)
        return rc;
    c->line = (unsigned)xmlGetLineNo(n);
    c->comment = eni_text(r, eni_child(n, "Comment"));
    c->op = 3;
    c->elements = 0x40;
    OPT_NUM(r, n, "OpCode", 0, 7, c->op);
    if (c->op != 3)
        return eni_fail(r, n, -TAKT_ECONFIG, "expected <OpCode>3</OpCode> (an IDN write), found %u", c->op);
    OPT_NUM(r, n, "DriveNo", 0, 7, c->drive);
    REQ_NUM(r, n, "IDN", 0, 0xFFFF, c->idn);
    OPT_NUM(r, n, "Elements", 1, 0xFF, c->elements);
    OPT_NUM(r, n, "Attribute", 0, UINT32_MAX, c->attribute);
    OPT_NUM(r, n, "Timeout", 0, UINT32_MAX, c->timeout_ms);
    xmlNode *d = eni_child(n, "Data");
    size_t len = 0;
    if (!d)
        return eni_fail(r, n, -TAKT_ECONFIG, "expected <Data> for the write of IDN %u, found none", c->idn);
    if ((rc = eni_hexdata(r, d, &c->data, &len)) < 0)
        return rc;
    c->len = (uint16_t)len;
    return 0;
}

/* ETG.2100 Mailbox/EoE/InitCmds/InitCmd: Transition, Comment, Timeout, Data (the EoE
 * header and body, ETG.1000.6). Set-IP-parameter and set-address-filter requests. */
static int eoe_cmd(struct rd *r, const xmlNode *n, struct ecat_eni_eoe *c)
{
    int rc = eni_transitions(r, n, &c->transitions);
    if (rc < 0)
        return rc;
    c->line = (unsigned)xmlGetLineNo(n);
    c->comment = eni_text(r, eni_child(n, "Comment"));
    OPT_NUM(r, n, "Timeout", 0, UINT32_MAX, c->timeout_ms);
    xmlNode *d = eni_child(n, "Data");
    const uint8_t *b = NULL;
    size_t len = 0;
    if (!d)
        return eni_fail(r, n, -TAKT_ECONFIG, "expected <Data> (an EoE header and body), found none");
    if ((rc = eni_hexdata(r, d, &b, &len)) < 0)
        return rc;
    if (len < 4)
        return eni_fail(r, d, -TAKT_ECONFIG, "expected an EoE header of 4 bytes and a body, found %zu bytes", len);
    c->type = b[0] & 0x0F;
    if (c->type != 2 && c->type != 4)
        return eni_fail(r, d, -TAKT_ECONFIG, "expected an EoE set-IP-parameter (type 2) or set-address-filter "
                       "(type 4) request, found EoE type %u", c->type);
    c->body = b + 4;
    c->len = (uint16_t)(len - 4);
    struct takt_ecat_eoe_ip ip;
    struct takt_ecat_eoe_filter f;
    if (c->type == 2 ? ecat_eoe_ip_decode(c->body, c->len, &ip) : ecat_eoe_filter_decode(c->body, c->len, &f))
        return eni_fail(r, d, -TAKT_ECONFIG, "expected a %s body that holds every field its flags name, found %u bytes",
                        c->type == 2 ? "set-IP-parameter" : "set-address-filter", c->len);
    return 0;
}

/* --- slave -------------------------------------------------------------------------- */

static int slave_info(struct rd *r, const xmlNode *sl, struct ecat_eni_slave *s)
{
    xmlNode *info = eni_child(sl, "Info");
    if (!info)
        return eni_fail(r, sl, -TAKT_ECONFIG, "expected an <Info> element, found none");
    s->name = eni_text(r, eni_child(info, "Name"));
    REQ_NUM(r, info, "PhysAddr", 0, 0xFFFF, s->phys_addr);
    OPT_NUM(r, info, "AutoIncAddr", 0, 0xFFFF, s->auto_inc);
    REQ_NUM(r, info, "VendorId", 0, UINT32_MAX, s->id.vendor);
    REQ_NUM(r, info, "ProductCode", 0, UINT32_MAX, s->id.product);
    OPT_NUM(r, info, "RevisionNo", 0, UINT32_MAX, s->id.revision);
    OPT_NUM(r, info, "SerialNo", 0, UINT32_MAX, s->id.serial);
    s->product_revision = eni_text(r, eni_child(info, "ProductRevision"));
    return 0;
}

static int pdo(struct rd *r, const xmlNode *n, bool input, struct ecat_eni_pdo *p)
{
    p->input = input;
    p->fixed = eni_attr_true(n, "Fixed");
    p->mandatory = eni_attr_true(n, "Mandatory");
    p->sm = -1;
    xmlChar *sm = xmlGetProp(n, (const xmlChar *)"Sm");
    if (sm) {
        char *end;
        long v = strtol((const char *)sm, &end, 10);
        bool ok = *sm && !*end && v >= 0 && v < 16;
        xmlFree(sm);
        if (!ok)
            return eni_fail(r, n, -TAKT_ECONFIG, "expected Sm=\"0\"..\"15\"");
        p->sm = (int)v;
    }
    REQ_NUM(r, n, "Index", 0, 0xFFFF, p->index);
    p->name = eni_text(r, eni_child(n, "Name"));
    p->n_entries = eni_count(n, "Entry");
    p->entry = eni_alloc(r->eni, (p->n_entries ? p->n_entries : 1) * sizeof *p->entry);
    if (!p->entry)
        return -ENOMEM;
    unsigned i = 0;
    FOR_CHILD(e, n, "Entry") {
        struct ecat_eni_entry *x = &p->entry[i++];
        REQ_NUM(r, e, "Index", 0, 0xFFFF, x->index);
        OPT_NUM(r, e, "SubIndex", 0, 0xFF, x->subindex);
        REQ_NUM(r, e, "BitLen", 1, 0xFF, x->bitlen);
        x->name = eni_text(r, eni_child(e, "Name"));
        x->data_type = eni_text(r, eni_child(e, "DataType"));
    }
    return 0;
}

static int sm_elem(struct rd *r, const xmlNode *n, int no, struct ecat_eni_sm *s)
{
    s->no = no;
    const char *type = eni_text(r, eni_child(n, "Type"));
    s->input = strcmp(type, "Inputs") == 0;
    s->outputs = strcmp(type, "Outputs") == 0;
    OPT_NUM(r, n, "StartAddress", 0, 0xFFFF, s->start);
    OPT_NUM(r, n, "DefaultSize", 0, 0xFFFF, s->default_size);
    OPT_NUM(r, n, "MinSize", 0, 0xFFFF, s->min_size);
    OPT_NUM(r, n, "MaxSize", 0, 0xFFFF, s->max_size);
    OPT_NUM(r, n, "ControlByte", 0, 0xFF, s->ctrl);
    OPT_NUM(r, n, "Enable", 0, 0xFF, s->enable);
    FOR_CHILD(p, n, "Pdo") {
        if (s->n_pdo >= TAKT_ARRAY_SIZE(s->pdo))
            return eni_fail(r, p, -TAKT_ECONFIG, "expected at most %zu PDOs per SM", TAKT_ARRAY_SIZE(s->pdo));
        int64_t v;
        int rc = eni_num(r, p, 0, 0xFFFF, &v);
        if (rc < 0)
            return rc;
        s->pdo[s->n_pdo++] = (uint16_t)v;
    }
    return 0;
}

static int process_data(struct rd *r, const xmlNode *pd, struct ecat_eni_slave *s)
{
    if (!pd)
        return 0;
    xmlNode *snd = eni_child(pd, "Send"), *rcv = eni_child(pd, "Recv");
    if ((s->has_send = snd)) {
        REQ_NUM(r, snd, "BitStart", 0, UINT32_MAX, s->send_bitstart);
        REQ_NUM(r, snd, "BitLength", 0, UINT32_MAX, s->send_bitlen);
    }
    if ((s->has_recv = rcv)) {
        REQ_NUM(r, rcv, "BitStart", 0, UINT32_MAX, s->recv_bitstart);
        REQ_NUM(r, rcv, "BitLength", 0, UINT32_MAX, s->recv_bitlen);
    }
    for (xmlNode *c = pd->children; c; c = c->next) {
        int no;
        char tail;
        if (c->type != XML_ELEMENT_NODE || sscanf((const char *)c->name, "Sm%d%c", &no, &tail) != 1)
            continue;
        if (no < 0 || no > 15 || s->n_sm >= TAKT_ARRAY_SIZE(s->sm))
            return eni_fail(r, c, -TAKT_ECONFIG, "expected Sm0..Sm15 and at most %zu SMs", TAKT_ARRAY_SIZE(s->sm));
        int rc = sm_elem(r, c, no, &s->sm[s->n_sm++]);
        if (rc < 0)
            return rc;
    }
    s->n_pdo = eni_count(pd, "TxPdo") + eni_count(pd, "RxPdo");
    s->pdo = eni_alloc(r->eni, (s->n_pdo ? s->n_pdo : 1) * sizeof *s->pdo);
    if (!s->pdo)
        return -ENOMEM;
    unsigned i = 0;
    for (xmlNode *c = pd->children; c; c = c->next) {
        if (!eni_is(c, "TxPdo") && !eni_is(c, "RxPdo"))
            continue;
        int rc = pdo(r, c, eni_is(c, "TxPdo"), &s->pdo[i++]);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static uint16_t proto_bit(const char *p)
{
    static const struct { const char *name; uint16_t bit; } t[] = {
        { "AoE", MBX_PROTO_AOE }, { "EoE", MBX_PROTO_EOE }, { "CoE", MBX_PROTO_COE },
        { "FoE", MBX_PROTO_FOE }, { "SoE", MBX_PROTO_SOE }, { "VoE", MBX_PROTO_VOE } };
    for (size_t i = 0; i < TAKT_ARRAY_SIZE(t); i++)
        if (strcmp(p, t[i].name) == 0)
            return t[i].bit;
    return 0;
}

static int mailbox(struct rd *r, const xmlNode *mb, struct ecat_eni_slave *s)
{
    if (!(s->has_mbx = mb))
        return 0;
    xmlNode *snd = eni_child(mb, "Send"), *rcv = eni_child(mb, "Recv"), *bs = eni_child(mb, "BootStrap");
    if (!snd || !rcv)
        return eni_fail(r, mb, -TAKT_ECONFIG, "expected <Send> and <Recv>, found %s", snd ? "no <Recv>" : "no <Send>");
    REQ_NUM(r, snd, "Start", 0, 0xFFFF, s->mbx_send_start);
    REQ_NUM(r, snd, "Length", 0, 0xFFFF, s->mbx_send_len);
    REQ_NUM(r, rcv, "Start", 0, 0xFFFF, s->mbx_recv_start);
    REQ_NUM(r, rcv, "Length", 0, 0xFFFF, s->mbx_recv_len);
    if (bs) {
        xmlNode *bsnd = eni_child(bs, "Send"), *brcv = eni_child(bs, "Recv");
        OPT_NUM(r, bsnd, "Start", 0, 0xFFFF, s->boot_send_start);
        OPT_NUM(r, bsnd, "Length", 0, 0xFFFF, s->boot_send_len);
        OPT_NUM(r, brcv, "Start", 0, 0xFFFF, s->boot_recv_start);
        OPT_NUM(r, brcv, "Length", 0, 0xFFFF, s->boot_recv_len);
    }
    FOR_CHILD(p, mb, "Protocol")
        s->mbx_proto |= proto_bit(eni_text(r, p));
    xmlNode *list = eni_child(eni_child(mb, "CoE"), "InitCmds");
    s->n_coe = eni_count(list, "InitCmd");
    s->coe = eni_alloc(r->eni, (s->n_coe ? s->n_coe : 1) * sizeof *s->coe);
    if (!s->coe)
        return -ENOMEM;
    unsigned i = 0;
    FOR_CHILD(c, list, "InitCmd") {
        int rc = coe_cmd(r, c, &s->coe[i++]);
        if (rc < 0)
            return rc;
    }
    s->has_soe = eni_child(mb, "SoE");
    s->has_eoe = eni_child(mb, "EoE");
    list = eni_child(eni_child(mb, "SoE"), "InitCmds");
    s->n_soe = eni_count(list, "InitCmd");
    s->soe = eni_alloc(r->eni, (s->n_soe ? s->n_soe : 1) * sizeof *s->soe);
    if (!s->soe)
        return -ENOMEM;
    i = 0;
    FOR_CHILD(c, list, "InitCmd") {
        int rc = soe_cmd(r, c, &s->soe[i++]);
        if (rc < 0)
            return rc;
    }
    list = eni_child(eni_child(mb, "EoE"), "InitCmds");
    s->n_eoe = eni_count(list, "InitCmd");
    s->eoe = eni_alloc(r->eni, (s->n_eoe ? s->n_eoe : 1) * sizeof *s->eoe);
    if (!s->eoe)
        return -ENOMEM;
    i = 0;
    FOR_CHILD(c, list, "InitCmd") {
        int rc = eoe_cmd(r, c, &s->eoe[i++]);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int dc(struct rd *r, const xmlNode *d, struct ecat_eni_slave *s)
{
    if (!(s->has_dc = d))
        return 0;
    s->ref_clock = eni_truthy(eni_text(r, eni_child(d, "ReferenceClock")));
    OPT_NUM(r, d, "CycleTime0", 0, UINT32_MAX, s->cycle0);
    OPT_NUM(r, d, "CycleTime1", 0, UINT32_MAX, s->cycle1);
    OPT_NUM(r, d, "ShiftTime", INT32_MIN, INT32_MAX, s->shift0);
    OPT_NUM(r, d, "ShiftTime0", INT32_MIN, INT32_MAX, s->shift0);
    OPT_NUM(r, d, "ShiftTime1", INT32_MIN, INT32_MAX, s->shift1);
    OPT_NUM(r, d, "AssignActivate", 0, 0xFFFF, s->assign_activate);
    if (!s->assign_activate) {
        /* EC-Engineer puts the activation into an init command writing 0x0980 (2 bytes:
         * 0x0980 cyclic unit, 0x0981 activation) rather than into <DC> */
        for (unsigned i = 0; i < s->n_init; i++) {
            const struct ecat_eni_cmd *c = &s->init[i];
            if (c->ado == ESC_DC_CYC_UNIT && c->len == 2 && (c->transitions & ECAT_TR_BIT(ECAT_TR_PS)) &&
                (c->data[0] | c->data[1]))
                s->assign_activate = (uint16_t)(c->data[0] | c->data[1] << 8);
        }
    }
    return 0;
}

int eni_slave(struct rd *r, const xmlNode *sl, struct ecat_eni_slave *s)
{
    s->line = (unsigned)xmlGetLineNo(sl);
    int rc = slave_info(r, sl, s);
    if (rc == 0)
        rc = process_data(r, eni_child(sl, "ProcessData"), s);
    if (rc == 0)
        rc = mailbox(r, eni_child(sl, "Mailbox"), s);
    if (rc == 0)
        rc = eni_init_cmds(r, sl, &s->init, &s->n_init);
    if (rc == 0)
        rc = dc(r, eni_child(sl, "DC"), s);
    return rc;
}
