/* Confidence intervals on a run's percentiles, from its per-period histograms (batch means). */
#ifndef SLAP_CONFIDENCE_H
#define SLAP_CONFIDENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slap/base/hist.h"

/*
 * What is computed, in plain words.
 *
 * The estimate is what slap prints today: the percentile of every period merged.
 *
 * The interval says how far that estimate could be from the percentile slap would find if the
 * same run went on for ever. Requests of one run are not independent: a slow second (a GC
 * pause, a busy neighbour, a growing queue) makes many consecutive requests slow together, so
 * the textbook interval built on the ranks of independent samples is far too narrow. Batch
 * means measure the spread where it shows: cut the run into B batches of consecutive periods
 * holding about the same number of requests, take the percentile of each batch on its own,
 * and read the uncertainty from how much those B values disagree. Batches much longer than
 * the correlation between requests are close to independent, so with s the batches' sample
 * deviation the interval is estimate +- t * s / sqrt(B), where t is Student's t quantile with
 * B - 1 degrees of freedom at the level asked. A run whose latency drifts gives batches that
 * disagree, hence a wider interval, as it should.
 *
 * How B is chosen: as many batches as possible up to CI_BATCHES_MAX (30: beyond that t is
 * within 4% of the normal quantile, so more batches narrow the interval little while each
 * batch gets shorter, more correlated with its neighbours and thinner in the tail), but no
 * more than there are non-empty periods (a batch is whole periods) and no more than the
 * requests allow: every batch must hold CI_TAIL_MIN requests beyond the percentile. Batches
 * are cut where the running request count crosses each of the B equal shares; when uneven
 * periods leave a batch short of requests, B is lowered until every batch has enough.
 *
 * Sufficiency: a percentile is estimable only when the run holds CI_BATCHES_MIN *
 * CI_TAIL_MIN = 50 requests beyond it, that is 50 / (1 - p/100) requests (p99: 5000, p99.9:
 * 50000, p99.99: 500000). The tail is the smaller side, so p1 needs as many as p99. The
 * maximum (p100) and the minimum have no tail at all: never estimable. When the run is too
 * short the result says so and how many requests would do; it never gives an interval.
 *
 * Fallback: a run with enough requests but too few periods for CI_BATCHES_MIN batches (a run
 * without periods, or one shorter than 5 periods) gets a distribution-free interval on the
 * ranks: the percentile's rank n*q +- z * sqrt(n*q*(1-q)) (the normal approximation of the
 * binomial count below the true percentile), read back to values through the histogram's
 * cumulative counts. It assumes independent requests and is therefore optimistic (too
 * narrow) on a real run: the result flags it as CI_ORDER_STATISTICS.
 *
 * Either way the interval is never narrower than the histogram's own bucket at the estimate
 * (about 0.8% of the value): the histogram cannot tell values inside one bucket apart. And it
 * never reaches beyond what was seen: below the run's fastest request or above its slowest
 * (t * s / sqrt(B) can exceed a low percentile's distance from the fastest; the true
 * percentile lies below the fastest of n requests only with a chance of (1 - p/100)^n).
 * Everything is computed from the periods' buckets in place: no allocation, no I/O. A call
 * reads every period's buckets up to the percentile twice (once for the run, once in its
 * batch): an hour of 1 s periods is about 25 million additions per percentile.
 */

#define CI_BATCHES_MIN 5  /* fewer batches than this: order statistics */
#define CI_BATCHES_MAX 30 /* more add little: see above */
#define CI_TAIL_MIN 10    /* requests beyond the percentile each batch needs */
/* ci_result.needed when no run is long enough (p0, p100). */
#define CI_NEEDED_NEVER UINT64_MAX

enum ci_method {
    CI_NOT_ESTIMABLE = 0, /* too few requests: no interval */
    CI_BATCH_MEANS,       /* batches' spread and Student's t */
    CI_ORDER_STATISTICS,  /* ranks of independent requests (optimistic) */
};

struct ci_result {
    bool estimable; /* false: low_ns and high_ns are 0 and mean nothing */
    enum ci_method method;
    unsigned batches;  /* B for CI_BATCH_MEANS, else 0 */
    uint64_t value_ns; /* the estimate: the percentile of every period merged (0 if none) */
    uint64_t low_ns;   /* the interval, inclusive */
    uint64_t high_ns;
    uint64_t requests; /* requests in the run */
    uint64_t needed;   /* requests the percentile needs (CI_NEEDED_NEVER: none suffice) */
};

/*
 * The estimate and interval of percentile pct (0..100, as hist_percentile_ns takes it) at
 * confidence level (0..1, e.g. 0.95; outside that 0.95 is used) from the run's periods in
 * time order. A period may be empty; periods may be NULL only when count is 0.
 */
void ci_percentile(const struct hist *const *periods, size_t count, double pct, double level,
                   struct ci_result *result);

/*
 * The periods as ci_percentile reads them, for periods kept in another form than histograms:
 * how many; each one's count, min_ns and max_ns (as a histogram's); and the bucket where the
 * periods [from, to) merged reach rank (1..their count), looked for from min_ns's bucket up to
 * max_ns's (their bounds), which it gives when the rank is not reached before.
 */
struct ci_periods {
    size_t count;
    const void *ctx;
    void (*measure)(const void *ctx, size_t i, uint64_t *count, uint64_t *min_ns, uint64_t *max_ns);
    size_t (*rank_bucket)(const void *ctx, size_t from, size_t to, uint64_t min_ns, uint64_t max_ns,
                          uint64_t rank);
};
/* ci_percentile of periods given so. */
void ci_percentile_of(const struct ci_periods *periods, double pct, double level,
                      struct ci_result *result);

/* The half-width relative to the estimate, (high - low) / 2 / value: what a precision target
 * ("p99 within 5%") compares with. Infinity when not estimable or the estimate is 0. */
double ci_relative_halfwidth(const struct ci_result *result);

/* Student's t quantile: the t with P(|T| <= t) = level for df degrees of freedom (df >= 1),
 * or the normal one for df 0. Exact to 1e-9 (bisection on the closed-form distribution). */
double ci_t_quantile(double level, unsigned df);

/* The method's name as a report prints it: "batch means", "order statistics",
 * "not estimable". */
const char *ci_method_name(enum ci_method method);

/*
 * Two runs compared: the difference b - a of their estimates, with an interval. Each run's
 * standard error is read back from its interval (half-width / t, or / z for order
 * statistics); the two add in quadrature and the degrees of freedom are Welch-Satterthwaite's.
 * The difference is significant when its interval excludes 0. Not estimable when either
 * run's percentile is not.
 */
struct ci_difference {
    bool estimable;
    double diff_ns; /* b - a */
    double low_ns;  /* the interval of the difference */
    double high_ns;
    double relative; /* diff / a (0 when a is 0) */
    bool significant;
    double se_ns; /* the standard error of diff */
    unsigned df;  /* its degrees of freedom (Welch); 0: normal */
};
void ci_compare(const struct ci_result *a, const struct ci_result *b, double level,
                struct ci_difference *d);
/* Is d significant at another level (a stricter one, for several comparisons at once)? */
bool ci_significant_at(const struct ci_difference *d, double level);

/*
 * A mean and its interval from n values taken as independent batches (the rates of a run's
 * periods grouped by ci_batch_rates, or the rounds of --rounds): mean +- t * s / sqrt(n).
 * With fewer than 2 values the interval is the mean itself; *se gets s / sqrt(n) when wanted.
 */
void ci_mean(const double *values, size_t n, double level, double *mean, double *low, double *high,
             double *se);

#endif
