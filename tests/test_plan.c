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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_periods_without_stat_freq),
        cmocka_unit_test(test_periods_of_stat_freq),
        cmocka_unit_test(test_step_periods),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
