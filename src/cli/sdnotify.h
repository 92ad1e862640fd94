/* The systemd service notification protocol, spoken directly (no libsystemd): a datagram
 * of "VAR=value" lines to the AF_UNIX socket named by $NOTIFY_SOCKET (a path, or an
 * abstract name written with a leading '@'). READY=1 once the network is up, STATUS=
 * lines, WATCHDOG=1 every $WATCHDOG_USEC / 2 while the cycle is healthy. Without
 * $NOTIFY_SOCKET everything here does nothing. docs/service.md. */
#ifndef TAKT_CLI_SDNOTIFY_H
#define TAKT_CLI_SDNOTIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <takt/takt.h>

struct sdn {
    int fd;                   /* -1: no $NOTIFY_SOCKET */
    char path[108];
    unsigned path_len;        /* bytes of sun_path used (abstract names: no terminator) */
    takt_ns_t wd_every;       /* 0: no watchdog asked for */
    takt_ns_t wd_next;
    bool ready;
    /* health between two pings */
    uint64_t cycles, back, overruns, lcycles;
};

/* Reads $NOTIFY_SOCKET, $WATCHDOG_USEC and $WATCHDOG_PID (a watchdog for another pid is
 * not ours). 0, or -EINVAL for a socket name that is no AF_UNIX address (said). */
int  sdn_open(struct sdn *n);
void sdn_close(struct sdn *n);
bool sdn_active(const struct sdn *n);
/* One datagram; never blocks (a full queue drops the message). */
int  sdn_send(struct sdn *n, const char *msg);
/* READY=1 with a STATUS= line, once. */
void sdn_ready(struct sdn *n, const char *status);
void sdn_status(struct sdn *n, const char *status);
/* Reporter, at each watchdog half-period (sdn_next_due says when), WATCHDOG=1 if since the last
 * check the cycle ran (cycles grew), frames came back (back grew) and fewer than half the
 * cycles overran (overruns/lcycles: the loop's counters latched at the last perf flip).
 * Returns true when it pinged. */
bool sdn_watchdog(struct sdn *n, takt_ns_t now, uint64_t cycles, uint64_t back,
                  uint64_t overruns, uint64_t lcycles);
/* When sdn_watchdog next has work (INT64_MAX: no watchdog), for a reporter that sleeps. */
takt_ns_t sdn_next_due(const struct sdn *n);

#endif
