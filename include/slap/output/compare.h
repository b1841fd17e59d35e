/* slap compare's figures: sides set beside a first one, each difference with its interval. */
#ifndef SLAP_COMPARE_H
#define SLAP_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "slap/base/common.h"
#include "slap/base/confidence.h"
#include "slap/output/results.h"

#define COMPARE_MAX_RUNS 16                             /* sides */
#define COMPARE_MAX_ROWS (1 + RUN_DESC_MAX_PERCENTILES) /* tps, then the percentiles */
#define COMPARE_LEVEL 0.95
#define COMPARE_NAME_MAX 16
#define COMPARE_DIFFERS_MAX 768
/* A run or round shorter than this carries no comparison: connections opening and the
 * server's first answers weigh on it (measured: proxy against direct with -x 10000, 0.1 s a
 * run, the faster side changed from run to run). */
#define COMPARE_SHORT_S 1.0

/*
 * How a comparison is judged: by its design more than by a formula. The host's noise is
 * mostly between runs (another tenant, a frequency change), so only a design whose
 * replicates hold that noise can say "significant" at the rate it promises.
 *
 *   COMPARE_PAIRED      slap compare --live: rounds of the two sides one after the other,
 *                       each pair's order drawn at random; the paired differences by
 *                       Wilcoxon's signed rank (exact whatever the host did)
 *   COMPARE_REPLICATES  several results files a side: each file one replicate, the two
 *                       sides by Mann-Whitney (holds when the sides' runs were made under
 *                       the same conditions, e.g. alternately)
 *   COMPARE_WITHIN_RUN  one file a side: the interval holds the noise inside each run (its
 *                       rounds, or its periods' batch means) and not the host's change
 *                       between the two runs; shown, never judged
 */
enum compare_mode {
    COMPARE_WITHIN_RUN,
    COMPARE_REPLICATES,
    COMPARE_PAIRED,
};

/* One side as given: its replicates in time order (files, or the rounds of --live). */
struct compare_side {
    const char *name;                      /* as shown (not copied) */
    const struct results_doc *const *docs; /* n of them */
    size_t n;
};

/* What a side's figures come from. */
struct compare_run {
    const char *name;
    size_t replicates; /* files, or rounds of --live */
    bool rounds;       /* within one run: its --rounds (else its periods) */
    size_t batches;    /* within one run: the rounds or periods used */
};

/* One figure's difference b - a. */
struct compare_diff {
    bool judged;              /* the mode judges significance (COMPARE_WITHIN_RUN does not) */
    bool estimable;           /* an interval at COMPARE_LEVEL */
    double diff;              /* ns, or ops/s for tps: b - a (rank modes: Hodges-Lehmann's) */
    double low, high;         /* the interval */
    double relative;          /* diff / a's value (0 when that is 0) */
    bool significant;         /* judged, and the interval leaves 0 out */
    double achieved;          /* rank modes: the interval's exact confidence (>= COMPARE_LEVEL) */
    size_t needed;            /* not estimable: replicates needed (pairs, or a side) */
    uint64_t requests_needed; /* a percentile some replicate holds too few requests for: the
                                 requests each needs; 0 otherwise */
    bool gate_estimable;      /* the same at the table's gate_level (--fail-if) */
    bool gate_significant;
    size_t gate_needed;
    /* rank modes, estimable and not significant: the smallest change the comparison would
     * have found (rank_detectable, ns or ops/s), and the replicates a change of the size
     * estimated needs (rank_needed_for: 0 none, RANKS_MAX + 1 more than RANKS_MAX) */
    double detectable;
    size_t needed_for_estimate;
    /* rank modes: judged at the table's together_level, every figure at once (Bonferroni) */
    bool together_estimable;
    bool together_significant;
    size_t together_needed;
    /* within one run: the standard error and degrees of freedom (ci_compare) */
    struct ci_difference within;
};

/* One figure (tps or a percentile) of every side, and each side's difference from the first. */
struct compare_row {
    char name[COMPARE_NAME_MAX];            /* "tps", "p99", "p99.9" */
    bool tps;                               /* ops/s (values in ci_result's _ns fields as ops/s) */
    double pct;                             /* a percentile's */
    struct ci_result run[COMPARE_MAX_RUNS]; /* each side's value: its runs pooled (within one
                                               run: with that run's interval) */
    struct compare_diff diff[COMPARE_MAX_RUNS]; /* [i]: side i - side 0; [0] unused */
};

struct compare_table {
    enum compare_mode mode;
    double gate_level;     /* --fail-if's share of the 5% (compare_gate_level) */
    double together_level; /* every figure of a block at once: COMPARE_LEVEL shared by them */
    double shortest_s;     /* the shortest run or round of any side (seconds) */
    size_t nruns;
    size_t nrows;
    struct compare_run runs[COMPARE_MAX_RUNS];
    struct compare_row rows[COMPARE_MAX_ROWS];
    /* [i]: the workload settings side i differs in from the first ("" when none), and, for
     * replicates, whether one side's runs were all made before the other's */
    char differs[COMPARE_MAX_RUNS][COMPARE_DIFFERS_MAX];
    bool apart[COMPARE_MAX_RUNS];
};

/*
 * The table of sides[0..n) (2 to COMPARE_MAX_RUNS): throughput and the percentiles every run
 * lists. paired: the sides are --live rounds, as many each, round k of each a pair. Each
 * side's runs must share one workload (slap merge's rule); the sides may differ (TCP against
 * UDP, one server against another: the table says how). gate_level is the level --fail-if
 * judges at. SLAP_ERROR with err when a side's runs differ, a document is a sweep, the sides
 * have no figure in common or memory runs out.
 */
enum slap_status compare_build(struct compare_table *t, const struct compare_side *sides, size_t n,
                               bool paired, double gate_level, char *err, size_t err_len);

/* The table as text: a block per side set against the first. */
void compare_print(FILE *out, const struct compare_table *t);
/* The table as JSON (slap compare --json). */
void compare_write_json(FILE *out, const struct compare_table *t);

/* --fail-if: a figure, a direction and an amount ("p99>+5%", "tps<-5%", "p50>+200us"). */
struct compare_threshold {
    char figure[COMPARE_NAME_MAX]; /* "tps" or "pN" */
    bool tps;
    double pct;    /* a percentile's */
    bool above;    /* '>': crossed when the difference is above amount; '<': below */
    bool relative; /* amount is a fraction of the first side's value */
    double amount; /* relative: 0.05 for 5%; else ns (latency) or ops/s (tps) */
};

/* Parse one threshold; SLAP_ERROR with err saying what is wrong. */
enum slap_status compare_threshold_parse(const char *text, struct compare_threshold *th, char *err,
                                         size_t err_len);
/*
 * The level each --fail-if comparison is judged at when nth thresholds are checked against
 * every side after the first: COMPARE_LEVEL shared among them (Bonferroni), so that chance
 * alone fails the whole check at most 1 - COMPARE_LEVEL of the time, however many
 * thresholds and sides. One threshold, two sides: COMPARE_LEVEL itself.
 */
double compare_gate_level(size_t nsides, size_t nth);
/* The row of th's figure, or -1 when the sides do not all list it. */
int compare_row_of(const struct compare_table *t, const struct compare_threshold *th);
/*
 * Can th be judged? NULL when it can; else why not, into why: the figure is not listed, the
 * mode does not judge (one run a side), or a side has too few runs or requests for the gate's
 * level.
 */
const char *compare_gate_problem(const struct compare_table *t, const struct compare_threshold *th,
                                 char *why, size_t why_len);
/* Does a difference of some side from the first, significant at the gate's level, cross th?
 * Then *row and *run say where (the first such). */
bool compare_crosses(const struct compare_table *t, const struct compare_threshold *th, size_t *row,
                     size_t *run);

#endif
