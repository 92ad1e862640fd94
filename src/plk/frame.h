/* POWERLINK frame codec: encode/decode every frame kind (SoC, PReq, PRes, SoA incl.
 * SyncRequest, ASnd Ident/Status/NMT/SDO/Sync) to and from Ethernet bytes. Pure. */
#ifndef TAKT_PLK_FRAME_H
#define TAKT_PLK_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "plk/proto.h"

/* SoC (EPSG DS 301 frame formats). NetTime is IEEE 1588 style seconds + nanoseconds. */
struct plk_soc {
    uint8_t  flags1;          /* PLK_F1_MC | PLK_F1_PS */
    uint32_t nettime_s;
    uint32_t nettime_ns;
    uint64_t relative_time;   /* µs */
};

/* PReq and PRes share the layout; PReq has no NMT state and PRes has flag2. */
struct plk_preq {
    uint8_t  flags1;          /* PLK_F1_MS | PLK_F1_EA | PLK_F1_RD */
    uint8_t  pdo_version;
    uint16_t size;            /* payload bytes actually valid (Size field) */
    const uint8_t *payload;   /* size bytes (decode: points into the frame) */
    uint16_t payload_limit;   /* encode: frame carries 24 + max(size, limit) bytes */
};

struct plk_pres {
    uint8_t  nmt_state;
    uint8_t  flags1;          /* PLK_F1_MS | PLK_F1_EN | PLK_F1_RD */
    uint8_t  flags2;          /* PR (0x38) | RS (0x07) */
    uint8_t  pdo_version;
    uint16_t size;
    const uint8_t *payload;
    uint16_t payload_limit;
};

/* SyncRequest body of a SoA with svid PLK_SOA_SYNC_REQUEST (EPSG DS 302-C) */
struct plk_sync_request {
    uint32_t sync_control;    /* PLK_SYNC_* */
    uint32_t pres_time_first, pres_time_second;
    uint32_t sync_mn_delay_first, sync_mn_delay_second;
    uint32_t pres_fallback_timeout;
    uint8_t  dest_mac[6];
};

struct plk_soa {
    uint8_t nmt_state;        /* the MN's */
    uint8_t flags1;           /* PLK_F1_EA | PLK_F1_ER */
    uint8_t svid;             /* enum plk_soa_svid */
    uint8_t target;           /* RequestedServiceTarget node */
    uint8_t epl_version;      /* PLK_EPL_VERSION */
    uint8_t flags3;           /* PLK_F3_MR */
    struct plk_sync_request sync;  /* only with svid == PLK_SOA_SYNC_REQUEST */
};

/* IdentResponse (EPSG DS 301, 176 bytes) */
struct plk_ident_response {
    uint8_t  flags1, flags2, nmt_state, ident_flags, profile_version;
    uint32_t feature_flags;
    uint16_t mtu, poll_in_size, poll_out_size;
    uint32_t response_time;   /* ns */
    uint32_t device_type, vendor_id, product_code, revision_no, serial_no;
    uint64_t vendor_ext1;
    uint32_t conf_date, conf_time, app_sw_date, app_sw_time;
    uint32_t ip_address, subnet_mask, default_gateway;  /* host order; wire LE */
    char     hostname[PLK_IRES_HOSTNAME_LEN + 1];       /* NUL-terminated copy */
    uint8_t  vendor_ext2[PLK_IRES_VSEXT2_LEN];
};

struct plk_error_entry {
    uint16_t type, code;
    uint64_t time;            /* NetTime */
    uint64_t info;
};

/* StatusResponse (EPSG DS 301): fixed 32 bytes + n history entries of 20 bytes */
struct plk_status_response {
    uint8_t  flags1, flags2, nmt_state;
    uint64_t static_errors;
    uint8_t  n_entries;       /* <= PLK_SRES_MAX_ENTRIES */
    struct plk_error_entry entries[PLK_SRES_MAX_ENTRIES];
};

struct plk_nmt_command {
    uint8_t  cmd;             /* enum plk_nmt_cmd */
    uint8_t  data_len;        /* 0..32; the frame carries 32 data bytes when > 0 */
    uint8_t  data[PLK_NMTCMD_DATA_MAX];
};

struct plk_nmt_request {
    uint8_t  cmd;             /* requested command ID */
    uint8_t  target;          /* target node */
    uint8_t  data_len;
    uint8_t  data[PLK_NMTCMD_DATA_MAX];
};

struct plk_sync_response {
    uint32_t sync_status, latency, sync_node_number, sync_delay;
    uint32_t pres_time_first, pres_time_second;
};

/* ASnd: the svid selects the member. SDO (and manufacturer services) carry raw bytes
 * from offset 18 on; the SDO layers (sdo.h) interpret them. */
struct plk_asnd {
    uint8_t svid;             /* enum plk_asnd_svid */
    union {
        struct plk_ident_response  ident;
        struct plk_status_response status;
        struct plk_nmt_command     nmt_cmd;
        struct plk_nmt_request     nmt_req;
        struct plk_sync_response   sync;
        struct {
            const uint8_t *data;
            uint16_t len;
        } raw;                 /* PLK_ASND_SDO and manufacturer-specific */
    } u;
};

/* One decoded or to-be-encoded frame. */
struct plk_msg {
    uint8_t dst_mac[6];       /* encode: all zero = the multicast of the type (EPSG DS 301 addressing);
                                 PReq needs the CN's unicast MAC */
    uint8_t src_mac[6];
    uint8_t mtyp;             /* enum plk_mtyp */
    uint8_t dst, src;         /* node IDs */
    union {
        struct plk_soc  soc;
        struct plk_preq preq;
        struct plk_pres pres;
        struct plk_soa  soa;
        struct plk_asnd asnd;
    } u;
};

/* Encode m into buf (cap >= PLK_MIN_FRAME); frames are zero-padded to 60 bytes.
 * Returns the frame length or a negative errno: -EINVAL (bad field, e.g. PReq without
 * MAC, size > payload limit, unknown type), -ENOSPC (cap too small). */
int plk_frame_encode(uint8_t *buf, size_t cap, const struct plk_msg *m);

/* Decode a received frame. Returns 0, or -EPROTO / -EMSGSIZE with a message in err
 * naming the field, its offset, what was expected and what came. Payload pointers in m
 * point into buf. Frames not of EtherType 0x88AB give -ENOMSG. */
int plk_frame_decode(const uint8_t *buf, size_t len, struct plk_msg *m,
                     char *err, size_t errlen);

/* Fill mac with 01-11-1E-00-00-<last>. */
void plk_mcast_mac(uint8_t mac[6], enum plk_mcast last);
/* Multicast address a frame type goes to (EPSG DS 301 addressing); 0 for PReq (unicast). */
enum plk_mcast plk_mtyp_mcast(uint8_t mtyp);

/* Quick accessors for the hot path, valid after a length check of >= 17 bytes. */
static inline uint8_t plk_frame_mtyp(const uint8_t *f) { return f[PLK_OFF_MTYP] & PLK_MTYP_MASK; }
static inline uint8_t plk_frame_dst(const uint8_t *f) { return f[PLK_OFF_DST]; }
static inline uint8_t plk_frame_src(const uint8_t *f) { return f[PLK_OFF_SRC]; }

/* Names for logs: "SoC", "PRes", "IdentResponse", "StartNode" (NMT states: takt_plk_nmt_name). */
const char *plk_mtyp_name(uint8_t mtyp);
const char *plk_asnd_name(uint8_t svid);
const char *plk_soa_svid_name(uint8_t svid);
const char *plk_nmt_cmd_name(uint8_t cmd);

#endif
