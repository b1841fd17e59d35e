/* Unit tests of plan: the periods a run is planned with (-S's, or the fine ones the outputs
 * keep), so that no caller sets them on the run after the plan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <stdio.h>
#include <string.h>

#include "slap/base/common.h"

#include "plan.h"

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
    parse_options(&o, "-s 127.0.0.1:11211 -x 10 -P 900");
    assert_int_equal(plan_share_count(&o, 10), 10);
    assert_true(plan_share_rate(&o, 900.0) == 900.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_periods_without_stat_freq),
        cmocka_unit_test(test_periods_of_stat_freq),
        cmocka_unit_test(test_step_periods),
        cmocka_unit_test(test_share_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
