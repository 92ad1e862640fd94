/* An independent SoE client drives takt's simulated SoE drive: written by takt for its
 * interoperability check, built against a SOEM checkout the user provides (nothing of
 * SOEM is in takt). SOEM lays the drive out from its IDN lists (ecx_readIDNmap inside
 * ecx_config_map_group); then, with ecx_SoEread/ecx_SoEwrite, it reads S-0-0001, a
 * name, the default trace list P-0-0010 (604 bytes: fragments), writes S-0-0036 and an
 * 804-byte P-0-0010 (fragments the other way) and reads both back, expects refusals for
 * an unknown IDN (0x1001) and a read-only one, and runs the line in OP. One verdict
 * line. SOEM 2.0 up to at least b410bf6 needs its issue #981 fixed in the checkout
 * (ecx_SoEread takes the payload pointer from the mailbox buffer it had before the
 * response arrived, and crashes on the first read): see docs/interop.md.
 * Usage: soem_soe IFNAME DRIVE_POSITION [CYCLES] */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "soem/soem.h"

static ecx_contextt ctx;
static uint8 iomap[4096];
static int fails;

static void check(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok" : "FAILED", what);
    fails += !ok;
}

static int rd(uint16 s, uint8 el, uint16 idn, void *p, int cap)
{
    int n = cap;
    return ecx_SoEread(&ctx, s, 0, el, idn, &n, p, EC_TIMEOUTRXM) > 0 ? n : -1;
}

static int wr(uint16 s, uint16 idn, const void *p, int n)
{
    return ecx_SoEwrite(&ctx, s, 0, EC_SOE_VALUE_B, idn, n, (void *)p, EC_TIMEOUTRXM);
}

/* SOEM's error list after a refusal: the SoE code, or -1 (another kind, or none) */
static int soe_error(void)
{
    ec_errort e;
    int code = -1;
    while (ecx_poperror(&ctx, &e))
        if (e.Etype == EC_ERR_TYPE_SOE_ERROR)
            code = e.ErrorCode;
    return code;
}

static void sleep_us(long us)
{
    struct timespec t = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&t, NULL);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s IFNAME DRIVE_POSITION [CYCLES]\n", argv[0]);
        return 2;
    }
    uint16 s = (uint16)atoi(argv[2]);
    int ncyc = argc > 3 ? atoi(argv[3]) : 2000;
    if (!ecx_init(&ctx, argv[1]) || ecx_config_init(&ctx) <= 0 || s < 1 || s > ctx.slavecount) {
        printf("VERDICT FAIL: no slaves on %s, or no position %u\n", argv[1], s);
        return 1;
    }
    /* SOEM lays the drive out from S-0-0024/S-0-0016 itself (its SII's PDOs are not
     * asked for a slave with SoE), then requests SAFEOP, where the IDN services run */
    ecx_config_map_group(&ctx, iomap, 0);
    soe_error();                      /* drives 1-7 answer "no such drive" */
    int expected = ctx.grouplist[0].outputsWKC * 2 + ctx.grouplist[0].inputsWKC;
    ecx_statecheck(&ctx, 0, EC_STATE_SAFE_OP, EC_TIMEOUTSTATE * 4);
    printf("drive '%s' at %u, mailbox protocols 0x%04x, laid out by SOEM: %u B out, %u B in, state 0x%02x\n",
           ctx.slavelist[s].name, s, ctx.slavelist[s].mbx_proto, ctx.slavelist[s].Obytes,
           ctx.slavelist[s].Ibytes, ctx.slavelist[s].state);
    check(ctx.slavelist[s].Obytes == 10 && ctx.slavelist[s].Ibytes == 10, "SOEM's IDN mapping: 10 + 10 bytes");
    static uint8 b[4096], w[4096];
    int n = rd(s, EC_SOE_VALUE_B, 1, b, sizeof b);
    check(n == 2 && (b[0] | b[1] << 8) == 1000, "S-0-0001 = 1000 us");
    n = rd(s, EC_SOE_NAME_B, 36, b, sizeof b);
    check(n == 4 + 22 && !memcmp(b + 4, "Velocity command value", 22), "S-0-0036 name");
    n = rd(s, EC_SOE_VALUE_B, 0x800A, b, sizeof b);
    int okl = n == 604;
    for (int i = 0; okl && i < 300; i++)
        okl = (b[4 + 2 * i] | b[5 + 2 * i] << 8) == i * 7;
    printf("P-0-0010 read: %d bytes\n", n);
    check(okl, "P-0-0010 default (604 bytes, fragmented)");
    int32 v = -15000, back = 0;
    check(wr(s, 36, &v, 4) > 0 && rd(s, EC_SOE_VALUE_B, 36, &back, 4) == 4 && back == v,
          "S-0-0036 written and read back");
    w[0] = 0x20, w[1] = 0x03, w[2] = 0xE8, w[3] = 0x03;        /* 800 bytes now, 1000 at most */
    for (int i = 0; i < 400; i++)
        w[4 + 2 * i] = (uint8)(i * 37), w[5 + 2 * i] = (uint8)(i * 37 >> 8);
    int wk = wr(s, 0x800A, w, 804);
    n = rd(s, EC_SOE_VALUE_B, 0x800A, b, sizeof b);
    check(wk > 0 && n == 804 && !memcmp(b + 4, w + 4, 800), "P-0-0010 804 bytes written (fragmented) and read back");
    soe_error();
    check(rd(s, EC_SOE_VALUE_B, 99, b, sizeof b) < 0 && soe_error() == 0x1001, "S-0-0099 refused with 0x1001");
    int32 one = 1;
    wk = wr(s, 40, &one, 4);
    int code = soe_error();
    printf("S-0-0040 write: wkc %d, SOEM's error %d (0x%04x)\n", wk, code, code);
    check(wk <= 0, "S-0-0040 (read-only) write refused");
    uint32 osize = 0, isize = 0;
    ecx_readIDNmap(&ctx, s, &osize, &isize);
    soe_error();                      /* drives 1-7 answer "no such drive" */
    printf("ecx_readIDNmap: outputs %" PRIu32 " bits, inputs %" PRIu32 " bits\n", osize, isize);
    check(osize == 80 && isize == 80, "process data from S-0-0024/S-0-0016: 80 + 80 bits");
    ctx.slavelist[0].state = EC_STATE_OPERATIONAL;
    ecx_send_processdata(&ctx);
    ecx_receive_processdata(&ctx, EC_TIMEOUTRET);
    ecx_writestate(&ctx, 0);
    int cycles = 0, bad = 0;
    for (int i = 0; i < ncyc; i++) {
        ecx_send_processdata(&ctx);
        int wkc = ecx_receive_processdata(&ctx, EC_TIMEOUTRET);
        if (i % 200 == 0)
            ecx_readstate(&ctx);
        if (ctx.slavelist[0].state == EC_STATE_OPERATIONAL) {
            cycles++;
            bad += wkc != expected;
        }
        sleep_us(1000);
    }
    printf("OP: %d cycles, %d with a working counter other than %d; drive %u B out, %u B in\n", cycles, bad,
           expected, ctx.slavelist[s].Obytes, ctx.slavelist[s].Ibytes);
    check(cycles > ncyc / 2 && !bad, "the line in OP with the expected working counter");
    ctx.slavelist[0].state = EC_STATE_INIT;
    ecx_writestate(&ctx, 0);
    ecx_close(&ctx);
    printf("VERDICT %s: %d check%s failed\n", fails ? "FAIL" : "PASS", fails, fails == 1 ? "" : "s");
    return fails ? 1 : 0;
}
