/* The control socket from the command line: where the running commands serve it and
 * how the tool verbs find it (docs/control.md). */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli_ctl.h"

/* -i packet:eth0 and -i eth0 are the same network: the socket is named by the bare
 * interface */
static const char *bare_iface(const char *iface)
{
    const char *k = iface ? strrchr(iface, ':') : NULL;
    return k ? k + 1 : iface;
}

int cli_ctl_serve(struct cli_ctx *c, const char *proto, const struct ctl_verb *verbs, void *ctx,
                  struct ctl_server **out)
{
    *out = NULL;
    if (cli_flag(c, "no-control") || c->link || !c->iface)
        return 0;
    char path[128];
    const char *p = cli_get(c, "control");
    if (!p) {
        if (ctl_default_path(path, sizeof path, proto, bare_iface(c->iface), false))
            return 0;   /* no XDG_RUNTIME_DIR: none by default (docs/control.md) */
        p = path;
    }
    char err[256];
    struct ctl_server_opts o = { .path = p, .proto = proto, .iface = bare_iface(c->iface), .verbs = verbs, .ctx = ctx };
    int rc = ctl_server_start(out, &o, err, sizeof err);
    /* the default place may be out of reach (a user namespace's root cannot write
     * /run): quietly none; a socket asked for, or a master already there, is said */
    if (rc && (cli_get(c, "control") || rc == -EADDRINUSE))
        fprintf(stderr, "takt %s %s: warning: no control socket: %s\n", c->cmd->area, c->cmd->verb, err);
    if (rc)
        return 0;
    fprintf(stderr, "takt %s %s: control socket %s\n", c->cmd->area, c->cmd->verb, p);
    return 0;
}

/* connect and say hello: 1 when a master of proto answers (pid in *pid), 0 when nothing
 * listens, -1 when something answered that is not one (err says what) */
static int try_master(const char *path, const char *proto, struct ctl_client **out, char *what,
                      size_t wl, char *err, size_t errlen)
{
    if (ctl_client_connect(out, path, err, errlen))
        return 0;
    json_object *req = json_object_new_object();
    json_object_object_add(req, "verb", json_object_new_string("hello"));
    json_object *r = ctl_client_call(*out, req, 5 * TAKT_NS_PER_S, err, errlen);
    json_object_put(req);
    json_object *v;
    const char *pr = r && json_object_object_get_ex(r, "proto", &v) ? json_object_get_string(v) : NULL;
    if (!pr || strcmp(pr, proto)) {
        if (r)
            snprintf(err, errlen, "%.120s: a %.40s master answers there, not a %s one", path, pr ? pr : "unknown", proto);
        json_object_put(r);
        ctl_client_close(*out);
        *out = NULL;
        return -1;
    }
    int pid = json_object_object_get_ex(r, "pid", &v) ? json_object_get_int(v) : 0;
    snprintf(what, wl, "pid %d, control socket %.120s", pid, path);
    json_object_put(r);
    return 1;
}

int cli_ctl_attach(struct cli_ctx *c, const char *proto, bool served, struct ctl_client **out)
{
    *out = NULL;
    if (c->link)      /* in-process: the caller's own link, no master beside it */
        return 0;
    const char *given = cli_get(c, "master");
    char paths[3][128], what[200], err[320] = "";
    int n = 0;
    if (given) {
        snprintf(paths[n++], sizeof paths[0], "%s", given);
    } else if (c->iface) {
        /* a running command's own --control: a master already serving there runs on
         * the interface this one is about to open */
        if (cli_get(c, "control"))
            snprintf(paths[n++], sizeof paths[0], "%s", cli_get(c, "control"));
        /* a master of this user's, then a service's */
        if (!ctl_default_path(paths[n], sizeof paths[0], proto, bare_iface(c->iface), false))
            n++;
        if (geteuid() != 0 && !ctl_default_path(paths[n], sizeof paths[0], proto, bare_iface(c->iface), true))
            n++;
    }
    int found = 0;
    const char *at = NULL;
    for (int i = 0; i < n && !found; i++) {
        found = try_master(paths[i], proto, out, what, sizeof what, err, sizeof err);
        at = paths[i];
        if (found < 0 && given)
            return cli_error(c, "%s", err);
        if (found < 0)
            found = 0;
    }
    if (!found) {
        if (given)
            return cli_error(c, "no master answers at %s (%s)", given, err[0] ? err : "nothing there");
        return 0;
    }
    (void)at;
    const char *onif = c->iface ? c->iface : "its interface";
    if (cli_flag(c, "direct")) {
        ctl_client_close(*out);
        *out = NULL;
        return cli_error(c, "a master runs on %s (%s): opening the interface beside it would disturb "
                         "its bus; leave out --direct and the verb goes through the master", onif, what);
    }
    if (!served) {
        ctl_client_close(*out);
        *out = NULL;
        return cli_error(c, "a master runs on %s (%s) and does not serve '%s %s' through its control "
                         "socket; opening the interface beside it would disturb its bus: stop the "
                         "master first", onif, what, c->cmd->area, c->cmd->verb);
    }
    return 0;
}

struct json_object *cli_ctl_call(struct cli_ctx *c, struct ctl_client *cl, struct json_object *req,
                                 double timeout_s)
{
    char err[1024];
    json_object *r = ctl_client_call(cl, req, (takt_ns_t)(timeout_s * 1e9), err, sizeof err);
    if (!r)
        cli_error(c, "%s", err);
    return r;
}
