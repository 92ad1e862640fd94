/* The control socket server's own state (ctl.c serves, ctl_op.c keeps the deferred
 * operations): internal to the two, never the handlers' (they see struct ctl_call
 * and struct ctl_op through ctl.h only). */
#ifndef TAKT_CLI_CTL_SERVER_H
#define TAKT_CLI_CTL_SERVER_H

#include <json-c/json.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>
#include "cli/ctl.h"

struct ctl_conn {
    int fd;                     /* -1: free */
    unsigned gen;               /* bumped at each accept: a late answer finds its own */
    char *in;
    size_t in_len;
    char *out;
    size_t out_len, out_cap;
    takt_ns_t last_rx, partial_since, out_since;
    double tokens;
    takt_ns_t refill_at;
    unsigned pending;
    bool closing;               /* answer what is queued, then close */
    int passed;                 /* a file descriptor the client sent (SCM_RIGHTS), for its next request */
};

struct ctl_call {
    struct ctl_server *s;
    int conn;
    unsigned gen;
    int64_t id;
    json_object *req;
    int fd;                     /* the file the request came with, -1: none (closed after the handler) */
};

struct ctl_server {
    char path[108];
    char proto[16], iface[64];
    const struct ctl_verb *verbs;
    void *ctx;
    int lfd, efd, stopfd;
    pthread_t th;
    bool started;
    uid_t owner;
    gid_t group;
    bool has_group;
    struct ctl_conn c[CTL_MAX_CONN];
    struct ctl_op *ops;         /* deferred, owned by the server thread */
    unsigned n_ops;
};

/* ctl.c: close connection i (its answers still to come are dropped: gen) */
void ctl_conn_close(struct ctl_server *s, int i);
/* ctl.c: the call's connection, or -1 when it closed since */
int  ctl_call_conn(const struct ctl_call *k);
/* ctl_op.c, in the server's thread: answer the operations the cycle completed */
void ctl_ops_finish(struct ctl_server *s);
/* ctl_op.c: free every operation (after the master is closed) */
void ctl_ops_free(struct ctl_server *s);

#endif
