/* takt ecat top's refresh from the view (cli_ecat_view.h): per slave its state, AL
 * status code, the WKC of its frame and its DC difference, under the master's figures.
 * On a terminal the screen is cleared first (ANSI: cursor home, erase below), no curses;
 * piped, each refresh opens with a line carrying its time. */
#include <inttypes.h>
#include <string.h>
#include "cli/cli_ecat.h"
#include "cli/cli_ecat_view.h"

int ecat_verb_top(const struct ctl_view *v, FILE *out, bool tty, const char *stamp)
{
    const struct takt_ecat_master_stats *s = &v->st;
    char st[200];
    if (tty)
        fputs("\033[H\033[J", out);
    else
        fprintf(out, "--- %s\n", stamp);
    fprintf(out, "takt ecat top on %s  %s  cycle %.0f us  state %s\n", v->link, tty ? stamp : "",
            v->cycle_ns / 1e3, takt_ecat_master_state_text(s, st, sizeof st));
    fprintf(out, "cycles %" PRIu64 "  overruns %" PRIu64 "  frames sent %" PRIu64 " lost %" PRIu64
            " (%.1f/s over 10 s)  unmatched %" PRIu64 "  WKC errors %" PRIu64 "\n", s->cycles,
            v->loop.overruns, s->frames_sent, s->frames_lost, s->loss_rate[1], s->frames_unmatched,
            s->wkc_errors);
    if (v->stale)
        fprintf(out, "frames and image: an older copy (the running cycle published nothing within the wait)\n");
    if (v->dc)
        fprintf(out, "DC sync error %" PRId64 " ns (max in OP %" PRId64 " ns)\n", s->dc_sync_err_ns,
                s->dc_sync_err_max_ns);
    fprintf(out, "%-4s %-7s %-3s %-8s %-5s %-9s %-10s %s\n", "POS", "STATE", "ERR", "AL CODE", "FRAME",
            "WKC", "DC DIFF", "NAME");
    for (unsigned i = 0; i < v->n_slaves; i++) {
        const struct takt_ecat_slave_state *l = &v->slaves[i].live;
        char wkc[24] = "-", dc[24] = "-", name[4 * 64];
        for (unsigned k = 0; k < v->n_frames; k++)
            if (v->frames[k].frame == l->frame && v->frames[k].n_slaves &&
                i >= v->frames[k].first_slave && i < v->frames[k].first_slave + v->frames[k].n_slaves) {
                if (v->frames[k].wkc_last < 0)
                    snprintf(wkc, sizeof wkc, "-/%u", v->frames[k].wkc_expected);
                else
                    snprintf(wkc, sizeof wkc, "%d/%u", v->frames[k].wkc_last, v->frames[k].wkc_expected);
                break;
            }
        if (l->dc_diff_ns >= 0)
            snprintf(dc, sizeof dc, "%" PRId32 " ns", l->dc_diff_ns);
        fprintf(out, "%-4u %-7s %-3s 0x%04X   %-5u %-9s %-10s %s\n", i,
                l->present ? takt_ecat_al_state_name(l->al_state) : "gone",
                l->al_state & TAKT_ECAT_STATE_ERROR ? "E" : "", l->al_code, l->frame, wkc, dc,
                cli_ecat_name_text(v->slaves[i].id.name, name, sizeof name));
    }
    fflush(out);
    return 0;
}
