/* slap merge and slap plot: results files combined, reported and drawn. */
#ifndef SLAP_SUBCOMMANDS_H
#define SLAP_SUBCOMMANDS_H

/* A subcommand's main: argv[0] is its name. Returns the exit status (0, 1 or 2). */
typedef int (*subcommand_main)(int argc, char **argv);

/* slap compare (compare_cmd.c). */
int compare_main(int argc, char **argv);

/* The subcommand called name ("merge", "plot", "compare"), or NULL. */
subcommand_main subcommand_find(const char *name);

#endif
