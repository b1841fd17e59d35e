/* Unit tests of slap compare's figures: --fail-if thresholds, the table by design, refusals. */
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
    assert_int_equal(
        run_config_add(&d->desc.config, "key_size", RUN_CONFIG_TEXT, RUN_CONFIG_WORKLOAD, key_size),
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

/* Sides of n runs each (built with seeds from seed), gets of mean mean_ns; made at times
 * apart or interleaved with the other side's. */
#define MAX_SIDE 10
static struct results_doc side_docs[2][MAX_SIDE];
static const struct results_doc *side_ptrs[2][MAX_SIDE];

static void make_side(int which, size_t n, double mean_ns, uint64_t seed, const char *key_size,
                      uint64_t start_ms, uint64_t step_ms)
{
    for (size_t k = 0; k < n; k++) {
        build_doc(&side_docs[which][k], mean_ns, seed + k, false, key_size);
        side_docs[which][k].start_ms = start_ms + k * step_ms;
        side_docs[which][k].end_ms = start_ms + k * step_ms + PERIODS * 1000;
        side_ptrs[which][k] = &side_docs[which][k];
    }
}

static void free_side(int which, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        results_doc_free(&side_docs[which][k]);
    }
}

/* Two sides of na and nb runs, the second's mean mean_b; built into table. */
static enum slap_status build_sides(size_t na, size_t nb, double mean_b, bool paired,
                                    double gate_level, const char *key_b, bool apart)
{
    char err[COMPARE_DIFFERS_MAX + 64] = "";
    make_side(0, na, 100000, 1, "64", 1000000, 50000);
    make_side(1, nb, mean_b, 101, key_b, apart ? 9000000 : 1025000, 50000);
    struct compare_side sides[2] = {{"a", side_ptrs[0], na}, {"b", side_ptrs[1], nb}};
    enum slap_status st = compare_build(&table, sides, 2, paired, gate_level, err, sizeof(err));
    free_side(0, na);
    free_side(1, nb);
    return st;
}

static void one_run_a_side_is_shown_not_judged(void **state)
{
    (void)state;
    struct compare_threshold th;
    char err[256], why[512];
    size_t row, run;
    assert_int_equal(build_sides(1, 1, 200000, false, COMPARE_LEVEL, "64", false), SLAP_OK);
    assert_int_equal(table.mode, COMPARE_WITHIN_RUN);
    assert_int_equal(table.nrows, 3); /* tps, p50, p99 */
    assert_string_equal(table.rows[1].name, "p50");
    for (size_t r = 0; r < table.nrows; r++) {
        assert_false(table.rows[r].diff[1].judged);
        assert_false(table.rows[r].diff[1].significant);
    }
    /* the interval within the runs leaves 0 out, and is still not a verdict */
    assert_true(table.rows[1].diff[1].estimable && table.rows[1].diff[1].low > 0);
    assert_true(table.rows[1].diff[1].relative > 0.8 && table.rows[1].diff[1].relative < 1.2);
    assert_int_equal(compare_threshold_parse("p99>+5%", &th, err, sizeof(err)), SLAP_OK);
    assert_non_null(compare_gate_problem(&table, &th, why, sizeof(why)));
    assert_non_null(strstr(why, "one run a side"));
    assert_false(compare_crosses(&table, &th, &row, &run));
}

static void replicates_find_a_slower_side(void **state)
{
    (void)state;
    struct compare_threshold th;
    char err[256], why[512];
    size_t row, run;
    assert_int_equal(build_sides(5, 5, 200000, false, COMPARE_LEVEL, "64", false), SLAP_OK);
    assert_int_equal(table.mode, COMPARE_REPLICATES);
    assert_int_equal(table.runs[1].replicates, 5);
    assert_true(table.rows[1].diff[1].judged && table.rows[1].diff[1].significant);
    assert_true(table.rows[2].diff[1].significant);
    assert_true(table.rows[1].diff[1].relative > 0.8 && table.rows[1].diff[1].relative < 1.2);
    assert_false(table.rows[0].diff[1].significant); /* the same rate */
    assert_true(fabs(table.rows[1].diff[1].achieved - (1.0 - 8.0 / 252.0)) < 1e-12);
    assert_false(table.apart[1]);
    assert_int_equal(compare_threshold_parse("p99>+50%", &th, err, sizeof(err)), SLAP_OK);
    assert_null(compare_gate_problem(&table, &th, why, sizeof(why)));
    assert_true(compare_crosses(&table, &th, &row, &run));
    assert_int_equal(row, 2);
    assert_int_equal(run, 1);
    assert_int_equal(compare_threshold_parse("p99>+150%", &th, err, sizeof(err)), SLAP_OK);
    assert_false(compare_crosses(&table, &th, &row, &run)); /* significant, not that far */
    assert_int_equal(compare_threshold_parse("p99<-5%", &th, err, sizeof(err)), SLAP_OK);
    assert_false(compare_crosses(&table, &th, &row, &run)); /* the other way */
    assert_int_equal(compare_threshold_parse("p50>+50us", &th, err, sizeof(err)), SLAP_OK);
    assert_true(compare_crosses(&table, &th, &row, &run));
    /* a figure the runs lack cannot be judged: it is named */
    assert_int_equal(compare_threshold_parse("p95>+1%", &th, err, sizeof(err)), SLAP_OK);
    assert_int_equal(compare_row_of(&table, &th), -1);
    assert_non_null(compare_gate_problem(&table, &th, why, sizeof(why)));
    assert_non_null(strstr(why, "p95 is not a figure of every run"));
}

static void replicates_of_one_distribution_are_not_significant(void **state)
{
    (void)state;
    assert_int_equal(build_sides(5, 5, 100000, false, COMPARE_LEVEL, "64", false), SLAP_OK);
    for (size_t r = 0; r < table.nrows; r++) {
        assert_true(table.rows[r].diff[1].estimable);
        assert_false(table.rows[r].diff[1].significant);
    }
}

static void too_few_replicates_cannot_tell(void **state)
{
    (void)state;
    struct compare_threshold th;
    char err[256], why[512];
    assert_int_equal(build_sides(3, 3, 300000, false, COMPARE_LEVEL, "64", false), SLAP_OK);
    assert_false(table.rows[1].diff[1].estimable);
    assert_false(table.rows[1].diff[1].significant);
    assert_int_equal(table.rows[1].diff[1].needed, 4);
    assert_int_equal(compare_threshold_parse("p50>+5%", &th, err, sizeof(err)), SLAP_OK);
    assert_non_null(compare_gate_problem(&table, &th, why, sizeof(why)));
    assert_non_null(strstr(why, "needs 4 runs a side"));
}

static void paired_rounds_find_a_slower_side(void **state)
{
    (void)state;
    assert_int_equal(build_sides(8, 8, 150000, true, COMPARE_LEVEL, "64", false), SLAP_OK);
    assert_int_equal(table.mode, COMPARE_PAIRED);
    assert_true(table.rows[1].diff[1].significant && table.rows[1].diff[1].low > 0);
    /* eight pairs: 5 of the 256 sign patterns have a rank sum of 3 or less (Wilcoxon's
     * critical value 3), so the interval is at 1 - 10/256 */
    assert_true(fabs(table.rows[1].diff[1].achieved - (1.0 - 10.0 / 256.0)) < 1e-12);
    assert_int_equal(build_sides(8, 8, 100000, true, COMPARE_LEVEL, "64", false), SLAP_OK);
    assert_false(table.rows[1].diff[1].significant);
    /* a paired table needs as many rounds a side */
    char err[256];
    make_side(0, 3, 100000, 1, "64", 0, 0);
    make_side(1, 2, 100000, 5, "64", 0, 0);
    struct compare_side sides[2] = {{"a", side_ptrs[0], 3}, {"b", side_ptrs[1], 2}};
    assert_int_equal(compare_build(&table, sides, 2, true, COMPARE_LEVEL, err, sizeof(err)),
                     SLAP_ERROR);
    free_side(0, 3);
    free_side(1, 2);
}

/* Several thresholds or sides share the 5% chance of a false failure (Bonferroni); the gate's
 * level asks for more runs. */
static void several_thresholds_share_the_level(void **state)
{
    (void)state;
    struct compare_threshold th;
    char err[256], why[512];
    size_t row, run;
    assert_true(compare_gate_level(2, 1) == COMPARE_LEVEL);
    assert_true(fabs(compare_gate_level(2, 6) - (1.0 - 0.05 / 6)) < 1e-12);
    assert_true(fabs(compare_gate_level(3, 2) - (1.0 - 0.05 / 4)) < 1e-12);
    /* 98.75% (four thresholds): five a side reach it (1/252), four do not (1/70) */
    assert_int_equal(build_sides(5, 5, 200000, false, compare_gate_level(2, 4), "64", false),
                     SLAP_OK);
    assert_int_equal(compare_threshold_parse("p99>+50%", &th, err, sizeof(err)), SLAP_OK);
    assert_null(compare_gate_problem(&table, &th, why, sizeof(why)));
    assert_true(compare_crosses(&table, &th, &row, &run));
    assert_int_equal(build_sides(4, 4, 200000, false, compare_gate_level(2, 4), "64", false),
                     SLAP_OK);
    assert_true(table.rows[2].diff[1].significant); /* at 95% */
    assert_non_null(compare_gate_problem(&table, &th, why, sizeof(why)));
    assert_non_null(strstr(why, "98.75%: that needs 5 runs a side, not 4"));
    assert_false(compare_crosses(&table, &th, &row, &run));
}

/* The table as text, into buf. */
static void printed(char *buf, size_t len)
{
    FILE *f = fmemopen(buf, len, "w");
    assert_non_null(f);
    compare_print(f, &table);
    fclose(f);
}

/* The row of a figure in the printed table. */
static const char *row_line(const char *text, const char *figure, char *line, size_t len)
{
    char head[32];
    snprintf(head, sizeof(head), "\n%-8s ", figure);
    const char *at = strstr(text, head);
    assert_non_null(at);
    const char *end = strchr(at + 1, '\n');
    size_t n = end != NULL ? (size_t)(end - at - 1) : strlen(at + 1);
    snprintf(line, len, "%.*s", (int)n, at + 1);
    return line;
}

/*
 * A figure where nothing was found says "cannot tell" with what could have been found and
 * the rounds the change estimated needs; one without an estimate shows no B - A; five figures
 * at 95% each name the chance of a yes among them; a median of the differences pointing the
 * other way from the pooled values is explained; a short round is named.
 */
static void what_could_have_been_found(void **state)
{
    (void)state;
    static char text[16384];
    char line[256];
    assert_int_equal(build_sides(8, 8, 100000, true, COMPARE_LEVEL, "64", false), SLAP_OK);
    const struct compare_diff *d = &table.rows[1].diff[1];
    assert_true(d->estimable && !d->significant && d->detectable > 0);
    assert_true(d->detectable >= (d->high - d->low) / 2.0); /* more than the half-width */
    assert_true(fabs(table.shortest_s - PERIODS) < 1e-9);
    printed(text, sizeof(text));
    assert_non_null(strstr(row_line(text, "p50", line, sizeof(line)), "cannot tell"));
    assert_null(strstr(text, " no\n"));
    assert_non_null(strstr(text, "* p50: no change found at 8 pairs of rounds; one of +-"));
    assert_non_null(strstr(text, "would have been found (2 times in 3 or more)"));
    assert_non_null(strstr(text, "together: 3 figures judged at 95% each: between identical "
                                 "sides chance alone says yes to one of them in up to 15%"));
    assert_non_null(strstr(text, "(98.33% each, as --fail-if does): none yes\n"));
    assert_null(strstr(text, "short:"));
    assert_null(strstr(text, "points the other way"));
    /* the median of the differences against the pooled values, and a round of 0.2 s */
    table.rows[1].diff[1].diff = -5000.0;
    table.rows[1].run[1].value_ns = table.rows[1].run[0].value_ns + 3000;
    table.shortest_s = 0.2;
    /* every pair the same (a rate -P set): no change at all, said "no" */
    table.rows[0].diff[1] =
        (struct compare_diff){.judged = true, .estimable = true, .achieved = 0.96};
    printed(text, sizeof(text));
    assert_true(strstr(row_line(text, "tps", line, sizeof(line)), "  no") != NULL);
    assert_non_null(strstr(text, "* p50: B - A (-5.0 us) is the median of the pairs' "
                                 "differences and points the other way from B's value against "
                                 "A's over all of them (+3.0 us)"));
    assert_non_null(strstr(text, "short: rounds of 0.20 s: connections opening and the "
                                 "server's first answers weigh on each"));
    table.mode = COMPARE_REPLICATES; /* runs, not rounds */
    printed(text, sizeof(text));
    assert_non_null(strstr(text, "short: a run of 0.20 s is too short to carry a comparison"));
    table.mode = COMPARE_PAIRED;
    /* no estimate: no B - A shown */
    assert_int_equal(build_sides(3, 3, 300000, false, COMPARE_LEVEL, "64", false), SLAP_OK);
    printed(text, sizeof(text));
    row_line(text, "p50", line, sizeof(line));
    assert_non_null(strstr(line, " n/a "));
    assert_null(strstr(line, "+0.0"));
    assert_non_null(strstr(line, "cannot tell"));
    /* a slower side found: yes, nothing said of what could have been */
    assert_int_equal(build_sides(8, 8, 150000, true, COMPARE_LEVEL, "64", false), SLAP_OK);
    assert_true(table.rows[1].diff[1].detectable == 0.0);
    assert_true(table.rows[1].diff[1].together_estimable);
    assert_true(table.rows[1].diff[1].together_significant);
    printed(text, sizeof(text));
    assert_null(strstr(text, "* p50: no change found"));
    assert_non_null(strstr(text, "(98.33% each, as --fail-if does): p50, p99 yes\n"));
    /* six pairs: enough for 95%, not for every figure at once */
    assert_int_equal(build_sides(6, 6, 150000, true, COMPARE_LEVEL, "64", false), SLAP_OK);
    printed(text, sizeof(text));
    assert_non_null(strstr(text, "(98.33% each, as --fail-if does): needs 7 pairs of rounds\n"));
}

static void sides_may_differ_and_say_how(void **state)
{
    (void)state;
    assert_int_equal(build_sides(1, 1, 100000, false, COMPARE_LEVEL, "128", false), SLAP_OK);
    assert_non_null(strstr(table.differs[1], "--key_size (64 in A, 128 in B)"));
    assert_int_equal(build_sides(1, 1, 100000, false, COMPARE_LEVEL, "64", false), SLAP_OK);
    assert_string_equal(table.differs[1], "");
}

static void runs_made_apart_are_told(void **state)
{
    (void)state;
    assert_int_equal(build_sides(4, 4, 100000, false, COMPARE_LEVEL, "64", true), SLAP_OK);
    assert_true(table.apart[1]);
    char why[512];
    struct compare_threshold th = {
        .figure = "tps", .tps = true, .above = true, .relative = true, .amount = 0.05};
    for (size_t r = 0; r < table.nrows; r++) { /* shown, never judged */
        assert_false(table.rows[r].diff[1].judged);
        assert_false(table.rows[r].diff[1].significant);
    }
    assert_non_null(compare_gate_problem(&table, &th, why, sizeof(why)));
    assert_non_null(strstr(why, "made before those of the other"));
    assert_int_equal(build_sides(4, 4, 100000, false, COMPARE_LEVEL, "64", false), SLAP_OK);
    assert_false(table.apart[1]);
    assert_true(table.rows[0].diff[1].judged);
    assert_null(compare_gate_problem(&table, &th, why, sizeof(why)));
}

static void refusals(void **state)
{
    (void)state;
    char err[COMPARE_DIFFERS_MAX + 64] = "";
    /* the runs of one side must be one workload */
    make_side(0, 2, 100000, 1, "64", 0, 0);
    build_doc(&side_docs[1][0], 100000, 9, false, "128");
    build_doc(&side_docs[1][1], 100000, 10, false, "64");
    side_ptrs[1][0] = &side_docs[1][0];
    side_ptrs[1][1] = &side_docs[1][1];
    struct compare_side sides[2] = {{"a", side_ptrs[0], 2}, {"b", side_ptrs[1], 2}};
    assert_int_equal(compare_build(&table, sides, 2, false, COMPARE_LEVEL, err, sizeof(err)),
                     SLAP_ERROR);
    assert_non_null(strstr(err, "the runs of 'b' are not one workload"));
    side_docs[1][0].sweep = true;
    assert_int_equal(compare_build(&table, sides, 2, false, COMPARE_LEVEL, err, sizeof(err)),
                     SLAP_ERROR);
    assert_non_null(strstr(err, "sweep"));
    assert_int_equal(compare_build(&table, sides, 1, false, COMPARE_LEVEL, err, sizeof(err)),
                     SLAP_ERROR);
    free_side(0, 2);
    free_side(1, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_relative_percentile),
        cmocka_unit_test(parses_absolute_amounts),
        cmocka_unit_test(refuses_bad_thresholds),
        cmocka_unit_test(one_run_a_side_is_shown_not_judged),
        cmocka_unit_test(replicates_find_a_slower_side),
        cmocka_unit_test(replicates_of_one_distribution_are_not_significant),
        cmocka_unit_test(too_few_replicates_cannot_tell),
        cmocka_unit_test(paired_rounds_find_a_slower_side),
        cmocka_unit_test(several_thresholds_share_the_level),
        cmocka_unit_test(what_could_have_been_found),
        cmocka_unit_test(sides_may_differ_and_say_how),
        cmocka_unit_test(runs_made_apart_are_told),
        cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
