/* The control verbs of `takt ecat run` that move images and files: the SII write
 * (word by word through the cycle, in a thread of its own) and FoE (the file passed as
 * a descriptor). docs/control.md. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli_ecat_ctl_int.h"

/* --- jobs: blocking library calls in a thread of their own ------------------------------ */

static void *job_worker(void *arg)
{
    struct cli_ecat_ctl *x = arg;
    struct ctl_op *op = x->job_op;
    int rc = x->job_fn(x, op);
    if (rc && !op->msg[0]) {
        const char *e = takt_ecat_master_error(x->m);
        snprintf(op->msg, sizeof op->msg, "%s", e && e[0] ? e : takt_strerror(rc));
    }
    ctl_op_done(op, rc, NULL, 0);
    atomic_store(&x->job_busy, false);
    return NULL;
}

void ecat_ctl_job_join(struct cli_ecat_ctl *x)
{
    if (x->job_joinable)    /* its register accesses end with the cycle at the latest */
        pthread_join(x->job_thread, NULL);
    x->job_joinable = false;
}

/* 0 started (the op answers when it ends), or answered now: one job at a time */
static int job_start(struct ctl_call *k, struct cli_ecat_ctl *x, struct ctl_op *op, const char *what,
                     int (*fn)(struct cli_ecat_ctl *x, struct ctl_op *op))
{
    x->job_fn = fn;
    x->job_what = what;
    x->job_op = op;
    atomic_store(&x->job_busy, true);
    if (pthread_create(&x->job_thread, NULL, job_worker, x)) {
        atomic_store(&x->job_busy, false);
        snprintf(op->msg, sizeof op->msg, "cannot start %s: no thread", what);
        ctl_op_done(op, -EAGAIN, NULL, 0);
    } else {
        x->job_joinable = true;
    }
    (void)k;
    return CTL_DEFERRED;
}

/* NULL when free; else the refusal's reason (a job runs: it said what) */
static const char *job_running(struct cli_ecat_ctl *x, char *buf, size_t cap)
{
    if (atomic_load(&x->job_busy)) {
        snprintf(buf, cap, "%s of slave %u runs; one at a time", x->job_what, x->job_pos);
        return buf;
    }
    ecat_ctl_job_join(x);   /* ended: it cleared job_busy as it returned */
    return NULL;
}

const char *ecat_ctl_sii_in_use(struct cli_ecat_ctl *x, char *buf, size_t cap)
{
    if (atomic_load(&x->job_busy)) {
        snprintf(buf, cap, "%s of slave %u runs", x->job_what, x->job_pos);
        return buf;
    }
    if (x->sii_open && takt_now() < x->sii_open_until && ctl_peer_connected(x->srv, x->sii_peer)) {
        snprintf(buf, cap, "an SII image is being written to slave %u in chunks (more to come)", x->sii_open - 1);
        return buf;
    }
    return NULL;
}

/* --- SII write ----------------------------------------------------------------------------- */

static int sii_job(struct cli_ecat_ctl *x, struct ctl_op *op)
{
    int rc = takt_ecat_sii_write_at(x->m, x->job_pos, x->job_word, op->buf, op->cap);
    if (rc == -EBUSY)
        snprintf(op->msg, sizeof op->msg, "slave %u: SII write: a rescan kept the EEPROM interface "
                 "(0x0500) for 10 s; nothing written", x->job_pos);
    return rc;
}

/* In the server's thread: the copy `slaves --sii` answers takes what the slave holds now. */
static void finish_sii(struct ctl_call *k, struct ctl_op *op)
{
    struct cli_ecat_ctl *x = op->user;
    size_t pos = (size_t)op->arg[1], at = 2 * (size_t)op->arg[2], end = at + op->cap;
    /* a chunk with more to come keeps the interface the writer's for a while */
    x->sii_open = !op->err && op->arg[3] ? (unsigned)pos + 1 : 0;
    x->sii_open_until = takt_now() + 10 * TAKT_NS_PER_S;
    x->sii_peer = ctl_call_peer(k);
    if (op->err) {
        ctl_call_error(k, "%s", op->msg[0] ? op->msg : takt_strerror(op->err));
        return;
    }
    if (end > x->sii_len[pos]) {
        uint8_t *p = realloc(x->sii[pos], end);
        if (!p) {
            ctl_call_error(k, "written; out of memory for the copy of the image");
            return;
        }
        memset(p + x->sii_len[pos], 0xFF, end - x->sii_len[pos]);
        x->sii[pos] = p;
        x->sii_len[pos] = end;
    }
    memcpy(x->sii[pos] + at, op->buf, op->cap);
    ctl_call_result(k, NULL);
}

/* "sii_write": pos, word (where data starts), data (hex, at most CTL_SII_CHUNK bytes: a
 * whole image comes in several requests, the line limit stays), more (true: the next
 * chunk follows; a rescan waits for the last). */
int ecat_ctl_sii_write(struct ctl_call *k, void *ctx)
{
    struct cli_ecat_ctl *x = ctx;
    unsigned pos;
    int64_t word = 0;
    if (pos_arg(k, x, &pos))
        return CTL_ANSWERED;
    ARG("word", true, 0, TAKT_ECAT_SII_MAX_BYTES / 2 - 1, word);
    json_object *mo;
    bool more = json_object_object_get_ex(ctl_call_req(k), "more", &mo) && json_object_get_boolean(mo);
    static uint8_t data[CTL_SII_CHUNK];   /* the server's thread only */
    size_t dl = 0;
    char e[256];
    if (ctl_arg_hex(ctl_call_req(k), "data", data, sizeof data, &dl, e, sizeof e))
        return ctl_call_error(k, "%s", e);
    if (!dl || dl % 2 || 2 * (size_t)word + dl > TAKT_ECAT_SII_MAX_BYTES)
        return ctl_call_error(k, "'data' expects an even number of bytes, 2..%d, that ends within the "
                              "%u bytes of an SII, got %zu from word %d", CTL_SII_CHUNK,
                              TAKT_ECAT_SII_MAX_BYTES, dl, (int)word);
    if (job_running(x, e, sizeof e))
        return ctl_call_error(k, "%s", e);
    struct ctl_op *op = ctl_call_defer(k, dl, finish_sii);
    if (!op)
        return CTL_ANSWERED;
    memcpy(op->buf, data, dl);
    op->user = x;
    op->arg[1] = pos;
    op->arg[2] = word;
    op->arg[3] = more;
    x->job_pos = pos;
    x->job_word = (unsigned)word;
    return job_start(k, x, op, "an SII write", sii_job);
}

/* --- FoE: the file comes as a descriptor the client opened (SCM_RIGHTS) ------------------
 * The server never opens a path a client names: a master running as root must not read
 * or write files on a client's behalf. The descriptor is a regular file of at most
 * CTL_FILE_MAX bytes (ctl_call_take_file); a read's data is written into it. */

static void finish_foe_read(struct ctl_call *k, struct ctl_op *op)
{
    if (op->err) {
        ctl_call_error(k, "%s", op->msg[0] ? op->msg : takt_strerror(op->err));
        return;
    }
    size_t off = 0;
    while (off < op->len) {
        ssize_t w = pwrite(op->fd, op->buf + off, op->len - off, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            ctl_call_error(k, "read %zu bytes; cannot write them into the file sent: %s", op->len,
                           w < 0 ? strerror(errno) : "short write");
            return;
        }
        off += (size_t)w;
    }
    if (ftruncate(op->fd, (off_t)op->len)) {
        ctl_call_error(k, "read %zu bytes; cannot size the file sent: %s", op->len, strerror(errno));
        return;
    }
    json_object *r = json_object_new_object();
    json_object_object_add(r, "len", json_object_new_int64((int64_t)op->len));
    ctl_call_result(k, r);
}

/* A firmware update beside the running cycle, as IgH's `ethercat state -p N BOOT`,
 * `foe_write`, `state -p N INIT`, then the network's state: each step a request through
 * the command ring that this thread sleeps on (the cycle never waits); the slave goes
 * INIT -> BOOT with SM0/SM1 on the bootstrap mailbox of its SII (ETG.1000.6 6.4,
 * ETG.2010), the others keep cycling. INIT afterwards whatever the write did: BOOT leaves
 * only to INIT, and the new firmware starts from there. */
#define BOOT_STATE_NS (30 * TAKT_NS_PER_S)

static int foe_boot_job(struct cli_ecat_ctl *x, struct ctl_op *op)
{
    unsigned pos = x->job_pos;
    const char *step = "to BOOT";
    int rc = takt_ecat_slave_set_state(x->m, pos, TAKT_ECAT_STATE_BOOT, BOOT_STATE_NS);
    if (!rc) {
        step = "FoE write";
        rc = takt_ecat_foe_write(x->m, pos, x->job_name, x->job_password, op->buf, op->cap);
    }
    if (rc) {
        const char *e = takt_ecat_master_error(x->m);
        snprintf(op->msg, sizeof op->msg, "slave %u: %s: %s", pos, step, e && e[0] ? e : takt_strerror(rc));
    }
    int r2 = takt_ecat_slave_set_state(x->m, pos, TAKT_ECAT_STATE_INIT, BOOT_STATE_NS);
    if (!r2)
        r2 = takt_ecat_slave_set_state(x->m, pos, TAKT_ECAT_STATE_NETWORK, BOOT_STATE_NS);
    if (r2 && !rc) {
        const char *e = takt_ecat_master_error(x->m);
        snprintf(op->msg, sizeof op->msg, "slave %u: firmware written; back to the network's state: %s", pos,
                 e && e[0] ? e : takt_strerror(r2));
        rc = r2;
    }
    struct takt_ecat_slave_state st;
    op->arg[1] = takt_ecat_master_slave_state(x->m, pos, &st) == -ENOENT ? 0 : st.al_state;
    return rc;
}

static void finish_foe_boot(struct ctl_call *k, struct ctl_op *op)
{
    if (op->err) {
        ctl_call_error(k, "%s", op->msg[0] ? op->msg : takt_strerror(op->err));
        return;
    }
    json_object *r = json_object_new_object();
    json_object_object_add(r, "len", json_object_new_int64((int64_t)op->cap));
    json_object_object_add(r, "state", json_object_new_string(takt_ecat_al_state_name((unsigned)op->arg[1])));
    ctl_call_result(k, r);
}

/* "foe_read" / "foe_write": pos, name (the slave's file), password, boot (write only: in
 * the BOOT state, then back); the file with it. */
static int h_foe(struct ctl_call *k, void *ctx, bool wr)
{
    struct cli_ecat_ctl *x = ctx;
    unsigned pos;
    int64_t pw = 0;
    if (pos_arg(k, x, &pos))
        return CTL_ANSWERED;
    ARG("password", false, 0, 0xFFFFFFFFLL, pw);
    const char *name = NULL;
    char e[256];
    if (ctl_arg_str(ctl_call_req(k), "name", 200, &name, e, sizeof e))
        return ctl_call_error(k, "%s (the slave's file name)", e);
    size_t size = 0;
    int fd = ctl_call_take_file(k, CTL_FILE_MAX, &size);
    if (fd < 0)
        return CTL_ANSWERED;
    int acc = fcntl(fd, F_GETFL) & O_ACCMODE;
    if (wr ? acc == O_WRONLY : acc == O_RDONLY) {
        close(fd);
        return ctl_call_error(k, "the file sent with foe_%s is not open for %s", wr ? "write" : "read",
                              wr ? "reading" : "writing");
    }
    json_object *bo;
    bool boot = json_object_object_get_ex(ctl_call_req(k), "boot", &bo) && json_object_get_boolean(bo);
    if (boot && !wr) {
        close(fd);
        return ctl_call_error(k, "'boot' is for foe_write (a firmware written in BOOT), not foe_read");
    }
    if (boot && !(x->info[pos].mbx_protocols & TAKT_ECAT_MBX_FOE)) {
        close(fd);   /* refused before its state is touched */
        return ctl_call_error(k, "slave %u (%s) has no FoE (SII mailbox protocols 0x%04X): no firmware "
                              "update for it", pos, x->info[pos].name, x->info[pos].mbx_protocols);
    }
    if (boot && job_running(x, e, sizeof e)) {
        close(fd);
        return ctl_call_error(k, "%s", e);
    }
    struct ctl_op *op = ctl_call_defer(k, wr ? size : CTL_FILE_MAX,
                                       boot ? finish_foe_boot : wr ? finish_data : finish_foe_read);
    if (!op) {
        close(fd);
        return CTL_ANSWERED;
    }
    op->fd = fd;
    op->user = x->m;
    if (wr) {
        for (size_t off = 0; off < size;) {
            ssize_t r = pread(fd, op->buf + off, size - off, (off_t)off);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                snprintf(op->msg, sizeof op->msg, "cannot read the file sent: %s", r ? strerror(errno) : "it shrank");
                ctl_op_done(op, r ? -errno : -EIO, NULL, 0);
                return CTL_DEFERRED;
            }
            off += (size_t)r;
        }
    }
    if (boot) {
        x->job_pos = pos;
        x->job_password = (uint32_t)pw;
        snprintf(x->job_name, sizeof x->job_name, "%s", name);
        return job_start(k, x, op, "a firmware update (BOOT, FoE)", foe_boot_job);
    }
    return queued(op, wr ? takt_ecat_foe_write_async(x->m, pos, name, (uint32_t)pw, op->buf, size, ecat_done, op)
                         : takt_ecat_foe_read_async(x->m, pos, name, (uint32_t)pw, op->buf, op->cap, ecat_done, op));
}

int ecat_ctl_foe_read(struct ctl_call *k, void *ctx) { return h_foe(k, ctx, false); }
int ecat_ctl_foe_write(struct ctl_call *k, void *ctx) { return h_foe(k, ctx, true); }

