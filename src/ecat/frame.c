/* EtherCAT frame and datagram codec (ETG.1000.4 frame structure and commands): builds frames in caller buffers and
 * walks the datagrams of received ones. Shared by the master and the simulator. */
#include <errno.h>
#include <string.h>
#include "ecat/frame.h"
#include "util/wire.h"

/* Byte offsets inside the Ethernet frame (IEEE 802.3) and the datagram header (ETG.1000.4 frame structure). */
enum {
    OFF_DST = 0, OFF_SRC = 6, OFF_ETYPE = 12, OFF_ECAT_HDR = ECAT_ETH_HDR,
    DG_CMD = 0, DG_IDX = 1, DG_ADP = 2, DG_ADO = 4, DG_LEN = 6, DG_IRQ = 8,
};
#define ETHERTYPE_ECAT 0x88A4
#define MIN_FRAME 60

size_t ecat_frame_begin(uint8_t *buf, const uint8_t src_mac[6])
{
    memset(buf + OFF_DST, 0xFF, 6);
    memcpy(buf + OFF_SRC, src_mac, 6);
    put_be16(buf + OFF_ETYPE, ETHERTYPE_ECAT);
    put_le16(buf + OFF_ECAT_HDR, (uint16_t)(ECAT_FRAME_TYPE_DG << 12));
    return ECAT_ETH_HDR + ECAT_FRAME_HDR;
}

uint8_t *ecat_frame_add(uint8_t *buf, size_t cap, size_t *pos, uint8_t cmd, uint8_t idx,
                        uint32_t addr, uint16_t len, const void *data)
{
    const size_t first = ECAT_ETH_HDR + ECAT_FRAME_HDR;
    size_t p = *pos;
    if (p < first || len > ECAT_LEN_MASK || p + ECAT_DG_HDR + len + ECAT_DG_WKC > cap)
        return NULL;
    uint16_t hdr = get_le16(buf + OFF_ECAT_HDR);
    size_t total = (hdr & ECAT_LEN_MASK) + ECAT_DG_HDR + len + ECAT_DG_WKC;
    if (total > ECAT_LEN_MASK)
        return NULL;
    /* Mark the previous datagram "more follows": walk from the first datagram, since
     * we keep no state outside the buffer. */
    if (p > first) {
        size_t q = first;
        for (;;) {
            uint16_t l = get_le16(buf + q + DG_LEN);
            size_t next = q + ECAT_DG_HDR + (l & ECAT_LEN_MASK) + ECAT_DG_WKC;
            if (next >= p) {
                put_le16(buf + q + DG_LEN, (uint16_t)(l | ECAT_LEN_MORE));
                break;
            }
            q = next;
        }
    }
    uint8_t *h = buf + p;
    h[DG_CMD] = cmd;
    h[DG_IDX] = idx;
    put_le32(h + DG_ADP, addr);   /* ADP | ADO << 16, or the 32-bit LAD */
    put_le16(h + DG_LEN, len);
    put_le16(h + DG_IRQ, 0);
    uint8_t *d = h + ECAT_DG_HDR;
    if (data)
        memcpy(d, data, len);
    else
        memset(d, 0, len);
    put_le16(d + len, 0);
    put_le16(buf + OFF_ECAT_HDR, (uint16_t)((hdr & ~ECAT_LEN_MASK) | total));
    *pos = p + ECAT_DG_HDR + len + ECAT_DG_WKC;
    return d;
}

uint8_t *ecat_frame_refill(uint8_t *buf, size_t at, uint8_t cmd, uint8_t idx, uint32_t addr, uint16_t len,
                           const void *data)
{
    uint8_t *h = buf + at;
    h[DG_CMD] = cmd;
    h[DG_IDX] = idx;
    put_le32(h + DG_ADP, addr);
    uint8_t *d = h + ECAT_DG_HDR;
    if (len && data)                /* no call for the NOP's none */
        memcpy(d, data, len);
    else if (len)
        memset(d, 0, len);
    put_le16(d + len, 0);
    return d;
}

size_t ecat_frame_end(uint8_t *buf, size_t pos)
{
    if (pos < MIN_FRAME) {
        memset(buf + pos, 0, MIN_FRAME - pos);
        return MIN_FRAME;
    }
    return pos;
}

static int parse_dg(uint8_t *buf, size_t end, struct ecat_dg *dg, size_t *pos)
{
    size_t p = *pos;
    if (p + ECAT_DG_HDR + ECAT_DG_WKC > end)
        return -EMSGSIZE;
    uint8_t *h = buf + p;
    uint16_t l = get_le16(h + DG_LEN);
    dg->len = l & ECAT_LEN_MASK;
    if (p + ECAT_DG_HDR + dg->len + ECAT_DG_WKC > end)
        return -EMSGSIZE;
    dg->cmd = h[DG_CMD];
    dg->idx = h[DG_IDX];
    dg->adp = get_le16(h + DG_ADP);
    dg->ado = get_le16(h + DG_ADO);
    dg->lad = get_le32(h + DG_ADP);
    dg->circ = (l & ECAT_LEN_CIRC) != 0;
    dg->more = (l & ECAT_LEN_MORE) != 0;
    dg->irq = get_le16(h + DG_IRQ);
    dg->hdr = h;
    dg->data = h + ECAT_DG_HDR;
    dg->wkc = dg->data + dg->len;
    *pos = p + ECAT_DG_HDR + dg->len + ECAT_DG_WKC;
    return 0;
}

/* End of the datagram area per the EtherCAT header, re-read on each call so that
 * iteration needs no state beyond *pos. */
static size_t dg_end(const uint8_t *buf)
{
    return ECAT_ETH_HDR + ECAT_FRAME_HDR + (get_le16(buf + OFF_ECAT_HDR) & ECAT_LEN_MASK);
}

int ecat_frame_first(uint8_t *buf, size_t len, struct ecat_dg *dg, size_t *pos)
{
    if (len < ECAT_ETH_HDR + ECAT_FRAME_HDR || get_be16(buf + OFF_ETYPE) != ETHERTYPE_ECAT)
        return -EPROTO;
    uint16_t hdr = get_le16(buf + OFF_ECAT_HDR);
    if ((hdr >> 12) != ECAT_FRAME_TYPE_DG)
        return -EPROTO;
    size_t end = dg_end(buf);
    if (end > len)
        return -EMSGSIZE;
    *pos = ECAT_ETH_HDR + ECAT_FRAME_HDR;
    return parse_dg(buf, end, dg, pos);
}

int ecat_frame_next(uint8_t *buf, size_t len, struct ecat_dg *dg, size_t *pos)
{
    size_t end = dg_end(buf);
    if (end > len)
        return -EMSGSIZE;
    /* The M bit of the previous datagram says whether another one follows (ETG.1000.4 frame structure). */
    if (!dg->more)
        return 1;
    return parse_dg(buf, end, dg, pos);
}
