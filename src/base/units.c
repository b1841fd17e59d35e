/* Numbers with units: durations to nanoseconds, sizes and counts with k/m/g, fractions. */
#include "slap/base/units.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/common.h"

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

/* Exactly n digits at *p (before end) as a number into *value; moves *p past them. */
static bool scan_fixed(const char **p, const char *end, size_t n, unsigned *value)
{
    unsigned total = 0;
    for (size_t i = 0; i < n; i++) {
        if (*p >= end || !is_digit(**p)) {
            return false;
        }
        total = total * 10 + (unsigned)(**p - '0');
        (*p)++;
    }
    *value = total;
    return true;
}

/* The character c at *p, moving past it; false when something else is there. */
static bool scan_char(const char **p, const char *end, const char *accepted)
{
    if (*p >= end || **p == '\0' || strchr(accepted, **p) == NULL) {
        return false;
    }
    (*p)++;
    return true;
}

/* Days from 1970-01-01 to year-month-day (proleptic Gregorian), for years from 1970. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = y / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static unsigned days_in_month(unsigned year, unsigned month)
{
    static const unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : days[month - 1];
}

/* "+HH:MM", "-HH:MM", "Z" or "z" at *p: the offset east of UTC in seconds. */
static bool scan_offset(const char **p, const char *end, int64_t *offset_s)
{
    if (scan_char(p, end, "Zz")) {
        *offset_s = 0;
        return true;
    }
    bool east = *p < end && **p == '+';
    unsigned hh, mm;
    if (!scan_char(p, end, "+-") || !scan_fixed(p, end, 2, &hh) || !scan_char(p, end, ":") ||
        !scan_fixed(p, end, 2, &mm) || hh > 23 || mm > 59) {
        return false;
    }
    *offset_s = (east ? 1 : -1) * (int64_t)(hh * 3600 + mm * 60);
    return true;
}

/* RFC 3339: date, 'T', time, optional fraction, offset. */
static enum units_status parse_rfc3339(const char *text, size_t len, uint64_t *epoch_ns)
{
    const char *p = text, *end = text + len;
    unsigned year, month, day, hour, minute, second;
    const char *digits = NULL;
    size_t ndigits = 0;
    int64_t offset_s;
    if (!scan_fixed(&p, end, 4, &year) || !scan_char(&p, end, "-") ||
        !scan_fixed(&p, end, 2, &month) || !scan_char(&p, end, "-") ||
        !scan_fixed(&p, end, 2, &day) || !scan_char(&p, end, "Tt ") ||
        !scan_fixed(&p, end, 2, &hour) || !scan_char(&p, end, ":") ||
        !scan_fixed(&p, end, 2, &minute) || !scan_char(&p, end, ":") ||
        !scan_fixed(&p, end, 2, &second) || !scan_decimals(&p, end, &digits, &ndigits) ||
        !scan_offset(&p, end, &offset_s) || p != end) {
        return UNITS_NOT_NUMBER;
    }
    if (year < 1970 || month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) ||
        hour > 23 || minute > 59 || second > 60) {
        return UNITS_OUT_OF_RANGE;
    }
    int64_t secs =
        days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset_s;
    if (secs < 0) {
        return UNITS_OUT_OF_RANGE;
    }
    *epoch_ns = (uint64_t)secs * SLAP_NS_PER_SEC + fraction_ns(digits, ndigits, SLAP_NS_PER_SEC);
    return UNITS_OK;
}

enum units_status units_parse_time(const char *text, size_t len, uint64_t *epoch_ns)
{
    if (len > 4 && memchr(text, '-', len) != NULL && text[0] != '-') {
        return parse_rfc3339(text, len, epoch_ns);
    }
    enum units_status status = check_number_start(text, len);
    if (status != UNITS_OK) {
        return status;
    }
    const char *p = text, *end = text + len;
    const char *digits = NULL;
    size_t ndigits = 0;
    uint64_t whole;
    if (!scan_whole(&p, end, &whole)) {
        return UNITS_TOO_LARGE;
    }
    if (!scan_decimals(&p, end, &digits, &ndigits) || p != end) {
        return UNITS_NOT_NUMBER;
    }
    if (whole > UINT64_MAX / SLAP_NS_PER_SEC - 1) {
        return UNITS_TOO_LARGE;
    }
    *epoch_ns = whole * SLAP_NS_PER_SEC + fraction_ns(digits, ndigits, SLAP_NS_PER_SEC);
    return UNITS_OK;
}

void units_shortest(char *buf, size_t len, double v)
{
    for (int precision = 15; precision <= 17; precision++) {
        snprintf(buf, len, "%.*g", precision, v);
        if (strtod(buf, NULL) == v) {
            return;
        }
    }
}

bool units_parse_port(const char *text, size_t len, uint16_t *port)
{
    unsigned long v = 0;
    if (len == 0 || len > 5) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9') {
            return false;
        }
        v = v * 10 + (unsigned long)(text[i] - '0');
    }
    if (v > 65535) {
        return false;
    }
    *port = (uint16_t)v;
    return true;
}
