/* Cable redundancy in the CLI: the second port (--redundant IF2) for the verbs that open
 * the bus themselves; in the summary and the JSON of takt ecat run, where the ring is
 * broken, breaks and heals, frames per port (docs/master.md, Cable redundancy). */
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include "cli/cli_ecat.h"

/* Cable redundancy in the summary and the JSON (docs/master.md, Cable redundancy). */
static void red_where(const struct takt_ecat_redundancy *r, unsigned n, char *buf, size_t len)
{
    if (!r->broken)
        snprintf(buf, len, "intact");
    else if (r->break_after < 0)
        snprintf(buf, len, "broken in more than one place");
    else if (r->break_after == 0)
        snprintf(buf, len, "broken between the first port and slave 0");
    else if ((unsigned)r->break_after >= n)
        snprintf(buf, len, "broken between slave %u and the second port", n ? n - 1 : 0);
    else
        snprintf(buf, len, "broken between slave %d and slave %d", r->break_after - 1, r->break_after);
}

void cli_ecat_red_print(FILE *f, struct takt_ecat_master *m)
{
    struct takt_ecat_redundancy r;
    takt_ecat_master_redundancy(m, &r);
    if (!r.active)
        return;
    char w[96];
    red_where(&r, takt_ecat_master_slave_count(m), w, sizeof w);
    fprintf(f, "  cable redundancy: ring %s; %" PRIu64 " breaks, %" PRIu64 " heals; frames out "
            "%" PRIu64 "/%" PRIu64 ", in %" PRIu64 "/%" PRIu64 " (first/second port), %" PRIu64
            " round the whole ring, %" PRIu64 " with one copy back\n", w, r.breaks, r.heals,
            r.tx[0], r.tx[1], r.rx[0], r.rx[1], r.crossed, r.single);
}

json_object *cli_ecat_red_json(struct takt_ecat_master *m)
{
    struct takt_ecat_redundancy r;
    takt_ecat_master_redundancy(m, &r);
    if (!r.active)
        return NULL;
    char w[96];
    red_where(&r, takt_ecat_master_slave_count(m), w, sizeof w);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "state", json_object_new_string(r.broken ? "broken" : "intact"));
    json_object_object_add(o, "where", json_object_new_string(w));
    json_object_object_add(o, "break_after", r.broken && r.break_after >= 0 ?
                           json_object_new_int(r.break_after) : NULL);
    json_object_object_add(o, "first_side", json_object_new_int((int)r.first_side));
    json_object_object_add(o, "second_side", json_object_new_int((int)r.second_side));
    json_object_object_add(o, "breaks", json_object_new_uint64(r.breaks));
    json_object_object_add(o, "heals", json_object_new_uint64(r.heals));
    json_object *tx = json_object_new_array(), *rx = json_object_new_array();
    for (int p = 0; p < 2; p++) {
        json_object_array_add(tx, json_object_new_uint64(r.tx[p]));
        json_object_array_add(rx, json_object_new_uint64(r.rx[p]));
    }
    json_object_object_add(o, "frames_out", tx);
    json_object_object_add(o, "frames_in", rx);
    json_object_object_add(o, "frames_round_ring", json_object_new_uint64(r.crossed));
    json_object_object_add(o, "frames_one_copy", json_object_new_uint64(r.single));
    json_object_object_add(o, "copies_late", json_object_new_uint64(r.late));
    json_object_object_add(o, "frmw_partial", json_object_new_uint64(r.frmw_partial));
    json_object_object_add(o, "broke_at_ns", json_object_new_int64(r.broke_at));
    json_object_object_add(o, "healed_at_ns", json_object_new_int64(r.healed_at));
    return o;
}

/* --redundant IF2: the ring's second port, captured beside --pcap FILE as FILE-2.EXT. A
 * port without a carrier is only a broken ring: the master reports where. */
int cli_ecat_open_second(struct cli_ctx *c, struct takt_link **out)
{
    const char *iface = c->iface, *pcap = c->pcap;
    char path[512];
    if (pcap) {
        const char *dot = strrchr(pcap, '.'), *slash = strrchr(pcap, '/');
        if (!dot || (slash && dot < slash))
            dot = pcap + strlen(pcap);
        snprintf(path, sizeof path, "%.*s-2%s", (int)(dot - pcap), pcap, dot);
        c->pcap = path;
    }
    c->iface = cli_get(c, "redundant");
    if (iface && !strcmp(c->iface, iface)) {
        c->iface = iface;
        c->pcap = pcap;
        return cli_usage_error(c, "--redundant expects the ring's other port, not -i's %s again", iface);
    }
    static const uint16_t types[] = { TAKT_ETHERTYPE_ECAT };
    struct takt_link_opts o;
    takt_link_opts_default(&o);
    o.ethertypes = types;
    o.n_ethertypes = 1;
    int rc = cli_open_link(c, &o, "the port the ring's last slave is wired back to", out);
    if (!rc)
        cli_check_carrier(c, false);
    c->iface = iface;
    c->pcap = pcap;
    return rc;
}

int cli_ecat_open_ports(struct cli_ctx *c, struct takt_link **l, struct takt_link **l2)
{
    *l2 = NULL;
    /* the second first: opening -i drops the capability to open links */
    int rc = cli_get(c, "redundant") && !c->link ? cli_ecat_open_second(c, l2) : 0;
    if (rc)
        return rc;
    if ((rc = cli_ecat_open_link(c, l))) {
        takt_link_close(*l2);
        *l2 = NULL;
    }
    return rc;
}
