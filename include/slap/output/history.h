/* slap history's figures as a person, a script and a plot read them: the series of a store, a
 * series' runs, the changes found in each figure. The store (store/) fills these; here they
 * are only written. */
#ifndef SLAP_HISTORY_H
#define SLAP_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "slap/base/common.h"
#include "slap/judge/changes.h"
#include "slap/judge/limits.h"
#include "slap/output/results.h"

#define HISTORY_ID_LEN 12     /* a series' id: 12 hex digits of its key's hash */
#define HISTORY_FIGURE_MAX 24 /* "tps", "p99", "get.p99.9", "errors", "capacity" */
#define HISTORY_KIND_MAX 16   /* "run", "sweep", "rounds", "merge", "search", "compare" */
#define HISTORY_TEXT_MAX 1024 /* a series' servers or workload, as shown */

/* One stored run of a series. */
struct history_run {
    int64_t id;       /* the store's */
    uint64_t time_ms; /* when it started, ms since the epoch */
    char host[RESULTS_LABEL_MAX];
    char label[RESULTS_LABEL_MAX];
    char version[32];
    char kind[HISTORY_KIND_MAX];
    int exit_status;
    char limited_by[LIMITS_VERDICT_WORD_MAX]; /* "" when nothing was judged */
    int steady;                               /* 1 steady, 0 not, -1 not known */
    size_t parts;                             /* a merge: the runs it holds; else 0 */
};

/* One figure of a run: NaN when the run does not have it; low and high NaN without an
 * interval. Latencies in microseconds, tps and capacity in ops/s, errors a count. */
struct history_value {
    double value;
    double low, high;
};

/* One figure over a series' runs, and the changes found in it. */
struct history_figure {
    char name[HISTORY_FIGURE_MAX];
    bool higher_is_better;        /* tps, capacity: a fall is the worse change */
    struct history_value *values; /* one per run of the series, in its order (owned) */
    struct changes changes;       /* found over the values that are not NaN (owned) */
    size_t *at;                   /* changes.points[i].at as an index of runs (owned) */
    bool *host;                   /* [i]: the runs either side of change i were mostly limited
                                   * by slap's own host (verdict client or both), so the change
                                   * may be the host's, not the server's (owned; NULL: none) */
};

/* A series: one workload against one set of servers under one label. */
struct history_series {
    char id[HISTORY_ID_LEN + 1];
    char label[RESULTS_LABEL_MAX];
    char kind[HISTORY_KIND_MAX];
    char servers[HISTORY_TEXT_MAX];
    char workload[HISTORY_TEXT_MAX]; /* the settings slap merge checks, "-T 4 -c 64 ..." */
    size_t nruns;
    uint64_t first_ms, last_ms;
    struct history_run *runs; /* by time (owned; NULL in a listing of series) */
    size_t nfigures;
    struct history_figure *figures; /* (owned) */
};

void history_series_free(struct history_series *s);
/* Was change j of f marked as perhaps the host's (f->host)? */
bool history_change_host(const struct history_figure *f, size_t j);

/* A table of series, one line each: id, runs, first and last time, label, latest tps and p99,
 * and the latest change found in any figure ("p99 +21.4% at run 31", "none", or "needs N runs"
 * when every figure is too short to judge). Text from the store is shown by quote.h's rule. */
void history_write_list(FILE *out, const struct history_series *s, size_t n);
/* A series' head, its runs one line each (time, host, exit, limited_by, steady, the figures),
 * then the table of changes: figure, run where, before, after, change and its interval, p. */
void history_write_series(FILE *out, const struct history_series *s);
/* The same as JSON: a list of series, or one series with its runs and changes (in time order;
 * a change's at_run counts the series' runs from 1, as the text's #N) and the runs each figure
 * too short to judge needs. */
void history_write_list_json(FILE *out, const struct history_series *s, size_t n);
void history_write_series_json(FILE *out, const struct history_series *s);
/* One row per run (Otava's layout): time (ISO 8601, UTC), the attributes (run id, host, label,
 * version, kind, exit, limited_by, steady), then each figure; a header line first. */
void history_write_csv(FILE *out, const struct history_series *s);
/* Each figure over time, one panel each: its runs' values, their intervals, the levels between
 * changes and a mark at each change. */
void history_write_svg(FILE *out, const struct history_series *s);

/* The run (an index of the series' runs) where f's change j was found: f->at[j], or without
 * at the run of the value changes.points[j].at counts among those not NaN; nruns when none. */
size_t history_change_run(const struct history_figure *f, size_t nruns, size_t j);
/* Whether a figure's name is a latency's, in microseconds ("p99", "get.p99.9"): the others
 * (tps, capacity, errors) are rates and counts. */
bool history_figure_is_latency(const char *name);

/* Time as ISO 8601 in UTC, "2026-12-05T10:32:14Z", into buf (at least 21 bytes). */
void history_time(char *buf, size_t len, uint64_t ms);

#endif
