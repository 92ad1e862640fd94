/* ENI reader (ETG.2100) on libxml2: Config/Master, Config/Slave (Info, ProcessData,
 * Mailbox with CoE init commands, InitCmds, DC), Config/Cyclic, Config/ProcessImage.
 * Errors carry the line and element: "line 42: <Slave>/<Info>: expected ..., found ...". */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <takt/takt.h>
#include "util/wire.h"
#include "ecat/eni_read.h"

/* --- init commands ----------------------------------------------------------------- */

static int init_cmd(struct rd *r, const xmlNode *n, struct ecat_eni_cmd *c)
{
    int rc = eni_transitions(r, n, &c->transitions);
    if (rc < 0)
        return rc;
    c->line = (unsigned)xmlGetLineNo(n);
    c->comment = eni_text(r, eni_child(n, "Comment"));
    c->before_slave = eni_truthy(eni_text(r, eni_child(n, "BeforeSlave")));
    int64_t v = 0;
    REQ_NUM(r, n, "Cmd", 0, 14, v);
    c->cmd = (uint8_t)v;
    if (eni_child(n, "Addr")) {
        OPT_NUM(r, n, "Addr", 0, UINT32_MAX, c->addr);
        c->adp = (uint16_t)c->addr;
        c->ado = (uint16_t)(c->addr >> 16);
    } else {
        REQ_NUM(r, n, "Adp", 0, 0xFFFF, c->adp);
        REQ_NUM(r, n, "Ado", 0, 0xFFFF, c->ado);
        c->addr = (uint32_t)c->adp | (uint32_t)c->ado << 16;
    }
    size_t len = 0;
    xmlNode *d = eni_child(n, "Data");
    if (d) {
        if ((rc = eni_hexdata(r, d, &c->data, &len)) < 0)
            return rc;
    } else if (eni_child(n, "DataLength")) {
        int64_t dl = 0;
        OPT_NUM(r, n, "DataLength", 0, 1486, dl);
        len = (size_t)dl;
        c->data = eni_alloc(r->eni, len + 1);          /* zeros */
    } else {
        return eni_fail(r, n, -TAKT_ECONFIG, "expected <Data> or <DataLength>, found neither");
    }
    if (len > 1486)
        return eni_fail(r, d, -TAKT_ECONFIG, "expected at most 1486 data bytes, found %zu", len);
    c->len = (uint16_t)len;
    if (eni_child(n, "Cnt")) {
        c->has_cnt = true;
        OPT_NUM(r, n, "Cnt", 0, 0xFFFF, c->cnt);
    }
    OPT_NUM(r, n, "Retries", 0, 0xFFFF, c->retries);
    OPT_NUM(r, n, "Timeout", 0, UINT32_MAX, c->timeout_ms);
    xmlNode *val = eni_child(n, "Validate");
    if (val) {
        size_t vl = 0, ml = 0;
        c->validate = true;
        xmlNode *vd = eni_child(val, "Data");
        if (!vd)
            return eni_fail(r, val, -TAKT_ECONFIG, "expected a <Data> element, found none");
        if ((rc = eni_hexdata(r, vd, &c->vdata, &vl)) < 0)
            return rc;
        if (vl != len)
            return eni_fail(r, vd, -TAKT_ECONFIG, "expected %zu bytes like the command's data, found %zu", len, vl);
        xmlNode *vm = eni_child(val, "DataMask");
        if (vm) {
            if ((rc = eni_hexdata(r, vm, &c->vmask, &ml)) < 0)
                return rc;
            if (ml != len)
                return eni_fail(r, vm, -TAKT_ECONFIG, "expected %zu bytes like the command's data, found %zu", len, ml);
        }
        OPT_NUM(r, val, "Timeout", 0, UINT32_MAX, c->vtimeout_ms);
    }
    return 0;
}

int eni_init_cmds(struct rd *r, const xmlNode *parent, struct ecat_eni_cmd **out, unsigned *n)
{
    xmlNode *list = eni_child(parent, "InitCmds");
    *n = eni_count(list, "InitCmd");
    *out = eni_alloc(r->eni, (*n ? *n : 1) * sizeof **out);
    if (!*out)
        return -ENOMEM;
    unsigned i = 0;
    FOR_CHILD(c, list, "InitCmd") {
        int rc = init_cmd(r, c, &(*out)[i++]);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* --- master, cyclic, process image --------------------------------------------------- */

static int mac(struct rd *r, const xmlNode *n, uint8_t out[6])
{
    const uint8_t *b;
    size_t len;
    int rc = eni_hexdata(r, n, &b, &len);
    if (rc < 0)
        return rc;
    if (len != 6)
        return eni_fail(r, n, -TAKT_ECONFIG, "expected a 6-byte MAC address (12 hex digits), found %zu bytes", len);
    memcpy(out, b, 6);
    return 0;
}

static int master(struct rd *r, const xmlNode *m)
{
    struct ecat_eni *e = r->eni;
    if (!m)
        return 0;
    xmlNode *info = eni_child(m, "Info");
    e->master_name = eni_text(r, eni_child(info, "Name"));
    xmlNode *dst = eni_child(info, "Destination"), *src = eni_child(info, "Source"), *et = eni_child(info, "EtherType");
    int rc;
    if (dst && src) {
        if ((rc = mac(r, dst, e->mac_dst)) < 0 || (rc = mac(r, src, e->mac_src)) < 0)
            return rc;
        e->has_mac = true;
    }
    if (et) {
        /* written as the bytes on the wire: "a488" is EtherType 0x88A4 */
        const uint8_t *b;
        size_t len;
        if ((rc = eni_hexdata(r, et, &b, &len)) < 0)
            return rc;
        if (len != 2)
            return eni_fail(r, et, -TAKT_ECONFIG, "expected 2 bytes, found %zu", len);
        e->ethertype = (uint16_t)(b[0] | b[1] << 8);
    }
    return eni_init_cmds(r, m, &e->master_init, &e->n_master_init);
}

static uint32_t state_bit(const char *s)
{
    if (strcmp(s, "INIT") == 0) return 1u << AL_INIT;
    if (strcmp(s, "PREOP") == 0) return 1u << AL_PREOP;
    if (strcmp(s, "BOOT") == 0) return 1u << AL_BOOT;
    if (strcmp(s, "SAFEOP") == 0) return 1u << AL_SAFEOP;
    if (strcmp(s, "OP") == 0) return 1u << AL_OP;
    return 0;
}

static int frame_cmd(struct rd *r, const xmlNode *n, struct ecat_eni_fcmd *c)
{
    FOR_CHILD(st, n, "State") {
        uint32_t b = state_bit(eni_text(r, st));
        if (!b)
            return eni_fail(r, st, -TAKT_ECONFIG, "expected INIT, PREOP, BOOT, SAFEOP or OP, found '%s'", eni_text(r, st));
        c->states |= b;
    }
    c->comment = eni_text(r, eni_child(n, "Comment"));
    c->line = (unsigned)xmlGetLineNo(n);
    REQ_NUM(r, n, "Cmd", 0, 14, c->cmd);
    if ((c->has_addr = eni_child(n, "Addr"))) {
        OPT_NUM(r, n, "Addr", 0, UINT32_MAX, c->addr);
    } else {
        OPT_NUM(r, n, "Adp", 0, 0xFFFF, c->adp);
        OPT_NUM(r, n, "Ado", 0, 0xFFFF, c->ado);
    }
    REQ_NUM(r, n, "DataLength", 0, 1486, c->len);
    if ((c->has_cnt = eni_child(n, "Cnt")))
        OPT_NUM(r, n, "Cnt", 0, 0xFFFF, c->cnt);
    OPT_NUM(r, n, "InputOffs", 0, UINT32_MAX, c->input_offs);
    OPT_NUM(r, n, "OutputOffs", 0, UINT32_MAX, c->output_offs);
    return 0;
}

static int cyclic(struct rd *r, const xmlNode *cfg)
{
    struct ecat_eni *e = r->eni;
    unsigned nf = 0;
    FOR_CHILD(cy, cfg, "Cyclic")
        nf += eni_count(cy, "Frame");
    e->frame = eni_alloc(e, (nf ? nf : 1) * sizeof *e->frame);
    if (!e->frame)
        return -ENOMEM;
    FOR_CHILD(cy, cfg, "Cyclic") {
        uint32_t cycle = 0;
        OPT_NUM(r, cy, "CycleTime", 0, UINT32_MAX, cycle);
        if (!e->cycle_us)
            e->cycle_us = cycle;
        FOR_CHILD(fr, cy, "Frame") {
            struct ecat_eni_frame *f = &e->frame[e->n_frames++];
            f->cycle_us = cycle;
            f->n_cmd = eni_count(fr, "Cmd");
            f->cmd = eni_alloc(e, (f->n_cmd ? f->n_cmd : 1) * sizeof *f->cmd);
            if (!f->cmd)
                return -ENOMEM;
            unsigned i = 0;
            FOR_CHILD(c, fr, "Cmd") {
                int rc = frame_cmd(r, c, &f->cmd[i++]);
                if (rc < 0)
                    return rc;
            }
        }
    }
    return 0;
}

static int image_dir(struct rd *r, const xmlNode *d, bool input, uint32_t *bytes)
{
    struct ecat_eni *e = r->eni;
    if (!d)
        return 0;
    REQ_NUM(r, d, "ByteSize", 0, UINT32_MAX, *bytes);
    FOR_CHILD(v, d, "Variable") {
        struct ecat_eni_var *x = &e->var[e->n_vars++];
        x->input = input;
        x->name = eni_text(r, eni_child(v, "Name"));
        x->data_type = eni_text(r, eni_child(v, "DataType"));
        REQ_NUM(r, v, "BitSize", 1, UINT32_MAX, x->bitsize);
        /* no check against ByteSize: TwinCAT places the master's InfoData variables
         * (state, change count, AmsNetId) right after the image */
        REQ_NUM(r, v, "BitOffs", 0, UINT32_MAX, x->bitoffs);
    }
    return 0;
}

static int process_image(struct rd *r, const xmlNode *pi)
{
    struct ecat_eni *e = r->eni;
    xmlNode *in = eni_child(pi, "Inputs"), *out = eni_child(pi, "Outputs");
    unsigned n = eni_count(in, "Variable") + eni_count(out, "Variable");
    e->var = eni_alloc(e, (n ? n : 1) * sizeof *e->var);
    if (!e->var)
        return -ENOMEM;
    int rc = image_dir(r, in, true, &e->in_bytes);
    return rc < 0 ? rc : image_dir(r, out, false, &e->out_bytes);
}

static int config(struct rd *r, const xmlNode *root)
{
    struct ecat_eni *e = r->eni;
    if (!eni_is(root, "EtherCATConfig"))
        return eni_fail(r, root, -TAKT_EXML, "expected the root element <EtherCATConfig>");
    xmlNode *cfg = eni_child(root, "Config");
    if (!cfg)
        return eni_fail(r, root, -TAKT_EXML, "expected a <Config> element, found none");
    int rc = master(r, eni_child(cfg, "Master"));
    if (rc < 0)
        return rc;
    e->n_slaves = eni_count(cfg, "Slave");
    e->slave = eni_alloc(e, (e->n_slaves ? e->n_slaves : 1) * sizeof *e->slave);
    if (!e->slave)
        return -ENOMEM;
    unsigned i = 0;
    FOR_CHILD(sl, cfg, "Slave")
        if ((rc = eni_slave(r, sl, &e->slave[i++])) < 0)
            return rc;
    if ((rc = cyclic(r, cfg)) < 0)
        return rc;
    return process_image(r, eni_child(cfg, "ProcessImage"));
}

static int parse_doc(xmlParserCtxt *ctx, xmlDoc *doc, struct ecat_eni **out, char *err, size_t errlen)
{
    if (!doc) {
        const xmlError *x = xmlCtxtGetLastError(ctx);
        if (err && errlen)
            snprintf(err, errlen, "line %d: not well-formed XML: %s", x ? x->line : 0,
                     x && x->message ? x->message : "unknown error");
        if (err && errlen && strlen(err) && err[strlen(err) - 1] == '\n')
            err[strlen(err) - 1] = '\0';
        return -TAKT_EXML;
    }
    struct rd r = { .eni = eni_new(), .err = err, .errlen = errlen };
    if (!r.eni) {
        xmlFreeDoc(doc);
        return -ENOMEM;
    }
    int rc = config(&r, xmlDocGetRootElement(doc));
    xmlFreeDoc(doc);
    if (rc < 0) {
        if (rc == -ENOMEM && err && errlen)
            snprintf(err, errlen, "out of memory");
        ecat_eni_free(r.eni);
        return rc;
    }
    *out = r.eni;
    return 0;
}

/* errors are reported through err, not printed by libxml2 */
enum { XML_OPTS = XML_PARSE_NONET | XML_PARSE_NOCDATA | XML_PARSE_NOERROR | XML_PARSE_NOWARNING };

int ecat_eni_load(const char *path, struct ecat_eni **out, char *err, size_t errlen)
{
    *out = NULL;
    struct stat st;
    int e = stat(path, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
    if (e) {
        if (err && errlen)
            snprintf(err, errlen, "%s", strerror(e));   /* the caller names the file */
        return -e;
    }
    xmlParserCtxt *ctx = xmlNewParserCtxt();
    if (!ctx)
        return -ENOMEM;
    xmlDoc *doc = xmlCtxtReadFile(ctx, path, NULL, XML_OPTS);
    int rc = parse_doc(ctx, doc, out, err, errlen);
    xmlFreeParserCtxt(ctx);
    return rc;
}

int ecat_eni_parse(const char *buf, size_t len, struct ecat_eni **out, char *err, size_t errlen)
{
    *out = NULL;
    if (len > INT32_MAX)
        return -EINVAL;
    xmlParserCtxt *ctx = xmlNewParserCtxt();
    if (!ctx)
        return -ENOMEM;
    xmlDoc *doc = xmlCtxtReadMemory(ctx, buf, (int)len, "eni.xml", NULL, XML_OPTS);
    int rc = parse_doc(ctx, doc, out, err, errlen);
    xmlFreeParserCtxt(ctx);
    return rc;
}
