/* POWERLINK wire constants shared by the MN, the CN and the simulator: message types,
 * node IDs, multicast MACs, flags, NMT states/commands, service IDs, OD indices.
 * Each group names the EPSG DS 301 part that defines it. */
#ifndef TAKT_PLK_PROTO_H
#define TAKT_PLK_PROTO_H

#include <stdint.h>
#include <takt/plk.h>

/* EPSG DS 301 addressing: Ethernet level */
#define PLK_ETHERTYPE        0x88AB
#define PLK_UDP_PORT         3819
#define PLK_ETH_HDR          14
#define PLK_MIN_FRAME        60      /* C_DLL_MIN_ETH_FRAME, no FCS (IEEE 802.3 minimum frame) */
#define PLK_MAX_FRAME        1514    /* C_DLL_MAX_ETH_FRAME */
#define PLK_ISOCHR_MAX_PAYL  1490    /* C_DLL_ISOCHR_MAX_PAYL */
#define PLK_PAYLOAD_LIMIT_MIN 36     /* 0x1F98/4,5 lower bound and default */
#define PLK_ASYNC_MTU_MIN    300
#define PLK_ASYNC_MTU_MAX    1500

/* Multicast destination MACs 01-11-1E-00-00-0x (EPSG DS 301 addressing); index = last byte. */
enum plk_mcast {
    PLK_MCAST_SOC  = 1,
    PLK_MCAST_PRES = 2,
    PLK_MCAST_SOA  = 3,
    PLK_MCAST_ASND = 4,
    PLK_MCAST_AMNI = 5,
};
#define PLK_MCAST_MAC(last) { 0x01, 0x11, 0x1E, 0x00, 0x00, (last) }

/* EPSG DS 301 addressing: node IDs */
enum {
    PLK_NODE_INVALID   = 0,
    PLK_NODE_CN_MIN    = 1,
    PLK_NODE_CN_MAX    = 239,
    PLK_NODE_MN        = 240,  /* 0xF0 */
    PLK_NODE_DUMMY     = 252,
    PLK_NODE_DIAG      = 253,
    PLK_NODE_ROUTER    = 254,
    PLK_NODE_BROADCAST = 255,
};
#define PLK_IS_CN(n) ((n) >= PLK_NODE_CN_MIN && (n) <= PLK_NODE_CN_MAX)

/* EPSG DS 301 basic frame: basic header offsets (from frame start) */
enum {
    PLK_OFF_DST_MAC = 0, PLK_OFF_SRC_MAC = 6, PLK_OFF_ETHERTYPE = 12,
    PLK_OFF_MTYP = 14, PLK_OFF_DST = 15, PLK_OFF_SRC = 16, PLK_OFF_DATA = 17,
};
#define PLK_MTYP_MASK 0x7F       /* bit 7 reserved */

enum plk_mtyp {
    PLK_MTYP_SOC  = 0x01,
    PLK_MTYP_PREQ = 0x03,
    PLK_MTYP_PRES = 0x04,
    PLK_MTYP_SOA  = 0x05,
    PLK_MTYP_ASND = 0x06,
    PLK_MTYP_AMNI = 0x07,
    PLK_MTYP_AINV = 0x0D,
};

/* EPSG DS 301 frame formats: flag bits (oplk frame.h PLK_FRAME_FLAG1_*, FLAG2, FLAG3) */
enum {
    PLK_F1_RD = 0x01,  /* ready (PReq: MN operational; PRes: CN operational) */
    PLK_F1_ER = 0x02,  /* exception reset (SoA) */
    PLK_F1_EA = 0x04,  /* exception acknowledge (PReq, SoA) */
    PLK_F1_EC = 0x08,  /* exception clear (Ident/StatusResponse) */
    PLK_F1_EN = 0x10,  /* exception new (PRes, Ident/StatusResponse) */
    PLK_F1_MS = 0x20,  /* multiplexed slot (PReq, PRes) */
    PLK_F1_PS = 0x40,  /* prescaled slot (SoC) */
    PLK_F1_MC = 0x80,  /* multiplexed cycle completed (SoC) */
    PLK_F2_RS_MASK = 0x07,   /* RS: number of pending async requests, bits 0-2 */
    PLK_F2_PR_MASK = 0x38,   /* PR: priority of the pending request, bits 3-5 */
    PLK_F2_PR_SHIFT = 3,
    PLK_F3_MR = 0x01,  /* SoA: MN redundancy */
    /* Decoded by Wireshark, not named in oplk frame.h (EPSG DS 301 frame formats): */
    PLK_F1_AN = 0x08,  /* SoC/SoA: "AN (Global)", same bit as EC */
    PLK_F2_SLS = 0x40, /* PRes/StatusResponse: second link status */
    PLK_F2_FLS = 0x80, /* PRes/StatusResponse: first link status */
};

/* PR priorities (EPSG DS 301 frame formats: C_DLL_ASND_PRIO_*) */
enum { PLK_PRIO_STD = 0, PLK_PRIO_GENERIC = 3, PLK_PRIO_NMTRQST = 7 };

/* EPSG DS 301 frame formats: offsets of the cyclic frames */
enum {
    /* SoC */
    PLK_SOC_OFF_FLAGS1 = 18, PLK_SOC_OFF_FLAGS2 = 19,
    PLK_SOC_OFF_NETTIME_S = 20, PLK_SOC_OFF_NETTIME_NS = 24, PLK_SOC_OFF_RELTIME = 28,
    PLK_SOC_LEN = 36,
    /* PReq / PRes */
    PLK_PREQ_OFF_FLAGS1 = 18, PLK_PREQ_OFF_FLAGS2 = 19, PLK_PREQ_OFF_PDOV = 20,
    PLK_PREQ_OFF_SIZE = 22, PLK_PREQ_OFF_PAYLOAD = 24,
    PLK_PRES_OFF_NMTSTATE = 17, PLK_PRES_OFF_FLAGS1 = 18, PLK_PRES_OFF_FLAGS2 = 19,
    PLK_PRES_OFF_PDOV = 20, PLK_PRES_OFF_SIZE = 22, PLK_PRES_OFF_PAYLOAD = 24,
    /* SoA */
    PLK_SOA_OFF_NMTSTATE = 17, PLK_SOA_OFF_FLAGS1 = 18, PLK_SOA_OFF_FLAGS2 = 19,
    PLK_SOA_OFF_SVID = 20, PLK_SOA_OFF_TARGET = 21, PLK_SOA_OFF_EPLVER = 22,
    PLK_SOA_OFF_FLAGS3 = 23, PLK_SOA_OFF_SYNC = 24,
    PLK_SOA_LEN = 54,
    /* ASnd */
    PLK_ASND_OFF_SVID = 17, PLK_ASND_OFF_PAYLOAD = 18,
};
#define PLK_EPL_VERSION 0x20     /* SoA EPLVersion 2.0 */

/* EPSG DS 302-C: SyncRequest (SoA svid 6) body at PLK_SOA_OFF_SYNC, SyncControl bits */
enum {
    PLK_SYNC_PRES_TIME_FIRST_VALID   = 0x01,
    PLK_SYNC_PRES_TIME_SECOND_VALID  = 0x02,
    PLK_SYNC_MN_DELAY_FIRST_VALID    = 0x04,
    PLK_SYNC_MN_DELAY_SECOND_VALID   = 0x08,
    PLK_SYNC_PRES_FALLBACK_VALID     = 0x10,
    PLK_SYNC_DEST_MAC_VALID          = 0x20,
    PLK_SYNC_PRES_MODE_RESET         = 0x40000000,
};
#define PLK_SYNC_PRES_MODE_SET 0x80000000u

/* EPSG DS 301 frame formats: SoA RequestedServiceID */
enum plk_soa_svid {
    PLK_SOA_NO_SERVICE      = 0x00,
    PLK_SOA_IDENT_REQUEST   = 0x01,
    PLK_SOA_STATUS_REQUEST  = 0x02,
    PLK_SOA_NMT_REQ_INVITE  = 0x03,
    PLK_SOA_SYNC_REQUEST    = 0x06,
    PLK_SOA_UNSPEC_INVITE   = 0xFF,
};

/* EPSG DS 301 ASnd formats: ASnd ServiceID */
enum plk_asnd_svid {
    PLK_ASND_IDENT_RESPONSE  = 0x01,
    PLK_ASND_STATUS_RESPONSE = 0x02,
    PLK_ASND_NMT_REQUEST     = 0x03,
    PLK_ASND_NMT_COMMAND     = 0x04,
    PLK_ASND_SDO             = 0x05,
    PLK_ASND_SYNC_RESPONSE   = 0x06,
};
#define PLK_ASND_MANUF_MIN 0xA0
#define PLK_ASND_MANUF_MAX 0xFE

/* EPSG DS 301 ASnd formats: IdentResponse offsets (oplk tIdentResponse) */
enum {
    PLK_IRES_OFF_FLAGS1 = 18, PLK_IRES_OFF_FLAGS2 = 19, PLK_IRES_OFF_NMTSTATE = 20,
    PLK_IRES_OFF_IDENT_FLAGS = 21, PLK_IRES_OFF_PROFILE_VER = 22,
    PLK_IRES_OFF_FEATURES = 24, PLK_IRES_OFF_MTU = 28,
    PLK_IRES_OFF_POLLIN = 30, PLK_IRES_OFF_POLLOUT = 32, PLK_IRES_OFF_RESPTIME = 34,
    PLK_IRES_OFF_DEVTYPE = 40, PLK_IRES_OFF_VENDOR = 44, PLK_IRES_OFF_PRODUCT = 48,
    PLK_IRES_OFF_REVISION = 52, PLK_IRES_OFF_SERIAL = 56, PLK_IRES_OFF_VSEXT1 = 60,
    PLK_IRES_OFF_CONF_DATE = 68, PLK_IRES_OFF_CONF_TIME = 72,
    PLK_IRES_OFF_APP_DATE = 76, PLK_IRES_OFF_APP_TIME = 80,
    PLK_IRES_OFF_IP = 84, PLK_IRES_OFF_SUBNET = 88, PLK_IRES_OFF_GATEWAY = 92,
    PLK_IRES_OFF_HOSTNAME = 96, PLK_IRES_OFF_VSEXT2 = 128,
    PLK_IRES_LEN = 176,
    PLK_IRES_HOSTNAME_LEN = 32, PLK_IRES_VSEXT2_LEN = 48,
};

/* EPSG DS 301 ASnd formats: StatusResponse offsets (oplk tStatusResponse) */
enum {
    PLK_SRES_OFF_FLAGS1 = 18, PLK_SRES_OFF_FLAGS2 = 19, PLK_SRES_OFF_NMTSTATE = 20,
    PLK_SRES_OFF_STATIC_ERR = 24, PLK_SRES_OFF_HISTORY = 32,
    PLK_SRES_ENTRY_LEN = 20, PLK_SRES_MAX_ENTRIES = 13,
    /* oplk C_DLL_MINSIZE_STATUSRES (oplkdefs.h): an openPOWERLINK MN takes a shorter
     * StatusResponse for none at all (statusu.c) and resets the CN with
     * E_NMT_NO_STATUS_RES, so the error list area always holds two entries */
    PLK_SRES_MIN_LEN = 72,
};

/* EPSG DS 301 ASnd formats: NMTCommand / NMTRequest / SyncResponse offsets */
enum {
    PLK_NMTCMD_OFF_ID = 18, PLK_NMTCMD_OFF_DATA = 20, PLK_NMTCMD_DATA_MAX = 32,
    PLK_NMTCMD_LEN = 20,
    PLK_NMTREQ_OFF_ID = 18, PLK_NMTREQ_OFF_TARGET = 19, PLK_NMTREQ_OFF_DATA = 20,
    PLK_SYNCRES_OFF_STATUS = 20, PLK_SYNCRES_OFF_LATENCY = 24,
    PLK_SYNCRES_OFF_NODE_NUMBER = 28, PLK_SYNCRES_OFF_DELAY = 32,
    PLK_SYNCRES_OFF_PRES_FIRST = 36, PLK_SYNCRES_OFF_PRES_SECOND = 40,
    PLK_SYNCRES_LEN = 44,
};

/* EPSG DS 301 7.1: NMT states (low byte, as on the wire) */
enum plk_nmt_state {
    PLK_NMT_GS_OFF                 = 0x00,
    PLK_NMT_GS_INITIALISING        = 0x19,
    PLK_NMT_GS_RESET_APPLICATION   = 0x29,
    PLK_NMT_GS_RESET_COMMUNICATION = 0x39,
    PLK_NMT_GS_RESET_CONFIGURATION = 0x79,
    PLK_NMT_NOT_ACTIVE             = 0x1C,
    PLK_NMT_PRE_OPERATIONAL_1      = 0x1D,
    PLK_NMT_PRE_OPERATIONAL_2      = 0x5D,
    PLK_NMT_READY_TO_OPERATE       = 0x6D,
    PLK_NMT_OPERATIONAL            = 0xFD,
    PLK_NMT_CS_STOPPED             = 0x4D,
    PLK_NMT_BASIC_ETHERNET         = 0x1E,
};

/* EPSG DS 301 7.3: NMT command IDs */
enum plk_nmt_cmd {
    PLK_NMT_CMD_START_NODE            = 0x21,
    PLK_NMT_CMD_STOP_NODE             = 0x22,
    PLK_NMT_CMD_ENTER_PREOP2          = 0x23,
    PLK_NMT_CMD_ENABLE_READY_TO_OP    = 0x24,
    PLK_NMT_CMD_RESET_NODE            = 0x28,
    PLK_NMT_CMD_RESET_COMMUNICATION   = 0x29,
    PLK_NMT_CMD_RESET_CONFIGURATION   = 0x2A,
    PLK_NMT_CMD_SW_RESET              = 0x2B,
    PLK_NMT_CMD_GO_TO_STANDBY         = 0x2C,
    PLK_NMT_CMD_START_NODE_EX         = 0x41,  /* Ex: node bit-field in the data */
    PLK_NMT_CMD_STOP_NODE_EX          = 0x42,
    PLK_NMT_CMD_ENTER_PREOP2_EX       = 0x43,
    PLK_NMT_CMD_ENABLE_READY_TO_OP_EX = 0x44,
    PLK_NMT_CMD_RESET_NODE_EX         = 0x48,
    PLK_NMT_CMD_RESET_COMMUNICATION_EX= 0x49,
    PLK_NMT_CMD_RESET_CONFIGURATION_EX= 0x4A,
    PLK_NMT_CMD_SW_RESET_EX           = 0x4B,
    PLK_NMT_CMD_NET_HOSTNAME_SET      = 0x62,
    PLK_NMT_CMD_FLUSH_ARP_ENTRY       = 0x63,
    PLK_NMT_CMD_PUBLISH_CONFIGURED    = 0x80,
    PLK_NMT_CMD_PUBLISH_ACTIVE        = 0x90,
    PLK_NMT_CMD_PUBLISH_PREOP1        = 0x91,
    PLK_NMT_CMD_PUBLISH_PREOP2        = 0x92,
    PLK_NMT_CMD_PUBLISH_READY_TO_OP   = 0x93,
    PLK_NMT_CMD_PUBLISH_OPERATIONAL   = 0x94,
    PLK_NMT_CMD_PUBLISH_STOPPED       = 0x95,
    PLK_NMT_CMD_PUBLISH_NODE_STATES   = 0x96,
    PLK_NMT_CMD_EMERGENCY_NEW         = 0xA0,
    PLK_NMT_CMD_PUBLISH_TIME          = 0xB0,
    PLK_NMT_CMD_INVALID_SERVICE       = 0xFF,
};

/* EPSG DS 301 object dictionary: NMT_FeatureFlags_U32 (0x1F82) */
enum {
    PLK_FEAT_ISOCHR        = 0x00000001,
    PLK_FEAT_SDO_UDP       = 0x00000002,
    PLK_FEAT_SDO_ASND      = 0x00000004,
    PLK_FEAT_SDO_PDO       = 0x00000008,
    PLK_FEAT_NMT_INFO      = 0x00000010,
    PLK_FEAT_EXT_NMT       = 0x00000020,
    PLK_FEAT_DYN_PDO       = 0x00000040,
    PLK_FEAT_NMT_UDP       = 0x00000080,
    PLK_FEAT_CFM           = 0x00000100,
    PLK_FEAT_MUX_CN        = 0x00000200,
    PLK_FEAT_NODEID_SW     = 0x00000400,
    PLK_FEAT_BASIC_ETH_MN  = 0x00000800,
    PLK_FEAT_SDO_RW_ALL    = 0x00004000,
    PLK_FEAT_SDO_RW_MULT   = 0x00008000,
    PLK_FEAT_MULTI_ASND    = 0x00010000,
    PLK_FEAT_RING_REDUND   = 0x00020000,
    PLK_FEAT_PRC           = 0x00040000,
    PLK_FEAT_DNA           = 0x00100000,
};
/* What openPOWERLINK's demo CN announces */
#define PLK_FEAT_OPLK_DEMO_CN 0x00010265u

/* EPSG DS 301 object dictionary: NMT_NodeAssignment_AU32 (0x1F81) bits */
enum {
    PLK_NA_EXISTS       = 0x00000001,
    PLK_NA_IS_CN        = 0x00000002,
    PLK_NA_START_CN     = 0x00000004,
    PLK_NA_MANDATORY    = 0x00000008,
    PLK_NA_KEEPALIVE    = 0x00000010,
    PLK_NA_SW_VERSION   = 0x00000020,
    PLK_NA_SW_UPDATE    = 0x00000040,
    PLK_NA_ASYNC_ONLY   = 0x00000100,
    PLK_NA_MULTIPLEXED  = 0x00000200,
    PLK_NA_PRES_MN      = 0x00001000,
    PLK_NA_PRES_CHAINING= 0x00004000,
};
#define PLK_NA_VALID 0x80000000u

/* EPSG DS 301 object dictionary: NMT_StartUp_U32 (0x1F80) bits */
enum {
    PLK_SU_START_ALL        = 0x00000002,
    PLK_SU_NO_AUTOSTART     = 0x00000004,
    PLK_SU_NO_START_NODE    = 0x00000008,
    PLK_SU_RESET_MANDATORY  = 0x00000010,
    PLK_SU_STOP_MANDATORY   = 0x00000040,
    PLK_SU_NO_AUTO_PREOP2   = 0x00000080,
    PLK_SU_NO_AUTO_READYTOP = 0x00000100,
    PLK_SU_EXT_IDENT_CHECK  = 0x00000200,
    PLK_SU_SW_VERSION_CHECK = 0x00000400,
    PLK_SU_CONFIG_CHECK     = 0x00000800,
    PLK_SU_NO_RETURN_PREOP1 = 0x00001000,
    PLK_SU_BASIC_ETHERNET   = 0x00002000,
    PLK_SU_REDUNDANCY       = 0x00004000,
};
#define PLK_SU_MN_DEFAULT 0x00000800u

/* EPSG DS 301 error codes (as in oplk errordefs.h) in the status response history / events */
enum plk_errcode {
    PLK_E_DLL_CRC_TH            = 0x8164,
    PLK_E_PDO_SHORT_RX          = 0x8210,
    PLK_E_PDO_MAP_VERS          = 0x8211,
    PLK_E_DLL_CYCLE_EXCEED      = 0x8232,
    PLK_E_DLL_CYCLE_EXCEED_TH   = 0x8233,
    PLK_E_DLL_JITTER_TH         = 0x8235,
    PLK_E_DLL_LATE_PRES_TH      = 0x8236,
    PLK_E_DLL_INVALID_FORMAT    = 0x8241,
    PLK_E_DLL_LOSS_PREQ_TH      = 0x8242,
    PLK_E_DLL_LOSS_PRES_TH      = 0x8243,
    PLK_E_DLL_LOSS_SOA_TH       = 0x8244,
    PLK_E_DLL_LOSS_SOC_TH       = 0x8245,
    PLK_E_NMT_BPO1_IDENT_FAILED = 0x8421,
};

/* EPSG DS 301: object dictionary indices */
enum plk_od_index {
    PLK_OD_DEVICE_TYPE        = 0x1000,
    PLK_OD_ERROR_REGISTER     = 0x1001,
    PLK_OD_CYCLE_LEN          = 0x1006,  /* NMT_CycleLen_U32, µs */
    PLK_OD_STORE_PARAM        = 0x1010,
    PLK_OD_RESTORE_PARAM      = 0x1011,
    PLK_OD_IDENTITY           = 0x1018,  /* 1 vendor, 2 product, 3 revision, 4 serial */
    PLK_OD_VERIFY_CONF        = 0x1020,  /* 1 ConfDate, 2 ConfTime */
    PLK_OD_SDO_SEQ_TIMEOUT    = 0x1300,  /* ms */
    PLK_OD_RPDO_COMM          = 0x1400,  /* + n */
    PLK_OD_RPDO_MAP           = 0x1600,  /* + n */
    PLK_OD_TPDO_COMM          = 0x1800,
    PLK_OD_TPDO_MAP           = 0x1A00,
    PLK_OD_MN_CRC_ERROR       = 0x1C00,
    PLK_OD_MN_CYC_TIME_EXCEED = 0x1C02,
    PLK_OD_MN_CN_LOSS_PRES_CUM= 0x1C07,
    PLK_OD_MN_CN_LOSS_PRES_THRCNT = 0x1C08,
    PLK_OD_MN_CN_LOSS_PRES_TH = 0x1C09,
    PLK_OD_CN_LOSS_SOC        = 0x1C0B,
    PLK_OD_CN_LOSS_PREQ       = 0x1C0D,
    PLK_OD_CN_CRC_ERROR       = 0x1C0F,
    PLK_OD_LOSS_SOC_TOLERANCE = 0x1C14,  /* ns */
    PLK_OD_MN_LOSS_STATUS_THRCNT = 0x1C16,
    PLK_OD_MN_LOSS_STATUS_TH  = 0x1C17,
    PLK_OD_CONCISE_DCF_LIST   = 0x1F22,
    PLK_OD_EXP_CONF_DATE      = 0x1F26,
    PLK_OD_EXP_CONF_TIME      = 0x1F27,
    PLK_OD_NMT_STARTUP        = 0x1F80,
    PLK_OD_NODE_ASSIGNMENT    = 0x1F81,
    PLK_OD_FEATURE_FLAGS      = 0x1F82,
    PLK_OD_EPL_VERSION        = 0x1F83,
    PLK_OD_MN_DEVICE_TYPE_LIST= 0x1F84,
    PLK_OD_MN_VENDOR_ID_LIST  = 0x1F85,
    PLK_OD_MN_PRODUCT_CODE_LIST = 0x1F86,
    PLK_OD_MN_REVISION_LIST   = 0x1F87,
    PLK_OD_MN_SERIAL_LIST     = 0x1F88,
    PLK_OD_BOOT_TIME          = 0x1F89,  /* µs */
    PLK_OD_MN_CYCLE_TIMING    = 0x1F8A,  /* ns: 1 WaitSoCPReq, 2 AsyncSlotTimeout */
    PLK_OD_MN_PREQ_PAYLOAD_LIMIT = 0x1F8B,
    PLK_OD_MN_PRES_PAYLOAD_LIMIT = 0x1F8D,
    PLK_OD_MN_CN_PRES_TIMEOUT = 0x1F92,  /* ns, per node */
    PLK_OD_EPL_NODE_ID        = 0x1F93,
    PLK_OD_CYCLE_TIMING       = 0x1F98,
    PLK_OD_CN_BASIC_ETH_TIMEOUT = 0x1F99,  /* µs */
};

/* 0x1F98 NMT_CycleTiming_REC subindices (EPSG DS 301 object dictionary) */
enum {
    PLK_CT_ISOCHR_TX_MAX = 1, PLK_CT_ISOCHR_RX_MAX = 2, PLK_CT_PRES_MAX_LATENCY = 3,
    PLK_CT_PREQ_ACT_PAYLOAD = 4, PLK_CT_PRES_ACT_PAYLOAD = 5, PLK_CT_ASND_MAX_LATENCY = 6,
    PLK_CT_MULT_CYCLE_CNT = 7, PLK_CT_ASYNC_MTU = 8, PLK_CT_PRESCALER = 9,
    PLK_CT_PRES_MODE = 0x0A, PLK_CT_PRES_TIME_FIRST = 0x0B, PLK_CT_PRES_TIME_SECOND = 0x0C,
    PLK_CT_SYNC_MN_DELAY_FIRST = 0x0D, PLK_CT_SYNC_MN_DELAY_SECOND = 0x0E,
};

/* 0x1F89 NMT_BootTime_REC subindices (µs) */
enum {
    PLK_BT_MN_WAIT_NOT_ACT = 1, PLK_BT_MN_TIMEOUT_PREOP1 = 2, PLK_BT_MN_WAIT_PREOP1 = 3,
    PLK_BT_MN_TIMEOUT_PREOP2 = 4, PLK_BT_MN_TIMEOUT_READY_TO_OP = 5,
};

/* Error counter record subindices (0x1C0B/0D/0F/02/00; EPSG DS 301 DLL error handling) */
enum { PLK_EC_CUMULATIVE = 1, PLK_EC_THRESHOLD_CNT = 2, PLK_EC_THRESHOLD = 3 };

/* openPOWERLINK defaults (its MN and demo CN object dictionaries) */
#define PLK_DEF_PRES_TIMEOUT_NS      25000u
#define PLK_DEF_ASYNC_SLOT_TIMEOUT_NS 100000u
#define PLK_DEF_LOSS_SOC_TOLERANCE_NS 100000u
#define PLK_DEF_SDO_SEQ_TIMEOUT_MS   15000u
#define PLK_DEF_ERR_THRESHOLD        15u
#define PLK_DEF_BASIC_ETH_TIMEOUT_US 5000000u
#define PLK_CYCLE_LEN_MIN_US         400u       /* 0x1006 lower bound in oplk ODs */
#define PLK_OPLK_DEMO_DEVICE_TYPE    0x000F0191u

/* The NMT states by the library's names are the public ones (enum takt_plk_nmt in
 * <takt/plk.h>): one set of values, which programs outside the library use. */
_Static_assert((int)PLK_NMT_GS_OFF == TAKT_PLK_OFF &&
               (int)PLK_NMT_GS_INITIALISING == TAKT_PLK_INITIALISING &&
               (int)PLK_NMT_GS_RESET_APPLICATION == TAKT_PLK_RESET_APP &&
               (int)PLK_NMT_GS_RESET_COMMUNICATION == TAKT_PLK_RESET_COMM &&
               (int)PLK_NMT_GS_RESET_CONFIGURATION == TAKT_PLK_RESET_CONF &&
               (int)PLK_NMT_NOT_ACTIVE == TAKT_PLK_NOT_ACTIVE &&
               (int)PLK_NMT_PRE_OPERATIONAL_1 == TAKT_PLK_PRE_OP1 &&
               (int)PLK_NMT_PRE_OPERATIONAL_2 == TAKT_PLK_PRE_OP2 &&
               (int)PLK_NMT_READY_TO_OPERATE == TAKT_PLK_READY_TO_OP &&
               (int)PLK_NMT_OPERATIONAL == TAKT_PLK_OPERATIONAL &&
               (int)PLK_NMT_CS_STOPPED == TAKT_PLK_STOPPED &&
               (int)PLK_NMT_BASIC_ETHERNET == TAKT_PLK_BASIC_ETHERNET,
               "NMT states as in <takt/plk.h>");

#endif
