/* Instructions per EtherCAT master cycle, counted rather than timed (scripts/perf/
 * cycle-count.sh runs this under callgrind with --toggle-collect=takt_sim_process, so
 * the simulator's own work is left out; docs/performance.md "Instructions per cycle").
 * The master (its cycle thread, as `takt ecat run` runs it, no DC) on an in-process mem
 * link to `takt sim ecat --preset paper-40`'s slaves, which answer inside the master's
 * send call: every cycle takes the same path whatever the host's timing. Collection is
 * off at the start; once the network is in OP, the cyclic callback dumps callgrind's
 * counters once per cycle, each dump holding one cycle of the master's thread.
 *
 * usage: ecat_count [-c CYCLE_US] [-n CYCLES]
 * Prints "cycles measured N" on stdout; the counts are in callgrind's dump files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/callgrind.h>
#include <takt/ecat.h>
#include <takt/link.h>
#include <takt/sim.h>

struct run {
    int go;                   /* set by the main thread once in OP (atomic) */
    int measuring;            /* the cycle thread's own */
    unsigned want, done;
};

static void on_cycle(void *ctx, struct takt_ecat_master *m, takt_ns_t now)
{
    (void)now;
    struct run *r = ctx;
    if (r->measuring) {
        CALLGRIND_TOGGLE_COLLECT;
        CALLGRIND_DUMP_STATS;
        if (++r->done >= r->want) {
            r->measuring = 0;
            takt_ecat_master_stop(m);
            return;
        }
        CALLGRIND_TOGGLE_COLLECT;
        return;
    }
    if (r->done >= r->want || !__atomic_load_n(&r->go, __ATOMIC_ACQUIRE))
        return;
    CALLGRIND_ZERO_STATS;
    r->measuring = 1;
    CALLGRIND_TOGGLE_COLLECT;
}

int main(int argc, char **argv)
{
    unsigned cycle_us = 10000, cycles = 200;
    int o;
    while ((o = getopt(argc, argv, "c:n:")) != -1) {
        switch (o) {
        case 'c': cycle_us = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'n': cycles = (unsigned)strtoul(optarg, NULL, 10); break;
        default:
            fprintf(stderr, "usage: ecat_count [-c CYCLE_US] [-n CYCLES]\n");
            return 2;
        }
    }
    if (cycle_us < 100 || !cycles) {
        fprintf(stderr, "ecat_count: -c wants a cycle of at least 100 us and -n at least 1 cycle, got %u and %u\n",
                cycle_us, cycles);
        return 2;
    }
    char err[256] = "";
    struct takt_sim_opts so;
    takt_sim_opts_default(&so);
    struct takt_sim *sim;
    if (takt_sim_create_preset("paper-40", &so, &sim, err, sizeof err)) {
        fprintf(stderr, "ecat_count: simulator: %s\n", err);
        return 1;
    }
    struct takt_link *a, *b;
    if (takt_link_mem_pair(&a, &b, 256, NULL, NULL)) {
        fprintf(stderr, "ecat_count: no mem link pair\n");
        return 1;
    }
    takt_sim_attach_mem(sim, b);
    struct takt_ecat_master_opts mo;
    takt_ecat_master_opts_default(&mo);
    mo.cycle_ns = (takt_ns_t)cycle_us * 1000;
    struct takt_ecat_master *m;
    if (takt_ecat_master_open(&m, a, &mo, err, sizeof err) ||
        takt_ecat_master_scan(m, 5 * TAKT_NS_PER_S) ||
        takt_ecat_master_set_state(m, TAKT_ECAT_STATE_PREOP, 15 * TAKT_NS_PER_S) ||
        takt_ecat_master_configure(m) || takt_ecat_master_request_state(m, TAKT_ECAT_STATE_OP)) {
        fprintf(stderr, "ecat_count: master: %s\n", err[0] ? err : "bring-up failed");
        return 1;
    }
    struct run r = { .want = cycles };
    takt_ecat_master_set_callback(m, on_cycle, &r);
    struct takt_rt_opts ro;
    takt_rt_opts_default(&ro);
    ro.mlock = ro.dma_latency = false;   /* nothing to hold: no timing is judged */
    if (takt_ecat_master_start(m, &ro, 600 * TAKT_NS_PER_S)) {
        fprintf(stderr, "ecat_count: the cycle did not start\n");
        return 1;
    }
    takt_ns_t end = takt_now() + 300 * TAKT_NS_PER_S;
    while (takt_ecat_master_state(m) != TAKT_ECAT_STATE_OP && takt_now() < end)
        nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
    __atomic_store_n(&r.go, 1, __ATOMIC_RELEASE);
    takt_ecat_master_join(m);
    printf("cycles measured %u\n", r.done);
    takt_ecat_master_close(m);
    takt_link_close(a);
    takt_link_close(b);
    takt_sim_destroy(sim);
    return r.done == cycles ? 0 : 1;
}
