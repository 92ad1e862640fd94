/* Cable redundancy's merge, command by command (the rig: redund_rig.h). Slaves with a
 * 2-byte register and a byte of logical inputs and outputs; each command goes out in a frame of its own, once through the closed ring and once through a ring
 * broken before slave K, and the merged reply and the slaves' registers afterwards must
 * be the closed ring's (ETG.1000.4: each slave executes the datagram once, in the one
 * copy that passes it, and adds to its WKC). ARMW is the exception the link defines:
 * the slaves on the side of the reading slave get the value read, the other side is not
 * written, and the WKC counts the reading side's slaves. So is FRMW (other than DC's),
 * once the link knows the reading station's side; before, the other side writes what
 * the master sent and its WKC is left out all the same. */
#include "redund_rig.h"

#define REG 0x0F80                  /* the register the commands address */

struct esc_set {
    uint8_t reg[N][2];
    uint8_t out[N];
};

static void esc_reset(struct esc_set *e)
{
    for (unsigned i = 0; i < N; i++) {
        e->reg[i][0] = (uint8_t)(0xB0 + i);
        e->reg[i][1] = (uint8_t)(0xC0 + i);
        e->out[i] = 0;
    }
}

static void wkc_add(struct ecat_dg *dg, unsigned n)
{
    put_le16(dg->wkc, (uint16_t)(get_le16(dg->wkc) + n));
}

/* Slaves from..to-1 execute copy c, as an ESC does in its processing unit. */
static void exec(struct rig *r, struct esc_set *e, int c, unsigned from, unsigned to)
{
    uint8_t *b = r->cp[c];
    for (unsigned i = from; i < to; i++) {
        struct ecat_dg dg;
        size_t pos;
        for (int rc = ecat_frame_first(b, r->len, &dg, &pos); rc == 0; rc = ecat_frame_next(b, r->len, &dg, &pos)) {
            uint8_t *reg = e->reg[i], tmp[2];
            bool here = dg.adp == 0, station = dg.adp == 0x1000 + i;
            switch (dg.cmd) {
            case ECAT_APRD: if (here) { memcpy(dg.data, reg, 2); wkc_add(&dg, 1); } break;
            case ECAT_APWR: if (here) { memcpy(reg, dg.data, 2); wkc_add(&dg, 1); } break;
            case ECAT_APRW:
                if (here) {
                    memcpy(tmp, reg, 2);
                    memcpy(reg, dg.data, 2);
                    memcpy(dg.data, tmp, 2);
                    wkc_add(&dg, 3);
                }
                break;
            case ECAT_ARMW:
                if (here)
                    memcpy(dg.data, reg, 2);
                else
                    memcpy(reg, dg.data, 2);
                wkc_add(&dg, 1);
                break;
            case ECAT_FPRD: if (station) { memcpy(dg.data, reg, 2); wkc_add(&dg, 1); } break;
            case ECAT_FRMW:         /* ETG.1000.4: the addressed slave reads, the others write */
                if (station)
                    memcpy(dg.data, reg, 2);
                else
                    memcpy(reg, dg.data, 2);
                wkc_add(&dg, 1);
                break;
            case ECAT_FPWR: if (station) { memcpy(reg, dg.data, 2); wkc_add(&dg, 1); } break;
            case ECAT_BRD:
                if (dg.ado == ESC_AL_STATUS)
                    dg.data[0] |= 0x08;
                else
                    for (int k = 0; k < 2; k++)
                        dg.data[k] |= reg[k];
                wkc_add(&dg, 1);
                break;
            case ECAT_BWR: memcpy(reg, dg.data, 2); wkc_add(&dg, 1); break;
            case ECAT_LRD: dg.data[i] = (uint8_t)(0x10 + i); wkc_add(&dg, 1); break;
            case ECAT_LWR: e->out[i] = dg.data[i]; wkc_add(&dg, 1); break;
            case ECAT_LRW:
                e->out[i] = dg.data[i];
                dg.data[i] = (uint8_t)(0x10 + i);
                wkc_add(&dg, 3);
                break;
            default: break;
            }
            if (dg.cmd >= ECAT_APRD && dg.cmd <= ECAT_APRW)
                put_le16(dg.hdr + 2, (uint16_t)(dg.adp + 1));
            if (dg.cmd == ECAT_ARMW)
                put_le16(dg.hdr + 2, (uint16_t)(dg.adp + 1));
        }
        b[6] |= 0x02;
    }
}

/* One command (after the frame-number NOP and the BRD that tells the sides). */
static void out_cmd(struct rig *r, uint8_t cmd, uint16_t adp, uint16_t ado)
{
    uint8_t f[TAKT_FRAME_BUF] = { 0 }, d[N] = { 0x5A, 0xA5, 0x33, 0x44 };
    size_t pos = ecat_frame_begin(f, r->a[0]->mac);
    ecat_frame_add(f, TAKT_ETH_MAX_FRAME, &pos, ECAT_NOP, 0, ++r->fno, 0, NULL);
    ecat_frame_add(f, TAKT_ETH_MAX_FRAME, &pos, ECAT_BRD, 1, (uint32_t)ESC_AL_STATUS << 16, 2, NULL);
    bool logical = cmd == ECAT_LRD || cmd == ECAT_LWR || cmd == ECAT_LRW;
    ecat_frame_add(f, TAKT_ETH_MAX_FRAME, &pos, cmd, 2, adp | (uint32_t)ado << 16,
                   logical ? N : 2, d);
    struct takt_frame tf = { .data = f, .len = (uint16_t)ecat_frame_end(f, pos), .cap = sizeof f };
    assert_int_equal(takt_link_send(r->red, &tf, 1), 1);
    for (int p = 0; p < 2; p++) {
        struct takt_frame g = { .data = r->cp[p], .cap = TAKT_FRAME_BUF };
        assert_int_equal(takt_link_recv(r->b[p], &g, 1, 0), 1);
        r->len = g.len;
    }
}

struct outcome {
    uint8_t  data[N];
    unsigned wkc;
    struct esc_set e;
};

/* The command's datagram of the reply. */
static void take_reply(struct rig *r, struct outcome *o)
{
    uint8_t buf[TAKT_FRAME_BUF];
    struct takt_frame f;
    assert_int_equal(get(r, buf, &f), 1);
    assert_int_equal(f.ts, FAKE);
    struct ecat_dg dg;
    size_t pos;
    for (int rc = ecat_frame_first(buf, f.len, &dg, &pos); rc == 0; rc = ecat_frame_next(buf, f.len, &dg, &pos))
        if (dg.idx == 2) {
            memset(o->data, 0, sizeof o->data);
            memcpy(o->data, dg.data, dg.len);
            o->wkc = get_le16(dg.wkc);
        }
}

static void run_closed(uint8_t cmd, uint16_t adp, uint16_t ado, struct outcome *o)
{
    struct rig *r = rig_new();
    intact(r);
    whole(r, "intact");
    esc_reset(&o->e);
    out_cmd(r, cmd, adp, ado);
    exec(r, &o->e, 0, 0, N);
    back(r, 0, 1);
    back(r, 1, 0);
    take_reply(r, o);
    rig_free(r);
}

static void run_broken(unsigned k, uint8_t cmd, uint16_t adp, uint16_t ado, struct outcome *o)
{
    struct rig *r = broken_rig(k);
    esc_reset(&o->e);
    out_cmd(r, cmd, adp, ado);
    exec(r, &o->e, 0, 0, k);
    exec(r, &o->e, 1, k, N);
    back(r, 0, 0);
    back(r, 1, 1);
    take_reply(r, o);
    rig_free(r);
}

static const char *cmd_name(uint8_t cmd)
{
    static const char *n[] = { "NOP", "APRD", "APWR", "APRW", "FPRD", "FPWR", "FPRW", "BRD",
                               "BWR", "BRW", "LRD", "LWR", "LRW", "ARMW", "FRMW" };
    return cmd < sizeof n / sizeof n[0] ? n[cmd] : "?";
}

static void same(const struct outcome *a, const struct outcome *b, const char *what)
{
    if (a->wkc != b->wkc || memcmp(a->data, b->data, N) || memcmp(&a->e, &b->e, sizeof a->e))
        fail_msg("%s: WKC %u (closed ring %u), data %02x %02x %02x %02x (closed %02x %02x %02x %02x), "
                 "registers %s", what, b->wkc, a->wkc, b->data[0], b->data[1], b->data[2], b->data[3],
                 a->data[0], a->data[1], a->data[2], a->data[3],
                 memcmp(&a->e, &b->e, sizeof a->e) ? "differ" : "the same");
}

static void each_command(void **state)
{
    (void)state;
    static const uint8_t positional[] = { ECAT_APRD, ECAT_APWR, ECAT_APRW };
    static const uint8_t stationed[] = { ECAT_FPRD, ECAT_FPWR };
    static const uint8_t broadcast[] = { ECAT_BRD, ECAT_BWR, ECAT_LRD, ECAT_LWR, ECAT_LRW };
    char what[96];
    for (unsigned k = 1; k < N; k++) {
        struct outcome a, b;
        for (unsigned c = 0; c < 3; c++)
            for (unsigned t = 0; t < N; t++) {
                snprintf(what, sizeof what, "%s of position %u, broken before slave %u",
                         cmd_name(positional[c]), t, k);
                run_closed(positional[c], (uint16_t)(0 - t), REG, &a);
                run_broken(k, positional[c], (uint16_t)(0 - t), REG, &b);
                same(&a, &b, what);
            }
        for (unsigned c = 0; c < 2; c++)
            for (unsigned t = 0; t < N; t++) {
                snprintf(what, sizeof what, "%s of station 0x%04x, broken before slave %u",
                         cmd_name(stationed[c]), 0x1000 + t, k);
                run_closed(stationed[c], (uint16_t)(0x1000 + t), REG, &a);
                run_broken(k, stationed[c], (uint16_t)(0x1000 + t), REG, &b);
                same(&a, &b, what);
            }
        for (unsigned c = 0; c < 5; c++) {
            snprintf(what, sizeof what, "%s, broken before slave %u", cmd_name(broadcast[c]), k);
            bool logical = broadcast[c] >= ECAT_LRD;
            run_closed(broadcast[c], 0, logical ? 0 : REG, &a);
            run_broken(k, broadcast[c], 0, logical ? 0 : REG, &b);
            same(&a, &b, what);
        }
        printf("  broken before slave %u: APRD/APWR/APRW, FPRD/FPWR, BRD/BWR, LRD/LWR/LRW as in the closed ring\n", k);
    }
}

/* ARMW: the reading slave's value reaches the slaves after it on its side; the other
 * side keeps its registers (none gets what the master put in the frame). */
static void armw_across_break(void **state)
{
    (void)state;
    for (unsigned k = 1; k < N; k++)
        for (unsigned t = 0; t < N; t++) {
            struct outcome b;
            run_broken(k, ECAT_ARMW, (uint16_t)(0 - t), REG, &b);
            bool near = t < k;
            unsigned lo = near ? 0 : k, hi = near ? k : N;
            printf("  ARMW of position %u, broken before slave %u: WKC %u, read %02x %02x\n", t, k,
                   b.wkc, b.data[0], b.data[1]);
            assert_int_equal(b.wkc, hi - lo);
            assert_int_equal(b.data[0], 0xB0 + t);
            assert_int_equal(b.data[1], 0xC0 + t);
            for (unsigned i = 0; i < N; i++) {
                uint8_t want0 = (uint8_t)(0xB0 + i), want1 = (uint8_t)(0xC0 + i);
                if (i > t && i >= lo && i < hi) {
                    want0 = (uint8_t)(0xB0 + t);      /* after the reader, on its side */
                    want1 = (uint8_t)(0xC0 + t);
                } else if (i < t && i >= lo && i < hi) {
                    want0 = 0x5A;                      /* before it: what the master sent, */
                    want1 = 0xA5;                      /* as in a closed ring */
                }
                if (b.e.reg[i][0] != want0 || b.e.reg[i][1] != want1)
                    fail_msg("ARMW of position %u, broken before slave %u: slave %u holds %02x %02x, "
                             "expected %02x %02x", t, k, i, b.e.reg[i][0], b.e.reg[i][1], want0, want1);
            }
        }
}

/* FRMW of station t through a ring broken before slave k; with `learn`, an FPRD of that
 * station went first (the link learns its side from the WKC). */
static void run_frmw(unsigned k, unsigned t, bool learn, struct outcome *o,
                     struct takt_ecat_redundancy *st)
{
    struct rig *r = broken_rig(k);
    esc_reset(&o->e);
    uint16_t station = (uint16_t)(0x1000 + t);
    if (learn) {
        out_cmd(r, ECAT_FPRD, station, REG);
        exec(r, &o->e, 0, 0, k);
        exec(r, &o->e, 1, k, N);
        back(r, 0, 0);
        back(r, 1, 1);
        take_reply(r, o);
    }
    out_cmd(r, ECAT_FRMW, station, REG);
    exec(r, &o->e, 0, 0, k);
    exec(r, &o->e, 1, k, N);
    back(r, 0, 0);
    back(r, 1, 1);
    take_reply(r, o);
    ecat_red_get(r->red, st);
    rig_free(r);
}

/* FRMW: the value read reaches the slaves after the reader on its side (before it, what
 * the master sent, as in a closed ring); the other side cannot get it in the same frame.
 * Once the station's side is known, that side is not written; before, it writes the
 * master's placeholder. Either way the WKC counts the reading side's slaves only, and
 * the link notes the FRMW once for the master to report. */
static void frmw_across_break(void **state)
{
    (void)state;
    for (unsigned k = 1; k < N; k++)
        for (unsigned t = 0; t < N; t++)
            for (int learn = 0; learn < 2; learn++) {
                struct outcome b;
                struct takt_ecat_redundancy st;
                run_frmw(k, t, learn, &b, &st);
                bool near = t < k;
                unsigned lo = near ? 0 : k, hi = near ? k : N;
                printf("  FRMW of station 0x%04X, broken before slave %u%s: WKC %u, read %02x %02x, "
                       "partial %llu noted %llu (station 0x%04X side %u)\n", 0x1000 + t, k,
                       learn ? ", its side known" : "", b.wkc, b.data[0], b.data[1],
                       (unsigned long long)st.frmw_partial, (unsigned long long)st.frmw_noted,
                       st.frmw_station, st.frmw_side);
                assert_int_equal(b.wkc, hi - lo);
                assert_int_equal(b.data[0], 0xB0 + t);
                assert_int_equal(b.data[1], 0xC0 + t);
                assert_int_equal(st.frmw_partial, 1);
                assert_int_equal(st.frmw_noted, 1);
                assert_int_equal(st.frmw_station, 0x1000 + t);
                assert_int_equal(st.frmw_ado, REG);
                assert_int_equal(st.frmw_side, near ? 0 : 1);
                for (unsigned i = 0; i < N; i++) {
                    uint8_t want0 = (uint8_t)(0xB0 + i), want1 = (uint8_t)(0xC0 + i);
                    bool mine = i >= lo && i < hi;
                    if (mine && i > t) {
                        want0 = (uint8_t)(0xB0 + t);      /* after the reader, on its side */
                        want1 = (uint8_t)(0xC0 + t);
                    } else if ((mine && i < t) || (!mine && !learn)) {
                        want0 = 0x5A;                      /* what the master sent */
                        want1 = 0xA5;
                    }
                    if (b.e.reg[i][0] != want0 || b.e.reg[i][1] != want1)
                        fail_msg("FRMW of station 0x%04X, broken before slave %u%s: slave %u holds "
                                 "%02x %02x, expected %02x %02x", 0x1000 + t, k,
                                 learn ? ", its side known" : "", i, b.e.reg[i][0], b.e.reg[i][1],
                                 want0, want1);
                }
            }
}

/* In a closed ring the FRMW is as ETG.1000.4 has it, and nothing is noted. */
static void frmw_closed(void **state)
{
    (void)state;
    for (unsigned t = 0; t < N; t++) {
        struct outcome a;
        run_closed(ECAT_FRMW, (uint16_t)(0x1000 + t), REG, &a);
        assert_int_equal(a.wkc, N);
        assert_int_equal(a.data[0], 0xB0 + t);
        for (unsigned i = 0; i < N; i++)
            assert_int_equal(a.e.reg[i][0], i < t ? 0x5A : 0xB0 + t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_command),
        cmocka_unit_test(armw_across_break),
        cmocka_unit_test(frmw_across_break),
        cmocka_unit_test(frmw_closed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
