/* sd_notify(3)'s wire protocol without libsystemd (sdnotify.h): systemd reads each
 * datagram on $NOTIFY_SOCKET as newline-separated assignments. */
#include "cli/sdnotify.h"
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int sdn_open(struct sdn *n)
{
    memset(n, 0, sizeof *n);
    n->fd = -1;
    const char *s = getenv("NOTIFY_SOCKET");
    if (!s || !*s)
        return 0;
    size_t len = strlen(s);
    if ((s[0] != '/' && s[0] != '@') || len >= sizeof n->path) {
        fprintf(stderr, "takt: NOTIFY_SOCKET: expected an absolute path or an @abstract name "
                "shorter than %zu bytes, got '%s': not notifying\n", sizeof n->path, s);
        return -EINVAL;
    }
    memcpy(n->path, s, len);
    if (s[0] == '@')
        n->path[0] = 0;                 /* abstract namespace */
    n->path_len = (unsigned)(s[0] == '@' ? len : len + 1);
    n->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (n->fd < 0)
        return -errno;
    const char *us = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
    if (us && (!pid || strtol(pid, NULL, 10) == (long)getpid())) {
        long long v = strtoll(us, NULL, 10);
        if (v > 0)
            n->wd_every = (takt_ns_t)v * 1000 / 2;   /* sd_watchdog_enabled: ping at half */
    }
    return 0;
}

void sdn_close(struct sdn *n)
{
    if (n->fd >= 0)
        close(n->fd);
    n->fd = -1;
}

bool sdn_active(const struct sdn *n)
{
    return n->fd >= 0;
}

int sdn_send(struct sdn *n, const char *msg)
{
    if (n->fd < 0)
        return 0;
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    memcpy(a.sun_path, n->path, n->path_len);
    socklen_t alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n->path_len);
    ssize_t r = sendto(n->fd, msg, strlen(msg), MSG_DONTWAIT | MSG_NOSIGNAL,
                       (struct sockaddr *)&a, alen);
    return r < 0 ? -errno : 0;
}

void sdn_status(struct sdn *n, const char *status)
{
    char m[512];
    snprintf(m, sizeof m, "STATUS=%s", status);
    sdn_send(n, m);
}

void sdn_ready(struct sdn *n, const char *status)
{
    if (n->ready || n->fd < 0)
        return;
    char m[512];
    snprintf(m, sizeof m, "READY=1\nSTATUS=%s", status);
    sdn_send(n, m);
    n->ready = true;
}

bool sdn_watchdog(struct sdn *n, takt_ns_t now, uint64_t cycles, uint64_t back,
                  uint64_t overruns, uint64_t lcycles)
{
    if (n->fd < 0 || !n->wd_every)
        return false;
    if (!n->wd_next) {
        n->wd_next = now + n->wd_every;
        n->cycles = cycles, n->back = back, n->overruns = overruns, n->lcycles = lcycles;
        return false;
    }
    if (now < n->wd_next)
        return false;
    n->wd_next = now + n->wd_every;
    uint64_t dc = lcycles - n->lcycles, dov = overruns - n->overruns;
    /* an overrun storm: most cycles late; one late cycle now and then is no reason */
    bool healthy = cycles > n->cycles && back > n->back && !(dc && dov * 2 > dc);
    n->cycles = cycles, n->back = back, n->overruns = overruns, n->lcycles = lcycles;
    if (healthy)
        sdn_send(n, "WATCHDOG=1");
    return healthy;
}

takt_ns_t sdn_next_due(const struct sdn *n)
{
    if (n->fd < 0 || !n->wd_every)
        return INT64_MAX;
    return n->wd_next ? n->wd_next : 0;   /* not started: the first call starts it */
}
