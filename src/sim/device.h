/* The seam between the software ESC (esc*.c: registers, datagrams, SII, SM, FMMU, AL,
 * DC) and what a device is (device*.c, coe*.c, esi*.c: description from ESI, SII
 * image, object dictionary and CoE server, process behaviour). */
#ifndef TAKT_SIM_DEVICE_H
#define TAKT_SIM_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <takt/takt.h>

#define SIM_MAX_SM        8
#define SIM_MAX_FMMU      8
/* PDOs a device offers per direction. Nothing in the ESC bounds this (mapping objects
 * 0x1600-0x17FF / 0x1A00-0x1BFF allow 512 each, 0x1C12/0x1C13 assign up to 254); the
 * device's firmware and SII size do. Real drives offer dozens (the Elmo Gold drives of
 * the EC-Engineer fixture list 31 RxPDOs / 35 TxPDOs), so 64 each. Only the offered
 * ones are copied into a device instance (device.c), the rest stay untouched zero pages. */
#define SIM_MAX_PDO       64
#define SIM_MAX_PDO_ENTRY 32

enum sim_sm_type { SIM_SM_UNUSED = 0, SIM_SM_MBX_OUT = 1, SIM_SM_MBX_IN = 2,
                   SIM_SM_OUTPUTS = 3, SIM_SM_INPUTS = 4 };

struct sim_sm_desc {
    uint16_t start, len;      /* default start address and length (0 = set by PDOs) */
    uint8_t  control, enable; /* default control byte and enable flag (SII SM category) */
    uint8_t  type;            /* enum sim_sm_type */
};

struct sim_pdo_entry {
    uint16_t index;           /* 0 = padding/gap */
    uint8_t  sub, bits;
    uint16_t datatype;        /* CoE data type (0x0001 BOOL, 0x0007 UDINT, ...) */
    char     name[40];
};

struct sim_pdo {
    uint16_t index;           /* 0x16xx (Rx) / 0x1Axx (Tx) */
    int8_t   sm;              /* SM it is assigned to by default, -1 none */
    bool     fixed, mandatory;
    char     name[40];
    unsigned n;
    struct sim_pdo_entry e[SIM_MAX_PDO_ENTRY];
};

struct sim_dc_opmode {          /* ESI Dc/OpMode */
    char     name[24];          /* "DC", "FreeRun", "DcSync" */
    uint16_t assign_activate;   /* value for 0x0980/0x0981 (0 = no DC) */
    uint32_t cycle0, shift0;
};

/* What an ESI describes for one device (read-only after building). */
struct sim_device_desc {
    char     name[64];          /* "EL1004" */
    char     type[64];          /* order code / Type element */
    char     group[32];
    uint32_t vendor, product, revision, serial;
    uint16_t esc_type;          /* 0x0000 register value, e.g. 0x11 (ET1100) */
    uint8_t  n_fmmu_hw, n_sm_hw;/* FMMUs/SMs the ESC implements (0x0004/0x0005) */
    uint16_t ram_kb;
    uint16_t features;          /* 0x0008: DC supported 0x0004, 64-bit DC 0x0008 */
    unsigned n_sm;
    struct sim_sm_desc sm[SIM_MAX_SM];
    unsigned n_fmmu;
    uint8_t  fmmu_use[SIM_MAX_FMMU];  /* SII FMMU category: 1 outputs, 2 inputs, 3 SM status */
    unsigned n_rxpdo, n_txpdo;
    struct sim_pdo rxpdo[SIM_MAX_PDO], txpdo[SIM_MAX_PDO];
    /* bootstrap mailbox, SII words 0x14-0x17 (the ENI's Mailbox/BootStrap, ESI's
     * Eeprom/BootStrap); all zero = where the standard mailbox lies */
    uint16_t boot_out_start, boot_out_len, boot_in_start, boot_in_len;
    /* EEPROM size (ESI Eeprom/ByteSize; 0 = as small as the image allows, 2 KiB at
     * least): the SII image fills it, word 0x003E says it */
    uint32_t eeprom_bytes;
    /* SII PDO categories list only the default-assigned PDOs (sm >= 0): a big drive's
     * EEPROM holds no description of its whole offer, a master reads that over CoE */
    bool     sii_assigned_pdos_only;
    uint8_t  mbx_protocols;     /* SII word 0x1C */
    uint8_t  coe_details;       /* SII general +5: SDO, SDO info, PDO assign/config, CA */
    bool     dc_required;       /* refuses SAFEOP without SYNC0 active (AL 0x0030) */
    unsigned n_dc_opmode;
    struct sim_dc_opmode dc_opmode[4];
    char     behaviour[16];     /* "coupler", "di", "do", "ai", "servo" */
};

struct sim_device;             /* a device instance: desc + OD + CoE + process state */

/* Callbacks the ESC makes into its device. All are sans-I/O: now is passed in. */
struct sim_device_ops {
    /* The master wrote a complete mailbox message into the write mailbox (SM0).
     * The device may place one reply into `reply` (cap bytes, incl. the 6-byte
     * mailbox header) and returns its length, 0 for none; further replies are queued
     * inside the device and fetched with mbx_pending(). */
    size_t (*mbx_write)(struct sim_device *d, const uint8_t *msg, size_t len,
                        uint8_t *reply, size_t cap, takt_ns_t now);
    /* Next queued reply (e.g. emergency, next SDO segment), 0 if none. */
    size_t (*mbx_pending)(struct sim_device *d, uint8_t *reply, size_t cap, takt_ns_t now);
    /* AL state change request old -> new; return 0 to accept or an AL status code
     * (e.g. 0x001D invalid output configuration) to refuse. `esc` gives read access
     * to the ESC memory so the device can check SM/FMMU/DC settings against its PDOs. */
    uint16_t (*al_change)(struct sim_device *d, uint8_t from, uint8_t to,
                          const uint8_t *esc_mem, takt_ns_t now);
    /* Process data: outputs as last written by the master (SM of type OUTPUTS),
     * inputs to be filled (SM of type INPUTS). Called once per process-data access. */
    void (*process)(struct sim_device *d, const uint8_t *outputs, size_t out_len,
                    uint8_t *inputs, size_t in_len, takt_ns_t now);
    /* Optional. True when process() called at `now` with the same outputs as the last
     * call would change nothing: no input byte, no device state. The ESC then skips
     * the call (it checks its own side: outputs, input buffer, SM layout). */
    bool (*pd_idle)(struct sim_device *d, takt_ns_t now);
    /* Sizes of the process data images in bytes, from the current PDO assignment. */
    void (*pd_sizes)(struct sim_device *d, size_t *out_len, size_t *in_len);
    void (*destroy)(struct sim_device *d);
};

struct sim_device {
    const struct sim_device_ops *ops;
    const struct sim_device_desc *desc;
    uint8_t  *sii;              /* SII image (bytes), built from desc */
    size_t    sii_len;
};

/* Device catalogue (device*.c): built-in ESI files by short name ("ek1100", "el1004",
 * "el2004", "el3102", "servo"), an ESI file path, or a directory. */
int  sim_device_create(const char *name_or_path, struct sim_device **out, char *err, size_t errlen);
int  sim_device_from_desc(const struct sim_device_desc *desc, struct sim_device **out);
/* Build an SII image from a description (categories strings, general, FMMU, SM,
 * TxPDO, RxPDO, DC; checksum over words 0-6). Returns bytes written or -errno. */
int  sim_sii_build(const struct sim_device_desc *d, uint8_t *buf, size_t cap);

/* A network of device instances made here (tests); not public API: an application has
 * no way to make a struct sim_device. The network takes ownership. */
#include <takt/sim.h>
int takt_sim_create_devices(struct sim_device **devs, unsigned n, const struct takt_sim_opts *o,
                            struct takt_sim **out);
/* Another device at position k (0-based), as if unplugged and a new one plugged in (tests):
 * the network takes ownership of dev and destroys the old one; the slave restarts as
 * after power loss with dev's EEPROM image (the ESC keeps its memory size). */
int takt_sim_replace_device(struct takt_sim *s, unsigned k, struct sim_device *dev, takt_ns_t now);

#endif
