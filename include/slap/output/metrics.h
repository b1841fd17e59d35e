/* The run in Prometheus' text exposition format: what --metrics serves and --push sends. */
#ifndef SLAP_METRICS_H
#define SLAP_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "slap/base/common.h"
#include "slap/judge/limits.h"
#include "slap/model/schedule.h"
#include "slap/model/stats.h"
#include "slap/output/run_desc.h"

/*
 * The latency histogram's buckets: slap's own bucket edges, 8 to a power of two (each bucket
 * 1/8 of its lower bound wide) from 1 us to 68.7 s, then +Inf. A bucket's "le" is the largest
 * whole nanosecond it holds, so its count is exact: every recorded value at or below it.
 */
#define METRICS_OCTAVE_FIRST 10 /* 2^10 ns: about 1 us */
#define METRICS_OCTAVE_LAST 36  /* 2^36 ns: about 68.7 s */
#define METRICS_PER_OCTAVE 8
#define METRICS_BUCKETS                                                                            \
    ((METRICS_OCTAVE_LAST - METRICS_OCTAVE_FIRST) * METRICS_PER_OCTAVE + 1) /* and +Inf */

/* What the text says of a run: the run so far, or (limits set) the finished run. */
struct metrics_input {
    const char *label;              /* --label: the "label" of every series */
    const struct run_desc *desc;    /* its workload settings label slap_run_info; NULL: none */
    const struct slap_stats *stats; /* the run so far (or all of it) */
    double elapsed_s;               /* of the measured part, up to these statistics */
    double target_tps;              /* -P; 0: closed loop */
    double cpu_user_s;              /* slap's process so far (getrusage) */
    double cpu_sys_s;
    bool finished;               /* the run is over: these are its final figures */
    const struct limits *limits; /* the verdict and slap's CPU over the run; NULL: not known */
    double start_time_s;         /* Unix time the measured part began; 0: not known (no series) */
    double end_time_s;           /* Unix time it ended, once finished; 0: not known (no series) */
    const struct rate_state *control; /* --control: the run's rate now; NULL: no control */
};

/* The upper bound (ns, inclusive) of histogram bucket i, 0 <= i < METRICS_BUCKETS. */
uint64_t metrics_bucket_le_ns(size_t i);

/*
 * Write the run as Prometheus text format 0.0.4 (# HELP, # TYPE, samples), every name
 * starting slap_. SLAP_ERROR if writing to out failed.
 */
enum slap_status metrics_write(FILE *out, const struct metrics_input *in);

#endif
