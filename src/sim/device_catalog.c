/* Device catalogue: takt's own ESI files by short name, any ESI file by path, and the
 * device list syntax "ek1100,el1004x4,servo" used by the network builder and the CLI. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sim/device_ext.h"
#include "sim/esi.h"

const char *const sim_device_names[] = { "ek1100", "el1004", "el2004", "el3102", "servo", "echo",
                                              "soe-drive", "eoe-device", NULL };

static bool is_dir(const char *p)
{
    struct stat st;
    return !stat(p, &st) && S_ISDIR(st.st_mode);
}

/* Search order: $TAKT_ESI_DIR, the source tree this file was built from (running from a
 * build directory), then next to the executable: installed, or a build directory. */
int sim_esi_dir(char *buf, size_t len)
{
    const char *env = getenv("TAKT_ESI_DIR");
    if (env && is_dir(env)) {
        snprintf(buf, len, "%s", env);
        return 0;
    }
    char src[PATH_MAX + 32];
    snprintf(src, sizeof src, "%s", __FILE__);
    char *slash = strrchr(src, '/');
    if (slash && src[0] == '/') {
        snprintf(slash, sizeof src - (size_t)(slash - src), "/../../data/esi");
        if (is_dir(src)) {
            snprintf(buf, len, "%s", src);
            return 0;
        }
    }
    /* installed: <bindir>/../share/takt/esi; build tree (source paths not absolute):
     * <build>/takt or <build>/tests/x with the build directory inside the source tree */
    static const char *const rel[] = { "/../share/takt/esi", "/../data/esi", "/../../data/esi" };
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *s = n > 0 ? (exe[n] = 0, strrchr(exe, '/')) : NULL;
    if (s) {
        *s = 0;
        for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
            snprintf(src, sizeof src, "%s%s", exe, rel[i]);
            if (is_dir(src)) {
                snprintf(buf, len, "%s", src);
                return 0;
            }
        }
    }
    return -ENOENT;
}

static bool known(const char *name)
{
    for (unsigned i = 0; sim_device_names[i]; i++)
        if (!strcmp(sim_device_names[i], name))
            return true;
    return false;
}

int sim_device_create(const char *name_or_path, struct sim_device **out, char *err, size_t errlen)
{
    char path[PATH_MAX + 64], selbuf[256];
    struct sim_esi_select sel, *psel = NULL;
    *out = NULL;
    if (known(name_or_path)) {
        char dir[PATH_MAX];
        if (sim_esi_dir(dir, sizeof dir)) {
            snprintf(err, errlen, "device '%s': takt's ESI directory not found (set TAKT_ESI_DIR "
                     "to the data/esi folder)", name_or_path);
            return -ENOENT;
        }
        snprintf(path, sizeof path, "%s/takt-%s.xml", dir, name_or_path);
    } else if (strchr(name_or_path, '/') || strstr(name_or_path, ".xml")) {
        snprintf(path, sizeof path, "%s", name_or_path);
        /* FILE@SELECTION picks one device of a file that has many (ESI packages) */
        char *at = strrchr(path, '@');
        if (at && !strchr(at, '/')) {
            *at++ = 0;
            int rc = sim_esi_select_parse(at, &sel, selbuf, sizeof selbuf, err, errlen);
            if (rc)
                return rc;
            psel = &sel;
        }
    } else {
        snprintf(err, errlen, "unknown device '%s': expected one of ek1100, el1004, el2004, "
                 "el3102, servo, echo, soe-drive, eoe-device or an ESI file path (FILE.xml@NAME, @#xPRODUCT, "
                 "@...:#xREVISION for one device of many)", name_or_path);
        return -ENOENT;
    }
    struct sim_esi_device *esi = malloc(sizeof *esi);
    if (!esi)
        return -ENOMEM;
    int rc = sim_esi_load(path, psel, esi, err, errlen);
    if (!rc) {
        rc = sim_device_new(&esi->desc, &esi->dict, out);
        if (rc)
            snprintf(err, errlen, "device '%s': cannot build it: %s", name_or_path, strerror(-rc));
        sim_esi_free(esi);
    }
    free(esi);
    return rc;
}

/* One item "name" or "namexN" (N >= 1). The count suffix is split off only when what
 * follows the last 'x' is all digits, so names containing an 'x' stay intact, and not
 * when that 'x' is the hex prefix of a device selection ("F.xml@0x1000", "@#x10"). */
static int parse_item(const char *s, size_t len, struct sim_device_spec *sp, char *err, size_t errlen)
{
    size_t name_len = len;
    sp->count = 1;
    for (size_t i = len; i-- > 0;) {
        if (isdigit((unsigned char)s[i]))
            continue;
        bool hex = s[i - (i > 0)] == '#' ||
                   (i >= 2 && s[i - 1] == '0' && (s[i - 2] == '@' || s[i - 2] == ':'));
        if (s[i] == 'x' && i + 1 < len && i > 0 && !hex) {
            unsigned long c = strtoul(s + i + 1, NULL, 10);
            if (c < 1 || c > 100000) {
                snprintf(err, errlen, "device list: count in '%.*s' must be 1..100000", (int)len, s);
                return -EINVAL;
            }
            sp->count = (unsigned)c;
            name_len = i;
        }
        break;
    }
    if (!name_len || name_len >= sizeof sp->name) {
        snprintf(err, errlen, "device list: empty or too long name in '%.*s'", (int)len, s);
        return -EINVAL;
    }
    memcpy(sp->name, s, name_len);
    sp->name[name_len] = 0;
    return 0;
}

int sim_device_list_parse(const char *s, struct sim_device_spec *out, unsigned max,
                          unsigned *n, char *err, size_t errlen)
{
    *n = 0;
    if (!s || !*s) {
        snprintf(err, errlen, "device list is empty: expected e.g. ek1100,el1004x4,servo");
        return -EINVAL;
    }
    while (*s) {
        size_t len = strcspn(s, ",");
        if (*n == max) {
            snprintf(err, errlen, "device list: more than %u items", max);
            return -EINVAL;
        }
        int rc = parse_item(s, len, &out[*n], err, errlen);
        if (rc)
            return rc;
        (*n)++;
        s += len;
        if (*s == ',' && !*++s) {
            snprintf(err, errlen, "device list ends with ','");
            return -EINVAL;
        }
    }
    return 0;
}
