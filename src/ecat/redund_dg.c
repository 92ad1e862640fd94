/* Cable redundancy, datagram by datagram (the link itself: redund.c): one datagram's
 * two copies merged, a copy checked against its frame's shape, and an FRMW other than
 * the distributed clocks' across a break.
 *
 * The FRMW (ETG.1000.4, configured address physical read multiple write): the slave
 * whose station address the datagram carries reads into the frame, every other slave
 * writes what the frame holds as it passes. With the ring broken the value read travels
 * in one copy only, so the slaves on the other side of the break cannot get it in the
 * same frame: what they would write is the master's placeholder. Such an FRMW is
 * therefore executed on the reading slave's side only, as the ARMW is (redund.c): the
 * other copy carries it as NOP, those slaves keep what they hold, and the WKC counts the
 * reading side's slaves, so a master that expects every slave's sees a partial write.
 * Which side a station is on is learned from the station-addressed reads and writes
 * whose WKC one copy raised; an FRMW whose station is not known yet goes both ways, and
 * the merge leaves the other side's WKC out (those slaves wrote the placeholder). Each
 * such FRMW (station, register) is noted once per ring state for the master to report. */
#include <string.h>
#include "ecat/frame.h"
#include "ecat/proto.h"
#include "ecat/redund.h"
#include "util/wire.h"

void red_merge_dg(uint8_t cmd, uint8_t *out, const uint8_t *c0, const uint8_t *c1,
                     const uint8_t *sent, uint16_t len)
{
    bool bcast = cmd == ECAT_BRD || cmd == ECAT_BRW;
    for (uint16_t i = 0; i < len; i++)
        out[i] = bcast ? (uint8_t)(c0[i] | c1[i]) : (uint8_t)(c0[i] ^ c1[i] ^ sent[i]);
}

/* A copy has the sent frame's datagrams, commands aside (the second copy may carry NOPs),
 * at the same places with the same lengths: no slave changes them, so anything else is
 * a damaged frame, and the merge walks all of them in step. */
bool red_same_shape(uint8_t *sent, uint8_t *cp, size_t len)
{
    struct ecat_dg a, b;
    size_t pa, pb;
    int ra = ecat_frame_first(sent, len, &a, &pa), rb = ecat_frame_first(cp, len, &b, &pb);
    while (ra == 0 && rb == 0) {
        if (a.len != b.len || a.data - sent != b.data - cp)
            return false;
        ra = ecat_frame_next(sent, len, &a, &pa);
        rb = ecat_frame_next(cp, len, &b, &pb);
    }
    return ra == rb;
}

void red_frmw_reset(struct red_frmw *f)
{
    memset(f, 0, sizeof *f);
}

bool red_frmw_is(const struct ecat_dg *dg)
{
    return dg->cmd == ECAT_FRMW && dg->ado != ESC_DC_SYS_TIME;
}

int red_frmw_side(const struct red_frmw *f, uint16_t station)
{
    uint8_t bit = (uint8_t)(1u << (station & 7));
    if (!(f->known[station >> 3] & bit))
        return -1;
    return f->first[station >> 3] & bit ? 0 : 1;
}

/* ds as sent, d0/d1 as the copies of a broken ring (each looped on its port) brought it. */
void red_frmw_learn(struct red_frmw *f, const struct ecat_dg *ds, const struct ecat_dg *d0,
                    const struct ecat_dg *d1)
{
    if (ds->cmd != ECAT_FPRD && ds->cmd != ECAT_FPWR && ds->cmd != ECAT_FPRW)
        return;
    unsigned w = get_le16(ds->wkc), w0 = get_le16(d0->wkc), w1 = get_le16(d1->wkc);
    if ((w0 > w) == (w1 > w))
        return;                     /* no slave answered, or a station on both sides */
    uint16_t st = ds->adp;
    uint8_t bit = (uint8_t)(1u << (st & 7));
    f->known[st >> 3] |= bit;
    if (w0 > w)
        f->first[st >> 3] |= bit;
    else
        f->first[st >> 3] &= (uint8_t)~bit;
}

unsigned red_frmw_merge(struct red_frmw *f, struct takt_ecat_redundancy *st,
                        const struct ecat_dg *ds, const struct ecat_dg *d0, const struct ecat_dg *d1,
                        unsigned w)
{
    int side;
    if (d1->hdr[0] == ECAT_NOP)
        side = 0;                   /* sent so: the station is known on the first side */
    else if (d0->hdr[0] == ECAT_NOP)
        side = 1;
    else if (memcmp(d0->data, ds->data, ds->len))
        side = 0;                   /* read into the first copy */
    else if (memcmp(d1->data, ds->data, ds->len))
        side = 1;
    else
        return w;                   /* no reader, or it read the placeholder: all true */
    unsigned other = side ? st->first_side : st->second_side;
    if (!other)
        return w;
    st->frmw_partial++;
    for (unsigned i = 0; i < f->n_noted; i++)
        if (f->noted[i].station == ds->adp && f->noted[i].ado == ds->ado)
            return get_le16(side ? d1->wkc : d0->wkc);
    if (f->n_noted < RED_FRMW_NOTED) {
        f->noted[f->n_noted].station = ds->adp;
        f->noted[f->n_noted++].ado = ds->ado;
    }
    st->frmw_noted++;
    st->frmw_station = ds->adp;
    st->frmw_ado = ds->ado;
    st->frmw_side = (uint8_t)side;
    /* the reading side's slaves only; the other side's wrote nothing or the placeholder */
    return get_le16(side ? d1->wkc : d0->wkc);
}
