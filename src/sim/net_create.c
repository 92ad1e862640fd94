/* Building a simulated line from what a user has: a device list, a preset or a
 * directory of ESI files (the ENI route is net_eni.c). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "sim/device_ext.h"
#include "sim/esi.h"
#include "sim/net.h"

#define MAX_ITEMS 256
#define MAX_SLAVES 4096

static int make_dev(const char *name, struct sim_device **out)
{
    return sim_device_create(name, out, NULL, 0);
}

/* names[i] for i < n: create each device and put it at position i. */
static int build(char **names, unsigned n, const struct takt_sim_opts *o,
                 struct takt_sim **out, char *err, size_t errlen)
{
    struct takt_sim *s;
    int rc = sim_net_alloc(&s, n, o);
    if (rc) {
        snprintf(err, errlen, "cannot make a network of %u slaves: %s", n, strerror(-rc));
        return rc;
    }
    s->make_dev = make_dev;
    for (unsigned k = 0; k < n; k++) {
        struct sim_device *d = NULL;
        char e2[256] = "";
        rc = sim_device_create(names[k], &d, e2, sizeof e2);
        if (!rc && d)
            rc = sim_net_add(s, k, d, names[k]);
        else if (!rc)
            rc = -EINVAL;
        if (rc) {
            snprintf(err, errlen, "slave at position %u (%s): %s", k, names[k], e2[0] ? e2 : strerror(-rc));
            if (d && s->sl[k].dev != d && d->ops->destroy)
                d->ops->destroy(d);
            s->n = k + (s->sl[k].dev ? 1 : 0);
            takt_sim_destroy(s);
            return rc;
        }
    }
    s->reach = n;
    sim_net_topology(s, 0);
    *out = s;
    return 0;
}

int takt_sim_create(const char *devices, const struct takt_sim_opts *o,
                    struct takt_sim **out, char *err, size_t errlen)
{
    struct sim_device_spec *sp = calloc(MAX_ITEMS, sizeof *sp);
    unsigned ni = 0, n = 0;
    *out = NULL;
    if (!sp)
        return -ENOMEM;
    int rc = sim_device_list_parse(devices, sp, MAX_ITEMS, &ni, err, errlen);
    for (unsigned i = 0; !rc && i < ni; i++)
        n += sp[i].count;
    if (!rc && (n == 0 || n > MAX_SLAVES)) {
        snprintf(err, errlen, "device list: %u slaves, expected 1..%d", n, MAX_SLAVES);
        rc = -EINVAL;
    }
    char **names = rc ? NULL : calloc(n, sizeof *names);
    if (!rc && !names)
        rc = -ENOMEM;
    for (unsigned i = 0, k = 0; !rc && i < ni; i++)
        for (unsigned c = 0; c < sp[i].count; c++)
            names[k++] = sp[i].name;
    if (!rc)
        rc = build(names, n, o, out, err, errlen);
    free(names);
    free(sp);
    return rc;
}

/* Preset N: a coupler and N-1 terminals alternating 4-channel DI / DO (EK1100 +
 * EL1004/EL2004), the node mix of the published EtherCAT/POWERLINK evaluations.
 * "paper-40" is N = 40. */
/* Preset "junction": a branched network as Beckhoff couplers build it. An EK1100's
 * ESC has its E-bus on port 3 and the X2 RJ45 on port 1, so its terminals come before
 * whatever X2 leads to; the second coupler acts as a junction (EK1122-like) with
 * branches on ports 3, 1 and 2. Positions follow the frame (ports 0-3-1-2):
 *   1 EK1100 ─┬─ p3: 2 EL1004 ── 3 EL2004
 *             └─ p1: 4 junction ─┬─ p3: 5 EL1004
 *                                ├─ p1: 6 EL2004 ── 7 EL1004
 *                                └─ p2: 8 EK1100 ── p3: 9 EL2004 */
static int junction_preset(const struct takt_sim_opts *o, struct takt_sim **out, char *err,
                           size_t errlen)
{
    static char *const names[] = { "ek1100", "el1004", "el2004", "ek1100", "el1004",
                                   "el2004", "el1004", "ek1100", "el2004" };
    int rc = build((char **)names, sizeof names / sizeof names[0], o, out, err, errlen);
    if (!rc && (rc = takt_sim_set_topology(*out, TAKT_SIM_JUNCTION_TOPOLOGY, err, errlen)) != 0) {
        takt_sim_destroy(*out);
        *out = NULL;
    }
    return rc;
}

int takt_sim_create_preset(const char *preset, const struct takt_sim_opts *o,
                           struct takt_sim **out, char *err, size_t errlen)
{
    char *end;
    if (!strcmp(preset, "junction"))
        return junction_preset(o, out, err, errlen);
    const char *p = !strncmp(preset, "paper-", 6) ? preset + 6 : preset;
    unsigned long n = strtoul(p, &end, 10);
    *out = NULL;
    if (end == p || *end || n < 1 || n > MAX_SLAVES) {
        snprintf(err, errlen, "preset '%s': expected 3, 10, 20, paper-40, junction or a slave count 1..%d",
                 preset, MAX_SLAVES);
        return -EINVAL;
    }
    char **names = calloc(n, sizeof *names);
    if (!names)
        return -ENOMEM;
    static const char *const kinds[] = { "ek1100", "el1004", "el2004" };
    for (unsigned long k = 0; k < n; k++)
        names[k] = (char *)kinds[k == 0 ? 0 : 1 + (k - 1) % 2];
    int rc = build(names, (unsigned)n, o, out, err, errlen);
    free(names);
    return rc;
}

/* 1 if FILE@SELECTION names a device of the file, 0 if not, else -errno with err. */
static int esi_has(const char *name, char *err, size_t errlen)
{
    struct sim_device *dev;
    int rc = sim_device_create(name, &dev, err, errlen);
    if (rc == -ENOENT && !strstr(err, "cannot open"))
        return 0;
    if (rc)
        return rc;
    dev->ops->destroy(dev);
    return 1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.xml of the directory, in name order, is one slave; DIR@SELECTION takes the
 * device the selection picks from each file that has one (sim_esi_select_parse). */
int takt_sim_create_esi_dir(const char *dir_sel, const struct takt_sim_opts *o,
                            struct takt_sim **out, char *err, size_t errlen)
{
    *out = NULL;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", dir_sel);
    char *sel = strrchr(dir, '@');
    if (sel && !strchr(sel, '/'))
        *sel++ = 0;
    else
        sel = NULL;
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "ESI directory '%s': %s", dir, strerror(errno));
        return -errno;
    }
    char **names = NULL;
    unsigned n = 0, cap = 0;
    int rc = 0;
    struct dirent *de;
    while (!rc && (de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 5 || strcasecmp(de->d_name + l - 4, ".xml"))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn) {
                rc = -ENOMEM;
                break;
            }
            names = nn;
        }
        if (asprintf(&names[n], "%s/%s%s%s", dir, de->d_name, sel ? "@" : "", sel ? sel : "") < 0)
            rc = -ENOMEM;
        else if (sel && (rc = esi_has(names[n], err, errlen)) <= 0)
            free(names[n]);               /* no such device in this file (0), or an error */
        else
            n++, rc = 0;
    }
    closedir(d);
    if (!rc && !n) {
        snprintf(err, errlen, "ESI directory '%s': no *.xml files%s%s", dir,
                 sel ? " with a device matching " : "", sel ? sel : "");
        rc = -ENOENT;
    }
    if (!rc) {
        qsort(names, n, sizeof *names, cmp_str);
        rc = build(names, n, o, out, err, errlen);
    }
    for (unsigned i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}
