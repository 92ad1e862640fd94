/* Names and meanings of EtherCAT codes for messages: commands, AL states, AL status
 * codes (ETG.1000.6 Table 11) and SDO abort codes (ETG.1000.6 5.6.2). */
#include <stddef.h>
#include "ecat/proto.h"
#include "util/wire.h"

static const char *const cmd_names[] = {
    [ECAT_NOP] = "NOP",   [ECAT_APRD] = "APRD", [ECAT_APWR] = "APWR", [ECAT_APRW] = "APRW",
    [ECAT_FPRD] = "FPRD", [ECAT_FPWR] = "FPWR", [ECAT_FPRW] = "FPRW",
    [ECAT_BRD] = "BRD",   [ECAT_BWR] = "BWR",   [ECAT_BRW] = "BRW",
    [ECAT_LRD] = "LRD",   [ECAT_LWR] = "LWR",   [ECAT_LRW] = "LRW",
    [ECAT_ARMW] = "ARMW", [ECAT_FRMW] = "FRMW",
};
_Static_assert(TAKT_ARRAY_SIZE(cmd_names) == ECAT_CMD_COUNT, "one name per command");

const char *ecat_cmd_name(unsigned cmd)
{
    if (cmd < ECAT_CMD_COUNT)
        return cmd_names[cmd];
    return cmd == 0xFF ? "EXT" : "unknown";
}

const char *takt_ecat_al_state_name(unsigned state)
{
    switch (state & AL_STATE_MASK) {
    case AL_INIT:   return "INIT";
    case AL_PREOP:  return "PREOP";
    case AL_BOOT:   return "BOOT";
    case AL_SAFEOP: return "SAFEOP";
    case AL_OP:     return "OP";
    case 0:         return "NONE";
    default:        return "unknown";
    }
}

struct code_text { uint32_t code; const char *text; };

/* ETG.1000.6 Table 11 (the same texts as SOEM ec_print.c, ethercrab al_status_code.rs) */
static const struct code_text al_codes[] = {
    { 0x0000, "no error" },
    { 0x0001, "unspecified error" },
    { 0x0002, "no memory" },
    { 0x0003, "invalid device setup" },
    { 0x0011, "invalid requested state change" },
    { 0x0012, "unknown requested state" },
    { 0x0013, "bootstrap not supported" },
    { 0x0014, "no valid firmware" },
    { 0x0015, "invalid mailbox configuration (bootstrap)" },
    { 0x0016, "invalid mailbox configuration" },
    { 0x0017, "invalid sync manager configuration" },
    { 0x0018, "no valid inputs available" },
    { 0x0019, "no valid outputs" },
    { 0x001A, "synchronization error" },
    { 0x001B, "sync manager watchdog" },
    { 0x001C, "invalid sync manager types" },
    { 0x001D, "invalid output configuration" },
    { 0x001E, "invalid input configuration" },
    { 0x001F, "invalid watchdog configuration" },
    { 0x0020, "slave needs cold start" },
    { 0x0021, "slave needs INIT" },
    { 0x0022, "slave needs PREOP" },
    { 0x0023, "slave needs SAFEOP" },
    { 0x0024, "invalid input mapping" },
    { 0x0025, "invalid output mapping" },
    { 0x0026, "inconsistent settings" },
    { 0x0027, "free-run not supported" },
    { 0x0028, "sync mode not supported" },
    { 0x0029, "free-run needs 3-buffer mode" },
    { 0x002A, "background watchdog" },
    { 0x002B, "no valid inputs and outputs" },
    { 0x002C, "fatal sync error" },
    { 0x002D, "no sync error" },
    { 0x0030, "invalid DC SYNC configuration" },
    { 0x0031, "invalid DC latch configuration" },
    { 0x0032, "PLL error" },
    { 0x0033, "DC sync IO error" },
    { 0x0034, "DC sync timeout error" },
    { 0x0035, "DC invalid sync cycle time" },
    { 0x0036, "DC invalid SYNC0 cycle time" },
    { 0x0037, "DC invalid SYNC1 cycle time" },
    { 0x0041, "mailbox AoE error" },
    { 0x0042, "mailbox EoE error" },
    { 0x0043, "mailbox CoE error" },
    { 0x0044, "mailbox FoE error" },
    { 0x0045, "mailbox SoE error" },
    { 0x004F, "mailbox VoE error" },
    { 0x0050, "EEPROM no access" },
    { 0x0051, "EEPROM error" },
    { 0x0060, "slave restarted locally" },
    { 0x0061, "device identification value updated" },
};

/* ETG.1000.6 5.6.2, CiA 301 (the same texts as SOEM ec_print.c) */
static const struct code_text sdo_aborts[] = {
    { 0x05030000, "toggle bit not changed" },
    { 0x05040000, "SDO protocol timeout" },
    { 0x05040001, "client/server command specifier not valid or unknown" },
    { 0x05040005, "out of memory" },
    { 0x06010000, "unsupported access to an object" },
    { 0x06010001, "attempt to read a write-only object" },
    { 0x06010002, "attempt to write a read-only object" },
    { 0x06010003, "subindex cannot be written, SI0 must be 0 for write access" },
    { 0x06010004, "complete access not supported for variable-length objects" },
    { 0x06010005, "object length exceeds mailbox size" },
    { 0x06010006, "object mapped to RxPDO, SDO download blocked" },
    { 0x06020000, "object does not exist in the object dictionary" },
    { 0x06040041, "object cannot be mapped into the PDO" },
    { 0x06040042, "number and length of mapped objects exceed the PDO length" },
    { 0x06040043, "general parameter incompatibility" },
    { 0x06040047, "general internal incompatibility in the device" },
    { 0x06060000, "access failed due to a hardware error" },
    { 0x06070010, "data type does not match, length of service parameter does not match" },
    { 0x06070012, "data type does not match, length of service parameter too high" },
    { 0x06070013, "data type does not match, length of service parameter too low" },
    { 0x06090011, "subindex does not exist" },
    { 0x06090030, "value range of parameter exceeded" },
    { 0x06090031, "value of parameter written too high" },
    { 0x06090032, "value of parameter written too low" },
    { 0x06090036, "maximum value is less than minimum value" },
    { 0x08000000, "general error" },
    { 0x08000020, "data cannot be transferred or stored to the application" },
    { 0x08000021, "data cannot be transferred: local control" },
    { 0x08000022, "data cannot be transferred: present device state" },
    { 0x08000023, "object dictionary dynamic generation failed or no dictionary present" },
};

static const char *lookup(const struct code_text *t, size_t n, uint32_t code)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].code == code)
            return t[i].text;
    return "unknown code";
}

const char *takt_ecat_al_status_text(unsigned code)
{
    return lookup(al_codes, TAKT_ARRAY_SIZE(al_codes), code);
}

const char *takt_ecat_sdo_abort_text(uint32_t code)
{
    return lookup(sdo_aborts, TAKT_ARRAY_SIZE(sdo_aborts), code);
}
