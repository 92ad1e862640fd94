/* The POWERLINK network configuration as public API (<takt/plk.h>): an opaque wrapper
 * around struct plk_net_config, with copied-out settings, and the concise DCF look-ups
 * a tool needs without the CDC reader's internals; and the MN's configuration an
 * application builds (struct takt_plk_mn_cfg), turned into the network's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <takt/plk.h>
#include "plk/cdc.h"
#include "plk/config.h"
#include "plk/driver.h"

struct takt_plk_net {
    struct plk_net_config cfg;
};

int takt_plk_net_create(struct takt_plk_net **out)
{
    struct takt_plk_net *n = malloc(sizeof *n);
    *out = n;
    if (!n)
        return -ENOMEM;
    plk_config_default(&n->cfg);
    return 0;
}

void takt_plk_net_free(struct takt_plk_net *net) { free(net); }

/* Parse into a scratch copy: a failed load leaves net as it was. */
int takt_plk_net_load(struct takt_plk_net *net, const char *path, char *err, size_t errlen)
{
    struct plk_net_config *c = malloc(sizeof *c);
    if (!c)
        return -ENOMEM;
    int r = plk_config_load(c, path, err, errlen);
    if (!r)
        net->cfg = *c;
    free(c);
    return r;
}

int takt_plk_net_load_cdc(struct takt_plk_net *net, const void *buf, size_t len,
                          char *err, size_t errlen)
{
    struct plk_cdc cdc;
    int r = plk_cdc_parse(&cdc, buf, len, err, errlen);
    if (r)
        return r;
    struct plk_net_config *c = malloc(sizeof *c);
    if (!c)
        return -ENOMEM;
    plk_config_default(c);
    r = plk_config_from_cdc(c, &cdc, err, errlen);
    if (!r)
        net->cfg = *c;
    free(c);
    return r;
}

int takt_plk_net_add_nodes(struct takt_plk_net *net, unsigned first, unsigned last,
                           char *err, size_t errlen)
{
    return plk_config_add_range(&net->cfg, first, last, err, errlen);
}

int takt_plk_net_check(const struct takt_plk_net *net, char *err, size_t errlen)
{
    return plk_config_check(&net->cfg, err, errlen);
}

void takt_plk_net_get(const struct takt_plk_net *net, struct takt_plk_net_info *i)
{
    const struct plk_net_config *c = &net->cfg;
    memset(i, 0, sizeof *i);
    i->cycle_us = c->cycle_us;
    i->async_mtu = c->async_mtu;
    i->cycle_exceed_threshold = c->cycle_exceed_threshold;
    i->loss_soc_tolerance_ns = c->loss_soc_tolerance_ns;
    i->boot_wait_us = c->boot_time_us[PLK_BT_MN_WAIT_NOT_ACT];
    i->pres_mn = c->pres_mn;
    for (unsigned id = PLK_NODE_CN_MIN; id <= PLK_NODE_CN_MAX; id++)
        if (c->node[id].present)
            i->nodes[i->n_nodes++] = (uint8_t)id;
}

void takt_plk_net_set(struct takt_plk_net *net, const struct takt_plk_net_info *i)
{
    struct plk_net_config *c = &net->cfg;
    c->cycle_us = i->cycle_us;
    c->async_mtu = i->async_mtu;
    c->cycle_exceed_threshold = i->cycle_exceed_threshold;
    c->loss_soc_tolerance_ns = i->loss_soc_tolerance_ns;
    c->boot_time_us[PLK_BT_MN_WAIT_NOT_ACT] = i->boot_wait_us;
    c->pres_mn = i->pres_mn;
}

static struct plk_cfg_node *cfg_node(const struct takt_plk_net *net, unsigned node)
{
    const struct plk_cfg_node *n = PLK_IS_CN(node) ? &net->cfg.node[node] : NULL;
    return n && n->present ? (struct plk_cfg_node *)n : NULL;
}

int takt_plk_net_node(const struct takt_plk_net *net, unsigned node, struct takt_plk_net_node *o)
{
    const struct plk_cfg_node *n = cfg_node(net, node);
    if (!n)
        return -ENOENT;
    *o = (struct takt_plk_net_node){
        .id = n->node_id,
        .mandatory = n->mandatory,
        .chained = n->chained,
        .pres_time_first_ns = n->pres_time_first_ns,
        .pres_timeout_ns = n->pres_timeout_ns,
        .loss_pres_threshold = n->loss_pres_threshold,
        .cn_loss_soc_threshold = n->cn_loss_soc_threshold,
        .cn_loss_preq_threshold = n->cn_loss_preq_threshold,
        .async_only = n->async_only,
        .multiplexed = n->multiplexed,
        .preq_payload = n->preq_payload,
        .pres_payload = n->pres_payload,
    };
    return 0;
}

int takt_plk_net_set_node(struct takt_plk_net *net, const struct takt_plk_net_node *o)
{
    struct plk_cfg_node *n = cfg_node(net, o->id);
    if (!n)
        return -ENOENT;
    n->mandatory = o->mandatory;
    n->chained = o->chained;
    n->pres_time_first_ns = o->pres_time_first_ns;
    n->pres_timeout_ns = o->pres_timeout_ns;
    n->loss_pres_threshold = o->loss_pres_threshold;
    n->cn_loss_soc_threshold = o->cn_loss_soc_threshold;
    n->cn_loss_preq_threshold = o->cn_loss_preq_threshold;
    /* chained PRes are timed from the MN's PResMN (EPSG DS 302-C) */
    if (o->chained)
        net->cfg.pres_mn = true;
    return 0;
}

int takt_plk_mn_create_net(const struct takt_plk_net *net, struct takt_plk_mn **out,
                           char *err, size_t errlen)
{
    int r = plk_config_check(&net->cfg, err, errlen);
    return r ? r : plk_drv_mn_create(&net->cfg, out, err, errlen);
}

int takt_plk_cdc_check(const void *buf, size_t len, char *err, size_t errlen)
{
    struct plk_cdc cdc;
    return plk_cdc_parse(&cdc, buf, len, err, errlen);
}

int takt_plk_cdc_object_size(const void *buf, size_t len, unsigned node, uint16_t index,
                             uint8_t sub, size_t *size, char *err, size_t errlen)
{
    struct plk_cdc cdc, dcf;
    struct plk_cdc_entry e;
    if (!PLK_IS_CN(node)) {
        snprintf(err, errlen, "node %u: CN node IDs are 1..239", node);
        return -EINVAL;
    }
    int r = plk_cdc_parse(&cdc, buf, len, err, errlen);
    if (!r)
        r = plk_cdc_node_dcf(&cdc, (uint8_t)node, &dcf, err, errlen);
    if (!r)
        r = plk_cdc_find(&dcf, index, sub, &e);
    if (!r)
        *size = e.size;
    return r;
}

/* --- the MN's configuration as an application builds it (takt_plk_mn_create) ------- */

void takt_plk_mn_cfg_default(struct takt_plk_mn_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->cycle_us = 1000;
    c->pres_timeout_ns = PLK_DEF_PRES_TIMEOUT_NS;
    c->loss_pres_threshold = PLK_DEF_ERR_THRESHOLD;
    c->cycle_exceed_threshold = PLK_DEF_ERR_THRESHOLD;
    c->cn_loss_threshold = PLK_DEF_ERR_THRESHOLD;
    c->async_mtu = PLK_ASYNC_MTU_MIN;
}

int takt_plk_mn_cfg_add_range(struct takt_plk_mn_cfg *c, unsigned first, unsigned last, bool chained)
{
    if (first < 1 || last > TAKT_PLK_MAX_NODES || first > last)
        return -EINVAL;
    for (unsigned id = first; id <= last; id++) {
        if (c->n_nodes >= TAKT_PLK_MAX_NODES)
            return -ENOSPC;
        struct takt_plk_node *n = &c->nodes[c->n_nodes++];
        memset(n, 0, sizeof *n);
        n->id = (uint8_t)id;
        n->chained = chained;
        n->out_size = n->in_size = 1;
    }
    return 0;
}

int plk_mn_cfg_to_net(const struct takt_plk_mn_cfg *c, struct plk_net_config *nc, char *err, size_t errlen)
{
    plk_config_default(nc);
    nc->cycle_us = c->cycle_us;
    /* 0 is a value here (disabled), as in the OD; takt_plk_mn_cfg_default gives 15 */
    nc->cycle_exceed_threshold = c->cycle_exceed_threshold;
    if (c->async_mtu)
        nc->async_mtu = c->async_mtu;
    for (unsigned i = 0; i < c->n_nodes; i++) {
        const struct takt_plk_node *n = &c->nodes[i];
        if (!PLK_IS_CN(n->id)) {
            snprintf(err, errlen, "node %u: CN node IDs are 1..239", n->id);
            return -EINVAL;
        }
        struct plk_cfg_node *cn = &nc->node[n->id];
        plk_config_node_default(nc, cn, n->id);
        cn->mandatory = n->mandatory;
        cn->chained = n->chained;
        cn->pres_timeout_ns = n->pres_timeout_ns ? n->pres_timeout_ns : c->pres_timeout_ns;
        cn->loss_pres_threshold = c->loss_pres_threshold;
        cn->cn_loss_soc_threshold = cn->cn_loss_preq_threshold = c->cn_loss_threshold;
        cn->device_type = n->device_type; cn->device_type_check = n->device_type != 0;
        cn->vendor_id = n->vendor_id;     cn->vendor_check = n->vendor_id != 0;
        cn->product_code = n->product_code; cn->product_check = n->product_code != 0;
        cn->revision_no = n->revision;    cn->revision_check = n->revision != 0;
        cn->serial_no = n->serial;        cn->serial_check = n->serial != 0;
        nc->n_nodes++;
    }
    return plk_config_check(nc, err, errlen);
}
