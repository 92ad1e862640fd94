/* SII (slave information interface, EEPROM) parser (ETG.2010): identity, mailbox
 * configuration and the categories strings, general, FMMU, SM, TxPDO/RxPDO and DC.
 * Fixed-size result (no allocation, safe to copy); pure, fuzzable. */
#ifndef TAKT_ECAT_SII_H
#define TAKT_ECAT_SII_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ecat/proto.h"

/* Identity of a slave as in SII words 0x08..0x0F and ENI <Info>. */
struct ecat_ident {
    uint32_t vendor, product, revision, serial;
};

#define ECAT_SII_MAX_STRINGS  255   /* string indices are u8; 0 = none */
#define ECAT_SII_STRPOOL      (ECAT_SII_MAX_STRINGS * 256)   /* 255 strings of 255 bytes + NUL */
#define ECAT_SII_MAX_FMMU     16
#define ECAT_SII_MAX_SM       16
#define ECAT_SII_MAX_PDOS     256   /* TxPDO + RxPDO together (a drive may list its whole offer) */
#define ECAT_SII_MAX_ENTRIES  2048
#define ECAT_SII_MAX_DC       8
#define ECAT_SII_MAX_WARN     8     /* warning texts kept (all are counted) */
#define ECAT_SII_WARN_LEN     200

/* FMMU usage byte of category 40 (ETG.2010). */
enum { ECAT_SII_FMMU_UNUSED = 0, ECAT_SII_FMMU_OUTPUTS = 1, ECAT_SII_FMMU_INPUTS = 2,
       ECAT_SII_FMMU_MBX_STATE = 3 };
/* SM type byte of category 41 (ETG.2010): 0 unused, 1 mailbox out (master->slave),
 * 2 mailbox in, 3 process data outputs, 4 process data inputs. */
enum { ECAT_SII_SM_UNUSED = 0, ECAT_SII_SM_MBX_OUT = 1, ECAT_SII_SM_MBX_IN = 2,
       ECAT_SII_SM_OUTPUTS = 3, ECAT_SII_SM_INPUTS = 4 };
/* General category CoE details (byte 5) and flags (byte 11), ETG.2010. */
enum { ECAT_COE_DET_SDO = 0x01, ECAT_COE_DET_SDO_INFO = 0x02, ECAT_COE_DET_PDO_ASSIGN = 0x04,
       ECAT_COE_DET_PDO_CONFIG = 0x08, ECAT_COE_DET_UPLOAD_STARTUP = 0x10,
       ECAT_COE_DET_COMPLETE_ACCESS = 0x20 };
enum { ECAT_SII_FLAG_SAFEOP = 0x01, ECAT_SII_FLAG_NOT_LRW = 0x02, ECAT_SII_FLAG_MBX_DLL = 0x04,
       ECAT_SII_FLAG_IDENT_AL = 0x08, ECAT_SII_FLAG_IDENT_PHY = 0x10 };

struct ecat_sii_mbx {
    uint16_t offset, size;          /* physical start address and length in bytes */
};

struct ecat_sii_general {
    uint8_t  group, image, order, name;  /* string indices */
    uint8_t  coe_details;           /* ECAT_COE_DET_* */
    uint8_t  foe_details, eoe_details, soe_channels, ds402_channels, sysman_class;
    uint8_t  flags;                 /* ECAT_SII_FLAG_* */
    int16_t  ebus_current_ma;
    uint16_t physical_port;         /* 4 bits per port: 0 none, 1 MII, ... */
    uint16_t phys_mem_addr;         /* ident address when IDENT_PHY */
};

struct ecat_sii_sm {
    uint16_t start, len;
    uint8_t  ctrl, status, enable, type;   /* type: ECAT_SII_SM_* */
};

struct ecat_sii_entry {
    uint16_t index;
    uint8_t  subindex;
    uint8_t  name;                  /* string index */
    uint8_t  data_type;             /* CoE basic data type (1 BOOL, 7 UDINT, ...) */
    uint8_t  bitlen;
    uint16_t flags;
};

struct ecat_sii_pdo {
    uint16_t index;
    uint8_t  n_entries;
    uint8_t  sm;                    /* 0xFF (or >= 16) = not assigned */
    uint8_t  dc_sync;
    uint8_t  name;                  /* string index */
    uint16_t flags;
    bool     tx;                    /* true: TxPDO (inputs, category 50) */
    uint16_t first_entry;           /* into ecat_sii.entry[] */
};

/* DC category (60), 24 bytes per operation mode (ETG.2010). */
struct ecat_sii_dc {
    uint32_t cycle0, shift0, shift1;
    int16_t  sync1_factor, sync0_factor;
    uint16_t assign_activate;
    uint8_t  name, desc;            /* string indices */
};

struct ecat_sii {
    /* header words 0x00-0x3F */
    uint16_t pdi_ctrl, pdi_cfg, sync_impulse, pdi_cfg2, alias;
    uint8_t  csum_stored, csum_calc;
    bool     csum_ok;
    struct ecat_ident id;
    struct ecat_sii_mbx boot_rx, boot_tx, std_rx, std_tx;   /* rx = master->slave */
    uint16_t mbx_proto;             /* MBX_PROTO_* */
    uint16_t eeprom_kbit;           /* word 0x3E + 1 */
    uint16_t version;
    /* categories */
    uint32_t cats_seen;             /* bit per known category (ECAT_SII_SEEN_*) */
    unsigned n_strings;
    uint16_t str_off[ECAT_SII_MAX_STRINGS + 1];  /* into strpool; [0] = "" */
    char     strpool[ECAT_SII_STRPOOL];
    bool     has_general;
    struct ecat_sii_general gen;
    unsigned n_fmmu;
    uint8_t  fmmu[ECAT_SII_MAX_FMMU];            /* ECAT_SII_FMMU_* */
    unsigned n_sm;
    struct ecat_sii_sm sm[ECAT_SII_MAX_SM];
    unsigned n_pdo;
    struct ecat_sii_pdo pdo[ECAT_SII_MAX_PDOS];  /* TxPDOs and RxPDOs in SII order */
    unsigned n_entries;
    struct ecat_sii_entry entry[ECAT_SII_MAX_ENTRIES];
    unsigned n_dc;
    struct ecat_sii_dc dc[ECAT_SII_MAX_DC];
    /* Non-fatal findings (bad checksum, unknown or broken categories skipped, truncated
     * strings): all are counted, the first ECAT_SII_MAX_WARN kept as text. */
    unsigned n_warnings;
    char     warning[ECAT_SII_MAX_WARN][ECAT_SII_WARN_LEN];
};

enum { ECAT_SII_SEEN_STRINGS = 1u << 0, ECAT_SII_SEEN_GENERAL = 1u << 1,
       ECAT_SII_SEEN_FMMU = 1u << 2, ECAT_SII_SEEN_SM = 1u << 3, ECAT_SII_SEEN_TXPDO = 1u << 4,
       ECAT_SII_SEEN_RXPDO = 1u << 5, ECAT_SII_SEEN_DC = 1u << 6, ECAT_SII_SEEN_DATATYPES = 1u << 7,
       ECAT_SII_SEEN_FMMU_EX = 1u << 8, ECAT_SII_SEEN_SYNCUNIT = 1u << 9,
       ECAT_SII_SEEN_END = 1u << 15 };

/* Parse flags. */
enum {
    ECAT_SII_STRICT = 1u << 0,      /* any finding (bad checksum, broken category) is an error */
};

/* Largest image a master reads: 64 KiB (512 KiBit), the largest EEPROM word 0x003E of
 * real devices names (ETG.2010: EEPROM size in KiBit - 1). */
#define ECAT_SII_MAX_IMAGE 65536u

/* Parse an SII image of len bytes (from word 0). Only an image shorter than the
 * 128-byte header is refused (-TAKT_ESII, message in err, which may be NULL). Anything
 * else keeps what is decodable and warns about the rest, naming word addresses,
 * expected and found: a bad checksum (sii->csum_ok false), a category running past the
 * image (skipped, decoding stops), a broken category (what came before it in the
 * category is kept, the rest skipped), truncated strings, unknown category types, no
 * general category, no end marker. With ECAT_SII_STRICT every such finding but the
 * last three is an error instead. */
int ecat_sii_decode(const uint8_t *img, size_t len, struct ecat_sii *sii, unsigned flags,
                   char *err, size_t errlen);

/* For incremental EEPROM reads: given the first len bytes of an image, returns 0 when
 * they contain the header and every category up to the end marker (0xFFFF) or the
 * end of the addressable image, or 1 with *need set to the byte count to read next
 * (at least len + 2). Garbage category lengths are capped at 65536 words. */
int ecat_sii_need(const uint8_t *img, size_t len, size_t *need);

/* How many bytes of a slave's EEPROM a master may read, from the header (at least
 * 128 bytes of img): the size word 0x003E declares ((KiBit + 1) x 128 bytes), never
 * less than 4 KiB (what masters always read; some images under-declare) nor more than
 * ECAT_SII_MAX_IMAGE. */
size_t ecat_sii_read_limit(const uint8_t *img);

/* Recompute and store the header checksum (word 7 low byte) of an image of at least
 * 16 bytes, e.g. before `takt ecat sii write` of an edited image. */
void ecat_sii_set_checksum(uint8_t *img);

/* String by SII index (1-based); "" for 0 or out of range. Never NULL. */
const char *ecat_sii_str(const struct ecat_sii *sii, unsigned idx);
/* Device name: general category name, else "". */
const char *ecat_sii_name(const struct ecat_sii *sii);
/* Is the slave allowed to receive LRW (general flag "not LRW" clear)? */
static inline bool ecat_sii_lrw_ok(const struct ecat_sii *sii)
{ return !(sii->has_general && (sii->gen.flags & ECAT_SII_FLAG_NOT_LRW)); }

/* Bit size of a CoE basic data type code (0 if not fixed); its name is public:
 * takt_ecat_coe_type_name in <takt/ecat.h>. */
unsigned ecat_coe_type_bits(uint16_t type);

#endif
