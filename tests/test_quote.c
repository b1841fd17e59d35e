/* Unit tests of quoting bytes from outside for messages: printable ASCII as is, the rest \xNN. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <string.h>

#include "slap/base/quote.h"

/* quote_put into a buffer of cap bytes: the text it holds. */
static const char *put(char *buf, size_t cap, const char *bytes, size_t len, size_t max, char mark)
{
    char *at = buf;
    quote_put(&at, buf + cap, bytes, len, max, mark);
    *at = '\0';
    return buf;
}

static void printable_kept_the_rest_escaped(void **state)
{
    (void)state;
    char buf[128];
    assert_string_equal(put(buf, sizeof(buf), "a b/c.json", 10, 64, '\''), "'a b/c.json'");
    assert_string_equal(put(buf, sizeof(buf), "\x1b[31mX\nY", 8, 64, '\''), "'\\x1b[31mX\\x0aY'");
    assert_string_equal(put(buf, sizeof(buf), "it's \"\\\x7f\xc3\xa9", 10, 64, '\''),
                        "'it\\x27s \"\\x5c\\x7f\\xc3\\xa9'");
    assert_string_equal(put(buf, sizeof(buf), "say \"hi\"", 8, 64, '"'), "\"say \\x22hi\\x22\"");
    assert_string_equal(put(buf, sizeof(buf), "a\0b", 3, 64, '"'), "\"a\\x00b\"");
}

static void long_bytes_cut_with_dots(void **state)
{
    (void)state;
    char buf[128];
    assert_string_equal(put(buf, sizeof(buf), "abcdefgh", 8, 4, '"'), "\"abcd\"...");
    assert_string_equal(put(buf, 8, "abcdefgh", 8, 64, '"'), "\"abcdef"); /* room for 7 */
    assert_string_equal(put(buf, 1, "abc", 3, 64, '"'), "");
}

static void a_name_quoted_whole_or_cut(void **state)
{
    (void)state;
    char buf[QUOTE_PATH_BUF], name[QUOTE_PATH_MAX + 2];
    assert_string_equal(quote_name(buf, "nodir/\x1b[0m\nfake: x"), "'nodir/\\x1b[0m\\x0afake: x'");
    memset(name, '\n', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    quote_name(buf, name);
    assert_int_equal(strlen(buf), 1 + QUOTE_PATH_MAX * 4 + 1 + 3); /* every byte shown as \x0a */
    assert_string_equal(buf + strlen(buf) - 6, "0a'...");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(printable_kept_the_rest_escaped),
        cmocka_unit_test(long_bytes_cut_with_dots),
        cmocka_unit_test(a_name_quoted_whole_or_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
