/* ENI (EtherCAT Network Information, ETG.2100) reader and writer (libxml2): master
 * and slave init commands, identities, process data, mailbox and CoE init commands,
 * DC, cyclic frames and the process image; plus the check of a scanned bus against
 * an ENI. Setup-time code: allocates, freed with ecat_eni_free. */
#ifndef TAKT_ECAT_ENI_H
#define TAKT_ECAT_ENI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ecat/sii.h"

/* ESM transitions as ENI <Transition> names them (ETG.1000.6 6.4; SOEM ECT_ESMTRANS_*). */
enum ecat_tr {
    ECAT_TR_IP, ECAT_TR_PS, ECAT_TR_PI, ECAT_TR_SP, ECAT_TR_SO, ECAT_TR_SI, ECAT_TR_OS,
    ECAT_TR_OP, ECAT_TR_OI, ECAT_TR_IB, ECAT_TR_BI, ECAT_TR_II, ECAT_TR_PP, ECAT_TR_SS,
    ECAT_TR_COUNT
};
#define ECAT_TR_BIT(t) (1u << (t))
/* "IP" -> ECAT_TR_IP; -1 if unknown. */
int ecat_tr_parse(const char *s);
const char *ecat_tr_name(enum ecat_tr t);
/* Transition between two AL states (AL_INIT ... AL_OP, AL_BOOT), -1 if none. */
int ecat_tr_from_states(unsigned from, unsigned to);

/* An EtherCAT init command (Master/InitCmds or Slave/InitCmds). */
struct ecat_eni_cmd {
    uint32_t transitions;           /* ECAT_TR_BIT mask */
    bool     before_slave;          /* master commands: run before the slave commands */
    const char *comment;            /* "" when absent */
    uint8_t  cmd;                   /* enum ecat_cmd */
    uint16_t adp, ado;              /* for physical/auto-increment/broadcast commands */
    uint32_t addr;                  /* logical commands (<Addr>) */
    uint16_t len;                   /* data length */
    const uint8_t *data;            /* len bytes (zeros for <DataLength> alone) */
    bool     has_cnt;
    uint16_t cnt;                   /* expected working counter */
    uint16_t retries;
    uint32_t timeout_ms;            /* 0 = default */
    bool     validate;              /* read back until (data & mask) == vdata */
    const uint8_t *vdata, *vmask;   /* len bytes each; vmask NULL = all ones */
    uint32_t vtimeout_ms;
    unsigned line;                  /* line of the element in the file */
};

/* A CoE init command (Mailbox/CoE/InitCmds). */
struct ecat_eni_coe {
    uint32_t transitions;
    const char *comment;
    uint8_t  ccs;                   /* 1 download, 2 upload */
    uint16_t index;
    uint8_t  subindex;
    bool     complete_access;
    bool     fixed;
    uint16_t len;
    const uint8_t *data;
    uint32_t timeout_ms;
    unsigned line;
};

/* An SoE init command (Mailbox/SoE/InitCmds, ETG.2100): an IDN write (OpCode 3). */
struct ecat_eni_soe {
    uint32_t transitions;
    const char *comment;
    uint8_t  op;                    /* SoE opcode, 3 = write request (ETG.1000.6) */
    uint8_t  drive;                 /* 0..7 */
    uint8_t  elements;              /* SOE_EL_* flags, 0x40 = value */
    uint16_t idn;                   /* as on the wire (bit 15 P, 12-14 parameter set) */
    uint32_t attribute;             /* <Attribute>, 0 when absent */
    uint16_t len;
    const uint8_t *data;
    uint32_t timeout_ms;
    unsigned line;
};

/* An EoE init command (Mailbox/EoE/InitCmds, ETG.2100): Data is the EoE service as it
 * follows the mailbox header (ETG.1000.6: 4-byte EoE header, then the body); takt runs
 * set-IP-parameter (type 2) and set-address-filter (type 4) requests. */
struct ecat_eni_eoe {
    uint32_t transitions;
    const char *comment;
    uint8_t  type;                  /* EoE frame type from the header */
    uint16_t len;                   /* body bytes after the EoE header */
    const uint8_t *body;
    uint32_t timeout_ms;
    unsigned line;
};

struct ecat_eni_entry {
    uint16_t index;                 /* 0 = gap */
    uint8_t  subindex;
    uint8_t  bitlen;
    const char *name;               /* "" when absent */
    const char *data_type;          /* "UINT", "BIT", ... ("" when absent) */
};

struct ecat_eni_pdo {
    uint16_t index;
    bool     input;                 /* TxPdo */
    int      sm;                    /* -1 = not assigned (no Sm attribute) */
    bool     fixed, mandatory;
    const char *name;
    unsigned n_entries;
    struct ecat_eni_entry *entry;
};

struct ecat_eni_sm {
    int      no;                    /* from <SmN> */
    bool     input;                 /* <Type>Inputs</Type> */
    bool     outputs;               /* <Type>Outputs</Type> */
    uint16_t start, default_size, min_size, max_size;
    uint8_t  ctrl, enable;
    unsigned n_pdo;
    uint16_t pdo[64];               /* assigned PDO indices */
};

struct ecat_eni_slave {
    const char *name;
    uint16_t phys_addr;
    uint16_t auto_inc;              /* 0, 0xFFFF, 0xFFFE ... */
    struct ecat_ident id;           /* serial 0 when absent */
    const char *product_revision;   /* "EK1100-0000-0018" or "" */
    /* ProcessData */
    bool     has_send, has_recv;
    uint32_t send_bitstart, send_bitlen;   /* outputs in the output image */
    uint32_t recv_bitstart, recv_bitlen;   /* inputs in the input image */
    unsigned n_sm;
    struct ecat_eni_sm sm[8];
    unsigned n_pdo;
    struct ecat_eni_pdo *pdo;
    /* Mailbox */
    bool     has_mbx;
    uint16_t mbx_send_start, mbx_send_len;  /* master -> slave (SM0) */
    uint16_t mbx_recv_start, mbx_recv_len;  /* slave -> master (SM1) */
    uint16_t boot_send_start, boot_send_len, boot_recv_start, boot_recv_len;
    uint16_t mbx_proto;             /* MBX_PROTO_* from <Protocol> */
    unsigned n_coe;
    struct ecat_eni_coe *coe;
    unsigned n_soe;
    struct ecat_eni_soe *soe;
    unsigned n_eoe;
    struct ecat_eni_eoe *eoe;
    bool     has_soe, has_eoe;      /* <SoE> / <EoE> present in <Mailbox> */
    /* InitCmds */
    unsigned n_init;
    struct ecat_eni_cmd *init;
    /* DC */
    bool     has_dc;
    bool     ref_clock;
    uint32_t cycle0, cycle1;
    int32_t  shift0, shift1;
    uint16_t assign_activate;       /* 0 when absent */
    unsigned line;
};

/* One datagram of a cyclic frame. */
struct ecat_eni_fcmd {
    uint32_t states;                /* bit per AL state (1 << AL_INIT ...) from <State> */
    const char *comment;
    uint8_t  cmd;
    uint16_t adp, ado;
    uint32_t addr;                  /* <Addr> for logical commands */
    bool     has_addr;
    uint16_t len;                   /* <DataLength> */
    bool     has_cnt;
    uint16_t cnt;
    uint32_t input_offs, output_offs;   /* byte offsets in the images */
    unsigned line;                  /* line of the element in the file */
};

struct ecat_eni_frame {
    uint32_t cycle_us;              /* <CycleTime> of the <Cyclic> holding it, 0 if none */
    unsigned n_cmd;
    struct ecat_eni_fcmd *cmd;
};

struct ecat_eni_var {
    const char *name;
    const char *data_type;
    uint32_t bitsize, bitoffs;
    bool     input;
};

struct ecat_eni {
    /* Config/Master */
    const char *master_name;
    bool     has_mac;
    uint8_t  mac_dst[6], mac_src[6];
    uint16_t ethertype;
    unsigned n_master_init;
    struct ecat_eni_cmd *master_init;
    /* Config/Slave */
    unsigned n_slaves;
    struct ecat_eni_slave *slave;
    /* Config/Cyclic */
    uint32_t cycle_us;              /* first <CycleTime>, 0 when absent */
    unsigned n_frames;
    struct ecat_eni_frame *frame;
    /* Config/ProcessImage */
    uint32_t in_bytes, out_bytes;
    unsigned n_vars;
    struct ecat_eni_var *var;
    void    *arena;                 /* private: every allocation of this ENI */
};

/* Parse an ENI file / buffer. Returns 0 and *out, or -TAKT_EXML (not well-formed XML,
 * missing <Config>), -TAKT_ECONFIG (a required element missing or a value out of range)
 * with "LINE: element: expected ..., found ..." in err; err does not name the file (the
 * caller does, once). */
int ecat_eni_load(const char *path, struct ecat_eni **out, char *err, size_t errlen);
int ecat_eni_parse(const char *buf, size_t len, struct ecat_eni **out, char *err, size_t errlen);
void ecat_eni_free(struct ecat_eni *eni);

/* Write an ENI file from an ecat_eni (round-trips through ecat_eni_load). 0 or
 * negative errno / -TAKT_EXML with err filled. */
int ecat_eni_write(const char *path, const struct ecat_eni *eni, char *err, size_t errlen);

/* Build an ENI description of a scanned network for `takt ecat xml`: one slave per
 * SII (names, identity, mailbox, PDOs from SII, station address phys[i] or 0x1001+i,
 * DC with cycle_us). With img (laid out with positions 0..n-1, e.g. pos NULL): Send/Recv
 * offsets, one LRW frame per image frame and the variables. Returns 0 or -ENOMEM. */
struct ecat_pdo_image;
int ecat_eni_from_scan(struct ecat_eni **out, const struct ecat_sii *const *sii,
                       const uint16_t *phys, unsigned n, const struct ecat_pdo_image *img,
                       uint32_t cycle_us);

/* Compare a scanned bus (identities in bus order) with the ENI. */
enum ecat_mismatch_kind { ECAT_MM_IDENT, ECAT_MM_MISSING, ECAT_MM_EXTRA };
struct ecat_eni_mismatch {
    enum ecat_mismatch_kind kind;
    uint16_t pos;
    struct ecat_ident expected, found;
    char     text[300];             /* "slave 2: expected vendor 0x2 product 0x7D83052
                                       rev 0x100000 (EL2004), found ..." */
};
enum { ECAT_CMP_REVISION = 1u << 0, ECAT_CMP_SERIAL = 1u << 1 };
/* Fills up to max mismatches; returns their total number (0 = match). */
unsigned ecat_eni_compare(const struct ecat_eni *eni, const struct ecat_ident *found,
                          unsigned n_found, unsigned flags,
                          struct ecat_eni_mismatch *out, unsigned max);

/* Process image variables as the configuration tool placed them. ENI names them
 * "<slave name>.<PDO name>.<entry name>": ecat_eni_var_slave gives the position of
 * the slave a variable belongs to (-1 if no slave name matches), ecat_eni_find_var
 * finds a variable by slave position and "PDO.entry" or "entry" (NULL if none). */
int ecat_eni_var_slave(const struct ecat_eni *eni, const struct ecat_eni_var *v);
const struct ecat_eni_var *ecat_eni_find_var(const struct ecat_eni *eni, unsigned pos,
                                             const char *name);

/* What the slave's CoE init commands (downloads, in file order) leave in subindices
 * 1..n of the array object index of size-byte entries (2: a PDO assignment 0x1C1n, 4: a
 * PDO mapping 0x16xx/0x1Axx), single subindices or complete access: v[1..n] (v holds max
 * values, v[0] unused); returns n, capped by the last subindex 0 written. */
unsigned ecat_eni_coe_array(const struct ecat_eni_slave *s, uint16_t index, unsigned size, uint32_t *v,
                            unsigned max);

/* Convert an ENI slave's PDOs/SMs into a layout map (pdo.h): an SM without PDOs in the
 * ENI takes those its CoE init commands assign and map. Returns 0 or -ENOSPC. */
struct ecat_pdo_map;
int ecat_eni_pdo_map(const struct ecat_eni_slave *s, struct ecat_pdo_map *m);

#endif
