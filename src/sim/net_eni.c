/* Simulating exactly the slaves an ENI expects: a slave whose identity is in takt's
 * device catalogue is that device; any other is described from the ENI itself
 * (device_eni.c: identity, SyncManagers, mailboxes, PDOs, DC, the objects its CoE init
 * commands write) so a master configured by that ENI finds what it expects. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/eni.h"
#include "sim/device_ext.h"
#include <libxml/parser.h>
#include "sim/esi.h"
#include "sim/esi_xml.h"
#include "sim/net.h"
#include "sim/esc.h"
#include "util/wire.h"

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

/* Where the file's slave at position k hangs: its <PreviousPort> (ETG.2100; of several, the
 * Selected one) names the previous slave by PhysAddr and that slave's port by letter,
 * A-D = ESC port 0-3 (the fixture's EK1100, Physics "YKY", has its E-bus on B = port 1,
 * its X2 on C). Appends "PARENT:PORT," to spec; 1 when the slave has none. */
static int prev_port(const xmlNode *sl, const struct ecat_eni *eni, unsigned k, char *spec,
                     size_t len, char *err, size_t errlen)
{
    const xmlNode *pp = NULL;
    char b[32];
    for (const xmlNode *c = sl->children; c; c = c->next)
        if (esi_is(c, "PreviousPort")) {
            xmlChar *sel = xmlGetProp(c, (const xmlChar *)"Selected");
            bool chosen = sel && (!strcmp((const char *)sel, "1") || !strcmp((const char *)sel, "true"));
            xmlFree(sel);
            if (!pp || chosen)
                pp = c;
        }
    if (!pp)
        return 1;
    const char *port = esi_text(esi_child(pp, "Port"), b, sizeof b);
    if (strlen(port) != 1 || port[0] < 'B' || port[0] > 'D')
        return esi_fail(err, errlen, -EINVAL, pp, "slave at position %u <PreviousPort><Port>: "
                        "expected B, C or D, found '%s'", k, port);
    unsigned n = (unsigned)(port[0] - 'A');
    char *end;
    unsigned long phys = strtoul(esi_text(esi_child(pp, "PhysAddr"), b, sizeof b), &end, 0);
    for (unsigned i = 0; i < k; i++)
        if (*b && !*end && eni->slave[i].phys_addr == phys) {
            size_t at = strlen(spec);
            snprintf(spec + at, len - at, "%u:%u,", i, n);
            return 0;
        }
    return esi_fail(err, errlen, -EINVAL, pp, "slave at position %u <PreviousPort><PhysAddr>: "
                    "expected the PhysAddr of an earlier slave, found '%s'", k, b);
}

/* The tree the ENI's PreviousPort elements describe as a takt_sim_set_topology spec;
 * "" when no slave has one (a line). */
static int eni_topology(const char *path, const struct ecat_eni *eni, char *spec, size_t len,
                        char *err, size_t errlen)
{
    spec[0] = 0;
    xmlDoc *doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc)
        return 0;                     /* ecat_eni_load read it: cannot happen */
    const xmlNode *cfg = esi_child(xmlDocGetRootElement(doc), "Config");
    unsigned k = 0, given = 0;
    int rc = 0;
    for (const xmlNode *c = cfg ? cfg->children : NULL; c && !rc && k < eni->n_slaves; c = c->next) {
        if (!esi_is(c, "Slave"))
            continue;
        if (k) {
            rc = prev_port(c, eni, k, spec, len, err, errlen);
            if (rc == 1) {            /* none: on port B of the slave before */
                size_t at = strlen(spec);
                snprintf(spec + at, len - at, "%u:1,", k - 1);
                rc = 0;
            } else if (!rc) {
                given++;
            }
        }
        k++;
    }
    xmlFreeDoc(doc);
    if (!given || rc)
        spec[0] = 0;
    else if (*spec)
        spec[strlen(spec) - 1] = 0;   /* the last comma */
    return rc;
}

static void reach(uint32_t *top, uint32_t start, uint32_t len)
{
    if (len && start + len > *top)
        *top = start + len;
}

/* The highest ESC address slave sl uses: its mailboxes (standard and bootstrap), its
 * SyncManagers, and the SM (0x0800 + 8n: start, length) and FMMU (0x0600 + 16n:
 * length at 4, physical start at 8) set-up its InitCmds write (ETG.1000.4 6.6, 6.7). */
static uint32_t eni_top(const struct ecat_eni_slave *sl)
{
    uint32_t top = 0;
    if (sl->has_mbx) {
        reach(&top, sl->mbx_send_start, sl->mbx_send_len);
        reach(&top, sl->mbx_recv_start, sl->mbx_recv_len);
        reach(&top, sl->boot_send_start, sl->boot_send_len);
        reach(&top, sl->boot_recv_start, sl->boot_recv_len);
    }
    for (unsigned s = 0; s < sl->n_sm; s++) {
        const struct ecat_eni_sm *m = &sl->sm[s];
        uint16_t len = m->max_size > m->default_size ? m->max_size : m->default_size;
        reach(&top, m->start, len);
    }
    for (unsigned i = 0; i < sl->n_init; i++) {
        const struct ecat_eni_cmd *c = &sl->init[i];
        bool wr = c->cmd == ECAT_APWR || c->cmd == ECAT_FPWR || c->cmd == ECAT_BWR;
        if (!wr || !c->data)
            continue;
        for (uint32_t a = c->ado; a + 8 <= (uint32_t)c->ado + c->len; a++) {
            const uint8_t *d = c->data + (a - c->ado);
            if (a >= 0x0800 && a < 0x0880 && (a - 0x0800) % 8 == 0 && (d[6] & 1))
                reach(&top, get_le16(d), get_le16(d + 2));
            if (a >= 0x0600 && a < 0x0700 && (a - 0x0600) % 16 == 0 && a + 16 <= (uint32_t)c->ado + c->len &&
                (d[12] & 1))
                reach(&top, get_le16(d + 8), get_le16(d + 4));
        }
    }
    return top;
}

int takt_sim_create_eni(const char *path, const struct takt_sim_opts *o,
                        struct takt_sim **out, char *err, size_t errlen)
{
    struct ecat_eni *eni = NULL;
    struct takt_sim *s = NULL;
    *out = NULL;
    char lerr[320] = "";
    int rc = ecat_eni_load(path, &eni, lerr, sizeof lerr);
    if (rc) {
        snprintf(err, errlen, "%s: %s", path, lerr);
        return rc;
    }
    if (!eni->n_slaves) {
        snprintf(err, errlen, "%s: the ENI lists no slaves", path);
        ecat_eni_free(eni);
        return -EINVAL;
    }
    /* ESC memory as far as the ENI uses it (a mailbox at 0x4000/0x4800 needs more
     * than the default 8 KiB of process RAM), in whole KiB as 0x0006 reports it */
    struct takt_sim_opts opt;
    if (o)
        opt = *o;
    else
        takt_sim_opts_default(&opt);
    uint32_t top = 0;
    for (unsigned k = 0; k < eni->n_slaves; k++) {
        uint32_t t = eni_top(&eni->slave[k]);
        if (t > 0xF000 + ESC_REGS) {
            snprintf(err, errlen, "%s:%u: slave %u '%s': its mailbox, SMs or FMMUs reach ESC address "
                     "0x%05X: expected them below 0x10000", path, eni->slave[k].line, k + 1,
                     eni->slave[k].name ? eni->slave[k].name : "", t - 1);
            ecat_eni_free(eni);
            return -EINVAL;
        }
        if (t > top)
            top = t;
    }
    uint32_t ram = top > ESC_REGS ? ((top - ESC_REGS + 1023) / 1024) * 1024 : 0;
    if (ram > (opt.ram_bytes ? opt.ram_bytes : ESC_RAM_DEFAULT))
        opt.ram_bytes = ram;
    rc = sim_net_alloc(&s, eni->n_slaves, &opt);
    unsigned k = 0;
    for (; !rc && k < eni->n_slaves; k++) {
        const struct ecat_eni_slave *sl = &eni->slave[k];
        struct sim_device *d = NULL;
        const char *name = NULL;
        if (from_catalogue(&sl->id, &d, &name)) {
            char why[200];
            name = "";                  /* not rebuilt from the catalogue after power loss */
            rc = sim_device_from_eni(sl, &d, why, sizeof why);
            if (rc)
                snprintf(err, errlen, "%s:%u: slave at position %u '%s': cannot build a device "
                         "from the ENI: %s", path, sl->line, k, sl->name ? sl->name : "", why);
        }
        if (!rc && (rc = sim_net_add(s, k, d, name[0] ? name : d->desc->name))) {
            d->ops->destroy(d);
            snprintf(err, errlen, "slave at position %u: %s", k, strerror(-rc));
        }
    }
    if (rc) {
        ecat_eni_free(eni);
        if (s) {
            s->n = k ? k - 1 : 0;       /* the failed slot holds nothing */
            takt_sim_destroy(s);
        }
        return rc;
    }
    s->make_dev = NULL;
    s->reach = s->n;
    sim_net_topology(s, 0);
    /* "NNNN:P," per slave */
    size_t slen = 8 * (size_t)eni->n_slaves + 1;
    char *spec = malloc(slen);
    rc = spec ? eni_topology(path, eni, spec, slen, err, errlen) : -ENOMEM;
    if (!rc && *spec)
        rc = takt_sim_set_topology(s, spec, err, errlen);
    if (rc && rc != -ENOMEM)
        snprintf(err + strlen(err), errlen - strlen(err), " (%s: tree from the slaves' PreviousPort)", path);
    free(spec);
    ecat_eni_free(eni);
    if (rc) {
        takt_sim_destroy(s);
        return rc;
    }
    *out = s;
    return 0;
}
