/* The measurement set's layout (public as an opaque struct takt_perf_set): for the
 * library's own embedding (struct takt_rt_loop) and tests. */
#ifndef TAKT_PERF_SET_H
#define TAKT_PERF_SET_H

#include <takt/perf.h>

struct takt_perf_set {
    struct takt_perf_msmt *m[TAKT_PERF_MAX_MSMT];
    unsigned n;
    int active;                 /* bank the RT thread writes */
    int flip_req, flip_ack;     /* atomics: reporter requests, RT acknowledges */
    bool threaded;              /* false: takt_perf_set_snapshot flips directly */
    bool pending;               /* reporter: a flip request not yet acknowledged */
    void (*on_flip)(void *arg); /* takt_perf_set_on_flip */
    void *on_flip_arg;
};

/* A set embedded in another object (takt_perf_set_create allocates one). */
void takt_perf_set_init(struct takt_perf_set *s, bool threaded);

#endif
