/* The floor of the peer benchmark (peer-bench.sh): what one EtherCAT cycle costs at the
 * least on this host and link with no master behind it. Every CYCLE_US, on an absolute-
 * deadline loop (clock_nanosleep TIMER_ABSTIME), it reads without waiting the reply to
 * the frame it sent a cycle ago (one recvmmsg), then sends one frame. That frame is
 * either FRAME, the EtherCAT part (from the EtherCAT header on, in hex) of the cyclic
 * frame a master sent, replayed as it is but for the first datagram's index, so the
 * simulator does the same work for it as for that master's; or, given a length LEN, a
 * single LRW (ETG.1000.4 command 12) of LEN - 28 data bytes to a logical address no
 * slave maps, which the simulator passes through every slave. One wake-up, one receive
 * and one send per cycle is what any master must pay; nothing else is done. A raw
 * AF_PACKET socket, no library; pinning and priority come from outside (taskset,
 * chrt), as for the masters. Stdout: "OP" once the first reply came, then a summary
 * line at SIGINT/SIGTERM.
 * Usage: floor_cycle IFNAME CYCLE_US LEN|FRAME */
#define _GNU_SOURCE   /* recvmmsg */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "cycle_deadline.h"

#define ETHERTYPE_ECAT 0x88A4
#define LRW 0x0C
#define FLOOR_ADDR 0x00F00000u   /* a logical address no FMMU of the simulator maps */
#define RX_BATCH 8                /* frames read per call, as a master reads a cycle's replies */

static void le16(uint8_t *p, unsigned v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s IFNAME CYCLE_US LEN|FRAME\n", argv[0]);
        return 2;
    }
    long cycle_us = atol(argv[2]), len = 0;
    if (cycle_us < 50 || cycle_us > 1000000) {
        fprintf(stderr, "floor_cycle: CYCLE_US must be 50..1000000, got '%s'\n", argv[2]);
        return 2;
    }
    uint8_t f[1514];
    memset(f, 0, sizeof f);
    size_t hex = strlen(argv[3]);
    if (hex > 8) {   /* FRAME: the EtherCAT header, its datagrams and WKCs, in hex */
        if (hex % 2 || hex / 2 < 16 || hex / 2 > sizeof f - 14) {
            fprintf(stderr, "floor_cycle: FRAME must be 16..1500 bytes in hex, got %zu characters\n", hex);
            return 2;
        }
        for (size_t i = 0; i < hex / 2; i++) {
            unsigned v;
            if (sscanf(argv[3] + 2 * i, "%2x", &v) != 1) {
                fprintf(stderr, "floor_cycle: FRAME: not hex at character %zu of '%s'\n", 2 * i, argv[3]);
                return 2;
            }
            f[14 + i] = (uint8_t)v;
        }
        len = (long)(14 + hex / 2) < 60 ? 60 : (long)(14 + hex / 2);
    } else if ((len = atol(argv[3])) < 60 || len > 1514) {
        fprintf(stderr, "floor_cycle: LEN must be 60..1514 bytes, got '%s'\n", argv[3]);
        return 2;
    }
    int fd = socket(AF_PACKET, SOCK_RAW, htons(ETHERTYPE_ECAT));
    if (fd < 0) {
        perror("floor_cycle: socket (needs CAP_NET_RAW)");
        return 1;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", argv[1]);
    if (ioctl(fd, SIOCGIFINDEX, &ifr) < 0) {
        fprintf(stderr, "floor_cycle: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETHERTYPE_ECAT),
                               .sll_ifindex = ifr.ifr_ifindex };
    int one = 1;
    /* our own outgoing copies are not replies (kernel 4.20+) */
    setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
    /* frames go straight to the driver, past the qdisc, as takt's packet link sends them */
    setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&sll, sizeof sll) < 0 || ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
        fprintf(stderr, "floor_cycle: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    catch_stop();

    static uint8_t rx[RX_BATCH][1514];
    struct iovec riov[RX_BATCH];
    struct mmsghdr rmsg[RX_BATCH];
    memset(rmsg, 0, sizeof rmsg);
    for (int i = 0; i < RX_BATCH; i++) {
        riov[i] = (struct iovec){ .iov_base = rx[i], .iov_len = sizeof rx[i] };
        rmsg[i].msg_hdr.msg_iov = &riov[i];
        rmsg[i].msg_hdr.msg_iovlen = 1;
    }
    /* Ethernet header; without FRAME, the EtherCAT header (length, type 1), one LRW
     * datagram and its WKC */
    memset(f, 0xFF, 6);
    memcpy(f + 6, ifr.ifr_hwaddr.sa_data, 6);
    f[12] = ETHERTYPE_ECAT >> 8;
    f[13] = ETHERTYPE_ECAT & 0xFF;
    if (hex <= 8) {
        unsigned dlen = (unsigned)len - 28;
        le16(f + 14, (10 + dlen + 2) | 0x1000);
        f[16] = LRW;
        f[17] = 0;
        le16(f + 18, FLOOR_ADDR & 0xFFFF);
        le16(f + 20, FLOOR_ADDR >> 16);
        le16(f + 22, dlen);
    }

    unsigned long cycles = 0, replies = 0, late = 0, overruns = 0;
    int op = 0;
    struct timespec next, now;
    clock_gettime(CLOCK_MONOTONIC, &next);
    while (!stop) {
        add_ns(&next, cycle_us * 1000L);
        /* the last cycle's reply, without waiting (a master reads its replies so), every
         * frame waiting in one call: a loop of recv() would pay a second call, the one
         * that finds the queue empty, which a master reading a batch does not */
        unsigned got = 0;
        int n = recvmmsg(fd, rmsg, RX_BATCH, MSG_DONTWAIT, NULL);
        for (int i = 0; i < n; i++)
            got += rmsg[i].msg_len >= 17 && (rx[i][6] & 0x02);   /* passed a slave: U/L bit set */
        replies += got;
        late += got == 0 && cycles > 0;
        if (!op && got) {
            op = 1;
            printf("OP after %lu cycles (first reply)\n", cycles);
            fflush(stdout);
        }
        f[17] = (uint8_t)cycles;
        if (send(fd, f, (size_t)len, 0) < 0 && errno != ENOBUFS) {
            perror("floor_cycle: send");
            return 1;
        }
        cycles++;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (before(&next, &now)) {
            overruns++;   /* deadlines missed are skipped, not caught up in a burst */
            while (before(&next, &now))
                add_ns(&next, cycle_us * 1000L);
        }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR && !stop)
            ;
    }
    printf("SUMMARY cycles %lu replies %lu cycles_without_reply %lu overruns %lu op %d\n", cycles, replies,
           late, overruns, op);
    close(fd);
    return op ? 0 : 1;
}
