/* CN NMT state machine (DS 301 7.1.4, as openPOWERLINK nmtk.c implements it):
 * one function per state judges an event and returns the next state. Pure. */
#include "plk/nmt_cn.h"
#include "plk/proto.h"

static uint8_t on_command(uint8_t state, uint8_t cmd)
{
    /* Reset commands are honoured in every state of the NMT_CS_EPL_MODE (DS 301
     * 7.1.4.1): the CN passes through its reset state and comes back listening. */
    switch (cmd) {
    case PLK_NMT_CMD_RESET_NODE:
    case PLK_NMT_CMD_RESET_COMMUNICATION:
    case PLK_NMT_CMD_RESET_CONFIGURATION:
    case PLK_NMT_CMD_SW_RESET:
        return PLK_NMT_NOT_ACTIVE;
    case PLK_NMT_CMD_STOP_NODE:
        /* NMT_CT8: StopNode from PreOp2, ReadyToOp, Operational */
        if (state == PLK_NMT_PRE_OPERATIONAL_2 || state == PLK_NMT_READY_TO_OPERATE ||
            state == PLK_NMT_OPERATIONAL)
            return PLK_NMT_CS_STOPPED;
        return state;
    case PLK_NMT_CMD_ENTER_PREOP2:
        /* NMT_CT9/CT10: back to PreOp2 from Operational or Stopped */
        if (state == PLK_NMT_OPERATIONAL || state == PLK_NMT_CS_STOPPED ||
            state == PLK_NMT_READY_TO_OPERATE)
            return PLK_NMT_PRE_OPERATIONAL_2;
        return state;
    default:
        return state;
    }
}

static uint8_t st_not_active(uint8_t s, enum plk_cn_ev ev, uint8_t cmd)
{
    switch (ev) {
    case PLK_CN_EV_SOA:
    case PLK_CN_EV_SOC:        return PLK_NMT_PRE_OPERATIONAL_1;  /* NMT_CT2 */
    case PLK_CN_EV_BASIC_ETH_TIMEOUT: return PLK_NMT_BASIC_ETHERNET;  /* NMT_CT3 */
    case PLK_CN_EV_COMMAND:    return on_command(s, cmd);
    default:                   return s;
    }
}

static uint8_t st_preop1(uint8_t s, enum plk_cn_ev ev, uint8_t cmd)
{
    switch (ev) {
    case PLK_CN_EV_SOC:        return PLK_NMT_PRE_OPERATIONAL_2;  /* NMT_CT4 */
    case PLK_CN_EV_COMMAND:    return on_command(s, cmd);
    default:                   return s;
    }
}

static uint8_t st_preop2(uint8_t s, enum plk_cn_ev ev, uint8_t cmd)
{
    switch (ev) {
    case PLK_CN_EV_COMMAND:
        /* NMT_CT5: EnableReadyToOperate; the application's readiness is checked by
         * the caller (oplk nmtu confirms it automatically). */
        if (cmd == PLK_NMT_CMD_ENABLE_READY_TO_OP)
            return PLK_NMT_READY_TO_OPERATE;
        return on_command(s, cmd);
    case PLK_CN_EV_CYCLE_ERROR: return PLK_NMT_PRE_OPERATIONAL_1;  /* NMT_CT11 */
    default:                   return s;
    }
}

static uint8_t st_ready(uint8_t s, enum plk_cn_ev ev, uint8_t cmd)
{
    switch (ev) {
    case PLK_CN_EV_COMMAND:
        if (cmd == PLK_NMT_CMD_START_NODE)
            return PLK_NMT_OPERATIONAL;                            /* NMT_CT7 */
        return on_command(s, cmd);
    case PLK_CN_EV_CYCLE_ERROR: return PLK_NMT_PRE_OPERATIONAL_1;
    default:                   return s;
    }
}

static uint8_t st_operational(uint8_t s, enum plk_cn_ev ev, uint8_t cmd)
{
    switch (ev) {
    case PLK_CN_EV_COMMAND:     return on_command(s, cmd);
    case PLK_CN_EV_CYCLE_ERROR: return PLK_NMT_PRE_OPERATIONAL_1;  /* NMT_CT11 */
    default:                    return s;
    }
}

static uint8_t st_stopped(uint8_t s, enum plk_cn_ev ev, uint8_t cmd)
{
    switch (ev) {
    case PLK_CN_EV_COMMAND:     return on_command(s, cmd);
    case PLK_CN_EV_CYCLE_ERROR: return PLK_NMT_PRE_OPERATIONAL_1;
    default:                    return s;
    }
}

static uint8_t st_basic_eth(uint8_t s, enum plk_cn_ev ev, uint8_t cmd)
{
    switch (ev) {
    case PLK_CN_EV_SOA:
    case PLK_CN_EV_SOC:
    case PLK_CN_EV_PLK_FRAME:   return PLK_NMT_PRE_OPERATIONAL_1;  /* NMT_CT12 */
    case PLK_CN_EV_COMMAND:     return on_command(s, cmd);
    default:                    return s;
    }
}

uint8_t plk_nmt_cn_next(uint8_t state, enum plk_cn_ev ev, uint8_t cmd)
{
    switch (state) {
    case PLK_NMT_NOT_ACTIVE:         return st_not_active(state, ev, cmd);
    case PLK_NMT_PRE_OPERATIONAL_1:  return st_preop1(state, ev, cmd);
    case PLK_NMT_PRE_OPERATIONAL_2:  return st_preop2(state, ev, cmd);
    case PLK_NMT_READY_TO_OPERATE:   return st_ready(state, ev, cmd);
    case PLK_NMT_OPERATIONAL:        return st_operational(state, ev, cmd);
    case PLK_NMT_CS_STOPPED:         return st_stopped(state, ev, cmd);
    case PLK_NMT_BASIC_ETHERNET:     return st_basic_eth(state, ev, cmd);
    default:
        /* GS_* reset states pass straight on to NotActive (DS 301 7.1.2) */
        return PLK_NMT_NOT_ACTIVE;
    }
}

const char *takt_plk_nmt_name(int state)
{
    switch (state) {
    case PLK_NMT_GS_OFF:                 return "OFF";
    case PLK_NMT_GS_INITIALISING:        return "INITIALISING";
    case PLK_NMT_GS_RESET_APPLICATION:   return "RESET_APPLICATION";
    case PLK_NMT_GS_RESET_COMMUNICATION: return "RESET_COMMUNICATION";
    case PLK_NMT_GS_RESET_CONFIGURATION: return "RESET_CONFIGURATION";
    case PLK_NMT_NOT_ACTIVE:             return "NOT_ACTIVE";
    case PLK_NMT_PRE_OPERATIONAL_1:      return "PRE_OPERATIONAL_1";
    case PLK_NMT_PRE_OPERATIONAL_2:      return "PRE_OPERATIONAL_2";
    case PLK_NMT_READY_TO_OPERATE:       return "READY_TO_OPERATE";
    case PLK_NMT_OPERATIONAL:            return "OPERATIONAL";
    case PLK_NMT_CS_STOPPED:             return "STOPPED";
    case PLK_NMT_BASIC_ETHERNET:         return "BASIC_ETHERNET";
    default:                             return "UNKNOWN";
    }
}
