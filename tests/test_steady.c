/* Unit tests of the steadiness verdict: steady runs, drifts of rate and latency, noise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <string.h>

#include "slap/base/steady.h"

#define PERIODS 30

static struct steady_period periods[PERIODS];

/* xorshift64*: seeded, so a failure reproduces. A uniform draw in [-1, 1). */
static double noise(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return (double)((*state * 0x2545F4914F6CDD1DULL) >> 11) / 4503599627370496.0 - 1.0;
}

/* n periods of 1 s: rate and median from the two functions of the period's place (0..1),
 * each with +-jitter relative noise. */
static void fill(size_t n, double (*rate)(double), double (*median)(double), double jitter,
                 uint64_t seed)
{
    uint64_t state = seed;
    for (size_t i = 0; i < n; i++) {
        double at = (double)i / (double)(n - 1);
        periods[i].seconds = 1.0;
        periods[i].answers = (uint64_t)(rate(at) * (1.0 + jitter * noise(&state)));
        periods[i].median_us = median(at) * (1.0 + jitter * noise(&state));
    }
}

static double flat_rate(double at)
{
    (void)at;
    return 100000.0;
}

static double flat_median(double at)
{
    (void)at;
    return 50.0;
}

static double rate_falls_halfway(double at)
{
    return at < 0.5 ? 100000.0 : 70000.0;
}

static double median_doubles(double at)
{
    return 50.0 * (1.0 + at);
}

static void test_steady_run_is_steady(void **state)
{
    (void)state;
    struct steady_verdict v;
    fill(PERIODS, flat_rate, flat_median, 0.03, 1);
    steady_judge(periods, PERIODS, &v);
    assert_int_equal(v.state, STEADY_YES);
    assert_string_equal(steady_state_name(v.state), "yes");
}

static void test_noise_without_drift_is_steady(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 50; seed++) {
        struct steady_verdict v;
        fill(PERIODS, flat_rate, flat_median, 0.20, seed);
        steady_judge(periods, PERIODS, &v);
        assert_int_equal(v.state, STEADY_YES);
    }
}

static void test_rate_that_falls_is_not_steady(void **state)
{
    (void)state;
    struct steady_verdict v;
    fill(PERIODS, rate_falls_halfway, flat_median, 0.03, 2);
    steady_judge(periods, PERIODS, &v);
    assert_int_equal(v.state, STEADY_NO);
    assert_non_null(strstr(v.why, "the rate fell 30%"));
}

static void test_latency_that_grows_is_not_steady(void **state)
{
    (void)state;
    struct steady_verdict v;
    fill(PERIODS, flat_rate, median_doubles, 0.03, 3);
    steady_judge(periods, PERIODS, &v);
    assert_int_equal(v.state, STEADY_NO);
    assert_non_null(strstr(v.why, "the median latency rose"));
    assert_null(strstr(v.why, "rate"));
    assert_true(v.latency_change > 0.5);
}

/* A rate that falls 30% in periods scattered by +-90%: beyond the drift, within the noise.
 * Not "yes" (the mean did move), not "no" (it may be chance): unknown, saying so. */
static void test_large_move_within_noise_is_unknown(void **state)
{
    (void)state;
    struct steady_verdict v;
    fill(PERIODS, rate_falls_halfway, flat_median, 0.90, 5);
    steady_judge(periods, PERIODS, &v);
    assert_true(v.rate_change < -STEADY_RATE_DRIFT);
    assert_int_equal(v.state, STEADY_UNKNOWN);
    assert_non_null(strstr(v.why, "the rate fell"));
    assert_non_null(strstr(v.why, "too much to tell a drift from noise"));
    /* and a drift of the latency out of the noise still says no */
    for (size_t i = 0; i < PERIODS; i++) {
        periods[i].median_us = 50.0 * (1.0 + (double)i / (PERIODS - 1));
    }
    steady_judge(periods, PERIODS, &v);
    assert_int_equal(v.state, STEADY_NO);
    assert_non_null(strstr(v.why, "the median latency rose"));
}

static void test_too_few_periods_is_unknown(void **state)
{
    (void)state;
    struct steady_verdict v;
    fill(STEADY_MIN_PERIODS - 1, rate_falls_halfway, flat_median, 0.0, 4);
    steady_judge(periods, STEADY_MIN_PERIODS - 1, &v);
    assert_int_equal(v.state, STEADY_UNKNOWN);
    assert_non_null(strstr(v.why, "periods"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_steady_run_is_steady),
        cmocka_unit_test(test_noise_without_drift_is_steady),
        cmocka_unit_test(test_rate_that_falls_is_not_steady),
        cmocka_unit_test(test_latency_that_grows_is_not_steady),
        cmocka_unit_test(test_large_move_within_noise_is_unknown),
        cmocka_unit_test(test_too_few_periods_is_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
