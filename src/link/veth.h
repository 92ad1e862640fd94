/* Creating a veth pair and setting links up over rtnetlink (no `ip` binary needed). */
#ifndef TAKT_LINK_VETH_H
#define TAKT_LINK_VETH_H

#include <stddef.h>

/* In the calling process's network namespace, create veth `a` whose peer `b` is
 * created directly in the network namespace given by peer_netns_fd. */
int veth_create(const char *a, const char *b, int peer_netns_fd, char *why, size_t whylen);
/* Set interface `name` (in the current network namespace) up. */
int link_set_up(const char *name, char *why, size_t whylen);
/* Set the MTU of `name` (tests use it to provoke the MTU error). */
int link_set_mtu(const char *name, unsigned mtu, char *why, size_t whylen);

#endif
