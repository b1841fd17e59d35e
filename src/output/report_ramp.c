/* --ramp and --control in the text report: a row per period (or group of periods) by target
 * rate, and --control's changes. */
#include "slap/output/report_ramp.h"

#include <math.h>
#include <stdlib.h>

#include "slap/base/hist.h"

#include "results_figures.h"

/* A row of the table: one period or several joined. */
struct ramp_row {
    double start_s;
    double seconds;
    uint64_t requests;
    uint64_t slap_late; /* of its answered requests, those mostly slap late to send */
    struct hist *h;
};

/* A row whose requests were this share or more slap_late: its P99 and above hold slap's own
 * lateness, not the server's (marked). */
#define RAMP_SLAP_LATE 0.01

static void ramp_columns(FILE *out, const struct run_desc *desc)
{
    fprintf(out, "\n%-10s %-14s %-15s", "Start(s)", "Target(ops/s)", "Achieved(ops/s)");
    for (uint32_t i = 0; i < desc->npercentiles; i++) {
        char name[32];
        snprintf(name, sizeof(name), "P%g(us)", desc->percentiles[i]);
        fprintf(out, " %-10s", name);
    }
    fprintf(out, " %-10s %s\n", "Max(us)", "Slap_late");
}

/* Whether the row's tail was slap's: its slap_late share at RAMP_SLAP_LATE or more. */
static bool row_late(const struct ramp_row *row)
{
    return row->h->count > 0 && (double)row->slap_late >= RAMP_SLAP_LATE * (double)row->h->count;
}

static void ramp_print_row(FILE *out, const struct results_doc *d, const struct ramp_row *row)
{
    const struct run_desc *desc = &d->desc;
    double end_s = row->start_s + row->seconds;
    fprintf(out, "%-10.3f %-14.0f %-15.0f", row->start_s,
            rate_plan_between(&desc->ramp, desc->tps, d->changes.items, d->changes.n, row->start_s,
                              end_s),
            per_second((double)row->requests, row->seconds));
    for (uint32_t i = 0; i < desc->npercentiles; i++) {
        uint64_t ns = row->h->count > 0 ? hist_percentile_ns(row->h, desc->percentiles[i]) : 0;
        fprintf(out, " %-10lld", (long long)llround(us(ns)));
    }
    fprintf(out, " %-10lld", (long long)llround(us(row->h->max_ns)));
    double share = row->h->count > 0 ? (double)row->slap_late / (double)row->h->count : 0;
    fprintf(out, " %.1f%%%s\n", share * 100, row_late(row) ? " *" : "");
}

/* How many of d's periods a row joins: 1 when each is asked for, else enough that the run
 * takes at most REPORT_RAMP_ROWS rows. */
static size_t periods_per_row(const struct results_doc *d, bool each_period)
{
    const struct results_period *periods = d->periods.items;
    if (each_period || d->periods.n <= REPORT_RAMP_ROWS) {
        return 1;
    }
    double run_s = periods[d->periods.n - 1].elapsed_s;
    double period_s = periods[0].seconds > 0 ? periods[0].seconds : 1.0;
    double per_row = ceil(run_s / REPORT_RAMP_ROWS / period_s - 1e-9);
    return per_row > 1 ? (size_t)per_row : 1;
}

/* --control: a line per change, "control: 2.004 s rate 20000 ops/s". */
static void report_changes(FILE *out, const struct results_doc *d)
{
    const struct rate_change *c = d->changes.items;
    for (size_t i = 0; i < d->changes.n; i++) {
        fprintf(out, "control: %.3f s %s", c[i].at_s, rate_action_name(c[i].action));
        if (c[i].action == RATE_SET || (c[i].action == RATE_RESUME && c[i].tps > 0)) {
            fprintf(out, " %.0f ops/s", c[i].tps);
        }
        fputc('\n', out);
    }
}

enum slap_status report_ramp(FILE *out, const struct results_doc *d, bool each_period)
{
    const struct results_period *periods = d->periods.items;
    if (d->changes.n > 0) {
        fputc('\n', out);
        report_changes(out, d);
    }
    if (!results_has_targets(d) || d->periods.n == 0) {
        fflush(out);
        return SLAP_OK;
    }
    struct ramp_row row = {0};
    if (hist_slab_alloc(&row.h, 1) != SLAP_OK) {
        return SLAP_ERROR;
    }
    size_t per_row = periods_per_row(d, each_period);
    bool marked = false;
    ramp_columns(out, &d->desc);
    for (size_t i = 0; i < d->periods.n; i += per_row) {
        size_t last = i + per_row < d->periods.n ? i + per_row - 1 : d->periods.n - 1;
        hist_reset(row.h);
        row.requests = 0;
        row.slap_late = 0;
        row.start_s = periods[i].elapsed_s - periods[i].seconds;
        row.start_s = row.start_s > 0 ? row.start_s : 0.0;
        for (size_t k = i; k <= last; k++) {
            for (int t = 0; t < STATS_TYPES; t++) {
                results_sparse_add(&periods[k].lat[t], row.h);
            }
            row.requests += stats_counters_requests(&periods[k].counters);
            row.slap_late += periods[k].counters.slap_late;
        }
        row.seconds = periods[last].elapsed_s - row.start_s;
        ramp_print_row(out, d, &row);
        marked = marked || row_late(&row);
    }
    if (marked) {
        fprintf(out,
                "* slap was late to send %.0f%% or more of the row's requests by 1 ms or "
                "more (Slap_late): its P99 and above are slap's lateness, not the server's\n",
                RAMP_SLAP_LATE * 100);
    }
    fflush(out);
    hist_slab_free(row.h, 1);
    return SLAP_OK;
}
