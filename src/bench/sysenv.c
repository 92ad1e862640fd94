/* Machine description, cyclictest and the stress scenarios for takt bench. */
#include "bench/sysenv.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <json-c/json.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bench/check.h"
#include "bench/proc.h"

static void read_line(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    buf[0] = 0;
    if (!f)
        return;
    if (fgets(buf, (int)cap, f))
        buf[strcspn(buf, "\n")] = 0;
    fclose(f);
}

void bench_cpuinfo_model(const char *cpuinfo, char *model, size_t cap)
{
    model[0] = 0;
    for (const char *l = cpuinfo; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        size_t len = strcspn(l, "\n");
        const char *colon = memchr(l, ':', len);
        if (strncmp(l, "model name", 10) || !colon)
            continue;
        const char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        snprintf(model, cap, "%.*s", (int)(len - (size_t)(v - l)), v);
        return;
    }
}

void *bench_sysinfo_json(const char *takt_binary) { return bench_sysinfo_json_cpu(takt_binary, -1); }

void *bench_sysinfo_json_cpu(const char *takt_binary, int cpu)
{
    json_object *j = json_object_new_object();
    char model[256] = "", buf[4096];
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        /* the first CPU's block is enough: every core names the same model */
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
        bench_cpuinfo_model(buf, model, sizeof model);
    }
    struct utsname u;
    uname(&u);
    json_object_object_add(j, "cpu_model", json_object_new_string(model));
    json_object_object_add(j, "cpus_online", json_object_new_int((int)sysconf(_SC_NPROCESSORS_ONLN)));
    json_object_object_add(j, "kernel", json_object_new_string(u.release));
    json_object_object_add(j, "kernel_version", json_object_new_string(u.version));
    json_object_object_add(j, "machine", json_object_new_string(u.machine));
    read_line("/sys/kernel/realtime", buf, sizeof buf);
    json_object_object_add(j, "preempt_rt", json_object_new_boolean(buf[0] == '1' || strstr(u.version, "PREEMPT_RT")));
    read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", buf, sizeof buf);
    json_object_object_add(j, "clocksource", json_object_new_string(buf));
    read_line("/proc/cmdline", buf, sizeof buf);
    json_object_object_add(j, "kernel_cmdline", json_object_new_string(buf));
    struct check_env env = { .root = "", .cpu = cpu, .binary = takt_binary };
    struct check_report r;
    check_run(&env, &r);
    json_object_object_add(j, "check", check_to_json(&r));
    return j;
}

int bench_ct_start(struct bench_ct *ct, const char *dir, const char *tag, int64_t interval_ns,
                   double seconds, int prio, int cpu)
{
    memset(ct, 0, sizeof *ct);
    ct->status = -1;
    char path[512];
    if (!bench_which("cyclictest", path, sizeof path)) {
        ct->missing = true;
        return -ENOENT;
    }
    snprintf(ct->json_path, sizeof ct->json_path, "%s/cyclictest-%s.json", dir, tag);
    snprintf(ct->log_path, sizeof ct->log_path, "%s/cyclictest-%s.log", dir, tag);
    unlink(ct->json_path);
    int64_t us = interval_ns / 1000 > 0 ? interval_ns / 1000 : 1;
    /* -l: as many wake-ups as the stack's cycles in the same time; -D only bounds a
     * stalled machine (it takes whole seconds, which would lengthen every short run) */
    long long loops = (long long)(seconds * 1e6 / (double)us + 0.5);
    char i[32], l[32], d[32], p[16], a[16], js[600];
    snprintf(i, sizeof i, "-i%lld", (long long)us);
    snprintf(l, sizeof l, "-l%lld", loops > 0 ? loops : 1);
    snprintf(d, sizeof d, "-D%ds", (int)(seconds + 0.999) + 2);
    snprintf(p, sizeof p, "-p%d", prio);
    snprintf(a, sizeof a, "-a%d", cpu);
    snprintf(js, sizeof js, "--json=%s", ct->json_path);
    char *argv[16];
    int n = 0;
    argv[n++] = "cyclictest";
    argv[n++] = "-m";
    argv[n++] = "-q";
    argv[n++] = i;
    argv[n++] = l;
    argv[n++] = d;
    argv[n++] = "-h1000";
    if (prio > 0)
        argv[n++] = p;
    if (cpu >= 0)
        argv[n++] = a;
    argv[n++] = js;
    argv[n] = NULL;
    size_t off = 0;
    for (int k = 0; k < n - 1 && off < sizeof ct->cmd; k++)   /* the json path is noise */
        off += (size_t)snprintf(ct->cmd + off, sizeof ct->cmd - off, "%s%s", k ? " " : "", argv[k]);
    ct->pid = bench_spawn(argv, NULL, 0, ct->log_path);
    return ct->pid > 0 ? 0 : (int)ct->pid;
}

int bench_ct_finish(struct bench_ct *ct, double timeout_s)
{
    if (ct->missing || ct->pid <= 0)
        return -ENOENT;
    ct->status = bench_wait(ct->pid, timeout_s);
    if (ct->status == -ETIMEDOUT)
        bench_stop(ct->pid, 1.0);   /* SIGTERM: cyclictest still writes its JSON */
    ct->pid = 0;
    json_object *j = json_object_from_file(ct->json_path);
    if (!j)
        return -EPROTO;
    int rc = bench_ct_parse(ct, j);
    json_object_put(j);
    return rc;
}

int bench_ct_parse(struct bench_ct *ct, void *json)
{
    json_object *j = json, *th, *t0, *v, *h;
    if (json_object_object_get_ex(j, "thread", &th) && json_object_object_get_ex(th, "0", &t0)) {
        if (json_object_object_get_ex(t0, "cycles", &v))
            ct->cycles = (uint64_t)json_object_get_int64(v);
        if (json_object_object_get_ex(t0, "min", &v))
            ct->min_us = json_object_get_double(v);
        if (json_object_object_get_ex(t0, "avg", &v))
            ct->avg_us = json_object_get_double(v);
        if (json_object_object_get_ex(t0, "max", &v))
            ct->max_us = json_object_get_double(v);
        if (json_object_object_get_ex(t0, "histogram", &h) && json_object_is_type(h, json_type_object)) {
            json_object_object_foreach(h, key, val) {
                long us = strtol(key, NULL, 10);
                ct->hist[us >= 0 && us < 1000 ? us : 1000] += (uint64_t)json_object_get_int64(val);
            }
        }
        ct->ok = ct->cycles > 0;
    }
    return ct->ok ? 0 : -EPROTO;
}

static const char *const stress_names[] = {
    [ST_IDLE] = "idle", [ST_CPU] = "cpu", [ST_DISK] = "disk", [ST_IO2] = "io2",
    [ST_NET] = "network", [ST_SCHED] = "scheduling", [ST_MISC] = "misc",
};
static const char *const stress_descs[] = {
    [ST_IDLE] = "no load",
    [ST_CPU] = "stress-ng --cpu 0 (a busy worker per CPU)",
    [ST_DISK] = "stress-ng --hdd 1 --io 1 on the work directory's file system",
    [ST_IO2] = "stress-ng --hdd 1 on /dev/shm (tmpfs: a second I/O path, standing in for USB I/O)",
    [ST_NET] = "a flood of raw Ethernet frames (60 and 1514 bytes) on a second veth pair (tkfl0-tkfl1) inside the "
               "stack's network namespace, plus stress-ng --udp-flood 1 --sock 1 over that namespace's loopback",
    [ST_SCHED] = "hackbench -l 100000 (400 tasks exchanging messages), restarted while the run lasts",
    [ST_MISC] = "a parallel compile: cc -O2 of a generated C file on every CPU, in a loop",
};
_Static_assert(sizeof stress_names / sizeof stress_names[0] == ST_COUNT, "stress names");
_Static_assert(sizeof stress_descs / sizeof stress_descs[0] == ST_COUNT, "stress descriptions");

const char *bench_stress_name(enum bench_stress s) { return s < ST_COUNT ? stress_names[s] : "?"; }
const char *bench_stress_desc(enum bench_stress s) { return s < ST_COUNT ? stress_descs[s] : "?"; }

/* Network load: a second veth pair and lo in the stack's namespace (side A), so the
 * flood shares the stack's network stack and CPUs but not its interface. */
static int run_ip(const char *ip, const char *const *argv)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execv(ip, (char *const *)argv);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* `ip` run directly (no shell): the path came from PATH and is never parsed again. */
static int net_setup(void *ip)
{
    const char *p = ip;
    const char *const steps[][9] = {
        { p, "link", "set", "lo", "up", NULL },
        { p, "link", "add", "tkfl0", "type", "veth", "peer", "name", "tkfl1" },
        { p, "link", "set", "tkfl0", "up", NULL },
        { p, "link", "set", "tkfl1", "up", NULL },
    };
    for (unsigned i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        const char *argv[10] = { NULL };
        for (unsigned j = 0; j < 9 && steps[i][j]; j++)
            argv[j] = steps[i][j];
        if (run_ip(p, argv) != 0)
            return 1;
    }
    return 0;
}

/* Child in side A: raw frames to broadcast on tkfl0 as fast as the kernel takes them
 * (every frame is received, and dropped, by tkfl1's receive path). Never returns. */
static void flood_frames(void)
{
    int fd = socket(AF_PACKET, SOCK_RAW, 0);   /* protocol 0: sends only, no receive queue */
    struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_ifindex = (int)if_nametoindex("tkfl0"),
                               .sll_halen = 6, .sll_protocol = htons(0x88B5) };
    memset(sll.sll_addr, 0xff, 6);
    static uint8_t frame[1514];
    memset(frame, 0xff, 6);   /* broadcast */
    static const uint8_t src[6] = { 0x02, 0x74, 0x6b, 0x66, 0x6c, 0x30 };
    memcpy(frame + 6, src, 6);
    frame[12] = 0x88;         /* IEEE 802 local experimental EtherType 1 */
    frame[13] = 0xB5;
    if (fd < 0 || !sll.sll_ifindex)
        _exit(125);
    for (unsigned k = 0;; k++) {
        size_t len = k & 1 ? sizeof frame : 60;
        if (sendto(fd, frame, len, 0, (struct sockaddr *)&sll, sizeof sll) < 0 && errno != ENOBUFS &&
            errno != EAGAIN && errno != EINTR)
            _exit(124);
    }
}

static pid_t start_flood(const struct takt_netns *ns)
{
    fflush(NULL);
    pid_t pid = takt_netns_fork(ns, TAKT_NETNS_A);
    if (pid > 0) {
        setpgid(pid, pid);
        return pid;
    }
    if (pid < 0)
        return pid;
    setpgid(0, 0);
    prctl(PR_SET_NAME, "takt-flood");   /* what ps shows: the load, not another takt bench */
    int fd = open("/dev/null", O_RDWR);
    if (fd >= 0) {
        dup2(fd, STDIN_FILENO);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
    }
    flood_frames();
    _exit(0);
}

static int need(struct bench_stressor *st, const char *prog)
{
    char p[512];
    if (bench_which(prog, p, sizeof p))
        return 0;
    snprintf(st->missing, sizeof st->missing, "%s", prog);
    return -ENOENT;
}

int bench_stress_start(struct bench_stressor *st, enum bench_stress s, const struct takt_netns *ns,
                       const char *workdir)
{
    memset(st, 0, sizeof *st);
    st->s = s;
    char tp[300];
    switch (s) {
    case ST_IDLE:
        return 0;
    case ST_CPU: {
        if (need(st, "stress-ng"))
            return -ENOENT;
        char *argv[] = { "stress-ng", "--quiet", "--cpu", "0", "--timeout", "1h", NULL };
        st->pid[0] = bench_spawn(argv, NULL, 0, NULL);
        break;
    }
    case ST_DISK:
    case ST_IO2: {
        if (need(st, "stress-ng"))
            return -ENOENT;
        snprintf(st->tmpdir, sizeof st->tmpdir, "%s/stress-%d-XXXXXX", s == ST_DISK ? workdir : "/dev/shm", (int)getpid());
        if (!mkdtemp(st->tmpdir))
            return -errno;
        snprintf(tp, sizeof tp, "%s", st->tmpdir);
        char *argv[] = { "stress-ng", "--quiet", "--hdd", "1", "--hdd-bytes", "64m", "--temp-path", tp,
                         "--timeout", "1h", s == ST_DISK ? "--io" : NULL, "1", NULL };
        st->pid[0] = bench_spawn(argv, NULL, 0, NULL);
        break;
    }
    case ST_NET: {
        if (need(st, "stress-ng"))
            return -ENOENT;
        char ip[512];
        if (!bench_which("ip", ip, sizeof ip)) {
            snprintf(st->missing, sizeof st->missing, "ip");
            return -ENOENT;
        }
        if (!ns || takt_netns_run(ns, TAKT_NETNS_A, net_setup, ip) != 0)
            return -EIO;
        st->pid[1] = start_flood(ns);
        /* inside side A only: the UDP flood stays on that namespace's loopback */
        char *argv[] = { "stress-ng", "--quiet", "--udp-flood", "1", "--sock", "1", "--timeout", "1h", NULL };
        st->pid[0] = bench_spawn(argv, ns, TAKT_NETNS_A, NULL);
        if (st->pid[1] <= 0)
            return st->pid[1] ? (int)st->pid[1] : -EIO;
        break;
    }
    case ST_SCHED: {
        if (need(st, "hackbench"))
            return -ENOENT;
        char *argv[] = { "sh", "-c", "while :; do hackbench -l 100000 >/dev/null 2>&1 || sleep 0.1; done", NULL };
        st->pid[0] = bench_spawn(argv, NULL, 0, NULL);
        break;
    }
    case ST_MISC: {
        if (need(st, "cc"))
            return -ENOENT;
        snprintf(st->tmpdir, sizeof st->tmpdir, "%s/compile-%d-XXXXXX", workdir, (int)getpid());
        if (!mkdtemp(st->tmpdir))
            return -errno;
        char src[400];
        snprintf(src, sizeof src, "%s/load.c", st->tmpdir);
        FILE *f = fopen(src, "w");
        if (!f)
            return -errno;
        /* enough code that one compile takes a while at -O2 */
        for (int i = 0; i < 400; i++)
            fprintf(f, "double f%d(double x){double s=0;for(int i=0;i<%d;i++){s+=x*i/(i+1.0);if(s>1e9)s-=x;}return s;}\n", i, i + 3);
        fclose(f);
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "while :; do for i in $(seq %ld); do cc -O2 -c %s -o %s/o$i.o & done; wait; done",
                 sysconf(_SC_NPROCESSORS_ONLN), src, st->tmpdir);
        char *argv[] = { "sh", "-c", cmd, NULL };
        st->pid[0] = bench_spawn(argv, NULL, 0, NULL);
        break;
    }
    default:
        return -EINVAL;
    }
    return st->pid[0] > 0 ? 0 : (int)st->pid[0];
}

bool bench_stress_running(struct bench_stressor *st, char *why, size_t n)
{
    for (int i = 0; i < 2; i++) {
        int status;
        if (st->pid[i] <= 0 || waitpid(st->pid[i], &status, WNOHANG) != st->pid[i])
            continue;
        snprintf(why, n, "the %s load's %s exited during the run (%s %d)", bench_stress_name(st->s),
                 i ? "frame flood" : "generator", WIFEXITED(status) ? "status" : "signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        st->pid[i] = 0;
        return false;
    }
    return true;
}

/* The load's scratch directory and all in it, without a shell: children first
 * (FTW_DEPTH), symbolic links removed, never followed (FTW_PHYS), no other file system
 * entered (FTW_MOUNT). */
static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(path) != 0 && errno != ENOENT ? -1 : 0;
}

static int remove_tree(const char *dir)
{
    return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

void bench_stress_stop(struct bench_stressor *st)
{
    for (int i = 0; i < 2; i++)
        if (st->pid[i] > 0)
            bench_stop(st->pid[i], 2.0);
    if (st->tmpdir[0] && remove_tree(st->tmpdir) != 0)
        fprintf(stderr, "takt bench: could not remove %s: %s\n", st->tmpdir, strerror(errno));
    memset(st, 0, sizeof *st);
}
