/*
 * The run as data: a document (configuration, figures, exactly mergeable histograms, periods,
 * sweep steps, the servers' own stats). Written by results_json.h and results_csv.h, read back
 * by results_read.h, combined by results_merge.h.
 */
#ifndef SLAP_RESULTS_H
#define SLAP_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "slap/base/common.h"
#include "slap/base/hist.h"
#include "slap/base/json.h"
#include "slap/judge/limits.h"
#include "slap/model/stats.h"
#include "slap/model/trace.h"
#include "slap/net/server_stats.h"
#include "slap/output/period.h"
#include "slap/output/run_desc.h"

/*
 * The "schema" member: the version of the results format. Rules (src/README.md, "output"):
 * every change to what a document holds raises it by one; a field added gets since = the new
 * version in its object's table (results_fields.c), a counter in SLAP_COUNTERS its since
 * column. A document of version v must hold every field whose since is at most v; a field
 * younger than the file is read as not known. 1: every format from 1d77c31 to 4004912 (the
 * fields of 1d77c31's required, the rest optional); 2: all of 4004912's fields required.
 * 3: an open loop's latency taken apart (late_to_send, held_by_server, slap_tail, the limits'
 * P99 parts and slap_tail_share, the slap_late counter, the host's steal).
 * A file of a version above RESULTS_SCHEMA is refused, naming both.
 */
#define RESULTS_SCHEMA 3
#define RESULTS_LABEL_MAX 256
#define RESULTS_MAX_ITEMS 100000        /* periods, steps or servers a file may hold */
#define RESULTS_STREAM_MAX (1ULL << 30) /* bytes slap merge copies aside from a pipe */
/* Periods a document read whole keeps (slap compare, slap plot): past it, neighbours are joined
 * two by two, so a run of any length reads in bounded memory. */
#define RESULTS_KEEP_PERIODS 2000
/* The largest count, number of bytes or nanoseconds a document holds, read or merged (2^53:
 * exact as a double, so rates and means computed from it are too). */
#define RESULTS_COUNT_MAX (1ULL << 53)
#define RESULTS_SCRATCH 2 /* histograms a document keeps to work in (results_doc's scratch) */

/* Each counter's index, for results_doc's counters_unknown. */
enum results_counter {
#define RESULTS_COUNTER_INDEX(name, show, since, meaning) RESULTS_COUNTER_##name,
    SLAP_COUNTERS(RESULTS_COUNTER_INDEX)
#undef RESULTS_COUNTER_INDEX
        RESULTS_COUNTERS
};
_Static_assert(RESULTS_COUNTERS <= 64, "counters_unknown holds a bit per counter");

struct intervals;

/* One --sweep step. */
struct results_step {
    struct intervals *intervals; /* its periods for its intervals (owned); NULL: none */
    double target_tps;
    char limited_by[LIMITS_VERDICT_WORD_MAX]; /* its limits_verdict_name; "mixed" when merged
                                               * hosts disagree; "" */
    char slo[12];         /* slap search: "held", "broken" or "undecided"; "" for a sweep's */
    bool interrupted;     /* a signal cut it short of --step_time (merged: any host's) */
    bool has_limits;      /* what limited the step was judged (older documents: not kept) */
    struct limits limits; /* owned; its verdict is limited_by's */
    double seconds;
    struct slap_counters counters;
    struct results_sparse lat[STATS_TYPES];
    uint64_t net_bytes[STATS_TYPES];
    uint64_t misses[STATS_TYPES];
};

/* One server's own stats around the run, and who read them (merged documents). */
struct results_server {
    char name[SERVER_NAME_MAX];
    char label[RESULTS_LABEL_MAX];
    struct server_stats_pair stats;
};

/* What tells one run from another: the host that ran it, its process and when it started.
 * The same run merged twice would count twice. */
struct results_run_id {
    char host[RESULTS_LABEL_MAX]; /* host name; an older file's label */
    uint64_t pid;                 /* 0 when not known (an older file) */
    uint64_t start_ms;            /* the measured start, ms since the epoch */
    /* The run's own figures, for a merge's line per host (since schema 2; an older file's are
     * its document's, taken when it is merged): */
    char label[RESULTS_LABEL_MAX];
    uint64_t start_at_ms; /* --start_at, ms since the epoch; 0: none */
    uint64_t requests;
    double tps;
    uint64_t errors;
    char limited_by[LIMITS_VERDICT_WORD_MAX]; /* the verdict's word; "" when nothing was judged */
    /* Its latency over every type, from the intended send time (a groups run's groups: a merge
     * of results_merge_input.group inputs; absent elsewhere): */
    bool has_latency;
    double p50_us, p90_us, p99_us, p999_us, max_us;
};

/* A --probe run beside a merged load: its latency from the intended send time, not added to
 * the load's (slap merge's "probes"). */
struct results_probe {
    char label[RESULTS_LABEL_MAX];
    uint64_t requests;
    double tps;
    double p50_us, p99_us, p999_us, max_us;
};

/* A --trace run's own figures: the report's trace_ lines (not read back, nor merged). */
struct results_trace {
    bool present;
    struct trace_counts counts; /* what the reader saw */
    struct trace_progress sent; /* what the measured run sent of it */
};

struct results_list {
    size_t n;
    size_t cap;
    void *items;
};

/* slap search's outcome (written as "search"; not read back: merge and plot take the steps). */
struct results_search {
    bool present;
    char objectives[128]; /* as given, "p99<1ms" */
    double capacity_tps;  /* the highest rate held; 0: none */
    double lowest_broken; /* the lowest rate broken; 0: none */
    bool exhausted;       /* the step budget ran out before the resolution */
    double client_limit;  /* > 0: slap itself was short of CPU at this rate */
    bool confirmed;       /* the capacity measured again held, the rate above it broke */
};

struct results_doc {
    struct run_desc desc; /* the run's settings and configuration (owned; read: from "config") */
    char label[RESULTS_LABEL_MAX];
    bool sweep;        /* a --sweep: steps, no periods */
    uint64_t start_ms; /* the measured start, ms since the epoch */
    uint64_t end_ms;
    double seconds; /* measured seconds */
    int signal;     /* the signal that interrupted the run, or 0 */
    int exit_status;
    double period_s;             /* length of a period; 0 when there are none */
    struct slap_stats *global;   /* the whole run (owned) */
    struct results_list periods; /* struct results_period */
    struct results_list steps;   /* struct results_step */
    struct results_list rounds;  /* struct results_period: --rounds, each round (elapsed_s: its
                                  * end); merged round by round when every input has as many */
    struct results_list servers; /* struct results_server */
    struct results_list runs;    /* struct results_run_id: one; a merged document's, each */
    struct results_list probes;  /* struct results_probe: a merge's --probe runs, kept apart */
    struct results_list changes; /* struct rate_change: --control's, in time order */
    uint64_t samples_written;    /* --samples */
    uint64_t samples_dropped;
    struct results_trace trace;   /* --trace */
    bool has_limits;              /* what limited the run was judged (a run that measured) */
    struct limits limits;         /* owned */
    struct intervals *intervals;  /* the periods kept for the intervals and steadiness (owned) */
    char precision[160];          /* --precision's outcome ("p99 within 4.1% after 23 s"); "" */
    struct results_search search; /* slap search's document */
    char *source;                 /* read documents: the file's name (owned), for messages */
    struct hist *scratch;         /* RESULTS_SCRATCH histograms the folds and the writers work in
                                   * (hist_slab_alloc; owned; every results_doc_init'd document's) */
    uint64_t counters_unknown;    /* bit 1 << RESULTS_COUNTER_x: a counter an older file lacked
                                   * (since above its schema): 0 in the figures, never printed
                                   * by the report (a 0 counter is not), null in the JSON */
    bool closed_part; /* merged: some part was a closed loop, so the whole has no target rate
                       * (groups whose loops differ) */
};

/* What is wrong with a label (a run's or a host's name in results): NULL when it is 1 to
 * RESULTS_LABEL_MAX - 1 bytes with no control character (what the reader takes back), else
 * why not. --label is checked with it, so what a run writes, merge reads back. */
const char *results_label_problem(const char *label);

/* An empty document whose global statistics (of every type, corrected and uncorrected) are
 * allocated. SLAP_ERROR when out of memory. */
enum slap_status results_doc_init(struct results_doc *d);
/* The request types a document shows: get and set (memaslap's) always, and every other type
 * that had events, as op_bit()s. */
uint32_t results_doc_types(const struct results_doc *d);
void results_doc_free(struct results_doc *d);

/* Does d's target rate change during the run (a --ramp, its description's, or --control's
 * changes), so that each period has its own? */
static inline bool results_has_targets(const struct results_doc *d)
{
    return d->desc.ramp.duration_ns > 0 || (d->changes.n > 0 && d->desc.tps > 0);
}
/* The target rate over period p of a --ramp or --control run (the plan's count over the period
 * over its length, rate_plan_between): requests per second. 0 without either. */
double results_period_target(const struct results_doc *d, const struct results_period *p);

/* Append p to d, its histograms handed over (p keeps none). */
enum slap_status results_move_period(struct results_doc *d, struct results_period *p);
/* Empty d's periods list (its histograms freed). */
void results_drop_periods(struct results_doc *d);
/* Append a period or a step made from stats (its lat histograms, counters, bytes and misses
 * per type). */
enum slap_status results_add_period(struct results_doc *d, double elapsed_s, double seconds,
                                    const struct slap_stats *s);
/* Add s (seconds long) into round index (0, 1, ...), which then ends at elapsed_s: a new round
 * when index is the number of rounds so far, else the one there. SLAP_ERROR when out of memory
 * or index is beyond the next. */
enum slap_status results_add_to_round(struct results_doc *d, size_t index, double elapsed_s,
                                      double seconds, const struct slap_stats *s);
/* Add s into the last period (answers that came after it ended); a first one if none. */
enum slap_status results_extend_last_period(struct results_doc *d, const struct slap_stats *s);
/* p added into d's last period (its end p's, its length the sum). SLAP_ERROR when d has none
 * or memory ran out. */
enum slap_status results_fold_into_last(struct results_doc *d, const struct results_period *p);
/* Every two neighbouring periods of d made one (a last odd one kept): half as many periods,
 * each twice as long. SLAP_ERROR when out of memory. */
enum slap_status results_halve_periods(struct results_doc *d);
enum slap_status results_add_step(struct results_doc *d, double target_tps, double seconds,
                                  const struct slap_stats *s);
/* Append a server's stats pair, read by label. */
enum slap_status results_add_server(struct results_doc *d, const char *name, const char *label,
                                    const struct server_stats_pair *pair);

/* Append this process's identity (host name, pid, d->start_ms) to the document's runs. */
enum slap_status results_add_this_run(struct results_doc *d);
/* A --probe run's latency into d's probes (its document, probe, read whole); one as read back. */
enum slap_status results_add_probe(struct results_doc *d, const struct results_doc *probe);
enum slap_status results_keep_probe(struct results_doc *d, const struct results_probe *p);
/* --control: a change of the run's rate, after those kept (at_s not before theirs). */
enum slap_status results_keep_change(struct results_doc *d, const struct rate_change *c);
/* Append a run's identity. */
enum slap_status results_add_run(struct results_doc *d, const struct results_run_id *id);
/* A document's latency over every type into id (has_latency); SLAP_ERROR: out of memory. */
enum slap_status results_run_latency(const struct results_doc *d, struct results_run_id *id);
/* A document of one run: its figures into id (runs[]'s, which a merge keeps per host). */
void results_run_figures(const struct results_doc *d, struct results_run_id *id);

/* Requests due: answered, unanswered, or answered with an error (the --max_errors P% base). */
uint64_t results_requests(const struct slap_stats *s);

#endif
