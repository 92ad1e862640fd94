/* What the ecat tools print, as names and as JSON: mailbox protocols and object access
 * by name, one JSON object per slave (slaves, states) and per process data entry. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <takt/wire.h>
#include "cli/cli_ecat.h"

/* Mailbox protocols of SII word 0x001C (ETG.2010, "Mailbox Protocol"): bit 0 AoE,
 * 1 EoE, 2 CoE, 3 FoE, 4 SoE, 5 VoE. */
static const char *const protos[] = { "AoE", "EoE", "CoE", "FoE", "SoE", "VoE" };

const char *cli_ecat_protocols(uint16_t mask, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = 0;
    for (unsigned i = 0; i < TAKT_ARRAY_SIZE(protos); i++)
        if (mask & (1u << i) && k < n)
            k += (size_t)snprintf(buf + k, n - k, "%s%s", k ? " " : "", protos[i]);
    if (mask >> TAKT_ARRAY_SIZE(protos) && k < n)
        snprintf(buf + k, n - k, "%s0x%04X", k ? " +" : "", mask & ~((1u << TAKT_ARRAY_SIZE(protos)) - 1));
    if (!buf[0])
        snprintf(buf, n, "none");
    return buf;
}

/* ObjAccess of an SDO information entry description (ETG.1000.6, CoE SDO Information
 * Service, Get Entry Description response): bits 0-2 readable in PREOP/SAFEOP/OP, bits 3-5 writable in them, bit 6 mappable
 * in an RxPDO, bit 7 in a TxPDO, bit 8 backup, bit 9 setting. Shown as IgH's
 * `ethercat sdos` does, r/w per state: "rwrwr- RxPDO". */
const char *cli_ecat_access(uint16_t a, char *buf, size_t n)
{
    char rw[7];
    for (unsigned i = 0; i < 3; i++) {
        rw[2 * i] = a & (1u << i) ? 'r' : '-';
        rw[2 * i + 1] = a & (8u << i) ? 'w' : '-';
    }
    rw[6] = 0;
    snprintf(buf, n, "%s%s%s%s%s", rw, a & 0x40 ? " RxPDO" : "", a & 0x80 ? " TxPDO" : "",
             a & 0x100 ? " backup" : "", a & 0x200 ? " setting" : "");
    return buf;
}

static json_object *protocols_json(uint16_t mask)
{
    json_object *a = json_object_new_array();
    for (unsigned i = 0; i < TAKT_ARRAY_SIZE(protos); i++)
        if (mask & (1u << i))
            json_object_array_add(a, json_object_new_string(protos[i]));
    return a;
}

#define ADD(o, k, v) json_object_object_add(o, k, v)

/* Length of the valid UTF-8 sequence at s (1-4), 0 if the bytes there are not one
 * (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF). */
static unsigned utf8_len(const unsigned char *s)
{
    unsigned n = s[0] < 0x80 ? 1 : s[0] >= 0xC2 && s[0] <= 0xDF ? 2 : s[0] >= 0xE0 && s[0] <= 0xEF ? 3
               : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : 0;
    for (unsigned i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((n == 3 && ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0))) ||
        (n == 4 && ((s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90))))
        return 0;
    return n;
}

/* SII strings are bytes of no declared encoding (ETG.2010): control characters would
 * break lines and other bytes make invalid UTF-8. Text shows them as C escapes. */
const char *cli_ecat_name_text(const char *name, char *buf, size_t n)
{
    size_t o = 0;
    for (const unsigned char *s = (const unsigned char *)name; *s && o + 5 < n;) {
        unsigned k = utf8_len(s);
        if (k == 1 && *s >= 0x20 && *s != 0x7F && *s != '\\') {
            buf[o++] = (char)*s++;
        } else if (k > 1) {
            memcpy(buf + o, s, k);
            o += k;
            s += k;
        } else {
            const char *e = *s == '\n' ? "\\n" : *s == '\t' ? "\\t" : *s == '\r' ? "\\r" : *s == '\\' ? "\\\\" : NULL;
            o += (size_t)(e ? snprintf(buf + o, n - o, "%s", e) : snprintf(buf + o, n - o, "\\x%02X", *s));
            s++;
        }
    }
    buf[o] = 0;
    return buf;
}

/* JSON strings must be UTF-8 (RFC 8259): valid sequences stay, any other byte is taken
 * as Latin-1, the usual encoding of such names, and re-encoded. */
const char *cli_ecat_name_utf8(const char *name, char *buf, size_t n)
{
    size_t o = 0;
    for (const unsigned char *s = (const unsigned char *)name; *s && o + 5 < n;) {
        unsigned k = utf8_len(s);
        if (k) {
            memcpy(buf + o, s, k);
            o += k;
            s += k;
        } else {
            buf[o++] = (char)(0xC0 | *s >> 6);
            buf[o++] = (char)(0x80 | (*s++ & 0x3F));
        }
    }
    buf[o] = 0;
    return buf;
}

/* Every finding of the SII decoder (ETG.2010 layout: checksum, broken or unknown
 * categories, truncated strings) to stderr with the slave's position, as `ecat run`
 * reports them, and as "sii_warnings" into the slave's JSON object (if any). */
void cli_ecat_sii_warnings(const uint8_t *img, size_t len, unsigned pos, json_object *o)
{
    struct takt_ecat_sii_info *si = malloc(sizeof *si);
    if (!si)
        return;
    json_object *arr = json_object_new_array();
    int rc = takt_ecat_sii_info(img, len, si);
    if (rc) {
        const char *why = !img ? "no SII read" : si->error[0] ? si->error : "the SII does not decode";
        fprintf(stderr, "takt ecat: slave %u: %s\n", pos, why);
        json_object_array_add(arr, json_object_new_string(why));
    } else {
        for (unsigned i = 0; i < si->n_warnings && i < TAKT_ECAT_SII_INFO_WARN; i++) {
            fprintf(stderr, "takt ecat: slave %u: %s\n", pos, si->warning[i]);
            json_object_array_add(arr, json_object_new_string(si->warning[i]));
        }
        if (si->n_warnings > TAKT_ECAT_SII_INFO_WARN)
            fprintf(stderr, "takt ecat: slave %u: %u more SII warnings\n", pos,
                    si->n_warnings - TAKT_ECAT_SII_INFO_WARN);
    }
    if (o)
        ADD(o, "sii_warnings", arr);
    else
        json_object_put(arr);
    free(si);
}
#define INT(v) json_object_new_int64((int64_t)(v))

json_object *cli_ecat_slave_json(const struct takt_ecat_slave_info *s)
{
    json_object *o = json_object_new_object();
    ADD(o, "position", INT(s->position));
    ADD(o, "station", INT(s->station));
    ADD(o, "alias", INT(s->alias));
    ADD(o, "state", json_object_new_string(takt_ecat_al_state_name(s->al_state & TAKT_ECAT_STATE_MASK)));
    ADD(o, "error", json_object_new_boolean(s->al_state & TAKT_ECAT_STATE_ERROR));
    ADD(o, "al_status_code", INT(s->al_code));
    ADD(o, "vendor", INT(s->vendor));
    ADD(o, "product", INT(s->product));
    ADD(o, "revision", INT(s->revision));
    ADD(o, "serial", INT(s->serial));
    char nm[4 * sizeof s->name];
    ADD(o, "name", json_object_new_string(cli_ecat_name_utf8(s->name, nm, sizeof nm)));
    ADD(o, "esc_type", INT(s->esc_type));
    ADD(o, "esc_rev", INT(s->esc_rev));
    ADD(o, "esc_features", INT(s->esc_features));
    ADD(o, "dc", json_object_new_boolean(s->dc));
    ADD(o, "dc_delay_ns", s->dc && s->dc_delay_ns > 0 ? INT(s->dc_delay_ns) : NULL);
    ADD(o, "ports_open", INT(s->ports_open));
    ADD(o, "dl_status", INT(s->dl_status));
    ADD(o, "parent", INT(s->parent));
    ADD(o, "parent_port", INT(s->parent_port));
    if (s->mbx_out_len) {
        json_object *m = json_object_new_object();
        ADD(m, "out_start", INT(s->mbx_out_start));
        ADD(m, "out_len", INT(s->mbx_out_len));
        ADD(m, "in_start", INT(s->mbx_in_start));
        ADD(m, "in_len", INT(s->mbx_in_len));
        ADD(o, "mailbox", m);
    } else {
        ADD(o, "mailbox", NULL);
    }
    ADD(o, "mailbox_protocols", protocols_json(s->mbx_protocols));
    ADD(o, "out_bits", INT(s->out_bits));
    ADD(o, "in_bits", INT(s->in_bits));
    return o;
}

json_object *cli_ecat_state_json(const struct takt_ecat_slave_info *s)
{
    json_object *o = json_object_new_object();
    ADD(o, "position", INT(s->position));
    ADD(o, "station", INT(s->station));
    ADD(o, "state", json_object_new_string(takt_ecat_al_state_name(s->al_state & TAKT_ECAT_STATE_MASK)));
    ADD(o, "error", json_object_new_boolean(s->al_state & TAKT_ECAT_STATE_ERROR));
    ADD(o, "al_status_code", INT(s->al_code));
    ADD(o, "al_status_text", s->al_code ? json_object_new_string(takt_ecat_al_status_text(s->al_code)) : NULL);
    return o;
}

json_object *cli_ecat_pd_json(const struct takt_ecat_pd_entry *e)
{
    json_object *o = json_object_new_object();
    ADD(o, "direction", json_object_new_string(e->output ? "out" : "in"));
    ADD(o, "byte", INT(e->byte_offset));
    ADD(o, "bit", INT(e->bit_offset));
    ADD(o, "bits", INT(e->bits));
    ADD(o, "index", INT(e->index));       /* 0: a gap */
    ADD(o, "subindex", INT(e->sub));
    ADD(o, "name", json_object_new_string(e->index ? e->name : ""));
    return o;
}

/* -v: the SyncManagers and FMMUs the slave's SII describes (categories 41 and 40,
 * ETG.2010), each with what it is for and who writes it: the SM control byte (ESC
 * register 0x0804, ETG.1000.4 SyncManager) has the mode in bits 0-1 (0 buffered, 2
 * mailbox) and the direction in bits 2-3 (0: the master reads, 1: the master writes). */
void cli_ecat_print_sm_fmmu(const uint8_t *img, size_t len)
{
    static const char *const sm_type[] = { "unused", "mailbox out", "mailbox in", "outputs", "inputs" };
    static const char *const fmmu_use[] = { "unused", "outputs (master writes)", "inputs (master reads)",
                                            "mailbox state (master reads)" };
    struct takt_ecat_sii_info *sii = malloc(sizeof *sii);
    if (!sii || takt_ecat_sii_info(img, len, sii)) {
        free(sii);
        return;
    }
    for (unsigned i = 0; i < sii->n_sm; i++) {
        const struct takt_ecat_sii_sm_info *m = &sii->sm[i];
        unsigned dir = (m->ctrl >> 2) & 3;
        printf("      SM%u 0x%04X/%u  %s, %s, master %s%s\n", i, m->start, m->len,
               m->type < TAKT_ARRAY_SIZE(sm_type) ? sm_type[m->type] : "?",
               (m->ctrl & 3) == 2 ? "mailbox" : (m->ctrl & 3) == 0 ? "3 buffers" : "mode ?",
               dir == 0 ? "reads" : dir == 1 ? "writes" : "?", m->enable & 1 ? "" : " (disabled)");
    }
    for (unsigned i = 0; i < sii->n_fmmu; i++)
        printf("      FMMU%u %s\n", i, sii->fmmu[i] < TAKT_ARRAY_SIZE(fmmu_use) ? fmmu_use[sii->fmmu[i]] : "?");
    free(sii);
}

/* Whether the SII says the slave answers SDO information (General category, CoE
 * details bit 1, ETG.2010); true when the SII has no General category to ask. */
bool cli_ecat_has_sdo_info(const uint8_t *img, size_t len)
{
    struct takt_ecat_sii_info *sii = malloc(sizeof *sii);
    bool yes = !sii || takt_ecat_sii_info(img, len, sii) || !sii->has_general || sii->sdo_info;
    free(sii);
    return yes;
}
