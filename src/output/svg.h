/* The pieces slap's SVG pictures share (plot.c's, history_svg.c's): sizes, axes, text, legend. */
#ifndef SLAP_OUTPUT_SVG_H
#define SLAP_OUTPUT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A picture is SVG_WIDTH wide, its panels stacked; each panel's plot sits within its margins,
 * the legend in the right one. */
#define SVG_WIDTH 980
#define SVG_MARGIN_LEFT 90
#define SVG_MARGIN_RIGHT 230
#define SVG_MARGIN_TOP 50
#define SVG_MARGIN_BOTTOM 60
#define SVG_PLOT_W (SVG_WIDTH - SVG_MARGIN_LEFT - SVG_MARGIN_RIGHT)
#define SVG_PLOT_H(panel_height) ((panel_height)-SVG_MARGIN_TOP - SVG_MARGIN_BOTTOM)
#define SVG_MAX_TICKS 12
#define SVG_TICK_LABEL 32 /* bytes of a tick's label */

#define SVG_BLUE "#1f77b4"
#define SVG_RED "#d62728"
#define SVG_GREEN "#2ca02c"

struct svg_axis {
    double lo, hi; /* the range drawn (log axes: log10 of it) */
    bool log;      /* values below 0.1 are drawn at it */
    bool nines;    /* x = -log10(1 - p): whole ticks, labelled by their percentile */
};

struct svg_panel {
    FILE *out;
    int top;    /* y of the panel's top in the picture */
    int height; /* the panel's, its margins included */
    struct svg_axis x, y;
    int legend_rows;
};

/* Ticks along an axis: where (in data units) and their labels. */
struct svg_ticks {
    size_t n;
    double at[SVG_MAX_TICKS];
    char label[SVG_MAX_TICKS][SVG_TICK_LABEL];
};

/* The words around a panel's plot. */
struct svg_names {
    const char *title; /* text from outside: svg_xml_text */
    const char *note;  /* after the title as it is (slap's own words), or NULL */
    const char *x, *y; /* the axes' names, as they are */
};

/* The picture's start, height pixels high: the XML declaration, the <svg> element, the style
 * every picture has with style's rules after it, and a white background. "</svg>\n" ends it. */
void svg_begin(FILE *out, int height, const char *style);

/* Text from outside (a label, a path, a store's words), whole: shown by quote.h's rule
 * (printable UTF-8 as it is, every other byte as \xNN), then escaped for XML text or a
 * double-quoted attribute, so that no text can make the picture invalid XML. */
void svg_xml_text(FILE *out, const char *text);

/* 1234567 -> "1.23M", 0.5 -> "0.5": tick labels. */
void svg_short_number(char *buf, size_t len, double v);

/* An axis covering [lo, hi] of the data: nice round ends from 0 or below (linear) or whole
 * decades (log). */
struct svg_axis svg_make_axis(double lo, double hi, bool log_scale);

/* a's own ticks (up to SVG_MAX_TICKS), labelled by svg_short_number or, nines, percentile. */
void svg_axis_ticks(const struct svg_axis *a, struct svg_ticks *t);

/* Where x and y of the data go in the picture (a flat axis: x at the middle, y at the foot). */
double svg_px(const struct svg_panel *p, double x);
double svg_py(const struct svg_panel *p, double y);

/* The panel's title, its frame, a grid line and a label at each of the x ticks and of the y
 * axis's own ticks, and the axes' names. */
void svg_draw_axes(const struct svg_panel *p, const struct svg_names *names,
                   const struct svg_ticks *x);

/* The panel's next legend row: a line in the given colour and dash, then label (from outside,
 * svg_xml_text; NULL: none), a space and what (slap's own words). */
void svg_legend(struct svg_panel *p, const char *color, const char *dash, const char *label,
                const char *what);

#endif
