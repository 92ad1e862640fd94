/* Internals shared by the link implementations (packet, mem, capture): padding rule,
 * error-message helper and the per-kind open functions behind takt_link_open(). */
#ifndef TAKT_LINK_INTERNAL_H
#define TAKT_LINK_INTERNAL_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <takt/link.h>

/* Most frames one send/recv call hands to the kernel at once; larger batches loop. */
#define LINK_BATCH_MAX 64

/* Length a frame has on the wire: short frames are padded to the Ethernet minimum
 * (IEEE 802.3 clause 3.2.8: 64 bytes with FCS, so 60 without). */
static inline unsigned link_wire_len(unsigned len)
{ return len < TAKT_ETH_MIN_FRAME ? TAKT_ETH_MIN_FRAME : len; }

/* Validate one frame to send: data present, 1..TAKT_ETH_MAX_FRAME bytes. */
static inline int link_check_tx(const struct takt_frame *f)
{
    if (!f->data || f->len == 0)
        return -EINVAL;
    if (f->len > TAKT_ETH_MAX_FRAME)
        return -EMSGSIZE;
    return 0;
}

/* snprintf into err (if given); returns `code` so callers can `return link_err(...)`. */
int link_err(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

int link_packet_open(const char *ifname, const struct takt_link_opts *o,
                     struct takt_link **out, char *err, size_t errlen);

#endif
