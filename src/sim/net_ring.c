/* A redundant ring: the last slave's port 1 is wired back to the master's second port.
 *
 * Where a frame goes follows the ESC frame processing order (Beckhoff ESC datasheet
 * Section I, 3.2 "Frame Processing Order", Table 9): 0 -> processing unit -> 3 -> 1 -> 2
 * -> 0. Only the direction out of port 0 passes the processing unit; a frame that
 * enters at port 1 is forwarded to port 2, then to port 0, unprocessed. So:
 *  - a frame into the first slave's port 0 (the master's first port) is processed by
 *    every slave up to the first break; in an unbroken ring it leaves the last slave's
 *    port 1 into the master's second port, otherwise the closed port 1 before the break
 *    loops it back to the first port;
 *  - a frame into the last slave's port 1 (the second port) runs backwards unprocessed;
 *    unbroken, it leaves the first slave's port 0 into the first port untouched (not
 *    even the source-MAC bit, which only the processing unit sets: Section I, 3); with
 *    a break, the first slave behind it has port 0 closed, loops the frame into its
 *    processing unit, and from there the frame is processed forwards by every slave up
 *    to the last and leaves into the second port.
 * Rings are lines (each slave on port 1 of the one before). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim/net.h"

int takt_sim_set_ring(struct takt_sim *s, char *err, size_t errlen)
{
    for (unsigned k = 1; k < s->n; k++)
        if (s->sl[k].parent != (int)k - 1 || s->sl[k].pport != 1) {
            snprintf(err, errlen, "a redundant ring needs a line (slave %u hangs on port %u of %d)",
                     k, s->sl[k].pport, s->sl[k].parent);
            return -EINVAL;
        }
    if (!s->act2 && !(s->act2 = calloc(s->n, sizeof *s->act2))) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    s->ring = true;
    sim_net_topology(s, 0);
    return 0;
}

bool takt_sim_ring_intact(const struct takt_sim *s)
{
    return s->ring && !s->ring_cut_end && s->reach == s->n;
}

void sim_net_ring_topology(struct takt_sim *s)
{
    int last = -1;                          /* the last broken cable (into slave last) */
    for (unsigned k = 0; k < s->n; k++)
        if (s->sl[k].cut)
            last = (int)k;
    s->reach2 = 0;
    if (last < 0) {                         /* unbroken: port 1 of the last slave is open */
        if (!s->ring_cut_end)
            s->sl[s->n - 1].esc.times.open |= 0x02;
        esc_update_dl_status(&s->sl[s->n - 1].esc);
        return;
    }
    /* backwards through slaves last..n-1 (forwarding direction), then forwards */
    takt_ns_t cur = 0;
    for (unsigned k = (unsigned)last; k < s->n; k++)
        cur += s->sl[k].fwd;
    for (unsigned k = (unsigned)last; k < s->n; k++) {
        struct sim_slave *sl = &s->sl[k];
        sl->t_port[0] = sl->t_in = cur;
        sl->t_port[1] = cur + sl->fwd;
        cur += sl->fwd;
        /* port 0 open towards the previous slave of this side; port 1 towards the next,
         * the last slave's towards the master unless that cable is broken */
        sl->esc.times.open = (uint8_t)((k > (unsigned)last ? 0x01 : 0) |
                                       (k + 1 < s->n || !s->ring_cut_end ? 0x02 : 0));
        esc_update_dl_status(&sl->esc);
        if (!s->ring_cut_end)
            s->act2[s->reach2++] = k;
    }
}

size_t takt_sim_process_port(struct takt_sim *s, unsigned port, uint8_t *buf, size_t len,
                             size_t cap, takt_ns_t now, takt_ns_t *delay_ns, unsigned *out_port)
{
    *out_port = port;
    if (!s->ring || port == 0) {
        size_t r = takt_sim_process(s, buf, len, cap, now, delay_ns);
        if (r && takt_sim_ring_intact(s))
            *out_port = 1;
        return r;
    }
    if (delay_ns)
        *delay_ns = 0;
    if (!s->have_t0) {                      /* fault times count from the first frame, */
        s->have_t0 = true;                  /* whichever port it came in by */
        s->t0 = now;
    }
    sim_net_events(s, now);                 /* a break or heal due now changes the path */
    if (s->ring_cut_end) {
        s->st.frames++;
        s->st.lost++;                       /* no link on the second port */
        return 0;
    }
    if (takt_sim_ring_intact(s)) {          /* forwarded backwards, untouched */
        s->st.frames++;
        s->st.replies++;
        *out_port = 0;
        return len;
    }
    /* processed by the far side: run the ordinary path over that side's slaves */
    unsigned *act = s->act, reach = s->reach;
    s->act = s->act2;
    s->reach = s->reach2;
    size_t r = takt_sim_process(s, buf, len, cap, now, delay_ns);
    s->act2 = s->act;
    s->act = act;
    s->reach = reach;
    return r;
}

static void ring_frame(struct takt_sim *s, unsigned port, const struct takt_frame *f)
{
    uint8_t buf[TAKT_FRAME_BUF];
    size_t len = f->len < sizeof buf ? f->len : sizeof buf;
    unsigned out;
    memcpy(buf, f->data, len);
    size_t r = takt_sim_process_port(s, port, buf, len, sizeof buf, f->ts, NULL, &out);
    if (!r)
        return;
    struct takt_frame o = { .data = buf, .len = (uint16_t)r, .cap = sizeof buf, .ts = f->ts };
    takt_link_send(s->ring_ep[out], &o, 1);
}

static void on_port0(void *ctx, struct takt_link *ep, const struct takt_frame *f)
{
    (void)ep;
    ring_frame(ctx, 0, f);
}

static void on_port1(void *ctx, struct takt_link *ep, const struct takt_frame *f)
{
    (void)ep;
    ring_frame(ctx, 1, f);
}

void takt_sim_attach_mem_ring(struct takt_sim *s, struct takt_link *ep0, struct takt_link *ep1)
{
    s->ring_ep[0] = ep0;
    s->ring_ep[1] = ep1;
    takt_link_mem_set_responder(ep0, on_port0, s);
    takt_link_mem_set_responder(ep1, on_port1, s);
}

#define BATCH 16
/* The link API has no descriptor to poll two links at once: wait on each in turn in
 * short slices (the added latency is at most one slice). */
#define SLICE_NS (100 * 1000)

int takt_sim_serve_ring(struct takt_sim *s, struct takt_link *l0, struct takt_link *l1,
                        takt_ns_t until, volatile int *stop)
{
    uint8_t (*bufs)[TAKT_FRAME_BUF] = malloc(sizeof(*bufs) * BATCH);   /* setup time */
    struct takt_link *l[2] = { l0, l1 };
    struct takt_frame f[BATCH], out[2][BATCH];
    int rc = 0;
    unsigned idle = 0;
    if (!bufs)
        return -ENOMEM;
    while (!(stop && *stop) && !rc) {
        takt_ns_t now = takt_now();
        if (until && now >= until)
            break;
        bool any = false;
        for (unsigned p = 0; p < 2 && !rc; p++) {
            for (unsigned i = 0; i < BATCH; i++)
                f[i] = (struct takt_frame){ .data = bufs[i], .cap = TAKT_FRAME_BUF };
            int n = takt_link_recv(l[p], f, BATCH, idle > 1 ? SLICE_NS : 0);
            if (n < 0) {
                if (n != -EINTR && n != -EAGAIN)
                    rc = n;
                continue;
            }
            any |= n > 0;
            unsigned no[2] = { 0, 0 };
            for (int i = 0; i < n; i++) {
                takt_ns_t t = f[i].ts ? f[i].ts : takt_now(), delay = 0;
                unsigned op;
                size_t r = takt_sim_process_port(s, p, f[i].data, f[i].len, TAKT_FRAME_BUF, t,
                                                 &delay, &op);
                if (!r)
                    continue;
                f[i].len = (uint16_t)r;
                out[op][no[op]++] = f[i];
            }
            for (unsigned q = 0; q < 2; q++) {
                int sr = no[q] ? takt_link_send(l[q], out[q], no[q]) : 0;
                if (sr < 0 && sr != -EAGAIN && sr != -ENOBUFS)
                    rc = sr;
            }
        }
        idle = any ? 0 : idle + 1;
        if (!any && idle % 64 == 0)
            takt_sim_tick(s, takt_now());
    }
    free(bufs);
    return rc;
}
