/* Unit tests of a run's periods kept for intervals: segment merging, the fallback, steadiness. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <string.h>

#include "slap/output/intervals.h"

static struct slap_stats period;
static struct hist whole;

/* A period of n gets of latency us (each in its own bucket's middle) over 1 s, also into whole. */
static void add(struct intervals *iv, uint64_t n, uint64_t us)
{
    stats_reset(&period);
    for (uint64_t i = 0; i < n; i++) {
        hist_record(period.lat[OP_GET], us * 1000 + (i % 7) * 100);
        hist_record(&whole, us * 1000 + (i % 7) * 100);
    }
    period.counters.requests_sent = n;
    assert_int_equal(intervals_add_stats(iv, &period, 1.0), SLAP_OK);
}

static int setup(void **state)
{
    (void)state;
    hist_reset(&whole);
    return stats_init(&period, &stats_shape_all) == SLAP_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    stats_free(&period);
    return 0;
}

/* The segments' sums: periods, answers, seconds and the get series' count. */
struct sums {
    uint64_t periods, answers, count;
    double seconds;
};

static struct sums sum_segments(const struct intervals *iv)
{
    struct sums s = {0, 0, 0, 0.0};
    for (size_t i = 0; i < iv->n; i++) {
        s.periods += iv->seg[i].periods;
        s.answers += iv->seg[i].answers;
        s.count += iv->seg[i].series[INTERVALS_LAT + OP_GET].count;
        s.seconds += iv->seg[i].seconds;
    }
    return s;
}

/* 1000 periods: at most INTERVALS_SEGMENTS segments, each whole one of width periods, every
 * period and request still counted once, in time order. */
static void merging_keeps_counts_in_bounded_memory(void **state)
{
    (void)state;
    struct intervals iv;
    assert_int_equal(intervals_init(&iv), SLAP_OK);
    for (uint64_t p = 0; p < 1000; p++) {
        add(&iv, 10 + p % 3, 100 + p); /* latency grows with time */
        assert_true(iv.n <= INTERVALS_SEGMENTS);
    }
    assert_int_equal(iv.periods, 1000);
    assert_int_equal(iv.width, 32); /* 60 -> 30 at 60, 120, 240, 480, 960 periods */
    assert_int_equal(iv.n, 30 + (1000 - 960 + 31) / 32);
    struct sums s = sum_segments(&iv);
    assert_int_equal(s.periods, 1000);
    assert_int_equal(s.answers, whole.count);
    assert_int_equal(s.count, whole.count);
    assert_true(s.seconds > 999.9 && s.seconds < 1000.1);
    for (size_t i = 0; i + 1 < iv.n; i++) {
        assert_int_equal(iv.seg[i].periods, iv.width);
        /* neighbours merged, never shuffled: each segment's latencies above the one before */
        assert_true(iv.seg[i + 1].series[INTERVALS_LAT + OP_GET].min_ns >
                    iv.seg[i].series[INTERVALS_LAT + OP_GET].max_ns);
    }
    /* the answers after the last period join it */
    stats_reset(&period);
    period.counters.requests_sent = 5;
    assert_int_equal(intervals_extend(&iv, &period, 0.0), SLAP_OK);
    assert_int_equal(sum_segments(&iv).answers, whole.count + 5);
    assert_int_equal(iv.periods, 1000);
    intervals_free(&iv);
}

/* Periods that hold the run give batch means; a whole the periods do not add up to (a series
 * they do not keep, a run without periods) falls back to the run alone by order statistics. */
static void fallback_when_periods_do_not_add_up(void **state)
{
    (void)state;
    struct intervals iv;
    struct ci_result r;
    assert_int_equal(intervals_init(&iv), SLAP_OK);
    for (int p = 0; p < 40; p++) {
        add(&iv, 500, 100 + (uint64_t)(p % 5));
    }
    intervals_ci(&iv, INTERVALS_BIT(INTERVALS_LAT + OP_GET), &whole, 90.0, &r);
    assert_true(r.estimable);
    assert_int_equal(r.method, CI_BATCH_MEANS);
    assert_true(r.batches >= CI_BATCHES_MIN && r.batches <= CI_BATCHES_MAX);
    assert_true(r.low_ns <= r.value_ns && r.value_ns <= r.high_ns);

    hist_record(&whole, 100000); /* one request the periods never saw */
    intervals_ci(&iv, INTERVALS_BIT(INTERVALS_LAT + OP_GET), &whole, 90.0, &r);
    assert_true(r.estimable);
    assert_int_equal(r.method, CI_ORDER_STATISTICS);
    assert_int_equal(r.requests, whole.count);

    intervals_ci(NULL, INTERVALS_BIT(INTERVALS_LAT + OP_GET), &whole, 90.0, &r);
    assert_int_equal(r.method, CI_ORDER_STATISTICS);
    /* the set series holds nothing: the gets' whole is not its sum */
    intervals_ci(&iv, INTERVALS_BIT(INTERVALS_LAT + OP_SET), &whole, 90.0, &r);
    assert_int_equal(r.method, CI_ORDER_STATISTICS);
    intervals_free(&iv);
}

/* Every percentile's interval from a view of iv equals ci_percentile's over each segment made a
 * histogram (the view read the segments that way until it read them where they are). */
static void assert_view_as_hists(const struct intervals *iv, int series)
{
    static const double pcts[] = {1.0, 50.0, 90.0, 99.0, 99.9, 100.0};
    struct intervals_view v;
    struct hist *hists = NULL;
    const struct hist *ptrs[INTERVALS_SEGMENTS];
    assert_int_equal(hist_slab_alloc(&hists, iv->n), SLAP_OK);
    for (size_t i = 0; i < iv->n; i++) {
        results_sparse_add(&iv->seg[i].series[series], &hists[i]);
        ptrs[i] = &hists[i];
    }
    assert_int_equal(intervals_view_open(&v, iv, INTERVALS_BIT(series), &whole), SLAP_OK);
    assert_int_equal(v.n, iv->n);
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(pcts); i++) {
        struct ci_result got, want;
        intervals_view_ci(&v, pcts[i], &got);
        ci_percentile(ptrs, iv->n, pcts[i], INTERVALS_LEVEL, &want);
        assert_int_equal(got.estimable, want.estimable);
        assert_int_equal(got.method, want.method);
        assert_int_equal(got.batches, want.batches);
        assert_int_equal(got.value_ns, want.value_ns);
        assert_int_equal(got.low_ns, want.low_ns);
        assert_int_equal(got.high_ns, want.high_ns);
        assert_int_equal(got.requests, want.requests);
        assert_int_equal(got.needed, want.needed);
    }
    intervals_view_close(&v);
    hist_slab_free(hists, iv->n);
}

/* 500 periods merged to 63 segments, latencies that drift and repeat (batch means, and not
 * estimable at p100); then 3 periods, too few for batches (order statistics). */
static void view_reads_segments_as_histograms(void **state)
{
    (void)state;
    struct intervals iv;
    assert_int_equal(intervals_init(&iv), SLAP_OK);
    for (uint64_t p = 0; p < 500; p++) {
        add(&iv, 20 + p % 13 * 40, 100 + p % 17 * 30 + p / 5);
    }
    assert_view_as_hists(&iv, INTERVALS_LAT + OP_GET);
    intervals_free(&iv);

    hist_reset(&whole);
    assert_int_equal(intervals_init(&iv), SLAP_OK);
    for (uint64_t p = 0; p < 3; p++) {
        add(&iv, 5000, 100 + p * 50);
    }
    assert_view_as_hists(&iv, INTERVALS_LAT + OP_GET);
    intervals_free(&iv);
}

/* 300 periods (merged to width 8): a flat latency is steady; a latency that doubles is not,
 * and the verdict names the latency; too few periods: unknown. */
static void steadiness_from_segments(void **state)
{
    (void)state;
    struct intervals iv;
    struct steady_verdict v;
    assert_int_equal(intervals_init(&iv), SLAP_OK);
    for (int p = 0; p < 300; p++) {
        add(&iv, 1000, 200 + (uint64_t)(p % 3));
    }
    assert_int_equal(iv.width, 8); /* 60 -> 30 at 60, 120, 240 periods */
    intervals_steady(&iv, &v);
    assert_int_equal(v.state, STEADY_YES);
    intervals_free(&iv);

    assert_int_equal(intervals_init(&iv), SLAP_OK);
    for (int p = 0; p < 300; p++) {
        add(&iv, 1000, 200 + (uint64_t)p * 200 / 300);
    }
    intervals_steady(&iv, &v);
    assert_int_equal(v.state, STEADY_NO);
    assert_non_null(strstr(v.why, "latency"));
    assert_true(v.latency_change > 0.5);
    intervals_free(&iv);

    assert_int_equal(intervals_init(&iv), SLAP_OK);
    for (int p = 0; p < STEADY_MIN_PERIODS - 1; p++) {
        add(&iv, 1000, 200);
    }
    intervals_steady(&iv, &v);
    assert_int_equal(v.state, STEADY_UNKNOWN);
    intervals_free(&iv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(merging_keeps_counts_in_bounded_memory, setup, teardown),
        cmocka_unit_test_setup_teardown(fallback_when_periods_do_not_add_up, setup, teardown),
        cmocka_unit_test_setup_teardown(steadiness_from_segments, setup, teardown),
        cmocka_unit_test_setup_teardown(view_reads_segments_as_histograms, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
