/* The view of IgH's verbs as the control socket sends it (cli_ecat_view_json.c): every
 * field of a view with distinct values comes back equal through the JSON text (a field
 * left out of the encoder's tables comes back 0 and the comparison fails); every key
 * the encoder writes is required by the decoder (each one removed is refused, naming
 * it); values outside their field's type, counts beyond the limits and process data
 * outside the image are refused with what was expected. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli_ecat_view.h"

static uint64_t rnd_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state;
}
/* never 0: a field dropped by the codec comes back 0 */
static uint64_t nz(void) { uint64_t v; do { v = rnd(); } while (!v); return v; }
#define R(type) ((type)nz() ? (type)nz() : (type)1)

static void rstr(char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++)
        s[i] = (char)(' ' + rnd() % 95);
    s[n - 1] = 0;
}

#define IMG 64

static void make_view(struct ctl_view *v, unsigned n, unsigned nf, unsigned npd)
{
    memset(v, 0, sizeof *v);
    rstr(v->link, sizeof v->link);
    for (int k = 0; k < 6; k++)
        v->mac[k] = (uint8_t)(k + 0xA0);
    v->cycle_ns = R(int64_t);
    v->dc = v->loop_running = v->image_laid = true;
    v->stale = nf % 2;
    struct takt_ecat_master_stats *s = &v->st;
    s->cycles = R(uint64_t); s->frames_sent = R(uint64_t); s->frames_lost = R(uint64_t);
    s->frames_received = R(uint64_t); s->cyc_frames_sent = R(uint64_t); s->cyc_frames_lost = R(uint64_t);
    s->frames_late = R(uint64_t); s->frames_duplicate = R(uint64_t); s->frames_unmatched = R(uint64_t);
    s->wkc_errors = R(uint64_t);
    for (int k = 0; k < 3; k++) {
        s->loss_rate[k] = 0.25 + k;
        s->tx_rate[k] = 1000.5 + k;
    }
    s->slaves_lost = R(uint64_t); s->slaves_returned = R(uint64_t); s->emergencies = R(uint64_t);
    s->slaves_present = R(unsigned); s->dc_sync_err_ns = R(int64_t); s->dc_sync_err_max_ns = R(int64_t);
    s->dc_sync_invalid = R(uint64_t); s->state = R(uint8_t); s->slaves = R(unsigned);
    s->slaves_init = R(unsigned); s->slaves_preop = R(unsigned); s->slaves_boot = R(unsigned);
    s->slaves_safeop = R(unsigned); s->slaves_op = R(unsigned); s->slaves_not_answering = R(unsigned);
    s->state_changing = true; s->silent_cycles = R(unsigned);
    struct takt_rt_loop_info *l = &v->loop;
    l->period = R(int64_t); l->cycles = R(uint64_t); l->overruns = R(uint64_t); l->skipped = R(uint64_t);
    l->wake_dev = R(int64_t); l->started = R(int64_t); l->ended = R(int64_t); l->cpu_ns = R(int64_t);
    l->proc_cpu_ns = R(int64_t); l->result = R(int); l->running = true;
    v->n_slaves = n;
    v->slaves = calloc(n + 1, sizeof *v->slaves);
    for (unsigned i = 0; i < n; i++) {
        struct takt_ecat_slave_info *d = &v->slaves[i].id;
        d->position = R(unsigned); d->station = R(uint16_t); d->alias = R(uint16_t);
        d->vendor = R(uint32_t); d->product = R(uint32_t); d->revision = R(uint32_t); d->serial = R(uint32_t);
        rstr(d->name, sizeof d->name);
        d->esc_type = R(uint8_t); d->esc_rev = R(uint8_t); d->esc_features = R(uint16_t);
        d->dl_status = R(uint16_t); d->ports_open = R(uint8_t); d->parent = R(int);
        d->parent_port = R(uint8_t); d->al_state = R(uint8_t); d->al_code = R(uint16_t);
        d->mbx_out_start = R(uint16_t); d->mbx_out_len = R(uint16_t); d->mbx_in_start = R(uint16_t);
        d->mbx_in_len = R(uint16_t); d->mbx_protocols = R(uint16_t); d->dc = true;
        d->dc_delay_ns = R(int32_t);
        d->out_offset = 1 + i; d->out_bits = 3 + i; d->in_offset = 5 + i; d->in_bits = 7 + i;
        d->present = true;
        struct takt_ecat_slave_state *t = &v->slaves[i].live;
        t->al_state = R(uint8_t); t->al_code = R(uint16_t); t->present = true; t->parent = R(int);
        t->parent_port = R(uint8_t); t->ports_open = R(uint8_t); t->frame = R(unsigned);
        t->dc_diff_ns = R(int32_t);
    }
    v->n_frames = nf;
    for (unsigned k = 0; k < nf; k++) {
        struct takt_ecat_frame_info *f = &v->frames[k];
        f->cmd = R(uint8_t); f->frame = R(uint8_t); f->len = R(uint16_t); f->logical = R(uint32_t);
        f->wkc_expected = R(uint16_t); f->wkc_last = R(int32_t); f->wkc_errors = R(uint64_t);
        f->first_slave = R(unsigned); f->n_slaves = R(unsigned);
    }
    v->n_pd = npd;
    v->pd = calloc(npd + 1, sizeof *v->pd);
    for (unsigned i = 0; i < npd; i++) {
        struct takt_ecat_pd_entry *e = &v->pd[i];
        e->position = R(unsigned); e->index = R(uint16_t); e->sub = R(uint8_t);
        e->bits = (uint8_t)(1 + i % 16); e->output = true; e->byte_offset = 1 + i % 40;
        e->bit_offset = (uint8_t)(1 + i % 7);
        rstr(e->name, sizeof e->name);
    }
    v->image_len = IMG;
    v->image = malloc(IMG);
    for (unsigned i = 0; i < IMG; i++)
        v->image[i] = (uint8_t)rnd();
}

/* through the text, as the socket carries it */
static int through(const struct ctl_view *v, struct ctl_view *out, char *err, size_t errlen)
{
    json_object *o = ctl_view_to_json(v);
    json_object *p = json_tokener_parse(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
    assert_non_null(p);
    int rc = ctl_view_from_json(p, out, err, errlen);
    json_object_put(p);
    return rc;
}

static void test_round_trip(void **state)
{
    (void)state;
    for (int round = 0; round < 20; round++) {
        struct ctl_view v, w;
        char err[512] = "";
        make_view(&v, 1 + (unsigned)round % 5, (unsigned)round % (TAKT_ECAT_MAX_FRAMES + 1), (unsigned)round * 3);
        int rc = through(&v, &w, err, sizeof err);
        if (rc)
            fail_msg("round %d: %s", round, err);
        assert_memory_equal(v.link, w.link, sizeof v.link);
        assert_memory_equal(v.mac, w.mac, sizeof v.mac);
        assert_true(v.cycle_ns == w.cycle_ns && w.dc && w.loop_running && w.image_laid && v.stale == w.stale);
        assert_memory_equal(&v.st, &w.st, sizeof v.st);
        /* the loop's options and RT setup are not the view's business: not sent */
        assert_memory_equal(&v.loop, &w.loop, offsetof(struct takt_rt_loop_info, opts));
        assert_int_equal(v.n_slaves, w.n_slaves);
        assert_memory_equal(v.slaves, w.slaves, v.n_slaves * sizeof *v.slaves);
        assert_int_equal(v.n_frames, w.n_frames);
        assert_memory_equal(v.frames, w.frames, sizeof v.frames);
        assert_int_equal(v.n_pd, w.n_pd);
        if (v.n_pd)
            assert_memory_equal(v.pd, w.pd, v.n_pd * sizeof *v.pd);
        assert_int_equal(v.image_len, w.image_len);
        assert_memory_equal(v.image, w.image, v.image_len);
        ctl_view_free(&v);
        ctl_view_free(&w);
    }
}

/* every key the encoder writes, removed in turn, is refused by name */
static void drop_each(json_object *root, json_object *o)
{
    if (json_object_is_type(o, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(o); i++)
            drop_each(root, json_object_array_get_idx(o, i));
        return;
    }
    if (!json_object_is_type(o, json_type_object))
        return;
    struct json_object_iterator it = json_object_iter_begin(o), end = json_object_iter_end(o);
    char keys[64][40];
    int n = 0;
    for (; !json_object_iter_equal(&it, &end) && n < 64; json_object_iter_next(&it))
        snprintf(keys[n++], sizeof keys[0], "%s", json_object_iter_peek_name(&it));
    for (int k = 0; k < n; k++) {
        json_object *val = json_object_get(json_object_object_get(o, keys[k]));
        json_object_object_del(o, keys[k]);
        struct ctl_view w;
        char err[512] = "";
        if (!ctl_view_from_json(root, &w, err, sizeof err))
            fail_msg("the view without \"%s\" was taken", keys[k]);
        assert_non_null(strstr(err, keys[k]));
        json_object_object_add(o, keys[k], val);
        drop_each(root, val);
    }
}

static void test_every_key_required(void **state)
{
    (void)state;
    struct ctl_view v;
    make_view(&v, 2, 1, 2);
    json_object *o = ctl_view_to_json(&v);
    drop_each(o, o);
    json_object_put(o);
    ctl_view_free(&v);
}

static void expect_refused(json_object *o, const char *what)
{
    struct ctl_view w;
    char err[512] = "";
    int rc = ctl_view_from_json(o, &w, err, sizeof err);
    json_object_put(o);
    if (!rc)
        fail_msg("taken, expected an error with '%s'", what);
    if (!strstr(err, what))
        fail_msg("error '%s' lacks '%s'", err, what);
    assert_null(w.slaves);
}

static json_object *base(void)
{
    struct ctl_view v;
    make_view(&v, 2, 1, 2);
    json_object *o = ctl_view_to_json(&v);
    ctl_view_free(&v);
    return o;
}

static json_object *slave_info(json_object *o, int i)
{
    return json_object_object_get(json_object_array_get_idx(json_object_object_get(o, "slaves"), (size_t)i), "info");
}

static void test_bad(void **state)
{
    (void)state;
    json_object *o;
    expect_refused(json_tokener_parse("[1,2]"), "expected an object, got array");
    o = base();
    json_object_object_add(slave_info(o, 1), "station", json_object_new_int(65536));
    expect_refused(o, "view.slaves[1].station: expected an integer 0..65535, got 65536");
    o = base();
    json_object_object_add(slave_info(o, 0), "parent", json_object_new_string("x"));
    expect_refused(o, "parent: expected an integer, got string");
    o = base();
    json_object_object_add(json_object_object_get(o, "stats"), "cycles", json_object_new_int(-1));
    expect_refused(o, "cycles: expected an integer 0..");
    o = base();
    json_object_object_add(slave_info(o, 0), "name", json_object_new_string_len("a\0b", 3));
    expect_refused(o, "without NUL");
    o = base();
    json_object_object_add(o, "dc", json_object_new_int(1));
    expect_refused(o, "view.dc: expected true or false, got int");
    o = base();
    json_object *fr = json_object_new_array();
    for (int k = 0; k <= TAKT_ECAT_MAX_FRAMES; k++)
        json_object_array_add(fr, json_object_get(json_object_array_get_idx(json_object_object_get(o, "frames"), 0)));
    json_object_object_add(o, "frames", fr);
    expect_refused(o, "view.frames: expected at most 32 elements, got 33");
    o = base();
    json_object_object_add(o, "image", json_object_new_string("abc"));
    expect_refused(o, "even number of hex digits");
    o = base();
    json_object_object_add(o, "image", json_object_new_string("00"));
    expect_refused(o, "within the image of 1 bytes");
    o = base();
    json_object_object_add(slave_info(o, 1), "out_offset", json_object_new_int64(4000000000));
    expect_refused(o, "view.slaves[1]: expected its process data within the image");
    o = base();
    json_object_object_add(json_object_array_get_idx(json_object_object_get(o, "pd"), 1), "bit_offset",
                           json_object_new_int(8));
    expect_refused(o, "view.pd[1]: expected an entry within the image");
    o = base();
    json_object_object_add(o, "mac", json_object_new_string("00:11"));
    expect_refused(o, "view.mac: expected \"xx:xx:xx:xx:xx:xx\", got 00:11");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_every_key_required),
        cmocka_unit_test(test_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
