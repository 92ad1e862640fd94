/* Simulated POWERLINK CN network (see plk_net.h): builds the CN cores, drives their
 * digital inputs from the clock, applies the fault plan, and serves them on one link
 * through the CN host loop. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim/plk_net.h"
#include "plk/cn_int.h"

#define INPUT_STEP_NS (100 * TAKT_NS_PER_MS)   /* the DI pattern moves every 100 ms */
/* After each frame the CNs' thread polls this long before it sleeps: real CNs are
 * always awake, while waking a sleeping simulator costs its sender (veth delivers in
 * the sender's context) ~5-10 us of CPU per PReq, which the MN would be charged with
 * (docs/powerlink.md, "Where the MN's time goes"). */
#define SIM_PLK_SPIN_NS (50 * TAKT_NS_PER_US)

int sim_plk_net_init(struct sim_plk_net *s, unsigned first, unsigned last,
                     const struct sim_plk_faults *f, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (first < 1 || last > TAKT_PLK_MAX_NODES || first > last) {
        snprintf(err, errlen, "node range %u-%u: CN node IDs are 1..239", first, last);
        return -EINVAL;
    }
    if (f)
        s->faults = *f;
    for (unsigned id = first; id <= last; id++) {
        struct takt_plk_cn_cfg c;
        takt_plk_cn_cfg_default(&c, (uint8_t)id);
        /* X20 bus controller with X20DI9371 / X20DO9322 style 4-channel modules */
        c.vendor_id = 0x0000001A;   /* a fixed, recognisable vendor for identity checks */
        c.product_code = 0x00009371;
        c.serial = 0x10000 + id;
        struct plk_cn *cn = calloc(1, sizeof *cn);
        static const uint8_t zero[6];
        if (!cn || plk_cn_init(cn, &c, zero, 0)) {
            free(cn);
            snprintf(err, errlen, "node %u: cannot create the simulated CN", id);
            sim_plk_net_free(s);
            return -ENOMEM;
        }
        cn->faults.drop_pres_permille = s->faults.drop_permille;
        cn->faults.late_pres_permille = s->faults.late_permille;
        cn->faults.late_ns = s->faults.late_ns;
        cn->faults.malformed_permille = s->faults.malformed_permille;
        cn->faults.wrong_identity = s->faults.wrong_id_node == id;
        cn->faults.answer_delay_min_ns = s->faults.answer_delay_min;
        cn->faults.answer_delay_max_ns = s->faults.answer_delay_max;
        s->cn[s->n++] = cn;
    }
    return 0;
}

void sim_plk_net_free(struct sim_plk_net *s)
{
    for (unsigned i = 0; i < s->n; i++)
        free(s->cn[i]);
    s->n = 0;
}

/* Inputs: a walking pattern on the 4 channels, different per node; the fault plan. */
static void periodic(void *ctx, takt_ns_t now)
{
    struct sim_plk_net *s = ctx;
    uint64_t step = (uint64_t)(now - s->start) / INPUT_STEP_NS;
    for (unsigned i = 0; i < s->n; i++)
        s->cn[i]->in[0] = (uint8_t)(1u << ((step + s->cn[i]->cfg.id) % 4));
    if (s->publish)
        s->publish(s->publish_ctx, s);
    const struct sim_plk_faults *f = &s->faults;
    if (!f->vanish_node)
        return;
    if (!s->vanish_ref) {
        for (unsigned i = 0; i < s->n; i++)
            if (s->cn[i]->cfg.id == f->vanish_node && s->cn[i]->state == PLK_NMT_OPERATIONAL)
                s->vanish_ref = now;
        if (!s->vanish_ref)
            return;
    }
    takt_ns_t t = now - s->vanish_ref;
    bool gone = t >= f->vanish_at && (!f->vanish_for || t < f->vanish_at + f->vanish_for);
    if (gone == s->vanished)
        return;
    s->vanished = gone;
    for (unsigned i = 0; i < s->n; i++) {
        if (s->cn[i]->cfg.id != f->vanish_node)
            continue;
        s->cn[i]->faults.vanished = gone;
        if (!gone) {
            /* a device that was switched off comes back in NotActive */
            plk_cn_event(s->cn[i], now, PLK_CN_EV_COMMAND, PLK_NMT_CMD_SW_RESET);
        }
    }
    if (gone)
        s->vanish_count++;
    else
        s->return_count++;
}

int sim_plk_net_run(struct sim_plk_net *s, struct takt_link *link, takt_ns_t duration,
                    const volatile int *stop)
{
    for (unsigned i = 0; i < s->n; i++)
        memcpy(s->cn[i]->mac, link->mac, 6);
    int r = plk_cn_host_init(&s->host, s->cn, s->n, link);
    if (r)
        return r;
    s->start = takt_now();
    for (unsigned i = 0; i < s->n; i++)
        s->cn[i]->state_since = s->start;
    s->host.duration = duration;
    s->host.periodic = periodic;
    s->host.periodic_ctx = s;
    s->host.spin_ns = SIM_PLK_SPIN_NS;
    s->host.soc_lead_ns = s->soc_lead_ns;
    s->host.period = 10 * TAKT_NS_PER_MS;
    return plk_cn_host_run(&s->host, stop);
}
