/* FoE server of the simulated slave (ETG.1000.6, File access over EtherCAT): RRQ answered with DATA segments of
 * read-mailbox size - 12 bytes, each ACKed by the master, the last one shorter (empty
 * when the file is an exact multiple); WRQ ACKed, DATA kept until the short last
 * packet completes the file; BUSY before an ACK when configured (flash erase); errors
 * as ERR with code and text. The firmware file is written only in BOOT. */
#include "sim/esc_foe.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/foe.h"
#include "sim/esc.h"

int esc_foe_find(const struct esc_foe *s, const char *name)
{
    for (int i = 0; i < ESC_FOE_FILES; i++)
        if (s->f[i].used && !strcmp(s->f[i].name, name))
            return i;
    return -1;
}

int esc_foe_put(struct esc_foe *s, const char *name, const void *data, size_t len, size_t max,
                uint32_t password, bool boot_only, bool read_only)
{
    int i = esc_foe_find(s, name);
    for (int k = 0; i < 0 && k < ESC_FOE_FILES; k++)
        if (!s->f[k].used)
            i = k;
    if (i < 0 || strlen(name) >= ESC_FOE_NAME || len > max)
        return -ENOSPC;
    struct esc_foe_file *f = &s->f[i];
    size_t old = f->used ? f->len : 0;
    if (s->used - old + len > s->disk)
        return -ENOSPC;
    uint8_t *d = len ? malloc(len) : NULL;
    if (len && !d)
        return -ENOMEM;
    if (len)
        memcpy(d, data, len);
    free(f->data);
    if (f->name != name)                      /* name may be f->name itself */
        snprintf(f->name, sizeof f->name, "%s", name);
    f->data = d;
    f->len = len;
    f->max = max;
    f->password = password;
    f->boot_only = boot_only;
    f->read_only = read_only;
    f->used = true;
    s->used = s->used - old + len;
    return 0;
}

struct esc_foe *esc_foe_get(struct sim_esc *e)
{
    if (e->foe || !e->desc || !(e->desc->mbx_protocols & MBX_PROTO_FOE))
        return e->foe;
    struct esc_foe *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->disk = ESC_FOE_DISK;
    s->create = true;
    s->file = -1;
    /* what a drive has: its firmware, empty until one is written in BOOT */
    if (esc_foe_put(s, ESC_FOE_FIRMWARE, NULL, 0, ESC_FOE_FILE_MAX, 0, true, false)) {
        free(s);
        return NULL;
    }
    e->foe = s;
    return s;
}

void esc_foe_free(struct sim_esc *e)
{
    struct esc_foe *s = e->foe;
    if (!s)
        return;
    for (int i = 0; i < ESC_FOE_FILES; i++)
        free(s->f[i].data);
    free(s->wbuf);
    free(s);
    e->foe = NULL;
}

/* --- one request ------------------------------------------------------------------- */

struct ctx {
    struct sim_esc *e;
    struct esc_foe *s;
    uint8_t *r;
    size_t cap;
};

static size_t reply(struct ctx *c, uint8_t op, uint32_t arg, const void *data, size_t len)
{
    c->e->mbx_cnt = (uint8_t)(c->e->mbx_cnt % 7 + 1);
    return ecat_foe_encode(c->r, c->cap, c->e->mbx_cnt, op, arg, data, len);
}

static size_t fail(struct ctx *c, uint32_t code, const char *name)
{
    char text[96];
    snprintf(text, sizeof text, "%s: %s", name, ecat_foe_error_text(code));
    c->s->st = ESC_FOE_IDLE;
    c->s->n_err++;
    size_t n = strlen(text);
    size_t room = c->cap > MBX_HDR + FOE_HDR ? c->cap - MBX_HDR - FOE_HDR : 0;
    return reply(c, FOE_OP_ERR, code, text, n < room ? n : room);
}

static size_t send_data(struct ctx *c)
{
    struct esc_foe *s = c->s;
    const struct esc_foe_file *f = &s->f[s->file];
    size_t seg = ecat_foe_seg(c->cap), left = f->len - s->off;
    s->last_len = left < seg ? left : seg;
    /* an empty file has no buffer: one empty DATA packet */
    return reply(c, FOE_OP_DATA, s->pkt, f->data ? f->data + s->off : NULL, s->last_len);
}

static size_t on_rrq(struct ctx *c, const char *name, uint32_t pw)
{
    struct esc_foe *s = c->s;
    int i = esc_foe_find(s, name);
    if (i < 0)
        return fail(c, FOE_ERR_NOT_FOUND, name);
    if (s->f[i].password && s->f[i].password != pw)
        return fail(c, FOE_ERR_NO_RIGHTS, name);
    s->st = ESC_FOE_READING;
    s->file = i;
    s->pkt = 1;
    s->off = 0;
    return send_data(c);
}

static size_t on_wrq(struct ctx *c, const char *name, uint32_t pw)
{
    struct esc_foe *s = c->s;
    bool boot = c->e->al_state == AL_BOOT;
    int i = esc_foe_find(s, name);
    const struct esc_foe_file *f = i >= 0 ? &s->f[i] : NULL;
    if (f && f->boot_only && !boot)
        return fail(c, FOE_ERR_BOOTSTRAP_ONLY, name);
    if (boot && !(f && f->boot_only))
        return fail(c, FOE_ERR_NOT_IN_BOOTSTRAP, name);
    if (f && f->read_only)
        return fail(c, FOE_ERR_ACCESS, name);
    if (f && f->password && f->password != pw)
        return fail(c, FOE_ERR_NO_RIGHTS, name);
    if (!f && !s->create)
        return fail(c, FOE_ERR_ACCESS, name);
    if (!f) {
        unsigned free_slots = 0;
        for (int k = 0; k < ESC_FOE_FILES; k++)
            free_slots += !s->f[k].used;
        if (!free_slots)
            return fail(c, FOE_ERR_DISK_FULL, name);
    }
    s->st = ESC_FOE_WRITING;
    s->file = i;
    snprintf(s->wname, sizeof s->wname, "%s", name);
    s->wpass = pw;
    s->wlen = 0;
    s->pkt = 0;
    s->busy_left = s->busy_per_packet;
    return reply(c, FOE_OP_ACK, 0, NULL, 0);
}

static size_t on_data(struct ctx *c, const struct ecat_foe_msg *m, size_t mbx_w)
{
    struct esc_foe *s = c->s;
    if (m->arg == s->pkt && s->pkt)
        return reply(c, FOE_OP_ACK, s->pkt, NULL, 0);   /* our ACK was lost: again */
    if (m->arg != s->pkt + 1)
        return fail(c, FOE_ERR_PACKET_NO, s->wname);
    if (s->busy_left) {
        s->busy_left--;
        s->n_busy++;
        return reply(c, FOE_OP_BUSY, (uint32_t)(s->busy_per_packet - s->busy_left) |
                     (uint32_t)s->busy_per_packet << 16, NULL, 0);
    }
    const struct esc_foe_file *f = s->file >= 0 ? &s->f[s->file] : NULL;
    size_t max = f ? f->max : ESC_FOE_FILE_MAX, old = f ? f->len : 0;
    if (s->wlen + m->len > max || s->used - old + s->wlen + m->len > s->disk)
        return fail(c, FOE_ERR_DISK_FULL, s->wname);
    if (s->wlen + m->len > s->wcap) {
        size_t cap = s->wcap ? s->wcap * 2 : 4096;
        while (cap < s->wlen + m->len)
            cap *= 2;
        uint8_t *b = realloc(s->wbuf, cap);
        if (!b)
            return fail(c, FOE_ERR_DISK_FULL, s->wname);
        s->wbuf = b;
        s->wcap = cap;
    }
    if (m->len)                     /* an empty first packet: no buffer yet */
        memcpy(s->wbuf + s->wlen, m->data, m->len);
    s->wlen += m->len;
    s->pkt = m->arg;
    s->busy_left = s->busy_per_packet;
    if (m->len < ecat_foe_seg(mbx_w)) {        /* the short (or empty) last packet */
        bool boot_only = f ? f->boot_only : false, ro = f ? f->read_only : false;
        uint32_t pw = f ? f->password : 0;
        if (esc_foe_put(s, s->wname, s->wbuf, s->wlen, max, pw, boot_only, ro))
            return fail(c, FOE_ERR_DISK_FULL, s->wname);
        s->st = ESC_FOE_IDLE;
        s->n_done++;
    }
    return reply(c, FOE_OP_ACK, m->arg, NULL, 0);
}

static size_t on_ack(struct ctx *c, const struct ecat_foe_msg *m)
{
    struct esc_foe *s = c->s;
    if (m->arg != s->pkt)
        return fail(c, FOE_ERR_PACKET_NO, s->f[s->file].name);
    s->off += s->last_len;
    if (s->last_len < ecat_foe_seg(c->cap)) {
        s->st = ESC_FOE_IDLE;                   /* the master has the last packet */
        s->n_done++;
        return 0;
    }
    s->pkt++;
    return send_data(c);
}

size_t esc_foe_request(struct sim_esc *e, const uint8_t *msg, size_t len, size_t mbx_w,
                       uint8_t *r, size_t cap)
{
    struct esc_foe *s = esc_foe_get(e);
    struct ctx c = { e, s, r, cap };
    struct ecat_foe_msg m;
    if (!s || cap < MBX_HDR + FOE_HDR || ecat_foe_decode(msg, len, &m) < 0)
        return 0;
    if (m.op == FOE_OP_RRQ || m.op == FOE_OP_WRQ) {
        char name[ESC_FOE_NAME];
        size_t n = 0;
        while (n < m.len && n < sizeof name - 1 && m.data[n])
            n++;
        memcpy(name, m.data, n);
        name[n] = 0;
        s->st = ESC_FOE_IDLE;                   /* a new request ends any old transfer */
        if (!n || (n == sizeof name - 1 && m.len > n))
            return fail(&c, FOE_ERR_NOT_FOUND, n ? name : "(no name)");
        return m.op == FOE_OP_RRQ ? on_rrq(&c, name, m.arg) : on_wrq(&c, name, m.arg);
    }
    if (m.op == FOE_OP_ERR) {
        s->st = ESC_FOE_IDLE;                   /* the master gave up */
        return 0;
    }
    if (m.op == FOE_OP_DATA && s->st == ESC_FOE_WRITING)
        return on_data(&c, &m, mbx_w);
    if (m.op == FOE_OP_ACK && s->st == ESC_FOE_READING)
        return on_ack(&c, &m);
    return fail(&c, FOE_ERR_ILLEGAL, ecat_foe_op_name(m.op));
}
