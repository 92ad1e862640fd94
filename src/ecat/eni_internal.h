/* Shared by the ENI reader (eni.c), writer (eni_write.c) and helpers (eni_util.c). */
#ifndef TAKT_ECAT_ENI_INTERNAL_H
#define TAKT_ECAT_ENI_INTERNAL_H

#include "ecat/eni.h"

/* Every allocation of an ecat_eni is a block in its arena, freed together. */
void *eni_alloc(struct ecat_eni *eni, size_t n);
char *eni_strdup(struct ecat_eni *eni, const char *s);
struct ecat_eni *eni_new(void);
/* CoE type code for an ENI DataType text ("UINT" -> 6, "BIT" -> 1), 0 unknown. */
uint16_t eni_type_code(const char *name);

#endif
