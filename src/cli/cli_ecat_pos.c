/* Slaves by position as IgH's ethercat tool shows and takes them: POS, ALIAS:POS, the
 * error flag, and -p POS for the verbs whose POS is an argument. */
#include <stdio.h>
#include <string.h>
#include "cli/cli_ecat.h"

/* IgH's alias addressing (ethercat(1)): a slave is also ALIAS:REL, REL counted from the
 * nearest slave at or before it whose SII word 4 gives it an alias; slaves before any
 * alias are 0:POSITION. Walked in position order: feed every slave to cli_ecat_alias_next. */
void cli_ecat_alias_next(struct cli_ecat_alias_walk *w, unsigned pos, const struct takt_ecat_slave_info *s,
                         char *buf, size_t n)
{
    if (s->alias)
        w->alias = s->alias, w->base = pos;
    snprintf(buf, n, "%u:%u", w->alias, pos - w->base);
}

/* IgH's error flag: 'E' when the slave reports an AL error or an AL status code. */
char cli_ecat_error_flag(const struct takt_ecat_slave_info *s)
{
    return (s->al_state & TAKT_ECAT_STATE_ERROR) || s->al_code ? 'E' : '+';
}

int cli_ecat_parse_pos(struct cli_ctx *c, struct takt_ecat_master *m, const char *s, unsigned *pos)
{
    struct cli_ecat_tool t = { .m = m };
    return cli_ecat_tool_parse_pos(c, &t, s, pos);
}

int cli_ecat_tool_parse_pos(struct cli_ctx *c, const struct cli_ecat_tool *t, const char *s, unsigned *pos)
{
    long v, a = 0;
    unsigned n = cli_ecat_tool_count(t);
    if (n == 0)
        return cli_error(c, "no slave on %s", c->iface), -1;
    const char *colon = strchr(s, ':');
    if (!colon) {
        if (cli_parse_long(c, "slave position", s, 0, n - 1, &v))
            return -1;
        *pos = (unsigned)v;
        return 0;
    }
    char al[16];
    if ((size_t)(colon - s) >= sizeof al)
        return cli_error(c, "ALIAS:POS expects an alias 0..65535 before ':', got '%s'", s), -1;
    snprintf(al, sizeof al, "%.*s", (int)(colon - s), s);
    if (cli_parse_long(c, "alias", al, 0, 65535, &a) ||
        cli_parse_long(c, "relative position", colon + 1, 0, n - 1, &v))
        return -1;
    unsigned base = 0;
    if (a) {
        struct takt_ecat_slave_info si;
        for (base = 0; base < n; base++)
            if (!cli_ecat_tool_info(t, base, &si) && si.alias == a)
                break;
        if (base == n)
            return cli_error(c, "no slave on %s has alias %ld (ecat slaves shows ALIAS:POS "
                             "in its second column)", c->iface ? c->iface : "the link", a), -1;
    }
    if (base + (unsigned long)v >= n)
        return cli_error(c, "%s: the network has %u slaves, alias %ld is at position %u", s, n,
                         a, base), -1;
    *pos = base + (unsigned)v;
    return 0;
}

int cli_ecat_pos_option(struct cli_ctx *c, int at, char **av, int cap)
{
    const char *p = cli_get(c, "position");
    if (!p)
        return 0;
    if (c->argc < at || c->argc + 1 >= cap)
        return cli_usage_error(c, "expected %s (with -p POS, without the POS)", c->cmd->args);
    for (int i = 0, k = 0; i <= c->argc; i++) {
        if (i == at)
            av[k++] = (char *)p;
        if (i < c->argc)
            av[k++] = c->argv[i];
    }
    c->argv = av;
    c->argc++;
    c->argv[c->argc] = NULL;
    return 0;
}
