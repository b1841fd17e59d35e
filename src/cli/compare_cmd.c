/*
 * slap compare: results files set beside the first, each difference with its 95% interval;
 * --fail-if makes the exit status a verdict, its thresholds sharing the 5% chance of a false
 * failure (compare_gate_level). Exit status: 0 no threshold crossed, 1 a significant
 * difference crossed one (or an output could not be written), 2 bad usage or a file that
 * cannot be read or compared.
 */
#include "subcommands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/outfile.h"
#include "slap/output/compare.h"
#include "slap/output/results.h"
#include "plan_output.h"

#define COMPARE_OK 0
#define COMPARE_CROSSED 1
#define COMPARE_USAGE 2
#define COMPARE_MAX_THRESHOLDS 32

struct compare_args {
    const char *inputs[COMPARE_MAX_RUNS];
    size_t ninputs;
    const char *json; /* --json FILE, or NULL */
    struct compare_threshold th[COMPARE_MAX_THRESHOLDS];
    size_t nth;
};

static int compare_usage(const char *problem, const char *word)
{
    fprintf(stderr, "slap compare: %s%s%s%s\n", problem, word ? " '" : "", word ? word : "",
            word ? "'" : "");
    fprintf(stderr, "Usage: slap compare A.json B.json [C.json...] [--fail-if 'p99>+5%%'] "
                    "[--json FILE]\n");
    return COMPARE_USAGE;
}

/* "--name VALUE" or "--name=VALUE" at argv[*i]: its value, or NULL when it is not name. */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0 || (argv[*i][n] != '=' && argv[*i][n] != '\0')) {
        return NULL;
    }
    if (argv[*i][n] == '=') {
        return argv[*i] + n + 1;
    }
    return *i + 1 < argc ? argv[++*i] : "";
}

/* --fail-if's comma-separated thresholds, added to a. */
static int add_thresholds(struct compare_args *a, const char *list)
{
    char *copy = strdup(list), *save = NULL, err[256];
    if (copy == NULL) {
        return COMPARE_USAGE;
    }
    int status = COMPARE_OK;
    for (char *one = strtok_r(copy, ",", &save); one != NULL && status == COMPARE_OK;
         one = strtok_r(NULL, ",", &save)) {
        if (a->nth == COMPARE_MAX_THRESHOLDS) {
            status = compare_usage("too many --fail-if thresholds", NULL);
        } else if (compare_threshold_parse(one, &a->th[a->nth], err, sizeof(err)) != SLAP_OK) {
            status = compare_usage("--fail-if:", err);
        } else {
            a->nth++;
        }
    }
    if (status == COMPARE_OK && a->nth == 0) {
        status = compare_usage("--fail-if needs a threshold", NULL);
    }
    free(copy);
    return status;
}

static int parse_compare(int argc, char **argv, struct compare_args *a)
{
    memset(a, 0, sizeof(*a));
    for (int i = 1; i < argc; i++) {
        const char *v;
        if ((v = option_value(argc, argv, &i, "--fail-if")) != NULL) {
            if (add_thresholds(a, v) != COMPARE_OK) {
                return COMPARE_USAGE;
            }
        } else if ((v = option_value(argc, argv, &i, "--json")) != NULL) {
            if (v[0] == '\0') {
                return compare_usage("--json needs a file name", NULL);
            }
            a->json = v;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return compare_usage("unknown option", argv[i]);
        } else if (a->ninputs == COMPARE_MAX_RUNS) {
            return compare_usage("too many results files", NULL);
        } else {
            a->inputs[a->ninputs++] = argv[i];
        }
    }
    if (a->ninputs < 2) {
        return compare_usage("give two results files or more (written by --json)", NULL);
    }
    return COMPARE_OK;
}

static void write_table_json(FILE *out, const void *arg)
{
    compare_write_json(out, arg);
}

/* Each threshold a significant difference crossed, said on standard error. */
static int judge(const struct compare_args *a, const struct compare_table *t)
{
    int status = COMPARE_OK;
    double level = compare_gate_level(t, a->nth);
    for (size_t k = 0; k < a->nth; k++) {
        size_t row, run;
        if (compare_crosses(t, &a->th[k], level, &row, &run)) {
            const struct ci_difference *d = &t->rows[row].diff[run];
            fprintf(stderr, "slap compare: --fail-if %s: %s of '%s' changed by %+.1f%% from "
                            "'%s' (significant at %.4g%%)\n",
                    a->th[k].figure, t->rows[row].name, t->runs[run].name, d->relative * 100.0,
                    t->runs[0].name, level * 100.0);
            status = COMPARE_CROSSED;
        } else if (t->nrows > 0 && !a->th[k].tps) {
            bool listed = false;
            for (size_t r = 1; r < t->nrows; r++) {
                listed = listed || t->rows[r].pct == a->th[k].pct;
            }
            if (!listed) {
                fprintf(stderr, "slap compare: --fail-if: the runs do not all list %s\n",
                        a->th[k].figure);
            }
        }
    }
    return status;
}

/* Read the files, build the table, print it (and its JSON); the exit status. */
static int compare_files(const struct compare_args *a, struct results_doc *docs)
{
    const struct results_doc *ptrs[COMPARE_MAX_RUNS];
    char err[640];
    for (size_t i = 0; i < a->ninputs; i++) {
        ptrs[i] = &docs[i];
        if (results_read(a->inputs[i], plan_output_read_config, &docs[i], err, sizeof(err)) !=
            SLAP_OK) {
            fprintf(stderr, "slap compare: %s\n", err);
            return COMPARE_USAGE;
        }
    }
    struct compare_table *t = malloc(sizeof(*t));
    if (t == NULL || compare_build(t, ptrs, a->inputs, a->ninputs, err, sizeof(err)) != SLAP_OK) {
        fprintf(stderr, "slap compare: cannot compare: %s\n", t == NULL ? "out of memory" : err);
        free(t);
        return COMPARE_USAGE;
    }
    compare_print(stdout, t);
    int status = judge(a, t);
    if (a->json != NULL && outfile_save(a->json, write_table_json, t, err, sizeof(err)) !=
                               SLAP_OK) {
        fprintf(stderr, "slap compare: --json: %s\n", err);
        status = COMPARE_CROSSED;
    }
    free(t);
    return fflush(stdout) != 0 || ferror(stdout) ? COMPARE_CROSSED : status;
}

int compare_main(int argc, char **argv)
{
    struct compare_args a;
    struct results_doc docs[COMPARE_MAX_RUNS];
    memset(docs, 0, sizeof(docs));
    int status = parse_compare(argc, argv, &a);
    if (status == COMPARE_OK) {
        status = compare_files(&a, docs);
    }
    for (size_t i = 0; i < COMPARE_MAX_RUNS; i++) {
        results_doc_free(&docs[i]);
    }
    return status;
}
