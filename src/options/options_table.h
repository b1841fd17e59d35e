/*
 * The option-table machinery shared by slap's options (options.c) and the memslap face
 * (memslap.c): rows say how each value is read, where it goes, how it is shown and what a
 * results reader does with it; one parser, one --help. Internal to those two files, as
 * proto_parse.h is to the codecs.
 */
#ifndef SLAP_OPTIONS_TABLE_H
#define SLAP_OPTIONS_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "slap/options/options_types.h"

#define OPTIONS_MAX_ROWS 128 /* rows of the largest table */

#if defined(__GNUC__)
#define SLAP_PRINTF(fmt, first) __attribute__((format(printf, fmt, first)))
#else
#define SLAP_PRINTF(fmt, first)
#endif

/* How a row's value is read, and what kind of field of the table's target it goes to. */
enum option_kind {
    OPT_SPECIAL,       /* the row's handler reads the value and stores it; its show says it */
    OPT_FLAG,          /* bool: set to true; the option takes no value */
    OPT_COUNT32,       /* uint32_t: a whole number in [min, max], k/m/g of kunit when not 0 */
    OPT_COUNT64,       /* uint64_t: the same */
    OPT_RATE,          /* double: the same, a number of operations per second */
    OPT_DURATION,      /* uint64_t: nanoseconds, more than 0 (units as --time) */
    OPT_FRACTION,      /* double: a share above 0 and up to 1 */
    OPT_STRING,        /* const char *: the value as given, pointing into argv */
    OPT_OUTPUT_FILE,   /* const char *: a file written later; the name must not be empty */
    OPT_READABLE_FILE, /* const char *: a file read later; it must be readable now */
    OPT_CHOICE,        /* an enum: the index of the value in choices */
    OPT_ACTION,        /* the row's handler acts (--help) and sets nothing: not a setting */
};

struct option_table;

/* What a parse carries from one option to the next. */
struct parse_state {
    struct slap_options *o;           /* slap's table: the options being filled */
    void *target;                     /* where the rows' fields are: o, or memslap's arguments */
    const struct option_table *table; /* the rows being parsed */
    FILE *out;
    FILE *err;
    const char *program;          /* the command the --help hint of an error names */
    const struct option_row *row; /* the option being applied */
    bool given[OPTIONS_MAX_ROWS]; /* which options the command line set */
    options_seen seen;            /* told of each option read well (NULL: none) */
    void *seen_arg;
    bool reading_back; /* a results file's config: what an older slap ran with is taken */
};

/* Apply arg (NULL for a flag); print a usage error and say so when it is bad. */
typedef enum options_outcome (*option_handler)(struct parse_state *st, const char *arg);

/*
 * The row's effective value in o as text, into buf (len > 0): what --json and the report's
 * header show, and what the option, given that text, reads back to the same setting.
 */
typedef enum option_value (*option_show)(const struct slap_options *o, char *buf, size_t len);

struct option_row {
    char short_name;            /* the letter, or 0 when there is none */
    const char *long_name;      /* memaslap's spelling, with underscores (memslap's: hyphens) */
    const char *arg_name;       /* shown in --help; NULL for a flag */
    const char *help;           /* one or two sentences for --help */
    enum option_kind kind;      /* how the value is read */
    size_t field;               /* offsetof(target, ...); not for OPT_SPECIAL */
    uint64_t min, max;          /* counts and rates: the bounds, inclusive */
    uint64_t kunit;             /* counts and rates: what k means (1000, 1024; 0: no suffix) */
    const char *const *choices; /* OPT_CHOICE: the names, in enum order, NULL-terminated */
    option_handler handle;      /* OPT_SPECIAL, OPT_ACTION: reads and stores the value */
    option_show show;           /* slap's OPT_SPECIAL rows (and any that its kind would show
                                   wrongly): says the value back; NULL: the kind's own way */
    bool seconds;               /* shown as a number of seconds: read back with "s" after it */
    bool not_replayed;          /* a results reader leaves it out: a file of the host that ran
                                   the run, an instant past, an alias of another option */
    bool workload;              /* part of the workload: slap merge refuses to add runs that
                                   differ in it */
    bool reads_file;            /* its value names a file read (OPT_READABLE_FILE rows too) */
    bool to_stdout;             /* OPT_OUTPUT_FILE: "-" is standard output (else refused) */
    bool not_with_ramp;         /* refused beside --ramp (it sets the rate of one timed run) */
    unsigned groups;            /* enum options_groups_use's bits: 0, the run's value handed
                                   to every group, a group's own over it */
};

/* A set of rows and the --help text around them. */
struct option_table {
    const struct option_row *rows;
    size_t count;           /* at most OPTIONS_MAX_ROWS */
    const char *help_intro; /* before the rows in --help */
    const char *help_outro; /* after them */
};

/*
 * The offset of field name of OPTIONS_TARGET (the struct a file's rows fill, defined before
 * its table), a compile error unless it has that type.
 */
#define FIELD(name, type)                                                                          \
    _Generic(((OPTIONS_TARGET *)0)->name, type : offsetof(OPTIONS_TARGET, name))
/* 0, or a compile error when the constant cond is false. */
#define ZERO_UNLESS(cond) (0 * sizeof(char[(cond) ? 1 : -1]))

/* The kind, field and parameters of a row, one macro per kind. */
#define FLAG(name) .kind = OPT_FLAG, .field = FIELD(name, bool)
#define COUNT32(name, lo, hi, k)                                                                   \
    .kind = OPT_COUNT32, .field = FIELD(name, uint32_t), .min = (lo), .max = (hi), .kunit = (k)
#define COUNT64(name, lo, hi, k)                                                                   \
    .kind = OPT_COUNT64, .field = FIELD(name, uint64_t), .min = (lo), .max = (hi), .kunit = (k)
#define RATE(name, lo, hi, k)                                                                      \
    .kind = OPT_RATE, .field = FIELD(name, double), .min = (lo), .max = (hi), .kunit = (k)
#define DURATION(name) .kind = OPT_DURATION, .field = FIELD(name, uint64_t), .seconds = true
#define FRACTION(name) .kind = OPT_FRACTION, .field = FIELD(name, double)
#define STRING(name) .kind = OPT_STRING, .field = FIELD(name, const char *)
#define OUTPUT_FILE(name) .kind = OPT_OUTPUT_FILE, .field = FIELD(name, const char *)
#define READABLE_FILE(name) .kind = OPT_READABLE_FILE, .field = FIELD(name, const char *)
#define CHOICE(name, type, names)                                                                  \
    .kind = OPT_CHOICE, .choices = (names),                                                        \
    .field = FIELD(name, type) + ZERO_UNLESS(sizeof(type) == sizeof(unsigned))
/* A handler and the show that says its value back: a compile error without one (even NULL). */
#define SPECIAL(handler, shower)                                                                   \
    .kind = OPT_SPECIAL, .handle = (handler), .show = _Generic((shower), option_show : (shower))
/* A special row of a table that is never shown (memslap's: its values are shown as slap's). */
#define SPECIAL_UNSHOWN(handler) .kind = OPT_SPECIAL, .handle = (handler)
/* A row that acts and stops the parse (--help, --version): not a setting, never shown. */
#define ACTION(handler) .kind = OPT_ACTION, .handle = (handler)

/* What the row is beyond its kind, added after it. */
#define SHOW(shower) .show = (shower) /* shown its own way, not as its kind would */
#define SECONDS .seconds = true       /* a special row shown as a number of seconds */
#define NOT_REPLAYED .not_replayed = true
#define WORKLOAD .workload = true
#define READS_FILE .reads_file = true       /* a file read, though its kind is not READABLE_FILE */
#define TO_STDOUT .to_stdout = true         /* an output that "-" sends to standard output */
#define NOT_WITH_RAMP .not_with_ramp = true /* refused beside --ramp */
/* Its place in a groups run (enum options_groups_use): */
#define RUN_ONLY .groups = GROUPS_RUN                /* the run's: refused inside a group */
#define RUN_KEPT .groups = GROUPS_RUN | GROUPS_KEPT  /* and the run's alone (not handed on) */
#define NO_GROUPS .groups = GROUPS_RUN | GROUPS_NONE /* makes no groups run */
/* the run's -F is its groups; a group's
 * own is its sections */
#define GROUP_OWN_FILE .groups = GROUPS_KEPT

/* libmemcached's key hashes by name, in enum server_hash order (--hash of both faces). */
extern const char *const options_hash_names[];

/*
 * Apply argv's options to st->target by st->table's rows (st->out, st->err and the target
 * set; the rest is set here). program names the command in the --help hint of errors.
 * Stops at the first bad option; OPTIONS_RUN when every option was read. Its getopt tables
 * live on its stack; nothing outlives the call but st (and getopt's own optind).
 */
enum options_outcome options_table_parse(struct parse_state *st, const char *program, int argc,
                                         char **argv);
/* "slap: <message>" and the --help hint naming st->program, on st->err: the two lines of a
 * usage error. */
SLAP_PRINTF(2, 3)
enum options_outcome options_usage_error(const struct parse_state *st, const char *format, ...);

/* The kinds' readers a special row may use for its current option (st->row). */
/* A duration; it must be more than zero. */
enum options_outcome options_parse_duration(const struct parse_state *st, const char *arg,
                                            uint64_t *ns);
/* Where arg stands in names (NULL-terminated), into *index; false when it is not there. */
bool options_find_choice(const char *const *names, const char *arg, unsigned *index);
/* "--NAME: 'ARG' is not one of a, b, c", every name listed. */
enum options_outcome options_choice_error(const struct parse_state *st, const char *arg,
                                          const char *const *names);

static inline bool options_is_digit(char c)
{
    return c >= '0' && c <= '9';
}
/* The table's --help: intro, one wrapped entry per row, outro. */
void options_table_print_help(const struct option_table *t, FILE *out);

struct optdoc;
/* The table's rows as their documentation shows them (optdoc.h): how many, at most max. */
size_t options_table_docs(const struct option_table *t, struct optdoc *out, size_t max);

#endif
