/* Fuzz target: the virtual Ethernet's frames (ipudp.h): the ARP/IPv4/UDP decoder and
 * the SDO-over-UDP header, then the same bytes into a CN core, which answers ARP and
 * serves SDO over UDP, invited once with UnspecifiedInvite. A UDP frame that decodes
 * must encode again to one that decodes to the same addresses and payload. Nothing
 * may read past the input. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "plk/cn.h"
#include "plk/frame.h"
#include "plk/ipudp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *f = malloc(size ? size : 1);   /* exact size: ASan catches overreads */
    if (!f)
        return 0;
    memcpy(f, data, size);
    struct plk_ip_frame o, o2;
    char err[200];
    int r = plk_ip_decode(f, size, &o, err, sizeof err);
    if (r == 0 && o.kind == PLK_IPF_UDP) {
        struct plk_ip_ep src = { .ip = o.src_ip, .port = o.src_port };
        struct plk_ip_ep dst = { .ip = o.dst_ip, .port = o.dst_port };
        memcpy(src.mac, o.src_mac, 6);
        memcpy(dst.mac, o.dst_mac, 6);
        uint8_t out[TAKT_FRAME_BUF];
        int n = plk_udp_encode(out, sizeof out, &src, &dst, 1, o.data, o.len);
        if (n < 60 && !(n == -ENOSPC && o.len > sizeof out - PLK_IP_UDP_HDRS))
            abort();
        if (n > 0 && (plk_ip_decode(out, (size_t)n, &o2, err, sizeof err) != 0 || o2.kind != PLK_IPF_UDP ||
                      o2.src_ip != o.src_ip || o2.dst_port != o.dst_port || o2.len != o.len ||
                      memcmp(o2.data, o.data, o.len)))
            abort();
        const uint8_t *sdo;
        size_t sl;
        if (plk_udp_sdo_payload(o.data, o.len, &sdo, &sl, err, sizeof err) == 0 &&
            (sdo != o.data + PLK_UDP_SDO_HDR || sl + PLK_UDP_SDO_HDR != o.len))
            abort();
    } else if (r != 0 && r != -ENOMSG && r != -EPROTO) {
        abort();
    }
    /* the CN core: node 5 at 192.168.100.5 */
    static struct plk_cn cn;
    static struct plk_txf tx[8];
    struct takt_plk_cn_cfg c;
    takt_plk_cn_cfg_default(&c, 5);
    const uint8_t mac[6] = { 0x02, 0, 0, 0, 1, 5 };
    if (plk_cn_init(&cn, &c, mac, 0) == 0) {
        struct plk_txq q = { .f = tx, .cap = 8 };
        plk_cn_rx(&cn, 1000, f, size, &q);
        struct plk_msg m;
        memset(&m, 0, sizeof m);
        m.mtyp = PLK_MTYP_SOA;
        m.dst = PLK_NODE_BROADCAST;
        m.src = PLK_NODE_MN;
        m.u.soa.svid = PLK_SOA_UNSPEC_INVITE;
        m.u.soa.target = 5;
        m.u.soa.epl_version = PLK_EPL_VERSION;
        uint8_t soa[PLK_MAX_FRAME];
        int n = plk_frame_encode(soa, sizeof soa, &m);
        if (n > 0)
            plk_cn_rx(&cn, 2000, soa, (size_t)n, &q);
        for (unsigned i = 0; i < q.n; i++)
            if (q.f[i].len > sizeof q.f[i].data)
                abort();
        plk_cn_free(&cn);
    }
    free(f);
    return 0;
}
