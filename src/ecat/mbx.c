/* Mailbox header codec and counter rules (ETG.1000.4 mailbox); the CoE client and the master's
 * mailbox handling both go through here. */
#include "ecat/mbx.h"
#include <errno.h>
#include "util/wire.h"

int ecat_mbx_decode(const uint8_t *buf, size_t n, struct ecat_mbx_hdr *h)
{
    *h = (struct ecat_mbx_hdr){0};
    if (n < MBX_HDR)
        return -EMSGSIZE;
    h->len = get_le16(buf + MBX_OFF_LEN);
    h->addr = get_le16(buf + MBX_OFF_ADDR);
    h->channel = buf[MBX_OFF_CHPRIO] & 0x3F;
    h->prio = buf[MBX_OFF_CHPRIO] >> 6;
    h->type = buf[MBX_OFF_TYPECNT] & 0x0F;
    h->cnt = (buf[MBX_OFF_TYPECNT] >> 4) & 0x07;
    if ((size_t)MBX_HDR + h->len > n)
        return -EMSGSIZE;
    return 0;
}

void ecat_mbx_encode(uint8_t *buf, const struct ecat_mbx_hdr *h)
{
    put_le16(buf + MBX_OFF_LEN, h->len);
    put_le16(buf + MBX_OFF_ADDR, h->addr);
    buf[MBX_OFF_CHPRIO] = (uint8_t)((h->channel & 0x3F) | (h->prio & 0x03) << 6);
    buf[MBX_OFF_TYPECNT] = (uint8_t)((h->type & 0x0F) | (h->cnt & 0x07) << 4);
}

uint8_t ecat_mbx_next_cnt(struct ecat_mbx_chan *ch)
{
    /* 0 is reserved ("counter not used", ETG.1000.6 5.6), so the sequence is 1..7 */
    ch->tx = (uint8_t)(ch->tx >= 7 ? 1 : ch->tx + 1);
    return ch->tx;
}

uint8_t ecat_mbx_repeat_req(struct ecat_mbx_chan *ch)
{
    ch->repeat ^= 1;
    return (uint8_t)(0x01 | ch->repeat << 1);
}

bool ecat_mbx_repeat_acked(const struct ecat_mbx_chan *ch, uint8_t sm1_act)
{
    return ((sm1_act >> 1) & 1) == ch->repeat;
}

bool ecat_mbx_poll_due(struct ecat_mbx_chan *ch, takt_ns_t now, takt_ns_t interval)
{
    if (now - ch->polled < interval)
        return false;
    ch->polled = now;
    return true;
}

bool ecat_mbx_rx_dup(struct ecat_mbx_chan *ch, uint8_t cnt)
{
    cnt &= 0x07;
    if (cnt == 0)
        return false;
    if (cnt == ch->rx)
        return true;
    ch->rx = cnt;
    return false;
}

bool ecat_mbx_rx_dup_msg(struct ecat_mbx_chan *ch, const uint8_t *buf, size_t n)
{
    struct ecat_mbx_hdr h;
    if (ecat_mbx_decode(buf, n, &h) < 0)
        return false;
    uint32_t hash = 2166136261u;     /* FNV-1a over header and payload */
    for (size_t i = 0; i < (size_t)MBX_HDR + h.len; i++)
        hash = (hash ^ buf[i]) * 16777619u;
    bool dup = h.cnt != 0 && h.cnt == ch->rx && hash == ch->rx_hash;
    if (!dup && h.cnt != 0) {
        ch->rx = h.cnt;
        ch->rx_hash = hash;
    }
    return dup;
}

/* Offsets in a mailbox error reply body (after the header): u16 type (= 1), u16 detail. */
enum { MBXERR_OFF_TYPE = MBX_HDR, MBXERR_OFF_DETAIL = MBX_HDR + 2, MBXERR_LEN = 4 };

int ecat_mbx_error_decode(const uint8_t *buf, size_t n, uint16_t *detail)
{
    struct ecat_mbx_hdr h;
    if (ecat_mbx_decode(buf, n, &h) < 0 || h.type != MBX_TYPE_ERR || h.len < MBXERR_LEN)
        return -EPROTO;
    *detail = get_le16(buf + MBXERR_OFF_DETAIL);
    return 0;
}

/* SOEM ec_print.c mailbox error table (ETG.1000.4 mailbox error reply) */
static const char *const mbx_err_text[] = {
    [0] = "unknown mailbox error",
    [1] = "syntax of the mailbox header is wrong",
    [2] = "mailbox protocol not supported",
    [3] = "channel field contains a wrong value",
    [4] = "service in the mailbox protocol not supported",
    [5] = "mailbox protocol header is wrong",
    [6] = "mailbox data too short",
    [7] = "mailbox protocol cannot be processed (no memory)",
    [8] = "length of the data is inconsistent",
};
_Static_assert(TAKT_ARRAY_SIZE(mbx_err_text) == 9, "mailbox error codes 0..8");

const char *ecat_mbx_error_text(uint16_t detail)
{
    if (detail < TAKT_ARRAY_SIZE(mbx_err_text))
        return mbx_err_text[detail];
    return "unknown mailbox error";
}

const char *ecat_mbx_type_name(uint8_t type)
{
    switch (type) {
    case MBX_TYPE_ERR: return "error";
    case MBX_TYPE_AOE: return "AoE";
    case MBX_TYPE_EOE: return "EoE";
    case MBX_TYPE_COE: return "CoE";
    case MBX_TYPE_FOE: return "FoE";
    case MBX_TYPE_SOE: return "SoE";
    case MBX_TYPE_VOE: return "VoE";
    default: return "unknown";
    }
}
