/*
 * A series' figures over time as SVG, in plot.c's look: one panel per figure, stacked, with
 * each run's value (a dot) and its interval (a vertical line), the level between changes (a
 * horizontal line) and each change (a dashed line, its size beside). Each panel is a
 * <g class="panel"> whose data attributes hold the figure's numbers as the series holds them.
 */
#include "slap/output/history.h"

#include <math.h>
#include <string.h>

#include "svg.h"

#define HEAD_HEIGHT 40
#define PANEL_HEIGHT 300
#define PLOT_H SVG_PLOT_H(PANEL_HEIGHT)
#define TIME_TICKS 5
#define DAY_MS 86400000.0
#define HOUR_MS 3600000.0

#define COLOR_RUN SVG_BLUE
#define COLOR_LEVEL "#444444"
#define COLOR_WORSE SVG_RED
#define COLOR_BETTER SVG_GREEN

/* A time tick's label: the date over a span of days, else the day and the hour. */
static void time_label(char *buf, size_t len, double ms, double span_ms)
{
    char iso[32];
    history_time(iso, sizeof(iso), ms > 0 ? (uint64_t)ms : 0);
    if (span_ms >= 3 * DAY_MS || strlen(iso) < 16) {
        snprintf(buf, len, "%.10s", iso);
    } else {
        snprintf(buf, len, "%.5s %.5s", iso + 5, iso + 11);
    }
}

/* ---- axes ----------------------------------------------------------------------------- */

/* An axis over [lo, hi] of the values from 0 (or below), a little above hi, with round ends. */
static struct svg_axis value_axis(double lo, double hi)
{
    lo = lo > 0 ? 0 : lo;
    hi = hi > lo ? hi + (hi - lo) * 0.05 : lo + 1; /* the top values clear of the frame */
    return svg_make_axis(lo, hi, false);
}

/* When run r started, in ms: its own time, or (a series without its runs) spread evenly from
 * the first to the last. */
static double run_time(const struct history_series *s, size_t r)
{
    if (s->runs != NULL) {
        return (double)s->runs[r].time_ms;
    }
    double span = (double)s->last_ms - (double)s->first_ms;
    return (double)s->first_ms + (s->nruns > 1 ? span * (double)r / (double)(s->nruns - 1) : 0);
}

/* The time axis: the runs' span and a little room either side (an hour each side for one). */
static struct svg_axis time_axis(const struct history_series *s)
{
    struct svg_axis a = {(double)s->first_ms, (double)s->last_ms, false, false};
    for (size_t r = 0; s->runs != NULL && r < s->nruns; r++) {
        a.lo = fmin(a.lo, run_time(s, r));
        a.hi = fmax(a.hi, run_time(s, r));
    }
    double pad = a.hi > a.lo ? (a.hi - a.lo) * 0.04 : HOUR_MS;
    a.lo -= pad;
    a.hi += pad;
    return a;
}

/* The unit of a figure's values, for its panel. */
static const char *figure_unit(const char *name)
{
    if (history_figure_is_latency(name)) {
        return "latency (\xc2\xb5s)";
    }
    return strcmp(name, "tps") == 0 || strcmp(name, "capacity") == 0 ? "ops/s" : "count";
}

/* TIME_TICKS ticks along the time axis x, each at the middle of its part. */
static void time_ticks(const struct svg_axis *x, struct svg_ticks *t)
{
    double span = x->hi - x->lo;
    t->n = TIME_TICKS;
    for (int i = 0; i < TIME_TICKS; i++) {
        t->at[i] = x->lo + span * (i + 0.5) / TIME_TICKS;
        time_label(t->label[i], sizeof(t->label[i]), t->at[i], span);
    }
}

static void draw_axes(struct svg_panel *p, const struct history_figure *f, size_t present)
{
    char note[96] = "";
    struct svg_names names = {f->name, note, "time (UTC)", figure_unit(f->name)};
    struct svg_ticks x;
    if (f->changes.needed > 0) {
        snprintf(note, sizeof(note), " (needs %zu runs to judge, has %zu)", f->changes.needed,
                 present);
    }
    time_ticks(&p->x, &x);
    svg_draw_axes(p, &names, &x);
}

/* The least and most of f's values, intervals and levels; false when it has none. */
static bool figure_extent(const struct history_series *s, const struct history_figure *f,
                          double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t r = 0; f->values != NULL && r < s->nruns; r++) {
        const struct history_value *v = &f->values[r];
        double each[] = {v->value, v->low, v->high};
        for (size_t i = 0; i < SLAP_ARRAY_SIZE(each) && !isnan(v->value); i++) {
            *lo = isfinite(each[i]) ? fmin(*lo, each[i]) : *lo;
            *hi = isfinite(each[i]) ? fmax(*hi, each[i]) : *hi;
        }
    }
    for (size_t j = 0; j < f->changes.n; j++) {
        double each[] = {f->changes.points[j].before, f->changes.points[j].after};
        for (size_t i = 0; i < SLAP_ARRAY_SIZE(each); i++) {
            *lo = isfinite(each[i]) ? fmin(*lo, each[i]) : *lo;
            *hi = isfinite(each[i]) ? fmax(*hi, each[i]) : *hi;
        }
    }
    return *lo <= *hi;
}

/* An attribute of the figure's numbers where it has a value: the runs' times in ms (x) or the
 * values (y), space-separated, as the series holds them. */
static void data_numbers(FILE *out, const char *attr, const struct history_series *s,
                         const struct history_figure *f, bool times)
{
    const char *sep = "";
    fprintf(out, " %s=\"", attr);
    for (size_t r = 0; r < s->nruns; r++) {
        if (!isnan(f->values[r].value)) {
            fprintf(out, "%s%.13g", sep, times ? run_time(s, r) : f->values[r].value);
            sep = " ";
        }
    }
    fputc('"', out);
}

/* The figure's values as a group carrying its numbers, each a dot and, with an interval, a
 * vertical line from low to high. */
static void draw_values(struct svg_panel *p, const struct history_series *s,
                        const struct history_figure *f)
{
    FILE *out = p->out;
    fputs("<g class=\"values\"", out);
    data_numbers(out, "data-x", s, f, true);
    data_numbers(out, "data-y", s, f, false);
    fputs(">\n", out);
    for (size_t r = 0; r < s->nruns; r++) {
        const struct history_value *v = &f->values[r];
        double x = svg_px(p, run_time(s, r));
        if (isnan(v->value)) {
            continue;
        }
        if (isfinite(v->low) && isfinite(v->high)) {
            fprintf(out,
                    "<line class=\"interval\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                    x, svg_py(p, v->low), x, svg_py(p, v->high));
        }
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", x,
                svg_py(p, v->value), COLOR_RUN);
    }
    fputs("</g>\n", out);
}

/* The time of the run where f's change j was found (the last run's when out of range). */
static double change_time(const struct history_series *s, const struct history_figure *f, size_t j)
{
    size_t r = history_change_run(f, s->nruns, j);
    return run_time(s, r < s->nruns ? r : s->nruns - 1);
}

/* The levels between changes: before the first at its before, after each at its after. */
static void draw_levels(struct svg_panel *p, const struct history_series *s,
                        const struct history_figure *f)
{
    const struct change_point *pts = f->changes.points;
    double from = run_time(s, 0);
    fputs("<g class=\"levels\">\n", p->out);
    for (size_t j = 0; j <= f->changes.n && f->changes.n > 0; j++) {
        double to = j < f->changes.n ? change_time(s, f, j) : run_time(s, s->nruns - 1);
        double level = j == 0 ? pts[0].before : pts[j - 1].after;
        if (isfinite(level)) {
            fprintf(p->out,
                    "<line class=\"level\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                    svg_px(p, from), svg_py(p, level), svg_px(p, to), svg_py(p, level));
        }
        from = to;
    }
    fputs("</g>\n", p->out);
}

/* A dashed line at each change, its size beside near the foot of the panel (the values sit
 * high on an axis from 0): red when it is the worse way, green the better. */
static void draw_changes(struct svg_panel *p, const struct history_series *s,
                         const struct history_figure *f)
{
    int top = p->top + SVG_MARGIN_TOP;
    for (size_t j = 0; j < f->changes.n; j++) {
        const struct change_point *c = &f->changes.points[j];
        bool worse = f->higher_is_better ? c->relative < 0 : c->relative > 0;
        const char *color = worse ? COLOR_WORSE : COLOR_BETTER;
        double x = svg_px(p, change_time(s, f, j));
        fprintf(p->out,
                "<g class=\"change\" data-run=\"%zu\" data-before=\"%.10g\" data-after=\"%.10g\">"
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" "
                "stroke-width=\"1.5\" stroke-dasharray=\"6,4\"/>",
                history_change_run(f, s->nruns, j) + 1, c->before, c->after, x, top, x,
                top + PLOT_H, color);
        fprintf(p->out, "<text class=\"mark\" x=\"%.1f\" y=\"%d\" fill=\"%s\">%+.1f%%</text></g>\n",
                x + 4, top + PLOT_H - 8 - 14 * (int)(j % 3), color, 100.0 * c->relative);
    }
}

/* Figure f's panel, at *top, which moves past it. */
static void panel_of(FILE *out, const struct history_series *s, const struct history_figure *f,
                     const struct svg_axis *x, int *top)
{
    struct svg_panel p = {.out = out, .top = *top, .height = PANEL_HEIGHT, .x = *x};
    double lo, hi;
    size_t present = 0;
    for (size_t r = 0; f->values != NULL && r < s->nruns; r++) {
        present += !isnan(f->values[r].value);
    }
    p.y = figure_extent(s, f, &lo, &hi) ? value_axis(lo, hi) : value_axis(0, 1);
    fputs("<g class=\"panel\" data-figure=\"", out);
    svg_xml_text(out, f->name);
    fputs("\">\n", out);
    draw_axes(&p, f, present);
    if (f->values != NULL && s->nruns > 0) {
        draw_values(&p, s, f);
        draw_levels(&p, s, f);
        draw_changes(&p, s, f);
    }
    svg_legend(&p, COLOR_RUN, "none", NULL, "a run (its interval)");
    if (f->changes.n > 0) {
        svg_legend(&p, COLOR_LEVEL, "none", NULL, "level between changes");
        svg_legend(&p, COLOR_WORSE, "6,4", NULL, "change, the worse way");
        svg_legend(&p, COLOR_BETTER, "6,4", NULL, "change, the better way");
    }
    fputs("</g>\n", out);
    *top += PANEL_HEIGHT;
}

void history_write_svg(FILE *out, const struct history_series *s)
{
    int height = HEAD_HEIGHT + (s->nfigures > 0 ? (int)s->nfigures : 1) * PANEL_HEIGHT;
    int top = HEAD_HEIGHT;
    struct svg_axis x = time_axis(s);
    svg_begin(out, height,
              ".mark{font-size:12px;font-weight:bold}"
              ".interval{stroke:" COLOR_RUN ";stroke-opacity:0.45;stroke-width:2}"
              ".level{stroke:" COLOR_LEVEL ";stroke-width:2}");
    fprintf(out, "<text class=\"title\" x=\"%d\" y=\"26\">", SVG_MARGIN_LEFT);
    svg_xml_text(out, s->label);
    fputs(" (series ", out);
    svg_xml_text(out, s->id);
    fprintf(out, ", %zu runs)</text>\n", s->nruns);
    for (size_t f = 0; f < s->nfigures; f++) {
        panel_of(out, s, &s->figures[f], &x, &top);
    }
    if (s->nfigures == 0) {
        fprintf(out, "<text class=\"title\" x=\"%d\" y=\"%d\">No figures to draw</text>\n",
                SVG_MARGIN_LEFT, HEAD_HEIGHT + PANEL_HEIGHT / 2);
    }
    fputs("</svg>\n", out);
}
