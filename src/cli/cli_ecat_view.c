/* The view of cli_ecat_view.h filled from a master in this process: identity and
 * process data entries once (while no cycle thread runs), the rest from what the cycle
 * publishes, which any thread may read while it runs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli_ecat_view.h"

void ctl_view_refresh(struct ctl_view *v, struct takt_ecat_master *m)
{
    takt_ecat_master_get_stats(m, &v->st);
    for (unsigned i = 0; i < v->n_slaves; i++)
        takt_ecat_master_slave_state(m, i, &v->slaves[i].live);
    v->n_frames = takt_ecat_master_frames(m, v->frames, TAKT_ECAT_MAX_FRAMES);
    if (v->n_frames > TAKT_ECAT_MAX_FRAMES)
        v->n_frames = TAKT_ECAT_MAX_FRAMES;
    size_t len = 0;
    /* -ETIMEDOUT: laid out, but the running cycle did not publish within the wait; the
     * frames and the image are then the last publication's, and the view says so */
    int rc = takt_ecat_master_image_copy(m, v->image, v->image ? v->image_len : 0, &len);
    if (len != v->image_len || !v->image) {   /* laid out anew: size the copy, take it again */
        free(v->image);
        v->image = calloc(1, len ? len : 1);
        v->image_len = v->image ? len : 0;
        if (v->image)
            rc = takt_ecat_master_image_copy(m, v->image, v->image_len, &len);
    }
    v->image_laid = rc != -ENOENT;
    v->stale = rc == -ETIMEDOUT;
    struct takt_rt_loop *l = takt_ecat_master_loop(m);
    takt_rt_loop_get_info(l, &v->loop);
    v->loop_running = v->loop.running;
}

static int view_alloc(struct ctl_view *v, struct takt_ecat_master *m, int64_t cycle_ns, unsigned n, unsigned n_pd)
{
    memset(v, 0, sizeof *v);
    takt_ecat_master_link_info(m, v->link, v->mac);
    v->cycle_ns = cycle_ns;
    v->dc = takt_ecat_master_dc_enabled(m);
    v->n_slaves = n;
    v->slaves = calloc(n ? n : 1, sizeof *v->slaves);
    v->n_pd = n_pd;
    v->pd = calloc(n_pd ? n_pd : 1, sizeof *v->pd);
    if (!v->slaves || !v->pd) {
        ctl_view_free(v);
        return -ENOMEM;
    }
    return 0;
}

int ctl_view_fill(struct ctl_view *v, struct takt_ecat_master *m, int64_t cycle_ns)
{
    if (view_alloc(v, m, cycle_ns, takt_ecat_master_slave_count(m), takt_ecat_pd_count(m)))
        return -ENOMEM;
    for (unsigned i = 0; i < v->n_slaves; i++)
        takt_ecat_master_slave_info(m, i, &v->slaves[i].id);
    for (unsigned i = 0; i < v->n_pd; i++)
        takt_ecat_pd_get(m, i, &v->pd[i]);
    ctl_view_refresh(v, m);
    /* configured but never cycled: nothing is published yet, the image itself is laid
     * out (cstruct's case) */
    size_t len = 0;
    const uint8_t *img = v->image_laid ? NULL : takt_ecat_master_image(m, &len);
    if (img && len) {
        uint8_t *cp = malloc(len);
        if (!cp)
            return -ENOMEM;
        memcpy(cp, img, len);
        free(v->image);
        v->image = cp;
        v->image_len = len;
        v->image_laid = true;
    }
    return 0;
}

int ctl_view_fill_copies(struct ctl_view *v, struct takt_ecat_master *m, int64_t cycle_ns,
                         const struct takt_ecat_slave_info *info, unsigned n,
                         const struct takt_ecat_pd_entry *pd, unsigned n_pd)
{
    if (view_alloc(v, m, cycle_ns, n, n_pd))
        return -ENOMEM;
    for (unsigned i = 0; i < n; i++)
        v->slaves[i].id = info[i];
    if (n_pd)
        memcpy(v->pd, pd, n_pd * sizeof *pd);
    ctl_view_refresh(v, m);
    return 0;
}

void ctl_view_free(struct ctl_view *v)
{
    free(v->slaves);
    free(v->pd);
    free(v->image);
    memset(v, 0, sizeof *v);
}

uint64_t ecat_view_value(const struct ctl_view *v, const struct takt_ecat_pd_entry *e)
{
    uint64_t val = 0;
    unsigned bits = e->bits > 64 ? 64 : e->bits;
    for (unsigned b = 0; b < bits; b++) {
        size_t bit = (size_t)e->byte_offset * 8 + e->bit_offset + b;
        if (bit / 8 < v->image_len && (v->image[bit / 8] >> (bit % 8) & 1))
            val |= 1ull << b;
    }
    return val;
}

void ecat_c_ident(const char *name, char *buf, size_t n)
{
    size_t at = 0;
    bool us = false;
    if (n < 2)
        return;
    if (*name >= '0' && *name <= '9')
        buf[at++] = '_';
    for (const char *p = name; *p && at + 1 < n; p++) {
        char ch = *p;
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        if (ok) {
            buf[at++] = ch;
            us = false;
        } else if (!us && at > 0) {
            buf[at++] = '_';
            us = true;
        }
    }
    while (at > 0 && buf[at - 1] == '_')
        at--;
    buf[at] = 0;
    if (!at)
        snprintf(buf, n, "entry");
}
