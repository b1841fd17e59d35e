/*
 * slap compare's command line, shared by its two forms (results files: compare_cmd.c; --live:
 * compare_live.c): its options' rows and --help, --fail-if's thresholds, and the conclusion of
 * a table (printed, written with --json, its thresholds judged into the exit status).
 */
#include "slap/commands/compare_args.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/outfile.h"
#include "slap/base/quote.h"
#include "slap/commands/subcommands.h"
#include "slap/options/subargs.h"

/* --fail-if's value: its thresholds added (a SUBARG_CALL). */
static int take_fail_if(void *args, const char *value)
{
    return compare_add_thresholds(&((struct compare_cli *)args)->args, value);
}

static const struct subarg compare_rows[] = {
    {.name = "--fail-if",
     .value = "RULE",
     .kind = SUBARG_CALL,
     .take = take_fail_if,
     .help = "exit 1 when a significant difference crosses RULE: 'p99>+5%',\n"
             "'tps<-5%', 'p50>+200us'; repeated or comma-separated"},
    {.name = "--json",
     .value = "FILE",
     .kind = SUBARG_FILE,
     .offset = offsetof(struct compare_cli, args.json),
     .help = "the table as data"},
    {.name = "--live",
     .kind = SUBARG_FLAG,
     .offset = offsetof(struct compare_cli, live),
     .help = "measure the sides now (below)"},
    {.name = "--rounds",
     .value = "N",
     .kind = SUBARG_TEXT,
     .offset = offsetof(struct compare_cli, rounds),
     .help = "--live: N rounds of each side, N pairs (default 10)"},
    {.name = "--seed",
     .value = "N",
     .kind = SUBARG_TEXT,
     .offset = offsetof(struct compare_cli, seed),
     .help = "--live: the seed of each pair's order (default: the time)"},
    {.name = "-q",
     .alias = "--quiet",
     .kind = SUBARG_FLAG,
     .offset = offsetof(struct compare_cli, quiet),
     .help = "--live: the table only, not a line per pair"},
};

#define COMPARE_SPEC(slap_options_)                                                                \
    {                                                                                              \
        .name = "compare", .intro = compare_intro, .outro = compare_outro, .rows = compare_rows,   \
        .count = SLAP_ARRAY_SIZE(compare_rows), .slap_options = slap_options_,                     \
    }

static const char compare_intro[] =
    "Usage: slap compare [OPTIONS] A B [C...]\n"
    "       slap compare --live [OPTIONS] [SLAP OPTIONS] NAME=TARGET NAME=TARGET [...]\n"
    "Each side set beside the first: throughput and percentiles, the difference B - A, its\n"
    "95% interval and whether it is significant: 'yes', or 'cannot tell' with the change\n"
    "the rounds or runs would have found and how many a change as large as the one\n"
    "estimated needs. A side is:\n"
    "  FILE.json            one results file (--json): its interval holds the noise within\n"
    "                       that run only, so the difference is shown, not judged\n"
    "  A1.json,A2.json,...  several runs of one side (or a quoted glob, 'base-*.json'),\n"
    "                       judged by ranks (Mann-Whitney); make the two sides' runs\n"
    "                       alternately, at least 4 a side (one side's runs all made\n"
    "                       before the other's are shown, not judged)\n"
    "  --live NAME=TARGET   measured now, in rounds interleaved with the other sides', each\n"
    "                       pair's order drawn at random, judged on the paired rounds\n"
    "                       (Wilcoxon): the way to compare two servers, a proxy with direct\n"
    "                       access, TCP with UDP. TARGET is a server list, slap options\n"
    "                       ('-U', '--protocol=binary'), or both ('host:11211 -U')\n"
    "\n";

static const char compare_outro[] =
    "The other options of --live are slap's, for every side (-t is a round's length,\n"
    "default 2s).\n"
    "Exit status: 0 no threshold crossed, 1 one crossed (or an output could not be\n"
    "written), 2 bad usage, a file that cannot be compared, or a threshold that cannot be\n"
    "judged (a figure the runs lack, one run a side, too few runs or rounds, one side's\n"
    "runs all made before the other's).\n"
    "Examples:\n"
    "  slap compare --live -T 2 -c 32 --rounds 10 direct=127.0.0.1:11211 "
    "proxy=127.0.0.1:22121\n"
    "  slap compare --live -s 127.0.0.1:11211 tcp= udp=-U --fail-if 'p99>+10%'\n"
    "  slap compare 'base-*.json' 'new-*.json' --fail-if 'p99>+5%,tps<-5%'\n";

/* Its files' form, and --live's (whose words not compare's own are slap's options). */
static const struct subargs_spec compare_spec = COMPARE_SPEC(false);
static const struct subargs_spec compare_live_spec = COMPARE_SPEC(true);

size_t compare_docs(struct optdoc *out, size_t max)
{
    return subargs_docs(&compare_spec, out, max);
}

int compare_usage(const char *problem, const char *word)
{
    return subargs_usage(&compare_spec, problem, word);
}

int compare_add_thresholds(struct compare_args *a, const char *list)
{
    char *copy = strdup(list), *save = NULL, err[256], problem[300];
    if (copy == NULL) {
        return SLAP_EXIT_USAGE;
    }
    int status = SLAP_EXIT_OK;
    for (char *one = strtok_r(copy, ",", &save); one != NULL && status == SLAP_EXIT_OK;
         one = strtok_r(NULL, ",", &save)) {
        if (a->nth == COMPARE_MAX_THRESHOLDS) {
            status = compare_usage("too many --fail-if thresholds", NULL);
        } else if (compare_threshold_parse(one, &a->th[a->nth], err, sizeof(err)) != SLAP_OK) {
            snprintf(problem, sizeof(problem), "--fail-if %s", err); /* err quotes the rule */
            status = compare_usage(problem, NULL);
        } else {
            a->nth++;
        }
    }
    if (status == SLAP_EXIT_OK && a->nth == 0) {
        status = compare_usage("--fail-if needs a threshold", NULL);
    }
    free(copy);
    return status;
}

int compare_parse(bool live, int argc, char **argv, struct compare_cli *c, char **words, int *n,
                  bool *run)
{
    return subargs_parse(live ? &compare_live_spec : &compare_spec, argc, argv, c, words, n, run);
}

static void write_table_json(FILE *out, const void *arg)
{
    compare_write_json(out, arg);
}

int compare_judge(const struct compare_args *a, const struct compare_table *t)
{
    int status = SLAP_EXIT_OK;
    char why[512];
    for (size_t k = 0; k < a->nth; k++) {
        size_t row, run;
        const char *problem = compare_gate_problem(t, &a->th[k], why, sizeof(why));
        if (problem != NULL) {
            fprintf(stderr, "slap compare: --fail-if: %s\n", problem);
            status = SLAP_EXIT_USAGE;
        } else if (compare_crosses(t, &a->th[k], &row, &run) && status != SLAP_EXIT_USAGE) {
            const struct compare_diff *d = &t->rows[row].diff[run];
            fprintf(stderr,
                    "slap compare: --fail-if %s: %s of '%s' changed by %+.1f%% from "
                    "'%s' (significant at %.4g%%)\n",
                    a->th[k].figure, t->rows[row].name, t->runs[run].name, d->relative * 100.0,
                    t->runs[0].name, t->gate_level * 100.0);
            status = SLAP_EXIT_FAILED;
        }
    }
    return status;
}

int compare_conclude(const struct compare_args *a, const struct compare_table *t)
{
    char err[640];
    compare_print(stdout, t);
    int status = compare_judge(a, t);
    if (a->json != NULL &&
        outfile_save(a->json, write_table_json, t, err, sizeof(err)) != SLAP_OK) {
        quote_line(stderr, "slap compare: --json: ", err);
        status = status == SLAP_EXIT_OK ? SLAP_EXIT_FAILED : status;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        return status == SLAP_EXIT_OK ? SLAP_EXIT_FAILED : status;
    }
    return status;
}
