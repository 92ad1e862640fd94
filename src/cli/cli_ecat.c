/* takt ecat: the verbs of IgH's `ethercat` tool against a live network (slaves, states,
 * reg, sii, pdos) and `run`, EcMasterDemo's job (cli_ecat_run.c). Parsing and printing
 * only; the work is in the master library. */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <takt/wire.h>
#include "cli/cli_ecat.h"
#include "cli/metrics.h"
#include "cli/cli_ctl.h"

int cli_ecat_open_link(struct cli_ctx *c, struct takt_link **out)
{
    static const uint16_t types[] = { TAKT_ETHERTYPE_ECAT };
    if (c->link) {    /* given by the caller: nothing to open */
        *out = c->link;
        c->link_taken = true;
        return 0;
    }
    /* a master running on -i (takt ecat run) is not to be disturbed: a verb it serves
     * went through it before coming here, the others are refused */
    struct ctl_client *cl;
    int arc = cli_ctl_attach(c, "ecat", false, &cl);
    if (arc)
        return arc;
    struct takt_link_opts o;
    takt_link_opts_default(&o);
    o.ethertypes = types;
    o.n_ethertypes = 1;
    int rc = cli_open_link(c, &o, "the interface the EtherCAT network is on", out);
    if (!rc && cli_check_carrier(c, true)) {   /* a scan would only time out */
        takt_link_close(*out);
        return 1;
    }
    if (!rc)   /* the raw socket exists: CAP_NET_RAW is not needed again */
        cli_drop_caps(c, cli_caps_for_rt(c));
    return rc;
}

/* Tools that only look leave the slaves in their states; the others reset them. Each
 * goes through the master `takt ecat run` runs on -i where it serves the verb. */
static int tool_open(struct cli_ctx *c, struct cli_ecat_tool *t, bool served)
{
    return cli_ecat_tool_open(c, t, CLI_ECAT_TOOL_RESET | (served ? CLI_ECAT_TOOL_SERVED : 0));
}
static int tool_look(struct cli_ctx *c, struct cli_ecat_tool *t, bool served)
{
    return cli_ecat_tool_open(c, t, served ? CLI_ECAT_TOOL_SERVED : 0);
}
static void tool_close(struct cli_ecat_tool *t) { cli_ecat_tool_close(t); }

static int parse_pos(struct cli_ctx *c, const struct cli_ecat_tool *t, const char *s, unsigned *pos)
{
    return cli_ecat_tool_parse_pos(c, t, s, pos);
}

/* -p POS / ALIAS:POS of the listing verbs: *only = the slave, -1 without -p. */
static int parse_only(struct cli_ctx *c, const struct cli_ecat_tool *t, long *only)
{
    unsigned pos;
    *only = -1;
    if (!cli_get(c, "position"))
        return 0;
    if (parse_pos(c, t, cli_get(c, "position"), &pos))
        return -1;
    *only = pos;
    return 0;
}

static const struct cli_opt only_opts[] = {
    { "position", 'p', 1, "POS", "only the slave at POS (or ALIAS:POS, as IgH's ethercat -p)" },
    CLI_ECAT_REDUNDANT_OPT,
    CLI_CTL_CLIENT_OPTS,
    { 0 },
};
static const struct cli_opt reg_opts[] = {
    { "position", 'p', 1, "POS", "the slave, as IgH's ethercat -p (then without POS among the arguments)" },
    CLI_ECAT_REDUNDANT_OPT,
    CLI_CTL_CLIENT_OPTS,
    { 0 },
};

/* --- slaves --------------------------------------------------------------------- */

static int run_slaves(struct cli_ctx *c)
{
    struct cli_ecat_tool t;
    int rc = tool_look(c, &t, true);
    if (rc)
        return rc;
    long only;
    if (parse_only(c, &t, &only)) {
        tool_close(&t);
        return 2;
    }
    unsigned n = cli_ecat_tool_count(&t);
    json_object *arr = json_object_new_array();
    struct cli_ecat_alias_walk aw = { 0, 0 };
    for (unsigned i = 0; i < n; i++) {
        struct takt_ecat_slave_info s;
        char ap[16];
        cli_ecat_tool_info(&t, i, &s);
        cli_ecat_alias_next(&aw, i, &s, ap, sizeof ap);
        if (only >= 0 && i != only)
            continue;
        json_object *sj = cli_ecat_slave_json(&s);
        json_object_object_add(sj, "alias_position", json_object_new_string(ap));
        json_object_object_add(sj, "error_flag", json_object_new_boolean(cli_ecat_error_flag(&s) == 'E'));
        json_object_array_add(arr, sj);
        size_t sl;
        const uint8_t *sii = cli_ecat_tool_sii(&t, i, &sl);
        cli_ecat_sii_warnings(sii, sl, i, sj);    /* stderr, as ecat run reports them */
        if (c->json && !strcmp(c->json, "-"))
            continue;    /* stdout carries the JSON alone */
        char nm[4 * sizeof s.name];
        /* IgH's columns (position, alias:position, state, error flag) and the identity */
        printf("%-3u %-7s 0x%04X  %-6s %c  0x%08" PRIX32 ":0x%08" PRIX32 "  %s\n", i, ap, s.station,
               takt_ecat_al_state_name(s.al_state), cli_ecat_error_flag(&s), s.vendor, s.product,
               s.name[0] ? cli_ecat_name_text(s.name, nm, sizeof nm) : "?");
        if (!c->verbose)
            continue;
        printf("      revision 0x%08" PRIX32 "  serial %" PRIu32 "  alias %u\n", s.revision,
               s.serial, s.alias);
        printf("      ESC type 0x%02X rev %u  features 0x%04X%s\n", s.esc_type, s.esc_rev,
               s.esc_features, s.dc ? " (DC)" : "");
        /* topology: the upstream slave and the port of it this one hangs on (ports in
         * the frame's order 0-3-1-2) */
        if (s.parent < 0)
            printf("      ports open 0x%X (DL status 0x%04X)  parent master\n", s.ports_open,
                   s.dl_status);
        else
            printf("      ports open 0x%X (DL status 0x%04X)  parent %d port %u\n", s.ports_open,
                   s.dl_status, s.parent, s.parent_port);
        /* the delay is only known where DC was set up (ecat run --dc); a scan measures none */
        if (s.dc && s.dc_delay_ns > 0)
            printf("      DC propagation delay %" PRId32 " ns\n", s.dc_delay_ns);
        char pn[64];
        if (s.mbx_out_len)
            printf("      mailbox out 0x%04X/%u in 0x%04X/%u  protocols %s\n", s.mbx_out_start,
                   s.mbx_out_len, s.mbx_in_start, s.mbx_in_len,
                   cli_ecat_protocols(s.mbx_protocols, pn, sizeof pn));
        struct takt_ecat_sii_info si;
        takt_ecat_sii_info(sii, sl, &si);
        if (si.header && si.boot_out_len)
            printf("      bootstrap mailbox out 0x%04X/%u in 0x%04X/%u (BOOT, FoE)\n",
                   si.boot_out_start, si.boot_out_len, si.boot_in_start, si.boot_in_len);
        cli_ecat_print_sm_fmmu(sii, sl);
        printf("      process data: %u output bits, %u input bits\n", s.out_bits, s.in_bits);
    }
    if (n == 0)
        fprintf(stderr, "takt ecat slaves: no slave answered on %s\n", c->iface ? c->iface : "the link");
    tool_close(&t);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "slaves", arr);
    rc = cli_write_json(c, o);
    json_object_put(o);
    return rc;
}

/* --- states --------------------------------------------------------------------- */

static int parse_state(const char *s)
{
    static const struct { const char *n; int v; } st[] = {
        { "INIT", TAKT_ECAT_STATE_INIT }, { "PREOP", TAKT_ECAT_STATE_PREOP }, { "BOOT", TAKT_ECAT_STATE_BOOT },
        { "SAFEOP", TAKT_ECAT_STATE_SAFEOP }, { "OP", TAKT_ECAT_STATE_OP },
    };
    for (size_t i = 0; i < TAKT_ARRAY_SIZE(st); i++)
        if (!strcasecmp(s, st[i].n))
            return st[i].v;
    return -1;
}

static const struct cli_opt states_opts[] = {
    { "slave", 's', 1, "POS", "only slave POS changes state (BOOT for a firmware update), the others stay" },
    { "position", 'p', 1, "POS", "only the slave at POS (or ALIAS:POS) changes state and is shown, as IgH's ethercat states -p" },
    CLI_ECAT_REDUNDANT_OPT,
    CLI_CTL_CLIENT_OPTS,
    { 0 },
};

static int run_states(struct cli_ctx *c)
{
    int target = 0;
    long one = -1, only = -1;
    if (cli_get(c, "slave") && cli_parse_long(c, "--slave", cli_get(c, "slave"), 0, 65535, &one))
        return 2;
    if (c->argc > 1)
        return cli_usage_error(c, "expected at most one STATE, got %d arguments", c->argc);
    if (c->argc == 1 && (target = parse_state(c->argv[0])) < 0)
        return cli_usage_error(c, "STATE expects INIT, PREOP, BOOT, SAFEOP or OP, got '%s'", c->argv[0]);
    if (cli_get(c, "slave") && cli_get(c, "position"))
        return cli_usage_error(c, "-s and -p both name the slave that changes: give one");
    struct cli_ecat_tool t;
    /* through a running master: the network's state, or one slave's (the master keeps
     * the others where they are) */
    bool served = true;
    int rc = target && one < 0 && !cli_get(c, "position") ? tool_open(c, &t, served) : tool_look(c, &t, served);
    if (rc)
        return rc;
    if (parse_only(c, &t, &only)) {
        tool_close(&t);
        return 2;
    }
    if (only >= 0)
        one = only;   /* as IgH's ethercat states -p: only that slave changes and is shown */
    int status = 0;
    if (target && one >= (long)cli_ecat_tool_count(&t)) {
        cli_error(c, "--slave expects a position 0..%d, got %ld", (int)cli_ecat_tool_count(&t) - 1, one);
        tool_close(&t);
        return 2;
    }
    if (target) {
        double to = c->time_s > 0 ? c->time_s : 15;
        rc = t.ctl ? cli_ecat_tool_set_state(&t, c, one, (uint8_t)target, to)
           : one >= 0 ? takt_ecat_slave_set_state(t.m, (unsigned)one, (uint8_t)target, (takt_ns_t)(to * 1e9))
                      : takt_ecat_master_set_state(t.m, (uint8_t)target, (takt_ns_t)(to * 1e9));
        if (rc) {
            cli_error(c, "%s", cli_ecat_tool_error(&t));
            status = 1;
        }
    }
    unsigned n = cli_ecat_tool_count(&t);
    json_object *arr = json_object_new_array();
    struct cli_ecat_alias_walk aw = { 0, 0 };
    for (unsigned i = 0; i < n; i++) {
        struct takt_ecat_slave_info s;
        char ap[16];
        cli_ecat_tool_info(&t, i, &s);
        cli_ecat_alias_next(&aw, i, &s, ap, sizeof ap);
        if (only >= 0 && i != only)
            continue;
        json_object *sj = cli_ecat_state_json(&s);
        json_object_object_add(sj, "alias_position", json_object_new_string(ap));
        json_object_array_add(arr, sj);
        if (c->json && !strcmp(c->json, "-"))
            continue;
        printf("%-3u %-7s 0x%04X  %-6s%s", i, ap, s.station, takt_ecat_al_state_name(s.al_state),
               s.al_state & TAKT_ECAT_STATE_ERROR ? " +ERR" : "");
        if (s.al_code)
            printf("  AL status code 0x%04X (%s)", s.al_code, takt_ecat_al_status_text(s.al_code));
        printf("\n");
    }
    tool_close(&t);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "slaves", arr);
    if (cli_write_json(c, o))
        status = 1;
    json_object_put(o);
    return status;
}

/* --- reg read|write POS ADDR LEN|DATA ------------------------------------------- */

static int run_reg(struct cli_ctx *c)
{
    char *av[8];
    if (c->argc >= 1 && cli_ecat_pos_option(c, 1, av, 8))
        return 2;
    if (c->argc < 4 || (strcmp(c->argv[0], "read") && strcmp(c->argv[0], "write")))
        return cli_usage_error(c, "expected 'read POS ADDR LEN' or 'write POS ADDR HEXBYTES'");
    bool wr = !strcmp(c->argv[0], "write");
    long addr, len = 0;
    uint8_t buf[512];
    if (cli_parse_long(c, "ADDR", c->argv[2], 0, 0xFFFF, &addr))
        return 2;
    if (!wr) {
        if (cli_parse_long(c, "LEN", c->argv[3], 1, sizeof buf, &len))
            return 2;
    } else {
        const char *h = c->argv[3];
        if (!strncmp(h, "0x", 2))
            h += 2;
        size_t hl = strlen(h);
        if (hl == 0 || hl % 2 || hl / 2 > sizeof buf)
            return cli_usage_error(c, "HEXBYTES expects an even number of hex digits (bytes in "
                                   "wire order, e.g. 3412 for 0x1234), got '%s'", c->argv[3]);
        for (size_t i = 0; i < hl / 2; i++) {
            char b[3] = { h[2 * i], h[2 * i + 1], 0 };
            char *end;
            buf[i] = (uint8_t)strtoul(b, &end, 16);
            if (*end)
                return cli_usage_error(c, "HEXBYTES expects hex digits, got '%s'", c->argv[3]);
        }
        len = (long)(hl / 2);
    }
    struct cli_ecat_tool t;
    int rc = tool_look(c, &t, true);
    if (rc)
        return rc;
    unsigned pos;
    if (parse_pos(c, &t, c->argv[1], &pos)) {
        tool_close(&t);
        return 2;
    }
    rc = cli_ecat_tool_reg(&t, c, wr, pos, (uint16_t)addr, buf, (uint16_t)len);
    if (rc) {
        cli_error(c, "slave %u register 0x%04lX (%ld bytes): %s", pos, addr, len,
                  t.ctl ? t.err : takt_strerror(rc));
    } else if (!wr) {
        for (long i = 0; i < len; i++)
            printf("%02X%s", buf[i], (i % 16 == 15 || i == len - 1) ? "\n" : " ");
        if (len == 2)
            printf("0x%04X %u\n", takt_get_le16(buf), takt_get_le16(buf));
        else if (len == 4)
            printf("0x%08" PRIX32 " %" PRIu32 "\n", takt_get_le32(buf), takt_get_le32(buf));
    }
    tool_close(&t);
    return rc ? 1 : 0;
}

/* --- sii read POS ---------------------------------------------------------------- */

static int sii_write(struct cli_ctx *c, struct cli_ecat_tool *t, unsigned pos, const char *path)
{
    static uint8_t img[TAKT_ECAT_SII_MAX_BYTES];     /* the largest EEPROM word 0x003E names */
    FILE *f = fopen(path, "rb");
    if (!f)
        return cli_error(c, "cannot read '%s': %s", path, strerror(errno));
    size_t n = fread(img, 1, sizeof img, f);
    bool more = fgetc(f) != EOF;
    fclose(f);
    if (more || n < 128 || n % 2)
        return cli_error(c, "'%s': expected an SII image of 128..%u bytes, even, got %zu%s", path,
                         TAKT_ECAT_SII_MAX_BYTES, n, more ? "+" : "");
    uint8_t crc = takt_ecat_sii_checksum(img);
    if (crc != img[14] && !cli_flag(c, "force"))
        return cli_error(c, "'%s': header checksum (word 0x0007) is 0x%02X, expected 0x%02X; "
                         "--force writes it anyway", path, img[14], crc);
    int rc = cli_ecat_tool_sii_write(t, pos, 0, img, n);
    if (rc)
        return cli_error(c, "%s", cli_ecat_tool_error(t));
    printf("wrote %zu bytes to the SII of slave %u\n", n, pos);
    return 0;
}

static int run_sii(struct cli_ctx *c)
{
    char *av[8];
    if (c->argc >= 1 && cli_ecat_pos_option(c, 1, av, 8))
        return 2;
    bool wr = c->argc >= 3 && !strcmp(c->argv[0], "write");
    if (c->argc < 2 || (strcmp(c->argv[0], "read") && !wr))
        return cli_usage_error(c, "expected 'read POS' or 'write POS FILE'");
    struct cli_ecat_tool t;
    int rc = tool_look(c, &t, true);   /* a running master writes it word by word through its cycle */
    if (rc)
        return rc;
    unsigned pos;
    if (parse_pos(c, &t, c->argv[1], &pos)) {
        tool_close(&t);
        return 2;
    }
    if (wr) {
        rc = sii_write(c, &t, pos, c->argv[2]);
        tool_close(&t);
        return rc;
    }
    size_t n;
    const uint8_t *sii = cli_ecat_tool_sii(&t, pos, &n);
    const char *out = cli_get(c, "output");
    if (out) {
        FILE *f = strcmp(out, "-") ? fopen(out, "wb") : stdout;
        if (!f || fwrite(sii, 1, n, f) != n)
            rc = cli_error(c, "cannot write '%s': %s", out, strerror(errno));
        if (f && f != stdout)
            fclose(f);
    } else {
        for (size_t i = 0; i < n; i += 16) {
            printf("%04zx:", i / 2);
            for (size_t k = i; k < i + 16 && k < n; k++)
                printf(" %02X", sii[k]);
            printf("\n");
        }
    }
    tool_close(&t);
    return rc;
}

/* --- pdos -------------------------------------------------------------------------- */

static int run_pdos(struct cli_ctx *c)
{
    struct cli_ecat_tool t;
    int rc = cli_ecat_tool_open(c, &t, CLI_ECAT_TOOL_SERVED | CLI_ECAT_TOOL_PDOS);
    if (rc)
        return rc;
    long only;
    if (parse_only(c, &t, &only)) {
        tool_close(&t);
        return 2;
    }
    if (!t.ctl && (rc = takt_ecat_master_configure(t.m))) {
        cli_error(c, "%s", takt_ecat_master_error(t.m));
        tool_close(&t);
        return 1;
    }
    unsigned n = cli_ecat_tool_pd_count(&t);
    int last = -1;
    bool quiet = c->json && !strcmp(c->json, "-");   /* stdout carries the JSON alone */
    json_object *arr = json_object_new_array(), *entries = NULL;
    for (unsigned i = 0; i < n; i++) {
        struct takt_ecat_pd_entry e;
        cli_ecat_tool_pd_get(&t, i, &e);
        if (only >= 0 && e.position != only)
            continue;
        if ((int)e.position != last) {
            struct takt_ecat_slave_info s;
            cli_ecat_tool_info(&t, e.position, &s);
            json_object *sj = json_object_new_object();
            char nm[4 * sizeof s.name];
            json_object_object_add(sj, "position", json_object_new_int((int)e.position));
            json_object_object_add(sj, "name", json_object_new_string(cli_ecat_name_utf8(s.name, nm, sizeof nm)));
            json_object_object_add(sj, "out_offset", json_object_new_int64(s.out_offset));
            json_object_object_add(sj, "out_bits", json_object_new_int64(s.out_bits));
            json_object_object_add(sj, "in_offset", json_object_new_int64(s.in_offset));
            json_object_object_add(sj, "in_bits", json_object_new_int64(s.in_bits));
            entries = json_object_new_array();
            json_object_object_add(sj, "entries", entries);
            json_object_array_add(arr, sj);
            last = (int)e.position;
            if (!quiet)
                printf("slave %u %s: outputs at byte %u (%u bits), inputs at byte %u (%u bits)\n",
                       e.position, cli_ecat_name_text(s.name, nm, sizeof nm), s.out_offset,
                       s.out_bits, s.in_offset, s.in_bits);
        }
        json_object_array_add(entries, cli_ecat_pd_json(&e));
        if (quiet)
            continue;
        if (e.index == 0)
            printf("    %s  %u.%u  %2u bits  (gap)\n", e.output ? "out" : "in ", e.byte_offset,
                   e.bit_offset, e.bits);
        else
            printf("    %s  %u.%u  %2u bits  0x%04X:%02X  %s\n", e.output ? "out" : "in ",
                   e.byte_offset, e.bit_offset, e.bits, e.index, e.sub, e.name);
    }
    tool_close(&t);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "slaves", arr);
    rc = cli_write_json(c, o);
    json_object_put(o);
    return rc;
}

/* --- xml --------------------------------------------------------------------------- */

static int run_xml(struct cli_ctx *c)
{
    const char *out = cli_get(c, "output");
    struct cli_ecat_tool t;
    int rc = tool_look(c, &t, true);
    if (rc)
        return rc;
    if (t.ctl) {   /* the running master's description, as it wrote it before its cycle */
        rc = cli_ecat_tool_text(&t, c, "xml", out ? out : "/dev/stdout");
        tool_close(&t);
        return rc;
    }
    rc = takt_ecat_master_write_eni(t.m, out ? out : "/dev/stdout");
    if (rc)
        cli_error(c, "%s", takt_ecat_master_error(t.m));
    tool_close(&t);
    return rc ? 1 : 0;
}

/* --- the table --------------------------------------------------------------------- */

static const struct cli_opt sii_opts[] = {
    { "position", 'p', 1, "POS", "the slave, as IgH's ethercat -p (then without POS among the arguments)" },
    { "output", 'o', 1, "FILE", "read: write the raw image to FILE (- for stdout) instead of a dump" },
    { "force", 0, 0, NULL, "write: even with a wrong header checksum" },
    CLI_ECAT_REDUNDANT_OPT,
    CLI_CTL_CLIENT_OPTS,
    { 0 }
};
static const struct cli_opt xml_opts[] = {
    { "output", 'o', 1, "FILE", "write the description to FILE (default: stdout)" },
    CLI_ECAT_REDUNDANT_OPT,
    CLI_CTL_CLIENT_OPTS,
    { 0 }
};
static const struct cli_opt run_opts[] = {
    { "eni", 'f', 1, "FILE", "ENI file (ETG.2100): check the scanned bus against it and take "
      "the PDO mapping from it" },
    { "dc", 0, 0, NULL, "configure distributed clocks (SYNC0 at the cycle time; on by itself with an ENI that configures DC)" },
    { "dc-mode", 0, 1, "MODE", "'master' (master follows the reference clock, default) or 'ref' "
      "(reference clock follows the master)" },
    { "sii-pdo", 0, 0, NULL, "take the PDO mapping from the SII even where CoE could tell it" },
    { "lost-times", 0, 0, NULL, "note when each lost frame was sent (JSON lost_frames; for takt ecat bench)" },
    { "echo", 0, 0, NULL, "copy each echo device's Counter input to its Echo output in every cycle "
      "whose inputs are fresh (stale-reply test; JSON echo)" },
    CLI_METRICS_OPTS,
    CLI_CTL_SERVER_OPTS,
    { "eoe", 0, 1, "LIST", "EoE: a TAP device takt-eoePOS (or NAME) per item "
      "POS[@NAME][:IP/NN[:HOST_IP]] (comma list): the slave gets IP/NN (none or empty with -f: "
      "the ENI's), the TAP HOST_IP; 'all': a TAP for every slave with EoE (needs CAP_NET_ADMIN; JSON eoe)" },
    CLI_ECAT_REDUNDANT_OPT,
    { 0 }
};

extern int cli_ecat_run(struct cli_ctx *c);

static const struct cli_common_help states_help[] = {
    { CLI_TIME, "wait at most S seconds for STATE (default 15)" },
    { 0 }
};

const struct cli_cmd cli_cmds_ecat[] = {
    { "ecat", "slaves", NULL, "scan the network and list the slaves",
      "Counts the slaves, assigns station addresses 0x1000 + position, reads ESC registers\n"
      "and the SII of each. Columns as IgH's ethercat slaves: position (from 0), ALIAS:POS\n"
      "(POS counted from the nearest slave with an alias; 0:position before any), station,\n"
      "state, 'E' when the slave reports an AL error or status code ('+' otherwise),\n"
      "vendor:product, name. -p POS (or ALIAS:POS) shows one slave. -v shows ESC, ports,\n"
      "mailbox (protocols by name) and process data sizes; whether a slave has distributed\n"
      "clocks, but no delay: a scan sets up no DC (takt ecat run --dc measures the delays).\n"
      "--json: every slave (docs/master.md). What an SII holds that does not decode (bad\n"
      "checksum, a broken, unknown or skipped category, truncated strings) goes to stderr as\n"
      "\"slave POS: ...\", the rest of the image is used. Control characters and non-UTF-8\n"
      "bytes of names show as \\n, \\xE9.",
      CLI_IFACE | CLI_PCAP | CLI_JSON, only_opts, run_slaves, NULL },
    { "ecat", "states", "[STATE]", "show the AL states, or bring every slave to STATE",
      "STATE is INIT, PREOP, BOOT, SAFEOP or OP. A slave that refuses shows its AL status code\n"
      "and its meaning (ETG.1000.6). -t S bounds the wait (default 15 s). With -s POS only\n"
      "that slave moves, the others keep their states (BOOT: through INIT, bootstrap mailbox;\n"
      "through a running master too: it leaves the others where they are);\n"
      "-p POS (or ALIAS:POS) also shows only that slave, as IgH's ethercat states -p.\n"
      "--json: each slave's state and AL status code.",
      CLI_IFACE | CLI_PCAP | CLI_TIME | CLI_JSON, states_opts, run_states, states_help },
    { "ecat", "reg", "read|write POS ADDR LEN|HEXBYTES", "read or write ESC registers of one slave",
      "POS is the slave position (0 = first) or ALIAS:POS, or given as -p POS. Data are\n"
      "bytes in wire order (little-endian).",
      CLI_IFACE | CLI_PCAP, reg_opts, run_reg, NULL },
    { "ecat", "sii", "read POS | write POS FILE", "read or write the SII (EEPROM) image of a slave",
      "POS is the slave position (0 = first) or ALIAS:POS, or given as -p POS. read shows\n"
      "the image read at scan (or -o FILE writes it raw); write puts a raw image\n"
      "(128..65536 bytes, header checksum checked) into the EEPROM word by word; where a\n"
      "master runs on -i (or --master SOCKET), its cycle writes them (docs/control.md);\n"
      "a rescan through it is refused until the last word is written.",
      CLI_IFACE | CLI_PCAP, sii_opts, run_sii, NULL },
    { "ecat", "pdos", NULL, "list process data entries with their offsets in the image",
      "Offsets are byte.bit in the image of `takt ecat run` and of takt_ecat_pd_find().\n"
      "-p POS (or ALIAS:POS) lists one slave's. --json: per slave its offsets and entries.",
      CLI_IFACE | CLI_PCAP | CLI_JSON, only_opts, run_pdos, NULL },
    { "ecat", "xml", NULL, "write an ENI-like description of the scanned network",
      "Identities, mailbox, SMs, PDOs from each slave's SII, the process image and the cyclic\n"
      "frames as takt lays them out (-c sets the cycle written). -o FILE, default stdout.",
      CLI_IFACE | CLI_PCAP | CLI_CYCLE, xml_opts, run_xml, NULL },
    { "ecat", "run", NULL, "bring the network to OP and exchange process data",
      "Scans, configures from SII, runs the cycle in a real-time thread and prints PerfMsmt\n"
      "lines (Cycle Time, Task Duration, JOB_*) every --perf seconds, events as they happen\n"
      "and a summary: cycles, frames lost (rates over 1/10/60 s), WKC errors, DC sync error.\n"
      "--redundant IF2: a ring over two ports; a cable break anywhere in it costs no cycle\n"
      "and is reported with its place (between which slaves), and so is its healing.\n"
      "While it runs it serves a control socket (--control, docs/control.md): the ecat\n"
      "tool verbs on -i go through it instead of opening the interface beside it.",
      CLI_IFACE | CLI_CYCLE | CLI_RT | CLI_TIME | CLI_PERF | CLI_JSON | CLI_PCAP, run_opts,
      cli_ecat_run, NULL },
    { 0 }
};
