/* For the tests of a reader that sleeps until woken: whether a thread of this process
 * is asleep (state S in /proc/self/task/TID/stat), that is past its last check and
 * inside the wait, so that what is done next must wake it. */
#ifndef TAKT_TEST_THREAD_STATE_H
#define TAKT_TEST_THREAD_STATE_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

static inline bool thread_sleeps(pid_t tid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');   /* the name may hold spaces and parentheses */
    return p && p[1] == ' ' && p[2] == 'S';
}

#endif
