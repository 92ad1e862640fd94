/* The control socket from the command line (docs/control.md): the options of the
 * running commands (--control, --no-control) and of the tool verbs (--master,
 * --direct), and how a verb finds the master running on its interface. */
#ifndef TAKT_CLI_CLI_CTL_H
#define TAKT_CLI_CLI_CTL_H

#include "cli/cli.h"
#include "cli/ctl.h"

#define CLI_CTL_SERVER_OPTS \
    { "control", 0, 1, "PATH", "serve the control socket at PATH (default /run/takt/PROTO-IF.sock " \
      "for root, else $XDG_RUNTIME_DIR/takt/PROTO-IF.sock; docs/control.md)" }, \
    { "no-control", 0, 0, NULL, "no control socket: the tool verbs cannot reach this master" }

#define CLI_CTL_CLIENT_OPTS \
    { "master", 0, 1, "SOCKET", "go through the running master's control socket SOCKET " \
      "(default: the one of -i, when a master answers there)" }, \
    { "direct", 0, 0, NULL, "open -i even without going through a master; refused when a " \
      "master runs on it (its bus is not to be disturbed)" }

/* Serve verbs on the command's control socket unless --no-control: 0 with *out NULL
 * (none asked, or it could not be made: said as a warning, the run goes on) or set. */
int cli_ctl_serve(struct cli_ctx *c, const char *proto, const struct ctl_verb *verbs, void *ctx,
                  struct ctl_server **out);

/* Before a tool verb opens -i: is a master of proto (its hello's name) running there?
 * 0 with *out NULL: none, open -i; 0 with *out connected to it (served: the verb goes
 * through it); else the exit status after a message: a master runs there and the verb
 * cannot go through it (served false, or --direct), or --master names a socket nobody
 * answers on. */
int cli_ctl_attach(struct cli_ctx *c, const char *proto, bool served, struct ctl_client **out);
/* One request to the attached master: the result (to be put), or NULL after the error
 * was said on stderr (as the direct path says it: "takt AREA VERB: ..."). */
struct json_object *cli_ctl_call(struct cli_ctx *c, struct ctl_client *cl, struct json_object *req,
                                 double timeout_s);

#endif
