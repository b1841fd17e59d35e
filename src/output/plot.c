/*
 * SVG pictures from results. One panel per picture kind, stacked:
 *
 *   throughput over time   (runs with periods)     x: seconds    y: requests/s (linear)
 *   latency over time      (runs with periods)     x: seconds    y: p50, p99, p99.9 in us (log)
 *   latency against rate   (sweeps)                x: ops/s      y: p50, p99, p99.9 in us (log);
 *                          (--ramp: its periods by their target rate)
 *                                                                   a search's objectives'
 *                                                                   percentiles and limits
 *   samples over time      (a --samples file)      x: seconds    y: latency in us (log)
 *   percentile spectrum    (several runs compared) x: nines      y: latency in us (log), with
 *                                                                   the 95% intervals as bands
 *
 * An open-loop run's throughput panel draws its target rate too (a dashed line).
 * Each series is a <g class="series"> whose data-x and data-y attributes hold its numbers as
 * the results hold them, so that a reader (or a test) can check the picture against the data.
 */
#include "slap/output/plot.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/confidence.h"
#include "slap/base/objective.h"

#include "svg.h"

#define PANEL_HEIGHT 320

static const char *const palette[] = {SVG_BLUE,  SVG_RED,   SVG_GREEN, "#9467bd",
                                      "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};

/* The latency percentiles drawn unless a search's objectives say others, and the line style
 * of each place. */
static const double default_pct[PLOT_LINES] = {50.0, 99.0, 99.9};
static const char *const dashes[PLOT_LINES] = {"none", "7,4", "2,3"};
#define OBJECTIVE_DASH "12,4,2,4"

/* A series: its points (x, y as the data has them). */
struct series {
    size_t n;
    double *x;
    double *y;
};

/* A panel's title, frame, ticks (x's its axis's own) and axes' names. */
static void draw_axes(struct svg_panel *p, const char *title, const char *xname, const char *yname)
{
    struct svg_names names = {title, NULL, xname, yname};
    struct svg_ticks x;
    svg_axis_ticks(&p->x, &x);
    svg_draw_axes(p, &names, &x);
}

/* The series as a group carrying its numbers, drawn as a line (with dots when few). */
static void draw_series(struct svg_panel *p, const struct series *s, const char *label,
                        const char *metric, const char *color, const char *dash)
{
    FILE *out = p->out;
    fputs("<g class=\"series\" data-label=\"", out);
    svg_xml_text(out, label);
    fprintf(out, "\" data-metric=\"%s\" data-x=\"", metric);
    for (size_t i = 0; i < s->n; i++) {
        fprintf(out, "%s%.10g", i ? " " : "", s->x[i]);
    }
    fputs("\" data-y=\"", out);
    for (size_t i = 0; i < s->n; i++) {
        fprintf(out, "%s%.10g", i ? " " : "", s->y[i]);
    }
    fprintf(out,
            "\">\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
            "stroke-dasharray=\"%s\" points=\"",
            color, dash);
    for (size_t i = 0; i < s->n; i++) {
        fprintf(out, "%s%.1f,%.1f", i ? " " : "", svg_px(p, s->x[i]), svg_py(p, s->y[i]));
    }
    fputs("\"/>\n", out);
    for (size_t i = 0; s->n <= 60 && i < s->n; i++) {
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
                svg_px(p, s->x[i]), svg_py(p, s->y[i]), color);
    }
    fputs("</g>\n", out);
}

/* ---- the data's series ---------------------------------------------------------------- */

enum series_kind {
    SERIES_RATE_OVER_TIME,    /* periods: requests/s */
    SERIES_LATENCY_OVER_TIME, /* periods: a percentile */
    SERIES_LATENCY_BY_RATE,   /* steps: a percentile against the achieved rate */
};

static bool series_alloc(struct series *s, size_t n)
{
    s->n = n;
    s->x = calloc(n + 1, sizeof(*s->x));
    s->y = calloc(n + 1, sizeof(*s->y));
    return s->x != NULL && s->y != NULL;
}

static void series_free(struct series *s)
{
    free(s->x);
    free(s->y);
}

/* Room for one more point; false when out of memory. */
static bool points_grow(struct plot_points *pts)
{
    if (pts->n < pts->cap) {
        return true;
    }
    size_t cap = pts->cap == 0 ? 64 : pts->cap * 2;
    double **arrays[] = {&pts->x, &pts->rate, &pts->latency[0], &pts->latency[1], &pts->latency[2]};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(arrays); i++) {
        double *grown = realloc(*arrays[i], cap * sizeof(**arrays[i]));
        if (grown == NULL) {
            return false;
        }
        *arrays[i] = grown;
    }
    pts->cap = cap;
    return true;
}

/* A point of a period or a step: x, the rate of its total histogram (made in the run's
 * scratch, mapped at its first point) over seconds, and the run's percentiles. */
static enum slap_status points_add(struct plot_run *run, struct plot_points *pts, double x,
                                   const struct results_sparse *lat, double seconds)
{
    if (run->scratch == NULL && hist_slab_alloc(&run->scratch, 1) != SLAP_OK) {
        return SLAP_ERROR;
    }
    if (!points_grow(pts)) {
        return SLAP_ERROR;
    }
    struct hist *h = run->scratch;
    hist_clear(h);
    for (int t = 0; t < STATS_TYPES; t++) {
        results_sparse_add(&lat[t], h);
    }
    pts->x[pts->n] = x;
    pts->rate[pts->n] = seconds > 0 ? (double)h->count / seconds : 0.0;
    for (size_t l = 0; l < run->nlines; l++) {
        pts->latency[l][pts->n] =
            (double)hist_percentile_ns(h, run->pct[l]) / (double)SLAP_NS_PER_US;
    }
    pts->n++;
    return SLAP_OK;
}

void plot_run_begin(struct plot_run *run, const struct results_doc *d)
{
    struct objective obj[OBJECTIVES_MAX];
    size_t n = 0;
    char err[160];
    memset(run, 0, sizeof(*run));
    run->label = d->label;
    run->target_tps = d->sweep ? 0.0 : d->desc.tps;
    run->ramp = d->sweep ? (struct ramp){0} : d->desc.ramp;
    if (!d->sweep && d->changes.n > 0 && d->desc.tps > 0) {
        run->changes = malloc(d->changes.n * sizeof(*run->changes));
        run->nchanges = run->changes != NULL ? d->changes.n : 0;
        for (size_t i = 0; i < run->nchanges; i++) {
            run->changes[i] = ((const struct rate_change *)d->changes.items)[i];
        }
    }
    if (d->search.present && objective_parse(d->search.objectives, obj, &n, err, sizeof(err)) &&
        n > 0) {
        run->nlines = n < PLOT_LINES ? n : PLOT_LINES;
        for (size_t l = 0; l < run->nlines; l++) {
            run->pct[l] = obj[l].pct;
            run->limit_us[l] = (double)obj[l].limit_ns / (double)SLAP_NS_PER_US;
        }
        return;
    }
    run->nlines = PLOT_LINES;
    memcpy(run->pct, default_pct, sizeof(run->pct));
}

enum slap_status plot_run_add_period(struct plot_run *run, const struct results_period *p)
{
    if (run->ramp.duration_ns > 0 || run->nchanges > 0) {
        /* latency against the rate the ramp or the control asked of the period */
        double from = p->elapsed_s > p->seconds ? p->elapsed_s - p->seconds : 0.0;
        double target = rate_plan_between(&run->ramp, run->target_tps, run->changes, run->nchanges,
                                          from, p->elapsed_s);
        if (points_add(run, &run->steps, target, p->lat, p->seconds) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return points_add(run, &run->periods, p->elapsed_s, p->lat, p->seconds);
}

enum slap_status plot_run_add_step(struct plot_run *run, const struct results_step *st)
{
    uint64_t ops = st->counters.cmd_get + st->counters.cmd_set;
    double achieved = st->seconds > 0 ? (double)ops / st->seconds : 0.0;
    return points_add(run, &run->steps, achieved, st->lat, st->seconds);
}

enum slap_status plot_run_of(struct plot_run *run, const struct results_doc *d)
{
    const struct results_period *periods = d->periods.items;
    const struct results_step *steps = d->steps.items;
    plot_run_begin(run, d);
    for (size_t i = 0; i < d->periods.n; i++) {
        if (plot_run_add_period(run, &periods[i]) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    for (size_t i = 0; i < d->steps.n; i++) {
        if (plot_run_add_step(run, &steps[i]) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

static void points_free(struct plot_points *pts)
{
    free(pts->x);
    free(pts->rate);
    for (size_t l = 0; l < PLOT_LINES; l++) {
        free(pts->latency[l]);
    }
    memset(pts, 0, sizeof(*pts));
}

void plot_run_free(struct plot_run *run)
{
    points_free(&run->periods);
    points_free(&run->steps);
    free(run->changes);
    run->changes = NULL;
    run->nchanges = 0;
    hist_slab_free(run->scratch, 1);
    run->scratch = NULL;
}

/* The run's series of this kind (line l's percentile for latency), pointing into its points. */
static struct series series_of(const struct plot_run *run, enum series_kind kind, size_t l)
{
    const struct plot_points *pts = kind == SERIES_LATENCY_BY_RATE ? &run->steps : &run->periods;
    struct series s = {pts->n, pts->x, kind == SERIES_RATE_OVER_TIME ? pts->rate : pts->latency[l]};
    return s;
}

/* The extent of every series of this kind over all runs. */
static void extent(const struct plot_runs *in, enum series_kind kind, double *xlo, double *xhi,
                   double *ylo, double *yhi)
{
    *xlo = *ylo = INFINITY;
    *xhi = *yhi = -INFINITY;
    for (size_t d = 0; d < in->nruns; d++) {
        const struct plot_run *run = &in->runs[d];
        for (size_t l = 0; l < (kind == SERIES_RATE_OVER_TIME ? 1 : run->nlines); l++) {
            struct series s = series_of(run, kind, l);
            for (size_t i = 0; i < s.n; i++) {
                *xlo = fmin(*xlo, s.x[i]);
                *xhi = fmax(*xhi, s.x[i]);
                *ylo = fmin(*ylo, s.y[i]);
                *yhi = fmax(*yhi, s.y[i]);
            }
            if (kind == SERIES_LATENCY_BY_RATE && run->limit_us[l] > 0 && run->steps.n > 0) {
                *ylo = fmin(*ylo, run->limit_us[l]);
                *yhi = fmax(*yhi, run->limit_us[l]);
            }
        }
    }
    for (size_t d = 0; kind == SERIES_RATE_OVER_TIME && d < in->nruns; d++) {
        *yhi = fmax(*yhi, in->runs[d].target_tps);
        if (in->runs[d].ramp.duration_ns > 0) {
            *yhi = fmax(*yhi, fmax(in->runs[d].ramp.from, in->runs[d].ramp.to));
        }
        for (size_t c = 0; c < in->runs[d].nchanges; c++) {
            *yhi = fmax(*yhi, in->runs[d].changes[c].tps);
        }
    }
    if (!isfinite(*xlo)) {
        *xlo = *ylo = 0;
        *xhi = *yhi = 1;
    }
}

/* --control's target: the plan's up to the first change (a ramp's line to its end or to the
 * change), then a step at each. */
static void draw_controlled_target(struct svg_panel *p, const struct plot_run *run,
                                   const char *color)
{
    const struct plot_points *pts = &run->periods;
    double end = pts->x[pts->n - 1];
    size_t cap = 2 * run->nchanges + 4, n = 0;
    double *x = malloc(cap * sizeof(*x)), *y = malloc(cap * sizeof(*y));
    if (x != NULL && y != NULL) {
        double rate =
            rate_plan_between(&run->ramp, run->target_tps, run->changes, run->nchanges, 0, 0);
        x[n] = 0;
        y[n++] = rate;
        double first = end; /* the first change of rate (a stop changes none) */
        for (size_t i = 0; i < run->nchanges; i++) {
            if (run->changes[i].action != RATE_STOP) {
                first = fmin(fmax(run->changes[i].at_s, 0.0), end);
                break;
            }
        }
        double ramp_s = (double)run->ramp.duration_ns / (double)SLAP_NS_PER_SEC;
        if (run->ramp.duration_ns > 0 && ramp_s < first) { /* the ramp's end, then TO held */
            x[n] = ramp_s;
            y[n++] = run->ramp.to;
        }
        for (size_t i = 0; i < run->nchanges && n + 2 < cap; i++) {
            double at = fmin(fmax(run->changes[i].at_s, 0.0), end);
            if (run->changes[i].action == RATE_STOP) {
                continue;
            }
            x[n] = at; /* the rate just before the change, then after it */
            y[n++] = rate_plan_between(&run->ramp, run->target_tps, run->changes, i, at, at);
            rate = run->changes[i].tps;
            x[n] = at;
            y[n++] = rate;
        }
        x[n] = end;
        y[n++] = rate;
        struct series s = {n, x, y};
        draw_series(p, &s, run->label, "target_tps", color, "3,3");
        svg_legend(p, color, "3,3", run->label, "target");
    }
    free(x);
    free(y);
}

/* An open-loop run's target rate across its periods: a dashed line over its throughput. */
static void draw_target(struct svg_panel *p, const struct plot_run *run, const char *color)
{
    const struct plot_points *pts = &run->periods;
    if (run->target_tps <= 0 || pts->n == 0) {
        return;
    }
    if (run->nchanges > 0) {
        draw_controlled_target(p, run, color);
        return;
    }
    double x[3] = {pts->x[0], pts->x[pts->n - 1]};
    double y[3] = {run->target_tps, run->target_tps};
    struct series s = {2, x, y};
    if (run->ramp.duration_ns > 0) { /* the ramp's rate: its start, its end, then TO held */
        double ramp_s = (double)run->ramp.duration_ns / (double)SLAP_NS_PER_SEC;
        double end = pts->x[pts->n - 1];
        x[0] = 0;
        x[1] = fmin(ramp_s, end);
        x[2] = end;
        for (int i = 0; i < 3; i++) {
            y[i] = ramp_rate_between(&run->ramp, x[i], x[i]);
        }
        s.n = end > ramp_s ? 3 : 2;
    }
    draw_series(p, &s, run->label, "target_tps", color, "3,3");
    svg_legend(p, color, "3,3", run->label, "target");
}

/* A search's objectives across the rates it tried: a line at each limit. */
static void draw_objectives(struct svg_panel *p, const struct plot_run *run, const char *color)
{
    const struct plot_points *pts = &run->steps;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < pts->n; i++) {
        lo = fmin(lo, pts->x[i]);
        hi = fmax(hi, pts->x[i]);
    }
    for (size_t l = 0; l < run->nlines && pts->n > 0; l++) {
        char metric[48], what[64];
        if (run->limit_us[l] <= 0) {
            continue;
        }
        double x[2] = {lo, hi}, y[2] = {run->limit_us[l], run->limit_us[l]};
        struct series s = {2, x, y};
        snprintf(metric, sizeof(metric), "objective_p%g_us", run->pct[l]);
        snprintf(what, sizeof(what), "objective: p%g under %g \xc2\xb5s", run->pct[l],
                 run->limit_us[l]);
        draw_series(p, &s, run->label, metric, color, OBJECTIVE_DASH);
        svg_legend(p, color, OBJECTIVE_DASH, run->label, what);
    }
}

/* Are the rates of the latency-against-rate panel all targets (--ramp's, --control's; no sweep's
 * steps)? */
static bool ramps_only(const struct plot_runs *in)
{
    for (size_t d = 0; d < in->nruns; d++) {
        if (in->runs[d].steps.n > 0 && in->runs[d].ramp.duration_ns == 0 &&
            in->runs[d].nchanges == 0) {
            return false;
        }
    }
    return true;
}

static void panel_of(const struct plot_runs *in, FILE *out, int *top, enum series_kind kind)
{
    static const char *const titles[] = {"Throughput over time", "Latency over time",
                                         "Latency against achieved rate",
                                         "Latency against target rate"};
    static const char *const xlabels[] = {"time since the start (s)", "time since the start (s)",
                                          "achieved rate (ops/s)", "target rate (ops/s)"};
    double xlo, xhi, ylo, yhi;
    extent(in, kind, &xlo, &xhi, &ylo, &yhi);
    bool latency = kind != SERIES_RATE_OVER_TIME;
    struct svg_panel p = {.out = out, .top = *top, .height = PANEL_HEIGHT};
    p.x = svg_make_axis(kind == SERIES_LATENCY_BY_RATE ? 0 : xlo, xhi, false);
    p.y = svg_make_axis(latency ? ylo : 0, yhi, latency);
    size_t names = kind == SERIES_LATENCY_BY_RATE && ramps_only(in) ? 3 : (size_t)kind;
    draw_axes(&p, titles[names], xlabels[names],
              latency ? "latency (\xc2\xb5s, log scale)" : "requests per second");
    for (size_t d = 0; d < in->nruns; d++) {
        const char *color = palette[d % SLAP_ARRAY_SIZE(palette)];
        const char *label = in->runs[d].label;
        for (size_t l = 0; l < (latency ? in->runs[d].nlines : 1); l++) {
            struct series s = series_of(&in->runs[d], kind, l);
            const char *dash = latency ? dashes[l] : "none";
            char metric[32];
            snprintf(metric, sizeof(metric), "p%g_us", in->runs[d].pct[l]);
            draw_series(&p, &s, label, latency ? metric : "rate", color, dash);
            svg_legend(&p, color, dash, label, latency ? metric : "requests/s");
        }
        if (kind == SERIES_RATE_OVER_TIME) {
            draw_target(&p, &in->runs[d], color);
        }
        if (kind == SERIES_LATENCY_BY_RATE) {
            draw_objectives(&p, &in->runs[d], color);
        }
    }
    *top += PANEL_HEIGHT;
}

/* ---- samples -------------------------------------------------------------------------- */

/* The points of samples into two series: ok and failed. */
static bool split_samples(const struct plot_samples *samples, struct series *ok,
                          struct series *failed)
{
    if (!series_alloc(ok, samples->n) || !series_alloc(failed, samples->n)) {
        return false;
    }
    ok->n = failed->n = 0;
    for (size_t i = 0; i < samples->n; i++) {
        const struct plot_sample *p = &samples->points[i];
        struct series *s = p->failed ? failed : ok;
        s->x[s->n] = p->t;
        s->y[s->n++] = p->latency_us;
    }
    return true;
}

static void draw_dots(struct svg_panel *p, const struct series *s, const char *metric,
                      const char *color)
{
    FILE *out = p->out;
    fprintf(out,
            "<g class=\"series\" data-label=\"samples\" data-metric=\"%s\" data-count=\"%zu\">\n",
            metric, s->n);
    for (size_t i = 0; i < s->n; i++) {
        fprintf(out,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.2\" fill=\"%s\" fill-opacity=\"0.5\"/>\n",
                svg_px(p, s->x[i]), svg_py(p, s->y[i]), color);
    }
    fputs("</g>\n", out);
}

static void panel_samples(const struct plot_samples *samples, FILE *out, int *top)
{
    struct series ok = {0}, failed = {0};
    if (split_samples(samples, &ok, &failed) && samples->n > 0) {
        double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
        const struct series *both[] = {&ok, &failed};
        for (size_t k = 0; k < 2; k++) {
            for (size_t i = 0; i < both[k]->n; i++) {
                xlo = fmin(xlo, both[k]->x[i]);
                xhi = fmax(xhi, both[k]->x[i]);
                ylo = fmin(ylo, both[k]->y[i]);
                yhi = fmax(yhi, both[k]->y[i]);
            }
        }
        struct svg_panel p = {.out = out, .top = *top, .height = PANEL_HEIGHT};
        p.x = svg_make_axis(xlo, xhi, false);
        p.y = svg_make_axis(ylo, yhi, true);
        draw_axes(&p, "Every sample over time", "intended send time since the start (s)",
                  "latency (\xc2\xb5s, log scale)");
        draw_dots(&p, &ok, "answered", palette[0]);
        draw_dots(&p, &failed, "failed", palette[1]);
        svg_legend(&p, palette[0], "none", "answered", "");
        svg_legend(&p, palette[1], "none", "error, unanswered", "or unsent");
        *top += PANEL_HEIGHT;
    }
    series_free(&ok);
    series_free(&failed);
}

/* ---- the percentile spectrum ---------------------------------------------------------- */

/* The percentile at x nines: 0 -> 0, 1 -> 90, 2 -> 99. */
static double nines_pct(double x)
{
    return 100.0 * (1.0 - pow(10, -x));
}

/* Each period's histogram, all types together, into hs[i], and their sum into hs[n]: n + 1
 * histograms in one slab (hist_slab_free(hs, n + 1)), or NULL when out of memory. */
static struct hist *period_hists(const struct results_doc *d)
{
    const struct results_period *periods = d->periods.items;
    size_t n = d->periods.n;
    struct hist *hs;
    if (hist_slab_alloc(&hs, n + 1) != SLAP_OK) {
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        for (int t = 0; t < STATS_TYPES; t++) {
            results_sparse_add(&periods[i].lat[t], &hs[i]);
        }
        hist_merge(&hs[n], &hs[i]);
    }
    return hs;
}

enum slap_status plot_spectrum_of(struct plot_spectrum *s, const struct results_doc *d)
{
    struct hist *hs = period_hists(d);
    const struct hist **ptrs = calloc(d->periods.n + 1, sizeof(*ptrs));
    memset(s, 0, sizeof(*s));
    s->label = d->label;
    if (hs == NULL || ptrs == NULL) {
        hist_slab_free(hs, d->periods.n + 1);
        free(ptrs);
        return SLAP_ERROR;
    }
    struct hist *total = &hs[d->periods.n];
    if (d->periods.n == 0) { /* no periods: the run's whole histogram, without intervals */
        stats_total_hist(d->global, total);
    }
    for (size_t i = 0; i < d->periods.n; i++) {
        ptrs[i] = &hs[i];
    }
    double reach = total->count > 1 ? fmin(log10((double)total->count), PLOT_SPECTRUM_NINES) : 0;
    for (double x = 0; total->count > 0 && x <= reach + 1e-9; x += PLOT_SPECTRUM_STEP) {
        struct ci_result ci;
        double pct = nines_pct(x);
        uint64_t v = x == 0 ? total->min_ns : hist_percentile_ns(total, pct);
        ci_percentile(ptrs, d->periods.n, pct, 0.95, &ci);
        s->x[s->n] = x;
        s->latency_us[s->n] = (double)v / (double)SLAP_NS_PER_US;
        s->low_us[s->n] = x > 0 && ci.estimable ? (double)ci.low_ns / (double)SLAP_NS_PER_US : NAN;
        s->high_us[s->n] =
            x > 0 && ci.estimable ? (double)ci.high_ns / (double)SLAP_NS_PER_US : NAN;
        s->n++;
    }
    hist_slab_free(hs, d->periods.n + 1);
    free(ptrs);
    return SLAP_OK;
}

/* v's values where the spectrum has an interval, space-separated. */
static void band_values(FILE *out, const struct plot_spectrum *s, const double *v)
{
    const char *sep = "";
    for (size_t i = 0; i < s->n; i++) {
        if (!isnan(s->low_us[i])) {
            fprintf(out, "%s%.10g", sep, v[i]);
            sep = " ";
        }
    }
}

/* The band of a spectrum's intervals: a polygon under its low ends and back over its high
 * ones, where they can be estimated (a group carrying the numbers, as a series does). */
static void draw_band(struct svg_panel *p, const struct plot_spectrum *s, const char *color)
{
    FILE *out = p->out;
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++) {
        n += !isnan(s->low_us[i]);
    }
    if (n == 0) {
        return;
    }
    const char *sep = "";
    fputs("<g class=\"band\" data-label=\"", out);
    svg_xml_text(out, s->label);
    fputs("\" data-metric=\"spectrum_ci_us\" data-x=\"", out);
    band_values(out, s, s->x);
    fputs("\" data-low=\"", out);
    band_values(out, s, s->low_us);
    fputs("\" data-high=\"", out);
    band_values(out, s, s->high_us);
    fprintf(out, "\">\n<polygon fill=\"%s\" fill-opacity=\"0.2\" stroke=\"none\" points=\"", color);
    sep = "";
    for (size_t i = 0; i < s->n; i++) {
        if (!isnan(s->low_us[i])) {
            fprintf(out, "%s%.1f,%.1f", sep, svg_px(p, s->x[i]), svg_py(p, s->low_us[i]));
            sep = " ";
        }
    }
    for (size_t i = s->n; i-- > 0;) {
        if (!isnan(s->low_us[i])) {
            fprintf(out, " %.1f,%.1f", svg_px(p, s->x[i]), svg_py(p, s->high_us[i]));
        }
    }
    fputs("\"/>\n</g>\n", out);
}

static void panel_spectrum(const struct plot_runs *in, FILE *out, int *top)
{
    double xhi = 1, ylo = INFINITY, yhi = -INFINITY;
    for (size_t d = 0; d < in->nspectra; d++) {
        const struct plot_spectrum *s = &in->spectra[d];
        for (size_t i = 0; i < s->n; i++) {
            xhi = fmax(xhi, s->x[i]);
            ylo = fmin(ylo, s->latency_us[i]);
            yhi = fmax(yhi, isnan(s->high_us[i]) ? s->latency_us[i] : s->high_us[i]);
            ylo = isnan(s->low_us[i]) ? ylo : fmin(ylo, s->low_us[i]);
        }
    }
    struct svg_panel p = {.out = out, .top = *top, .height = PANEL_HEIGHT};
    p.x = (struct svg_axis){.lo = 0, .hi = ceil(xhi - 1e-9), .nines = true};
    p.y = svg_make_axis(isfinite(ylo) ? ylo : 1, isfinite(yhi) ? yhi : 10, true);
    draw_axes(&p, "Percentile spectrum (bands: 95% intervals)", "percentile (nines)",
              "latency (\xc2\xb5s, log scale)");
    for (size_t d = 0; d < in->nspectra; d++) {
        const struct plot_spectrum *s = &in->spectra[d];
        const char *color = palette[d % SLAP_ARRAY_SIZE(palette)];
        struct series line = {s->n, (double *)s->x, (double *)s->latency_us};
        draw_band(&p, s, color);
        draw_series(&p, &line, s->label, "spectrum_us", color, "none");
        svg_legend(&p, color, "none", s->label, "");
    }
    *top += PANEL_HEIGHT;
}

/* ---- the picture ---------------------------------------------------------------------- */

static int panel_count(const struct plot_runs *in, bool *periods, bool *steps)
{
    *periods = *steps = false;
    for (size_t d = 0; d < in->nruns; d++) {
        *periods = *periods || in->runs[d].periods.n > 0;
        *steps = *steps || in->runs[d].steps.n > 0;
    }
    bool samples = in->samples != NULL || in->samples_path != NULL;
    return (*periods ? 2 : 0) + (*steps ? 1 : 0) + (samples ? 1 : 0) + (in->nspectra > 0 ? 1 : 0);
}

void plot_svg_runs(FILE *out, const void *arg)
{
    const struct plot_runs *in = arg;
    bool periods, steps;
    int panels = panel_count(in, &periods, &steps);
    int height = (panels > 0 ? panels : 1) * PANEL_HEIGHT;
    int top = 0;
    svg_begin(out, height, "");
    if (periods) {
        panel_of(in, out, &top, SERIES_RATE_OVER_TIME);
        panel_of(in, out, &top, SERIES_LATENCY_OVER_TIME);
    }
    if (steps) {
        panel_of(in, out, &top, SERIES_LATENCY_BY_RATE);
    }
    struct plot_samples own = {.stride = 1};
    char err[256];
    const struct plot_samples *samples = in->samples;
    if (samples == NULL && in->samples_path != NULL &&
        plot_samples_read(in->samples_path, &own, err, sizeof(err)) == SLAP_OK) {
        samples = &own; /* a run's own --samples file, as it wrote it */
    }
    if (samples != NULL) {
        panel_samples(samples, out, &top);
    }
    plot_samples_free(&own);
    if (in->nspectra > 0) {
        panel_spectrum(in, out, &top);
    }
    if (top == 0) {
        fprintf(out,
                "<text class=\"title\" x=\"%d\" y=\"%d\">No periods, steps or samples to "
                "draw</text>\n",
                SVG_MARGIN_LEFT, PANEL_HEIGHT / 2);
    }
    fputs("</svg>\n", out);
}

/* Do two of the runs share a label (each host's name by default), so that their legends would
 * read alike? Then each is named by its file. */
static bool labels_alike(const struct plot_input *in)
{
    for (size_t i = 0; i < in->ndocs; i++) {
        for (size_t j = i + 1; j < in->ndocs; j++) {
            if (strcmp(in->docs[i]->label, in->docs[j]->label) == 0) {
                return true;
            }
        }
    }
    return false;
}

void plot_svg(FILE *out, const void *arg)
{
    const struct plot_input *in = arg;
    struct plot_run runs[PLOT_MAX_DOCS];
    struct plot_runs picture = {runs, 0, NULL, in->samples, NULL, 0};
    /* several runs compared: their spectra too (runs with periods or a histogram, not sweeps) */
    struct plot_spectrum *spectra = in->ndocs > 1 ? calloc(in->ndocs, sizeof(*spectra)) : NULL;
    bool by_file = labels_alike(in);
    for (; picture.nruns < in->ndocs && picture.nruns < PLOT_MAX_DOCS; picture.nruns++) {
        const struct results_doc *d = in->docs[picture.nruns];
        const char *name = by_file && d->source != NULL ? d->source : d->label;
        /* out of memory: the run is drawn with the points it has */
        (void)plot_run_of(&runs[picture.nruns], d);
        runs[picture.nruns].label = name;
        if (spectra != NULL && !d->sweep &&
            plot_spectrum_of(&spectra[picture.nspectra], d) == SLAP_OK &&
            spectra[picture.nspectra].n > 0) {
            spectra[picture.nspectra].label = name;
            picture.nspectra++;
        }
    }
    picture.spectra = spectra;
    plot_svg_runs(out, &picture);
    for (size_t i = 0; i < picture.nruns; i++) {
        plot_run_free(&runs[i]);
    }
    free(spectra);
}
