/* Simulated device instances beyond the ESC seam (device.h): the instance layout and
 * what tests, the network builder and the CLI use — outputs, fault hooks, device lists. */
#ifndef TAKT_SIM_DEVICE_EXT_H
#define TAKT_SIM_DEVICE_EXT_H

#include "sim/coe.h"
#include "sim/device.h"
#include "sim/od.h"

#define SIM_PD_MAX 1024            /* bytes of outputs or inputs one device can have */
/* mapped entries per direction in the assigned PDOs (not offered PDOs x entries: the
 * image, SIM_PD_MAX bytes, bounds what can be mapped at once) */
#define SIM_PD_MAP_MAX 512

/* One mapped PDO entry in a process image: value bits <-> image bit offset. */
struct sim_pd_map {
    uint8_t *val;                  /* NULL for a gap */
    uint16_t bits;
    uint32_t off;                  /* bit offset in the image */
};

struct sim_servo {                 /* CiA 402 drive state (behaviour_servo.c) */
    double pos, vel;               /* counts, counts/s */
    int64_t last_ns;
    bool   fault, have_time;
    uint16_t last_cw;
};

/* The echo device (behaviour.c): its input numbers the frames that access its process
 * data, its output is the application's echo of that number; how old each new echo is
 * tells whether the application acted on a stale reply (docs/devices.md). */
struct sim_echo {
    struct od_entry *counter, *echo;
    uint32_t frame;                /* frames that accessed the process data so far */
    uint32_t last;                 /* the echo as last seen */
    uint64_t echoes, stale;        /* new echo values; those older than 1 frame */
    uint32_t age_max, stale_first_age;
    uint32_t stale_first_frame;    /* frame in which the first stale echo arrived */
};

enum sim_beh { SIM_BEH_NONE, SIM_BEH_DI, SIM_BEH_DO, SIM_BEH_AI, SIM_BEH_SERVO, SIM_BEH_ECHO };

/* Hot fields first: what pd_idle asks every cycle (ops, flags, the DI window) fills the
 * instance's first cache line, the wide snapshot and the mapped values (vals, mapped
 * first) its second, so an idle device costs two lines (dev_alloc aligns to 64). */
struct sim_dev {
    struct sim_device base;        /* first member: the ESC sees only this */
    uint8_t  al;                   /* AL state as last accepted */
    bool     plan_dirty;
    uint8_t  beh;                  /* enum sim_beh, from desc.behaviour */
    /* idle detection (pd_idle): the mapped values' bytes as the last process left them */
    bool     idle_ok, snap_ok;     /* a process ran since the last replan; snap usable */
    bool     snap_wide;            /* snap8 is the 8 bytes from snap_off: one compare */
    uint8_t  idle_al;              /* AL state at that process */
    uint16_t snap_off, snap_len;   /* range of d->vals holding every mapped value */
    int64_t  di_period_ns;         /* DI: counter step (default 10 ms) */
    int64_t  di_next_ns;           /* DI: when the counter steps next */
    uint64_t snap8;                /* snap_wide: the snapshot, beside the values */
    uint8_t  vals[512];            /* the dictionary's values (od_compact), mapped first */
    uint8_t  snap[64];             /* !snap_wide: the snapshot */
    unsigned n_out, n_in;
    size_t   out_len, in_len;      /* bytes */
    uint64_t n_process;
    size_t   last_out_len;
    /* behaviour parameters and state */
    uint64_t di_count;
    int64_t  ai_period_ns;         /* AI: waveform period (default 1 s) */
    unsigned n_bh;                 /* entries the behaviour drives, cached at setup */
    struct od_entry *bh[64];
    uint8_t  bh_ch[64];            /* channel number of each (DI) */
    struct sim_servo servo;
    struct sim_echo echo;
    /* fault injection: refuse the transition to `refuse_to` with AL code `refuse_code` */
    uint8_t  refuse_to;
    uint16_t refuse_code;
    /* output entries at [0, n_out), input entries right after them: one cache line
     * holds both for small devices */
    struct sim_pd_map map[2 * SIM_PD_MAP_MAX];
    uint8_t  last_out[SIM_PD_MAX];
    struct coe_server coe;
    struct sim_od od;
    struct sim_device_desc desc;   /* own copy */
    void    *alloc;                /* what dev_alloc got from calloc (cache colouring) */
};

static inline struct sim_dev *sim_dev_of(struct sim_device *d)
{
    return (struct sim_dev *)d;
}

/* Last outputs the master wrote (bytes of the output SM image); returns the length. */
size_t sim_device_outputs(struct sim_device *d, uint8_t *buf, size_t cap);
/* Fault hooks: every SDO access to `index` aborts with `abort_code` (0 clears);
 * a transition to `to` is refused with AL status `al_code` (0 clears); an emergency is
 * queued in the mailbox. Return 0 or -ENOENT / -ENOBUFS / -EINVAL. */
int  sim_device_fault_sdo(struct sim_device *d, uint16_t index, uint32_t abort_code);
void sim_device_fault_al(struct sim_device *d, uint8_t to, uint16_t al_code);
int  sim_device_emergency(struct sim_device *d, uint16_t code, uint8_t reg, const uint8_t data[5]);
/* The device's object dictionary (read/write for tests and the CLI). */
struct sim_od *sim_device_od(struct sim_device *d);
/* Rebuild the process image layout from 0x1C1x/0x16xx/0x1Axx (done automatically). */
void sim_device_replan(struct sim_dev *d);

/* A device shaped after one ENI slave: identity, SMs, the PDOs the master assigns or
 * configures, mailbox, DC, and the objects its CoE init commands write (so they all
 * succeed). desc_from_eni fills *extra (free with od_free) for sim_device_new. */
struct ecat_eni_slave;
int sim_device_desc_from_eni(const struct ecat_eni_slave *sl, struct sim_device_desc *d,
                             struct sim_od *extra, char *err, size_t errlen);
int sim_device_from_eni(const struct ecat_eni_slave *sl, struct sim_device **out,
                        char *err, size_t errlen);

/* Device list "ek1100,el1004x4,servo": names and counts, 0 or -EINVAL with a message. */
struct sim_device_spec {
    char     name[256];
    unsigned count;
};
int sim_device_list_parse(const char *s, struct sim_device_spec *out, unsigned max,
                          unsigned *n, char *err, size_t errlen);

/* internals shared by the device*.c, esi*.c and behaviour*.c files */
int  sim_device_new(const struct sim_device_desc *desc, const struct sim_od *dict,
                    struct sim_device **out);             /* device.c: dict may be NULL */
int  sim_device_build_od(struct sim_dev *d);          /* device_od.c */
void sim_behaviour_init(struct sim_dev *d);           /* behaviour.c */
void sim_behaviour_step(struct sim_dev *d, takt_ns_t now);
void sim_servo_init(struct sim_dev *d);                  /* behaviour_servo.c */
void sim_servo_step(struct sim_dev *d, takt_ns_t now);
uint16_t sim_servo_al_check(struct sim_dev *d, uint8_t from, uint8_t to, const uint8_t *esc);

/* The echo figures of an echo device; false for any other device. */
bool sim_device_echo_get(const struct sim_device *d, struct sim_echo *out);

/* True when sim_behaviour_step at `now` would do nothing (inline: asked every cycle). */
static inline bool sim_behaviour_idle(const struct sim_dev *d, takt_ns_t now)
{
    switch (d->beh) {
    case SIM_BEH_NONE: case SIM_BEH_DO:
        return true;
    case SIM_BEH_DI:              /* exactly di_step's early return */
        return now < d->di_next_ns && now >= d->di_next_ns - d->di_period_ns;
    default:                      /* waveforms, the drive and the echo counter move every cycle */
        return false;
    }
}

#endif
