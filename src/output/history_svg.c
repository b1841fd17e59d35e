/*
 * A series' figures over time as SVG, in plot.c's look: one panel per figure, stacked, with
 * each run's value (a dot) and its interval (a vertical line), the level between changes (a
 * horizontal line) and each change (a dashed line, its size beside). Each panel is a
 * <g class="panel"> whose data attributes hold the figure's numbers as the series holds them.
 */
#include "slap/output/history.h"

#include <math.h>
#include <string.h>

#include "slap/base/quote.h"

#define WIDTH 980
#define HEAD_HEIGHT 40
#define PANEL_HEIGHT 300
#define MARGIN_LEFT 90
#define MARGIN_RIGHT 230
#define MARGIN_TOP 50
#define MARGIN_BOTTOM 60
#define PLOT_W (WIDTH - MARGIN_LEFT - MARGIN_RIGHT)
#define PLOT_H (PANEL_HEIGHT - MARGIN_TOP - MARGIN_BOTTOM)
#define MAX_TICKS 12
#define TIME_TICKS 5
#define DAY_MS 86400000.0
#define HOUR_MS 3600000.0

#define COLOR_RUN "#1f77b4"
#define COLOR_LEVEL "#444444"
#define COLOR_WORSE "#d62728"
#define COLOR_BETTER "#2ca02c"

struct axis {
    double lo, hi; /* the range drawn */
};

struct panel {
    FILE *out;
    int top; /* y of the panel's top in the picture */
    struct axis x, y;
    int legend_rows;
};

/* ---- text ----------------------------------------------------------------------------- */

/* Text from outside: shown by quote.h's rule (no control byte, no broken UTF-8: \xNN), then
 * escaped for XML. */
static void xml_text(FILE *out, const char *s)
{
    char shown[QUOTE_PATH_BUF];
    for (const char *p = quote_text(shown, s); *p != '\0'; p++) {
        switch (*p) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        default:
            fputc(*p, out);
        }
    }
}

/* 1234567 -> "1.23M", 0.5 -> "0.5": tick labels. */
static void short_number(char *buf, size_t len, double v)
{
    double a = fabs(v);
    if (a >= 1e9) {
        snprintf(buf, len, "%gG", v / 1e9);
    } else if (a >= 1e6) {
        snprintf(buf, len, "%gM", v / 1e6);
    } else if (a >= 1e3) {
        snprintf(buf, len, "%gk", v / 1e3);
    } else {
        snprintf(buf, len, "%g", v);
    }
}

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

static double px(const struct panel *p, double x)
{
    double span = p->x.hi - p->x.lo;
    return MARGIN_LEFT + (span > 0 ? (x - p->x.lo) / span * PLOT_W : PLOT_W / 2.0);
}

static double py(const struct panel *p, double y)
{
    double span = p->y.hi - p->y.lo;
    return p->top + MARGIN_TOP + PLOT_H - (span > 0 ? (y - p->y.lo) / span * PLOT_H : 0.0);
}

/* An axis over [lo, hi] of the values from 0 (or below), a little above hi, with round ends. */
static struct axis value_axis(double lo, double hi)
{
    struct axis a;
    lo = lo > 0 ? 0 : lo;
    hi = hi > lo ? hi + (hi - lo) * 0.05 : lo + 1; /* the top values clear of the frame */
    double step = pow(10, floor(log10((hi - lo) / 5)));
    step *= (hi - lo) / step > 25 ? 5 : (hi - lo) / step > 10 ? 2 : 1;
    a.lo = floor(lo / step) * step;
    a.hi = ceil(hi / step) * step;
    return a;
}

/* The value ticks of a, up to MAX_TICKS. */
static size_t value_ticks(const struct axis *a, double *at)
{
    size_t n = 0;
    double step = pow(10, floor(log10((a->hi - a->lo) / 5)));
    while ((a->hi - a->lo) / step > 8) {
        step *= (a->hi - a->lo) / step > 20 ? 5 : 2;
    }
    for (double v = a->lo; v <= a->hi + step * 1e-9 && n < MAX_TICKS; v += step) {
        at[n++] = fabs(v) < step * 1e-9 ? 0.0 : v;
    }
    return n;
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
static struct axis time_axis(const struct history_series *s)
{
    struct axis a = {(double)s->first_ms, (double)s->last_ms};
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

static void draw_axes(struct panel *p, const struct history_figure *f, size_t present)
{
    FILE *out = p->out;
    double at[MAX_TICKS], span = p->x.hi - p->x.lo;
    char label[32];
    int top = p->top + MARGIN_TOP;
    fprintf(out, "<text class=\"title\" x=\"%d\" y=\"%d\">", MARGIN_LEFT, p->top + 30);
    xml_text(out, f->name);
    if (f->changes.needed > 0) {
        fprintf(out, " (needs %zu runs to judge, has %zu)", f->changes.needed, present);
    }
    fprintf(out, "</text>\n<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
            MARGIN_LEFT, top, PLOT_W, PLOT_H);
    for (int i = 0; i < TIME_TICKS; i++) {
        double t = p->x.lo + span * (i + 0.5) / TIME_TICKS;
        time_label(label, sizeof(label), t, span);
        fprintf(out,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                px(p, t), top, px(p, t), top + PLOT_H, px(p, t), top + PLOT_H + 18, label);
    }
    size_t n = value_ticks(&p->y, at);
    for (size_t i = 0; i < n; i++) {
        short_number(label, sizeof(label), at[i]);
        fprintf(out,
                "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
                "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                MARGIN_LEFT, py(p, at[i]), MARGIN_LEFT + PLOT_W, py(p, at[i]), MARGIN_LEFT - 6,
                py(p, at[i]) + 4, label);
    }
    fprintf(out,
            "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">time (UTC)</text>\n",
            MARGIN_LEFT + PLOT_W / 2, top + PLOT_H + 42);
    fprintf(out,
            "<text class=\"axis\" transform=\"translate(%d,%d) rotate(-90)\" "
            "text-anchor=\"middle\">%s</text>\n",
            24, top + PLOT_H / 2, figure_unit(f->name));
}

/* One legend row: a mark in the given style and what it shows. */
static void legend(struct panel *p, const char *color, const char *dash, const char *what)
{
    int y = p->top + MARGIN_TOP + 10 + 18 * p->legend_rows++;
    int x = MARGIN_LEFT + PLOT_W + 14;
    fprintf(p->out,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
            "stroke-width=\"2\" stroke-dasharray=\"%s\"/><text class=\"legend\" x=\"%d\" "
            "y=\"%d\">%s</text>\n",
            x, y, x + 28, y, color, dash, x + 34, y + 4, what);
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
static void draw_values(struct panel *p, const struct history_series *s,
                        const struct history_figure *f)
{
    FILE *out = p->out;
    fputs("<g class=\"values\"", out);
    data_numbers(out, "data-x", s, f, true);
    data_numbers(out, "data-y", s, f, false);
    fputs(">\n", out);
    for (size_t r = 0; r < s->nruns; r++) {
        const struct history_value *v = &f->values[r];
        double x = px(p, run_time(s, r));
        if (isnan(v->value)) {
            continue;
        }
        if (isfinite(v->low) && isfinite(v->high)) {
            fprintf(out,
                    "<line class=\"interval\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                    x, py(p, v->low), x, py(p, v->high));
        }
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", x, py(p, v->value),
                COLOR_RUN);
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
static void draw_levels(struct panel *p, const struct history_series *s,
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
                    px(p, from), py(p, level), px(p, to), py(p, level));
        }
        from = to;
    }
    fputs("</g>\n", p->out);
}

/* A dashed line at each change, its size beside near the foot of the panel (the values sit
 * high on an axis from 0): red when it is the worse way, green the better. */
static void draw_changes(struct panel *p, const struct history_series *s,
                         const struct history_figure *f)
{
    int top = p->top + MARGIN_TOP;
    for (size_t j = 0; j < f->changes.n; j++) {
        const struct change_point *c = &f->changes.points[j];
        bool worse = f->higher_is_better ? c->relative < 0 : c->relative > 0;
        const char *color = worse ? COLOR_WORSE : COLOR_BETTER;
        double x = px(p, change_time(s, f, j));
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
                     const struct axis *x, int *top)
{
    struct panel p = {.out = out, .top = *top, .x = *x};
    double lo, hi;
    size_t present = 0;
    for (size_t r = 0; f->values != NULL && r < s->nruns; r++) {
        present += !isnan(f->values[r].value);
    }
    p.y = figure_extent(s, f, &lo, &hi) ? value_axis(lo, hi) : value_axis(0, 1);
    fputs("<g class=\"panel\" data-figure=\"", out);
    xml_text(out, f->name);
    fputs("\">\n", out);
    draw_axes(&p, f, present);
    if (f->values != NULL && s->nruns > 0) {
        draw_values(&p, s, f);
        draw_levels(&p, s, f);
        draw_changes(&p, s, f);
    }
    legend(&p, COLOR_RUN, "none", "a run (its interval)");
    if (f->changes.n > 0) {
        legend(&p, COLOR_LEVEL, "none", "level between changes");
        legend(&p, COLOR_WORSE, "6,4", "change, the worse way");
        legend(&p, COLOR_BETTER, "6,4", "change, the better way");
    }
    fputs("</g>\n", out);
    *top += PANEL_HEIGHT;
}

void history_write_svg(FILE *out, const struct history_series *s)
{
    int height = HEAD_HEIGHT + (s->nfigures > 0 ? (int)s->nfigures : 1) * PANEL_HEIGHT;
    int top = HEAD_HEIGHT;
    struct axis x = time_axis(s);
    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n",
            WIDTH, height, WIDTH, height);
    fputs("<style>.title{font-size:16px;font-weight:bold}.tick{font-size:11px;fill:#444}"
          ".axis{font-size:12px}.legend{font-size:11px}.frame{fill:none;stroke:#888}"
          ".grid{stroke:#e4e4e4}.mark{font-size:12px;font-weight:bold}"
          ".interval{stroke:" COLOR_RUN ";stroke-opacity:0.45;stroke-width:2}"
          ".level{stroke:" COLOR_LEVEL ";stroke-width:2}</style>\n"
          "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
          out);
    fprintf(out, "<text class=\"title\" x=\"%d\" y=\"26\">", MARGIN_LEFT);
    xml_text(out, s->label);
    fputs(" (series ", out);
    xml_text(out, s->id);
    fprintf(out, ", %zu runs)</text>\n", s->nruns);
    for (size_t f = 0; f < s->nfigures; f++) {
        panel_of(out, s, &s->figures[f], &x, &top);
    }
    if (s->nfigures == 0) {
        fprintf(out, "<text class=\"title\" x=\"%d\" y=\"%d\">No figures to draw</text>\n",
                MARGIN_LEFT, HEAD_HEIGHT + PANEL_HEIGHT / 2);
    }
    fputs("</svg>\n", out);
}
