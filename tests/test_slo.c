/* Unit tests of slap search's pure parts: the objective parser, the verdict of an interval,
 * and the choice of the next rate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <string.h>

#include "slap/run/slo.h"

static void test_parse_objectives(void **state)
{
    (void)state;
    struct objective s[SLO_MAX];
    size_t n;
    char err[256];
    assert_true(objective_parse("p99<1ms", s, &n, err, sizeof(err)));
    assert_int_equal(n, 1);
    assert_true(s[0].pct == 99.0);
    assert_int_equal(s[0].limit_ns, 1000000);
    assert_string_equal(s[0].text, "p99<1ms");
    assert_true(objective_parse("p50<250us,p99.9<1.5ms,p99.99<2s", s, &n, err, sizeof(err)));
    assert_int_equal(n, 3);
    assert_true(s[0].pct == 50.0);
    assert_int_equal(s[0].limit_ns, 250000);
    assert_true(s[1].pct == 99.9);
    assert_int_equal(s[1].limit_ns, 1500000);
    assert_int_equal(s[2].limit_ns, 2000000000ULL);
    assert_true(objective_parse("p90<800\xc2\xb5s", s, &n, err, sizeof(err)));
    assert_int_equal(s[0].limit_ns, 800000);
}

static void test_refuse_bad_objectives(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",      "p99",    "99<1ms",   "p99<1",    "p99<1xs",  "p100<1ms", "p0<1ms",  "p99>1ms",
        "p<1ms", "p99<ms", "p99<-1ms", "p99<1ms,", ",p99<1ms", "pa<1ms",   "p99<0ms", "p99 < 1ms"};
    struct objective s[SLO_MAX];
    size_t n;
    char err[256];
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        if (objective_parse(bad[i], s, &n, err, sizeof(err))) {
            fail_msg("'%s' was taken", bad[i]);
        }
        assert_true(err[0] != '\0');
    }
}

static void test_judge(void **state)
{
    (void)state;
    struct ci_result ci = {
        .estimable = true, .value_ns = 900, .low_ns = 800, .high_ns = 950, .requests = 10000};
    assert_int_equal(slo_judge(&ci, 1000), SLO_HELD);
    ci.high_ns = 1100; /* the interval holds the limit */
    assert_int_equal(slo_judge(&ci, 1000), SLO_UNDECIDED);
    ci.low_ns = 1050;
    assert_int_equal(slo_judge(&ci, 1000), SLO_BROKEN);
    struct ci_result few = {.estimable = false, .value_ns = 900, .requests = 100};
    assert_int_equal(slo_judge(&few, 1000), SLO_UNDECIDED);
    few.value_ns = 5000; /* far beyond, even from few */
    assert_int_equal(slo_judge(&few, 1000), SLO_BROKEN);
}

/* A server whose objective holds up to capacity: the search's rates and its end. */
static double simulate(double capacity, double start, unsigned max_steps, unsigned *steps,
                       enum search_next *end)
{
    struct search_state s;
    search_start(&s, start, 10, 1e6, max_steps, 0.05);
    enum search_next next = SEARCH_TRY;
    while (next == SEARCH_TRY) {
        next = search_record(&s, s.rate, s.rate <= capacity);
        assert_true(s.rate >= s.min_rate && s.rate <= s.max_rate);
    }
    *steps = s.steps;
    *end = next;
    return s.held;
}

static void test_search_converges(void **state)
{
    (void)state;
    unsigned steps;
    enum search_next end;
    double held = simulate(3300, 1000, 20, &steps, &end);
    assert_int_equal(end, SEARCH_DONE);
    assert_true(held <= 3300 && held >= 3300 / 1.05);
    /* ramp 1000, 2000, 4000 then bisection of 2000..4000 to 5%: a handful of steps */
    assert_true(steps <= 8);
    held = simulate(300, 1000, 20, &steps, &end); /* below the start: ramp down */
    assert_int_equal(end, SEARCH_DONE);
    assert_true(held <= 300 && held >= 300 / 1.05);
    held = simulate(5, 1000, 20, &steps, &end); /* below the minimum */
    assert_int_equal(end, SEARCH_DONE);
    assert_true(held == 0);
    held = simulate(1e9, 1000, 30, &steps, &end); /* above the maximum */
    assert_int_equal(end, SEARCH_DONE);
    assert_true(held == 1e6);
}

static void test_search_bounded(void **state)
{
    (void)state;
    unsigned steps;
    enum search_next end;
    double held = simulate(3300, 1000, 4, &steps, &end);
    assert_int_equal(end, SEARCH_EXHAUSTED);
    assert_int_equal(steps, 4);
    assert_true(held <= 3300 && held >= 2000);
}

static void test_search_next_rate(void **state)
{
    (void)state;
    struct search_state s;
    search_start(&s, 1000, 10, 1e6, 20, 0.05);
    assert_true(s.rate == 1000);
    assert_int_equal(search_record(&s, 1000, true), SEARCH_TRY);
    assert_true(s.rate == 2000);
    assert_int_equal(search_record(&s, 2000, false), SEARCH_TRY);
    assert_true(s.rate == 1500);
    assert_int_equal(search_record(&s, 1500, true), SEARCH_TRY);
    assert_true(s.rate == 1750);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_objectives),
        cmocka_unit_test(test_refuse_bad_objectives),
        cmocka_unit_test(test_judge),
        cmocka_unit_test(test_search_converges),
        cmocka_unit_test(test_search_bounded),
        cmocka_unit_test(test_search_next_rate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
