/* Unit tests of slap compare's figures: --fail-if thresholds, the table, its refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/rng.h"
#include "slap/output/compare.h"

#define PERIODS 20
#define PER_PERIOD 2000

/* ---- --fail-if ------------------------------------------------------------------------ */

static void parses_relative_percentile(void **state)
{
    (void)state;
    struct compare_threshold th;
    char err[256];
    assert_int_equal(compare_threshold_parse("p99>+5%", &th, err, sizeof(err)), SLAP_OK);
    assert_false(th.tps);
    assert_true(th.pct == 99.0);
    assert_true(th.above);
    assert_true(th.relative);
    assert_true(fabs(th.amount - 0.05) < 1e-12);
    assert_int_equal(compare_threshold_parse("p99.9<-10%", &th, err, sizeof(err)), SLAP_OK);
    assert_true(th.pct == 99.9);
    assert_false(th.above);
    assert_true(fabs(th.amount + 0.10) < 1e-12);
}

static void parses_absolute_amounts(void **state)
{
    (void)state;
    struct compare_threshold th;
    char err[256];
    assert_int_equal(compare_threshold_parse("p50>+200us", &th, err, sizeof(err)), SLAP_OK);
    assert_false(th.relative);
    assert_true(th.amount == 200000.0);
    assert_int_equal(compare_threshold_parse("p90<-1ms", &th, err, sizeof(err)), SLAP_OK);
    assert_true(th.amount == -1000000.0);
    assert_int_equal(compare_threshold_parse("tps<-5000", &th, err, sizeof(err)), SLAP_OK);
    assert_true(th.tps);
    assert_false(th.above);
    assert_true(th.amount == -5000.0);
    assert_int_equal(compare_threshold_parse("tps<-5%", &th, err, sizeof(err)), SLAP_OK);
    assert_true(th.relative);
}

static void refuses_bad_thresholds(void **state)
{
    (void)state;
    static const char *const bad[] = {"p99>5%",  "p99",      "p100>+1%", "p0>+1%", "q99>+1%",
                                      "p99>+5",  "p99=+5%",  "tps>+5us", "p99>+",  ">+5%",
                                      "p99>+5x", "p99>+5%%", "pxx>+1%"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct compare_threshold th;
        char err[256] = "";
        assert_int_equal(compare_threshold_parse(bad[i], &th, err, sizeof(err)), SLAP_ERROR);
        assert_non_null(strstr(err, bad[i]));
    }
}

/* ---- the table ------------------------------------------------------------------------ */

static struct slap_stats scratch;

/* Exponential latencies of mean mean_ns, in ns. */
static uint64_t draw(struct rng *r, double mean_ns)
{
    double u = ((double)(rng_next(r) >> 11) + 1.0) / 9007199254740992.0;
    return (uint64_t)(-mean_ns * log(u)) + 1000;
}

/* A run of PERIODS one-second periods (or rounds), gets of mean mean_ns, at rate ops/s. */
static void build_doc(struct results_doc *d, double mean_ns, uint64_t seed, bool rounds,
                      const char *key_size)
{
    struct rng r = {.state = seed};
    assert_int_equal(results_doc_init(d), SLAP_OK);
    d->desc.npercentiles = 2;
    d->desc.percentiles[0] = 50;
    d->desc.percentiles[1] = 99;
    assert_int_equal(run_config_add(&d->desc.config, "key_size", RUN_CONFIG_TEXT,
                                    RUN_CONFIG_WORKLOAD, key_size),
                     SLAP_OK);
    snprintf(d->label, sizeof(d->label), "run%llu", (unsigned long long)seed);
    d->period_s = 1.0;
    d->seconds = PERIODS;
    for (int i = 0; i < PERIODS; i++) {
        stats_reset(&scratch);
        for (int j = 0; j < PER_PERIOD; j++) {
            hist_record(scratch.lat[OP_GET], draw(&r, mean_ns));
        }
        scratch.counters.cmd_get = PER_PERIOD + (uint64_t)(rng_next(&r) % 100);
        d->global->counters.cmd_get += scratch.counters.cmd_get;
        stats_merge(d->global, &scratch);
        if (rounds) {
            assert_int_equal(results_add_to_round(d, (size_t)i, i + 1.0, 1.0, &scratch), SLAP_OK);
        } else {
            assert_int_equal(results_add_period(d, i + 1.0, 1.0, &scratch), SLAP_OK);
        }
    }
}

static int setup(void **state)
{
    (void)state;
    return stats_init(&scratch, &stats_shape_all) == SLAP_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    stats_free(&scratch);
    return 0;
}

static struct compare_table table;

static void build_two(double mean_a, double mean_b, uint64_t seed_b, bool rounds_b)
{
    struct results_doc a, b;
    const struct results_doc *docs[2] = {&a, &b};
    const char *names[2] = {"a.json", "b.json"};
    char err[256];
    build_doc(&a, mean_a, 1, false, "64");
    build_doc(&b, mean_b, seed_b, rounds_b, "64");
    assert_int_equal(compare_build(&table, docs, names, 2, err, sizeof(err)), SLAP_OK);
    results_doc_free(&a);
    results_doc_free(&b);
}

static void slower_run_is_significant(void **state)
{
    (void)state;
    struct compare_threshold th;
    char err[256];
    size_t row, run;
    build_two(100000, 200000, 2, false);
    assert_int_equal(table.nrows, 3); /* tps, p50, p99 */
    assert_string_equal(table.rows[1].name, "p50");
    assert_true(table.rows[1].diff[1].significant);
    assert_true(table.rows[2].diff[1].significant);
    assert_true(table.rows[1].diff[1].relative > 0.8 && table.rows[1].diff[1].relative < 1.2);
    assert_false(table.rows[0].diff[1].significant); /* the same rate */
    assert_int_equal(compare_threshold_parse("p99>+50%", &th, err, sizeof(err)), SLAP_OK);
    assert_true(compare_crosses(&table, &th, COMPARE_LEVEL, &row, &run));
    assert_int_equal(row, 2);
    assert_int_equal(run, 1);
    assert_int_equal(compare_threshold_parse("p99>+150%", &th, err, sizeof(err)), SLAP_OK);
    assert_false(compare_crosses(&table, &th, COMPARE_LEVEL, &row, &run)); /* significant, not that far */
    assert_int_equal(compare_threshold_parse("p99<-5%", &th, err, sizeof(err)), SLAP_OK);
    assert_false(compare_crosses(&table, &th, COMPARE_LEVEL, &row, &run)); /* the other way */
    assert_int_equal(compare_threshold_parse("p50>+50us", &th, err, sizeof(err)), SLAP_OK);
    assert_true(compare_crosses(&table, &th, COMPARE_LEVEL, &row, &run));
    assert_int_equal(compare_threshold_parse("p90>+1%", &th, err, sizeof(err)), SLAP_OK);
    assert_false(compare_crosses(&table, &th, COMPARE_LEVEL, &row, &run)); /* not in the table */
}

static void same_distribution_is_not_significant(void **state)
{
    (void)state;
    struct compare_threshold th;
    char err[256];
    size_t row, run;
    build_two(100000, 100000, 3, false);
    for (size_t r = 0; r < table.nrows; r++) {
        assert_true(table.rows[r].diff[1].estimable);
        assert_false(table.rows[r].diff[1].significant);
    }
    assert_int_equal(compare_threshold_parse("p99>+0%", &th, err, sizeof(err)), SLAP_OK);
    assert_false(compare_crosses(&table, &th, COMPARE_LEVEL, &row, &run));
}

/* Several thresholds or runs share the 5% chance of a false failure (Bonferroni): a
 * difference 2.2 standard errors from 0 fails one threshold at 95%, not six at 99.17%. */
static void several_thresholds_share_the_level(void **state)
{
    (void)state;
    struct compare_threshold th;
    char err[256];
    size_t row, run;
    build_two(100000, 100000, 3, false);
    assert_true(compare_gate_level(&table, 1) == COMPARE_LEVEL);
    assert_true(fabs(compare_gate_level(&table, 6) - (1.0 - 0.05 / 6)) < 1e-12);
    table.nruns = 3;
    assert_true(fabs(compare_gate_level(&table, 2) - (1.0 - 0.05 / 4)) < 1e-12);
    table.nruns = 2;
    struct ci_difference *d = &table.rows[2].diff[1];
    *d = (struct ci_difference){.estimable = true, .diff_ns = 2200, .se_ns = 1000, .df = 0,
                                .relative = 0.5, .significant = true};
    assert_int_equal(compare_threshold_parse("p99>+10%", &th, err, sizeof(err)), SLAP_OK);
    assert_true(compare_crosses(&table, &th, compare_gate_level(&table, 1), &row, &run));
    assert_false(compare_crosses(&table, &th, compare_gate_level(&table, 6), &row, &run));
    d->df = 3; /* t with 3 degrees of freedom needs 3.18 at 95% */
    assert_false(compare_crosses(&table, &th, COMPARE_LEVEL, &row, &run));
}

static void rounds_are_the_batches(void **state)
{
    (void)state;
    build_two(100000, 300000, 4, true);
    assert_false(table.runs[0].rounds);
    assert_true(table.runs[1].rounds);
    assert_int_equal(table.runs[1].batches, PERIODS);
    assert_int_equal(table.rows[1].run[1].batches, PERIODS);
    assert_true(table.rows[1].diff[1].significant);
    assert_true(table.rows[0].run[1].estimable);
}

static void refuses_different_workloads(void **state)
{
    (void)state;
    struct results_doc a, b;
    const struct results_doc *docs[2] = {&a, &b};
    const char *names[2] = {"a.json", "b.json"};
    char err[256] = "";
    build_doc(&a, 100000, 1, false, "64");
    build_doc(&b, 100000, 2, false, "128");
    assert_int_equal(compare_build(&table, docs, names, 2, err, sizeof(err)), SLAP_ERROR);
    assert_non_null(strstr(err, "the workloads differ: --key_size is 64"));
    b.sweep = true;
    assert_int_equal(compare_build(&table, docs, names, 2, err, sizeof(err)), SLAP_ERROR);
    assert_non_null(strstr(err, "sweep"));
    assert_int_equal(compare_build(&table, docs, names, 1, err, sizeof(err)), SLAP_ERROR);
    results_doc_free(&a);
    results_doc_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_relative_percentile),
        cmocka_unit_test(parses_absolute_amounts),
        cmocka_unit_test(refuses_bad_thresholds),
        cmocka_unit_test(slower_run_is_significant),
        cmocka_unit_test(same_distribution_is_not_significant),
        cmocka_unit_test(several_thresholds_share_the_level),
        cmocka_unit_test(rounds_are_the_batches),
        cmocka_unit_test(refuses_different_workloads),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
