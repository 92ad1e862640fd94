/* Real-time thread set-up (sched(7), mlockall(2)): affinity, SCHED_FIFO, mlockall, stack
 * prefault, /dev/cpu_dma_latency. Never fails: a missing privilege is one warning. */
#include <takt/rt.h>
#include <alloca.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>


void takt_rt_opts_default(struct takt_rt_opts *o)
{
    o->cpu = -1;
    o->prio = 0;
    o->mlock = true;
    o->dma_latency = true;
    o->prefault_stack = 64 * 1024;
    o->drop_caps = false;
}

static void warn(struct takt_rt_state *st, takt_rt_warn_fn fn, void *ctx, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void warn(struct takt_rt_state *st, takt_rt_warn_fn fn, void *ctx, const char *fmt, ...)
{
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    st->warnings++;
    if (fn)
        fn(ctx, msg);
    else
        fprintf(stderr, "takt: warning: %s\n", msg);
}

/* "unlimited" or the number, for messages that quote a resource limit */
static const char *limit_str(int res, char *buf, size_t len, unsigned long div)
{
    struct rlimit rl;
    if (getrlimit(res, &rl) != 0)
        snprintf(buf, len, "unknown");
    else if (rl.rlim_cur == RLIM_INFINITY)
        snprintf(buf, len, "unlimited");
    else
        snprintf(buf, len, "%llu", (unsigned long long)rl.rlim_cur / div);
    return buf;
}

static void setup_affinity(const struct takt_rt_opts *o, struct takt_rt_state *st, takt_rt_warn_fn fn, void *ctx)
{
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    if (o->cpu >= CPU_SETSIZE || (ncpu > 0 && o->cpu >= ncpu)) {
        warn(st, fn, ctx, "CPU %d does not exist (this machine has CPUs 0-%ld); running "
             "without CPU affinity", o->cpu, ncpu - 1);
        return;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(o->cpu, &set);
    int r = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    if (r == 0) {
        st->affinity_ok = true;
        return;
    }
    if (r == EINVAL)
        warn(st, fn, ctx, "CPU %d is offline or outside this process's allowed CPUs "
             "(cpuset); running without CPU affinity", o->cpu);
    else
        warn(st, fn, ctx, "cannot pin to CPU %d: %s; running without CPU affinity",
             o->cpu, strerror(r));
}

static void setup_fifo(const struct takt_rt_opts *o, struct takt_rt_state *st, takt_rt_warn_fn fn, void *ctx)
{
    int lo = sched_get_priority_min(SCHED_FIFO), hi = sched_get_priority_max(SCHED_FIFO);
    if (o->prio < lo || o->prio > hi) {
        warn(st, fn, ctx, "SCHED_FIFO priority must be %d..%d, got %d; running SCHED_OTHER",
             lo, hi, o->prio);
        return;
    }
    struct sched_param sp = { .sched_priority = o->prio };
    int r = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    if (r == 0) {
        st->fifo_ok = true;
        return;
    }
    char lim[32];
    if (r == EPERM)
        warn(st, fn, ctx, "SCHED_FIFO priority %d refused: needs CAP_SYS_NICE or "
             "RLIMIT_RTPRIO >= %d (now %s; `ulimit -r`); running SCHED_OTHER", o->prio,
             o->prio, limit_str(RLIMIT_RTPRIO, lim, sizeof(lim), 1));
    else
        warn(st, fn, ctx, "SCHED_FIFO priority %d failed: %s; running SCHED_OTHER",
             o->prio, strerror(r));
}

/* CAP_IPC_LOCK in the effective set, read with capget (no libcap dependency). */
static bool have_ipc_lock(void)
{
    struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &hdr, data) != 0)
        return false;
    return data[CAP_IPC_LOCK / 32].effective & (1u << (CAP_IPC_LOCK % 32));
}

static void setup_mlock(struct takt_rt_state *st, takt_rt_warn_fn fn, void *ctx)
{
    char lim[32];
    struct rlimit rl;
    bool bounded = getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY;
    /* Without CAP_IPC_LOCK, MCL_FUTURE charges every later mapping to a finite
     * RLIMIT_MEMLOCK, and allocations elsewhere in the process start failing once it is
     * reached. Lock what exists (buffers and the loop's stack are set up by now) only. */
    if (bounded && !have_ipc_lock()) {
        if (mlockall(MCL_CURRENT) == 0) {
            st->mlock_ok = true;
            warn(st, fn, ctx, "memory locked without MCL_FUTURE: no CAP_IPC_LOCK and "
                 "RLIMIT_MEMLOCK is %s KiB (`ulimit -l`); later allocations may be paged out",
                 limit_str(RLIMIT_MEMLOCK, lim, sizeof(lim), 1024));
            return;
        }
    } else if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0) {
        st->mlock_ok = st->mlock_future = true;
        return;
    }
    int e = errno;
    if (e == ENOMEM || e == EPERM)
        warn(st, fn, ctx, "mlockall refused (%s): needs CAP_IPC_LOCK or a larger "
             "RLIMIT_MEMLOCK (now %s KiB; `ulimit -l`); memory may be paged out",
             strerror(e), limit_str(RLIMIT_MEMLOCK, lim, sizeof(lim), 1024));
    else
        warn(st, fn, ctx, "mlockall failed: %s; memory may be paged out", strerror(e));
}

static void setup_dma_latency(struct takt_rt_state *st, takt_rt_warn_fn fn, void *ctx)
{
    static const char path[] = "/dev/cpu_dma_latency";
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == EACCES || e == EPERM)
            warn(st, fn, ctx, "cannot hold %s at 0 us: no write permission on it (root "
                 "or a udev rule needed); CPUs may enter deep C-states", path);
        else
            warn(st, fn, ctx, "cannot hold %s at 0 us: %s (kernel without "
                 "CONFIG_CPU_IDLE?); CPUs may enter deep C-states", path, strerror(e));
        return;
    }
    /* pm_qos_interface.rst: a binary s32 in us; the request lasts while fd is open */
    int32_t zero = 0;
    if (write(fd, &zero, sizeof(zero)) != (ssize_t)sizeof(zero)) {
        warn(st, fn, ctx, "writing 0 to %s failed: %s; CPUs may enter deep C-states",
             path, strerror(errno));
        close(fd);
        return;
    }
    st->dma_fd = fd;
    st->dma_latency_ok = true;
}

/* Touch the stack the loop will use so its pages fault in now, not in the cycle. */
static __attribute__((noinline)) void prefault_stack(size_t bytes)
{
    /* never more than half of this thread's stack, or the prefault itself overflows it */
    pthread_attr_t a;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
        pthread_attr_getstacksize(&a, &size);
        pthread_attr_destroy(&a);
    }
    if (size == 0)
        size = 256 * 1024;
    if (bytes > size / 2)
        bytes = size / 2;
    volatile unsigned char *p = alloca(bytes);
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0)
        page = 4096;
    for (size_t i = 0; i < bytes; i += (size_t)page)
        p[i] = 0;
}

void takt_rt_setup(const struct takt_rt_opts *o, struct takt_rt_state *st, takt_rt_warn_fn fn, void *ctx)
{
    struct takt_rt_opts def;
    if (!o) {
        takt_rt_opts_default(&def);
        o = &def;
    }
    memset(st, 0, sizeof(*st));
    st->dma_fd = -1;
    if (o->cpu >= 0)
        setup_affinity(o, st, fn, ctx);
    /* Memory first, priority last: mlockall populates every mapping (thread stacks of
     * 8 MiB each among them) and took 10 ms here; done at SCHED_FIFO it holds off every
     * task of equal or lower priority on this CPU that long (cyclictest beside a
     * starting stack saw exactly that). As SCHED_OTHER it is simply preempted. */
    if (o->mlock)
        setup_mlock(st, fn, ctx);
    if (o->prefault_stack)
        prefault_stack(o->prefault_stack);
    if (o->prio != 0)
        setup_fifo(o, st, fn, ctx);
    if (o->dma_latency)
        setup_dma_latency(st, fn, ctx);
    if (o->drop_caps) {
        int rc = takt_rt_caps_drop(st->mlock_future ? takt_rt_caps_after_setup(o) : 0);
        if (rc)
            warn(st, fn, ctx, "cannot drop capabilities: %s", strerror(-rc));
    }
}

void takt_rt_teardown(struct takt_rt_state *st)
{
    /* Closing ends the latency request. mlockall stays: it is process-wide and another
     * loop of the same process may rely on it. */
    if (st->dma_fd >= 0)
        close(st->dma_fd);
    st->dma_fd = -1;   /* dma_latency_ok stays: it tells what held during the run */
}
