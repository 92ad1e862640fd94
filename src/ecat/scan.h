/* The EtherCAT core's network scan (scan.c, and the scan steps of each slave's machine
 * in esm.c): its own state, owned by the core (struct ecat_core.scan), and what the
 * scan learned of each slave (struct ecat_slave.scan). */
#ifndef TAKT_ECAT_SCAN_H
#define TAKT_ECAT_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the scan read of one slave: its SII image (ETG.2010) and what of it the
 * configuration needs beyond struct takt_ecat_slave_info. */
struct ecat_slave_scan {
    uint8_t  *sii;             /* sii_cap bytes (ECAT_SII_FIRST at open) */
    size_t    sii_len, sii_cap;
    bool      sii_8byte;       /* the ESC reads 8 bytes per SII access */
    uint8_t   coe_details, sii_flags;
    bool      done;            /* SII read and parsed */
};

/* The network scan: reset to INIT, count (BRD WKC), then one scan machine per slave. */
struct ecat_scan {
    uint8_t   state;           /* enum ecat_mfsm_state */
    struct ecat_sfsm f;        /* requests of the network machine */
    uint8_t   big[2][64];      /* FMMU/SM reset data */
    bool      done;            /* every slave scanned (or failed), topology derived */
};

#endif
