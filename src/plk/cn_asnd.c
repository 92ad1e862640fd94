/* CN asynchronous side: answers to SoA invitations (IdentResponse, StatusResponse,
 * SyncResponse, SDO replies), the SDO server on the CN's object dictionary and the
 * reactions to configuration writes (cycle length, mapping, thresholds). */
#include <errno.h>
#include <string.h>
#include "plk/cn_int.h"
#include "util/wire.h"

static void asnd_msg(struct plk_cn *cn, struct plk_msg *m, uint8_t dst, uint8_t svid)
{
    memset(m, 0, sizeof *m);
    memcpy(m->src_mac, cn->mac, 6);
    m->mtyp = PLK_MTYP_ASND;
    m->dst = dst;
    m->src = cn->cfg.id;
    m->u.asnd.svid = svid;
}

/* IdentResponse (EPSG DS 301): identity from 0x1000/0x1018, sizes from the mapping. */
static void send_ident(struct plk_cn *cn, takt_ns_t now, struct plk_txq *q)
{
    struct plk_msg m;
    asnd_msg(cn, &m, PLK_NODE_BROADCAST, PLK_ASND_IDENT_RESPONSE);
    struct plk_ident_response *r = &m.u.asnd.u.ident;
    r->flags2 = plk_cn_flags2(cn, now);   /* flag1 0, as openPOWERLINK's demo CN sends it */
    r->nmt_state = cn->state;
    r->profile_version = PLK_EPL_VERSION;
    r->feature_flags = plk_od_u32(&cn->od, PLK_OD_FEATURE_FLAGS, 0, PLK_FEAT_OPLK_DEMO_CN);
    r->mtu = 1500;
    r->poll_in_size = PLK_PAYLOAD_LIMIT_MIN;
    r->poll_out_size = PLK_PAYLOAD_LIMIT_MIN;
    r->response_time = 50000;
    r->device_type = cn->cfg.device_type;
    r->vendor_id = cn->cfg.vendor_id;
    if (cn->faults.wrong_identity)
        r->vendor_id ^= 0x00BAD000;   /* simulated wrong device on this node ID */
    r->product_code = cn->cfg.product_code;
    r->revision_no = cn->cfg.revision;
    r->serial_no = cn->cfg.serial;
    r->conf_date = plk_od_u32(&cn->od, PLK_OD_VERIFY_CONF, 1, 0);
    r->conf_time = plk_od_u32(&cn->od, PLK_OD_VERIFY_CONF, 2, 0);
    /* 192.168.100.<id>/24, gateway .254, as openPOWERLINK's CN announces */
    r->ip_address = 0xC0A86400u | cn->cfg.id;
    r->subnet_mask = 0xFFFFFF00u;
    r->default_gateway = 0xC0A864FEu;
    snprintf(r->hostname, sizeof r->hostname, "%02x-takt", cn->cfg.id);
    if (plk_txq_encode(q, &m))
        cn->st.ident_tx++;
}

/* Error signaling initialisation (DS 301 6.5; oplk dllkframe.c processReceivedSoa and
 * the MN's ERRSIG_INIT_WAIT_EC1/EC0 states): when the MN's ER flag in a StatusRequest to
 * this CN changes, EC follows it (ER=1 -> EC=1, ER=0 -> Flag1 cleared). An openPOWERLINK
 * MN keeps asking with ER=1 until it sees EC=1, and resets a CN that never confirms. */
static void send_status(struct plk_cn *cn, takt_ns_t now, const struct plk_soa *soa,
                        struct plk_txq *q)
{
    uint8_t er = soa->flags1 & PLK_F1_ER;
    if (er != cn->mn_er) {
        cn->sres_flags1 = er ? PLK_F1_EC : 0;
        if (er)
            cn->en = false;   /* ER=1 restarts error signaling: EC set, the rest clear */
    }
    cn->mn_er = er;
    plk_cn_ea(cn, soa->flags1);
    struct plk_msg m;
    asnd_msg(cn, &m, PLK_NODE_BROADCAST, PLK_ASND_STATUS_RESPONSE);
    struct plk_status_response *s = &m.u.asnd.u.status;
    s->flags1 = (uint8_t)(cn->sres_flags1 | (cn->en ? PLK_F1_EN : 0));
    s->flags2 = plk_cn_flags2(cn, now);
    s->nmt_state = cn->state;
    s->n_entries = cn->n_err;   /* history entries until the MN acknowledges them */
    memcpy(s->entries, cn->err, cn->n_err * sizeof cn->err[0]);
    if (plk_txq_encode(q, &m)) {
        cn->st.status_tx++;
        cn->err_sent = cn->n_err > 0;
    }
}

static bool send_sdo(struct plk_cn *cn, takt_ns_t now, struct plk_txq *q)
{
    int n = plk_sdo_server_tx(&cn->sdo, cn->sdo_buf, sizeof cn->sdo_buf, now);
    if (n <= 0)
        return false;
    struct plk_msg m;
    asnd_msg(cn, &m, PLK_NODE_MN, PLK_ASND_SDO);
    memcpy(m.dst_mac, cn->mn_mac, 6);   /* unicast to the MN once known */
    m.u.asnd.u.raw.data = cn->sdo_buf;
    m.u.asnd.u.raw.len = (uint16_t)n;
    if (!plk_txq_encode(q, &m))
        return false;
    cn->st.asnd_tx++;
    return true;
}

/* SyncRequest (EPSG DS 302-C): PResModeSet switches the CN to chained mode, where
 * the PResMN triggers its PRes PResTimeFirst ns later; answered by a SyncResponse. */
static void on_sync_request(struct plk_cn *cn, const struct plk_soa *soa, struct plk_txq *q)
{
    const struct plk_sync_request *s = &soa->sync;
    if (s->sync_control & PLK_SYNC_PRES_TIME_FIRST_VALID)
        cn->pres_time_first_ns = s->pres_time_first;
    if (s->sync_control & PLK_SYNC_PRES_MODE_SET)
        cn->chained = true;
    if (s->sync_control & PLK_SYNC_PRES_MODE_RESET)
        cn->chained = false;
    struct plk_msg m;
    asnd_msg(cn, &m, PLK_NODE_BROADCAST, PLK_ASND_SYNC_RESPONSE);
    m.u.asnd.u.sync.sync_status = cn->chained ? 1 : 0;   /* PResMode active */
    m.u.asnd.u.sync.pres_time_first = cn->pres_time_first_ns;
    if (plk_txq_encode(q, &m))
        cn->st.sync_tx++;
}

void plk_cn_on_invite(struct plk_cn *cn, takt_ns_t now, const struct plk_soa *soa,
                      struct plk_txq *q)
{
    /* the answer belongs in this SoA's async slot, or nowhere */
    if (!plk_cn_may_answer(cn))
        return;
    switch (soa->svid) {
    case PLK_SOA_IDENT_REQUEST:  send_ident(cn, now, q); break;
    case PLK_SOA_STATUS_REQUEST: send_status(cn, now, soa, q); break;
    case PLK_SOA_NMT_REQ_INVITE: plk_cn_send_nmtreq(cn, q); break;
    case PLK_SOA_UNSPEC_INVITE:
        /* any frame may go: the highest priority first (PR 7 before the SDO's 3),
         * then a generic (IP) frame of the virtual Ethernet */
        if (!plk_cn_send_nmtreq(cn, q) && !send_sdo(cn, now, q))
            plk_cn_ip_tx(cn, now, q);
        break;
    case PLK_SOA_SYNC_REQUEST:   on_sync_request(cn, soa, q); break;
    default: break;
    }
}

void plk_cn_sdo_rx(struct plk_cn *cn, takt_ns_t now, const uint8_t *p, size_t len)
{
    char err[96];
    if (cn->od_di && cn->od_di->data)   /* an SDO read of the inputs sees them now */
        cn->od_di->data[0] = cn->in[0];
    cn->st.sdo_rx++;
    plk_cn_od_sync_errcnt(cn);
    if (plk_sdo_server_rx(&cn->sdo, p, len, now, err, sizeof err) < 0)
        cn->st.bad_frames++;
}

/* 0x1C0B/0x1C0D written by the MN: threshold (sub 3), or a reset of the cumulative
 * count (sub 1); the threshold count (sub 2) is read-only. */
static void errcnt_write(struct plk_errcnt *c, uint8_t sub, uint32_t v)
{
    if (sub == PLK_EC_THRESHOLD)
        c->threshold = v;
    else if (sub == PLK_EC_CUMULATIVE)
        c->cumulative = v;
}

/* Configuration writes take effect at once: the MN downloads them in PreOp2. */
static void od_hook(void *ctx, struct plk_od *od, const struct plk_od_entry *e)
{
    struct plk_cn *cn = ctx;
    uint64_t v = 0;
    plk_od_get_u64(od, e->index, e->sub, &v);
    switch (e->index) {
    case PLK_OD_CYCLE_LEN:
        cn->cycle_us = (uint32_t)v;
        break;
    case PLK_OD_LOSS_SOC_TOLERANCE:
        cn->cfg.soc_tolerance_ns = (uint32_t)v;
        break;
    case PLK_OD_CN_LOSS_SOC:
        errcnt_write(&cn->loss_soc, e->sub, (uint32_t)v);
        break;
    case PLK_OD_CN_LOSS_PREQ:
        errcnt_write(&cn->loss_preq, e->sub, (uint32_t)v);
        break;
    case PLK_OD_NMT_REQUEST_CMD:
        plk_cn_od_hook_nmtreq(cn, e);
        break;
    case PLK_OD_CYCLE_TIMING:
        if (e->sub == PLK_CT_PRES_ACT_PAYLOAD && v >= PLK_PAYLOAD_LIMIT_MIN && v <= PLK_ISOCHR_MAX_PAYL)
            cn->pres_limit = (uint16_t)v;
        else if (e->sub == PLK_CT_MULT_CYCLE_CNT) {
            cn->mux_cycles = (uint8_t)v;
            cn->cycle_count = 0;
        }
        break;
    case PLK_OD_RPDO_MAP:
        /* entry bits 32-47: bit offset of our outputs in the received payload (oplk
         * pdou.c); chained CNs find their part of the PResMN there */
        if (e->sub == 1)
            cn->out_offset = (uint16_t)((v >> 32) & 0xFFFF) / 8;
        break;
    default:
        break;
    }
}

int plk_cn_od_setup(struct plk_cn *cn)
{
    struct plk_od_cn_params p;
    plk_od_init(&cn->od, cn->od_entries, PLK_CN_OD_ENTRIES, cn->od_pool, sizeof cn->od_pool);
    plk_od_cn_params_default(&p, cn->cfg.id);
    p.device_type = cn->cfg.device_type;
    p.vendor_id = cn->cfg.vendor_id;
    p.product_code = cn->cfg.product_code;
    p.revision_no = cn->cfg.revision;
    p.serial_no = cn->cfg.serial;
    p.loss_soc_tolerance_ns = cn->cfg.soc_tolerance_ns;
    p.n_pdo = 1;
    int r = plk_od_add_cn_profile(&cn->od, &p);
    /* application objects of the X20 set-up: 4-ch digital input and output (CiA 401) */
    if (!r)
        r = plk_od_add_array(&cn->od, 0x6000, 1, PLK_OA_READ, PLK_OT_U8, PLK_OA_READ | PLK_OA_PDO, 0);
    if (!r)
        r = plk_od_add_array(&cn->od, 0x6200, 1, PLK_OA_READ, PLK_OT_U8, PLK_OA_RW | PLK_OA_PDO, 0);
    /* 0x1008 NMT_ManufactDevName_VS, and a 1 KiB manufacturer DOMAIN (0x2000) that
     * larger (segmented) SDO transfers can use */
    static const char name[] = "takt simulated CN (X20 BC + 4 DI + 4 DO)";
    if (!r)
        r = plk_od_add_buf(&cn->od, 0x1008, 0, PLK_OT_VSTRING, PLK_OA_READ, sizeof name - 1,
                           name, sizeof name - 1);
    if (!r)
        r = plk_od_add_buf(&cn->od, 0x2000, 0, PLK_OT_DOMAIN, PLK_OA_RW, 1024, NULL, 0);
    if (!r)
        r = plk_cn_od_add_nmtreq(cn);
    if (r)
        return r;
    cn->od_di = plk_od_find(&cn->od, 0x6000, 1);
    cn->od_do = plk_od_find(&cn->od, 0x6200, 1);
    cn->cycle_us = plk_od_u32(&cn->od, PLK_OD_CYCLE_LEN, 0, 50000);
    cn->pres_limit = (uint16_t)plk_od_u32(&cn->od, PLK_OD_CYCLE_TIMING, PLK_CT_PRES_ACT_PAYLOAD,
                                         PLK_PAYLOAD_LIMIT_MIN);
    cn->mux_cycles = (uint8_t)plk_od_u32(&cn->od, PLK_OD_CYCLE_TIMING, PLK_CT_MULT_CYCLE_CNT, 0);
    plk_od_set_hook(&cn->od, od_hook, cn);
    struct plk_sdo_timing t;
    plk_sdo_timing_default(&t);
    plk_sdo_server_init(&cn->sdo, &cn->od, &t);
    plk_sdo_server_init(&cn->sdo_udp, &cn->od, &t);
    return 0;
}

int plk_cn_init(struct plk_cn *cn, const struct takt_plk_cn_cfg *cfg, const uint8_t mac[6],
                takt_ns_t now)
{
    if (!PLK_IS_CN(cfg->id))
        return -EINVAL;
    if (cfg->in_size > PLK_ISOCHR_MAX_PAYL || cfg->out_size > PLK_ISOCHR_MAX_PAYL)
        return -EINVAL;
    memset(cn, 0, sizeof *cn);
    rt_cmdring_init_on(&cn->nmtreq_ring, cn->nmtreq_cells, PLK_CN_NMTREQ_RING);
    cn->cfg = *cfg;
    memcpy(cn->mac, mac, 6);
    cn->rng = 0x9E3779B9u ^ cfg->id;
    plk_errcnt_init(&cn->loss_soc, PLK_DEF_ERR_THRESHOLD);
    plk_errcnt_init(&cn->loss_preq, PLK_DEF_ERR_THRESHOLD);
    int r = plk_cn_od_setup(cn);
    if (r)
        return r;
    /* GS_INITIALISING -> RESET_APPLICATION -> RESET_COMMUNICATION -> RESET_CONFIGURATION
     * -> CS_NOT_ACTIVE happen at once: nothing external is awaited (DS 301 7.1.2) */
    cn->state = PLK_NMT_NOT_ACTIVE;
    cn->state_since = now;
    cn->app_ready = true;
    cn->preq_due = true;
    cn->sres_flags1 = PLK_F1_EC;   /* power-on: the MN must initialise error signaling */
    return 0;
}

void plk_cn_free(struct plk_cn *cn) { (void)cn; }
