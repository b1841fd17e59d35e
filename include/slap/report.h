/* The text report in memaslap's layout, with slap's additions appended. */
#ifndef SLAP_REPORT_H
#define SLAP_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "slap/limits.h"
#include "slap/options.h"
#include "slap/stats.h"
#include "slap/trace.h"

/* Header block: servers, threads, concurrency, run time or execute number, ... */
void report_header(FILE *out, const struct slap_options *o);
/*
 * -S tables for period number period_no (1, 2, ...): Period and Global rows for
 * Get, Set and Total. Clears the screen first when terminal (the caller knows
 * whether out is one).
 */
void report_period(FILE *out, const struct slap_options *o, const struct slap_stats *period,
                   const struct slap_stats *global, uint64_t period_no, bool terminal);
/*
 * Final per-type blocks (and, when they differ, the uncorrected and hit/miss
 * blocks), counters, open-loop figures and the "Run time:" line; signal > 0
 * marks an interrupt. Percentile columns and lines follow o->percentiles. trace (or NULL)
 * adds a replay's lines; limits (or NULL) what limited the run, before the Run time line.
 */
/* A replay's figures: what the reader saw, and what the threads sent. */
struct report_trace {
    const struct trace_counts *counts;
    const struct trace_progress *sent;
};

void report_final(FILE *out, const struct slap_options *o, const struct slap_stats *global,
                  double seconds, int signal, const struct report_trace *trace,
                  const struct limits *limits);

/* The "Run time:" line (and "interrupted:" after a signal): report_final's last lines. */
void report_run_line(FILE *out, const struct slap_stats *global, double seconds, int signal);
/* "Get", "Set", ... for a stats type; "Total" for STATS_TYPES; NULL beyond. */
const char *report_type_name(int type);

/* --sweep: the header block with the sweep's rates, then the table's column names. */
void report_sweep_header(FILE *out, const struct slap_options *o);
/* One --sweep step: target and achieved rate, p50, p90, p99, p99.9 and max (corrected), and
 * what limited it (a limits_verdict_name; "-" when NULL or empty: not known). */
void report_sweep_row(FILE *out, double target, const struct slap_stats *s, double seconds,
                      const char *limited_by);

#endif
