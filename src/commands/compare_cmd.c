/*
 * slap compare: sides set beside the first, each difference with its 95% interval, judged as
 * the design allows (output/compare.h). A side is a results file, several of them (a comma
 * list or a quoted glob: replicates), or with --live a target measured here in rounds
 * interleaved with the other sides' (compare_live.c). --fail-if makes the exit status a
 * verdict, its thresholds sharing the 5% chance of a false failure (compare_gate_level).
 * Exit status: 0 no threshold crossed, 1 a significant difference crossed one (or an output
 * could not be written), 2 bad usage, a file that cannot be read or compared, or a threshold
 * that cannot be judged.
 */
#include "slap/commands/compare_args.h"

#include <glob.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/outfile.h"
#include "slap/base/quote.h"
#include "slap/base/ranks.h"
#include "slap/commands/subcommands.h"
#include "slap/options/plan_output.h"
#include "slap/options/subargs.h"
#include "slap/output/results_read.h"

#define MAX_FILES 512 /* results files over every side */

/* The files' form: no option of --live's; the words, its sides. */
static int check_files(const struct compare_cli *c, char **words, int n, struct compare_args *a)
{
    const char *live_only = c->rounds != NULL ? "--rounds"
                            : c->seed != NULL ? "--seed"
                            : c->quiet        ? "-q"
                                              : NULL;
    if (live_only != NULL) {
        return compare_usage("this option goes with --live:", live_only);
    }
    if (n > COMPARE_MAX_RUNS) {
        return compare_usage("too many sides", NULL);
    }
    for (int i = 0; i < n; i++) {
        a->sides[a->nsides++] = words[i];
    }
    if (a->nsides < 2) {
        return compare_usage("give two sides or more: results files (written by --json), "
                             "or --live targets",
                             NULL);
    }
    return SLAP_EXIT_OK;
}

/* The files one part of a side names: itself, or what its glob matches (sorted). */
static int expand(const char *part, char ***files, size_t *n, size_t *total)
{
    glob_t g;
    if (strpbrk(part, "*?[") == NULL) {
        if (*total == MAX_FILES) {
            return compare_usage("too many results files", NULL);
        }
        (*files)[(*n)++] = strdup(part);
        (*total)++;
        return (*files)[*n - 1] != NULL ? SLAP_EXIT_OK : SLAP_EXIT_USAGE;
    }
    if (glob(part, 0, NULL, &g) != 0 || g.gl_pathc == 0) {
        globfree(&g);
        char shown[QUOTE_PATH_BUF];
        fprintf(stderr, "slap compare: no results file matches %s\n", quote_name(shown, part));
        return SLAP_EXIT_USAGE;
    }
    for (size_t k = 0; k < g.gl_pathc; k++) {
        if (*total == MAX_FILES || *n == RANKS_MAX) {
            globfree(&g);
            return compare_usage("too many results files in", part);
        }
        (*files)[(*n)++] = strdup(g.gl_pathv[k]);
        (*total)++;
    }
    globfree(&g);
    return SLAP_EXIT_OK;
}

/* The files of side text ("a.json", "a1.json,a2.json" or "'a-*.json'"). */
static int side_files(const char *text, char ***files, size_t *n, size_t *total)
{
    char *copy = strdup(text), *save = NULL;
    int status = SLAP_EXIT_OK;
    *files = calloc(RANKS_MAX, sizeof(**files));
    *n = 0;
    if (copy == NULL || *files == NULL) {
        free(copy);
        return SLAP_EXIT_USAGE;
    }
    for (char *part = strtok_r(copy, ",", &save); part != NULL && status == SLAP_EXIT_OK;
         part = strtok_r(NULL, ",", &save)) {
        if (*n == RANKS_MAX) {
            status = compare_usage("too many results files in a side:", text);
        } else {
            status = expand(part, files, n, total);
        }
    }
    if (status == SLAP_EXIT_OK && *n == 0) {
        status = compare_usage("a side names no results file:", text);
    }
    free(copy);
    return status;
}

/* The files read, sides made, the table built and concluded. */
struct file_sides {
    char **files[COMPARE_MAX_RUNS];
    size_t nfiles[COMPARE_MAX_RUNS];
    struct results_doc *docs[COMPARE_MAX_RUNS];
    const struct results_doc **ptrs[COMPARE_MAX_RUNS];
};

static int read_side(struct file_sides *fs, size_t i, size_t *total, const char *text)
{
    char err[640];
    if (side_files(text, &fs->files[i], &fs->nfiles[i], total) != SLAP_EXIT_OK) {
        return SLAP_EXIT_USAGE;
    }
    fs->docs[i] = calloc(fs->nfiles[i], sizeof(*fs->docs[i]));
    fs->ptrs[i] = calloc(fs->nfiles[i], sizeof(*fs->ptrs[i]));
    if (fs->docs[i] == NULL || fs->ptrs[i] == NULL) {
        return compare_usage("out of memory", NULL);
    }
    for (size_t k = 0; k < fs->nfiles[i]; k++) {
        fs->ptrs[i][k] = &fs->docs[i][k];
        if (results_read(fs->files[i][k], plan_output_read_config, &fs->docs[i][k], err,
                         sizeof(err)) != SLAP_OK) {
            quote_line(stderr, "slap compare: ", err);
            return SLAP_EXIT_USAGE;
        }
    }
    return SLAP_EXIT_OK;
}

static void free_sides(struct file_sides *fs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; fs->docs[i] != NULL && k < fs->nfiles[i]; k++) {
            results_doc_free(&fs->docs[i][k]);
        }
        for (size_t k = 0; fs->files[i] != NULL && k < fs->nfiles[i]; k++) {
            free(fs->files[i][k]);
        }
        free(fs->files[i]);
        free(fs->docs[i]);
        free(fs->ptrs[i]);
    }
}

/* The files' sides are this comparison's own: fs, made empty by compare_main. */
static int compare_files(const struct compare_args *a, struct file_sides *fs)
{
    struct compare_side sides[COMPARE_MAX_RUNS];
    char shown[COMPARE_MAX_RUNS][QUOTE_PATH_BUF]; /* each side's words, as the table shows them */
    size_t total = 0;
    char err[COMPARE_DIFFERS_MAX + 128];
    int status = SLAP_EXIT_OK;
    for (size_t i = 0; i < a->nsides && status == SLAP_EXIT_OK; i++) {
        status = read_side(fs, i, &total, a->sides[i]);
        sides[i] =
            (struct compare_side){quote_text(shown[i], a->sides[i]), fs->ptrs[i], fs->nfiles[i]};
    }
    struct compare_table *t = status == SLAP_EXIT_OK ? malloc(sizeof(*t)) : NULL;
    if (status == SLAP_EXIT_OK && t == NULL) {
        status = compare_usage("out of memory", NULL);
    } else if (status == SLAP_EXIT_OK &&
               compare_build(t, sides, a->nsides, false, compare_gate_level(a->nsides, a->nth), err,
                             sizeof(err)) != SLAP_OK) {
        quote_line(stderr, "slap compare: cannot compare: ", err);
        status = SLAP_EXIT_USAGE;
    } else if (status == SLAP_EXIT_OK) {
        status = compare_conclude(a, t);
    }
    free(t);
    free_sides(fs, a->nsides);
    return status;
}

int compare_files_main(struct compare_cli *c, char **words, int n)
{
    struct file_sides *files = calloc(1, sizeof(*files));
    if (files == NULL) {
        return compare_usage("out of memory", NULL);
    }
    int status = check_files(c, words, n, &c->args);
    status = status == SLAP_EXIT_OK ? compare_files(&c->args, files) : status;
    free(files);
    return status;
}
