/* takt link: echo and bench, the first end-to-end commands over a real link. */
#include "cli/cli.h"

const struct cli_cmd cli_cmds_link[] = {
    { 0 }
};
