/* An independent master drives takt's simulated CiA 402 servo: written by takt for its
 * interoperability check, built against a SOEM checkout the user provides (nothing of
 * SOEM is in takt). It remaps the servo's TxPDO over CoE in PREOP (0x1A00 without the
 * velocity, assigned through 0x1C13), activates DC SYNC0, goes to OP, enables the drive
 * (controlword 0x06 -> 0x07 -> 0x0F) and moves it; it prints figures and one verdict line.
 * Usage: soem_servo IFNAME SLAVE_POSITION [CYCLES] */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "soem/soem.h"

static ecx_contextt ctx;
static uint8 iomap[4096];
static int servo;

static int sdo_u8(uint16 slave, uint16 idx, uint8 sub, uint8 v)
{ return ecx_SDOwrite(&ctx, slave, idx, sub, FALSE, 1, &v, EC_TIMEOUTRXM); }
static int sdo_u16(uint16 slave, uint16 idx, uint8 sub, uint16 v)
{ return ecx_SDOwrite(&ctx, slave, idx, sub, FALSE, 2, &v, EC_TIMEOUTRXM); }
static int sdo_u32(uint16 slave, uint16 idx, uint8 sub, uint32 v)
{ return ecx_SDOwrite(&ctx, slave, idx, sub, FALSE, 4, &v, EC_TIMEOUTRXM); }

/* PREOP -> SAFEOP: the PDO configuration over CoE and SYNC0, as a drive wants them */
static int servo_setup(ecx_contextt *c, uint16 slave)
{
    int ok = 1;
    ok &= sdo_u8(slave, 0x1C13, 0, 0) > 0;
    ok &= sdo_u8(slave, 0x1A00, 0, 0) > 0;
    ok &= sdo_u32(slave, 0x1A00, 1, 0x60410010) > 0;   /* statusword */
    ok &= sdo_u32(slave, 0x1A00, 2, 0x60640020) > 0;   /* position actual value */
    ok &= sdo_u8(slave, 0x1A00, 0, 2) > 0;
    ok &= sdo_u16(slave, 0x1C13, 1, 0x1A00) > 0;
    ok &= sdo_u8(slave, 0x1C13, 0, 1) > 0;
    ecx_dcsync0(c, slave, TRUE, 1000000, 0);
    printf("servo %u: TxPDO remapped over CoE: %s; SYNC0 1 ms requested\n", slave, ok ? "ok" : "FAILED");
    return ok ? 1 : 0;
}

static void sleep_us(long us)
{
    struct timespec t = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&t, NULL);
}

/* ESC register of the servo, read by SOEM's FPRD (ETG.1000.4: 0x0981 SYNC activation,
 * 0x09A0 SYNC0 cycle time, 0x092C system time difference, sign-magnitude) */
static int reg_of(int slave, uint16 ado, void *v, uint16 len)
{
    memset(v, 0, len);
    return ecx_FPRD(&ctx.port, ctx.slavelist[slave].configadr, ado, len, v, EC_TIMEOUTRET);
}

static int reg(uint16 ado, void *v, uint16 len)
{
    return reg_of(servo, ado, v, len);
}

static int32 sync_diff(int slave)
{
    uint32 d;
    if (reg_of(slave, 0x092C, &d, 4) != 1)
        return INT32_MAX;
    return (d & 0x80000000u) ? -(int32)(d & 0x7FFFFFFF) : (int32)d;
}

/* the largest |0x092C| of every DC slave but the reference (the first), or -1 */
static int32 all_diff(int *worst)
{
    int32 m = -1;
    for (int k = 2; k <= ctx.slavecount; k++) {
        int32 d = ctx.slavelist[k].hasdc ? sync_diff(k) : INT32_MAX;
        if (d != INT32_MAX && abs(d) > m) {
            m = abs(d);
            *worst = k;
        }
    }
    return m;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s IFNAME SERVO_POSITION [CYCLES]\n", argv[0]);
        return 2;
    }
    servo = atoi(argv[2]);
    int ncyc = argc > 3 ? atoi(argv[3]) : 4000;
    if (!ecx_init(&ctx, argv[1]) || ecx_config_init(&ctx) <= 0) {
        printf("VERDICT FAIL: no slaves on %s\n", argv[1]);
        return 1;
    }
    if (servo < 1 || servo > ctx.slavecount) {
        printf("VERDICT FAIL: %d slaves, no position %d\n", ctx.slavecount, servo);
        return 1;
    }
    ctx.slavelist[servo].PO2SOconfig = servo_setup;
    ecx_config_map_group(&ctx, iomap, 0);
    int dc = ecx_configdc(&ctx), ndc = 0;
    ec_slavet *s = &ctx.slavelist[servo];
    for (int k = 1; k <= ctx.slavecount; k++)
        ndc += ctx.slavelist[k].hasdc != 0;
    printf("%d slaves; servo '%s' outputs %u B, inputs %u B (6 expected after the remap)\n", ctx.slavecount, s->name,
           s->Obytes, s->Ibytes);
    printf("DC: %s, %d slaves with DC; SOEM's propagation delay of the servo %" PRId32 " ns, of the last slave %" PRId32 " ns\n",
           dc ? "configured" : "NOT configured", ndc, s->pdelay, ctx.slavelist[ctx.slavecount].pdelay);
    int expected = ctx.grouplist[0].outputsWKC * 2 + ctx.grouplist[0].inputsWKC;
    printf("expected LRW working counter %d\n", expected);
    ecx_statecheck(&ctx, 0, EC_STATE_SAFE_OP, EC_TIMEOUTSTATE * 4);
    uint8 act = 0;
    uint32 cyc0 = 0;
    reg(0x0981, &act, 1);
    reg(0x09A0, &cyc0, 4);
    int sync_ok = act == 0x03 && cyc0 == 1000000;
    printf("servo SYNC0 registers: 0x0981 = 0x%02x, 0x09A0 = %" PRIu32 " ns (%s)\n", act, cyc0,
           sync_ok ? "SYNC0 active, 1 ms" : "NOT active as requested");
    ctx.slavelist[0].state = EC_STATE_OPERATIONAL;
    ecx_send_processdata(&ctx);
    ecx_receive_processdata(&ctx, EC_TIMEOUTRET);
    ecx_writestate(&ctx, 0);
    int wkc_bad = 0, lost = 0, cycles = 0, op = 0, nd = 0;
    int32 dmax = 0, dlast = 0, amax = -1;
    int aworst = 0;
    uint16 sw = 0;
    int32 pos = 0, target = 0;
    for (int i = 0; i < ncyc; i++) {
        /* RxPDO 0x1600: controlword u16, target position i32, mode of operation i8 */
        uint16 cw = i < 200 ? 0x06 : i < 400 ? 0x07 : 0x0F;
        target = i < 600 ? 0 : 100000;
        memcpy(s->outputs, &cw, 2);
        memcpy(s->outputs + 2, &target, 4);
        if (s->Obytes >= 7)
            s->outputs[6] = 8;   /* cyclic synchronous position */
        ecx_send_processdata(&ctx);
        int wkc = ecx_receive_processdata(&ctx, EC_TIMEOUTRET);
        if (i % 200 == 0)
            ecx_readstate(&ctx);
        if (ctx.slavelist[0].state == EC_STATE_OPERATIONAL) {
            op = 1;
            cycles++;
            lost += wkc == EC_NOFRAME;
            wkc_bad += wkc != expected;
        }
        /* the sync error once the drift control had half the run to settle */
        if (i % 100 == 50 && i >= ncyc / 2) {
            int32 d = sync_diff(servo);
            if (d != INT32_MAX) {
                dlast = d;
                nd++;
                if (abs(d) > abs(dmax))
                    dmax = d;
            }
        }
        /* and every DC slave's, a few times */
        if (i % 500 == 250 && i >= ncyc / 2) {
            int w = 0;
            int32 a = all_diff(&w);
            if (a > amax) {
                amax = a;
                aworst = w;
            }
        }
        memcpy(&sw, s->inputs, 2);
        memcpy(&pos, s->inputs + 2, 4);
        if (i % 500 == 0)
            printf("cycle %4d: state 0x%02x wkc %d/%d statusword 0x%04x position %" PRId32 "\n", i,
                   ctx.slavelist[0].state, wkc, expected, sw, pos);
        sleep_us(1000);
    }
    ecx_readstate(&ctx);
    int enabled = (sw & 0x6F) == 0x27;
    int moved = pos > 90000;
    int pass = op && !wkc_bad && enabled && moved && s->Ibytes == 6 && sync_ok && dc;
    printf("servo 0x092C system time difference over the second half: %d reads, largest %" PRId32 " ns, last %" PRId32 " ns; "
           "of every DC slave: largest |0x092C| %" PRId32 " ns (slave %d)\n", nd, dmax, dlast, amax, aworst);
    printf("VERDICT %s: %d cycles in OP, %d with a wrong working counter (%d lost), expected %d, statusword 0x%04x (%s), "
           "position %" PRId32 " of %" PRId32 ", servo AL status 0x%04x, SYNC0 %s, |sync diff| <= %d ns\n",
           pass ? "PASS" : "FAIL", cycles, wkc_bad, lost, expected, sw,
           enabled ? "operation enabled" : "not enabled", pos, target, s->ALstatuscode, sync_ok ? "active" : "NOT active",
           abs(dmax));
    ctx.slavelist[0].state = EC_STATE_INIT;
    ecx_writestate(&ctx, 0);
    ecx_close(&ctx);
    return pass ? 0 : 1;
}
