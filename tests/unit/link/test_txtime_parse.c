/* The rtnetlink reply parsing of the launch-time probe (link_txtime_parse), from
 * buffers made here: etf under a root qdisc wins with its clock and delta, fq takes
 * CLOCK_MONOTONIC, other interfaces are ignored, NLMSG_ERROR gives its errno, and an
 * NLMSG_ERROR too short to hold one is refused as malformed rather than read past its
 * end (the bytes after it here hold -16, which must not come out). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include "link/link_internal.h"

static _Alignas(4) uint8_t buf[1024];
static size_t len;

static void put(const void *p, size_t n)
{
    memcpy(buf + len, p, n);
    len += NLMSG_ALIGN(n);
}

static void attr(uint16_t type, const void *p, size_t n)
{
    struct rtattr a = { .rta_len = (unsigned short)RTA_LENGTH(n), .rta_type = type };
    memcpy(buf + len, &a, sizeof a);
    memcpy(buf + len + sizeof a, p, n);
    len += RTA_ALIGN(a.rta_len);
}

/* Open a message; returns its offset, closed by end(). */
static size_t msg(uint16_t type)
{
    size_t at = len;
    struct nlmsghdr h = { .nlmsg_type = type, .nlmsg_flags = NLM_F_MULTI };
    put(&h, sizeof h);
    return at;
}

static void end(size_t at) { ((struct nlmsghdr *)(buf + at))->nlmsg_len = (uint32_t)(len - at); }

static void qdisc(int ifindex, uint32_t parent, const char *kind, const void *opt, size_t optlen)
{
    size_t at = msg(RTM_NEWQDISC);
    struct tcmsg tc = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex, .tcm_parent = parent };
    put(&tc, sizeof tc);
    attr(TCA_KIND, kind, strlen(kind) + 1);
    if (opt) {
        size_t o = len;
        struct rtattr a = { .rta_type = TCA_OPTIONS };
        memcpy(buf + len, &a, sizeof a);
        len += sizeof a;
        memcpy(buf + len, opt, optlen);
        len += RTA_ALIGN(optlen);
        ((struct rtattr *)(buf + o))->rta_len = (unsigned short)(len - o);
    }
    end(at);
}

static void test_qdiscs(void **state)
{
    (void)state;
    struct link_txtime t = { .clockid = -1 };
    len = 0;
    uint8_t etf[RTA_LENGTH(sizeof(struct tc_etf_qopt))];
    struct rtattr a = { .rta_len = sizeof etf, .rta_type = TCA_ETF_PARMS };
    struct tc_etf_qopt q = { .delta = 200000, .clockid = CLOCK_TAI, .flags = 0 };
    memcpy(etf, &a, sizeof a);
    memcpy(etf + sizeof a, &q, sizeof q);
    qdisc(2, TC_H_ROOT, "mqprio", NULL, 0);
    qdisc(3, TC_H_ROOT, "fq", NULL, 0);            /* another interface */
    qdisc(2, 0x10001, "etf", etf, sizeof etf);
    qdisc(2, 0x10002, "fq", NULL, 0);              /* etf beats it */
    assert_int_equal(link_txtime_parse(buf, len, 2, &t), 0);
    assert_string_equal(t.kind, "etf");
    assert_string_equal(t.root, "mqprio");
    assert_int_equal(t.clockid, CLOCK_TAI);
    assert_int_equal(t.delta_ns, 200000);
    len = 0;
    struct link_txtime u = { .clockid = -1 };
    qdisc(2, TC_H_ROOT, "fq", NULL, 0);
    size_t at = msg(NLMSG_DONE);
    int32_t zero = 0;
    put(&zero, sizeof zero);
    end(at);
    assert_int_equal(link_txtime_parse(buf, len, 2, &u), 1);
    assert_string_equal(u.kind, "fq");
    assert_int_equal(u.clockid, CLOCK_MONOTONIC);
}

static void test_errors(void **state)
{
    (void)state;
    struct link_txtime t = { .clockid = -1 };
    len = 0;
    size_t at = msg(NLMSG_ERROR);
    struct nlmsgerr e = { .error = -EPERM };
    put(&e, sizeof e);
    end(at);
    assert_int_equal(link_txtime_parse(buf, len, 2, &t), -EPERM);
    /* a bare header that says NLMSG_ERROR: its error field is not in the message */
    len = 0;
    at = msg(NLMSG_ERROR);
    end(at);
    int32_t outside = -16;
    memcpy(buf + len, &outside, sizeof outside);
    assert_int_equal(link_txtime_parse(buf, len, 2, &t), -EPROTO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qdiscs),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
