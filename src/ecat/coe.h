/* CoE client (ETG.1000.6 5.6 CoE): SDO request builders and response parsers, and a sans-I/O
 * transfer state machine for expedited / normal / segmented upload and download (incl.
 * complete access) and SDO information (OD list, object and entry descriptions) with
 * fragmented responses; emergency decoding. Fed mailbox messages, writes mailbox
 * messages into caller buffers; never reads a clock or allocates. */
#ifndef TAKT_ECAT_COE_H
#define TAKT_ECAT_COE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <takt/ecat.h>
#include "ecat/mbx.h"

/* Offsets in a mailbox message (after the 6-byte mailbox header), ETG.1000.6 5.6 CoE. */
enum {
    COE_OFF_HDR = MBX_HDR,          /* u16: number bits 0-8, service bits 12-15 */
    COE_OFF_CMD = MBX_HDR + 2,      /* u8: SDO command specifier */
    COE_OFF_INDEX = MBX_HDR + 3,    /* u16 */
    COE_OFF_SUB = MBX_HDR + 5,      /* u8 */
    COE_OFF_DATA = MBX_HDR + 6,     /* 4 bytes: expedited data or complete size */
    COE_SDO_LEN = 10,               /* minimum mailbox length of an SDO message */
    COE_OFF_SEG_DATA = MBX_HDR + 3, /* segment data follows the command byte */
    COE_OFF_INFO_OP = MBX_HDR + 2,  /* SDO info: opcode bits 0-6, incomplete bit 7 */
    COE_OFF_INFO_FRAG = MBX_HDR + 4,/* SDO info: u16 fragments left */
    COE_OFF_INFO_DATA = MBX_HDR + 6,
};

/* SDO information opcodes (ETG.1000.6 5.6.3). */
enum { COE_INFO_ODLIST_REQ = 1, COE_INFO_ODLIST_RES = 2, COE_INFO_OBJ_REQ = 3,
       COE_INFO_OBJ_RES = 4, COE_INFO_ENTRY_REQ = 5, COE_INFO_ENTRY_RES = 6,
       COE_INFO_ERROR = 7 };

/* SDO abort codes used by the client itself. */
#define COE_ABORT_TOGGLE   0x05030000u
#define COE_ABORT_TIMEOUT  0x05040000u
#define COE_ABORT_CMD      0x05040001u
#define COE_ABORT_NOMEM    0x05040005u
#define COE_ABORT_GENERAL  0x08000000u

/* Parsed CoE message (pointers into the caller's buffer). */
struct ecat_coe_msg {
    struct ecat_mbx_hdr mbx;
    uint16_t number;                /* CoE header bits 0-8 */
    uint8_t  service;               /* COE_SDO_REQ, COE_SDO_RES, COE_EMERGENCY, ... */
    uint8_t  cmd;                   /* SDO command byte (SDO services) */
    uint16_t index;
    uint8_t  subindex;
    const uint8_t *body;            /* bytes after the CoE header */
    size_t   body_len;
};
/* Parse a mailbox message carrying CoE. Returns 0, -EPROTO (not CoE: mailbox type,
 * too short for its service), -EMSGSIZE (header length beyond n). */
int ecat_coe_parse(const uint8_t *buf, size_t n, struct ecat_coe_msg *m);

/* Build single SDO messages into buf (cap bytes) with mailbox counter cnt. Return the
 * message length or -ENOSPC / -EINVAL. Used by the state machine and by tests. */
int ecat_coe_build_upload(uint8_t *buf, size_t cap, uint8_t cnt, uint16_t index,
                          uint8_t sub, bool ca);
int ecat_coe_build_download_exp(uint8_t *buf, size_t cap, uint8_t cnt, uint16_t index,
                                uint8_t sub, const uint8_t *data, size_t n);
int ecat_coe_build_abort(uint8_t *buf, size_t cap, uint8_t cnt, uint16_t index,
                         uint8_t sub, uint32_t code);

/* Emergency (CoE service 1): error code, error register, 5 manufacturer bytes. */
struct ecat_coe_emcy {
    uint16_t code;
    uint8_t  reg;
    uint8_t  data[5];
};
/* Returns 0 when buf is a CoE emergency message, -EPROTO otherwise. */
int ecat_coe_emcy_decode(const uint8_t *buf, size_t n, struct ecat_coe_emcy *e);
/* Meaning of the error code class (CiA 301: 0x00xx no error, 0x10xx generic, 0x2xxx
 * current, 0x3xxx voltage, 0x4xxx temperature, 0x5xxx hardware, 0x6xxx software,
 * 0x7xxx additional modules, 0x8xxx monitoring, 0x9xxx external, 0xFFxx device specific). */
const char *ecat_coe_emcy_text(uint16_t code);

/* --- transfer state machine --------------------------------------------------- */

enum ecat_coe_op {
    ECAT_COE_UPLOAD,                /* read index:sub (or whole object with ca) */
    ECAT_COE_DOWNLOAD,              /* write */
    ECAT_COE_ODLIST,                /* SDO info: object list of list_type */
    ECAT_COE_OBJDESC,               /* SDO info: object description of index */
    ECAT_COE_ENTRYDESC,             /* SDO info: entry description of index:sub */
};

struct ecat_coe_req {
    enum ecat_coe_op op;
    uint16_t pos;                   /* slave position, for messages only */
    uint16_t index;
    uint8_t  subindex;
    bool     complete_access;       /* with CA: subindex 0 or 1 (ETG.1000.6 5.6.2) */
    uint8_t *data;                  /* upload/info: destination; download: source */
    size_t   cap;                   /* upload/info: room in data */
    size_t   len;                   /* download: bytes to write */
    uint16_t mbx_out;               /* slave's receive mailbox size (SM0), bytes */
    uint16_t mbx_in;                /* slave's send mailbox size (SM1), bytes */
    uint16_t list_type;             /* ODLIST: 0 lengths, 1 all, 2 RxPDO mappable, ... */
    uint8_t  value_info;            /* ENTRYDESC: requested value info bits */
};

enum ecat_coe_state {
    COE_ST_IDLE, COE_ST_UP_INIT, COE_ST_UP_SEG, COE_ST_DOWN_INIT, COE_ST_DOWN_SEG,
    COE_ST_INFO, COE_ST_DONE, COE_ST_FAILED, COE_ST_COUNT
};

struct ecat_coe_xfer {
    struct ecat_coe_req req;
    enum ecat_coe_state state;
    struct ecat_mbx_chan *chan;     /* the slave's mailbox counters */
    uint32_t total;                 /* size announced by the slave / to the slave */
    size_t   done;                  /* bytes transferred so far */
    uint8_t  toggle;                /* 0x10 or 0 */
    uint8_t  sent_cnt;              /* counter of the request in flight */
    size_t   result_len;            /* upload/info: bytes in req.data when done */
    uint32_t abort_code;            /* set on -TAKT_ESDOABORT (either direction) */
    uint16_t mbx_error;             /* set on -TAKT_EMBOX */
    unsigned n_emcy;                /* emergencies seen while the transfer ran */
    struct ecat_coe_emcy emcy;      /* the last of them */
    char     msg[200];              /* failure text: slave, object, expected, found */
};

/* Results of start/on_reply (besides negative errors). */
enum {
    ECAT_COE_DONE = 0,              /* finished; upload data in req.data[0..result_len) */
    ECAT_COE_SEND = 1,              /* *out_len bytes in out: write them to the slave's
                                       receive mailbox, then read its send mailbox */
    ECAT_COE_WAIT = 2,              /* nothing to send, read the send mailbox again:
                                       the reply was not for this transfer (emergency,
                                       other protocol, duplicate counter) or was an SDO
                                       information fragment with more to come */
};

/* Start a transfer: check the request and write the first request message into out.
 * Returns ECAT_COE_SEND or -EINVAL (message in x->msg). chan must outlive the xfer. */
int ecat_coe_xfer_start(struct ecat_coe_xfer *x, const struct ecat_coe_req *r,
                        struct ecat_mbx_chan *chan, uint8_t *out, size_t cap, size_t *out_len);
/* Feed one message read from the slave's send mailbox. Returns ECAT_COE_SEND (next
 * segment request in out), ECAT_COE_DONE, ECAT_COE_WAIT, or a negative error with
 * x->msg naming slave, index:sub, what was expected and what came:
 *   -TAKT_ESDOABORT  the slave aborted (x->abort_code, text via takt_ecat_sdo_abort_text),
 *                    or the client aborts (then *out_len > 0: send that abort request)
 *   -TAKT_EMBOX      mailbox error reply (x->mbx_error, ecat_mbx_error_text)
 *   -EPROTO          malformed or unexpected reply (an abort request may be in out)
 *   -EMSGSIZE        upload larger than req.cap (an abort request is in out) */
int ecat_coe_xfer_on_reply(struct ecat_coe_xfer *x, const uint8_t *in, size_t n,
                           uint8_t *out, size_t cap, size_t *out_len);
/* The caller's timeout expired: fail with -ETIMEDOUT and write an SDO abort
 * (0x05040000) into out for SDO transfers (*out_len 0 for SDO info). */
int ecat_coe_xfer_timeout(struct ecat_coe_xfer *x, uint8_t *out, size_t cap, size_t *out_len);
static inline bool ecat_coe_xfer_busy(const struct ecat_coe_xfer *x)
{ return x->state != COE_ST_IDLE && x->state != COE_ST_DONE && x->state != COE_ST_FAILED; }

/* --- SDO information results (parse req.data after an info transfer) ----------- */

/* The parsers (takt_ecat_coe_odlist_parse, takt_ecat_coe_objdesc_parse, takt_ecat_coe_entrydesc_parse)
 * and their structs are public: <takt/ecat.h>. */
enum { COE_VI_UNIT = TAKT_ECAT_COE_VI_UNIT, COE_VI_DEFAULT = TAKT_ECAT_COE_VI_DEFAULT,
       COE_VI_MIN = TAKT_ECAT_COE_VI_MIN, COE_VI_MAX = TAKT_ECAT_COE_VI_MAX };

#endif
