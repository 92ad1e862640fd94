/* takt entry point; the command line is parsed and run in cli.c. */
#include "cli/cli.h"

int main(int argc, char **argv) { return cli_main(argc, argv); }
