/* Log-linear latency histogram: bucket arithmetic, recording, merging and summaries. */
#include "slap/base/hist.h"

#include <assert.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>

#include "slap/base/common.h"

/*
 * Layout: index v for v < 2 * HIST_SUB_COUNT; above, the power of two [2^b, 2^(b+1)) is cut
 * into HIST_SUB_COUNT buckets of width 2^shift, shift = b - HIST_SUB_BITS, and starts at
 * index (shift + 1) * HIST_SUB_COUNT. The last power of two that fits is therefore
 * b = HIST_BUCKETS / HIST_SUB_COUNT + HIST_SUB_BITS - 2, so every value below
 * 2^(HIST_BUCKETS / HIST_SUB_COUNT + HIST_SUB_BITS - 1) has a bucket.
 */
#define HIST_COVERED_BITS (HIST_BUCKETS / HIST_SUB_COUNT + HIST_SUB_BITS - 1)

_Static_assert(HIST_BUCKETS % HIST_SUB_COUNT == 0, "whole powers of two per bucket row");
_Static_assert(HIST_COVERED_BITS < 64, "bucket bounds fit in uint64_t");
_Static_assert(HIST_MAX_NS < (1ULL << HIST_COVERED_BITS), "HIST_BUCKETS covers HIST_MAX_NS");

/* Relative slack on the rank so that 99.9% of 100000 is rank 99900, not 99901. */
#define HIST_RANK_SLACK 1e-12

void hist_reset(struct hist *h)
{
    memset(h, 0, sizeof(*h));
    h->min_ns = UINT64_MAX;
}

enum slap_status hist_slab_alloc(struct hist **out, size_t n)
{
    *out = NULL;
    if (n == 0) {
        return SLAP_OK;
    }
    if (n > SIZE_MAX / sizeof(struct hist)) {
        return SLAP_ERROR;
    }
    /* not calloc: once glibc has freed a mapped block this large it serves such blocks from
     * its heap, where calloc clears what it reuses, and every page of them becomes resident */
    void *p = mmap(NULL, n * sizeof(struct hist), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        return SLAP_ERROR;
    }
    struct hist *slab = p;
    for (size_t i = 0; i < n; i++) {
        slab[i].min_ns = UINT64_MAX; /* the rest is zero already: hist_reset's state */
    }
    *out = slab;
    return SLAP_OK;
}

void hist_slab_free(struct hist *slab, size_t n)
{
    if (slab != NULL) {
        munmap(slab, n * sizeof(*slab));
    }
}

void hist_clear(struct hist *h)
{
    if (h->count > 0) {
        size_t lo = hist_bucket_index(h->min_ns), hi = hist_bucket_index(h->max_ns);
        memset(&h->buckets[lo], 0, (hi - lo + 1) * sizeof(h->buckets[0]));
        memset(h->log2_us, 0, sizeof(h->log2_us));
    }
    h->count = 0;
    h->min_ns = UINT64_MAX;
    h->max_ns = 0;
    h->sum_us = 0.0;
    h->sumsq_us = 0.0;
}

size_t hist_bucket_index(uint64_t ns)
{
    uint64_t v = ns > HIST_MAX_NS ? HIST_MAX_NS : ns;
    if (v < 2 * HIST_SUB_COUNT) {
        return (size_t)v;
    }
    unsigned bit = 63u - (unsigned)__builtin_clzll(v);
    unsigned shift = bit - HIST_SUB_BITS;
    return (size_t)(shift + 1) * HIST_SUB_COUNT + (size_t)((v >> shift) - HIST_SUB_COUNT);
}

/* Width of bucket index as a power of two (0 for the exact buckets below 256). */
static unsigned bucket_shift(size_t index)
{
    if (index < 2 * HIST_SUB_COUNT) {
        return 0;
    }
    return (unsigned)(index / HIST_SUB_COUNT) - 1u;
}

uint64_t hist_bucket_low(size_t index)
{
    if (index < 2 * HIST_SUB_COUNT) {
        return (uint64_t)index;
    }
    uint64_t sub = HIST_SUB_COUNT + index % HIST_SUB_COUNT;
    return sub << bucket_shift(index);
}

uint64_t hist_bucket_high(size_t index)
{
    return hist_bucket_low(index) + ((1ULL << bucket_shift(index)) - 1u);
}

/* memaslap's view: the smallest i with 2^i >= whole_us (0 and 1 -> 0), capped at 63. */
static unsigned log2_slot(uint64_t whole_us)
{
    if (whole_us <= 1) {
        return 0;
    }
    unsigned slot = 64u - (unsigned)__builtin_clzll(whole_us - 1);
    return slot < HIST_LOG2_BUCKETS ? slot : HIST_LOG2_BUCKETS - 1;
}

void hist_record(struct hist *h, uint64_t ns)
{
    double us = (double)ns / 1000.0;

    h->count++;
    if (ns < h->min_ns) {
        h->min_ns = ns;
    }
    if (ns > h->max_ns) {
        h->max_ns = ns;
    }
    h->sum_us += us;
    h->sumsq_us += us * us;
    h->log2_us[log2_slot(ns / SLAP_NS_PER_US)]++;
    assert(hist_bucket_index(ns) < HIST_BUCKETS);
    h->buckets[hist_bucket_index(ns)]++;
}

void hist_record_n(struct hist *h, uint64_t ns, uint64_t n)
{
    double us = (double)ns / 1000.0;
    if (n == 0) {
        return;
    }
    h->count += n;
    h->min_ns = ns < h->min_ns ? ns : h->min_ns;
    h->max_ns = ns > h->max_ns ? ns : h->max_ns;
    h->sum_us += us * (double)n;
    h->sumsq_us += us * us * (double)n;
    h->log2_us[log2_slot(ns / SLAP_NS_PER_US)] += n;
    h->buckets[hist_bucket_index(ns)] += n;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
    if (src->count == 0) {
        return; /* an empty histogram has no bounds to give, whatever its min_ns says */
    }
    if (dst->count == 0 || src->min_ns < dst->min_ns) {
        dst->min_ns = src->min_ns;
    }
    if (dst->count == 0 || src->max_ns > dst->max_ns) {
        dst->max_ns = src->max_ns;
    }
    dst->count += src->count;
    dst->sum_us += src->sum_us;
    dst->sumsq_us += src->sumsq_us;
    for (size_t i = 0; i < HIST_LOG2_BUCKETS; i++) {
        dst->log2_us[i] += src->log2_us[i];
    }
    size_t hi = hist_bucket_index(src->max_ns); /* nothing outside min..max */
    for (size_t i = hist_bucket_index(src->min_ns); i <= hi; i++) {
        dst->buckets[i] += src->buckets[i];
    }
}

uint64_t hist_percentile_rank(double pct, uint64_t count)
{
    if (!(pct > 0.0)) {
        return 1;
    }
    double exact = pct / 100.0 * (double)count;
    double rank = ceil(exact - exact * HIST_RANK_SLACK);
    if (rank < 1.0) {
        return 1;
    }
    if (rank >= (double)count) {
        return count;
    }
    return (uint64_t)rank;
}

/* The bucket's midpoint, kept inside what was actually recorded. */
static uint64_t bucket_value(const struct hist *h, size_t index)
{
    uint64_t low = hist_bucket_low(index);
    uint64_t mid = low + (hist_bucket_high(index) - low) / 2;
    if (mid < h->min_ns) {
        return h->min_ns;
    }
    return mid > h->max_ns ? h->max_ns : mid;
}

uint64_t hist_percentile_ns(const struct hist *h, double pct)
{
    if (h->count == 0) {
        return 0;
    }
    if (pct >= 100.0) {
        return h->max_ns;
    }
    return bucket_value(h, hist_rank_bucket(h, hist_percentile_rank(pct, h->count)));
}

size_t hist_rank_bucket(const struct hist *h, uint64_t rank)
{
    size_t last = hist_bucket_index(h->max_ns);
    uint64_t seen = 0;
    for (size_t i = hist_bucket_index(h->min_ns); i < last; i++) {
        seen += h->buckets[i];
        if (seen >= rank) {
            return i;
        }
    }
    return last;
}

uint64_t hist_count_from(const struct hist *h, size_t index)
{
    if (h->count == 0) {
        return 0;
    }
    size_t last = hist_bucket_index(h->max_ns);
    uint64_t seen = 0;
    for (size_t i = index > hist_bucket_index(h->min_ns) ? index : hist_bucket_index(h->min_ns);
         i <= last; i++) {
        seen += h->buckets[i];
    }
    return seen;
}

double hist_mean_us(const struct hist *h)
{
    return h->count ? h->sum_us / (double)h->count : 0.0;
}

double hist_stddev_us(const struct hist *h)
{
    if (h->count < 2) {
        return 0.0;
    }
    double n = (double)h->count;
    double var = (h->sumsq_us - h->sum_us * h->sum_us / n) / (n - 1.0);
    return var > 0.0 ? sqrt(var) : 0.0;
}

/* The value that stands for bucket index: the middle of the bucket's part of [min_ns, max_ns]. */
static double bucket_middle_ns(const struct hist *h, size_t index)
{
    uint64_t low = hist_bucket_low(index), high = hist_bucket_high(index);
    low = low < h->min_ns ? h->min_ns : low;
    high = high > h->max_ns ? h->max_ns : high;
    return high < low ? (double)low : ((double)low + (double)high) / 2.0;
}

double hist_sumlog_us(const struct hist *h)
{
    double sum = 0.0;
    for (size_t i = 0; i < HIST_BUCKETS; i++) {
        double us = h->buckets[i] != 0 ? bucket_middle_ns(h, i) / 1000.0 : 0.0;
        if (us > 1.0) {
            sum += (double)h->buckets[i] * log(us);
        }
    }
    return sum;
}

double hist_geomean_us(const struct hist *h)
{
    return h->count ? exp(hist_sumlog_us(h) / (double)h->count) : 0.0;
}
