/* PDO / SyncManager / FMMU layout: from a slave's PDO mapping (SII or read over CoE)
 * compute SM lengths, FMMU entries and a bit-exact process image, split into several
 * LRW frames when it exceeds one frame (ETG.1000.4 frame structure, FMMU). Setup-time code: allocates. */
#ifndef TAKT_ECAT_PDO_H
#define TAKT_ECAT_PDO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ecat/sii.h"

#define ECAT_PDO_MAX_SM       8      /* SMs per slave considered for process data */
#define ECAT_PDO_MAX_PDOS     64     /* PDOs per slave mapping */
#define ECAT_PDO_MAX_ENTRIES  512    /* entries per slave mapping */
#define ECAT_PDO_NAME         64
#define ECAT_PDO_MAX_FMMU     4      /* FMMUs per slave used for process data */
#define ECAT_PDO_MAX_FRAMES   64

/* One mapped object (CoE mapping value = index << 16 | subindex << 8 | bitlen).
 * index 0 = gap (padding bits, no variable). */
struct ecat_pdo_entry {
    uint16_t index;
    uint8_t  subindex;
    uint8_t  bitlen;
    uint16_t data_type;              /* CoE type code, 0 unknown */
    char     name[ECAT_PDO_NAME];
};

struct ecat_pdo {
    uint16_t index;                  /* 0x16xx RxPDO (outputs), 0x1Axx TxPDO (inputs) */
    uint8_t  sm;                     /* SM it is assigned to */
    bool     input;                  /* TxPDO: slave -> master */
    uint16_t first, n;               /* entries [first, first + n) in the map */
    char     name[ECAT_PDO_NAME];
};

/* SM configuration of a slave as far as the layout needs it (from SII cat 41 or ENI). */
struct ecat_pdo_sm {
    uint16_t start;                  /* physical start address */
    uint8_t  ctrl;                   /* control byte (ETG.1000.4 SyncManager) */
    uint8_t  enable;
    uint8_t  type;                   /* ECAT_SII_SM_* */
    uint16_t default_len;            /* length from SII/ENI, used when no PDO is
                                        assigned to the SM (a raw region, no variables) */
};

/* A slave's PDO mapping: the input to the layout. */
struct ecat_pdo_map {
    unsigned n_sm;
    struct ecat_pdo_sm sm[ECAT_PDO_MAX_SM];
    unsigned n_pdo;
    struct ecat_pdo pdo[ECAT_PDO_MAX_PDOS];
    unsigned n_entries;
    struct ecat_pdo_entry entry[ECAT_PDO_MAX_ENTRIES];
    uint8_t  n_fmmu;                 /* FMMUs the ESC has (0 = assume 2) */
    bool     no_lrw;                 /* SII flag "not LRW" */
};

void ecat_pdo_map_init(struct ecat_pdo_map *m);
/* Build a mapping from SII: SMs from category 41, every PDO whose SM is assigned
 * (TxPDO/RxPDO categories), entry names from the string table. Returns 0 or -ENOSPC. */
int ecat_pdo_map_from_sii(struct ecat_pdo_map *m, const struct ecat_sii *sii);
/* Build incrementally from CoE reads: 0x1C12/0x1C13 give PDO indices per SM, 0x16xx/
 * 0x1Axx sub 1..n give mapping values. add_pdo appends a PDO; add_entry appends an
 * entry (mapping value) to the last PDO. name may be NULL. Return 0, -ENOSPC, -EINVAL
 * (entry without PDO, bitlen 0). */
int ecat_pdo_map_add_pdo(struct ecat_pdo_map *m, uint8_t sm, bool input, uint16_t index,
                         const char *name);
int ecat_pdo_map_add_entry(struct ecat_pdo_map *m, uint32_t mapping, uint16_t data_type,
                           const char *name);
/* Drop all PDOs assigned to SM sm (before re-reading 0x1C1x over CoE). */
void ecat_pdo_map_clear_sm(struct ecat_pdo_map *m, uint8_t sm);
static inline uint32_t ecat_pdo_mapping_value(uint16_t index, uint8_t sub, uint8_t bitlen)
{ return (uint32_t)index << 16 | (uint32_t)sub << 8 | bitlen; }

/* FMMU register contents (ETG.1000.4 FMMU, 0x0600 + 16n). */
struct ecat_fmmu_cfg {
    uint32_t log_start;
    uint16_t len;                    /* bytes */
    uint8_t  log_start_bit, log_end_bit;
    uint16_t phys_start;
    uint8_t  phys_start_bit;
    uint8_t  type;                   /* 1 read (inputs), 2 write (outputs) */
    uint8_t  activate;
};
/* Encode to the 16-byte register image. */
void ecat_fmmu_encode(uint8_t out[16], const struct ecat_fmmu_cfg *f);

/* SM register contents (ETG.1000.4 SyncManager, 0x0800 + 8n) for process data SMs. */
struct ecat_sm_regs {
    uint8_t  index;                  /* SM number */
    uint16_t start, len;
    uint8_t  ctrl, enable;           /* enable = 0 when len == 0 */
    bool     input;
};
void ecat_sm_encode(uint8_t out[8], const struct ecat_sm_regs *s);

/* Per-slave result. Outputs first, then inputs, contiguous in the logical space; each
 * direction starts on a byte boundary. */
struct ecat_pdo_slave {
    uint16_t pos;                    /* position on the bus */
    unsigned n_sm;
    struct ecat_sm_regs sm[ECAT_PDO_MAX_SM];
    unsigned n_fmmu;
    struct ecat_fmmu_cfg fmmu[ECAT_PDO_MAX_FMMU];
    uint32_t out_off, out_len;       /* byte offset in the image and length */
    uint32_t in_off, in_len;
    uint16_t frame;                  /* index of the frame that carries this slave */
    bool     no_lrw;
};

/* One process-data variable (one mapped entry), addressed bit-exactly. */
struct ecat_pdo_var {
    uint16_t pos;                    /* slave position */
    uint16_t pdo;                    /* PDO index (0x1Axx / 0x16xx) */
    uint16_t index;
    uint8_t  subindex;
    uint8_t  bitlen;
    uint16_t data_type;
    bool     input;
    uint32_t bit_off;                /* bit offset in the process image */
    char     name[ECAT_PDO_NAME];    /* entry name ("" when unknown) */
    char     pdo_name[ECAT_PDO_NAME];
};

/* One cyclic frame: an LRW (or LRD+LWR for no-LRW slaves) over [log_start, +len). */
struct ecat_pdo_frame {
    uint32_t log_start;
    uint32_t img_off;                /* = log_start - image log_base */
    uint16_t len;
    uint16_t wkc;                    /* expected LRW WKC: 2 per slave with outputs + 1 per slave with inputs */
    uint16_t n_out, n_in;            /* slaves with outputs / inputs: the expected WKCs of
                                        LWR and LRD when LRW cannot be used (no_lrw) */
    bool     no_lrw;                 /* a slave in this frame forbids LRW (SII flag) */
    uint16_t first_slave, n_slaves;  /* into slave[] */
};

struct ecat_pdo_image {
    uint32_t log_base;               /* logical address of image byte 0 */
    uint32_t size;                   /* bytes */
    unsigned n_slaves;
    struct ecat_pdo_slave *slave;    /* allocated, n_slaves */
    unsigned n_vars;
    struct ecat_pdo_var *var;        /* allocated */
    unsigned n_frames;
    struct ecat_pdo_frame frame[ECAT_PDO_MAX_FRAMES];
};

/* Lay out n slaves (maps[i] belongs to position pos[i], or i when pos is NULL) from
 * logical address log_base; frames hold at most max_frame bytes (0 = 1486, ETG.1000.4 frame structure),
 * never splitting a slave. Returns 0 or -EINVAL / -ENOSPC / -EMSGSIZE (one slave larger
 * than a frame) with a message naming the slave position in err. */
int ecat_pdo_layout(struct ecat_pdo_image *img, const struct ecat_pdo_map *maps,
                    const uint16_t *pos, unsigned n, uint32_t log_base, uint32_t max_frame,
                    char *err, size_t errlen);
void ecat_pdo_image_free(struct ecat_pdo_image *img);

/* Look up a variable by slave position and entry name (or "PDO name.entry name"),
 * or by index/subindex. NULL when not found. */
const struct ecat_pdo_var *ecat_pdo_find(const struct ecat_pdo_image *img, uint16_t pos,
                                         const char *name);
const struct ecat_pdo_var *ecat_pdo_find_idx(const struct ecat_pdo_image *img, uint16_t pos,
                                             uint16_t index, uint8_t subindex);
/* The slave entry for position pos, or NULL. */
const struct ecat_pdo_slave *ecat_pdo_slave(const struct ecat_pdo_image *img, uint16_t pos);

/* Bit-exact access to a variable of up to 64 bits in an image buffer. */
uint64_t ecat_pdo_get(const uint8_t *image, const struct ecat_pdo_var *v);
void ecat_pdo_set(uint8_t *image, const struct ecat_pdo_var *v, uint64_t value);

#endif
