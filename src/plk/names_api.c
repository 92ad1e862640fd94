/* Names of POWERLINK codes as public API (<takt/plk.h>): the same texts the library's
 * own messages use. */
#include <takt/plk.h>
#include "plk/frame.h"
#include "plk/mn.h"
#include "plk/sdo.h"

_Static_assert(TAKT_PLK_SDO_DATA_MAX == PLK_SDO_DATA_MAX, "one largest SDO value");

const char *takt_plk_nmt_cmd_name(unsigned cmd)
{
    return cmd <= 0xFF ? plk_nmt_cmd_name((uint8_t)cmd) : "?";
}

const char *takt_plk_sdo_abort_text(uint32_t code)
{
    return plk_sdo_abort_name(code);
}

const char *takt_plk_boot_step_name(int step)
{
    return step >= 0 && step < MNS_COUNT ? plk_mn_step_name((enum plk_mn_step)step) : "?";
}
