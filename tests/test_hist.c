/* Unit tests of the log-linear histogram: bucket arithmetic, percentiles, merge, summaries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "slap/base/hist.h"

#include "resident.h"

#define SAMPLE_COUNT 100000

/* Fail with both numbers when got is not within rel (relative) of want. */
#define assert_close(got, want, rel)                                                               \
    do {                                                                                           \
        double got_ = (got), want_ = (want);                                                       \
        double scale_ = fabs(want_) > 0.0 ? fabs(want_) : 1.0;                                     \
        if (!(fabs(got_ - want_) <= (rel)*scale_)) {                                               \
            fail_msg("%s = %.17g, expected %.17g (rel %g)", #got, got_, want_, (double)(rel));     \
        }                                                                                          \
    } while (0)

/* Histograms are 37 KB: keep them out of the test functions' frames. */
static struct hist hist_a, hist_b, hist_all;
static uint64_t samples[SAMPLE_COUNT];
static uint64_t sorted[SAMPLE_COUNT];

/* xorshift64*: a fixed-seed generator so failures reproduce. */
static uint64_t prng_next(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 0x2545F4914F6CDD1DULL;
}

/* Log-uniform between 1 us and 1 s, in ns. */
static void fill_samples(uint64_t seed)
{
    uint64_t state = seed;
    for (size_t i = 0; i < SAMPLE_COUNT; i++) {
        double unit = (double)(prng_next(&state) >> 11) / 9007199254740992.0; /* [0, 1) */
        samples[i] = (uint64_t)(1000.0 * exp(unit * log(1e6)));
    }
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void test_bucket_round_trip(void **state)
{
    (void)state;
    size_t last_used = hist_bucket_index(HIST_MAX_NS);
    for (size_t i = 0; i < HIST_BUCKETS; i++) {
        uint64_t low = hist_bucket_low(i), high = hist_bucket_high(i);
        assert_true(low <= high);
        if (i > last_used) { /* beyond one hour: every value is clamped */
            assert_int_equal(hist_bucket_index(low), last_used);
            continue;
        }
        assert_int_equal(hist_bucket_index(low), i);
        assert_int_equal(hist_bucket_index(high), i);
        if (i < last_used) {
            assert_int_equal(hist_bucket_index(high + 1), i + 1);
        }
        if (low > 0) {
            assert_int_equal(hist_bucket_index(low - 1), i - 1);
        }
        if (i >= 2 * HIST_SUB_COUNT) {
            assert_true((high - low + 1) * HIST_SUB_COUNT <= low);
        } else {
            assert_int_equal(low, i);
            assert_int_equal(high, i);
        }
    }
}

static void test_buckets_are_contiguous(void **state)
{
    (void)state;
    for (size_t i = 0; i + 1 < HIST_BUCKETS; i++) {
        assert_int_equal(hist_bucket_low(i + 1), hist_bucket_high(i) + 1);
    }
    assert_int_equal(hist_bucket_high(HIST_BUCKETS - 1), (1ULL << 42) - 1);
}

static void test_buckets_cover_max(void **state)
{
    (void)state;
    assert_true(hist_bucket_index(HIST_MAX_NS) < HIST_BUCKETS);
    assert_int_equal(hist_bucket_index(HIST_MAX_NS), 4561);
    assert_int_equal(hist_bucket_index(UINT64_MAX), hist_bucket_index(HIST_MAX_NS));
    assert_int_equal(hist_bucket_index(HIST_MAX_NS + 1), hist_bucket_index(HIST_MAX_NS));
    assert_int_equal(hist_bucket_index(255), 255);
    assert_int_equal(hist_bucket_index(256), 256);
    assert_int_equal(hist_bucket_index(257), 256);
    assert_int_equal(hist_bucket_index(258), 257);
    assert_int_equal(hist_bucket_index(511), 383);
    assert_int_equal(hist_bucket_index(512), 384);
}

static void test_percentiles_match_sorted(void **state)
{
    (void)state;
    static const uint64_t per_10000[] = {100, 1000, 5000, 9000, 9900, 9990, 9999, 10000};
    fill_samples(0x5eed1234abcdULL);
    hist_reset(&hist_all);
    for (size_t i = 0; i < SAMPLE_COUNT; i++) {
        hist_record(&hist_all, samples[i]);
    }
    memcpy(sorted, samples, sizeof(sorted));
    qsort(sorted, SAMPLE_COUNT, sizeof(sorted[0]), compare_u64);
    for (size_t k = 0; k < sizeof(per_10000) / sizeof(per_10000[0]); k++) {
        uint64_t rank = (per_10000[k] * SAMPLE_COUNT + 9999) / 10000; /* exact ceil */
        double exact = (double)sorted[rank - 1];
        double got = (double)hist_percentile_ns(&hist_all, (double)per_10000[k] / 100.0);
        /* The midpoint is within half a bucket: 1/256 of the value, well inside 1%. */
        assert_close(got, exact, 1.0 / 256);
    }
    assert_int_equal(hist_percentile_ns(&hist_all, 100.0), sorted[SAMPLE_COUNT - 1]);
    assert_int_equal(hist_all.min_ns, sorted[0]);
}

static void test_percentile_rank_is_exact(void **state)
{
    (void)state;
    hist_reset(&hist_all);
    for (size_t i = 0; i < SAMPLE_COUNT; i++) {
        hist_record(&hist_all, i < 99900 ? 10 : 200);
    }
    /* 99.9 / 100 * 100000 is 99900.00000000001 in doubles: rank must still be 99900. */
    assert_int_equal(hist_percentile_ns(&hist_all, 99.9), 10);
    assert_int_equal(hist_percentile_ns(&hist_all, 99.901), 200);
    assert_int_equal(hist_percentile_ns(&hist_all, 0.0), 10);
    assert_int_equal(hist_percentile_ns(&hist_all, -5.0), 10);
    assert_int_equal(hist_percentile_ns(&hist_all, 100.0), 200);
    assert_int_equal(hist_percentile_ns(&hist_all, 250.0), 200);
}

static void test_percentile_midpoint_and_clamp(void **state)
{
    (void)state;
    hist_reset(&hist_all);
    hist_record(&hist_all, 1000000); /* bucket midpoint 1001471 lies above max */
    assert_int_equal(hist_percentile_ns(&hist_all, 50.0), 1000000);
    hist_reset(&hist_all);
    hist_record(&hist_all, 1003000); /* alone, the midpoint 1001471 lies below min */
    assert_int_equal(hist_percentile_ns(&hist_all, 50.0), 1003000);
    hist_reset(&hist_all);
    hist_record(&hist_all, 999500); /* now the midpoint lies between min and max */
    hist_record(&hist_all, 1001000);
    hist_record(&hist_all, 1001900);
    assert_int_equal(hist_bucket_index(999500), hist_bucket_index(1001900));
    assert_int_equal(hist_percentile_ns(&hist_all, 50.0), 1001471);
    hist_reset(&hist_all);
    hist_record(&hist_all, 300000);
    hist_record(&hist_all, 2000000);
    size_t index = hist_bucket_index(300000);
    uint64_t mid = (hist_bucket_low(index) + hist_bucket_high(index)) / 2;
    assert_true(mid != 300000);
    assert_int_equal(hist_percentile_ns(&hist_all, 50.0), mid);
    assert_int_equal(hist_percentile_ns(&hist_all, 51.0), 2000000);
}

static void assert_same_hist(const struct hist *got, const struct hist *want)
{
    assert_int_equal(got->count, want->count);
    assert_int_equal(got->min_ns, want->min_ns);
    assert_int_equal(got->max_ns, want->max_ns);
    assert_memory_equal(got->buckets, want->buckets, sizeof(got->buckets));
    assert_memory_equal(got->log2_us, want->log2_us, sizeof(got->log2_us));
    assert_close(got->sum_us, want->sum_us, 1e-9);
    assert_close(got->sumsq_us, want->sumsq_us, 1e-9);
    assert_close(hist_geomean_us(got), hist_geomean_us(want), 1e-12);
}

static void test_merge_equals_single(void **state)
{
    (void)state;
    fill_samples(42);
    hist_reset(&hist_a);
    hist_reset(&hist_b);
    hist_reset(&hist_all);
    for (size_t i = 0; i < SAMPLE_COUNT; i++) {
        uint64_t ns = samples[i] % 3 == 0 ? samples[i] / 1000 : samples[i]; /* some below 1 us */
        hist_record(i < SAMPLE_COUNT / 3 ? &hist_a : &hist_b, ns);
        hist_record(&hist_all, ns);
    }
    assert_true(hist_a.count > 0 && hist_b.count > 0);
    assert_true(hist_a.min_ns != hist_b.min_ns || hist_a.max_ns != hist_b.max_ns);
    hist_merge(&hist_a, &hist_b);
    assert_same_hist(&hist_a, &hist_all);
}

static void test_merge_with_empty(void **state)
{
    (void)state;
    hist_reset(&hist_a);
    hist_reset(&hist_b);
    hist_record(&hist_a, 5000);
    hist_record(&hist_a, 7000);
    memcpy(&hist_all, &hist_a, sizeof(hist_all));
    hist_merge(&hist_a, &hist_b); /* empty source: min must not become 0 or UINT64_MAX */
    assert_same_hist(&hist_a, &hist_all);
    hist_merge(&hist_b, &hist_all); /* empty destination */
    assert_same_hist(&hist_b, &hist_all);
    assert_int_equal(hist_b.min_ns, 5000);
}

/* An empty histogram never made by hist_reset (zeroed memory: min_ns 0) adds no minimum, and
 * an empty destination takes the source's bounds. */
static void test_merge_with_zeroed_empty(void **state)
{
    (void)state;
    hist_reset(&hist_a);
    hist_record(&hist_a, 9000);
    hist_record(&hist_a, 12000);
    memcpy(&hist_all, &hist_a, sizeof(hist_all));
    memset(&hist_b, 0, sizeof(hist_b)); /* empty, min_ns 0 */
    hist_merge(&hist_a, &hist_b);
    assert_same_hist(&hist_a, &hist_all);
    assert_int_equal(hist_a.min_ns, 9000);
    memset(&hist_b, 0, sizeof(hist_b));
    hist_merge(&hist_b, &hist_all); /* zeroed destination */
    assert_int_equal(hist_b.min_ns, 9000);
    assert_int_equal(hist_b.max_ns, 12000);
}

static void test_log2_view(void **state)
{
    (void)state;
    static const struct {
        uint64_t ns;
        unsigned slot;
    } cases[] = {
        {0, 0},        {999, 0},      {1000, 0},     {1999, 0},        {2000, 1},        {2999, 1},
        {3000, 2},     {4000, 2},     {4999, 2},     {5000, 3},        {8999, 3},        {9000, 4},
        {5580000, 13}, {8192999, 13}, {8193000, 14}, {1000000000, 20}, {UINT64_MAX, 55},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        hist_reset(&hist_all);
        hist_record(&hist_all, cases[k].ns);
        for (unsigned i = 0; i < HIST_LOG2_BUCKETS; i++) {
            if (hist_all.log2_us[i] != (i == cases[k].slot)) {
                fail_msg("ns %llu: log2_us[%u] = %llu, expected slot %u",
                         (unsigned long long)cases[k].ns, i,
                         (unsigned long long)hist_all.log2_us[i], cases[k].slot);
            }
        }
    }
}

static void test_summaries(void **state)
{
    (void)state;
    static const uint64_t values_ns[] = {500, 1000, 2000, 4000, 10000, 123456};
    const size_t n = sizeof(values_ns) / sizeof(values_ns[0]);
    double sum = 0.0, sumlog = 0.0;
    hist_reset(&hist_all);
    for (size_t i = 0; i < n; i++) {
        double us = (double)values_ns[i] / 1000.0;
        sum += us;
        sumlog += log(us < 1.0 ? 1.0 : us);
        hist_record(&hist_all, values_ns[i]);
    }
    double mean = sum / (double)n, var = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)values_ns[i] / 1000.0 - mean;
        var += d * d / (double)(n - 1);
    }
    assert_close(hist_mean_us(&hist_all), mean, 1e-12);
    assert_close(hist_stddev_us(&hist_all), sqrt(var), 1e-9);
    assert_close(hist_geomean_us(&hist_all), exp(sumlog / (double)n), 1.0 / 256);
    assert_int_equal(hist_all.min_ns, 500);
    assert_int_equal(hist_all.max_ns, 123456);
    hist_reset(&hist_all);
    hist_record(&hist_all, 7000);
    assert_close(hist_stddev_us(&hist_all), 0.0, 0.0);
    assert_close(hist_mean_us(&hist_all), 7.0, 1e-15);
    assert_close(hist_geomean_us(&hist_all), 7.0, 1e-12);
}

/* The exact geometric mean of values (us below 1 count as 1), by libm, for comparison. */
static double exact_geomean_us(const uint64_t *values, size_t n)
{
    double sumlog = 0.0;
    for (size_t i = 0; i < n; i++) {
        double us = (double)values[i] / 1000.0;
        sumlog += log(us < 1.0 ? 1.0 : us);
    }
    return exp(sumlog / (double)n);
}

static void record_all(const uint64_t *values, size_t n)
{
    hist_reset(&hist_all);
    for (size_t i = 0; i < n; i++) {
        hist_record(&hist_all, values[i]);
    }
}

/* The geometric mean comes from the buckets: within half a bucket (1/256) of the exact one. */
static void test_geomean_from_buckets(void **state)
{
    (void)state;
    fill_samples(0x9e0);
    record_all(samples, SAMPLE_COUNT);
    assert_close(hist_geomean_us(&hist_all), exact_geomean_us(samples, SAMPLE_COUNT), 1.0 / 256);
    /* The worst case: every value at the bottom of a wide bucket (min and max elsewhere). */
    for (size_t i = 0; i < SAMPLE_COUNT; i++) {
        samples[i] = hist_bucket_low(hist_bucket_index(1000000 + 37 * (i % 4000)) | 1u);
    }
    samples[0] = 900;
    samples[1] = 50000000;
    record_all(samples, SAMPLE_COUNT);
    double exact = exact_geomean_us(samples, SAMPLE_COUNT);
    assert_close(hist_geomean_us(&hist_all), exact, 1.0 / 256);
    assert_true(fabs(hist_geomean_us(&hist_all) - exact) > exact * 1e-4); /* really the worst */
    /* One value repeated, at any size, is exact; under 1 us counts as 1 us. */
    static const uint64_t same[] = {0, 999, 1000, 1001, 7000, 123457, 987654321, HIST_MAX_NS};
    for (size_t k = 0; k < sizeof(same) / sizeof(same[0]); k++) {
        for (size_t i = 0; i < 1000; i++) {
            samples[i] = same[k];
        }
        record_all(samples, 1000);
        assert_close(hist_geomean_us(&hist_all), exact_geomean_us(samples, 1000), 1e-12);
    }
    assert_close(hist_sumlog_us(&hist_all), 1000 * log((double)HIST_MAX_NS / 1000.0), 1e-12);
}

static void test_empty(void **state)
{
    (void)state;
    memset(&hist_all, 0xa5, sizeof(hist_all)); /* reset must need no prior initialisation */
    hist_reset(&hist_all);
    assert_int_equal(hist_all.count, 0);
    assert_int_equal(hist_all.min_ns, UINT64_MAX);
    assert_int_equal(hist_all.max_ns, 0);
    for (size_t i = 0; i < HIST_BUCKETS; i++) {
        assert_int_equal(hist_all.buckets[i], 0);
    }
    for (size_t i = 0; i < HIST_LOG2_BUCKETS; i++) {
        assert_int_equal(hist_all.log2_us[i], 0);
    }
    assert_close(hist_mean_us(&hist_all), 0.0, 0.0);
    assert_close(hist_stddev_us(&hist_all), 0.0, 0.0);
    assert_close(hist_geomean_us(&hist_all), 0.0, 0.0);
    assert_int_equal(hist_percentile_ns(&hist_all, 50.0), 0);
    assert_int_equal(hist_percentile_ns(&hist_all, 100.0), 0);
    assert_int_equal(hist_percentile_ns(&hist_all, 0.0), 0);
}

static void test_above_max(void **state)
{
    (void)state;
    size_t last = hist_bucket_index(HIST_MAX_NS);
    hist_reset(&hist_all);
    hist_record(&hist_all, HIST_MAX_NS + 1);
    hist_record(&hist_all, UINT64_MAX);
    assert_int_equal(hist_all.buckets[last], 2);
    assert_int_equal(hist_all.count, 2);
    assert_int_equal(hist_all.min_ns, HIST_MAX_NS + 1);
    assert_int_equal(hist_all.max_ns, UINT64_MAX);
    assert_close(hist_all.sum_us, ((double)HIST_MAX_NS + 1 + (double)UINT64_MAX) / 1000.0, 1e-12);
    assert_int_equal(hist_percentile_ns(&hist_all, 100.0), UINT64_MAX);
    assert_int_equal(hist_percentile_ns(&hist_all, 50.0), HIST_MAX_NS + 1); /* clamped to min */
}

/* hist_clear leaves what hist_reset does, for histograms filled by recording and merging. */
static void test_clear_is_reset(void **state)
{
    (void)state;
    fill_samples(7);
    hist_reset(&hist_a);
    hist_reset(&hist_b);
    for (size_t i = 0; i < SAMPLE_COUNT; i++) {
        hist_record(i % 2 ? &hist_a : &hist_b, samples[i]);
    }
    hist_record(&hist_b, UINT64_MAX);
    hist_record(&hist_b, 0);
    hist_merge(&hist_a, &hist_b);
    hist_clear(&hist_a);
    hist_clear(&hist_b);
    hist_reset(&hist_all);
    assert_memory_equal(&hist_a, &hist_all, sizeof(hist_all));
    assert_memory_equal(&hist_b, &hist_all, sizeof(hist_all));
    hist_clear(&hist_a); /* an empty one stays empty */
    assert_memory_equal(&hist_a, &hist_all, sizeof(hist_all));
}

/* A slab's histograms are empty ones (hist_reset's), and take memory only where written: one
 * latency recorded into each of 30 makes two pages of each resident (the counts, one bucket's
 * page), not the 9 of a histogram. */
static void test_slab_is_empty_and_lazy(void **state)
{
    (void)state;
    enum { N = 30 };
    struct hist *slab = NULL;
    assert_int_equal(hist_slab_alloc(&slab, 0), SLAP_OK);
    assert_null(slab);
    assert_int_equal(hist_slab_alloc(&slab, N), SLAP_OK);
    assert_non_null(slab);
    for (size_t i = 0; i < N; i++) {
        hist_record(&slab[i], 100000 + i * 1000);
    }
    size_t pages = resident_pages(slab, N * sizeof(*slab));
    if (pages > 2 * N) {
        fail_msg("%zu pages resident for %d histograms of one latency each", pages, (int)N);
    }
    for (size_t i = 0; i < N; i++) {
        hist_reset(&hist_a);
        hist_record(&hist_a, 100000 + i * 1000);
        assert_memory_equal(&slab[i], &hist_a, sizeof(hist_a));
    }
    hist_slab_free(slab, N);
    hist_slab_free(NULL, 0);
}

/* n values recorded at once are n values recorded one by one: every field. */
static void test_record_n_is_n_records(void **state)
{
    (void)state;
    static struct hist a, b;
    static const uint64_t values[] = {0, 999, 1500, 123456, 987654321};
    hist_reset(&a);
    hist_reset(&b);
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        for (uint64_t k = 0; k <= i * 3; k++) {
            hist_record(&a, values[i]);
        }
        hist_record_n(&b, values[i], i * 3 + 1);
    }
    hist_record_n(&b, 42, 0);
    assert_int_equal(a.count, b.count);
    assert_int_equal(a.min_ns, b.min_ns);
    assert_int_equal(a.max_ns, b.max_ns);
    assert_true(fabs(a.sum_us - b.sum_us) < 1e-6 * a.sum_us);
    assert_true(fabs(a.sumsq_us - b.sumsq_us) < 1e-6 * a.sumsq_us);
    assert_memory_equal(a.log2_us, b.log2_us, sizeof(a.log2_us));
    assert_memory_equal(a.buckets, b.buckets, sizeof(a.buckets));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bucket_round_trip),
        cmocka_unit_test(test_record_n_is_n_records),
        cmocka_unit_test(test_buckets_are_contiguous),
        cmocka_unit_test(test_buckets_cover_max),
        cmocka_unit_test(test_percentiles_match_sorted),
        cmocka_unit_test(test_percentile_rank_is_exact),
        cmocka_unit_test(test_percentile_midpoint_and_clamp),
        cmocka_unit_test(test_merge_equals_single),
        cmocka_unit_test(test_merge_with_empty),
        cmocka_unit_test(test_merge_with_zeroed_empty),
        cmocka_unit_test(test_log2_view),
        cmocka_unit_test(test_summaries),
        cmocka_unit_test(test_geomean_from_buckets),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_above_max),
        cmocka_unit_test(test_clear_is_reset),
        cmocka_unit_test(test_slab_is_empty_and_lazy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
