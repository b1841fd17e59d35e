/* slap compare's figures: runs set beside a first one, each difference with its interval. */
#ifndef SLAP_COMPARE_H
#define SLAP_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "slap/base/common.h"
#include "slap/base/confidence.h"
#include "slap/output/results.h"

#define COMPARE_MAX_RUNS 16
#define COMPARE_MAX_ROWS (1 + RUN_DESC_MAX_PERCENTILES) /* tps, then the percentiles */
#define COMPARE_LEVEL 0.95
#define COMPARE_NAME_MAX 16

/* One run's side: what its intervals come from. */
struct compare_run {
    const char *name; /* the file, as given (not copied) */
    bool rounds;      /* from its --rounds (else from its periods) */
    size_t batches;   /* rounds or periods used */
};

/* One figure (tps or a percentile) of every run, and each run's difference from the first. */
struct compare_row {
    char name[COMPARE_NAME_MAX]; /* "tps", "p99", "p99.9" */
    bool tps;                    /* ops/s (values in ci_result's _ns fields as ops/s) */
    double pct;                  /* a percentile's */
    struct ci_result run[COMPARE_MAX_RUNS];
    struct ci_difference diff[COMPARE_MAX_RUNS]; /* [i]: run i - run 0; [0] unused */
};

struct compare_table {
    size_t nruns;
    size_t nrows;
    struct compare_run runs[COMPARE_MAX_RUNS];
    struct compare_row rows[COMPARE_MAX_ROWS];
};

/*
 * The table of docs[0..n) (2 to COMPARE_MAX_RUNS, names as messages and the table show them):
 * throughput and the percentiles every run lists. Intervals from each run's rounds when it
 * has two or more (each round a batch), else from its periods (ci_percentile's batch means;
 * per-period rates for tps). SLAP_ERROR with err when the workloads differ (slap merge's
 * rule), a document is a sweep, or memory runs out.
 */
enum slap_status compare_build(struct compare_table *t, const struct results_doc *const *docs,
                               const char *const *names, size_t n, char *err, size_t err_len);

/* The table as text: a block per run set against the first. */
void compare_print(FILE *out, const struct compare_table *t);
/* The table as JSON (slap compare --json). */
void compare_write_json(FILE *out, const struct compare_table *t);

/* --fail-if: a figure, a direction and an amount ("p99>+5%", "tps<-5%", "p50>+200us"). */
struct compare_threshold {
    char figure[COMPARE_NAME_MAX]; /* "tps" or "pN" */
    bool tps;
    double pct;     /* a percentile's */
    bool above;     /* '>': crossed when the difference is above amount; '<': below */
    bool relative;  /* amount is a fraction of the first run's value */
    double amount;  /* relative: 0.05 for 5%; else ns (latency) or ops/s (tps) */
};

/* Parse one threshold; SLAP_ERROR with err saying what is wrong. */
enum slap_status compare_threshold_parse(const char *text, struct compare_threshold *th,
                                         char *err, size_t err_len);
/*
 * The level each --fail-if comparison is judged at when nth thresholds are checked against
 * every run after the first: COMPARE_LEVEL shared among them (Bonferroni), so that chance
 * alone fails the whole check at most 1 - COMPARE_LEVEL of the time, however many
 * thresholds and runs. One threshold, two runs: COMPARE_LEVEL itself.
 */
double compare_gate_level(const struct compare_table *t, size_t nth);
/* Does a difference of some run from the first, significant at level, cross th? Then *row
 * and *run say where (the first such). A figure the table lacks crosses nothing. */
bool compare_crosses(const struct compare_table *t, const struct compare_threshold *th,
                     double level, size_t *row, size_t *run);

#endif
