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

/* Datagram by datagram (redund_dg.c): a datagram's two copies merged into out (both
 * sides' writes: first ^ second ^ sent; a broadcast read: first | second); whether a
 * copy has the sent frame's datagrams at the same places with the same lengths. */
void red_merge_dg(uint8_t cmd, uint8_t *out, const uint8_t *c0, const uint8_t *c1,
                  const uint8_t *sent, uint16_t len);
bool red_same_shape(uint8_t *sent, uint8_t *cp, size_t len);

/* FRMW (other than DC's) across a break: redund_dg.c. Per station, the side of the
 * ring it was last seen on while broken; the FRMWs noted for the master. */
#define RED_FRMW_NOTED 16
struct red_frmw {
    uint8_t known[8192], first[8192];   /* a bit per station address */
    struct { uint16_t station, ado; } noted[RED_FRMW_NOTED];
    unsigned n_noted;
};
struct ecat_dg;
void red_frmw_reset(struct red_frmw *f);
/* An FRMW other than the distributed clocks' of 0x0910. */
bool red_frmw_is(const struct ecat_dg *dg);
/* -1 not known, 0 the first port's side, 1 the second's. */
int  red_frmw_side(const struct red_frmw *f, uint16_t station);
void red_frmw_learn(struct red_frmw *f, const struct ecat_dg *ds, const struct ecat_dg *d0,
                    const struct ecat_dg *d1);
/* An FRMW of a broken ring merged: the WKC w of the merge, or the reading side's only
 * when the other side has slaves (counted and noted in *st). */
unsigned red_frmw_merge(struct red_frmw *f, struct takt_ecat_redundancy *st,
                        const struct ecat_dg *ds, const struct ecat_dg *d0, const struct ecat_dg *d1,
                        unsigned w);

#endif
