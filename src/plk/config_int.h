/* Internals shared by config.c, config_text.c and config_cdc.c. */
#ifndef TAKT_PLK_CONFIG_INT_H
#define TAKT_PLK_CONFIG_INT_H

#include <stddef.h>

/* snprintf the message into err (if any) and return rc. */
int plk_config_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
