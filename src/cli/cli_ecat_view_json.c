/* The view of cli_ecat_view.h as JSON, for the control socket's view verbs
 * (docs/control.md): `takt ecat run` sends it, the tool fills a view from it and hands
 * it to the same renderer as a view filled in-process.
 *
 * Each struct is a table of its fields (name, kind, offset, size), so one encoder and
 * one decoder serve them all, and the unit test (a view of random values sent through
 * both) finds a field left out of a table. The decoder takes what a socket gives: every
 * value is checked against its field's type and range, counts and offsets against what
 * the renderers index, and a wrong one is refused with what was expected and what came. */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli_ecat_view.h"
#include "cli/ctl.h"

enum fkind { F_U, F_I, F_B, F_S, F_D };
struct fld {
    const char *name;
    enum fkind kind;
    size_t off, size;
};
#define FLD(S, f, k) { #f, k, offsetof(S, f), sizeof(((S *)0)->f) }

#define SI struct takt_ecat_slave_info
static const struct fld f_info[] = {
    FLD(SI, position, F_U), FLD(SI, station, F_U), FLD(SI, alias, F_U), FLD(SI, vendor, F_U),
    FLD(SI, product, F_U), FLD(SI, revision, F_U), FLD(SI, serial, F_U), FLD(SI, name, F_S),
    FLD(SI, esc_type, F_U), FLD(SI, esc_rev, F_U), FLD(SI, esc_features, F_U), FLD(SI, dl_status, F_U),
    FLD(SI, ports_open, F_U), FLD(SI, parent, F_I), FLD(SI, parent_port, F_U), FLD(SI, al_state, F_U),
    FLD(SI, al_code, F_U), FLD(SI, mbx_out_start, F_U), FLD(SI, mbx_out_len, F_U),
    FLD(SI, mbx_in_start, F_U), FLD(SI, mbx_in_len, F_U), FLD(SI, mbx_protocols, F_U), FLD(SI, dc, F_B),
    FLD(SI, dc_delay_ns, F_I), FLD(SI, out_bits, F_U), FLD(SI, in_bits, F_U), FLD(SI, out_offset, F_U),
    FLD(SI, in_offset, F_U), FLD(SI, present, F_B), { 0 },
};
#define SS struct takt_ecat_slave_state
static const struct fld f_state[] = {
    FLD(SS, al_state, F_U), FLD(SS, al_code, F_U), FLD(SS, present, F_B), FLD(SS, parent, F_I),
    FLD(SS, parent_port, F_U), FLD(SS, ports_open, F_U), FLD(SS, frame, F_U), FLD(SS, dc_diff_ns, F_I),
    { 0 },
};
#define ST struct takt_ecat_master_stats
static const struct fld f_stats[] = {
    FLD(ST, cycles, F_U), FLD(ST, frames_sent, F_U), FLD(ST, frames_lost, F_U),
    FLD(ST, frames_received, F_U), FLD(ST, cyc_frames_sent, F_U), FLD(ST, cyc_frames_lost, F_U),
    FLD(ST, frames_late, F_U), FLD(ST, frames_duplicate, F_U), FLD(ST, frames_unmatched, F_U),
    FLD(ST, wkc_errors, F_U), FLD(ST, loss_rate, F_D), FLD(ST, tx_rate, F_D), FLD(ST, slaves_lost, F_U),
    FLD(ST, slaves_returned, F_U), FLD(ST, emergencies, F_U), FLD(ST, slaves_present, F_U),
    FLD(ST, dc_sync_err_ns, F_I), FLD(ST, dc_sync_err_max_ns, F_I), FLD(ST, dc_sync_invalid, F_U),
    FLD(ST, state, F_U), FLD(ST, slaves, F_U), FLD(ST, slaves_init, F_U), FLD(ST, slaves_preop, F_U),
    FLD(ST, slaves_boot, F_U), FLD(ST, slaves_safeop, F_U), FLD(ST, slaves_op, F_U),
    FLD(ST, slaves_not_answering, F_U), FLD(ST, state_changing, F_B), FLD(ST, silent_cycles, F_U),
    { 0 },
};
#define FI struct takt_ecat_frame_info
static const struct fld f_frame[] = {
    FLD(FI, cmd, F_U), FLD(FI, frame, F_U), FLD(FI, len, F_U), FLD(FI, logical, F_U),
    FLD(FI, wkc_expected, F_U), FLD(FI, wkc_last, F_I), FLD(FI, wkc_errors, F_U),
    FLD(FI, first_slave, F_U), FLD(FI, n_slaves, F_U), { 0 },
};
#define PD struct takt_ecat_pd_entry
static const struct fld f_pd[] = {
    FLD(PD, position, F_U), FLD(PD, index, F_U), FLD(PD, sub, F_U), FLD(PD, bits, F_U),
    FLD(PD, output, F_B), FLD(PD, byte_offset, F_U), FLD(PD, bit_offset, F_U), FLD(PD, name, F_S), { 0 },
};
/* the loop's counters; its options and RT setup are the running command's own business */
#define LI struct takt_rt_loop_info
static const struct fld f_loop[] = {
    FLD(LI, period, F_I), FLD(LI, cycles, F_U), FLD(LI, overruns, F_U), FLD(LI, skipped, F_U),
    FLD(LI, wake_dev, F_I), FLD(LI, started, F_I), FLD(LI, ended, F_I), FLD(LI, cpu_ns, F_I),
    FLD(LI, proc_cpu_ns, F_I), FLD(LI, result, F_I), FLD(LI, running, F_B), { 0 },
};
#define CV struct ctl_view
static const struct fld f_view[] = {
    FLD(CV, link, F_S), FLD(CV, cycle_ns, F_I), FLD(CV, dc, F_B), FLD(CV, loop_running, F_B),
    FLD(CV, image_laid, F_B), FLD(CV, stale, F_B), { 0 },
};

/* --- encoding ------------------------------------------------------------------------ */

static json_object *enc(const void *p, const struct fld *t)
{
    json_object *o = json_object_new_object();
    for (; t->name; t++) {
        const uint8_t *f = (const uint8_t *)p + t->off;
        json_object *j = NULL;
        switch (t->kind) {
        case F_U: {
            uint64_t v = 0;
            if (t->size == 1) v = *(const uint8_t *)f;
            if (t->size == 2) v = *(const uint16_t *)(const void *)f;
            if (t->size == 4) v = *(const uint32_t *)(const void *)f;
            if (t->size == 8) v = *(const uint64_t *)(const void *)f;
            j = json_object_new_uint64(v);
            break;
        }
        case F_I: {
            int64_t v = 0;
            if (t->size == 1) v = *(const int8_t *)f;
            if (t->size == 2) v = *(const int16_t *)(const void *)f;
            if (t->size == 4) v = *(const int32_t *)(const void *)f;
            if (t->size == 8) v = *(const int64_t *)(const void *)f;
            j = json_object_new_int64(v);
            break;
        }
        case F_B:
            j = json_object_new_boolean(*(const bool *)f);
            break;
        case F_S:
            j = json_object_new_string_len((const char *)f, (int)strnlen((const char *)f, t->size));
            break;
        case F_D:
            j = json_object_new_array();
            for (size_t k = 0; k < t->size / sizeof(double); k++)
                json_object_array_add(j, json_object_new_double(((const double *)(const void *)f)[k]));
            break;
        }
        json_object_object_add(o, t->name, j);
    }
    return o;
}

static json_object *enc_arr(const void *base, size_t stride, unsigned n, const struct fld *t)
{
    json_object *a = json_object_new_array();
    for (unsigned i = 0; i < n; i++)
        json_object_array_add(a, enc((const uint8_t *)base + i * stride, t));
    return a;
}

json_object *ctl_view_to_json(const struct ctl_view *v)
{
    json_object *o = enc(v, f_view);
    char mac[18];
    snprintf(mac, sizeof mac, "%02x:%02x:%02x:%02x:%02x:%02x", v->mac[0], v->mac[1], v->mac[2], v->mac[3],
             v->mac[4], v->mac[5]);
    json_object_object_add(o, "mac", json_object_new_string(mac));
    json_object_object_add(o, "stats", enc(&v->st, f_stats));
    json_object_object_add(o, "loop", enc(&v->loop, f_loop));
    json_object *sl = json_object_new_array();
    for (unsigned i = 0; i < v->n_slaves; i++) {
        json_object *s = json_object_new_object();
        json_object_object_add(s, "info", enc(&v->slaves[i].id, f_info));
        json_object_object_add(s, "live", enc(&v->slaves[i].live, f_state));
        json_object_array_add(sl, s);
    }
    json_object_object_add(o, "slaves", sl);
    json_object_object_add(o, "frames", enc_arr(v->frames, sizeof v->frames[0], v->n_frames, f_frame));
    json_object_object_add(o, "pd", enc_arr(v->pd, sizeof v->pd[0], v->n_pd, f_pd));
    json_object_object_add(o, "image", ctl_hex(v->image, v->image ? v->image_len : 0));
    return o;
}

/* --- decoding ------------------------------------------------------------------------ */

#define ERR(...) ((void)snprintf(err, errlen, __VA_ARGS__), -1)

static const char *type_name(json_object *j)
{
    return j ? json_type_to_name(json_object_get_type(j)) : "nothing";
}

static int dec(json_object *o, void *p, const struct fld *t, const char *where, char *err, size_t errlen)
{
    if (!json_object_is_type(o, json_type_object))
        return ERR("%s: expected an object, got %s", where, type_name(o));
    for (; t->name; t++) {
        uint8_t *f = (uint8_t *)p + t->off;
        json_object *j = NULL;
        if (!json_object_object_get_ex(o, t->name, &j))
            return ERR("%s: expected \"%s\", got none", where, t->name);
        switch (t->kind) {
        case F_U: case F_I: {
            if (!json_object_is_type(j, json_type_int))
                return ERR("%s.%s: expected an integer, got %s", where, t->name, type_name(j));
            unsigned bits = (unsigned)t->size * 8;
            if (t->kind == F_U) {
                errno = 0;
                int64_t sv = json_object_get_int64(j);
                uint64_t v = json_object_get_uint64(j);
                if (sv < 0 || (bits < 64 && v >> bits))
                    return ERR("%s.%s: expected an integer 0..%" PRIu64 ", got %s", where, t->name,
                               bits < 64 ? ((uint64_t)1 << bits) - 1 : UINT64_MAX, json_object_get_string(j));
                if (t->size == 1) *f = (uint8_t)v;
                if (t->size == 2) *(uint16_t *)(void *)f = (uint16_t)v;
                if (t->size == 4) *(uint32_t *)(void *)f = (uint32_t)v;
                if (t->size == 8) *(uint64_t *)(void *)f = v;
            } else {
                int64_t v = json_object_get_int64(j);
                int64_t lo = bits < 64 ? -(1ll << (bits - 1)) : INT64_MIN;
                int64_t hi = bits < 64 ? (1ll << (bits - 1)) - 1 : INT64_MAX;
                if (v < lo || v > hi || (v == INT64_MAX && json_object_get_uint64(j) > INT64_MAX))
                    return ERR("%s.%s: expected an integer %" PRId64 "..%" PRId64 ", got %s", where, t->name,
                               lo, hi, json_object_get_string(j));
                if (t->size == 1) *(int8_t *)f = (int8_t)v;
                if (t->size == 2) *(int16_t *)(void *)f = (int16_t)v;
                if (t->size == 4) *(int32_t *)(void *)f = (int32_t)v;
                if (t->size == 8) *(int64_t *)(void *)f = v;
            }
            break;
        }
        case F_B:
            if (!json_object_is_type(j, json_type_boolean))
                return ERR("%s.%s: expected true or false, got %s", where, t->name, type_name(j));
            *(bool *)f = json_object_get_boolean(j);
            break;
        case F_S: {
            if (!json_object_is_type(j, json_type_string))
                return ERR("%s.%s: expected a string, got %s", where, t->name, type_name(j));
            const char *s = json_object_get_string(j);
            size_t n = (size_t)json_object_get_string_len(j);
            if (n >= t->size || strlen(s) != n)
                return ERR("%s.%s: expected a string of at most %zu bytes without NUL, got %zu bytes",
                           where, t->name, t->size - 1, n);
            memset(f, 0, t->size);
            memcpy(f, s, n);
            break;
        }
        case F_D: {
            size_t n = t->size / sizeof(double);
            if (!json_object_is_type(j, json_type_array) || json_object_array_length(j) != n)
                return ERR("%s.%s: expected an array of %zu numbers, got %s", where, t->name, n, type_name(j));
            for (size_t k = 0; k < n; k++) {
                json_object *e = json_object_array_get_idx(j, k);
                if (!json_object_is_type(e, json_type_double) && !json_object_is_type(e, json_type_int))
                    return ERR("%s.%s[%zu]: expected a number, got %s", where, t->name, k, type_name(e));
                ((double *)(void *)f)[k] = json_object_get_double(e);
            }
            break;
        }
        }
    }
    return 0;
}

static json_object *arr_of(json_object *o, const char *name, size_t max, char *err, size_t errlen)
{
    json_object *a = NULL;
    if (!json_object_object_get_ex(o, name, &a) || !json_object_is_type(a, json_type_array)) {
        (void)ERR("view: expected \"%s\" as an array, got %s", name, type_name(a));
        return NULL;
    }
    if (json_object_array_length(a) > max) {
        (void)ERR("view.%s: expected at most %zu elements, got %zu", name, max, json_object_array_length(a));
        return NULL;
    }
    return a;
}

/* What the renderers index by must lie in the image: a slave's outputs and inputs, each
 * entry's bits (cstruct writes a member per byte between them). */
static int check_ranges(const struct ctl_view *v, char *err, size_t errlen)
{
    uint64_t bits = (uint64_t)v->image_len * 8;
    for (unsigned i = 0; i < v->n_slaves; i++) {
        const struct takt_ecat_slave_info *s = &v->slaves[i].id;
        if ((uint64_t)s->out_offset * 8 + s->out_bits > bits || (uint64_t)s->in_offset * 8 + s->in_bits > bits)
            return ERR("view.slaves[%u]: expected its process data within the image of %zu bytes, got "
                       "outputs at %" PRIu32 " (%" PRIu32 " bits), inputs at %" PRIu32 " (%" PRIu32 " bits)",
                       i, v->image_len, s->out_offset, s->out_bits, s->in_offset, s->in_bits);
    }
    for (unsigned i = 0; i < v->n_pd; i++) {
        const struct takt_ecat_pd_entry *e = &v->pd[i];
        if (e->bit_offset > 7 || (uint64_t)e->byte_offset * 8 + e->bit_offset + e->bits > bits)
            return ERR("view.pd[%u]: expected an entry within the image of %zu bytes, got byte %" PRIu32
                       " bit %u, %u bits", i, v->image_len, e->byte_offset, e->bit_offset, e->bits);
    }
    return 0;
}

#define VIEW_MAX_SLAVES 65535u
#define VIEW_MAX_PD     65535u

int ctl_view_from_json(json_object *o, struct ctl_view *v, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    json_object *j, *sl, *fr, *pd;
    char where[40];
    if (dec(o, v, f_view, "view", err, errlen))
        return -1;
    unsigned m[6];
    if (!json_object_object_get_ex(o, "mac", &j) || !json_object_is_type(j, json_type_string) ||
        json_object_get_string_len(j) != 17 ||
        sscanf(json_object_get_string(j), "%2x:%2x:%2x:%2x:%2x:%2x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6)
        return ERR("view.mac: expected \"xx:xx:xx:xx:xx:xx\", got %s", j ? json_object_get_string(j) : "nothing");
    for (int k = 0; k < 6; k++)
        v->mac[k] = (uint8_t)m[k];
    if (!json_object_object_get_ex(o, "stats", &j) || dec(j, &v->st, f_stats, "view.stats", err, errlen) ||
        !json_object_object_get_ex(o, "loop", &j) || dec(j, &v->loop, f_loop, "view.loop", err, errlen)) {
        if (!j)
            (void)ERR("view: expected \"stats\" and \"loop\", got none");
        return -1;
    }
    if (!(sl = arr_of(o, "slaves", VIEW_MAX_SLAVES, err, errlen)) ||
        !(fr = arr_of(o, "frames", TAKT_ECAT_MAX_FRAMES, err, errlen)) ||
        !(pd = arr_of(o, "pd", VIEW_MAX_PD, err, errlen)))
        return -1;
    v->n_slaves = (unsigned)json_object_array_length(sl);
    v->n_frames = (unsigned)json_object_array_length(fr);
    v->n_pd = (unsigned)json_object_array_length(pd);
    v->slaves = calloc(v->n_slaves + 1, sizeof *v->slaves);
    v->pd = calloc(v->n_pd + 1, sizeof *v->pd);
    int rc = -1;
    if (!v->slaves || !v->pd) {
        (void)ERR("out of memory for a view of %u slaves and %u entries", v->n_slaves, v->n_pd);
        goto out;
    }
    for (unsigned i = 0; i < v->n_slaves; i++) {
        json_object *s = json_object_array_get_idx(sl, i), *a = NULL, *b = NULL;
        snprintf(where, sizeof where, "view.slaves[%u]", i);
        if (!json_object_is_type(s, json_type_object) || !json_object_object_get_ex(s, "info", &a) ||
            !json_object_object_get_ex(s, "live", &b)) {
            (void)ERR("%s: expected an object with \"info\" and \"live\", got %s", where, type_name(s));
            goto out;
        }
        if (dec(a, &v->slaves[i].id, f_info, where, err, errlen) ||
            dec(b, &v->slaves[i].live, f_state, where, err, errlen))
            goto out;
    }
    for (unsigned i = 0; i < v->n_frames; i++) {
        snprintf(where, sizeof where, "view.frames[%u]", i);
        if (dec(json_object_array_get_idx(fr, i), &v->frames[i], f_frame, where, err, errlen))
            goto out;
    }
    for (unsigned i = 0; i < v->n_pd; i++) {
        snprintf(where, sizeof where, "view.pd[%u]", i);
        if (dec(json_object_array_get_idx(pd, i), &v->pd[i], f_pd, where, err, errlen))
            goto out;
    }
    if (!json_object_object_get_ex(o, "image", &j) || !json_object_is_type(j, json_type_string)) {
        (void)ERR("view.image: expected the image as hex, got %s", type_name(j));
        goto out;
    }
    size_t hl = (size_t)json_object_get_string_len(j);
    v->image = calloc(1, hl / 2 + 1);
    if (!v->image || ctl_unhex(json_object_get_string(j), v->image, hl / 2 + 1, &v->image_len)) {
        (void)ERR("view.image: expected an even number of hex digits, got %zu characters", hl);
        goto out;
    }
    rc = check_ranges(v, err, errlen);
out:
    if (rc)
        ctl_view_free(v);
    return rc;
}
