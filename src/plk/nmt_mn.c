/* MN NMT state machine (DS 301 7.1.3, as openPOWERLINK nmtmnu.c drives it on the wire):
 * one function per state decides, once per cycle, whether the MN moves on. */
#include "plk/mn.h"

/* Boot times of 0x1F89 (µs) as ns. */
static takt_ns_t boot_ns(const struct plk_mn *mn, unsigned sub)
{
    return (takt_ns_t)mn->cfg.boot_time_us[sub] * 1000;
}

static bool all(const struct plk_mn *mn, bool mandatory_only, enum plk_mn_step min)
{
    for (unsigned i = 0; i < mn->n_ids; i++) {
        const struct plk_mn_node *n = mn->node[mn->ids[i]];
        if (mandatory_only && !n->cfg->mandatory)
            continue;
        if (n->step < min)
            return false;
    }
    return true;
}

static unsigned n_mandatory(const struct plk_mn *mn)
{
    unsigned k = 0;
    for (unsigned i = 0; i < mn->n_ids; i++)
        k += mn->node[mn->ids[i]]->cfg->mandatory;
    return k;
}

/* MS_NOT_ACTIVE: listen for another MN for MNWaitNotAct (0x1F89/1), NMT_MT2. */
static uint8_t st_not_active(struct plk_mn *mn, takt_ns_t now)
{
    if (now - mn->state_since >= boot_ns(mn, PLK_BT_MN_WAIT_NOT_ACT))
        return PLK_NMT_PRE_OPERATIONAL_1;
    return mn->state;
}

/* MS_PRE_OPERATIONAL_1: SoA only; identify. NMT_MT3 to PreOp2 once the mandatory CNs
 * are identified and either all CNs are or MNWaitPreOp1 (0x1F89/3) passed. */
static uint8_t st_preop1(struct plk_mn *mn, takt_ns_t now)
{
    if (!mn->reset_sent || mn->preop1_cycles < 12)
        return mn->state;
    if (!all(mn, true, MNS_IDENTIFIED))
        return mn->state;
    if (all(mn, false, MNS_IDENTIFIED) ||
        now - mn->state_since >= boot_ns(mn, PLK_BT_MN_WAIT_PREOP1))
        return PLK_NMT_PRE_OPERATIONAL_2;
    return mn->state;
}

/* MS_PRE_OPERATIONAL_2: full cycle; CNs configured. NMT_MT4 to ReadyToOperate once the
 * mandatory CNs are ReadyToOperate; without mandatory CNs when all are, or after
 * MNTimeoutReadyToOp (0x1F89/5) so optional CNs join later. */
static uint8_t st_preop2(struct plk_mn *mn, takt_ns_t now)
{
    if (mn->cfg.startup & PLK_SU_NO_AUTO_READYTOP)
        return mn->state;
    if (!all(mn, true, MNS_READY))
        return mn->state;
    if (n_mandatory(mn) || all(mn, false, MNS_READY) ||
        now - mn->state_since >= boot_ns(mn, PLK_BT_MN_TIMEOUT_READY_TO_OP))
        return PLK_NMT_READY_TO_OPERATE;
    return mn->state;
}

/* MS_READY_TO_OPERATE: NMT_MT5 to Operational at the next cycle unless 0x1F80 says
 * no autostart. */
static uint8_t st_ready(struct plk_mn *mn, takt_ns_t now)
{
    (void)now;
    if (mn->cfg.startup & PLK_SU_NO_AUTOSTART)
        return mn->state;
    return PLK_NMT_OPERATIONAL;
}

static uint8_t st_operational(struct plk_mn *mn, takt_ns_t now)
{
    (void)now;
    return mn->state;
}

void plk_mn_reset_all(struct plk_mn *mn, takt_ns_t now)
{
    for (unsigned i = 0; i < mn->n_ids; i++) {
        struct plk_mn_node *n = mn->node[mn->ids[i]];
        plk_mn_node_reset(mn, n, now);
        /* the broadcast NMTResetNode of PreOp1 resets them: no per-node command */
        n->nmt_cmd = 0;
        n->retry_at = 0;
        n->conf_reset_done = false;
    }
    mn->st.nodes_operational = 0;
    mn->reset_sent = false;
    mn->preop1_cycles = 0;
    mn->mux_idx = 0;            /* the next SoC starts a new multiplexed round */
}

void plk_mn_set_state(struct plk_mn *mn, takt_ns_t now, uint8_t s)
{
    if (s == mn->state)
        return;
    uint8_t old = mn->state;
    mn->state = s;
    mn->state_since = now;
    mn->st.state = s;
    /* NMT_MT6: cycle error or lost mandatory CN -> PreOp1, every CN reset and
     * identified again */
    if (s == PLK_NMT_PRE_OPERATIONAL_1 && old != PLK_NMT_NOT_ACTIVE)
        plk_mn_reset_all(mn, now);
}

void plk_mn_nmt_eval(struct plk_mn *mn, takt_ns_t now)
{
    uint8_t next = mn->state;
    switch (mn->state) {
    case PLK_NMT_NOT_ACTIVE:         next = st_not_active(mn, now); break;
    case PLK_NMT_PRE_OPERATIONAL_1:  next = st_preop1(mn, now); break;
    case PLK_NMT_PRE_OPERATIONAL_2:  next = st_preop2(mn, now); break;
    case PLK_NMT_READY_TO_OPERATE:   next = st_ready(mn, now); break;
    case PLK_NMT_OPERATIONAL:        next = st_operational(mn, now); break;
    default:                         next = PLK_NMT_NOT_ACTIVE; break;
    }
    plk_mn_set_state(mn, now, next);
    plk_mn_boot_tick(mn, now);
}
