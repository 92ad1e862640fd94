/* POWERLINK object dictionary: typed entries (index/subindex), access rights, defaults
 * and value ranges, with storage from a caller-given pool. Entries are added at setup;
 * reads and writes afterwards never allocate. */
#ifndef TAKT_PLK_OD_H
#define TAKT_PLK_OD_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* CANopen/EPSG data type codes (DS 301 "basic data types") */
enum plk_od_type {
    PLK_OT_BOOL = 0x01, PLK_OT_I8 = 0x02, PLK_OT_I16 = 0x03, PLK_OT_I32 = 0x04,
    PLK_OT_U8 = 0x05, PLK_OT_U16 = 0x06, PLK_OT_U32 = 0x07, PLK_OT_REAL32 = 0x08,
    PLK_OT_VSTRING = 0x09, PLK_OT_OSTRING = 0x0A, PLK_OT_DOMAIN = 0x0F,
    PLK_OT_REAL64 = 0x11, PLK_OT_I64 = 0x15, PLK_OT_U64 = 0x1B,
};

/* Access flags */
enum {
    PLK_OA_READ  = 0x01,
    PLK_OA_WRITE = 0x02,
    PLK_OA_RW    = 0x03,
    PLK_OA_CONST_FLAG = 0x04,
    PLK_OA_CONST = PLK_OA_CONST_FLAG | PLK_OA_READ,  /* never writable, not even locally */
    PLK_OA_PDO   = 0x08,                /* may be mapped into a PDO */
};

/* CANopen SDO abort codes used by the OD and the SDO layers (DS 301 / CiA 301) */
enum {
    PLK_ABORT_TOGGLE          = 0x05030000,
    PLK_ABORT_TIMEOUT         = 0x05040000,
    PLK_ABORT_BAD_COMMAND     = 0x05040001,
    PLK_ABORT_BAD_BLOCK_SIZE  = 0x05040002,
    PLK_ABORT_BAD_SEQUENCE    = 0x05040003,
    PLK_ABORT_OUT_OF_MEMORY   = 0x05040005,
    PLK_ABORT_UNSUPPORTED     = 0x06010000,
    PLK_ABORT_WRITE_ONLY      = 0x06010001,
    PLK_ABORT_READ_ONLY       = 0x06010002,
    PLK_ABORT_NO_OBJECT       = 0x06020000,
    PLK_ABORT_NOT_MAPPABLE    = 0x06040041,
    PLK_ABORT_PDO_TOO_LONG    = 0x06040042,
    PLK_ABORT_GENERAL_PARAM   = 0x06040043,
    PLK_ABORT_HW_ERROR        = 0x06060000,
    PLK_ABORT_LENGTH          = 0x06070010,
    PLK_ABORT_LENGTH_HIGH     = 0x06070012,
    PLK_ABORT_LENGTH_LOW      = 0x06070013,
    PLK_ABORT_NO_SUBINDEX     = 0x06090011,
    PLK_ABORT_VALUE_RANGE     = 0x06090030,
    PLK_ABORT_VALUE_HIGH      = 0x06090031,
    PLK_ABORT_VALUE_LOW       = 0x06090032,
    PLK_ABORT_GENERAL         = 0x08000000,
    PLK_ABORT_DATA_TRANSFER   = 0x08000020,
    PLK_ABORT_DATA_LOCAL      = 0x08000021,
    PLK_ABORT_DATA_STATE      = 0x08000022,
};

struct plk_od_entry {
    uint16_t index;
    uint8_t  sub;
    uint8_t  type;           /* enum plk_od_type */
    uint8_t  access;         /* PLK_OA_* */
    uint32_t size;           /* current size in bytes (strings/domains: valid length) */
    uint32_t cap;            /* storage size in bytes */
    uint8_t *data;           /* little-endian value, in the pool */
    uint64_t def;            /* default for numeric types */
    int64_t  min, max;       /* numeric range; min > max = no range check */
    const char *name;        /* optional, static string */
};

struct plk_od;
/* Called after a successful remote or local write (value already stored); the hook
 * may not veto. Lets a CN react to 0x1006, mapping changes and the like. */
typedef void (*plk_od_write_hook)(void *ctx, struct plk_od *od, const struct plk_od_entry *e);

struct plk_od {
    struct plk_od_entry *entries;  /* sorted by (index, sub) */
    unsigned n, cap;
    uint8_t *pool;
    size_t   pool_used, pool_cap;
    plk_od_write_hook hook;
    void *hook_ctx;
};

/* Setup: entries[] and pool[] are caller-owned (e.g. static arrays in a context). */
void plk_od_init(struct plk_od *od, struct plk_od_entry *entries, unsigned cap,
                 uint8_t *pool, size_t pool_cap);

/* Add a numeric entry (BOOL/I8..U64/REAL) with its default value. -EEXIST if the
 * (index, sub) is present, -ENOSPC if entries or pool are full, -EINVAL bad type. */
int plk_od_add(struct plk_od *od, uint16_t index, uint8_t sub, uint8_t type,
               uint8_t access, uint64_t def);
/* Add a string/domain entry with cap bytes storage and an optional initial value. */
int plk_od_add_buf(struct plk_od *od, uint16_t index, uint8_t sub, uint8_t type,
                   uint8_t access, uint32_t cap, const void *init, uint32_t init_len);
/* Restrict a numeric entry to [min, max]; writes outside abort with VALUE_HIGH/LOW. */
int plk_od_set_range(struct plk_od *od, uint16_t index, uint8_t sub, int64_t min, int64_t max);
/* Add a record/array: sub 0 (U8, count) plus subs 1..n of one type, all with the same
 * access and default. sub0_access lets arrays like 0x1600 have a writable count. */
int plk_od_add_array(struct plk_od *od, uint16_t index, uint8_t n, uint8_t sub0_access,
                     uint8_t type, uint8_t access, uint64_t def);
void plk_od_set_hook(struct plk_od *od, plk_od_write_hook hook, void *ctx);

/* Lookup; NULL if absent. plk_od_has_index tells NO_OBJECT from NO_SUBINDEX. */
struct plk_od_entry *plk_od_find(const struct plk_od *od, uint16_t index, uint8_t sub);
bool plk_od_has_index(const struct plk_od *od, uint16_t index);

/* Remote (SDO) access with access checks. Return 0 or -EPERM/-ENOENT/-EMSGSIZE/-ERANGE
 * and *abort set to the SDO abort code to send. read: *len = bytes copied. */
int plk_od_read(const struct plk_od *od, uint16_t index, uint8_t sub,
                void *buf, size_t cap, size_t *len, uint32_t *abort);
int plk_od_write(struct plk_od *od, uint16_t index, uint8_t sub,
                 const void *data, size_t len, uint32_t *abort);

/* Local access by the owner (no access check except CONST on writes). Numeric values
 * are widened/narrowed to the entry's size. Return 0 or -ENOENT/-EINVAL. */
int plk_od_get_u64(const struct plk_od *od, uint16_t index, uint8_t sub, uint64_t *v);
int plk_od_set_u64(struct plk_od *od, uint16_t index, uint8_t sub, uint64_t v);
/* Convenience: value or def when absent. */
uint32_t plk_od_u32(const struct plk_od *od, uint16_t index, uint8_t sub, uint32_t def);

/* Restore every numeric entry to its default and strings/domains to empty. */
void plk_od_reset_defaults(struct plk_od *od);

/* Size in bytes of a numeric type, 0 for strings/domains/unknown. */
unsigned plk_od_type_size(uint8_t type);

/* Standard communication profile of a CN (EPSG DS 301 object dictionary, openPOWERLINK demo CN values):
 * 0x1000, 0x1006, 0x1018, 0x1020, 0x1300, 0x1400/0x1600 and 0x1800/0x1A00 (n_pdo each,
 * 25 mapping entries), 0x1C0B/0D/0F, 0x1C14, 0x1F82, 0x1F93, 0x1F98, 0x1F99. */
struct plk_od_cn_params {
    uint8_t  node_id;
    uint32_t device_type, vendor_id, product_code, revision_no, serial_no;
    uint32_t cycle_len_us;       /* 0x1006 default */
    uint32_t feature_flags;      /* 0x1F82 */
    uint16_t preq_payload_limit, pres_payload_limit;  /* 0x1F98/4,5 */
    uint16_t async_mtu;          /* 0x1F98/8 */
    uint32_t loss_soc_tolerance_ns;  /* 0x1C14 */
    uint8_t  n_pdo;              /* RPDO/TPDO channels, >= 1 */
};
void plk_od_cn_params_default(struct plk_od_cn_params *p, uint8_t node_id);
int plk_od_add_cn_profile(struct plk_od *od, const struct plk_od_cn_params *p);

#endif
