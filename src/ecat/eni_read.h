/* ENI reader internals shared by eni.c (document, master, cyclic, image), eni_slave.c
 * (slaves) and eni_xml.c (tree and value helpers). */
#ifndef TAKT_ECAT_ENI_READ_H
#define TAKT_ECAT_ENI_READ_H

#include <stdbool.h>
#include <libxml/tree.h>
#include "ecat/eni_internal.h"

struct rd {
    struct ecat_eni *eni;
    char *err;
    size_t errlen;
};

/* "line N: <elem>: <text>" into r->err; returns rc. */
int eni_fail(struct rd *r, const xmlNode *n, int rc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
bool eni_is(const xmlNode *n, const char *name);
xmlNode *eni_child(const xmlNode *n, const char *name);
unsigned eni_count(const xmlNode *n, const char *name);
const char *eni_text(struct rd *r, const xmlNode *n);
int eni_num(struct rd *r, const xmlNode *n, int64_t lo, int64_t hi, int64_t *out);
bool eni_truthy(const char *s);
bool eni_attr_true(const xmlNode *n, const char *name);
int eni_hexdata(struct rd *r, const xmlNode *n, const uint8_t **out, size_t *len);
int eni_transitions(struct rd *r, const xmlNode *n, uint32_t *mask);
int eni_init_cmds(struct rd *r, const xmlNode *parent, struct ecat_eni_cmd **out, unsigned *n);
int eni_slave(struct rd *r, const xmlNode *sl, struct ecat_eni_slave *s);

#define FOR_CHILD(c, parent, name) \
    for (xmlNode *c = (parent) ? (parent)->children : NULL; c; c = c->next) if (eni_is(c, name))

/* Optional child number: absent leaves *out as is. */
#define OPT_NUM(r, parent, name, lo, hi, dst) do { \
        xmlNode *n_ = eni_child(parent, name); \
        if (n_) { int64_t v_; int rc_ = eni_num(r, n_, lo, hi, &v_); if (rc_ < 0) return rc_; (dst) = v_; } \
    } while (0)
#define REQ_NUM(r, parent, name, lo, hi, dst) do { \
        xmlNode *n_ = eni_child(parent, name); \
        if (!n_) return eni_fail(r, parent, -TAKT_ECONFIG, "expected a <%s> element, found none", name); \
        int64_t v_; int rc_ = eni_num(r, n_, lo, hi, &v_); if (rc_ < 0) return rc_; (dst) = v_; \
    } while (0)

#endif
