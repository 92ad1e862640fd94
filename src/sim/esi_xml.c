/* Tree and text helpers shared by the simulator's ESI readers. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "sim/esi_xml.h"

bool esi_is(const xmlNode *n, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

xmlNode *esi_child(const xmlNode *n, const char *name)
{
    for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (esi_is(c, name))
            return c;
    return NULL;
}

static bool blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

const char *esi_text(const xmlNode *n, char *buf, size_t len)
{
    buf[0] = 0;
    xmlChar *c = n ? xmlNodeGetContent(n) : NULL;
    if (!c)
        return buf;
    const char *s = (const char *)c;
    while (blank(*s))
        s++;
    snprintf(buf, len, "%s", s);
    size_t l = strlen(buf);
    while (l && blank(buf[l - 1]))
        buf[--l] = 0;
    xmlFree(c);
    return buf;
}

int esi_fail(char *err, size_t n, int rc, const xmlNode *at, const char *fmt, ...)
{
    if (err && n) {
        va_list ap;
        int k = at ? snprintf(err, n, "line %ld: ", (long)xmlGetLineNo(at)) : 0;
        if (k < 0 || (size_t)k >= n)
            k = 0;
        va_start(ap, fmt);
        vsnprintf(err + k, n - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return rc;
}
