/* EtherCAT wire constants shared by the master and the simulator: commands, ESC
 * registers, AL states, SII layout, mailbox types. Values and sources:
 * the standard that defines it (ETG.1000.4, ETG.1000.6, ETG.2010). */
#ifndef TAKT_ECAT_PROTO_H
#define TAKT_ECAT_PROTO_H

#include <stdint.h>
#include <takt/ecat.h>

/* Ethernet + EtherCAT header (IEEE 802.3, ETG.1000.4 frame structure) */
#define ECAT_ETH_HDR        14
#define ECAT_FRAME_HDR      2      /* bits 0-10 length, bit 11 reserved, 12-15 type */
#define ECAT_FRAME_TYPE_DG  1      /* EtherCAT datagrams */
#define ECAT_DG_HDR         10
#define ECAT_DG_WKC         2
#define ECAT_MAX_DG_DATA    1486   /* max datagram data in one frame (SOEM EC_MAXLRWDATA) */
#define ECAT_LEN_MASK       0x07FF
#define ECAT_LEN_CIRC       0x4000 /* C: circulated */
#define ECAT_LEN_MORE       0x8000 /* M: more datagrams follow */

/* ETG.1000.4 commands */
enum ecat_cmd {
    ECAT_NOP = 0x00, ECAT_APRD, ECAT_APWR, ECAT_APRW, ECAT_FPRD, ECAT_FPWR, ECAT_FPRW,
    ECAT_BRD, ECAT_BWR, ECAT_BRW, ECAT_LRD, ECAT_LWR, ECAT_LRW, ECAT_ARMW, ECAT_FRMW,
    ECAT_CMD_COUNT
};

/* ESC registers (ETG.1000.4; ESC datasheet Section II) */
enum {
    ESC_TYPE = 0x0000, ESC_REVISION = 0x0001, ESC_BUILD = 0x0002,
    ESC_FMMU_COUNT = 0x0004, ESC_SM_COUNT = 0x0005, ESC_RAM_SIZE = 0x0006,
    ESC_PORT_DESC = 0x0007, ESC_FEATURES = 0x0008,
    ESC_STATION_ADDR = 0x0010, ESC_STATION_ALIAS = 0x0012,
    ESC_DL_CONTROL = 0x0100, ESC_DL_STATUS = 0x0110,
    ESC_AL_CONTROL = 0x0120, ESC_AL_STATUS = 0x0130, ESC_AL_STATUS_CODE = 0x0134,
    ESC_PDI_CONTROL = 0x0140, ESC_ESC_CONFIG = 0x0141,
    ESC_EVENT_MASK = 0x0200, ESC_EVENT_REQ = 0x0210,
    ESC_RX_ERR = 0x0300, ESC_LOST_LINK = 0x0310,
    ESC_WD_DIVIDER = 0x0400, ESC_WD_TIME_PDI = 0x0410, ESC_WD_TIME_PD = 0x0420,
    ESC_WD_STATUS_PD = 0x0440, ESC_WD_COUNTER_PD = 0x0442,
    ESC_SII_CONFIG = 0x0500, ESC_SII_PDI = 0x0501, ESC_SII_CTRL = 0x0502,
    ESC_SII_ADDR = 0x0504, ESC_SII_DATA = 0x0508,
    ESC_FMMU0 = 0x0600, ESC_FMMU_SIZE = 16,
    ESC_SM0 = 0x0800, ESC_SM_SIZE = 8,
    ESC_DC_RECV_TIME0 = 0x0900, ESC_DC_SYS_TIME = 0x0910, ESC_DC_RECV_TIME_PU = 0x0918,
    ESC_DC_SYS_OFFSET = 0x0920, ESC_DC_SYS_DELAY = 0x0928, ESC_DC_SYS_DIFF = 0x092C,
    ESC_DC_SPEED_START = 0x0930, ESC_DC_SPEED_DIFF = 0x0932,
    ESC_DC_DIFF_FILTER = 0x0934, ESC_DC_SPEED_FILTER = 0x0935,
    ESC_DC_CYC_UNIT = 0x0980, ESC_DC_ACTIVATION = 0x0981,
    ESC_DC_SYNC0_START = 0x0990, ESC_DC_SYNC1_NEXT = 0x0998,
    ESC_DC_SYNC0_CYCLE = 0x09A0, ESC_DC_SYNC1_CYCLE = 0x09A4,
    ESC_PROCESS_RAM = 0x1000,
};

/* 0x0502 SII control/status bits (ETG.1000.4 SII access) */
enum {
    SII_WRITE_EN = 0x0001, SII_EMULATION = 0x0020, SII_READ8 = 0x0040, SII_ADDR2B = 0x0080,
    SII_CMD_READ = 0x0100, SII_CMD_WRITE = 0x0200, SII_CMD_RELOAD = 0x0400,
    SII_CMD_MASK = 0x0700,
    SII_ERR_CSUM = 0x0800, SII_ERR_LOAD = 0x1000, SII_ERR_ACK = 0x2000, SII_ERR_WE = 0x4000,
    SII_BUSY = 0x8000,
};

/* SII word addresses and categories (ETG.2010) */
enum {
    SII_W_PDI_CTRL = 0x00, SII_W_ALIAS = 0x04, SII_W_CHECKSUM = 0x07,
    SII_W_VENDOR = 0x08, SII_W_PRODUCT = 0x0A, SII_W_REVISION = 0x0C, SII_W_SERIAL = 0x0E,
    SII_W_BOOT_RX_OFF = 0x14, SII_W_BOOT_RX_SIZE = 0x15, SII_W_BOOT_TX_OFF = 0x16, SII_W_BOOT_TX_SIZE = 0x17,
    SII_W_STD_RX_OFF = 0x18, SII_W_STD_RX_SIZE = 0x19, SII_W_STD_TX_OFF = 0x1A, SII_W_STD_TX_SIZE = 0x1B,
    SII_W_MBX_PROTO = 0x1C, SII_W_SIZE = 0x3E, SII_W_VERSION = 0x3F, SII_W_CATEGORIES = 0x40,
};
enum {
    SII_CAT_NOP = 0, SII_CAT_STRINGS = 10, SII_CAT_DATATYPES = 20, SII_CAT_GENERAL = 30,
    SII_CAT_FMMU = 40, SII_CAT_SM = 41, SII_CAT_FMMU_EX = 42, SII_CAT_SYNCUNIT = 43,
    SII_CAT_TXPDO = 50, SII_CAT_RXPDO = 51, SII_CAT_DC = 60, SII_CAT_END = 0xFFFF,
};
enum { MBX_PROTO_AOE = 0x01, MBX_PROTO_EOE = 0x02, MBX_PROTO_COE = 0x04, MBX_PROTO_FOE = 0x08,
       MBX_PROTO_SOE = 0x10, MBX_PROTO_VOE = 0x20 };

/* ETG.1000.6 6.4: AL states */
enum { AL_INIT = 0x01, AL_PREOP = 0x02, AL_BOOT = 0x03, AL_SAFEOP = 0x04, AL_OP = 0x08,
       AL_STATE_MASK = 0x0F, AL_ERROR = 0x10, AL_ACK = 0x10, AL_ID_REQ = 0x20 };

/* ETG.1000.4 mailbox */
#define MBX_HDR 6
enum { MBX_TYPE_ERR = 0, MBX_TYPE_AOE = 1, MBX_TYPE_EOE = 2, MBX_TYPE_COE = 3,
       MBX_TYPE_FOE = 4, MBX_TYPE_SOE = 5, MBX_TYPE_VOE = 15 };
enum { COE_EMERGENCY = 1, COE_SDO_REQ = 2, COE_SDO_RES = 3, COE_TXPDO = 4, COE_RXPDO = 5,
       COE_SDO_INFO = 8 };

/* CRC-8 (poly 0x07, init 0xFF) over SII bytes 0-13, stored in word 7 (ETG.2010). */
static inline uint8_t ecat_sii_crc(const uint8_t *b, unsigned n)
{
    uint8_t crc = 0xFF;
    for (unsigned i = 0; i < n; i++) {
        crc ^= b[i];
        for (int k = 0; k < 8; k++)
            crc = (uint8_t)(crc & 0x80 ? (crc << 1) ^ 0x07 : crc << 1);
    }
    return crc;
}

const char *ecat_cmd_name(unsigned cmd);
const char *takt_ecat_al_state_name(unsigned state);
const char *takt_ecat_al_status_text(unsigned code);      /* AL status code meaning (ETG.1000.6 Table 11) */
const char *takt_ecat_sdo_abort_text(uint32_t code);       /* SDO abort meaning (ETG.1000.6 5.6.2) */

/* The AL_ names are the library's short spelling of the public states (enum
 * takt_ecat_state, TAKT_ECAT_STATE_MASK/ERROR in <takt/ecat.h>): one set of values, which the
 * programs outside the library use by their public names. */
_Static_assert((int)AL_INIT == TAKT_ECAT_STATE_INIT && (int)AL_PREOP == TAKT_ECAT_STATE_PREOP &&
               (int)AL_BOOT == TAKT_ECAT_STATE_BOOT && (int)AL_SAFEOP == TAKT_ECAT_STATE_SAFEOP &&
               (int)AL_OP == TAKT_ECAT_STATE_OP && AL_STATE_MASK == TAKT_ECAT_STATE_MASK &&
               AL_ERROR == TAKT_ECAT_STATE_ERROR, "AL states as in <takt/ecat.h>");

#endif
