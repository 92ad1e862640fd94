/* Inside cli_ecat_ctl*.c: the state of `takt ecat run`'s control verbs and the helpers
 * the handler files share (cli_ecat_ctl.c the table and most verbs, cli_ecat_ctl_file.c
 * the SII write and FoE, which move images and files). */
#ifndef TAKT_CLI_ECAT_CTL_INT_H
#define TAKT_CLI_ECAT_CTL_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <json-c/json.h>
#include "cli/cli_ctl.h"
#include "cli/cli_ecat.h"

struct cli_ecat_ctl {
    struct takt_ecat_master *m;
    struct ctl_server *srv;
    unsigned n, n_pd;
    struct takt_ecat_slave_info *info;
    uint8_t **sii;
    size_t *sii_len;
    struct takt_ecat_pd_entry *pd;
    char *eni;          /* the ENI-like description (ecat xml), written before the cycle */
    int64_t cycle_ns;
    /* a job of blocking library calls: an SII write (word by word through the cycle,
     * seconds for a large image) or a firmware update (BOOT, FoE, back); one at a time,
     * in a thread of its own: the server goes on serving meanwhile */
    pthread_t job_thread;
    bool job_joinable;
    atomic_bool job_busy;
    int (*job_fn)(struct cli_ecat_ctl *x, struct ctl_op *op);
    const char *job_what;     /* what runs, for a refusal: "an SII write", ... */
    struct ctl_op *job_op;
    unsigned job_pos, job_word;
    uint32_t job_password;
    char job_name[201];
    /* an SII image written in chunks: slave sii_open - 1 takes more from client sii_peer
     * until sii_open_until or until that client goes (a rescan is refused meanwhile: it
     * would read the image half written) */
    unsigned sii_open;
    takt_ns_t sii_open_until;
    struct ctl_peer sii_peer;
};

#define ARG(name, req, lo, hi, out) \
    do { char e_[256]; int64_t v_ = 0; \
         if (ctl_arg_int(ctl_call_req(k), name, req, lo, hi, &v_, e_, sizeof e_)) \
             return ctl_call_error(k, "%s", e_); \
         if (json_object_object_get_ex(ctl_call_req(k), name, NULL)) (out) = v_; } while (0)

/* the completion handed to the _async functions: the master's error text taken with it */
void ecat_done(void *ctx, int err, const uint8_t *data, size_t len);
/* answer an op: its error, or {} / {"data"} for a read (arg[0]) */
void finish_data(struct ctl_call *k, struct ctl_op *op);
/* queued, or it never will be (rc != 0): answered now */
int  queued(struct ctl_op *op, int rc);
/* the request's "pos", checked against the slaves: 0, or -1 answered */
int  pos_arg(struct ctl_call *k, struct cli_ecat_ctl *x, unsigned *pos);
/* cli_ecat_ctl_file.c */
int  ecat_ctl_sii_write(struct ctl_call *k, void *ctx);
/* NULL, or why the EEPROM interface is not free for a rescan now (an SII write runs or
 * has more chunks to come) */
const char *ecat_ctl_sii_in_use(struct cli_ecat_ctl *x, char *buf, size_t cap);
/* cli_ecat_ctl_eoe.c */
int  ecat_ctl_eoe_set_ip(struct ctl_call *k, void *ctx);
int  ecat_ctl_eoe_set_filter(struct ctl_call *k, void *ctx);
/* wait for the job thread to end (at stop) */
void ecat_ctl_job_join(struct cli_ecat_ctl *x);
int  ecat_ctl_foe_read(struct ctl_call *k, void *ctx);
int  ecat_ctl_foe_write(struct ctl_call *k, void *ctx);

#endif
