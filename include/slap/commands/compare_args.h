/* slap compare's command line, shared by its two forms: results files, and --live. */
#ifndef SLAP_CLI_COMPARE_ARGS_H
#define SLAP_CLI_COMPARE_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "slap/output/compare.h"

#define COMPARE_MAX_THRESHOLDS 32

struct compare_args {
    const char *sides[COMPARE_MAX_RUNS]; /* as given: files, or NAME=TARGET with --live */
    size_t nsides;
    const char *json; /* --json FILE, or NULL */
    struct compare_threshold th[COMPARE_MAX_THRESHOLDS];
    size_t nth;
};

/* compare's command line: its own options (the rows of compare_cmd.c). */
struct compare_cli {
    struct compare_args args; /* --json, --fail-if */
    const char *rounds;       /* --live's --rounds, as given */
    const char *seed;         /* --live's --seed, as given */
    bool live;                /* --live */
    bool quiet;               /* -q */
};

/* compare's command line read into c (--live: the form whose other words are slap's options):
 * words its other words, n of them; run false after --help or a usage error (the status). */
int compare_parse(bool live, int argc, char **argv, struct compare_cli *c, char **words, int *n,
                  bool *run);
/* A one-line problem (with word quoted, when not NULL) and the --help hint: SLAP_EXIT_USAGE. */
int compare_usage(const char *problem, const char *word);

struct optdoc;
/* slap compare's options as its man page shows them, from its rows: how many, at most max. */
size_t compare_docs(struct optdoc *out, size_t max);
/* --fail-if's comma-separated thresholds, added to a: SLAP_EXIT_OK or SLAP_EXIT_USAGE (said). */
int compare_add_thresholds(struct compare_args *a, const char *list);
/* Each threshold judged, said on standard error: SLAP_EXIT_FAILED when one was crossed,
 * SLAP_EXIT_USAGE when one cannot be judged (its figure missing, one run a side, too few). */
int compare_judge(const struct compare_args *a, const struct compare_table *t);
/* The table printed (and written with --json), the thresholds judged: the exit status. */
int compare_conclude(const struct compare_args *a, const struct compare_table *t);

#endif
