/* Tree and text helpers shared by the ESI readers of the simulator (esi.c devices,
 * esi_dict.c dictionaries). */
#ifndef TAKT_SIM_ESI_XML_H
#define TAKT_SIM_ESI_XML_H

#include <stdbool.h>
#include <stddef.h>
#include <libxml/tree.h>

/* n is an element called name. */
bool esi_is(const xmlNode *n, const char *name);
/* First child element called name, NULL if none. */
xmlNode *esi_child(const xmlNode *n, const char *name);
/* Text of an element into buf, white space trimmed; "" when n is NULL or empty. */
const char *esi_text(const xmlNode *n, char *buf, size_t len);
/* "line N: ..." (the line of at; no prefix without) into err; returns rc. */
int esi_fail(char *err, size_t n, int rc, const xmlNode *at, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif
