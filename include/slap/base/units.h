/* Numbers with units, read in one place: durations, sizes and counts, fractions. */
#ifndef SLAP_UNITS_H
#define SLAP_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The suffixes each parser accepts, as messages list them. */
#define UNITS_DURATION_SUFFIXES "ms, s, m, h or d"
#define UNITS_SIZE_SUFFIXES "k, m or g"

/* Why a text is not a number with a unit; the caller words the message. */
enum units_status {
    UNITS_OK = 0,
    UNITS_NOT_NUMBER,   /* empty, no leading digit, or stray characters among the digits */
    UNITS_NEGATIVE,     /* a minus sign in front of digits */
    UNITS_BAD_UNIT,     /* a number followed by a suffix that is not a unit */
    UNITS_TOO_LARGE,    /* does not fit in 64 bits */
    UNITS_OUT_OF_RANGE, /* a number, but not one the parser allows (a fraction outside (0, 1]) */
};

/*
 * Each parser reads exactly len bytes of text (no NUL needed; a NUL inside is a stray
 * character) and stores nothing unless it returns UNITS_OK.
 *
 * duration: DIGITS[.DIGITS][unit] with unit ms, s, m, h or d (S, M, H, D too); a bare
 *   number is seconds ("30", "30s", "1.5m", "2h", "1d", "500ms"). Parts below a
 *   nanosecond are dropped.
 * size: DIGITS[k|m|g] (either case), where k = kunit, m = kunit^2, g = kunit^3: 1024 for
 *   sizes, 1000 for counts and rates; kunit 0 allows no suffix (a plain count).
 * fraction: a decimal number in (0, 1] as strtod reads it, starting with a digit or '.'
 *   ("0.05", ".5", "1e-1"); at most 63 bytes.
 */
enum units_status units_parse_duration(const char *text, size_t len, uint64_t *ns);
enum units_status units_parse_size(const char *text, size_t len, uint64_t kunit, uint64_t *value);
enum units_status units_parse_fraction(const char *text, size_t len, double *value);
/* share: a finite decimal number of 0 or more, read as fraction reads it (a weight). */
enum units_status units_parse_share(const char *text, size_t len, double *value);
/*
 * time: an instant as nanoseconds since the epoch, given as epoch seconds
 * (DIGITS[.DIGITS], "1767225600.5") or as RFC 3339 (YYYY-MM-DDTHH:MM:SS[.DIGITS] then Z or
 * +HH:MM / -HH:MM; 't' or a space for 'T', 'z' for 'Z'). Fields are range-checked.
 */
enum units_status units_parse_time(const char *text, size_t len, uint64_t *epoch_ns);

/* The shortest text of v (%.15g, %.16g or %.17g) that strtod reads back to v, into buf. */
void units_shortest(char *buf, size_t len, double v);

/* A TCP or UDP port written as len digits (at most 5, nothing else), 0 to 65535, into *port;
 * false for anything else. Callers that need a real port also refuse 0. */
bool units_parse_port(const char *text, size_t len, uint16_t *port);

#endif
