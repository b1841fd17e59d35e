/* The text report in memaslap's layout, with slap's additions appended. */
#ifndef SLAP_REPORT_H
#define SLAP_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "slap/judge/limits.h"
#include "slap/model/stats.h"
#include "slap/model/trace.h"
#include "slap/output/intervals.h"
#include "slap/output/run_desc.h"

/* Header block: servers, threads, concurrency, run time or execute number, ... */
void report_header(FILE *out, const struct run_desc *desc);
/*
 * -S tables for period number period_no (1, 2, ...): Period and Global rows for
 * Get, Set and Total. Clears the screen first when terminal (the caller knows
 * whether out is one). SLAP_ERROR, nothing written, when the Total's histogram (mapped for the
 * call, its pages taken only as buckets are merged into it) cannot be had.
 */
enum slap_status report_period(FILE *out, const struct run_desc *desc,
                               const struct slap_stats *period, const struct slap_stats *global,
                               uint64_t period_no, bool terminal);
/*
 * Final per-type blocks (and, when they differ, the uncorrected and hit/miss
 * blocks), counters, open-loop figures and the "Run time:" line; signal > 0
 * marks an interrupt. Percentile columns and lines follow desc->percentiles. trace (or NULL)
 * adds a replay's lines; limits (or NULL) what limited the run, and preload_evictions (when
 * above 0) its line, before the Run time line.
 */
/* A replay's figures: what the reader saw, and what the threads sent. */
struct report_trace {
    const struct trace_counts *counts;
    const struct trace_progress *sent;
};

/* What the report says of how far its percentiles can be trusted. */
struct report_confidence {
    const struct intervals *intervals; /* the run's periods; NULL: none (order statistics) */
    const char *precision;             /* --precision's outcome, or NULL */
};

/* The run's latency as the final Total block shows it (corrected; uncorrected with --latency
 * uncorrected in an open loop) into total; the series of its intervals. */
intervals_mask report_main_total(const struct run_desc *desc, const struct slap_stats *s,
                                 struct hist *total);

/* conf (or NULL: no periods, no steady line) gives each percentile its interval, a
 * "percentile intervals:" line naming the method, "steady:" and "precision:" lines.
 * SLAP_ERROR, nothing written, as report_period. */
enum slap_status report_final(FILE *out, const struct run_desc *desc,
                              const struct slap_stats *global, double seconds, int signal,
                              const struct report_trace *trace, const struct limits *limits,
                              double preload_evictions, const struct report_confidence *conf);
/* "preload_evictions: N (...)" when the servers evicted N > 0 items during the preload or
 * warm-up; nothing otherwise. */
void report_preload_evictions(FILE *out, double evictions);

/* The "Run time:" line (and "interrupted:" after a signal): report_final's last lines. */
void report_run_line(FILE *out, const struct slap_stats *global, double seconds, int signal);
/* --timestamps=kernel: slap's own delay, from the kernel's arrival of an answer to slap's read
 * of it ("own_delay: p50 3 us, p99 41 us, max 900 us (...)"); nothing if no answer had a
 * stamp. */
void report_own_delay(FILE *out, const struct hist *own);
/* Connections made while measuring (--reconnect_every, -R): "connect: N, p50 .., p99 ..,
 * max .. (opened to ready)"; nothing when there were none. */
void report_connect_time(FILE *out, const struct hist *connect);
/* "interrupted: SIGINT" (SIGTERM, SIGHUP) when signal > 0; nothing otherwise. */
void report_interrupted(FILE *out, int signal);

/* --sweep: the header block with the sweep's rates (a "preload:" line may follow). */
void report_sweep_header(FILE *out, const struct run_desc *desc);
/* The sweep table's column names, after a blank line: the percentiles follow desc->percentiles. */
void report_sweep_columns(FILE *out, const struct run_desc *desc);

/* One --sweep step, as its table row shows it. */
struct report_step {
    double target;                     /* ops/s asked for */
    const struct slap_stats *stats;    /* what it measured */
    double seconds;                    /* for how long */
    const char *limited_by;            /* a limits_verdict_name; "-" when NULL or empty */
    bool interrupted;                  /* a signal cut it short of --step_time */
    const struct intervals *intervals; /* its periods, for the intervals; NULL: none */
};

/* A step's row: target and achieved rate, desc->percentiles and max (corrected), what limited it;
 * a step cut short ends with "interrupted after 0.84s of 2s". SLAP_ERROR, nothing written, as
 * report_period. */
enum slap_status report_sweep_row(FILE *out, const struct run_desc *desc,
                                  const struct report_step *step);

#endif
