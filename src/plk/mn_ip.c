/* The MN's end of POWERLINK's virtual Ethernet, in-process: SDO over UDP/IP (EPSG DS
 * 301, "SDO via UDP/IP": port 3819, the same sequence and command layers as over
 * ASnd) from 192.168.100.240 to a CN's 192.168.100.<id>, and ARP answers for the MN's
 * address. The MN sends its IP frames in its own async slot, announced by SoA
 * UnspecifiedInvite -> 240 (as openPOWERLINK's MN announces a non-POWERLINK frame);
 * a CN's answers come in the slot of the UnspecifiedInvite the MN sends when the CN's
 * PRes or StatusResponse shows a generic request (RS, PR; mn_async.c). The CN's MAC is
 * the one its IdentResponse came from. With a TAP device on the host (takt plk mn
 * --veth) the frames to the TAP's own MAC go there (its MAC differs from the POWERLINK
 * interface's, so the host's IP stack never takes a CN's frame from that interface
 * directly and never answers outside the async phase). */
#include <errno.h>
#include <string.h>
#include "plk/driver.h"
#include "plk/mn.h"

void takt_plk_mn_sdo_udp(struct takt_plk_mn *mn, bool udp)
{
    __atomic_store_n(&plk_drv_mn_core(mn)->sdo_udp, udp, __ATOMIC_RELEASE);
}

static struct plk_ip_ep own(const struct plk_mn *mn)
{
    struct plk_ip_ep e = { .ip = PLK_IP_NODE(PLK_NODE_MN), .port = PLK_SDO_UDP_PORT };
    memcpy(e.mac, mn->mac, 6);
    return e;
}

void takt_plk_mn_veth(struct takt_plk_mn *mn, const uint8_t mac[6])
{
    struct plk_mn_veth *v = &plk_drv_mn_core(mn)->veth;
    v->on = mac != NULL;
    if (mac)
        memcpy(v->mac, mac, 6);
}

int takt_plk_mn_recv_eth(struct takt_plk_mn *mn, void *buf, size_t cap)
{
    struct plk_mn_veth *v = &plk_drv_mn_core(mn)->veth;
    unsigned t = __atomic_load_n(&v->tail, __ATOMIC_RELAXED);
    if (t == __atomic_load_n(&v->head, __ATOMIC_ACQUIRE))
        return 0;
    unsigned slot = t % (unsigned)(sizeof v->f / sizeof v->f[0]);
    size_t n = v->f[slot].len;
    if (n > cap)
        return -EMSGSIZE;
    memcpy(buf, v->f[slot].data, n);
    __atomic_store_n(&v->tail, t + 1, __ATOMIC_RELEASE);
    return (int)n;
}

uint64_t takt_plk_mn_veth_dropped(struct takt_plk_mn *mn)
{
    return __atomic_load_n(&plk_drv_mn_core(mn)->veth.dropped, __ATOMIC_RELAXED);
}

/* A frame for the host's virtual Ethernet interface; dropped (counted) when full. */
static void to_veth(struct plk_mn *mn, const uint8_t *f, size_t len)
{
    struct plk_mn_veth *v = &mn->veth;
    unsigned h = v->head, cap = (unsigned)(sizeof v->f / sizeof v->f[0]);
    if (len > sizeof v->f[0].data || h - __atomic_load_n(&v->tail, __ATOMIC_ACQUIRE) >= cap) {
        __atomic_store_n(&v->dropped, v->dropped + 1, __ATOMIC_RELAXED);
        return;
    }
    memcpy(v->f[h % cap].data, f, len);
    v->f[h % cap].len = (uint16_t)len;
    __atomic_store_n(&v->head, h + 1, __ATOMIC_RELEASE);
}

void plk_mn_ip_rx(struct plk_mn *mn, takt_ns_t now, const uint8_t *f, size_t len)
{
    struct plk_ip_frame o;
    char err[128];
    int r = plk_ip_decode(f, len, &o, err, sizeof err);
    if (r == -ENOMSG)
        return;
    if (r < 0) {
        mn->ip_st.ip_bad++;
        return;
    }
    struct plk_ip_ep me = own(mn);
    /* to the TAP's MAC or to all: the host's IP stack answers through the TAP */
    if (mn->veth.on && (!memcmp(o.dst_mac, mn->veth.mac, 6) || (o.dst_mac[0] & 1))) {
        to_veth(mn, f, len);
        return;
    }
    if (o.kind == PLK_IPF_ARP) {
        if (o.arp_op == 1 && o.arp_tpa == me.ip) {
            mn->arp_due = true;
            memcpy(mn->arp_to.mac, o.arp_sha, 6);
            mn->arp_to.ip = o.arp_spa;
        }
        return;
    }
    if (o.kind != PLK_IPF_UDP || o.dst_ip != me.ip || o.dst_port != PLK_SDO_UDP_PORT ||
        memcmp(o.dst_mac, mn->mac, 6) || (o.src_ip & 0xFFFFFF00u) != PLK_IP_SUBNET)
        return;
    uint8_t id = (uint8_t)(o.src_ip & 0xFF);
    struct plk_mn_node *n = PLK_IS_CN(id) ? mn->node[id] : NULL;
    if (!n) {
        plk_mn_unexpected(mn, NULL);
        return;
    }
    const uint8_t *p;
    size_t plen;
    if (plk_udp_sdo_payload(o.data, o.len, &p, &plen, err, sizeof err) < 0 ||
        plk_sdo_client_rx(n->sdo_udp, p, plen, now, err, sizeof err) < 0) {
        mn->ip_st.ip_bad++;
        n->st.bad_frames++;
        return;
    }
    mn->ip_st.udp_rx++;
}

bool plk_mn_ip_tx(struct plk_mn *mn, takt_ns_t now, struct plk_txq *q)
{
    struct plk_ip_ep me = own(mn);
    if (mn->arp_due) {
        plk_mn_soa(mn, q, PLK_SOA_UNSPEC_INVITE, PLK_NODE_MN, NULL);
        struct plk_txf *f = plk_txq_slot(q);
        if (f) {
            f->len = (uint16_t)plk_arp_encode(f->data, sizeof f->data, 2, me.mac, me.ip,
                                              mn->arp_to.mac, mn->arp_to.ip);
            mn->st.frames_tx++;
            mn->ip_st.arp_tx++;
        }
        mn->arp_due = false;
        return true;
    }
    for (unsigned k = 0; k < mn->n_ids; k++) {
        struct plk_mn_node *n = mn->node[mn->ids[(mn->invite_rr + k) % mn->n_ids]];
        if (!plk_sdo_client_tx_pending(n->sdo_udp, now))
            continue;
        int len = plk_sdo_client_tx(n->sdo_udp, n->sdo_buf, sizeof n->sdo_buf, now);
        if (len <= 0)
            continue;
        plk_mn_soa(mn, q, PLK_SOA_UNSPEC_INVITE, PLK_NODE_MN, NULL);
        struct plk_txf *f = plk_txq_slot(q);
        if (f) {
            struct plk_ip_ep to = { .ip = PLK_IP_NODE(n->id), .port = PLK_SDO_UDP_PORT };
            memcpy(to.mac, n->mac, 6);
            int l = plk_udp_sdo_encode(f->data, sizeof f->data, &me, &to, mn->ip_id++,
                                       n->sdo_buf, (size_t)len);
            if (l < 0) {
                q->n--;   /* cannot happen within the async MTU; the sequence layer resends */
            } else {
                f->len = (uint16_t)l;
                mn->st.frames_tx++;
                mn->ip_st.udp_tx++;
            }
        }
        mn->invite_rr = (mn->invite_rr + k + 1) % mn->n_ids;
        return true;
    }
    return false;
}
