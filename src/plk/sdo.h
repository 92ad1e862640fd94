/* SDO over ASnd, sans-I/O: sequence layer (connection set-up, numbering, acknowledge,
 * retransmission) and command layer (expedited and segmented WriteByIndex/ReadByIndex,
 * abort), client and server. Buffers here hold the ASnd payload from frame offset 18;
 * frame.h wraps it (struct plk_asnd, svid PLK_ASND_SDO, u.raw). */
#ifndef TAKT_PLK_SDO_H
#define TAKT_PLK_SDO_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <takt/takt.h>

struct plk_od;

/* ---- wire layout (EPSG DS 301 6.3), offsets inside the ASnd payload (frame offset - 18) ---- */
enum {
    PLK_SDO_SEQ_OFF_RECV = 0,      /* rsnr << 2 | rcon */
    PLK_SDO_SEQ_OFF_SEND = 1,      /* ssnr << 2 | scon */
    PLK_SDO_SEQ_LEN = 4,
    PLK_SDO_CMD_OFF = 4,           /* frame offset 22 */
    PLK_SDO_CMD_OFF_TID = 5,
    PLK_SDO_CMD_OFF_FLAGS = 6,
    PLK_SDO_CMD_OFF_ID = 7,
    PLK_SDO_CMD_OFF_SEGSIZE = 8,
    PLK_SDO_CMD_HDR = 8,
    PLK_SDO_DATA_OFF = 12,         /* frame offset 30 */
};

/* Sequence layer connection codes: receive side / send side (Wireshark naming) */
enum plk_sdo_con {
    PLK_SDO_CON_NONE = 0,
    PLK_SDO_CON_INIT = 1,
    PLK_SDO_CON_VALID = 2,
    PLK_SDO_CON_ERROR = 3,  /* recv: retransmission request; send: valid + ack request */
};

/* Command layer flags byte */
enum {
    PLK_SDO_F_RESPONSE = 0x80,
    PLK_SDO_F_ABORT    = 0x40,
    PLK_SDO_F_SEG_MASK = 0x30,
    PLK_SDO_F_SEG_SHIFT = 4,
    PLK_SDO_F_PAD_MASK = 0x03,
};
enum plk_sdo_seg {
    PLK_SDO_SEG_EXPEDITED = 0, PLK_SDO_SEG_INITIATE = 1,
    PLK_SDO_SEG_SEGMENT = 2,   PLK_SDO_SEG_COMPLETE = 3,
};

enum plk_sdo_cmd_id {
    PLK_SDO_CMD_NIL = 0x00,
    PLK_SDO_CMD_WRITE_BY_INDEX = 0x01,
    PLK_SDO_CMD_READ_BY_INDEX = 0x02,
    PLK_SDO_CMD_WRITE_ALL_BY_INDEX = 0x03,
    PLK_SDO_CMD_READ_ALL_BY_INDEX = 0x04,
    PLK_SDO_CMD_WRITE_BY_NAME = 0x05,
    PLK_SDO_CMD_READ_BY_NAME = 0x06,
    PLK_SDO_CMD_FILE_WRITE = 0x20,
    PLK_SDO_CMD_FILE_READ = 0x21,
    PLK_SDO_CMD_WRITE_MULT_BY_INDEX = 0x31,
    PLK_SDO_CMD_READ_MULT_BY_INDEX = 0x32,
    PLK_SDO_CMD_MAX_SEG_SIZE = 0x70,
};

#define PLK_SDO_SEQ_MOD       64     /* 6-bit sequence numbers */
#define PLK_SDO_SEG_MAX       256    /* default command-layer bytes per frame */
#define PLK_SDO_PAYLOAD_MAX   (PLK_SDO_DATA_OFF + 4 + PLK_SDO_SEG_MAX) /* bytes from offset 18 */
#define PLK_SDO_HISTORY       4      /* unacknowledged frames kept for retransmission */
#define PLK_SDO_DATA_MAX      4096   /* largest object value a transfer carries */

/* Decoded SDO payload (both layers). */
struct plk_sdo_hdr {
    uint8_t  rsnr, rcon, ssnr, scon;
    bool     has_cmd;        /* false: sequence layer only (ack, init, close) */
    uint8_t  tid, flags, cmd_id;
    uint16_t seg_size;       /* command-layer bytes after the 8-byte header */
    const uint8_t *data;     /* seg_size bytes */
};

/* Decode; 0 or -EPROTO with err naming the field, offset, expected and received. */
int plk_sdo_decode(const uint8_t *p, size_t len, struct plk_sdo_hdr *h, char *err, size_t errlen);

/* Timing (ns); defaults from 0x1300 (15 s, as openPOWERLINK's CN) and a retransmit after 100 ms. */
struct plk_sdo_timing {
    takt_ns_t retransmit_ns;     /* resend unacknowledged frames after this */
    takt_ns_t timeout_ns;        /* connection given up after this without progress */
    unsigned  max_retries;       /* resends of one frame before the connection fails */
    uint16_t  seg_size;          /* command bytes per frame, 8..PLK_SDO_SEG_MAX */
};
void plk_sdo_timing_default(struct plk_sdo_timing *t);
/* The defaults with the retransmission time fitted to a POWERLINK cycle: an answer needs
 * a few cycles (the CN's RS flag, then the MN's invite), so resending after 100 ms at a
 * 50 ms cycle would resend nearly every frame. At least 100 ms, at least 8 cycles. */
void plk_sdo_timing_for_cycle(struct plk_sdo_timing *t, uint32_t cycle_us);

/* ---- sequence layer (one connection to one peer) ---- */
enum plk_sdo_seq_state {
    PLK_SEQ_IDLE = 0, PLK_SEQ_INIT1, PLK_SEQ_INIT2, PLK_SEQ_INIT3, PLK_SEQ_VALID,
    PLK_SEQ_CLOSED_ERROR,
};

struct plk_sdo_hist {
    uint8_t  buf[PLK_SDO_PAYLOAD_MAX];
    uint16_t len;
    uint8_t  ssnr;
};

struct plk_sdo_seq {
    enum plk_sdo_seq_state state;
    bool     server;
    uint8_t  my_snr;          /* next send sequence number to use */
    uint8_t  peer_snr;        /* last in-order sequence number received from the peer */
    uint8_t  acked;           /* last of our numbers the peer acknowledged */
    bool     ack_due;         /* we must send an acknowledge (or it rides on data) */
    bool     retrans_req_due; /* send rcon=3: we saw a gap */
    bool     resend_due;      /* resend history from resend_from */
    bool     hs_due;          /* a handshake frame of the current state is due */
    bool     close_due;       /* a close frame (connection 0) is due */
    bool     failed;          /* retries exhausted: the connection is dead */
    unsigned resend_from;     /* next history entry to resend; hist_n = none */
    struct plk_sdo_hist hist[PLK_SDO_HISTORY];
    unsigned hist_n;          /* frames awaiting acknowledge, oldest first */
    takt_ns_t last_tx, last_rx;
    takt_ns_t retransmit_ns;
    unsigned max_retries, retries;
    uint64_t retransmissions, rx_dropped;  /* counted, never hidden */
};

/* ---- command layer: client ---- */
enum plk_sdo_status {
    PLK_SDO_IDLE = 0,
    PLK_SDO_BUSY,
    PLK_SDO_DONE,
    PLK_SDO_ABORTED,         /* abort code in .abort_code (sent or received) */
    PLK_SDO_TIMEOUT,
};

struct plk_sdo_client {
    struct plk_sdo_seq seq;
    struct plk_sdo_timing tm;
    uint8_t  tid;
    enum plk_sdo_status status;
    uint8_t  cmd_id;
    uint16_t index;
    uint8_t  sub;
    bool     want_close;
    bool     cmd_pending;     /* next command frame not yet queued */
    uint32_t abort_code;
    bool     abort_received;  /* true if the server aborted, false if we did */
    uint8_t  data[PLK_SDO_DATA_MAX];  /* write: value to send; read: value received */
    uint32_t len;             /* value size */
    uint32_t done;            /* bytes sent (write) or received (read) */
    uint32_t total;           /* announced total of a segmented read */
    takt_ns_t started;
};

void plk_sdo_client_init(struct plk_sdo_client *c, const struct plk_sdo_timing *t);
/* Start a transfer (opens the connection first if needed). -EBUSY if one runs,
 * -EMSGSIZE if len > PLK_SDO_DATA_MAX. Values are copied. */
int plk_sdo_client_write(struct plk_sdo_client *c, uint16_t index, uint8_t sub,
                         const void *data, size_t len, takt_ns_t now);
int plk_sdo_client_read(struct plk_sdo_client *c, uint16_t index, uint8_t sub, takt_ns_t now);
/* Abort the running transfer with code (sends an abort frame). */
void plk_sdo_client_abort(struct plk_sdo_client *c, uint32_t code);
/* Close the sequence-layer connection (connection 0 frame). */
void plk_sdo_client_close(struct plk_sdo_client *c);

/* ---- command layer: server on an object dictionary ---- */
struct plk_sdo_server {
    struct plk_sdo_seq seq;
    struct plk_sdo_timing tm;
    struct plk_od *od;
    /* transfer in progress */
    bool     busy;
    bool     reply_pending;   /* a response is ready to queue */
    uint8_t  tid, cmd_id;
    uint16_t index;
    uint8_t  sub;
    uint8_t  data[PLK_SDO_DATA_MAX];
    uint32_t len, done, total;
    bool     uploading;       /* sending a segmented read response */
    bool     reply_abort;     /* the pending reply is an abort with abort_code */
    uint32_t abort_code;
    uint64_t writes, reads, aborts;
};

void plk_sdo_server_init(struct plk_sdo_server *s, struct plk_od *od, const struct plk_sdo_timing *t);
/* An NMT reset of the CN (DS 301 7.1.2) ends its connection: nothing of it is kept for
 * retransmission, the MN's next frame must initialise a new one. Counters and the
 * timing stay. */
void plk_sdo_server_reset(struct plk_sdo_server *s);

/* ---- driving either side: feed received payloads, poll for frames to send ---- */
/* rx: one received SDO payload (frame bytes from offset 18). Returns 0, or -EPROTO for
 * garbage (counted in seq.rx_dropped; err says why). */
int plk_sdo_client_rx(struct plk_sdo_client *c, const uint8_t *p, size_t len, takt_ns_t now,
                      char *err, size_t errlen);
int plk_sdo_server_rx(struct plk_sdo_server *s, const uint8_t *p, size_t len, takt_ns_t now,
                      char *err, size_t errlen);
/* tx: at most one payload to send now into buf (cap >= PLK_SDO_PAYLOAD_MAX); returns its
 * length, 0 if nothing is due. Also runs timeouts and retransmission for `now`. Call
 * until it returns 0 when the peer's async slot allows several frames. */
int plk_sdo_client_tx(struct plk_sdo_client *c, uint8_t *buf, size_t cap, takt_ns_t now);
int plk_sdo_server_tx(struct plk_sdo_server *s, uint8_t *buf, size_t cap, takt_ns_t now);
/* Something to send (so a CN raises RS in its PRes, an MN schedules its own slot). */
bool plk_sdo_client_tx_pending(const struct plk_sdo_client *c, takt_ns_t now);
bool plk_sdo_server_tx_pending(const struct plk_sdo_server *s, takt_ns_t now);

const char *plk_sdo_abort_name(uint32_t code);

#endif
