/* ENI reader: libxml2 tree walking and value parsing (numbers in decimal or #x hex,
 * hex byte strings, booleans, transition lists) with errors naming line and element. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <takt/takt.h>
#include "util/wire.h"
#include "ecat/eni_read.h"

int eni_fail(struct rd *r, const xmlNode *n, int rc, const char *fmt, ...)
{
    if (r->err && r->errlen) {
        int k = snprintf(r->err, r->errlen, "line %ld: <%s>: ", n ? xmlGetLineNo(n) : 0L,
                         n ? (const char *)n->name : "?");
        if (k < 0 || (size_t)k >= r->errlen)
            k = 0;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err + k, r->errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* --- tree helpers ---------------------------------------------------------------- */

bool eni_is(const xmlNode *n, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

xmlNode *eni_child(const xmlNode *n, const char *name)
{
    for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (eni_is(c, name))
            return c;
    return NULL;
}


unsigned eni_count(const xmlNode *n, const char *name)
{
    unsigned k = 0;
    FOR_CHILD(c, n, name)
        k++;
    return k;
}

/* Trimmed text of an element, in the arena ("" for NULL). */
const char *eni_text(struct rd *r, const xmlNode *n)
{
    if (!n)
        return "";
    xmlChar *t = xmlNodeGetContent(n);
    const char *s = t ? (const char *)t : "";
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    size_t len = strlen(s);
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n' || s[len - 1] == '\r'))
        len--;
    char *out = eni_alloc(r->eni, len + 1);
    if (out)
        memcpy(out, s, len);
    xmlFree(t);
    return out ? out : "";
}

/* ENI numbers: decimal, "#x1A00" or "0x1A00" hex, optional sign. */
int eni_num(struct rd *r, const xmlNode *n, int64_t lo, int64_t hi, int64_t *out)
{
    const char *s = eni_text(r, n);
    int base = 10;
    const char *p = s;
    bool neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    if ((p[0] == '#' || p[0] == '0') && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    char *end;
    errno = 0;
    unsigned long long v = *p ? strtoull(p, &end, base) : 0;
    if (!*p || *end || errno || v > (unsigned long long)INT64_MAX)
        return eni_fail(r, n, -TAKT_ECONFIG, "expected a number, found '%s'", s);
    int64_t x = neg ? -(int64_t)v : (int64_t)v;
    if (x < lo || x > hi)
        return eni_fail(r, n, -TAKT_ECONFIG, "expected a value in %lld..%lld, found '%s'",
                       (long long)lo, (long long)hi, s);
    *out = x;
    return 0;
}


bool eni_truthy(const char *s)
{
    return strcmp(s, "1") == 0 || strcmp(s, "true") == 0;
}

bool eni_attr_true(const xmlNode *n, const char *name)
{
    xmlChar *a = xmlGetProp(n, (const xmlChar *)name);
    bool t = a && eni_truthy((const char *)a);
    xmlFree(a);
    return t;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Hex byte string ("0400") -> bytes in the arena. */
int eni_hexdata(struct rd *r, const xmlNode *n, const uint8_t **out, size_t *len)
{
    const char *s = eni_text(r, n);
    size_t k = strlen(s);
    if (k % 2)
        return eni_fail(r, n, -TAKT_ECONFIG, "expected hex bytes (even number of digits), found %zu digits", k);
    uint8_t *b = eni_alloc(r->eni, k / 2 + 1);
    if (!b)
        return -ENOMEM;
    for (size_t i = 0; i < k / 2; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return eni_fail(r, n, -TAKT_ECONFIG, "expected hex digits, found '%.2s' at position %zu", s + 2 * i, 2 * i);
        b[i] = (uint8_t)(hi << 4 | lo);
    }
    *out = b;
    *len = k / 2;
    return 0;
}

int eni_transitions(struct rd *r, const xmlNode *n, uint32_t *mask)
{
    *mask = 0;
    FOR_CHILD(t, n, "Transition") {
        int k = ecat_tr_parse(eni_text(r, t));
        if (k < 0)
            return eni_fail(r, t, -TAKT_ECONFIG, "expected a transition (IP, PS, SO, ...), found '%s'", eni_text(r, t));
        *mask |= ECAT_TR_BIT(k);
    }
    return 0;
}
