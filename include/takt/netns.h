/* takt network-namespace pair: two namespaces joined by a veth pair, for tests and
 * `takt demo`. Works as root (plain network namespaces) and as an ordinary user (an
 * unprivileged user namespace, root inside, that owns both network namespaces).
 * Each side is held by a small "holder" process; the namespaces and the veth vanish
 * when the holders exit: at takt_netns_destroy(), or when the creator dies
 * (PR_SET_PDEATHSIG and a pipe that reaches EOF). */
#ifndef TAKT_NETNS_H
#define TAKT_NETNS_H

#include <sys/types.h>
#include <takt/takt.h>

#ifdef __cplusplus
extern "C" {
#endif
TAKT_API_BEGIN

enum { TAKT_NETNS_A = 0, TAKT_NETNS_B = 1 };

struct takt_netns {
    pid_t holder[2];       /* process holding side A / B; 0 when not running */
    int   ctl[2];          /* write ends: closing one lets its holder exit */
    bool  userns;          /* sides live in an unprivileged user namespace */
    char  ifname[2][16];   /* veth end inside side A / B (unique names) */
};

/* Create the pair; on failure return -errno and say why in `why` (no unshare
 * permission, user namespaces disabled by a sysctl, ...), so tests can skip with that
 * reason. TAKT_NETNS=off in the environment makes it fail on purpose (to exercise the
 * fallbacks). Call it from a thread that outlives the pair (PR_SET_PDEATHSIG follows the
 * creating thread). */
/* [thread: any; blocking] */
int  takt_netns_create(struct takt_netns *ns, char *why, size_t whylen);
/* Stop the holders and wait for them; safe on a zeroed or half-made struct. */
/* [thread: any; blocking] */
void takt_netns_destroy(struct takt_netns *ns);

/* Move the calling process into a side (the user namespace first, where used, then
 * the network namespace). Joining a user namespace needs a single-threaded caller, so
 * call it in a fresh child. Returns 0 or -errno. */
/* [thread: any; blocking] */
int  takt_netns_enter(pid_t holder, bool userns);
/* fork() a child that is already inside `side` (0 returned in the child, the pid in
 * the parent, -errno on failure). The child gets SIGTERM if the parent dies. */
/* [thread: any; blocking] */
pid_t takt_netns_fork(const struct takt_netns *ns, int side);
/* Run fn(ctx) in a child inside `side` and wait: returns fn's value (0..255), or
 * -errno if the child could not be made or was killed. */
/* [thread: any; blocking] */
int  takt_netns_run(const struct takt_netns *ns, int side, int (*fn)(void *), void *ctx);

/* Environment for shell tests: TAKT_IF_A, TAKT_IF_B, TAKT_NETNS_PID_A,
 * TAKT_NETNS_PID_B, TAKT_NETNS_USERNS (0/1). */
/* [thread: idle; blocking] */
int  takt_netns_export(const struct takt_netns *ns);
/* Holder pid of side 'a'/'b' and the userns flag from that environment. */
/* [thread: idle; blocking] */
int  takt_netns_from_env(int side, pid_t *holder, bool *userns, char *why, size_t whylen);

TAKT_API_END
#ifdef __cplusplus
}
#endif
#endif
