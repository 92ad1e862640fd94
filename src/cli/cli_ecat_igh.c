/* Renderers of IgH's verbs for a running master, from the view of cli_ecat_view.h:
 * master (link, frames, loss rates, states, cycle), domains (the cyclic datagrams with
 * the WKC expected and seen), data (the image as hex or per PDO entry), graph (the
 * topology as Graphviz dot), cstruct (a C header for the process image), version. */
#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli_ecat.h"
#include "cli/cli_ecat_view.h"
#include "cli/ctl.h"

static const char *cmd_name(uint8_t cmd)
{
    switch (cmd) {   /* ETG.1000.4 datagram commands */
    case 1: return "APRD";
    case 2: return "APWR";
    case 3: return "APRW";
    case 4: return "FPRD";
    case 5: return "FPWR";
    case 6: return "FPRW";
    case 7: return "BRD";
    case 8: return "BWR";
    case 9: return "BRW";
    case 10: return "LRD";
    case 11: return "LWR";
    case 12: return "LRW";
    default: return "?";
    }
}

/* --- master -------------------------------------------------------------------------- */

int ecat_verb_master(const struct ctl_view *v, FILE *out)
{
    const struct takt_ecat_master_stats *s = &v->st;
    char st[200];
    fprintf(out, "Master on %s\n", v->link);
    fprintf(out, "  MAC address: %02x:%02x:%02x:%02x:%02x:%02x\n", v->mac[0], v->mac[1], v->mac[2],
            v->mac[3], v->mac[4], v->mac[5]);
    fprintf(out, "  State: %s\n", takt_ecat_master_state_text(s, st, sizeof st));
    fprintf(out, "  Slaves: %u scanned, %u answering the last cycle (INIT %u, PREOP %u, BOOT %u, "
            "SAFEOP %u, OP %u, not answering %u)\n", s->slaves, s->slaves_present, s->slaves_init,
            s->slaves_preop, s->slaves_boot, s->slaves_safeop, s->slaves_op, s->slaves_not_answering);
    fprintf(out, "  Cycle: %.0f us, %" PRIu64 " cycles", v->cycle_ns / 1e3, s->cycles);
    if (v->loop_running || v->loop.cycles)
        fprintf(out, ", %" PRIu64 " overruns, last wake-up %.1f us late", v->loop.overruns,
                v->loop.wake_dev / 1e3);
    fprintf(out, "%s\n", v->dc ? ", distributed clocks" : "");
    fprintf(out, "  Frames: %" PRIu64 " sent, %" PRIu64 " back in time, %" PRIu64 " lost (%" PRIu64
            " cyclic), %" PRIu64 " late, %" PRIu64 " duplicate, %" PRIu64 " unmatched\n",
            s->frames_sent, s->frames_received, s->frames_lost, s->cyc_frames_lost, s->frames_late,
            s->frames_duplicate, s->frames_unmatched);
    fprintf(out, "  Tx frame rate [1/s]: %.0f %.0f %.0f (over 1, 10, 60 s)\n", s->tx_rate[0],
            s->tx_rate[1], s->tx_rate[2]);
    fprintf(out, "  Loss rate [1/s]:     %.1f %.1f %.1f\n", s->loss_rate[0], s->loss_rate[1],
            s->loss_rate[2]);
    fprintf(out, "  WKC errors: %" PRIu64 "; slaves lost/returned: %" PRIu64 "/%" PRIu64
            "; CoE emergencies: %" PRIu64 "\n", s->wkc_errors, s->slaves_lost, s->slaves_returned,
            s->emergencies);
    if (v->dc)
        fprintf(out, "  DC sync error: last %" PRId64 " ns, max in OP %" PRId64 " ns, %" PRIu64
                " readings not counted\n", s->dc_sync_err_ns, s->dc_sync_err_max_ns, s->dc_sync_invalid);
    return 0;
}

json_object *ecat_view_master_json(const struct ctl_view *v)
{
    const struct takt_ecat_master_stats *s = &v->st;
    json_object *o = json_object_new_object();
    char mac[18], st[200];
    snprintf(mac, sizeof mac, "%02x:%02x:%02x:%02x:%02x:%02x", v->mac[0], v->mac[1], v->mac[2],
             v->mac[3], v->mac[4], v->mac[5]);
    json_object_object_add(o, "link", json_object_new_string(v->link));
    json_object_object_add(o, "mac", json_object_new_string(mac));
    json_object_object_add(o, "state", json_object_new_string(takt_ecat_al_state_name(s->state)));
    json_object_object_add(o, "state_text", json_object_new_string(takt_ecat_master_state_text(s, st, sizeof st)));
    json_object_object_add(o, "cycle_ns", json_object_new_int64(v->cycle_ns));
    json_object_object_add(o, "cycles", json_object_new_uint64(s->cycles));
    json_object_object_add(o, "overruns", json_object_new_uint64(v->loop.overruns));
    json_object_object_add(o, "slaves", json_object_new_int64(s->slaves));
    json_object_object_add(o, "slaves_op", json_object_new_int64(s->slaves_op));
    json_object_object_add(o, "frames_sent", json_object_new_uint64(s->frames_sent));
    json_object_object_add(o, "frames_received", json_object_new_uint64(s->frames_received));
    json_object_object_add(o, "frames_lost", json_object_new_uint64(s->frames_lost));
    json_object_object_add(o, "frames_unmatched", json_object_new_uint64(s->frames_unmatched));
    json_object_object_add(o, "wkc_errors", json_object_new_uint64(s->wkc_errors));
    json_object *tx = json_object_new_array(), *loss = json_object_new_array();
    for (int k = 0; k < 3; k++) {
        json_object_array_add(tx, json_object_new_double(s->tx_rate[k]));
        json_object_array_add(loss, json_object_new_double(s->loss_rate[k]));
    }
    json_object_object_add(o, "tx_rate_1_10_60s", tx);
    json_object_object_add(o, "loss_rate_1_10_60s", loss);
    json_object_object_add(o, "dc_sync_err_ns", json_object_new_int64(s->dc_sync_err_ns));
    return o;
}

/* --- domains ------------------------------------------------------------------------- */

int ecat_verb_domains(const struct ctl_view *v, FILE *out)
{
    fprintf(out, "Cyclic frames: %u datagrams, process image %zu bytes%s\n", v->n_frames, v->image_len,
            v->stale ? " (an older copy: the running cycle published nothing within the wait)" : "");
    for (unsigned k = 0; k < v->n_frames; k++) {
        const struct takt_ecat_frame_info *f = &v->frames[k];
        char seen[16], sl[32] = "slaves -";    /* an ENI's datagram: its slaves not said */
        snprintf(seen, sizeof seen, f->wkc_last < 0 ? "-" : "%d", f->wkc_last);
        if (f->n_slaves)
            snprintf(sl, sizeof sl, "slaves %u-%u", f->first_slave, f->first_slave + f->n_slaves - 1);
        fprintf(out, "  Frame %u: %s %s 0x%08" PRIX32 " %u bytes, %s, WKC expected %u seen %s%s, "
                "WKC errors %" PRIu64 "\n", f->frame, cmd_name(f->cmd), f->cmd >= 10 && f->cmd <= 12 ?
                "logical" : "address", f->logical, f->len, sl, f->wkc_expected, seen,
                f->wkc_last >= 0 && f->wkc_last != f->wkc_expected ? " (!)" : "", f->wkc_errors);
    }
    return 0;
}

json_object *ecat_view_domains_json(const struct ctl_view *v)
{
    json_object *arr = json_object_new_array();
    for (unsigned k = 0; k < v->n_frames; k++) {
        const struct takt_ecat_frame_info *f = &v->frames[k];
        json_object *o = json_object_new_object();
        json_object_object_add(o, "frame", json_object_new_int(f->frame));
        json_object_object_add(o, "command", json_object_new_string(cmd_name(f->cmd)));
        json_object_object_add(o, "logical", json_object_new_int64(f->logical));
        json_object_object_add(o, "length", json_object_new_int(f->len));
        json_object_object_add(o, "first_slave", json_object_new_int((int)f->first_slave));
        json_object_object_add(o, "slaves", json_object_new_int((int)f->n_slaves));
        json_object_object_add(o, "wkc_expected", json_object_new_int(f->wkc_expected));
        json_object_object_add(o, "wkc_last", json_object_new_int(f->wkc_last));
        json_object_object_add(o, "wkc_errors", json_object_new_uint64(f->wkc_errors));
        json_object_array_add(arr, o);
    }
    json_object *o = json_object_new_object();
    json_object_object_add(o, "image_bytes", json_object_new_int64((int64_t)v->image_len));
    json_object_object_add(o, "datagrams", arr);
    return o;
}

/* --- data ---------------------------------------------------------------------------- */

int ecat_verb_data(const struct ctl_view *v, FILE *out, bool entries)
{
    if (!v->image_laid) {
        fprintf(stderr, "takt ecat data: the process image is not laid out (the network is "
                "below SAFEOP)\n");
        return 1;
    }
    if (v->stale)
        fprintf(stderr, "takt ecat data: the running cycle published nothing within the wait; "
                "this is an older copy of the image\n");
    if (!entries) {
        for (size_t i = 0; i < v->image_len; i += 16) {
            fprintf(out, "%04zx:", i);
            for (size_t k = i; k < i + 16 && k < v->image_len; k++)
                fprintf(out, " %02x", v->image[k]);
            fprintf(out, "\n");
        }
        return 0;
    }
    for (unsigned i = 0; i < v->n_pd; i++) {
        const struct takt_ecat_pd_entry *e = &v->pd[i];
        if (!e->index)
            continue;    /* a gap in the mapping */
        int w = (e->bits + 3) / 4;
        fprintf(out, "%-3u %s %4u.%u %2u  0x%04X:%02X  0x%0*" PRIX64 "  %s\n", e->position,
                e->output ? "out" : "in ", e->byte_offset, e->bit_offset, e->bits, e->index, e->sub,
                w > 16 ? 16 : w, ecat_view_value(v, e), e->name);
    }
    return 0;
}

json_object *ecat_view_data_json(const struct ctl_view *v)
{
    json_object *o = json_object_new_object(), *arr = json_object_new_array();
    char *hex = calloc(1, v->image_len * 2 + 1);
    for (size_t i = 0; hex && i < v->image_len; i++)
        snprintf(hex + 2 * i, 3, "%02x", v->image[i]);
    json_object_object_add(o, "image", json_object_new_string(hex ? hex : ""));
    json_object_object_add(o, "stale", json_object_new_boolean(v->stale));
    free(hex);
    for (unsigned i = 0; i < v->n_pd; i++) {
        if (!v->pd[i].index)
            continue;
        json_object *e = cli_ecat_pd_json(&v->pd[i]);
        json_object_object_add(e, "value", json_object_new_uint64(ecat_view_value(v, &v->pd[i])));
        json_object_array_add(arr, e);
    }
    json_object_object_add(o, "entries", arr);
    return o;
}

/* --- graph --------------------------------------------------------------------------- */

/* A dot string: quotes and backslashes escaped, control bytes dropped. */
static void dot_str(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fputc('\\', out);
        if (ch >= 0x20)
            fputc(ch, out);
    }
}

int ecat_verb_graph(const struct ctl_view *v, FILE *out)
{
    fprintf(out, "/* EtherCAT network on %s, as scanned (takt ecat graph) */\n", v->link);
    fprintf(out, "digraph takt {\n    rankdir=LR;\n    node [shape=box, fontname=\"Helvetica\"];\n");
    fprintf(out, "    master [label=\"master\\n");
    dot_str(out, v->link);
    fprintf(out, "\", shape=doubleoctagon];\n");
    for (unsigned i = 0; i < v->n_slaves; i++) {
        const struct takt_ecat_slave_info *s = &v->slaves[i].id;
        fprintf(out, "    slave%u [label=\"%u: ", i, i);
        dot_str(out, s->name[0] ? s->name : "?");
        fprintf(out, "\\n0x%04X %s\"];\n", s->station, takt_ecat_al_state_name(v->slaves[i].live.al_state));
    }
    /* edges from the port of the upstream device to port 0 (the input) of each slave */
    for (unsigned i = 0; i < v->n_slaves; i++) {
        const struct takt_ecat_slave_info *s = &v->slaves[i].id;
        if (s->parent < 0 || (unsigned)s->parent >= v->n_slaves)
            fprintf(out, "    master -> slave%u [headlabel=\"0\"];\n", i);
        else
            fprintf(out, "    slave%d -> slave%u [taillabel=\"%u\", headlabel=\"0\"];\n", s->parent, i,
                    s->parent_port);
    }
    fprintf(out, "}\n");
    return 0;
}

/* --- cstruct ------------------------------------------------------------------------- */

struct cs {
    FILE *out;
    const char *pfx;
    unsigned pos;
    const char *dir;
    size_t cursor;                 /* next byte of the struct not yet covered */
    unsigned pad;
    char names[64][72];            /* member names used (ECAT_MAX_PDO_ENTRIES + pads) */
    unsigned n_names;
};

static void cs_pad(struct cs *c, size_t to)
{
    if (to > c->cursor)
        fprintf(c->out, "    uint8_t pad%u[%zu];\n", c->pad++, to - c->cursor);
    if (to > c->cursor)
        c->cursor = to;
}

/* A member name not used yet in this struct. */
static void cs_name(struct cs *c, const char *name, char *buf, size_t n)
{
    char id[64];
    ecat_c_ident(name, id, sizeof id);
    snprintf(buf, n, "%s", id);
    for (unsigned k = 2;; k++) {
        bool used = false;
        for (unsigned j = 0; j < c->n_names; j++)
            used |= !strcmp(c->names[j], buf);
        if (!used)
            break;
        snprintf(buf, n, "%s_%u", id, k);
    }
    if (c->n_names < 64)
        snprintf(c->names[c->n_names++], sizeof c->names[0], "%s", buf);
}

static void cs_entry(struct cs *c, const struct takt_ecat_pd_entry *e, size_t base)
{
    if (!e->bits)
        return;                 /* no bytes of its own (and no last byte to count to) */
    size_t rel = e->byte_offset - base;
    char nm[72];
    cs_name(c, e->name[0] ? e->name : "entry", nm, sizeof nm);
    bool whole = e->bit_offset == 0 && (e->bits == 8 || e->bits == 16 || e->bits == 32 || e->bits == 64);
    if (whole && rel >= c->cursor) {
        cs_pad(c, rel);
        fprintf(c->out, "    uint%u_t %s;   /* 0x%04X:%02X */\n", e->bits, nm, e->index, e->sub);
        c->cursor = rel + e->bits / 8;
        return;
    }
    /* bits within bytes: the bytes as members, the entry as macros of byte and bit */
    size_t last = rel + (e->bit_offset + e->bits + 7u) / 8 - 1;
    for (size_t b = rel; b <= last; b++)
        if (b >= c->cursor) {
            cs_pad(c, b);
            fprintf(c->out, "    uint8_t byte%zu;\n", b);
            c->cursor = b + 1;
        }
    fprintf(c->out, "#define %s_S%u_%s_%s_BYTE byte%zu   /* 0x%04X:%02X, %u bit%s */\n", c->pfx, c->pos,
            c->dir, nm, rel, e->index, e->sub, e->bits, e->bits == 1 ? "" : "s");
    fprintf(c->out, "#define %s_S%u_%s_%s_BIT %u\n", c->pfx, c->pos, c->dir, nm, e->bit_offset);
}

static void cs_struct(const struct ctl_view *v, FILE *out, const char *pfx, unsigned pos, bool output)
{
    const struct takt_ecat_slave_info *s = &v->slaves[pos].id;
    uint32_t bits = output ? s->out_bits : s->in_bits;
    size_t base = output ? s->out_offset : s->in_offset, size = (bits + 7) / 8;
    if (!bits)
        return;
    struct cs c = { .out = out, .pfx = pfx, .pos = pos, .dir = output ? "OUT" : "IN" };
    char lower[64];
    snprintf(lower, sizeof lower, "%s", pfx);
    for (char *p = lower; *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    char nm[64];
    ecat_c_ident(s->name, nm, sizeof nm);   /* no comment end in a comment */
    fprintf(out, "\n/* slave %u %s: %s at byte %zu of the image, %zu bytes */\n", pos, nm,
            output ? "outputs" : "inputs", base, size);
    fprintf(out, "#define %s_S%u_%s_OFFSET %zu\n", pfx, pos, c.dir, base);
    fprintf(out, "struct __attribute__((packed)) %s_s%u_%s {\n", lower, pos, output ? "out" : "in");
    for (unsigned i = 0; i < v->n_pd; i++) {
        const struct takt_ecat_pd_entry *e = &v->pd[i];
        if (e->position != pos || e->output != output || !e->index || e->byte_offset < base)
            continue;
        cs_entry(&c, e, base);
    }
    cs_pad(&c, size);
    fprintf(out, "};\n_Static_assert(sizeof(struct %s_s%u_%s) == %zu, \"slave %u %s\");\n", lower, pos,
            output ? "out" : "in", size, pos, output ? "outputs" : "inputs");
}

int ecat_verb_cstruct(const struct ctl_view *v, FILE *out, const char *prefix)
{
    char pfx[48];
    ecat_c_ident(prefix && *prefix ? prefix : "TAKT_PD", pfx, sizeof pfx);
    fprintf(out, "/* The process image of the EtherCAT network on %s (%zu bytes), written by takt\n"
            " * ecat cstruct. A struct per slave and direction, packed, at the byte offset its\n"
            " * _OFFSET macro gives; entries of whole bytes are members, others are bits of a\n"
            " * byte member (_BYTE, _BIT). Values are little-endian, as on the wire. */\n",
            v->link, v->image_len);
    fprintf(out, "#ifndef %s_H\n#define %s_H\n\n#include <stdint.h>\n\n#define %s_IMAGE_SIZE %zu\n",
            pfx, pfx, pfx, v->image_len);
    for (unsigned i = 0; i < v->n_slaves; i++) {
        cs_struct(v, out, pfx, i, true);
        cs_struct(v, out, pfx, i, false);
    }
    fprintf(out, "\n#endif\n");
    return 0;
}

/* --- version ------------------------------------------------------------------------- */

int ecat_verb_version(FILE *out)
{
    fprintf(out, "takt %s\n", takt_version());
    fprintf(out, "libtakt %s (the library of this tool; control protocol %d)\n",
            takt_version(), CTL_VERSION);
    return 0;
}
