/* takt EtherCAT master: the acyclic services (register access, SII, CoE SDO and SDO
 * information, FoE, SoE, EoE) and the SII, SoE and EoE helpers of the API. Included by
 * <takt/ecat.h>, which declares the master they act on. */
#ifndef TAKT_ECAT_SERVICES_H
#define TAKT_ECAT_SERVICES_H

#include <takt/ecat.h>

#ifdef __cplusplus
extern "C" {
#endif
TAKT_API_BEGIN

/* --- acyclic services: queued, never block the cycle -------------------------------- */
/* The _async forms may be called from any thread. From the cycle's thread (the cyclic
 * callback, or a thread that drives the cycle itself while no RT thread runs) they
 * queue at once and return what is wrong (-ENOENT no such slave, -EBUSY no free slot,
 * ...). From any other thread they post a record into the master's command ring and
 * return 0, or -EAGAIN at once when the ring (64 records) is full; the cycle applies
 * the records first thing in its next cycle, in order, and what it finds wrong comes
 * back through the completion. Either way: a non-zero return means no completion, 0
 * exactly one, called in the cycle's thread (keep it short; it must not block).
 * Before takt_ecat_master_start() a thread that has not driven the cycle posts too,
 * and the first cycle applies what it posted.
 * The blocking forms: beside a running RT thread they post and sleep until the
 * completion (never from the cyclic callback: -EDEADLK); with no RT thread they drive
 * the cycle themselves, one thread at a time (another caller waits its turn), not
 * beside a takt_ecat_master_cycle() loop of the application's own. */
/* Completion: err 0 or negative (-ETIMEDOUT, TAKT codes negated); data/len the read data. */
typedef void (*takt_ecat_done_fn)(void *ctx, int err, const uint8_t *data, size_t len);
/* Register read/write at slave position pos (station address from the scan). */
/* [thread: any; non-blocking] */
int takt_ecat_reg_read_async(struct takt_ecat_master *m, unsigned pos, uint16_t reg, uint16_t len,
                        takt_ecat_done_fn fn, void *ctx);
/* [thread: any; non-blocking] */
int takt_ecat_reg_write_async(struct takt_ecat_master *m, unsigned pos, uint16_t reg, const void *data,
                         uint16_t len, takt_ecat_done_fn fn, void *ctx);
/* Rescan (IgH's `ethercat rescan`) of a running master: the slave count of the cyclic
 * BRD 0x0130 and, for each known slave, its identity read again from SII words
 * 0x0008..0x000F (ETG.2010: vendor, product, revision, serial) by acyclic register
 * services beside the cyclic frames, compared with what the scan found. The completion
 * gets a struct takt_ecat_rescan as data. A slave whose identity changed is handed to
 * recovery like a replaced device (reported, re-scanned, not configured). */
enum { TAKT_ECAT_RESCAN_SAME, TAKT_ECAT_RESCAN_CHANGED, TAKT_ECAT_RESCAN_MISSING,
       TAKT_ECAT_RESCAN_NEW, TAKT_ECAT_RESCAN_FAILED };
struct takt_ecat_rescan_slave {
    uint8_t  status;                     /* TAKT_ECAT_RESCAN_* */
    int      err;                        /* FAILED: why */
    uint32_t vendor, product, revision, serial;            /* as scanned */
    uint32_t now_vendor, now_product, now_revision, now_serial; /* as read now */
};
struct takt_ecat_rescan {
    unsigned seen, expected;             /* slaves answering now, slaves scanned */
    unsigned n;                          /* entries: max(seen, expected) */
    struct takt_ecat_rescan_slave slave[];
};
/* Name of a TAKT_ECAT_RESCAN_* status ("same", "changed", "missing", "new", "failed"). */
/* [thread: any; non-blocking] */
const char *takt_ecat_rescan_status_name(unsigned status);
/* One rescan at a time: -EBUSY while one runs, and while an SII write runs or waits
 * or the master reads a slave's SII itself (scan, a returned slave's re-read: the
 * EEPROM interface has one user at a time, ETG.1000.4 6.4); -EAGAIN when the command
 * ring is full. */
/* [thread: any; non-blocking] */
int takt_ecat_master_rescan_async(struct takt_ecat_master *m, takt_ecat_done_fn fn, void *ctx);
/* Blocking wrappers: wait until done (see above). */
/* [thread: any; blocking] */
int takt_ecat_reg_read(struct takt_ecat_master *m, unsigned pos, uint16_t reg, void *buf, uint16_t len);
/* [thread: any; blocking] */
int takt_ecat_reg_write(struct takt_ecat_master *m, unsigned pos, uint16_t reg, const void *data, uint16_t len);
/* CoE over the mailbox (slave in PREOP, SAFEOP or OP): SDO upload/download, expedited,
 * normal or segmented as the size demands, complete access with ca (subindex 0 or 1);
 * SDO information. One transfer per slave at a time, others wait their turn. The
 * buffers must stay valid until the completion; err -TAKT_ESDOABORT with the abort code
 * and its meaning in takt_ecat_master_error(). */
/* [thread: any; non-blocking] */
int takt_ecat_sdo_upload_async(struct takt_ecat_master *m, unsigned pos, uint16_t index, uint8_t sub,
                          bool ca, void *buf, size_t cap, takt_ecat_done_fn fn, void *ctx);
/* [thread: any; non-blocking] */
int takt_ecat_sdo_download_async(struct takt_ecat_master *m, unsigned pos, uint16_t index, uint8_t sub,
                            bool ca, const void *data, size_t len, takt_ecat_done_fn fn, void *ctx);
enum takt_ecat_sdo_info_op { TAKT_ECAT_SDO_INFO_ODLIST, TAKT_ECAT_SDO_INFO_OBJECT, TAKT_ECAT_SDO_INFO_ENTRY };
/* ODLIST: u16 list type then u16 indices; OBJECT/ENTRY: raw description (parse with
 * takt_ecat_coe_odlist_parse, takt_ecat_coe_objdesc_parse, takt_ecat_coe_entrydesc_parse below). */
/* [thread: any; non-blocking] */
int takt_ecat_sdo_info_async(struct takt_ecat_master *m, unsigned pos, enum takt_ecat_sdo_info_op op,
                        uint16_t index, uint8_t sub, void *buf, size_t cap, takt_ecat_done_fn fn, void *ctx);
/* [thread: any; blocking] */
int takt_ecat_sdo_upload(struct takt_ecat_master *m, unsigned pos, uint16_t index, uint8_t sub, bool ca,
                    void *buf, size_t cap, size_t *len);
/* [thread: any; blocking] */
int takt_ecat_sdo_download(struct takt_ecat_master *m, unsigned pos, uint16_t index, uint8_t sub, bool ca,
                      const void *data, size_t len);
/* [thread: any; blocking] */
int takt_ecat_sdo_info(struct takt_ecat_master *m, unsigned pos, enum takt_ecat_sdo_info_op op, uint16_t index,
                  uint8_t sub, void *buf, size_t cap, size_t *len);

/* SDO information results (ETG.1000.6 5.6.3), parsed from what takt_ecat_sdo_info returned.
 * OD list: u16 list type, then u16 indices. Returns the number of indices and sets
 * *first to the first of them (little-endian u16 each), or -EPROTO. */
/* [thread: any; non-blocking] */
int takt_ecat_coe_odlist_parse(const uint8_t *d, size_t n, uint16_t *list_type, const uint8_t **first);
struct takt_ecat_coe_objdesc {
    uint16_t index, data_type;
    uint8_t  max_sub, obj_code;     /* obj_code: 7 VAR, 8 ARRAY, 9 RECORD */
    char     name[64];
};
/* [thread: any; non-blocking] */
int takt_ecat_coe_objdesc_parse(const uint8_t *d, size_t n, struct takt_ecat_coe_objdesc *o);
/* Entry description value info bits (ETG.1000.6): what follows the access rights. */
enum { TAKT_ECAT_COE_VI_UNIT = 0x08, TAKT_ECAT_COE_VI_DEFAULT = 0x10, TAKT_ECAT_COE_VI_MIN = 0x20,
       TAKT_ECAT_COE_VI_MAX = 0x40 };
struct takt_ecat_coe_entrydesc {
    uint16_t index;
    uint8_t  subindex, value_info;
    uint16_t data_type, bitlen, access;
    uint32_t unit;                  /* with TAKT_ECAT_COE_VI_UNIT */
    uint64_t def, min, max;         /* with TAKT_ECAT_COE_VI_DEFAULT/MIN/MAX, values up to 64 bit
                                       (little-endian, (bitlen + 7) / 8 bytes each) */
    char     name[64];
};
/* [thread: any; non-blocking] */
int takt_ecat_coe_entrydesc_parse(const uint8_t *d, size_t n, struct takt_ecat_coe_entrydesc *e);
/* Name of a CoE basic data type code (1 "BOOL", 7 "UDINT", ...; "" for unknown), as
 * ENI DataType texts use them. */
/* [thread: any; non-blocking] */
const char *takt_ecat_coe_type_name(uint16_t type);

/* FoE (file access over EtherCAT, ETG.1000.6) over the mailbox: the standard one in
 * PREOP, SAFEOP or OP, the bootstrap mailbox (SII words 0x14-0x17) in BOOT, where
 * firmware is written. Segments of mailbox size - 12 bytes, BUSY answered by repeating,
 * a per-packet timeout of sdo_timeout_ns. A read fills buf (cap bytes) and completes
 * with the file's length; a refusal fails with -TAKT_EMBOX and takt_ecat_master_error()
 * names slave, file, FoE error code and its text (and the slave's own text). password
 * 0 = none. One transfer per slave at a time (CoE waits too). */
/* [thread: any; non-blocking] */
int takt_ecat_foe_read_async(struct takt_ecat_master *m, unsigned pos, const char *name, uint32_t password,
                        void *buf, size_t cap, takt_ecat_done_fn fn, void *ctx);
/* [thread: any; non-blocking] */
int takt_ecat_foe_write_async(struct takt_ecat_master *m, unsigned pos, const char *name, uint32_t password,
                         const void *data, size_t len, takt_ecat_done_fn fn, void *ctx);
/* [thread: any; blocking] */
int takt_ecat_foe_read(struct takt_ecat_master *m, unsigned pos, const char *name, uint32_t password,
                  void *buf, size_t cap, size_t *len);
/* [thread: any; blocking] */
int takt_ecat_foe_write(struct takt_ecat_master *m, unsigned pos, const char *name, uint32_t password,
                   const void *data, size_t len);
/* Progress of FoE transfers, called by the master timer after each acknowledged packet:
 * bytes moved and the total (0 = unknown, reads). NULL turns it off. */
typedef void (*takt_ecat_foe_progress_fn)(void *ctx, unsigned pos, size_t done, size_t total);
/* [thread: cycle; non-blocking] */
void takt_ecat_foe_set_progress(struct takt_ecat_master *m, takt_ecat_foe_progress_fn fn, void *ctx);

/* SoE (servo drive profile over EtherCAT, ETG.1000.6) IDN services over the
 * mailbox in PREOP, SAFEOP or OP: elements = SOE_EL_* flags of ecat/soe.h (0x40 the
 * value), drive 0..7, idn as on the wire (bit 15 P, bits 12-14 parameter set). A read
 * collects the response's fragments into buf (cap bytes) and completes with their
 * length; a write goes out in fragments of mailbox size - 10 bytes. A refusal fails with
 * -TAKT_EMBOX and takt_ecat_master_error() names slave, IDN and the SoE error ("IDN S-0-0040
 * is read-only"); a slave whose SII lacks SoE fails at once ("slave 3 has no SoE"). */
/* [thread: any; non-blocking] */
int takt_ecat_soe_read_async(struct takt_ecat_master *m, unsigned pos, uint8_t drive, uint8_t elements,
                        uint16_t idn, void *buf, size_t cap, takt_ecat_done_fn fn, void *ctx);
/* [thread: any; non-blocking] */
int takt_ecat_soe_write_async(struct takt_ecat_master *m, unsigned pos, uint8_t drive, uint8_t elements,
                         uint16_t idn, const void *data, size_t len, takt_ecat_done_fn fn, void *ctx);
/* [thread: any; blocking] */
int takt_ecat_soe_read(struct takt_ecat_master *m, unsigned pos, uint8_t drive, uint8_t elements,
                  uint16_t idn, void *buf, size_t cap, size_t *len);
/* [thread: any; blocking] */
int takt_ecat_soe_write(struct takt_ecat_master *m, unsigned pos, uint8_t drive, uint8_t elements,
                   uint16_t idn, const void *data, size_t len);

/* SoE IDN helpers for programs that show or enter IDNs (IEC 61800-7-204).
 * Element flags: which parts of an IDN a service carries, in this wire order. */
enum {
    TAKT_ECAT_SOE_EL_STATE = 0x01, TAKT_ECAT_SOE_EL_NAME = 0x02, TAKT_ECAT_SOE_EL_ATTR = 0x04,
    TAKT_ECAT_SOE_EL_UNIT = 0x08, TAKT_ECAT_SOE_EL_MIN = 0x10, TAKT_ECAT_SOE_EL_MAX = 0x20,
    TAKT_ECAT_SOE_EL_VALUE = 0x40, TAKT_ECAT_SOE_EL_DEFAULT = 0x80,
};
/* Attribute (element 3), u32: conversion factor bits 0-15, data length bits 16-17
 * (0 one byte, 1 two, 2 four, 3 eight), bit 18 a variable-length list of such items,
 * bit 19 procedure command, display format bits 20-22, decimals bits 24-27, write
 * protection in PREOP/SAFEOP/OP bits 28-30. */
enum { TAKT_ECAT_SOE_FMT_BIN = 0, TAKT_ECAT_SOE_FMT_UINT = 1, TAKT_ECAT_SOE_FMT_INT = 2, TAKT_ECAT_SOE_FMT_HEX = 3,
       TAKT_ECAT_SOE_FMT_TEXT = 4, TAKT_ECAT_SOE_FMT_IDN = 5, TAKT_ECAT_SOE_FMT_FLOAT = 6 };
static inline unsigned ecat_soe_attr_item(uint32_t a) { return 1u << ((a >> 16) & 3); }  /* bytes */
static inline bool ecat_soe_attr_list(uint32_t a) { return (a & (1u << 18)) != 0; }
static inline unsigned ecat_soe_attr_fmt(uint32_t a) { return (a >> 20) & 7; }
static inline unsigned ecat_soe_attr_decimals(uint32_t a) { return (a >> 24) & 15; }
/* An attribute standing for a type: item size in bytes, list or not, format, decimals. */
static inline uint32_t ecat_soe_attr(unsigned item_bytes, bool list, unsigned fmt, unsigned dec)
{
    unsigned l = item_bytes >= 8 ? 3 : item_bytes >= 4 ? 2 : item_bytes >= 2 ? 1 : 0;
    return (uint32_t)l << 16 | (list ? 1u << 18 : 0) | (uint32_t)(fmt & 7) << 20 | (uint32_t)(dec & 15) << 24;
}
/* The meaning of an SoE error code ("IDN is read-only" for 0x7004). */
/* [thread: any; non-blocking] */
const char *takt_ecat_soe_error_text(uint16_t code);
/* IDN text form: "S-0-0036" / "P-1-0010" (S or P, parameter set 0-7, number 0-4095;
 * bit 15 = P, bits 12-14 set, bits 0-11 number), also a plain number ("36", "0x8024")
 * meaning the raw u16. Returns 0 or -EINVAL with what was expected in err. */
/* [thread: any; non-blocking] */
int takt_ecat_soe_idn_parse(const char *s, uint16_t *idn, char *err, size_t errlen);
#define TAKT_ECAT_SOE_IDN_STR 12
/* [thread: any; non-blocking] */
void takt_ecat_soe_idn_format(uint16_t idn, char buf[TAKT_ECAT_SOE_IDN_STR]);
/* Element names ("state", "name", "attribute", "unit", "min", "max", "value",
 * "default"): a comma list into flags; the name of one flag. */
/* [thread: any; non-blocking] */
int takt_ecat_soe_elements_parse(const char *s, uint8_t *flags, char *err, size_t errlen);
/* [thread: any; non-blocking] */
const char *takt_ecat_soe_element_name(uint8_t flag);
/* The elements of a read response split in wire order: data state u16, name and unit
 * as lists (u16 current length, u16 maximum, bytes), attribute u32, min/max/value/
 * default per the attribute (fixed items, or lists). attr is needed for min..default
 * and taken from the response when it carries one. Each part points into data.
 * Returns 0, or -EPROTO with what did not fit in err. */
struct takt_ecat_soe_part { const uint8_t *p; size_t len; };
/* [thread: any; non-blocking] */
int takt_ecat_soe_elements_split(const uint8_t *data, size_t len, uint8_t elements, uint32_t attr,
                            struct takt_ecat_soe_part part[8], char *err, size_t errlen);

/* EoE (Ethernet over EtherCAT, ETG.1000.6) on slaves whose SII lists it. A port is
 * opened per slave before takt_ecat_master_start() (fails with "slave 3 has no EoE" or a
 * mailbox too small); from then on each cycle moves at most one fragment per port
 * through the mailbox, leaving a turn to CoE/FoE/SoE after each. The services
 * (struct takt_ecat_eoe_ip / takt_ecat_eoe_filter below) open the port too; the
 * blocking ones are for tools and start-up, the async ones for the cycle thread.
 *
 * Thread contract: takt_ecat_eoe_send() and takt_ecat_eoe_recv() are for one host-side thread
 * per port (the TAP thread of ecat/eoe_tap.h), never the cycle thread; the counters of
 * takt_ecat_eoe_get_stats() are atomic and may be read from any thread: each direction is a single-producer single-consumer ring of EOE_RING whole
 * frames, lock-free, so the cycle never waits for the host and the host never for the
 * cycle. A full ring drops the frame (counted), as an Ethernet switch would. */
/* Set-IP-parameter contents: what is present (ECAT_EOE_IP_*), addresses in network
 * order (ip[0] is the first octet). */
enum { TAKT_ECAT_EOE_IP_MAC = 0x01, TAKT_ECAT_EOE_IP_IP = 0x02, TAKT_ECAT_EOE_IP_MASK = 0x04, TAKT_ECAT_EOE_IP_GW = 0x08,
       TAKT_ECAT_EOE_IP_DNS = 0x10, TAKT_ECAT_EOE_IP_DNS_NAME = 0x20 };
#define TAKT_ECAT_EOE_DNS_NAME 32
struct takt_ecat_eoe_ip {
    uint32_t flags;
    uint8_t  mac[6];
    uint8_t  ip[4], mask[4], gw[4], dns[4];
    char     dns_name[TAKT_ECAT_EOE_DNS_NAME + 1];
};
/* Address filter: up to 16 MACs and 4 masks the slave accepts, broadcasts or not. */
struct takt_ecat_eoe_filter {
    uint8_t n_mac, n_mask;
    bool    no_broadcast;
    uint8_t mac[16][6], mask[4][6];
};
/* Text forms: "A.B.C.D" or "A.B.C.D/NN" (mask set from NN when given, and *has_mask);
 * "aa:bb:cc:dd:ee:ff". 0 or -EINVAL with what was expected in err. */
/* [thread: any; non-blocking] */
int takt_ecat_eoe_ip_parse(const char *s, uint8_t ip[4], uint8_t mask[4], bool *has_mask, char *err,
                      size_t errlen);
/* [thread: any; non-blocking] */
int takt_ecat_eoe_mac_parse(const char *s, uint8_t mac[6], char *err, size_t errlen);
struct takt_ecat_eoe_stats {
    uint64_t tx_frames, rx_frames;     /* whole frames to / from the slave */
    uint64_t tx_frags, rx_frags;       /* mailbox fragments */
    uint64_t host_drops;               /* a ring was full */
    uint64_t rx_dropped;               /* frames the reassembler dropped (bad fragments) */
};
/* Open an EoE port on slave pos (before takt_ecat_master_start: the ports are fixed
 * while the RT thread runs). Called while it runs it returns -EBUSY, and the refusal is
 * posted to the cycle, which reports it as an event. */
/* [thread: idle; blocking] */
int takt_ecat_eoe_open(struct takt_ecat_master *m, unsigned pos);
/* [thread: any; non-blocking] */
int takt_ecat_eoe_set_ip_async(struct takt_ecat_master *m, unsigned pos, const struct takt_ecat_eoe_ip *ip,
                          takt_ecat_done_fn fn, void *ctx);
/* [thread: any; blocking] */
int takt_ecat_eoe_set_ip(struct takt_ecat_master *m, unsigned pos, const struct takt_ecat_eoe_ip *ip);
/* [thread: any; non-blocking] */
int takt_ecat_eoe_set_filter_async(struct takt_ecat_master *m, unsigned pos,
                              const struct takt_ecat_eoe_filter *f, takt_ecat_done_fn fn, void *ctx);
/* [thread: any; blocking] */
int takt_ecat_eoe_set_filter(struct takt_ecat_master *m, unsigned pos, const struct takt_ecat_eoe_filter *f);
/* The IP parameters the configured ENI's EoE init commands give slave pos (the last
 * set-IP-parameter request in file order): 0, or -ENOENT when it has none. Reads the
 * configuration, which does not change once the ENI is loaded. */
/* [thread: any; non-blocking] */
int takt_ecat_master_eni_eoe_ip(const struct takt_ecat_master *m, unsigned pos, struct takt_ecat_eoe_ip *out);
/* Host side: queue a frame for the slave (0, -EAGAIN ring full, -EMSGSIZE, -ENOENT no
 * port); take a frame from the slave (its length, 0 none). */
/* [thread: host; non-blocking] */
int takt_ecat_eoe_send(struct takt_ecat_master *m, unsigned pos, const void *frame, size_t len);
/* [thread: host; non-blocking] */
int takt_ecat_eoe_recv(struct takt_ecat_master *m, unsigned pos, void *buf, size_t cap);
/* [thread: any; non-blocking] */
int takt_ecat_eoe_get_stats(const struct takt_ecat_master *m, unsigned pos, struct takt_ecat_eoe_stats *out);
/* Positions of the opened ports (up to max into pos); returns how many there are. */
/* [thread: any; non-blocking] */
unsigned takt_ecat_eoe_ports(const struct takt_ecat_master *m, unsigned *pos, unsigned max);

/* The host end of an EoE port: a TAP device (Linux tun/tap) named takt-eoe<pos> by
 * default and a thread of its own that moves frames between the TAP and the port's
 * rings (takt_ecat_eoe_send/recv), so TAP I/O never happens in the cycle thread. Making a TAP
 * needs CAP_NET_ADMIN. open: create it (name NULL: the default), bring it up with MTU
 * 1500 and give it ip/prefix when ip is not NULL; err says what failed. The port must be
 * open (takt_ecat_eoe_open). Any thread but the cycle's; start/close from the same one. */
struct takt_ecat_eoe_tap;
/* [thread: host; blocking] */
int takt_ecat_eoe_tap_open(struct takt_ecat_eoe_tap **out, struct takt_ecat_master *m, unsigned pos,
                      const char *name, const uint8_t *ip, unsigned prefix, char *err,
                      size_t errlen);
/* [thread: any; non-blocking] */
const char *takt_ecat_eoe_tap_name(const struct takt_ecat_eoe_tap *t);
/* [thread: host; blocking] */
int takt_ecat_eoe_tap_start(struct takt_ecat_eoe_tap *t);
/* [thread: host; blocking] */
void takt_ecat_eoe_tap_close(struct takt_ecat_eoe_tap *t);   /* stops the thread, removes the TAP */

/* Write an SII image (from word 0) into slave pos's EEPROM, word by word (blocking;
 * the master's copy is updated, the slave uses it after a power cycle). Beside a
 * running RT thread every register access goes through the command ring, so it may
 * run while the network is in OP (never from the cyclic callback: -EDEADLK); the
 * master takes the EEPROM interface (0x0500, ETG.1000.4) for it. A rescan or the
 * master's own SII reads (scan, a returned slave's re-read) that use the interface are
 * waited for (up to 10 s, then -EBUSY); none starts meanwhile, and a returned slave's
 * re-read waits for the write to end. */
/* [thread: any; blocking] */
int takt_ecat_sii_write(struct takt_ecat_master *m, unsigned pos, const uint8_t *img, size_t len);
/* The same for len bytes (even) from SII word `word` on: a part of the image (the
 * header words 4..7 for a station alias, one chunk of a larger image). */
/* [thread: any; blocking] */
int takt_ecat_sii_write_at(struct takt_ecat_master *m, unsigned pos, unsigned word, const uint8_t *data,
                           size_t len);

/* SII image read at scan (bytes; NULL if none): up to the end marker or the EEPROM size
 * word 0x003E declares, at most TAKT_ECAT_SII_MAX_BYTES (an EEPROM of 512 KiBit). */
#define TAKT_ECAT_SII_MAX_BYTES 65536u
/* [thread: cycle; non-blocking] */
const uint8_t *takt_ecat_slave_sii(const struct takt_ecat_master *m, unsigned pos, size_t *len);

/* What a program shows of an SII image (ETG.2010): the bootstrap mailbox of the header
 * (words 0x14-0x17, used in BOOT), the SyncManagers (category 41) and FMMUs (40), and
 * whether the General category (30) lists SDO information in its CoE details, and what
 * the decoder found wrong with the image. */
#define TAKT_ECAT_SII_INFO_MAX 16
#define TAKT_ECAT_SII_INFO_WARN 8
struct takt_ecat_sii_sm_info {
    uint16_t start, len;
    uint8_t  ctrl;                 /* SM control (0x0804): mode bits 0-1, direction 2-3 */
    uint8_t  enable;               /* bit 0: enabled */
    uint8_t  type;                 /* 0 unused, 1 mailbox out, 2 mailbox in, 3 outputs, 4 inputs */
};
struct takt_ecat_sii_info {
    bool     header;               /* the image reaches word 0x17: the boot_* are read */
    uint16_t boot_out_start, boot_out_len, boot_in_start, boot_in_len;  /* 0: none */
    bool     categories;           /* the categories decoded (all below is 0 if not) */
    unsigned n_sm;
    struct takt_ecat_sii_sm_info sm[TAKT_ECAT_SII_INFO_MAX];
    unsigned n_fmmu;
    uint8_t  fmmu[TAKT_ECAT_SII_INFO_MAX];  /* 0 unused, 1 outputs, 2 inputs, 3 mailbox state */
    bool     has_general;
    bool     sdo_info;             /* CoE details bit 1: the slave answers SDO information */
    /* What does not decode (bad checksum, a broken, unknown or skipped category, truncated
     * strings): all counted, the first TAKT_ECAT_SII_INFO_WARN kept as text; error: why the
     * categories did not decode at all ("" when they did). */
    unsigned n_warnings;
    char     warning[TAKT_ECAT_SII_INFO_WARN][200];
    char     error[200];
};
/* Fill *out from an image (as takt_ecat_slave_sii gives it). 0 when the categories decoded,
 * else a negative code (out->header may still be set); -EINVAL for no image. */
/* [thread: any; non-blocking] */
int takt_ecat_sii_info(const uint8_t *img, size_t len, struct takt_ecat_sii_info *out);
/* The header checksum an SII image must carry in byte 14 (word 0x0007): CRC-8 over
 * bytes 0-13 (ETG.2010). */
/* [thread: any; non-blocking] */
uint8_t takt_ecat_sii_checksum(const uint8_t *img);

TAKT_API_END
#ifdef __cplusplus
}
#endif
#endif
