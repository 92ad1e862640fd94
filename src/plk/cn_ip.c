/* CN side of POWERLINK's virtual Ethernet, in-process: the CN's IP is 192.168.100.<id>
 * (as its IdentResponse announces), it answers ARP for that address and serves SDO over
 * UDP port 3819 (EPSG DS 301, "SDO via UDP/IP") with the same sequence and command
 * layers as over ASnd, on a connection of its own, and answers ICMP echo (ping) of up
 * to 272 bytes (within the minimum async MTU). Its IP frames wait until an
 * UnspecifiedInvite gives the CN the async slot; the wait is signalled in PRes and
 * StatusResponse with PR = generic and RS (cn_nmtreq.c), as for an ASnd SDO. Other IP
 * traffic (other ICMP, other ports) is not answered: there is no IP stack behind it.
 * With the host's virtual Ethernet on (EPSG DS 301 "Virtual Ethernet"; takt plk cn
 * --veth) the host's IP stack is behind it: every IPv4 and ARP frame to the CN's MAC or
 * to all goes to the host (its stack answers ARP and ping, serves TCP), except SDO
 * over UDP to the CN's IP, port 3819, which stays with the CN's own SDO server; and
 * one frame from the host at a time waits for the CN's generic async slot. */
#include <errno.h>
#include <string.h>
#include "plk/cn_int.h"
#include "plk/proto.h"
#include "util/wire.h"

static struct plk_ip_ep own(const struct plk_cn *cn)
{
    struct plk_ip_ep e = { .ip = PLK_IP_NODE(cn->cfg.id), .port = PLK_SDO_UDP_PORT };
    memcpy(e.mac, cn->mac, 6);
    return e;
}

void plk_cn_ip_reset(struct plk_cn *cn)
{
    plk_sdo_server_reset(&cn->sdo_udp);
    cn->arp_due = false;
    cn->echo_len = 0;
}

/* A frame for the host's virtual Ethernet; dropped (counted) when the ring is full. */
static void to_host(struct plk_cn *cn, const uint8_t *f, size_t len)
{
    struct plk_cn_veth *v = &cn->veth;
    unsigned h = v->head, cap = (unsigned)TAKT_ARRAY_SIZE(v->f);
    if (len > sizeof v->f[0].data || h - __atomic_load_n(&v->tail, __ATOMIC_ACQUIRE) >= cap) {
        __atomic_store_n(&v->dropped, v->dropped + 1, __ATOMIC_RELAXED);
        return;
    }
    memcpy(v->f[h % cap].data, f, len);
    v->f[h % cap].len = (uint16_t)len;
    v->to_host++;
    __atomic_store_n(&v->head, h + 1, __ATOMIC_RELEASE);
}

void plk_cn_ip_rx(struct plk_cn *cn, takt_ns_t now, const uint8_t *f, size_t len)
{
    struct plk_ip_frame o;
    char err[128];
    int r = plk_ip_decode(f, len, &o, err, sizeof err);
    if (r == -ENOMSG)
        return;
    uint32_t me = PLK_IP_NODE(cn->cfg.id);
    /* the host judges what the decoder refuses (IP fragments, say); only a valid SDO
     * datagram to the CN's own port is kept back */
    if (cn->veth.on && (!memcmp(o.dst_mac, cn->mac, 6) || (o.dst_mac[0] & 1)) &&
        !(r == 0 && o.kind == PLK_IPF_UDP && o.dst_ip == me && o.dst_port == PLK_SDO_UDP_PORT)) {
        to_host(cn, f, len);
        return;
    }
    if (r < 0) {
        cn->ip_st.ip_bad++;
        return;
    }
    if (o.kind == PLK_IPF_ARP) {
        if (o.arp_op == 1 && o.arp_tpa == me) {
            cn->arp_due = true;
            memcpy(cn->arp_to.mac, o.arp_sha, 6);
            memcpy(cn->arp_eth, o.src_mac, 6);
            cn->arp_to.ip = o.arp_spa;
        }
        return;
    }
    if (o.kind == PLK_IPF_ICMP && o.dst_ip == me && !memcmp(o.dst_mac, cn->mac, 6) &&
        o.data[0] == 8 && o.data[1] == 0 && o.len <= sizeof cn->echo) {
        memcpy(cn->echo, o.data, o.len);   /* the latest request waits; an older one is dropped */
        cn->echo_len = o.len;
        memcpy(cn->echo_to.mac, o.src_mac, 6);
        cn->echo_to.ip = o.src_ip;
        return;
    }
    if (o.kind != PLK_IPF_UDP || o.dst_ip != me || o.dst_port != PLK_SDO_UDP_PORT ||
        memcmp(o.dst_mac, cn->mac, 6))
        return;
    const uint8_t *p;
    size_t n;
    if (plk_udp_sdo_payload(o.data, o.len, &p, &n, err, sizeof err) < 0) {
        cn->ip_st.ip_bad++;
        return;
    }
    cn->ip_st.udp_rx++;
    /* one UDP connection: the latest client's address is where answers go */
    memcpy(cn->udp_peer.mac, o.src_mac, 6);
    cn->udp_peer.ip = o.src_ip;
    cn->udp_peer.port = o.src_port;
    if (cn->od_di && cn->od_di->data)   /* an SDO read of the inputs sees them now */
        cn->od_di->data[0] = cn->in[0];
    plk_cn_od_sync_errcnt(cn);
    if (plk_sdo_server_rx(&cn->sdo_udp, p, n, now, err, sizeof err) < 0)
        cn->st.bad_frames++;
}

static bool host_waits(struct plk_cn *cn)
{
    return __atomic_load_n(&cn->veth.tx_state, __ATOMIC_ACQUIRE) == 1;
}

bool plk_cn_ip_pending(struct plk_cn *cn, takt_ns_t now)
{
    return cn->arp_due || cn->echo_len || plk_sdo_server_tx_pending(&cn->sdo_udp, now) ||
           host_waits(cn);
}

/* The host's frame in this slot: padded to Ethernet's 60 bytes (the slot is zeroed). */
static bool host_tx(struct plk_cn *cn, struct plk_txq *q)
{
    struct plk_txf *f = plk_txq_slot(q);
    if (!f)
        return false;
    struct plk_cn_veth *v = &cn->veth;
    memcpy(f->data, v->tx, v->tx_len);
    f->len = v->tx_len < PLK_MIN_FRAME ? PLK_MIN_FRAME : v->tx_len;
    v->to_net++;
    v->host_last = true;
    __atomic_store_n(&v->tx_state, 0, __ATOMIC_RELEASE);
    return true;
}

bool plk_cn_ip_tx(struct plk_cn *cn, takt_ns_t now, struct plk_txq *q)
{
    struct plk_ip_ep me = own(cn);
    if (cn->arp_due) {
        struct plk_txf *f = plk_txq_slot(q);
        if (!f)
            return false;
        f->len = (uint16_t)plk_arp_encode(f->data, sizeof f->data, 2, me.mac, me.ip,
                                          cn->arp_to.mac, cn->arp_to.ip);
        /* to the MAC the request came from, which can receive: openPOWERLINK's MN sends
         * its host's ARP requests from its POWERLINK port's MAC with the TAP's MAC as
         * the sender hardware address, and takes no frame for the TAP's MAC */
        memcpy(f->data, cn->arp_eth, 6);
        cn->arp_due = false;
        cn->ip_st.arp_tx++;
        return true;
    }
    if (cn->echo_len) {
        struct plk_txf *f = plk_txq_slot(q);
        if (!f)
            return false;
        int l = plk_icmp_echo_reply_encode(f->data, sizeof f->data, &me, &cn->echo_to, cn->ip_id++,
                                           cn->echo, cn->echo_len);
        cn->echo_len = 0;
        if (l < 0) {
            q->n--;
            return false;
        }
        f->len = (uint16_t)l;
        cn->ip_st.echo_tx++;
        return true;
    }
    bool sdo = plk_sdo_server_tx_pending(&cn->sdo_udp, now);
    /* the host and the SDO server take turns when both wait */
    if (host_waits(cn) && (!sdo || !cn->veth.host_last))
        return host_tx(cn, q);
    if (!sdo)
        return false;
    cn->veth.host_last = false;
    struct plk_txf *f = plk_txq_slot(q);
    if (!f)
        return false;   /* the sequence layer resends what does not go out */
    int n = plk_sdo_server_tx(&cn->sdo_udp, cn->sdo_buf, sizeof cn->sdo_buf, now);
    int l = n > 0 ? plk_udp_sdo_encode(f->data, sizeof f->data, &me, &cn->udp_peer, cn->ip_id++,
                                       cn->sdo_buf, (size_t)n) : -ENOSPC;
    if (l < 0) {
        q->n--;
        return false;
    }
    f->len = (uint16_t)l;
    cn->ip_st.udp_tx++;
    return true;
}

void plk_cn_veth_on(struct plk_cn *cn, bool on)
{
    cn->veth.on = on;
}

int plk_cn_veth_send(struct plk_cn *cn, const void *frame, size_t len)
{
    struct plk_cn_veth *v = &cn->veth;
    if (!v->on)
        return -ENODEV;
    if (len < 14 || len > PLK_ASYNC_MTU_MAX + 14u || len > sizeof v->tx)
        return -EMSGSIZE;
    if (get_be16((const uint8_t *)frame + 12) == PLK_ETHERTYPE)
        return -EPROTOTYPE;   /* a POWERLINK frame from the host would confuse the cycle */
    if (__atomic_load_n(&v->tx_state, __ATOMIC_ACQUIRE))
        return -EBUSY;
    memcpy(v->tx, frame, len);
    v->tx_len = (uint16_t)len;
    __atomic_store_n(&v->tx_state, 1, __ATOMIC_RELEASE);
    return 0;
}

int plk_cn_veth_recv(struct plk_cn *cn, void *buf, size_t cap)
{
    struct plk_cn_veth *v = &cn->veth;
    unsigned t = __atomic_load_n(&v->tail, __ATOMIC_RELAXED);
    if (t == __atomic_load_n(&v->head, __ATOMIC_ACQUIRE))
        return 0;
    unsigned slot = t % (unsigned)TAKT_ARRAY_SIZE(v->f);
    size_t n = v->f[slot].len;
    if (n > cap)
        return -EMSGSIZE;
    memcpy(buf, v->f[slot].data, n);
    __atomic_store_n(&v->tail, t + 1, __ATOMIC_RELEASE);
    return (int)n;
}
