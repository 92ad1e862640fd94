/* pcapng block encoders (see pcapng.h for why libpcap is not used to write them).
 * All fields little-endian; the SHB byte-order magic tells readers so. */
#include <string.h>
#include "link/pcapng.h"
#include "util/wire.h"

/* Block types and option codes: draft-ietf-opsawg-pcapng §4.1, §4.2, §4.3. */
#define BT_SHB        0x0A0D0D0Au
#define BT_IDB        0x00000001u
#define BT_EPB        0x00000006u
#define BOM           0x1A2B3C4Du
#define OPT_END       0
#define SHB_USERAPPL  4
#define IF_NAME       2
#define IF_TSRESOL    9     /* 1 byte: 9 = 10^-9 s */
#define EPB_FLAGS     2     /* u32: bits 0-1 direction */
#define LINKTYPE_ETHERNET 1

static size_t pad4(size_t n) { return (n + 3) & ~(size_t)3; }

/* Option: code, length, value padded to 32 bits. */
static size_t put_opt(uint8_t *p, uint16_t code, const void *val, uint16_t len)
{
    put_le16(p, code);
    put_le16(p + 2, len);
    memcpy(p + 4, val, len);
    memset(p + 4 + len, 0, pad4(len) - len);
    return 4 + pad4(len);
}

static size_t finish(uint8_t *buf, size_t off)
{
    put_le16(buf + off, OPT_END);
    put_le16(buf + off + 2, 0);
    off += 4;
    uint32_t total = (uint32_t)(off + 4);
    put_le32(buf + 4, total);
    put_le32(buf + off, total);   /* trailing copy of the length */
    return total;
}

size_t pcapng_shb(uint8_t *buf, size_t cap, const char *userappl)
{
    size_t ul = strnlen(userappl, 200);
    if (cap < 28 + 4 + pad4(ul) + 8)
        return 0;
    put_le32(buf, BT_SHB);
    put_le32(buf + 8, BOM);
    put_le16(buf + 12, 1);               /* major */
    put_le16(buf + 14, 0);               /* minor */
    put_le64(buf + 16, UINT64_MAX);      /* section length unknown (-1) */
    size_t off = 24;
    off += put_opt(buf + off, SHB_USERAPPL, userappl, (uint16_t)ul);
    return finish(buf, off);
}

size_t pcapng_idb(uint8_t *buf, size_t cap, const char *ifname, uint32_t snaplen)
{
    size_t nl = strnlen(ifname, 64);
    if (cap < 16 + 4 + pad4(nl) + 8 + 8)
        return 0;
    put_le32(buf, BT_IDB);
    put_le16(buf + 8, LINKTYPE_ETHERNET);
    put_le16(buf + 10, 0);
    put_le32(buf + 12, snaplen);
    size_t off = 16;
    off += put_opt(buf + off, IF_NAME, ifname, (uint16_t)nl);
    uint8_t res = 9;
    off += put_opt(buf + off, IF_TSRESOL, &res, 1);
    return finish(buf, off);
}

size_t pcapng_epb(uint8_t *buf, size_t cap, uint64_t ts_ns, const uint8_t *data,
                  uint32_t len, int dir)
{
    if (cap < PCAPNG_EPB_MAX(len))
        return 0;
    put_le32(buf, BT_EPB);
    put_le32(buf + 8, 0);                         /* interface id */
    put_le32(buf + 12, (uint32_t)(ts_ns >> 32));  /* timestamp high */
    put_le32(buf + 16, (uint32_t)ts_ns);          /* timestamp low */
    put_le32(buf + 20, len);                      /* captured */
    put_le32(buf + 24, len);                      /* original */
    memcpy(buf + 28, data, len);
    memset(buf + 28 + len, 0, pad4(len) - len);
    size_t off = 28 + pad4(len);
    uint8_t flags[4];
    put_le32(flags, (uint32_t)dir);
    off += put_opt(buf + off, EPB_FLAGS, flags, 4);
    return finish(buf, off);
}
