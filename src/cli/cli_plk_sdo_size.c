/* takt plk sdo write: the object's size from the network's configuration, so a value
 * goes out with it without reading the object first (and an object that cannot be read
 * can still be written). The CDC's concise DCF for the node (0x1F22/node) writes some
 * objects with their size; for the others the CN's device description says the data
 * type: the XDD or XDC openCONFIGURATOR keeps next to the CDC (EPSG DS 311, the
 * ObjectList's Object/SubObject dataType, EPSG DS 301 data type indices). */
#include <dirent.h>
#include <errno.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli/cli_plk.h"

/* Bytes of a DS 301 basic data type (index 0x0001..0x001B), 0 for the others (strings,
 * domains, records). */
static size_t type_bytes(unsigned long t)
{
    switch (t) {
    case 0x0001: case 0x0002: case 0x0005: return 1;    /* BOOLEAN, INTEGER8, UNSIGNED8 */
    case 0x0003: case 0x0006: return 2;                 /* INTEGER16, UNSIGNED16 */
    case 0x0010: case 0x0016: return 3;                 /* INTEGER24, UNSIGNED24 */
    case 0x0004: case 0x0007: case 0x0008: return 4;    /* INTEGER32, UNSIGNED32, REAL32 */
    case 0x0012: case 0x0018: return 5;                 /* INTEGER40, UNSIGNED40 */
    case 0x0013: case 0x0019: return 6;                 /* INTEGER48, UNSIGNED48 */
    case 0x0014: case 0x001A: return 7;                 /* INTEGER56, UNSIGNED56 */
    case 0x0011: case 0x0015: case 0x001B: return 8;    /* REAL64, INTEGER64, UNSIGNED64 */
    default: return 0;
    }
}

static bool hex_attr(const xmlNode *n, const char *name, unsigned long *v)
{
    xmlChar *a = xmlGetProp(n, (const xmlChar *)name);
    char *end = NULL;
    if (a)
        *v = strtoul((const char *)a, &end, 16);
    bool ok = a && end != (char *)a && !*end;
    xmlFree(a);
    return ok;
}

static bool is(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

/* Depth-first search for Object index=idx; its dataType (sub 0 of a plain variable) or
 * that of its SubObject subIndex=sub. */
static size_t find_type(const xmlNode *n, uint16_t idx, uint8_t sub, bool *found)
{
    for (; n && !*found; n = n->next) {
        unsigned long v, t;
        if (is(n, "Object") && hex_attr(n, "index", &v) && v == idx) {
            *found = true;
            if (sub == 0 && hex_attr(n, "dataType", &t))
                return type_bytes(t);
            for (const xmlNode *s = n->children; s; s = s->next)
                if (is(s, "SubObject") && hex_attr(s, "subIndex", &v) && v == sub)
                    return hex_attr(s, "dataType", &t) ? type_bytes(t) : 0;
            return 0;
        }
        size_t r = find_type(n->children, idx, sub, found);
        if (*found)
            return r;
    }
    return 0;
}

static bool xdd_name(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && (!strcasecmp(name + n - 4, ".xdd") || !strcasecmp(name + n - 4, ".xdc"));
}

/* The description next to the CDC: NODE.xdc/NODE.xdd if there is one, else the only
 * XDD/XDC in that directory (one device type for every CN, as in openCONFIGURATOR's
 * demos); none when several could be meant. */
static bool find_xdd(const char *cdc, unsigned node, char *path, size_t len)
{
    char dir[1024];
    const char *slash = strrchr(cdc, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - cdc) : 1, slash ? cdc : ".");
    DIR *d = opendir(dir);
    if (!d)
        return false;
    unsigned count = 0;
    char want[2][16];
    snprintf(want[0], sizeof want[0], "%u.xdc", node);
    snprintf(want[1], sizeof want[1], "%u.xdd", node);
    bool exact = false;
    for (struct dirent *e; (e = readdir(d)) && !exact;) {
        if (!xdd_name(e->d_name))
            continue;
        bool mine = !strcasecmp(e->d_name, want[0]) || !strcasecmp(e->d_name, want[1]);
        if ((mine || count++ == 0) && snprintf(path, len, "%s/%s", dir, e->d_name) >= (int)len)
            continue;                 /* a path this long is no file we can open */
        exact = mine;
    }
    closedir(d);
    return exact || count == 1;
}

int cli_plk_sdo_config_size(struct cli_ctx *c, const char *cdcf, unsigned node, uint16_t idx,
                            uint8_t sub, size_t *size, char *from, size_t fromlen)
{
    if (!cdcf)
        return 1;
    uint8_t *buf = NULL;
    size_t len = 0;
    char err[256];
    int rc = cli_plk_read_file(cdcf, &buf, &len);
    if (rc)
        return cli_error(c, "%s: %s", cdcf, strerror(-rc)), -1;
    bool in_cdc = !takt_plk_cdc_object_size(buf, len, node, idx, sub, size, err, sizeof err);
    free(buf);
    if (in_cdc) {
        snprintf(from, fromlen, "%s", cdcf);
        return 0;
    }
    char xdd[1024];
    if (!find_xdd(cdcf, node, xdd, sizeof xdd))
        return 1;
    xmlDoc *doc = xmlReadFile(xdd, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc)
        return cli_error(c, "%s: not an XML device description (XDD/XDC) of the CN", xdd), -1;
    bool found = false;
    *size = find_type(xmlDocGetRootElement(doc), idx, sub, &found);
    xmlFreeDoc(doc);
    if (!found)
        return 1;                     /* not described: the CN itself may still have it */
    snprintf(from, fromlen, "%s", xdd);
    return 0;
}
