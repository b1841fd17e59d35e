/* A run's periods kept for its percentiles' intervals and its steadiness: at most 60 segments. */
#ifndef SLAP_INTERVALS_H
#define SLAP_INTERVALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slap/base/common.h"
#include "slap/base/confidence.h"
#include "slap/base/hist.h"
#include "slap/base/steady.h"
#include "slap/model/stats.h"
#include "slap/output/period.h"

/*
 * Every period of a run goes into the last segment. A segment holds INTERVALS_WIDTH periods
 * (1 at first); when INTERVALS_SEGMENTS are full, neighbours merge in pairs and the width
 * doubles. So an hour of periods takes no more memory than two minutes of them, and every
 * segment but the last spans the same time. The histograms are kept sparse.
 */
#define INTERVALS_SEGMENTS 60
#define INTERVALS_LEVEL 0.95

/* What a segment keeps of a period: each type's latency, corrected and not, gets that hit and
 * missed, the send lag. */
enum {
    INTERVALS_LAT = 0,
    INTERVALS_RAW = INTERVALS_LAT + STATS_TYPES,
    INTERVALS_HIT = INTERVALS_RAW + STATS_TYPES,
    INTERVALS_MISS,
    INTERVALS_LAG,
    INTERVALS_SERIES,
};

struct intervals_segment {
    uint64_t periods; /* periods it holds */
    double seconds;
    uint64_t answers; /* requests answered (stats_counters_requests) */
    struct results_sparse series[INTERVALS_SERIES];
};

struct intervals {
    size_t n;                      /* segments in use */
    uint64_t width;                /* periods a full segment holds */
    uint64_t periods;              /* periods added */
    struct intervals_segment *seg; /* INTERVALS_SEGMENTS of them */
    struct hist *scratch;          /* one histogram the sums and views work in (hist_slab_alloc) */
};

/* Empty, its segments and scratch allocated: SLAP_ERROR when out of memory. intervals_free
 * after either. */
enum slap_status intervals_init(struct intervals *iv);
void intervals_free(struct intervals *iv);
/* Add a period: its statistics, or a results file's period (its corrected latency only). */
enum slap_status intervals_add_stats(struct intervals *iv, const struct slap_stats *s,
                                     double seconds);
enum slap_status intervals_add_period(struct intervals *iv, const struct results_period *p);
/* Add s into the last period (answers that came after it ended; a first period if none). */
enum slap_status intervals_extend(struct intervals *iv, const struct slap_stats *s, double seconds);

/*
 * The interval of percentile pct of whole, the run's histogram of the series in mask (bits
 * 1u << series... as a 64-bit mask) merged. From the segments by batch means when they hold
 * exactly whole's requests; otherwise (a run without periods, a series the periods do not
 * keep) from whole alone, by order statistics. iv may be NULL.
 */
typedef uint64_t intervals_mask;
#define INTERVALS_BIT(series) ((intervals_mask)1 << (series))
/* Every type of a view (INTERVALS_LAT or INTERVALS_RAW). */
intervals_mask intervals_types(int view);

/* The segments of one mask, read where they are (sparse): reused for every percentile of it.
 * Only their bounds are allocated; the segments a batch spans are merged when it is read. */
struct intervals_bounds {
    uint64_t count, min_ns, max_ns; /* of a segment's series in the mask, together */
};
struct intervals_view {
    const struct intervals *iv;
    intervals_mask mask;
    struct intervals_bounds *bounds; /* per segment */
    size_t n;                        /* segments used: 0 when they do not hold the run */
    const struct hist *whole;
};
enum slap_status intervals_view_open(struct intervals_view *v, const struct intervals *iv,
                                     intervals_mask mask, const struct hist *whole);
void intervals_view_ci(const struct intervals_view *v, double pct, struct ci_result *r);
void intervals_view_close(struct intervals_view *v);

/* The interval in one call (a view opened and closed): out of memory gives order statistics. */
void intervals_ci(const struct intervals *iv, intervals_mask mask, const struct hist *whole,
                  double pct, struct ci_result *r);

/* Was the run steady? Its segments' rate and median (corrected latency of every type). */
void intervals_steady(const struct intervals *iv, struct steady_verdict *v);

/* "95%, batch means of 30 batches of periods" (or of the method that gave r) into buf. */
void intervals_describe(const struct ci_result *r, char *buf, size_t len);

#endif
