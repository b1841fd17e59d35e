/* Unit tests of slap trace-stats' report: the text printed from model/tracestats' figures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/commands/tracestats_report.h"

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

/* The report, as text (free it). */
static char *report(const struct tracestats *s, uint64_t requests)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    struct trace_counts c = {.requests = requests, .first_line = 1, .last_line = requests};
    assert_non_null(f);
    tracestats_report(f, s, &c, "t.csv");
    assert_int_equal(fclose(f), 0);
    return text;
}

static void assert_has(const char *text, const char *want)
{
    if (strstr(text, want) == NULL) {
        fail_msg("no '%s' in:\n%s", want, text);
    }
}

/* More keys than the table counts exactly: the report says the count is the estimate's. */
static void test_distinct_estimated(void **state)
{
    (void)state;
    struct tracestats *s = stats_new(1000);
    for (uint64_t key = 0; key < 50000; key++) {
        struct trace_request r = request(OP_GET, key, 8, 0);
        tracestats_add(s, &r, 0);
    }
    char *text = report(s, 100000);
    assert_has(text, "(estimate: HyperLogLog");
    assert_has(text, "more than the 1000 keys --exact-keys counts exactly)\n");
    free(text);
    tracestats_free(s);
}

static void test_zipf_not_estimated(void **state)
{
    (void)state;
    struct tracestats *s = stats_new(100);
    for (uint64_t key = 0; key < TRACESTATS_ZIPF_MIN_KEYS - 1; key++) {
        struct trace_request r = request(OP_GET, key, 8, 0);
        for (int i = 0; i < TRACESTATS_ZIPF_MIN_COUNT; i++) {
            tracestats_add(s, &r, 0);
        }
    }
    char *text = report(s, 0);
    assert_has(text, "zipf exponent: not estimated (9 keys read 16 times or more, fewer than 10)");
    free(text);
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
    char *text = report(s, 9);
    assert_has(text, "seconds: 100 to 103 (4 s)\n");
    assert_has(text, "rate: mean 2.2/s, peak 5/s at second 102\n");
    assert_has(text, "\n100                      3            3.0\n"
                     "101                      0            0.0\n"
                     "102                      5            5.0\n"
                     "103                      1            1.0\n");
    free(text);
    tracestats_free(s);
}

/* A trace longer than the rate table's buckets: rows of many seconds, named by their span. */
static void test_rate_table_folds(void **state)
{
    (void)state;
    struct tracestats *s = stats_new(100);
    static const uint64_t seconds[] = {0, 1, 3000000, 3000001, 4999999, 5000000};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(seconds); i++) {
        struct trace_request r = request(OP_GET, i, 8, 0);
        tracestats_add(s, &r, seconds[i]);
    }
    char *text = report(s, SLAP_ARRAY_SIZE(seconds));
    assert_has(text, "\n0-499999                 2            0.0\n");
    assert_has(text, "\n3000000-3499999          2            0.0\n");
    assert_has(text, "\n4500000-5000000          2            0.0\n");
    assert_has(text, "rate: mean 0.0/s, peak 1/s at second 0\n");
    free(text);
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
    char *text = report(s, 300);
    assert_has(text, "\nget        200          66.67%\nset        100          33.33%\n");
    assert_has(text, "\nkey              300          60         100        109        110\n");
    char *row = strstr(text, "\nvalue(writes)    100          ");
    assert_non_null(row);
    unsigned long long p50, p90, p99, max;
    assert_int_equal(sscanf(row, "\nvalue(writes) 100 %llu %llu %llu %llu", &p50, &p90, &p99, &max),
                     4);
    assert_true(fabs((double)p50 / 50000 - 1) < 0.008); /* the log-linear histogram's error */
    assert_true(fabs((double)p90 / 90000 - 1) < 0.008);
    assert_true(fabs((double)p99 / 99000 - 1) < 0.008);
    assert_int_equal(max, 100000);
    assert_has(text, "distinct keys: 100 (exact)\n");
    free(text);
    tracestats_free(s);
}

/* Without requests: the reader's counts only; a name's unprintable bytes shown as '?'. */
static void test_empty_and_name(void **state)
{
    (void)state;
    struct tracestats *s = stats_new(100);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    struct trace_counts c = {.skipped = 2};
    assert_non_null(f);
    tracestats_report(f, s, &c, "a\tb");
    assert_int_equal(fclose(f), 0);
    assert_string_equal(text, "trace: a\\x09b\nrequests: 0\nskipped: 2 malformed lines\n");
    free(text);
    tracestats_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distinct_estimated), cmocka_unit_test(test_zipf_not_estimated),
        cmocka_unit_test(test_rate_mean_and_peak), cmocka_unit_test(test_rate_table_folds),
        cmocka_unit_test(test_ops_and_sizes),      cmocka_unit_test(test_empty_and_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
