/* The EoE verbs of `takt ecat run`'s control socket (docs/control.md): the set-IP-parameter
 * and address-filter requests (ETG.1000.6, Ethernet over EtherCAT) queued into the running
 * cycle for a slave whose EoE port the master opened before its cycle started (--eoe): the
 * ports are fixed while the cycle runs. */
#include <stdio.h>
#include <string.h>
#include "cli/cli_ecat_ctl_int.h"

/* "pos" with EoE and a port in the running master: 0, or -1 answered */
static int eoe_pos(struct ctl_call *k, struct cli_ecat_ctl *x, unsigned *pos)
{
    if (pos_arg(k, x, pos))
        return -1;
    const struct takt_ecat_slave_info *s = &x->info[*pos];
    if (!(s->mbx_protocols & TAKT_ECAT_MBX_EOE))
        return ctl_call_error(k, "slave %u (%s) has no EoE (SII mailbox protocols 0x%04X)", *pos, s->name,
                              s->mbx_protocols), -1;
    unsigned ports[64], n = takt_ecat_eoe_ports(x->m, ports, 64);
    for (unsigned i = 0; i < n; i++)
        if (ports[i] == *pos)
            return 0;
    return ctl_call_error(k, "slave %u has no EoE port in the running master: its ports are opened "
                          "before the cycle starts (takt ecat run --eoe %u)", *pos, *pos), -1;
}

/* an optional address member: 0 absent or parsed, -1 answered */
static int addr_arg(struct ctl_call *k, const char *name, uint8_t v[4], uint8_t *mask, bool *has_mask,
                    uint32_t flag, uint32_t *flags)
{
    const char *s = NULL;
    char e[200];
    if (!json_object_object_get_ex(ctl_call_req(k), name, NULL))
        return 0;
    if (ctl_arg_str(ctl_call_req(k), name, 32, &s, e, sizeof e) ||
        takt_ecat_eoe_ip_parse(s, v, mask, has_mask, e, sizeof e))
        return ctl_call_error(k, "'%s': %s", name, e), -1;
    *flags |= flag;
    return 0;
}

/* "eoe_set_ip": pos; mac, ip ("A.B.C.D[/NN]"), gw, dns, dns_name: each optional, one at least */
static int h_eoe_set_ip(struct ctl_call *k, void *ctx)
{
    struct cli_ecat_ctl *x = ctx;
    unsigned pos;
    if (eoe_pos(k, x, &pos))
        return CTL_ANSWERED;
    struct takt_ecat_eoe_ip p = { 0 };
    bool has_mask = false;
    const char *s = NULL;
    char e[200];
    if (json_object_object_get_ex(ctl_call_req(k), "mac", NULL)) {
        if (ctl_arg_str(ctl_call_req(k), "mac", 32, &s, e, sizeof e) || takt_ecat_eoe_mac_parse(s, p.mac, e, sizeof e))
            return ctl_call_error(k, "'mac': %s", e);
        p.flags |= TAKT_ECAT_EOE_IP_MAC;
    }
    if (addr_arg(k, "ip", p.ip, p.mask, &has_mask, TAKT_ECAT_EOE_IP_IP, &p.flags) ||
        addr_arg(k, "gw", p.gw, NULL, NULL, TAKT_ECAT_EOE_IP_GW, &p.flags) ||
        addr_arg(k, "dns", p.dns, NULL, NULL, TAKT_ECAT_EOE_IP_DNS, &p.flags))
        return CTL_ANSWERED;
    if (has_mask)
        p.flags |= TAKT_ECAT_EOE_IP_MASK;
    if (json_object_object_get_ex(ctl_call_req(k), "dns_name", NULL)) {
        if (ctl_arg_str(ctl_call_req(k), "dns_name", TAKT_ECAT_EOE_DNS_NAME, &s, e, sizeof e))
            return ctl_call_error(k, "%s", e);
        snprintf(p.dns_name, sizeof p.dns_name, "%s", s);
        p.flags |= TAKT_ECAT_EOE_IP_DNS_NAME;
    }
    if (!p.flags)
        return ctl_call_error(k, "eoe_set_ip expects at least one of mac, ip, gw, dns, dns_name; got none");
    struct ctl_op *op = ctl_call_defer(k, 0, finish_data);
    if (!op)
        return CTL_ANSWERED;
    op->user = x->m;
    return queued(op, takt_ecat_eoe_set_ip_async(x->m, pos, &p, ecat_done, op));
}

/* "eoe_set_filter": pos; macs (up to 15 "aa:bb:cc:dd:ee:ff"), no_broadcast */
static int h_eoe_set_filter(struct ctl_call *k, void *ctx)
{
    struct cli_ecat_ctl *x = ctx;
    unsigned pos;
    if (eoe_pos(k, x, &pos))
        return CTL_ANSWERED;
    struct takt_ecat_eoe_filter f = { 0 };
    json_object *v;
    if (json_object_object_get_ex(ctl_call_req(k), "no_broadcast", &v))
        f.no_broadcast = json_object_get_boolean(v);
    if (json_object_object_get_ex(ctl_call_req(k), "macs", &v)) {
        if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) > 15)
            return ctl_call_error(k, "'macs' expects an array of at most 15 MAC addresses");
        for (size_t i = 0; i < json_object_array_length(v); i++) {
            json_object *m = json_object_array_get_idx(v, i);
            char e[200];
            if (!json_object_is_type(m, json_type_string))
                return ctl_call_error(k, "'macs' expects strings aa:bb:cc:dd:ee:ff, item %zu is not one", i);
            if (takt_ecat_eoe_mac_parse(json_object_get_string(m), f.mac[f.n_mac], e, sizeof e))
                return ctl_call_error(k, "'macs' item %zu: %s", i, e);
            f.n_mac++;
        }
    }
    struct ctl_op *op = ctl_call_defer(k, 0, finish_data);
    if (!op)
        return CTL_ANSWERED;
    op->user = x->m;
    return queued(op, takt_ecat_eoe_set_filter_async(x->m, pos, &f, ecat_done, op));
}

int ecat_ctl_eoe_set_ip(struct ctl_call *k, void *ctx) { return h_eoe_set_ip(k, ctx); }
int ecat_ctl_eoe_set_filter(struct ctl_call *k, void *ctx) { return h_eoe_set_filter(k, ctx); }
