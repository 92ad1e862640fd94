/* Cable redundancy (redund.c): a link over the master's two ports of a ring. Every
 * EtherCAT frame that opens with the master's frame-number NOP goes out of both ports;
 * the two copies that come back are merged datagram by datagram into the one reply the
 * master's reply matching sees. */
#ifndef TAKT_ECAT_REDUND_H
#define TAKT_ECAT_REDUND_H

#include <takt/ecat.h>
#include <takt/link.h>

/* The link over both ports (neither is owned: closing it closes neither). */
int  ecat_red_open(struct takt_link *first, struct takt_link *second, struct takt_link **out,
                   char *err, size_t errlen);
void ecat_red_get(const struct takt_link *l, struct takt_ecat_redundancy *out);

#endif
