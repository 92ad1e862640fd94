/* ring link (ring:IF): spec and error handling without privileges (the kind, a missing
 * interface named, the carrier check seeing through the prefix), and across a veth
 * pair: frames the packet link sends arrive through the mapped ring in order with
 * kernel stamps, without a single recvmmsg call (read from the mapping), only the
 * asked-for EtherType, own frames not looped back, tx counted, no drops.
 * The veth part skips (77) with the reason when namespaces cannot be made here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <takt/link.h>
#include <takt/netns.h>

/* recvmmsg interposed (libtakt's objects are linked into this executable) to see that
 * the ring link never takes a frame through the socket call */
static unsigned n_recvmmsg;
int recvmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags, struct timespec *t)
{
    static int (*real)(int, struct mmsghdr *, unsigned int, int, struct timespec *);
    if (!real)
        real = (int (*)(int, struct mmsghdr *, unsigned int, int, struct timespec *))dlsym(RTLD_NEXT, "recvmmsg");
    n_recvmmsg++;
    return real(fd, v, n, flags, t);
}

static void spec_errors(void **state)
{
    (void)state;
    struct takt_link *l = (struct takt_link *)1;
    char err[256];
    assert_int_equal(takt_link_open("ring:tk-nosuch0", NULL, &l, err, sizeof err), -ENODEV);
    assert_null(l);
    assert_non_null(strstr(err, "tk-nosuch0"));
    assert_int_equal(takt_link_open("ring:", NULL, &l, err, sizeof err), -EINVAL);
    assert_int_equal(takt_link_open("rings:lo", NULL, &l, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "ring:IFNAME"));
    /* the carrier check reads the interface after the kind */
    assert_int_equal(takt_link_carrier("ring:lo"), takt_link_carrier("lo"));
    assert_int_equal(takt_link_carrier("packet:lo"), takt_link_carrier("lo"));
    assert_int_equal(takt_link_carrier("ring:tk-nosuch0"), -ENODEV);
}

#define N_FRAMES 40
static struct takt_netns ns;
static char why[256];

struct report {
    int open_rc, n, own_rx;
    char kind[16];
    unsigned recvmmsg_calls;
    uint8_t seq[N_FRAMES + 1];
    uint16_t len[N_FRAMES + 1];
    takt_ns_t ts[N_FRAMES + 1], t_before, t_after;
    struct takt_link_stats st;
};

static void mkframe(uint8_t *b, uint16_t type, uint8_t seq, unsigned len)
{
    memset(b, 0xff, 6);
    memset(b + 6, 0x02, 6);
    b[12] = (uint8_t)(type >> 8);
    b[13] = (uint8_t)type;
    memset(b + 14, 0x5A, len - 14);
    b[14] = seq;
}

/* Side B: the ring link; receive until the end marker (0xEE) or 5 s, then send one
 * frame and check it does not come back. */
static int receiver(int ready_wr, int res_wr)
{
    struct report r = { 0 };
    uint16_t types[] = { TAKT_ETHERTYPE_TEST };
    struct takt_link_opts o;
    takt_link_opts_default(&o);
    o.ethertypes = types;
    o.n_ethertypes = 1;
    struct takt_link *l = NULL;
    char spec[64];
    snprintf(spec, sizeof spec, "ring:%s", ns.ifname[1]);
    r.open_rc = takt_link_open(spec, &o, &l, why, sizeof why);
    if (write(ready_wr, "r", 1) != 1)
        return 1;
    if (!r.open_rc) {
        snprintf(r.kind, sizeof r.kind, "%s", l->ops->kind);
        uint8_t buf[8][TAKT_FRAME_BUF];
        struct takt_frame f[8];
        r.t_before = takt_now();
        n_recvmmsg = 0;
        while (r.n <= N_FRAMES && takt_now() < r.t_before + 5 * TAKT_NS_PER_S) {
            for (int i = 0; i < 8; i++)
                f[i] = (struct takt_frame){ .data = buf[i], .cap = TAKT_FRAME_BUF };
            int k = takt_link_recv(l, f, 8, 100 * TAKT_NS_PER_MS);
            for (int i = 0; i < k && r.n <= N_FRAMES; i++, r.n++) {
                r.seq[r.n] = buf[i][14];
                r.len[r.n] = f[i].len;
                r.ts[r.n] = f[i].ts;
            }
            if (r.n && r.seq[r.n - 1] == 0xEE)
                break;
        }
        r.t_after = takt_now();
        r.recvmmsg_calls = n_recvmmsg;
        uint8_t b[60];
        mkframe(b, TAKT_ETHERTYPE_TEST, 0x11, 60);
        struct takt_frame tf = { .data = b, .len = 60 };
        if (takt_link_send(l, &tf, 1) != 1)
            r.own_rx = -100;
        struct takt_frame rf = { .data = buf[0], .cap = TAKT_FRAME_BUF };
        if (!r.own_rx)
            r.own_rx = takt_link_recv(l, &rf, 1, 200 * TAKT_NS_PER_MS);
        takt_link_get_stats(l, &r.st);
        takt_link_close(l);
    }
    return write(res_wr, &r, sizeof r) == sizeof r ? 0 : 1;
}

/* Side A, the packet link: a frame of another type, N_FRAMES test frames in batches of
 * 8, then the 1514-byte end marker. */
static int sender(void *arg)
{
    (void)arg;
    struct takt_link *l;
    if (takt_link_open(ns.ifname[0], NULL, &l, why, sizeof why))
        return 10;
    static uint8_t b[N_FRAMES + 2][TAKT_FRAME_BUF];
    struct takt_frame f[N_FRAMES + 2];
    unsigned n = 0;
    mkframe(b[n], TAKT_ETHERTYPE_ECAT, 0x77, 60);
    f[n] = (struct takt_frame){ .data = b[n], .len = 60 }; n++;
    for (unsigned i = 0; i < N_FRAMES; i++, n++) {
        mkframe(b[n], TAKT_ETHERTYPE_TEST, (uint8_t)i, 40 + i);
        f[n] = (struct takt_frame){ .data = b[n], .len = (uint16_t)(40 + i) };
    }
    mkframe(b[n], TAKT_ETHERTYPE_TEST, 0xEE, 1514);
    f[n] = (struct takt_frame){ .data = b[n], .len = 1514 }; n++;
    int rc = 0;
    for (unsigned i = 0; i < n && !rc; i += 8) {
        unsigned k = n - i < 8 ? n - i : 8;
        rc = takt_link_send(l, f + i, k) == (int)k ? 0 : 11;
    }
    takt_link_close(l);
    return rc;
}

static void across_veth(void **state)
{
    (void)state;
    if (takt_netns_create(&ns, why, sizeof why)) {
        fprintf(stderr, "SKIP: network namespaces unavailable: %s\n", why);
        exit(77);
    }
    int ready[2], res[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(res), 0);
    fflush(NULL);
    pid_t pid = takt_netns_fork(&ns, TAKT_NETNS_B);
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(receiver(ready[1], res[1]));
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    int rc = takt_netns_run(&ns, TAKT_NETNS_A, sender, NULL);
    struct report r;
    assert_int_equal(read(res[0], &r, sizeof r), sizeof r);
    waitpid(pid, NULL, 0);
    takt_netns_destroy(&ns);
    if (r.open_rc)
        fprintf(stderr, "ring open: %s\n", why);
    assert_int_equal(r.open_rc, 0);
    assert_int_equal(rc, 0);
    assert_string_equal(r.kind, "ring");
    assert_int_equal(r.n, N_FRAMES + 1);          /* only the test type, the marker last */
    for (int i = 0; i < N_FRAMES; i++) {
        assert_int_equal(r.seq[i], i);
        assert_int_equal(r.len[i], 40 + i < 60 ? 60 : 40 + i);   /* 40..79 sent: short ones padded */
        assert_true(r.ts[i] >= r.t_before - 5 * TAKT_NS_PER_MS && r.ts[i] <= r.t_after);
        if (i)
            assert_true(r.ts[i] >= r.ts[i - 1]);
    }
    assert_int_equal(r.seq[N_FRAMES], 0xEE);
    assert_int_equal(r.len[N_FRAMES], 1514);
    assert_int_equal(r.recvmmsg_calls, 0);        /* read from the mapping */
    assert_int_equal(r.own_rx, 0);                /* its own frame not looped back */
    assert_int_equal(r.st.rx_frames, N_FRAMES + 1);
    assert_int_equal(r.st.tx_frames, 1);
    assert_int_equal(r.st.rx_dropped, 0);
    assert_int_equal(r.st.rx_filtered, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spec_errors),
        cmocka_unit_test(across_veth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
