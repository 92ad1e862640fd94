/* The EtherCAT core's network scan (scan.c, and the scan steps of each slave's machine
 * in esm.c): its own state, owned by the core (struct ecat_core.scan), and what the
 * scan learned of each slave (struct ecat_slave.scan). */
#ifndef TAKT_ECAT_SCAN_H
#define TAKT_ECAT_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <takt/takt.h>

/* What the scan read of one slave: its SII image (ETG.2010) and what of it the
 * configuration needs beyond struct takt_ecat_slave_info. */
struct ecat_slave_scan {
    uint8_t  *sii;             /* sii_cap bytes (ECAT_SII_FIRST at open) */
    size_t    sii_len, sii_cap;
    bool      sii_8byte;       /* the ESC reads 8 bytes per SII access */
    uint8_t   coe_details, sii_flags;
    bool      done;            /* SII read and parsed */
};

/* The network machine's states (scan.c): MF_RESET sends the reset to INIT and the count
 * (BRD 0x0000, whose WKC is the number of slaves), MF_SLAVES waits for every slave's
 * scan machine (address, ESC registers, SII; esm.c) and then derives the topology. */
enum ecat_mfsm_state { MF_IDLE, MF_RESET, MF_COUNT, MF_ADDR, MF_SLAVES, MF_COUNT_STATES };

/* The network scan: reset to INIT, count (BRD WKC), then one scan machine per slave. */
struct ecat_scan {
    uint8_t   state;           /* enum ecat_mfsm_state */
    struct ecat_sfsm f;        /* requests of the network machine */
    uint8_t   big[2][64];      /* FMMU/SM reset data */
    bool      done;            /* every slave scanned (or failed), topology derived */
};

/* scan.c: the scan's entry points. The core is the scan's owner: the scan queues its
 * requests there, raises its events there and fills its slave table. */
struct ecat_core;
struct ecat_slave;
struct ecat_pdo_map;
/* Start a scan at now (forgets the layout: the cycles send only the monitoring until a
 * new one); the count lost more than 3 times in a row ends it with an error. */
void ecat_scan_start(struct ecat_core *m, takt_ns_t now);
/* One step of the network machine, once its requests are back. */
void ecat_mfsm_step(struct ecat_core *m, takt_ns_t now);
/* Start one slave's scan machine (station address, ESC registers, SII; esm.c). */
void ecat_slave_scan_start(struct ecat_core *m, struct ecat_slave *s, takt_ns_t now);
/* Decode the SII read into s->scan.sii; what configuration needs goes into s. */
int  ecat_sii_parse(struct ecat_core *m, struct ecat_slave *s);
/* Make room for at least len bytes of SII (at most ECAT_SII_MAX_IMAGE): 0 or -ENOMEM. */
int  ecat_sii_grow(struct ecat_slave *s, size_t len);
void ecat_map_bits(const struct ecat_pdo_map *map, uint32_t *out, uint32_t *in);

#endif
