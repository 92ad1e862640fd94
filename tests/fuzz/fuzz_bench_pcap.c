/* Fuzz target: arbitrary bytes as a capture file (pcap or pcapng) through takt analyze's
 * file reader and the analysis: damaged headers, block lengths, options and records
 * must give an error or a result, never a crash or a read past the buffer. */
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include "bench/analyze.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    FILE *f = fmemopen((void *)data, size, "rb");
    if (!f)
        return 0;
    struct analyze a;
    struct an_opts o = { .bin_ns = 1000, .range_ns = 20000 };
    analyze_init(&a, &o);
    int64_t prec;
    char err[256];
    if (analyze_stream(&a, f, "fuzz", &prec, err, sizeof err) == 0) {
        struct an_result r;
        if (analyze_finish(&a, &r) == 0)
            analyze_result_free(&r);
    }
    analyze_free(&a);
    return 0;
}
