/* Unit tests of plan: the periods a run is planned with (-S's, or the fine ones the outputs
 * keep), so that no caller sets them on the run after the plan; every option reaches what a
 * run is planned or described with. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <stdio.h>
#include <string.h>

#include "slap/base/common.h"

#include "option_samples.h"
#include "slap/options/plan.h"
#include "slap/options/plan_output.h"
#include "slap/output/report.h"

#define MAX_ARGS 32

/* o from a command line given as one string of words. */
static void parse_options(struct slap_options *o, const char *line)
{
    char words[512];
    char *argv[MAX_ARGS] = {"slap"};
    int argc = 1;
    snprintf(words, sizeof(words), "%s", line);
    for (char *w = strtok(words, " "); w != NULL && argc < MAX_ARGS; w = strtok(NULL, " ")) {
        argv[argc++] = w;
    }
    FILE *devnull = fopen("/dev/null", "w");
    assert_int_equal(options_parse(o, argc, argv, devnull, devnull), OPTIONS_RUN);
    fclose(devnull);
}

/* Without -S: no periods asked, or the fine ones when the outputs keep them. */
static void test_periods_without_stat_freq(void **state)
{
    struct slap_options o;
    struct run_plan p;
    (void)state;
    parse_options(&o, "-s 127.0.0.1:11211 -t 1s");
    plan_run(&p, &o, PLAN_PERIODS_ASKED);
    assert_int_equal(p.period_ns, 0);
    assert_false(p.silent_preload);
    plan_run(&p, &o, PLAN_PERIODS_FINE);
    assert_int_equal(p.period_ns, PLAN_FINE_PERIOD_NS);
    assert_int_equal(PLAN_FINE_PERIOD_NS, SLAP_NS_PER_SEC / 10);
}

/* -S decides whatever the outputs keep. */
static void test_periods_of_stat_freq(void **state)
{
    struct slap_options o;
    struct run_plan p;
    (void)state;
    parse_options(&o, "-s 127.0.0.1:11211 -t 4s -S 2s");
    plan_run(&p, &o, PLAN_PERIODS_ASKED);
    assert_int_equal(p.period_ns, 2 * SLAP_NS_PER_SEC);
    plan_run(&p, &o, PLAN_PERIODS_FINE);
    assert_int_equal(p.period_ns, 2 * SLAP_NS_PER_SEC);
}

/* A sweep's step (no periods of its own) has the fine ones; a search's step has its own. */
static void test_step_periods(void **state)
{
    struct slap_options o, step;
    struct run_plan p;
    (void)state;
    parse_options(&o, "-s 127.0.0.1:11211 -t 1s");
    plan_step(&p, &step, &o, 1000, 5 * SLAP_NS_PER_SEC, 0, true);
    assert_int_equal(p.period_ns, PLAN_FINE_PERIOD_NS);
    plan_step(&p, &step, &o, 1000, 5 * SLAP_NS_PER_SEC, 300 * SLAP_NS_PER_MS, false);
    assert_int_equal(p.period_ns, 300 * SLAP_NS_PER_MS);
}

/* --share I/N: the N parts of -x add up to it and differ by one at most; the rate is 1/N; the
 * keys of part I begin (I - 1) x -c client ids along; without --share, the whole. */
static void test_share_parts(void **state)
{
    struct slap_options o;
    struct run_plan p;
    char line[128];
    (void)state;
    static const uint64_t counts[] = {0, 1, 2, 7, 10, 1000, 1001, 999999};
    for (uint32_t n = 1; n <= 7; n++) {
        for (size_t k = 0; k < SLAP_ARRAY_SIZE(counts); k++) {
            uint64_t sum = 0, lo = UINT64_MAX, hi = 0;
            for (uint32_t i = 1; i <= n; i++) {
                snprintf(line, sizeof(line), "-s 127.0.0.1:11211 --share %u/%u", i, n);
                parse_options(&o, line);
                uint64_t part = plan_share_count(&o, counts[k]);
                sum += part;
                lo = part < lo ? part : lo;
                hi = part > hi ? part : hi;
                assert_true(plan_share_rate(&o, 3000.0) * n > 2999.999 &&
                            plan_share_rate(&o, 3000.0) * n < 3000.001);
            }
            assert_int_equal(sum, counts[k]);
            assert_true(hi - lo <= 1);
        }
    }
    parse_options(&o, "-s 127.0.0.1:11211 -c 5 -x 10 -P 900 --share 3/4,keys");
    plan_run(&p, &o, PLAN_PERIODS_ASKED);
    assert_int_equal(p.engine.lane.key_id_base, 10);
    assert_int_equal(p.engine.lane.execute_number, 2);
    assert_true(p.engine.lane.tps > 224.999 && p.engine.lane.tps < 225.001);
    parse_options(&o, "-s 127.0.0.1:11211 -c 5 -x 10 -P 900 --share 3/4");
    plan_run(&p, &o, PLAN_PERIODS_ASKED);
    assert_int_equal(p.engine.lane.key_id_base, 0);
    /* --key_min, --key_max: with ,keys host I takes the I-th part of the range, else all of it */
    parse_options(&o, "-s 127.0.0.1:11211 --key_min 100 --key_max 198 --share 3/4,keys");
    plan_run(&p, &o, PLAN_PERIODS_ASKED);
    assert_int_equal(p.workload.key_min, 100 + 49);
    assert_int_equal(p.workload.key_count, 74 - 49);
    parse_options(&o, "-s 127.0.0.1:11211 --key_min 100 --key_max 198 --share 4/4,keys");
    plan_run(&p, &o, PLAN_PERIODS_ASKED);
    assert_int_equal(p.workload.key_min + p.workload.key_count, 199);
    parse_options(&o, "-s 127.0.0.1:11211 --key_max 198 --share 3/4");
    plan_run(&p, &o, PLAN_PERIODS_ASKED);
    assert_int_equal(p.workload.key_min, 0);
    assert_int_equal(p.workload.key_count, 199);
    parse_options(&o, "-s 127.0.0.1:11211 -x 10 -P 900");
    plan_run(&p, &o, PLAN_PERIODS_ASKED);
    assert_int_equal(p.workload.key_count, 0); /* no bounds: windows */
    assert_int_equal(plan_share_count(&o, 10), 10);
    assert_true(plan_share_rate(&o, 900.0) == 900.0);
    /* --ramp: each part ramps 1/N of both rates; the open loop's target is its mean over -t
     * (1000 to 3000 over 10 s, then 3000 for 10 s: 2500 a second, 1250 a part of 2) */
    parse_options(&o, "-s 127.0.0.1:11211 --ramp=1k:3k/10s -t 20s --share 2/2");
    plan_run(&p, &o, PLAN_PERIODS_ASKED);
    assert_true(p.engine.ramp.from == 500.0 && p.engine.ramp.to == 1500.0);
    assert_int_equal(p.engine.ramp.duration_ns, 10 * SLAP_NS_PER_SEC);
    assert_true(p.engine.lane.tps > 1249.999 && p.engine.lane.tps < 1250.001);
    assert_int_equal(p.engine.run_time_ns, 20 * SLAP_NS_PER_SEC);
}

/* ---- every option reaches what a run is planned or described with ---------------------- */

/*
 * A field of a plan or of the description: compared by its bytes (a number, an enum, or an
 * array of them, none with padding inside) or, for a string, by its text.
 *
 * Why field by field and not memcmp of the whole structs: their padding holds unspecified
 * bytes (C11 6.2.6.1: a struct assigned, as plan_run assigns them, need not copy it), their
 * strings point into different command lines (and label into each options' own host_label),
 * and the engine's pointers are set by run_init, not by the plan. A field left out of these
 * lists can only make an option seem to reach nothing, and the test then fails: it cannot
 * hide a missed copy. A field added to a plan needs its line here when an option reaches it.
 */
struct field {
    const char *name;
    size_t offset;
    size_t size;
    bool text;
    size_t align;
};

#define BYTES(type, f)                                                                             \
    {                                                                                              \
#f, offsetof(type, f), sizeof(((type *)0)->f), false, __alignof__(((type *)0)->f)          \
    }
#define TEXT(type, f)                                                                              \
    {                                                                                              \
#f,                                                                                           \
     _Generic(((type *)0)->f, const char *: offsetof(type, f), char *: offsetof(type, f)),         \
     sizeof(char *), true, __alignof__(char *)    \
    }
#define PLAN(f) BYTES(struct run_plan, f)
#define PLAN_TEXT(f) TEXT(struct run_plan, f)
#define DESC(f) BYTES(struct run_desc, f)
#define DESC_TEXT(f) TEXT(struct run_desc, f)

/* What plan_run sets (run_init sets the engine's pointers). */
static const struct field plan_fields[] = {
    PLAN_TEXT(servers),
    PLAN_TEXT(stats_servers),
    PLAN_TEXT(proxy_stats),
    PLAN(distribution),
    PLAN(hash),
    PLAN(threads),
    PLAN(flush),
    PLAN(tls),
    PLAN_TEXT(tls_settings.ca),
    PLAN_TEXT(tls_settings.cert),
    PLAN_TEXT(tls_settings.key),
    PLAN(tls_settings.skip_verify),
    PLAN(tls_settings.version),
    PLAN(auth),
    PLAN(workload.key_size),
    PLAN(workload.value_size),
    PLAN(workload.key_sizes.n),
    PLAN(workload.key_sizes.r),
    PLAN(workload.value_sizes.n),
    PLAN(workload.value_sizes.r),
    PLAN(workload.win_size),
    PLAN(workload.mix),
    PLAN(workload.overwrite),
    PLAN(workload.verify),
    PLAN(workload.exp_verify),
    PLAN(workload.exp_time_ns),
    PLAN(workload.division),
    PLAN(workload.rep_write),
    PLAN(workload.trace),
    PLAN(workload.key_pop.kind),
    PLAN(workload.key_pop.s),
    PLAN(workload.key_pattern.s),
    PLAN(workload.key_pattern.ops),
    PLAN(workload.key_pattern.kind),
    PLAN(workload.key_pattern.n),
    PLAN(workload.key_min),
    PLAN(workload.key_count),
    PLAN(workload.trace_value_max),
    PLAN_TEXT(trace.path),
    PLAN(trace.skip_bad),
    PLAN(trace.limit),
    PLAN(trace.value_max),
    PLAN(trace_spread),
    PLAN(engine.lane.execute_number),
    PLAN(engine.lane.tps),
    PLAN(engine.lane.trace_speed),
    PLAN(engine.lane.concurrency),
    PLAN(engine.lane.conns_per_client),
    PLAN(engine.lane.pipeline),
    PLAN(engine.lane.rep_write),
    PLAN(engine.lane.trace),
    PLAN(engine.lane.udp),
    PLAN(engine.lane.facebook),
    PLAN(engine.lane.reconnect),
    PLAN(engine.lane.reconnect_every),
    PLAN(engine.lane.reconnect_rate),
    PLAN(engine.lane.verify),
    PLAN(engine.lane.verbose),
    PLAN(engine.lane.multiget_window),
    PLAN(engine.lane.shared_keys),
    PLAN(engine.lane.key_id_base),
    PLAN(engine.lane.windows_stored),
    PLAN(engine.lane.preload),
    PLAN(engine.lane.meta),
    PLAN(engine.protocol),
    PLAN(engine.arrival),
    PLAN(engine.ramp),
    PLAN(engine.timestamps),
    PLAN(engine.priority),
    PLAN(engine.run_time_ns),
    PLAN(engine.warmup_ns),
    PLAN(engine.timeout_ns),
    PLAN(engine.udp_timeout_ns),
    PLAN(engine.period_ns),
    PLAN(engine.sample_rate),
    PLAN(engine.samples),
    PLAN(engine.memslap_face),
    PLAN(engine.control),
    PLAN(period_ns),
    PLAN(start_at_ns),
    PLAN_TEXT(label),
    PLAN(quiet),
    PLAN(silent_preload),
};

/* What plan_output_describe sets but the config (which records every option as text). */
static const struct field desc_fields[] = {
    DESC_TEXT(servers),
    DESC(threads),
    DESC(concurrency),
    DESC(execute_number),
    DESC(run_time_ns),
    DESC(win_size),
    DESC(mix),
    DESC(tps),
    DESC(ramp),
    DESC(share_index),
    DESC(share_count),
    DESC(share_keys),
    DESC(probe),
    DESC(arrival),
    DESC(arrival_shape),
    DESC(pipeline),
    DESC(latency),
    DESC(warmup_ns),
    DESC(stat_freq_ns),
    DESC(npercentiles),
    DESC(percentiles),
    DESC(sweep_start),
    DESC(sweep_end),
    DESC(sweep_step),
    DESC(step_time_ns),
    DESC_TEXT(trace),
    DESC(trace_speed),
    DESC_TEXT(key_sizes),
    DESC_TEXT(value_sizes),
    DESC(division),
    DESC(verify),
    DESC(exp_verify),
    DESC(udp),
    DESC(facebook),
};

/* The fields of struct run_desc that desc_fields leaves out, and why: the config records every
 * option as text, and test_rows_round_trip (test_options) checks it. */
static const struct field desc_unlisted[] = {
    DESC(config),
};

static int by_offset(const void *a, const void *b)
{
    const struct field *fa = a, *fb = b;
    return fa->offset < fb->offset ? -1 : fa->offset > fb->offset;
}

/* desc_fields and desc_unlisted are every field of struct run_desc: laid end to end by offset,
 * each begins where the one before it ends, rounded up to its own alignment (a field added to
 * the struct and not here leaves a gap), and the last ends the struct but for its padding. Each
 * text (char *) field is one run_desc_copy copies and run_desc_free frees (RUN_DESC_TEXTS). */
static void test_desc_fields_whole(void **state)
{
    enum { N = SLAP_ARRAY_SIZE(desc_fields) + SLAP_ARRAY_SIZE(desc_unlisted) };
    struct field all[N];
    (void)state;
    memcpy(all, desc_fields, sizeof(desc_fields));
    memcpy(all + SLAP_ARRAY_SIZE(desc_fields), desc_unlisted, sizeof(desc_unlisted));
    qsort(all, N, sizeof(all[0]), by_offset);
    size_t end = 0;
    for (size_t i = 0; i < N; i++) {
        size_t align = all[i].align;
        size_t due = (end + align - 1) / align * align;
        if (all[i].offset != due) {
            fail_msg("struct run_desc: a field at %zu, between %s and %s, is in no list here "
                     "(desc_fields, desc_unlisted)",
                     end, i > 0 ? all[i - 1].name : "the start", all[i].name);
        }
        end = all[i].offset + all[i].size;
    }
    if (sizeof(struct run_desc) - end >= _Alignof(max_align_t)) {
        fail_msg("struct run_desc: a field after %s is in no list here", all[N - 1].name);
    }
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(desc_fields); i++) {
        if (!desc_fields[i].text) {
            continue;
        }
        struct run_desc src = {0}, dst;
        char **from = (char **)(void *)((char *)&src + desc_fields[i].offset);
        *from = strdup("text");
        assert_non_null(*from);
        assert_int_equal(run_desc_copy(&dst, &src), SLAP_OK);
        char **to = (char **)(void *)((char *)&dst + desc_fields[i].offset);
        if (*to == *from || *to == NULL || strcmp(*to, "text") != 0) {
            fail_msg("run_desc_copy shares or drops %s: list it in RUN_DESC_TEXTS",
                     desc_fields[i].name);
        }
        run_desc_free(&src);
        run_desc_free(&dst);
    }
}

static bool same_text(const char *a, const char *b)
{
    return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* The first of n fields in which a and b differ, or NULL. */
static const char *first_difference(const void *a, const void *b, const struct field *fields,
                                    size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *fa = (const char *)a + fields[i].offset;
        const char *fb = (const char *)b + fields[i].offset;
        bool same = fields[i].text ? same_text(*(const char *const *)(const void *)fa,
                                               *(const char *const *)(const void *)fb)
                                   : memcmp(fa, fb, fields[i].size) == 0;
        if (!same) {
            return fields[i].name;
        }
    }
    return NULL;
}

/* Do a and b make the same report header? */
static bool same_header(const struct run_desc *a, const struct run_desc *b)
{
    char ta[4096] = "", tb[4096] = "";
    FILE *fa = fmemopen(ta, sizeof(ta) - 1, "w"), *fb = fmemopen(tb, sizeof(tb) - 1, "w");
    assert_non_null(fa);
    assert_non_null(fb);
    report_header(fa, a);
    report_header(fb, b);
    fclose(fa);
    fclose(fb);
    return strcmp(ta, tb) == 0;
}

/* Where o's setting differs from base's: REACH_ flags (REACH_CLI for none of them), and in
 * where the first field found of each, for the messages. */
static unsigned reached(const struct slap_options *base, const struct slap_options *o, char *where,
                        size_t len)
{
    static struct run_plan plan_base, plan; /* large: off the stack */
    struct run_desc desc_base, desc;
    const char *paths_base[RESULTS_SINKS], *paths[RESULTS_SINKS];
    plan_run(&plan_base, base, PLAN_PERIODS_ASKED);
    plan_run(&plan, o, PLAN_PERIODS_ASKED);
    assert_int_equal(plan_output_describe(&desc_base, base), SLAP_OK);
    assert_int_equal(plan_output_describe(&desc, o), SLAP_OK);
    plan_output_paths(base, paths_base);
    plan_output_paths(o, paths);
    const char *in_plan =
        first_difference(&plan_base, &plan, plan_fields, SLAP_ARRAY_SIZE(plan_fields));
    const char *in_desc =
        first_difference(&desc_base, &desc, desc_fields, SLAP_ARRAY_SIZE(desc_fields));
    unsigned flags = (in_plan != NULL ? REACH_PLAN : 0) | (in_desc != NULL ? REACH_DESC : 0) |
                     (same_header(&desc_base, &desc) ? 0 : REACH_HEADER);
    for (size_t k = 0; k < RESULTS_SINKS; k++) {
        flags |= same_text(paths_base[k], paths[k]) ? 0 : REACH_SINK;
    }
    snprintf(where, len, "plan: %s, description: %s", in_plan ? in_plan : "-",
             in_desc ? in_desc : "-");
    run_desc_free(&desc_base);
    run_desc_free(&desc);
    return flags != 0 ? flags : REACH_CLI;
}

/* "plan, description" and so on. */
static void reach_names(unsigned flags, char *out, size_t len)
{
    static const char *const names[] = {"plan", "description", "sink's path", "cli only", "header"};
    out[0] = '\0';
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(names); i++) {
        if (flags & (1u << i)) {
            size_t used = strlen(out);
            snprintf(out + used, len - used, "%s%s", used > 0 ? ", " : "", names[i]);
        }
    }
}

/* "slap", the words, and the option when not NULL, parsed into o: taken or not. */
static bool parse_words(struct slap_options *o, const char *const *words, const char *option)
{
    char *argv[SAMPLE_WITH_MAX + 3] = {"slap"};
    int argc = 1;
    for (; words[argc - 1] != NULL; argc++) {
        argv[argc] = (char *)words[argc - 1];
    }
    argv[argc] = (char *)option;
    argc += option != NULL;
    FILE *devnull = fopen("/dev/null", "w");
    assert_non_null(devnull);
    bool taken = options_parse(o, argc, argv, devnull, devnull) == OPTIONS_RUN;
    fclose(devnull);
    return taken;
}

/* Each option's sample (option_samples.h), against its other words alone, changes exactly
 * what the sample says it reaches: a copy missed in plan.c or plan_output.c fails here. */
static void test_rows_reach_a_plan(void **state)
{
    static struct slap_options base, given; /* large: off the stack */
    (void)state;
    unsetenv("MEMCACHED_SERVERS");
    write_cfg_file(sample_file);
    for (size_t row = 0; row < options_table_size(); row++) {
        const char *name = options_table_long_name(row);
        const struct option_sample *sample = sample_of(name);
        if (sample == NULL) {
            fail_msg("--%s has no sample: add one to samples[] in option_samples.h", name);
        }
        if (sample->action) {
            continue;
        }
        char option[1100], where[256], found[64], said[64];
        snprintf(option, sizeof(option), "--%s%s%s", name, sample->value ? "=" : "",
                 sample->value ? sample->value : "");
        if (!parse_words(&base, sample->with, NULL) || !parse_words(&given, sample->with, option)) {
            fail_msg("--%s: its sample, or its other words alone, are refused", name);
        }
        unsigned flags = reached(&base, &given, where, sizeof(where));
        if (flags != sample->reaches) {
            reach_names(flags, found, sizeof(found));
            reach_names(sample->reaches, said, sizeof(said));
            fail_msg("--%s reaches %s (%s); its sample says %s (a copy missed in plan.c or "
                     "plan_output.c, or a field of theirs not in this test's lists?)",
                     name, found, where, sample->reaches != 0 ? said : "nothing: say where");
        }
        if (options_table_workload(row) && (flags & REACH_HEADER) == 0 && sample->unshown == NULL) {
            fail_msg("--%s is a workload setting the report's header does not show: show it "
                     "(report.c's report_header) or say why not (UNSHOWN in its sample)",
                     name);
        }
    }
    unlink(sample_file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_periods_without_stat_freq),
        cmocka_unit_test(test_periods_of_stat_freq),
        cmocka_unit_test(test_step_periods),
        cmocka_unit_test(test_share_parts),
        cmocka_unit_test(test_rows_reach_a_plan),
        cmocka_unit_test(test_desc_fields_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
