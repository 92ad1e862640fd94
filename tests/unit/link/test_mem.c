/* mem link: send/receive, batches, ordering, full ring, responder, injected clock,
 * padding, two-thread use. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <takt/link.h>

struct fake_clock { takt_ns_t now; };
static takt_ns_t fake_now(void *ctx) { return ((struct fake_clock *)ctx)->now; }

static void fill(uint8_t *b, unsigned len, uint8_t seed)
{
    memset(b, 0xff, 6);                         /* broadcast */
    memset(b + 6, 0x02, 6);
    b[12] = 0x88; b[13] = 0xB5;
    for (unsigned i = 14; i < len; i++)
        b[i] = (uint8_t)(seed + i);
}

struct rxbuf { uint8_t d[8][TAKT_FRAME_BUF]; struct takt_frame f[8]; };
static void rx_init(struct rxbuf *r)
{
    for (int i = 0; i < 8; i++)
        r->f[i] = (struct takt_frame){ .data = r->d[i], .cap = TAKT_FRAME_BUF };
}

static void send_recv_pad_ts(void **state)
{
    struct fake_clock clk = { 1000 };
    struct takt_link *a, *b;
    assert_int_equal(takt_link_mem_pair(&a, &b, 4, fake_now, &clk), 0);
    assert_string_equal(a->ops->kind, "mem");
    uint8_t tx[100];
    fill(tx, 20, 1);
    struct takt_frame f = { .data = tx, .len = 20 };
    assert_int_equal(takt_link_send(a, &f, 1), 1);
    clk.now = 2500;
    fill(tx, 100, 7);
    f.len = 100;
    assert_int_equal(takt_link_send(a, &f, 1), 1);

    struct rxbuf r;
    rx_init(&r);
    memset(r.d[0], 0xAA, sizeof r.d[0]);
    assert_int_equal(takt_link_recv(b, r.f, 8, 0), 2);
    assert_int_equal(r.f[0].len, 60);           /* 20 padded to 60 with zeros */
    uint8_t exp[60] = { 0 };
    fill(exp, 20, 1);
    assert_memory_equal(r.d[0], exp, 60);
    assert_int_equal(r.f[0].ts, 1000);
    assert_int_equal(r.f[1].len, 100);
    assert_memory_equal(r.d[1], tx, 100);
    assert_int_equal(r.f[1].ts, 2500);
    assert_int_equal(takt_link_recv(b, r.f, 8, 0), 0);
    assert_int_equal(takt_link_recv(a, r.f, 8, 0), 0);  /* nothing loops back */
    struct takt_link_stats st;
    takt_link_get_stats(a, &st);
    assert_int_equal(st.tx_frames, 2);
    assert_int_equal(st.tx_bytes, 160);
    takt_link_get_stats(b, &st);
    assert_int_equal(st.rx_frames, 2);
    takt_link_close(a);
    takt_link_close(b);
}

static void batch_order_full(void **state)
{
    struct fake_clock clk = { 0 };
    struct takt_link *a, *b;
    assert_int_equal(takt_link_mem_pair(&a, &b, 4, fake_now, &clk), 0);
    uint8_t tx[6][64];
    struct takt_frame f[6];
    for (int i = 0; i < 6; i++) {
        fill(tx[i], 64, (uint8_t)i);
        f[i] = (struct takt_frame){ .data = tx[i], .len = 64 };
    }
    assert_int_equal(takt_link_send(a, f, 6), 4);      /* ring holds 4 */
    assert_int_equal(takt_link_send(a, f + 4, 2), -ENOBUFS);
    struct takt_link_stats st;
    takt_link_get_stats(a, &st);
    assert_int_equal(st.tx_frames, 4);
    assert_int_equal(st.tx_errors, 4);                 /* 2 + 2 refused */

    struct rxbuf r;
    rx_init(&r);
    assert_int_equal(takt_link_recv(b, r.f, 3, 0), 3);
    for (int i = 0; i < 3; i++)
        assert_memory_equal(r.d[i], tx[i], 64);
    /* room again, and the ring wraps around */
    assert_int_equal(takt_link_send(a, f + 4, 2), 2);
    assert_int_equal(takt_link_recv(b, r.f, 8, 0), 3);
    assert_memory_equal(r.d[0], tx[3], 64);
    assert_memory_equal(r.d[1], tx[4], 64);
    assert_memory_equal(r.d[2], tx[5], 64);
    takt_link_close(a);
    takt_link_close(b);
}

static void bad_frames(void **state)
{
    struct takt_link *a, *b;
    assert_int_equal(takt_link_mem_pair(&a, &b, 2, NULL, NULL), 0);
    uint8_t big[TAKT_FRAME_BUF] = { 0 };
    struct takt_frame f = { .data = big, .len = TAKT_ETH_MAX_FRAME + 1 };
    assert_int_equal(takt_link_send(a, &f, 1), -EMSGSIZE);
    f.len = 0;
    assert_int_equal(takt_link_send(a, &f, 1), -EINVAL);
    f.data = NULL;
    f.len = 10;
    assert_int_equal(takt_link_send(a, &f, 1), -EINVAL);
    takt_link_close(a);
    takt_link_close(b);
    assert_int_equal(takt_link_mem_pair(&a, &b, 0, NULL, NULL), -EINVAL);
    assert_null(a);
    assert_null(b);
}

/* Responder: echo every frame back with the first byte flipped. */
struct resp { int calls, last_rc; };

static void echo_responder(void *ctx, struct takt_link *ep, const struct takt_frame *f)
{
    struct resp *rs = ctx;
    rs->calls++;
    assert_true(f->len >= 60);                  /* sees the frame as a receiver would */
    uint8_t buf[TAKT_FRAME_BUF];
    memcpy(buf, f->data, f->len);
    buf[14] ^= 0xFF;
    struct takt_frame r = { .data = buf, .len = f->len };
    rs->last_rc = takt_link_send(ep, &r, 1);
}

static void responder(void **state)
{
    struct fake_clock clk = { 42 };
    struct takt_link *a, *b;
    struct resp rs = { 0 };
    assert_int_equal(takt_link_mem_pair(&a, &b, 2, fake_now, &clk), 0);
    takt_link_mem_set_responder(b, echo_responder, &rs);
    uint8_t tx[60];
    fill(tx, 60, 3);
    struct takt_frame f[3] = { { .data = tx, .len = 60 }, { .data = tx, .len = 60 }, { .data = tx, .len = 60 } };
    /* a ring of 2 can still take 2 replies; responder runs in the send call */
    assert_int_equal(takt_link_send(a, f, 2), 2);
    assert_int_equal(rs.calls, 2);
    assert_int_equal(rs.last_rc, 1);
    /* a short frame reaches the responder padded; its reply finds a's ring full */
    f[2].len = 30;
    assert_int_equal(takt_link_send(a, &f[2], 1), 1);
    assert_int_equal(rs.calls, 3);
    assert_int_equal(rs.last_rc, -ENOBUFS);
    struct rxbuf r;
    rx_init(&r);
    assert_int_equal(takt_link_recv(b, r.f, 8, 0), 0);   /* nothing queued at b */
    assert_int_equal(takt_link_recv(a, r.f, 8, 0), 2);    /* the third reply: ring full */
    assert_int_equal(r.d[0][14], (uint8_t)(tx[14] ^ 0xFF));
    assert_int_equal(r.f[0].ts, 42);
    struct takt_link_stats st;
    takt_link_get_stats(b, &st);
    assert_int_equal(st.rx_frames, 3);
    assert_int_equal(st.tx_errors, 1);
    takt_link_close(a);
    takt_link_close(b);
}

/* Two threads: a producer sends N numbered frames, the consumer receives them in order. */
#define N_THREADED 20000
static void *producer(void *arg)
{
    struct takt_link *a = arg;
    uint8_t tx[64];
    fill(tx, 64, 0);
    for (uint32_t i = 0; i < N_THREADED;) {
        memcpy(tx + 20, &i, 4);
        struct takt_frame f = { .data = tx, .len = 64 };
        if (takt_link_send(a, &f, 1) == 1)
            i++;
    }
    return NULL;
}

static void threaded(void **state)
{
    struct takt_link *a, *b;
    assert_int_equal(takt_link_mem_pair(&a, &b, 16, NULL, NULL), 0);
    pthread_t t;
    pthread_create(&t, NULL, producer, a);
    struct rxbuf r;
    rx_init(&r);
    uint32_t expect = 0;
    while (expect < N_THREADED) {
        int n = takt_link_recv(b, r.f, 8, 1000000000);
        assert_true(n > 0);
        for (int i = 0; i < n; i++, expect++) {
            uint32_t v;
            memcpy(&v, r.d[i] + 20, 4);
            assert_int_equal(v, expect);
        }
    }
    pthread_join(t, NULL);
    /* a timeout with nothing to read returns 0 after roughly the time asked */
    takt_ns_t t0 = takt_now();
    assert_int_equal(takt_link_recv(b, r.f, 1, 2000000), 0);
    assert_true(takt_now() - t0 >= 2000000);
    takt_link_close(a);
    takt_link_close(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(send_recv_pad_ts),
        cmocka_unit_test(batch_order_full),
        cmocka_unit_test(bad_frames),
        cmocka_unit_test(responder),
        cmocka_unit_test(threaded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
