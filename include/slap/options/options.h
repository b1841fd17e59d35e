/*
 * Command-line options: the one table behind getopt_long, --help, the values results files
 * record and what slap merge compares. The man page is written by hand; a test checks that it
 * names every option --help lists, and one that every option shows what it reads.
 */
#ifndef SLAP_OPTIONS_H
#define SLAP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "slap/options/options_types.h"

/* Fill o with defaults, then apply argv. Help/version go to out, errors to err. */
enum options_outcome options_parse(struct slap_options *o, int argc, char **argv, FILE *out,
                                   FILE *err);
/* The same for a command whose runs are all open loops at rates of its own (slap search), so
 * that what needs an open loop (--priority=realtime) is taken without -P. */
enum options_outcome options_parse_open_steps(struct slap_options *o, int argc, char **argv,
                                              FILE *out, FILE *err);
/* options_parse of a results file's config: a setting an older slap ran with and this one
 * refuses is taken (an --arrival shape from 0.5). */
enum options_outcome options_parse_read_back(struct slap_options *o, int argc, char **argv,
                                             FILE *out, FILE *err);
/* options_parse, telling seen (when not NULL) of each option as it is read. */
enum options_outcome options_parse_seen(struct slap_options *o, int argc, char **argv, FILE *out,
                                        FILE *err, options_seen seen, void *seen_arg);
void options_defaults(struct slap_options *o);
void options_print_help(FILE *out);

/* The option table, for tests and documentation tools: row i's names. */
size_t options_table_size(void);
const char *options_table_long_name(size_t i); /* underscore spelling; NULL past the end */
int options_table_short(size_t i);             /* the letter, or 0 */
const char *options_table_help(size_t i);      /* its --help text, unwrapped; NULL past the end */
/* Row i is shown by options_value as a number of seconds (a duration). */
bool options_table_is_duration(size_t i);
/* A results reader replays row i (it is not a file of the host that ran the run, an instant
 * past, or an alias of another option). */
bool options_table_replayed(size_t i);
/* Row i is part of the workload: slap merge refuses to add runs that differ in it. */
bool options_table_workload(size_t i);
/* Row i names a file slap writes (--json, --csv, ...: OPT_OUTPUT_FILE). */
bool options_table_writes_file(size_t i);
/* Row i's value names a file slap reads (-F, --trace, TLS files, --auth's): no output may
 * be written over it. */
bool options_table_reads_file(size_t i);
/* What a groups run (-F with groups) does with an option: bits of its row. */
enum options_groups_use {
    GROUPS_RUN = 1u << 0,  /* the run's: refused inside a group */
    GROUPS_KEPT = 1u << 1, /* the run acts on it itself: the command line's is not handed on */
    GROUPS_NONE = 1u << 2, /* makes no groups run: refused on the command line too */
};
unsigned options_table_groups(size_t i);
/*
 * The effective value of row i in o as text (into buf): what a results file records, and
 * what the option, given that text, would read back to the same setting (a duration with
 * "s" appended). Truncated values are cut at len - 1 bytes.
 */
enum option_value options_value(const struct slap_options *o, size_t i, char *buf, size_t len);
/* The row of a long name (underscore spelling), or options_table_size() when unknown. */
size_t options_table_find(const char *long_name);

#endif
