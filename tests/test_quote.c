/* Unit tests of quoting bytes from outside for messages: printable text as is, the rest \xNN. */
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
                        "'it\\x27s \"\\x5c\\x7f\xc3\xa9'");
    assert_string_equal(put(buf, sizeof(buf), "say \"hi\"", 8, 64, '"'), "\"say \\x22hi\\x22\"");
    assert_string_equal(put(buf, sizeof(buf), "a\0b", 3, 64, '"'), "\"a\\x00b\"");
}

static void utf8_kept_when_well_formed_and_visible(void **state)
{
    (void)state;
    char buf[128];
    /* é, €, 😀 kept; a stray 0xff, a lead byte alone or cut short, a continuation byte alone */
    assert_string_equal(put(buf, sizeof(buf), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9, 64, '"'),
                        "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
    assert_string_equal(put(buf, sizeof(buf),
                            "a\xff"
                            "b\xc3",
                            4, 64, '"'),
                        "\"a\\xffb\\xc3\"");
    assert_string_equal(put(buf, sizeof(buf), "\xe2\x82z\x80", 4, 64, '"'), "\"\\xe2\\x82z\\x80\"");
    /* overlong '/', a surrogate, beyond U+10FFFF */
    assert_string_equal(put(buf, sizeof(buf), "\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80", 9, 64, '"'),
                        "\"\\xc0\\xaf\\xed\\xa0\\x80\\xf4\\x90\\x80\\x80\"");
    /* U+009B (CSI), U+202E (right-to-left override), U+2028 (line separator): well formed,
     * but they act without showing */
    assert_string_equal(put(buf, sizeof(buf), "\xc2\x9b\xe2\x80\xae\xe2\x80\xa8", 8, 64, '"'),
                        "\"\\xc2\\x9b\\xe2\\x80\\xae\\xe2\\x80\\xa8\"");
    /* a character cut by max is escaped; one that does not fit the buffer is left out whole */
    assert_string_equal(put(buf, sizeof(buf), "a\xc3\xa9", 3, 2, '"'), "\"a\\xc3\"...");
    assert_string_equal(put(buf, 4, "a\xc3\xa9", 3, 64, '"'), "\"a\"");
}

static void a_message_line_by_the_same_rule(void **state)
{
    (void)state;
    char text[256] = "";
    FILE *out = fmemopen(text, sizeof(text), "w");
    assert_non_null(out);
    quote_line(out, "slap merge: ", "'x\\x1b' \xc3\xa9\x1b[2J\xff\r");
    fclose(out);
    assert_string_equal(text, "slap merge: 'x\\x1b' \xc3\xa9\\x1b[2J\\xff\\x0d\n");
}

static void plain_text_and_the_as_is_test(void **state)
{
    (void)state;
    char buf[QUOTE_PATH_BUF], name[QUOTE_PATH_MAX + 2];
    assert_string_equal(quote_text(buf, "b\\x.json"), "b\\x.json"); /* no marks, '\\' kept */
    assert_string_equal(quote_text(buf, "a\x1b[2J\xc3\xa9\xff\n"), "a\\x1b[2J\xc3\xa9\\xff\\x0a");
    memset(name, 'n', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    assert_string_equal(quote_text(buf, name) + QUOTE_PATH_MAX, "...");
    assert_true(quote_as_is("caf\xc3\xa9 /x:1", 10));
    assert_false(quote_as_is("a\rb", 3));
    assert_false(quote_as_is("a\xc3", 2));
    assert_false(quote_as_is("\xe2\x80\xae", 3));
    assert_true(quote_as_is("", 0));
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
        cmocka_unit_test(utf8_kept_when_well_formed_and_visible),
        cmocka_unit_test(a_message_line_by_the_same_rule),
        cmocka_unit_test(plain_text_and_the_as_is_test),
        cmocka_unit_test(long_bytes_cut_with_dots),
        cmocka_unit_test(a_name_quoted_whole_or_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
