/* ESI Profile/Dictionary (ETG.2000 DictionaryType) into an object dictionary:
 * DataTypes with SubItems and ArrayInfo, Objects with defaults, access and PDO mapping. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <libxml/tree.h>
#include "sim/esi.h"
#include "sim/esi_xml.h"

#define DICT_MAX_OBJECTS 2048

static long long num(const xmlNode *n, const char *name, long long dflt, int *ok)
{
    char b[64];
    const xmlNode *c = esi_child(n, name);
    if (!c) {
        *ok = 1;
        return dflt;
    }
    return sim_esi_number(esi_text(c, b, sizeof b), ok);
}

static const xmlNode *find_type(const xmlNode *types, const char *name)
{
    char b[96];
    for (xmlNode *t = types ? types->children : NULL; t; t = t->next)
        if (esi_is(t, "DataType") && !strcmp(esi_text(esi_child(t, "Name"), b, sizeof b), name))
            return t;
    return NULL;
}

/* <Flags><Access WriteRestrictions="PreOP">rw</Access><PdoMapping>T</PdoMapping> */
static uint16_t access_of(const xmlNode *flags, uint16_t dflt)
{
    char b[32], r[48];
    const xmlNode *a = esi_child(flags, "Access");
    if (!a)
        return dflt;
    esi_text(a, b, sizeof b);
    uint16_t acc = 0;
    if (!strcasecmp(b, "ro") || !strcasecmp(b, "rw"))
        acc |= OD_R_ALL;
    if (!strcasecmp(b, "wo") || !strcasecmp(b, "rw")) {
        acc |= OD_W_ALL;
        xmlChar *w = xmlGetProp(a, (const xmlChar *)"WriteRestrictions");
        if (w) {
            snprintf(r, sizeof r, "%s", (const char *)w);
            xmlFree(w);
            acc &= (uint16_t)~OD_W_ALL;
            acc |= strstr(r, "PreOP") ? OD_W_PREOP : 0;
            acc |= strstr(r, "SafeOP") ? OD_W_SAFEOP : 0;
            acc |= strstr(r, "_OP") || !strcmp(r, "OP") ? OD_W_OP : 0;
        }
    }
    esi_text(esi_child(flags, "PdoMapping"), b, sizeof b);
    if (strchr(b, 'R') || strchr(b, 'r'))
        acc |= OD_RXPDO;
    if (strchr(b, 'T') || strchr(b, 't'))
        acc |= OD_TXPDO;
    return acc;
}

/* Default value from <Info>: DefaultData (hex bytes in memory order), DefaultValue
 * (number) or DefaultString. */
static void set_default(struct od_entry *e, const xmlNode *info)
{
    char b[512];
    int ok;
    const xmlNode *c;
    if ((c = esi_child(info, "DefaultData"))) {
        esi_text(c, b, sizeof b);
        size_t n = strlen(b) / 2, max = od_bytes(e);
        for (size_t i = 0; i < n && i < max; i++) {
            unsigned v;
            if (sscanf(b + 2 * i, "%2x", &v) == 1)
                e->val[i] = (uint8_t)v;
        }
    } else if ((c = esi_child(info, "DefaultValue"))) {
        long long v = sim_esi_number(esi_text(c, b, sizeof b), &ok);
        if (ok)
            od_set(e, (uint64_t)v);
    } else if ((c = esi_child(info, "DefaultString"))) {
        esi_text(c, b, sizeof b);
        size_t n = strlen(b);
        memcpy(e->val, b, n < od_bytes(e) ? n : od_bytes(e));
    }
}

/* Does an array-typed SubItem stand for its elements, one subindex each (ETG.2000
 * DataType with ArrayInfo, e.g. 0x1C12's "Elements")? Not when it names a SubIdx of
 * its own: then it is one entry holding the whole array (Beckhoff's EL30xx 0x1800:06
 * "Exclude TxPDOs"), nor when the elements would not fit subindices 1..255 (a 512-byte
 * ARRAY [0..511] OF BYTE parameter). */
static bool expands(const xmlNode *si, const xmlNode *arr)
{
    int ok1, ok2;
    const xmlNode *ai = esi_child(arr, "ArrayInfo");
    if (!ai || esi_child(si, "SubIdx"))
        return false;
    long long elems = num(ai, "Elements", 0, &ok1), lb = num(ai, "LBound", 1, &ok2);
    return !(ok1 && ok2 && elems > 0 && (lb > 0 ? lb : 1) + elems - 1 > 255);
}

/* One SubItem of a DataType: a plain entry, or an array type expanded to its elements. */
static int add_subitem(struct od_object *o, const xmlNode *types, const xmlNode *si,
                       unsigned *next_sub, char *err, size_t errlen)
{
    char tname[96], ename[OD_NAME];
    int ok1, ok2, ok3;
    long long sub = num(si, "SubIdx", *next_sub, &ok1);
    long long bits = num(si, "BitSize", 0, &ok2);
    long long off = num(si, "BitOffs", 0, &ok3);
    if (!ok1 || !ok2 || !ok3 || sub < 0 || sub > 255 || bits < 0 || bits > 8 * 4096 || off < 0 || off > 65535)
        return esi_fail(err, errlen, -EINVAL, si, "SubItem of object 0x%04X: SubIdx/BitSize/BitOffs invalid", o->index);
    esi_text(esi_child(si, "Type"), tname, sizeof tname);
    esi_text(esi_child(si, "Name"), ename, sizeof ename);
    uint16_t acc = access_of(esi_child(si, "Flags"), OD_RO);
    uint16_t tb, dt = od_type_from_name(tname, &tb);
    const xmlNode *arr = dt ? NULL : find_type(types, tname);
    if (arr && expands(si, arr)) {
        char bt[96];
        int ok4, ok5;
        long long elems = num(esi_child(arr, "ArrayInfo"), "Elements", 0, &ok4);
        long long lb = num(esi_child(arr, "ArrayInfo"), "LBound", 1, &ok5);
        uint16_t ebits, et = od_type_from_name(esi_text(esi_child(arr, "BaseType"), bt, sizeof bt), &ebits);
        if (!ok4 || !ok5 || elems < 1 || !et || !ebits)
            return esi_fail(err, errlen, -EINVAL, arr, "array type %s: expected ArrayInfo/Elements "
                        "1..255 and a base type", tname);
        unsigned first = (unsigned)(lb > 0 ? lb : *next_sub);
        for (long long k = 0; k < elems && first + k <= 255; k++) {
            char n[24];
            snprintf(n, sizeof n, "SubIndex %03u", (unsigned)(first + k));
            struct od_entry *e = od_add_entry(o, (uint8_t)(first + k), et, ebits, acc, n);
            if (!e)
                return esi_fail(err, errlen, -EINVAL, si, "object 0x%04X: duplicate subindex %u", o->index,
                            (unsigned)(first + k));
            e->bitoff = (uint16_t)(off + k * ebits);
        }
        *next_sub = (unsigned)(first + elems);
        return 0;
    }
    if (arr && esi_child(arr, "ArrayInfo") && !bits) {
        int ok4;
        uint16_t ebits;
        char bt[96];
        long long elems = num(esi_child(arr, "ArrayInfo"), "Elements", 0, &ok4);
        od_type_from_name(esi_text(esi_child(arr, "BaseType"), bt, sizeof bt), &ebits);
        bits = ok4 && elems > 0 ? elems * ebits : 0;
        if (bits < 1 || bits > 8 * 4096)
            return esi_fail(err, errlen, -EINVAL, si, "SubItem of object 0x%04X: array type %s needs "
                        "a BitSize of 1..32768, found none", o->index, tname);
    }
    if (!dt) {
        dt = 0x000A;                  /* unknown type: keep it as an octet string */
        tb = (uint16_t)bits;
    }
    struct od_entry *e = od_add_entry(o, (uint8_t)sub, dt, (uint16_t)(bits ? bits : tb), acc, ename);
    if (!e)
        return esi_fail(err, errlen, -EINVAL, si, "object 0x%04X: duplicate subindex %lld", o->index, sub);
    e->bitoff = (uint16_t)off;
    *next_sub = (unsigned)sub + 1;
    return 0;
}

/* Defaults from <Object><Info><SubItem><Name>..</Name><Info>..</Info></SubItem>, by name. */
static void object_defaults(struct od_object *o, const xmlNode *info)
{
    char n[OD_NAME];
    unsigned pos = 0;
    for (xmlNode *si = info ? info->children : NULL; si; si = si->next) {
        if (!esi_is(si, "SubItem"))
            continue;
        esi_text(esi_child(si, "Name"), n, sizeof n);
        struct od_entry *e = NULL;
        for (unsigned i = 0; i < o->n && !e; i++)
            if (!strcmp(o->e[i].name, n))
                e = &o->e[i];
        if (!e && pos < o->n)
            e = &o->e[pos];
        if (e)
            set_default(e, esi_child(si, "Info"));
        pos++;
    }
}

static int parse_object(const xmlNode *ob, const xmlNode *types, struct sim_od *od,
                        char *err, size_t errlen)
{
    char name[OD_NAME], tname[96];
    int ok1, ok2;
    long long index = num(ob, "Index", -1, &ok1);
    long long bits = num(ob, "BitSize", 0, &ok2);
    if (!ok1 || !ok2 || index < 0 || index > 0xFFFF || bits < 0 || bits > 8 * 4096)
        return esi_fail(err, errlen, -EINVAL, ob, "<Object> needs Index 0..0xFFFF and a BitSize");
    esi_text(esi_child(ob, "Name"), name, sizeof name);
    esi_text(esi_child(ob, "Type"), tname, sizeof tname);
    uint16_t tb, dt = od_type_from_name(tname, &tb);
    const xmlNode *t = dt ? NULL : find_type(types, tname);
    uint16_t acc = access_of(esi_child(ob, "Flags"), OD_RO);
    /* an object typed with an array DataType that has no SubItems of its own is one
     * value holding the whole array */
    if (dt || !t || (esi_child(t, "ArrayInfo") && !esi_child(t, "SubItem"))) {
        if (!dt) {
            dt = 0x000A;
            tb = (uint16_t)bits;
        }
        struct od_object *o = od_add_object(od, (uint16_t)index, OD_VAR, dt, name);
        struct od_entry *e = o ? od_add_entry(o, 0, dt, (uint16_t)(bits ? bits : tb), acc, name) : NULL;
        if (!e)
            return esi_fail(err, errlen, -EINVAL, ob, "object 0x%04llX defined twice", index);
        set_default(e, esi_child(ob, "Info"));
        return 0;
    }
    bool array = false;
    for (xmlNode *si = t->children; si; si = si->next) {
        char st[96];
        const xmlNode *at = esi_is(si, "SubItem") ? find_type(types, esi_text(esi_child(si, "Type"), st, sizeof st)) : NULL;
        array |= at && expands(si, at);
    }
    struct od_object *o = od_add_object(od, (uint16_t)index, array ? OD_ARRAY : OD_RECORD, 0, name);
    if (!o)
        return esi_fail(err, errlen, -EINVAL, ob, "object 0x%04llX defined twice", index);
    unsigned next = 0;
    for (xmlNode *si = t->children; si; si = si->next)
        if (esi_is(si, "SubItem")) {
            int rc = add_subitem(o, types, si, &next, err, errlen);
            if (rc)
                return rc;
        }
    if (array && o->n > 1)
        o->dtype = o->e[1].dtype;
    object_defaults(o, esi_child(ob, "Info"));
    struct od_entry *s0 = od_entry(o, 0);
    if (s0 && !od_get(s0) && o->n > 1)
        od_set(s0, o->e[o->n - 1].sub);   /* no default: highest subindex */
    return 0;
}

int sim_esi_dictionary(xmlNode *dict, struct sim_od *od, char *err, size_t errlen)
{
    const xmlNode *types = esi_child(dict, "DataTypes"), *objs = esi_child(dict, "Objects");
    unsigned n = 0;
    for (xmlNode *ob = objs ? objs->children : NULL; ob; ob = ob->next) {
        if (!esi_is(ob, "Object"))
            continue;
        if (++n > DICT_MAX_OBJECTS)
            return esi_fail(err, errlen, -EINVAL, ob, "more than %d objects", DICT_MAX_OBJECTS);
        int rc = parse_object(ob, types, od, err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}
