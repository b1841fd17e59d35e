/*
 * slap's subcommands, one row each: the one place to add one. A row is
 * X(ID, name, main, usage, summary): `slap name` runs main (argv[0] the name); usage and
 * summary are its lines in `slap --help`. Generated from it: the dispatch
 * (subcommands.c), the list of `slap --help` (subcommand_list.c); checked against it: the
 * man page's synopsis and the bash completion (integration case docs_subcommands_everywhere).
 * memslap's main is NULL: main.c reaches it first, since argv[0] may name it too.
 */
#ifndef SLAP_CLI_SUBCOMMAND_LIST_H
#define SLAP_CLI_SUBCOMMAND_LIST_H

#include <stdio.h>

#define SLAP_SUBCOMMANDS(X)                                                                        \
    X(MERGE, "merge", merge_main,                                                                  \
      "merge RESULT.json... [--json FILE] [--csv FILE] [--svg FILE] [--hlog FILE]",                \
      "runs made together on several load hosts, as one")                                          \
    X(PLOT, "plot", plot_main, "plot RESULT.json... -o FILE.svg [--samples FILE]",                 \
      "a picture of one run or several")                                                           \
    X(SEARCH, "search", search_main, "search --slo 'p99<1ms' OPTIONS",                             \
      "the most load where p99 stays below 1ms")                                                   \
    X(COMPARE, "compare", compare_main,                                                            \
      "compare --live OPTIONS A=HOST B=HOST\ncompare A.json B.json",                               \
      "two targets in rounds interleaved (is B faster or slower than A, with 95%\n"                \
      "confidence), or results side by side (judged: several a side)")                             \
    X(TRACE_STATS, "trace-stats", tracestats_main, "trace-stats FILE",                             \
      "a trace's rate, mix, sizes and keys, without a server")                                     \
    X(HISTORY, "history", history_main, "history [--store LOCATION] [SERIES]",                     \
      "the runs a store keeps, and where each figure changed")                                     \
    X(MEMSLAP, "memslap", NULL, "memslap OPTIONS", "memslap's command line and report")

enum subcommand_id {
#define SUBCOMMAND_ID(id, name, main, usage, summary) SUBCOMMAND_##id,
    SLAP_SUBCOMMANDS(SUBCOMMAND_ID)
#undef SUBCOMMAND_ID
        SUBCOMMANDS
};

/* A subcommand as `slap --help` lists it. */
struct subcommand_doc {
    const char *name;
    const char *usage;   /* each form after "slap "; '\n' between forms */
    const char *summary; /* '\n' between lines */
};

extern const struct subcommand_doc subcommand_docs[SUBCOMMANDS];

/* `slap --help`'s list of the subcommands, from the rows. */
void subcommand_list_print(FILE *out);

#endif
