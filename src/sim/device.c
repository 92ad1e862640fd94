/* A simulated device instance: the sim_device_ops the software ESC calls (mailbox, AL
 * checks, process data, image sizes) over the object dictionary, CoE server and behaviour. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/proto.h"
#include "sim/device_ext.h"
#include "util/wire.h"

static size_t dev_mbx_write(struct sim_device *sd, const uint8_t *msg, size_t len,
                            uint8_t *reply, size_t cap, takt_ns_t now)
{
    struct sim_dev *d = sim_dev_of(sd);
    if (!(d->desc.mbx_protocols))
        return 0;
    size_t n = coe_mbx_write(&d->coe, msg, len, reply, cap);
    d->plan_dirty = true;      /* a download may have changed mapping or assignment */
    return n;
}

static size_t dev_mbx_pending(struct sim_device *sd, uint8_t *reply, size_t cap, takt_ns_t now)
{
    return coe_mbx_pending(&sim_dev_of(sd)->coe, reply, cap);
}

static void add_map(struct sim_pd_map *m, unsigned *n, uint8_t *val, uint16_t bits, uint32_t off)
{
    if (*n >= SIM_PD_MAP_MAX)
        return;
    m[*n].val = val;
    m[*n].bits = bits;
    m[*n].off = off;
    (*n)++;
}

/* Lay out the image of one direction from the assignment objects of its SMs. */
static size_t plan_dir(struct sim_dev *d, uint8_t type, struct sim_pd_map *m, unsigned *n)
{
    uint32_t off = 0;
    *n = 0;
    for (unsigned sm = 0; sm < d->desc.n_sm; sm++) {
        if (d->desc.sm[sm].type != type)
            continue;
        struct od_object *a = od_find(&d->od, (uint16_t)(0x1C10 + sm));
        for (unsigned i = 1; a && i <= od_max_sub(a); i++) {
            struct od_object *p = od_find(&d->od, (uint16_t)od_get_u(&d->od, a->index, (uint8_t)i));
            for (unsigned k = 1; p && k <= od_max_sub(p); k++) {
                uint32_t v = (uint32_t)od_get_u(&d->od, p->index, (uint8_t)k);
                uint16_t bits = v & 0xFF;
                struct od_entry *e = od_find_entry(&d->od, (uint16_t)(v >> 16), (uint8_t)(v >> 8));
                add_map(m, n, e && e->bits == bits ? e->val : NULL, bits, off);
                off += bits;
            }
        }
        off = (off + 7) & ~7u;   /* each SM image is whole bytes */
    }
    return off / 8;
}

/* The bytes of d->vals every mapped value lies in: process() reads and writes only
 * those (and the behaviour's entries, which sim_behaviour_idle covers), so when they
 * are unchanged an idle call would produce the same inputs. Values outside d->vals
 * (dictionaries too large for it) disable idle detection. */
static void plan_snapshot(struct sim_dev *d)
{
    const uint8_t *lo = NULL, *hi = NULL;
    d->idle_ok = false;
    d->snap_ok = true;
    for (unsigned i = 0; i < d->n_out + d->n_in; i++) {
        const struct sim_pd_map *m = &d->map[i];
        if (!m->val)
            continue;
        const uint8_t *end = m->val + (m->bits + 7u) / 8u;
        if (m->val < d->vals || end > d->vals + sizeof d->vals) {
            d->snap_ok = false;
            return;
        }
        lo = !lo || m->val < lo ? m->val : lo;
        hi = !hi || end > hi ? end : hi;
    }
    d->snap_off = (uint16_t)(lo ? lo - d->vals : 0);
    d->snap_len = (uint16_t)(lo ? hi - lo : 0);
    d->snap_ok = d->snap_len <= sizeof d->snap;
    d->snap_wide = d->snap_len <= 8 && d->snap_off + 8u <= sizeof d->vals;
    if (d->snap_wide)
        d->snap_len = 8;
}

static bool dev_pd_idle(struct sim_device *sd, takt_ns_t now)
{
    struct sim_dev *d = sim_dev_of(sd);
    if (!d->idle_ok || !d->snap_ok || d->plan_dirty || d->al != d->idle_al ||
        !sim_behaviour_idle(d, now))
        return false;
    const uint8_t *v = d->vals + d->snap_off;
    if (d->snap_wide) {
        /* 8 bytes from snap_off (more than the mapped ones: a change there only costs
         * a process call), one compare */
        uint64_t a, b;
        memcpy(&a, v, 8);
        memcpy(&b, &d->snap8, 8);
        return a == b;
    }
    for (unsigned i = 0; i < d->snap_len; i++)   /* a few bytes: no library call */
        if (v[i] != d->snap[i])
            return false;
    return true;
}

void sim_device_replan(struct sim_dev *d)
{
    d->out_len = plan_dir(d, SIM_SM_OUTPUTS, d->map, &d->n_out);
    d->in_len = plan_dir(d, SIM_SM_INPUTS, d->map + d->n_out, &d->n_in);
    if (d->out_len > SIM_PD_MAX)
        d->out_len = SIM_PD_MAX;
    if (d->in_len > SIM_PD_MAX)
        d->in_len = SIM_PD_MAX;
    d->plan_dirty = false;
    plan_snapshot(d);
}

static void dev_pd_sizes(struct sim_device *sd, size_t *out_len, size_t *in_len)
{
    struct sim_dev *d = sim_dev_of(sd);
    if (d->plan_dirty)
        sim_device_replan(d);
    *out_len = d->out_len;
    *in_len = d->in_len;
}

static int sm_index(const struct sim_device_desc *s, uint8_t type)
{
    for (unsigned i = 0; i < s->n_sm; i++)
        if (s->sm[i].type == type)
            return (int)i;
    return -1;
}

/* PREOP -> SAFEOP: process-data SMs must match the current image (ETG.1000.6 AL codes
 * 0x001D invalid output configuration / 0x001E invalid input configuration). */
static uint16_t check_pd_sms(struct sim_dev *d, const uint8_t *esc)
{
    static const struct { uint8_t type; uint16_t code; } dirs[] = {
        { SIM_SM_OUTPUTS, 0x001D }, { SIM_SM_INPUTS, 0x001E } };
    for (size_t k = 0; k < 2; k++) {
        int sm = sm_index(&d->desc, dirs[k].type);
        size_t want = dirs[k].type == SIM_SM_OUTPUTS ? d->out_len : d->in_len;
        if (sm < 0 || !want)
            continue;
        const uint8_t *r = esc + ESC_SM0 + ESC_SM_SIZE * sm;
        if (get_le16(r + 2) != want || !(r[6] & 0x01))
            return dirs[k].code;
    }
    return 0;
}

/* INIT -> PREOP: the mailbox SMs must be enabled with a length the device accepts. */
static uint16_t check_mbx_sms(struct sim_dev *d, const uint8_t *esc)
{
    int mo = sm_index(&d->desc, SIM_SM_MBX_OUT), mi = sm_index(&d->desc, SIM_SM_MBX_IN);
    if (mo < 0 || mi < 0 || !d->desc.mbx_protocols)
        return 0;
    const uint8_t *o = esc + ESC_SM0 + ESC_SM_SIZE * mo, *i = esc + ESC_SM0 + ESC_SM_SIZE * mi;
    if (!(o[6] & 1) || !(i[6] & 1) || get_le16(o + 2) < 16 || get_le16(i + 2) < 16 ||
        get_le16(o + 2) > COE_MBX_MAX || get_le16(i + 2) > COE_MBX_MAX)
        return 0x0016;         /* invalid mailbox configuration (PREOP) */
    d->coe.mbx_out = get_le16(o + 2);
    d->coe.mbx_in = get_le16(i + 2);
    return 0;
}

static uint16_t dev_al_change(struct sim_device *sd, uint8_t from, uint8_t to,
                              const uint8_t *esc, takt_ns_t now)
{
    struct sim_dev *d = sim_dev_of(sd);
    uint16_t code = 0;
    if (d->refuse_code && (to & AL_STATE_MASK) == d->refuse_to)
        return d->refuse_code;
    if ((to & AL_STATE_MASK) == AL_BOOT && !(d->desc.mbx_protocols & MBX_PROTO_FOE))
        return 0x0013;         /* bootstrap not supported: no FoE for a firmware update */
    if (d->plan_dirty)
        sim_device_replan(d);
    if (esc && from == AL_INIT && to == AL_PREOP)
        code = check_mbx_sms(d, esc);
    if (esc && !code && from == AL_PREOP && (to == AL_SAFEOP || to == AL_OP))
        code = check_pd_sms(d, esc);
    if (!code && !strcmp(d->desc.behaviour, "servo"))
        code = sim_servo_al_check(d, from, to, esc);
    if (code)
        return code;
    if (to == AL_INIT)
        coe_reset(&d->coe);
    d->al = to & AL_STATE_MASK;
    d->coe.al = d->al;
    return 0;
}

static void dev_process(struct sim_device *sd, const uint8_t *outputs, size_t out_len,
                        uint8_t *inputs, size_t in_len, takt_ns_t now)
{
    struct sim_dev *d = sim_dev_of(sd);
    if (d->plan_dirty)
        sim_device_replan(d);
    d->n_process++;
    if (outputs && out_len) {
        size_t n = out_len < SIM_PD_MAX ? out_len : SIM_PD_MAX;
        memcpy(d->last_out, outputs, n);
        d->last_out_len = n;
        /* outputs reach the application only in OP (SAFEOP keeps outputs safe) */
        if (d->al == AL_OP)
            for (unsigned i = 0; i < d->n_out; i++) {
                const struct sim_pd_map *m = &d->map[i];
                if (m->val && m->off + m->bits <= 8 * n)
                    od_bitcopy(m->val, 0, outputs, m->off, m->bits);
            }
    }
    sim_behaviour_step(d, now);
    if (inputs && in_len) {
        memset(inputs, 0, in_len);           /* gaps and padding read as 0 */
        for (unsigned i = 0; i < d->n_in; i++) {
            const struct sim_pd_map *m = &d->map[d->n_out + i];
            if (m->val && m->off + m->bits <= 8 * in_len)
                od_bitcopy(inputs, m->off, m->val, 0, m->bits);
        }
    }
    if (d->snap_ok) {
        memcpy(d->snap, d->vals + d->snap_off, d->snap_len);
        if (d->snap_wide)
            memcpy(&d->snap8, d->vals + d->snap_off, 8);
        d->idle_al = d->al;
        d->idle_ok = true;
    }
}

static void dev_destroy(struct sim_device *sd)
{
    struct sim_dev *d = sim_dev_of(sd);
    if (!d)
        return;
    od_free(&d->od);
    free(d->base.sii);
    free(d->alloc);
}

/* Instances are large, so malloc hands out page-aligned blocks: every device's hot
 * head would sit at the same page offset, i.e. in the same few cache sets, and a
 * line of 1000 devices would evict itself every frame. Start each instance at a
 * cache-line offset taken from its page number instead. */
static struct sim_dev *dev_alloc(void)
{
    uint8_t *raw = calloc(1, sizeof(struct sim_dev) + 65 * 64);
    if (!raw)
        return NULL;
    /* on a line boundary, so the hot head is exactly one line */
    uint8_t *line = (uint8_t *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
    struct sim_dev *d = (struct sim_dev *)(line + 64 * (((uintptr_t)raw >> 12) % 64));
    d->alloc = raw;
    return d;
}

static const struct sim_device_ops dev_ops = {
    .mbx_write = dev_mbx_write,
    .mbx_pending = dev_mbx_pending,
    .al_change = dev_al_change,
    .process = dev_process,
    .pd_idle = dev_pd_idle,
    .pd_sizes = dev_pd_sizes,
    .destroy = dev_destroy,
};

/* The description without its unused PDO slots: the instance comes zeroed from calloc,
 * so the pages of slots no PDO uses are never touched (SIM_MAX_PDO is sized for big
 * drives, most devices offer a few). */
static void copy_desc(struct sim_device_desc *to, const struct sim_device_desc *from)
{
    memcpy(to, from, offsetof(struct sim_device_desc, rxpdo));
    unsigned nr = from->n_rxpdo < SIM_MAX_PDO ? from->n_rxpdo : SIM_MAX_PDO;
    unsigned nt = from->n_txpdo < SIM_MAX_PDO ? from->n_txpdo : SIM_MAX_PDO;
    memcpy(to->rxpdo, from->rxpdo, nr * sizeof from->rxpdo[0]);
    memcpy(to->txpdo, from->txpdo, nt * sizeof from->txpdo[0]);
    size_t tail = offsetof(struct sim_device_desc, txpdo) + sizeof from->txpdo;
    memcpy((char *)to + tail, (const char *)from + tail, sizeof *from - tail);
}

/* Shared by sim_device_from_desc and the ESI route (which brings a dictionary). */
int sim_device_new(const struct sim_device_desc *desc, const struct sim_od *dict,
                   struct sim_device **out)
{
    struct sim_dev *d = dev_alloc();
    if (!d)
        return -ENOMEM;
    copy_desc(&d->desc, desc);
    d->base.ops = &dev_ops;
    d->base.desc = &d->desc;
    d->al = AL_INIT;
    int rc = dict ? od_clone(&d->od, dict) : (od_init(&d->od), 0);
    if (!rc)
        rc = sim_device_build_od(d);
    if (!rc)
        rc = od_compact(&d->od, d->vals, sizeof d->vals);
    uint8_t *sii = rc ? NULL : malloc(65536);
    if (!rc && !sii)
        rc = -ENOMEM;
    if (!rc) {
        int n = sim_sii_build(&d->desc, sii, 65536);
        if (n < 0)
            rc = n;
        else if (!(d->base.sii = malloc((size_t)n)))  /* keep only what the image needs */
            rc = -ENOMEM;
        else {
            memcpy(d->base.sii, sii, (size_t)n);
            d->base.sii_len = (size_t)n;
        }
    }
    free(sii);
    if (rc) {
        dev_destroy(&d->base);
        return rc;
    }
    int mo = sm_index(desc, SIM_SM_MBX_OUT), mi = sm_index(desc, SIM_SM_MBX_IN);
    struct od_rules rules = { .pdo_config = desc->coe_details & 0x08,
                              .pdo_assign = desc->coe_details & 0x04,
                              .max_pdo_bits = 8 * 256 };
    coe_init(&d->coe, &d->od, desc->coe_details, mo >= 0 ? desc->sm[mo].len : 0,
             mi >= 0 ? desc->sm[mi].len : 0, &rules);
    sim_device_replan(d);
    sim_behaviour_init(d);
    *out = &d->base;
    return 0;
}

int sim_device_from_desc(const struct sim_device_desc *desc, struct sim_device **out)
{
    return sim_device_new(desc, NULL, out);
}

size_t sim_device_outputs(struct sim_device *sd, uint8_t *buf, size_t cap)
{
    struct sim_dev *d = sim_dev_of(sd);
    size_t n = d->last_out_len < cap ? d->last_out_len : cap;
    memcpy(buf, d->last_out, n);
    return d->last_out_len;
}

int sim_device_fault_sdo(struct sim_device *sd, uint16_t index, uint32_t abort_code)
{
    struct od_object *o = od_find(&sim_dev_of(sd)->od, index);
    if (!o)
        return -ENOENT;
    o->fault_abort = abort_code;
    return 0;
}

void sim_device_fault_al(struct sim_device *sd, uint8_t to, uint16_t al_code)
{
    struct sim_dev *d = sim_dev_of(sd);
    d->refuse_to = to & AL_STATE_MASK;
    d->refuse_code = al_code;
}

int sim_device_emergency(struct sim_device *sd, uint16_t code, uint8_t reg, const uint8_t data[5])
{
    struct sim_dev *d = sim_dev_of(sd);
    if (!(d->desc.mbx_protocols & MBX_PROTO_COE))
        return -EINVAL;
    return coe_emergency(&d->coe, code, reg, data);
}

struct sim_od *sim_device_od(struct sim_device *sd)
{
    return &sim_dev_of(sd)->od;
}
