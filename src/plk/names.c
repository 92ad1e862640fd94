/* Names of POWERLINK message types, services, NMT states and commands for logs and
 * CLI output (EPSG DS 301; the spellings follow Wireshark's epl dissector). */
#include "plk/frame.h"

const char *plk_mtyp_name(uint8_t mtyp)
{
    switch (mtyp) {
    case PLK_MTYP_SOC:  return "SoC";
    case PLK_MTYP_PREQ: return "PReq";
    case PLK_MTYP_PRES: return "PRes";
    case PLK_MTYP_SOA:  return "SoA";
    case PLK_MTYP_ASND: return "ASnd";
    case PLK_MTYP_AMNI: return "AMNI";
    case PLK_MTYP_AINV: return "AInv";
    default:            return "unknown";
    }
}

const char *plk_asnd_name(uint8_t svid)
{
    switch (svid) {
    case PLK_ASND_IDENT_RESPONSE:  return "IdentResponse";
    case PLK_ASND_STATUS_RESPONSE: return "StatusResponse";
    case PLK_ASND_NMT_REQUEST:     return "NMTRequest";
    case PLK_ASND_NMT_COMMAND:     return "NMTCommand";
    case PLK_ASND_SDO:             return "SDO";
    case PLK_ASND_SYNC_RESPONSE:   return "SyncResponse";
    default: return svid >= PLK_ASND_MANUF_MIN && svid <= PLK_ASND_MANUF_MAX
                    ? "ManufacturerSpecific" : "unknown";
    }
}

const char *plk_soa_svid_name(uint8_t svid)
{
    switch (svid) {
    case PLK_SOA_NO_SERVICE:     return "NoService";
    case PLK_SOA_IDENT_REQUEST:  return "IdentRequest";
    case PLK_SOA_STATUS_REQUEST: return "StatusRequest";
    case PLK_SOA_NMT_REQ_INVITE: return "NMTRequestInvite";
    case PLK_SOA_SYNC_REQUEST:   return "SyncRequest";
    case PLK_SOA_UNSPEC_INVITE:  return "UnspecifiedInvite";
    default: return svid >= PLK_ASND_MANUF_MIN ? "ManufacturerSpecific" : "unknown";
    }
}

const char *plk_nmt_cmd_name(uint8_t cmd)
{
    switch (cmd) {
    case PLK_NMT_CMD_START_NODE:             return "StartNode";
    case PLK_NMT_CMD_STOP_NODE:              return "StopNode";
    case PLK_NMT_CMD_ENTER_PREOP2:           return "EnterPreOperational2";
    case PLK_NMT_CMD_ENABLE_READY_TO_OP:     return "EnableReadyToOperate";
    case PLK_NMT_CMD_RESET_NODE:             return "ResetNode";
    case PLK_NMT_CMD_RESET_COMMUNICATION:    return "ResetCommunication";
    case PLK_NMT_CMD_RESET_CONFIGURATION:    return "ResetConfiguration";
    case PLK_NMT_CMD_SW_RESET:               return "SwReset";
    case PLK_NMT_CMD_GO_TO_STANDBY:          return "GoToStandby";
    case PLK_NMT_CMD_START_NODE_EX:          return "StartNodeEx";
    case PLK_NMT_CMD_STOP_NODE_EX:           return "StopNodeEx";
    case PLK_NMT_CMD_ENTER_PREOP2_EX:        return "EnterPreOperational2Ex";
    case PLK_NMT_CMD_ENABLE_READY_TO_OP_EX:  return "EnableReadyToOperateEx";
    case PLK_NMT_CMD_RESET_NODE_EX:          return "ResetNodeEx";
    case PLK_NMT_CMD_RESET_COMMUNICATION_EX: return "ResetCommunicationEx";
    case PLK_NMT_CMD_RESET_CONFIGURATION_EX: return "ResetConfigurationEx";
    case PLK_NMT_CMD_SW_RESET_EX:            return "SwResetEx";
    case PLK_NMT_CMD_NET_HOSTNAME_SET:       return "NetHostNameSet";
    case PLK_NMT_CMD_FLUSH_ARP_ENTRY:        return "FlushArpEntry";
    case PLK_NMT_CMD_PUBLISH_CONFIGURED:     return "PublishConfiguredNodes";
    case PLK_NMT_CMD_PUBLISH_ACTIVE:         return "PublishActiveNodes";
    case PLK_NMT_CMD_PUBLISH_PREOP1:         return "PublishPreOperational1";
    case PLK_NMT_CMD_PUBLISH_PREOP2:         return "PublishPreOperational2";
    case PLK_NMT_CMD_PUBLISH_READY_TO_OP:    return "PublishReadyToOperate";
    case PLK_NMT_CMD_PUBLISH_OPERATIONAL:    return "PublishOperational";
    case PLK_NMT_CMD_PUBLISH_STOPPED:        return "PublishStopped";
    case PLK_NMT_CMD_PUBLISH_NODE_STATES:    return "PublishNodeStates";
    case PLK_NMT_CMD_EMERGENCY_NEW:          return "EmergencyNew";
    case PLK_NMT_CMD_PUBLISH_TIME:           return "PublishTime";
    case PLK_NMT_CMD_INVALID_SERVICE:        return "InvalidService";
    default:                                 return "unknown";
    }
}
