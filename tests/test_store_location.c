/* Where a store is (store_location.c): PostgreSQL or a file, refused, its password hidden. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "slap/store/store.h"

static void test_postgres_or_file(void **state)
{
    (void)state;
    assert_true(store_is_postgres("postgresql://h/d"));
    assert_true(store_is_postgres("postgres://h/d"));
    assert_false(store_is_postgres("runs.db"));
    assert_false(store_is_postgres("postgresql.db"));
    assert_false(store_is_postgres("./postgres://x"));
}

static void test_problems(void **state)
{
    (void)state;
    assert_non_null(store_location_problem(""));
    assert_non_null(store_location_problem("-"));
    assert_null(store_location_problem("runs.db"));
    assert_null(store_location_problem("postgresql://u:p@h/d"));
}

/* Each form a password takes in a libpq URL is shown as ***, and nothing else changes. */
static void test_passwords_hidden(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"postgresql://slap:secret@127.0.0.1:5432/slap",
         "postgresql://slap:***@127.0.0.1:5432/slap"},
        {"postgres://a:b@h/d?password=x", "postgres://a:***@h/d?password=***"},
        {"postgresql://slap@/slap?host=/tmp&password=abc&port=1",
         "postgresql://slap@/slap?host=/tmp&password=***&port=1"},
        {"postgresql://:pw@h/d", "postgresql://:***@h/d"},
        {"postgresql://u:p%40ss@h/d", "postgresql://u:***@h/d"},
        {"postgresql://h:5432/d", "postgresql://h:5432/d"},
        {"postgresql://u@h/d?a=1&password=", "postgresql://u@h/d?a=1&password=***"},
        {"my:secret@file.db", "my:secret@file.db"}, /* a file's name is a file's name */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char out[STORE_LOCATION_SHOWN];
        store_location_redacted(out, sizeof(out), cases[i][0]);
        assert_string_equal(out, cases[i][1]);
        store_location_shown(out, sizeof(out), cases[i][0]);
        if (store_is_postgres(cases[i][0])) {
            assert_null(strstr(out, "secret"));
            assert_null(strstr(out, "p%40ss"));
        }
    }
}

/* A location too long for the buffer is cut, never overrun, and its password still hidden. */
static void test_long_location(void **state)
{
    (void)state;
    char url[3000], out[64];
    memset(url, 'x', sizeof(url));
    memcpy(url, "postgresql://u:secretsecret@h/", 30);
    url[sizeof(url) - 1] = '\0';
    store_location_redacted(out, sizeof(out), url);
    assert_int_equal(strlen(out), sizeof(out) - 1);
    assert_null(strstr(out, "secret"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_postgres_or_file),
        cmocka_unit_test(test_problems),
        cmocka_unit_test(test_passwords_hidden),
        cmocka_unit_test(test_long_location),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
