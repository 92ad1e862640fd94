/* takt ecat foe read|write: files over FoE from the command line (IgH `ethercat
 * foe_read|foe_write`), with --boot for a firmware written in the BOOT state. */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "cli/cli_ctl.h"
#include "cli/cli_ecat.h"

#define FOE_FILE_CAP (64u << 20)      /* largest file read or written (bytes) */

static const struct cli_opt foe_opts[] = {
    { "slave",    's', 1, "POS",  "slave position (default 0)" },
    { "output",   'o', 1, "FILE", "read: write the file here (default: standard output)" },
    { "name",     0,   1, "NAME", "write: file name on the slave (default: FILE's base name)" },
    { "boot",     0,   0, NULL,   "write: in the BOOT state (firmware); INIT afterwards" },
    { "password", 0,   1, "P",    "FoE password (32-bit number, default 0 = none)" },
    CLI_ECAT_REDUNDANT_OPT,
    CLI_CTL_CLIENT_OPTS,
    { 0 },
};

struct foe_tool {
    struct takt_link *l;
    struct takt_link *l2;       /* --redundant: the ring's second port, else NULL */
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
    takt_link_close(t->l2);
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
    int rc = cli_ecat_open_ports(c, &t->l, &t->l2);
    if (rc)
        return rc;
    cli_drop_caps(c, 0);   /* the tools run no real-time thread */
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.keep_state = true;
    o.redundant = t->l2;
    char err[256];
    if (takt_ecat_master_open(&t->m, t->l, &o, err, sizeof err)) {
        takt_link_close(t->l);
        takt_link_close(t->l2);
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

/* Beside a running master: through its control socket. The file travels as a
 * descriptor (SCM_RIGHTS) of a memory file this process made, so the master opens no
 * path on our behalf; what is read or written locally is done here, with our rights.
 * 1 after an error; 0 done; -1 when no master runs (then the caller goes directly). */
static int foe_remote(struct cli_ctx *c, bool wr, const char *name, const uint8_t *data, size_t len,
                      uint8_t **rbuf, size_t *rlen)
{
    struct ctl_client *cl;
    int rc = cli_ctl_attach(c, "ecat", true, &cl);
    if (rc)
        return rc;
    if (!cl)
        return -1;
    long pos = 0, pw = 0;
    if ((cli_get(c, "slave") && cli_parse_long(c, "--slave", cli_get(c, "slave"), 0, 65535, &pos)) ||
        (cli_get(c, "password") && cli_parse_long(c, "--password", cli_get(c, "password"), 0, 0xFFFFFFFFL, &pw))) {
        ctl_client_close(cl);
        return 2;
    }
    if (wr && len > CTL_FILE_MAX) {
        ctl_client_close(cl);
        return cli_error(c, "a master runs: it takes files of at most %u bytes, this one has %zu",
                         CTL_FILE_MAX, len);
    }
    int fd = memfd_create("takt-foe", MFD_CLOEXEC);
    if (fd < 0 || (wr && write(fd, data, len) != (ssize_t)len)) {
        rc = cli_error(c, "cannot make the file to pass to the master: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        ctl_client_close(cl);
        return rc;
    }
    json_object *o = json_object_new_object();
    json_object_object_add(o, "verb", json_object_new_string(wr ? "foe_write" : "foe_read"));
    json_object_object_add(o, "pos", json_object_new_int64(pos));
    json_object_object_add(o, "name", json_object_new_string(name));
    json_object_object_add(o, "password", json_object_new_int64(pw));
    if (cli_get(c, "boot"))   /* the master takes the slave to BOOT and back */
        json_object_object_add(o, "boot", json_object_new_boolean(true));
    char err[1024];
    json_object *r = ctl_client_call_fd(cl, o, fd, 600 * TAKT_NS_PER_S, err, sizeof err);
    json_object_put(o);
    ctl_client_close(cl);
    if (!r) {
        close(fd);
        return cli_error(c, "%s", err);
    }
    json_object *st;
    if (cli_get(c, "boot") && json_object_object_get_ex(r, "state", &st))
        fprintf(stderr, "slave %ld: written in BOOT, now in %s\n", pos, json_object_get_string(st));
    json_object_put(r);
    if (!wr) {
        off_t n = lseek(fd, 0, SEEK_END);
        *rbuf = malloc(n > 0 ? (size_t)n : 1);
        if (n < 0 || !*rbuf || pread(fd, *rbuf, (size_t)n, 0) != n) {
            free(*rbuf);
            *rbuf = NULL;
            close(fd);
            return cli_error(c, "cannot read what the master passed back");
        }
        *rlen = (size_t)n;
    }
    close(fd);
    return 0;
}

static int foe_out(struct cli_ctx *c, unsigned pos, const char *name, const uint8_t *buf, size_t len)
{
    const char *out = cli_get(c, "output");
    FILE *f = out ? fopen(out, "wb") : stdout;
    if (!f || fwrite(buf, 1, len, f) != len || (out && fclose(f)))
        return cli_error(c, "cannot write %zu bytes to %s: %s", len, out ? out : "standard output",
                         strerror(errno));
    if (out || c->verbose)
        fprintf(stderr, "slave %u: read '%s', %zu bytes%s%s\n", pos, name, len, out ? " to " : "", out ? out : "");
    return 0;
}

static int foe_read(struct cli_ctx *c, const char *name)
{
    uint8_t *rb = NULL;
    size_t rl = 0;
    int rr = foe_remote(c, false, name, NULL, 0, &rb, &rl);
    if (rr >= 0) {
        if (!rr) {
            long p = 0;
            if (cli_get(c, "slave"))
                p = strtol(cli_get(c, "slave"), NULL, 0);
            rr = foe_out(c, (unsigned)p, name, rb, rl);
        }
        free(rb);
        return rr;
    }
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
    int rr = foe_remote(c, true, name, data, len, NULL, NULL);
    if (rr >= 0) {
        if (!rr)
            fprintf(stderr, "slave %s: wrote '%s', %zu bytes\n", cli_get(c, "slave") ? cli_get(c, "slave") : "0",
                    name, len);
        free(data);
        return rr;
    }
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
      "access denied, 0x8008 only in bootstrap, ...). Progress on stderr when it is a terminal.\n"
      "Where a master runs on -i (or --master SOCKET), the file goes through it (up to 16 MiB,\n"
      "passed as a file descriptor, never a path); with --boot the running master takes that\n"
      "slave to BOOT, writes, and brings it back through INIT to the network's state while\n"
      "the others keep cycling.",
      CLI_IFACE | CLI_PCAP, foe_opts, run_foe, NULL },
    { 0 },
};
