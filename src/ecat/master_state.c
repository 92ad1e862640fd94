/* The state the master reports, and how other threads read it: per-state counts of the
 * slaves from their last AL status reports, silence (cycles in which no frame came
 * back) with its events, and the statistics published by the cycle through a sequence
 * lock, so that a reporter thread takes a consistent copy while the cycle runs. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include "ecat/master_internal.h"
#include "ecat/driver.h"
#include "util/wire.h"

static int rank(uint8_t st)
{
    static const uint8_t r[16] = { [AL_INIT] = 1, [AL_PREOP] = 2, [AL_BOOT] = 2,
                                   [AL_SAFEOP] = 3, [AL_OP] = 4 };
    return r[st & AL_STATE_MASK];
}

bool ecat_all_op(const struct ecat_core *m)
{
    if (!m->n_slaves || m->rec.present != m->n_slaves || m->silent_cycles >= TAKT_ECAT_SILENCE_CYCLES)
        return false;
    for (unsigned i = 0; i < m->n_slaves; i++)
        if (!m->slaves[i].info.present || (m->slaves[i].info.al_state & AL_STATE_MASK) != AL_OP)
            return false;
    return true;
}

void ecat_silence_note(struct ecat_core *m, unsigned sent, unsigned lost)
{
    if (!sent)
        return;
    if (lost == sent) {
        if (++m->silent_cycles == TAKT_ECAT_SILENCE_CYCLES)
            ECAT_EV(m, TAKT_ECAT_EV_NO_FRAME, -1, m->silent_cycles);
        return;
    }
    if (m->silent_cycles >= TAKT_ECAT_SILENCE_CYCLES)
        ECAT_EV(m, TAKT_ECAT_EV_FRAMES_AGAIN, -1, m->silent_cycles);
    m->silent_cycles = 0;
}

/* The counts per state, from the slaves' last reports: they change only with a report
 * (ecat_al_changed), so they are summed then, not every cycle. */
static void state_sum(struct ecat_core *m)
{
    struct takt_ecat_master_stats *st = &m->st;
    unsigned c[16] = { 0 }, answering = 0, n = m->n_slaves;
    uint8_t seen = 0;
    int low = 99;
    uint8_t low_st = 0;
    for (unsigned i = 0; i < n; i++) {
        const struct takt_ecat_slave_info *in = &m->slaves[i].info;
        if (!in->present || !rank(in->al_state))
            continue;
        c[in->al_state & AL_STATE_MASK]++;
        answering++;
        seen |= in->al_state;
        if (rank(in->al_state) < low) {
            low = rank(in->al_state);
            low_st = in->al_state & AL_STATE_MASK;
        }
    }
    st->slaves = n;
    st->slaves_init = c[AL_INIT];
    st->slaves_preop = c[AL_PREOP];
    st->slaves_boot = c[AL_BOOT];
    st->slaves_safeop = c[AL_SAFEOP];
    st->slaves_op = c[AL_OP];
    st->slaves_not_answering = n - answering;
    m->sum_answering = answering;
    m->sum_seen = seen;
    m->sum_low = low_st;
    m->sum_gen = m->al_gen - 1;
}

void ecat_state_update(struct ecat_core *m)
{
    struct takt_ecat_master_stats *st = &m->st;
    unsigned n = m->n_slaves;
    if (m->sum_gen + 1 != m->al_gen)   /* + 1: a core of zeros sums at once */
        state_sum(m);
    st->silent_cycles = m->silent_cycles;
    /* The BRD 0x0130 is the OR of every slave's AL status (ETG.1000.4 commands and working counter): a bit in it that no
     * slave's last report has means a slave changed state since it was read (unless
     * every slave was read after that BRD went out: then it tells nothing newer). */
    bool all = n && m->sum_answering == n && m->rec.present == n;
    bool changing = false;
    if (all && (m->rec.brd_or & ~m->sum_seen & (AL_STATE_MASK | AL_ERROR)))
        for (unsigned i = 0; i < n && !changing; i++)   /* a reading older than the BRD */
            changing = (int32_t)(m->slaves[i].al_fno - m->rec.brd_fno) < 0;
    st->state_changing = changing;
    bool known = all && !changing && m->silent_cycles < TAKT_ECAT_SILENCE_CYCLES;
    st->state = known ? m->sum_low : 0;
}

/* --- publication ------------------------------------------------------------------- */

/* The 1/10/60 s rates are of the completed seconds before the current one: they change
 * only when the current second does, and are summed then (71 buckets), not per cycle. */
static void rates(struct ecat_core *m)
{
    static const unsigned span[3] = { 1, 10, 60 };
    const struct ecat_rate *r = &m->rate;
    if (r->sec == m->snap.rate_sec)
        return;
    m->snap.rate_sec = r->sec;
    for (int k = 0; k < 3; k++) {
        uint64_t s = 0, l = 0;
        for (unsigned i = 1; i <= span[k]; i++) {
            unsigned b = (r->cur + 61 - i) % 61;
            s += r->sent[b];
            l += r->lost[b];
        }
        m->snap.tx_rate[k] = (double)s / span[k];
        m->snap.loss_rate[k] = (double)l / span[k];
    }
}

/* The fields of the statistics that are not counted where they happen: the rates and
 * the slaves present (the cycle's thread). */
static void stats_fill(struct ecat_core *m)
{
    struct takt_ecat_master_stats *st = &m->st;
    rates(m);
    memcpy(st->tx_rate, m->snap.tx_rate, sizeof st->tx_rate);
    memcpy(st->loss_rate, m->snap.loss_rate, sizeof st->loss_rate);
    st->slaves_present = m->rec.present;
}

/* The cycle's thread only (the single writer). Inside the sequence lock the words need
 * no order among themselves: the odd count (with the release fence) before them and the
 * even one (a release store) after order them for the reader, so each is a relaxed
 * store, word by word from the source; the count is a constant, so the loop is unrolled
 * into a load and a store per word. */
void ecat_snap_stats(struct ecat_core *m)
{
    stats_fill(m);
    const unsigned char *src = (const unsigned char *)&m->st;
    enum { WHOLE = sizeof m->st / 8, TAIL = sizeof m->st % 8 };
    unsigned q = atomic_load_explicit(&m->snap.seq, memory_order_relaxed);
    atomic_store_explicit(&m->snap.seq, q + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
#pragma GCC unroll 64
    for (size_t i = 0; i < WHOLE; i++) {
        uint64_t v;
        memcpy(&v, src + 8 * i, 8);
        atomic_store_explicit(&m->snap.w[i], v, memory_order_relaxed);
    }
    if (TAIL) {
        uint64_t v = 0;
        memcpy(&v, src + 8 * WHOLE, TAIL);
        atomic_store_explicit(&m->snap.w[WHOLE], v, memory_order_relaxed);
    }
    atomic_store_explicit(&m->snap.seq, q + 2, memory_order_release);
}

/* Once per cycle, at its end (and per service step): the statistics, the slaves' state
 * words if any changed since the last publication, and the frames and image while a
 * reader wants them (always while no RT thread runs the cycle: then nothing else would). */
void ecat_snap_publish(struct ecat_core *m)
{
    ecat_snap_stats(m);
    if (m->snap.al_gen != m->al_gen) {
        m->snap.al_gen = m->al_gen;
        for (unsigned i = 0; i < m->n_slaves; i++) {
            const struct takt_ecat_slave_info *in = &m->slaves[i].info;
            uint32_t v = in->al_state | (uint32_t)in->al_code << 8 | (uint32_t)in->present << 24;
            /* this thread is the only writer: its own last store is what the load sees */
            if (atomic_load_explicit(&m->snap.slave[i], memory_order_relaxed) != v)
                atomic_store_explicit(&m->snap.slave[i], v, memory_order_relaxed);
        }
    }
    if (ecat_pub_wanted(m) || !m->threaded)
        ecat_pub_publish(m);
    /* a reader asleep in takt_ecat_master_wait_ev: woken for the cycle's events and when
     * the network's state or a slave's (the counts per state; published above) changed */
    rt_evring_notify(&m->ev, m->st.state ^ m->al_gen << 8);
}

int takt_ecat_master_slave_state(const struct takt_ecat_master *drv, unsigned pos, struct takt_ecat_slave_state *out)
{
    const struct ecat_core *m = &drv->core;
    if (pos >= m->max_slaves)
        return -ENOENT;
    uint32_t v = atomic_load_explicit(&m->snap.slave[pos], memory_order_relaxed);
    out->al_state = (uint8_t)v;
    out->al_code = (uint16_t)(v >> 8);
    out->present = (v >> 24) & 1;
    int rc = ecat_pub_want((struct takt_ecat_master *)drv);   /* its counter is atomic */
    uint32_t t = atomic_load_explicit(&m->snap.topo[pos], memory_order_relaxed);
    out->parent = (int)(t & 0xFFFF) - 1;
    out->parent_port = (t >> 16) & 0xF;
    out->ports_open = (t >> 20) & 0xF;
    out->frame = t >> 24;
    out->dc_diff_ns = atomic_load_explicit(&m->snap.dc_diff[pos], memory_order_relaxed);
    return rc;
}

void takt_ecat_master_get_stats(const struct takt_ecat_master *drv, struct takt_ecat_master_stats *s)
{
    const struct ecat_core *m = &drv->core;
    struct ecat_core *mm = (struct ecat_core *)m;   /* atomics are read, not written */
    if (__atomic_load_n(&m->ev_rt, __ATOMIC_ACQUIRE) == 2 && pthread_equal(pthread_self(), m->ev_tid)) {
        /* the RT thread itself (its cyclic callback) is the statistics' only writer: it
         * reads them where they are counted, exact to this point of its cycle, so the
         * cycle need not publish them before its callback as well as at its end */
        stats_fill(mm);
        *s = m->st;
        return;
    }
    uint64_t w[ECAT_SNAP_WORDS];
    for (unsigned spin = 0;; spin++) {
        unsigned q = atomic_load_explicit(&mm->snap.seq, memory_order_acquire);
        if (q & 1) {               /* the cycle is writing: a few dozen stores */
            if (spin % 64 == 63)
                sched_yield();     /* ... unless it was preempted by this thread */
            continue;
        }
        for (size_t i = 0; i < ECAT_SNAP_WORDS; i++)
            w[i] = atomic_load_explicit(&mm->snap.w[i], memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&mm->snap.seq, memory_order_relaxed) == q)
            break;
    }
    memcpy(s, w, sizeof *s);
}

uint8_t takt_ecat_master_state(const struct takt_ecat_master *drv)
{
    struct takt_ecat_master_stats s;
    takt_ecat_master_get_stats(drv, &s);
    return s.state;
}

/* --- text -------------------------------------------------------------------------- */

static void counts(const struct takt_ecat_master_stats *s, char *buf, size_t len)
{
    const struct { const char *name; unsigned n; } t[] = {
        { "INIT", s->slaves_init }, { "PREOP", s->slaves_preop }, { "BOOT", s->slaves_boot },
        { "SAFEOP", s->slaves_safeop }, { "OP", s->slaves_op },
    };
    size_t at = 0;
    buf[0] = 0;
    for (size_t k = 0; k < TAKT_ARRAY_SIZE(t); k++) {
        if (!t[k].n)
            continue;
        if (t[k].n == s->slaves) {          /* every slave answers, all in one state */
            snprintf(buf, len, "%s, slaves %u/%u", t[k].name, t[k].n, s->slaves);
            return;
        }
        if (at < len)
            at += (size_t)snprintf(buf + at, len - at, "%s%s %u/%u", at ? ", " : "", t[k].name,
                                   t[k].n, s->slaves);
    }
    if (s->slaves_not_answering && at < len)
        snprintf(buf + at, len - at, "%s%u not answering", at ? ", " : "", s->slaves_not_answering);
}

const char *takt_ecat_master_state_text(const struct takt_ecat_master_stats *s, char *buf, size_t len)
{
    if (!len)
        return buf;
    char c[160];
    if (!s->slaves)
        snprintf(buf, len, "unknown: no slaves");
    else if (s->silent_cycles >= TAKT_ECAT_SILENCE_CYCLES)
        snprintf(buf, len, "unknown: no frame returned for %u cycles", s->silent_cycles);
    else if (s->slaves_not_answering == s->slaves)
        snprintf(buf, len, "unknown: none of %u slaves answers", s->slaves);
    else if (counts(s, c, sizeof c), s->state_changing)
        snprintf(buf, len, "unknown: AL status changed, reading the slaves (%s before)", c);
    else
        snprintf(buf, len, "%s", c);
    return buf;
}
