/* Where the level of a series of runs' figures changed: E-divisive, with a permutation test. */
#ifndef SLAP_CHANGES_H
#define SLAP_CHANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slap/base/common.h"

/*
 * What is computed, in plain words.
 *
 * The values are one figure of a series of runs (their p99, say), in time order. A change is a
 * point where the values after it come from another level than those before it. The finder
 * splits the series where the energy statistic (Matteson and James' E-divisive, with exponent
 * 1: the mean distance between the two sides, less the mean distances within each) is largest,
 * each side at least min_segment values long. The split holds when a permutation test finds it
 * significant: the values shuffled, permutations times, with a generator seeded by seed (the
 * same values always give the same answer); p is (1 + shuffles whose largest statistic reached
 * the split's) / (1 + permutations). A split that holds is searched again on each side, until
 * none holds. Changes smaller than min_relative of the level before are then dropped, and the
 * levels around the rest recomputed.
 *
 * The levels are the medians of the values between neighbouring changes; the change is the
 * Hodges-Lehmann shift between the values either side of it (at most CHANGES_SHIFT_RUNS nearest
 * each side), with its interval at CHANGES_LEVEL from ranks (base/ranks.h).
 *
 * A series shorter than 2 * min_segment carries no judgement: needed says how many values it
 * would need.
 */

#define CHANGES_LEVEL 0.95
#define CHANGES_MIN_SEGMENT 4    /* the default: values on each side of a change, at least */
#define CHANGES_PERMUTATIONS 199 /* the default: shuffles of the permutation test */
#define CHANGES_MAX_P 0.01       /* the default: a split holds at this p or below */
#define CHANGES_MAX 1000000      /* values a series may hold */
/* values each side of a change its shift is taken from (at most RANKS_MAX): 64 a side give an
 * interval as narrow as a run's noise allows, and cost a tenth of 256's (ranks.c's exact
 * distribution grows as the cube) */
#define CHANGES_SHIFT_RUNS 64

struct changes_settings {
    size_t min_segment;    /* values each side of a change, at least (>= 2) */
    unsigned permutations; /* of the permutation test (>= 19) */
    double max_p;          /* a split holds at this p or below */
    double min_relative;   /* a change smaller than this share of the level before is dropped
                            * (0: none is) */
    uint64_t seed;         /* the shuffles' generator */
};

/* The defaults above, min_relative 0, a fixed seed. */
void changes_defaults(struct changes_settings *s);

struct change_point {
    size_t at;        /* the first value after the change */
    double before;    /* the level before: the median from the previous change (or 0) to at */
    double after;     /* the level after: the median from at to the next change (or the end) */
    double relative;  /* (after - before) / before; 0 when before is 0 */
    bool estimable;   /* the shift has an interval at CHANGES_LEVEL */
    double shift;     /* Hodges-Lehmann: after - before */
    double low, high; /* its interval (estimable only) */
    double p;         /* the permutation test's p for the split */
};

struct changes {
    size_t needed; /* > 0: too few values to judge; the values it needs (nothing else is set) */
    size_t n;
    struct change_point *points; /* n of them, by at (owned) */
};

/*
 * The changes of x[0..n) (finite values, n <= CHANGES_MAX) into out (initialised here,
 * whatever the outcome; changes_free releases it). SLAP_ERROR when a value is not finite, a
 * setting is out of its range, n passes CHANGES_MAX or memory runs out.
 */
enum slap_status changes_find(const double *x, size_t n, const struct changes_settings *s,
                              struct changes *out);
void changes_free(struct changes *c);

#endif
