/* Fuzz target: POWERLINK frame decoder. Whatever decodes must encode again and decode
 * to the same header and service, without reading past the input. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "plk/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A private copy of exactly `size` bytes, so ASan sees any overread. */
    uint8_t *f = malloc(size ? size : 1);
    if (!f)
        return 0;
    memcpy(f, data, size);
    struct plk_msg m, m2;
    char err[200];
    if (plk_frame_decode(f, size, &m, err, sizeof err) == 0) {
        uint8_t out[PLK_MAX_FRAME];
        static const uint8_t zero[6];
        int n = plk_frame_encode(out, sizeof out, &m);
        /* the one thing the encoder refuses: a PReq without a unicast destination */
        if (n == -EINVAL && m.mtyp == PLK_MTYP_PREQ && !memcmp(m.dst_mac, zero, 6)) {
            free(f);
            return 0;
        }
        if (n < PLK_MIN_FRAME)
            abort();
        if (plk_frame_decode(out, (size_t)n, &m2, err, sizeof err) != 0)
            abort();
        if (m2.mtyp != m.mtyp || m2.src != m.src || m2.dst != m.dst)
            abort();
        if (m.mtyp == PLK_MTYP_ASND && m2.u.asnd.svid != m.u.asnd.svid)
            abort();
        if (m.mtyp == PLK_MTYP_PRES && (m2.u.pres.size != m.u.pres.size ||
            memcmp(m2.u.pres.payload, m.u.pres.payload, m.u.pres.size)))
            abort();
    }
    (void)plk_mtyp_name(size ? data[0] : 0);
    free(f);
    return 0;
}
