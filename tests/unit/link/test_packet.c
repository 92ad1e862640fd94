/* packet link and namespace helper across a real veth pair: send/receive, batches,
 * padding to 60, EtherType filtering, kernel timestamps, own frames not looped back,
 * one sendmmsg/recvmmsg call per batch,
 * POWERLINK multicast and promiscuous membership, and the open errors (no such interface, down, not
 * Ethernet, MTU, no permission).
 * Skips (77) with the reason when namespaces cannot be made here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dlfcn.h>
#include <sys/socket.h>
#include <takt/link.h>
#include <takt/netns.h>
#include "link/veth.h"

/* Batching is counted by interposing the two calls (libtakt's objects are linked into
 * this executable, so the packet link's calls resolve here first). */
static unsigned n_sendmmsg, n_recvmmsg, n_recv_msgs;
int sendmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags)
{
    static int (*real)(int, struct mmsghdr *, unsigned int, int);
    if (!real)
        real = (int (*)(int, struct mmsghdr *, unsigned int, int))dlsym(RTLD_NEXT, "sendmmsg");
    n_sendmmsg++;
    return real(fd, v, n, flags);
}
int recvmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags, struct timespec *t)
{
    static int (*real)(int, struct mmsghdr *, unsigned int, int, struct timespec *);
    if (!real)
        real = (int (*)(int, struct mmsghdr *, unsigned int, int, struct timespec *))dlsym(RTLD_NEXT, "recvmmsg");
    n_recvmmsg++;
    int r = real(fd, v, n, flags, t);
    if (r > 0)
        n_recv_msgs += (unsigned)r;
    return r;
}

static struct takt_netns ns;
static char why[256];

static int setup(void **state)
{
    if (takt_netns_create(&ns, why, sizeof why)) {
        fprintf(stderr, "SKIP: network namespaces unavailable: %s\n", why);
        exit(77);
    }
    return 0;
}
static int teardown(void **state) { takt_netns_destroy(&ns); return 0; }

#define N_TEST 10
struct rx_report {
    int open_rc;
    int n;
    unsigned len[N_TEST + 4];
    uint8_t first[N_TEST + 4];      /* payload byte 14: sequence number */
    uint16_t type[N_TEST + 4];
    takt_ns_t ts[N_TEST + 4];
    takt_ns_t t_before, t_after;    /* receiver's clock around the wait */
    uint64_t filtered;
};

static void mkframe(uint8_t *b, const uint8_t *dst, uint16_t type, uint8_t seq, unsigned len)
{
    memcpy(b, dst, 6);
    memset(b + 6, 0x02, 6);
    b[12] = (uint8_t)(type >> 8);
    b[13] = (uint8_t)type;
    memset(b + 14, 0xA5, len - 14);
    b[14] = seq;
}

/* Side B: open, tell A we are ready (pipe), receive until the end marker or 3 s. */
static int receiver(int ready_wr, int res_wr)
{
    struct rx_report r = { 0 };
    uint16_t types[] = { TAKT_ETHERTYPE_TEST };
    struct takt_link_opts o;
    takt_link_opts_default(&o);
    o.ethertypes = types;
    o.n_ethertypes = 1;
    struct takt_link *l;
    r.open_rc = takt_link_open(ns.ifname[1], &o, &l, why, sizeof why);
    if (write(ready_wr, "r", 1) != 1)
        return 1;
    if (!r.open_rc) {
        /* two sets of buffers, taken in turn: the link keeps its receive headers
         * between calls and must follow buffers that moved */
        static uint8_t bufs[2][4][TAKT_FRAME_BUF];
        struct takt_frame f[4];
        r.t_before = takt_now();
        takt_ns_t end = r.t_before + 3 * TAKT_NS_PER_S;
        for (unsigned call = 0; r.n < N_TEST + 4 && takt_now() < end; call++) {
            uint8_t (*buf)[TAKT_FRAME_BUF] = bufs[call & 1];
            memset(buf, 0, sizeof bufs[0]);
            for (int i = 0; i < 4; i++)
                f[i] = (struct takt_frame){ .data = buf[i], .cap = TAKT_FRAME_BUF };
            int k = takt_link_recv(l, f, 4, 100 * TAKT_NS_PER_MS);
            for (int i = 0; i < k && r.n < N_TEST + 4; i++, r.n++) {
                r.len[r.n] = f[i].len;
                r.first[r.n] = buf[i][14];
                r.type[r.n] = (uint16_t)(buf[i][12] << 8 | buf[i][13]);
                r.ts[r.n] = f[i].ts;
            }
            if (r.n && r.first[r.n - 1] == 0xEE)
                break;
        }
        r.t_after = takt_now();
        r.filtered = l->stats.rx_filtered;
        takt_link_close(l);
    }
    return write(res_wr, &r, sizeof r) == sizeof r ? 0 : 1;
}

struct tx_ctx { int sent_rc; int own_rx; };

/* Side A: another type first (must not arrive), a batch of the test type with short
 * lengths, another type, then the end marker; and check nothing loops back to A. */
static int sender(void *arg)
{
    struct tx_ctx *c = arg;
    uint16_t types[] = { TAKT_ETHERTYPE_TEST, TAKT_ETHERTYPE_ECAT };
    struct takt_link_opts o;
    takt_link_opts_default(&o);
    o.ethertypes = types;
    o.n_ethertypes = 2;
    struct takt_link *l;
    if (takt_link_open(ns.ifname[0], &o, &l, why, sizeof why)) {
        fprintf(stderr, "sender: %s\n", why);
        return 10;
    }
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    uint8_t b[N_TEST + 3][TAKT_FRAME_BUF];
    struct takt_frame f[N_TEST + 3];
    int n = 0;
    mkframe(b[n], bcast, TAKT_ETHERTYPE_ECAT, 0x77, 60);
    f[n] = (struct takt_frame){ .data = b[n], .len = 60 }; n++;
    for (int i = 0; i < N_TEST - 1; i++, n++) {
        unsigned len = 15 + (unsigned)i * 20;             /* 15, 35, 55, 75 ... */
        mkframe(b[n], bcast, TAKT_ETHERTYPE_TEST, (uint8_t)i, len);
        f[n] = (struct takt_frame){ .data = b[n], .len = (uint16_t)len };
    }
    mkframe(b[n], bcast, 0x0800, 0x66, 60);
    f[n] = (struct takt_frame){ .data = b[n], .len = 60 }; n++;
    mkframe(b[n], bcast, TAKT_ETHERTYPE_TEST, 0xEE, 1514);
    f[n] = (struct takt_frame){ .data = b[n], .len = 1514 }; n++;
    c->sent_rc = takt_link_send(l, f, (unsigned)n);
    /* bad frames: too long alone is refused; after a good one, the good one goes */
    mkframe(b[0], bcast, TAKT_ETHERTYPE_ECAT, 0x55, 60);   /* a type B filters out */
    struct takt_frame bad[2] = { { .data = b[0], .len = 60 }, { .data = b[1], .len = TAKT_ETH_MAX_FRAME + 1 } };
    if (takt_link_send(l, &bad[1], 1) != -EMSGSIZE || takt_link_send(l, bad, 2) != 1 ||
        l->stats.tx_errors != 2)
        return 13;
    struct takt_frame rf = { .data = b[0], .cap = TAKT_FRAME_BUF };
    c->own_rx = takt_link_recv(l, &rf, 1, 200 * TAKT_NS_PER_MS);
    takt_link_close(l);
    return (c->sent_rc == n ? 0 : 11) | (c->own_rx == 0 ? 0 : 12);
}

static int sender_entry(void *arg) { return sender(arg); }

static void across_veth(void **state)
{
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
    struct tx_ctx tx = { 0 };
    int rc = takt_netns_run(&ns, TAKT_NETNS_A, sender_entry, &tx);
    struct rx_report r;
    assert_int_equal(read(res[0], &r, sizeof r), sizeof r);
    waitpid(pid, NULL, 0);
    assert_int_equal(rc, 0);                     /* all sent, nothing looped back to A */
    assert_int_equal(r.open_rc, 0);
    assert_int_equal(r.n, N_TEST);               /* only the test EtherType arrived */
    assert_int_equal(r.filtered, 0);             /* the BPF filter dropped the others */
    for (int i = 0; i < N_TEST; i++) {
        assert_int_equal(r.type[i], TAKT_ETHERTYPE_TEST);
        unsigned sent = i < N_TEST - 1 ? 15 + (unsigned)i * 20 : 1514;
        assert_int_equal(r.len[i], sent < 60 ? 60 : sent);
        assert_int_equal(r.first[i], i < N_TEST - 1 ? i : 0xEE);
        /* kernel stamps, converted to CLOCK_MONOTONIC: within the wait, in order */
        assert_true(r.ts[i] >= r.t_before - 5 * TAKT_NS_PER_MS);
        assert_true(r.ts[i] <= r.t_after);
        if (i)
            assert_true(r.ts[i] >= r.ts[i - 1]);
    }
}

/* A batch of 8 leaves in one sendmmsg call and, once queued, comes in with one
 * recvmmsg call. */
struct batch_report { int open_rc, got; unsigned calls, msgs; struct takt_link_stats st; };

static int batch_receiver(int ready_wr, int go_rd, int res_wr)
{
    struct batch_report r = { 0 };
    uint16_t types[] = { TAKT_ETHERTYPE_TEST };
    struct takt_link_opts o;
    takt_link_opts_default(&o);
    o.ethertypes = types;
    o.n_ethertypes = 1;
    struct takt_link *l;
    r.open_rc = takt_link_open(ns.ifname[1], &o, &l, why, sizeof why);
    char c;
    if (write(ready_wr, "r", 1) != 1 || read(go_rd, &c, 1) != 1)
        return 1;
    if (!r.open_rc) {
        uint8_t buf[16][TAKT_FRAME_BUF];
        struct takt_frame f[16];
        for (int i = 0; i < 16; i++)
            f[i] = (struct takt_frame){ .data = buf[i], .cap = TAKT_FRAME_BUF };
        n_recvmmsg = n_recv_msgs = 0;
        r.got = takt_link_recv(l, f, 16, 500 * TAKT_NS_PER_MS);
        r.calls = n_recvmmsg;
        r.msgs = n_recv_msgs;
        takt_link_get_stats(l, &r.st);
        takt_link_close(l);
    }
    return write(res_wr, &r, sizeof r) == sizeof r ? 0 : 1;
}

static int batch_sender(void *arg)
{
    struct takt_link *l;
    if (takt_link_open(ns.ifname[0], NULL, &l, why, sizeof why))
        return 10;
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    uint8_t b[8][TAKT_FRAME_BUF];
    struct takt_frame f[8];
    for (int i = 0; i < 8; i++) {
        mkframe(b[i], bcast, TAKT_ETHERTYPE_TEST, (uint8_t)i, 60);
        f[i] = (struct takt_frame){ .data = b[i], .len = 60 };
    }
    n_sendmmsg = 0;
    int rc = takt_link_send(l, f, 8);
    unsigned calls = n_sendmmsg;
    struct takt_link_stats st;
    takt_link_get_stats(l, &st);
    takt_link_close(l);
    if (rc != 8 || calls != 1)
        fprintf(stderr, "batch_sender: sent %d in %u sendmmsg calls\n", rc, calls);
    if (st.tx_frames != 8 || st.tx_bytes != 8 * 60 || st.tx_errors != 0)
        return 12;
    return rc == 8 && calls == 1 ? 0 : 11;
}

static void batches(void **state)
{
    int ready[2], go[2], res[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(go), 0);
    assert_int_equal(pipe(res), 0);
    fflush(NULL);
    pid_t pid = takt_netns_fork(&ns, TAKT_NETNS_B);
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(batch_receiver(ready[1], go[0], res[1]));
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    assert_int_equal(takt_netns_run(&ns, TAKT_NETNS_A, batch_sender, NULL), 0);
    usleep(50 * 1000);                           /* all 8 queued at B */
    assert_int_equal(write(go[1], "g", 1), 1);
    struct batch_report r;
    assert_int_equal(read(res[0], &r, sizeof r), sizeof r);
    waitpid(pid, NULL, 0);
    assert_int_equal(r.open_rc, 0);
    assert_int_equal(r.got, 8);
    assert_int_equal(r.calls, 1);
    assert_int_equal(r.msgs, 8);
    assert_int_equal(r.st.rx_frames, 8);         /* the link's own counters agree */
    assert_int_equal(r.st.rx_bytes, 8 * 60);
    assert_int_equal(r.st.rx_dropped, 0);
    assert_int_equal(r.st.rx_filtered, 0);
    for (int i = 0; i < 2; i++) {
        close(ready[i]); close(go[i]); close(res[i]);
    }
}

static int open_errors_inside(void *arg)
{
    struct takt_link *l;
    char err[256];
    int fails = 0;
    /* no such interface: -ENODEV, the name and how to list them */
    if (takt_link_open("tk-nosuch0", NULL, &l, err, sizeof err) != -ENODEV || !strstr(err, "tk-nosuch0"))
        fails |= 1;
    /* loopback is not Ethernet */
    if (takt_link_open("lo", NULL, &l, err, sizeof err) != -EPROTONOSUPPORT || !strstr(err, "lo"))
        fails |= 2;
    /* a fresh veth is down: -ENETDOWN and the command to fix it */
    int fd = open("/proc/self/ns/net", O_RDONLY);
    if (veth_create("tkdown0", "tkdown1", fd, err, sizeof err))
        fails |= 4;
    close(fd);
    if (takt_link_open("packet:tkdown0", NULL, &l, err, sizeof err) != -ENETDOWN ||
        !strstr(err, "ip link set tkdown0 up"))
        fails |= 8;
    if (takt_link_open("bogus:tkdown0", NULL, &l, err, sizeof err) != -EINVAL)
        fails |= 16;
    /* MTU too small for a full frame: -EMSGSIZE, the MTU found and the fix */
    if (link_set_up("tkdown0", err, sizeof err) || link_set_mtu("tkdown0", 1000, err, sizeof err))
        fails |= 32;
    else if (takt_link_open("tkdown0", NULL, &l, err, sizeof err) != -EMSGSIZE ||
             !strstr(err, "MTU of tkdown0 is 1000") || !strstr(err, "mtu 1500"))
        fails |= 64;
    if (fails)
        fprintf(stderr, "open_errors: failures 0x%x, last message: %s\n", fails, err);
    return fails;
}

static void open_errors(void **state)
{
    assert_int_equal(takt_netns_run(&ns, TAKT_NETNS_A, open_errors_inside, NULL), 0);
}

/* Without CAP_NET_RAW (as nobody, outside any namespace of ours) the message says so. */
static int no_perm_inside(void *arg)
{
    if (geteuid() == 0 && (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
                           setresuid(65534, 65534, 65534)))
        return 2;
    struct takt_link *l;
    char err[256] = "";
    int rc = takt_link_open("lo", NULL, &l, err, sizeof err);
    if (rc != -EPERM || !strstr(err, "CAP_NET_RAW")) {
        fprintf(stderr, "no_perm: rc %d: %s\n", rc, err);
        return 1;
    }
    return 0;
}

static void no_permission(void **state)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        _exit(no_perm_inside(NULL));
    int st;
    waitpid(pid, &st, 0);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

/* How many of the POWERLINK multicast groups 01-11-1E-00-00-01..05 ifname has joined. */
static int plk_groups_joined(const char *ifname)
{
    FILE *f = fopen("/proc/net/dev_mcast", "r");
    if (!f)
        return -1;
    char line[256], name[32], addr[64];
    int idx, users, global, n = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%d %31s %d %d %63s", &idx, name, &users, &global, addr) == 5 &&
            !strcmp(name, ifname) && !strncmp(addr, "01111e00000", 11) && addr[11] >= '1' && addr[11] <= '5')
            n++;
    fclose(f);
    return n;
}

static int multicast_inside(void *arg)
{
    struct takt_link *l;
    char err[256];
    if (plk_groups_joined(ns.ifname[1]) != 0)
        return 1;
    if (takt_link_open(ns.ifname[1], NULL, &l, err, sizeof err))   /* default: join them */
        return 2;
    int joined = plk_groups_joined(ns.ifname[1]);
    takt_link_close(l);
    if (joined != 5)
        return 3;
    if (plk_groups_joined(ns.ifname[1]) != 0)
        return 4;                                   /* membership ends with the socket */
    /* promiscuous membership raises the device's promiscuity count while open (not
     * visible in SIOCGIFFLAGS, and /sys shows the creator's namespace: ask ip) */
    if (system("command -v ip >/dev/null 2>&1"))
        return 0;
    struct takt_link_opts o;
    takt_link_opts_default(&o);
    o.promisc = true;
    if (takt_link_open(ns.ifname[1], &o, &l, err, sizeof err))
        return 5;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "ip -d link show %s | grep -q 'promiscuity 1'", ns.ifname[1]);
    int rc = system(cmd);
    takt_link_close(l);
    return rc == 0 ? 0 : 6;
}

static void memberships(void **state)
{
    fflush(NULL);
    assert_int_equal(takt_netns_run(&ns, TAKT_NETNS_B, multicast_inside, NULL), 0);
}

static void netns_lifecycle(void **state)
{
    struct takt_netns n2;
    char w[256];
    assert_int_equal(takt_netns_create(&n2, w, sizeof w), 0);
    assert_true(n2.holder[0] > 0 && n2.holder[1] > 0);
    assert_string_not_equal(n2.ifname[0], ns.ifname[0]);   /* unique names */
    pid_t h0 = n2.holder[0], h1 = n2.holder[1];
    takt_netns_destroy(&n2);
    assert_int_equal(kill(h0, 0), -1);                      /* holders are gone */
    assert_int_equal(kill(h1, 0), -1);
    takt_netns_destroy(&n2);                                /* twice is harmless */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(across_veth),
        cmocka_unit_test(batches),
        cmocka_unit_test(open_errors),
        cmocka_unit_test(no_permission),
        cmocka_unit_test(memberships),
        cmocka_unit_test(netns_lifecycle),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
