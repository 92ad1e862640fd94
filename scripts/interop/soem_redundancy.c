/* An independent redundant master drives takt's simulated ring: written by takt for its
 * interoperability check, built against a SOEM checkout the user provides (nothing of
 * SOEM is in takt). SOEM opens both ports (ecx_init_redundant), configures the ring,
 * brings it to OP and exchanges process data for CYCLES cycles of 1 ms while the
 * simulator breaks and heals the ring; the cycles in OP must see the expected working
 * counter, but for at most 1 % (SOEM's second trip round a broken ring timed out on a
 * loaded host: the first side's count). One verdict line.
 * Usage: soem_redundancy IF1 IF2 [CYCLES] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "soem/soem.h"

static ecx_contextt ctx;
static ecx_redportt redport;
static uint8 iomap[4096];

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void sleep_us(long us)
{
    struct timespec t = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&t, NULL);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s IF1 IF2 [CYCLES]\n", argv[0]);
        return 2;
    }
    int cycles = argc > 3 ? atoi(argv[3]) : 6000;
    if (!ecx_init_redundant(&ctx, &redport, argv[1], argv[2])) {
        printf("FAILED: ecx_init_redundant(%s, %s)\n", argv[1], argv[2]);
        return 1;
    }
    int n = ecx_config_init(&ctx);
    if (n <= 0) {
        printf("FAILED: no slaves found\n");
        return 1;
    }
    ecx_config_map_group(&ctx, iomap, 0);
    int expected = ctx.grouplist[0].outputsWKC * 2 + ctx.grouplist[0].inputsWKC;
    ecx_statecheck(&ctx, 0, EC_STATE_SAFE_OP, EC_TIMEOUTSTATE * 4);
    ctx.slavelist[0].state = EC_STATE_OPERATIONAL;
    ecx_send_processdata(&ctx);
    ecx_receive_processdata(&ctx, EC_TIMEOUTRET);
    ecx_writestate(&ctx, 0);
    int in_op = 0, bad = 0, red_seen = 0, timeouts = 0;
    double t0 = now_s(), first_bad = -1;
    int wmin = 0x7FFF, wmax = -1;
    for (int i = 0; i < cycles; i++) {
        ecx_send_processdata(&ctx);
        int wkc = ecx_receive_processdata(&ctx, EC_TIMEOUTRET);
        if (ctx.slavelist[0].state != EC_STATE_OPERATIONAL) {
            ecx_readstate(&ctx);
            if (ctx.slavelist[0].state != EC_STATE_OPERATIONAL)
                ecx_writestate(&ctx, 0);
        } else {
            in_op++;
            if (wkc <= 0)
                timeouts++;         /* nothing back within SOEM's receive timeout */
            else if (wkc != expected) {
                if (bad++ == 0)
                    first_bad = now_s() - t0;
                wmin = wkc < wmin ? wkc : wmin;
                wmax = wkc > wmax ? wkc : wmax;
            }
        }
        red_seen |= 1 << (ctx.port.redstate & 7);
        sleep_us(1000);
    }
    printf("%s: SOEM redundant on %s + %s: %d slaves, %d cycles in OP, %d with a WKC other than %d "
           "(%d..%d, first %.3f s after the start), %d with no reply within SOEM's receive timeout "
           "(a loaded host), redundancy states seen 0x%02X\n",
           in_op > cycles / 2 && bad * 100 <= in_op ? "ok" : "FAILED", argv[1], argv[2], n, in_op, bad,
           expected, bad ? wmin : 0, bad ? wmax : 0, first_bad, timeouts, red_seen);
    ctx.slavelist[0].state = EC_STATE_INIT;
    ecx_writestate(&ctx, 0);
    ecx_close(&ctx);
    return in_op > cycles / 2 && bad * 100 <= in_op ? 0 : 1;
}
