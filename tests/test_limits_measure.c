/* Unit tests of a server's figures for the verdict, from its stats pair. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <stdio.h>

#include "slap/engine/limits_measure.h"

/* A four-thread server on a two-CPU host is saturated at two CPUs' worth. */
static void test_local_server_threads(void **state)
{
    struct limits_server s;
    struct server_stats_pair p = {.ok = true, .before_ns = 0, .after_ns = 2000000000ULL};
    (void)state;
    p.after.rusage_user = 3.6;
    p.after.threads = 4;
    limits_server_from_stats(&s, "127.0.0.1:11211", NULL, &p, 2);
    assert_true(s.local);
    assert_float_equal(s.busy, 3.6 / (2.0 * 2), 1e-9);
    limits_server_from_stats(&s, "10.0.0.1:11211", NULL, &p, 0);
    assert_false(s.local);
    assert_float_equal(s.busy, 3.6 / (2.0 * 4), 1e-9);
}

static void test_server_from_stats(void **state)
{
    struct limits_server s;
    struct server_stats_pair p = {
        .ok = true, .before_ns = 1000000000ULL, .after_ns = 3000000000ULL};
    (void)state;
    p.before.rusage_user = 10.0;
    p.before.rusage_system = 5.0;
    p.after.rusage_user = 12.0;
    p.after.rusage_system = 6.0;
    p.after.threads = 4;
    limits_server_from_stats(&s, "127.0.0.1:11211", "host-a", &p, 0);
    assert_true(s.known);
    assert_float_equal(s.cpu_s, 3.0, 1e-9);
    assert_float_equal(s.seconds, 2.0, 1e-9);
    assert_float_equal(s.busy, 3.0 / (2.0 * 4), 1e-9);
    p.after.threads = 0; /* a server that does not say: a share of one CPU */
    limits_server_from_stats(&s, "127.0.0.1:11211", NULL, &p, 0);
    assert_float_equal(s.busy, 1.5, 1e-9);
    p.ok = false;
    snprintf(p.note, sizeof(p.note), "it did not answer stats (it said 'ERROR')");
    limits_server_from_stats(&s, "127.0.0.1:11211", NULL, &p, 0);
    assert_false(s.known);
    assert_string_equal(s.note, p.note);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_local_server_threads),
        cmocka_unit_test(test_server_from_stats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
