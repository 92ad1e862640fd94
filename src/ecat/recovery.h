/* What the EtherCAT core's recovery (recovery.c) knows of the network as a whole: its
 * own state, owned by the core (struct ecat_core.rec). Per-slave recovery state (re-scan
 * pending, back-off, old identity) stays with each slave. */
#ifndef TAKT_ECAT_RECOVERY_H
#define TAKT_ECAT_RECOVERY_H

#include <stdbool.h>
#include <stdint.h>

struct ecat_recovery {
    unsigned  present;         /* last BRD 0x0130 WKC: slaves that answered */
    uint8_t   brd_or;          /* ... and its data: the OR of the slaves' AL status */
    uint32_t  brd_fno;         /* ... and its frame */
    unsigned  count_seen;      /* ... its WKC (a new count must be seen twice) */
    uint8_t   low_state;       /* lowest AL state over all slaves, a lost one's 0 (the
                                  cyclic frames' choice; st.state is what is reported) */
    bool      need_locate;
    bool      probing;         /* which station answers at each position? (a tree) */
    unsigned  probe_n;         /* positions probed */
};

#endif
