/* Topology of the simulated network: each slave hangs on port 1..3 of its parent (or
 * on the master); a frame walks the tree in ESC port order 0 -> 3 -> 1 -> 2 (ESC datasheet Section I, frame processing order),
 * so positions are the walk's order, and every port pass costs the slave's forwarding
 * delay. Cut cables hide whole subtrees; the receive times of each port follow. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim/net.h"

static const uint8_t port_order[3] = { 3, 1, 2 };   /* after port 0 (processing unit) */

/* child[k * 4 + p]: the slave on port p of slave k, -1 none. */
static void children(const struct takt_sim *s, int *child)
{
    for (unsigned k = 0; k < 4 * s->n; k++)
        child[k] = -1;
    for (unsigned k = 0; k < s->n; k++)
        if (s->sl[k].parent >= 0)
            child[s->sl[k].parent * 4 + s->sl[k].pport] = (int)k;
}

/* The frame reaches port 0 of slave k at offset t; returns when it leaves port 0 again.
 * Iterative (a line of 4096 slaves would be as deep): an explicit stack of (slave, next
 * port index). */
static void walk(struct takt_sim *s, const int *child, int *stk, uint8_t *pi)
{
    int sp = 0;
    takt_ns_t cur = 0;
    s->reach = 0;
    if (s->sl[0].cut)
        return;
    stk[sp] = 0;
    pi[sp++] = 0;
    s->sl[0].t_port[0] = 0;
    s->sl[0].esc.times.open = 0x01;
    s->act[s->reach++] = 0;
    cur = s->sl[0].fwd;                      /* through the processing unit */
    while (sp > 0) {
        int k = stk[sp - 1];
        struct sim_slave *sl = &s->sl[k];
        if (pi[sp - 1] == 3) {               /* every port done: back towards port 0 */
            sp--;
            if (sp > 0) {
                struct sim_slave *pa = &s->sl[stk[sp - 1]];
                pa->t_port[sl->pport] = cur; /* the parent receives it on that port */
                cur += pa->fwd;
            }
            continue;
        }
        uint8_t p = port_order[pi[sp - 1]++];
        int c = child[k * 4 + p];
        if (c < 0 || s->sl[c].cut)
            continue;                        /* closed port: the ESC loops it back */
        sl->esc.times.open |= (uint8_t)(1u << p);
        struct sim_slave *cs = &s->sl[c];
        cs->t_port[0] = cur;
        cs->esc.times.open = 0x01;
        s->act[s->reach++] = (unsigned)c;
        cur += cs->fwd;
        stk[sp] = c;
        pi[sp++] = 0;
    }
}

void sim_net_topology(struct takt_sim *s, takt_ns_t now)
{
    (void)now;
    for (unsigned k = 0; k < s->n; k++)
        s->sl[k].esc.times.open = 0;
    children(s, s->scr_child);
    walk(s, s->scr_child, s->scr_stk, s->scr_pi);
    for (unsigned k = 0; k < s->n; k++) {
        s->sl[k].t_in = s->sl[k].t_port[0];
        esc_update_dl_status(&s->sl[k].esc);
    }
    if (s->ring)
        sim_net_ring_topology(s);
}

/* Positions must be the walk's order: check by walking the whole tree. */
static int check_order(struct takt_sim *s, char *err, size_t errlen)
{
    uint8_t *cuts = s->scr_flag;
    for (unsigned k = 0; k < s->n; k++) {
        cuts[k] = s->sl[k].cut;
        s->sl[k].cut = false;
    }
    sim_net_topology(s, 0);
    int rc = 0;
    for (unsigned i = 0; i < s->n && !rc; i++)
        if (s->act[i] != i) {
            snprintf(err, errlen, "topology: the frame would reach the slave listed as position "
                     "%u at position %u; list the slaves in the frame's order (each subtree "
                     "whole, ports 0-3-1-2)", s->act[i], i);
            rc = -EINVAL;
        }
    if (s->reach != s->n && !rc) {
        snprintf(err, errlen, "topology: only %u of %u slaves are connected to the master",
                 s->reach, s->n);
        rc = -EINVAL;
    }
    for (unsigned k = 0; k < s->n; k++)
        s->sl[k].cut = cuts[k];
    sim_net_topology(s, 0);
    return rc;
}

static int parse_item(struct takt_sim *s, const char *it, unsigned k, int *par, uint8_t *port,
                      char *err, size_t errlen)
{
    char *end;
    unsigned long p = strtoul(it, &end, 10), q = 0;
    if (end == it || *end != ':' || (q = strtoul(end + 1, &end, 10), *end && *end != ','))
        goto bad;
    if (p >= k || q < 1 || q > 3)
        goto bad;
    *par = (int)p;
    *port = (uint8_t)q;
    return 0;
bad:
    snprintf(err, errlen, "topology: position %u: expected PARENT:PORT with PARENT a position "
             "0..%u (an earlier slave) and PORT 1..3, got '%.*s'", k, k - 1,
             (int)strcspn(it, ","), it);
    return -EINVAL;
}

int takt_sim_set_topology(struct takt_sim *s, const char *spec, char *err, size_t errlen)
{
    int *par = calloc(s->n, sizeof *par);
    uint8_t *port = calloc(s->n, 1);
    int rc = par && port ? 0 : -ENOMEM;
    if (par)
        par[0] = -1;
    if (!rc && (!spec || !strcmp(spec, "line"))) {
        for (unsigned k = 1; k < s->n; k++)
            par[k] = (int)k - 1, port[k] = 1;
    } else if (!rc) {
        const char *it = spec;
        unsigned k = 1;
        for (; !rc && *it && k < s->n; k++) {
            rc = parse_item(s, it, k, &par[k], &port[k], err, errlen);
            it += strcspn(it, ",");
            it += *it == ',';
        }
        if (!rc && (k != s->n || *it)) {
            snprintf(err, errlen, "topology: expected %u items PARENT:PORT (positions 1..%u), "
                     "got %s", s->n - 1, s->n - 1, *it ? "more" : "fewer");
            rc = -EINVAL;
        }
        for (unsigned a = 1; !rc && a < s->n; a++)
            for (unsigned b = 1; b < a; b++)
                if (par[a] == par[b] && port[a] == port[b]) {
                    snprintf(err, errlen, "topology: positions %u and %u both on port %u of "
                             "position %d", b, a, port[a], par[a]);
                    rc = -EINVAL;
                    break;
                }
    }
    int *opar = rc ? NULL : malloc(s->n * sizeof *opar);
    uint8_t *oport = rc ? NULL : malloc(s->n);
    if (!rc && (!opar || !oport))
        rc = -ENOMEM;
    for (unsigned k = 0; !rc && k < s->n; k++) {
        opar[k] = s->sl[k].parent, oport[k] = s->sl[k].pport;
        s->sl[k].parent = par[k], s->sl[k].pport = port[k];
    }
    if (!rc && (rc = check_order(s, err, errlen)) != 0)
        for (unsigned k = 0; k < s->n; k++)
            s->sl[k].parent = opar[k], s->sl[k].pport = oport[k];
    if (opar || oport)
        sim_net_topology(s, 0);
    free(opar);
    free(oport);
    free(par);
    free(port);
    return rc;
}

int takt_sim_get_parent(const struct takt_sim *s, unsigned pos, int *parent, unsigned *port)
{
    if (pos >= s->n)
        return -EINVAL;
    *parent = s->sl[pos].parent;
    *port = s->sl[pos].parent >= 0 ? s->sl[pos].pport : 0;
    return 0;
}

/* Re-plug: the subtrees on ports p1 and p2 of slave k trade places (a swapped cable on
 * a junction). Positions follow the frame, so the slaves are renumbered; what was
 * plugged anew lost its link, which the simulator treats as power loss (as heal does):
 * if connected, those slaves restart in INIT without an address. */
int takt_sim_swap_ports(struct takt_sim *s, unsigned k, unsigned p1, unsigned p2, takt_ns_t now)
{
    if (k >= s->n || p1 < 1 || p1 > 3 || p2 < 1 || p2 > 3 || p1 == p2)
        return -EINVAL;
    int a = -1, b = -1;
    for (unsigned c = 0; c < s->n; c++) {
        if (s->sl[c].parent == (int)k && s->sl[c].pport == p1)
            a = (int)c;
        if (s->sl[c].parent == (int)k && s->sl[c].pport == p2)
            b = (int)c;
    }
    if (a >= 0)
        s->sl[a].pport = (uint8_t)p2;
    if (b >= 0)
        s->sl[b].pport = (uint8_t)p1;
    /* the new order: walk the whole tree (cuts ignored) */
    bool *cuts = malloc(s->n * sizeof *cuts);
    unsigned *inv = malloc(s->n * sizeof *inv);
    struct sim_slave *nsl = malloc(s->n * sizeof *nsl);
    if (!cuts || !inv || !nsl) {
        free(cuts), free(inv), free(nsl);
        return -ENOMEM;
    }
    for (unsigned c = 0; c < s->n; c++)
        cuts[c] = s->sl[c].cut, s->sl[c].cut = false;
    bool was_up[2] = { a >= 0 && !cuts[a], b >= 0 && !cuts[b] };
    sim_net_topology(s, now);
    for (unsigned p = 0; p < s->n; p++)
        inv[s->act[p]] = p;
    for (unsigned p = 0; p < s->n; p++) {
        nsl[p] = s->sl[s->act[p]];
        nsl[p].cut = cuts[s->act[p]];
        if (nsl[p].parent >= 0)
            nsl[p].parent = (int)inv[nsl[p].parent];
    }
    int na = a >= 0 ? (int)inv[a] : -1, nb = b >= 0 ? (int)inv[b] : -1;
    memcpy(s->sl, nsl, s->n * sizeof *nsl);
    free(nsl);
    free(cuts);
    /* re-plugged while connected: everything below each re-plugged port restarts */
    for (unsigned c = 0; c < s->n; c++) {
        for (int x = (int)c; x >= 0; x = s->sl[x].parent)
            if ((x == na && was_up[0]) || (x == nb && was_up[1])) {
                sim_power_on(s, c, now);
                break;
            }
    }
    free(inv);
    sim_net_topology(s, now);
    return 0;
}
