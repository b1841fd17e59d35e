/* The pieces slap's SVG pictures share: the frame of a picture, axes and ticks, text, legend. */
#include "svg.h"

#include <math.h>
#include <string.h>

#include "slap/base/quote.h"

#define LOG_FLOOR 0.1 /* a log axis draws values below this at it */

void svg_begin(FILE *out, int height, const char *style)
{
    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n",
            SVG_WIDTH, height, SVG_WIDTH, height);
    fprintf(out,
            "<style>.title{font-size:16px;font-weight:bold}.tick{font-size:11px;fill:#444}"
            ".axis{font-size:12px}.legend{font-size:11px}.frame{fill:none;stroke:#888}"
            ".grid{stroke:#e4e4e4}%s</style>\n<rect width=\"100%%\" height=\"100%%\" "
            "fill=\"white\"/>\n",
            style);
}

/* ---- text ----------------------------------------------------------------------------- */

/* The bytes at the start of text (len of them) that quote_text shows as the whole text would:
 * at most QUOTE_PATH_MAX, ending before a character's first byte (no well-formed character is
 * cut; a run of stray continuation bytes is \xNN however it is cut). */
static size_t piece_length(const char *text, size_t len)
{
    size_t n = QUOTE_PATH_MAX;
    if (len <= n) {
        return len;
    }
    while (n > 0 && ((unsigned char)text[n] & 0xc0) == 0x80) {
        n--;
    }
    return n > 0 ? n : QUOTE_PATH_MAX;
}

/* U+FFFE or U+FFFF at s: characters quote.h's rule keeps that XML does not allow. */
static bool xml_forbidden(const char *s)
{
    return strncmp(s, "\xef\xbf\xbe", 3) == 0 || strncmp(s, "\xef\xbf\xbf", 3) == 0;
}

/* shown (quote.h's rule applied) escaped for XML. */
static void xml_escaped(FILE *out, const char *shown)
{
    for (const char *s = shown; *s != '\0'; s++) {
        if (*s == '&') {
            fputs("&amp;", out);
        } else if (*s == '<') {
            fputs("&lt;", out);
        } else if (*s == '>') {
            fputs("&gt;", out);
        } else if (*s == '"') {
            fputs("&quot;", out);
        } else if (xml_forbidden(s)) {
            fprintf(out, "\\xef\\xbf\\x%02x", (unsigned char)s[2]);
            s += 2;
        } else {
            fputc(*s, out);
        }
    }
}

void svg_xml_text(FILE *out, const char *text)
{
    char piece[QUOTE_PATH_MAX + 1], shown[QUOTE_PATH_BUF];
    size_t n;
    for (size_t len = strlen(text); len > 0; text += n, len -= n) {
        n = piece_length(text, len);
        memcpy(piece, text, n);
        piece[n] = '\0';
        xml_escaped(out, quote_text(shown, piece));
    }
}

void svg_short_number(char *buf, size_t len, double v)
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

/* ---- axes ----------------------------------------------------------------------------- */

static double axis_value(const struct svg_axis *a, double v)
{
    if (!a->log) {
        return v;
    }
    return log10(v > LOG_FLOOR ? v : LOG_FLOOR);
}

/* Where v goes along a length of pixels (0 at lo; flat where the axis has no span). */
static double axis_pixel(const struct svg_axis *a, double v, double length, double flat)
{
    double span = a->hi - a->lo;
    return span > 0 ? (axis_value(a, v) - a->lo) / span * length : flat;
}

double svg_px(const struct svg_panel *p, double x)
{
    return SVG_MARGIN_LEFT + axis_pixel(&p->x, x, SVG_PLOT_W, SVG_PLOT_W / 2.0);
}

double svg_py(const struct svg_panel *p, double y)
{
    int plot_h = SVG_PLOT_H(p->height);
    return p->top + SVG_MARGIN_TOP + plot_h - axis_pixel(&p->y, y, plot_h, 0.0);
}

struct svg_axis svg_make_axis(double lo, double hi, bool log_scale)
{
    struct svg_axis a = {.log = log_scale};
    if (log_scale) {
        a.lo = floor(log10(lo > LOG_FLOOR ? lo : LOG_FLOOR));
        a.hi = ceil(log10(hi > LOG_FLOOR ? hi : LOG_FLOOR));
        a.hi = a.hi <= a.lo ? a.lo + 1 : a.hi;
        return a;
    }
    lo = lo > 0 ? 0 : lo;
    hi = hi > lo ? hi : lo + 1;
    double step = pow(10, floor(log10((hi - lo) / 5)));
    step *= (hi - lo) / step > 25 ? 5 : (hi - lo) / step > 10 ? 2 : 1;
    a.lo = floor(lo / step) * step;
    a.hi = ceil(hi / step) * step;
    return a;
}

/* The tick values of a linear axis (in data units), up to SVG_MAX_TICKS. */
static size_t linear_ticks(const struct svg_axis *a, double *at)
{
    size_t n = 0;
    double step = pow(10, floor(log10((a->hi - a->lo) / 5)));
    while ((a->hi - a->lo) / step > 8) {
        step *= (a->hi - a->lo) / step > 20 ? 5 : 2;
    }
    for (double v = a->lo; v <= a->hi + step * 1e-9 && n < SVG_MAX_TICKS; v += step) {
        at[n++] = fabs(v) < step * 1e-9 ? 0.0 : v;
    }
    return n;
}

/* The tick values of a (in data units), up to SVG_MAX_TICKS. */
static size_t tick_values(const struct svg_axis *a, double *at)
{
    size_t n = 0;
    if (a->log) {
        for (double e = a->lo; e <= a->hi + 1e-9 && n < SVG_MAX_TICKS; e++) {
            at[n++] = pow(10, e);
        }
        return n;
    }
    if (a->nines) {
        for (double v = a->lo; v <= a->hi + 1e-9 && n < SVG_MAX_TICKS; v++) {
            at[n++] = v;
        }
        return n;
    }
    return linear_ticks(a, at);
}

void svg_axis_ticks(const struct svg_axis *a, struct svg_ticks *t)
{
    t->n = tick_values(a, t->at);
    for (size_t i = 0; i < t->n; i++) {
        double v = t->at[i];
        if (a->nines) { /* 1 -> "90", 3 -> "99.9" */
            snprintf(t->label[i], sizeof(t->label[i]), "%.*f", v > 2 ? (int)v - 2 : 0,
                     100.0 * (1.0 - pow(10, -v)));
        } else {
            svg_short_number(t->label[i], sizeof(t->label[i]), v);
        }
    }
}

/* ---- drawing -------------------------------------------------------------------------- */

static void draw_title_frame(const struct svg_panel *p, const struct svg_names *names)
{
    fprintf(p->out, "<text class=\"title\" x=\"%d\" y=\"%d\">", SVG_MARGIN_LEFT, p->top + 30);
    svg_xml_text(p->out, names->title);
    fprintf(p->out,
            "%s</text>\n<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
            names->note != NULL ? names->note : "", SVG_MARGIN_LEFT, p->top + SVG_MARGIN_TOP,
            SVG_PLOT_W, SVG_PLOT_H(p->height));
}

static void draw_x_ticks(const struct svg_panel *p, const struct svg_ticks *t)
{
    int top = p->top + SVG_MARGIN_TOP, bottom = top + SVG_PLOT_H(p->height);
    for (size_t i = 0; i < t->n; i++) {
        double x = svg_px(p, t->at[i]);
        fprintf(p->out,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                x, top, x, bottom, x, bottom + 18, t->label[i]);
    }
}

static void draw_y_ticks(const struct svg_panel *p)
{
    struct svg_ticks t;
    svg_axis_ticks(&p->y, &t);
    for (size_t i = 0; i < t.n; i++) {
        double y = svg_py(p, t.at[i]);
        fprintf(p->out,
                "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
                "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                SVG_MARGIN_LEFT, y, SVG_MARGIN_LEFT + SVG_PLOT_W, y, SVG_MARGIN_LEFT - 6, y + 4,
                t.label[i]);
    }
}

static void draw_axis_names(const struct svg_panel *p, const struct svg_names *names)
{
    int top = p->top + SVG_MARGIN_TOP, plot_h = SVG_PLOT_H(p->height);
    fprintf(p->out, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
            SVG_MARGIN_LEFT + SVG_PLOT_W / 2, top + plot_h + 42, names->x);
    fprintf(p->out,
            "<text class=\"axis\" transform=\"translate(%d,%d) rotate(-90)\" "
            "text-anchor=\"middle\">%s</text>\n",
            24, top + plot_h / 2, names->y);
}

void svg_draw_axes(const struct svg_panel *p, const struct svg_names *names,
                   const struct svg_ticks *x)
{
    draw_title_frame(p, names);
    draw_x_ticks(p, x);
    draw_y_ticks(p);
    draw_axis_names(p, names);
}

void svg_legend(struct svg_panel *p, const char *color, const char *dash, const char *label,
                const char *what)
{
    int y = p->top + SVG_MARGIN_TOP + 10 + 18 * p->legend_rows++;
    int x = SVG_MARGIN_LEFT + SVG_PLOT_W + 14;
    fprintf(p->out,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
            "stroke-width=\"2\" stroke-dasharray=\"%s\"/><text class=\"legend\" x=\"%d\" "
            "y=\"%d\">",
            x, y, x + 28, y, color, dash, x + 34, y + 4);
    if (label != NULL) {
        svg_xml_text(p->out, label);
        fputc(' ', p->out);
    }
    fprintf(p->out, "%s</text>\n", what);
}
