/* The control socket's deferred requests (ctl.h): a handler takes an operation, the
 * cycle completes it (ctl_op_done, the one function here that runs in the cycle's
 * thread) and the server's thread answers it (ctl_ops_finish), dropping the answer
 * when the connection went in between. */
#include <json-c/json.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/ctl.h"
#include "cli/ctl_server.h"

int ctl_call_take_file(struct ctl_call *k, size_t max, size_t *size)
{
    char err[256];
    if (ctl_file_check(k->fd, max, size, err, sizeof err))
        return ctl_call_error(k, "%s", err), -1;
    int fd = k->fd;
    k->fd = -1;
    return fd;
}

struct ctl_op *ctl_call_defer(struct ctl_call *k, size_t cap, ctl_finish_fn finish)
{
    struct ctl_conn *c = &k->s->c[k->conn];
    /* also over all connections: one that closes and comes back cannot flood the
     * master's queues with operations nobody waits for */
    if (k->s->n_ops >= CTL_MAX_CONN * CTL_MAX_PENDING) {
        ctl_call_error(k, "the master has %d control requests in progress: try again later",
                       CTL_MAX_CONN * CTL_MAX_PENDING);
        return NULL;
    }
    if (c->pending >= CTL_MAX_PENDING) {
        ctl_call_error(k, "%d requests of this connection are in progress already: wait for an answer",
                       CTL_MAX_PENDING);
        return NULL;
    }
    struct ctl_op *op = calloc(1, sizeof *op);
    struct ctl_call *kc = calloc(1, sizeof *kc);
    if (!op || !kc || (cap && !(op->buf = malloc(cap)))) {
        free(op);
        free(kc);
        ctl_call_error(k, "out of memory");
        return NULL;
    }
    *kc = *k;
    kc->req = json_object_get(k->req);
    kc->fd = -1;
    op->fd = -1;
    op->cap = cap;
    op->finish = finish;
    op->srv = k->s;
    op->call = kc;
    op->next = k->s->ops;
    k->s->ops = op;
    k->s->n_ops++;
    c->pending++;
    return op;
}

void ctl_op_done(void *ctx, int err, const uint8_t *data, size_t len)
{
    struct ctl_op *op = ctx;
    op->err = err;
    if (len > op->cap)
        len = op->cap;
    if (data && len && data != op->buf)
        memcpy(op->buf, data, len);
    op->len = data ? len : 0;
    atomic_store_explicit(&op->done, 1, memory_order_release);
    uint64_t one = 1;
    ssize_t w = write(op->srv->efd, &one, sizeof one);   /* never blocks short of 2^64 */
    (void)w;
}

void ctl_ops_finish(struct ctl_server *s)
{
    for (struct ctl_op **pp = &s->ops; *pp;) {
        struct ctl_op *op = *pp;
        if (!atomic_load_explicit(&op->done, memory_order_acquire)) {
            pp = &op->next;
            continue;
        }
        *pp = op->next;
        s->n_ops--;
        struct ctl_call *k = op->call;
        int i = ctl_call_conn(k);
        if (i >= 0) {
            s->c[i].pending--;
            op->finish(k, op);
            if (s->c[i].fd >= 0 && s->c[i].closing && !s->c[i].pending && !s->c[i].out_len)
                ctl_conn_close(s, i);
        }
        if (op->fd >= 0)        /* finished, or its connection went */
            close(op->fd);
        json_object_put(k->req);
        free(k);
        free(op->buf);
        free(op);
    }
}

void ctl_ops_free(struct ctl_server *s)
{
    while (s->ops) {
        struct ctl_op *op = s->ops;
        s->ops = op->next;
        json_object_put(op->call->req);
        free(op->call);
        free(op->buf);
        free(op);
    }
}
