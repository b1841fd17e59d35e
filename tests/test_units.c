/* Unit tests of units: durations, sizes and counts, fractions; what each refuses and why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <string.h>

#include "slap/base/common.h"
#include "slap/base/units.h"

#define SEC SLAP_NS_PER_SEC
#define UNTOUCHED 0x5eedULL /* stored before a parse that must fail, checked after */

struct unit_case {
    const char *text;
    uint64_t expected;
};

static enum units_status duration(const char *text, uint64_t *ns)
{
    return units_parse_duration(text, strlen(text), ns);
}

static enum units_status size(const char *text, uint64_t kunit, uint64_t *value)
{
    return units_parse_size(text, strlen(text), kunit, value);
}

static enum units_status fraction(const char *text, double *value)
{
    return units_parse_fraction(text, strlen(text), value);
}

/* ---- durations ------------------------------------------------------------------------ */

static void test_duration_good(void **state)
{
    (void)state;
    static const struct unit_case cases[] = {
        {"30", 30 * SEC},
        {"30s", 30 * SEC},
        {"10S", 10 * SEC},
        {"1.5m", 90 * SEC},
        {"2M", 120 * SEC},
        {"2h", 7200 * SEC},
        {"1H", 3600 * SEC},
        {"1d", 86400 * SEC},
        {"1D", 86400 * SEC},
        {"0.1d", 8640 * SEC},
        {"500ms", 500 * SLAP_NS_PER_MS},
        {"1.5ms", 1500 * SLAP_NS_PER_US},
        {"0.001s", SLAP_NS_PER_MS},
        {"0.5", SEC / 2},
        {"0", 0},
        {"1.0000000001s", SEC},                 /* below a nanosecond: dropped */
        {"0.0000000019s", 1},                   /* truncated, not rounded */
        {"18446744073.709551615s", UINT64_MAX}, /* the largest that fits */
        {"007s", 7 * SEC},
    };
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(cases); i++) {
        uint64_t ns = UNTOUCHED;
        if (duration(cases[i].text, &ns) != UNITS_OK) {
            fail_msg("duration '%s' was rejected", cases[i].text);
        }
        if (ns != cases[i].expected) {
            fail_msg("duration '%s' = %llu ns, expected %llu", cases[i].text,
                     (unsigned long long)ns, (unsigned long long)cases[i].expected);
        }
    }
}

static void test_duration_bad(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "1.",
        ".5",
        "1.s",
        "1ss",
        "1sm",
        "1Ms",
        "1MS",
        "1k",
        "10m s",
        "18446744074",            /* seconds beyond 2^64 ns */
        "18446744073.709551616s", /* one nanosecond too many */
        "213503982335d",          /* days beyond 2^64 ns */
    };
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(texts); i++) {
        uint64_t ns = UNTOUCHED;
        if (duration(texts[i], &ns) == UNITS_OK) {
            fail_msg("duration '%s' was accepted", texts[i]);
        }
        assert_int_equal(ns, UNTOUCHED);
    }
}

/* ---- sizes and counts ----------------------------------------------------------------- */

static void test_size_good(void **state)
{
    (void)state;
    static const struct unit_case binary[] = {
        {"1", 1},
        {"0", 0},
        {"10k", 10240},
        {"10K", 10240},
        {"1m", 1048576},
        {"1M", 1048576},
        {"1g", 1073741824},
        {"2G", 2147483648ULL},
        {"18446744073709551615", UINT64_MAX},
        {"16777215g", 16777215ULL << 30},
    };
    static const struct unit_case decimal[] = {
        {"10k", 10000}, {"100K", 100000}, {"2m", 2000000}, {"3g", 3000000000ULL}, {"42", 42},
    };
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(binary); i++) {
        uint64_t value = UNTOUCHED;
        assert_int_equal(size(binary[i].text, 1024, &value), UNITS_OK);
        assert_int_equal(value, binary[i].expected);
    }
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(decimal); i++) {
        uint64_t value = UNTOUCHED;
        assert_int_equal(size(decimal[i].text, 1000, &value), UNITS_OK);
        assert_int_equal(value, decimal[i].expected);
    }
}

static void test_size_bad(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "1.5k", "k", "1kb", "1s", "1 k", "18446744073709551616", "17179869184g", "1t",
    };
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(texts); i++) {
        uint64_t value = UNTOUCHED;
        if (size(texts[i], 1024, &value) == UNITS_OK) {
            fail_msg("size '%s' was accepted", texts[i]);
        }
        assert_int_equal(value, UNTOUCHED);
    }

    /* A large kunit: the multiplier itself overflows before the number does. */
    uint64_t value = UNTOUCHED;
    assert_int_equal(size("1g", 1ULL << 32, &value), UNITS_TOO_LARGE);
    assert_int_equal(size("1m", 1ULL << 32, &value), UNITS_TOO_LARGE);
    assert_int_equal(value, UNTOUCHED);
    assert_int_equal(size("1k", 1ULL << 32, &value), UNITS_OK);
    assert_int_equal(value, 1ULL << 32);
    /* kunit 0: a plain count, no suffix at all */
    assert_int_equal(size("12", 0, &value), UNITS_OK);
    assert_int_equal(value, 12);
    assert_int_equal(size("12k", 0, &value), UNITS_NOT_NUMBER);
}

/* Texts that neither the duration nor the size parser accepts. */
static const char *const bad_unit_texts[] = {
    "", "s", "-1", "1x", "1.5.2s", "99999999999999999999", "10kk", " 1", "1 ", "+1", "-", "0x10",
};

static void test_units_bad(void **state)
{
    (void)state;
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(bad_unit_texts); i++) {
        const char *text = bad_unit_texts[i];
        uint64_t value = UNTOUCHED;
        if (duration(text, &value) == UNITS_OK) {
            fail_msg("duration '%s' was accepted", text);
        }
        if (size(text, 1024, &value) == UNITS_OK) {
            fail_msg("size '%s' was accepted", text);
        }
        assert_int_equal(value, UNTOUCHED);
    }
}

/* The status says why, so that callers can word their messages. */
static void test_statuses(void **state)
{
    (void)state;
    uint64_t value = UNTOUCHED;
    assert_int_equal(duration("", &value), UNITS_NOT_NUMBER);
    assert_int_equal(duration("s", &value), UNITS_NOT_NUMBER);
    assert_int_equal(duration("1.5.2s", &value), UNITS_NOT_NUMBER);
    assert_int_equal(duration("-1", &value), UNITS_NEGATIVE);
    assert_int_equal(duration("10x", &value), UNITS_BAD_UNIT);
    assert_int_equal(duration("18446744074", &value), UNITS_TOO_LARGE);
    assert_int_equal(size("", 1000, &value), UNITS_NOT_NUMBER);
    assert_int_equal(size("1.5k", 1000, &value), UNITS_NOT_NUMBER);
    assert_int_equal(size("-1", 1000, &value), UNITS_NEGATIVE);
    assert_int_equal(size("10kk", 1000, &value), UNITS_BAD_UNIT);
    assert_int_equal(size("99999999999999999999", 1000, &value), UNITS_TOO_LARGE);
    assert_int_equal(size("20000000000g", 1000, &value), UNITS_TOO_LARGE);
    assert_int_equal(value, UNTOUCHED);
}

/* Exactly len bytes are read: what follows is not, and a NUL inside is a stray byte. */
static void test_length_bounded(void **state)
{
    (void)state;
    uint64_t value = UNTOUCHED;
    double share = 0.0;
    assert_int_equal(units_parse_duration("30sXYZ", 3, &value), UNITS_OK);
    assert_int_equal(value, 30 * SEC);
    assert_int_equal(units_parse_duration("1.5m", 3, &value), UNITS_OK); /* "1.5": seconds */
    assert_int_equal(value, 1500 * SLAP_NS_PER_MS);
    assert_int_equal(units_parse_size("64 64 1", 2, 1024, &value), UNITS_OK);
    assert_int_equal(value, 64);
    assert_int_equal(units_parse_size("2k5", 2, 1024, &value), UNITS_OK);
    assert_int_equal(value, 2048);
    assert_int_equal(units_parse_size("1234", 2, 0, &value), UNITS_OK);
    assert_int_equal(value, 12);
    assert_int_equal(units_parse_duration("2500", 1, &value), UNITS_OK);
    assert_int_equal(value, 2 * SEC);
    assert_int_equal(units_parse_fraction("0.5:0.25", 3, &share), UNITS_OK);
    assert_true(share == 0.5);

    value = UNTOUCHED;
    assert_int_equal(units_parse_size("64\0", 3, 1024, &value), UNITS_BAD_UNIT);
    assert_int_equal(units_parse_duration("5\0s", 3, &value), UNITS_BAD_UNIT);
    assert_int_equal(units_parse_size("", 0, 1024, &value), UNITS_NOT_NUMBER);
    assert_int_equal(units_parse_duration("1", 0, &value), UNITS_NOT_NUMBER);
    assert_int_equal(value, UNTOUCHED);
    assert_int_equal(units_parse_fraction("0.5\0", 4, &share), UNITS_NOT_NUMBER);
    assert_int_equal(units_parse_fraction("1", 0, &share), UNITS_NOT_NUMBER);
}

/* ---- fractions ------------------------------------------------------------------------ */

static void test_fraction_good(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        double expected;
    } cases[] = {
        {"1", 1.0},   {"0.5", 0.5},           {".5", 0.5}, {"0.05", 0.05}, {"1e-1", 0.1},
        {"1.0", 1.0}, {"0.000001", 0.000001},
    };
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(cases); i++) {
        double value = -1.0;
        if (fraction(cases[i].text, &value) != UNITS_OK || value != cases[i].expected) {
            fail_msg("fraction '%s': %g, expected %g", cases[i].text, value, cases[i].expected);
        }
    }
}

static void test_fraction_bad(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        enum units_status status;
    } cases[] = {
        {"", UNITS_NOT_NUMBER},
        {".", UNITS_NOT_NUMBER},
        {"x", UNITS_NOT_NUMBER},
        {"nan", UNITS_NOT_NUMBER},
        {"inf", UNITS_NOT_NUMBER},
        {" 0.5", UNITS_NOT_NUMBER},
        {"0.5 ", UNITS_NOT_NUMBER},
        {"0.5x", UNITS_NOT_NUMBER},
        {"+0.5", UNITS_NOT_NUMBER},
        {"-0.5", UNITS_NEGATIVE},
        {"0", UNITS_OUT_OF_RANGE},
        {"0.0", UNITS_OUT_OF_RANGE},
        {"1.5", UNITS_OUT_OF_RANGE},
        {"1e999", UNITS_OUT_OF_RANGE},
        {"1.0000001", UNITS_OUT_OF_RANGE},
    };
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(cases); i++) {
        double value = -1.0;
        enum units_status status = fraction(cases[i].text, &value);
        if (status != cases[i].status || value != -1.0) {
            fail_msg("fraction '%s': status %d, expected %d", cases[i].text, (int)status,
                     (int)cases[i].status);
        }
    }
    /* longer than the parser's buffer: refused, not cut short */
    char long_text[80];
    memset(long_text, '0', sizeof(long_text));
    long_text[1] = '.';
    long_text[sizeof(long_text) - 2] = '1';
    long_text[sizeof(long_text) - 1] = '\0';
    double value = -1.0;
    assert_int_equal(fraction(long_text, &value), UNITS_NOT_NUMBER);
}

/* ---- instants -------------------------------------------------------------------------- */

static enum units_status instant(const char *text, uint64_t *ns)
{
    return units_parse_time(text, strlen(text), ns);
}

static void test_time_good(void **state)
{
    (void)state;
    static const struct unit_case cases[] = {
        {"0", 0},
        {"1767225600", 1767225600 * SEC},
        {"1767225600.25", 1767225600 * SEC + SEC / 4},
        {"1970-01-01T00:00:00Z", 0},
        {"2026-01-01T00:00:00Z", 1767225600 * SEC},
        {"2026-01-01t00:00:00z", 1767225600 * SEC},
        {"2026-01-01 00:00:00Z", 1767225600 * SEC},
        {"2026-01-01T01:30:00+01:30", 1767225600 * SEC},
        {"2025-12-31T23:00:00-01:00", 1767225600 * SEC},
        {"2024-02-29T12:00:00.5Z", (1709164800ULL + 12 * 3600) * SEC + SEC / 2},
        {"2000-03-01T00:00:00Z", 951868800 * SEC},
    };
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(cases); i++) {
        uint64_t ns = UNTOUCHED;
        assert_int_equal(instant(cases[i].text, &ns), UNITS_OK);
        assert_int_equal(ns, cases[i].expected);
    }
}

static void test_time_bad(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "x",
        "-5",
        "12s",
        "1.",
        "2026-01-01",
        "2026-01-01T00:00:00",
        "2026-1-01T00:00:00Z",
        "2026-13-01T00:00:00Z",
        "2026-02-29T00:00:00Z",
        "2026-01-01T24:00:00Z",
        "2026-01-01T00:60:00Z",
        "2026-01-01T00:00:00+24:00",
        "1969-12-31T23:59:59Z",
        "2026-01-01T00:00:00Zjunk",
        "2026-01-01T00:00:00.Z",
        "99999999999999999999",
    };
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(bad); i++) {
        uint64_t ns = UNTOUCHED;
        assert_int_not_equal(instant(bad[i], &ns), UNITS_OK);
        assert_int_equal(ns, UNTOUCHED);
    }
}

/* A port: digits only, at most 5 of them, 0 to 65535. */
static void test_port(void **state)
{
    (void)state;
    uint16_t port = 1;
    assert_true(units_parse_port("11211", 5, &port));
    assert_int_equal(port, 11211);
    assert_true(units_parse_port("65535", 5, &port));
    assert_int_equal(port, 65535);
    assert_true(units_parse_port("0", 1, &port));
    assert_int_equal(port, 0);
    assert_true(units_parse_port("80xyz", 2, &port)); /* only len bytes are read */
    assert_int_equal(port, 80);
    assert_false(units_parse_port("65536", 5, &port));
    assert_false(units_parse_port("000080", 6, &port));
    assert_false(units_parse_port("", 0, &port));
    assert_false(units_parse_port("8o", 2, &port));
    assert_false(units_parse_port("-1", 2, &port));
    assert_false(units_parse_port(" 80", 3, &port));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_duration_good),  cmocka_unit_test(test_duration_bad),
        cmocka_unit_test(test_size_good),      cmocka_unit_test(test_size_bad),
        cmocka_unit_test(test_units_bad),      cmocka_unit_test(test_statuses),
        cmocka_unit_test(test_length_bounded), cmocka_unit_test(test_fraction_good),
        cmocka_unit_test(test_fraction_bad),   cmocka_unit_test(test_time_good),
        cmocka_unit_test(test_time_bad),       cmocka_unit_test(test_port),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
