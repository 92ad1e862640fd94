/* Least privilege: which capabilities the real-time set-up uses, which it still needs
 * afterwards, and dropping the rest from the calling thread (capget/capset, no libcap).
 * With `setcap ...=ep` on takt an ordinary user's process starts with those powers in
 * its effective set; a role drops them once its sockets are open and its thread set. */
#include <takt/rt.h>
#include <errno.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CAP_WORDS 2   /* _LINUX_CAPABILITY_VERSION_3: two 32-bit words per set */

static int caps_get(struct __user_cap_data_struct d[CAP_WORDS])
{
    struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
    return syscall(SYS_capget, &hdr, d) ? -errno : 0;
}

static uint64_t join(uint32_t lo, uint32_t hi) { return (uint64_t)hi << 32 | lo; }

uint64_t takt_rt_caps_effective(void)
{
    struct __user_cap_data_struct d[CAP_WORDS];
    return caps_get(d) ? 0 : join(d[0].effective, d[1].effective);
}

uint64_t takt_rt_caps_permitted(void)
{
    struct __user_cap_data_struct d[CAP_WORDS];
    return caps_get(d) ? 0 : join(d[0].permitted, d[1].permitted);
}

static bool memlock_bounded(void)
{
    struct rlimit rl;
    return getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY;
}

uint64_t takt_rt_caps_for_setup(const struct takt_rt_opts *o)
{
    uint64_t c = 0;
    if (o->prio != 0)
        c |= TAKT_RT_CAP(CAP_SYS_NICE);   /* sched(7): raising to SCHED_FIFO */
    if (o->mlock)
        c |= TAKT_RT_CAP(CAP_IPC_LOCK);   /* mlockall(2): beyond RLIMIT_MEMLOCK */
    return c;
}

uint64_t takt_rt_caps_after_setup(const struct takt_rt_opts *o)
{
    /* takt_rt_setup() asks for MCL_FUTURE exactly when the limit is infinite or CAP_IPC_LOCK
     * is effective. With MCL_FUTURE every later mapping (a malloc'd block, a thread's
     * stack) is locked as it is made, and mm/mmap.c then checks CAP_IPC_LOCK or the
     * limit each time: without the capability, allocations fail once the locked total
     * passes the finite limit. So it stays for as long as the process runs. Nothing
     * else is needed later: SCHED_FIFO, once set, stays without CAP_SYS_NICE, and a
     * raw socket is checked for CAP_NET_RAW only when it is made (packet(7)). */
    if (o->mlock && memlock_bounded() && (takt_rt_caps_effective() & TAKT_RT_CAP(CAP_IPC_LOCK)))
        return TAKT_RT_CAP(CAP_IPC_LOCK);
    return 0;
}

int takt_rt_caps_drop(uint64_t keep)
{
    struct __user_cap_data_struct d[CAP_WORDS];
    int rc = caps_get(d);
    if (rc)
        return rc;
    keep &= join(d[0].permitted, d[1].permitted);
    for (int i = 0; i < CAP_WORDS; i++) {
        uint32_t k = (uint32_t)(keep >> (32 * i));
        d[i].effective = d[i].permitted = k;
        d[i].inheritable = 0;   /* nothing passes to a program this one might exec */
    }
    struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
    if (syscall(SYS_capset, &hdr, d))
        return -errno;
    /* Ambient capabilities would survive an execve of an unprivileged program; with
     * the inheritable set empty the kernel clears them anyway, this makes it explicit.
     * EINVAL: a kernel before 4.3, which has none. */
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
        return -errno;
    return 0;
}

bool takt_rt_caps_root(void)
{
    /* Real or effective uid 0 (root, sudo, a set-uid binary, or root of a user
     * namespace such as `takt netns run` makes, whose powers end at its own devices):
     * powers that did not come from takt's file capabilities alone. */
    return getuid() == 0 || geteuid() == 0;
}
