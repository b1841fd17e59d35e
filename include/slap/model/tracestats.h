/* slap trace-stats: a trace's rate, operation mix, sizes, distinct keys and skew, no server. */
#ifndef SLAP_TRACESTATS_H
#define SLAP_TRACESTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slap/base/common.h"
#include "slap/model/trace.h"

#define TRACESTATS_EXACT_KEYS 3000000u /* default --exact-keys: about 48 MB of key table */
#define TRACESTATS_EXACT_KEYS_MAX 50000000u
#define TRACESTATS_ZIPF_MIN_COUNT 16 /* the Zipf fit uses keys read at least this often */
#define TRACESTATS_ZIPF_MIN_KEYS 10  /* and needs at least this many of them */
#define TRACESTATS_RATE_ROWS 10      /* rows of the rate-over-time table */

/*
 * The figures, gathered one request at a time in bounded memory:
 * - rate: requests per second of the trace, in a table of at most 2^20 time buckets (a
 *   bucket widens to 2, 4, ... seconds when the trace spans more seconds than that), and the
 *   exact peak second;
 * - operations: a count of each;
 * - sizes: key sizes (as sent, see trace_key) exactly, value sizes of the storage commands in
 *   a log-linear histogram (exact below 256 bytes, within 0.8% above);
 * - distinct keys: exact (64-bit fingerprints in a hash table) up to exact_keys keys, and a
 *   HyperLogLog of 2^14 registers (standard error 0.8%) used beyond;
 * - Zipf exponent: -slope of the least-squares line of log(count) against log(rank) of the
 *   keys read at least TRACESTATS_ZIPF_MIN_COUNT times, at ranks 1, 2, ... growing by about
 *   10% a step (so every part of the head weighs alike), from the counts of the key table.
 */
struct tracestats;

/* SLAP_ERROR when memory runs out. exact_keys >= 1: the most keys counted exactly. */
enum slap_status tracestats_init(struct tracestats **out, uint64_t exact_keys);
/* One request of the trace, which is at that second of it. Seconds never go backwards. */
void tracestats_add(struct tracestats *s, const struct trace_request *r, uint64_t second);
/* Distinct keys so far; *exact false when the table overflowed and this is the estimate. */
uint64_t tracestats_distinct(const struct tracestats *s, bool *exact);
/* The Zipf exponent estimate; false when fewer than TRACESTATS_ZIPF_MIN_KEYS keys qualify.
 * *keys: how many keys the fit used. */
bool tracestats_zipf(const struct tracestats *s, double *exponent, uint64_t *keys);

/* What a report shows (commands/tracestats_report.c prints it). */
struct tracestats_summary {
    uint64_t requests;
    uint64_t ops[OP_COUNT];
    uint64_t first_second, last_second; /* of the trace's requests (0 without any) */
    uint64_t peak_second, peak_count;   /* the busiest second, exactly */
    uint64_t exact_keys;                /* the most keys counted exactly */
};
void tracestats_summary(const struct tracestats *s, struct tracestats_summary *out);

/* One row of the rate over time: seconds [first_second, first_second + seconds). */
struct tracestats_rate_row {
    uint64_t first_second;
    uint64_t seconds;
    uint64_t requests;
};
/* The trace's seconds in at most TRACESTATS_RATE_ROWS rows of about equal length, into rows
 * (room for TRACESTATS_RATE_ROWS); how many (0 without requests). */
size_t tracestats_rates(const struct tracestats *s, struct tracestats_rate_row *rows);

/* Sizes in bytes: how many, and their percentiles. */
struct tracestats_sizes {
    uint64_t count;
    uint64_t p50, p90, p99, max;
};
/* Every request's key size, exactly. */
void tracestats_key_sizes(const struct tracestats *s, struct tracestats_sizes *out);
/* The storage commands' value sizes (within 0.8% above 256 bytes); false when none. */
bool tracestats_value_sizes(const struct tracestats *s, struct tracestats_sizes *out);
void tracestats_free(struct tracestats *s);

#endif
