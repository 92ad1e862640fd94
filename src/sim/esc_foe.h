/* The simulated slave's FoE server (ETG.1000.6, File access over EtherCAT; internal to src/sim): files held in
 * memory per ESC, a firmware file writable only in BOOT, passwords, BUSY injection. */
#ifndef TAKT_SIM_ESC_FOE_H
#define TAKT_SIM_ESC_FOE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <takt/takt.h>

#define ESC_FOE_FILES    8
#define ESC_FOE_NAME     64
#define ESC_FOE_DISK     (4u << 20)    /* bytes all files together may hold (default) */
#define ESC_FOE_FILE_MAX (1u << 20)    /* bytes one file may hold (default) */
#define ESC_FOE_FIRMWARE "firmware.bin"

struct esc_foe_file {
    char     name[ESC_FOE_NAME];
    uint8_t *data;
    size_t   len, max;
    uint32_t password;        /* 0 = none */
    bool     boot_only;       /* writable only in BOOT (firmware) */
    bool     read_only;
    bool     used;
};

enum { ESC_FOE_IDLE, ESC_FOE_READING, ESC_FOE_WRITING };

struct esc_foe {
    struct esc_foe_file f[ESC_FOE_FILES];
    size_t   disk, used;      /* capacity and bytes held by all files */
    unsigned busy_per_packet; /* answer BUSY this often before each write ACK (flash erase) */
    bool     create;          /* a WRQ may create new files */
    /* the transfer in progress */
    uint8_t  st;
    int      file;
    uint32_t pkt;
    size_t   off, last_len;
    unsigned busy_left;
    char     wname[ESC_FOE_NAME]; /* the file being written (created when complete) */
    uint32_t wpass;
    uint8_t *wbuf;            /* a write is kept here until its last packet */
    size_t   wlen, wcap;
    /* statistics (tests) */
    unsigned n_busy, n_err, n_done;
};

struct sim_esc;
/* The server of e, made with the default files when the device advertises FoE; NULL
 * when it does not (or without memory). */
struct esc_foe *esc_foe_get(struct sim_esc *e);
void esc_foe_free(struct sim_esc *e);
/* One FoE request from the write mailbox (mbx_w bytes long: it sets the master's
 * segment size); the reply (if any) into reply, cap bytes (the read mailbox). Returns
 * the reply length or 0. */
size_t esc_foe_request(struct sim_esc *e, const uint8_t *msg, size_t len, size_t mbx_w,
                       uint8_t *reply, size_t cap);
/* A file by name, -1 if none. */
int esc_foe_find(const struct esc_foe *s, const char *name);
/* Add or replace a file (content may be NULL/0). 0, -ENOSPC or -ENOMEM. */
int esc_foe_put(struct esc_foe *s, const char *name, const void *data, size_t len, size_t max,
                uint32_t password, bool boot_only, bool read_only);

#endif
