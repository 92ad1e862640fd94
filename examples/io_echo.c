/* io_echo: the smallest takt EtherCAT application. Scans the network on IF, brings it
 * to OP and copies every digital input to a digital output each cycle (input k to
 * output k modulo the number of outputs), in a real-time thread, for S seconds.
 *
 *   example_io_echo IF [SECONDS]      e.g. example_io_echo eth1 10
 *
 * Built from an installed takt (README, Building and installing):
 *   cc io_echo.c -o io_echo $(pkg-config --cflags --libs takt)
 */
#include <stdio.h>
#include <stdlib.h>
#include <takt/ecat.h>

#define MAX_IO 256

struct app {
    struct takt_ecat_pd_entry in[MAX_IO], out[MAX_IO];
    unsigned n_in, n_out;
    unsigned long changes;
    bool last[MAX_IO];
};

/* Runs in the cycle thread after the inputs arrived: no allocation, no blocking. */
static void cyclic(void *ctx, struct takt_ecat_master *m, takt_ns_t now)
{
    struct app *a = ctx;
    (void)now;
    for (unsigned k = 0; k < a->n_in && a->n_out; k++) {
        bool v = takt_ecat_pd_get_bit(m, &a->in[k]);
        if (v != a->last[k]) {
            a->last[k] = v;
            a->changes++;
        }
        takt_ecat_pd_set_bit(m, &a->out[k % a->n_out], v);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s IF [SECONDS]\n", argv[0]);
        return 2;
    }
    double secs = argc > 2 ? atof(argv[2]) : 10;
    char err[256];
    static const uint16_t types[] = { TAKT_ETHERTYPE_ECAT };
    struct takt_link_opts lo;
    takt_link_opts_default(&lo);
    lo.ethertypes = types;
    lo.n_ethertypes = 1;
    struct takt_link *link;
    if (takt_link_open(argv[1], &lo, &link, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.dc = true;              /* harmless without DC slaves; drives need SYNC0 for SAFEOP */
    struct takt_ecat_master *m;
    if (takt_ecat_master_open(&m, link, &o, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    if (takt_ecat_master_scan(m, 5 * TAKT_NS_PER_S) || takt_ecat_master_configure(m)) {
        fprintf(stderr, "scan: %s\n", takt_ecat_master_error(m));
        return 1;
    }
    static struct app a;
    /* every 1-bit entry is a digital channel */
    for (unsigned i = 0, n = takt_ecat_pd_count(m); i < n; i++) {
        struct takt_ecat_pd_entry e;
        takt_ecat_pd_get(m, i, &e);
        if (e.bits != 1 || e.index == 0)
            continue;
        if (e.output && a.n_out < MAX_IO)
            a.out[a.n_out++] = e;
        else if (!e.output && a.n_in < MAX_IO)
            a.in[a.n_in++] = e;
    }
    printf("%u slaves, %u digital inputs, %u digital outputs\n", takt_ecat_master_slave_count(m),
           a.n_in, a.n_out);
    takt_ecat_master_set_callback(m, cyclic, &a);
    takt_ecat_master_request_state(m, TAKT_ECAT_STATE_OP);
    struct takt_rt_opts ro;
    takt_rt_opts_default(&ro);
    if (takt_ecat_master_start(m, &ro, (takt_ns_t)(secs * 1e9))) {
        fprintf(stderr, "cannot start the cycle thread\n");
        return 1;
    }
    takt_ecat_master_join(m);
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(m, &st);
    char ev[256];
    while (takt_ecat_master_next_event(m, ev, sizeof ev))
        fprintf(stderr, "event: %s\n", ev);
    printf("state %s, %llu cycles, %lu input changes echoed, %llu frames lost, %llu WKC errors\n",
           st.state == TAKT_ECAT_STATE_OP ? "OP" : "not OP", (unsigned long long)st.cycles, a.changes,
           (unsigned long long)st.frames_lost, (unsigned long long)st.wkc_errors);
    int ok = st.state == TAKT_ECAT_STATE_OP;
    takt_ecat_master_close(m);
    takt_link_close(link);
    return ok ? 0 : 1;
}
