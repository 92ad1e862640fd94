/* The control socket's path and its client side (docs/control.md). */
#include <errno.h>
#include <json-c/json.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "cli/ctl.h"

int ctl_default_path(char *buf, size_t n, const char *proto, const char *iface, bool root_dir)
{
    char dir[96];
    if (root_dir || geteuid() == 0) {
        snprintf(dir, sizeof dir, "/run/takt");
    } else {
        const char *x = getenv("XDG_RUNTIME_DIR");
        if (!x || x[0] != '/' || strlen(x) > 80)
            return -1;
        snprintf(dir, sizeof dir, "%s/takt", x);
    }
    /* the same interface name in another network namespace is another network: the
     * namespace's inode tells them apart (not knowable without root: then none) */
    char ns[32] = "";
    struct stat self, init;
    if (!stat("/proc/self/ns/net", &self) && !stat("/proc/1/ns/net", &init) && self.st_ino != init.st_ino)
        snprintf(ns, sizeof ns, "@%lu", (unsigned long)self.st_ino);
    int k = snprintf(buf, n, "%s/%s-%s%s.sock", dir, proto, iface, ns);
    return k < 0 || (size_t)k >= n || strchr(iface, '/') ? -1 : 0;
}

struct ctl_client {
    int fd;
    int64_t next_id;
    char *in;
    size_t in_len, in_cap;
};

int ctl_client_connect(struct ctl_client **out, const char *path, char *err, size_t errlen)
{
    *out = NULL;
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof a.sun_path) {
        snprintf(err, errlen, "%s: a socket path must be shorter than %zu bytes", path, sizeof a.sun_path);
        return -ENAMETOOLONG;
    }
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a)) {
        int e = errno;
        snprintf(err, errlen, "%s: %s", path, strerror(e));
        if (fd >= 0)
            close(fd);
        return -e;
    }
    struct ctl_client *c = calloc(1, sizeof *c);
    if (!c) {
        close(fd);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    c->fd = fd;
    c->next_id = 1;
    *out = c;
    return 0;
}

void ctl_client_close(struct ctl_client *c)
{
    if (!c)
        return;
    close(c->fd);
    free(c->in);
    free(c);
}

/* One line of the answer stream into *line (NUL-terminated in c->in): 1, 0 at the
 * deadline, -1 when the server closed or the line is beyond any answer's size. */
static int read_line(struct ctl_client *c, takt_ns_t deadline, size_t *line_len)
{
    for (;;) {
        char *nl = c->in ? memchr(c->in, '\n', c->in_len) : NULL;
        if (nl) {
            *nl = 0;
            *line_len = (size_t)(nl - c->in);
            return 1;
        }
        if (c->in_len + 65536 > c->in_cap) {
            if (c->in_cap > CTL_OUT_MAX)
                return -1;
            size_t cap = c->in_cap ? 2 * c->in_cap : 131072;
            char *p = realloc(c->in, cap);
            if (!p)
                return -1;
            c->in = p;
            c->in_cap = cap;
        }
        takt_ns_t left = deadline - takt_now();
        if (left <= 0)
            return 0;
        struct pollfd p = { c->fd, POLLIN, 0 };
        int r = poll(&p, 1, (int)(left / TAKT_NS_PER_MS) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            continue;
        ssize_t n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len - 1, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        c->in_len += (size_t)n;
    }
}

struct json_object *ctl_client_call(struct ctl_client *c, struct json_object *req, takt_ns_t timeout_ns,
                                    char *err, size_t errlen)
{
    return ctl_client_call_fd(c, req, -1, timeout_ns, err, errlen);
}

struct json_object *ctl_client_call_fd(struct ctl_client *c, struct json_object *req, int fd,
                                       takt_ns_t timeout_ns, char *err, size_t errlen)
{
    int64_t id = c->next_id++;
    json_object_object_add(req, "v", json_object_new_int(CTL_VERSION));
    json_object_object_add(req, "id", json_object_new_int64(id));
    size_t n;
    const char *t = json_object_to_json_string_length(req, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
    char *line = malloc(n + 1);
    if (!line)
        return snprintf(err, errlen, "out of memory"), NULL;
    memcpy(line, t, n);
    line[n] = '\n';
    size_t off = 0;
    int send_err = 0;
    while (off < n + 1) {
        /* the descriptor rides with the line's first bytes */
        union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } cm;
        struct iovec iov = { line + off, n + 1 - off };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
        if (fd >= 0 && !off) {
            memset(&cm, 0, sizeof cm);
            mh.msg_control = cm.b;
            mh.msg_controllen = sizeof cm.b;
            struct cmsghdr *h = CMSG_FIRSTHDR(&mh);
            h->cmsg_level = SOL_SOCKET;
            h->cmsg_type = SCM_RIGHTS;
            h->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(h), &fd, sizeof fd);
        }
        ssize_t w = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            send_err = w < 0 ? errno : EPIPE;
            break;
        }
        off += (size_t)w;
    }
    free(line);
    /* a server that refuses (credentials, too many connections) says why in a line
     * and closes: that line is read even when the request could not be sent */
    takt_ns_t deadline = takt_now() + (send_err ? TAKT_NS_PER_S : timeout_ns);
    for (;;) {
        size_t len;
        int r = read_line(c, deadline, &len);
        if (r <= 0 && send_err) {
            snprintf(err, errlen, "the master closed its control socket: %s", strerror(send_err));
            return NULL;
        }
        if (r <= 0) {
            snprintf(err, errlen, r ? "the master closed its control socket without an answer"
                                    : "no answer from the master within %.0f s", timeout_ns / 1e9);
            return NULL;
        }
        json_object *a = json_tokener_parse(c->in);
        memmove(c->in, c->in + len + 1, c->in_len - len - 1);
        c->in_len -= len + 1;
        json_object *v, *res = NULL;
        if (!a || !json_object_is_type(a, json_type_object)) {
            json_object_put(a);
            snprintf(err, errlen, "the master answered something other than a JSON object");
            return NULL;
        }
        int64_t aid = json_object_object_get_ex(a, "id", &v) ? json_object_get_int64(v) : 0;
        bool ok = json_object_object_get_ex(a, "ok", &v) && json_object_get_boolean(v);
        if (aid != id && (ok || aid != 0)) {    /* another request's (none is pending): skip */
            json_object_put(a);
            continue;
        }
        if (!ok) {
            snprintf(err, errlen, "%s", json_object_object_get_ex(a, "error", &v) ? json_object_get_string(v)
                                                                              : "failed, no reason given");
            json_object_put(a);
            return NULL;
        }
        if (json_object_object_get_ex(a, "result", &v) && v)
            res = json_object_get(v);
        json_object_put(a);
        return res ? res : json_object_new_object();
    }
}
