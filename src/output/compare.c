/*
 * slap compare's figures: each side's throughput and percentiles, and each side's difference
 * from the first with its interval, judged as the design allows (compare.h: paired rounds,
 * replicates, or one run a side, shown and not judged).
 */
#include "slap/output/compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/json.h"
#include "slap/base/ranks.h"
#include "slap/output/report.h"
#include "slap/output/results_merge.h"
#include "slap/output/rounds.h"

#define SHORT_PERIOD 0.5 /* a period shorter than this share of period_s has no rate of its own */

/* ---- one run a side: the interval within it ------------------------------------------- */

/*
 * What a run's intervals come from: its rounds that can stand beside each other (two or
 * more: copied into whole, which the caller frees), else its periods. A round cut short, or
 * one where the server stopped answering, is left out (rounds_flawed), as the report does.
 */
static const struct results_list *batches_of(const struct results_doc *d,
                                             struct results_list *whole)
{
    const struct results_period *rounds = d->rounds.items;
    char why[96];
    *whole = (struct results_list){0};
    whole->items = calloc(d->rounds.n > 0 ? d->rounds.n : 1, sizeof(*rounds));
    if (whole->items == NULL) {
        return &d->periods;
    }
    for (size_t i = 0; i < d->rounds.n; i++) {
        if (!rounds_flawed(&d->desc, &rounds[i], why, sizeof(why))) {
            ((struct results_period *)whole->items)[whole->n++] = rounds[i];
        }
    }
    whole->cap = d->rounds.n;
    return whole->n >= 2 ? whole : &d->periods;
}

/* Each batch's latency of every type, into hists[0..n) (pointed to by ptrs). */
static void batch_hists(const struct results_list *list, struct hist *hists,
                        const struct hist **ptrs)
{
    const struct results_period *items = list->items;
    for (size_t i = 0; i < list->n; i++) {
        hist_reset(&hists[i]);
        for (int t = 0; t < STATS_TYPES; t++) {
            results_sparse_add(&items[i].lat[t], &hists[i]);
        }
        ptrs[i] = &hists[i];
    }
}

/* A mean's interval (ci_mean over values) set around r's value, as batch means of n, kept
 * within [floor_v, ceil_v]: what was seen. */
static void interval_from_mean(const double *values, size_t n, double floor_v, double ceil_v,
                               struct ci_result *r)
{
    double mean, low, high;
    ci_mean(values, n, COMPARE_LEVEL, &mean, &low, &high, NULL);
    double half = (high - low) / 2.0, value = (double)r->value_ns;
    r->method = CI_BATCH_MEANS;
    r->batches = (unsigned)n;
    low = fmax(value - half, floor_v);
    high = fmin(value + half, ceil_v);
    r->low_ns = (uint64_t)floor(fmin(low, value));
    r->high_ns = (uint64_t)ceil(fmax(high, value));
}

/* Percentile pct of a run: ci_percentile over its periods, or over its rounds with the
 * interval of the rounds' own percentiles (each round a batch), within the run's min and max. */
static void run_percentile(const struct results_list *list, bool rounds, struct hist *hists,
                           const struct hist **ptrs, double pct, double *values,
                           struct ci_result *r)
{
    ci_percentile(ptrs, list->n, pct, COMPARE_LEVEL, r);
    if (!rounds || !r->estimable) {
        return;
    }
    uint64_t min_ns = UINT64_MAX, max_ns = 0;
    for (size_t i = 0; i < list->n; i++) {
        values[i] = (double)hist_percentile_ns(&hists[i], pct);
        if (hists[i].count > 0) {
            min_ns = hists[i].min_ns < min_ns ? hists[i].min_ns : min_ns;
            max_ns = hists[i].max_ns > max_ns ? hists[i].max_ns : max_ns;
        }
    }
    interval_from_mean(values, list->n, (double)min_ns, (double)max_ns, r);
}

/* Throughput of a run: its ops over its seconds, the interval from its batches' rates
 * (periods much shorter than the others, the answers after the last, left out). */
static void run_tps(const struct results_doc *d, const struct results_list *list, bool rounds,
                    double *values, struct ci_result *r)
{
    const struct results_period *items = list->items;
    size_t n = 0;
    double seconds = d->seconds > 0 ? d->seconds : 1.0;
    *r = (struct ci_result){.method = CI_NOT_ESTIMABLE, .needed = 2};
    r->value_ns = (uint64_t)llround((double)stats_counters_ops(&d->global->counters) / seconds);
    for (size_t i = 0; i < list->n; i++) {
        bool whole = rounds || items[i].seconds >= SHORT_PERIOD * d->period_s;
        if (whole && items[i].seconds > 0) {
            values[n++] = (double)stats_counters_ops(&items[i].counters) / items[i].seconds;
        }
    }
    r->requests = n;
    if (n >= 2) {
        r->estimable = true;
        interval_from_mean(values, n, 0.0, INFINITY, r);
    }
}

/* Every figure of a side of one run, with the interval within it. */
static enum slap_status fill_within(struct compare_table *t, size_t i, const struct results_doc *d)
{
    struct results_list whole;
    const struct results_list *list = batches_of(d, &whole);
    bool rounds = list == &whole;
    size_t n = list->n;
    struct hist *hists = NULL;
    const struct hist **ptrs = calloc(n > 0 ? n : 1, sizeof(*ptrs));
    double *values = calloc(n > 0 ? n : 1, sizeof(*values));
    if (hist_slab_alloc(&hists, n > 0 ? n : 1) != SLAP_OK || ptrs == NULL || values == NULL) {
        hist_slab_free(hists, n > 0 ? n : 1);
        free(ptrs);
        free(values);
        free(whole.items);
        return SLAP_ERROR;
    }
    batch_hists(list, hists, ptrs);
    t->runs[i].rounds = rounds;
    t->runs[i].batches = n;
    run_tps(d, list, rounds, values, &t->rows[0].run[i]);
    for (size_t r = 1; r < t->nrows; r++) {
        run_percentile(list, rounds, hists, ptrs, t->rows[r].pct, values, &t->rows[r].run[i]);
    }
    hist_slab_free(hists, n > 0 ? n : 1);
    free(ptrs);
    free(values);
    free(whole.items);
    return SLAP_OK;
}

/* Side i against the first, within each run: shown, not judged. */
static void diff_within(struct compare_row *row, size_t i)
{
    struct compare_diff *d = &row->diff[i];
    ci_compare(&row->run[0], &row->run[i], COMPARE_LEVEL, &d->within);
    *d = (struct compare_diff){.estimable = d->within.estimable,
                               .diff = d->within.diff_ns,
                               .low = d->within.low_ns,
                               .high = d->within.high_ns,
                               .relative = d->within.relative,
                               .within = d->within};
}

/* ---- replicates: each run (or round) one value ---------------------------------------- */

/* Requests a replicate needs for a percentile to be its own, not its maximum: CI_TAIL_MIN
 * beyond it on its smaller side (p99: 1000). */
static uint64_t requests_for(double pct)
{
    double q = pct / 100.0, tail = q < 1.0 - q ? q : 1.0 - q;
    double need = CI_TAIL_MIN / tail;
    return (uint64_t)ceil(need - need * 1e-9);
}

/* A side's values of every figure: [row * n + k] for its k-th replicate; its pooled figures
 * into t->rows[..].run[side]; the fewest requests a replicate held into *fewest. */
static void side_values(struct compare_table *t, size_t side, const struct compare_side *s,
                        double *values, struct hist *one, struct hist *pooled, uint64_t *fewest)
{
    uint64_t ops = 0;
    double seconds = 0.0;
    hist_reset(pooled);
    *fewest = UINT64_MAX;
    for (size_t k = 0; k < s->n; k++) {
        const struct results_doc *d = s->docs[k];
        double sec = d->seconds > 0 ? d->seconds : 1.0;
        uint64_t n_ops = stats_counters_ops(&d->global->counters);
        report_main_total(&d->desc, d->global, one);
        hist_merge(pooled, one);
        *fewest = one->count < *fewest ? one->count : *fewest;
        ops += n_ops;
        seconds += sec;
        values[k] = (double)n_ops / sec;
        for (size_t r = 1; r < t->nrows; r++) {
            values[r * s->n + k] = (double)hist_percentile_ns(one, t->rows[r].pct);
        }
    }
    t->rows[0].run[side] =
        (struct ci_result){.value_ns = (uint64_t)llround((double)ops / seconds), .requests = s->n};
    for (size_t r = 1; r < t->nrows; r++) {
        t->rows[r].run[side] = (struct ci_result){
            .value_ns = hist_percentile_ns(pooled, t->rows[r].pct), .requests = pooled->count};
    }
}

/* The rank interval of b - a at level into the fields given. */
static enum slap_status rank_shift_of(const double *a, const double *b, size_t na, size_t nb,
                                      bool paired, double level, struct rank_shift *out)
{
    if (!paired) {
        return rank_two_sample(a, na, b, nb, level, out);
    }
    double d[RANKS_MAX];
    for (size_t k = 0; k < na; k++) {
        d[k] = b[k] - a[k];
    }
    return rank_paired(d, na, level, out);
}

/* Side i against the first from their replicates' values of one row. */
static enum slap_status diff_ranks(struct compare_table *t, size_t r, size_t i, const double *a,
                                   size_t na, const double *b, size_t nb, uint64_t fewest)
{
    struct compare_row *row = &t->rows[r];
    struct compare_diff *d = &row->diff[i];
    bool paired = t->mode == COMPARE_PAIRED;
    struct rank_shift at, gate, together;
    *d = (struct compare_diff){.judged = true};
    if (!row->tps && fewest < requests_for(row->pct)) {
        d->requests_needed = requests_for(row->pct);
        return SLAP_OK;
    }
    if (rank_shift_of(a, b, na, nb, paired, COMPARE_LEVEL, &at) != SLAP_OK ||
        rank_shift_of(a, b, na, nb, paired, t->gate_level, &gate) != SLAP_OK ||
        rank_shift_of(a, b, na, nb, paired, t->together_level, &together) != SLAP_OK) {
        return SLAP_ERROR;
    }
    if (at.estimable && !at.significant) {
        d->detectable = rank_detectable(&at);
        d->needed_for_estimate =
            rank_needed_for(&at, na < nb ? na : nb, at.estimate, paired, COMPARE_LEVEL);
    }
    d->together_estimable = together.estimable;
    d->together_significant = together.significant;
    d->together_needed = together.needed;
    double base = (double)row->run[0].value_ns;
    d->estimable = at.estimable;
    d->diff = at.estimate;
    d->low = at.low;
    d->high = at.high;
    d->relative = base > 0 ? at.estimate / base : 0.0;
    d->significant = at.significant;
    d->achieved = at.achieved;
    d->needed = at.needed;
    d->gate_estimable = gate.estimable;
    d->gate_significant = gate.significant;
    d->gate_needed = gate.needed;
    return SLAP_OK;
}

/* ---- the table ------------------------------------------------------------------------ */

/* Does every document of every side list percentile pct? */
static bool listed_everywhere(const struct compare_side *sides, size_t n, double pct)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < sides[i].n; k++) {
            const struct run_desc *desc = &sides[i].docs[k]->desc;
            bool found = false;
            for (uint32_t q = 0; q < desc->npercentiles && !found; q++) {
                found = desc->percentiles[q] == pct;
            }
            if (!found) {
                return false;
            }
        }
    }
    return true;
}

/* The percentiles every run lists, in the first run's order, named into rows. */
static size_t common_percentiles(struct compare_table *t, const struct compare_side *sides,
                                 size_t n)
{
    const struct run_desc *a = &sides[0].docs[0]->desc;
    size_t rows = 1;
    for (uint32_t p = 0; p < a->npercentiles && rows < COMPARE_MAX_ROWS; p++) {
        if (listed_everywhere(sides, n, a->percentiles[p])) {
            t->rows[rows].pct = a->percentiles[p];
            snprintf(t->rows[rows].name, COMPARE_NAME_MAX, "p%g", a->percentiles[p]);
            rows++;
        }
    }
    return rows;
}

/* Can the sides be compared at all? A side's runs must be one workload (they are replicates
 * of one thing); sweeps have no single figure. */
static enum slap_status check_sides(const struct compare_side *sides, size_t n, bool paired,
                                    char *err, size_t err_len)
{
    if (n < 2 || n > COMPARE_MAX_RUNS) {
        snprintf(err, err_len, "compare 2 to %d sides", COMPARE_MAX_RUNS);
        return SLAP_ERROR;
    }
    for (size_t i = 0; i < n; i++) {
        const struct compare_side *s = &sides[i];
        if (s->n == 0 || s->n > RANKS_MAX || (paired && s->n != sides[0].n)) {
            snprintf(err, err_len, "'%s' has %zu runs (1 to %d%s)", s->name, s->n, RANKS_MAX,
                     paired ? ", as many as every other side" : "");
            return SLAP_ERROR;
        }
        for (size_t k = 0; k < s->n; k++) {
            if (s->docs[k]->sweep) {
                snprintf(err, err_len, "'%s' is a sweep: compare runs",
                         s->docs[k]->source != NULL ? s->docs[k]->source : s->name);
                return SLAP_ERROR;
            }
            char why[COMPARE_DIFFERS_MAX];
            if (k > 0 &&
                results_same_workload(s->docs[0], s->docs[k], why, sizeof(why)) != SLAP_OK) {
                snprintf(err, err_len, "the runs of '%s' are not one workload: %s", s->name, why);
                return SLAP_ERROR;
            }
        }
    }
    return SLAP_OK;
}

/* Were all of one side's runs made before all of the other's? */
static bool made_apart(const struct compare_side *a, const struct compare_side *b)
{
    uint64_t a_first = UINT64_MAX, a_last = 0, b_first = UINT64_MAX, b_last = 0;
    for (size_t k = 0; k < a->n; k++) {
        a_first = a->docs[k]->start_ms < a_first ? a->docs[k]->start_ms : a_first;
        a_last = a->docs[k]->end_ms > a_last ? a->docs[k]->end_ms : a_last;
    }
    for (size_t k = 0; k < b->n; k++) {
        b_first = b->docs[k]->start_ms < b_first ? b->docs[k]->start_ms : b_first;
        b_last = b->docs[k]->end_ms > b_last ? b->docs[k]->end_ms : b_last;
    }
    if (a_first == 0 || b_first == 0) {
        return false; /* a file that does not say when it ran */
    }
    return a_last <= b_first || b_last <= a_first;
}

/* Every side's values and each difference from the first, by ranks. */
static enum slap_status fill_replicates(struct compare_table *t, const struct compare_side *sides,
                                        size_t n)
{
    double *values[COMPARE_MAX_RUNS] = {NULL};
    uint64_t fewest[COMPARE_MAX_RUNS];
    struct hist *scratch = NULL;
    enum slap_status st = hist_slab_alloc(&scratch, 2);
    for (size_t i = 0; i < n && st == SLAP_OK; i++) {
        values[i] = malloc(t->nrows * sides[i].n * sizeof(double));
        if (values[i] == NULL) {
            st = SLAP_ERROR;
            break;
        }
        t->runs[i].replicates = sides[i].n;
        side_values(t, i, &sides[i], values[i], &scratch[0], &scratch[1], &fewest[i]);
    }
    for (size_t r = 0; r < t->nrows && st == SLAP_OK; r++) {
        const double *a = values[0] + r * sides[0].n;
        for (size_t i = 1; i < n && st == SLAP_OK; i++) {
            uint64_t least = fewest[i] < fewest[0] ? fewest[i] : fewest[0];
            st = diff_ranks(t, r, i, a, sides[0].n, values[i] + r * sides[i].n, sides[i].n, least);
        }
    }
    for (size_t i = 0; i < n; i++) {
        free(values[i]);
    }
    hist_slab_free(scratch, 2);
    return st;
}

/* One run a side: each run's own interval, the differences shown. */
static enum slap_status fill_within_runs(struct compare_table *t, const struct compare_side *sides,
                                         size_t n)
{
    for (size_t i = 0; i < n; i++) {
        t->runs[i].replicates = 1;
        if (fill_within(t, i, sides[i].docs[0]) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t i = 1; i < n; i++) {
            diff_within(&t->rows[r], i);
        }
    }
    return SLAP_OK;
}

/*
 * Sides whose runs were all made before the other's are shown, not judged: the host's change
 * in between is a difference no interval holds (measured: identical files made minutes apart
 * called different 12.4% of the time where 5% is promised; alternately, 1.1%).
 */
static void unjudge_apart(struct compare_table *t)
{
    for (size_t i = 1; i < t->nruns; i++) {
        for (size_t r = 0; r < t->nrows && t->apart[i]; r++) {
            t->rows[r].diff[i].judged = false;
            t->rows[r].diff[i].significant = false;
        }
    }
}

/* The shortest run (or --live round) of any side, in seconds. */
static double shortest_of(const struct compare_side *sides, size_t n)
{
    double shortest = INFINITY;
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < sides[i].n; k++) {
            double sec = sides[i].docs[k]->seconds;
            shortest = sec > 0 && sec < shortest ? sec : shortest;
        }
    }
    return shortest;
}

static enum compare_mode mode_of(const struct compare_side *sides, size_t n, bool paired)
{
    if (paired) {
        return COMPARE_PAIRED;
    }
    for (size_t i = 0; i < n; i++) {
        if (sides[i].n > 1) {
            return COMPARE_REPLICATES;
        }
    }
    return COMPARE_WITHIN_RUN;
}

enum slap_status compare_build(struct compare_table *t, const struct compare_side *sides, size_t n,
                               bool paired, double gate_level, char *err, size_t err_len)
{
    memset(t, 0, sizeof(*t));
    if (check_sides(sides, n, paired, err, err_len) != SLAP_OK) {
        return SLAP_ERROR;
    }
    t->mode = mode_of(sides, n, paired);
    t->gate_level = gate_level > 0.0 && gate_level < 1.0 ? gate_level : COMPARE_LEVEL;
    t->shortest_s = shortest_of(sides, n);
    t->nruns = n;
    snprintf(t->rows[0].name, COMPARE_NAME_MAX, "tps");
    t->rows[0].tps = true;
    t->nrows = common_percentiles(t, sides, n);
    t->together_level = compare_gate_level(2, t->nrows);
    for (size_t i = 0; i < n; i++) {
        t->runs[i].name = sides[i].name;
        if (i > 0) {
            results_workload_diff(sides[0].docs[0], sides[i].docs[0], t->differs[i],
                                  sizeof(t->differs[i]));
            t->apart[i] = t->mode == COMPARE_REPLICATES && made_apart(&sides[0], &sides[i]);
        }
    }
    enum slap_status st = t->mode == COMPARE_WITHIN_RUN ? fill_within_runs(t, sides, n)
                                                        : fill_replicates(t, sides, n);
    if (st != SLAP_OK) {
        snprintf(err, err_len, "out of memory");
    }
    unjudge_apart(t);
    return st;
}

/* ---- text ----------------------------------------------------------------------------- */

/* A figure's value as the table shows it: ops/s, or microseconds. */
static double shown(const struct compare_row *row, double v)
{
    return row->tps ? v : v / 1000.0;
}

static const char *unit_of(const struct compare_row *row)
{
    return row->tps ? "ops/s" : "us";
}

/* "12.3", or "12.3*" for a percentile of a run too short for its interval. */
static void value_text(char *buf, size_t len, const struct compare_row *row,
                       const struct ci_result *r, enum compare_mode mode)
{
    bool short_run =
        mode == COMPARE_WITHIN_RUN && !r->estimable && !row->tps && r->requests < r->needed;
    snprintf(buf, len, "%.1f%s", shown(row, (double)r->value_ns), short_run ? "*" : "");
}

/* The last column: yes, cannot tell (too few replicates, or none found: the notes say what
 * could have been), no (every replicate the same), or not judged (one run a side). */
static const char *verdict_text(const struct compare_diff *d)
{
    if (!d->judged) {
        return "not judged";
    }
    if (d->estimable && !d->significant && d->low == 0.0 && d->high == 0.0) {
        return "no"; /* every pair the same (a rate set by -P): no change at all */
    }
    return d->estimable && d->significant ? "yes" : "cannot tell";
}

static void print_row(FILE *out, const struct compare_table *t, const struct compare_row *row,
                      size_t i)
{
    const struct compare_diff *d = &row->diff[i];
    char a[32], b[32], interval[64] = "n/a";
    value_text(a, sizeof(a), row, &row->run[0], t->mode);
    value_text(b, sizeof(b), row, &row->run[i], t->mode);
    if (d->estimable) {
        snprintf(interval, sizeof(interval), "[%+.1f, %+.1f]", shown(row, d->low),
                 shown(row, d->high));
    }
    if (d->judged && !d->estimable) { /* no estimate of B - A: none shown */
        fprintf(out, "%-8s %-6s %12s %12s %12s %9s %26s  %s\n", row->name, unit_of(row), a, b,
                "n/a", "n/a", interval, verdict_text(d));
        return;
    }
    fprintf(out, "%-8s %-6s %12s %12s %+12.1f %+8.1f%% %26s  %s\n", row->name, unit_of(row), a, b,
            shown(row, d->diff), d->relative * 100.0, interval, verdict_text(d));
}

/* Where side i's figures come from. */
static void print_source(FILE *out, const char *letter, const struct compare_table *t, size_t i)
{
    const struct compare_run *run = &t->runs[i];
    if (t->mode == COMPARE_PAIRED) {
        fprintf(out, "%s = %s (%zu rounds)\n", letter, run->name, run->replicates);
        return;
    }
    if (t->mode == COMPARE_REPLICATES) {
        fprintf(out, "%s = %s (%zu run%s)\n", letter, run->name, run->replicates,
                run->replicates == 1 ? "" : "s");
        return;
    }
    bool few = !run->rounds && run->batches < CI_BATCHES_MIN;
    fprintf(out, "%s = %s (one run: intervals within it, from %zu %s%s)\n", letter, run->name,
            run->batches, run->rounds ? "rounds" : "periods",
            few ? ": too few for batch means, percentiles by order statistics, optimistic" : "");
}

/* The percentiles some side has too few requests or runs for: what they need. */
static void print_insufficient(FILE *out, const struct compare_table *t, size_t i)
{
    for (size_t r = 0; r < t->nrows; r++) {
        const struct compare_row *row = &t->rows[r];
        const struct compare_diff *d = &row->diff[i];
        if (t->mode == COMPARE_WITHIN_RUN) {
            const struct ci_result *c[2] = {&row->run[0], &row->run[i]};
            for (int k = 0; k < 2 && r > 0; k++) {
                if (!c[k]->estimable && c[k]->needed != CI_NEEDED_NEVER) {
                    fprintf(out, "* %s of %s cannot be estimated: %llu requests, %llu needed\n",
                            row->name, t->runs[k == 0 ? 0 : i].name,
                            (unsigned long long)c[k]->requests, (unsigned long long)c[k]->needed);
                }
            }
        } else if (d->requests_needed > 0) {
            fprintf(out,
                    "* %s cannot be told: a %s of one side holds fewer than the %llu "
                    "requests it needs\n",
                    row->name, t->mode == COMPARE_PAIRED ? "round" : "run",
                    (unsigned long long)d->requests_needed);
        } else if (!d->estimable) {
            fprintf(out, "* %s cannot be told at 95%% from %zu %s: %zu needed\n", row->name,
                    t->mode == COMPARE_PAIRED ? t->runs[i].replicates : t->runs[i].replicates,
                    t->mode == COMPARE_PAIRED ? "pairs of rounds" : "runs a side", d->needed);
        }
    }
}

/* What the replicates of side i are called: "pairs of rounds", "runs a side". */
static const char *replicates_name(const struct compare_table *t)
{
    return t->mode == COMPARE_PAIRED ? "pairs of rounds" : "runs a side";
}

/* A judged figure where nothing was found: the change that would have been, and the
 * replicates the change estimated needs. */
static void print_unseen(FILE *out, const struct compare_table *t, const struct compare_row *row,
                         size_t i)
{
    const struct compare_diff *d = &row->diff[i];
    double base = (double)row->run[0].value_ns;
    size_t n = t->runs[i].replicates < t->runs[0].replicates ? t->runs[i].replicates
                                                             : t->runs[0].replicates;
    fprintf(out, "* %s: no change found at %zu %s; one of +-%.1f %s", row->name, n,
            replicates_name(t), shown(row, d->detectable), unit_of(row));
    if (base > 0) {
        fprintf(out, " (+-%.1f%%)", d->detectable / base * 100.0);
    }
    fputs(" would have been found (2 times in 3 or more)", out);
    if (d->needed_for_estimate > RANKS_MAX) {
        fprintf(out, "; the %+.1f%% estimated would need more than %d %s", d->relative * 100.0,
                RANKS_MAX, replicates_name(t));
    } else if (d->needed_for_estimate > 0) {
        fprintf(out, "; the %+.1f%% estimated would need about %zu %s", d->relative * 100.0,
                d->needed_for_estimate, replicates_name(t));
        if (t->mode == COMPARE_PAIRED) {
            fprintf(out, " (--rounds %zu)", d->needed_for_estimate);
        }
    }
    fputc('\n', out);
}

/* B - A against the pooled values: the median of the replicates' differences can point the
 * other way from B's value over all of them against A's. */
static void print_contradiction(FILE *out, const struct compare_table *t,
                                const struct compare_row *row, size_t i)
{
    const struct compare_diff *d = &row->diff[i];
    double pooled = (double)row->run[i].value_ns - (double)row->run[0].value_ns;
    if (!d->judged || !d->estimable || d->diff * pooled >= 0.0) {
        return;
    }
    fprintf(out,
            "* %s: B - A (%+.1f %s) is the median of the %s differences and points the "
            "other way from B's value against A's over all of them (%+.1f %s): most %s "
            "went one way, a few far the other\n",
            row->name, shown(row, d->diff), unit_of(row),
            t->mode == COMPARE_PAIRED ? "pairs'" : "runs'", shown(row, pooled), unit_of(row),
            t->mode == COMPARE_PAIRED ? "pairs" : "runs");
}

/* Several figures judged at 95% each: what chance alone does to one of them, and which hold
 * when every figure is judged at once. */
static void print_together(FILE *out, const struct compare_table *t, size_t i)
{
    if (t->nrows < 2 || t->mode == COMPARE_WITHIN_RUN || t->apart[i]) {
        return;
    }
    char yes[256] = "";
    size_t used = 0, needed = 0;
    bool estimable = true;
    for (size_t r = 0; r < t->nrows; r++) {
        const struct compare_diff *d = &t->rows[r].diff[i];
        if (d->requests_needed > 0) {
            continue;
        }
        if (!d->together_estimable) {
            estimable = false;
            needed = d->together_needed > needed ? d->together_needed : needed;
        } else if (d->together_significant && used < sizeof(yes)) {
            int k =
                snprintf(yes + used, sizeof(yes) - used, "%s%s", used ? ", " : "", t->rows[r].name);
            used += k > 0 ? (size_t)k : 0;
        }
    }
    fprintf(out,
            "together: %zu figures judged at %.0f%% each: between identical sides chance "
            "alone says yes to one of them in up to %.0f%% of comparisons; judged all at "
            "once (%.2f%% each, as --fail-if does): ",
            t->nrows, COMPARE_LEVEL * 100.0, (double)t->nrows * (1.0 - COMPARE_LEVEL) * 100.0,
            t->together_level * 100.0);
    if (!estimable) {
        fprintf(out, "needs %zu %s\n", needed, replicates_name(t));
    } else {
        fprintf(out, "%s yes\n", used > 0 ? yes : "none");
    }
}

/* A run too short to carry a comparison; rounds short enough that their start weighs on
 * them (paired rounds still judge what they measured: the coin holds whatever that is). */
static void print_short(FILE *out, const struct compare_table *t)
{
    if (!(t->shortest_s < COMPARE_SHORT_S)) {
        return;
    }
    if (t->mode == COMPARE_PAIRED) {
        fprintf(out,
                "short: rounds of %.2f s: connections opening and the server's first "
                "answers weigh on each, so this compares starts as much as steady running; "
                "rounds of %.0f s or more (-t) compare the steady state\n",
                t->shortest_s, COMPARE_SHORT_S);
        return;
    }
    fprintf(out,
            "short: a run of %.2f s is too short to carry a comparison: connections "
            "opening and the server's first answers weigh on it, and in such runs the "
            "faster side changed from run to run; make each at least %.0f s (-t, or more "
            "requests with -x)\n",
            t->shortest_s, COMPARE_SHORT_S);
}

/* What the intervals hold, and what they do not. */
static void print_method(FILE *out, const struct compare_table *t, size_t i)
{
    const struct compare_diff *d = &t->rows[0].diff[i];
    if (t->mode == COMPARE_WITHIN_RUN) {
        fputs("significant: not judged with one run a side: each interval holds the noise "
              "within the runs, not how the host changed between them; give each side several "
              "runs made alternately (slap compare 'a1.json,a2.json,...' 'b1.json,b2.json,...') "
              "or use slap compare --live\n",
              out);
        return;
    }
    if (t->mode == COMPARE_PAIRED) {
        fprintf(out,
                "intervals: %zu pairs of rounds, each pair's order drawn at random; B - A is "
                "the median of the pairs' averaged differences (Hodges-Lehmann), the "
                "interval Wilcoxon's signed rank",
                t->runs[i].replicates);
    } else {
        fprintf(out, "intervals: each run one replicate; B - A is the median of the differences "
                     "between the two sides' runs (Hodges-Lehmann), the interval Mann-Whitney's");
    }
    if (d->estimable) {
        fprintf(out, ", exact at %.1f%%", d->achieved * 100.0);
    }
    fputs(t->mode == COMPARE_PAIRED ? ", whatever the host did\n"
                                    : ", holding when the runs of both sides were made under the "
                                      "same conditions\n",
          out);
    if (t->apart[i]) {
        fputs("significant: not judged: the runs of one side were all made before those of the "
              "other, so a change of the host in between would count as a difference; make them "
              "alternately (A, B, B, A, ...) or use slap compare --live\n",
              out);
    }
}

void compare_print(FILE *out, const struct compare_table *t)
{
    for (size_t i = 1; i < t->nruns; i++) {
        if (i > 1) {
            fputc('\n', out);
        }
        print_source(out, "A", t, 0);
        print_source(out, "B", t, i);
        if (t->differs[i][0] != '\0') {
            fprintf(out, "B differs from A in: %s\n", t->differs[i]);
        }
        fprintf(out, "%-8s %-6s %12s %12s %12s %9s %26s  %s\n", "figure", "unit", "A", "B", "B - A",
                "change", "95% interval of B - A", "significant");
        for (size_t r = 0; r < t->nrows; r++) {
            print_row(out, t, &t->rows[r], i);
        }
        print_insufficient(out, t, i);
        for (size_t r = 0; r < t->nrows; r++) {
            if (t->rows[r].diff[i].detectable > 0 && !t->apart[i]) {
                print_unseen(out, t, &t->rows[r], i);
            }
            print_contradiction(out, t, &t->rows[r], i);
        }
        print_method(out, t, i);
        print_together(out, t, i);
        print_short(out, t);
    }
}

/* ---- JSON ----------------------------------------------------------------------------- */

static const char *mode_name(enum compare_mode m)
{
    return m == COMPARE_PAIRED ? "paired" : m == COMPARE_REPLICATES ? "replicates" : "within_run";
}

static void json_interval(struct json_writer *w, const char *key, bool known, double low,
                          double high)
{
    if (!known) {
        json_null(w, key);
        return;
    }
    json_open_array(w, key, true);
    json_double(w, NULL, low);
    json_double(w, NULL, high);
    json_close(w);
}

static void json_figure(struct json_writer *w, const struct compare_table *t,
                        const struct compare_row *row, size_t i)
{
    const struct ci_result *a = &row->run[0], *b = &row->run[i];
    const struct compare_diff *d = &row->diff[i];
    bool within = t->mode == COMPARE_WITHIN_RUN;
    json_open_object(w, row->name);
    json_string(w, "unit", unit_of(row));
    json_double(w, "a", shown(row, (double)a->value_ns));
    json_double(w, "b", shown(row, (double)b->value_ns));
    json_interval(w, "a_ci", within && a->estimable, shown(row, (double)a->low_ns),
                  shown(row, (double)a->high_ns));
    json_interval(w, "b_ci", within && b->estimable, shown(row, (double)b->low_ns),
                  shown(row, (double)b->high_ns));
    if (d->judged && !d->estimable) { /* no estimate of B - A */
        json_null(w, "diff");
        json_null(w, "relative");
    } else {
        json_double(w, "diff", shown(row, d->diff));
        json_double(w, "relative", d->relative);
    }
    json_interval(w, "diff_ci", d->estimable, shown(row, d->low), shown(row, d->high));
    if (d->judged && d->estimable) {
        json_bool(w, "significant", d->significant);
        json_double(w, "achieved", d->achieved);
    } else {
        json_null(w, "significant");
        json_null(w, "achieved");
    }
    if (d->judged && !d->estimable && d->requests_needed == 0) {
        json_u64(w, "needed", d->needed);
    } else {
        json_null(w, "needed");
    }
    if (d->detectable > 0 && !t->apart[i]) {
        json_double(w, "detectable", shown(row, d->detectable));
        json_u64(w, "needed_for_estimate", d->needed_for_estimate);
    } else {
        json_null(w, "detectable");
        json_null(w, "needed_for_estimate");
    }
    if (d->judged && d->together_estimable) {
        json_bool(w, "significant_together", d->together_significant);
    } else {
        json_null(w, "significant_together");
    }
    json_close(w);
}

static void json_run(struct json_writer *w, const struct compare_table *t, size_t i)
{
    const struct compare_run *run = &t->runs[i];
    json_open_object(w, NULL);
    json_string(w, "file", run->name);
    json_u64(w, "replicates", run->replicates);
    if (t->mode == COMPARE_WITHIN_RUN) {
        json_string(w, "intervals_from", run->rounds ? "rounds" : "periods");
        json_u64(w, "batches", run->batches);
    } else {
        json_string(w, "intervals_from", t->mode == COMPARE_PAIRED ? "rounds" : "runs");
        json_u64(w, "batches", run->replicates);
    }
    json_close(w);
}

void compare_write_json(FILE *out, const struct compare_table *t)
{
    struct json_writer w;
    json_writer_init(&w, out);
    json_open_object(&w, NULL);
    json_double(&w, "level", COMPARE_LEVEL);
    json_double(&w, "together_level", t->together_level);
    if (isfinite(t->shortest_s)) {
        json_double(&w, "shortest_s", t->shortest_s);
    } else {
        json_null(&w, "shortest_s");
    }
    json_bool(&w, "too_short", t->shortest_s < COMPARE_SHORT_S);
    json_string(&w, "mode", mode_name(t->mode));
    bool judged = t->mode != COMPARE_WITHIN_RUN;
    for (size_t i = 1; i < t->nruns; i++) {
        judged = judged && !t->apart[i];
    }
    json_bool(&w, "judged", judged);
    json_string(&w, "a", t->runs[0].name);
    json_open_array(&w, "runs", false);
    for (size_t i = 0; i < t->nruns; i++) {
        json_run(&w, t, i);
    }
    json_close(&w);
    json_open_array(&w, "comparisons", false);
    for (size_t i = 1; i < t->nruns; i++) {
        json_open_object(&w, NULL);
        json_string(&w, "b", t->runs[i].name);
        json_string(&w, "differs", t->differs[i]);
        json_bool(&w, "apart", t->apart[i]);
        json_open_object(&w, "figures");
        for (size_t r = 0; r < t->nrows; r++) {
            json_figure(&w, t, &t->rows[r], i);
        }
        json_close(&w);
        json_close(&w);
    }
    json_close(&w);
    json_close(&w);
    fputc('\n', out);
}

/* ---- --fail-if ------------------------------------------------------------------------ */

/* The figure before the comparison sign: "tps" or "pN" (0 < N < 100). */
static bool parse_figure(const char *text, size_t len, struct compare_threshold *th)
{
    char buf[COMPARE_NAME_MAX], *end;
    if (len == 0 || len >= sizeof(buf)) {
        return false;
    }
    memcpy(buf, text, len);
    buf[len] = '\0';
    snprintf(th->figure, sizeof(th->figure), "%s", buf);
    if (strcmp(buf, "tps") == 0) {
        th->tps = true;
        return true;
    }
    if (buf[0] != 'p' || !(buf[1] >= '0' && buf[1] <= '9')) {
        return false;
    }
    errno = 0;
    th->pct = strtod(buf + 1, &end);
    return errno == 0 && *end == '\0' && th->pct > 0 && th->pct < 100;
}

/* A latency unit's nanoseconds: ns, us, ms, s; 0 when it is none. */
static double unit_ns(const char *unit)
{
    static const struct {
        const char *name;
        double ns;
    } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(unit, units[i].name) == 0) {
            return units[i].ns;
        }
    }
    return 0;
}

/* The signed amount after the sign: N%, a latency with its unit, or a rate. */
static bool parse_amount(const char *text, struct compare_threshold *th, char *err, size_t err_len)
{
    char *end;
    if (text[0] != '+' && text[0] != '-') {
        snprintf(err, err_len, "the change needs its sign, + or -");
        return false;
    }
    errno = 0;
    double v = strtod(text, &end);
    if (errno != 0 || end == text + 1 || !isfinite(v)) {
        snprintf(err, err_len, "no number after the sign");
        return false;
    }
    if (strcmp(end, "%") == 0) {
        th->relative = true;
        th->amount = v / 100.0;
        return true;
    }
    if (th->tps && *end == '\0') {
        th->amount = v;
        return true;
    }
    double ns = th->tps ? 0 : unit_ns(end);
    if (ns == 0) {
        snprintf(err, err_len,
                 th->tps ? "tps takes a rate (+5000) or a share (+5%%)"
                         : "a latency takes a unit (ns, us, ms, s) or %%");
        return false;
    }
    th->amount = v * ns;
    return true;
}

enum slap_status compare_threshold_parse(const char *text, struct compare_threshold *th, char *err,
                                         size_t err_len)
{
    memset(th, 0, sizeof(*th));
    const char *sign = strpbrk(text, "<>");
    if (sign == NULL) {
        snprintf(err, err_len, "'%s': give FIGURE>CHANGE or FIGURE<CHANGE ('p99>+5%%')", text);
        return SLAP_ERROR;
    }
    if (!parse_figure(text, (size_t)(sign - text), th)) {
        snprintf(err, err_len, "'%s': the figure is tps or a percentile, p50, p99.9...", text);
        return SLAP_ERROR;
    }
    th->above = *sign == '>';
    char why[128];
    if (!parse_amount(sign + 1, th, why, sizeof(why))) {
        snprintf(err, err_len, "'%s': %s", text, why);
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

/* Does the difference d (from the first side's value) cross th? */
static bool crosses(const struct compare_threshold *th, const struct compare_diff *d)
{
    double change = th->relative ? d->relative : d->diff; /* ns, or ops/s for tps */
    return th->above ? change > th->amount : change < th->amount;
}

double compare_gate_level(size_t nsides, size_t nth)
{
    size_t k = nth * (nsides > 1 ? nsides - 1 : 1);
    return k > 1 ? 1.0 - (1.0 - COMPARE_LEVEL) / (double)k : COMPARE_LEVEL;
}

int compare_row_of(const struct compare_table *t, const struct compare_threshold *th)
{
    for (size_t r = 0; r < t->nrows; r++) {
        const struct compare_row *cr = &t->rows[r];
        if (th->tps ? cr->tps : (!cr->tps && cr->pct == th->pct)) {
            return (int)r;
        }
    }
    return -1;
}

/* "p50, p90, p99": the percentiles the table lists. */
static void listed(const struct compare_table *t, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t r = 1; r < t->nrows && used < len; r++) {
        int n = snprintf(buf + used, len - used, "%s%s", r > 1 ? ", " : "", t->rows[r].name);
        used += n > 0 ? (size_t)n : 0;
    }
}

const char *compare_gate_problem(const struct compare_table *t, const struct compare_threshold *th,
                                 char *why, size_t why_len)
{
    int r = compare_row_of(t, th);
    if (r < 0) {
        char names[256];
        listed(t, names, sizeof(names));
        snprintf(why, why_len, "%s is not a figure of every run (they all list tps%s%s)",
                 th->figure, names[0] != '\0' ? ", " : "", names);
        return why;
    }
    for (size_t i = 1; i < t->nruns; i++) {
        if (t->apart[i]) {
            snprintf(why, why_len,
                     "%s cannot be judged: the runs of one side were all made "
                     "before those of the other (the host's change in between is "
                     "in no interval): make them alternately, or use slap compare "
                     "--live",
                     th->figure);
            return why;
        }
    }
    if (t->mode == COMPARE_WITHIN_RUN) {
        snprintf(why, why_len,
                 "%s cannot be judged from one run a side (the host's change "
                 "between two runs is in no interval): give each side several "
                 "runs, made alternately, or use slap compare --live",
                 th->figure);
        return why;
    }
    for (size_t i = 1; i < t->nruns; i++) {
        const struct compare_diff *d = &t->rows[r].diff[i];
        if (d->requests_needed > 0) {
            snprintf(why, why_len,
                     "%s cannot be judged: a %s holds fewer than the %llu requests "
                     "it needs",
                     th->figure, t->mode == COMPARE_PAIRED ? "round" : "run",
                     (unsigned long long)d->requests_needed);
            return why;
        }
        if (!d->gate_estimable) {
            snprintf(why, why_len, "%s cannot be judged at %.4g%%: that needs %zu %s, not %zu",
                     th->figure, t->gate_level * 100.0, d->gate_needed,
                     t->mode == COMPARE_PAIRED ? "pairs of rounds (--rounds)" : "runs a side",
                     t->runs[i].replicates < t->runs[0].replicates ? t->runs[i].replicates
                                                                   : t->runs[0].replicates);
            return why;
        }
    }
    return NULL;
}

bool compare_crosses(const struct compare_table *t, const struct compare_threshold *th, size_t *row,
                     size_t *run)
{
    int r = compare_row_of(t, th);
    if (r < 0 || t->mode == COMPARE_WITHIN_RUN) {
        return false;
    }
    for (size_t i = 1; i < t->nruns; i++) {
        const struct compare_diff *d = &t->rows[r].diff[i];
        if (d->gate_estimable && d->gate_significant && crosses(th, d)) {
            *row = (size_t)r;
            *run = i;
            return true;
        }
    }
    return false;
}
