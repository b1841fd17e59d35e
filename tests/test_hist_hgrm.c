/* Unit tests of the .hgrm writer: layout, percentile iteration, footer, empty input, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/base/hist.h"
#include "slap/output/hist_hgrm.h"

#define MAX_POINTS 4096
#define UNIFORM_COUNT 10000

#define HEADER                                                                                     \
    "       Value     Percentile TotalCount 1/(1-Percentile)\n"                                    \
    "\n"

/* One percentile line as read back. */
struct point {
    double value;
    double fraction;
    unsigned long long count;
    double inverse; /* 1/(1-Percentile); absent (0) on the last line */
    int fields;     /* 4, or 3 on the last line */
};

/* Everything a .hgrm holds, as read back with sscanf. */
struct parsed {
    struct point points[MAX_POINTS];
    size_t point_count;
    double mean, stddev, max;
    unsigned long long total;
    int buckets, sub_buckets;
    int footer_lines;
};

static struct hist hist;
static struct parsed parsed;

/* Run the writer into memory; the caller frees the text. */
static char *write_text(const struct hist *h, double unit_ns)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    assert_int_equal(hist_hgrm_write(out, h, unit_ns), SLAP_OK);
    assert_int_equal(fclose(out), 0);
    return text;
}

static void parse_footer_line(const char *line, struct parsed *p)
{
    int got = sscanf(line, "#[Mean    = %lf, StdDeviation   = %lf]", &p->mean, &p->stddev);
    if (got != 2) {
        got = sscanf(line, "#[Max     = %lf, Total count    = %llu]", &p->max, &p->total);
    }
    if (got != 2) {
        got = sscanf(line, "#[Buckets = %d, SubBuckets     = %d]", &p->buckets, &p->sub_buckets);
    }
    if (got != 2) {
        fail_msg("footer line does not parse: '%s'", line);
    }
    p->footer_lines++;
}

static void parse_point_line(const char *line, struct parsed *p)
{
    assert_true(p->point_count < MAX_POINTS);
    assert_int_equal(p->footer_lines, 0); /* points come before the footer */
    struct point *pt = &p->points[p->point_count++];
    memset(pt, 0, sizeof(*pt));
    pt->fields =
        sscanf(line, "%lf %lf %llu %lf", &pt->value, &pt->fraction, &pt->count, &pt->inverse);
    if (pt->fields != 3 && pt->fields != 4) {
        fail_msg("percentile line does not parse: '%s'", line);
    }
}

/* Read every line back; any line that does not parse fails the test. */
static void parse_text(char *text, struct parsed *p)
{
    memset(p, 0, sizeof(*p));
    assert_memory_equal(text, HEADER, strlen(HEADER));
    char *save = NULL;
    for (char *line = strtok_r(text + strlen(HEADER), "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#') {
            parse_footer_line(line, p);
        } else {
            parse_point_line(line, p);
        }
    }
    assert_int_equal(p->footer_lines, 3);
}

/* One value each of 1..10000 us. */
static void fill_uniform(void)
{
    hist_reset(&hist);
    for (uint64_t us = 1; us <= UNIFORM_COUNT; us++) {
        hist_record(&hist, us * SLAP_NS_PER_US);
    }
}

static void parse_uniform(void)
{
    fill_uniform();
    char *text = write_text(&hist, 1e6);
    parse_text(text, &parsed);
    free(text);
    assert_true(parsed.point_count >= 2);
}

static void test_uniform_lines_monotonic(void **state)
{
    (void)state;
    parse_uniform();
    for (size_t i = 1; i < parsed.point_count; i++) {
        const struct point *a = &parsed.points[i - 1], *b = &parsed.points[i];
        if (!(b->fraction > a->fraction) || b->value < a->value || b->count < a->count) {
            fail_msg("line %zu (%.3f %.12f %llu) after (%.3f %.12f %llu)", i, b->value, b->fraction,
                     b->count, a->value, a->fraction, a->count);
        }
        assert_true(b->value <= parsed.max); /* clamped to what was recorded */
    }
}

static void test_uniform_median_and_last(void **state)
{
    (void)state;
    parse_uniform();
    size_t nearest = 0;
    for (size_t i = 0; i < parsed.point_count; i++) {
        if (fabs(parsed.points[i].fraction - 0.5) < fabs(parsed.points[nearest].fraction - 0.5)) {
            nearest = i;
        }
    }
    assert_true(fabs(parsed.points[nearest].value - 5.0) <= 0.01 * 5.0);

    const struct point *last = &parsed.points[parsed.point_count - 1];
    size_t max_bucket = hist_bucket_index(UNIFORM_COUNT * SLAP_NS_PER_US);
    double width_ms = (double)(hist_bucket_high(max_bucket) - hist_bucket_low(max_bucket)) / 1e6;
    assert_int_equal(last->fields, 3);
    assert_true(last->fraction == 1.0);
    assert_int_equal(last->count, UNIFORM_COUNT);
    assert_true(fabs(last->value - 10.0) <= width_ms);
    for (size_t i = 0; i + 1 < parsed.point_count; i++) {
        assert_int_equal(parsed.points[i].fields, 4);
        assert_true(parsed.points[i].fraction < 1.0);
    }
}

/* The third column is 1/(1-p) of the second, to the two decimals printed. */
static void test_uniform_inverse_column(void **state)
{
    (void)state;
    parse_uniform();
    for (size_t i = 0; i + 1 < parsed.point_count; i++) {
        const struct point *pt = &parsed.points[i];
        double want = 1.0 / (1.0 - pt->fraction);
        if (fabs(pt->inverse - want) > 0.005 + 1e-9 * want) {
            fail_msg("line %zu: 1/(1-%.12f) printed %.2f, expected %.4f", i, pt->fraction,
                     pt->inverse, want);
        }
    }
}

/* HdrHistogram's steps: 10% to 50%, 5% to 75%, 2.5% to 87.5%, 1.25% to 93.75%, ... */
static void test_uniform_percentile_steps(void **state)
{
    (void)state;
    static const double want[] = {0,     10, 20,    30,   40,    50,     55, 60,
                                  65,    70, 75,    77.5, 80,    82.5,   85, 87.5,
                                  88.75, 90, 91.25, 92.5, 93.75, 94.375, 95, 95.625};
    parse_uniform();
    assert_true(parsed.point_count > SLAP_ARRAY_SIZE(want));
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(want); i++) {
        if (fabs(parsed.points[i].fraction * 100.0 - want[i]) > 1e-9) {
            fail_msg("point %zu at %.12f%%, expected %g%%", i, parsed.points[i].fraction * 100.0,
                     want[i]);
        }
        double rank = want[i] / 100.0 * UNIFORM_COUNT;
        assert_true((double)parsed.points[i].count >= rank);
    }
}

static void test_uniform_footer(void **state)
{
    (void)state;
    parse_uniform();
    assert_int_equal(parsed.total, UNIFORM_COUNT);
    assert_true(parsed.max == 10.0);
    assert_true(fabs(parsed.mean - 5.0005) <= 0.0006);
    assert_true(fabs(parsed.stddev - sqrt(10000.0 * 10001.0 / 12.0) / 1000.0) <= 0.0006);
    assert_int_equal(parsed.buckets, 35); /* 2^8 * 2^34 = 2^42 ns covered */
    assert_int_equal(parsed.sub_buckets, 2 * HIST_SUB_COUNT);
}

/* 900 values at 1 us, 100 at 2 us, in us: every point up to 90% lands in the first bucket. */
static void test_points_share_a_bucket(void **state)
{
    (void)state;
    hist_reset(&hist);
    for (int i = 0; i < 1000; i++) {
        hist_record(&hist, i < 900 ? 1000 : 2000);
    }
    char *text = write_text(&hist, 1000.0);
    parse_text(text, &parsed);
    free(text);
    double first_high_us = (double)hist_bucket_high(hist_bucket_index(1000)) / 1000.0; /* 1.003 */
    assert_int_equal(parsed.point_count, 20);
    for (size_t i = 0; i < 18; i++) {
        assert_true(fabs(parsed.points[i].value - first_high_us) < 1e-9);
        assert_int_equal(parsed.points[i].count, 900);
    }
    assert_true(fabs(parsed.points[17].fraction - 0.9) < 1e-12);
    assert_true(fabs(parsed.points[18].fraction - 0.9125) < 1e-12);
    assert_true(parsed.points[18].value == 2.0); /* 2007, clamped to the max */
    assert_int_equal(parsed.points[18].count, 1000);
    assert_true(parsed.points[19].fraction == 1.0 && parsed.points[19].value == 2.0);
    assert_true(parsed.mean == 1.1 && parsed.max == 2.0);
}

static void test_empty_is_header_and_footer(void **state)
{
    (void)state;
    hist_reset(&hist);
    char *text = write_text(&hist, 1e6);
    assert_string_equal(text, HEADER "#[Mean    =        0.000, StdDeviation   =        0.000]\n"
                                     "#[Max     =        0.000, Total count    =            0]\n"
                                     "#[Buckets =           35, SubBuckets     =          256]\n");
    free(text);
}

static void test_write_error(void **state)
{
    (void)state;
    FILE *read_only = fopen("/dev/null", "r");
    assert_non_null(read_only);
    fill_uniform();
    assert_int_equal(hist_hgrm_write(read_only, &hist, 1e6), SLAP_ERROR);
    clearerr(read_only);
    hist_reset(&hist);
    assert_int_equal(hist_hgrm_write(read_only, &hist, 1e6), SLAP_ERROR);
    fclose(read_only);
}

/* /dev/full accepts the open and fails every write: the error shows only at the flush. */
static void test_write_error_on_flush(void **state)
{
    (void)state;
    FILE *full = fopen("/dev/full", "w");
    if (full == NULL) {
        skip();
    }
    hist_reset(&hist);
    hist_record(&hist, 1000);
    assert_int_equal(hist_hgrm_write(full, &hist, 1e6), SLAP_ERROR);
    fclose(full);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uniform_lines_monotonic),
        cmocka_unit_test(test_uniform_median_and_last),
        cmocka_unit_test(test_uniform_inverse_column),
        cmocka_unit_test(test_uniform_percentile_steps),
        cmocka_unit_test(test_uniform_footer),
        cmocka_unit_test(test_points_share_a_bucket),
        cmocka_unit_test(test_empty_is_header_and_footer),
        cmocka_unit_test(test_write_error),
        cmocka_unit_test(test_write_error_on_flush),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
