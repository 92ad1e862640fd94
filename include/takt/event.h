/* takt events: one structured record for both stacks. The cycle (the RT thread) raises
 * an event as a code with integer values and, only for what exists only as text (a file
 * name, a slave's name from its SII, a parser's message), a copied text argument; it
 * never formats. The reader makes the text with takt_event_format (a table of formats
 * per code), so an application, the CLI and a control socket all get the same record:
 * time, protocol, code, the slave or node it concerns, values and text.
 *
 *   struct takt_event ev;
 *   char line[512];
 *   while (takt_ecat_master_next_ev(m, &ev)) {        // or takt_plk_mn_next_event ...
 *       takt_event_format(&ev, line, sizeof line);
 *       printf("%.3f s: %s\n", (ev.at - t0) / 1e9, line);
 *   }
 *
 * When the reader falls behind and the ring is full, the events that did not fit are
 * counted; the next read returns one TAKT_EV_DROPPED record (v[0] = how many) at the
 * place they were lost, so no loss goes unreported. */
#ifndef TAKT_EVENT_H
#define TAKT_EVENT_H

#include <takt/takt.h>

#ifdef __cplusplus
extern "C" {
#endif
TAKT_API_BEGIN

enum takt_event_proto {
    TAKT_EV_RING = 0,   /* the ring itself (TAKT_EV_DROPPED) */
    TAKT_EV_ECAT = 1,   /* an EtherCAT master: enum takt_ecat_ev, unit = slave position */
    TAKT_EV_PLK = 2,    /* a POWERLINK MN or CN: enum takt_plk_ev, unit = node ID */
};

/* proto TAKT_EV_RING */
enum takt_ring_ev {
    TAKT_EV_DROPPED = 0,   /* v[0] events lost to a full ring, v[1] its capacity */
    TAKT_RING_EV_COUNT
};

#define TAKT_EVENT_NV  10    /* values per event */
#define TAKT_EVENT_ARG 320   /* bytes of text arguments */

struct takt_event {
    takt_ns_t at;            /* CLOCK_MONOTONIC ns: the time of the cycle that raised it */
    uint16_t  proto;         /* enum takt_event_proto */
    uint16_t  code;          /* enum takt_ecat_ev, takt_plk_ev or takt_ring_ev */
    int32_t   unit;          /* slave position or node ID it concerns; -1 none */
    int32_t   err;           /* 0, or the error it reports (negative errno or takt code) */
    uint8_t   nv;            /* values used in v[] */
    uint8_t   ntext;         /* text arguments in arg, each NUL-terminated, in order */
    int64_t   v[TAKT_EVENT_NV];
    char      arg[TAKT_EVENT_ARG];   /* truncated to fit; as the wire gave it (the
                                      * formatter escapes control bytes) */
};

/* EtherCAT events. An error (takt_ecat_master_error) is an event too, with err set. */
enum takt_ecat_ev {
    TAKT_ECAT_EV_ERROR_TEXT = 0,     /* an error whose text a service made: arg */
    TAKT_ECAT_EV_LINK_ERROR,
    TAKT_ECAT_EV_LINK_NO_CARRIER,
    TAKT_ECAT_EV_LINK_DOWN,
    TAKT_ECAT_EV_LINK_FAILED,
    TAKT_ECAT_EV_SCAN_TIMEOUT,
    TAKT_ECAT_EV_CONFIGURE_UNSCANNED,
    TAKT_ECAT_EV_NO_FRAME,           /* no cyclic frame returned for v[0] cycles */
    TAKT_ECAT_EV_FRAMES_AGAIN,
    TAKT_ECAT_EV_COUNT_TIMEOUT,
    TAKT_ECAT_EV_TOO_MANY_SLAVES,
    TAKT_ECAT_EV_SII_INVALID,
    TAKT_ECAT_EV_SII_WARNING,
    TAKT_ECAT_EV_SII_MORE_WARNINGS,
    TAKT_ECAT_EV_SII_PDOS_TOO_MANY,
    TAKT_ECAT_EV_SII_BUSY,
    TAKT_ECAT_EV_SII_WAIT_TIMEOUT,     /* the EEPROM interface stayed with another user */
    TAKT_ECAT_EV_CALL_TIMEOUT,         /* a blocking call's whole time ran out */
    TAKT_ECAT_EV_SII_READ_FAILED,
    TAKT_ECAT_EV_SII_NO_MEMORY,
    TAKT_ECAT_EV_SII_WRITE_REFUSED,
    TAKT_ECAT_EV_SII_WRITE_FAILED,
    TAKT_ECAT_EV_SII_FILE,
    TAKT_ECAT_EV_SII_WRITE_FILE,
    TAKT_ECAT_EV_ESM_WKC,
    TAKT_ECAT_EV_ESM_REFUSED,
    TAKT_ECAT_EV_ESM_TIMEOUT,
    TAKT_ECAT_EV_SVC_WKC,
    TAKT_ECAT_EV_IMAGE_INVALID,
    TAKT_ECAT_EV_IMAGE_TOO_BIG,
    TAKT_ECAT_EV_LWR_WKC,
    TAKT_ECAT_EV_LRW_WKC,
    TAKT_ECAT_EV_WKC_BACK,
    TAKT_ECAT_EV_SLAVE_LOST,
    TAKT_ECAT_EV_RESCAN_AGAIN,
    TAKT_ECAT_EV_SLAVE_ANSWERS,
    TAKT_ECAT_EV_POSITION_ANSWERS,
    TAKT_ECAT_EV_SLAVE_MOVED,
    TAKT_ECAT_EV_UNKNOWN_SLAVE,
    TAKT_ECAT_EV_RESCAN_FAILED,
    TAKT_ECAT_EV_OWN_DEVICE,
    TAKT_ECAT_EV_SLAVE_CAME_BACK,
    TAKT_ECAT_EV_CAME_BACK_OTHER,
    TAKT_ECAT_EV_OTHER_DEVICE,
    TAKT_ECAT_EV_ADDRESS_LOST,
    TAKT_ECAT_EV_ANSWER_COUNT_ASK,
    TAKT_ECAT_EV_ANSWER_COUNT,
    TAKT_ECAT_EV_SLAVE_BACK,
    TAKT_ECAT_EV_DC_SETUP_WKC,
    TAKT_ECAT_EV_DC_ARMED,
    TAKT_ECAT_EV_DC_SYNC0,
    TAKT_ECAT_EV_DC_NONE,
    TAKT_ECAT_EV_DC_RETURN_WKC,
    TAKT_ECAT_EV_DC_AGAIN,
    TAKT_ECAT_EV_RED_REF_ALL,
    TAKT_ECAT_EV_RED_REF_BEHIND,
    TAKT_ECAT_EV_RED_REF_WRITTEN,
    TAKT_ECAT_EV_RED_BROKEN_FIRST,
    TAKT_ECAT_EV_RED_BROKEN_SECOND,
    TAKT_ECAT_EV_RED_BROKEN_BETWEEN,
    TAKT_ECAT_EV_RED_BROKEN_MORE,
    TAKT_ECAT_EV_RED_CLOSED,
    TAKT_ECAT_EV_RED_MENDED,             /* one of two breaks mended */
    TAKT_ECAT_EV_EMERGENCY,
    TAKT_ECAT_EV_EMERGENCY_DATA,
    TAKT_ECAT_EV_NO_COE,
    TAKT_ECAT_EV_MBX_STATE,
    TAKT_ECAT_EV_SLAVE_TEXT,         /* "slave N: " and a service's message */
    TAKT_ECAT_EV_PDO_COE_UNREADABLE,
    TAKT_ECAT_EV_SOE_LIST_MALFORMED,
    TAKT_ECAT_EV_SOE_NOT_FIXED,
    TAKT_ECAT_EV_SOE_TELEGRAM,
    TAKT_ECAT_EV_SOE_UNREADABLE,
    TAKT_ECAT_EV_NO_SLAVE,           /* "SoE: no slave at position ..."; v[1] the service */
    TAKT_ECAT_EV_NO_SOE,
    TAKT_ECAT_EV_SOE_STATE,
    TAKT_ECAT_EV_SOE_MBX_SIZE,
    TAKT_ECAT_EV_FOE_NO_BOOT_MBX,
    TAKT_ECAT_EV_FOE_STATE,
    TAKT_ECAT_EV_FOE_MBX_SIZE,
    TAKT_ECAT_EV_NO_FOE,
    TAKT_ECAT_EV_EOE_AGAIN,
    TAKT_ECAT_EV_EOE_AGAIN_FAILED,
    TAKT_ECAT_EV_EOE_ANSWER,
    TAKT_ECAT_EV_EOE_TIMEOUT_GIVEN_UP,
    TAKT_ECAT_EV_EOE_BEFORE_START,
    TAKT_ECAT_EV_NO_EOE,
    TAKT_ECAT_EV_EOE_MBX_SIZE,
    TAKT_ECAT_EV_EOE_TIMEOUT,
    TAKT_ECAT_EV_ENI_COE_INIT,
    TAKT_ECAT_EV_ENI_STATION,
    TAKT_ECAT_EV_ENI_DC,
    TAKT_ECAT_EV_ENI_SYNC0,
    TAKT_ECAT_EV_ENI_INVALID,
    TAKT_ECAT_EV_ENI_MISMATCH,
    TAKT_ECAT_EV_ENI_MISMATCHES,
    TAKT_ECAT_EV_ENI_MISMATCH_MORE,
    TAKT_ECAT_EV_ENI_TEXT,           /* "ENI file: " and a mismatch named by the reader */
    TAKT_ECAT_EV_ENI_PDO_FIT,
    TAKT_ECAT_EV_ENI_STARTUP,
    TAKT_ECAT_EV_ENI_CMD_WKC,
    TAKT_ECAT_EV_ENI_VALIDATE,
    TAKT_ECAT_EV_ENI_COE,
    TAKT_ECAT_EV_ENI_CYC_RANGE,
    TAKT_ECAT_EV_ENI_CYC_FRAME,
    TAKT_ECAT_EV_ENI_CYC_SLAVE,
    TAKT_ECAT_EV_ENI_OWN_IMAGE,
    TAKT_ECAT_EV_ENI_CYC_WKC,
    TAKT_ECAT_EV_ENI_CYC_WKC_BACK,
    TAKT_ECAT_EV_ENI_SOE,
    TAKT_ECAT_EV_ENI_EOE,
    TAKT_ECAT_EV_STATE_REQUEST,            /* a state request posted from another thread failed */
    TAKT_ECAT_EV_STATE_REQUEST_UNSCANNED,  /* ... because no network was scanned yet */
    TAKT_ECAT_EV_RESCAN_DONE,              /* a rescan asked for found ... */
    TAKT_ECAT_EV_RESCAN_CHANGED,           /* ... a slave with another identity */
    TAKT_ECAT_EV_RED_FRMW_PARTIAL,         /* an FRMW's value cannot cross a break */
    TAKT_ECAT_EV_RED_DC_FAR,               /* 0x0928 of the far side's path written */
    TAKT_ECAT_EV_RED_DC_CLOSED,            /* ... the closed ring's written back */
    TAKT_ECAT_EV_RED_DC_WRITE,             /* a write of 0x0928 failed: written again */
    TAKT_ECAT_EV_COUNT
};

/* POWERLINK events of an MN (about its CNs) and of a CN (about itself); unit = node. */
enum takt_plk_ev {
    TAKT_PLK_EV_STATE = 0,   /* the CN reports NMT state v[0] (takt_plk_nmt_name) */
    TAKT_PLK_EV_STEP,        /* the MN's boot step for it is now v[0] (v[1] NMT state) */
    TAKT_PLK_EV_RESET,       /* the MN removed it from the cycle and reset it; arg: why */
    TAKT_PLK_EV_MISSING,     /* no IdentResponse to v[0] IdentRequests in v[1] s */
    TAKT_PLK_EV_CN_STATE,    /* a CN: its NMT state went from v[1] to v[0] */
    TAKT_PLK_EV_CN_RESET,    /* a CN: NMT command v[0] reset it, now in state v[1] */
    TAKT_PLK_EV_COUNT
};

/* The text of an event ("slave 3 (station 0x1003, EL2004) lost: no longer answers"),
 * without its time; control bytes of text arguments are written as C escapes so an
 * event is always one line. Returns snprintf's result. */
/* [thread: any; non-blocking] */
int takt_event_format(const struct takt_event *ev, char *buf, size_t len);
/* The code's name ("SLAVE_LOST", "STATE"), or NULL for an unknown code. */
/* [thread: any; non-blocking] */
const char *takt_event_code_name(unsigned proto, unsigned code);
/* The i-th text argument of ev ("" when there are fewer). */
/* [thread: any; non-blocking] */
const char *takt_event_text(const struct takt_event *ev, unsigned i);

TAKT_API_END
#ifdef __cplusplus
}
#endif
#endif
