/* Unit tests of the Prometheus text: bucket edges, exact cumulative counts, quantiles that agree
 * with slap's, names and types, escaping, the workload's labels and the verdict. */
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
#include "slap/judge/limits.h"
#include "slap/model/stats.h"
#include "slap/output/metrics.h"
#include "slap/output/run_desc.h"

#define MAX_VALUES 20000

static const struct stats_shape get_set = {.types = (1u << OP_GET) | (1u << OP_SET)};

/* The text for in, in memory; the caller frees it. */
static char *write_text(const struct metrics_input *in)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    assert_int_equal(metrics_write(out, in), SLAP_OK);
    assert_int_equal(fclose(out), 0);
    return text;
}

/* The value of the sample whose line starts with series (name and labels, then a space);
 * fails when there is none. */
static double value_of(const char *text, const char *series)
{
    size_t n = strlen(series);
    for (const char *line = text; *line != '\0';) {
        if (strncmp(line, series, n) == 0 && line[n] == ' ') {
            return strtod(line + n + 1, NULL);
        }
        const char *eol = strchr(line, '\n');
        line = eol != NULL ? eol + 1 : line + strlen(line);
    }
    fail_msg("no sample %s in:\n%s", series, text);
    return -1;
}

static bool has_line_starting(const char *text, const char *start)
{
    size_t n = strlen(start);
    for (const char *line = text; *line != '\0';) {
        if (strncmp(line, start, n) == 0) {
            return true;
        }
        const char *eol = strchr(line, '\n');
        line = eol != NULL ? eol + 1 : line + strlen(line);
    }
    return false;
}

static void bucket_edges(void **state)
{
    (void)state;
    assert_int_equal(metrics_bucket_le_ns(0), 1023);
    assert_int_equal(metrics_bucket_le_ns(METRICS_BUCKETS - 1), (1ULL << METRICS_OCTAVE_LAST) - 1);
    for (size_t i = 0; i < METRICS_BUCKETS; i++) {
        uint64_t le = metrics_bucket_le_ns(i);
        /* the edge is one of slap's own: le is the last value of a bucket, le + 1 the first of
         * the next, so the Prometheus bucket's count is exact */
        assert_int_equal(hist_bucket_high(hist_bucket_index(le)), le);
        assert_int_equal(hist_bucket_low(hist_bucket_index(le + 1)), le + 1);
        if (i > 0) {
            uint64_t prev = metrics_bucket_le_ns(i - 1);
            assert_true(le > prev);
            /* at most 1/8 of the lower bound wide: the quantiles' error */
            assert_true((double)(le - prev) <= (double)(prev + 1) / 8.0 + 1.0);
        }
    }
}

static struct metrics_input input_of(const struct slap_stats *s, const char *label)
{
    return (struct metrics_input){.label = label, .stats = s, .elapsed_s = 2.0};
}

/* Every bucket's count is the number of values at or below its edge, exactly. */
static void histogram_counts_exact(void **state)
{
    static uint64_t values[64];
    struct slap_stats s;
    size_t n = 0;
    (void)state;
    assert_int_equal(stats_init(&s, &get_set), SLAP_OK);
    for (size_t i = 0; i < METRICS_BUCKETS; i += 13) {
        values[n++] = metrics_bucket_le_ns(i);     /* on the edge: in this bucket */
        values[n++] = metrics_bucket_le_ns(i) + 1; /* just past it: in the next */
    }
    values[n++] = 5;                         /* below the first edge */
    values[n++] = 3000ULL * SLAP_NS_PER_SEC; /* beyond the last: only in +Inf */
    for (size_t i = 0; i < n; i++) {
        hist_record(s.lat[OP_GET], values[i]);
    }
    struct metrics_input in = input_of(&s, "t");
    char *text = write_text(&in);
    char series[160];
    for (size_t i = 0; i < METRICS_BUCKETS; i++) {
        uint64_t le = metrics_bucket_le_ns(i), expected = 0;
        for (size_t v = 0; v < n; v++) {
            expected += values[v] <= le;
        }
        snprintf(series, sizeof(series),
                 "slap_request_duration_seconds_bucket{label=\"t\",type=\"get\",le=\"%.9g\"}",
                 (double)le / 1e9);
        assert_int_equal((uint64_t)value_of(text, series), expected);
    }
    assert_int_equal(
        value_of(text,
                 "slap_request_duration_seconds_bucket{label=\"t\",type=\"get\",le=\"+Inf\"}"),
        n);
    assert_int_equal(
        value_of(text, "slap_request_duration_seconds_count{label=\"t\",type=\"get\"}"), n);
    double sum = 0;
    for (size_t v = 0; v < n; v++) {
        sum += (double)values[v] / 1e9;
    }
    double got = value_of(text, "slap_request_duration_seconds_sum{label=\"t\",type=\"get\"}");
    assert_true(fabs(got - sum) <= sum * 1e-9);
    /* a type with nothing measured has no histogram, but its request counter (0) */
    assert_false(
        has_line_starting(text, "slap_request_duration_seconds_count{label=\"t\",type=\"set\"}"));
    assert_int_equal(value_of(text, "slap_requests_total{label=\"t\",type=\"set\"}"), 0);
    assert_int_equal(value_of(text, "slap_requests_total{label=\"t\",type=\"get\"}"), n);
    free(text);
    stats_free(&s);
}

/* histogram_quantile as Prometheus computes it: the bucket where the rank falls, linear
 * within it (from the previous edge). */
static double prometheus_quantile(const char *text, const char *type, double q, uint64_t count)
{
    char series[160];
    double rank = q * (double)count, prev_le = 0, prev_count = 0;
    for (size_t i = 0; i < METRICS_BUCKETS; i++) {
        double le = (double)metrics_bucket_le_ns(i) / 1e9;
        snprintf(series, sizeof(series),
                 "slap_request_duration_seconds_bucket{label=\"q\",type=\"%s\",le=\"%.9g\"}", type,
                 le);
        double c = value_of(text, series);
        if (c >= rank) {
            return prev_le + (le - prev_le) * (rank - prev_count) / (c - prev_count);
        }
        prev_le = le;
        prev_count = c;
    }
    return INFINITY;
}

/* The quantiles from the buckets agree with slap's percentiles within a bucket (1/8). */
static void quantiles_agree(void **state)
{
    struct slap_stats s;
    uint64_t x = 88172645463325252ULL;
    (void)state;
    assert_int_equal(stats_init(&s, &get_set), SLAP_OK);
    for (int i = 0; i < MAX_VALUES; i++) { /* a long tail: 20 us to about 20 ms */
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double u = (double)(x >> 11) / 9007199254740992.0;
        hist_record(s.lat[OP_SET], (uint64_t)(20000.0 * exp(6.9 * u * u * u)));
    }
    struct metrics_input in = input_of(&s, "q");
    char *text = write_text(&in);
    const double qs[] = {0.5, 0.9, 0.99, 0.999};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(qs); i++) {
        double slap = (double)hist_percentile_ns(s.lat[OP_SET], qs[i] * 100.0) / 1e9;
        double prom = prometheus_quantile(text, "set", qs[i], MAX_VALUES);
        assert_true(prom >= slap / 1.14 && prom <= slap * 1.14);
    }
    free(text);
    stats_free(&s);
}

/* --reconnect_every: the connections made while measuring are a histogram family of their
 * own, once there was one; none before. */
static void connect_histogram(void **state)
{
    struct slap_stats s;
    (void)state;
    assert_int_equal(stats_init(&s, &get_set), SLAP_OK);
    struct metrics_input in = input_of(&s, "n");
    char *text = write_text(&in);
    assert_null(strstr(text, "slap_connect_seconds"));
    free(text);
    hist_record(s.connect, 80000);
    hist_record(s.connect, 120000);
    text = write_text(&in);
    assert_non_null(strstr(text, "# TYPE slap_connect_seconds histogram"));
    assert_int_equal(value_of(text, "slap_connect_seconds_count{label=\"n\"}"), 2);
    double sum = value_of(text, "slap_connect_seconds_sum{label=\"n\"}");
    assert_true(sum > 0.000199 && sum < 0.000201); /* 80 + 120 us */
    free(text);
    stats_free(&s);
}

/* --timestamps=kernel: slap's own delay is a histogram family of its own, once an answer had
 * a stamp; none before. */
static void own_delay_histogram(void **state)
{
    struct slap_stats s;
    (void)state;
    assert_int_equal(stats_init(&s, &get_set), SLAP_OK);
    hist_record(s.lat[OP_GET], 50000);
    struct metrics_input in = input_of(&s, "n");
    char *text = write_text(&in);
    assert_null(strstr(text, "slap_own_delay_seconds"));
    free(text);
    hist_record(s.own, 3000);
    hist_record(s.own, 41000);
    hist_record(s.own, 900000);
    text = write_text(&in);
    assert_non_null(strstr(text, "# TYPE slap_own_delay_seconds histogram"));
    assert_int_equal(value_of(text, "slap_own_delay_seconds_count{label=\"n\"}"), 3);
    assert_int_equal(value_of(text, "slap_own_delay_seconds_bucket{label=\"n\",le=\"+Inf\"}"), 3);
    double sum = value_of(text, "slap_own_delay_seconds_sum{label=\"n\"}");
    assert_true(sum > 0.00094 && sum < 0.00095); /* 3 + 41 + 900 us */
    assert_int_equal(
        value_of(text, "slap_request_duration_seconds_count{label=\"n\",type=\"get\"}"), 1);
    free(text);
    stats_free(&s);
}

/* An open loop's parts: slap late to send and the server's hold per type, families of their own
 * once they hold a value; the slap_late counter. */
static void latency_parts_histograms(void **state)
{
    struct slap_stats s;
    (void)state;
    assert_int_equal(stats_init(&s, &(struct stats_shape){.types = op_bit(OP_GET) | op_bit(OP_SET),
                                                          .open_loop = true}),
                     SLAP_OK);
    hist_record(s.lat[OP_GET], 50000);
    struct metrics_input in = input_of(&s, "n");
    char *text = write_text(&in);
    assert_null(strstr(text, "slap_late_to_send_seconds"));
    free(text);
    hist_record(s.late[OP_GET], 2000000);
    hist_record(s.late[OP_GET], 3000000);
    hist_record(s.held[OP_SET], 7000);
    s.counters.slap_late = 2;
    text = write_text(&in);
    assert_non_null(strstr(text, "# TYPE slap_late_to_send_seconds histogram"));
    assert_int_equal(value_of(text, "slap_late_to_send_seconds_count{label=\"n\",type=\"get\"}"),
                     2);
    double sum = value_of(text, "slap_late_to_send_seconds_sum{label=\"n\",type=\"get\"}");
    assert_true(sum > 0.00499 && sum < 0.00501); /* 2 + 3 ms */
    assert_null(strstr(text, "slap_late_to_send_seconds_count{label=\"n\",type=\"set\"}"));
    assert_int_equal(value_of(text, "slap_held_by_server_seconds_count{label=\"n\",type=\"set\"}"),
                     1);
    assert_int_equal(value_of(text, "slap_late_requests_total{label=\"n\"}"), 2);
    free(text);
    stats_free(&s);
}

/* Names start slap_, counters end _total, a family's # TYPE comes before its samples. */
static void names_follow_conventions(void **state)
{
    struct slap_stats s;
    (void)state;
    assert_int_equal(stats_init(&s, &get_set), SLAP_OK);
    hist_record(s.lat[OP_GET], 50000);
    s.counters.server_error = 3;
    s.counters.cmd_get = 10;
    s.counters.get_misses = 4;
    s.counters.written_bytes = 1234;
    s.counters.requests_sent = 2;
    struct metrics_input in = input_of(&s, "n");
    char *text = write_text(&in);
    char family[128] = "", type[32] = "";
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        if (sscanf(line, "# TYPE %127s %31s", family, type) == 2) {
            assert_memory_equal(family, "slap_", 5);
            if (strcmp(type, "counter") == 0) {
                assert_string_equal(family + strlen(family) - 6, "_total");
            }
            continue;
        }
        if (line[0] == '#') {
            continue;
        }
        /* a sample belongs to the family last typed (a histogram's have suffixes) */
        assert_memory_equal(line, family, strlen(family));
        char next = line[strlen(family)];
        assert_true(next == '{' || next == '_');
    }
    free(text);
    text = write_text(&in);
    assert_int_equal(value_of(text, "slap_errors_total{label=\"n\",kind=\"server_error\"}"), 3);
    assert_int_equal(value_of(text, "slap_hits_total{label=\"n\",command=\"get\"}"), 6);
    assert_int_equal(value_of(text, "slap_misses_total{label=\"n\",command=\"get\"}"), 4);
    assert_int_equal(value_of(text, "slap_sent_bytes_total{label=\"n\"}"), 1234);
    /* two sent, one answered: one in flight */
    assert_int_equal(value_of(text, "slap_requests_in_flight{label=\"n\"}"), 1);
    assert_true(value_of(text, "slap_achieved_requests_per_second{label=\"n\"}") == 0.5);
    assert_int_equal(value_of(text, "slap_run_finished{label=\"n\"}"), 0);
    free(text);
    stats_free(&s);
}

/* A label value with a quote, a backslash and a line break is escaped, not broken. */
static void label_escaped(void **state)
{
    struct slap_stats s;
    (void)state;
    assert_int_equal(stats_init(&s, &get_set), SLAP_OK);
    struct metrics_input in = input_of(&s, "a\"b\\c\nd");
    char *text = write_text(&in);
    assert_int_equal(value_of(text, "slap_requests_sent_total{label=\"a\\\"b\\\\c\\nd\"}"), 0);
    free(text);
    stats_free(&s);
}

/* slap_run_info: the workload's settings as labels (not the others; no invalid names). */
static void run_info_workload(void **state)
{
    struct slap_stats s;
    struct run_desc desc;
    (void)state;
    memset(&desc, 0, sizeof(desc));
    assert_int_equal(stats_init(&s, &get_set), SLAP_OK);
    assert_int_equal(run_config_add(&desc.config, "concurrency", RUN_CONFIG_NUMBER, 0, "16"),
                     SLAP_OK);
    assert_int_equal(run_config_add(&desc.config, "json", RUN_CONFIG_TEXT, 0, "out.json"), SLAP_OK);
    assert_int_equal(
        run_config_add(&desc.config, "bad-name", RUN_CONFIG_TEXT, RUN_CONFIG_WORKLOAD, "x"),
        SLAP_OK);
    assert_int_equal(run_config_add(&desc.config, "mix", RUN_CONFIG_TEXT, RUN_CONFIG_WORKLOAD,
                                    "get:0.9,set:0.1"),
                     SLAP_OK);
    struct metrics_input in = input_of(&s, "w");
    in.desc = &desc;
    char *text = write_text(&in);
    const char *info = strstr(text, "\nslap_run_info{");
    assert_non_null(info);
    const char *end = strchr(info + 1, '\n');
    char line[512];
    snprintf(line, sizeof(line), "%.*s", (int)(end - info - 1), info + 1);
    assert_non_null(strstr(line, ",concurrency=\"16\""));
    assert_non_null(strstr(line, ",mix=\"get:0.9,set:0.1\""));
    assert_null(strstr(line, "json="));
    assert_null(strstr(line, "bad-name"));
    assert_string_equal(line + strlen(line) - 3, "} 1");
    assert_false(has_line_starting(text, "slap_ramp_target_requests_per_second"));
    free(text);
    /* --ramp 1000:3000/4s, 2 s in: the ramp asks 2000 a second now */
    desc.ramp = (struct ramp){1000.0, 3000.0, 4 * SLAP_NS_PER_SEC};
    text = write_text(&in);
    assert_true(value_of(text, "slap_ramp_target_requests_per_second{label=\"w\"}") == 2000.0);
    free(text);
    run_desc_free(&desc);
    stats_free(&s);
}

/* The verdict and slap's CPU over the run appear once it is judged, not before. */
static void verdict_when_judged(void **state)
{
    struct slap_stats s;
    struct limits l;
    (void)state;
    assert_int_equal(stats_init(&s, &get_set), SLAP_OK);
    assert_int_equal(limits_init(&l, 0), SLAP_OK);
    struct metrics_input in = input_of(&s, "v");
    char *text = write_text(&in);
    assert_null(strstr(text, "slap_limited_by_info"));
    free(text);
    l.seconds = 2;
    l.verdict = LIMITS_CLIENT;
    l.client.cpu_share = 0.75;
    in.limits = &l;
    in.finished = true;
    text = write_text(&in);
    assert_int_equal(value_of(text, "slap_limited_by_info{label=\"v\",limited_by=\"client\"}"), 1);
    assert_true(value_of(text, "slap_client_cpu_ratio{label=\"v\"}") == 0.75);
    assert_int_equal(value_of(text, "slap_run_finished{label=\"v\"}"), 1);
    free(text);
    limits_free(&l);
    stats_free(&s);
}

/* --control's series: only with a control, its rate now, paused, and the changes made. */
static void control_series(void **state)
{
    struct slap_stats s;
    (void)state;
    assert_int_equal(stats_init(&s, &get_set), SLAP_OK);
    struct metrics_input in = input_of(&s, "c");
    char *text = write_text(&in);
    assert_null(strstr(text, "slap_control_"));
    free(text);
    struct rate_state st = {.open_loop = true, .running = true, .tps = 6000, .changes = 2};
    in.control = &st;
    text = write_text(&in);
    assert_true(value_of(text, "slap_control_target_requests_per_second{label=\"c\"}") == 6000);
    assert_true(value_of(text, "slap_control_paused{label=\"c\"}") == 0);
    assert_true(value_of(text, "slap_control_changes_total{label=\"c\"}") == 2);
    free(text);
    st = (struct rate_state){.open_loop = true, .running = true, .paused = true, .changes = 3};
    text = write_text(&in);
    assert_true(value_of(text, "slap_control_target_requests_per_second{label=\"c\"}") == 0);
    assert_true(value_of(text, "slap_control_paused{label=\"c\"}") == 1);
    free(text);
    stats_free(&s);
}

/* The run's start time once known, its end time once it is over: not before. */
static void run_times_when_known(void **state)
{
    struct slap_stats s;
    (void)state;
    assert_int_equal(stats_init(&s, &get_set), SLAP_OK);
    struct metrics_input in = input_of(&s, "t");
    char *text = write_text(&in);
    assert_null(strstr(text, "slap_run_start_time_seconds"));
    assert_null(strstr(text, "slap_run_end_time_seconds"));
    free(text);
    in.start_time_s = 1796000000.25;
    in.end_time_s = 1796000010.5;
    text = write_text(&in);
    assert_non_null(strstr(text, "# TYPE slap_run_start_time_seconds gauge\n"));
    assert_true(value_of(text, "slap_run_start_time_seconds{label=\"t\"}") == 1796000000.25);
    assert_null(strstr(text, "slap_run_end_time_seconds")); /* not finished yet */
    free(text);
    in.finished = true;
    text = write_text(&in);
    assert_non_null(strstr(text, "# TYPE slap_run_end_time_seconds gauge\n"));
    assert_true(value_of(text, "slap_run_end_time_seconds{label=\"t\"}") == 1796000010.5);
    free(text);
    stats_free(&s);
}

/* A stream that fails is said so. */
static void write_failure(void **state)
{
    struct slap_stats s;
    (void)state;
    assert_int_equal(stats_init(&s, &get_set), SLAP_OK);
    FILE *full = fopen("/dev/full", "w");
    if (full != NULL) {
        struct metrics_input in = input_of(&s, "f");
        assert_int_equal(metrics_write(full, &in), SLAP_ERROR);
        fclose(full);
    }
    stats_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bucket_edges),
        cmocka_unit_test(histogram_counts_exact),
        cmocka_unit_test(quantiles_agree),
        cmocka_unit_test(names_follow_conventions),
        cmocka_unit_test(latency_parts_histograms),
        cmocka_unit_test(own_delay_histogram),
        cmocka_unit_test(connect_histogram),
        cmocka_unit_test(label_escaped),
        cmocka_unit_test(run_info_workload),
        cmocka_unit_test(verdict_when_judged),
        cmocka_unit_test(control_series),
        cmocka_unit_test(run_times_when_known),
        cmocka_unit_test(write_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
