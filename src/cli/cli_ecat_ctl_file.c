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

/* --- SII write: a blocking library call, in a thread of its own ------------------------- */

static void *sii_worker(void *arg)
{
    struct cli_ecat_ctl *x = arg;
    struct ctl_op *op = x->sii_op;
    int rc = takt_ecat_sii_write_at(x->m, x->sii_pos, x->sii_word, op->buf, op->cap);
    if (rc) {
        const char *e = takt_ecat_master_error(x->m);
        snprintf(op->msg, sizeof op->msg, "%s", e && e[0] ? e : takt_strerror(rc));
    }
    ctl_op_done(op, rc, NULL, 0);
    atomic_store(&x->sii_busy, false);
    return NULL;
}

/* In the server's thread: the copy `slaves --sii` answers takes what the slave holds now. */
static void finish_sii(struct ctl_call *k, struct ctl_op *op)
{
    struct cli_ecat_ctl *x = op->user;
    if (op->err) {
        ctl_call_error(k, "%s", op->msg[0] ? op->msg : takt_strerror(op->err));
        return;
    }
    size_t pos = (size_t)op->arg[1], at = 2 * (size_t)op->arg[2], end = at + op->cap;
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
 * whole image comes in several requests, the line limit stays). */
int ecat_ctl_sii_write(struct ctl_call *k, void *ctx)
{
    struct cli_ecat_ctl *x = ctx;
    unsigned pos;
    int64_t word = 0;
    if (pos_arg(k, x, &pos))
        return CTL_ANSWERED;
    ARG("word", true, 0, TAKT_ECAT_SII_MAX_BYTES / 2 - 1, word);
    static uint8_t data[CTL_SII_CHUNK];   /* the server's thread only */
    size_t dl = 0;
    char e[256];
    if (ctl_arg_hex(ctl_call_req(k), "data", data, sizeof data, &dl, e, sizeof e))
        return ctl_call_error(k, "%s", e);
    if (!dl || dl % 2 || 2 * (size_t)word + dl > TAKT_ECAT_SII_MAX_BYTES)
        return ctl_call_error(k, "'data' expects an even number of bytes, 2..%d, that ends within the "
                              "%u bytes of an SII, got %zu from word %d", CTL_SII_CHUNK,
                              TAKT_ECAT_SII_MAX_BYTES, dl, (int)word);
    if (atomic_load(&x->sii_busy))
        return ctl_call_error(k, "an SII write runs already; one at a time");
    if (x->sii_joinable)
        pthread_join(x->sii_thread, NULL);   /* ended: it cleared sii_busy as it returned */
    x->sii_joinable = false;
    struct ctl_op *op = ctl_call_defer(k, dl, finish_sii);
    if (!op)
        return CTL_ANSWERED;
    memcpy(op->buf, data, dl);
    op->user = x;
    op->arg[1] = pos;
    op->arg[2] = word;
    x->sii_op = op;
    x->sii_pos = pos;
    x->sii_word = (unsigned)word;
    atomic_store(&x->sii_busy, true);
    if (pthread_create(&x->sii_thread, NULL, sii_worker, x)) {
        atomic_store(&x->sii_busy, false);
        snprintf(op->msg, sizeof op->msg, "cannot start the SII write: no thread");
        ctl_op_done(op, -EAGAIN, NULL, 0);
    } else {
        x->sii_joinable = true;
    }
    return CTL_DEFERRED;
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

/* "foe_read" / "foe_write": pos, name (the slave's file), password; the file with it. */
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
    struct ctl_op *op = ctl_call_defer(k, wr ? size : CTL_FILE_MAX, wr ? finish_data : finish_foe_read);
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
    return queued(op, wr ? takt_ecat_foe_write_async(x->m, pos, name, (uint32_t)pw, op->buf, size, ecat_done, op)
                         : takt_ecat_foe_read_async(x->m, pos, name, (uint32_t)pw, op->buf, op->cap, ecat_done, op));
}

int ecat_ctl_foe_read(struct ctl_call *k, void *ctx) { return h_foe(k, ctx, false); }
int ecat_ctl_foe_write(struct ctl_call *k, void *ctx) { return h_foe(k, ctx, true); }

