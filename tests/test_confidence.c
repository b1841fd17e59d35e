/* Unit tests of the percentile confidence intervals: coverage, drift, sufficiency, edges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <math.h>

#include "slap/base/confidence.h"
#include "slap/base/hist.h"
#include "slap/base/rng.h"

#define PERIODS_MAX 160
#define VALUES_MAX 100000
#define RUNS 200
#define MEAN_NS 100000.0 /* exponential latencies of mean 100 us */

/* Histograms are 37 KB each: static, out of the test functions' frames. */
static struct hist store[PERIODS_MAX];
static const struct hist *periods[PERIODS_MAX];
static struct hist merged;
static uint64_t values[VALUES_MAX];

/* Uniform in (0, 1]. */
static double unit_open(struct rng *r)
{
    return ((double)(rng_next(r) >> 11) + 1.0) / 9007199254740992.0;
}

/* Exponential of mean MEAN_NS times scale, in ns. */
static uint64_t exponential_ns(struct rng *r, double scale)
{
    return (uint64_t)(-MEAN_NS * scale * log(unit_open(r)));
}

/* The exponential's true percentile: mean * ln(1 / (1 - q)). */
static double exponential_percentile(double pct)
{
    return MEAN_NS * log(1.0 / (1.0 - pct / 100.0));
}

static void clear_periods(size_t count)
{
    for (size_t i = 0; i < count; i++) {
        hist_reset(&store[i]);
        periods[i] = &store[i];
    }
}

/* A stationary run: count periods of per_period exponential latencies. */
static void build_run(size_t count, size_t per_period, uint64_t seed)
{
    struct rng r = {.state = seed};
    clear_periods(count);
    for (size_t i = 0; i < count; i++) {
        for (size_t j = 0; j < per_period; j++) {
            hist_record(&store[i], exponential_ns(&r, 1.0));
        }
    }
}

/* Record values[0..n) into count periods in order, n / count each. */
static void record_values(size_t count, size_t n)
{
    clear_periods(count);
    for (size_t j = 0; j < n; j++) {
        hist_record(&store[j * count / n], values[j]);
    }
}

#define COVERAGE_PCTS 2
static const double coverage_pcts[COVERAGE_PCTS] = {99.0, 99.9};

struct coverage {
    double covered;    /* share of runs whose interval holds the truth */
    double mean_width; /* high - low, relative to the truth */
    unsigned batches;  /* of the last run */
};

/* RUNS seeded runs of count periods of per_period values: how often the 95% interval on each
 * of coverage_pcts holds the exponential's true percentile, and how wide it is. */
static void measure_coverage(size_t count, size_t per_period, struct coverage *c)
{
    for (unsigned run = 0; run < RUNS; run++) {
        build_run(count, per_period, 1000 + run);
        for (size_t k = 0; k < COVERAGE_PCTS; k++) {
            struct ci_result ci;
            double truth = exponential_percentile(coverage_pcts[k]);
            ci_percentile(periods, count, coverage_pcts[k], 0.95, &ci);
            assert_true(ci.estimable);
            assert_int_equal(ci.method, CI_BATCH_MEANS);
            c[k].covered += (double)ci.low_ns <= truth && truth <= (double)ci.high_ns;
            c[k].mean_width += ((double)ci.high_ns - (double)ci.low_ns) / truth;
            c[k].batches = ci.batches;
        }
    }
    for (size_t k = 0; k < COVERAGE_PCTS; k++) {
        c[k].covered /= RUNS;
        c[k].mean_width /= RUNS;
    }
}

static void test_t_quantiles(void **state)
{
    (void)state;
    /* Student's t tables, two-sided. */
    assert_float_equal(ci_t_quantile(0.95, 1), 12.7062, 1e-4);
    assert_float_equal(ci_t_quantile(0.95, 2), 4.3027, 1e-4);
    assert_float_equal(ci_t_quantile(0.95, 3), 3.1824, 1e-4);
    assert_float_equal(ci_t_quantile(0.95, 4), 2.7764, 1e-4);
    assert_float_equal(ci_t_quantile(0.95, 9), 2.2622, 1e-4);
    assert_float_equal(ci_t_quantile(0.95, 29), 2.0452, 1e-4);
    assert_float_equal(ci_t_quantile(0.99, 4), 4.6041, 1e-4);
    assert_float_equal(ci_t_quantile(0.90, 9), 1.8331, 1e-4);
    assert_float_equal(ci_t_quantile(0.95, 0), 1.95996, 1e-5);
    assert_float_equal(ci_t_quantile(0.99, 0), 2.57583, 1e-5);
    assert_float_equal(ci_t_quantile(7.0, 4), 2.7764, 1e-4); /* nonsense level: 0.95 */
}

/* The estimate is hist_percentile_ns of the periods merged, empty periods and all. */
static void test_estimate_is_merged_percentile(void **state)
{
    (void)state;
    static const double pcts[] = {0.0, 1.0, 50.0, 90.0, 99.0, 99.9, 100.0};
    build_run(20, 3000, 7);
    hist_reset(&store[3]);
    hist_reset(&store[19]);
    hist_reset(&merged);
    for (size_t i = 0; i < 20; i++) {
        hist_merge(&merged, periods[i]);
    }
    for (size_t k = 0; k < sizeof(pcts) / sizeof(pcts[0]); k++) {
        struct ci_result ci;
        ci_percentile(periods, 20, pcts[k], 0.95, &ci);
        assert_int_equal(ci.value_ns, hist_percentile_ns(&merged, pcts[k]));
        assert_int_equal(ci.requests, merged.count);
    }
}

/*
 * Where the truth is known: 200 runs of 40 periods of 2500 exponential latencies, then 200
 * four times longer (160 periods). Observed, coverage of the true percentile and mean full
 * width (high - low) relative to it:
 *   p99:   30 batches 97.0%, 2.87%;  4x longer: 30 batches 92.5%, 1.41%
 *   p99.9: 10 batches 92.5%, 6.02%;  4x longer: 30 batches 93.5%, 2.94%
 * The width halves with four times the requests, the 1/sqrt(n) law. Coverage must be between
 * 90% and 99%: dropping t (66.5%) or the 1/sqrt(B) (100%) fails.
 */
static void test_coverage_and_width(void **state)
{
    (void)state;
    struct coverage shortrun[COVERAGE_PCTS] = {{0}}, longrun[COVERAGE_PCTS] = {{0}};
    measure_coverage(40, 2500, shortrun);
    measure_coverage(160, 2500, longrun);
    for (size_t k = 0; k < COVERAGE_PCTS; k++) {
        print_message("p%g: %u batches cover %.1f%% width %.2f%%; 4x longer: %u batches cover "
                      "%.1f%% width %.2f%%\n",
                      coverage_pcts[k], shortrun[k].batches, 100.0 * shortrun[k].covered,
                      100.0 * shortrun[k].mean_width, longrun[k].batches,
                      100.0 * longrun[k].covered, 100.0 * longrun[k].mean_width);
        /* Not too narrow, nor uselessly wide (a 95% interval missing in 2 runs of 200 or
         * fewer is too wide: the chance is below 0.3% for a right one). */
        assert_true(shortrun[k].covered >= 0.90 && shortrun[k].covered <= 0.99);
        assert_true(longrun[k].covered >= 0.90 && longrun[k].covered <= 0.99);
        assert_true(longrun[k].mean_width < 0.75 * shortrun[k].mean_width);
    }
}

/* Latency rising period by period: the batches disagree, so the interval is wider than the
 * one of the same values shuffled into a stationary run (same total, same estimate). */
static void test_drift_widens(void **state)
{
    (void)state;
    struct rng r = {.state = 42};
    struct ci_result drifting, stationary;
    for (size_t j = 0; j < VALUES_MAX; j++) {
        values[j] = exponential_ns(&r, 1.0 + (double)j / VALUES_MAX); /* 1x to 2x */
    }
    record_values(40, VALUES_MAX);
    ci_percentile(periods, 40, 99.0, 0.95, &drifting);
    for (size_t j = VALUES_MAX - 1; j > 0; j--) {
        size_t k = (size_t)rng_below(&r, j + 1);
        uint64_t v = values[j];
        values[j] = values[k];
        values[k] = v;
    }
    record_values(40, VALUES_MAX);
    ci_percentile(periods, 40, 99.0, 0.95, &stationary);
    print_message("drifting width %.2f%%, stationary %.2f%%\n",
                  200.0 * ci_relative_halfwidth(&drifting),
                  200.0 * ci_relative_halfwidth(&stationary));
    assert_int_equal(drifting.value_ns, stationary.value_ns);
    assert_int_equal(drifting.method, CI_BATCH_MEANS);
    assert_true(ci_relative_halfwidth(&drifting) > 2.0 * ci_relative_halfwidth(&stationary));
}

static void test_not_estimable(void **state)
{
    (void)state;
    struct ci_result ci;
    build_run(10, 100, 3);
    ci_percentile(periods, 10, 99.99, 0.95, &ci);
    assert_false(ci.estimable);
    assert_int_equal(ci.method, CI_NOT_ESTIMABLE);
    assert_int_equal(ci.requests, 1000);
    assert_true(ci.needed > 1000);
    assert_int_equal(ci.needed, 500000); /* 5 batches * 10 requests / 0.0001 */
    assert_int_equal(ci.low_ns, 0);
    assert_int_equal(ci.high_ns, 0);
    assert_true(ci.value_ns > 0); /* the estimate is still given */
    assert_true(isinf(ci_relative_halfwidth(&ci)));
    ci_percentile(periods, 10, 99.0, 0.95, &ci); /* 5000 needed */
    assert_false(ci.estimable);
    assert_int_equal(ci.needed, 5000);
    ci_percentile(periods, 10, 1.0, 0.95, &ci); /* the lower tail counts as much */
    assert_false(ci.estimable);
    assert_int_equal(ci.needed, 5000);

    ci_percentile(periods, 10, 50.0, 0.95, &ci);
    assert_true(ci.estimable);
    assert_int_equal(ci.method, CI_BATCH_MEANS);
    assert_int_equal(ci.batches, 10);
    assert_true(ci.low_ns < ci.value_ns && ci.value_ns < ci.high_ns);
}

/* Too few periods for batches but enough requests: order statistics around the estimate. */
static void test_order_statistics_fallback(void **state)
{
    (void)state;
    struct ci_result ci;
    double truth = exponential_percentile(99.0);
    build_run(2, 5000, 11);
    ci_percentile(periods, 2, 99.0, 0.95, &ci);
    assert_true(ci.estimable);
    assert_int_equal(ci.method, CI_ORDER_STATISTICS);
    assert_int_equal(ci.batches, 0);
    assert_true(ci.low_ns < ci.value_ns && ci.value_ns < ci.high_ns);
    assert_true((double)ci.low_ns < truth && truth < (double)ci.high_ns);
    /* Ranks 100 +- 1.96 * sqrt(99) from the top of 10000: ln(125) and ln(83) against
     * ln(100), about +-4.5% of an exponential's p99. */
    print_message("order statistics half-width %.2f%%\n", 100.0 * ci_relative_halfwidth(&ci));
    assert_true(ci_relative_halfwidth(&ci) > 0.03 && ci_relative_halfwidth(&ci) < 0.07);

    /* A run without periods: its total alone. */
    hist_reset(&merged);
    hist_merge(&merged, &store[0]);
    hist_merge(&merged, &store[1]);
    const struct hist *total = &merged;
    struct ci_result alone;
    ci_percentile(&total, 1, 99.0, 0.95, &alone);
    assert_int_equal(alone.method, CI_ORDER_STATISTICS);
    assert_int_equal(alone.value_ns, ci.value_ns);
    assert_int_equal(alone.low_ns, ci.low_ns);
    assert_int_equal(alone.high_ns, ci.high_ns);
}

/* One period holding most requests: fewer, uneven batches, still whole periods. */
static void test_uneven_periods(void **state)
{
    (void)state;
    struct rng r = {.state = 5};
    struct ci_result ci;
    clear_periods(10);
    for (size_t i = 0; i < 10; i++) {
        for (size_t j = 0; j < (i == 0 ? 10000u : 1000u); j++) {
            hist_record(&store[i], exponential_ns(&r, 1.0));
        }
    }
    ci_percentile(periods, 10, 50.0, 0.95, &ci);
    assert_int_equal(ci.method, CI_BATCH_MEANS);
    assert_true(ci.batches >= CI_BATCHES_MIN && ci.batches < 10);
}

static void test_all_empty(void **state)
{
    (void)state;
    struct ci_result ci;
    clear_periods(5);
    ci_percentile(periods, 5, 99.0, 0.95, &ci);
    assert_false(ci.estimable);
    assert_int_equal(ci.value_ns, 0);
    assert_int_equal(ci.requests, 0);
    assert_int_equal(ci.needed, 5000);
    assert_int_equal(ci.low_ns, 0);
    assert_int_equal(ci.high_ns, 0);
    ci_percentile(NULL, 0, 50.0, 0.95, &ci);
    assert_false(ci.estimable);
    assert_int_equal(ci.needed, 100);
}

/* Zero spread: every request took 1 ms, so the interval is [1 ms, 1 ms]: the bucket around
 * the value would reach below the fastest and above the slowest. Never NaN. */
static void test_one_value(void **state)
{
    (void)state;
    static const double pcts[] = {50.0, 99.0};
    clear_periods(10);
    for (size_t i = 0; i < 10; i++) {
        for (size_t j = 0; j < 1000; j++) {
            hist_record(&store[i], 1000000);
        }
    }
    for (size_t k = 0; k < 2; k++) {
        struct ci_result ci;
        ci_percentile(periods, 10, pcts[k], 0.95, &ci);
        assert_true(ci.estimable);
        assert_int_equal(ci.value_ns, 1000000);
        assert_int_equal(ci.low_ns, 1000000);
        assert_int_equal(ci.high_ns, 1000000);
        assert_float_equal(ci_relative_halfwidth(&ci), 0.0, 1e-12);
    }
}

/*
 * Bounds inside what was seen. Ten periods of 1000 requests each, nine of them all at 100 us
 * and one all at 100 ms: the batches' medians disagree so much that t * s / sqrt(B) is about
 * 23 ms, and the median's interval would reach below 0. It stops at the fastest request,
 * 100 us. The other way round (nine at 100 ms, one at 100 us), it stops at the slowest,
 * 100 ms, not at 123 ms. So does every percentile's, and order statistics' too.
 */
static void fill_two_levels(uint64_t usual_ns, uint64_t odd_ns)
{
    clear_periods(10);
    for (size_t i = 0; i < 10; i++) {
        for (size_t j = 0; j < 1000; j++) {
            hist_record(&store[i], i == 4 ? odd_ns : usual_ns);
        }
    }
}

static void test_bounds_within_seen(void **state)
{
    (void)state;
    static const double pcts[] = {1.0, 10.0, 50.0, 90.0, 99.0};
    struct ci_result ci;
    fill_two_levels(100000, 100000000);
    ci_percentile(periods, 10, 50.0, 0.95, &ci);
    assert_int_equal(ci.method, CI_BATCH_MEANS);
    assert_int_equal(ci.low_ns, 100000);
    assert_true(ci.high_ns > 20000000 && ci.high_ns < 100000000);
    fill_two_levels(100000000, 100000);
    ci_percentile(periods, 10, 50.0, 0.95, &ci);
    assert_int_equal(ci.high_ns, 100000000);
    assert_true(ci.low_ns > 70000000);
    hist_reset(&merged);
    for (size_t i = 0; i < 10; i++) {
        hist_merge(&merged, periods[i]);
    }
    const struct hist *whole = &merged;
    for (size_t k = 0; k < sizeof(pcts) / sizeof(pcts[0]); k++) {
        struct ci_result by_periods, by_ranks;
        ci_percentile(periods, 10, pcts[k], 0.95, &by_periods);
        ci_percentile(&whole, 1, pcts[k], 0.95, &by_ranks);
        assert_int_equal(by_ranks.method, CI_ORDER_STATISTICS);
        const struct ci_result *both[] = {&by_periods, &by_ranks};
        for (size_t m = 0; m < 2; m++) {
            const struct ci_result *r = both[m];
            assert_true(!r->estimable || (r->low_ns >= 100000 && r->high_ns <= 100000000));
            assert_true(!r->estimable || (r->low_ns <= r->value_ns && r->value_ns <= r->high_ns));
        }
    }
}

/* The maximum has no tail beyond it: no run is long enough. */
static void test_p100(void **state)
{
    (void)state;
    struct ci_result ci;
    build_run(20, 5000, 9);
    ci_percentile(periods, 20, 100.0, 0.95, &ci);
    assert_false(ci.estimable);
    assert_int_equal(ci.needed, CI_NEEDED_NEVER);
    uint64_t max = 0;
    for (size_t i = 0; i < 20; i++) {
        max = store[i].max_ns > max ? store[i].max_ns : max;
    }
    assert_int_equal(ci.value_ns, max);
    assert_int_equal(ci.high_ns, 0);
    ci_percentile(periods, 20, 0.0, 0.95, &ci); /* nor the minimum */
    assert_false(ci.estimable);
    assert_int_equal(ci.needed, CI_NEEDED_NEVER);
}

static void test_relative_halfwidth(void **state)
{
    (void)state;
    struct ci_result ci = {.estimable = true, .value_ns = 1000, .low_ns = 950, .high_ns = 1050};
    assert_float_equal(ci_relative_halfwidth(&ci), 0.05, 1e-12);
    ci.value_ns = 0;
    assert_true(isinf(ci_relative_halfwidth(&ci)));
    assert_string_equal(ci_method_name(CI_BATCH_MEANS), "batch means");
    assert_string_equal(ci_method_name(CI_ORDER_STATISTICS), "order statistics");
    assert_string_equal(ci_method_name(CI_NOT_ESTIMABLE), "not estimable");
}

/* p99 of a run of 40 periods of 2500 values, latencies scaled by scale. */
static void run_p99(uint64_t seed, double scale, struct ci_result *ci)
{
    struct rng r = {.state = seed};
    clear_periods(40);
    for (size_t i = 0; i < 40; i++) {
        for (size_t j = 0; j < 2500; j++) {
            hist_record(&store[i], exponential_ns(&r, scale));
        }
    }
    ci_percentile(periods, 40, 99.0, 0.95, ci);
}

/* Runs of one distribution seldom differ significantly; runs 20% slower always do. */
static void test_compare_same_and_slower(void **state)
{
    (void)state;
    unsigned false_alarms = 0, strict_alarms = 0, found = 0, pairs = 100;
    for (uint64_t i = 0; i < pairs; i++) {
        struct ci_result a, b, slow;
        struct ci_difference same, slower;
        run_p99(1000 + 3 * i, 1.0, &a);
        run_p99(1001 + 3 * i, 1.0, &b);
        run_p99(1002 + 3 * i, 1.2, &slow);
        ci_compare(&a, &b, 0.95, &same);
        ci_compare(&a, &slow, 0.95, &slower);
        assert_true(same.estimable && slower.estimable);
        assert_true(same.low_ns <= same.diff_ns && same.diff_ns <= same.high_ns);
        false_alarms += same.significant;
        found += slower.significant && slower.relative > 0.1;
        /* the same verdict asked again at the same level; a stricter one finds fewer */
        assert_true(ci_significant_at(&same, 0.95) == same.significant);
        assert_true(ci_significant_at(&slower, 0.95) == slower.significant);
        strict_alarms += ci_significant_at(&same, 0.99);
        assert_true(!ci_significant_at(&same, 0.99) || same.significant);
    }
    /* observed: 5 false alarms in 100 pairs (95% expected), every slower run found */
    assert_true(false_alarms <= 10);
    assert_true(strict_alarms <= false_alarms && strict_alarms <= 3);
    assert_int_equal(found, pairs);
}

/* Not estimable on either side: no verdict. */
static void test_compare_not_estimable(void **state)
{
    (void)state;
    struct ci_result a, b;
    struct ci_difference d;
    build_run(5, 200, 7); /* 1000 requests: no p99.99 */
    ci_percentile(periods, 5, 99.99, 0.95, &a);
    run_p99(8, 1.0, &b);
    ci_compare(&a, &b, 0.95, &d);
    assert_false(d.estimable);
    assert_false(d.significant);
}

/* The mean of 1..5: 3 +- t(4) * sqrt(2.5 / 5). */
static void test_mean(void **state)
{
    (void)state;
    static const double v[] = {1, 2, 3, 4, 5};
    double mean, low, high, se;
    ci_mean(v, 5, 0.95, &mean, &low, &high, &se);
    assert_true(fabs(mean - 3.0) < 1e-12);
    assert_true(fabs(se - sqrt(0.5)) < 1e-12);
    assert_true(fabs(high - 3.0 - 2.7764451052 * sqrt(0.5)) < 1e-6);
    assert_true(fabs(3.0 - low - 2.7764451052 * sqrt(0.5)) < 1e-6);
    ci_mean(v, 1, 0.95, &mean, &low, &high, NULL);
    assert_true(mean == 1.0 && low == 1.0 && high == 1.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t_quantiles),
        cmocka_unit_test(test_estimate_is_merged_percentile),
        cmocka_unit_test(test_coverage_and_width),
        cmocka_unit_test(test_drift_widens),
        cmocka_unit_test(test_not_estimable),
        cmocka_unit_test(test_order_statistics_fallback),
        cmocka_unit_test(test_uneven_periods),
        cmocka_unit_test(test_all_empty),
        cmocka_unit_test(test_one_value),
        cmocka_unit_test(test_bounds_within_seen),
        cmocka_unit_test(test_p100),
        cmocka_unit_test(test_relative_halfwidth),
        cmocka_unit_test(test_compare_same_and_slower),
        cmocka_unit_test(test_compare_not_estimable),
        cmocka_unit_test(test_mean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
