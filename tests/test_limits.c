/* Unit tests of the judgement alone: the verdict and its borderline from the figures, with no
 * run, no threads and no words (test_limits_words has those). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <string.h>

#include "slap/judge/limits.h"

#include "limits_fixture.h"

/* Near each line, the verdict of its side, and the borderline naming that line (which the
 * words use), its figure and the verdict of the other side; far from it, none. */
static void test_each_line_named(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(line_cases) / sizeof(line_cases[0]); i++) {
        const struct line_case *c = &line_cases[i];
        struct limits l;
        make(&l, 1);
        c->set(&l, c->line + 0.5 * c->band);
        limits_judge(&l);
        assert_int_equal(l.verdict, c->above);
        assert_true(l.borderline.near);
        assert_int_equal(l.borderline.which, c->which);
        assert_int_equal(l.borderline.with, c->below);
        assert_string_equal(l.borderline.figure, c->figure);
        assert_string_equal(l.read_why, ""); /* words are output's */
        limits_free(&l);
        make(&l, 1);
        c->set(&l, c->line + 2 * c->band);
        limits_judge(&l);
        assert_int_equal(l.verdict, c->above);
        assert_false(l.borderline.near);
        assert_int_equal(l.borderline.which, LIMITS_LINES);
        limits_free(&l);
    }
}

/* Every line of the rules is walked by line_cases or named in lines_apart with its test: a line
 * added to enum limits_line without either fails here. */
static void test_every_line_cased(void **state)
{
    (void)state;
    for (int line = 0; line < LIMITS_LINES; line++) {
        int found = 0;
        for (size_t i = 0; i < sizeof(line_cases) / sizeof(line_cases[0]); i++) {
            found += line_cases[i].which == (enum limits_line)line;
        }
        for (size_t i = 0; i < sizeof(lines_apart) / sizeof(lines_apart[0]); i++) {
            found += lines_apart[i].which == (enum limits_line)line;
        }
        if (found != 1) {
            fail_msg("line %d of enum limits_line is in %d of line_cases and lines_apart "
                     "(limits_fixture.h), not 1",
                     line, found);
        }
    }
}

/* A server that stopped answering leaves no verdict, whatever the figures say. */
static void test_unanswered_unknown(void **state)
{
    struct limits l;
    (void)state;
    make(&l, 1);
    set_server_busy(&l, 0.99);
    limits_judge(&l);
    assert_int_equal(l.verdict, LIMITS_SERVER);
    l.due = 1000;
    l.silent = 11; /* past 1% of those due */
    assert_true(limits_unanswered(&l));
    limits_judge(&l);
    assert_int_equal(l.verdict, LIMITS_UNKNOWN);
    assert_false(l.borderline.near);
    l.silent = 10;
    assert_false(limits_unanswered(&l));
    l.stalled = 1;
    assert_true(limits_unanswered(&l));
    limits_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_line_named),
        cmocka_unit_test(test_every_line_cased),
        cmocka_unit_test(test_unanswered_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
