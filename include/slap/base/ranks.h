/* A shift between two sets of replicates, by ranks: exact at the level stated, any distribution. */
#ifndef SLAP_RANKS_H
#define SLAP_RANKS_H

#include <stdbool.h>
#include <stddef.h>

#include "slap/base/common.h"

/*
 * What is computed, in plain words.
 *
 * A replicate is one whole measurement of a side: a round of slap compare --live, or one
 * results file. Replicates are the unit of variation: what a host does between runs (another
 * tenant, a frequency change) shows in their spread, and nowhere inside one run.
 *
 * Paired (rounds of two sides taken one after the other, the order inside each pair drawn
 * at random): the differences d = b - a of the pairs. Wilcoxon's signed-rank statistic and
 * the interval it gives for the shift: the Walsh averages (d_i + d_j) / 2, i <= j, sorted,
 * from the c-th smallest to the c-th largest, c the largest rank whose lower tail under "no
 * difference" is at most (1 - level) / 2. When the two sides do not differ, the coin that
 * set each pair's order makes every difference's sign a fair coin too, whatever the host
 * did, so the statistic's distribution is known exactly (2^n equally likely sign patterns)
 * and the interval covers 0 at least level of the time: no assumption of normal noise, of
 * independent requests, or of a host that held still.
 *
 * Two samples (files of two sides, not paired): the differences b_j - a_i of every pair,
 * sorted, and the c-th from each end, c from the Mann-Whitney statistic's exact distribution
 * (every ordering of the m + n values equally likely when the sides do not differ). That
 * holds when the replicates of both sides were taken under the same conditions; when one
 * side's runs were all made before the other's, a change of the host in between is a
 * difference like any other.
 *
 * The estimate is Hodges and Lehmann's: the median of the same averages or differences.
 * With few replicates no interval reaches the level: 2^-n (paired) or 1 / C(m+n, m) (two
 * samples) is the chance of the most extreme ordering, and it must be at most (1 - level)
 * / 2. The result then says how many are needed and gives no interval.
 */

#define RANKS_MAX 256 /* replicates of a side (pairs, or files): more are refused */

struct rank_shift {
    bool estimable;  /* enough replicates for an interval at the level */
    double estimate; /* Hodges-Lehmann: the median of the averages, or of the differences */
    double low;      /* the interval (estimable only) */
    double high;
    double achieved;  /* the interval's exact confidence, at least the level asked */
    bool significant; /* the interval leaves 0 out */
    size_t needed;    /* not estimable: pairs, or replicates a side (equal sides), needed */
    size_t freedom;   /* the replicates' degrees of freedom: pairs - 1, or both sides' - 2 */
};

/* The shift b - a from n paired differences d[i] = b_i - a_i at level (0..1).
 * SLAP_ERROR when n passes RANKS_MAX or memory runs out. */
enum slap_status rank_paired(const double *d, size_t n, double level, struct rank_shift *r);

/* The shift b - a from na values of a and nb of b, not paired. */
enum slap_status rank_two_sample(const double *a, size_t na, const double *b, size_t nb,
                                 double level, struct rank_shift *r);

/* Replicates needed for an interval at level: pairs (paired), or a side (two equal sides). */
size_t rank_needed(bool paired, double level);

/*
 * What a comparison that found nothing could have found. An interval of half-width h at
 * confidence c leaves 0 out when the estimate is further than h from it; a true shift s gives
 * estimates spread about s, so it would be found RANKS_POWER of the time, were h exact and
 * the estimates normal, when s = h (z_c + t_power) / z_c (z_c the normal quantile at c,
 * t_power Student's one-sided at RANKS_POWER with the replicates' degrees of freedom: h is
 * measured from them). That s is the smallest shift the comparison would find, about 2 times
 * in 3 or more (test_ranks, over many repeats: 0.81 to 0.88 with even noise, 0.67 to 0.75
 * with a host's skewed noise, whose occasional slow round one comparison's width often
 * misses); 0 when r has no interval. The width shrinks as the square root of the replicates:
 * a shift of size change needs about n (s / change)^2 of them (never fewer than
 * rank_needed); RANKS_MAX + 1 when that is more than RANKS_MAX, 0 when change is 0 or s
 * unknown.
 */
#define RANKS_POWER 0.9
double rank_detectable(const struct rank_shift *r);
size_t rank_needed_for(const struct rank_shift *r, size_t n, double change, bool paired,
                       double level);

#endif
