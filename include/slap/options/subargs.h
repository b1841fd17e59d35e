/* The subcommands' own options, one row each: one parser, one --help, one way to refuse. */
#ifndef SLAP_CLI_SUBARGS_H
#define SLAP_CLI_SUBARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum subarg_kind {
    SUBARG_FLAG, /* no value: the bool at offset set true */
    SUBARG_FILE, /* a file name (never empty): the const char * at offset */
    SUBARG_TEXT, /* a value as given, checked by the command: the const char * at offset */
    SUBARG_CALL, /* a value handed to take as it comes (a repeated or checked option) */
};

/* One option of a subcommand. */
struct subarg {
    const char *name;  /* "--json", "-o"; in a long name '-' and '_' are one */
    const char *alias; /* another spelling ("--output", "-q"), or NULL */
    const char *value; /* the value's name in --help ("FILE"); NULL for a flag */
    enum subarg_kind kind;
    size_t offset;                              /* FLAG, FILE, TEXT: in the command's args */
    int (*take)(void *args, const char *value); /* CALL: SLAP_EXIT_OK, or the status (said) */
    const char *help;                           /* its --help, '\n' between lines */
};

/* A subcommand's command line: its options, and the words of its --help around them. */
struct subargs_spec {
    const char *name;  /* "merge": messages begin "slap merge: " */
    const char *intro; /* --help before the options: the usage, what the command does */
    const char *outro; /* after them: exit status, examples */
    const struct subarg *rows;
    size_t count;
    bool slap_options; /* a word not its own is one of slap's options, kept among the operands
                          (search, compare --live); otherwise an unknown option is refused */
};

struct optdoc;
/* The rows as their documentation shows them (a name and its alias), at most max: how many. */
size_t subargs_docs(const struct subargs_spec *spec, struct optdoc *out, size_t max);

/* "slap NAME: problem 'word'" (word quoted, when not NULL) and the --help hint: exit 2. */
int subargs_usage(const struct subargs_spec *spec, const char *problem, const char *word);

/* The --help: intro, a line (or more) per row, outro. */
void subargs_help(const struct subargs_spec *spec, FILE *out);

/*
 * argv[1..argc-1] read against spec: each option's value to its place in args; the other
 * words, in order, to operands (argc entries), their count to *noperands ("--" ends the
 * options but with slap_options). -h or --help prints the help. *run false: the command
 * returns the status (0 after the help, else the refusal's, said on standard error).
 */
int subargs_parse(const struct subargs_spec *spec, int argc, char **argv, void *args,
                  char **operands, int *noperands, bool *run);

#endif
