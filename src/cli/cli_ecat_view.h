/* What IgH's verbs for a running master show (takt ecat master, data, domains, graph,
 * cstruct, top): a view filled from a master in this process (cli_ecat_view.c) or from
 * a control socket's answer, and the renderers from it to text or JSON (cli_ecat_igh.c,
 * cli_ecat_top.c). A renderer reads only the view, so each verb is the same over either
 * source. */
#ifndef TAKT_CLI_ECAT_VIEW_H
#define TAKT_CLI_ECAT_VIEW_H

#include <stdio.h>
#include <takt/ecat.h>
#include <takt/rt.h>

struct json_object;

struct ctl_slave {
    struct takt_ecat_slave_info id;    /* identity, sizes and offsets, from the scan */
    struct takt_ecat_slave_state live; /* as the cycle last published it */
};

struct ctl_view {
    char     link[32];
    uint8_t  mac[6];
    int64_t  cycle_ns;
    bool     dc;
    struct takt_ecat_master_stats st;
    bool     loop_running;             /* a cycle thread runs: loop below is its */
    struct takt_rt_loop_info loop;
    unsigned n_slaves;
    struct ctl_slave *slaves;
    unsigned n_frames;
    struct takt_ecat_frame_info frames[TAKT_ECAT_MAX_FRAMES];
    bool     image_laid;               /* the image is laid out (SAFEOP/OP, configure) */
    bool     stale;                    /* the running cycle published nothing within the
                                          reader's wait: frames and image are an older copy */
    size_t   image_len;
    uint8_t *image;
    unsigned n_pd;
    struct takt_ecat_pd_entry *pd;
};

/* Everything, from a master no cycle thread runs on (identity and process data entries
 * are the cycle's); then ctl_view_refresh from any thread while it runs. 0 or -ENOMEM. */
int  ctl_view_fill(struct ctl_view *v, struct takt_ecat_master *m, int64_t cycle_ns);
/* The published parts again: statistics, states, frames, image, the loop's counters. */
void ctl_view_refresh(struct ctl_view *v, struct takt_ecat_master *m);
/* The same from any thread while the cycle runs, with the identities and entries the
 * caller copied before it started (the control socket's view verbs). 0 or -ENOMEM. */
int  ctl_view_fill_copies(struct ctl_view *v, struct takt_ecat_master *m, int64_t cycle_ns,
                          const struct takt_ecat_slave_info *info, unsigned n,
                          const struct takt_ecat_pd_entry *pd, unsigned n_pd);
void ctl_view_free(struct ctl_view *v);

/* The view as the control socket sends it (cli_ecat_view_json.c), and back: 0, or -1
 * with what was expected and what came in err (v then empty). A view from a socket is
 * checked so that the renderers index only within it. */
struct json_object *ctl_view_to_json(const struct ctl_view *v);
int  ctl_view_from_json(struct json_object *o, struct ctl_view *v, char *err, size_t errlen);

/* The renderers (0, or 1 after an error said on stderr). */
int ecat_verb_master(const struct ctl_view *v, FILE *out);
int ecat_verb_domains(const struct ctl_view *v, FILE *out);
/* entries: per PDO entry with its name and value, else the image as hex lines */
int ecat_verb_data(const struct ctl_view *v, FILE *out, bool entries);
int ecat_verb_graph(const struct ctl_view *v, FILE *out);
/* guard: the header's include guard and prefix of its names ("TAKT_PD") */
int ecat_verb_cstruct(const struct ctl_view *v, FILE *out, const char *prefix);
int ecat_verb_version(FILE *out);
/* One refresh of top: tty: clear the screen first; else a line with the time first. */
int ecat_verb_top(const struct ctl_view *v, FILE *out, bool tty, const char *stamp);
struct json_object *ecat_view_master_json(const struct ctl_view *v);
struct json_object *ecat_view_domains_json(const struct ctl_view *v);
struct json_object *ecat_view_data_json(const struct ctl_view *v);
/* A name as a C identifier: letters, digits and '_' (others become '_', runs of them
 * one), not starting with a digit, never empty ("entry" then). */
void ecat_c_ident(const char *name, char *buf, size_t n);
/* The value of entry e in image (up to 64 bits, little-endian on the wire). */
uint64_t ecat_view_value(const struct ctl_view *v, const struct takt_ecat_pd_entry *e);

#endif
