/* The control socket (ctl.c, ctl_proto.c, ctl_client.c): the request format, and a
 * server in this process with a verb table of the test's own: answers, a deferred
 * verb completed from another thread (as the cycle would), and the limits (line
 * length, rate, connections, an incomplete line), the check of a file passed with a
 * request. Conditions are waited for with
 * generous limits; no timing is judged. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "cli/ctl.h"

static void test_parse(void **state)
{
    (void)state;
    struct ctl_req r;
    char err[512];
    const char *ok = "{\"v\":1,\"id\":42,\"verb\":\"slaves\",\"sii\":true}";
    assert_int_equal(ctl_parse_request(ok, strlen(ok), &r, err, sizeof err), 0);
    assert_int_equal(r.id, 42);
    assert_string_equal(r.verb, "slaves");
    json_object_put(r.obj);
    static const struct { const char *in, *says; } bad[] = {
        { "", "expected a JSON object" },
        { "[1]", "got a array" },
        { "{\"verb\":\"x\"}", "expected \"v\":1" },
        { "{\"v\":2,\"verb\":\"x\"}", "expected protocol version 1, got 2" },
        { "{\"v\":1}", "expected \"verb\"" },
        { "{\"v\":1,\"verb\":7}", "expected \"verb\"" },
        { "{\"v\":1,\"verb\":\"\\u0000.bin\"}", "got one with a NUL in it" },
        { "{\"v\":1,\"verb\":\"slaves\\u0000x\"}", "got one with a NUL in it" },
        { "{\"v\":1,\"verb\":\"a\"} x", "more after it" },
        { "{\"v\":1,\"verb\":\"a\"", "incomplete" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(ctl_parse_request(bad[i].in, strlen(bad[i].in), &r, err, sizeof err), -1);
        assert_null(r.obj);
        if (!strstr(err, bad[i].says))
            fail_msg("'%s': '%s' does not say '%s'", bad[i].in, err, bad[i].says);
    }
    /* nesting beyond 32 is no request */
    char deep[200];
    memset(deep, '[', 100);
    deep[100] = 0;
    assert_int_equal(ctl_parse_request(deep, 100, &r, err, sizeof err), -1);
    /* the id survives an error after it was read */
    const char *v2 = "{\"v\":2,\"id\":9,\"verb\":\"x\"}";
    assert_int_equal(ctl_parse_request(v2, strlen(v2), &r, err, sizeof err), -1);
    assert_int_equal(r.id, 9);
    /* typed arguments */
    json_object *o = json_tokener_parse("{\"pos\":3,\"big\":70000,\"s\":\"x\",\"d\":\"0aFf\",\"odd\":\"abc\"}");
    int64_t v = -1;
    assert_int_equal(ctl_arg_int(o, "pos", true, 0, 10, &v, err, sizeof err), 0);
    assert_int_equal(v, 3);
    assert_int_equal(ctl_arg_int(o, "big", true, 0, 65535, &v, err, sizeof err), -1);
    assert_non_null(strstr(err, "'big' expects an integer 0..65535, got 70000"));
    assert_int_equal(ctl_arg_int(o, "s", true, 0, 1, &v, err, sizeof err), -1);
    assert_int_equal(ctl_arg_int(o, "none", true, 0, 1, &v, err, sizeof err), -1);
    v = 5;
    assert_int_equal(ctl_arg_int(o, "none", false, 0, 1, &v, err, sizeof err), 0);
    assert_int_equal(v, 5);
    uint8_t b[4];
    size_t n;
    assert_int_equal(ctl_arg_hex(o, "d", b, sizeof b, &n, err, sizeof err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(b[0], 0x0A);
    assert_int_equal(b[1], 0xFF);
    assert_int_equal(ctl_arg_hex(o, "odd", b, sizeof b, &n, err, sizeof err), -1);
    assert_int_equal(ctl_arg_hex(o, "d", b, 1, &n, err, sizeof err), -1);
    json_object_put(o);
}

/* --- a server with the test's verbs ------------------------------------------------ */

static struct ctl_op *parked;     /* the deferred verb's op, completed by a thread */

static int h_echo(struct ctl_call *k, void *ctx)
{
    (void)ctx;
    int64_t x = 0;
    char err[256];
    if (ctl_arg_int(ctl_call_req(k), "x", true, 0, 1000, &x, err, sizeof err))
        return ctl_call_error(k, "%s", err);
    json_object *r = json_object_new_object();
    json_object_object_add(r, "x", json_object_new_int64(x));
    ctl_call_result(k, r);
    return CTL_ANSWERED;
}

/* Files passed with a request: a regular file within the limit only; a file name
 * argument without a NUL inside. */
static void test_files(void **state)
{
    (void)state;
    char err[256];
    size_t n = 0;
    assert_int_equal(ctl_file_check(-1, 100, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "none came"));
    int p[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(ctl_file_check(p[0], 100, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "expected a regular file"));
    close(p[0]);
    close(p[1]);
    int fd = memfd_create("t", MFD_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 101), 0);
    assert_int_equal(ctl_file_check(fd, 100, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "101 bytes; at most 100"));
    assert_int_equal(ctl_file_check(fd, 101, &n, err, sizeof err), 0);
    assert_int_equal(n, 101);
    close(fd);

    json_object *o = json_tokener_parse("{\"a\":\"fw.bin\",\"b\":\"x\\u0000y\",\"c\":\"\",\"d\":7}");
    const char *v = NULL;
    assert_int_equal(ctl_arg_str(o, "a", 200, &v, err, sizeof err), 0);
    assert_string_equal(v, "fw.bin");
    assert_int_equal(ctl_arg_str(o, "a", 3, &v, err, sizeof err), -1);
    assert_int_equal(ctl_arg_str(o, "b", 200, &v, err, sizeof err), -1);
    assert_non_null(strstr(err, "no NUL"));
    assert_int_equal(ctl_arg_str(o, "c", 200, &v, err, sizeof err), -1);
    assert_int_equal(ctl_arg_str(o, "d", 200, &v, err, sizeof err), -1);
    assert_int_equal(ctl_arg_str(o, "e", 200, &v, err, sizeof err), -1);
    json_object_put(o);
}

static void finish(struct ctl_call *k, struct ctl_op *op)
{
    if (op->err)
        ctl_call_error(k, "failed: %d", op->err);
    else
        ctl_call_result(k, json_object_new_string_len((const char *)op->buf, (int)op->len));
}

static int h_later(struct ctl_call *k, void *ctx)
{
    (void)ctx;
    struct ctl_op *op = ctl_call_defer(k, 16, finish);
    if (!op)
        return CTL_ANSWERED;
    __atomic_store_n(&parked, op, __ATOMIC_RELEASE);
    return CTL_DEFERRED;
}

static const struct ctl_verb verbs[] = { { "echo", h_echo }, { "later", h_later }, { 0 } };

static void *complete(void *arg)
{
    (void)arg;
    struct ctl_op *op;
    while (!(op = __atomic_load_n(&parked, __ATOMIC_ACQUIRE)))
        usleep(1000);
    ctl_op_done(op, 0, (const uint8_t *)"done", 4);    /* as the cycle would */
    return NULL;
}

struct fix { char dir[64], path[128]; struct ctl_server *s; };

static int setup(void **state)
{
    struct fix *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/takt-ctl-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->path, sizeof f->path, "%s/t.sock", f->dir);
    char err[256];
    struct ctl_server_opts o = { .path = f->path, .proto = "test", .iface = "lo", .verbs = verbs };
    if (ctl_server_start(&f->s, &o, err, sizeof err))
        return fprintf(stderr, "%s\n", err), -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fix *f = *state;
    ctl_server_stop(f->s);
    ctl_server_free(f->s);
    rmdir(f->dir);
    free(f);
    return 0;
}

static json_object *call(struct ctl_client *cl, const char *json, char *err, size_t n)
{
    json_object *req = json_tokener_parse(json);
    json_object *r = ctl_client_call(cl, req, 20 * TAKT_NS_PER_S, err, n);
    json_object_put(req);
    return r;
}

static void test_serve(void **state)
{
    struct fix *f = *state;
    struct stat st;
    assert_int_equal(stat(f->path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0660);
    char err[512];
    struct ctl_client *cl;
    assert_int_equal(ctl_client_connect(&cl, f->path, err, sizeof err), 0);
    json_object *r = call(cl, "{\"verb\":\"hello\"}", err, sizeof err), *v;
    assert_non_null(r);
    assert_true(json_object_object_get_ex(r, "proto", &v));
    assert_string_equal(json_object_get_string(v), "test");
    json_object_put(r);
    r = call(cl, "{\"verb\":\"echo\",\"x\":7}", err, sizeof err);
    assert_non_null(r);
    assert_true(json_object_object_get_ex(r, "x", &v));
    assert_int_equal(json_object_get_int(v), 7);
    json_object_put(r);
    assert_null(call(cl, "{\"verb\":\"echo\",\"x\":-1}", err, sizeof err));
    assert_non_null(strstr(err, "'x' expects an integer 0..1000, got -1"));
    assert_null(call(cl, "{\"verb\":\"nope\"}", err, sizeof err));
    assert_non_null(strstr(err, "unknown verb 'nope'"));
    /* deferred: answered when another thread completes it */
    pthread_t th;
    pthread_create(&th, NULL, complete, NULL);
    r = call(cl, "{\"verb\":\"later\"}", err, sizeof err);
    pthread_join(th, NULL);
    assert_non_null(r);
    assert_string_equal(json_object_get_string(r), "done");
    json_object_put(r);
    ctl_client_close(cl);
}

/* a raw connection: what the server says to bytes a client would not send */
static int raw(const char *path)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    struct timeval tv = { 20, 0 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

/* everything the server sends until it closes (or n bytes) */
static size_t drain(int fd, char *buf, size_t n)
{
    size_t got = 0;
    ssize_t k;
    while (got < n - 1 && (k = recv(fd, buf + got, n - 1 - got, 0)) > 0)
        got += (size_t)k;
    buf[got] = 0;
    return got;
}

static void test_limits(void **state)
{
    struct fix *f = *state;
    char buf[1 << 16];
    /* a line beyond 64 KiB: an error, then the server closes */
    int fd = raw(f->path);
    size_t big = CTL_LINE_MAX + 100;
    char *junk = malloc(big);
    memset(junk, 'x', big);
    assert_int_equal(send(fd, junk, big, MSG_NOSIGNAL), (ssize_t)big);
    free(junk);
    drain(fd, buf, sizeof buf);
    assert_non_null(strstr(buf, "request line longer than 65536 bytes; closing"));
    close(fd);
    /* a flood beyond the rate: the excess is answered "too many requests" */
    fd = raw(f->path);
    char flood[200 * 40];
    size_t fl = 0;
    for (int i = 0; i < 200; i++)
        fl += (size_t)snprintf(flood + fl, sizeof flood - fl, "{\"v\":1,\"verb\":\"echo\",\"x\":1}\n");
    assert_int_equal(send(fd, flood, fl, MSG_NOSIGNAL), (ssize_t)fl);
    shutdown(fd, SHUT_WR);
    drain(fd, buf, sizeof buf);
    assert_non_null(strstr(buf, "too many requests"));
    assert_non_null(strstr(buf, "\"ok\":true"));
    close(fd);
    /* garbage is an error answer, and the connection stays */
    fd = raw(f->path);
    const char *g = "\x01\x02 {]\n{\"v\":1,\"verb\":\"echo\",\"x\":2}\n";
    send(fd, g, strlen(g), MSG_NOSIGNAL);
    shutdown(fd, SHUT_WR);
    drain(fd, buf, sizeof buf);
    assert_non_null(strstr(buf, "\"ok\":false"));
    assert_non_null(strstr(buf, "{\"x\":2}"));
    close(fd);
    /* beyond CTL_MAX_CONN connections: the next is told and closed */
    int fds[CTL_MAX_CONN];
    for (int i = 0; i < CTL_MAX_CONN; i++) {
        for (int tries = 0;; tries++) {   /* until served: the closes above may still be on their way */
            fds[i] = raw(f->path);
            send(fds[i], "{\"v\":1,\"verb\":\"hello\"}\n", 23, MSG_NOSIGNAL);
            ssize_t k = recv(fds[i], buf, sizeof buf - 1, 0);
            assert_true(k > 0);
            buf[k] = 0;
            if (strstr(buf, "\"ok\":true"))
                break;
            assert_true(tries < 2000);
            close(fds[i]);
            usleep(10000);
        }
    }
    fd = raw(f->path);
    drain(fd, buf, sizeof buf);
    assert_non_null(strstr(buf, "too many connections"));
    close(fd);
    /* a line left incomplete: given up after CTL_PARTIAL_S, the slot freed */
    send(fds[0], "{\"v\":1,\"ve", 10, MSG_NOSIGNAL);
    drain(fds[0], buf, sizeof buf);
    assert_non_null(strstr(buf, "request line incomplete"));
    for (int i = 0; i < CTL_MAX_CONN; i++)
        close(fds[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_files),
        cmocka_unit_test_setup_teardown(test_serve, setup, teardown),
        cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
