/* The host end of an EoE port: a TAP device (Linux tun/tap, IFF_TAP | IFF_NO_PI) named
 * takt-eoeN by default, and a thread of its own that moves frames between the TAP and
 * the port's rings (ecat_eoe_send/recv). The TAP I/O never happens in the cycle thread:
 * this thread is the rings' only producer towards the slave and only consumer from it,
 * as the thread contract in <takt/ecat.h> requires. It sleeps in poll() on the TAP at
 * most 1 ms at a time, the bound on the latency from the cycle to the host. Making a
 * TAP needs CAP_NET_ADMIN. */
#ifndef TAKT_ECAT_EOE_TAP_H
#define TAKT_ECAT_EOE_TAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <takt/ecat.h>

struct ecat_eoe_tap;

/* Create the TAP (name NULL: "takt-eoe<pos>"), bring it up with MTU 1500, and give it
 * ip/prefix when ip is not NULL. err says what failed ("needs CAP_NET_ADMIN"). The
 * port must be open (ecat_eoe_open). */
int ecat_eoe_tap_open(struct ecat_eoe_tap **out, struct ecat_master *m, unsigned pos,
                      const char *name, const uint8_t *ip, unsigned prefix, char *err,
                      size_t errlen);
/* The TAP's interface name. */
const char *ecat_eoe_tap_name(const struct ecat_eoe_tap *t);
/* Start / stop the thread; close removes the TAP. */
int ecat_eoe_tap_start(struct ecat_eoe_tap *t);
void ecat_eoe_tap_close(struct ecat_eoe_tap *t);

#endif
