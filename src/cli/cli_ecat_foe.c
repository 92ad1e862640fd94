/* takt ecat foe read|write: files over FoE from the command line (IgH `ethercat
 * foe_read|foe_write`), with --boot for a firmware written in the BOOT state. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli_ctl.h"
#include "cli/cli_ecat.h"

#define FOE_FILE_CAP (64u << 20)      /* largest file read or written (bytes) */

static const struct cli_opt foe_opts[] = {
    { "slave",    's', 1, "POS",  "slave position (default 0)" },
    { "output",   'o', 1, "FILE", "read: write the file here (default: standard output)" },
    { "name",     0,   1, "NAME", "write: file name on the slave (default: FILE's base name)" },
    { "boot",     0,   0, NULL,   "write: in the BOOT state (firmware); INIT afterwards" },
    { "password", 0,   1, "P",    "FoE password (32-bit number, default 0 = none)" },
    CLI_CTL_CLIENT_OPTS,
    { 0 },
};

struct foe_tool {
    struct takt_link *l;
    struct takt_ecat_master *m;
    unsigned pos;
    uint32_t password;
};

static void progress(void *ctx, unsigned pos, size_t done, size_t total)
{
    (void)ctx;
    if (total)
        fprintf(stderr, "\rslave %u: %zu / %zu bytes (%zu %%)", pos, done, total, done * 100 / total);
    else
        fprintf(stderr, "\rslave %u: %zu bytes", pos, done);
}

static void tool_close(struct foe_tool *t)
{
    takt_ecat_master_close(t->m);
    takt_link_close(t->l);
}

/* Open, scan (slaves keep their states), put slave POS where FoE works: BOOT with
 * --boot, else PREOP when it is in INIT (or BOOT). */
static int tool_open(struct cli_ctx *c, struct foe_tool *t, bool boot)
{
    long v = 0;
    const char *s = cli_get(c, "slave"), *pw = cli_get(c, "password");
    if (s && cli_parse_long(c, "--slave", s, 0, 65535, &v))
        return 2;
    t->pos = (unsigned)v;
    v = 0;
    if (pw && cli_parse_long(c, "--password", pw, 0, 0xFFFFFFFFL, &v))
        return 2;
    t->password = (uint32_t)v;
    int rc = cli_ecat_open_link(c, &t->l);
    if (rc)
        return rc;
    cli_drop_caps(c, 0);   /* the tools run no real-time thread */
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.keep_state = true;
    char err[256];
    if (takt_ecat_master_open(&t->m, t->l, &o, err, sizeof err)) {
        takt_link_close(t->l);
        return cli_error(c, "%s", err);
    }
    if (takt_ecat_master_scan(t->m, 5 * TAKT_NS_PER_S)) {
        cli_error(c, "%s", takt_ecat_master_error(t->m));
        tool_close(t);
        return 1;
    }
    unsigned n = takt_ecat_master_slave_count(t->m);
    if (t->pos >= n) {
        cli_error(c, "--slave expects a position 0..%d, got %u", (int)n - 1, t->pos);
        tool_close(t);
        return 2;
    }
    struct takt_ecat_slave_info si;
    takt_ecat_master_slave_info(t->m, t->pos, &si);
    uint8_t st = si.al_state & TAKT_ECAT_STATE_MASK, want = boot ? TAKT_ECAT_STATE_BOOT : TAKT_ECAT_STATE_PREOP;
    if ((boot && st != TAKT_ECAT_STATE_BOOT) || (!boot && (st == TAKT_ECAT_STATE_INIT || st == 0))) {
        if (takt_ecat_slave_set_state(t->m, t->pos, want, 10 * TAKT_NS_PER_S)) {
            cli_error(c, "%s", takt_ecat_master_error(t->m));
            tool_close(t);
            return 1;
        }
    }
    if (cli_progress_enabled())
        takt_ecat_foe_set_progress(t->m, progress, NULL);
    return 0;
}

static int foe_read(struct cli_ctx *c, const char *name)
{
    struct foe_tool t;
    int rc = tool_open(c, &t, false);
    if (rc)
        return rc;
    uint8_t *buf = malloc(FOE_FILE_CAP);
    size_t len = 0;
    if (!buf) {
        tool_close(&t);
        return cli_error(c, "no memory for a %u-byte file buffer", FOE_FILE_CAP);
    }
    rc = takt_ecat_foe_read(t.m, t.pos, name, t.password, buf, FOE_FILE_CAP, &len);
    if (cli_progress_enabled())
        fputc('\n', stderr);
    if (rc) {
        cli_error(c, "%s", takt_ecat_master_error(t.m));
        free(buf);
        tool_close(&t);
        return 1;
    }
    const char *out = cli_get(c, "output");
    FILE *f = out ? fopen(out, "wb") : stdout;
    int status = 0;
    if (!f || fwrite(buf, 1, len, f) != len || (out && fclose(f))) {
        cli_error(c, "cannot write %zu bytes to %s: %s", len, out ? out : "standard output",
                  strerror(errno));
        status = 1;
    } else if (out || c->verbose) {
        fprintf(stderr, "slave %u: read '%s', %zu bytes%s%s\n", t.pos, name, len,
                out ? " to " : "", out ? out : "");
    }
    free(buf);
    tool_close(&t);
    return status;
}

static uint8_t *load(struct cli_ctx *c, const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = malloc(FOE_FILE_CAP + 1);
    if (!f || !buf) {
        cli_error(c, "cannot read %s: %s", path, strerror(errno));
        if (f)
            fclose(f);
        free(buf);
        return NULL;
    }
    *len = fread(buf, 1, FOE_FILE_CAP + 1, f);
    bool bad = ferror(f) || *len > FOE_FILE_CAP;
    fclose(f);
    if (bad) {
        cli_error(c, "%s: expected a readable file of at most %u bytes", path, FOE_FILE_CAP);
        free(buf);
        return NULL;
    }
    return buf;
}

static int foe_write(struct cli_ctx *c, const char *path)
{
    const char *name = cli_get(c, "name");
    if (!name) {
        const char *slash = strrchr(path, '/');
        name = slash ? slash + 1 : path;
    }
    size_t len = 0;
    uint8_t *data = load(c, path, &len);
    if (!data)
        return 1;
    bool boot = cli_get(c, "boot") != NULL;
    struct foe_tool t;
    int rc = tool_open(c, &t, boot);
    if (rc) {
        free(data);
        return rc;
    }
    rc = takt_ecat_foe_write(t.m, t.pos, name, t.password, data, len);
    if (cli_progress_enabled())
        fputc('\n', stderr);
    int status = 0;
    if (rc) {
        cli_error(c, "%s", takt_ecat_master_error(t.m));
        status = 1;
    } else {
        fprintf(stderr, "slave %u: wrote '%s', %zu bytes\n", t.pos, name, len);
    }
    /* BOOT leaves only to INIT; the new firmware starts from there */
    if (boot && takt_ecat_slave_set_state(t.m, t.pos, TAKT_ECAT_STATE_INIT, 10 * TAKT_NS_PER_S)) {
        cli_error(c, "%s", takt_ecat_master_error(t.m));
        status = 1;
    }
    free(data);
    tool_close(&t);
    return status;
}

static int run_foe(struct cli_ctx *c)
{
    if (c->argc != 2 || (strcmp(c->argv[0], "read") && strcmp(c->argv[0], "write")))
        return cli_usage_error(c, "expected read FILE or write FILE, got %d argument%s%s%s",
                               c->argc, c->argc == 1 ? "" : "s", c->argc ? " starting with " : "",
                               c->argc ? c->argv[0] : "");
    if (!strcmp(c->argv[0], "read")) {
        if (cli_get(c, "boot") || cli_get(c, "name"))
            return cli_usage_error(c, "--boot and --name are for write, not read");
        return foe_read(c, c->argv[1]);
    }
    if (cli_get(c, "output"))
        return cli_usage_error(c, "-o/--output is for read; write takes --name for the slave's file name");
    return foe_write(c, c->argv[1]);
}

const struct cli_cmd cli_cmds_ecat_foe[] = {
    { "ecat", "foe", "read FILE | write FILE", "read or write a file of a slave over FoE",
      "read FILE fetches the slave's file FILE (to -o OUT or standard output); write FILE\n"
      "sends the local FILE (named --name NAME on the slave, default its base name). --boot\n"
      "writes in the BOOT state (firmware over the bootstrap mailbox), then returns the slave\n"
      "to INIT. A refusal names the FoE error code and its meaning (0x8001 not found, 0x8002\n"
      "access denied, 0x8008 only in bootstrap, ...). Progress on stderr when it is a terminal.",
      CLI_IFACE | CLI_PCAP, foe_opts, run_foe, NULL },
    { 0 },
};
