/* Fuzz target: cable redundancy's merge (src/ecat/redund.c). A frame of the master's
 * shape (frame-number NOP, LRW, BRD, FPRD, FRMW 0x0910) goes out of both ports; what
 * comes back on each is made from the input: the copy as sent with bytes overwritten,
 * or the input's bytes as a whole frame, on either port, in either order. Whatever comes
 * back, the link hands on at most the frames it was given, each within its buffer, and
 * never reads or writes past a copy (ASan). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <takt/link.h>
#include "ecat/frame.h"
#include "ecat/proto.h"
#include "ecat/redund.h"
#include "util/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct takt_link *a[2], *b[2], *red;
    char err[200];
    for (int p = 0; p < 2; p++)
        if (takt_link_mem_pair(&a[p], &b[p], 16, NULL, NULL))
            abort();
    a[1]->mac[5] ^= 0x55;
    if (ecat_red_open(a[0], a[1], &red, err, sizeof err))
        abort();
    uint8_t f[TAKT_FRAME_BUF] = { 0 }, d[16] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    size_t pos = ecat_frame_begin(f, a[0]->mac);
    ecat_frame_add(f, TAKT_ETH_MAX_FRAME, &pos, ECAT_NOP, 0, 77, 0, NULL);
    ecat_frame_add(f, TAKT_ETH_MAX_FRAME, &pos, ECAT_LRW, 1, 0x10000, 8, d);
    ecat_frame_add(f, TAKT_ETH_MAX_FRAME, &pos, ECAT_BRD, 2, 0x0130u << 16, 2, NULL);
    ecat_frame_add(f, TAKT_ETH_MAX_FRAME, &pos, ECAT_FPRD, 3, 0x1001u | 0x0110u << 16, 4, NULL);
    ecat_frame_add(f, TAKT_ETH_MAX_FRAME, &pos, ECAT_FRMW, 4, 0x1000u | (uint32_t)ESC_DC_SYS_TIME << 16, 8, NULL);
    ecat_frame_add(f, TAKT_ETH_MAX_FRAME, &pos, ECAT_APRD, 5, 0, 2, NULL);
    struct takt_frame tf = { .data = f, .len = (uint16_t)ecat_frame_end(f, pos), .cap = sizeof f };
    if (takt_link_send(red, &tf, 1) != 1)
        abort();
    /* the copies as the far ends got them */
    uint8_t cp[2][TAKT_FRAME_BUF];
    uint16_t cl[2];
    for (int p = 0; p < 2; p++) {
        struct takt_frame r = { .data = cp[p], .cap = TAKT_FRAME_BUF };
        if (takt_link_recv(b[p], &r, 1, 0) != 1)
            abort();
        cl[p] = r.len;
    }
    size_t at = 0;
    for (int k = 0; k < 3 && at < size; k++) {
        uint8_t ctl = data[at++];
        int c = ctl & 1, port = (ctl >> 1) & 1;
        uint8_t out[TAKT_FRAME_BUF];
        uint16_t len;
        size_t n = at < size ? data[at++] : 0;
        if (n > size - at)
            n = size - at;
        if (ctl & 4) {                     /* the input's bytes as a whole frame */
            len = (uint16_t)(n < TAKT_ETH_MAX_FRAME ? n : TAKT_ETH_MAX_FRAME);
            memcpy(out, data + at, len);
        } else {                           /* the copy with bytes overwritten */
            len = cl[c];
            memcpy(out, cp[c], len);
            for (size_t i = 0; i + 1 < n; i += 2)
                out[data[at + i] % len] = data[at + i + 1];
            if (ctl & 8)
                out[6] |= 0x02;
        }
        at += n;
        struct takt_frame o = { .data = out, .len = len, .cap = sizeof out };
        takt_link_send(b[port], &o, 1);
    }
    uint8_t rb[4][TAKT_FRAME_BUF];
    struct takt_frame rf[4];
    for (int i = 0; i < 4; i++)
        rf[i] = (struct takt_frame){ .data = rb[i], .cap = TAKT_FRAME_BUF };
    int n = takt_link_recv(red, rf, 4, 0);
    if (n < 0 || n > 3)
        abort();
    for (int i = 0; i < n; i++)
        if (rf[i].len > TAKT_FRAME_BUF)
            abort();
    struct takt_ecat_redundancy st;
    ecat_red_get(red, &st);
    takt_link_close(red);
    for (int p = 0; p < 2; p++) {
        takt_link_close(a[p]);
        takt_link_close(b[p]);
    }
    return 0;
}
