/* What the EtherCAT core's recovery (recovery.c) knows of the network as a whole: its
 * own state, owned by the core (struct ecat_core.rec). Per-slave recovery state (re-scan
 * pending, back-off, old identity) is struct ecat_slave_rec, in each slave. */
#ifndef TAKT_ECAT_RECOVERY_H
#define TAKT_ECAT_RECOVERY_H

#include <stdbool.h>
#include <stdint.h>
#include <takt/takt.h>

struct ecat_recovery {
    unsigned  present;         /* last BRD 0x0130 WKC: slaves that answered */
    uint8_t   brd_or;          /* ... and its data: the OR of the slaves' AL status */
    uint32_t  brd_fno;         /* ... and its frame */
    unsigned  count_seen;      /* ... its WKC (a new count must be seen twice) */
    uint8_t   low_state;       /* lowest AL state over all slaves, a lost one's 0 (the
                                  cyclic frames' choice; st.state is what is reported) */
    bool      need_locate;
    /* Some slave may need the per-slave look of the cycle's check: a re-scan pending or
     * due again, one on its way back to the target, or a slave machine failed (set where
     * each of those starts; cleared only by a look that found none). */
    bool      watch;
    bool      probing;         /* which station answers at each position? (a tree) */
    unsigned  probe_n;         /* positions probed */
};

/* One slave's recovery state (recovery.c): re-scan pending, back-off, the identity it
 * had before a re-scan, and the probe of a tree. */
struct ecat_slave_rec {
    bool      rejoin, returning;   /* re-scan pending / back on the way to target */
    bool      counted_lost;    /* in slaves_lost and not yet in slaves_returned */
    takt_ns_t retry_at;        /* re-scan again at (0: none planned) */
    takt_ns_t backoff_ns;      /* ... after this wait, doubled per failure up to 1 s */
    uint32_t  old_vendor, old_product;
    uint32_t  old_serial;      /* identity before the re-scan (0 = none) */
    uint16_t  old_alias, old_station;
    unsigned  old_position;
    bool      wrong;           /* another device answers at its position ... */
    uint32_t  wrong_vendor, wrong_product, wrong_serial;   /* ... this one (reported once) */
    struct ecat_req probe;     /* in a tree: APRD 0x0010 at one position */
    bool      probe_seen;      /* ... and this slave's address answered at one */
    uint8_t   probe_buf[2];
};

#endif
