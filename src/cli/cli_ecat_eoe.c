/* takt ecat eoe set-ip|set-filter: the EoE services (ETG.1000.6, Ethernet over
 * EtherCAT) from the command line, and the --eoe option of takt ecat run: a TAP device
 * per EoE slave, its thread, its counters in the summary. */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <takt/wire.h>
#include "cli/cli_ctl.h"
#include "cli/cli_ecat.h"

static const struct cli_opt eoe_opts[] = {
    { "mac", 0, 1, "MAC", "set-ip: the slave's MAC aa:bb:cc:dd:ee:ff; set-filter: a comma list "
      "of up to 15 MACs it accepts" },
    { "ip", 0, 1, "A.B.C.D/NN", "set-ip: the slave's IP address and prefix length" },
    { "gw", 0, 1, "A.B.C.D", "set-ip: default gateway" },
    { "dns", 0, 1, "A.B.C.D", "set-ip: DNS server" },
    { "dns-name", 0, 1, "NAME", "set-ip: DNS name (up to 32 characters)" },
    { "no-broadcast", 0, 0, NULL, "set-filter: the slave drops broadcasts" },
    CLI_ECAT_REDUNDANT_OPT,
    CLI_CTL_CLIENT_OPTS,
    { 0 },
};

static void ip_str(const uint8_t ip[4], char *b, size_t n)
{
    snprintf(b, n, "%u.%u.%u.%u", ip[0], ip[1], ip[2], ip[3]);
}

static unsigned prefix_of(const uint8_t m[4])
{
    unsigned n = 0;
    for (int i = 0; i < 4; i++)
        for (int k = 7; k >= 0 && (m[i] >> k) & 1; k--)
            n++;
    return n;
}

/* --mac/--ip/--gw/--dns/--dns-name into p; 0 or an exit status. */
static int ip_opts(struct cli_ctx *c, struct takt_ecat_eoe_ip *p)
{
    char err[160];
    const char *s;
    bool has_mask = false;
    *p = (struct takt_ecat_eoe_ip){0};
    if ((s = cli_get(c, "mac"))) {
        if (takt_ecat_eoe_mac_parse(s, p->mac, err, sizeof err))
            return cli_usage_error(c, "--mac %s", err);
        p->flags |= TAKT_ECAT_EOE_IP_MAC;
    }
    if ((s = cli_get(c, "ip"))) {
        if (takt_ecat_eoe_ip_parse(s, p->ip, p->mask, &has_mask, err, sizeof err))
            return cli_usage_error(c, "--ip %s", err);
        p->flags |= TAKT_ECAT_EOE_IP_IP | (has_mask ? TAKT_ECAT_EOE_IP_MASK : 0);
    }
    if ((s = cli_get(c, "gw"))) {
        if (takt_ecat_eoe_ip_parse(s, p->gw, NULL, NULL, err, sizeof err))
            return cli_usage_error(c, "--gw %s", err);
        p->flags |= TAKT_ECAT_EOE_IP_GW;
    }
    if ((s = cli_get(c, "dns"))) {
        if (takt_ecat_eoe_ip_parse(s, p->dns, NULL, NULL, err, sizeof err))
            return cli_usage_error(c, "--dns %s", err);
        p->flags |= TAKT_ECAT_EOE_IP_DNS;
    }
    if ((s = cli_get(c, "dns-name"))) {
        if (strlen(s) > TAKT_ECAT_EOE_DNS_NAME)
            return cli_usage_error(c, "--dns-name expects at most %d characters, got %zu",
                                   TAKT_ECAT_EOE_DNS_NAME, strlen(s));
        snprintf(p->dns_name, sizeof p->dns_name, "%s", s);
        p->flags |= TAKT_ECAT_EOE_IP_DNS_NAME;
    }
    if (!p->flags)
        return cli_usage_error(c, "set-ip expects at least one of --mac, --ip, --gw, --dns, --dns-name");
    return 0;
}

static int filter_opts(struct cli_ctx *c, struct takt_ecat_eoe_filter *f)
{
    char err[160], buf[512];
    *f = (struct takt_ecat_eoe_filter){0};
    f->no_broadcast = cli_flag(c, "no-broadcast");
    const char *s = cli_get(c, "mac");
    if (!s)
        return 0;
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (f->n_mac == 15)
            return cli_usage_error(c, "--mac expects at most 15 addresses for set-filter");
        if (takt_ecat_eoe_mac_parse(t, f->mac[f->n_mac], err, sizeof err))
            return cli_usage_error(c, "--mac %s", err);
        f->n_mac++;
    }
    return 0;
}

static json_object *ip_json(const struct takt_ecat_eoe_ip *p)
{
    json_object *o = json_object_new_object();
    char b[32];
    if (p->flags & TAKT_ECAT_EOE_IP_MAC) {
        snprintf(b, sizeof b, "%02x:%02x:%02x:%02x:%02x:%02x", p->mac[0], p->mac[1], p->mac[2],
                 p->mac[3], p->mac[4], p->mac[5]);
        json_object_object_add(o, "mac", json_object_new_string(b));
    }
    const struct { uint32_t f; const char *n; const uint8_t *v; } f[] = {
        { TAKT_ECAT_EOE_IP_IP, "ip", p->ip }, { TAKT_ECAT_EOE_IP_MASK, "netmask", p->mask },
        { TAKT_ECAT_EOE_IP_GW, "gateway", p->gw }, { TAKT_ECAT_EOE_IP_DNS, "dns", p->dns } };
    for (size_t i = 0; i < TAKT_ARRAY_SIZE(f); i++)
        if (p->flags & f[i].f) {
            ip_str(f[i].v, b, sizeof b);
            json_object_object_add(o, f[i].n, json_object_new_string(b));
        }
    if (p->flags & TAKT_ECAT_EOE_IP_DNS_NAME)
        json_object_object_add(o, "dns_name", json_object_new_string(p->dns_name));
    return o;
}

/* --json: what was set */
static int eoe_json(struct cli_ctx *c, bool ip, unsigned pos, const struct takt_ecat_eoe_ip *p,
                    const struct takt_ecat_eoe_filter *f)
{
    json_object *j = json_object_new_object();
    json_object_object_add(j, "position", json_object_new_int((int)pos));
    if (ip) {
        json_object_object_add(j, "set_ip", ip_json(p));
    } else {
        json_object *a = json_object_new_array();
        for (unsigned i = 0; i < f->n_mac; i++) {
            char b[24];
            snprintf(b, sizeof b, "%02x:%02x:%02x:%02x:%02x:%02x", f->mac[i][0], f->mac[i][1],
                     f->mac[i][2], f->mac[i][3], f->mac[i][4], f->mac[i][5]);
            json_object_array_add(a, json_object_new_string(b));
        }
        json_object_object_add(j, "filter_macs", a);
        json_object_object_add(j, "no_broadcast", json_object_new_boolean(f->no_broadcast));
    }
    int status = cli_write_json(c, j) ? 1 : 0;
    json_object_put(j);
    return status;
}

/* Beside a running master: the request through its control socket, for a slave whose
 * EoE port it opened (takt ecat run --eoe). 1 after an error; 0 done; -1 when no master
 * runs (then the caller opens the interface). */
static int eoe_remote(struct cli_ctx *c, bool ip, unsigned pos, const struct takt_ecat_eoe_filter *f)
{
    struct ctl_client *cl;
    int rc = cli_ctl_attach(c, "ecat", true, &cl);
    if (rc)
        return rc;
    if (!cl)
        return -1;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "verb", json_object_new_string(ip ? "eoe_set_ip" : "eoe_set_filter"));
    json_object_object_add(o, "pos", json_object_new_int64(pos));
    if (ip) {
        /* as given: the master checks them as this tool did */
        static const char *const opt[][2] = { { "mac", "mac" }, { "ip", "ip" }, { "gw", "gw" },
                                              { "dns", "dns" }, { "dns-name", "dns_name" } };
        for (size_t i = 0; i < TAKT_ARRAY_SIZE(opt); i++)
            if (cli_get(c, opt[i][0]))
                json_object_object_add(o, opt[i][1], json_object_new_string(cli_get(c, opt[i][0])));
    } else {
        json_object *a = json_object_new_array();
        for (unsigned i = 0; i < f->n_mac; i++) {
            char b[24];
            snprintf(b, sizeof b, "%02x:%02x:%02x:%02x:%02x:%02x", f->mac[i][0], f->mac[i][1], f->mac[i][2],
                     f->mac[i][3], f->mac[i][4], f->mac[i][5]);
            json_object_array_add(a, json_object_new_string(b));
        }
        json_object_object_add(o, "macs", a);
        json_object_object_add(o, "no_broadcast", json_object_new_boolean(f->no_broadcast));
    }
    json_object *r = cli_ctl_call(c, cl, o, 10);
    json_object_put(o);
    ctl_client_close(cl);
    if (!r)
        return 1;
    json_object_put(r);
    return 0;
}

static int run_eoe(struct cli_ctx *c)
{
    bool ip = c->argc == 2 && !strcmp(c->argv[0], "set-ip");
    bool flt = c->argc == 2 && !strcmp(c->argv[0], "set-filter");
    if (!ip && !flt)
        return cli_usage_error(c, "expected set-ip POS or set-filter POS, got %d argument%s%s%s",
                               c->argc, c->argc == 1 ? "" : "s", c->argc ? " starting with " : "",
                               c->argc ? c->argv[0] : "");
    long v;
    if (cli_parse_long(c, "POS", c->argv[1], 0, 65535, &v))
        return 2;
    unsigned pos = (unsigned)v;
    struct takt_ecat_eoe_ip p;
    struct takt_ecat_eoe_filter f;
    int rc = ip ? ip_opts(c, &p) : filter_opts(c, &f);
    if (rc)
        return rc;
    if ((rc = eoe_remote(c, ip, pos, &f)) >= 0) {
        if (!rc && !c->json)
            printf("slave %u: EoE %s accepted\n", pos, ip ? "IP parameters" : "address filter");
        if (!rc && c->json)
            rc = eoe_json(c, ip, pos, &p, &f);
        return rc;
    }
    struct takt_link *l, *l2;
    if ((rc = cli_ecat_open_ports(c, &l, &l2)))
        return rc;
    cli_drop_caps(c, 0);   /* the tool runs no real-time thread */
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.keep_state = true;
    o.redundant = l2;
    struct takt_ecat_master *m;
    char err[256];
    if (takt_ecat_master_open(&m, l, &o, err, sizeof err)) {
        takt_link_close(l);
        takt_link_close(l2);
        return cli_error(c, "%s", err);
    }
    int status = 0;
    struct takt_ecat_slave_info si;
    if (takt_ecat_master_scan(m, 5 * TAKT_NS_PER_S) || pos >= takt_ecat_master_slave_count(m)) {
        if (!takt_ecat_master_error(m)[0])
            cli_error(c, "POS expects a slave position 0..%d, got %u",
                      (int)takt_ecat_master_slave_count(m) - 1, pos);
        else
            cli_error(c, "%s", takt_ecat_master_error(m));
        status = 1;
    } else if (takt_ecat_master_slave_info(m, pos, &si), !(si.mbx_protocols & TAKT_ECAT_MBX_EOE)) {
        cli_error(c, "slave %u (%s) has no EoE (SII mailbox protocols 0x%04X)", pos, si.name,
                  si.mbx_protocols);
        status = 1;
    } else if ((si.al_state & TAKT_ECAT_STATE_MASK) != TAKT_ECAT_STATE_PREOP && (si.al_state & TAKT_ECAT_STATE_MASK) != TAKT_ECAT_STATE_SAFEOP &&
               (si.al_state & TAKT_ECAT_STATE_MASK) != TAKT_ECAT_STATE_OP &&
               takt_ecat_slave_set_state(m, pos, TAKT_ECAT_STATE_PREOP, 10 * TAKT_NS_PER_S)) {
        cli_error(c, "%s", takt_ecat_master_error(m));
        status = 1;
    } else if (ip ? takt_ecat_eoe_set_ip(m, pos, &p) : takt_ecat_eoe_set_filter(m, pos, &f)) {
        cli_error(c, "%s", takt_ecat_master_error(m));
        status = 1;
    } else if (c->json) {
        status = eoe_json(c, ip, pos, &p, &f);
    } else {
        printf("slave %u: EoE %s accepted\n", pos, ip ? "IP parameters" : "address filter");
    }
    takt_ecat_master_close(m);
    takt_link_close(l);
    takt_link_close(l2);
    return status;
}

const struct cli_cmd cli_cmds_ecat_eoe[] = {
    { "ecat", "eoe", "set-ip POS | set-filter POS",
      "set the IP parameters or the MAC address filter of an EoE slave",
      "set-ip sends the EoE set-IP-parameter request (ETG.1000.6, Ethernet over EtherCAT)\n"
      "with what is given: --mac, --ip A.B.C.D/NN (address and mask), --gw, --dns,\n"
      "--dns-name. set-filter sends the address filter: --mac LIST (up to 15) and\n"
      "--no-broadcast. The slave is brought to PREOP first if it is below. A slave without\n"
      "EoE in its SII is refused ('slave 3 has no EoE'); a refusal names the EoE result\n"
      "code. For frames through the bus use takt ecat run --eoe. --json: what was set.\n"
      "Where a master runs on -i (or --master SOCKET), the request goes through its cycle,\n"
      "for a slave it opened an EoE port for (takt ecat run --eoe POS; docs/control.md).",
      CLI_IFACE | CLI_PCAP | CLI_JSON, eoe_opts, run_eoe, NULL },
    { 0 },
};

/* --- takt ecat run --eoe ----------------------------------------------------------- */

struct cli_eoe_run {
    unsigned n;
    unsigned pos[16];
    struct takt_ecat_eoe_tap *tap[16];
};

/* One item POS[@NAME][:IP/NN[:HOST_IP]]: 0 or an exit status. */
static int eoe_item(struct cli_ctx *c, struct takt_ecat_master *m, char *item, struct cli_eoe_run *r)
{
    char err[256], *ip_s = strchr(item, ':'), *host_s = NULL;
    if (ip_s) {
        *ip_s++ = 0;
        if ((host_s = strchr(ip_s, ':')))
            *host_s++ = 0;
    }
    if (ip_s && !*ip_s)
        ip_s = NULL;                    /* POS::HOST_IP: the slave's address from the ENI */
    char *name = strchr(item, '@');
    if (name) {
        *name++ = 0;
        if (!*name)
            return cli_usage_error(c, "--eoe %s@: expected a TAP name after '@'", item);
    }
    long v;
    if (cli_parse_long(c, "--eoe POS", item, 0, 65535, &v))
        return 2;
    if (r->n == TAKT_ARRAY_SIZE(r->pos))
        return cli_usage_error(c, "--eoe expects at most %zu slaves", TAKT_ARRAY_SIZE(r->pos));
    unsigned pos = (unsigned)v;
    struct takt_ecat_eoe_ip p = {0};
    uint8_t host[4];
    bool has_mask = false;
    if (ip_s && takt_ecat_eoe_ip_parse(ip_s, p.ip, p.mask, &has_mask, err, sizeof err))
        return cli_usage_error(c, "--eoe %u: %s", pos, err);
    if (host_s && takt_ecat_eoe_ip_parse(host_s, host, NULL, NULL, err, sizeof err))
        return cli_usage_error(c, "--eoe %u: host address: %s", pos, err);
    if (takt_ecat_eoe_open(m, pos))
        return cli_error(c, "%s", takt_ecat_master_error(m));
    /* no address given: the one the ENI's EoE init commands set (they send it themselves) */
    bool from_eni = !ip_s && takt_ecat_master_eni_eoe_ip(m, pos, &p) == 0 && (p.flags & TAKT_ECAT_EOE_IP_IP);
    if (from_eni)
        has_mask = (p.flags & TAKT_ECAT_EOE_IP_MASK) != 0;
    if (ip_s) {
        p.flags = TAKT_ECAT_EOE_IP_IP | (has_mask ? TAKT_ECAT_EOE_IP_MASK : 0);
        if (takt_ecat_eoe_set_ip(m, pos, &p))
            return cli_error(c, "%s", takt_ecat_master_error(m));
    }
    int rc = takt_ecat_eoe_tap_open(&r->tap[r->n], m, pos, name, host_s ? host : NULL,
                               has_mask ? prefix_of(p.mask) : 24, err, sizeof err);
    if (rc)
        return cli_error(c, "%s", err);
    r->pos[r->n++] = pos;
    char a[20] = "", b[20] = "";
    if (ip_s || from_eni)
        ip_str(p.ip, a, sizeof a);
    if (host_s)
        ip_str(host, b, sizeof b);
    printf("takt ecat run: slave %u: EoE on TAP %s%s%s%s%s%s\n", pos,
           takt_ecat_eoe_tap_name(r->tap[r->n - 1]), ip_s || from_eni ? ", slave " : "", a,
           from_eni ? " (from the ENI)" : "", host_s ? ", host " : "", b);
    return 0;
}

int cli_eoe_run_setup(struct cli_ctx *c, struct takt_ecat_master *m, struct cli_eoe_run **out)
{
    *out = NULL;
    const char *spec = cli_get(c, "eoe");
    if (!spec)
        return 0;
    struct cli_eoe_run *r = calloc(1, sizeof *r);
    char *buf = strdup(spec);
    if (!r || !buf) {
        free(r);
        free(buf);
        return 1;
    }
    *out = r;
    int rc = 0;
    if (!strcmp(spec, "all")) {
        /* every slave whose SII says it has EoE (word 0x001C), with its default TAP name
         * and no address: the ENI's where it sets one, else `takt ecat eoe set-ip` */
        unsigned n = takt_ecat_master_slave_count(m);
        for (unsigned pos = 0; pos < n && !rc; pos++) {
            struct takt_ecat_slave_info si;
            char item[16];
            if (takt_ecat_master_slave_info(m, pos, &si) || !(si.mbx_protocols & TAKT_ECAT_MBX_EOE))
                continue;
            snprintf(item, sizeof item, "%u", pos);
            rc = eoe_item(c, m, item, r);
        }
        if (!rc && !r->n)
            fprintf(stderr, "takt ecat run: --eoe all: no slave of the %u has EoE\n", n);
        free(buf);
    } else {
        for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save))
            rc = eoe_item(c, m, t, r);
        free(buf);
    }
    for (unsigned i = 0; !rc && i < r->n; i++)
        if (takt_ecat_eoe_tap_start(r->tap[i]))
            rc = cli_error(c, "slave %u: cannot start the TAP thread", r->pos[i]);
    return rc;
}

json_object *cli_eoe_run_json(struct takt_ecat_master *m, const struct cli_eoe_run *r)
{
    json_object *a = json_object_new_array();
    for (unsigned i = 0; r && i < r->n; i++) {
        struct takt_ecat_eoe_stats s;
        if (takt_ecat_eoe_get_stats(m, r->pos[i], &s))
            continue;
        json_object *o = json_object_new_object();
        json_object_object_add(o, "position", json_object_new_int((int)r->pos[i]));
        json_object_object_add(o, "tap", json_object_new_string(takt_ecat_eoe_tap_name(r->tap[i])));
        json_object_object_add(o, "tx_frames", json_object_new_uint64(s.tx_frames));
        json_object_object_add(o, "rx_frames", json_object_new_uint64(s.rx_frames));
        json_object_object_add(o, "tx_fragments", json_object_new_uint64(s.tx_frags));
        json_object_object_add(o, "rx_fragments", json_object_new_uint64(s.rx_frags));
        json_object_object_add(o, "host_drops", json_object_new_uint64(s.host_drops));
        json_object_object_add(o, "rx_dropped", json_object_new_uint64(s.rx_dropped));
        json_object_array_add(a, o);
    }
    return a;
}

void cli_eoe_run_print(FILE *f, struct takt_ecat_master *m, const struct cli_eoe_run *r)
{
    for (unsigned i = 0; r && i < r->n; i++) {
        struct takt_ecat_eoe_stats s;
        if (!takt_ecat_eoe_get_stats(m, r->pos[i], &s))
            fprintf(f, "  EoE slave %u (%s): frames to slave %" PRIu64 " (%" PRIu64 " fragments), "
                    "from slave %" PRIu64 " (%" PRIu64 " fragments), ring drops %" PRIu64
                    ", bad fragments dropped %" PRIu64 "\n", r->pos[i],
                    takt_ecat_eoe_tap_name(r->tap[i]), s.tx_frames, s.tx_frags, s.rx_frames,
                    s.rx_frags, s.host_drops, s.rx_dropped);
    }
}

void cli_eoe_run_close(struct cli_eoe_run *r)
{
    for (unsigned i = 0; r && i < r->n; i++)
        takt_ecat_eoe_tap_close(r->tap[i]);
    free(r);
}
