/* Log-linear latency histogram: record, merge, percentiles, memaslap's log2 view. */
#ifndef SLAP_HIST_H
#define SLAP_HIST_H

#include <stddef.h>
#include <stdint.h>

#include "slap/base/common.h"

/*
 * Values are nanoseconds. Below 2 * HIST_SUB_COUNT a value has a bucket of its
 * own; above, every power of two is cut into HIST_SUB_COUNT equal sub-buckets,
 * so a bucket is at most 1/128 of its lower bound wide (relative error < 0.8%).
 * Values above HIST_MAX_NS (one hour) are clamped into the last bucket, but
 * min, max and the sums keep the true value.
 */
#define HIST_SUB_BITS 7
#define HIST_SUB_COUNT (1u << HIST_SUB_BITS)
#define HIST_MAX_NS (3600ULL * 1000000000ULL)
#define HIST_BUCKETS 4608 /* index of 2^42 - 1 ns is 4607 */
#define HIST_LOG2_BUCKETS 64

struct hist {
    uint64_t count;                      /* values recorded */
    uint64_t min_ns;                     /* UINT64_MAX while empty */
    uint64_t max_ns;                     /* 0 while empty */
    double sum_us;                       /* for the mean */
    double sumsq_us;                     /* for the sample deviation */
    uint64_t log2_us[HIST_LOG2_BUCKETS]; /* [i]: 2^(i-1) < whole us <= 2^i, as memaslap */
    uint64_t buckets[HIST_BUCKETS];      /* log-linear counts */
};

/* Empty the histogram (it needs no other initialisation). It writes all 37 KB, so every page
 * of them becomes resident: for histograms that live long and hold little, hist_slab_alloc. */
void hist_reset(struct hist *h);
/* n empty histograms in one mapping of zero pages: a page of buckets takes memory only once
 * something is recorded or merged into it, so a slab of mostly idle histograms (every type of a
 * run's statistics) costs the few pages they use. *out is NULL when n is 0. SLAP_ERROR when
 * out of memory. */
enum slap_status hist_slab_alloc(struct hist **out, size_t n);
/* Unmap a slab of n histograms (NULL is fine). */
void hist_slab_free(struct hist *slab, size_t n);
/* Every histogram holds its counts in the buckets from min_ns's to max_ns's (hist_record and
 * hist_merge keep it so; a results file that breaks it is refused), so clearing, merging and
 * scanning touch only those. */
/* Empty a histogram set up by hist_reset: only its buckets between min and max are written
 * (periods are emptied ten times a second). */
void hist_clear(struct hist *h);
/* Record one latency in nanoseconds. No allocation, no branch-heavy work. */
void hist_record(struct hist *h, uint64_t ns);
/* Record n latencies of ns each, as n calls of hist_record would. */
void hist_record_n(struct hist *h, uint64_t ns, uint64_t n);
/* Add every count of src into dst (exact: periods, threads and hosts combine). An empty src
 * (count 0) changes nothing; an empty dst takes src's min and max. */
void hist_merge(struct hist *dst, const struct hist *src);

/* Bucket arithmetic, exposed for serialisers (.hgrm) and tests. */
size_t hist_bucket_index(uint64_t ns);
uint64_t hist_bucket_low(size_t index);  /* smallest value in the bucket */
uint64_t hist_bucket_high(size_t index); /* largest value in the bucket */

/*
 * The value at percentile pct (0..100]: the bucket where the cumulative count
 * reaches ceil(pct/100 * count), reported as the bucket's midpoint clamped to
 * [min_ns, max_ns]. 0 when empty; pct >= 100 gives max_ns.
 */
uint64_t hist_percentile_ns(const struct hist *h, double pct);
/* The rank it reads: ceil(pct / 100 * count), at least 1 and at most count, forgiving rounding
 * noise (99.9% of 100000 is rank 99900, not 99901). */
uint64_t hist_percentile_rank(double pct, uint64_t count);
/* The bucket where the cumulative count reaches rank (1..count): read from min_ns's bucket to
 * max_ns's, which hold every count. */
size_t hist_rank_bucket(const struct hist *h, uint64_t rank);

/* The values in bucket index and above (a tail's count: two histograms' tails from one
 * bucket hold the same values, whatever their other counts). */
uint64_t hist_count_from(const struct hist *h, size_t index);

/* Summaries in microseconds, from the exact sums (0 when undefined). */
double hist_mean_us(const struct hist *h);
double hist_stddev_us(const struct hist *h); /* sample deviation, n - 1 */
/*
 * The geometric mean, from the buckets (recording takes no logarithm): each value counts as
 * the middle of its bucket narrowed to [min_ns, max_ns], so the result is within 0.4% (half a
 * bucket, 1/256) of the exact one, and exact when every value is the same. Values under 1 us
 * count as 1 us; values above HIST_MAX_NS as the last bucket.
 */
double hist_geomean_us(const struct hist *h);
/* The sum behind it: ln(max(us, 1)) of every value, taken as above. */
double hist_sumlog_us(const struct hist *h);

#endif
