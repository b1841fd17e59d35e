/* The subcommands' mains: each dispatched from its row of subcommand_list.h. */
#ifndef SLAP_SUBCOMMANDS_H
#define SLAP_SUBCOMMANDS_H

/* A subcommand's main: argv[0] is its name. Returns the exit status (0, 1 or 2). */
typedef int (*subcommand_main)(int argc, char **argv);

/* slap compare (compare_cmd.c). */
int compare_main(int argc, char **argv);
/* slap trace-stats (tracestats_cmd.c): 0 done, 1 the trace could not be read or has a
 * malformed line, 2 bad usage. */
int tracestats_main(int argc, char **argv);

/* The subcommand called name ("merge", "plot", "compare", ...), or NULL (memslap's too: main.c
 * reaches memslap first). */
subcommand_main subcommand_find(const char *name);

#endif
