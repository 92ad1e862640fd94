/* Running the simulated line: as a synchronous responder on a mem link, or serving
 * a real link (receive, process, send back), with the reply delay fault. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sim/net.h"

static void on_frame(void *ctx, struct takt_link *ep, const struct takt_frame *f)
{
    struct takt_sim *s = ctx;
    uint8_t buf[TAKT_FRAME_BUF];
    size_t len = f->len < sizeof buf ? f->len : sizeof buf;
    memcpy(buf, f->data, len);
    /* A responder answers at once: the injected delay does not apply in-process. */
    size_t r = takt_sim_process(s, buf, len, sizeof buf, f->ts, NULL);
    if (!r)
        return;
    struct takt_frame out = { .data = buf, .len = (uint16_t)r, .cap = sizeof buf, .ts = f->ts };
    takt_link_send(ep, &out, 1);
}

void takt_sim_attach_mem(struct takt_sim *s, struct takt_link *ep)
{
    takt_link_mem_set_responder(ep, on_frame, s);
}

static void wait_until(takt_ns_t t)
{
    struct timespec ts = { .tv_sec = t / TAKT_NS_PER_S, .tv_nsec = t % TAKT_NS_PER_S };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

#define BATCH 16

int takt_sim_serve(struct takt_sim *s, struct takt_link *l, takt_ns_t until, volatile int *stop)
{
    uint8_t (*bufs)[TAKT_FRAME_BUF] = malloc(sizeof(*bufs) * BATCH);   /* setup time */
    struct takt_frame f[BATCH];
    int rc = 0;
    if (!bufs)
        return -ENOMEM;
    while (!(stop && *stop)) {
        takt_ns_t now = takt_now();
        if (until && now >= until)
            break;
        for (unsigned i = 0; i < BATCH; i++)
            f[i] = (struct takt_frame){ .data = bufs[i], .cap = TAKT_FRAME_BUF };
        int n = takt_link_recv(l, f, BATCH, 10 * TAKT_NS_PER_MS);
        if (n < 0) {
            if (n == -EINTR || n == -EAGAIN)
                continue;
            rc = n;
            break;
        }
        if (n == 0) {
            takt_sim_tick(s, takt_now());
            continue;
        }
        unsigned out = 0;
        for (int i = 0; i < n; i++) {
            takt_ns_t t = f[i].ts ? f[i].ts : takt_now(), delay = 0;
            size_t r = takt_sim_process(s, f[i].data, f[i].len, TAKT_FRAME_BUF, t, &delay);
            if (!r)
                continue;
            if (delay)
                wait_until(t + delay);
            f[out] = f[i];
            f[out].len = (uint16_t)r;
            out++;
        }
        if (out) {
            int sr = takt_link_send(l, f, out);
            if (sr < 0 && sr != -EAGAIN && sr != -ENOBUFS) {
                rc = sr;
                break;
            }
        }
    }
    free(bufs);
    return rc;
}
