/* ENI writer (libxml2 text writer) and the ENI-like description of a scanned network
 * that `takt ecat xml` prints. What the writer emits, ecat_eni_load reads back. */
#include "ecat/eni_internal.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <libxml/xmlwriter.h>
#include <takt/takt.h>
#include "ecat/pdo.h"

typedef xmlTextWriter W;

static int el(W *w, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int el(W *w, const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = xmlTextWriterWriteVFormatElement(w, (const xmlChar *)name, fmt, ap);
    va_end(ap);
    return rc < 0 ? -1 : 0;
}

static int open_el(W *w, const char *name)
{
    return xmlTextWriterStartElement(w, (const xmlChar *)name) < 0 ? -1 : 0;
}

static int close_el(W *w)
{
    return xmlTextWriterEndElement(w) < 0 ? -1 : 0;
}

static int attr(W *w, const char *name, const char *val)
{
    return xmlTextWriterWriteAttribute(w, (const xmlChar *)name, (const xmlChar *)val) < 0 ? -1 : 0;
}

static int hex_el(W *w, const char *name, const uint8_t *b, size_t n)
{
    char buf[2 * 1486 + 1];
    if (n > 1486)
        n = 1486;
    for (size_t i = 0; i < n; i++)
        snprintf(buf + 2 * i, 3, "%02x", b[i]);
    buf[2 * n] = '\0';
    return el(w, name, "%s", buf);
}

static int w_transitions(W *w, uint32_t mask)
{
    int rc = 0;
    for (int t = 0; t < ECAT_TR_COUNT; t++)
        if (mask & ECAT_TR_BIT(t))
            rc |= el(w, "Transition", "%s", ecat_tr_name((enum ecat_tr)t));
    return rc;
}

static int w_init_cmd(W *w, const struct ecat_eni_cmd *c)
{
    int rc = open_el(w, "InitCmd");
    rc |= w_transitions(w, c->transitions);
    if (c->before_slave)
        rc |= el(w, "BeforeSlave", "true");
    if (c->comment && *c->comment)
        rc |= el(w, "Comment", "%s", c->comment);
    rc |= el(w, "Cmd", "%u", c->cmd);
    if (c->cmd >= ECAT_LRD && c->cmd <= ECAT_LRW) {
        rc |= el(w, "Addr", "%u", c->addr);
    } else {
        rc |= el(w, "Adp", "%u", c->adp);
        rc |= el(w, "Ado", "%u", c->ado);
    }
    rc |= hex_el(w, "Data", c->data, c->len);
    if (c->has_cnt)
        rc |= el(w, "Cnt", "%u", c->cnt);
    rc |= el(w, "Retries", "%u", c->retries);
    if (c->timeout_ms)
        rc |= el(w, "Timeout", "%u", c->timeout_ms);
    if (c->validate) {
        rc |= open_el(w, "Validate");
        rc |= hex_el(w, "Data", c->vdata, c->len);
        if (c->vmask)
            rc |= hex_el(w, "DataMask", c->vmask, c->len);
        if (c->vtimeout_ms)
            rc |= el(w, "Timeout", "%u", c->vtimeout_ms);
        rc |= close_el(w);
    }
    return rc | close_el(w);
}

static int w_init_cmds(W *w, const struct ecat_eni_cmd *c, unsigned n)
{
    if (!n)
        return 0;
    int rc = open_el(w, "InitCmds");
    for (unsigned i = 0; i < n; i++)
        rc |= w_init_cmd(w, &c[i]);
    return rc | close_el(w);
}

static int w_pdo(W *w, const struct ecat_eni_pdo *p)
{
    int rc = open_el(w, p->input ? "TxPdo" : "RxPdo");
    if (p->fixed)
        rc |= attr(w, "Fixed", "true");
    if (p->mandatory)
        rc |= attr(w, "Mandatory", "true");
    if (p->sm >= 0) {
        char sm[16];
        snprintf(sm, sizeof sm, "%d", p->sm);
        rc |= attr(w, "Sm", sm);
    }
    rc |= el(w, "Index", "#x%04x", p->index);
    rc |= el(w, "Name", "%s", p->name ? p->name : "");
    for (unsigned k = 0; k < p->n_entries; k++) {
        const struct ecat_eni_entry *e = &p->entry[k];
        rc |= open_el(w, "Entry");
        rc |= el(w, "Index", "#x%04x", e->index);
        if (e->index)
            rc |= el(w, "SubIndex", "%u", e->subindex);
        rc |= el(w, "BitLen", "%u", e->bitlen);
        if (e->name && *e->name)
            rc |= el(w, "Name", "%s", e->name);
        if (e->data_type && *e->data_type)
            rc |= el(w, "DataType", "%s", e->data_type);
        rc |= close_el(w);
    }
    return rc | close_el(w);
}

static int w_process_data(W *w, const struct ecat_eni_slave *s)
{
    int rc = open_el(w, "ProcessData");
    if (s->has_send) {
        rc |= open_el(w, "Send");
        rc |= el(w, "BitStart", "%u", s->send_bitstart) | el(w, "BitLength", "%u", s->send_bitlen);
        rc |= close_el(w);
    }
    if (s->has_recv) {
        rc |= open_el(w, "Recv");
        rc |= el(w, "BitStart", "%u", s->recv_bitstart) | el(w, "BitLength", "%u", s->recv_bitlen);
        rc |= close_el(w);
    }
    for (unsigned i = 0; i < s->n_sm; i++) {
        const struct ecat_eni_sm *m = &s->sm[i];
        char name[16];
        snprintf(name, sizeof name, "Sm%d", m->no);
        rc |= open_el(w, name);
        if (m->input || m->outputs)
            rc |= el(w, "Type", "%s", m->input ? "Inputs" : "Outputs");
        rc |= el(w, "DefaultSize", "%u", m->default_size);
        rc |= el(w, "StartAddress", "%u", m->start);
        rc |= el(w, "ControlByte", "%u", m->ctrl);
        rc |= el(w, "Enable", "%u", m->enable);
        for (unsigned k = 0; k < m->n_pdo; k++)
            rc |= el(w, "Pdo", "%u", m->pdo[k]);
        rc |= close_el(w);
    }
    for (unsigned i = 0; i < s->n_pdo; i++)
        rc |= w_pdo(w, &s->pdo[i]);
    return rc | close_el(w);
}

static int w_mailbox(W *w, const struct ecat_eni_slave *s)
{
    static const char *const proto[] = { "AoE", "EoE", "CoE", "FoE", "SoE", "VoE" };
    int rc = open_el(w, "Mailbox");
    rc |= open_el(w, "Send") | el(w, "Start", "%u", s->mbx_send_start) | el(w, "Length", "%u", s->mbx_send_len);
    rc |= close_el(w);
    rc |= open_el(w, "Recv") | el(w, "Start", "%u", s->mbx_recv_start) | el(w, "Length", "%u", s->mbx_recv_len);
    rc |= close_el(w);
    if (s->boot_send_len || s->boot_recv_len) {
        rc |= open_el(w, "BootStrap");
        rc |= open_el(w, "Send") | el(w, "Start", "%u", s->boot_send_start) | el(w, "Length", "%u", s->boot_send_len);
        rc |= close_el(w);
        rc |= open_el(w, "Recv") | el(w, "Start", "%u", s->boot_recv_start) | el(w, "Length", "%u", s->boot_recv_len);
        rc |= close_el(w) | close_el(w);
    }
    for (unsigned b = 0; b < 6; b++)
        if (s->mbx_proto & (1u << b))
            rc |= el(w, "Protocol", "%s", proto[b]);
    if (s->n_coe) {
        rc |= open_el(w, "CoE") | open_el(w, "InitCmds");
        for (unsigned i = 0; i < s->n_coe; i++) {
            const struct ecat_eni_coe *c = &s->coe[i];
            rc |= open_el(w, "InitCmd");
            if (c->fixed)
                rc |= attr(w, "Fixed", "true");
            if (c->complete_access)
                rc |= attr(w, "CompleteAccess", "true");
            rc |= w_transitions(w, c->transitions);
            if (c->comment && *c->comment)
                rc |= el(w, "Comment", "%s", c->comment);
            rc |= el(w, "Timeout", "%u", c->timeout_ms) | el(w, "Ccs", "%u", c->ccs);
            rc |= el(w, "Index", "%u", c->index) | el(w, "SubIndex", "%u", c->subindex);
            if (c->len)
                rc |= hex_el(w, "Data", c->data, c->len);
            rc |= close_el(w);
        }
        rc |= close_el(w) | close_el(w);
    }
    if (s->n_soe) {
        rc |= open_el(w, "SoE") | open_el(w, "InitCmds");
        for (unsigned i = 0; i < s->n_soe; i++) {
            const struct ecat_eni_soe *c = &s->soe[i];
            rc |= open_el(w, "InitCmd") | w_transitions(w, c->transitions);
            if (c->comment && *c->comment)
                rc |= el(w, "Comment", "%s", c->comment);
            rc |= el(w, "Timeout", "%u", c->timeout_ms) | el(w, "OpCode", "%u", c->op);
            rc |= el(w, "DriveNo", "%u", c->drive) | el(w, "IDN", "%u", c->idn);
            rc |= el(w, "Elements", "%u", c->elements) | el(w, "Attribute", "%u", c->attribute);
            rc |= hex_el(w, "Data", c->data, c->len) | close_el(w);
        }
        rc |= close_el(w) | close_el(w);
    }
    if (s->n_eoe) {
        rc |= open_el(w, "EoE") | open_el(w, "InitCmds");
        for (unsigned i = 0; i < s->n_eoe; i++) {
            const struct ecat_eni_eoe *c = &s->eoe[i];
            uint8_t d[4 + 256] = { c->type, 0x01, 0, 0 };   /* header: type, last fragment */
            size_t n = c->len < 256 ? c->len : 256;
            memcpy(d + 4, c->body, n);
            rc |= open_el(w, "InitCmd") | w_transitions(w, c->transitions);
            if (c->comment && *c->comment)
                rc |= el(w, "Comment", "%s", c->comment);
            rc |= el(w, "Timeout", "%u", c->timeout_ms) | hex_el(w, "Data", d, 4 + n) | close_el(w);
        }
        rc |= close_el(w) | close_el(w);
    }
    return rc | close_el(w);
}

static int w_slave(W *w, const struct ecat_eni_slave *s)
{
    int rc = open_el(w, "Slave") | open_el(w, "Info");
    rc |= el(w, "Name", "%s", s->name ? s->name : "");
    rc |= el(w, "PhysAddr", "%u", s->phys_addr) | el(w, "AutoIncAddr", "%u", s->auto_inc);
    rc |= el(w, "VendorId", "%u", s->id.vendor) | el(w, "ProductCode", "%u", s->id.product);
    rc |= el(w, "RevisionNo", "%u", s->id.revision) | el(w, "SerialNo", "%u", s->id.serial);
    if (s->product_revision && *s->product_revision)
        rc |= el(w, "ProductRevision", "%s", s->product_revision);
    rc |= close_el(w);
    rc |= w_process_data(w, s);
    if (s->has_mbx)
        rc |= w_mailbox(w, s);
    rc |= w_init_cmds(w, s->init, s->n_init);
    if (s->has_dc) {
        rc |= open_el(w, "DC") | el(w, "ReferenceClock", "%d", s->ref_clock ? 1 : 0);
        rc |= el(w, "CycleTime0", "%u", s->cycle0) | el(w, "CycleTime1", "%u", s->cycle1);
        rc |= el(w, "ShiftTime", "%d", s->shift0);
        if (s->assign_activate)
            rc |= el(w, "AssignActivate", "#x%04x", s->assign_activate);
        rc |= close_el(w);
    }
    return rc | close_el(w);
}

static const char *state_name(unsigned bit)
{
    switch (bit) {
    case AL_INIT: return "INIT";
    case AL_PREOP: return "PREOP";
    case AL_BOOT: return "BOOT";
    case AL_SAFEOP: return "SAFEOP";
    default: return "OP";
    }
}

static int w_cyclic(W *w, const struct ecat_eni *e)
{
    if (!e->n_frames && !e->cycle_us)
        return 0;
    int rc = open_el(w, "Cyclic");
    uint32_t cycle = e->n_frames && e->frame[0].cycle_us ? e->frame[0].cycle_us : e->cycle_us;
    if (cycle)
        rc |= el(w, "CycleTime", "%u", cycle);
    for (unsigned f = 0; f < e->n_frames; f++) {
        if (f && e->frame[f].cycle_us && e->frame[f].cycle_us != cycle) {
            /* a task with another cycle time gets its own <Cyclic> */
            cycle = e->frame[f].cycle_us;
            rc |= close_el(w) | open_el(w, "Cyclic") | el(w, "CycleTime", "%u", cycle);
        }
        rc |= open_el(w, "Frame");
        for (unsigned k = 0; k < e->frame[f].n_cmd; k++) {
            const struct ecat_eni_fcmd *c = &e->frame[f].cmd[k];
            rc |= open_el(w, "Cmd");
            for (unsigned s = 1; s <= AL_OP; s++)
                if (c->states & (1u << s))
                    rc |= el(w, "State", "%s", state_name(s));
            if (c->comment && *c->comment)
                rc |= el(w, "Comment", "%s", c->comment);
            rc |= el(w, "Cmd", "%u", c->cmd);
            if (c->has_addr)
                rc |= el(w, "Addr", "%u", c->addr);
            else
                rc |= el(w, "Adp", "%u", c->adp) | el(w, "Ado", "%u", c->ado);
            rc |= el(w, "DataLength", "%u", c->len);
            if (c->has_cnt)
                rc |= el(w, "Cnt", "%u", c->cnt);
            rc |= el(w, "InputOffs", "%u", c->input_offs) | el(w, "OutputOffs", "%u", c->output_offs);
            rc |= close_el(w);
        }
        rc |= close_el(w);
    }
    return rc | close_el(w);
}

static int w_image(W *w, const struct ecat_eni *e)
{
    int rc = open_el(w, "ProcessImage");
    for (int dir = 1; dir >= 0; dir--) {
        rc |= open_el(w, dir ? "Inputs" : "Outputs");
        rc |= el(w, "ByteSize", "%u", dir ? e->in_bytes : e->out_bytes);
        for (unsigned i = 0; i < e->n_vars; i++) {
            const struct ecat_eni_var *v = &e->var[i];
            if (v->input != (dir == 1))
                continue;
            rc |= open_el(w, "Variable") | el(w, "Name", "%s", v->name ? v->name : "");
            if (v->data_type && *v->data_type)
                rc |= el(w, "DataType", "%s", v->data_type);
            rc |= el(w, "BitSize", "%u", v->bitsize) | el(w, "BitOffs", "%u", v->bitoffs);
            rc |= close_el(w);
        }
        rc |= close_el(w);
    }
    return rc | close_el(w);
}

static int w_master(W *w, const struct ecat_eni *e)
{
    int rc = open_el(w, "Master") | open_el(w, "Info");
    rc |= el(w, "Name", "%s", e->master_name ? e->master_name : "takt");
    if (e->has_mac) {
        rc |= hex_el(w, "Destination", e->mac_dst, 6) | hex_el(w, "Source", e->mac_src, 6);
        uint8_t et[2] = { (uint8_t)e->ethertype, (uint8_t)(e->ethertype >> 8) };
        rc |= hex_el(w, "EtherType", et, 2);
    }
    rc |= close_el(w);
    rc |= w_init_cmds(w, e->master_init, e->n_master_init);
    return rc | close_el(w);
}

int ecat_eni_write(const char *path, const struct ecat_eni *eni, char *err, size_t errlen)
{
    W *w = xmlNewTextWriterFilename(path, 0);
    if (!w) {
        if (err && errlen)
            snprintf(err, errlen, "%s: cannot open for writing", path);
        return -EIO;
    }
    xmlTextWriterSetIndent(w, 1);
    xmlTextWriterSetIndentString(w, (const xmlChar *)"  ");
    int rc = xmlTextWriterStartDocument(w, "1.0", "UTF-8", NULL) < 0 ? -1 : 0;
    rc |= open_el(w, "EtherCATConfig") | attr(w, "Version", "1.3") | open_el(w, "Config");
    rc |= w_master(w, eni);
    for (unsigned i = 0; i < eni->n_slaves; i++)
        rc |= w_slave(w, &eni->slave[i]);
    rc |= w_cyclic(w, eni);
    rc |= w_image(w, eni);
    rc |= close_el(w) | close_el(w);
    rc |= xmlTextWriterEndDocument(w) < 0 ? -1 : 0;
    xmlFreeTextWriter(w);
    if (rc) {
        if (err && errlen)
            snprintf(err, errlen, "%s: writing the XML failed", path);
        return -EIO;
    }
    return 0;
}
