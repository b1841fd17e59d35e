/* The option-table machinery shared by slap's table (options.c) and memslap's (memslap.c): usage
 * errors, the kinds' readers, getopt's tables built from a table's rows for each parse, and
 * --help. Everything a parse keeps is in its struct parse_state or on its own stack. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slap/base/common.h"
#include "slap/base/quote.h"
#include "slap/base/units.h"
#include "slap/options/optdoc.h"

#include "options_table.h"

#define LONG_CODE_BASE 256   /* getopt code of row i's long spellings: LONG_CODE_BASE + i */
#define LONG_NAME_MAX 32     /* room for a long name and its NUL */
#define HELP_WIDTH 79        /* --help lines stay within this many columns */
#define HELP_GAP 2           /* spaces between the widest option column and its text */
#define CHOICES_TEXT_MAX 256 /* room for "a, b, c" listing a row's choices */

/* ---- errors --------------------------------------------------------------------------- */

enum options_outcome options_usage_error(const struct parse_state *st, const char *format, ...)
{
    va_list args;
    char text[2048];
    va_start(args, format);
    vsnprintf(text, sizeof(text), format, args); /* the message may quote the user's words */
    va_end(args);
    fputs("slap: ", st->err);
    quote_controls(st->err, text);
    fprintf(st->err, "\nTry '%s --help' for more information.\n", st->program);
    return OPTIONS_USAGE;
}

/* units lists the accepted suffixes, for UNITS_BAD_UNIT. */
static enum options_outcome report_unit_error(const struct parse_state *st, const char *arg,
                                              enum units_status status, const char *units)
{
    const char *name = st->row->long_name;
    char after = arg[strspn(arg, "0123456789")];
    if (st->row->kind != OPT_DURATION && options_is_digit(arg[0]) && after != '\0' &&
        strchr(".eE", after) != NULL) {
        return options_usage_error(st, "--%s: '%s' is not a whole number (digits, then k, m or g)",
                                   name, arg); /* 1e3, 2.5k: a count is whole digits and a suffix */
    }
    switch (status) {
    case UNITS_NEGATIVE:
        return options_usage_error(st, "--%s: '%s' must not be negative", name, arg);
    case UNITS_BAD_UNIT:
        return options_usage_error(st, "--%s: '%s' has an unknown unit (use %s)", name, arg, units);
    case UNITS_TOO_LARGE:
        return options_usage_error(st, "--%s: '%s' is too large", name, arg);
    case UNITS_OK:
    case UNITS_NOT_NUMBER:
    case UNITS_OUT_OF_RANGE:
    default:
        return options_usage_error(st, "--%s: '%s' is not a number", name, arg);
    }
}

/* ---- the kinds ------------------------------------------------------------------------ */

/* A count in [row->min, row->max], with suffixes when row->kunit is not 0, stored by kind. */
static enum options_outcome parse_count(const struct parse_state *st, const char *arg, void *field)
{
    const struct option_row *row = st->row;
    uint64_t count;
    enum units_status status = units_parse_size(arg, strlen(arg), row->kunit, &count);
    if (status != UNITS_OK) {
        return report_unit_error(st, arg, status, UNITS_SIZE_SUFFIXES);
    }
    if (count < row->min) {
        return options_usage_error(st, "--%s: must be at least %" PRIu64, row->long_name, row->min);
    }
    if (count > row->max) {
        return options_usage_error(st, "--%s: must be at most %" PRIu64, row->long_name, row->max);
    }
    if (row->kind == OPT_COUNT32) {
        *(uint32_t *)field = (uint32_t)count;
    } else if (row->kind == OPT_RATE) {
        *(double *)field = (double)count;
    } else {
        *(uint64_t *)field = count;
    }
    return OPTIONS_RUN;
}

enum options_outcome options_parse_duration(const struct parse_state *st, const char *arg,
                                            uint64_t *ns)
{
    uint64_t period;
    enum units_status status = units_parse_duration(arg, strlen(arg), &period);
    if (status != UNITS_OK) {
        return report_unit_error(st, arg, status, UNITS_DURATION_SUFFIXES);
    }
    if (period == 0) {
        return options_usage_error(st, "--%s: must be more than 0", st->row->long_name);
    }
    *ns = period;
    return OPTIONS_RUN;
}

/* A share in (0, 1], e.g. 0.05. */
static enum options_outcome parse_fraction(const struct parse_state *st, const char *arg,
                                           double *value)
{
    if (units_parse_fraction(arg, strlen(arg), value) != UNITS_OK) {
        return options_usage_error(st, "--%s: '%s' is not a fraction above 0 and up to 1",
                                   st->row->long_name, arg);
    }
    return OPTIONS_RUN;
}

/* A file name for the current option: a file to write must have a name, one to read be there. */
static enum options_outcome parse_file(const struct parse_state *st, const char *arg,
                                       const char **field)
{
    if (st->row->kind == OPT_OUTPUT_FILE && arg[0] == '\0') {
        return options_usage_error(st, "--%s: the file name is empty", st->row->long_name);
    }
    if (st->row->kind == OPT_READABLE_FILE && access(arg, R_OK) != 0) {
        char shown[QUOTE_PATH_BUF];
        return options_usage_error(st, "--%s: cannot read %s: %s", st->row->long_name,
                                   quote_name(shown, arg), strerror(errno));
    }
    *field = arg;
    return OPTIONS_RUN;
}

bool options_find_choice(const char *const *names, const char *arg, unsigned *index)
{
    for (unsigned i = 0; names[i] != NULL; i++) {
        if (strcmp(arg, names[i]) == 0) {
            *index = i;
            return true;
        }
    }
    return false;
}

enum options_outcome options_choice_error(const struct parse_state *st, const char *arg,
                                          const char *const *names)
{
    char list[CHOICES_TEXT_MAX] = "";
    size_t used = 0;
    for (size_t i = 0; names[i] != NULL; i++) {
        int n = snprintf(list + used, sizeof(list) - used, "%s%s", i > 0 ? ", " : "", names[i]);
        used = n > 0 && used + (size_t)n < sizeof(list) ? used + (size_t)n : used;
    }
    return options_usage_error(st, "--%s: '%s' is not one of %s", st->row->long_name, arg, list);
}

/* One of the row's choices: its index goes to the enum field. */
static enum options_outcome parse_choice(const struct parse_state *st, const char *arg, void *field)
{
    unsigned index;
    if (!options_find_choice(st->row->choices, arg, &index)) {
        return options_choice_error(st, arg, st->row->choices);
    }
    memcpy(field, &index, sizeof(index)); /* the row's macro checked the enum's size */
    return OPTIONS_RUN;
}

/* The current row's value, read as its kind says, into its field. */
static enum options_outcome apply_row(struct parse_state *st, const char *arg)
{
    const struct option_row *row = st->row;
    void *field = (char *)st->target + row->field;
    switch (row->kind) {
    case OPT_FLAG:
        *(bool *)field = true;
        return OPTIONS_RUN;
    case OPT_COUNT32:
    case OPT_COUNT64:
    case OPT_RATE:
        return parse_count(st, arg, field);
    case OPT_DURATION:
        return options_parse_duration(st, arg, field);
    case OPT_FRACTION:
        return parse_fraction(st, arg, field);
    case OPT_STRING:
        *(const char **)field = arg;
        return OPTIONS_RUN;
    case OPT_OUTPUT_FILE:
    case OPT_READABLE_FILE:
        return parse_file(st, arg, field);
    case OPT_CHOICE:
        return parse_choice(st, arg, field);
    case OPT_SPECIAL:
    case OPT_ACTION:
    default:
        return row->handle(st, arg);
    }
}

/* ---- getopt tables, built from a table's rows ----------------------------------------- */

/* What getopt_long is given for one parse, built from the table's rows: on the parse's stack. */
struct getopt_tables {
    struct option longs[2 * OPTIONS_MAX_ROWS + 1]; /* each row's name, and its hyphen spelling */
    char shorts[1 + 2 * OPTIONS_MAX_ROWS + 1];     /* ':' first, then "x" or "x:" a row */
    char hyphen_names[OPTIONS_MAX_ROWS][LONG_NAME_MAX]; /* what the hyphen spellings point to */
};

/* Write name with '-' for '_' into spelling; false when that changes nothing (or cannot fit). */
static bool hyphen_spelling(const char *name, char *spelling)
{
    size_t length = strlen(name);
    if (strchr(name, '_') == NULL || length >= LONG_NAME_MAX) {
        return false;
    }
    for (size_t i = 0; i <= length; i++) {
        spelling[i] = name[i] == '_' ? '-' : name[i];
    }
    return true;
}

static void build_getopt_tables(const struct option_table *t, struct getopt_tables *g)
{
    size_t longs = 0, shorts = 0;
    g->shorts[shorts++] = ':'; /* report a missing value as ':', not '?' */
    for (size_t i = 0; i < t->count; i++) {
        const struct option_row *row = &t->rows[i];
        int has_arg = row->arg_name != NULL ? required_argument : no_argument;
        int code = LONG_CODE_BASE + (int)i;
        g->longs[longs++] = (struct option){row->long_name, has_arg, NULL, code};
        if (hyphen_spelling(row->long_name, g->hyphen_names[i])) {
            g->longs[longs++] = (struct option){g->hyphen_names[i], has_arg, NULL, code};
        }
        if (row->short_name != 0) {
            g->shorts[shorts++] = row->short_name;
            if (row->arg_name != NULL) {
                g->shorts[shorts++] = ':';
            }
        }
    }
    g->longs[longs] = (struct option){NULL, 0, NULL, 0};
    g->shorts[shorts] = '\0';
}

/* The row behind a getopt code (a letter or LONG_CODE_BASE + row), or NULL. */
static const struct option_row *row_for_code(const struct option_table *t, int code)
{
    if (code >= LONG_CODE_BASE && (size_t)(code - LONG_CODE_BASE) < t->count) {
        return &t->rows[code - LONG_CODE_BASE];
    }
    for (size_t i = 0; code > 0 && i < t->count; i++) {
        if (t->rows[i].short_name == code) {
            return &t->rows[i];
        }
    }
    return NULL;
}

/* Does typed (a long name as written, up to '=' or its end) begin name, '-' matching '_'? */
static bool long_prefix_of(const char *typed, size_t typed_length, const char *name)
{
    for (size_t i = 0; i < typed_length; i++) {
        char c = typed[i] == '-' ? '_' : typed[i];
        char n = name[i] == '-' ? '_' : name[i];
        if (n == '\0' || c != n) {
            return false;
        }
    }
    return true;
}

/* getopt rejected word as a long option: say whether it was ambiguous or unknown. */
static enum options_outcome unknown_long_option(const struct parse_state *st, const char *word)
{
    const struct option_table *t = st->table;
    const char *typed = word + 2;
    size_t typed_length = strcspn(typed, "=");
    char candidates[256] = "";
    size_t used = 0, matches = 0;
    for (size_t i = 0; i < t->count && typed_length > 0; i++) {
        if (long_prefix_of(typed, typed_length, t->rows[i].long_name)) {
            int n = snprintf(candidates + used, sizeof(candidates) - used, "%s--%s",
                             matches > 0 ? ", " : "", t->rows[i].long_name);
            used = n > 0 && used + (size_t)n < sizeof(candidates) ? used + (size_t)n : used;
            matches++;
        }
    }
    if (matches > 1) {
        return options_usage_error(st, "option '--%.*s' is ambiguous (%s)", (int)typed_length,
                                   typed, candidates);
    }
    return options_usage_error(st, "unknown option '--%.*s'", (int)typed_length, typed);
}

/* getopt returned '?': an unknown option, or a value given to a flag. */
static enum options_outcome bad_option(const struct parse_state *st, char **argv)
{
    const struct option_row *row = row_for_code(st->table, optopt);
    if (row != NULL) {
        return options_usage_error(st, "--%s does not take a value", row->long_name);
    }
    if (optopt != 0) {
        return options_usage_error(st, "unknown option '-%c'", optopt);
    }
    const char *word = argv[optind - 1];
    if (strncmp(word, "--", 2) == 0) {
        return unknown_long_option(st, word);
    }
    return options_usage_error(st, "unknown option '%s'", word);
}

/* One result of getopt_long, applied and, when good, recorded as given. */
static enum options_outcome dispatch(struct parse_state *st, int code, char **argv)
{
    if (code == '?') {
        return bad_option(st, argv);
    }
    const struct option_row *row = row_for_code(st->table, code == ':' ? optopt : code);
    if (row == NULL) {
        return options_usage_error(st, "unknown option '%s'", argv[optind - 1]);
    }
    if (code == ':') {
        return options_usage_error(st, "--%s needs a value", row->long_name);
    }
    st->row = row;
    enum options_outcome outcome = apply_row(st, optarg);
    if (outcome == OPTIONS_RUN) {
        st->given[row - st->table->rows] = true;
        if (st->seen != NULL) {
            st->seen(st->seen_arg, (size_t)(row - st->table->rows),
                     row->arg_name != NULL ? optarg : NULL);
        }
    }
    return outcome;
}

enum options_outcome options_table_parse(struct parse_state *st, const char *program, int argc,
                                         char **argv)
{
    struct getopt_tables g;
    memset(st->given, 0, sizeof(st->given));
    st->row = NULL;
    st->program = program;
    build_getopt_tables(st->table, &g);
    opterr = 0; /* every message is ours */
    optind = 0; /* GNU: start over, so that tests can parse many times */
    int code;
    while ((code = getopt_long(argc, argv, g.shorts, g.longs, NULL)) != -1) {
        enum options_outcome outcome = dispatch(st, code, argv);
        if (outcome != OPTIONS_RUN) {
            return outcome;
        }
    }
    if (optind < argc) {
        return options_usage_error(st, "unexpected argument '%s'", argv[optind]);
    }
    return OPTIONS_RUN;
}

/* "  -s, --servers=LIST" into left; returns its length. */
static size_t help_left_column(const struct option_row *row, char *left, size_t size)
{
    char letter[8] = "    ";
    if (row->short_name != 0) {
        snprintf(letter, sizeof(letter), "-%c, ", row->short_name);
    }
    int n = snprintf(left, size, "  %s--%s%s%s", letter, row->long_name,
                     row->arg_name != NULL ? "=" : "", row->arg_name != NULL ? row->arg_name : "");
    return n > 0 ? (size_t)n : 0;
}

/* Write text from column `column` on, breaking between words to stay within HELP_WIDTH. */
static void print_wrapped(FILE *out, const char *text, size_t column)
{
    size_t at = column;
    bool line_start = true;
    while (*text != '\0') {
        size_t word = strcspn(text, " ");
        if (!line_start && at + 1 + word > HELP_WIDTH) {
            fprintf(out, "\n%*s", (int)column, "");
            at = column;
            line_start = true;
        }
        if (!line_start) {
            fputc(' ', out);
            at++;
        }
        fwrite(text, 1, word, out);
        at += word;
        line_start = false;
        text += word;
        text += strspn(text, " ");
    }
    fputc('\n', out);
}

void options_table_print_help(const struct option_table *t, FILE *out)
{
    char left[LONG_NAME_MAX + 32];
    size_t column = 0;
    for (size_t i = 0; i < t->count; i++) {
        size_t width = help_left_column(&t->rows[i], left, sizeof(left));
        column = width > column ? width : column;
    }
    column += HELP_GAP;
    fputs(t->help_intro, out);
    for (size_t i = 0; i < t->count; i++) {
        help_left_column(&t->rows[i], left, sizeof(left));
        fprintf(out, "%-*s", (int)column, left);
        print_wrapped(out, t->rows[i].help, column);
    }
    fputs(t->help_outro, out);
}

/* ---- the rows as the man pages show them (optdoc.h) ---------------------------------- */

const char *optdoc_key(const struct optdoc *d)
{
    for (size_t k = OPTDOC_NAMES; k-- > 0;) {
        if (strncmp(d->name[k], "--", 2) == 0) {
            return d->name[k];
        }
    }
    return d->name[0];
}

size_t options_table_docs(const struct option_table *t, struct optdoc *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < t->count && n < max; i++, n++) {
        const struct option_row *row = &t->rows[i];
        out[n] = (struct optdoc){.arg = row->arg_name, .help = row->help};
        size_t k = 0;
        if (row->short_name != 0) {
            snprintf(out[n].name[k++], OPTDOC_NAME_MAX, "-%c", row->short_name);
        }
        snprintf(out[n].name[k], OPTDOC_NAME_MAX, "--%s", row->long_name);
    }
    return n;
}
