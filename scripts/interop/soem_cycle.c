/* The SOEM contender of the peer benchmark (peer-bench.sh): written by takt, built
 * against a SOEM checkout (nothing of SOEM is in takt; it only calls SOEM's API). It
 * scans the line, maps the process data, goes to OP and exchanges process data every
 * CYCLE_US on an absolute-deadline loop (clock_nanosleep TIMER_ABSTIME), no DC, until
 * SIGINT/SIGTERM. Pinning and priority come from outside (taskset, chrt), the same as
 * for takt's master. Stdout: "OP" once every slave is in OP, then a summary line.
 * Usage: soem_cycle IFNAME CYCLE_US */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cycle_deadline.h"
#include "soem/soem.h"

static ecx_contextt ctx;
static uint8 iomap[8192];
int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s IFNAME CYCLE_US\n", argv[0]);
        return 2;
    }
    long cycle_us = atol(argv[2]);
    if (cycle_us < 50 || cycle_us > 1000000) {
        fprintf(stderr, "soem_cycle: CYCLE_US must be 50..1000000, got '%s'\n", argv[2]);
        return 2;
    }
    catch_stop();
    if (!ecx_init(&ctx, argv[1]) || ecx_config_init(&ctx) <= 0) {
        printf("FAIL: no slaves on %s\n", argv[1]);
        return 1;
    }
    ecx_config_map_group(&ctx, iomap, 0);
    int expected = ctx.grouplist[0].outputsWKC * 2 + ctx.grouplist[0].inputsWKC;
    ecx_statecheck(&ctx, 0, EC_STATE_SAFE_OP, EC_TIMEOUTSTATE * 4);
    ctx.slavelist[0].state = EC_STATE_OPERATIONAL;
    ecx_send_processdata(&ctx);
    ecx_receive_processdata(&ctx, EC_TIMEOUTRET);
    ecx_writestate(&ctx, 0);

    /* the receive waits at most one cycle (and SOEM's usual 2 ms at most): a reply not
     * back by the next deadline counts as lost, as in takt's master */
    int rx_timeout = cycle_us < EC_TIMEOUTRET ? (int)cycle_us : EC_TIMEOUTRET;
    unsigned long cycles = 0, wkc_bad = 0, lost = 0, late = 0;
    int op = 0;
    struct timespec next, now;
    clock_gettime(CLOCK_MONOTONIC, &next);
    while (!stop) {
        add_ns(&next, cycle_us * 1000L);
        ecx_send_processdata(&ctx);
        int wkc = ecx_receive_processdata(&ctx, rx_timeout);
        cycles++;
        lost += wkc == EC_NOFRAME;
        wkc_bad += wkc != expected;
        if (!op && cycles % 100 == 0) {
            /* AL state of every slave, polled until OP; then never again (one more
             * datagram per cycle would be the contender's cost, not the loop's) */
            ecx_readstate(&ctx);
            int all = ctx.slavelist[0].state == EC_STATE_OPERATIONAL;
            if (all && wkc == expected) {
                op = 1;
                printf("OP %d slaves, expected wkc %d, after %lu cycles\n", ctx.slavecount, expected, cycles);
                fflush(stdout);
            } else if (cycles % 1000 == 0) {
                ecx_writestate(&ctx, 0);
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (before(&next, &now)) {
            /* overrun: the deadlines missed are skipped, not caught up in a burst */
            late++;
            while (before(&next, &now))
                add_ns(&next, cycle_us * 1000L);
        }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR && !stop)
            ;
    }
    printf("SUMMARY cycles %lu wkc_errors %lu lost %lu overruns %lu op %d\n", cycles, wkc_bad, lost, late, op);
    ctx.slavelist[0].state = EC_STATE_INIT;
    ecx_writestate(&ctx, 0);
    ecx_close(&ctx);
    return op ? 0 : 1;
}
