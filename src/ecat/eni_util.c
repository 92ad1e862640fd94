/* ENI helpers: the allocation arena, ESM transition names, the scanned-bus check and
 * the conversion of an ENI slave's PDO assignment into a layout map (pdo.h). */
#include "ecat/eni_internal.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/pdo.h"
#include "util/wire.h"

struct arena_blk {
    struct arena_blk *next;
    max_align_t data[];
};

struct ecat_eni *eni_new(void)
{
    return calloc(1, sizeof(struct ecat_eni));
}

void *eni_alloc(struct ecat_eni *eni, size_t n)
{
    struct arena_blk *b = calloc(1, sizeof *b + n);
    if (!b)
        return NULL;
    b->next = eni->arena;
    eni->arena = b;
    return b->data;
}

char *eni_strdup(struct ecat_eni *eni, const char *s)
{
    size_t n = strlen(s ? s : "");
    char *d = eni_alloc(eni, n + 1);
    if (d && n)
        memcpy(d, s, n);
    return d;
}

void ecat_eni_free(struct ecat_eni *eni)
{
    if (!eni)
        return;
    for (struct arena_blk *b = eni->arena, *nx; b; b = nx) {
        nx = b->next;
        free(b);
    }
    free(eni);
}

/* ESM transition names (ETG.1000.6 6.4; SOEM ECT_ESMTRANS_*). */
static const char *const tr_names[ECAT_TR_COUNT] = {
    [ECAT_TR_IP] = "IP", [ECAT_TR_PS] = "PS", [ECAT_TR_PI] = "PI", [ECAT_TR_SP] = "SP",
    [ECAT_TR_SO] = "SO", [ECAT_TR_SI] = "SI", [ECAT_TR_OS] = "OS", [ECAT_TR_OP] = "OP",
    [ECAT_TR_OI] = "OI", [ECAT_TR_IB] = "IB", [ECAT_TR_BI] = "BI", [ECAT_TR_II] = "II",
    [ECAT_TR_PP] = "PP", [ECAT_TR_SS] = "SS",
};
_Static_assert(TAKT_ARRAY_SIZE(tr_names) == ECAT_TR_COUNT, "one name per transition");

int ecat_tr_parse(const char *s)
{
    for (int i = 0; i < ECAT_TR_COUNT; i++)
        if (strcmp(s, tr_names[i]) == 0)
            return i;
    return -1;
}

const char *ecat_tr_name(enum ecat_tr t)
{
    return (unsigned)t < ECAT_TR_COUNT ? tr_names[t] : "??";
}

static char state_letter(unsigned s)
{
    switch (s & AL_STATE_MASK) {
    case AL_INIT: return 'I';
    case AL_PREOP: return 'P';
    case AL_BOOT: return 'B';
    case AL_SAFEOP: return 'S';
    case AL_OP: return 'O';
    default: return 0;
    }
}

int ecat_tr_from_states(unsigned from, unsigned to)
{
    char n[3] = { state_letter(from), state_letter(to), 0 };
    return n[0] && n[1] ? ecat_tr_parse(n) : -1;
}

uint16_t eni_type_code(const char *name)
{
    if (!name || !*name)
        return 0;
    if (strcmp(name, "BIT") == 0)
        return 0x01;
    for (uint16_t t = 1; t < 0x40; t++)
        if (strcmp(takt_ecat_coe_type_name(t), name) == 0)
            return t;
    return 0;
}

/* --- scanned bus vs ENI --------------------------------------------------------------- */

static void ident_text(char *buf, size_t n, const struct ecat_ident *id, const char *name)
{
    snprintf(buf, n, "vendor 0x%X product 0x%08X rev 0x%08X%s%s%s", id->vendor, id->product,
             id->revision, name && *name ? " (" : "", name && *name ? name : "", name && *name ? ")" : "");
}

unsigned ecat_eni_compare(const struct ecat_eni *eni, const struct ecat_ident *found,
                          unsigned n_found, unsigned flags,
                          struct ecat_eni_mismatch *out, unsigned max)
{
    unsigned n = eni->n_slaves > n_found ? eni->n_slaves : n_found, k = 0;
    for (unsigned i = 0; i < n; i++) {
        struct ecat_eni_mismatch m = { .pos = (uint16_t)i };
        char e[128] = "", f[128] = "";
        if (i < eni->n_slaves) {
            m.expected = eni->slave[i].id;
            ident_text(e, sizeof e, &m.expected, eni->slave[i].name);
        }
        if (i < n_found) {
            m.found = found[i];
            ident_text(f, sizeof f, &m.found, NULL);
        }
        if (i >= n_found) {
            m.kind = ECAT_MM_MISSING;
            snprintf(m.text, sizeof m.text, "slave %u: expected %s, found no slave", i, e);
        } else if (i >= eni->n_slaves) {
            m.kind = ECAT_MM_EXTRA;
            snprintf(m.text, sizeof m.text, "slave %u: not in the ENI (%u slaves), found %s", i,
                     eni->n_slaves, f);
        } else {
            const struct ecat_ident *x = &m.expected, *y = &m.found;
            bool bad = x->vendor != y->vendor || x->product != y->product ||
                       ((flags & ECAT_CMP_REVISION) && x->revision != y->revision) ||
                       ((flags & ECAT_CMP_SERIAL) && x->serial != y->serial);
            if (!bad)
                continue;
            m.kind = ECAT_MM_IDENT;
            snprintf(m.text, sizeof m.text, "slave %u: expected %s, found %s", i, e, f);
            if ((flags & ECAT_CMP_SERIAL) && x->serial != y->serial)
                snprintf(m.text + strlen(m.text), sizeof m.text - strlen(m.text),
                         " (serial expected %u, found %u)", x->serial, y->serial);
        }
        if (k < max)
            out[k] = m;
        k++;
    }
    return k;
}

/* --- arrays the CoE init commands write ------------------------------------------------ */

/* One download into subindices 1.. of an array of size-byte entries: a single
 * subindex, or complete access from subindex 0 (its count byte, with or without a pad
 * byte before the entries: ETG.1000.6 5.6.2 pads subindex 0 to 16 bits) or 1. Returns
 * the highest subindex written; *count the subindex 0 given (-1 none). */
static unsigned coe_values(const struct ecat_eni_coe *c, unsigned size, uint32_t *v, unsigned max, int *count)
{
    *count = -1;
    if (!c->complete_access) {
        if (c->subindex == 0) {
            *count = c->len ? c->data[0] : 0;
            return 0;
        }
        if (c->len < size || c->subindex >= max)
            return 0;
        v[c->subindex] = size == 2 ? get_le16(c->data) : get_le32(c->data);
        return c->subindex;
    }
    if (c->subindex > 1 || !c->len)
        return 0;
    unsigned at = c->subindex == 0 ? ((c->len - 1u) % size == 0 ? 1u : 2u) : 0u, k = 1;
    if (c->subindex == 0)
        *count = c->data[0];
    for (; at + size <= c->len && k < max; at += size, k++)
        v[k] = size == 2 ? get_le16(c->data + at) : get_le32(c->data + at);
    return k - 1;
}

unsigned ecat_eni_coe_array(const struct ecat_eni_slave *s, uint16_t index, unsigned size, uint32_t *v,
                            unsigned max)
{
    unsigned n = 0;
    int count = -1;
    memset(v, 0, max * sizeof *v);
    for (unsigned i = 0; i < s->n_coe; i++) {
        const struct ecat_eni_coe *c = &s->coe[i];
        int cnt;
        if (c->ccs != 1 || c->index != index)
            continue;
        unsigned top = coe_values(c, size, v, max, &cnt);
        if (top > n)
            n = top;
        if (cnt >= 0)
            count = cnt;
    }
    return count >= 0 && (unsigned)count < n ? (unsigned)count : n;
}

/* --- ENI slave -> layout map ------------------------------------------------------------ */

static const struct ecat_eni_pdo *find_pdo(const struct ecat_eni_slave *s, uint16_t index, bool input)
{
    for (unsigned i = 0; i < s->n_pdo; i++)
        if (s->pdo[i].index == index && s->pdo[i].input == input)
            return &s->pdo[i];
    return NULL;
}

static int add_pdo(struct ecat_pdo_map *m, const struct ecat_eni_pdo *p, uint8_t sm)
{
    int rc = ecat_pdo_map_add_pdo(m, sm, p->input, p->index, p->name);
    for (unsigned k = 0; rc == 0 && k < p->n_entries; k++) {
        const struct ecat_eni_entry *e = &p->entry[k];
        rc = ecat_pdo_map_add_entry(m, ecat_pdo_mapping_value(e->index, e->subindex, e->bitlen),
                                    eni_type_code(e->data_type), e->name);
    }
    return rc;
}

/* An SM the ENI gives no PDOs (a tool without the device's ESI) but whose assignment
 * (0x1C10 + n) its CoE init commands download: the PDOs assigned there, mapped as the
 * downloads to 0x16xx/0x1Axx leave them (one assigned but never mapped: nothing). */
static int coe_pdos(const struct ecat_eni_slave *s, const struct ecat_eni_sm *e, struct ecat_pdo_map *m)
{
    uint32_t as[65], mp[65];
    unsigned n = ecat_eni_coe_array(s, (uint16_t)(0x1C10 + e->no), 2, as, 65);
    for (unsigned k = 1; k <= n; k++) {
        uint16_t idx = (uint16_t)as[k];
        if (!idx)
            continue;
        int rc = ecat_pdo_map_add_pdo(m, (uint8_t)e->no, e->input, idx, "");
        unsigned ne = ecat_eni_coe_array(s, idx, 4, mp, 65);
        for (unsigned j = 1; rc == 0 && j <= ne; j++)
            rc = ecat_pdo_map_add_entry(m, mp[j], 0, "");
        if (rc < 0)
            return rc;
    }
    return 0;
}

int ecat_eni_pdo_map(const struct ecat_eni_slave *s, struct ecat_pdo_map *m)
{
    ecat_pdo_map_init(m);
    for (unsigned i = 0; i < s->n_sm; i++) {
        const struct ecat_eni_sm *e = &s->sm[i];
        if (e->no >= ECAT_PDO_MAX_SM)
            return -ENOSPC;
        m->sm[e->no] = (struct ecat_pdo_sm){ .start = e->start, .ctrl = e->ctrl, .enable = e->enable,
            .type = e->input ? ECAT_SII_SM_INPUTS : e->outputs ? ECAT_SII_SM_OUTPUTS : ECAT_SII_SM_UNUSED,
            .default_len = e->default_size };
        if ((unsigned)e->no + 1 > m->n_sm)
            m->n_sm = (unsigned)e->no + 1;
    }
    /* the SM's <Pdo> list is the assignment; without one, the PDOs' Sm attribute */
    for (unsigned i = 0; i < s->n_sm; i++) {
        const struct ecat_eni_sm *e = &s->sm[i];
        for (unsigned k = 0; k < e->n_pdo; k++) {
            const struct ecat_eni_pdo *p = find_pdo(s, e->pdo[k], e->input);
            if (!p)
                continue;
            int rc = add_pdo(m, p, (uint8_t)e->no);
            if (rc < 0)
                return rc;
        }
        if (e->n_pdo)
            continue;
        bool any = false;
        for (unsigned k = 0; k < s->n_pdo; k++) {
            if (s->pdo[k].sm != e->no)
                continue;
            int rc = add_pdo(m, &s->pdo[k], (uint8_t)e->no);
            if (rc < 0)
                return rc;
            any = true;
        }
        int rc = any || !(e->input || e->outputs) ? 0 : coe_pdos(s, e, m);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* --- process image variables ------------------------------------------------------------ */

/* Length of the slave-name prefix of v ("<slave>."), 0 if v does not start with it. */
static size_t slave_prefix(const struct ecat_eni_slave *s, const struct ecat_eni_var *v)
{
    size_t n = strlen(s->name);
    return n && strncmp(v->name, s->name, n) == 0 && v->name[n] == '.' ? n + 1 : 0;
}

int ecat_eni_var_slave(const struct ecat_eni *eni, const struct ecat_eni_var *v)
{
    /* the longest matching name wins: "Term 1" must not claim "Term 10"'s variables */
    int best = -1;
    size_t best_len = 0;
    for (unsigned i = 0; i < eni->n_slaves; i++) {
        size_t n = slave_prefix(&eni->slave[i], v);
        if (n > best_len) {
            best = (int)i;
            best_len = n;
        }
    }
    return best;
}

const struct ecat_eni_var *ecat_eni_find_var(const struct ecat_eni *eni, unsigned pos, const char *name)
{
    if (pos >= eni->n_slaves)
        return NULL;
    const struct ecat_eni_var *hit = NULL;
    for (unsigned i = 0; i < eni->n_vars; i++) {
        const struct ecat_eni_var *v = &eni->var[i];
        size_t n = slave_prefix(&eni->slave[pos], v);
        if (!n || ecat_eni_var_slave(eni, v) != (int)pos)
            continue;
        const char *rest = v->name + n;
        if (strcmp(rest, name) == 0)
            return v;                         /* "PDO.entry" */
        const char *dot = strrchr(rest, '.');
        if (!hit && dot && strcmp(dot + 1, name) == 0)
            hit = v;                          /* "entry": the first one */
    }
    return hit;
}
