/* The EtherCAT core, sans-I/O as the POWERLINK MN's (plk/mn.h): created from a source
 * MAC and capacities, it is given the time and the frames that came, and gives back the
 * frames to send. It holds no link and reads no clock; the driver (driver.h, master.c)
 * owns the link, the clock and the thread. One cycle, as the driver runs it:
 *
 *   ecat_core_rx     each frame received since the last cycle (replies)
 *   ecat_core_cycle  judge the cycle's cyclic frames: WKC, loss, presence
 *   (application)    reads inputs, writes outputs in the process image
 *   ecat_core_tx     the cycle's cyclic frames
 *   ecat_core_timer  state machines, mailbox services, expiry of acyclic requests
 *   ecat_core_tx     the acyclic frames those queued
 *
 * Between cycles (a blocking tool waiting for replies) only rx, timer and tx. The
 * struct itself is in master_internal.h, shared with the files of its sub-objects. */
#ifndef TAKT_ECAT_CORE_H
#define TAKT_ECAT_CORE_H

#include "ecat/master_internal.h"

/* A core for up to o->max_slaves slaves sending from mac; ifname names the interface in
 * messages only. now: the time of creation (events raised before the first cycle carry
 * it). 0, or -EINVAL / -ENOMEM with a message in err. */
int  ecat_core_init(struct ecat_core *c, const uint8_t mac[6], const char *ifname,
                    const struct takt_ecat_master_opts *o, takt_ns_t now, char *err, size_t errlen);
void ecat_core_free(struct ecat_core *c);

/* Scan the network from now (forgets a loaded ENI: a new bus is configured anew). */
void ecat_core_scan(struct ecat_core *c, takt_ns_t now);
/* Drive every slave to AL state `state` (laying out the process image first for SAFEOP
 * and OP): 0, -EAGAIN before a scan, or the layout's error. */
int  ecat_core_request_state(struct ecat_core *c, uint8_t state, takt_ns_t now);
/* One slave (position pos) towards state; the network's target stays. */
int  ecat_core_request_slave_state(struct ecat_core *c, unsigned pos, uint8_t state, takt_ns_t now);
/* One received frame; rx_ts: its receive stamp (0: none), judged against rx_deadline. */
void ecat_core_rx(struct ecat_core *c, takt_ns_t now, uint8_t *buf, size_t len, takt_ns_t rx_ts);
/* Open a cycle at now: the replies of the last one are in; count what did not come. The
 * next ecat_core_tx gives this cycle's cyclic frames. */
void ecat_core_cycle(struct ecat_core *c, takt_ns_t now);
/* Close the last cycle at now without opening another: a driver that stops judges the
 * cycle it stopped in as it judges every other, once its replies are in. */
void ecat_core_close(struct ecat_core *c, takt_ns_t now);
/* After the close: when the acyclic requests still in flight time out (0: none), and
 * their expiry at that time (their frames counted lost), with no new work. */
takt_ns_t ecat_core_acyc_due(const struct ecat_core *c);
void ecat_core_expire(struct ecat_core *c, takt_ns_t now);
/* State machines, mailbox services, expiry of acyclic requests, the cycle's state. */
void ecat_core_timer(struct ecat_core *c, takt_ns_t now);
/* Frames to send now, at most max, into out (they point into the core's buffers and
 * stay valid until the next call): after ecat_core_cycle the cyclic frames (none before
 * a scan), stamped with now, the send time; otherwise the queued acyclic frames, stamped
 * with the time of the last timer. */
unsigned ecat_core_tx(struct ecat_core *c, takt_ns_t now, struct takt_frame *out, unsigned max);

#endif
