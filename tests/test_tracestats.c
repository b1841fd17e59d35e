/* Unit tests of trace-stats' figures: rates, peaks, sizes, distinct keys, the Zipf fit (the
 * report's text is tested at the command line's level, test_tracestats_report.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/model/tracestats.h"

/* A request for key "k<number>" of size key_len (at least the name's length). */
static struct trace_request request(enum op_type op, uint64_t key, uint32_t key_len,
                                    uint32_t value_size)
{
    struct trace_request r = {.op = op, .value_size = value_size};
    int n = snprintf(r.key, sizeof(r.key), "k%llu", (unsigned long long)key);
    r.key_len = key_len > (uint32_t)n ? key_len : (uint32_t)n;
    memset(r.key + n, '_', r.key_len - (uint32_t)n);
    return r;
}

static struct tracestats *stats_new(uint64_t exact_keys)
{
    struct tracestats *s = NULL;
    assert_int_equal(tracestats_init(&s, exact_keys), SLAP_OK);
    return s;
}

static void test_distinct_exact_then_estimated(void **state)
{
    (void)state;
    struct tracestats *s = stats_new(1000);
    bool exact = false;
    for (uint64_t key = 0; key < 1000; key++) {
        struct trace_request r = request(OP_GET, key, 8, 0);
        tracestats_add(s, &r, 0);
        tracestats_add(s, &r, 0); /* a key seen twice is one key */
    }
    assert_int_equal(tracestats_distinct(s, &exact), 1000);
    assert_true(exact);
    /* beyond the table: small numbers by linear counting, larger ones by HyperLogLog proper */
    static const uint64_t totals[] = {10000, 50000};
    for (uint64_t key = 1000, i = 0; i < SLAP_ARRAY_SIZE(totals); i++) {
        for (; key < totals[i]; key++) {
            struct trace_request r = request(OP_GET, key, 8, 0);
            tracestats_add(s, &r, 0);
        }
        double estimate = (double)tracestats_distinct(s, &exact);
        assert_false(exact);
        if (fabs(estimate / (double)totals[i] - 1) > 0.03) { /* standard error 0.8% */
            fail_msg("estimated %.0f distinct keys of %llu", estimate,
                     (unsigned long long)totals[i]);
        }
    }
    struct tracestats_summary sum;
    tracestats_summary(s, &sum);
    assert_int_equal(sum.exact_keys, 1000);
    assert_int_equal(sum.requests, 2000 + 49000);
    tracestats_free(s);
}

/* Key k read floor(100000 / k^s) times: the fit gives s back. */
static void check_zipf(double s_true, uint32_t keys)
{
    struct tracestats *s = stats_new(TRACESTATS_EXACT_KEYS);
    for (uint32_t rank = 1; rank <= keys; rank++) {
        uint64_t count = (uint64_t)floor(100000.0 / pow(rank, s_true));
        struct trace_request r = request(OP_GET, rank, 8, 0);
        for (uint64_t i = 0; i < count; i++) {
            tracestats_add(s, &r, 0);
        }
    }
    double exponent = 0;
    uint64_t fitted = 0;
    assert_true(tracestats_zipf(s, &exponent, &fitted));
    if (fabs(exponent - s_true) > 0.01) {
        fail_msg("zipf %.2f estimated as %.4f", s_true, exponent);
    }
    assert_true(fitted > 0 && fitted <= keys);
    tracestats_free(s);
}

static void test_zipf_fit(void **state)
{
    (void)state;
    check_zipf(0.8, 3000);
    check_zipf(1.2, 3000);
    check_zipf(0.0001, 100); /* nearly uniform */
}

static void test_zipf_needs_frequent_keys(void **state)
{
    (void)state;
    struct tracestats *s = stats_new(100);
    for (uint64_t key = 0; key < TRACESTATS_ZIPF_MIN_KEYS - 1; key++) {
        struct trace_request r = request(OP_GET, key, 8, 0);
        for (int i = 0; i < TRACESTATS_ZIPF_MIN_COUNT; i++) {
            tracestats_add(s, &r, 0);
        }
    }
    double exponent;
    uint64_t fitted;
    assert_false(tracestats_zipf(s, &exponent, &fitted));
    assert_int_equal(fitted, TRACESTATS_ZIPF_MIN_KEYS - 1);
    tracestats_free(s);
}

static void test_rate_mean_and_peak(void **state)
{
    (void)state;
    struct tracestats *s = stats_new(100);
    static const struct {
        uint64_t second;
        int count;
    } seconds[] = {{100, 3}, {102, 5}, {103, 1}};
    uint64_t key = 0;
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(seconds); i++) {
        for (int j = 0; j < seconds[i].count; j++) {
            struct trace_request r = request(OP_GET, key++, 8, 0);
            tracestats_add(s, &r, seconds[i].second);
        }
    }
    struct tracestats_summary sum;
    tracestats_summary(s, &sum);
    assert_int_equal(sum.requests, 9);
    assert_int_equal(sum.first_second, 100);
    assert_int_equal(sum.last_second, 103);
    assert_int_equal(sum.peak_second, 102);
    assert_int_equal(sum.peak_count, 5);
    struct tracestats_sizes values;
    assert_false(tracestats_value_sizes(s, &values)); /* no storage command */
    struct tracestats_rate_row rows[TRACESTATS_RATE_ROWS];
    static const uint64_t per_second[] = {3, 0, 5, 1};
    assert_int_equal(tracestats_rates(s, rows), 4);
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(per_second); i++) {
        assert_int_equal(rows[i].first_second, 100 + i);
        assert_int_equal(rows[i].seconds, 1);
        assert_int_equal(rows[i].requests, per_second[i]);
    }
    tracestats_free(s);
}

/* A trace longer than the rate table's buckets: buckets widen, every request still counted. */
static void test_rate_table_folds(void **state)
{
    (void)state;
    struct tracestats *s = stats_new(100);
    static const uint64_t seconds[] = {0, 1, 3000000, 3000001, 4999999, 5000000};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(seconds); i++) {
        struct trace_request r = request(OP_GET, i, 8, 0);
        tracestats_add(s, &r, seconds[i]);
    }
    struct tracestats_rate_row rows[TRACESTATS_RATE_ROWS];
    assert_int_equal(tracestats_rates(s, rows), TRACESTATS_RATE_ROWS);
    uint64_t total = 0, next = 0;
    for (size_t i = 0; i < TRACESTATS_RATE_ROWS; i++) {
        assert_int_equal(rows[i].first_second, next); /* the rows tile the trace's seconds */
        next += rows[i].seconds;
        total += rows[i].requests;
    }
    assert_int_equal(next, 5000001);
    assert_int_equal(total, SLAP_ARRAY_SIZE(seconds));
    assert_int_equal(rows[0].seconds, 500000);
    assert_int_equal(rows[0].requests, 2);
    assert_int_equal(rows[6].first_second, 3000000);
    assert_int_equal(rows[6].seconds, 500000);
    assert_int_equal(rows[6].requests, 2);
    assert_int_equal(rows[9].first_second, 4500000);
    assert_int_equal(rows[9].seconds, 500001);
    assert_int_equal(rows[9].requests, 2);
    struct tracestats_summary sum;
    tracestats_summary(s, &sum);
    assert_int_equal(sum.peak_count, 1);
    assert_int_equal(sum.peak_second, 0);
    tracestats_free(s);
}

static void test_ops_and_sizes(void **state)
{
    (void)state;
    struct tracestats *s = stats_new(1000);
    for (uint32_t i = 1; i <= 100; i++) {
        struct trace_request get = request(OP_GET, i, 10 + i, 0);
        struct trace_request set = request(OP_SET, i, 10 + i, 1000 * i);
        tracestats_add(s, &get, 7);
        tracestats_add(s, &get, 7);
        tracestats_add(s, &set, 7);
    }
    struct tracestats_summary sum;
    tracestats_summary(s, &sum);
    assert_int_equal(sum.ops[OP_GET], 200);
    assert_int_equal(sum.ops[OP_SET], 100);
    struct tracestats_sizes keys, values;
    tracestats_key_sizes(s, &keys);
    assert_int_equal(keys.count, 300);
    assert_int_equal(keys.p50, 60);
    assert_int_equal(keys.p90, 100);
    assert_int_equal(keys.p99, 109);
    assert_int_equal(keys.max, 110);
    assert_true(tracestats_value_sizes(s, &values));
    assert_int_equal(values.count, 100);
    assert_true(fabs((double)values.p50 / 50000 - 1) < 0.008); /* the histogram's error */
    assert_true(fabs((double)values.p90 / 90000 - 1) < 0.008);
    assert_true(fabs((double)values.p99 / 99000 - 1) < 0.008);
    assert_int_equal(values.max, 100000);
    bool exact = false;
    assert_int_equal(tracestats_distinct(s, &exact), 100);
    assert_true(exact);
    tracestats_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distinct_exact_then_estimated),
        cmocka_unit_test(test_zipf_fit),
        cmocka_unit_test(test_zipf_needs_frequent_keys),
        cmocka_unit_test(test_rate_mean_and_peak),
        cmocka_unit_test(test_rate_table_folds),
        cmocka_unit_test(test_ops_and_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
