/* What tools read of a running master besides its statistics: the cyclic datagrams
 * with their working counters, the process image, and per slave where it hangs and its
 * DC difference. The cycle publishes them after its exchange through a sequence lock
 * over atomic words (as master_state.c does the statistics), so a reader in any thread
 * takes a copy that is never torn and the cycle never waits for it.
 * Publishing them costs more than the rest of a cycle's bookkeeping, and nobody reads
 * them most of the time: while an RT thread runs the cycle, it publishes them only while
 * a reader's lease runs. A reader adds one to a request count; the cycle that sees a
 * new count publishes for ECAT_PUB_LEASE cycles, and stamps each publication with the
 * cycle and the count it served, so a reader knows whether what it reads is current and
 * waits (bounded) for the publication that follows its request when it is not. While no
 * RT thread runs, every cycle and service step publishes, as does the join. */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/driver.h"

int ecat_pub_init(struct ecat_core *m)
{
    m->snap.topo = calloc(m->max_slaves, sizeof *m->snap.topo);
    m->snap.dc_diff = calloc(m->max_slaves, sizeof *m->snap.dc_diff);
    m->snap.pw = calloc(ECAT_PUB_WORDS, sizeof *m->snap.pw);
    if (!m->snap.topo || !m->snap.dc_diff || !m->snap.pw)
        return -ENOMEM;
    for (unsigned i = 0; i < m->max_slaves; i++)
        atomic_init(&m->snap.dc_diff[i], -1);
    return 0;
}

void ecat_pub_free(struct ecat_core *m)
{
    free(m->snap.topo);
    free(m->snap.dc_diff);
    free(m->snap.pw);
}

/* The datagrams of the cyclic frames (takt's own, or the ENI's), in frame order. */
static unsigned frames(const struct ecat_core *m, struct takt_ecat_frame_info *out)
{
    return ecat_plan_cyc_frames(m, out, TAKT_ECAT_MAX_FRAMES);
}

/* The cycle's thread: a request it has not seen starts (or renews) the lease. */
bool ecat_pub_wanted(struct ecat_core *m)
{
    unsigned r = atomic_load_explicit(&m->snap.preq, memory_order_relaxed);
    if (r != m->snap.pub_seen) {
        m->snap.pub_seen = r;
        m->snap.pub_until = m->st.cycles + ECAT_PUB_LEASE;
    }
    return m->st.cycles < m->snap.pub_until;
}

/* The cycle's thread only (the single writer). */
void ecat_pub_publish(struct ecat_core *m)
{
    for (unsigned i = 0; i < m->n_slaves; i++) {
        const struct ecat_slave *s = &m->slaves[i];
        uint32_t t = (uint32_t)(s->info.parent + 1) & 0xFFFF;
        t |= (uint32_t)(s->info.parent_port & 0xF) << 16 | (uint32_t)(s->info.ports_open & 0xF) << 20 |
             (uint32_t)(s->seg & 0xFF) << 24;
        atomic_store_explicit(&m->snap.topo[i], t, memory_order_relaxed);
        int32_t d = s->dc.diff_prev ? (int32_t)(s->dc.diff_prev - 1) : -1;
        atomic_store_explicit(&m->snap.dc_diff[i], d, memory_order_relaxed);
    }
    struct takt_ecat_frame_info f[TAKT_ECAT_MAX_FRAMES];
    unsigned nf = frames(m, f);
    size_t len = m->image ? m->image_len : 0;
    size_t plen = len < ECAT_PUB_IMAGE ? len : ECAT_PUB_IMAGE;
    _Atomic uint64_t *w = m->snap.pw;
    unsigned q = atomic_load_explicit(&m->snap.pseq, memory_order_relaxed);
    atomic_store_explicit(&m->snap.pseq, q + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&w[0], (uint64_t)len | (uint64_t)nf << 32 | (uint64_t)(m->image != NULL) << 40,
                          memory_order_relaxed);
    atomic_store_explicit(&w[1], m->st.cycles, memory_order_relaxed);
    atomic_store_explicit(&w[2], m->snap.pub_until, memory_order_relaxed);
    atomic_store_explicit(&w[3], m->snap.pub_seen, memory_order_relaxed);
    for (unsigned k = 0; k < nf; k++) {
        uint64_t fw[ECAT_PUB_FRAME_WORDS] = { 0 };
        memcpy(fw, &f[k], sizeof f[k]);
        for (size_t j = 0; j < ECAT_PUB_FRAME_WORDS; j++)
            atomic_store_explicit(&w[ECAT_PUB_HDR + k * ECAT_PUB_FRAME_WORDS + j], fw[j], memory_order_relaxed);
    }
    _Atomic uint64_t *iw = w + ECAT_PUB_HDR + TAKT_ECAT_MAX_FRAMES * ECAT_PUB_FRAME_WORDS;
    for (size_t at = 0; at < plen; at += 8) {
        uint64_t v = 0;
        memcpy(&v, m->image + at, plen - at < 8 ? plen - at : 8);
        atomic_store_explicit(&iw[at / 8], v, memory_order_relaxed);
    }
    atomic_store_explicit(&m->snap.pseq, q + 2, memory_order_release);
}

/* Read the published words through fn until a copy was taken while no write ran. */
static void pub_read(const struct takt_ecat_master *m, void (*fn)(_Atomic uint64_t *w, void *ctx), void *ctx)
{
    struct ecat_core *mm = (struct ecat_core *)&m->core;   /* atomics are read, not written */
    for (unsigned spin = 0;; spin++) {
        unsigned q = atomic_load_explicit(&mm->snap.pseq, memory_order_acquire);
        if (q & 1) {
            if (spin % 64 == 63)
                sched_yield();     /* the cycle may have been preempted by this thread */
            continue;
        }
        fn(mm->snap.pw, ctx);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&mm->snap.pseq, memory_order_relaxed) == q)
            return;
    }
}

struct hdr_rd { uint64_t cycles, until; unsigned served; };

static void read_hdr(_Atomic uint64_t *w, void *ctx)
{
    struct hdr_rd *h = ctx;
    h->cycles = atomic_load_explicit(&w[1], memory_order_relaxed);
    h->until = atomic_load_explicit(&w[2], memory_order_relaxed);
    h->served = (unsigned)atomic_load_explicit(&w[3], memory_order_relaxed);
}

void ecat_pub_hdr(const struct takt_ecat_master *m, uint64_t *cycles, uint64_t *until, unsigned *served)
{
    struct hdr_rd h;
    pub_read(m, read_hdr, &h);
    *cycles = h.cycles;
    *until = h.until;
    *served = h.served;
}

struct frames_rd { struct takt_ecat_frame_info *out; unsigned max, n; };

static void read_frames(_Atomic uint64_t *w, void *ctx)
{
    struct frames_rd *r = ctx;
    r->n = (unsigned)(atomic_load_explicit(&w[0], memory_order_relaxed) >> 32) & 0xFF;
    for (unsigned k = 0; k < r->n && k < r->max; k++) {
        uint64_t fw[ECAT_PUB_FRAME_WORDS];
        for (size_t j = 0; j < ECAT_PUB_FRAME_WORDS; j++)
            fw[j] = atomic_load_explicit(&w[ECAT_PUB_HDR + k * ECAT_PUB_FRAME_WORDS + j], memory_order_relaxed);
        memcpy(&r->out[k], fw, sizeof r->out[k]);
    }
}

unsigned takt_ecat_master_frames(const struct takt_ecat_master *m, struct takt_ecat_frame_info *out,
                                 unsigned max)
{
    struct frames_rd r = { out, max, 0 };
    ecat_pub_want((struct takt_ecat_master *)m);   /* the request count is atomic */
    pub_read(m, read_frames, &r);
    return r.n;
}

struct image_rd { uint8_t *buf; size_t cap, len; bool laid; };

static void read_image(_Atomic uint64_t *w, void *ctx)
{
    struct image_rd *r = ctx;
    uint64_t h = atomic_load_explicit(&w[0], memory_order_relaxed);
    r->len = (size_t)(h & 0xFFFFFFFFu);
    r->laid = (h >> 40) & 1;
    size_t n = r->len < r->cap ? r->len : r->cap;
    n = n < ECAT_PUB_IMAGE ? n : ECAT_PUB_IMAGE;
    _Atomic uint64_t *iw = w + ECAT_PUB_HDR + TAKT_ECAT_MAX_FRAMES * ECAT_PUB_FRAME_WORDS;
    for (size_t at = 0; at < n; at += 8) {
        uint64_t v = atomic_load_explicit(&iw[at / 8], memory_order_relaxed);
        memcpy(r->buf + at, &v, n - at < 8 ? n - at : 8);
    }
}

int takt_ecat_master_image_copy(const struct takt_ecat_master *m, void *buf, size_t cap, size_t *len)
{
    struct image_rd r = { buf, cap, 0, false };
    int rc = ecat_pub_want((struct takt_ecat_master *)m);
    pub_read(m, read_image, &r);
    *len = r.len;
    return !r.laid ? -ENOENT : rc;
}

void takt_ecat_master_link_info(const struct takt_ecat_master *m, char name[32], uint8_t mac[6])
{
    /* the link's, copied into the core when it was created, never written since */
    memcpy(name, m->core.ifname, 32);
    name[31] = 0;
    memcpy(mac, m->core.mac, 6);
}
