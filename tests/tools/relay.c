/* relay: a test tool that bridges two interfaces frame by frame (AF_PACKET raw sockets)
 * and misbehaves on command in one direction, the replies (frames arriving on -b, the
 * simulator's side, going out on -a, the master's side): it holds them back by a delay,
 * drops, duplicates or reorders them, or holds them all until released. Requests (-a to
 * -b) pass at once, so the far end sees them in time and in order.
 *
 *   relay -a IF_A -b IF_B -c CTRL_FIFO [-e ETHERTYPE] [-l NS] [-q FRAMES] [-s SEED] [-t SECONDS]
 *
 * Commands, one per line into the FIFO (which relay creates): `delay T` (T with ns, us,
 * ms or s; 0 = off), `drop P`, `dup P` (probabilities 0..1 per reply), `reorder N` (every
 * Nth reply goes out after the one that follows it; 0 = off), `hold` (keep every reply),
 * `release` (send what was held, then go on as before), `stats` (a JSON line of the
 * counters on stdout), `quit`. Each line is acknowledged on stderr with the time and its
 * number ("command 3: delay 0"), so a test can wait for it. On exit (quit, -t, SIGINT,
 * SIGTERM) the counters go to stdout as a last JSON line. -l NS: replies that waited NS
 * or longer are counted as held_long (what a test compares with the master's late count).
 *
 * Replies wait in a FIFO queue, each with the time it is due (receive time + delay, never
 * before the frame ahead of it: a slow wire does not overtake itself; when the delay is
 * shortened the queue drains at twice the arrival rate, not in one burst); the loop
 * sleeps in ppoll() until the next frame is due or a socket or the FIFO has something, so
 * it never spins. It only touches the two interfaces it is given. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FRAME_MAX 1536               /* an Ethernet frame without FCS, MTU 1500 */
#define REORDER_WAIT_NS 10000000     /* a reply kept for reordering waits for its follower this long */

struct slot {
    int64_t due, arrived;
    uint16_t len;
    bool wait_next;                  /* to be sent after the frame that follows it */
    uint8_t data[FRAME_MAX];
};

struct counters {
    uint64_t requests, replies;      /* frames received on -a / on -b */
    uint64_t relayed;                /* frames sent out (both directions, duplicates too) */
    uint64_t replies_out;            /* of them, replies (on -a) */
    uint64_t delayed;                /* replies that waited (delay or hold) */
    uint64_t held_long;              /* replies that waited -l NS or longer */
    uint64_t dropped, duplicated, reordered;
    uint64_t overflow;               /* replies dropped because the queue was full */
    uint64_t send_errors;
    uint64_t queue_max;
};

struct relay {
    int fd_a, fd_b, ctl;
    unsigned cap, head, n;           /* the reply queue: ring of cap slots */
    struct slot *q;
    int64_t delay_ns, long_ns;
    double p_drop, p_dup;
    unsigned reorder, reorder_count;
    bool hold;
    uint64_t rng;
    struct counters c;
    char line[256];
    size_t line_len;
    unsigned n_cmd;                  /* command lines read so far */
};

static volatile sig_atomic_t stop;
static void on_signal(int sig) { stop = sig; }

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double rnd(struct relay *r)    /* xorshift64*: reproducible with -s */
{
    r->rng ^= r->rng >> 12;
    r->rng ^= r->rng << 25;
    r->rng ^= r->rng >> 27;
    return (double)((r->rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static int open_if(const char *name, uint16_t ethertype)
{
    unsigned idx = if_nametoindex(name);
    if (!idx) {
        fprintf(stderr, "relay: interface '%s': %s\n", name, strerror(errno));
        return -1;
    }
    uint16_t proto = htons(ethertype ? ethertype : ETH_P_ALL);
    int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
    if (fd < 0) {
        fprintf(stderr, "relay: AF_PACKET socket: %s (needs CAP_NET_RAW)\n", strerror(errno));
        return -1;
    }
    struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = proto, .sll_ifindex = (int)idx };
    int one = 1, buf = 4 << 20;
    /* our own sends would come back as PACKET_OUTGOING; recv_one skips them too
     * (kernels before 4.20 lack this option) */
    setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
    if (bind(fd, (struct sockaddr *)&sll, sizeof sll) < 0) {
        fprintf(stderr, "relay: bind to %s: %s\n", name, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* One frame from fd into buf; 0 when there is none, -1 for a frame to ignore. */
static ssize_t recv_one(int fd, uint8_t *buf)
{
    struct sockaddr_ll from;
    socklen_t fl = sizeof from;
    ssize_t n = recvfrom(fd, buf, FRAME_MAX, MSG_TRUNC, (struct sockaddr *)&from, &fl);
    if (n < 0)
        return 0;
    if (from.sll_pkttype == PACKET_OUTGOING || n > FRAME_MAX)
        return -1;
    return n;
}

static void send_frame(struct relay *r, int fd, const uint8_t *buf, size_t len)
{
    if (send(fd, buf, len, 0) == (ssize_t)len)
        r->c.relayed++;
    else
        r->c.send_errors++;
}

static void event(unsigned n, const char *fmt, const char *arg)
{
    fprintf(stderr, "relay: [%.6f s] ", (double)now_ns() / 1e9);
    if (n)
        fprintf(stderr, "command %u: ", n);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
}

static void enqueue(struct relay *r, const uint8_t *buf, size_t len, int64_t now)
{
    if (r->n == r->cap) {
        r->c.overflow++;
        return;
    }
    struct slot *last = r->n ? &r->q[(r->head + r->n - 1) % r->cap] : NULL;
    struct slot *s = &r->q[(r->head + r->n) % r->cap];
    s->arrived = now;
    s->due = now + r->delay_ns;
    /* never before the frame ahead, and after a shorter delay was set, no faster than
     * twice the rate the frames came: a queue let go at once would overflow the
     * receiver's socket and lose frames the test did not mean to lose */
    if (last && last->due + (now - last->arrived) / 2 > s->due)
        s->due = last->due + (now - last->arrived) / 2;
    s->len = (uint16_t)len;
    s->wait_next = false;
    memcpy(s->data, buf, len);
    r->n++;
    if (last && last->wait_next) {
        /* the frame ahead waited for this one: they trade places (and due times) */
        struct slot t = *last;
        *last = *s;
        last->due = t.due;
        last->arrived = t.arrived;
        last->wait_next = false;
        t.wait_next = false;
        t.due = s->due;
        t.arrived = s->arrived;
        *s = t;
        r->c.reordered++;
    } else if (r->reorder && ++r->reorder_count >= r->reorder) {
        r->reorder_count = 0;
        s->wait_next = true;
    }
    if (r->n > r->c.queue_max)
        r->c.queue_max = r->n;
}

/* Send every reply that is due; returns when the next one is (INT64_MAX: none). */
static int64_t release_due(struct relay *r, int64_t now)
{
    while (r->n && !r->hold) {
        struct slot *s = &r->q[r->head];
        int64_t due = s->wait_next ? s->due + REORDER_WAIT_NS : s->due;
        if (due > now)
            return due;
        uint64_t before = r->c.relayed;
        send_frame(r, r->fd_a, s->data, s->len);
        r->c.replies_out += r->c.relayed - before;
        if (r->long_ns > 0 && now - s->arrived >= r->long_ns)
            r->c.held_long++;
        r->head = (r->head + 1) % r->cap;
        r->n--;
    }
    return INT64_MAX;
}

static void reply_in(struct relay *r, const uint8_t *buf, size_t len, int64_t now)
{
    r->c.replies++;
    if (r->p_drop > 0 && rnd(r) < r->p_drop) {
        r->c.dropped++;
        return;
    }
    if (r->delay_ns > 0 || r->hold || r->n)
        r->c.delayed++;
    enqueue(r, buf, len, now);
    if (r->p_dup > 0 && rnd(r) < r->p_dup) {
        r->c.duplicated++;
        enqueue(r, buf, len, now);
    }
}

static void print_counters(const struct relay *r, FILE *f)
{
    const struct counters *c = &r->c;
    fprintf(f, "{\"requests\": %" PRIu64 ", \"replies\": %" PRIu64 ", \"relayed\": %" PRIu64
            ", \"replies_out\": %" PRIu64
            ", \"delayed\": %" PRIu64 ", \"held_long\": %" PRIu64 ", \"dropped\": %" PRIu64 ", \"duplicated\": %" PRIu64
            ", \"reordered\": %" PRIu64 ", \"overflow\": %" PRIu64 ", \"send_errors\": %" PRIu64
            ", \"queue_max\": %" PRIu64 ", \"queued\": %u, \"delay_ns\": %" PRId64 "}\n",
            c->requests, c->replies, c->relayed, c->replies_out, c->delayed, c->held_long, c->dropped, c->duplicated,
            c->reordered, c->overflow, c->send_errors, c->queue_max, r->n, r->delay_ns);
    fflush(f);
}

static int64_t parse_time(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    static const struct { const char *unit; double ns; } units[] = {
        { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1 },
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (end != s && v >= 0 && !strcmp(end, units[i].unit))
            return (int64_t)(v * units[i].ns + 0.5);
    return -1;
}

static void command(struct relay *r, char *line)
{
    char verb[16] = "", arg[64] = "";
    unsigned n = ++r->n_cmd;
    sscanf(line, "%15s %63s", verb, arg);
    double p = strtod(arg, NULL);
    if (!strcmp(verb, "delay") && parse_time(arg) >= 0)
        r->delay_ns = parse_time(arg);
    else if (!strcmp(verb, "drop") && p >= 0 && p <= 1)
        r->p_drop = p;
    else if (!strcmp(verb, "dup") && p >= 0 && p <= 1)
        r->p_dup = p;
    else if (!strcmp(verb, "reorder") && p >= 0)
        r->reorder = (unsigned)p, r->reorder_count = 0;
    else if (!strcmp(verb, "hold") || !strcmp(verb, "release"))
        r->hold = verb[0] == 'h';
    else if (!strcmp(verb, "stats"))
        print_counters(r, stdout);
    else if (!strcmp(verb, "quit"))
        stop = 1;
    else {
        event(n, "unknown command '%s': expected delay T, drop P, dup P, reorder N, hold, "
              "release, stats or quit", line);
        return;
    }
    event(n, "%s", line);
}

static void read_control(struct relay *r)
{
    char buf[256];
    ssize_t n;
    while ((n = read(r->ctl, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] != '\n' && r->line_len < sizeof r->line - 1) {
                r->line[r->line_len++] = buf[i];
                continue;
            }
            if (buf[i] == '\n') {
                r->line[r->line_len] = 0;
                command(r, r->line);
                r->line_len = 0;
            }
        }
}

static void usage(void)
{
    fprintf(stderr, "usage: relay -a IF_A -b IF_B -c CTRL_FIFO [-e ETHERTYPE (default 0x88a4, 0 = all)] "
            "[-l NS] [-q QUEUE_FRAMES (default 16384)] [-s SEED] [-t SECONDS]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *if_a = NULL, *if_b = NULL, *ctl = NULL;
    unsigned long ethertype = 0x88A4, cap = 16384;
    double seconds = 0;
    struct relay r = { .rng = 1 };
    for (int o; (o = getopt(argc, argv, "a:b:c:e:l:q:s:t:")) != -1;) {
        switch (o) {
        case 'a': if_a = optarg; break;
        case 'b': if_b = optarg; break;
        case 'c': ctl = optarg; break;
        case 'e': ethertype = strtoul(optarg, NULL, 0); break;
        case 'l': r.long_ns = strtoll(optarg, NULL, 0); break;
        case 'q': cap = strtoul(optarg, NULL, 0); break;
        case 's': r.rng = strtoull(optarg, NULL, 0) | 1; break;
        case 't': seconds = strtod(optarg, NULL); break;
        default: usage();
        }
    }
    if (!if_a || !if_b || !ctl || cap < 1 || cap > 1000000 || ethertype > 0xFFFF)
        usage();
    /* no timer slack: a reply due in 128.5 ms goes out then, not 50 us later */
    prctl(PR_SET_TIMERSLACK, 1UL);
    if (mkfifo(ctl, 0600) < 0 && errno != EEXIST) {
        fprintf(stderr, "relay: mkfifo %s: %s\n", ctl, strerror(errno));
        return 1;
    }
    /* read-write: the FIFO never reports end-of-file when a writer closes it */
    r.ctl = open(ctl, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    r.fd_a = open_if(if_a, (uint16_t)ethertype);
    r.fd_b = open_if(if_b, (uint16_t)ethertype);
    r.cap = (unsigned)cap;
    r.q = calloc(cap, sizeof *r.q);        /* pages are touched only as the queue grows */
    if (r.ctl < 0 || r.fd_a < 0 || r.fd_b < 0 || !r.q) {
        if (r.ctl < 0)
            fprintf(stderr, "relay: control FIFO %s: %s\n", ctl, strerror(errno));
        return 1;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    event(0, "ready: %s", if_a);
    int64_t end = seconds > 0 ? now_ns() + (int64_t)(seconds * 1e9) : INT64_MAX;
    uint8_t buf[FRAME_MAX];
    while (!stop) {
        int64_t now = now_ns();
        if (now >= end)
            break;
        int64_t next = release_due(&r, now);
        if (next > end)
            next = end;
        struct timespec ts = { 0, 0 };
        if (next > now)
            ts = (struct timespec){ (next - now) / 1000000000, (next - now) % 1000000000 };
        struct pollfd p[3] = { { r.fd_a, POLLIN, 0 }, { r.fd_b, POLLIN, 0 }, { r.ctl, POLLIN, 0 } };
        if (ppoll(p, 3, next == INT64_MAX ? NULL : &ts, NULL) < 0 && errno != EINTR)
            break;
        now = now_ns();
        for (ssize_t n; (n = recv_one(r.fd_a, buf)) != 0;)
            if (n > 0) {
                r.c.requests++;
                send_frame(&r, r.fd_b, buf, (size_t)n);
            }
        for (ssize_t n; (n = recv_one(r.fd_b, buf)) != 0;)
            if (n > 0)
                reply_in(&r, buf, (size_t)n, now);
        if (p[2].revents & POLLIN)
            read_control(&r);
    }
    print_counters(&r, stdout);
    free(r.q);
    return 0;
}
