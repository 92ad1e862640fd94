/* drive_csp: a CiA 402 drive in cyclic synchronous position mode. Finds the first slave
 * with a controlword (0x6040) and statusword (0x6041), brings the network to OP with
 * distributed clocks, walks the drive's state machine to Operation Enabled (fault reset,
 * shutdown, switch on, enable operation) and then moves it along a smooth position
 * profile (a cosine ramp back and forth), printing the actual position.
 *
 *   example_drive_csp IF [SECONDS]
 *
 * Built from an installed takt (README, Building and installing); -lm for cos() here:
 *   cc drive_csp.c -o drive_csp $(pkg-config --cflags --libs takt) -lm
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <takt/ecat.h>

enum { CW_SHUTDOWN = 0x0006, CW_SWITCH_ON = 0x0007, CW_ENABLE_OP = 0x000F, CW_FAULT_RESET = 0x0080 };

struct drive {
    struct takt_ecat_pd_entry cw, sw, target, actual, mode;
    bool has_mode, enabled;
    takt_ns_t t_enabled;
    int32_t start;
    int64_t actual_pos;
    const char *state;
};

/* CiA 402 statusword -> state (DS402 Table 30, bits 0-3, 5, 6). */
static const char *ds402_state(uint16_t sw)
{
    if ((sw & 0x4F) == 0x00) return "Not ready to switch on";
    if ((sw & 0x4F) == 0x40) return "Switch on disabled";
    if ((sw & 0x6F) == 0x21) return "Ready to switch on";
    if ((sw & 0x6F) == 0x23) return "Switched on";
    if ((sw & 0x6F) == 0x27) return "Operation enabled";
    if ((sw & 0x6F) == 0x07) return "Quick stop active";
    if ((sw & 0x4F) == 0x0F) return "Fault reaction active";
    if ((sw & 0x4F) == 0x08) return "Fault";
    return "?";
}

static void cyclic(void *ctx, struct takt_ecat_master *m, takt_ns_t now)
{
    struct drive *d = ctx;
    uint16_t sw = (uint16_t)takt_ecat_pd_read(m, &d->sw);
    d->state = ds402_state(sw);
    d->actual_pos = (int32_t)takt_ecat_pd_read(m, &d->actual);
    if (d->has_mode)
        takt_ecat_pd_write(m, &d->mode, 8);                /* 8 = cyclic synchronous position */
    uint16_t cw;
    if ((sw & 0x4F) == 0x08)
        cw = CW_FAULT_RESET;
    else if ((sw & 0x4F) == 0x40)
        cw = CW_SHUTDOWN;
    else if ((sw & 0x6F) == 0x21)
        cw = CW_SWITCH_ON;
    else
        cw = CW_ENABLE_OP;
    if ((sw & 0x6F) == 0x27) {
        if (!d->enabled) {
            d->enabled = true;
            d->t_enabled = now;
            d->start = (int32_t)d->actual_pos;
        }
        /* a cosine move of 100000 counts out and back every 4 s */
        double t = (double)(now - d->t_enabled) / 1e9;
        int32_t target = d->start + (int32_t)(50000.0 * (1.0 - cos(2.0 * M_PI * t / 4.0)));
        takt_ecat_pd_write(m, &d->target, (uint32_t)target);
    } else {
        d->enabled = false;
        takt_ecat_pd_write(m, &d->target, (uint32_t)(int32_t)d->actual_pos);  /* hold still */
    }
    takt_ecat_pd_write(m, &d->cw, cw);
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
    o.dc = true;                                      /* CSP drives run on SYNC0 */
    struct takt_ecat_master *m;
    if (takt_ecat_master_open(&m, link, &o, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    if (takt_ecat_master_scan(m, 5 * TAKT_NS_PER_S) || takt_ecat_master_configure(m)) {
        fprintf(stderr, "scan: %s\n", takt_ecat_master_error(m));
        return 1;
    }
    static struct drive d = { .state = "?" };
    unsigned pos, n = takt_ecat_master_slave_count(m);
    for (pos = 0; pos < n; pos++)
        if (!takt_ecat_pd_find(m, pos, NULL, 0x6040, 0, &d.cw) && !takt_ecat_pd_find(m, pos, NULL, 0x6041, 0, &d.sw) &&
            !takt_ecat_pd_find(m, pos, NULL, 0x607A, 0, &d.target) &&
            !takt_ecat_pd_find(m, pos, NULL, 0x6064, 0, &d.actual))
            break;
    if (pos == n) {
        fprintf(stderr, "no slave with 0x6040/0x6041/0x607A/0x6064 in its process data\n");
        return 1;
    }
    d.has_mode = takt_ecat_pd_find(m, pos, NULL, 0x6060, 0, &d.mode) == 0;
    printf("drive at position %u\n", pos);
    takt_ecat_master_set_callback(m, cyclic, &d);
    takt_ecat_master_request_state(m, TAKT_ECAT_STATE_OP);
    struct takt_rt_opts ro;
    takt_rt_opts_default(&ro);
    if (takt_ecat_master_start(m, &ro, (takt_ns_t)(secs * 1e9))) {
        fprintf(stderr, "cannot start the cycle thread\n");
        return 1;
    }
    struct takt_rt_loop *l = takt_ecat_master_loop(m);
    bool was_enabled = false;
    while (!takt_rt_loop_ended(l)) {
        struct timespec ts = { 0, 500 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        printf("%-24s position %lld\n", d.state, (long long)d.actual_pos);
        was_enabled |= d.enabled;
        char ev[256];
        while (takt_ecat_master_next_event(m, ev, sizeof ev))
            fprintf(stderr, "event: %s\n", ev);
    }
    takt_ecat_master_join(m);
    takt_ecat_master_close(m);
    takt_link_close(link);
    printf(was_enabled ? "the drive reached Operation Enabled and followed the profile\n"
                       : "the drive never reached Operation Enabled\n");
    return was_enabled ? 0 : 1;
}
