/* Fuzz target: arbitrary bytes as a sequence of captured frames into the analyzer.
 * Input layout: repeated [u16 length][u32 time delta ns][frame bytes]. */
#include <stdint.h>
#include <stddef.h>
#include "bench/analyze.h"
#include "util/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct analyze a;
    struct an_opts o = { .bin_ns = 1000, .range_ns = 20000 };
    analyze_init(&a, &o);
    int64_t ts = 0;
    size_t pos = 0;
    while (pos + 6 <= size) {
        size_t len = get_le16(data + pos);
        ts += get_le32(data + pos + 2);
        pos += 6;
        if (len > size - pos)
            len = size - pos;
        analyze_frame(&a, ts, data + pos, len);
        pos += len;
    }
    struct an_result r;
    if (analyze_finish(&a, &r) == 0)
        analyze_result_free(&r);
    analyze_free(&a);
    return 0;
}
