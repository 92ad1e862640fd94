/* Network scan: reset the bus to INIT, count slaves (BRD 0x0000), start one scan
 * machine per slave (address, ESC registers, SII), derive the topology, and parse each
 * SII image (identity, names, mailbox, SM, FMMU, PDO, DC; ETG.2010). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/master_internal.h"
#include "ecat/sii.h"
#include "util/wire.h"

/* --- network machine: one function per state ----------------------------------- */

static void enter_reset(struct ecat_core *m, takt_ns_t now)
{
    struct ecat_sfsm *f = &m->scan.f;
    static const uint8_t init_ack[2] = { AL_INIT | AL_ACK, 0 };
    memset(m->scan.big, 0, sizeof m->scan.big);
    /* as SOEM's scan does (ec_config.c): everything back to INIT, FMMUs/SMs/SYNC cleared, ECAT owns
     * the SII; the count comes from the BRD's WKC (ETG.1000.4 commands and working counter). */
    static const uint8_t filt[2] = { 0x00, 0x0C }, speed[2] = { 0x00, 0x10 };
    ecat_sfsm_req(f, 0, ECAT_BWR, 0, ESC_AL_CONTROL, init_ack, 2);
    ecat_req_init(&f->req[1], ECAT_BWR, 0, ESC_FMMU0, m->scan.big[0], 64);
    ecat_req_init(&f->req[2], ECAT_BWR, 0, ESC_SM0, m->scan.big[1], 64);
    ecat_sfsm_req(f, 3, ECAT_BWR, 0, ESC_DC_ACTIVATION, NULL, 1);
    ecat_sfsm_req(f, 4, ECAT_BWR, 0, ESC_SII_CONFIG, NULL, 1);
    /* in ethercrab's order: DC filter depths 0x0934 = 0x0C00, then the speed
     * counter start 0x0930 = 0x1000, which also resets the DC control loop */
    ecat_sfsm_req(f, 5, ECAT_BWR, 0, ESC_DC_DIFF_FILTER, filt, 2);
    ecat_sfsm_req(f, 6, ECAT_BWR, 0, ESC_DC_SPEED_START, speed, 2);
    ecat_sfsm_req(f, 7, ECAT_BRD, 0, ESC_TYPE, NULL, 2);
    f->nreq = 8;
    for (unsigned i = 0; i < f->nreq; i++)
        if (!m->o.keep_state || i == 4 || i == 7)   /* look only: SII access and count */
            ecat_req_queue(m, &f->req[i]);
    f->t0 = now;
    m->scan.state = MF_RESET;
}

static void state_reset(struct ecat_core *m, takt_ns_t now)
{
    struct ecat_sfsm *f = &m->scan.f;
    int n = f->req[7].wkc;
    if (n < 0) {
        if (++f->retries > 3) {
            ECAT_FAILT(m, -ETIMEDOUT, TAKT_ECAT_EV_COUNT_TIMEOUT, -1, RT_TXT(m->ifname), f->retries);
            m->scan.state = MF_IDLE;
            return;
        }
        enter_reset(m, now);
        return;
    }
    if ((unsigned)n > m->max_slaves) {
        ECAT_FAIL(m, -ENOSPC, TAKT_ECAT_EV_TOO_MANY_SLAVES, -1, n, m->max_slaves);
        m->scan.state = MF_IDLE;
        return;
    }
    m->n_slaves = (unsigned)n;
    m->rec.present = (unsigned)n;
    ecat_al_changed(m);             /* every slave's info is cleared below */
    ecat_coe_poll_clear(m);         /* and with it their mailboxes */
    for (unsigned i = 0; i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        uint8_t *sii = s->scan.sii;
        size_t cap = s->scan.sii_cap;
        struct ecat_plan plan = s->esm.plan;   /* storage reserved at open (esm.h) */
        memset(s, 0, sizeof *s);
        s->scan.sii = sii;
        s->scan.sii_cap = cap;
        s->esm.plan = plan;
        s->info.position = i;
        s->info.station = (uint16_t)(m->o.station_base + i);
        s->info.parent = -1;
        ecat_slave_scan_start(m, s, now);
    }
    m->scan.state = MF_SLAVES;
}

/* Port n active when DL status bits (8+2n, 9+2n) read "communication, loop open" (ETG.1000.4 DL status).
 * The frame enters a slave at port 0 and leaves through its other open ports in the
 * order 3, 1, 2 (ESC datasheet Section I, frame processing order), each one leading into a subtree that the positions number
 * depth first. So the parent of a slave is the nearest earlier slave with an open port
 * not yet used by an earlier child, and the port is the next one in that order (as
 * SOEM's and IgH's topology scans read it; the entry port is taken to be port 0). */
static const uint8_t port_order[3] = { 3, 1, 2 };

/* Index into port_order of the next open port from k on, 3 if none. */
static unsigned next_port(const struct ecat_slave *s, unsigned k)
{
    while (k < 3 && !(s->info.ports_open & (1u << port_order[k])))
        k++;
    return k;
}

static void topology(struct ecat_core *m)
{
    /* stack of slaves with ports left, with the index of their next port; a branch
     * point stays until its last port is taken, so the depth is the nesting of forks */
    enum { DEPTH = 256 };
    int stack[DEPTH];
    uint8_t next[DEPTH];
    unsigned sp = 0;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        struct ecat_slave *s = &m->slaves[i];
        s->info.ports_open = 0;
        for (int p = 0; p < 4; p++)
            if (((s->info.dl_status >> (8 + 2 * p)) & 3) == 2)
                s->info.ports_open |= (uint8_t)(1u << p);
        s->info.parent = -1;
        s->info.parent_port = 0;
        if (sp > 0) {
            const struct ecat_slave *ps = &m->slaves[stack[sp - 1]];
            s->info.parent = stack[sp - 1];
            s->info.parent_port = port_order[next[sp - 1]];
            next[sp - 1] = (uint8_t)next_port(ps, next[sp - 1] + 1u);
            while (sp > 0 && next[sp - 1] >= 3)
                sp--;                      /* every port of it used */
        }
        unsigned k = next_port(s, 0);
        if (k < 3 && sp < DEPTH) {
            stack[sp] = (int)i;
            next[sp++] = (uint8_t)k;
        }
    }
}

static void state_slaves(struct ecat_core *m, takt_ns_t now)
{
    (void)now;
    for (unsigned i = 0; i < m->n_slaves; i++) {
        uint8_t st = m->slaves[i].esm.f.state;
        if (st != SS_IDLE && st != SS_FAILED)
            return;
    }
    topology(m);
    m->scan.done = true;
    for (unsigned i = 0; i < m->n_slaves; i++)
        if (m->slaves[i].esm.f.state == SS_FAILED && !m->last_err)
            m->last_err = m->slaves[i].esm.f.err;
    m->scan.state = MF_IDLE;
}

static void state_idle(struct ecat_core *m, takt_ns_t now) { (void)m; (void)now; }

typedef void (*mf_fn)(struct ecat_core *m, takt_ns_t now);
static const mf_fn mf_states[MF_COUNT_STATES] = {
    [MF_IDLE] = state_idle, [MF_RESET] = state_reset, [MF_COUNT] = state_idle,
    [MF_ADDR] = state_idle, [MF_SLAVES] = state_slaves,
};
_Static_assert(TAKT_ARRAY_SIZE(mf_states) == MF_COUNT_STATES, "one function per network state");

void ecat_scan_start(struct ecat_core *m, takt_ns_t now)
{
    m->scan.done = m->configured = false;
    m->n_slaves = 0;
    ecat_coe_poll_clear(m);
    ecat_plan_cyc_free(m);        /* the next cycles: monitoring alone until the layout */
    m->last_err = 0;
    m->errmsg[0] = 0;
    m->scan.f.retries = 0;
    enter_reset(m, now);
}

void ecat_mfsm_step(struct ecat_core *m, takt_ns_t now)
{
    if (m->scan.state != MF_SLAVES && ecat_sfsm_pending(&m->scan.f))
        return;
    mf_states[m->scan.state](m, now);
}

/* --- SII (ETG.2010): decoded by sii.c; the master keeps what configuration needs ------ */

/* Output and input bits of a mapping, for the slave list before any layout. */
void ecat_map_bits(const struct ecat_pdo_map *map, uint32_t *out, uint32_t *in)
{
    *out = *in = 0;
    for (unsigned p = 0; p < map->n_pdo; p++)
        for (unsigned e = 0; e < map->pdo[p].n; e++)
            *(map->pdo[p].input ? in : out) += map->entry[map->pdo[p].first + e].bitlen;
}

int ecat_sii_grow(struct ecat_slave *s, size_t len)
{
    if (len <= s->scan.sii_cap)
        return 0;
    if (len > ECAT_SII_MAX_IMAGE)
        return -ENOMEM;
    size_t cap = s->scan.sii_cap ? s->scan.sii_cap : ECAT_SII_FIRST;
    while (cap < len)
        cap *= 2;
    uint8_t *p = realloc(s->scan.sii, cap);
    if (!p)
        return -ENOMEM;
    s->scan.sii = p;
    s->scan.sii_cap = cap;
    return 0;
}

int ecat_sii_parse(struct ecat_core *m, struct ecat_slave *s)
{
    struct ecat_sii *sii = m->sii_scratch;
    char err[200];
    int rc = ecat_sii_decode(s->scan.sii, s->scan.sii_len, sii, 0, err, sizeof err);
    if (rc) {
        ECAT_FAILT(m, rc, TAKT_ECAT_EV_SII_INVALID, s->info.position, RT_TXT(err), s->info.station);
        return rc;
    }
    /* every finding, with the slave it concerns (the image was kept as far as it decodes) */
    for (unsigned i = 0; i < sii->n_warnings && i < ECAT_SII_MAX_WARN; i++)
        ECAT_EVT(m, TAKT_ECAT_EV_SII_WARNING, s->info.position, RT_TXT(sii->warning[i]));
    if (sii->n_warnings > ECAT_SII_MAX_WARN)
        ECAT_EV(m, TAKT_ECAT_EV_SII_MORE_WARNINGS, s->info.position, sii->n_warnings - ECAT_SII_MAX_WARN);
    s->info.alias = sii->alias;
    s->info.vendor = sii->id.vendor;
    s->info.product = sii->id.product;
    s->info.revision = sii->id.revision;
    s->info.serial = sii->id.serial;
    s->info.mbx_out_start = sii->std_rx.offset;
    s->info.mbx_out_len = sii->std_rx.size;
    s->info.mbx_in_start = sii->std_tx.offset;
    s->info.mbx_in_len = sii->std_tx.size;
    s->info.mbx_protocols = sii->mbx_proto;
    ecat_coe_poll_note(m, (unsigned)(s - m->slaves));
    snprintf(s->info.name, sizeof s->info.name, "%s", ecat_sii_name(sii));
    s->scan.coe_details = sii->has_general ? sii->gen.coe_details : 0;
    s->scan.sii_flags = sii->has_general ? sii->gen.flags : 0;
    s->sm_out = s->sm_in = -1;
    s->n_pd = 0;
    s->n_fmmu_sii = sii->n_fmmu < ECAT_MAX_SM ? sii->n_fmmu : ECAT_MAX_SM;
    memcpy(s->fmmu_use, sii->fmmu, s->n_fmmu_sii);
    s->n_sm = sii->n_sm < ECAT_MAX_SM ? sii->n_sm : ECAT_MAX_SM;
    for (unsigned i = 0; i < s->n_sm; i++)
        s->sm[i] = (struct ecat_sm_cfg){ sii->sm[i].start, sii->sm[i].len, sii->sm[i].ctrl,
                                         sii->sm[i].enable, sii->sm[i].type };
    struct ecat_pdo_map *map = &m->maps[s - m->slaves];     /* by slave number, as the image */
    rc = ecat_pdo_map_from_sii(map, sii);
    if (rc) {
        ECAT_FAIL(m, rc, TAKT_ECAT_EV_SII_PDOS_TOO_MANY, s->info.position, ECAT_PDO_MAX_PDOS, ECAT_PDO_MAX_ENTRIES);
        return rc;
    }
    ecat_map_bits(map, &s->info.out_bits, &s->info.in_bits);
    return 0;
}
