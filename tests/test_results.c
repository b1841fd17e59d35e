/* Unit tests of results: a document written as JSON reads back the same; merging is exact. */
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
#include "slap/base/json.h"
#include "slap/base/rng.h"
#include "slap/output/limits_words.h"
#include "slap/output/report_ramp.h"
#include "slap/output/results.h"
#include "slap/output/results_csv.h"
#include "slap/output/results_merge.h"
#include "slap/output/results_read.h"
#include "slap/output/run_desc.h"
#include "slap/output/sinks.h"

#include "results_doc.h"

static void assert_same_hist(const struct hist *a, const struct hist *b)
{
    assert_int_equal(a->count, b->count);
    assert_int_equal(a->min_ns, b->min_ns);
    assert_int_equal(a->max_ns, b->max_ns);
    assert_true(a->sum_us == b->sum_us);
    assert_true(hist_geomean_us(a) == hist_geomean_us(b));
    assert_memory_equal(a->buckets, b->buckets, sizeof(a->buckets));
    assert_memory_equal(a->log2_us, b->log2_us, sizeof(a->log2_us));
}

static void test_round_trip(void **state)
{
    (void)state;
    struct results_doc d, back;
    const struct spec spec = {.servers = "127.0.0.1:1,127.0.0.1:2",
                              .threads = 2,
                              .concurrency = 8,
                              .time = "3",
                              .value_size = "4-100:0.3,1024-2048:0.7",
                              .percentiles = "50,99.99",
                              .label = "run-one",
                              .tps = "50000",
                              .arrival = "poisson"};
    make_doc(&d, &spec, 7, NULL);
    size_t len;
    char *text = NULL;
    to_json(&d, &text, &len);
    char err[512] = "";
    if (results_parse(text, len, read_test_config, &back, err, sizeof(err)) != SLAP_OK) {
        fail_msg("%s", err);
    }
    assert_string_equal(back.label, d.label);
    assert_string_equal(back.desc.servers, "127.0.0.1:1,127.0.0.1:2");
    assert_string_equal(run_config_find(&back.desc.config, "label")->value, "run-one");
    assert_int_equal(back.desc.threads, 2);
    assert_int_equal(back.desc.run_time_ns, 3 * SLAP_NS_PER_SEC);
    assert_true(back.desc.tps == 50000.0);
    assert_int_equal(back.desc.arrival, ARRIVAL_POISSON);
    assert_int_equal(back.desc.npercentiles, 2);
    assert_true(back.desc.percentiles[1] == 99.99);
    /* the configuration reads back entry for entry */
    assert_int_equal(back.desc.config.n, d.desc.config.n);
    for (size_t i = 0; i < d.desc.config.n; i++) {
        const struct run_config_entry *want = &d.desc.config.entries[i];
        const struct run_config_entry *got = &back.desc.config.entries[i];
        assert_string_equal(got->name, want->name);
        assert_int_equal(got->kind, want->kind);
        assert_int_equal(got->flags, want->flags);
        assert_string_equal(got->value, want->value);
    }
    for (int t = 0; t < STATS_TYPES; t++) {
        assert_same_hist(back.global->lat[t], d.global->lat[t]);
        assert_int_equal(back.global->net_bytes[t], d.global->net_bytes[t]);
        assert_int_equal(back.global->misses[t], d.global->misses[t]);
    }
    assert_same_hist(back.global->gets[STATS_HIT], d.global->gets[STATS_HIT]);
    assert_memory_equal(&back.global->counters, &d.global->counters, sizeof(d.global->counters));
    assert_int_equal(back.periods.n, 3);
    const struct results_period *p = back.periods.items;
    assert_int_equal(p[2].counters.unanswered, 3);
    assert_int_equal(p[2].lat[STATS_SET].count, 3000);
    assert_int_equal(p[2].lat[OP_DECR].count, 500 * (OP_DECR + 1) * 3);
    assert_int_equal(p[2].net_bytes[OP_DECR], 1000 * (OP_DECR + 1) + 3);
    assert_int_equal(p[2].misses[OP_INCR], OP_INCR * 3);
    assert_int_equal(back.servers.n, 2);
    const struct results_server *srv = back.servers.items;
    assert_true(srv[0].stats.ok && srv[0].stats.after.cmd_get == 99);
    assert_false(srv[1].stats.ok);
    assert_string_equal(srv[1].stats.note, "it did not answer stats");
    assert_int_equal(back.start_ms, d.start_ms);
    free(text);
    results_doc_free(&d);
    results_doc_free(&back);
}

/* A document of every object read back and written again: the same bytes. */
static void test_round_trip_every_object(void **state)
{
    (void)state;
    char *texts[2];
    every_object_texts(&texts[0], &texts[1], false);
    for (int i = 0; i < 2; i++) {
        struct results_doc back;
        char err[512] = "", *again = NULL;
        size_t len;
        if (results_parse(texts[i], strlen(texts[i]), read_test_config, &back, err, sizeof(err)) !=
            SLAP_OK) {
            fail_msg("%s", err);
        }
        to_json(&back, &again, &len);
        assert_string_equal(again, texts[i]);
        free(again);
        results_doc_free(&back);
        free(texts[i]);
    }
}

/* A proxy's figures that count only part of the run: read back as partial, figures and note
 * kept, and printed with the note; a note without figures reads back as unknown. */
static void test_partial_proxy_read_back(void **state)
{
    (void)state;
    static const char note[] = "partial: they count 5 answers to the 10 requests slap had answered";
    for (int partial = 0; partial < 2; partial++) {
        struct results_doc d, back;
        make_run(&d, false);
        d.limits.proxy.known = partial == 1;
        d.limits.proxy.partial = partial == 1;
        d.limits.proxy.delta.requests = 5;
        snprintf(d.limits.proxy.note, sizeof(d.limits.proxy.note), "%s", note);
        char *text = NULL, *again = NULL, err[512] = "", *printed = NULL;
        size_t len, printed_len;
        to_json(&d, &text, &len);
        if (results_parse(text, len, read_test_config, &back, err, sizeof(err)) != SLAP_OK) {
            fail_msg("%s", err);
        }
        assert_int_equal(back.limits.proxy.known, partial == 1);
        assert_int_equal(back.limits.proxy.partial, partial == 1);
        assert_string_equal(back.limits.proxy.note, note);
        assert_true(back.limits.proxy.delta.requests == (partial == 1 ? 5 : 0));
        to_json(&back, &again, &len);
        assert_string_equal(again, text);
        FILE *out = open_memstream(&printed, &printed_len);
        assert_non_null(out);
        limits_print(out, &back.limits);
        fclose(out);
        assert_non_null(strstr(printed, partial == 1 ? "\nproxy_stats: 127.0.0.1:22122 requests 5 "
                                                     : "\nproxy_stats_unknown: 127.0.0.1:22122 ("));
        assert_non_null(strstr(printed, partial == 1 ? " out_queue 0 (partial: they count 5 "
                                                     : "(partial: they count 5 "));
        free(printed);
        free(again);
        free(text);
        results_doc_free(&back);
        results_doc_free(&d);
    }
}

/* Two hosts' documents merged give the percentiles of one histogram of every sample. */
static void test_merge_is_exact(void **state)
{
    (void)state;
    struct results_doc a, b, merged;
    struct slap_stats *all = malloc(sizeof(*all));
    assert_non_null(all);
    assert_int_equal(stats_init(all, &stats_shape_all), SLAP_OK);
    make_doc(&a,
             &(struct spec){.servers = "127.0.0.1:1", .threads = 2, .concurrency = 8, .time = "3"},
             11, all);
    make_doc(&b,
             &(struct spec){.servers = "127.0.0.1:1", .threads = 1, .concurrency = 4, .time = "3"},
             12, all);
    struct results_doc *docs[] = {&a, &b};
    char err[512] = "";
    assert_int_equal(results_merge(&merged, docs, 2, err, sizeof(err)), SLAP_OK);
    struct hist *total = malloc(sizeof(*total)), *merged_total = malloc(sizeof(*total));
    stats_total_hist(all, total);
    stats_total_hist(merged.global, merged_total);
    for (double pct = 1; pct <= 100; pct += 0.7) {
        assert_int_equal(hist_percentile_ns(merged_total, pct), hist_percentile_ns(total, pct));
    }
    assert_int_equal(hist_percentile_ns(merged_total, 99.99), hist_percentile_ns(total, 99.99));
    assert_memory_equal(merged_total->buckets, total->buckets, sizeof(total->buckets));
    assert_memory_equal(merged_total->log2_us, total->log2_us, sizeof(total->log2_us));
    assert_int_equal(merged.global->counters.cmd_get,
                     a.global->counters.cmd_get + b.global->counters.cmd_get);
    assert_int_equal(merged.desc.concurrency, 12);
    assert_int_equal(merged.desc.threads, 3);
    /* the configuration shows the sums, and the runs' labels joined */
    assert_string_equal(run_config_find(&merged.desc.config, "concurrency")->value, "12");
    assert_string_equal(run_config_find(&merged.desc.config, "threads")->value, "3");
    assert_string_equal(run_config_find(&merged.desc.config, "label")->value, "host-11+host-12");
    assert_string_equal(merged.label, "host-11+host-12");
    assert_int_equal(merged.periods.n, 3);
    const struct results_period *p = merged.periods.items;
    assert_int_equal(p[0].lat[STATS_GET].count, 1000);
    assert_int_equal(p[0].net_bytes[OP_GETS], 2 * (1000 * (OP_GETS + 1) + 1));
    assert_int_equal(merged.global->net_bytes[OP_GETS],
                     a.global->net_bytes[OP_GETS] + b.global->net_bytes[OP_GETS]);
    assert_int_equal(merged.servers.n, 4);
    free(total);
    free(merged_total);
    stats_free(all);
    free(all);
    results_doc_free(&merged);
    results_doc_free(&a);
    results_doc_free(&b);
}

static void test_merge_refuses_other_workloads(void **state)
{
    (void)state;
    static const struct spec base = {.servers = "127.0.0.1:1", .time = "3"};
    static const struct spec others[] = {
        {.servers = "127.0.0.1:1", .time = "3", .value_size = "100"},
        {.servers = "127.0.0.1:1", .time = "4"},
        {.servers = "127.0.0.1:1", .time = "3", .division = "4"},
        {.servers = "127.0.0.1:1", .time = "3", .protocol = "binary"},
    };
    static const char *const named[] = {"--value_size", "--time", "--division", "--protocol"};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(others); i++) {
        struct results_doc a, b, merged;
        make_doc(&a, &base, 1, NULL);
        make_doc(&b, &others[i], 2, NULL);
        struct results_doc *docs[] = {&a, &b};
        char err[512] = "";
        assert_int_equal(results_merge(&merged, docs, 2, err, sizeof(err)), SLAP_ERROR);
        if (strstr(err, named[i]) == NULL) {
            fail_msg("'%s' does not name %s", err, named[i]);
        }
        results_doc_free(&merged);
        results_doc_free(&a);
        results_doc_free(&b);
    }
}

/* Text edited into a good document makes it one the reader refuses, saying what. */
static void test_refuses_bad_documents(void **state)
{
    (void)state;
    char schema_now[32], schema_next[32], schema_said[96];
    snprintf(schema_now, sizeof(schema_now), "\"schema\": %d", RESULTS_SCHEMA);
    snprintf(schema_next, sizeof(schema_next), "\"schema\": %d", RESULTS_SCHEMA + 1);
    snprintf(schema_said, sizeof(schema_said),
             "schema: version %d; this slap reads versions 1 to %d", RESULTS_SCHEMA + 1,
             RESULTS_SCHEMA);
    const struct {
        const char *from, *to, *said;
    } edits[] = {
        {schema_now, schema_next, schema_said},
        {"\"kind\": \"run\"", "\"kind\": \"walk\"", "kind"},
        {"\"cmd_set\": ", "\"cmd_sets\": ", "cmd_set"},
        {"\"buckets\": [[", "\"buckets\": [[99999,1],[", "bucket"},
        {"\"buckets\": [[", "\"buckets\": [[0,1],[", "add up"},
        {"\"threads\": 2", "\"threads\": 0", "threads"},
        {"\"threads\": 2", "\"threadz\": 2", "unknown option"},
        {"\"label\": \"host-3\"", "\"label\": \"\\u001b[2J\"", "label"},
    };
    struct results_doc d;
    make_doc(&d,
             &(struct spec){.servers = "127.0.0.1:1", .threads = 2, .concurrency = 8, .time = "3"},
             3, NULL);
    size_t len;
    char *text = NULL;
    to_json(&d, &text, &len);
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(edits); i++) {
        const char *at = strstr(text, edits[i].from);
        assert_non_null(at);
        size_t before = (size_t)(at - text);
        char *edited = NULL;
        assert_true(asprintf(&edited, "%.*s%s%s", (int)before, text, edits[i].to,
                             text + before + strlen(edits[i].from)) > 0);
        struct results_doc back;
        char err[512] = "";
        if (results_parse(edited, strlen(edited), read_test_config, &back, err, sizeof(err)) !=
            SLAP_ERROR) {
            fail_msg("edit %zu (%s) was accepted", i, edits[i].to);
        }
        if (strstr(err, edits[i].said) == NULL) {
            fail_msg("edit %zu: '%s' does not say %s", i, err, edits[i].said);
        }
        results_doc_free(&back);
        free(edited);
    }
    free(text);
    results_doc_free(&d);
}

/* text without any line whose member is "name": (allocated); the member before a last one
 * dropped loses its comma. */
static char *drop_member(const char *text, const char *name)
{
    char key[64];
    snprintf(key, sizeof(key), "\"%s\":", name);
    char *out = malloc(strlen(text) + 1);
    assert_non_null(out);
    size_t n = 0;
    for (const char *line = text; *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t len = end != NULL ? (size_t)(end - line) + 1 : strlen(line);
        const char *member = line + strspn(line, " ");
        if (strncmp(member, key, strlen(key)) != 0) {
            memcpy(out + n, line, len);
            n += len;
        } else if (line[len - 1] == '\n' && line[len - 2] != ',' && n >= 2 && out[n - 2] == ',') {
            out[n - 2] = '\n'; /* it was the object's last member */
            n--;
        }
        line += len;
    }
    out[n] = '\0';
    return out;
}

/* A file of schema 1 may lack each counter younger than it (since 2): it reads back, the
 * counter not known (null when written again); one that schema 1 holds (since 1) may not be
 * absent: refused, naming it. */
static void test_schema_1_lacks_younger_counters(void **state)
{
    (void)state;
    struct results_doc d;
    make_doc(&d,
             &(struct spec){.servers = "127.0.0.1:1", .threads = 2, .concurrency = 8, .time = "3"},
             3, NULL);
    size_t len;
    char *text = NULL;
    to_json(&d, &text, &len);
    char now[32];
    snprintf(now, sizeof(now), "\"schema\": %d", RESULTS_SCHEMA);
    char *one = strstr(text, now);
    assert_non_null(one);
    one[strlen("\"schema\": ")] = '1';
    static const struct {
        const char *name;
        unsigned since;
        int index;
    } counters[] = {
#define COUNTER_ROW(name, show, since, meaning) {#name, since, RESULTS_COUNTER_##name},
        SLAP_COUNTERS(COUNTER_ROW)
#undef COUNTER_ROW
    };
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(counters); i++) {
        char *edited = drop_member(text, counters[i].name);
        assert_true(strlen(edited) < strlen(text));
        struct results_doc back;
        char err[512] = "";
        enum slap_status st =
            results_parse(edited, strlen(edited), read_test_config, &back, err, sizeof(err));
        if (counters[i].since > 1) {
            if (st != SLAP_OK) {
                fail_msg("schema 1 without %s (since %u) refused: %s", counters[i].name,
                         counters[i].since, err);
            }
            assert_true(back.counters_unknown == 1ULL << counters[i].index);
            char *again = NULL;
            to_json(&back, &again, &len);
            char want[80];
            snprintf(want, sizeof(want), "\"%s\": null", counters[i].name);
            assert_non_null(strstr(again, want));
            free(again);
        } else if (st != SLAP_ERROR || strstr(err, counters[i].name) == NULL) {
            fail_msg("schema 1 without %s (since 1): '%s'", counters[i].name, err);
        }
        results_doc_free(&back);
        free(edited);
    }
    free(text);
    results_doc_free(&d);
}

/* text with the first number after "key": (from the occurrence of after on, when not NULL)
 * replaced by value (allocated). */
static char *edit_number(const char *text, const char *after, const char *key, const char *value)
{
    char quoted[64];
    snprintf(quoted, sizeof(quoted), "\"%s\": ", key);
    const char *from = after != NULL ? strstr(text, after) : text;
    assert_non_null(from);
    const char *at = strstr(from, quoted);
    assert_non_null(at);
    at += strlen(quoted);
    size_t skip = strspn(at, "-+.0123456789eE");
    char *edited = NULL;
    assert_true(asprintf(&edited, "%.*s%s%s", (int)(at - text), text, value, at + skip) > 0);
    return edited;
}

/* Numbers out of range, or whose sums overflow, are refused naming the field: none of them
 * reaches a report as garbage. */
static void test_refuses_corrupt_numbers(void **state)
{
    (void)state;
    static const struct {
        const char *after, *key, *value, *said;
    } edits[] = {
        {NULL, "cmd_get", "18446744073709551615", "cmd_get"},
        {NULL, "cmd_get", "9007199254740993", "cmd_get"},
        {"\"periods\"", "unanswered", "18446744073709551615", "unanswered"},
        {NULL, "max_ns", "18446744073709551615", "max_ns"},
        {NULL, "min_ns", "18446744073709551615", "min_ns"},
        {NULL, "sum_us", "1e308", "sum_us"},
        {NULL, "sum_us", "-5", "sum_us"},
        {NULL, "sumsq_us", "1e308", "sumsq_us"},
        {NULL, "net_bytes", "18446744073709551615", "net_bytes"},
        {NULL, "seconds", "1e308", "seconds"},
        {NULL, "seconds", "-3", "seconds"},
        {NULL, "exit_status", "256", "exit_status"},
        {"\"periods\"", "elapsed_s", "-1", "elapsed_s"},
        {"\"servers\"", "cmd_get", "1e300", "cmd_get"},
    };
    struct results_doc d;
    make_doc(&d,
             &(struct spec){.servers = "127.0.0.1:1", .threads = 2, .concurrency = 8, .time = "3"},
             3, NULL);
    size_t len;
    char *text = NULL;
    to_json(&d, &text, &len);
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(edits); i++) {
        char *edited = edit_number(text, edits[i].after, edits[i].key, edits[i].value);
        struct results_doc back;
        char err[512] = "";
        if (results_parse(edited, strlen(edited), read_test_config, &back, err, sizeof(err)) !=
            SLAP_ERROR) {
            fail_msg("edit %zu (%s %s) was accepted", i, edits[i].key, edits[i].value);
        }
        if (strstr(err, edits[i].said) == NULL) {
            fail_msg("edit %zu: '%s' does not say %s", i, err, edits[i].said);
        }
        results_doc_free(&back);
        free(edited);
    }
    /* Two buckets of 2^63 wrap to nothing: the sum still matched the count. */
    const char *at = strstr(text, "\"buckets\": [[");
    assert_non_null(at);
    char *edited = NULL;
    assert_true(asprintf(&edited,
                         "%.*s\"buckets\": [[0,9223372036854775808],[1,9223372036854775808],[%s",
                         (int)(at - text), text, at + strlen("\"buckets\": [[")) > 0);
    struct results_doc back;
    char err[512] = "";
    assert_int_equal(
        results_parse(edited, strlen(edited), read_test_config, &back, err, sizeof(err)),
        SLAP_ERROR);
    if (strstr(err, "buckets") == NULL) {
        fail_msg("two buckets of 2^63: '%s' does not say buckets", err);
    }
    results_doc_free(&back);
    free(edited);
    free(text);
    results_doc_free(&d);
}

/* Documents each in range whose sums are not (counters, histogram counts, a period's figures)
 * are refused by merge, naming the document and the field. */
static void test_merge_refuses_overflowing_sums(void **state)
{
    (void)state;
    for (int field = 0; field < 4; field++) {
        struct results_doc a, b, merged;
        make_doc(&a, &(struct spec){.servers = "127.0.0.1:1", .time = "3"}, 1, NULL);
        make_doc(&b, &(struct spec){.servers = "127.0.0.1:1", .time = "3"}, 2, NULL);
        struct results_period *pa = a.periods.items, *pb = b.periods.items;
        const char *said = NULL;
        switch (field) {
        case 0:
            a.global->counters.cmd_get = b.global->counters.cmd_get = RESULTS_COUNT_MAX - 1;
            said = "cmd_get";
            break;
        case 1:
            a.global->net_bytes[STATS_SET] = b.global->net_bytes[STATS_SET] = RESULTS_COUNT_MAX;
            said = "net_bytes";
            break;
        case 2:
            pa[1].counters.unanswered = pb[1].counters.unanswered = RESULTS_COUNT_MAX;
            said = "unanswered";
            break;
        default:
            pa[2].misses[STATS_GET] = pb[2].misses[STATS_GET] = RESULTS_COUNT_MAX;
            said = "misses";
            break;
        }
        struct results_doc *docs[] = {&a, &b};
        char err[512] = "";
        assert_int_equal(results_merge(&merged, docs, 2, err, sizeof(err)), SLAP_ERROR);
        if (strstr(err, said) == NULL || strstr(err, "host-2") == NULL) {
            fail_msg("field %d: '%s' does not name %s and host-2", field, err, said);
        }
        results_doc_free(&merged);
        results_doc_free(&a);
        results_doc_free(&b);
    }
}

static void test_csv_rows(void **state)
{
    (void)state;
    struct results_doc d;
    make_doc(&d, &(struct spec){.servers = "127.0.0.1:1", .time = "3"}, 5, NULL);
    char *text = NULL;
    size_t len = 0, lines = 0;
    FILE *out = open_memstream(&text, &len);
    results_write_csv(out, &d);
    fclose(out);
    for (size_t i = 0; i < len; i++) {
        lines += text[i] == '\n';
    }
    assert_int_equal(lines, 1 + 3 * (STATS_TYPES + 1));
    assert_non_null(strstr(text, "\n3.000,set,3000,3000.0,"));
    /* period 2 of make_doc: 1000 (t + 1) events of each type t, 1000 (t + 1) + 2 bytes, no
     * get_misses (the total's misses), 2 unanswered */
    uint64_t events = 0, bytes = 0;
    for (int t = 0; t < STATS_TYPES; t++) {
        events += 1000 * (uint64_t)(t + 1);
        bytes += 1000 * (uint64_t)(t + 1) + 2;
    }
    char row[128];
    snprintf(row, sizeof(row), "\n2.000,total,%llu,%.1f,%.3f,0,2,", (unsigned long long)events,
             (double)events, (double)bytes / (1024.0 * 1024.0));
    if (strstr(text, row) == NULL) {
        fail_msg("no row %s in %s", row + 1, text);
    }
    snprintf(row, sizeof(row), "\n2.000,incr,%d,%.1f,%.3f,%d,,", 1000 * (OP_INCR + 1),
             1000.0 * (OP_INCR + 1), (1000.0 * (OP_INCR + 1) + 2) / (1024.0 * 1024.0), OP_INCR * 2);
    if (strstr(text, row) == NULL) {
        fail_msg("no row %s in %s", row + 1, text);
    }
    free(text);
    results_doc_free(&d);
}

/* d written as CSV: the text (malloc'd). */
static char *csv_of(const struct results_doc *d)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    results_write_csv(out, d);
    fclose(out);
    return text;
}

/* --ramp 1000:3000/2s: make_doc's three periods of 1 s ask 1500, 2500 and 3000 (the ramp's
 * count over each second: 1500, 2500, then 3000 held): each period's "target_rate" in the
 * JSON, read back as written, and the CSV's last column of the total rows (a header's
 * target_rate, empty cells for the other types); a run without a ramp has neither. */
static void test_ramp_target_rates(void **state)
{
    (void)state;
    static const double want[] = {1500.0, 2500.0, 3000.0};
    struct results_doc d;
    make_doc(&d,
             &(struct spec){
                 .servers = "127.0.0.1:1", .time = "3", .tps = "2333.33", .ramp = "1000:3000/2s"},
             5, NULL);
    size_t len;
    char *text = NULL, err[256] = "";
    to_json(&d, &text, &len);
    struct json_value *root = NULL;
    assert_int_equal(json_parse(text, len, &root, err, sizeof(err)), SLAP_OK);
    const struct json_value *periods = json_get(root, "periods");
    assert_int_equal(periods->n, 3);
    for (size_t i = 0; i < 3; i++) {
        double rate = 0;
        assert_true(json_to_double(json_get(periods->items[i], "target_rate"), &rate));
        assert_true(fabs(rate - want[i]) < 1e-6);
    }
    json_free(root);
    struct results_doc back;
    if (results_parse(text, len, read_test_config, &back, err, sizeof(err)) != SLAP_OK) {
        fail_msg("%s", err);
    }
    const struct results_period *bp = back.periods.items;
    assert_true(fabs(results_period_target(&back, &bp[1]) - want[1]) < 1e-6);
    results_doc_free(&back);
    free(text);
    text = csv_of(&d);
    assert_non_null(strstr(text, ",p99.9_us,target_rate,late_to_send_p99_us,"));
    assert_non_null(strstr(text, ",2500.0,,\n3.000,")); /* make_doc keeps no parts */
    assert_non_null(strstr(text, ",3000.0,,\n"));
    free(text);
    results_doc_free(&d);
    make_doc(&d, &(struct spec){.servers = "127.0.0.1:1", .time = "3", .tps = "900"}, 5, NULL);
    to_json(&d, &text, &len);
    assert_null(strstr(text, "target_rate"));
    free(text);
    text = csv_of(&d);
    assert_null(strstr(text, "target_rate"));
    free(text);
    results_doc_free(&d);
}

/*
 * An open loop's CSV rows end with the P99 of each latency part of the row's type (slap late
 * to send, held by the server), as the period kept them: 100 gets late by 2 ms (the rest
 * never), held 5 ms for the slowest 2 and 0.1 ms for the rest; the total row the same (gets
 * only). A period read back from the JSON keeps no parts: empty cells. A closed loop has no
 * such columns.
 */
static void test_csv_latency_parts(void **state)
{
    (void)state;
    struct results_doc d;
    struct slap_stats s;
    struct stats_shape shape = {.types = op_bit(OP_GET) | op_bit(OP_SET), .open_loop = true};
    make_doc(&d, &(struct spec){.servers = "127.0.0.1:1", .time = "3", .tps = "900"}, 5, NULL);
    results_drop_periods(&d);
    assert_int_equal(stats_init(&s, &shape), SLAP_OK);
    for (int i = 0; i < 1000; i++) {
        uint64_t late = i < 100 ? 2000000 : 0, held = i >= 998 ? 5000000 : 100000;
        hist_record(s.lat[OP_GET], late + held + 50000);
        hist_record(s.late[OP_GET], late);
        hist_record(s.held[OP_GET], held);
    }
    s.counters.cmd_get = 1000;
    assert_int_equal(results_add_period(&d, 1.0, 1.0, &s), SLAP_OK);
    stats_reset(d.global); /* the run is that period */
    stats_merge(d.global, &s);
    char *text = csv_of(&d);
    size_t len;
    assert_non_null(strstr(text, ",p99.9_us,late_to_send_p99_us,held_by_server_p99_us\n"));
    const char *get = strstr(text, "\n1.000,get,1000,"), *total = strstr(text, "\n1.000,total,");
    assert_non_null(get);
    assert_non_null(total);
    for (const char *row = get; row != NULL; row = row == get ? total : NULL) {
        const char *end = strchr(row + 1, '\n');
        const char *last = end - 1;
        int commas = 0;
        while (last > row && commas < 2) {
            commas += *--last == ',';
        }
        double late_us = 0, held_us = 0;
        assert_int_equal(sscanf(last, ",%lf,%lf", &late_us, &held_us), 2);
        assert_true(fabs(late_us - 2000.0) < 2000.0 * 0.01); /* within a bucket */
        assert_true(fabs(held_us - 100.0) < 100.0 * 0.01);
    }
    free(text);
    /* read back: no parts kept */
    to_json(&d, &text, &len);
    struct results_doc back;
    char err[256] = "";
    if (results_parse(text, len, read_test_config, &back, err, sizeof(err)) != SLAP_OK) {
        fail_msg("%s", err);
    }
    free(text);
    text = csv_of(&back);
    assert_non_null(strstr(text, ",late_to_send_p99_us,held_by_server_p99_us\n"));
    assert_non_null(strstr(text, ",,\n"));
    free(text);
    results_doc_free(&back);
    stats_free(&s);
    results_doc_free(&d);
    /* a closed loop: no such columns */
    make_doc(&d, &(struct spec){.servers = "127.0.0.1:1", .time = "3"}, 5, NULL);
    text = csv_of(&d);
    assert_null(strstr(text, "late_to_send"));
    free(text);
    results_doc_free(&d);
}

/* The text report's --ramp table: a row per period, its start, the ramp's target over it and
 * the requests a second it achieved; nothing without a ramp. */
static void test_ramp_table(void **state)
{
    (void)state;
    struct results_doc d;
    char *text = NULL;
    size_t len = 0;
    make_doc(&d,
             &(struct spec){
                 .servers = "127.0.0.1:1", .time = "3", .tps = "2333.33", .ramp = "1000:3000/2s"},
             5, NULL);
    struct results_period *p = d.periods.items;
    for (size_t i = 0; i < 3; i++) { /* requests answered: 1490, 2510, 2990 */
        p[i].counters.unanswered = p[i].counters.unsent = 0;
        p[i].counters.requests_sent = (uint64_t[]){1490, 2510, 2990}[i];
    }
    FILE *out = open_memstream(&text, &len);
    assert_int_equal(report_ramp(out, &d, true), SLAP_OK);
    fclose(out);
    assert_non_null(strstr(text, "\nStart(s)   Target(ops/s)  Achieved(ops/s) P50(us)"));
    for (size_t i = 0; i < 3; i++) {
        char row[96];
        snprintf(row, sizeof(row), "\n%-10.3f %-14.0f %-15.0f ", (double)i,
                 (double[]){1500, 2500, 3000}[i], (double[]){1490, 2510, 2990}[i]);
        if (strstr(text, row) == NULL) {
            fail_msg("no row '%s' in %s", row + 1, text);
        }
    }
    free(text);
    results_doc_free(&d);
    make_doc(&d, &(struct spec){.servers = "127.0.0.1:1", .time = "3", .tps = "900"}, 5, NULL);
    out = open_memstream(&text, &len);
    assert_int_equal(report_ramp(out, &d, true), SLAP_OK);
    fclose(out);
    assert_int_equal(len, 0);
    free(text);
    results_doc_free(&d);
}

/* A type with no events (empty sparse histogram, min_ns 0 as an older file or a type the run
 * did not keep leaves it) adds no minimum to the total: the CSV's and JSON's total min is the
 * smallest latency of the types that had events. */
static void test_total_min_ignores_empty_types(void **state)
{
    (void)state;
    struct results_doc d;
    struct slap_stats *s = malloc(sizeof(*s));
    struct stats_shape shape = {.types = op_bit(OP_GET) | op_bit(OP_SET), .open_loop = false};
    assert_non_null(s);
    assert_int_equal(stats_init(s, &shape), SLAP_OK);
    assert_int_equal(results_doc_init(&d), SLAP_OK);
    describe(&d.desc, &(struct spec){.servers = "127.0.0.1:1", .time = "1"});
    snprintf(d.label, sizeof(d.label), "min");
    hist_record(s->lat[OP_GET], 10000);
    hist_record(s->lat[OP_SET], 12000);
    assert_int_equal(results_add_period(&d, 1.0, 1.0, s), SLAP_OK);
    struct results_sparse empty = {.count = 0, .min_ns = 0, .max_ns = 0};
    struct hist *h = malloc(sizeof(*h));
    assert_non_null(h);
    hist_reset(h);
    results_sparse_add(&((struct results_period *)d.periods.items)[0].lat[OP_GET], h);
    results_sparse_add(&empty, h);
    assert_int_equal(h->min_ns, 10000);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    results_write_csv(out, &d);
    fclose(out);
    if (strstr(text, "\n1.000,total,2,2.0,0.000,0,0,10.000,12.000,") == NULL) {
        fail_msg("the total row's min is not 10 us: %s", text);
    }
    free(text);
    free(h);
    stats_free(s);
    free(s);
    results_doc_free(&d);
}

/* Three periods halved are two (the first two joined: the second's end, their lengths, counts
 * and histograms added; the third kept), and a fourth folded into the last joins it: what
 * slap compare and slap plot do past RESULTS_KEEP_PERIODS. */
static void test_periods_halved_and_folded(void **state)
{
    (void)state;
    struct results_doc d, same;
    make_doc(&d, &(struct spec){.servers = "127.0.0.1:1", .time = "3"}, 7, NULL);
    make_doc(&same, &(struct spec){.servers = "127.0.0.1:1", .time = "3"}, 7, NULL);
    const struct results_period *was = same.periods.items;
    assert_int_equal(results_halve_periods(&d), SLAP_OK);
    assert_int_equal(d.periods.n, 2);
    const struct results_period *p = d.periods.items;
    assert_true(p[0].elapsed_s == 2.0 && p[0].seconds == 2.0);
    assert_true(p[1].elapsed_s == 3.0 && p[1].seconds == 1.0);
    assert_int_equal(p[0].counters.unanswered, 1 + 2);
    assert_int_equal(p[1].counters.unanswered, 3);
    for (int t = 0; t < STATS_TYPES; t++) {
        assert_int_equal(p[0].lat[t].count, was[0].lat[t].count + was[1].lat[t].count);
        assert_int_equal(p[0].net_bytes[t], was[0].net_bytes[t] + was[1].net_bytes[t]);
        assert_int_equal(p[0].lat[t].max_ns, was[1].lat[t].max_ns > was[0].lat[t].max_ns
                                                 ? was[1].lat[t].max_ns
                                                 : was[0].lat[t].max_ns);
    }
    assert_int_equal(results_fold_into_last(&d, &was[2]), SLAP_OK);
    p = d.periods.items;
    assert_true(p[1].elapsed_s == 3.0 && p[1].seconds == 2.0);
    assert_int_equal(p[1].counters.unanswered, 6);
    assert_int_equal(p[1].lat[STATS_GET].count, 2 * was[2].lat[STATS_GET].count);
    results_doc_free(&d);
    results_doc_free(&same);
}

/* A document holding the runs of hosts[i] with pids[i] (n of them; start 1000 ms). */
static void doc_of_runs(struct results_doc *d, const char *const *hosts, const unsigned *pids,
                        size_t n)
{
    assert_int_equal(results_doc_init(d), SLAP_OK);
    for (size_t i = 0; i < n; i++) {
        struct results_run_id id = {.pid = pids[i], .start_ms = 1000};
        snprintf(id.host, sizeof(id.host), "%s", hosts[i]);
        assert_int_equal(results_add_run(d, &id), SLAP_OK);
    }
}

/* The same run in two inputs is found as a scan of every pair in order finds it: the first
 * input that shares a run, the first input after it holding one of its runs, and the first of
 * its runs that one holds; a run given twice in one input is no pair. */
static void test_shared_run_first_pair(void **state)
{
    (void)state;
    static const char *const hosts[][3] = {
        {"x", "y", "z"}, {"x", "y", "y"}, {"q", "z", "x"}, {"x", "x", "x"}, {"z", "y"}};
    static const unsigned pids[][3] = {{1, 2, 3}, {4, 5, 2}, {9, 3, 4}, {7, 8, 7}, {3, 2}};
    static const size_t runs[] = {3, 3, 3, 3, 2};
    static const struct {
        size_t order[3], n;
        bool found;
        size_t a, b;
        unsigned pid;
    } cases[] = {
        {{0, 1, 2}, 3, true, 0, 1, 2},  /* A and B share y/2 (A and C z/3 comes later) */
        {{1, 2, 0}, 3, true, 0, 1, 4},  /* B and C share x/4 */
        {{2, 0, 1}, 3, true, 0, 1, 3},  /* C and A share z/3 */
        {{0, 4, 0}, 2, true, 0, 1, 2},  /* A and E share z/3 and y/2: A's first, y/2 */
        {{3, 4, 0}, 2, false, 0, 0, 0}, /* D holds x/7 twice: within one input */
    };
    struct results_doc docs[5];
    for (size_t i = 0; i < 5; i++) {
        doc_of_runs(&docs[i], hosts[i], pids[i], runs[i]);
    }
    for (size_t c = 0; c < SLAP_ARRAY_SIZE(cases); c++) {
        struct results_merge_input in[3];
        struct results_shared_run same;
        memset(in, 0, sizeof(in));
        for (size_t i = 0; i < cases[c].n; i++) {
            in[i].doc = &docs[cases[c].order[i]];
        }
        assert_int_equal(results_merge_shared_run(in, cases[c].n, &same), SLAP_OK);
        assert_int_equal(same.found, cases[c].found);
        if (same.found) {
            assert_int_equal(same.a, cases[c].a);
            assert_int_equal(same.b, cases[c].b);
            assert_int_equal(same.run.pid, cases[c].pid);
        }
    }
    for (size_t i = 0; i < 5; i++) {
        results_doc_free(&docs[i]);
    }
}

/* Every sink has its row whole, under an option of its own (a row left out of the table is
 * all zeros: slap merge crashed on it). */
static void test_every_sink_filled(void **state)
{
    (void)state;
    for (size_t i = 0; i < RESULTS_SINKS; i++) {
        assert_non_null(results_sinks[i].option);
        assert_non_null(results_sinks[i].save);
        assert_int_equal(strncmp(results_sinks[i].option, "--", 2), 0);
        for (size_t j = 0; j < i; j++) {
            assert_string_not_equal(results_sinks[i].option, results_sinks[j].option);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_sink_filled),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_round_trip_every_object),
        cmocka_unit_test(test_partial_proxy_read_back),
        cmocka_unit_test(test_merge_is_exact),
        cmocka_unit_test(test_merge_refuses_other_workloads),
        cmocka_unit_test(test_refuses_bad_documents),
        cmocka_unit_test(test_schema_1_lacks_younger_counters),
        cmocka_unit_test(test_refuses_corrupt_numbers),
        cmocka_unit_test(test_merge_refuses_overflowing_sums),
        cmocka_unit_test(test_csv_rows),
        cmocka_unit_test(test_ramp_target_rates),
        cmocka_unit_test(test_csv_latency_parts),
        cmocka_unit_test(test_ramp_table),
        cmocka_unit_test(test_total_min_ignores_empty_types),
        cmocka_unit_test(test_periods_halved_and_folded),
        cmocka_unit_test(test_shared_run_first_pair),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
