/* xdp link: an AF_XDP socket on queue 0 of one interface (docs/link.md, "The xdp link").
 *
 * Receive: a tiny XDP program, assembled here from a bpf_insn array (no clang, no
 * object file, no bpffs), looks at each frame's EtherType before the kernel's stack
 * does: the link's EtherTypes are redirected into the socket through an XSKMAP, all
 * else goes on to the stack (XDP_PASS), so the interface keeps its other traffic. The
 * kernel copies (or, zero-copy, places) each frame into a UMEM buffer and posts it on
 * the RX ring; a receive reads the ring without a syscall and hands the buffer back
 * through the fill ring. AF_XDP has no receive stamp of its own (only drivers with RX
 * metadata offer one): the program stamps each frame it redirects with
 * bpf_ktime_get_ns(), CLOCK_MONOTONIC, in the frame's metadata area; where the driver
 * has no metadata area the frame is stamped with the time the ring is read.
 *
 * Send: frames are copied into UMEM buffers, posted on the TX ring, and the kernel is
 * kicked with one sendto() per batch; the completion ring gives the buffers back.
 *
 * Attachment: through a BPF link (BPF_LINK_CREATE), owned by its file descriptor: when
 * the process ends, however it ends, the kernel closes the descriptor and detaches the
 * program, so no program is left behind on the interface. Native (driver) mode first,
 * generic (SKB) mode where the driver refuses; zero-copy where the driver offers it,
 * copy otherwise; link->mode says what the link got.
 *
 * A packet socket on the interface is kept open beside it for what AF_XDP has no
 * handle for: the MAC and MTU, the POWERLINK multicast memberships and promiscuous
 * mode (tied to that socket, so they end with it). It never receives (its filter drops
 * everything) and never sends. */
#include "link/link_internal.h"

#ifndef TAKT_HAVE_XDP

int link_xdp_open(const char *ifname, const struct takt_link_opts *o,
                  struct takt_link **out, char *err, size_t errlen)
{
    (void)o;
    *out = NULL;
    return link_err(err, errlen, -ENOTSUP,
                    "xdp:%s: this takt was built without AF_XDP (libxdp-dev, libbpf-dev): install "
                    "them (scripts/deps) and rebuild, or use packet:%s or ring:%s", ifname, ifname, ifname);
}

#else

#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <xdp/xsk.h>
#include "util/wire.h"

#define XDP_FRAMES      512u    /* UMEM buffers: the first half for receive, the rest for send */
#define XDP_RX_FRAMES   256u    /* = fill, completion, RX and TX ring sizes */
#define XDP_FRAME_SIZE  2048u   /* the smallest aligned chunk (XDP_UMEM_MIN_CHUNK_SIZE) */
#define XDP_QUEUE       0u
#define XDP_MAP_SLOTS   64u     /* XSKMAP size: one slot per receive queue; only 0 is set */
#define XDP_MAX_TYPES   8
#define XDP_BUSY_POLL_US 20     /* SO_BUSY_POLL: how long one busy poll may spin */
#define ETH_TYPE_OFF    12

struct xdp_link {
    struct takt_link base;          /* first */
    struct takt_link *pkt;          /* MAC, MTU, memberships (never receives or sends) */
    struct xsk_socket *xsk;
    struct xsk_umem *umem;
    struct xsk_ring_prod fill, tx;
    struct xsk_ring_cons comp, rx;
    uint8_t *area;                  /* the UMEM: XDP_FRAMES buffers of XDP_FRAME_SIZE */
    int fd;                         /* the AF_XDP socket */
    int map_fd, prog_fd, blink_fd;  /* XSKMAP, program, BPF link (attachment) */
    uint64_t tx_free[XDP_FRAMES - XDP_RX_FRAMES];
    unsigned n_tx_free;
    uint16_t types[XDP_MAX_TYPES];
    unsigned n_types;
    bool busy_poll;
};

/* --- the XDP program ---------------------------------------------------------- */

static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
    return (struct bpf_insn){ .code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm };
}

/* The EtherType as a 16-bit load from the frame gives it on this host (the field is
 * big-endian on the wire, IEEE 802.3 clause 3.2.6). */
static int32_t type_as_loaded(uint16_t t)
{
    uint8_t b[2];
    uint16_t v;
    put_be16(b, t);
    memcpy(&v, b, sizeof v);
    return v;
}

/* Receive stamp in the frame's metadata area, just before its first byte (the kernel
 * copies it into the UMEM with the frame, in copy mode too): CLOCK_MONOTONIC ns, then
 * XDP_META_MAGIC, then 4 zero bytes. */
#define XDP_META_LEN   16
#define XDP_META_MAGIC 0x74616b74u      /* "takt" */

enum { L_PASS, L_MATCH, L_REDIR, N_LABELS };

struct prog_buf {
    struct bpf_insn *p;
    unsigned n;
    unsigned label[N_LABELS];
    unsigned jmp_at[16];
    int jmp_to[16];
    unsigned n_jmp;
};

static void emit(struct prog_buf *b, struct bpf_insn i) { b->p[b->n++] = i; }

/* A jump to a label, its offset patched once every label is known. */
static void emit_jmp(struct prog_buf *b, uint8_t op, uint8_t dst, uint8_t src, int32_t imm, int to)
{
    b->jmp_at[b->n_jmp] = b->n;
    b->jmp_to[b->n_jmp++] = to;
    emit(b, insn(BPF_JMP | op, dst, src, 0, imm));
}

/* ts = bpf_ktime_get_ns() (CLOCK_MONOTONIC, the stack's clock); if data + 14 > data_end
 * or the EtherType is not one of ours: XDP_PASS (the kernel's stack has it). Else room
 * for the stamp in front of the frame (bpf_xdp_adjust_meta; a driver without metadata
 * support refuses it, and the frame goes without a stamp), then
 * bpf_redirect_map(xskmap, rx_queue_index, XDP_PASS): the flags' low bits are the
 * action where that queue has no socket (Linux 5.3). */
static unsigned build_prog(struct bpf_insn *p, const uint16_t *types, unsigned k, int map_fd)
{
    struct prog_buf b = { .p = p };
    emit(&b, insn(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0));                     /* r6 = ctx */
    emit(&b, insn(BPF_LDX | BPF_W | BPF_MEM, 2, 6, offsetof(struct xdp_md, data), 0));
    emit(&b, insn(BPF_LDX | BPF_W | BPF_MEM, 3, 6, offsetof(struct xdp_md, data_end), 0));
    emit(&b, insn(BPF_ALU64 | BPF_MOV | BPF_X, 4, 2, 0, 0));
    emit(&b, insn(BPF_ALU64 | BPF_ADD | BPF_K, 4, 0, 0, ETH_TYPE_OFF + 2));
    emit_jmp(&b, BPF_JGT | BPF_X, 4, 3, 0, L_PASS);
    emit(&b, insn(BPF_LDX | BPF_H | BPF_MEM, 5, 2, ETH_TYPE_OFF, 0));
    for (unsigned i = 0; i < k; i++)
        emit_jmp(&b, BPF_JEQ | BPF_K, 5, 0, type_as_loaded(types[i]), L_MATCH);
    b.label[L_PASS] = b.n;
    emit(&b, insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, XDP_PASS));
    emit(&b, insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
    b.label[L_MATCH] = b.n;
    emit(&b, insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ktime_get_ns));
    emit(&b, insn(BPF_ALU64 | BPF_MOV | BPF_X, 7, 0, 0, 0));                     /* r7 = ts */
    emit(&b, insn(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0));
    emit(&b, insn(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, -XDP_META_LEN));
    emit(&b, insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_xdp_adjust_meta));
    emit_jmp(&b, BPF_JNE | BPF_K, 0, 0, 0, L_REDIR);
    emit(&b, insn(BPF_LDX | BPF_W | BPF_MEM, 2, 6, offsetof(struct xdp_md, data_meta), 0));
    emit(&b, insn(BPF_LDX | BPF_W | BPF_MEM, 3, 6, offsetof(struct xdp_md, data), 0));
    emit(&b, insn(BPF_ALU64 | BPF_MOV | BPF_X, 4, 2, 0, 0));
    emit(&b, insn(BPF_ALU64 | BPF_ADD | BPF_K, 4, 0, 0, XDP_META_LEN));
    emit_jmp(&b, BPF_JGT | BPF_X, 4, 3, 0, L_REDIR);
    emit(&b, insn(BPF_STX | BPF_DW | BPF_MEM, 2, 7, 0, 0));
    emit(&b, insn(BPF_ST | BPF_W | BPF_MEM, 2, 0, 8, (int32_t)XDP_META_MAGIC));
    emit(&b, insn(BPF_ST | BPF_W | BPF_MEM, 2, 0, 12, 0));
    b.label[L_REDIR] = b.n;
    emit(&b, insn(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, map_fd));
    emit(&b, insn(0, 0, 0, 0, 0));                                                /* imm64: upper half */
    emit(&b, insn(BPF_LDX | BPF_W | BPF_MEM, 2, 6, offsetof(struct xdp_md, rx_queue_index), 0));
    emit(&b, insn(BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, XDP_PASS));
    emit(&b, insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_redirect_map));
    emit(&b, insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
    for (unsigned i = 0; i < b.n_jmp; i++)   /* offsets count from the next instruction */
        p[b.jmp_at[i]].off = (int16_t)(b.label[b.jmp_to[i]] - b.jmp_at[i] - 1);
    return b.n;
}

/* --- send ---------------------------------------------------------------------- */

static void reclaim(struct xdp_link *x)
{
    uint32_t idx;
    unsigned n = xsk_ring_cons__peek(&x->comp, XDP_RX_FRAMES, &idx);
    for (unsigned i = 0; i < n; i++)
        x->tx_free[x->n_tx_free++] = *xsk_ring_cons__comp_addr(&x->comp, idx + i);
    xsk_ring_cons__release(&x->comp, n);
}

/* Make the kernel send what the TX ring holds. In copy mode the sendto() transmits
 * the frames itself; a busy device (EAGAIN, EBUSY, ENOBUFS) keeps them in the ring for
 * the next kick. */
static int kick(struct xdp_link *x)
{
    if (!xsk_ring_prod__needs_wakeup(&x->tx))
        return 0;
    if (sendto(x->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) >= 0)
        return 0;
    int e = errno;
    return e == EAGAIN || e == EBUSY || e == ENOBUFS || e == EINTR ? 0 : -e;
}

static int xdp_send(struct takt_link *l, const struct takt_frame *f, unsigned n)
{
    struct xdp_link *x = (struct xdp_link *)l;
    unsigned done = 0, stalls = 0;
    reclaim(x);
    while (done < n) {
        unsigned k = n - done;
        if (k > x->n_tx_free)
            k = x->n_tx_free;
        uint32_t idx;
        if (k == 0 || (k = xsk_ring_prod__reserve(&x->tx, k, &idx)) == 0) {
            int rc = kick(x);          /* every buffer in flight: let the kernel finish some */
            reclaim(x);
            if (rc || x->n_tx_free == 0 || ++stalls > 3)
                break;                 /* the kernel took fewer: let the caller decide */
            continue;
        }
        unsigned i;
        int bad = 0;
        for (i = 0; i < k; i++) {
            const struct takt_frame *fr = &f[done + i];
            if ((bad = link_check_tx(fr)))
                break;
            uint64_t addr = x->tx_free[--x->n_tx_free];
            uint8_t *b = xsk_umem__get_data(x->area, addr);
            unsigned len = link_wire_len(fr->len);
            memcpy(b, fr->data, fr->len);
            memset(b + fr->len, 0, len - fr->len);
            struct xdp_desc *d = xsk_ring_prod__tx_desc(&x->tx, idx + i);
            d->addr = addr;
            d->len = len;
            d->options = 0;
            l->stats.tx_frames++;
            l->stats.tx_bytes += len;
        }
        if (i < k)                     /* give back the slots a bad frame left unused */
            x->tx.cached_prod -= k - i;
        xsk_ring_prod__submit(&x->tx, i);
        done += i;
        if (bad) {
            l->stats.tx_errors++;
            int rc = kick(x);
            return done ? (int)done : (rc ? rc : bad);
        }
    }
    int rc = kick(x);
    if (rc) {
        l->stats.tx_errors++;
        return done ? (int)done : rc;
    }
    return (int)done;
}

/* --- receive ------------------------------------------------------------------- */

static bool type_wanted(const struct xdp_link *x, const uint8_t *d, unsigned len)
{
    if (len < ETH_TYPE_OFF + 2)
        return false;
    uint16_t t = get_be16(d + ETH_TYPE_OFF);
    for (unsigned i = 0; i < x->n_types; i++)
        if (x->types[i] == t)
            return true;
    return false;
}

/* Take up to n frames that are on the RX ring now; their buffers go back to the fill
 * ring at once (it always has room: RX and fill together never hold more than the
 * receive half of the UMEM). */
static int xdp_take(struct xdp_link *x, struct takt_frame *f, unsigned n)
{
    struct takt_link *l = &x->base;
    uint32_t idx, fidx;
    unsigned got = 0, m = xsk_ring_cons__peek(&x->rx, n, &idx);
    if (m == 0)
        return 0;
    takt_ns_t now = takt_now();
    if (xsk_ring_prod__reserve(&x->fill, m, &fidx) != m)
        m = 0;                         /* cannot happen (see above); keep the frames queued */
    for (unsigned i = 0; i < m; i++) {
        const struct xdp_desc *d = xsk_ring_cons__rx_desc(&x->rx, idx + i);
        uint8_t *data = xsk_umem__get_data(x->area, d->addr);
        unsigned len = d->len;
        /* the program's stamp; without one (no metadata support) the read time */
        takt_ns_t ts = now;
        uint32_t magic;
        memcpy(&magic, data - XDP_META_LEN + 8, sizeof magic);
        if (magic == XDP_META_MAGIC) {
            uint64_t t;
            memcpy(&t, data - XDP_META_LEN, sizeof t);
            if ((takt_ns_t)t <= now)
                ts = (takt_ns_t)t;
            memset(data - XDP_META_LEN + 8, 0, sizeof magic);   /* the buffer's next frame may have none */
        }
        if (type_wanted(x, data, len)) {
            if (len > f[got].cap)
                len = f[got].cap;
            memcpy(f[got].data, data, len);
            f[got].len = (uint16_t)len;
            f[got].ts = ts;
            l->stats.rx_frames++;
            l->stats.rx_bytes += len;
            got++;
        } else {
            l->stats.rx_filtered++;    /* the program should have passed it to the stack */
        }
        *xsk_ring_prod__fill_addr(&x->fill, fidx + i) = xsk_umem__extract_addr(d->addr);
    }
    xsk_ring_prod__submit(&x->fill, m);
    xsk_ring_cons__release(&x->rx, m);
    return (int)got;
}

static int xdp_recv(struct takt_link *l, struct takt_frame *f, unsigned n, takt_ns_t timeout_ns)
{
    struct xdp_link *x = (struct xdp_link *)l;
    if (n == 0)
        return 0;
    int got = xdp_take(x, f, n);
    if (got)
        return got;
    /* busy polling: one pass of the device's NAPI poll from here, then look again */
    if (x->busy_poll || xsk_ring_prod__needs_wakeup(&x->fill)) {
        recvfrom(x->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
        if ((got = xdp_take(x, f, n)))
            return got;
    }
    if (timeout_ns == 0)
        return 0;
    takt_ns_t end = timeout_ns > 0 ? takt_now() + timeout_ns : 0;
    for (;;) {
        int rc = link_wait_in(x->fd, timeout_ns);
        if (rc <= 0)
            return rc == -EINTR ? 0 : rc;
        if ((got = xdp_take(x, f, n)))
            return got;
        if (timeout_ns > 0 && (timeout_ns = end - takt_now()) <= 0)
            return 0;
    }
}

static void xdp_sync_stats(struct takt_link *l)
{
    struct xdp_link *x = (struct xdp_link *)l;
    struct xdp_statistics st;
    socklen_t sl = sizeof st;
    /* cumulative counters (not reset on read, unlike PACKET_STATISTICS) */
    if (getsockopt(x->fd, SOL_XDP, XDP_STATISTICS, &st, &sl) == 0)
        l->stats.rx_dropped = st.rx_dropped + st.rx_ring_full;
}

static void xdp_close(struct takt_link *l)
{
    struct xdp_link *x = (struct xdp_link *)l;
    if (x->blink_fd >= 0)
        close(x->blink_fd);            /* detaches the program: the stack gets all frames again */
    if (x->xsk)
        xsk_socket__delete(x->xsk);
    if (x->umem)
        xsk_umem__delete(x->umem);
    if (x->area)
        munmap(x->area, (size_t)XDP_FRAMES * XDP_FRAME_SIZE);
    if (x->prog_fd >= 0)
        close(x->prog_fd);
    if (x->map_fd >= 0)
        close(x->map_fd);
    takt_link_close(x->pkt);
    free(x);
}

static const struct takt_link_ops xdp_ops = {
    .kind = "xdp",
    .send = xdp_send,
    .recv = xdp_recv,
    .close = xdp_close,
    .sync_stats = xdp_sync_stats,
};

/* --- open ---------------------------------------------------------------------- */

static int bpf_err(const char *ifname, char *err, size_t errlen, int e, const char *what)
{
    if (e == EPERM || e == EACCES)
        return link_err(err, errlen, -e,
                        "xdp:%s: %s: permission denied; needs CAP_BPF and CAP_NET_ADMIN in the initial "
                        "user namespace (root, or cap_bpf,cap_net_admin in takt's setcap line: "
                        "docs/rt.md), never in an unprivileged one: use packet:%s or ring:%s there",
                        ifname, what, ifname, ifname);
    return link_err(err, errlen, -e, "xdp:%s: %s failed: %s", ifname, what, strerror(e));
}

static int make_socket(struct xdp_link *x, const char *ifname, char *err, size_t errlen)
{
    size_t size = (size_t)XDP_FRAMES * XDP_FRAME_SIZE;
    void *a = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (a == MAP_FAILED)
        return link_err(err, errlen, -errno, "xdp:%s: allocating the UMEM (%zu bytes) failed: %s",
                        ifname, size, strerror(errno));
    x->area = a;
    struct xsk_umem_config uc = { .fill_size = XDP_RX_FRAMES, .comp_size = XDP_RX_FRAMES,
                                  .frame_size = XDP_FRAME_SIZE };
    int rc = xsk_umem__create(&x->umem, a, size, &x->fill, &x->comp, &uc);
    if (rc) {
        x->umem = NULL;
        if (rc == -ENOMEM || rc == -EAGAIN)
            return link_err(err, errlen, rc, "xdp:%s: registering the UMEM (%zu bytes) failed: %s; "
                            "raise the locked-memory limit (ulimit -l) or run as root", ifname, size, strerror(-rc));
        return bpf_err(ifname, err, errlen, -rc, "registering the UMEM (XDP_UMEM_REG)");
    }
    struct xsk_socket_config sc = {
        .rx_size = XDP_RX_FRAMES, .tx_size = XDP_RX_FRAMES,
        .libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,  /* our own program, below */
        .bind_flags = XDP_USE_NEED_WAKEUP,   /* zero-copy where offered, copy otherwise */
    };
    rc = xsk_socket__create(&x->xsk, ifname, XDP_QUEUE, x->umem, &x->rx, &x->tx, &sc);
    if (rc) {
        x->xsk = NULL;
        xsk_umem__delete(x->umem);     /* a retry starts from a fresh UMEM registration */
        x->umem = NULL;
        if (rc == -EBUSY)
            return link_err(err, errlen, rc, "xdp:%s: queue %u already has an AF_XDP socket "
                            "(another takt or AF_XDP program on %s?)", ifname, XDP_QUEUE, ifname);
        return bpf_err(ifname, err, errlen, -rc, "creating the AF_XDP socket");
    }
    x->fd = xsk_socket__fd(x->xsk);
    /* the receive half of the UMEM goes to the fill ring, the rest waits for sends */
    uint32_t idx;
    if (xsk_ring_prod__reserve(&x->fill, XDP_RX_FRAMES, &idx) != XDP_RX_FRAMES)
        return link_err(err, errlen, -ENOSPC, "xdp:%s: the fill ring took fewer than %u buffers",
                        ifname, XDP_RX_FRAMES);
    for (unsigned i = 0; i < XDP_RX_FRAMES; i++)
        *xsk_ring_prod__fill_addr(&x->fill, idx + i) = (uint64_t)i * XDP_FRAME_SIZE;
    xsk_ring_prod__submit(&x->fill, XDP_RX_FRAMES);
    for (unsigned i = XDP_RX_FRAMES; i < XDP_FRAMES; i++)
        x->tx_free[x->n_tx_free++] = (uint64_t)i * XDP_FRAME_SIZE;
    return 0;
}

/* A socket closed a moment ago (by this process or the last one) releases its queue
 * in a kernel work item (xp_release_deferred, net/xdp/xsk_buff_pool.c), after close()
 * returned: until then the queue is busy. So a busy queue is tried again for up to
 * 2 s before it counts as taken by someone else. */
static int make_socket_retry(struct xdp_link *x, const char *ifname, char *err, size_t errlen)
{
    takt_ns_t end = takt_now() + 2 * TAKT_NS_PER_S;
    for (;;) {
        int rc = make_socket(x, ifname, err, errlen);
        if (rc != -EBUSY || takt_now() > end)
            return rc;
        munmap(x->area, (size_t)XDP_FRAMES * XDP_FRAME_SIZE);
        x->area = NULL;
        nanosleep(&(struct timespec){ .tv_nsec = 5 * 1000 * 1000 }, NULL);
    }
}

/* Load the program and attach it, native mode first. Returns the mode's name. */
static int attach(struct xdp_link *x, int ifindex, const char *ifname, const char **mode,
                  char *err, size_t errlen)
{
    x->map_fd = bpf_map_create(BPF_MAP_TYPE_XSKMAP, "takt_xsks", 4, 4, XDP_MAP_SLOTS, NULL);
    if (x->map_fd < 0)
        return bpf_err(ifname, err, errlen, errno, "creating the XSKMAP");
    uint32_t key = XDP_QUEUE;
    if (bpf_map_update_elem(x->map_fd, &key, &x->fd, 0))
        return bpf_err(ifname, err, errlen, errno, "putting the socket into the XSKMAP");
    struct bpf_insn prog[48];
    unsigned n = build_prog(prog, x->types, x->n_types, x->map_fd);
    size_t log_len = 16384;            /* the verifier's log of a refused program */
    char *log = calloc(1, log_len);
    LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = BPF_XDP,
                .log_buf = log, .log_size = log ? (unsigned)log_len : 0, .log_level = 0);
    x->prog_fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "takt_xdp", "Dual BSD/GPL", prog, n, &po);
    if (x->prog_fd < 0 && errno != EPERM && log && log[0]) {
        /* the verifier's verdict (EACCES, EINVAL) is in its log, not a missing right */
        int e = errno;
        const char *why = "";   /* the last line before the verifier's closing statistics */
        char *save = NULL;
        log[log_len - 1] = 0;
        for (char *line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
            if (strncmp(line, "processed ", 10) && strncmp(line, "verification time", 17))
                why = line;
        int rc = link_err(err, errlen, -e, "xdp:%s: the kernel refused takt's XDP program (%s): %.120s; "
                          "use packet:%s or ring:%s", ifname, strerror(e), why, ifname, ifname);
        free(log);
        return rc;
    }
    int e_load = errno;
    free(log);
    errno = e_load;
    if (x->prog_fd < 0)
        return bpf_err(ifname, err, errlen, errno, "loading the XDP program (bpf BPF_PROG_LOAD)");
    static const struct { uint32_t flag; const char *name; } modes[] = {
        { XDP_FLAGS_DRV_MODE, "native" }, { XDP_FLAGS_SKB_MODE, "generic" },
    };
    int e = 0;
    for (unsigned i = 0; i < TAKT_ARRAY_SIZE(modes); i++) {
        LIBBPF_OPTS(bpf_link_create_opts, lo, .flags = modes[i].flag);
        x->blink_fd = bpf_link_create(x->prog_fd, ifindex, BPF_XDP, &lo);
        if (x->blink_fd >= 0) {
            *mode = modes[i].name;
            return 0;
        }
        e = errno;
        if (e == EBUSY || e == EEXIST)
            return link_err(err, errlen, -e, "xdp:%s: another XDP program is attached to %s "
                            "('ip link show %s' names it; 'ip link set %s xdp off', or xdpgeneric "
                            "off, removes one attached by ip): takt attaches its own",
                            ifname, ifname, ifname, ifname);
        if (e == EPERM || e == EACCES)
            break;
    }
    return bpf_err(ifname, err, errlen, e, "attaching the XDP program (native and generic mode)");
}

/* Busy polling where the kernel allows it (SO_PREFER_BUSY_POLL and a budget above the
 * default need CAP_NET_ADMIN): the receive then drives the device's NAPI poll itself. */
static void busy_poll_setup(struct xdp_link *x)
{
    int on = 1, us = XDP_BUSY_POLL_US, budget = LINK_BATCH_MAX;
    x->busy_poll = !setsockopt(x->fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &on, sizeof on) &&
                   !setsockopt(x->fd, SOL_SOCKET, SO_BUSY_POLL, &us, sizeof us) &&
                   !setsockopt(x->fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget, sizeof budget);
}

/* The inner packet socket: memberships and the interface's facts, and a filter that
 * drops every frame, so nothing queues on it. */
static int open_pkt(struct xdp_link *x, const char *ifname, const struct takt_link_opts *o,
                    char *err, size_t errlen)
{
    struct takt_link_opts po = *o;
    po.timestamps = false;
    po.txtime = false;
    int rc = link_packet_open(ifname, &po, &x->pkt, err, errlen);
    if (rc)
        return rc;
    struct sock_filter drop = BPF_STMT(BPF_RET | BPF_K, 0);
    struct sock_fprog fp = { .len = 1, .filter = &drop };
    if (setsockopt(link_packet_fd(x->pkt), SOL_SOCKET, SO_ATTACH_FILTER, &fp, sizeof fp))
        return link_err(err, errlen, -errno, "xdp:%s: filter on the packet socket failed: %s",
                        ifname, strerror(errno));
    return 0;
}

int link_xdp_open(const char *ifname, const struct takt_link_opts *o,
                  struct takt_link **out, char *err, size_t errlen)
{
    *out = NULL;
    if (o->n_ethertypes > XDP_MAX_TYPES)
        return link_err(err, errlen, -EINVAL, "xdp:%s: at most %d EtherTypes, got %u", ifname,
                        XDP_MAX_TYPES, o->n_ethertypes);
    struct xdp_link *x = calloc(1, sizeof *x);
    if (!x)
        return link_err(err, errlen, -ENOMEM, "xdp:%s: out of memory", ifname);
    x->fd = x->map_fd = x->prog_fd = x->blink_fd = -1;
    if (o->ethertypes && o->n_ethertypes) {
        memcpy(x->types, o->ethertypes, o->n_ethertypes * sizeof x->types[0]);
        x->n_types = o->n_ethertypes;
    } else {
        x->types[0] = TAKT_ETHERTYPE_ECAT;
        x->types[1] = TAKT_ETHERTYPE_PLK;
        x->n_types = 2;
    }
    const char *mode = "";
    int rc = open_pkt(x, ifname, o, err, errlen);
    if (!rc)
        rc = make_socket_retry(x, ifname, err, errlen);
    if (!rc)
        rc = attach(x, (int)if_nametoindex(ifname), ifname, &mode, err, errlen);
    if (rc) {
        xdp_close(&x->base);
        return rc;
    }
    busy_poll_setup(x);
    struct xdp_options xo = { 0 };
    socklen_t sl = sizeof xo;
    bool zc = getsockopt(x->fd, SOL_XDP, XDP_OPTIONS, &xo, &sl) == 0 && (xo.flags & XDP_OPTIONS_ZEROCOPY);
    x->base.ops = &xdp_ops;
    x->base.mtu = x->pkt->mtu;
    memcpy(x->base.mac, x->pkt->mac, sizeof x->base.mac);
    snprintf(x->base.name, sizeof x->base.name, "%s", x->pkt->name);
    snprintf(x->base.mode, sizeof x->base.mode, "%s, %s, %s", mode, zc ? "zero-copy" : "copy",
             x->busy_poll ? "busy poll" : "no busy poll");
    *out = &x->base;
    return 0;
}

#endif
