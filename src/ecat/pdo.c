/* PDO / SM / FMMU layout (ETG.1000.4 SyncManager and FMMU): per slave, outputs then inputs, each direction's SMs
 * byte-aligned in the logical image; one FMMU per run of physically contiguous SMs;
 * frames filled with whole slaves up to 1486 bytes (ETG.1000.4 frame structure). */
#include "ecat/pdo.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/wire.h"

/* FMMU type bits and SM activate (ETG.1000.4 FMMU, SyncManager) */
enum { FMMU_READ = 1, FMMU_WRITE = 2, SM_ENABLE = 1 };

void ecat_pdo_map_init(struct ecat_pdo_map *m)
{
    memset(m, 0, sizeof *m);
}

static void set_name(char *dst, const char *src)
{
    snprintf(dst, ECAT_PDO_NAME, "%s", src ? src : "");
}

int ecat_pdo_map_add_pdo(struct ecat_pdo_map *m, uint8_t sm, bool input, uint16_t index, const char *name)
{
    if (m->n_pdo >= ECAT_PDO_MAX_PDOS)
        return -ENOSPC;
    struct ecat_pdo *p = &m->pdo[m->n_pdo++];
    *p = (struct ecat_pdo){ .index = index, .sm = sm, .input = input, .first = (uint16_t)m->n_entries };
    set_name(p->name, name);
    return 0;
}

int ecat_pdo_map_add_entry(struct ecat_pdo_map *m, uint32_t mapping, uint16_t data_type, const char *name)
{
    if (m->n_pdo == 0 || (mapping & 0xFF) == 0)
        return -EINVAL;
    if (m->n_entries >= ECAT_PDO_MAX_ENTRIES)
        return -ENOSPC;
    struct ecat_pdo *p = &m->pdo[m->n_pdo - 1];
    if (p->first + p->n != m->n_entries)
        return -EINVAL;               /* entries must follow their PDO */
    struct ecat_pdo_entry *e = &m->entry[m->n_entries++];
    *e = (struct ecat_pdo_entry){ .index = (uint16_t)(mapping >> 16), .subindex = (uint8_t)(mapping >> 8),
                                  .bitlen = (uint8_t)mapping, .data_type = data_type };
    set_name(e->name, name);
    p->n++;
    return 0;
}

void ecat_pdo_map_clear_sm(struct ecat_pdo_map *m, uint8_t sm)
{
    /* compact PDOs and their entries, keeping order */
    unsigned np = 0, ne = 0;
    for (unsigned i = 0; i < m->n_pdo; i++) {
        struct ecat_pdo p = m->pdo[i];
        if (p.sm == sm)
            continue;
        memmove(&m->entry[ne], &m->entry[p.first], p.n * sizeof m->entry[0]);
        p.first = (uint16_t)ne;
        ne += p.n;
        m->pdo[np++] = p;
    }
    m->n_pdo = np;
    m->n_entries = ne;
}

int ecat_pdo_map_from_sii(struct ecat_pdo_map *m, const struct ecat_sii *sii)
{
    ecat_pdo_map_init(m);
    for (unsigned i = 0; i < sii->n_sm && i < ECAT_PDO_MAX_SM; i++) {
        const struct ecat_sii_sm *s = &sii->sm[i];
        m->sm[i] = (struct ecat_pdo_sm){ .start = s->start, .ctrl = s->ctrl, .enable = s->enable,
                                         .type = s->type, .default_len = s->len };
        m->n_sm = i + 1;
    }
    m->n_fmmu = (uint8_t)sii->n_fmmu;
    m->no_lrw = !ecat_sii_lrw_ok(sii);
    for (unsigned i = 0; i < sii->n_pdo; i++) {
        const struct ecat_sii_pdo *p = &sii->pdo[i];
        if (p->sm >= m->n_sm)
            continue;                 /* not assigned to an SM: not in the image */
        int rc = ecat_pdo_map_add_pdo(m, p->sm, p->tx, p->index, ecat_sii_str(sii, p->name));
        for (unsigned k = 0; rc == 0 && k < p->n_entries; k++) {
            const struct ecat_sii_entry *e = &sii->entry[p->first_entry + k];
            if (e->bitlen == 0)
                continue;
            rc = ecat_pdo_map_add_entry(m, ecat_pdo_mapping_value(e->index, e->subindex, e->bitlen),
                                        e->data_type, ecat_sii_str(sii, e->name));
        }
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* FMMU n at 0x0600 + 16n (ETG.1000.4 FMMU; Wireshark ecat_reg_600), 3 reserved bytes at 13. */
enum { FMMU_LOG = 0, FMMU_LEN = 4, FMMU_LOG_SBIT = 6, FMMU_LOG_EBIT = 7, FMMU_PHYS = 8,
       FMMU_PHYS_SBIT = 10, FMMU_TYPE = 11, FMMU_ACT = 12 };
/* SM n at 0x0800 + 8n (ETG.1000.4 SyncManager). */
enum { SMR_START = 0, SMR_LEN = 2, SMR_CTRL = 4, SMR_STATUS = 5, SMR_ACT = 6, SMR_PDI = 7 };

void ecat_fmmu_encode(uint8_t out[16], const struct ecat_fmmu_cfg *f)
{
    memset(out, 0, 16);
    put_le32(out + FMMU_LOG, f->log_start);
    put_le16(out + FMMU_LEN, f->len);
    out[FMMU_LOG_SBIT] = f->log_start_bit;
    out[FMMU_LOG_EBIT] = f->log_end_bit;
    put_le16(out + FMMU_PHYS, f->phys_start);
    out[FMMU_PHYS_SBIT] = f->phys_start_bit;
    out[FMMU_TYPE] = f->type;
    out[FMMU_ACT] = f->activate;
}

void ecat_sm_encode(uint8_t out[8], const struct ecat_sm_regs *s)
{
    put_le16(out + SMR_START, s->start);
    put_le16(out + SMR_LEN, s->len);
    out[SMR_CTRL] = s->ctrl;
    out[SMR_STATUS] = 0;             /* read-only for the master */
    out[SMR_ACT] = s->enable;
    out[SMR_PDI] = 0;
}

/* --- layout ----------------------------------------------------------------------- */

struct lay {
    struct ecat_pdo_image *img;
    char *err;
    size_t errlen;
};

static int lay_fail(struct lay *l, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int lay_fail(struct lay *l, int rc, const char *fmt, ...)
{
    if (l->err && l->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(l->err, l->errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

static bool sm_is_input(const struct ecat_pdo_map *m, unsigned sm)
{
    for (unsigned i = 0; i < m->n_pdo; i++)
        if (m->pdo[i].sm == sm)
            return m->pdo[i].input;
    return m->sm[sm].type == ECAT_SII_SM_INPUTS;
}

static bool sm_is_pd(const struct ecat_pdo_map *m, unsigned sm)
{
    if (m->sm[sm].type == ECAT_SII_SM_OUTPUTS || m->sm[sm].type == ECAT_SII_SM_INPUTS)
        return true;
    for (unsigned i = 0; i < m->n_pdo; i++)
        if (m->pdo[i].sm == sm)
            return true;
    return false;
}

static bool sm_has_pdo(const struct ecat_pdo_map *m, unsigned sm)
{
    for (unsigned i = 0; i < m->n_pdo; i++)
        if (m->pdo[i].sm == sm)
            return true;
    return false;
}

static uint32_t sm_bits(const struct ecat_pdo_map *m, unsigned sm)
{
    uint32_t bits = 0;
    for (unsigned i = 0; i < m->n_pdo; i++)
        if (m->pdo[i].sm == sm)
            for (unsigned k = 0; k < m->pdo[i].n; k++)
                bits += m->entry[m->pdo[i].first + k].bitlen;
    return bits;
}

/* Variables of SM sm, starting at image bit `bit`. */
static int add_vars(struct lay *l, const struct ecat_pdo_map *m, uint16_t pos, unsigned sm, uint32_t bit)
{
    struct ecat_pdo_image *img = l->img;
    for (unsigned i = 0; i < m->n_pdo; i++) {
        const struct ecat_pdo *p = &m->pdo[i];
        if (p->sm != sm)
            continue;
        for (unsigned k = 0; k < p->n; k++) {
            const struct ecat_pdo_entry *e = &m->entry[p->first + k];
            if (e->index != 0) {      /* index 0 = gap: bits without a variable */
                struct ecat_pdo_var *v = &img->var[img->n_vars++];
                *v = (struct ecat_pdo_var){ .pos = pos, .pdo = p->index, .index = e->index,
                    .subindex = e->subindex, .bitlen = e->bitlen, .data_type = e->data_type,
                    .input = p->input, .bit_off = bit };
                memcpy(v->name, e->name, ECAT_PDO_NAME);
                memcpy(v->pdo_name, p->name, ECAT_PDO_NAME);
            }
            bit += e->bitlen;
        }
    }
    return 0;
}

/* One direction of one slave: SMs in index order at byte offset *off; FMMUs for runs of
 * physically contiguous SMs. */
static int lay_dir(struct lay *l, const struct ecat_pdo_map *m, struct ecat_pdo_slave *s,
                   bool input, uint32_t *off)
{
    struct ecat_fmmu_cfg *run = NULL;
    for (unsigned sm = 0; sm < m->n_sm; sm++) {
        if (!sm_is_pd(m, sm) || sm_is_input(m, sm) != input)
            continue;
        uint32_t bits = sm_bits(m, sm);
        uint16_t len = (uint16_t)((bits + 7) / 8);
        if (!sm_has_pdo(m, sm))
            len = m->sm[sm].default_len;  /* no PDO description: the SM's own length */
        if (s->n_sm >= ECAT_PDO_MAX_SM)
            return lay_fail(l, -ENOSPC, "slave %u: more than %d process data SMs", s->pos, ECAT_PDO_MAX_SM);
        s->sm[s->n_sm++] = (struct ecat_sm_regs){ .index = (uint8_t)sm, .start = m->sm[sm].start,
            .len = len, .ctrl = m->sm[sm].ctrl, .enable = len ? SM_ENABLE : 0, .input = input };
        if (!len)
            continue;
        add_vars(l, m, s->pos, sm, *off * 8);
        if (run && run->phys_start + run->len == m->sm[sm].start) {
            run->len = (uint16_t)(run->len + len);          /* contiguous: extend */
        } else {
            unsigned max = m->n_fmmu ? m->n_fmmu : 2;
            if (s->n_fmmu >= max || s->n_fmmu >= ECAT_PDO_MAX_FMMU)
                return lay_fail(l, -ENOSPC, "slave %u: needs more than the %u FMMUs it has (SM%u at 0x%04X)",
                                s->pos, max, sm, m->sm[sm].start);
            run = &s->fmmu[s->n_fmmu++];
            *run = (struct ecat_fmmu_cfg){ .log_start = l->img->log_base + *off, .len = len,
                .log_end_bit = 7, .phys_start = m->sm[sm].start,
                .type = input ? FMMU_READ : FMMU_WRITE, .activate = 1 };
        }
        *off += len;
    }
    return 0;
}

static int new_frame(struct lay *l, uint32_t off, uint16_t first_slave)
{
    struct ecat_pdo_image *img = l->img;
    if (img->n_frames >= ECAT_PDO_MAX_FRAMES)
        return lay_fail(l, -ENOSPC, "process image needs more than %d frames", ECAT_PDO_MAX_FRAMES);
    img->frame[img->n_frames++] = (struct ecat_pdo_frame){ .log_start = img->log_base + off,
        .img_off = off, .first_slave = first_slave };
    return 0;
}

static int lay_frames(struct lay *l, uint32_t max_frame)
{
    struct ecat_pdo_image *img = l->img;
    for (unsigned i = 0; i < img->n_slaves; i++) {
        struct ecat_pdo_slave *s = &img->slave[i];
        uint32_t n = s->out_len + s->in_len;
        if (n > max_frame)
            return lay_fail(l, -EMSGSIZE, "slave %u: %u bytes of process data exceed one frame (%u bytes)",
                            s->pos, n, max_frame);
        struct ecat_pdo_frame *f = img->n_frames ? &img->frame[img->n_frames - 1] : NULL;
        if (n && (!f || f->len + n > max_frame)) {
            int rc = new_frame(l, s->out_off, (uint16_t)i);
            if (rc < 0)
                return rc;
            f = &img->frame[img->n_frames - 1];
        }
        s->frame = (uint16_t)(img->n_frames ? img->n_frames - 1 : 0);
        if (!n)
            continue;
        f->len = (uint16_t)(f->len + n);
        f->n_slaves = (uint16_t)(i + 1 - f->first_slave);
        /* LRW: a slave counts 2 when it writes outputs, 1 when it reads inputs (ETG.1000.4 commands and working counter) */
        f->wkc = (uint16_t)(f->wkc + (s->out_len ? 2 : 0) + (s->in_len ? 1 : 0));
        f->n_out = (uint16_t)(f->n_out + (s->out_len ? 1 : 0));
        f->n_in = (uint16_t)(f->n_in + (s->in_len ? 1 : 0));
        f->no_lrw |= s->no_lrw;
    }
    return 0;
}

int ecat_pdo_layout(struct ecat_pdo_image *img, const struct ecat_pdo_map *maps,
                    const uint16_t *pos, unsigned n, uint32_t log_base, uint32_t max_frame,
                    char *err, size_t errlen)
{
    memset(img, 0, sizeof *img);
    struct lay l = { .img = img, .err = err, .errlen = errlen };
    if (!max_frame)
        max_frame = 1486;
    unsigned n_entries = 0;
    for (unsigned i = 0; i < n; i++)
        n_entries += maps[i].n_entries;
    img->log_base = log_base;
    img->slave = calloc(n ? n : 1, sizeof *img->slave);
    img->var = calloc(n_entries ? n_entries : 1, sizeof *img->var);
    if (!img->slave || !img->var) {
        ecat_pdo_image_free(img);
        return lay_fail(&l, -ENOMEM, "out of memory for %u slaves", n);
    }
    img->n_slaves = n;
    uint32_t off = 0;
    for (unsigned i = 0; i < n; i++) {
        struct ecat_pdo_slave *s = &img->slave[i];
        s->pos = pos ? pos[i] : (uint16_t)i;
        s->no_lrw = maps[i].no_lrw;
        s->out_off = off;
        int rc = lay_dir(&l, &maps[i], s, false, &off);
        s->out_len = off - s->out_off;
        s->in_off = off;
        if (rc == 0)
            rc = lay_dir(&l, &maps[i], s, true, &off);
        s->in_len = off - s->in_off;
        if (rc < 0) {
            ecat_pdo_image_free(img);
            return rc;
        }
    }
    img->size = off;
    int rc = lay_frames(&l, max_frame);
    if (rc < 0)
        ecat_pdo_image_free(img);
    return rc;
}

void ecat_pdo_image_free(struct ecat_pdo_image *img)
{
    free(img->slave);
    free(img->var);
    img->slave = NULL;
    img->var = NULL;
    img->n_slaves = img->n_vars = 0;
}

const struct ecat_pdo_var *ecat_pdo_find(const struct ecat_pdo_image *img, uint16_t pos, const char *name)
{
    const char *dot = strrchr(name, '.');
    for (unsigned i = 0; i < img->n_vars; i++) {
        const struct ecat_pdo_var *v = &img->var[i];
        if (v->pos != pos)
            continue;
        if (strcmp(v->name, name) == 0)
            return v;
        /* "PDO name.entry name" tells apart entries that share a name across PDOs */
        if (dot && strcmp(v->name, dot + 1) == 0 && strlen(v->pdo_name) == (size_t)(dot - name) &&
            strncmp(v->pdo_name, name, (size_t)(dot - name)) == 0)
            return v;
    }
    return NULL;
}

const struct ecat_pdo_var *ecat_pdo_find_idx(const struct ecat_pdo_image *img, uint16_t pos,
                                             uint16_t index, uint8_t subindex)
{
    for (unsigned i = 0; i < img->n_vars; i++) {
        const struct ecat_pdo_var *v = &img->var[i];
        if (v->pos == pos && v->index == index && v->subindex == subindex)
            return v;
    }
    return NULL;
}

const struct ecat_pdo_slave *ecat_pdo_slave(const struct ecat_pdo_image *img, uint16_t pos)
{
    for (unsigned i = 0; i < img->n_slaves; i++)
        if (img->slave[i].pos == pos)
            return &img->slave[i];
    return NULL;
}

uint64_t ecat_pdo_get(const uint8_t *image, const struct ecat_pdo_var *v)
{
    unsigned n = v->bitlen > 64 ? 64 : v->bitlen;
    uint64_t r = 0;
    if (v->bit_off % 8 == 0 && n % 8 == 0) {     /* byte-aligned: the common case */
        for (unsigned i = 0; i < n / 8; i++)
            r |= (uint64_t)image[v->bit_off / 8 + i] << (8 * i);
        return r;
    }
    for (unsigned i = 0; i < n; i++) {
        uint32_t b = v->bit_off + i;
        r |= (uint64_t)((image[b / 8] >> (b % 8)) & 1u) << i;
    }
    return r;
}

void ecat_pdo_set(uint8_t *image, const struct ecat_pdo_var *v, uint64_t value)
{
    unsigned n = v->bitlen > 64 ? 64 : v->bitlen;
    if (v->bit_off % 8 == 0 && n % 8 == 0) {
        for (unsigned i = 0; i < n / 8; i++)
            image[v->bit_off / 8 + i] = (uint8_t)(value >> (8 * i));
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        uint32_t b = v->bit_off + i;
        uint8_t mask = (uint8_t)(1u << (b % 8));
        image[b / 8] = (uint8_t)((value >> i) & 1u ? image[b / 8] | mask : image[b / 8] & ~mask);
    }
}
