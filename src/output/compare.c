/* slap compare's figures: each run's throughput and percentiles with intervals, and each
 * difference from the first run with its interval and significance. */
#include "slap/output/compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/json.h"

#define SHORT_PERIOD 0.5 /* a period shorter than this share of period_s has no rate of its own */

/* What a run's intervals come from: its rounds (two or more), else its periods. */
static const struct results_list *batches_of(const struct results_doc *d)
{
    return d->rounds.n >= 2 ? &d->rounds : &d->periods;
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

/* A mean's interval (ci_mean over values) set around r's value, as batch means of n. */
static void interval_from_mean(const double *values, size_t n, struct ci_result *r)
{
    double mean, low, high;
    ci_mean(values, n, COMPARE_LEVEL, &mean, &low, &high, NULL);
    double half = (high - low) / 2.0, value = (double)r->value_ns;
    r->method = CI_BATCH_MEANS;
    r->batches = (unsigned)n;
    r->low_ns = half >= value ? 0 : (uint64_t)floor(value - half);
    r->high_ns = (uint64_t)ceil(value + half);
}

/* Percentile pct of a run: ci_percentile over its periods, or over its rounds with the
 * interval of the rounds' own percentiles (each round a batch). */
static void run_percentile(const struct results_list *list, bool rounds, struct hist *hists,
                           const struct hist **ptrs, double pct, double *values,
                           struct ci_result *r)
{
    ci_percentile(ptrs, list->n, pct, COMPARE_LEVEL, r);
    if (!rounds || !r->estimable) {
        return;
    }
    for (size_t i = 0; i < list->n; i++) {
        values[i] = (double)hist_percentile_ns(&hists[i], pct);
    }
    interval_from_mean(values, list->n, r);
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
        interval_from_mean(values, n, r);
    }
}

/* The percentiles every run lists, in the first run's order, named into rows. */
static size_t common_percentiles(struct compare_table *t, const struct results_doc *const *docs,
                                 size_t n)
{
    const struct run_desc *a = &docs[0]->desc;
    size_t rows = 1;
    for (uint32_t p = 0; p < a->npercentiles && rows < COMPARE_MAX_ROWS; p++) {
        bool everywhere = true;
        for (size_t i = 1; i < n && everywhere; i++) {
            everywhere = false;
            for (uint32_t q = 0; q < docs[i]->desc.npercentiles; q++) {
                everywhere = everywhere || docs[i]->desc.percentiles[q] == a->percentiles[p];
            }
        }
        if (everywhere) {
            t->rows[rows].pct = a->percentiles[p];
            snprintf(t->rows[rows].name, COMPARE_NAME_MAX, "p%g", a->percentiles[p]);
            rows++;
        }
    }
    return rows;
}

/* Every figure of run i. */
static enum slap_status fill_run(struct compare_table *t, size_t i, const struct results_doc *d)
{
    const struct results_list *list = batches_of(d);
    bool rounds = list == &d->rounds;
    size_t n = list->n;
    struct hist *hists = calloc(n > 0 ? n : 1, sizeof(*hists));
    const struct hist **ptrs = calloc(n > 0 ? n : 1, sizeof(*ptrs));
    double *values = calloc(n > 0 ? n : 1, sizeof(*values));
    if (hists == NULL || ptrs == NULL || values == NULL) {
        free(hists);
        free(ptrs);
        free(values);
        return SLAP_ERROR;
    }
    batch_hists(list, hists, ptrs);
    t->runs[i].rounds = rounds;
    t->runs[i].batches = n;
    run_tps(d, list, rounds, values, &t->rows[0].run[i]);
    for (size_t r = 1; r < t->nrows; r++) {
        run_percentile(list, rounds, hists, ptrs, t->rows[r].pct, values, &t->rows[r].run[i]);
    }
    free(hists);
    free(ptrs);
    free(values);
    return SLAP_OK;
}

enum slap_status compare_build(struct compare_table *t, const struct results_doc *const *docs,
                               const char *const *names, size_t n, char *err, size_t err_len)
{
    memset(t, 0, sizeof(*t));
    if (n < 2 || n > COMPARE_MAX_RUNS) {
        snprintf(err, err_len, "compare 2 to %d results files", COMPARE_MAX_RUNS);
        return SLAP_ERROR;
    }
    for (size_t i = 0; i < n; i++) {
        if (docs[i]->sweep) {
            snprintf(err, err_len, "'%s' is a sweep: compare runs", names[i]);
            return SLAP_ERROR;
        }
        if (i > 0 && results_same_workload(docs[0], docs[i], err, err_len) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    t->nruns = n;
    snprintf(t->rows[0].name, COMPARE_NAME_MAX, "tps");
    t->rows[0].tps = true;
    t->nrows = common_percentiles(t, docs, n);
    for (size_t i = 0; i < n; i++) {
        t->runs[i].name = names[i];
        if (fill_run(t, i, docs[i]) != SLAP_OK) {
            snprintf(err, err_len, "out of memory");
            return SLAP_ERROR;
        }
    }
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t i = 1; i < n; i++) {
            ci_compare(&t->rows[r].run[0], &t->rows[r].run[i], COMPARE_LEVEL, &t->rows[r].diff[i]);
        }
    }
    return SLAP_OK;
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

/* "12.3" or "n/a": a run's value. */
static void value_text(char *buf, size_t len, const struct compare_row *row,
                       const struct ci_result *r)
{
    if (!r->estimable && !row->tps && r->requests < r->needed) {
        snprintf(buf, len, "%.1f*", shown(row, (double)r->value_ns));
    } else {
        snprintf(buf, len, "%.1f", shown(row, (double)r->value_ns));
    }
}

static void print_row(FILE *out, const struct compare_row *row, size_t i)
{
    const struct ci_difference *d = &row->diff[i];
    char a[32], b[32], interval[64] = "n/a";
    value_text(a, sizeof(a), row, &row->run[0]);
    value_text(b, sizeof(b), row, &row->run[i]);
    if (d->estimable) {
        snprintf(interval, sizeof(interval), "[%+.1f, %+.1f]", shown(row, d->low_ns),
                 shown(row, d->high_ns));
    }
    fprintf(out, "%-8s %-6s %12s %12s %+12.1f %+8.1f%% %26s  %s\n", row->name, unit_of(row), a,
            b, shown(row, d->diff_ns), d->relative * 100.0, interval,
            !d->estimable ? "cannot tell" : d->significant ? "yes" : "no");
}

/* Where run i's intervals come from. */
static void print_source(FILE *out, const char *letter, const struct compare_run *run)
{
    bool few = !run->rounds && run->batches < CI_BATCHES_MIN;
    fprintf(out, "%s = %s (intervals from %zu %s%s)\n", letter, run->name, run->batches,
            run->rounds ? "rounds" : "periods",
            few ? ": too few for batch means, percentiles by order statistics, optimistic" : "");
}

/* The percentiles some run has too few requests for: how many they need. */
static void print_insufficient(FILE *out, const struct compare_table *t, size_t i)
{
    for (size_t r = 1; r < t->nrows; r++) {
        const struct ci_result *c[2] = {&t->rows[r].run[0], &t->rows[r].run[i]};
        for (int k = 0; k < 2; k++) {
            if (!c[k]->estimable && c[k]->needed != CI_NEEDED_NEVER) {
                fprintf(out, "* %s of %s cannot be estimated: %llu requests, %llu needed\n",
                        t->rows[r].name, t->runs[k == 0 ? 0 : i].name,
                        (unsigned long long)c[k]->requests, (unsigned long long)c[k]->needed);
            }
        }
    }
}

void compare_print(FILE *out, const struct compare_table *t)
{
    for (size_t i = 1; i < t->nruns; i++) {
        if (i > 1) {
            fputc('\n', out);
        }
        print_source(out, "A", &t->runs[0]);
        print_source(out, "B", &t->runs[i]);
        fprintf(out, "%-8s %-6s %12s %12s %12s %9s %26s  %s\n", "figure", "unit", "A", "B",
                "B - A", "change", "95% interval of B - A", "significant");
        for (size_t r = 0; r < t->nrows; r++) {
            print_row(out, &t->rows[r], i);
        }
        print_insufficient(out, t, i);
    }
}

/* ---- JSON ----------------------------------------------------------------------------- */

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

static void json_figure(struct json_writer *w, const struct compare_row *row, size_t i)
{
    const struct ci_result *a = &row->run[0], *b = &row->run[i];
    const struct ci_difference *d = &row->diff[i];
    json_open_object(w, row->name);
    json_string(w, "unit", unit_of(row));
    json_double(w, "a", shown(row, (double)a->value_ns));
    json_double(w, "b", shown(row, (double)b->value_ns));
    json_interval(w, "a_ci", a->estimable, shown(row, (double)a->low_ns),
                  shown(row, (double)a->high_ns));
    json_interval(w, "b_ci", b->estimable, shown(row, (double)b->low_ns),
                  shown(row, (double)b->high_ns));
    json_double(w, "diff", shown(row, d->diff_ns));
    json_double(w, "relative", d->relative);
    json_interval(w, "diff_ci", d->estimable, shown(row, d->low_ns), shown(row, d->high_ns));
    if (d->estimable) {
        json_bool(w, "significant", d->significant);
    } else {
        json_null(w, "significant");
    }
    json_close(w);
}

void compare_write_json(FILE *out, const struct compare_table *t)
{
    struct json_writer w;
    json_writer_init(&w, out);
    json_open_object(&w, NULL);
    json_double(&w, "level", COMPARE_LEVEL);
    json_string(&w, "a", t->runs[0].name);
    json_open_array(&w, "runs", false);
    for (size_t i = 0; i < t->nruns; i++) {
        json_open_object(&w, NULL);
        json_string(&w, "file", t->runs[i].name);
        json_string(&w, "intervals_from", t->runs[i].rounds ? "rounds" : "periods");
        json_u64(&w, "batches", t->runs[i].batches);
        json_close(&w);
    }
    json_close(&w);
    json_open_array(&w, "comparisons", false);
    for (size_t i = 1; i < t->nruns; i++) {
        json_open_object(&w, NULL);
        json_string(&w, "b", t->runs[i].name);
        json_open_object(&w, "figures");
        for (size_t r = 0; r < t->nrows; r++) {
            json_figure(&w, &t->rows[r], i);
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
static bool parse_amount(const char *text, struct compare_threshold *th, char *err,
                         size_t err_len)
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
        snprintf(err, err_len, th->tps ? "tps takes a rate (+5000) or a share (+5%%)"
                                       : "a latency takes a unit (ns, us, ms, s) or %%");
        return false;
    }
    th->amount = v * ns;
    return true;
}

enum slap_status compare_threshold_parse(const char *text, struct compare_threshold *th,
                                         char *err, size_t err_len)
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

/* Does the difference d (from a's value) cross th? */
static bool crosses(const struct compare_threshold *th, const struct ci_difference *d)
{
    double change = th->relative ? d->relative : d->diff_ns; /* ns, or ops/s for tps */
    return th->above ? change > th->amount : change < th->amount;
}

double compare_gate_level(const struct compare_table *t, size_t nth)
{
    size_t k = nth * (t->nruns > 1 ? t->nruns - 1 : 1);
    return k > 1 ? 1.0 - (1.0 - COMPARE_LEVEL) / (double)k : COMPARE_LEVEL;
}

bool compare_crosses(const struct compare_table *t, const struct compare_threshold *th,
                     double level, size_t *row, size_t *run)
{
    for (size_t r = 0; r < t->nrows; r++) {
        const struct compare_row *cr = &t->rows[r];
        if (th->tps != cr->tps || (!th->tps && cr->pct != th->pct)) {
            continue;
        }
        for (size_t i = 1; i < t->nruns; i++) {
            if (ci_significant_at(&cr->diff[i], level) && crosses(th, &cr->diff[i])) {
                *row = r;
                *run = i;
                return true;
            }
        }
    }
    return false;
}
