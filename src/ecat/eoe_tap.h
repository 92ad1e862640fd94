/* The host end of an EoE port: a TAP device (Linux tun/tap, IFF_TAP | IFF_NO_PI) named
 * takt-eoeN by default, and a thread of its own that moves frames between the TAP and
 * the port's rings (takt_ecat_eoe_send/recv). The TAP I/O never happens in the cycle thread:
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

/* The API (takt_ecat_eoe_tap_open, _name, _start, _close) is public: <takt/ecat.h>. */

#endif
