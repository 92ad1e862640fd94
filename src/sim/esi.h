/* ESI (EtherCAT Slave Information, ETG.2000) reader: the subset a simulator needs to
 * build SII and object dictionary, the same route device makers take. */
#ifndef TAKT_SIM_ESI_H
#define TAKT_SIM_ESI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sim/device.h"
#include "sim/od.h"

/* Fictional vendor id of the ESI files takt ships (data/esi). Assigned ETG vendor ids
 * are small sequential numbers; 0x00746B74 ("tkt") is far above them. */
#define TAKT_SIM_VENDOR 0x00746B74u

struct sim_esi_device {
    struct sim_device_desc desc;
    struct sim_od dict;            /* objects of Profile/Dictionary (may be empty) */
};

/* Which device of a file (an ESI package may hold dozens): Type text (NULL = any),
 * revision (0 = any unless has_revision), product code (has_product), name (NULL =
 * any: the Type text or any <Name>, case-insensitive); the first <Device> that matches
 * all is taken. */
struct sim_esi_select {
    const char *type;
    uint32_t    revision;
    uint32_t    product;
    bool        has_product, has_revision;
    const char *name;
};

/* "EL1008", "#x03F03052" / "0x03F03052" (product code), either with ":REV" (revision,
 * a number), or ":REV" alone, into sel (pointing into buf, a copy of s). 0 or -EINVAL
 * with a message. */
int  sim_esi_select_parse(const char *s, struct sim_esi_select *sel, char *buf, size_t len,
                          char *err, size_t errlen);

/* Parse ESI text / a file. 0, or -TAKT_EXML / -ENOENT / -EINVAL / -ENOMEM with a message
 * in err naming the element and line. out->dict must be freed with sim_esi_free. */
int  sim_esi_parse(const char *xml, size_t len, const struct sim_esi_select *sel,
                   struct sim_esi_device *out, char *err, size_t errlen);
int  sim_esi_load(const char *path, const struct sim_esi_select *sel,
                  struct sim_esi_device *out, char *err, size_t errlen);
void sim_esi_free(struct sim_esi_device *d);

/* Directory of takt's own ESI files (TAKT_ESI_DIR, the source tree, or
 * <exe>/../share/takt/esi). Returns 0 and fills buf, or -ENOENT. */
int  sim_esi_dir(char *buf, size_t len);
/* Short names of the built-in catalogue, NULL-terminated. */
extern const char *const sim_device_names[];

/* internal: Profile/Dictionary into od (esi_dict.c); node is a libxml2 xmlNode. */
struct _xmlNode;
int  sim_esi_dictionary(struct _xmlNode *dict, struct sim_od *od, char *err, size_t errlen);
/* Behaviour from a description's shape: CiA 402 (0x6040) servo, analog inputs (>= 16-bit
 * TxPDO entries) ai, BOOL inputs di, outputs only do, else coupler. */
void sim_desc_guess_behaviour(struct sim_device_desc *d, const struct sim_od *od);
/* "#x1A00" / "6656" / "-5" */
long long sim_esi_number(const char *s, int *ok);

#endif
