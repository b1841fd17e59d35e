/* The subcommands' mains: each dispatched from its row of subcommand_list.h. */
#ifndef SLAP_SUBCOMMANDS_H
#define SLAP_SUBCOMMANDS_H

#include <stddef.h>

/* A subcommand's main: argv[0] is its name. Returns the exit status (0, 1 or 2). */
typedef int (*subcommand_main)(int argc, char **argv);

/* slap merge and slap plot (subcommands.c). */
int merge_main(int argc, char **argv);
int plot_main(int argc, char **argv);
/* slap compare of results files (compare_cmd.c), its command line c already parsed (the
 * sides' words, n of them); slap compare --live is the run layer's compare_live_main. */
struct compare_cli;
int compare_files_main(struct compare_cli *c, char **words, int n);
/* slap trace-stats (tracestats_cmd.c): 0 done, 1 the trace could not be read or has a
 * malformed line, 2 bad usage. */
int tracestats_main(int argc, char **argv);
/* slap history (history_cmd.c): 0 done, 1 a --fail-if rule crossed or the store failed, 2 bad
 * usage, a file that does not import, or a series --fail-if cannot judge. */
int history_main(int argc, char **argv);

struct optdoc;
/* Each command's options as its man page shows them, from its rows: how many, at most max. */
size_t merge_docs(struct optdoc *out, size_t max);
size_t plot_docs(struct optdoc *out, size_t max);
size_t tracestats_docs(struct optdoc *out, size_t max);
size_t history_docs(struct optdoc *out, size_t max);

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
    const char *store; /* the store the groups' merged run is kept in; NULL: none */
};

/* slap merge over paths[0..n) as one run's groups: their workloads, loops and servers may
 * differ; no line per host (before prints the groups); out[] each sink's file (NULL: none).
 * The exit status as slap merge's. */
int merge_groups_run(char **paths, int n, const char *const *out, const struct merge_groups *g);

#endif
