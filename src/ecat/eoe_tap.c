/* TAP device and its thread for an EoE port (see eoe_tap.h): frames read from the TAP
 * go into the port's ring towards the slave, frames the cycle reassembled come out of
 * the other ring and are written to the TAP. */
#include "ecat/eoe_tap.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "ecat/eoe.h"

struct takt_ecat_eoe_tap {
    struct takt_ecat_master *m;
    unsigned pos;
    int fd;
    char name[IFNAMSIZ];
    pthread_t th;
    bool started;
    atomic_bool stop;
};

static int set_addr(const char *name, const uint8_t *ip, unsigned prefix, char *err, size_t errlen)
{
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) {
        snprintf(err, errlen, "%s: socket for its address: %s", name, strerror(errno));
        return -errno;
    }
    struct ifreq r;
    memset(&r, 0, sizeof r);
    snprintf(r.ifr_name, sizeof r.ifr_name, "%s", name);
    int rc = 0;
    if (ip) {
        struct sockaddr_in *a = (struct sockaddr_in *)&r.ifr_addr;
        a->sin_family = AF_INET;
        memcpy(&a->sin_addr, ip, 4);
        if (ioctl(s, SIOCSIFADDR, &r) < 0) {
            rc = -errno;
            snprintf(err, errlen, "%s: cannot set address %u.%u.%u.%u: %s", name, ip[0], ip[1],
                     ip[2], ip[3], strerror(errno));
            goto out;
        }
        uint32_t mask = prefix ? 0xFFFFFFFFu << (32 - prefix) : 0;
        a->sin_addr.s_addr = htonl(mask);
        if (ioctl(s, SIOCSIFNETMASK, &r) < 0) {
            rc = -errno;
            snprintf(err, errlen, "%s: cannot set netmask /%u: %s", name, prefix, strerror(errno));
            goto out;
        }
    }
    memset(&r.ifr_ifru, 0, sizeof r.ifr_ifru);
    r.ifr_mtu = 1500;
    (void)ioctl(s, SIOCSIFMTU, &r);
    memset(&r.ifr_ifru, 0, sizeof r.ifr_ifru);
    if (ioctl(s, SIOCGIFFLAGS, &r) < 0 ||
        (r.ifr_flags |= IFF_UP, ioctl(s, SIOCSIFFLAGS, &r) < 0)) {
        rc = -errno;
        snprintf(err, errlen, "%s: cannot bring it up: %s", name, strerror(errno));
    }
out:
    close(s);
    return rc;
}

int takt_ecat_eoe_tap_open(struct takt_ecat_eoe_tap **out, struct takt_ecat_master *m, unsigned pos,
                      const char *name, const uint8_t *ip, unsigned prefix, char *err,
                      size_t errlen)
{
    *out = NULL;
    struct takt_ecat_eoe_tap *t = calloc(1, sizeof *t);
    if (!t)
        return -ENOMEM;
    t->m = m;
    t->pos = pos;
    if (name && strlen(name) >= IFNAMSIZ) {
        snprintf(err, errlen, "TAP name '%s': expected at most %d characters", name, IFNAMSIZ - 1);
        free(t);
        return -EINVAL;
    }
    if (name)
        snprintf(t->name, sizeof t->name, "%s", name);
    else
        snprintf(t->name, sizeof t->name, "takt-eoe%u", pos);
    t->fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
    if (t->fd < 0) {
        int e = errno;
        snprintf(err, errlen, "slave %u: cannot open /dev/net/tun for TAP %s: %s", pos, t->name,
                 strerror(e));
        free(t);
        return -e;
    }
    struct ifreq r;
    memset(&r, 0, sizeof r);
    r.ifr_flags = IFF_TAP | IFF_NO_PI;
    snprintf(r.ifr_name, sizeof r.ifr_name, "%s", t->name);
    if (ioctl(t->fd, TUNSETIFF, &r) < 0) {
        int e = errno;
        snprintf(err, errlen, "slave %u: TAP %s refused: %s%s", pos, t->name, strerror(e),
                 e == EPERM ? " (creating a TAP needs CAP_NET_ADMIN: run as root or give takt "
                              "cap_net_admin, docs/rt.md)" : "");
        close(t->fd);
        free(t);
        return -e;
    }
    snprintf(t->name, sizeof t->name, "%s", r.ifr_name);
    int rc = set_addr(t->name, ip, prefix, err, errlen);
    if (rc) {
        close(t->fd);
        free(t);
        return rc;
    }
    *out = t;
    return 0;
}

const char *takt_ecat_eoe_tap_name(const struct takt_ecat_eoe_tap *t) { return t->name; }

static void *run(void *arg)
{
    struct takt_ecat_eoe_tap *t = arg;
    uint8_t buf[ECAT_EOE_FRAME_MAX + 64];
    while (!atomic_load(&t->stop)) {
        /* towards the host first: what the cycle reassembled */
        int n;
        while ((n = takt_ecat_eoe_recv(t->m, t->pos, buf, sizeof buf)) > 0)
            if (write(t->fd, buf, (size_t)n) < 0 && errno != EAGAIN && errno != EIO)
                break;
        struct pollfd p = { .fd = t->fd, .events = POLLIN };
        if (poll(&p, 1, 1) <= 0)
            continue;
        for (int k = 0; k < 16; k++) {
            ssize_t r = read(t->fd, buf, sizeof buf);
            if (r <= 0)
                break;
            /* a full ring drops the frame (counted): the host's stack resends */
            (void)takt_ecat_eoe_send(t->m, t->pos, buf, (size_t)r);
        }
    }
    return NULL;
}

int takt_ecat_eoe_tap_start(struct takt_ecat_eoe_tap *t)
{
    if (t->started)
        return 0;
    int rc = pthread_create(&t->th, NULL, run, t);
    if (rc)
        return -rc;
    t->started = true;
    return 0;
}

void takt_ecat_eoe_tap_close(struct takt_ecat_eoe_tap *t)
{
    if (!t)
        return;
    if (t->started) {
        atomic_store(&t->stop, true);
        pthread_join(t->th, NULL);
    }
    close(t->fd);
    free(t);
}
