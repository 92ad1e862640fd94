/* The control socket's server (docs/control.md): a thread of its own with one poll
 * loop over the listening socket, the connections and an eventfd the cycle's
 * completions ring. Nothing here runs in the cycle but ctl_op_done; the cycle never
 * waits on a client, and a client never waits on another longer than a handler that
 * blocks (POWERLINK's SDO transfers, bounded by their timeout). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <json-c/json.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <takt/rt.h>
#include "cli/ctl.h"
#include "cli/ctl_server.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* --- answers ---------------------------------------------------------------------- */

void ctl_conn_close(struct ctl_server *s, int i)
{
    struct ctl_conn *c = &s->c[i];
    if (c->fd < 0)
        return;
    close(c->fd);
    if (c->passed >= 0)
        close(c->passed);
    c->passed = -1;
    free(c->in);
    free(c->out);
    unsigned gen = c->gen;
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->gen = gen + 1;
}

static void conn_flush(struct ctl_server *s, int i, takt_ns_t now)
{
    struct ctl_conn *c = &s->c[i];
    while (c->out_len) {
        ssize_t w = send(c->fd, c->out, c->out_len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!c->out_since)
                c->out_since = now;
            return;
        }
        if (w <= 0) {
            ctl_conn_close(s, i);
            return;
        }
        memmove(c->out, c->out + w, c->out_len - (size_t)w);
        c->out_len -= (size_t)w;
        c->out_since = c->out_len ? now : 0;
    }
    if (c->closing && !c->pending)
        ctl_conn_close(s, i);
}

static void conn_send(struct ctl_server *s, int i, json_object *o)
{
    struct ctl_conn *c = &s->c[i];
    size_t n;
    const char *t = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
    if (c->out_len + n + 1 > CTL_OUT_MAX) {    /* the client reads nothing: hung */
        ctl_conn_close(s, i);
        return;
    }
    if (c->out_len + n + 1 > c->out_cap) {
        size_t cap = (c->out_len + n + 1) * 2;
        char *p = realloc(c->out, cap);
        if (!p) {
            ctl_conn_close(s, i);
            return;
        }
        c->out = p;
        c->out_cap = cap;
    }
    memcpy(c->out + c->out_len, t, n);
    c->out[c->out_len + n] = '\n';
    c->out_len += n + 1;
    conn_flush(s, i, takt_now());
}

static json_object *answer(int64_t id, bool ok)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "v", json_object_new_int(CTL_VERSION));
    json_object_object_add(o, "id", json_object_new_int64(id));
    json_object_object_add(o, "ok", json_object_new_boolean(ok));
    return o;
}

static void send_error(struct ctl_server *s, int i, int64_t id, const char *msg)
{
    json_object *o = answer(id, false);
    json_object_object_add(o, "error", json_object_new_string(msg));
    conn_send(s, i, o);
    json_object_put(o);
}

int ctl_call_conn(const struct ctl_call *k)
{
    const struct ctl_conn *c = &k->s->c[k->conn];
    return c->fd >= 0 && c->gen == k->gen ? k->conn : -1;
}

struct json_object *ctl_call_req(const struct ctl_call *k) { return k->req; }

struct ctl_peer ctl_call_peer(const struct ctl_call *k)
{
    return (struct ctl_peer){ .conn = k->conn, .gen = k->gen };
}

bool ctl_peer_connected(const struct ctl_server *s, struct ctl_peer p)
{
    if (p.conn < 0 || p.conn >= CTL_MAX_CONN)
        return false;
    const struct ctl_conn *c = &s->c[p.conn];
    return c->fd >= 0 && c->gen == p.gen && !c->closing;
}

void ctl_call_result(struct ctl_call *k, struct json_object *result)
{
    int i = ctl_call_conn(k);
    if (i < 0) {
        json_object_put(result);
        return;
    }
    json_object *o = answer(k->id, true);
    json_object_object_add(o, "result", result ? result : json_object_new_object());
    conn_send(k->s, i, o);
    json_object_put(o);
}

int ctl_call_error(struct ctl_call *k, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int i = ctl_call_conn(k);
    if (i >= 0)
        send_error(k->s, i, k->id, msg);
    return CTL_ANSWERED;
}

/* --- requests ------------------------------------------------------------------------ */

static void hello(struct ctl_server *s, struct ctl_call *k)
{
    json_object *r = json_object_new_object(), *v = json_object_new_array();
    json_object_object_add(r, "proto", json_object_new_string(s->proto));
    json_object_object_add(r, "iface", json_object_new_string(s->iface));
    json_object_object_add(r, "pid", json_object_new_int((int)getpid()));
    json_object_object_add(r, "version", json_object_new_string(takt_version()));
    json_object_array_add(v, json_object_new_string("hello"));
    for (const struct ctl_verb *e = s->verbs; e && e->name; e++)
        json_object_array_add(v, json_object_new_string(e->name));
    json_object_object_add(r, "verbs", v);
    ctl_call_result(k, r);
}

int ctl_verb_version(struct ctl_call *k, void *ctx)
{
    (void)ctx;
    json_object *r = json_object_new_object();
    json_object_object_add(r, "version", json_object_new_string(takt_version()));
    json_object_object_add(r, "protocol", json_object_new_int(CTL_VERSION));
    json_object_object_add(r, "pid", json_object_new_int((int)getpid()));
    ctl_call_result(k, r);
    return CTL_ANSWERED;
}

static void request(struct ctl_server *s, int i, const char *line, size_t len, takt_ns_t now)
{
    struct ctl_conn *c = &s->c[i];
    /* a token bucket per connection: a flood is answered with errors, cheaply */
    c->tokens += (double)(now - c->refill_at) * CTL_RATE_PER_S / 1e9;
    c->refill_at = now;
    if (c->tokens > CTL_RATE_BURST)
        c->tokens = CTL_RATE_BURST;
    if (c->tokens < 1) {
        send_error(s, i, 0, "too many requests: at most " STR(CTL_RATE_PER_S) " a second");
        return;
    }
    c->tokens -= 1;
    struct ctl_req r;
    char err[512];
    if (ctl_parse_request(line, len, &r, err, sizeof err)) {
        if (c->passed >= 0)
            close(c->passed), c->passed = -1;
        send_error(s, i, r.id, err);
        return;
    }
    /* the descriptor sent with this line's first bytes goes with it, taken or closed */
    struct ctl_call k = { s, i, c->gen, r.id, r.obj, c->passed };
    c->passed = -1;
    const struct ctl_verb *e = s->verbs;
    while (e && e->name && strcmp(e->name, r.verb))
        e++;
    if (!strcmp(r.verb, "hello"))
        hello(s, &k);
    else if (!e || !e->name)
        ctl_call_error(&k, "unknown verb '%.64s' (hello lists the verbs this %s master serves)", r.verb, s->proto);
    else
        e->fn(&k, s->ctx);
    if (k.fd >= 0)
        close(k.fd);
    json_object_put(r.obj);
}

static void conn_read(struct ctl_server *s, int i, takt_ns_t now)
{
    struct ctl_conn *c = &s->c[i];
    /* a request may come with a file descriptor (ctl_fd.c) */
    ssize_t n = ctl_recv_fd(c->fd, c->in + c->in_len, CTL_LINE_MAX + 1 - c->in_len, &c->passed);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {       /* the client went: its deferred answers are dropped */
        ctl_conn_close(s, i);
        return;
    }
    c->last_rx = now;
    c->in_len += (size_t)n;
    size_t start = 0;
    char *nl;
    while (s->c[i].fd >= 0 && !c->closing &&
           (nl = memchr(c->in + start, '\n', c->in_len - start))) {
        request(s, i, c->in + start, (size_t)(nl - (c->in + start)), now);
        start = (size_t)(nl - c->in) + 1;
    }
    if (c->fd < 0)
        return;
    memmove(c->in, c->in + start, c->in_len - start);
    c->in_len -= start;
    if (c->in_len > CTL_LINE_MAX) {
        send_error(s, i, 0, "request line longer than " STR(CTL_LINE_MAX) " bytes; closing");
        if (s->c[i].fd >= 0)
            s->c[i].closing = true, s->c[i].in_len = 0;
        conn_flush(s, i, now);
        return;
    }
    c->partial_since = c->in_len ? (c->partial_since ? c->partial_since : now) : 0;
}

/* SO_PEERCRED: root, the socket's owner, or a member of its group (the mode 0660 says
 * the same to the file system; this also holds where the file's mode was changed). */
static bool peer_allowed(const struct ctl_server *s, int fd, uid_t *uid)
{
    struct ucred cr;
    socklen_t l = sizeof cr;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l))
        return false;
    *uid = cr.uid;
    if (cr.uid == 0 || cr.uid == s->owner)
        return true;
    if (!s->has_group)
        return false;
    if (cr.gid == s->group)
        return true;
    struct passwd pw, *pp = NULL;
    char buf[4096];
    if (getpwuid_r(cr.uid, &pw, buf, sizeof buf, &pp) || !pp)
        return false;
    gid_t groups[256];
    int ng = 256;
    if (getgrouplist(pw.pw_name, pw.pw_gid, groups, &ng) < 0)
        return false;
    for (int g = 0; g < ng; g++)
        if (groups[g] == s->group)
            return true;
    return false;
}

static void refuse(int fd, const char *msg)
{
    char line[512];
    int n = snprintf(line, sizeof line, "{\"v\":%d,\"id\":0,\"ok\":false,\"error\":\"%s\"}\n", CTL_VERSION, msg);
    ssize_t w = send(fd, line, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)w;
    close(fd);
}

static void do_accept(struct ctl_server *s, takt_ns_t now)
{
    int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
        return;
    uid_t uid = (uid_t)-1;
    if (!peer_allowed(s, fd, &uid)) {
        char msg[200];
        snprintf(msg, sizeof msg, "uid %d may not use this socket: root, its owner (uid %d) and "
                 "members of its group only", (int)uid, (int)s->owner);
        refuse(fd, msg);
        return;
    }
    int i = 0;
    while (i < CTL_MAX_CONN && s->c[i].fd >= 0)
        i++;
    if (i == CTL_MAX_CONN) {
        refuse(fd, "too many connections (" STR(CTL_MAX_CONN) "): try again later");
        return;
    }
    struct ctl_conn *c = &s->c[i];
    if (!(c->in = malloc(CTL_LINE_MAX + 1))) {
        refuse(fd, "out of memory");
        return;
    }
    c->fd = fd;
    c->passed = -1;
    c->last_rx = c->refill_at = now;
    c->tokens = CTL_RATE_BURST;
}

static void timeouts(struct ctl_server *s, takt_ns_t now)
{
    for (int i = 0; i < CTL_MAX_CONN; i++) {
        struct ctl_conn *c = &s->c[i];
        if (c->fd < 0)
            continue;
        if (c->partial_since && now - c->partial_since > CTL_PARTIAL_S * TAKT_NS_PER_S) {
            send_error(s, i, 0, "request line incomplete after " STR(CTL_PARTIAL_S) " s; closing");
            if (s->c[i].fd >= 0) {
                s->c[i].closing = true;
                s->c[i].in_len = 0;
                s->c[i].partial_since = 0;
                conn_flush(s, i, now);
            }
        } else if ((c->out_since && now - c->out_since > CTL_PARTIAL_S * TAKT_NS_PER_S) ||
                   (!c->pending && now - c->last_rx > CTL_IDLE_S * TAKT_NS_PER_S)) {
            ctl_conn_close(s, i);    /* answers still to come are dropped (gen) */
        }
    }
}

static void *serve(void *arg)
{
    struct ctl_server *s = arg;
    /* the thread that reads what clients send needs no privilege: capabilities are per
     * thread, and those takt's file capabilities granted (the cycle's CAP_SYS_NICE,
     * CAP_IPC_LOCK at this point) are dropped here; root keeps its own, as in every
     * takt command (docs/rt.md, Capabilities) */
    if (!takt_rt_caps_root())
        takt_rt_caps_drop(0);
    for (;;) {
        struct pollfd p[3 + CTL_MAX_CONN];
        int map[3 + CTL_MAX_CONN], n = 0;
        p[n++] = (struct pollfd){ s->stopfd, POLLIN, 0 };
        p[n++] = (struct pollfd){ s->efd, POLLIN, 0 };
        p[n++] = (struct pollfd){ s->lfd, POLLIN, 0 };
        for (int i = 0; i < CTL_MAX_CONN; i++) {
            if (s->c[i].fd < 0)
                continue;
            short ev = (s->c[i].closing ? 0 : POLLIN) | (s->c[i].out_len ? POLLOUT : 0);
            map[n] = i;
            p[n++] = (struct pollfd){ s->c[i].fd, ev, 0 };
        }
        int rc = poll(p, (nfds_t)n, 1000);
        takt_ns_t now = takt_now();
        if (rc < 0 && errno != EINTR)
            break;
        if (p[0].revents)
            break;
        if (p[1].revents & POLLIN) {
            uint64_t v;
            ssize_t r = read(s->efd, &v, sizeof v);
            (void)r;
            ctl_ops_finish(s);
        }
        for (int k = 3; k < n; k++) {
            int i = map[k];
            if (s->c[i].fd != p[k].fd)
                continue;
            if (p[k].revents & POLLOUT)
                conn_flush(s, i, now);
            if (s->c[i].fd >= 0 && (p[k].revents & (POLLIN | POLLHUP | POLLERR)) && !s->c[i].closing)
                conn_read(s, i, now);
            else if (s->c[i].fd >= 0 && (p[k].revents & (POLLHUP | POLLERR)) && !s->c[i].pending)
                ctl_conn_close(s, i);
        }
        if (p[2].revents & POLLIN)
            do_accept(s, now);
        timeouts(s, now);
    }
    return NULL;
}

/* --- start and stop ---------------------------------------------------------------- */

static int bind_socket(struct ctl_server *s, char *err, size_t errlen)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    snprintf(a.sun_path, sizeof a.sun_path, "%s", s->path);
    char dir[108];
    snprintf(dir, sizeof dir, "%s", s->path);
    char *sl = strrchr(dir, '/');
    if (sl && sl != dir) {
        *sl = 0;
        if (mkdir(dir, geteuid() == 0 ? 0755 : 0700) && errno != EEXIST) {
            int e = errno;
            snprintf(err, errlen, "cannot make %s: %s", dir, strerror(e));
            return -e;
        }
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return snprintf(err, errlen, "socket: %s", strerror(errno)), -EIO;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
        close(fd);
        snprintf(err, errlen, "%s: another master answers there", s->path);
        return -EADDRINUSE;
    }
    if (errno == ECONNREFUSED)
        unlink(s->path);     /* a stale socket of a master that ended without removing it */
    close(fd);
    if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
        return snprintf(err, errlen, "socket: %s", strerror(errno)), -EIO;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) || chmod(s->path, 0660) || listen(fd, 64)) {
        int e = errno;
        snprintf(err, errlen, "%s: %s", s->path, strerror(e));
        close(fd);
        return -e;
    }
    struct group gr, *gp = NULL;
    char buf[4096];
    if (!getgrnam_r("takt", &gr, buf, sizeof buf, &gp) && gp && !chown(s->path, (uid_t)-1, gp->gr_gid)) {
        s->group = gp->gr_gid;
        s->has_group = true;
    }
    s->lfd = fd;
    return 0;
}

int ctl_server_start(struct ctl_server **out, const struct ctl_server_opts *o, char *err, size_t errlen)
{
    *out = NULL;
    if (strlen(o->path) >= sizeof ((struct sockaddr_un *)0)->sun_path) {
        snprintf(err, errlen, "%s: a socket path must be shorter than 108 bytes", o->path);
        return -ENAMETOOLONG;
    }
    struct ctl_server *s = calloc(1, sizeof *s);
    if (!s)
        return snprintf(err, errlen, "out of memory"), -ENOMEM;
    snprintf(s->path, sizeof s->path, "%s", o->path);
    snprintf(s->proto, sizeof s->proto, "%s", o->proto);
    snprintf(s->iface, sizeof s->iface, "%s", o->iface ? o->iface : "");
    s->verbs = o->verbs;
    s->ctx = o->ctx;
    s->owner = geteuid();
    s->lfd = s->efd = s->stopfd = -1;
    for (int i = 0; i < CTL_MAX_CONN; i++)
        s->c[i].fd = -1, s->c[i].passed = -1;
    int rc = bind_socket(s, err, errlen);
    if (!rc) {
        s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        s->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (s->efd < 0 || s->stopfd < 0 || (rc = -pthread_create(&s->th, NULL, serve, s))) {
            snprintf(err, errlen, "cannot start the control thread: %s", strerror(rc ? -rc : errno));
            rc = rc ? rc : -EIO;
        } else {
            pthread_setname_np(s->th, "takt-ctl");   /* for ps, top and test_caps */
        }
    }
    if (rc) {
        ctl_server_stop(s);
        ctl_server_free(s);
        return rc;
    }
    s->started = true;
    *out = s;
    return 0;
}

void ctl_server_stop(struct ctl_server *s)
{
    if (!s)
        return;
    if (s->started) {
        uint64_t one = 1;
        ssize_t w = write(s->stopfd, &one, sizeof one);
        (void)w;
        pthread_join(s->th, NULL);
        s->started = false;
    }
    for (int i = 0; i < CTL_MAX_CONN; i++)
        ctl_conn_close(s, i);
    if (s->lfd >= 0) {
        close(s->lfd);
        unlink(s->path);
        s->lfd = -1;
    }
}

void ctl_server_free(struct ctl_server *s)
{
    if (!s)
        return;
    ctl_ops_free(s);
    if (s->efd >= 0)
        close(s->efd);
    if (s->stopfd >= 0)
        close(s->stopfd);
    free(s);
}
