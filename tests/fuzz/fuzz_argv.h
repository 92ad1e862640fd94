/* Shared by the command-line fuzz targets: the input as the argv that follows a fixed
 * prefix ("takt", or "takt plk cn"), split at NUL bytes (an empty string between two
 * NULs is an argument too), and stdout/stderr sent to /dev/null while the parser speaks
 * (help, usage errors). Header-only: each target is one program. */
#ifndef TAKT_FUZZ_ARGV_H
#define TAKT_FUZZ_ARGV_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_ARGS 24            /* after the prefix */
#define FUZZ_MAX_PREFIX 4

struct fuzz_argv {
    char *text;                     /* the input, NUL-terminated (free with fuzz_argv_free) */
    char *argv[FUZZ_MAX_PREFIX + FUZZ_MAX_ARGS + 1];
    int argc;
    FILE *out, *err;                /* the real stdout/stderr while quiet */
};

static inline void fuzz_argv_split(struct fuzz_argv *a, const uint8_t *data, size_t size,
                                   const char *const *prefix, int n_prefix)
{
    a->text = malloc(size + 1);
    if (!a->text || n_prefix > FUZZ_MAX_PREFIX)
        abort();
    memcpy(a->text, data, size);
    a->text[size] = 0;
    a->argc = 0;
    for (int i = 0; i < n_prefix; i++)
        a->argv[a->argc++] = (char *)prefix[i];
    for (size_t i = 0; i <= size && a->argc < n_prefix + FUZZ_MAX_ARGS;) {
        a->argv[a->argc++] = a->text + i;
        i += strlen(a->text + i) + 1;
    }
    a->argv[a->argc] = NULL;
}

static inline void fuzz_quiet(struct fuzz_argv *a)
{
    static FILE *null;
    if (!null && !(null = fopen("/dev/null", "w")))
        abort();
    a->out = stdout;
    a->err = stderr;
    stdout = stderr = null;
}

static inline void fuzz_loud(struct fuzz_argv *a)
{
    stdout = a->out;
    stderr = a->err;
}

static inline void fuzz_argv_free(struct fuzz_argv *a) { free(a->text); }

#endif
