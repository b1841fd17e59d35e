/* Numbers with units: durations to nanoseconds, sizes and counts with k/m/g, fractions. */
#include "slap/units.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "slap/common.h"

#define FRACTION_TEXT_MAX 64 /* room for a fraction's text and its NUL, for strtod */

struct time_unit {
    const char *name;
    uint64_t ns;
};

/* "" is a bare number: seconds. Upper case S, M, H, D as memaslap accepts them. */
static const struct time_unit time_units[] = {
    {"", SLAP_NS_PER_SEC},          {"ms", SLAP_NS_PER_MS},        {"s", SLAP_NS_PER_SEC},
    {"S", SLAP_NS_PER_SEC},         {"m", 60 * SLAP_NS_PER_SEC},   {"M", 60 * SLAP_NS_PER_SEC},
    {"h", 3600 * SLAP_NS_PER_SEC},  {"H", 3600 * SLAP_NS_PER_SEC}, {"d", 86400 * SLAP_NS_PER_SEC},
    {"D", 86400 * SLAP_NS_PER_SEC},
};

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* A number must start with a digit; a minus sign before one is reported as negative. */
static enum units_status check_number_start(const char *text, size_t len)
{
    if (len >= 2 && text[0] == '-' && is_digit(text[1])) {
        return UNITS_NEGATIVE;
    }
    return len > 0 && is_digit(text[0]) ? UNITS_OK : UNITS_NOT_NUMBER;
}

/* Read the digits at *p (up to end) into *value and move *p past them; false on overflow. */
static bool scan_whole(const char **p, const char *end, uint64_t *value)
{
    uint64_t total = 0;
    bool fits = true;
    for (; *p < end && is_digit(**p); (*p)++) {
        uint64_t digit = (uint64_t)(**p - '0');
        if (total > (UINT64_MAX - digit) / 10) {
            fits = false;
        }
        total = total * 10 + digit;
    }
    *value = total;
    return fits;
}

/*
 * floor(0.DIGITS * unit_ns), exactly: Horner's rule from the last digit back, where
 * floor((d + floor(y)) / 10) == floor((d + y) / 10) keeps every step exact.
 */
static uint64_t fraction_ns(const char *digits, size_t count, uint64_t unit_ns)
{
    uint64_t carry = 0; /* always below unit_ns */
    while (count > 0) {
        count--;
        carry = ((uint64_t)(digits[count] - '0') * unit_ns + carry) / 10;
    }
    return carry;
}

static bool find_time_unit(const char *name, size_t len, uint64_t *unit_ns)
{
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(time_units); i++) {
        if (strlen(time_units[i].name) == len && memcmp(name, time_units[i].name, len) == 0) {
            *unit_ns = time_units[i].ns;
            return true;
        }
    }
    return false;
}

/* The ".DIGITS" at *p, if any: where its digits start and how many; false for "." alone. */
static bool scan_decimals(const char **p, const char *end, const char **digits, size_t *count)
{
    *digits = *p;
    *count = 0;
    if (*p == end || **p != '.') {
        return true;
    }
    *digits = ++*p;
    while (*p < end && is_digit(**p)) {
        ++*p;
    }
    *count = (size_t)(*p - *digits);
    return *count > 0;
}

enum units_status units_parse_duration(const char *text, size_t len, uint64_t *ns)
{
    enum units_status status = check_number_start(text, len);
    if (status != UNITS_OK) {
        return status;
    }
    const char *p = text, *end = text + len, *decimals;
    size_t decimal_count;
    uint64_t whole, unit_ns;
    bool fits = scan_whole(&p, end, &whole);
    if (!scan_decimals(&p, end, &decimals, &decimal_count) || (p < end && *p == '.')) {
        return UNITS_NOT_NUMBER;
    }
    if (!find_time_unit(p, (size_t)(end - p), &unit_ns)) {
        return UNITS_BAD_UNIT;
    }
    uint64_t part_ns = fraction_ns(decimals, decimal_count, unit_ns);
    if (!fits || whole > (UINT64_MAX - part_ns) / unit_ns) {
        return UNITS_TOO_LARGE;
    }
    *ns = whole * unit_ns + part_ns;
    return UNITS_OK;
}

/* How many times kunit multiplies for suffix c: k 1, m 2, g 3; 0 for anything else. */
static unsigned suffix_power(char c)
{
    switch (c) {
    case 'k':
    case 'K':
        return 1;
    case 'm':
    case 'M':
        return 2;
    case 'g':
    case 'G':
        return 3;
    default:
        return 0;
    }
}

/* The multiplier of the suffix at p (the last byte of the text), into *multiplier. */
static enum units_status scan_suffix(const char *p, const char *end, uint64_t kunit,
                                     uint64_t *multiplier)
{
    if (kunit == 0 || *p == '.') {
        return UNITS_NOT_NUMBER;
    }
    unsigned power = suffix_power(*p);
    if (power == 0 || p + 1 != end) {
        return UNITS_BAD_UNIT;
    }
    for (unsigned i = 0; i < power; i++) {
        if (*multiplier > UINT64_MAX / kunit) {
            return UNITS_TOO_LARGE;
        }
        *multiplier *= kunit;
    }
    return UNITS_OK;
}

enum units_status units_parse_size(const char *text, size_t len, uint64_t kunit, uint64_t *value)
{
    enum units_status status = check_number_start(text, len);
    if (status != UNITS_OK) {
        return status;
    }
    const char *p = text, *end = text + len;
    uint64_t whole, multiplier = 1;
    bool fits = scan_whole(&p, end, &whole);
    if (p < end) {
        status = scan_suffix(p, end, kunit, &multiplier);
        if (status != UNITS_OK) {
            return status;
        }
    }
    if (!fits || whole > UINT64_MAX / multiplier) {
        return UNITS_TOO_LARGE;
    }
    *value = whole * multiplier;
    return UNITS_OK;
}

enum units_status units_parse_share(const char *text, size_t len, double *value)
{
    char copy[FRACTION_TEXT_MAX];
    char *end = NULL;
    if (len == 0 || !(is_digit(text[0]) || text[0] == '.')) {
        return check_number_start(text, len) == UNITS_NEGATIVE ? UNITS_NEGATIVE : UNITS_NOT_NUMBER;
    }
    if (len >= sizeof(copy)) {
        return UNITS_NOT_NUMBER;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    double v = strtod(copy, &end);
    if (end != copy + len) {
        return UNITS_NOT_NUMBER;
    }
    if (!isfinite(v)) {
        return UNITS_OUT_OF_RANGE;
    }
    *value = v;
    return UNITS_OK;
}

enum units_status units_parse_fraction(const char *text, size_t len, double *value)
{
    double v;
    enum units_status status = units_parse_share(text, len, &v);
    if (status != UNITS_OK) {
        return status;
    }
    if (!(v > 0.0 && v <= 1.0)) {
        return UNITS_OUT_OF_RANGE;
    }
    *value = v;
    return UNITS_OK;
}
