/* FoE files of simulated slaves from a spec (takt_sim_foe, `takt sim ecat --foe`):
 * which files exist, their size limit, password, firmware-only-in-BOOT, BUSY answers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim/esc_foe.h"
#include "sim/net.h"

static int num(const char *v, unsigned long long max, unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (errno || end == v || *end || x > max)
        return -EINVAL;
    *out = x;
    return 0;
}

/* One token of an item: a setting of the server, of the current file, or a file name. */
static int token(struct esc_foe *s, int *file, char *t, char *err, size_t errlen)
{
    char *eq = strchr(t, '=');
    unsigned long long v = 0;
    if (eq)
        *eq++ = 0;
    if (eq && num(eq, 0xFFFFFFFFull, &v)) {
        snprintf(err, errlen, "foe: %s expects a number, got '%s'", t, eq);
        return -EINVAL;
    }
    struct esc_foe_file *f = *file >= 0 ? &s->f[*file] : NULL;
    if (eq && !strcmp(t, "busy"))
        s->busy_per_packet = (unsigned)v;
    else if (eq && !strcmp(t, "disk")) {
        if (v < s->used) {
            snprintf(err, errlen, "foe: disk=%llu is less than the %zu bytes its files hold", v, s->used);
            return -ENOSPC;
        }
        s->disk = v;
    }
    else if (!eq && !strcmp(t, "nocreate"))
        s->create = false;
    else if (f && !eq && !strcmp(t, "boot"))
        f->boot_only = true;
    else if (f && !eq && !strcmp(t, "ro"))
        f->read_only = true;
    else if (f && eq && !strcmp(t, "pw"))
        f->password = (uint32_t)v;
    else if (f && eq && !strcmp(t, "max")) {
        if (v < f->len) {
            snprintf(err, errlen, "foe: max=%llu is less than the %zu bytes '%s' holds", v, f->len, f->name);
            return -ENOSPC;
        }
        f->max = v;
    }
    else if (f && eq && !strcmp(t, "size")) {
        /* room first: the content is made only for a file the disk can take */
        size_t others = s->used - f->len;
        if (others > s->disk || v > s->disk - others) {
            snprintf(err, errlen, "foe: no room for %llu bytes of '%s' (disk %zu bytes, %zu used by "
                     "other files)", v, f->name, s->disk, others);
            return -ENOSPC;
        }
        uint8_t *d = malloc(v ? v : 1);
        if (!d)
            return -ENOMEM;
        for (size_t i = 0; i < v; i++)
            d[i] = (uint8_t)(i * 7 + 1);          /* a pattern a reader can check */
        int rc = esc_foe_put(s, f->name, d, v, v > f->max ? v : f->max, f->password,
                             f->boot_only, f->read_only);
        free(d);
        if (rc) {
            snprintf(err, errlen, "foe: no room for %llu bytes of '%s'", v, f->name);
            return rc;
        }
    } else if (!eq && *t) {
        /* a file named again is the same file: not replaced by an empty one */
        bool known = strlen(t) < ESC_FOE_NAME && esc_foe_find(s, t) >= 0;
        if (!known && (strlen(t) >= ESC_FOE_NAME || esc_foe_put(s, t, NULL, 0, ESC_FOE_FILE_MAX, 0, false, false))) {
            snprintf(err, errlen, "foe: cannot add file '%s' (name of at most %d bytes, %d files)",
                     t, ESC_FOE_NAME - 1, ESC_FOE_FILES);
            return -EINVAL;
        }
        *file = esc_foe_find(s, t);
        /* a file named again keeps its content but starts with fresh flags */
        s->f[*file].boot_only = s->f[*file].read_only = false;
    } else {
        snprintf(err, errlen, "foe: unknown setting '%s' (expected FILE, boot, ro, max=N, pw=N, "
                 "size=N, busy=N, disk=N or nocreate)", t);
        return -EINVAL;
    }
    return 0;
}

int takt_sim_foe(struct takt_sim *sim, const char *spec, char *err, size_t errlen)
{
    char buf[1024];
    if (!spec || strlen(spec) >= sizeof buf) {
        snprintf(err, errlen, "foe: expected a spec of at most %zu bytes", sizeof buf - 1);
        return -EINVAL;
    }
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL;
    for (char *item = strtok_r(buf, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
        char *colon = strchr(item, ':');
        unsigned long long k;
        /* K: the slave's position, from 0 as takt ecat slaves shows it */
        if (!colon || (*colon = 0, num(item, sim->n - 1, &k))) {
            snprintf(err, errlen, "foe: expected K:SETTINGS with K a slave position 0..%u, got '%s'",
                     sim->n - 1, item);
            return -EINVAL;
        }
        struct esc_foe *s = esc_foe_get(&sim->sl[k].esc);
        if (!s) {
            snprintf(err, errlen, "foe: the slave at position %llu (%s) has no FoE", k, sim->sl[k].name);
            return -EINVAL;
        }
        int file = -1;
        char *save2 = NULL;
        for (char *t = strtok_r(colon + 1, ",", &save2); t; t = strtok_r(NULL, ",", &save2)) {
            int rc = token(s, &file, t, err, errlen);
            if (rc)
                return rc;
        }
    }
    return 0;
}
