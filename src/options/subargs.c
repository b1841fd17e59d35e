/*
 * The subcommands' own options (merge, plot, compare, search, trace-stats), read by one
 * parser from each command's table of rows: "--name VALUE" or "--name=VALUE", '-' and '_'
 * alike in a long name, -h and --help answered from the table, an unknown option refused
 * the same way by every command (exit 2, with the --help hint).
 */
#include "slap/options/subargs.h"

#include <string.h>

#include "slap/base/common.h"
#include "slap/base/quote.h"
#include "slap/options/optdoc.h"

#define HELP_GAP 2 /* spaces between an option and its help */

int subargs_usage(const struct subargs_spec *spec, const char *problem, const char *word)
{
    char shown[QUOTE_PATH_BUF];
    fprintf(stderr, "slap %s: ", spec->name);
    quote_controls(stderr, problem); /* it may quote the user's words (a rule, a side) */
    fprintf(stderr, "%s%s\nTry 'slap %s --help' for more information.\n", word != NULL ? " " : "",
            word != NULL ? quote_name(shown, word) : "", spec->name);
    return SLAP_EXIT_USAGE;
}

/* The row's left column in --help ("  -q, --quiet", "  --json FILE"): its width. */
static int left_column(const struct subarg *r, char *buf, size_t len)
{
    return snprintf(buf, len, "  %s%s%s%s%s", r->name, r->alias != NULL ? ", " : "",
                    r->alias != NULL ? r->alias : "", r->value != NULL ? " " : "",
                    r->value != NULL ? r->value : "");
}

void subargs_help(const struct subargs_spec *spec, FILE *out)
{
    char left[128];
    int column = 0;
    for (size_t i = 0; i < spec->count; i++) {
        int width = left_column(&spec->rows[i], left, sizeof(left));
        column = width > column ? width : column;
    }
    column += HELP_GAP;
    fputs(spec->intro, out);
    for (size_t i = 0; i < spec->count; i++) {
        left_column(&spec->rows[i], left, sizeof(left));
        fprintf(out, "%-*s", column, left);
        for (const char *line = spec->rows[i].help; *line != '\0';) {
            size_t n = strcspn(line, "\n");
            fprintf(out, "%.*s\n", (int)n, line);
            line += n + (line[n] == '\n');
            if (*line != '\0') {
                fprintf(out, "%*s", column, "");
            }
        }
    }
    if (spec->outro != NULL) {
        fputs(spec->outro, out);
    }
}

/* Whether word is name, '-' and '_' alike after a long name's "--"; *value after a '='. */
static bool is_named(const char *word, const char *name, const char **value)
{
    if (name == NULL) {
        return false;
    }
    size_t n = strlen(name);
    bool long_name = strncmp(name, "--", 2) == 0;
    for (size_t i = 0; i < n; i++) {
        char w = word[i], c = name[i];
        if (w == '\0' || (w != c && !(long_name && i >= 2 && strchr("-_", w) != NULL &&
                                      strchr("-_", c) != NULL))) {
            return false;
        }
    }
    if (word[n] != '\0' && word[n] != '=') {
        return false;
    }
    *value = word[n] == '=' ? word + n + 1 : NULL;
    return true;
}

/* The row argv[*i] names, its value (from "=VALUE", or the next word) in *value. */
static const struct subarg *find_row(const struct subargs_spec *spec, int argc, char **argv, int *i,
                                     const char **value, bool *missing)
{
    for (size_t k = 0; k < spec->count; k++) {
        const struct subarg *r = &spec->rows[k];
        if (!is_named(argv[*i], r->name, value) && !is_named(argv[*i], r->alias, value)) {
            continue;
        }
        *missing = false;
        if (r->kind != SUBARG_FLAG && *value == NULL) {
            *missing = *i + 1 >= argc;
            *value = *missing ? "" : argv[++*i];
        }
        return r;
    }
    return NULL;
}

/* The row's value put where it goes: SLAP_EXIT_OK, or the refusal's status (said). */
static int store(const struct subargs_spec *spec, const struct subarg *r, const char *word,
                 const char *value, bool missing, void *args)
{
    char problem[160];
    if (r->kind == SUBARG_FLAG && value != NULL) {
        snprintf(problem, sizeof(problem), "%s takes no value:", r->name);
        return subargs_usage(spec, problem, word);
    }
    if (missing || (r->kind == SUBARG_FILE && value[0] == '\0')) {
        snprintf(problem, sizeof(problem), "%s needs %s", r->name,
                 r->kind == SUBARG_FILE ? "a file name" : "a value");
        return subargs_usage(spec, problem, NULL);
    }
    switch (r->kind) {
    case SUBARG_FLAG:
        *(bool *)((char *)args + r->offset) = true;
        return SLAP_EXIT_OK;
    case SUBARG_FILE:
    case SUBARG_TEXT:
        *(const char **)((char *)args + r->offset) = value;
        return SLAP_EXIT_OK;
    case SUBARG_CALL:
    default:
        return r->take(args, value);
    }
}

int subargs_parse(const struct subargs_spec *spec, int argc, char **argv, void *args,
                  char **operands, int *noperands, bool *run)
{
    bool options = true;
    *noperands = 0;
    *run = false;
    for (int i = 1; i < argc; i++) {
        if (options && (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)) {
            subargs_help(spec, stdout);
            return fflush(stdout) == 0 && !ferror(stdout) ? SLAP_EXIT_OK : SLAP_EXIT_FAILED;
        }
    }
    for (int i = 1; i < argc; i++) {
        const char *word = argv[i], *value = NULL;
        bool missing = false;
        const struct subarg *r =
            options && word[0] == '-' ? find_row(spec, argc, argv, &i, &value, &missing) : NULL;
        if (r != NULL) {
            int status = store(spec, r, word, value, missing, args);
            if (status != SLAP_EXIT_OK) {
                return status;
            }
        } else if (options && !spec->slap_options && strcmp(word, "--") == 0) {
            options = false;
        } else if (options && !spec->slap_options && word[0] == '-' && word[1] != '\0') {
            return subargs_usage(spec, "unknown option", word);
        } else {
            operands[(*noperands)++] = argv[i];
        }
    }
    *run = true;
    return SLAP_EXIT_OK;
}

size_t subargs_docs(const struct subargs_spec *spec, struct optdoc *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < spec->count && n < max; i++, n++) {
        const struct subarg *r = &spec->rows[i];
        out[n] = (struct optdoc){.arg = r->value, .help = r->help};
        snprintf(out[n].name[0], OPTDOC_NAME_MAX, "%s", r->name);
        snprintf(out[n].name[1], OPTDOC_NAME_MAX, "%s", r->alias != NULL ? r->alias : "");
    }
    return n;
}
