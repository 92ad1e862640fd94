/* An independent EoE client drives takt's simulated eoe-device: written by takt for its
 * interoperability check, built against a SOEM checkout the user provides (nothing of
 * SOEM is in takt). With SOEM's ecx_EOEsetIp/ecx_EOEgetIp it sets the slave's MAC and
 * IP parameters and reads them back; with ecx_EOEsend/ecx_EOErecv it sends an ARP
 * request for the slave's address and ICMP echo requests of 56 and 1400 bytes (the
 * latter in three fragments each way through 512-byte mailboxes) and checks the
 * replies the slave's own IP stack makes; N echoes are timed. One verdict line.
 * Usage: soem_eoe IFNAME EOE_POSITION [ECHOES] */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "soem/soem.h"

static ecx_contextt ctx;
static uint8 iomap[4096];
static int fails;
static const uint8 host_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint8 slave_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x42 };
static const uint8 host_ip[4] = { 10, 78, 0, 1 }, slave_ip[4] = { 10, 78, 0, 2 };

static void check(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok" : "FAILED", what);
    fails += !ok;
}

static uint16 sum16(const uint8 *p, size_t n)
{
    uint32 s = 0;
    for (size_t i = 0; i + 1 < n; i += 2)
        s += (uint32)(p[i] << 8 | p[i + 1]);
    if (n & 1)
        s += (uint32)p[n - 1] << 8;
    while (s >> 16)
        s = (s & 0xFFFF) + (s >> 16);
    return (uint16)~s;
}

static size_t echo(uint8 *f, uint16 seq, size_t payload)
{
    memcpy(f, slave_mac, 6);
    memcpy(f + 6, host_mac, 6);
    f[12] = 0x08, f[13] = 0x00;
    uint8 *ip = f + 14, *ic = f + 34;
    memset(ip, 0, 20);
    ip[0] = 0x45;
    ip[2] = (uint8)((28 + payload) >> 8), ip[3] = (uint8)(28 + payload);
    ip[8] = 64, ip[9] = 1;
    memcpy(ip + 12, host_ip, 4);
    memcpy(ip + 16, slave_ip, 4);
    uint16 c = sum16(ip, 20);
    ip[10] = (uint8)(c >> 8), ip[11] = (uint8)c;
    memset(ic, 0, 8);
    ic[0] = 8;
    ic[4] = 0x12, ic[5] = 0x34, ic[6] = (uint8)(seq >> 8), ic[7] = (uint8)seq;
    for (size_t i = 0; i < payload; i++)
        ic[8 + i] = (uint8)(i + seq);
    c = sum16(ic, 8 + payload);
    ic[2] = (uint8)(c >> 8), ic[3] = (uint8)c;
    return 42 + payload;
}

/* Send f, receive the answer (other frames skipped); its length or -1. */
static int exchange(uint16 s, uint8 *f, int n, uint8 *in, int cap)
{
    if (ecx_EOEsend(&ctx, s, 0, n, f, EC_TIMEOUTRXM) <= 0)
        return -1;
    for (int k = 0; k < 20; k++) {
        int len = cap;
        if (ecx_EOErecv(&ctx, s, 0, &len, in, EC_TIMEOUTRXM) > 0)
            return len;
    }
    return -1;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s IFNAME EOE_POSITION [ECHOES]\n", argv[0]);
        return 2;
    }
    uint16 s = (uint16)atoi(argv[2]);
    int n_echo = argc > 3 ? atoi(argv[3]) : 100;
    if (n_echo < 1 || n_echo > 10000)
        n_echo = 100;
    if (!ecx_init(&ctx, argv[1]) || ecx_config_init(&ctx) <= 0 || s < 1 || s > ctx.slavecount) {
        printf("VERDICT FAIL: no slaves on %s, or no position %u\n", argv[1], s);
        return 1;
    }
    ecx_config_map_group(&ctx, iomap, 0);
    ecx_statecheck(&ctx, 0, EC_STATE_SAFE_OP, EC_TIMEOUTSTATE * 4);
    printf("slave '%s' at %u, mailbox protocols 0x%04x, mailbox %u bytes, state 0x%02x\n",
           ctx.slavelist[s].name, s, ctx.slavelist[s].mbx_proto, ctx.slavelist[s].mbx_l,
           ctx.slavelist[s].state);
    check(ctx.slavelist[s].mbx_proto & ECT_MBXPROT_EOE, "the SII lists EoE");
    eoe_param_t p;
    memset(&p, 0, sizeof p);
    p.mac_set = p.ip_set = p.subnet_set = 1;
    memcpy(p.mac.addr, slave_mac, 6);
    EOE_IP4_ADDR_TO_U32(&p.ip, slave_ip[0], slave_ip[1], slave_ip[2], slave_ip[3]);
    EOE_IP4_ADDR_TO_U32(&p.subnet, 255, 255, 255, 0);
    check(ecx_EOEsetIp(&ctx, s, 0, &p, EC_TIMEOUTRXM) > 0, "ecx_EOEsetIp: MAC, IP, subnet accepted");
    eoe_param_t q;
    memset(&q, 0, sizeof q);
    int rc = ecx_EOEgetIp(&ctx, s, 0, &q, EC_TIMEOUTRXM);
    check(rc > 0 && q.ip_set && q.ip.addr == p.ip.addr && q.mac_set && !memcmp(q.mac.addr, slave_mac, 6),
          "ecx_EOEgetIp: the same MAC and IP back");
    static uint8 f[1600], in[2048];
    /* ARP: who has 10.78.0.2 */
    memset(f, 0xFF, 6);
    memcpy(f + 6, host_mac, 6);
    f[12] = 0x08, f[13] = 0x06;
    const uint8 arp[8] = { 0, 1, 8, 0, 6, 4, 0, 1 };
    memcpy(f + 14, arp, 8);
    memcpy(f + 22, host_mac, 6);
    memcpy(f + 28, host_ip, 4);
    memset(f + 32, 0, 6);
    memcpy(f + 38, slave_ip, 4);
    int n = exchange(s, f, 42, in, sizeof in);
    check(n >= 42 && in[12] == 0x08 && in[13] == 0x06 && in[21] == 2 && !memcmp(in + 22, slave_mac, 6),
          "ARP reply with the MAC set");
    const size_t sizes[] = { 56, 1400 };
    for (unsigned k = 0; k < 2; k++) {
        size_t len = echo(f, (uint16)k, sizes[k]);
        n = exchange(s, f, (int)len, in, sizeof in);
        char what[80];
        snprintf(what, sizeof what, "ICMP echo of %zu bytes answered with the same payload", sizes[k]);
        check(n == (int)len && in[34] == 0 && !memcmp(in + 42, f + 42, sizes[k]) && sum16(in + 34, len - 34) == 0,
              what);
    }
    double *rtt = calloc((size_t)n_echo, sizeof *rtt);
    int got = 0;
    for (int k = 0; rtt && k < n_echo; k++) {
        size_t len = echo(f, (uint16)(100 + k), 56);
        double t0 = now_ms();
        if (exchange(s, f, (int)len, in, sizeof in) == (int)len && in[34] == 0)
            rtt[got++] = now_ms() - t0;
    }
    if (got) {
        qsort(rtt, (size_t)got, sizeof *rtt, cmp);
        printf("echo round trips (56 bytes, %d of %d): median %.2f ms, min %.2f, max %.2f\n", got,
               n_echo, rtt[got / 2], rtt[0], rtt[got - 1]);
    }
    check(got == n_echo, "every timed echo answered");
    free(rtt);
    ecx_close(&ctx);
    printf("VERDICT %s: %d check%s failed\n", fails ? "FAIL" : "PASS", fails, fails == 1 ? "" : "s");
    return fails ? 1 : 0;
}
