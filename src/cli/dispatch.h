/* Which subcommand runs. */
#ifndef SLAP_DISPATCH_H
#define SLAP_DISPATCH_H

#include "slap/commands/subcommands.h"

/* slap compare, of files or --live. */
int compare_main(int argc, char **argv);
/* The main of the subcommand named name, or NULL when none is. */
subcommand_main subcommand_find(const char *name);

#endif
