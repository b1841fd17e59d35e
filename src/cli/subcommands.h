/* The subcommands' mains: each dispatched from its row of subcommand_list.h. */
#ifndef SLAP_SUBCOMMANDS_H
#define SLAP_SUBCOMMANDS_H

#include <stddef.h>

/* A subcommand's main: argv[0] is its name. Returns the exit status (0, 1 or 2). */
typedef int (*subcommand_main)(int argc, char **argv);

/* slap compare (compare_cmd.c). */
int compare_main(int argc, char **argv);
/* slap trace-stats (tracestats_cmd.c): 0 done, 1 the trace could not be read or has a
 * malformed line, 2 bad usage. */
int tracestats_main(int argc, char **argv);

struct results_doc;
struct results_merge_input;

/* What a groups run (groups.c) adds to slap merge's work: before the report, the merged
 * document and the inputs (its groups) handed to before, which may print and change the
 * document's description, and after_report once the report is printed. */
struct merge_groups {
    void (*before)(void *arg, struct results_doc *merged, const struct results_merge_input *in,
                   size_t n);
    void (*after_report)(void *arg); /* the report printed, the files not yet written */
    void *arg;
};

/* slap merge over paths[0..n) as one run's groups: their workloads, loops and servers may
 * differ; no line per host (before prints the groups); out[] each sink's file (NULL: none).
 * The exit status as slap merge's. */
int merge_groups_run(char **paths, int n, const char *const *out, const struct merge_groups *g);

/* The subcommand called name ("merge", "plot", "compare", ...), or NULL (memslap's too: main.c
 * reaches memslap first). */
subcommand_main subcommand_find(const char *name);

#endif
