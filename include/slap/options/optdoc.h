/*
 * An option as its documentation shows it, made from its row: slap's and memslap's tables
 * (options.c, memslap.c) and the subcommands' struct subarg rows. slap_man (man/slap_man.c)
 * writes each man page's OPTIONS from these, so the names, the value's name and --help's line
 * have one source: the row.
 */
#ifndef SLAP_OPTIONS_OPTDOC_H
#define SLAP_OPTIONS_OPTDOC_H

#include <stddef.h>

#define OPTDOC_NAMES 2     /* a short name and a long one, or two spellings */
#define OPTDOC_NAME_MAX 40 /* "--trace_value_max" and the like, with their dashes */
#define OPTDOC_MAX 128     /* the rows of the largest table */

struct optdoc {
    char name[OPTDOC_NAMES][OPTDOC_NAME_MAX]; /* as --help shows them ("-s", "--servers");
                                                 "" where there is none */
    const char *arg;                          /* the value's name ("LIST"); NULL for a flag */
    const char *help;                         /* its --help text */
};

/* The option's key in the man pages' texts (man/options.roff): its long name, or its only. */
const char *optdoc_key(const struct optdoc *d);

/* slap's options, in the table's order, into out (max entries): how many. */
size_t options_docs(struct optdoc *out, size_t max);
/* memslap's (slap memslap), in its table's order. */
size_t memslap_docs(struct optdoc *out, size_t max);

#endif
