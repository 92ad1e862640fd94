/* The --metrics-listen server (metrics_http.h): HTTP/1.0 (RFC 1945), GET /metrics only,
 * answered with the exposition text (Content-Type text/plain; version=0.0.4), then the
 * connection is closed. Nothing in it is on the cycle's path. */
#include "cli/metrics_http.h"
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include <takt/takt.h>

int mx_http_parse(const char *buf, size_t len, bool *head)
{
    *head = false;
    size_t end = 0;
    for (size_t i = 0; i + 1 < len && !end; i++) {
        if (buf[i] == '\n' && buf[i + 1] == '\n')
            end = i + 2;
        else if (i + 3 < len && !memcmp(buf + i, "\r\n\r\n", 4))
            end = i + 4;
    }
    if (!end)
        return len >= MX_HTTP_MAX ? 431 : 0;
    /* the request line: METHOD SP PATH SP HTTP/1.x, ending in CRLF or LF */
    size_t eol = 0;
    while (eol < end && buf[eol] != '\r' && buf[eol] != '\n')
        eol++;
    const char *sp1 = memchr(buf, ' ', eol);
    if (!sp1 || sp1 == buf)
        return 400;
    const char *path = sp1 + 1, *sp2 = memchr(path, ' ', (size_t)(buf + eol - path));
    if (!sp2 || sp2 == path || *path != '/')
        return 400;
    size_t vlen = (size_t)(buf + eol - (sp2 + 1));
    if (vlen != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) || sp2[8] < '0' || sp2[8] > '9')
        return 400;
    for (const char *p = buf; p < buf + eol; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7F)
            return 400;
    size_t mlen = (size_t)(sp1 - buf), plen = (size_t)(sp2 - path);
    bool get = mlen == 3 && !memcmp(buf, "GET", 3);
    *head = mlen == 4 && !memcmp(buf, "HEAD", 4);
    if (!get && !*head)
        return 405;
    const char *q = memchr(path, '?', plen);
    if (q)
        plen = (size_t)(q - path);
    if (plen != 8 || memcmp(path, "/metrics", 8))
        return 404;
    return 200;
}

int mx_http_addr(const char *spec, struct sockaddr_storage *sa, socklen_t *len,
                 bool *not_loopback, char *err, size_t errlen)
{
    memset(sa, 0, sizeof *sa);
    *not_loopback = false;
    char host[64] = "127.0.0.1";
    const char *port = spec;
    if (spec[0] == '[') {
        const char *e = strchr(spec, ']');
        if (!e || e[1] != ':' || (size_t)(e - spec - 1) >= sizeof host)
            goto bad;
        memcpy(host, spec + 1, (size_t)(e - spec - 1));
        host[e - spec - 1] = 0;
        port = e + 2;
    } else if (strchr(spec, ':')) {
        const char *c = strrchr(spec, ':');
        if ((size_t)(c - spec) >= sizeof host || c == spec)
            goto bad;
        memcpy(host, spec, (size_t)(c - spec));
        host[c - spec] = 0;
        port = c + 1;
        if (strchr(host, ':'))
            goto bad;   /* IPv6 without brackets: where the port begins is a guess */
    }
    char *pe;
    long p = strtol(port, &pe, 10);
    if (!*port || *pe || p < 1 || p > 65535)
        goto bad;
    struct sockaddr_in *a4 = (struct sockaddr_in *)sa;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)sa;
    if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)p);
        *len = sizeof *a4;
        *not_loopback = (ntohl(a4->sin_addr.s_addr) >> 24) != 127;
        return 0;
    }
    if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)p);
        *len = sizeof *a6;
        *not_loopback = !IN6_IS_ADDR_LOOPBACK(&a6->sin6_addr);
        return 0;
    }
bad:
    snprintf(err, errlen, "--metrics-listen expects PORT, ADDR:PORT or [ADDR6]:PORT with a "
             "numeric address and a port 1..65535, got '%s'", spec);
    return -EINVAL;
}

struct mx_http {
    int fd;
    pthread_t thread;
    pthread_mutex_t lock;
    char *text;
    size_t len;
    volatile int stop;
};

static void send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;   /* the peer went, or the send timeout passed */
        p += w;
        n -= (size_t)w;
    }
}

static void serve(struct mx_http *h, int c)
{
    /* a slow or silent client cannot hold the server for long */
    struct timeval tv = { 2, 0 };
    setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    char req[MX_HTTP_MAX];
    size_t len = 0;
    int st = 0;
    bool head = false;
    while (!st) {
        ssize_t n = recv(c, req + len, sizeof req - len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        len += (size_t)n;
        st = mx_http_parse(req, len, &head);
    }
    static const struct { int st; const char *text; } reason[] = {
        { 200, "OK" }, { 400, "Bad Request" }, { 404, "Not Found" },
        { 405, "Method Not Allowed" }, { 431, "Request Header Fields Too Large" },
    };
    const char *why = "Error";
    for (size_t i = 0; i < sizeof reason / sizeof reason[0]; i++)
        if (reason[i].st == st)
            why = reason[i].text;
    /* a copy of the text: the reporter never waits for a slow client */
    char *copy = NULL;
    size_t blen;
    if (st == 200) {
        pthread_mutex_lock(&h->lock);
        blen = h->len;
        copy = malloc(blen + 1);
        if (copy && h->text)
            memcpy(copy, h->text, blen);
        pthread_mutex_unlock(&h->lock);
        if (!copy)
            return;
    } else {
        blen = strlen(why) + 1;
    }
    char hdr[256];
    int hl = snprintf(hdr, sizeof hdr, "HTTP/1.0 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                      "%sConnection: close\r\n\r\n", st, why,
                      st == 200 ? "text/plain; version=0.0.4; charset=utf-8" : "text/plain",
                      blen, st == 405 ? "Allow: GET, HEAD\r\n" : "");
    send_all(c, hdr, (size_t)hl);
    if (!head && copy)
        send_all(c, copy, blen);
    else if (!head) {
        send_all(c, why, blen - 1);
        send_all(c, "\n", 1);
    }
    free(copy);
    /* a lingering close: what the client still sends (an oversized request's rest) is
     * read and dropped for at most 1 s, so that closing with it unread does not reset
     * the connection before the client read the answer */
    shutdown(c, SHUT_WR);
    struct timeval shortv = { 0, 200000 };
    setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &shortv, sizeof shortv);
    takt_ns_t until = takt_now() + TAKT_NS_PER_S;
    char junk[1024];
    while (takt_now() < until && recv(c, junk, sizeof junk, 0) > 0)
        ;
}

static void *server(void *arg)
{
    struct mx_http *h = arg;
    while (!__atomic_load_n(&h->stop, __ATOMIC_ACQUIRE)) {
        struct pollfd p = { h->fd, POLLIN, 0 };
        if (poll(&p, 1, 100) <= 0)
            continue;
        int c = accept4(h->fd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0)
            continue;
        serve(h, c);
        close(c);
    }
    return NULL;
}

int mx_http_start(struct mx_http **out, const char *spec, char *err, size_t errlen)
{
    struct sockaddr_storage sa;
    socklen_t sl;
    bool wide;
    int rc = mx_http_addr(spec, &sa, &sl, &wide, err, errlen);
    if (rc)
        return rc;
    struct mx_http *h = calloc(1, sizeof *h);
    if (!h)
        return -ENOMEM;
    pthread_mutex_init(&h->lock, NULL);
    h->fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (h->fd >= 0)
        setsockopt(h->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (h->fd < 0 || bind(h->fd, (struct sockaddr *)&sa, sl) || listen(h->fd, 4)) {
        rc = -errno;
        snprintf(err, errlen, "--metrics-listen %s: %s", spec, strerror(errno));
        if (h->fd >= 0)
            close(h->fd);
        free(h);
        return rc;
    }
    if ((rc = pthread_create(&h->thread, NULL, server, h))) {
        snprintf(err, errlen, "--metrics-listen: cannot start its thread: %s", strerror(rc));
        close(h->fd);
        free(h);
        return -rc;
    }
    if (wide)
        fprintf(stderr, "takt: --metrics-listen %s: serving the metrics beyond this machine, "
                "without authentication\n", spec);
    *out = h;
    return 0;
}

void mx_http_publish(struct mx_http *h, const char *text, size_t len)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return;
    memcpy(copy, text, len);
    copy[len] = 0;
    pthread_mutex_lock(&h->lock);
    free(h->text);
    h->text = copy;
    h->len = len;
    pthread_mutex_unlock(&h->lock);
}

void mx_http_stop(struct mx_http *h)
{
    if (!h)
        return;
    __atomic_store_n(&h->stop, 1, __ATOMIC_RELEASE);
    pthread_join(h->thread, NULL);
    close(h->fd);
    free(h->text);
    pthread_mutex_destroy(&h->lock);
    free(h);
}
