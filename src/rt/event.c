/* The event ring and the reader-side formatter (see rt/event.h). */
#include "rt/event.h"
#include <errno.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* A slot: the event and the drop count at the time it was put, so the reader knows
 * how many were lost just before it. */
struct ev_slot {
    uint64_t dropped_before;
    struct takt_event ev;
};

int rt_evring_init(struct rt_evring *e, uint16_t proto, uint32_t capacity)
{
    memset(e, 0, sizeof *e);
    e->proto = proto;
    return rt_logring_init_size(&e->r, capacity, sizeof(struct ev_slot));
}

void rt_evring_free(struct rt_evring *e)
{
    rt_logring_free(&e->r);
}

void rt_ev_fill(struct takt_event *ev, uint16_t proto, takt_ns_t at, unsigned code, int32_t unit,
                int32_t err, const int64_t *v, unsigned nv, const char *const *txt)
{
    ev->at = at;
    ev->proto = proto;
    ev->code = (uint16_t)code;
    ev->unit = unit;
    ev->err = err;
    if (nv > TAKT_EVENT_NV)
        nv = TAKT_EVENT_NV;
    ev->nv = (uint8_t)nv;
    for (unsigned i = 0; i < TAKT_EVENT_NV; i++)
        ev->v[i] = i < nv ? v[i] : 0;
    /* bounded copies, no formatting: each text and its NUL while room is left */
    size_t o = 0;
    unsigned n = 0;
    for (; txt && txt[n] && o < TAKT_EVENT_ARG; n++) {
        size_t k = strnlen(txt[n], TAKT_EVENT_ARG - 1 - o);
        memcpy(ev->arg + o, txt[n], k);
        ev->arg[o + k] = '\0';
        o += k + 1;
    }
    ev->ntext = (uint8_t)n;
    if (o < TAKT_EVENT_ARG)
        ev->arg[o] = '\0';
}

bool rt_ev_put(struct rt_evring *e, takt_ns_t at, unsigned code, int32_t unit, int32_t err,
               const int64_t *v, unsigned nv, const char *const *txt)
{
    struct ev_slot *s = rt_logring_reserve(&e->r);
    if (!s)
        return false;
    s->dropped_before = __atomic_load_n(&e->r.dropped, __ATOMIC_RELAXED);
    rt_ev_fill(&s->ev, e->proto, at, code, unit, err, v, nv, txt);
    rt_logring_commit(&e->r);
    return true;
}

bool rt_evring_push(struct rt_evring *e, const struct takt_event *ev)
{
    struct ev_slot *s = rt_logring_reserve(&e->r);
    if (!s)
        return false;
    s->dropped_before = __atomic_load_n(&e->r.dropped, __ATOMIC_RELAXED);
    s->ev = *ev;
    rt_logring_commit(&e->r);
    return true;
}

static void dropped_record(struct rt_evring *e, struct takt_event *out, uint64_t upto)
{
    memset(out, 0, sizeof *out);
    out->at = e->last_at;
    out->proto = TAKT_EV_RING;
    out->code = TAKT_EV_DROPPED;
    out->unit = -1;
    out->nv = 2;
    out->v[0] = (int64_t)(upto - e->reported);
    out->v[1] = e->r.mask + 1;
    e->reported = upto;
}

bool rt_evring_next(struct rt_evring *e, struct takt_event *out)
{
    struct rt_logring *r = &e->r;
    uint32_t t = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
    uint32_t h = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
    if (h == t || !r->rec) {
        uint64_t d = rt_logring_dropped(r);
        if (d == e->reported)
            return false;
        dropped_record(e, out, d);
        return true;
    }
    const struct ev_slot *s = (const struct ev_slot *)(r->rec + (size_t)(t & r->mask) * r->size);
    /* (a count read from an empty ring may already include drops after this record:
     * those are reported, not again) */
    if (s->dropped_before > e->reported) {
        dropped_record(e, out, s->dropped_before);
        return true;
    }
    *out = s->ev;
    __atomic_store_n(&r->tail, t + 1, __ATOMIC_RELEASE);
    e->last_at = out->at;
    return true;
}

uint64_t rt_evring_dropped(const struct rt_evring *e)
{
    return rt_logring_dropped(&e->r);
}

/* --- waking the reader --------------------------------------------------------------
 * A Dekker pair: the consumer stores sleeping = 1 and then reads gen and the ring; the
 * producer bumps gen (a locked add: a full barrier) and then reads sleeping. With both
 * orders kept at least one side sees the other's store: either the consumer finds the
 * new generation and does not sleep, or the producer finds it sleeping and wakes it.
 * FUTEX_WAIT on gen itself closes the last gap: it sleeps only while gen still holds
 * the value the consumer read. */

static void bump(struct rt_evring *e)
{
    __atomic_add_fetch(&e->gen, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&e->sleeping, __ATOMIC_SEQ_CST))
        syscall(SYS_futex, &e->gen, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void rt_evring_notify_slow(struct rt_evring *e, uint32_t key)
{
    e->note_head = __atomic_load_n(&e->r.head, __ATOMIC_RELAXED);
    e->note_key = key;
    bump(e);
}

void rt_evring_wake(struct rt_evring *e)
{
    bump(e);
}

void rt_evring_wake_fn(void *ring)
{
    bump(ring);
}

static bool unread(const struct rt_evring *e)
{
    return __atomic_load_n(&e->r.head, __ATOMIC_SEQ_CST) != __atomic_load_n(&e->r.tail, __ATOMIC_RELAXED) ||
           rt_logring_dropped(&e->r) != e->reported;
}

int rt_evring_wait(struct rt_evring *e, takt_ns_t timeout_ns)
{
    __atomic_store_n(&e->sleeping, 1, __ATOMIC_SEQ_CST);
    uint32_t g = __atomic_load_n(&e->gen, __ATOMIC_SEQ_CST);
    int rc = 1;
    if (g == e->seen && !unread(e)) {
        rc = 0;
        if (timeout_ns > 0) {
            struct timespec ts = { timeout_ns / TAKT_NS_PER_S, timeout_ns % TAKT_NS_PER_S };
            if (syscall(SYS_futex, &e->gen, FUTEX_WAIT_PRIVATE, g, &ts, NULL, 0) && errno == EINTR)
                rc = -EINTR;
        }
        g = __atomic_load_n(&e->gen, __ATOMIC_ACQUIRE);
        if (rc == 0 && (g != e->seen || unread(e)))
            rc = 1;
    }
    __atomic_store_n(&e->sleeping, 0, __ATOMIC_RELAXED);
    e->seen = g;
    return rc;
}

const char *takt_event_text(const struct takt_event *ev, unsigned i)
{
    size_t o = 0;
    if (i >= ev->ntext)
        return "";
    for (unsigned k = 0; k < i && o < TAKT_EVENT_ARG; k++)
        o += strnlen(ev->arg + o, TAKT_EVENT_ARG - o) + 1;
    return o < TAKT_EVENT_ARG ? ev->arg + o : "";
}

/* Append to buf[*o..len) like snprintf, keeping the total that would have been written. */
static void put(char *buf, size_t len, size_t *o, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t len, size_t *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(*o < len ? buf + *o : NULL, *o < len ? len - *o : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        *o += (size_t)n;
}

/* A text argument on one line: a control byte from the wire (a slave name from the SII
 * with a newline, say) is written as a C escape so it cannot break or forge a line. */
static void put_text(char *buf, size_t len, size_t *o, const char *s, size_t max)
{
    for (size_t i = 0; i < max && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != 0x7f)
            put(buf, len, o, "%c", c);
        else
            put(buf, len, o, "\\x%02X", c);
    }
}

/* %{a|b|c}: the alternative number v (the last one for larger values); *f is past '{' */
static const char *put_alt(char *buf, size_t len, size_t *o, const char *f, int64_t v)
{
    int64_t k = 0;
    const char *a = f;
    while (*f && *f != '}') {
        if (*f == '|') {
            if (k == v)
                break;
            k++;
            a = f + 1;
        }
        f++;
    }
    const char *e = f;
    while (*e && *e != '}')
        e++;
    const char *end = *f == '|' && k == v ? f : e;
    put(buf, len, o, "%.*s", (int)(end - a), a);
    return *e ? e + 1 : e;
}

int rt_ev_vformat(const struct takt_event *ev, const char *fmt, rt_ev_conv_fn conv,
                  char *buf, size_t len)
{
    size_t o = 0;
    unsigned vi = 0, ti = 0;
    unsigned nv = ev->nv > TAKT_EVENT_NV ? TAKT_EVENT_NV : ev->nv;
    if (len)
        buf[0] = '\0';
    for (const char *f = fmt; *f;) {
        if (*f != '%') {
            const char *p = strchr(f, '%');
            size_t k = p ? (size_t)(p - f) : strlen(f);
            put(buf, len, &o, "%.*s", (int)k, f);
            f += k;
            continue;
        }
        f++;
        char spec[24] = "%";
        size_t sl = 1;
        while (*f && strchr("-+ #0123456789.", *f) && sl < 16)
            spec[sl++] = *f++;
        while (*f && strchr("hlzjt", *f))
            f++;                            /* values are int64: the length is ours */
        char c = *f ? *f++ : '\0';
        bool have = vi < nv;
        int64_t v = have ? ev->v[vi] : 0;
        switch (c) {
        case '%':
            put(buf, len, &o, "%%");
            break;
        case 'd': case 'i': case 'u': case 'x': case 'X': case 'c':
            vi++;
            if (!have) {
                put(buf, len, &o, "?");
                break;
            }
            if (c == 'c') {
                memcpy(spec + sl, "c", 2);
                put(buf, len, &o, spec, (int)v);
            } else if (c == 'd' || c == 'i') {
                memcpy(spec + sl, "lld", 4);
                put(buf, len, &o, spec, (long long)v);
            } else {
                /* a negative int printed unsigned reads as its 32-bit pattern, as printf
                 * gave it for the int the producer had */
                uint64_t u = v < 0 && v >= INT32_MIN ? (uint64_t)v & 0xFFFFFFFFu : (uint64_t)v;
                spec[sl] = 'l';
                spec[sl + 1] = 'l';
                spec[sl + 2] = c;
                spec[sl + 3] = '\0';
                put(buf, len, &o, spec, (unsigned long long)u);
            }
            break;
        case 's':
            if (ti < ev->ntext)
                put_text(buf, len, &o, takt_event_text(ev, ti), TAKT_EVENT_ARG);
            else
                put(buf, len, &o, "?");
            ti++;
            break;
        case 'U':
            put(buf, len, &o, "%" PRId32, ev->unit);
            break;
        case '{':
            vi++;
            f = put_alt(buf, len, &o, f, v);
            break;
        case 'D': {
            /* %.nD: n bytes of the value, the low one first, "%02X" each, spaced */
            vi++;
            unsigned nb = (unsigned)atoi(strchr(spec, '.') ? strchr(spec, '.') + 1 : "8");
            if (!have)
                put(buf, len, &o, "?");
            for (unsigned i = 0; have && i < nb && i < 8; i++)
                put(buf, len, &o, "%s%02X", i ? " " : "", (unsigned)((uint64_t)v >> (8 * i) & 0xFF));
            break;
        }
        case 'E':
            vi++;
            put(buf, len, &o, "%s", have ? takt_strerror((int)v) : "?");
            break;
        default: {
            vi++;
            const char *s = have && conv ? conv(c, v) : NULL;
            put(buf, len, &o, "%s", s ? s : "?");
            break;
        }
        }
    }
    return o > INT32_MAX ? INT32_MAX : (int)o;
}

int rt_ev_ring_format(const struct takt_event *ev, char *buf, size_t len)
{
    if (ev->proto != TAKT_EV_RING || ev->code != TAKT_EV_DROPPED)
        return -1;
    return rt_ev_vformat(ev, "%llu events dropped: the reader fell behind and the ring "
                         "(%u events) was full", NULL, buf, len);
}
