/* CoE object dictionary of a simulated device: objects, entries, values, access
 * rights per AL state, and the PDO mapping/assignment rules (ETG.1000.6 5.6). */
#ifndef TAKT_SIM_OD_H
#define TAKT_SIM_OD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* CoE data types (ETG.1000.6 Table 64) */
enum {
    OD_BOOL = 0x0001, OD_SINT = 0x0002, OD_INT = 0x0003, OD_DINT = 0x0004,
    OD_USINT = 0x0005, OD_UINT = 0x0006, OD_UDINT = 0x0007, OD_REAL = 0x0008,
    OD_VSTRING = 0x0009, OD_OSTRING = 0x000A, OD_LREAL = 0x0011, OD_LINT = 0x0015,
    OD_ULINT = 0x001B, OD_BYTE = 0x001E, OD_WORD = 0x001F, OD_DWORD = 0x0020,
    OD_BIT1 = 0x0030, OD_BIT8 = 0x0037,
};

/* Object codes (ETG.1000.6 Table 62) */
enum { OD_VAR = 7, OD_ARRAY = 8, OD_RECORD = 9 };

/* Access word as in the SDO information entry description (ETG.1000.6 5.6.3.6):
 * bits 0-2 readable in PREOP/SAFEOP/OP, bits 3-5 writable, 6 RxPDO, 7 TxPDO mappable. */
enum {
    OD_R_PREOP = 0x01, OD_R_SAFEOP = 0x02, OD_R_OP = 0x04, OD_R_ALL = 0x07,
    OD_W_PREOP = 0x08, OD_W_SAFEOP = 0x10, OD_W_OP = 0x20, OD_W_ALL = 0x38,
    OD_RXPDO = 0x40, OD_TXPDO = 0x80,
    OD_RO = OD_R_ALL, OD_RW = OD_R_ALL | OD_W_ALL, OD_RW_PREOP = OD_R_ALL | OD_W_PREOP,
};

#define OD_NAME 40
#define OD_MAX_SUB 255

struct od_entry {
    uint8_t  sub;
    uint16_t dtype;
    uint16_t bits;        /* size in bits */
    uint16_t bitoff;      /* position for complete access (BitOffs in ESI) */
    uint16_t access;      /* OD_R_* | OD_W_* | OD_RXPDO | OD_TXPDO */
    char     name[OD_NAME];
    uint8_t *val;         /* (bits+7)/8 bytes, little-endian */
};

struct od_object {
    uint16_t index;
    uint8_t  code;        /* OD_VAR, OD_ARRAY, OD_RECORD */
    uint16_t dtype;       /* VAR/ARRAY element type; RECORD: 0 or the ESI type id */
    char     name[OD_NAME];
    unsigned n;           /* entries (VAR: 1, sub 0) */
    struct od_entry *e;
    uint32_t fault_abort; /* fault injection: every SDO access aborts with this code */
};

struct sim_od {
    unsigned n, cap;
    struct od_object *obj;   /* sorted by index */
    uint8_t *block;          /* after od_compact: every value lives in this one block */
    size_t   block_len;
    bool     block_owned;    /* false: the block is the caller's buffer */
};

/* Building (setup time only; these allocate). Return 0 or -ENOMEM/-EEXIST/-EINVAL. */
void od_init(struct sim_od *od);
void od_free(struct sim_od *od);
int  od_clone(struct sim_od *dst, const struct sim_od *src);
struct od_object *od_add_object(struct sim_od *od, uint16_t index, uint8_t code,
                                uint16_t dtype, const char *name);
struct od_entry *od_add_entry(struct od_object *o, uint8_t sub, uint16_t dtype, uint16_t bits,
                              uint16_t access, const char *name);
/* Convenience: a VAR object with a default value (le bytes, may be NULL). */
struct od_entry *od_add_var(struct sim_od *od, uint16_t index, const char *name, uint16_t dtype,
                            uint16_t bits, uint16_t access, uint64_t value);
/* Move every value into one block, PDO-mappable entries first, so the values a process
 * cycle touches share one or two cache lines. The block is buf when cap suffices
 * (e.g. inside the device, next to its hot fields), else allocated. Entries added
 * later get their own allocation. */
int  od_compact(struct sim_od *od, uint8_t *buf, size_t cap);
/* Recompute bit offsets for complete access: sub0 in 16 bits, then entries packed with
 * types of >= 8 bits byte-aligned (the layout ESI DataTypes use). */
void od_layout(struct od_object *o);

/* Lookup (no allocation). */
struct od_object *od_find(const struct sim_od *od, uint16_t index);
struct od_entry  *od_entry(const struct od_object *o, uint8_t sub);
struct od_entry  *od_find_entry(const struct sim_od *od, uint16_t index, uint8_t sub);
static inline unsigned od_bytes(const struct od_entry *e) { return (e->bits + 7u) / 8u; }
uint64_t od_get(const struct od_entry *e);               /* up to 64 bits, zero-extended */
void     od_set(struct od_entry *e, uint64_t v);
uint64_t od_get_u(const struct sim_od *od, uint16_t index, uint8_t sub); /* 0 if absent */
void     od_set_u(const struct sim_od *od, uint16_t index, uint8_t sub, uint64_t v);
/* Highest subindex value for ARRAY/RECORD objects (the value of sub 0). */
uint8_t  od_max_sub(const struct od_object *o);

/* Data type helpers */
uint16_t od_type_bits(uint16_t dtype);        /* 0 for variable-size types */
uint16_t od_type_from_name(const char *name, uint16_t *bits); /* "UDINT" -> 0x0007, 0 unknown */
bool     od_is_numeric(uint16_t dtype);

/* Access check for an SDO in AL state `al` (AL_PREOP/SAFEOP/OP): 0 or an abort code
 * (0x06010001 write-only, 0x06010002 read-only, 0x08000022 not in this state). */
uint32_t od_check_access(const struct od_entry *e, bool write, uint8_t al);

/* Write with the CoE checks that belong to the dictionary: length and value range,
 * and the PDO mapping/assignment rules (sub0 = 0 before entries, mappable objects,
 * direction, total length). `pdo_config` / `pdo_assign` say whether the device allows
 * changes at all. Returns 0 or an SDO abort code. Does not check the AL state. */
struct od_rules { bool pdo_config, pdo_assign; unsigned max_pdo_bits; };
uint32_t od_write(struct sim_od *od, struct od_object *o, struct od_entry *e,
                  const uint8_t *data, size_t len, const struct od_rules *r);

/* Complete access image of object o from subindex `from` (0 or 1). Returns bytes
 * needed (may exceed cap: then nothing is written beyond cap). */
size_t   od_ca_size(const struct od_object *o, uint8_t from);
size_t   od_ca_read(const struct od_object *o, uint8_t from, uint8_t *buf, size_t cap);
uint32_t od_ca_write(struct sim_od *od, struct od_object *o, uint8_t from,
                     const uint8_t *data, size_t len, const struct od_rules *r);

/* Bit copy (LSB first, as EtherCAT process data): n bits from src@soff to dst@doff.
 * Inline: it runs for every mapped entry of every process cycle. */
static inline void od_bitcopy(uint8_t *dst, unsigned doff, const uint8_t *src, unsigned soff, unsigned n)
{
    if (!(doff % 8) && !(soff % 8) && !(n % 8)) {
        memcpy(dst + doff / 8, src + soff / 8, n / 8);
        return;
    }
    if (n == 1) {                    /* BOOL entries: the common case of digital I/O */
        uint8_t bit = (uint8_t)((src[soff / 8] >> (soff % 8)) & 1);
        dst[doff / 8] = (uint8_t)((dst[doff / 8] & ~(1u << (doff % 8))) | (unsigned)bit << (doff % 8));
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        unsigned s = soff + i, d = doff + i;
        uint8_t bit = (uint8_t)((src[s / 8] >> (s % 8)) & 1);
        dst[d / 8] = (uint8_t)((dst[d / 8] & ~(1u << (d % 8))) | (unsigned)bit << (d % 8));
    }
}

#endif
