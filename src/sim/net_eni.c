/* Simulating exactly the slaves an ENI expects: a slave whose identity is in takt's
 * device catalogue is that device; any other is described from the ENI itself
 * (device_eni.c: identity, SyncManagers, mailboxes, PDOs, DC, the objects its CoE init
 * commands write) so a master configured by that ENI finds what it expects. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ecat/eni.h"
#include "sim/device_ext.h"
#include "sim/esi.h"
#include "sim/net.h"

/* A catalogue device with the same identity, if takt has one. */
static int from_catalogue(const struct ecat_ident *id, struct sim_device **out, const char **name)
{
    for (unsigned i = 0; sim_device_names[i]; i++) {
        struct sim_device *d = NULL;
        if (sim_device_create(sim_device_names[i], &d, NULL, 0) || !d)
            continue;
        if (d->desc->vendor == id->vendor && d->desc->product == id->product) {
            *out = d;
            *name = sim_device_names[i];
            return 0;
        }
        d->ops->destroy(d);
    }
    return -ENOENT;
}

int takt_sim_create_eni(const char *path, const struct takt_sim_opts *o,
                        struct takt_sim **out, char *err, size_t errlen)
{
    struct ecat_eni *eni = NULL;
    struct takt_sim *s = NULL;
    *out = NULL;
    int rc = ecat_eni_load(path, &eni, err, errlen);
    if (rc)
        return rc;
    if (!eni->n_slaves) {
        snprintf(err, errlen, "%s: the ENI lists no slaves", path);
        ecat_eni_free(eni);
        return -EINVAL;
    }
    rc = sim_net_alloc(&s, eni->n_slaves, o);
    unsigned k = 0;
    for (; !rc && k < eni->n_slaves; k++) {
        const struct ecat_eni_slave *sl = &eni->slave[k];
        struct sim_device *d = NULL;
        const char *name = NULL;
        if (from_catalogue(&sl->id, &d, &name)) {
            char why[200];
            name = "";                  /* not rebuilt from the catalogue after power loss */
            rc = sim_device_from_eni(sl, &d, why, sizeof why);
            if (rc)
                snprintf(err, errlen, "%s:%u: slave %u '%s': cannot build a device from the ENI: %s",
                         path, sl->line, k + 1, sl->name ? sl->name : "", why);
        }
        if (!rc && (rc = sim_net_add(s, k, d, name[0] ? name : d->desc->name))) {
            d->ops->destroy(d);
            snprintf(err, errlen, "slave %u: %s", k + 1, strerror(-rc));
        }
    }
    ecat_eni_free(eni);
    if (rc) {
        if (s) {
            s->n = k ? k - 1 : 0;       /* the failed slot holds nothing */
            takt_sim_destroy(s);
        }
        return rc;
    }
    s->make_dev = NULL;
    s->reach = s->n;
    sim_net_topology(s, 0);
    *out = s;
    return 0;
}
