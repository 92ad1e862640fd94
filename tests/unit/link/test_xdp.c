/* xdp link (xdp:IF): the spec and its errors without privileges. Built with AF_XDP
 * (TAKT_HAVE_XDP), a missing interface is named like on the other links; built
 * without, every xdp: spec says what the build lacks. The carrier check sees through
 * the prefix. Frames over AF_XDP are tested across veth in tests/net/test_link_xdp.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include <takt/link.h>

static void spec_errors(void **state)
{
    (void)state;
    struct takt_link *l = (struct takt_link *)1;
    char err[320];
#ifdef TAKT_HAVE_XDP
    assert_int_equal(takt_link_open("xdp:tk-nosuch0", NULL, &l, err, sizeof err), -ENODEV);
    assert_null(l);
    assert_non_null(strstr(err, "tk-nosuch0"));
    assert_int_equal(takt_link_open("xdp:", NULL, &l, err, sizeof err), -EINVAL);
#else
    assert_int_equal(takt_link_open("xdp:tk-nosuch0", NULL, &l, err, sizeof err), -ENOTSUP);
    assert_null(l);
    assert_non_null(strstr(err, "built without AF_XDP (libxdp-dev, libbpf-dev)"));
    assert_non_null(strstr(err, "tk-nosuch0"));
#endif
    assert_int_equal(takt_link_open("xdps:lo", NULL, &l, err, sizeof err), -EINVAL);
    assert_non_null(strstr(err, "xdp:IFNAME"));
    assert_int_equal(takt_link_carrier("xdp:lo"), takt_link_carrier("lo"));
    assert_int_equal(takt_link_carrier("xdp:tk-nosuch0"), -ENODEV);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spec_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
