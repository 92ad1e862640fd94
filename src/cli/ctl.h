/* The control socket of a running master (docs/control.md): `takt ecat run` and
 * `takt plk mn` serve requests on a Unix domain stream socket from a thread of their own
 * (never the cycle's), and the tool verbs reach the running master through it.
 *
 * Requests and answers are JSON lines (one object a line, version CTL_VERSION):
 *   {"v":1,"id":7,"verb":"slaves", ...arguments...}
 *   {"v":1,"id":7,"ok":true,"result":{...}}   or   {"v":1,"id":7,"ok":false,"error":"..."}
 *
 * A verb is one entry of a table (struct ctl_verb) and one handler: a protocol's table
 * is passed to ctl_server_start. A handler answers at once (ctl_call_result /
 * ctl_call_error), or defers: it takes an operation (ctl_call_defer), hands
 * ctl_op_done and the operation to an _async function of the library as its completion,
 * and the server answers once the cycle completed it, through the operation's finish
 * function, in the server's thread. */
#ifndef TAKT_CLI_CTL_H
#define TAKT_CLI_CTL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <takt/takt.h>

struct json_object;

#define CTL_VERSION       1
#define CTL_LINE_MAX      65536         /* a longer request line is refused, the connection closed */
#define CTL_MAX_CONN      16            /* connections served at once; more are told so and closed */
#define CTL_MAX_PENDING   4             /* deferred requests per connection */
#define CTL_RATE_PER_S    200           /* requests a connection may send per second ... */
#define CTL_RATE_BURST    50            /* ... after a burst of this many */
#define CTL_PARTIAL_S     5             /* a request line must be complete within this */
#define CTL_IDLE_S        300           /* a connection that sends nothing is closed after this */
#define CTL_SII_CHUNK     1024          /* SII bytes one sii_write request carries (2 KiB as hex) */
#define CTL_OUT_MAX       (8u << 20)    /* answers not read beyond this: the client is hung */

/* --- the request parser (pure; the fuzz target's subject) --------------------------- */
struct ctl_req {
    int64_t id;                   /* the client's, echoed; 0 when absent */
    const char *verb;             /* points into *obj */
    struct json_object *obj;      /* the whole request; the caller puts it */
};
/* One request line (without its newline). 0 with *r filled (r->obj to be put), or -1
 * with what was expected and what came in err (r->obj NULL; r->id the request's id
 * where it could be read, so that the error answer carries it). */
int ctl_parse_request(const char *line, size_t len, struct ctl_req *r, char *err, size_t errlen);

/* Typed arguments of a request: 0, or -1 with the error in err ("'pos' expects an
 * integer 0..65535, got ..."). An absent optional argument leaves *out and returns 0. */
int ctl_arg_int(struct json_object *req, const char *name, bool required, int64_t lo, int64_t hi,
                int64_t *out, char *err, size_t errlen);
int ctl_arg_hex(struct json_object *req, const char *name, uint8_t *buf, size_t cap, size_t *len,
                char *err, size_t errlen);
/* A string argument of 1..max characters without a NUL (*out points into req). */
int ctl_arg_str(struct json_object *req, const char *name, size_t max, const char **out, char *err, size_t errlen);
/* bytes as lower-case hex, a new JSON string */
struct json_object *ctl_hex(const uint8_t *d, size_t n);
/* hex (even number of digits) into buf; -1 when it is not hex or does not fit */
int ctl_unhex(const char *hex, uint8_t *buf, size_t cap, size_t *len);

/* --- the server ------------------------------------------------------------------- */
struct ctl_call;
struct ctl_op;
enum { CTL_ANSWERED = 0, CTL_DEFERRED = 1 };
/* A verb's handler, in the server's thread: CTL_ANSWERED after ctl_call_result or
 * ctl_call_error, CTL_DEFERRED after ctl_call_defer (and the op handed to the cycle). */
typedef int (*ctl_handler_fn)(struct ctl_call *k, void *ctx);
struct ctl_verb {
    const char *name;
    ctl_handler_fn fn;
};

/* The "version" verb a server may list: takt's version, the control protocol's and the
 * serving process's id. */
int  ctl_verb_version(struct ctl_call *k, void *ctx);

struct json_object *ctl_call_req(const struct ctl_call *k);
/* The client a call came from, to ask later (in the server's thread) whether it is
 * still connected: a state it holds open (a write in chunks) ends when it goes. */
struct ctl_server;
struct ctl_peer { int conn; unsigned gen; };
struct ctl_peer ctl_call_peer(const struct ctl_call *k);
bool ctl_peer_connected(const struct ctl_server *s, struct ctl_peer p);
void ctl_call_result(struct ctl_call *k, struct json_object *result);   /* takes result */
int  ctl_call_error(struct ctl_call *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The completion of a deferred request, in the server's thread: err and the data the
 * cycle gave; answer with ctl_call_result / ctl_call_error. The call's connection may be
 * gone: the answer is then dropped. */
typedef void (*ctl_finish_fn)(struct ctl_call *k, struct ctl_op *op);
struct ctl_op {
    int      err;            /* from the completion */
    uint8_t *buf;            /* cap bytes, for the _async function's data; NULL when cap 0 */
    size_t   cap, len;
    char     msg[256];       /* the master's error text, taken in the completion */
    void    *user;           /* the handler's (e.g. the master, for msg) */
    int64_t  arg[4];         /* the handler's (what to say in the answer) */
    int      fd;             /* a file the handler took (ctl_call_take_file): closed after finish */
    /* private */
    ctl_finish_fn finish;
    struct ctl_server *srv;
    struct ctl_call *call;
    _Atomic int done;
    struct ctl_op *next;
};
/* The regular file the request came with (SCM_RIGHTS), at most max bytes: its
 * descriptor (now the caller's, or an op's fd) and *size; -1 after answering with
 * what was expected (none came, not a regular file, too large). */
int ctl_call_take_file(struct ctl_call *k, size_t max, size_t *size);
#define CTL_FILE_MAX (16u << 20)     /* a file passed with a request (foe) */
/* ctl_fd.c: recv into buf, a descriptor that came with the bytes into *passed when it is
 * -1 (others closed); as recv. fd a regular file of at most max bytes: 0 with *size, or
 * -1 with what was expected in err. */
ssize_t ctl_recv_fd(int sock, void *buf, size_t cap, int *passed);
int ctl_file_check(int fd, size_t max, size_t *size, char *err, size_t errlen);
/* A deferred request's operation with a buffer of cap bytes; NULL (answered with an
 * error) when the connection has CTL_MAX_PENDING already or memory is short. */
struct ctl_op *ctl_call_defer(struct ctl_call *k, size_t cap, ctl_finish_fn finish);
/* The completion to give the _async function (its takt_*_done_fn signature): runs in
 * the cycle's thread, copies the data, marks the op done and wakes the server (one
 * eventfd write: never blocks). msg is set by the caller's own wrapper before this. */
void ctl_op_done(void *op, int err, const uint8_t *data, size_t len);

struct ctl_server_opts {
    const char *path;            /* the socket */
    const char *proto;           /* "ecat", "plk-mn": the hello verb names it */
    const char *iface;
    const struct ctl_verb *verbs; /* terminated by { 0 } */
    void *ctx;                   /* the handlers' */
};
struct ctl_server;
/* Make the socket's directory, bind (mode 0660, group takt where it exists; a stale
 * socket is replaced, a live one is refused: -EADDRINUSE), listen and serve from a
 * thread. 0 or -errno with why in err. */
int  ctl_server_start(struct ctl_server **out, const struct ctl_server_opts *o, char *err, size_t errlen);
/* Stop serving: join the thread, close the connections, remove the socket. Operations
 * the cycle has not completed stay allocated until ctl_server_free. */
void ctl_server_stop(struct ctl_server *s);
/* After the master is closed (no completion can come any more): free everything. */
void ctl_server_free(struct ctl_server *s);

/* --- the path and the client ------------------------------------------------------ */
/* The default socket of proto on iface: /run/takt/PROTO-IF.sock for root, else
 * $XDG_RUNTIME_DIR/takt/PROTO-IF.sock; in a network namespace other than the first
 * process's, "@NSINODE" before ".sock" (interfaces of the same name in two namespaces
 * are two networks). root_dir: the root form whoever asks. -1 when there is none. */
int ctl_default_path(char *buf, size_t n, const char *proto, const char *iface, bool root_dir);

struct ctl_client;
/* Connect to path: 0; -errno when nothing listens there (ENOENT, ECONNREFUSED) or it
 * refuses (EACCES, EPERM); err says why. */
int  ctl_client_connect(struct ctl_client **out, const char *path, char *err, size_t errlen);
/* Send req (v and id are added), wait at most timeout_ns for its answer. The answer's
 * "result" (owned by the caller) with *ok true, or NULL with the error in err. */
struct json_object *ctl_client_call(struct ctl_client *cl, struct json_object *req, takt_ns_t timeout_ns,
                                    char *err, size_t errlen);
/* The same with a file descriptor passed along (SCM_RIGHTS; fd -1: none). */
struct json_object *ctl_client_call_fd(struct ctl_client *cl, struct json_object *req, int fd,
                                       takt_ns_t timeout_ns, char *err, size_t errlen);
void ctl_client_close(struct ctl_client *cl);

#endif
