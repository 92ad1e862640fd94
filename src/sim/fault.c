/* Fault injection for the simulated network: the spec language (takt_sim_fault),
 * scheduled events, cable break (any branch)/heal and power cycling with power-loss
 * semantics. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "sim/esc_eoe.h"
#include "sim/net.h"

static void recreate_device(struct takt_sim *s, unsigned k)
{
    /* Power loss also forgets what the device learnt over CoE (PDO mapping, ...):
     * devices from the catalogue are built anew. */
    struct sim_slave *sl = &s->sl[k];
    struct sim_device *nd = NULL;
    if (!s->make_dev || !sl->name[0] || s->make_dev(sl->name, &nd) != 0 || !nd)
        return;
    if (sl->dev && sl->dev->ops->destroy)
        sl->dev->ops->destroy(sl->dev);
    sl->dev = nd;
    sl->esc.dev = nd;
    sl->esc.desc = nd->desc;
    sl->esc.al_state = 0;           /* a new device starts in INIT: nothing to tell it */
}

void sim_power_on(struct takt_sim *s, unsigned k, takt_ns_t now)
{
    struct sim_esc *e = &s->sl[k].esc;
    struct esc_fault keep = e->fault;
    recreate_device(s, k);
    esc_reset(e, now);
    /* the IP parameters a master gave over EoE are held in RAM: gone with the power, as
     * on the devices a master sends them to at every start-up */
    esc_eoe_free(e);
    e->fault = keep;
}

int takt_sim_replace_device(struct takt_sim *s, unsigned k, struct sim_device *dev, takt_ns_t now)
{
    if (k >= s->n || !dev)
        return -EINVAL;
    struct sim_slave *sl = &s->sl[k];
    struct sim_esc *e = &sl->esc;
    struct sim_device *old = sl->dev;
    struct esc_fault keep = e->fault;
    int rc = esc_set_device(e, dev);
    if (rc)
        return rc;
    if (old && old->ops->destroy)
        old->ops->destroy(old);
    sl->dev = dev;
    sl->name[0] = 0;                /* not from the catalogue: a power cycle keeps it */
    e->al_state = 0;                /* the new device starts in INIT: nothing to tell it */
    esc_reset(e, now);              /* unplugged and plugged in: as after power loss */
    e->fault = keep;
    sim_net_topology(s, now);
    return 0;
}

static bool reachable(const struct takt_sim *s, unsigned k)
{
    for (unsigned i = 0; i < s->reach; i++)
        if (s->act[i] == k)
            return true;
    return false;
}

/* Cut the cable into port 0 of the slave at position k: its whole subtree is lost, its
 * parent counts a lost link on that port (0x0310 + port). */
static void cut(struct takt_sim *s, unsigned k, takt_ns_t now)
{
    struct sim_slave *sl = &s->sl[k];
    if (sl->cut)
        return;
    if (reachable(s, k) && sl->parent >= 0) {
        uint8_t *ll = s->sl[sl->parent].esc.mem + 0x0310 + sl->pport;
        if (*ll < 0xFF)
            (*ll)++;
    }
    sl->cut = true;
    sim_net_topology(s, now);
}

int takt_sim_break(struct takt_sim *s, unsigned pos, takt_ns_t now)
{
    /* the cable into position pos: in a line, pos and every later slave vanish, in a
     * tree the branch that pos begins */
    if (pos == s->n && s->ring) {   /* the ring's last cable, into the master's second port */
        s->ring_cut_end = true;
        return 0;
    }
    if (pos >= s->n)
        return -EINVAL;
    cut(s, pos, now);
    return 0;
}

int takt_sim_break_port(struct takt_sim *s, unsigned k, unsigned port, takt_ns_t now)
{
    if (k >= s->n || port > 3)
        return -EINVAL;
    if (port == 0) {
        cut(s, k, now);
        return 0;
    }
    for (unsigned c = 0; c < s->n; c++)
        if (s->sl[c].parent == (int)k && s->sl[c].pport == port) {
            cut(s, c, now);
            return 0;
        }
    return -ENOENT;                 /* nothing hangs on that port */
}

int takt_sim_heal(struct takt_sim *s, takt_ns_t now)
{
    /* Slaves that were cut off come back as after a power loss: INIT, unconfigured. */
    uint8_t *was = s->scr_flag;
    memset(was, 0, s->n);
    for (unsigned i = 0; i < s->reach; i++)
        was[s->act[i]] = true;
    for (unsigned i = 0; s->ring && i < s->reach2; i++)
        was[s->act2[i]] = true;     /* a ring's far side kept talking to the second port */
    s->ring_cut_end = false;
    for (unsigned k = 0; k < s->n; k++) {
        s->sl[k].cut = false;
        if (!was[k])
            sim_power_on(s, k, now);
    }
    sim_net_topology(s, now);
    return 0;
}

int takt_sim_power_cycle(struct takt_sim *s, unsigned k, takt_ns_t now)
{
    if (k >= s->n)
        return -EINVAL;
    sim_power_on(s, k, now);
    sim_net_topology(s, now);
    return 0;
}

static void apply(struct takt_sim *s, struct sim_event *ev, takt_ns_t now)
{
    struct sim_esc *e = &s->sl[ev->slave].esc;
    switch (ev->kind) {
    case SIM_EV_BREAK:
        if (ev->sub)
            (void)takt_sim_break_port(s, ev->slave, ev->sub - 1u, now);
        else
            takt_sim_break(s, ev->slave, now);
        break;
    case SIM_EV_HEAL:      takt_sim_heal(s, now); break;
    case SIM_EV_POWER:     takt_sim_power_cycle(s, ev->slave, now); break;
    case SIM_EV_SDO_ABORT:
        e->fault.sdo_abort = true;
        e->fault.abort_index = ev->index;
        e->fault.abort_sub = ev->sub;
        e->fault.abort_code = ev->code;
        break;
    case SIM_EV_REFUSE:
        e->fault.refuse_state = ev->state;
        e->fault.refuse_code = ev->code16;
        break;
    default: break;
    }
    ev->done = true;
}

void sim_net_events(struct takt_sim *s, takt_ns_t now)
{
    for (unsigned i = 0; i < s->n_ev; i++) {
        struct sim_event *ev = &s->ev[i];
        if (!ev->done && (ev->at < 0 || now - s->t0 >= ev->at))
            apply(s, ev, now);
    }
}

/* "2.5" seconds, "300ms", "40us", "100ns" -> ns */
static int parse_time(const char *p, char **end, takt_ns_t *out)
{
    double v = strtod(p, end);
    if (*end == p || !(v >= 0))       /* also NaN */
        return -1;
    double mul = 1e9;
    if (!strncmp(*end, "ms", 2)) { mul = 1e6; *end += 2; }
    else if (!strncmp(*end, "us", 2)) { mul = 1e3; *end += 2; }
    else if (!strncmp(*end, "ns", 2)) { mul = 1; *end += 2; }
    else if (**end == 's') { (*end)++; }
    if (!(v * mul <= 1e18))           /* ~31 years; more does not fit takt_ns_t */
        return -1;
    *out = (takt_ns_t)(v * mul);
    return 0;
}

static int parse_state(const char *p, uint8_t *st)
{
    static const struct { const char *n; uint8_t v; } t[] = {
        { "init", AL_INIT }, { "preop", AL_PREOP }, { "boot", AL_BOOT },
        { "safeop", AL_SAFEOP }, { "op", AL_OP },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcasecmp(p, t[i].n)) {
            *st = t[i].v;
            return 0;
        }
    return -1;
}

#define FAIL(...) do { if (err) snprintf(err, errlen, __VA_ARGS__); return -EINVAL; } while (0)

/* K: a slave position counted from 0 in the frame's order, as `takt ecat slaves` and
 * IgH's `ethercat slaves` show it. */
static int parse_slave(struct takt_sim *s, const char *name, const char *v, char **end,
                       unsigned *k, char *err, size_t errlen)
{
    unsigned long x = strtoul(v, end, 10);
    if (*end == v || *v == '-' || *v == '+')
        FAIL("fault %s: expected a slave position 0..%u (as takt ecat slaves shows), got '%s'",
             name, s->n - 1, v);
    /* in a ring, break=N is the cable from the last slave back to the master's second port */
    if (x == s->n && s->ring && (name[0] == 'b' || name[0] == 'h') && **end != ':') {
        *k = (unsigned)x;
        return 0;
    }
    if (x >= s->n)
        FAIL("fault %s: no slave at position %lu (the network has positions 0..%u), in '%s'",
             name, x, s->n - 1, v);
    *k = (unsigned)x;
    return 0;
}

static int parse_one(struct takt_sim *s, char *item, char *err, size_t errlen)
{
    char *eq = strchr(item, '='), *end;
    if (!eq)
        FAIL("fault '%s': expected NAME=VALUE (drop, corrupt, crc, delay, break, heal, power, sdo-abort, refuse)", item);
    *eq = 0;
    const char *name = item, *v = eq + 1;
    struct sim_event ev = { .at = -1 };
    if (!strcmp(name, "drop") || !strcmp(name, "corrupt") || !strcmp(name, "crc")) {
        double p = strtod(v, &end);
        if (end == v || *end || p < 0 || p > 1)
            FAIL("fault %s: expected a probability 0..1, got '%s'", name, v);
        *(name[0] == 'd' ? &s->p_drop : name[1] == 'o' ? &s->p_corrupt : &s->p_crc) = p;
        return 0;
    }
    if (!strcmp(name, "delay")) {
        if (parse_time(v, &end, &s->delay) || *end)
            FAIL("fault delay: expected a time such as 200us, got '%s'", v);
        if (!strpbrk(v, "smun"))
            s->delay = (takt_ns_t)strtod(v, NULL);   /* plain number: ns */
        return 0;
    }
    if (!strcmp(name, "break") || !strcmp(name, "heal") || !strcmp(name, "power")) {
        ev.kind = name[0] == 'b' ? SIM_EV_BREAK : name[0] == 'h' ? SIM_EV_HEAL : SIM_EV_POWER;
        if (parse_slave(s, name, v, &end, &ev.slave, err, errlen))
            return -EINVAL;
        if (ev.kind == SIM_EV_BREAK && *end == ':') {
            /* break=K:P: the cable on port P of slave K (P 0 = the one into K) */
            const char *pp = end + 1;
            unsigned long p = strtoul(pp, &end, 10);
            if (end == pp || p > 3)
                FAIL("fault break: expected K:PORT with K a position 0..%u and PORT 0..3, got '%s'",
                     s->n - 1, v);
            ev.sub = (uint8_t)(p + 1);
        }
    } else if (!strcmp(name, "sdo-abort")) {
        /* K:IDX:SUB=CODE -- the '=' before CODE was the second one in the item */
        char *eq2 = strchr(v, '=');
        unsigned long idx, sub;
        if (parse_slave(s, name, v, &end, &ev.slave, err, errlen))
            return -EINVAL;
        if (*end != ':' || !eq2)
            FAIL("fault sdo-abort: expected K:INDEX:SUB=CODE, got '%s'", v);
        idx = strtoul(end + 1, &end, 16);
        if (*end != ':' || idx > 0xFFFF)
            FAIL("fault sdo-abort: expected a hex index such as 0x6040, got '%s'", v);
        sub = strtoul(end + 1, &end, 0);
        if (end != eq2 || sub > 255)
            FAIL("fault sdo-abort: expected a subindex 0..255, got '%s'", v);
        ev.kind = SIM_EV_SDO_ABORT;
        ev.index = (uint16_t)idx;
        ev.sub = (uint8_t)sub;
        ev.code = (uint32_t)strtoul(eq2 + 1, &end, 16);
        if (end == eq2 + 1)
            FAIL("fault sdo-abort: expected a hex abort code such as 0x06020000 after '='");
    } else if (!strcmp(name, "refuse")) {
        char *eq2 = strchr(v, '='), st[16];
        if (parse_slave(s, name, v, &end, &ev.slave, err, errlen))
            return -EINVAL;
        if (*end != ':' || !eq2 || (size_t)(eq2 - end - 1) >= sizeof st)
            FAIL("fault refuse: expected K:STATE=CODE, got '%s'", v);
        memcpy(st, end + 1, (size_t)(eq2 - end - 1));
        st[eq2 - end - 1] = 0;
        if (parse_state(st, &ev.state))
            FAIL("fault refuse: expected a state init/preop/boot/safeop/op, got '%s'", st);
        unsigned long c = strtoul(eq2 + 1, &end, 16);
        if (end == eq2 + 1 || c > 0xFFFF || !c)
            FAIL("fault refuse: expected a hex AL status code such as 0x001D, got '%s'", eq2 + 1);
        ev.kind = SIM_EV_REFUSE;
        ev.code16 = (uint16_t)c;
    } else {
        FAIL("unknown fault '%s' (expected drop, corrupt, crc, delay, break, heal, power, sdo-abort, refuse)", name);
    }
    if (*end == '@') {
        const char *tp = end + 1;
        if (parse_time(tp, &end, &ev.at) || *end)
            FAIL("fault %s: expected a time after '@' such as 2.5 or 300ms, got '%s'", name, tp);
    } else if (*end && ev.kind != SIM_EV_SDO_ABORT && ev.kind != SIM_EV_REFUSE) {
        FAIL("fault %s: unexpected '%s' (expected @TIME or nothing)", name, end);
    }
    if (s->n_ev >= SIM_MAX_EVENTS)
        FAIL("too many scheduled faults (at most %d)", SIM_MAX_EVENTS);
    s->ev[s->n_ev++] = ev;
    return 0;
}

int takt_sim_fault(struct takt_sim *s, const char *spec, char *err, size_t errlen)
{
    char buf[512];
    if (strlen(spec) >= sizeof buf)
        FAIL("fault spec longer than %zu characters", sizeof buf - 1);
    strcpy(buf, spec);
    char *save = NULL;
    for (char *it = strtok_r(buf, ";", &save); it; it = strtok_r(NULL, ";", &save)) {
        while (*it == ' ')
            it++;
        if (!*it)
            continue;
        int rc = parse_one(s, it, err, errlen);
        if (rc)
            return rc;
    }
    /* Immediate faults apply now (before the first frame, time 0 is that frame). */
    if (s->have_t0)
        sim_net_events(s, s->t0);
    else
        for (unsigned i = 0; i < s->n_ev; i++)
            if (!s->ev[i].done && s->ev[i].at < 0 &&
                (s->ev[i].kind == SIM_EV_SDO_ABORT || s->ev[i].kind == SIM_EV_REFUSE))
                apply(s, &s->ev[i], 0);
    return 0;
}
