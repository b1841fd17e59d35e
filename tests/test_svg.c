/* Unit tests of the SVG pictures' shared pieces (svg.c): text made XML-safe, axes, ticks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <stdio.h>
#include <string.h>

#include "svg.h"

#define TEXT_MAX 4096

/* text as svg_xml_text writes it, into buf. */
static const char *xml_of(char buf[TEXT_MAX], const char *text)
{
    memset(buf, 0, TEXT_MAX);
    FILE *out = fmemopen(buf, TEXT_MAX, "w");
    assert_non_null(out);
    svg_xml_text(out, text);
    fclose(out);
    return buf;
}

/* Nothing XML refuses or reads as markup: no control byte, no '<', no '"', every '&' an
 * entity's, and (all of it ASCII here) no byte of 0x80 or more. */
static void assert_xml_safe_ascii(const char *s)
{
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        assert_true(c >= 0x20 && c < 0x7f && c != '<' && c != '"');
        if (c == '&') {
            assert_true(strncmp(s, "&amp;", 5) == 0 || strncmp(s, "&lt;", 4) == 0 ||
                        strncmp(s, "&gt;", 4) == 0 || strncmp(s, "&quot;", 6) == 0);
        }
    }
}

static void hostile_text_escaped_and_shown(void **state)
{
    (void)state;
    char buf[TEXT_MAX];
    /* XML's specials, ESC, a stray 0xff, a lead byte alone (0xc3 before 'A'), U+FFFF */
    const char *s = xml_of(buf, "a<b>&c\"d\x1b[31m\xff\xc3"
                                "A\xef\xbf\xbf");
    assert_string_equal(s, "a&lt;b&gt;&amp;c&quot;d\\x1b[31m\\xff\\xc3A\\xef\\xbf\\xbf");
    assert_xml_safe_ascii(s);
}

static void readable_utf8_kept(void **state)
{
    (void)state;
    char buf[TEXT_MAX];
    assert_string_equal(xml_of(buf, "caf\xc3\xa9 \xc2\xb5s"), "caf\xc3\xa9 \xc2\xb5s");
    assert_string_equal(xml_of(buf, ""), "");
}

/* A long text is written whole (quote_text alone cuts after QUOTE_PATH_MAX bytes), a
 * character across that place too. */
static void long_text_whole(void **state)
{
    (void)state;
    char buf[TEXT_MAX], text[1000], want[1000];
    memset(text, 'n', 599);
    memcpy(text + 199, "\xc3\xa9", 2);
    memcpy(text + 400, "\x01", 1);
    text[599] = '\0';
    memcpy(want, text, 400);
    memcpy(want + 400, "\\x01", 4);
    memcpy(want + 404, text + 401, 599 - 401 + 1); /* the rest and its NUL */
    assert_string_equal(xml_of(buf, text), want);
}

static void linear_and_log_axes(void **state)
{
    (void)state;
    struct svg_ticks t;
    struct svg_axis a = svg_make_axis(3, 1234567, false);
    assert_true(a.lo == 0 && a.hi >= 1234567);
    svg_axis_ticks(&a, &t);
    assert_true(t.n >= 2 && t.n <= SVG_MAX_TICKS);
    assert_string_equal(t.label[0], "0");
    a = svg_make_axis(0.01, 250, true); /* below 0.1: at 0.1 */
    assert_true(a.lo == -1 && a.hi == 3);
    svg_axis_ticks(&a, &t);
    assert_int_equal(t.n, 5);
    assert_string_equal(t.label[4], "1k");
    a = (struct svg_axis){.lo = 0, .hi = 3, .nines = true};
    svg_axis_ticks(&a, &t);
    assert_string_equal(t.label[3], "99.9");
}

static void pixels_within_the_plot(void **state)
{
    (void)state;
    struct svg_panel p = {.top = 100, .height = 300};
    p.x = svg_make_axis(0, 10, false);
    p.y = svg_make_axis(0, 10, false);
    assert_true(svg_px(&p, 0) == SVG_MARGIN_LEFT);
    assert_true(svg_px(&p, 10) == SVG_MARGIN_LEFT + SVG_PLOT_W);
    assert_true(svg_py(&p, 0) == 100 + SVG_MARGIN_TOP + SVG_PLOT_H(300));
    assert_true(svg_py(&p, 10) == 100 + SVG_MARGIN_TOP);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hostile_text_escaped_and_shown),
        cmocka_unit_test(readable_utf8_kept),
        cmocka_unit_test(long_text_whole),
        cmocka_unit_test(linear_and_log_axes),
        cmocka_unit_test(pixels_within_the_plot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
