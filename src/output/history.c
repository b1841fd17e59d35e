/* slap history's series and runs written out: tables for a person, JSON, CSV (the SVG is in
 * history_svg.c). */
#include "slap/output/history.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slap/base/json.h"
#include "slap/base/quote.h"

/* ---- shared pieces -------------------------------------------------------------------- */

void history_time(char *buf, size_t len, uint64_t ms)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    if (gmtime_r(&t, &tm) == NULL || strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) {
        snprintf(buf, len, "-");
    }
}

void history_series_free(struct history_series *s)
{
    for (size_t i = 0; s->figures != NULL && i < s->nfigures; i++) {
        free(s->figures[i].values);
        free(s->figures[i].at);
        free(s->figures[i].host);
        free(s->figures[i].changes.points); /* not changes_free: this layer links without it */
    }
    free(s->figures);
    free(s->runs);
    s->figures = NULL;
    s->runs = NULL;
    s->nfigures = 0;
    s->nruns = 0;
}

bool history_change_host(const struct history_figure *f, size_t j)
{
    return f->host != NULL && j < f->changes.n && f->host[j];
}

size_t history_change_run(const struct history_figure *f, size_t nruns, size_t j)
{
    if (f->at != NULL) {
        return f->at[j];
    }
    size_t seen = 0;
    for (size_t r = 0; f->values != NULL && r < nruns; r++) {
        if (!isnan(f->values[r].value) && seen++ == f->changes.points[j].at) {
            return r;
        }
    }
    return nruns;
}

bool history_figure_is_latency(const char *name)
{
    const char *p = name[0] == 'p' ? name : strstr(name, ".p");
    p = p != NULL && p != name ? p + 1 : p;
    return p != NULL && isdigit((unsigned char)p[1]);
}

/* A figure's value as the tables show it: ops/s and counts whole, latencies in us with one
 * decimal (ms from 10000 us), "-" for NaN. */
static void value_text(char *buf, size_t len, const char *figure, double v)
{
    if (isnan(v)) {
        snprintf(buf, len, "-");
    } else if (!history_figure_is_latency(figure)) {
        snprintf(buf, len, "%.0f", v);
    } else if (fabs(v) >= 10000) {
        snprintf(buf, len, "%.1fms", v / 1000);
    } else {
        snprintf(buf, len, "%.1fus", v);
    }
}

/* part as a share of before, "+21.4%"; "-" when before is 0 or either is not finite. */
static void percent_text(char *buf, size_t len, double part, double before)
{
    if (before == 0 || !isfinite(before) || !isfinite(part)) {
        snprintf(buf, len, "-");
    } else {
        snprintf(buf, len, "%+.1f%%", 100.0 * part / before);
    }
}

/* The values of f that are not NaN. */
static size_t values_present(const struct history_figure *f, size_t nruns)
{
    size_t n = 0;
    for (size_t r = 0; f->values != NULL && r < nruns; r++) {
        n += !isnan(f->values[r].value);
    }
    return n;
}

/* The figure named name, or NULL. */
static const struct history_figure *figure_named(const struct history_series *s, const char *name)
{
    for (size_t i = 0; i < s->nfigures; i++) {
        if (strcmp(s->figures[i].name, name) == 0) {
            return &s->figures[i];
        }
    }
    return NULL;
}

/* The last value of f that is not NaN, or NaN. */
static double latest_value(const struct history_figure *f, size_t nruns)
{
    for (size_t r = nruns; f != NULL && f->values != NULL && r-- > 0;) {
        if (!isnan(f->values[r].value)) {
            return f->values[r].value;
        }
    }
    return NAN;
}

/* ---- changes in time order ------------------------------------------------------------ */

/* A change: figure fig's point j, found at run (an index of the series' runs). */
struct change_ref {
    size_t fig, j, run;
};

static bool ref_before(const struct change_ref *a, const struct change_ref *b)
{
    if (a->run != b->run) {
        return a->run < b->run;
    }
    return a->fig != b->fig ? a->fig < b->fig : a->j < b->j;
}

/* The change after *c (start with c->fig = SIZE_MAX) by run, then figure, then its order:
 * false when none is left. Changes are few: each step looks at them all. */
static bool next_change(const struct history_series *s, struct change_ref *c)
{
    struct change_ref best = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
    bool started = c->fig != SIZE_MAX, found = false;
    for (size_t f = 0; f < s->nfigures; f++) {
        for (size_t j = 0; j < s->figures[f].changes.n; j++) {
            struct change_ref r = {f, j, history_change_run(&s->figures[f], s->nruns, j)};
            if ((!started || ref_before(c, &r)) && (!found || ref_before(&r, &best))) {
                best = r;
                found = true;
            }
        }
    }
    *c = best;
    return found;
}

/* ---- text ----------------------------------------------------------------------------- */

/* Characters shown (UTF-8 continuation bytes take no column). */
static int shown_width(const char *text)
{
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++) {
        n += (*p & 0xc0) != 0x80;
    }
    return n;
}

/* text (already shown safe) padded to width columns: on the right, or on the left (right
 * aligned), then sep. */
static void put_cell(FILE *out, const char *text, int width, bool right, const char *sep)
{
    int pad = width - shown_width(text);
    fprintf(out, "%*s%s%*s%s", right && pad > 0 ? pad : 0, "", text, !right && pad > 0 ? pad : 0,
            "", sep);
}

/* The list's last column: the latest change of any figure, "none", or "needs N runs". */
static void latest_change_text(char *buf, size_t len, const struct history_series *s)
{
    size_t needed = 0, judged = 0;
    struct change_ref c = {SIZE_MAX, 0, 0}, last = {SIZE_MAX, 0, 0};
    for (size_t f = 0; f < s->nfigures; f++) {
        size_t need = s->figures[f].changes.needed;
        needed = need > needed ? need : needed;
        judged += need == 0;
    }
    while (next_change(s, &c)) {
        last = c;
    }
    if (last.fig != SIZE_MAX) {
        const struct history_figure *f = &s->figures[last.fig];
        char name[QUOTE_PATH_BUF], pct[32];
        percent_text(pct, sizeof(pct),
                     f->changes.points[last.j].after - f->changes.points[last.j].before,
                     f->changes.points[last.j].before);
        if (strcmp(pct, "-") == 0) { /* a change from 0 (errors) has no relative size */
            snprintf(pct, sizeof(pct), "from 0");
        }
        snprintf(buf, len, "%s %s at run %zu%s", quote_text(name, f->name), pct, last.run + 1,
                 history_change_host(f, last.j) ? " (host?)" : "");
    } else if (s->nfigures > 0 && judged == 0) {
        snprintf(buf, len, "needs %zu runs", needed);
    } else {
        snprintf(buf, len, "none");
    }
}

/* One series' cells of the list, shown safe. */
struct list_row {
    char runs[24], first[32], last[32], tps[32], p99[32];
    char label[QUOTE_PATH_BUF];
    char changes[QUOTE_PATH_BUF + 64];
};

static void list_row_of(struct list_row *row, const struct history_series *s)
{
    snprintf(row->runs, sizeof(row->runs), "%zu", s->nruns);
    history_time(row->first, sizeof(row->first), s->first_ms);
    history_time(row->last, sizeof(row->last), s->last_ms);
    quote_text(row->label, s->label);
    value_text(row->tps, sizeof(row->tps), "tps", latest_value(figure_named(s, "tps"), s->nruns));
    value_text(row->p99, sizeof(row->p99), "p99", latest_value(figure_named(s, "p99"), s->nruns));
    latest_change_text(row->changes, sizeof(row->changes), s);
}

void history_write_list(FILE *out, const struct history_series *s, size_t n)
{
    struct list_row row;
    int wlabel = 5, wtps = 3, wp99 = 3;
    for (size_t i = 0; i < n; i++) {
        list_row_of(&row, &s[i]);
        wlabel = shown_width(row.label) > wlabel ? shown_width(row.label) : wlabel;
        wtps = shown_width(row.tps) > wtps ? shown_width(row.tps) : wtps;
        wp99 = shown_width(row.p99) > wp99 ? shown_width(row.p99) : wp99;
    }
    fprintf(out, "%-*s  %5s  %-20s  %-20s  ", HISTORY_ID_LEN, "id", "runs", "first", "last");
    put_cell(out, "label", wlabel, false, "  ");
    fprintf(out, "%*s  %*s  changes\n", wtps, "tps", wp99, "p99");
    for (size_t i = 0; i < n; i++) {
        char id[QUOTE_PATH_BUF];
        list_row_of(&row, &s[i]);
        put_cell(out, quote_text(id, s[i].id), HISTORY_ID_LEN, false, "  ");
        fprintf(out, "%5s  %-20s  %-20s  ", row.runs, row.first, row.last);
        put_cell(out, row.label, wlabel, false, "  ");
        fprintf(out, "%*s  %*s  %s\n", wtps, row.tps, wp99, row.p99, row.changes);
    }
}

/* The head of a series: its id, label, kind, servers, workload and span. */
static void series_head(FILE *out, const struct history_series *s)
{
    char first[32], last[32];
    const char *fields[][2] = {{"series ", s->id},
                               {"label ", s->label},
                               {"kind ", s->kind},
                               {"servers ", s->servers},
                               {"workload ", s->workload}};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(fields); i++) {
        quote_line(out, fields[i][0], fields[i][1]);
    }
    history_time(first, sizeof(first), s->first_ms);
    history_time(last, sizeof(last), s->last_ms);
    fprintf(out, "%zu runs from %s to %s\n", s->nruns, first, last);
}

/* The width of the runs table's column of figure f. */
static int figure_width(const struct history_series *s, const struct history_figure *f)
{
    char name[QUOTE_PATH_BUF], v[32];
    int w = shown_width(quote_text(name, f->name));
    for (size_t r = 0; f->values != NULL && r < s->nruns; r++) {
        value_text(v, sizeof(v), f->name, f->values[r].value);
        w = shown_width(v) > w ? shown_width(v) : w;
    }
    return w;
}

/* The width of the host column. */
static int host_width(const struct history_series *s)
{
    char host[QUOTE_PATH_BUF];
    int w = 4;
    for (size_t r = 0; r < s->nruns; r++) {
        int n = shown_width(quote_text(host, s->runs[r].host));
        w = n > w ? n : w;
    }
    return w;
}

static void runs_header(FILE *out, const struct history_series *s, int whost, const int *widths)
{
    char name[QUOTE_PATH_BUF];
    fprintf(out, "%4s  %-20s  ", "#", "time");
    put_cell(out, "host", whost, false, "  ");
    fprintf(out, "%4s  %-10s  %-6s", "exit", "limited_by", "steady");
    for (size_t i = 0; i < s->nfigures; i++) {
        fputs("  ", out);
        put_cell(out, quote_text(name, s->figures[i].name), widths != NULL ? widths[i] : 9, true,
                 "");
    }
    fputc('\n', out);
}

static void run_line(FILE *out, const struct history_series *s, size_t r, int whost,
                     const int *widths)
{
    const struct history_run *run = &s->runs[r];
    char index[24], when[32], host[QUOTE_PATH_BUF], limited[QUOTE_PATH_BUF], v[32];
    const char *steady = run->steady == 1 ? "yes" : run->steady == 0 ? "no" : "-";
    history_time(when, sizeof(when), run->time_ms);
    quote_text(limited, run->limited_by[0] != '\0' ? run->limited_by : "-");
    snprintf(index, sizeof(index), "#%zu", r + 1);
    fprintf(out, "%4s  %-20s  ", index, when);
    put_cell(out, quote_text(host, run->host), whost, false, "  ");
    fprintf(out, "%4d  ", run->exit_status);
    put_cell(out, limited, 10, false, "  ");
    fprintf(out, "%-6s", steady);
    for (size_t i = 0; i < s->nfigures; i++) {
        const struct history_figure *f = &s->figures[i];
        value_text(v, sizeof(v), f->name, f->values != NULL ? f->values[r].value : NAN);
        fputs("  ", out);
        put_cell(out, v, widths != NULL ? widths[i] : 9, true, "");
    }
    fputc('\n', out);
}

/* A change's interval as shares of the level before, or "no interval". */
static void interval_text(char *buf, size_t len, const struct change_point *p)
{
    char low[32], high[32];
    percent_text(low, sizeof(low), p->low, p->before);
    percent_text(high, sizeof(high), p->high, p->before);
    if (!p->estimable || strcmp(low, "-") == 0 || strcmp(high, "-") == 0) {
        snprintf(buf, len, "no interval");
    } else {
        snprintf(buf, len, "[%s, %s]", low, high);
    }
}

/* The width of the changes table's figure column. */
static int change_names_width(const struct history_series *s)
{
    char name[QUOTE_PATH_BUF];
    int w = 6;
    for (size_t f = 0; f < s->nfigures; f++) {
        int n = s->figures[f].changes.n > 0 ? shown_width(quote_text(name, s->figures[f].name)) : 0;
        w = n > w ? n : w;
    }
    return w;
}

static void change_line(FILE *out, const struct history_series *s, const struct change_ref *c,
                        int wname)
{
    const struct history_figure *f = &s->figures[c->fig];
    const struct change_point *p = &f->changes.points[c->j];
    char name[QUOTE_PATH_BUF], index[24], when[32] = "-", before[32], after[32], pct[32];
    char interval[80];
    snprintf(index, sizeof(index), "#%zu", c->run + 1);
    if (s->runs != NULL && c->run < s->nruns) {
        history_time(when, sizeof(when), s->runs[c->run].time_ms);
    }
    value_text(before, sizeof(before), f->name, p->before);
    value_text(after, sizeof(after), f->name, p->after);
    percent_text(pct, sizeof(pct), p->after - p->before, p->before); /* "-" from 0 */
    interval_text(interval, sizeof(interval), p);
    fputs("  ", out);
    put_cell(out, quote_text(name, f->name), wname, false, "  ");
    fprintf(out, "%-5s  %-20s  %9s  %9s  %7s  %-18s  p=%.3g%s\n", index, when, before, after, pct,
            interval, p->p, history_change_host(f, c->j) ? "  host?" : "");
}

/* The changes of every figure in time order, or "no change found"; then the figures too
 * short to judge. */
static void changes_table(FILE *out, const struct history_series *s)
{
    struct change_ref c = {SIZE_MAX, 0, 0};
    int wname = change_names_width(s);
    if (!next_change(s, &c)) {
        fputs("no change found\n", out);
    } else {
        fputs("changes:\n  ", out);
        put_cell(out, "figure", wname, false, "  ");
        fprintf(out, "%-5s  %-20s  %9s  %9s  %7s  %-18s  p\n", "run", "time", "before", "after",
                "change", "interval");
        bool host = false;
        do {
            change_line(out, s, &c, wname);
            host = host || history_change_host(&s->figures[c.fig], c.j);
        } while (next_change(s, &c));
        if (host) {
            fputs("host?: most runs on a side of it were limited by slap's own host (limited_by "
                  "client or both):\n  the change may be the host's, not the server's; "
                  "--fail-if does not judge it\n",
                  out);
        }
    }
    for (size_t f = 0; f < s->nfigures; f++) {
        const struct history_figure *fig = &s->figures[f];
        char name[QUOTE_PATH_BUF];
        size_t present = values_present(fig, s->nruns);
        if (fig->changes.needed > 0 && present == 0) {
            fprintf(out,
                    "%s: no run holds it (a percentile needs enough requests for its "
                    "interval)\n",
                    quote_text(name, fig->name));
        } else if (fig->changes.needed > 0) {
            fprintf(out, "%s: needs %zu runs to judge (has %zu)\n", quote_text(name, fig->name),
                    fig->changes.needed, present);
        }
    }
}

void history_write_series(FILE *out, const struct history_series *s)
{
    int *widths = calloc(s->nfigures + 1, sizeof(*widths)); /* NULL: 9 columns each */
    series_head(out, s);
    if (s->runs != NULL && s->nruns > 0) {
        int whost = host_width(s);
        for (size_t i = 0; widths != NULL && i < s->nfigures; i++) {
            widths[i] = figure_width(s, &s->figures[i]);
        }
        fputc('\n', out);
        runs_header(out, s, whost, widths);
        for (size_t r = 0; r < s->nruns; r++) {
            run_line(out, s, r, whost, widths);
        }
    }
    fputc('\n', out);
    changes_table(out, s);
    free(widths);
}

/* ---- JSON ----------------------------------------------------------------------------- */

static void json_time(struct json_writer *w, const char *key, uint64_t ms)
{
    char when[32];
    history_time(when, sizeof(when), ms);
    json_string(w, key, when);
}

static void json_i64(struct json_writer *w, const char *key, int64_t v)
{
    char text[24];
    snprintf(text, sizeof(text), "%" PRId64, v);
    json_raw(w, key, text);
}

/* What names a series: id, label, kind, servers, workload. */
static void json_identity(struct json_writer *w, const struct history_series *s)
{
    json_string(w, "id", s->id);
    json_string(w, "label", s->label);
    json_string(w, "kind", s->kind);
    json_string(w, "servers", s->servers);
    json_string(w, "workload", s->workload);
}

static void json_list_entry(struct json_writer *w, const struct history_series *s)
{
    size_t changes = 0;
    json_open_object(w, NULL);
    json_identity(w, s);
    json_u64(w, "runs", s->nruns);
    json_time(w, "first", s->first_ms);
    json_time(w, "last", s->last_ms);
    json_open_object(w, "latest");
    for (size_t f = 0; f < s->nfigures; f++) {
        json_double(w, s->figures[f].name, latest_value(&s->figures[f], s->nruns));
        changes += s->figures[f].changes.n;
    }
    json_close(w);
    json_u64(w, "changes", changes);
    json_close(w);
}

void history_write_list_json(FILE *out, const struct history_series *s, size_t n)
{
    struct json_writer w;
    json_writer_init(&w, out);
    json_open_object(&w, NULL);
    json_open_array(&w, "series", false);
    for (size_t i = 0; i < n; i++) {
        json_list_entry(&w, &s[i]);
    }
    json_close(&w);
    json_close(&w);
}

/* Run r's figures: {name: {value, low, high}}. */
static void json_run_figures(struct json_writer *w, const struct history_series *s, size_t r)
{
    json_open_object(w, "figures");
    for (size_t f = 0; f < s->nfigures; f++) {
        const struct history_figure *fig = &s->figures[f];
        struct history_value v =
            fig->values != NULL ? fig->values[r] : (struct history_value){NAN, NAN, NAN};
        json_open_object(w, fig->name);
        json_double(w, "value", v.value);
        json_double(w, "low", v.low);
        json_double(w, "high", v.high);
        json_close(w);
    }
    json_close(w);
}

static void json_run(struct json_writer *w, const struct history_series *s, size_t r)
{
    const struct history_run *run = &s->runs[r];
    json_open_object(w, NULL);
    json_i64(w, "id", run->id);
    json_time(w, "time", run->time_ms);
    json_u64(w, "time_ms", run->time_ms);
    json_string(w, "host", run->host);
    json_string(w, "label", run->label);
    json_string(w, "version", run->version);
    json_string(w, "kind", run->kind);
    json_i64(w, "exit", run->exit_status);
    json_string(w, "limited_by", run->limited_by[0] != '\0' ? run->limited_by : NULL);
    if (run->steady == 1 || run->steady == 0) {
        json_bool(w, "steady", run->steady == 1);
    } else {
        json_null(w, "steady");
    }
    json_u64(w, "parts", run->parts);
    json_run_figures(w, s, r);
    json_close(w);
}

static void json_change(struct json_writer *w, const struct history_series *s,
                        const struct change_ref *c)
{
    const struct history_figure *f = &s->figures[c->fig];
    const struct change_point *p = &f->changes.points[c->j];
    json_open_object(w, NULL);
    json_string(w, "figure", f->name);
    json_u64(w, "at_run", c->run + 1);
    if (s->runs != NULL && c->run < s->nruns) {
        json_time(w, "time", s->runs[c->run].time_ms);
    } else {
        json_null(w, "time");
    }
    json_double(w, "before", p->before);
    json_double(w, "after", p->after);
    json_double(w, "relative", p->relative);
    json_double(w, "shift", p->shift);
    json_double(w, "low", p->estimable ? p->low : NAN);
    json_double(w, "high", p->estimable ? p->high : NAN);
    json_bool(w, "estimable", p->estimable);
    json_double(w, "p", p->p);
    json_bool(w, "host", history_change_host(f, c->j));
    json_close(w);
}

void history_write_series_json(FILE *out, const struct history_series *s)
{
    struct json_writer w;
    struct change_ref c = {SIZE_MAX, 0, 0};
    json_writer_init(&w, out);
    json_open_object(&w, NULL);
    json_identity(&w, s);
    json_open_array(&w, "runs", false);
    for (size_t r = 0; s->runs != NULL && r < s->nruns; r++) {
        json_run(&w, s, r);
    }
    json_close(&w);
    json_open_array(&w, "changes", false);
    while (next_change(s, &c)) {
        json_change(&w, s, &c);
    }
    json_close(&w);
    json_open_object(&w, "needs");
    for (size_t f = 0; f < s->nfigures; f++) {
        if (s->figures[f].changes.needed > 0) {
            json_u64(&w, s->figures[f].name, s->figures[f].changes.needed);
        }
    }
    json_close(&w);
    json_close(&w);
}

/* ---- CSV ------------------------------------------------------------------------------ */

/* A field from outside, shown by quote.h's rule (no control byte reaches the file), between
 * double quotes with each '"' doubled when it holds a comma, a quote, CR or LF (RFC 4180). */
static void csv_text(FILE *out, const char *text)
{
    char piece[HISTORY_TEXT_MAX];
    bool quoted = strpbrk(text, ",\"\r\n") != NULL;
    fputs(quoted ? "\"" : "", out);
    for (const char *p = text; *p != '\0';) {
        size_t n = strcspn(p, "\"");
        n = n < sizeof(piece) - 1 ? n : sizeof(piece) - 1;
        memcpy(piece, p, n);
        piece[n] = '\0';
        quote_controls(out, piece);
        p += n;
        if (*p == '"') {
            fputs("\"\"", out);
            p++;
        }
    }
    fputs(quoted ? "\"" : "", out);
}

/* A number as json_double writes it (the shortest text that reads back the same); empty when
 * not finite. */
static void csv_number(FILE *out, double v)
{
    char text[40];
    if (!isfinite(v)) {
        return;
    }
    for (int precision = 15; precision <= 17; precision++) {
        snprintf(text, sizeof(text), "%.*g", precision, v);
        if (strtod(text, NULL) == v) {
            break;
        }
    }
    fputs(text, out);
}

static void csv_run(FILE *out, const struct history_series *s, size_t r)
{
    const struct history_run *run = &s->runs[r];
    char when[32];
    history_time(when, sizeof(when), run->time_ms);
    fprintf(out, "%s,%" PRId64 ",", when, run->id);
    const char *texts[] = {run->host, run->label, run->version, run->kind};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(texts); i++) {
        csv_text(out, texts[i]);
        fputc(',', out);
    }
    fprintf(out, "%d,", run->exit_status);
    csv_text(out, run->limited_by);
    fputs(run->steady == 1 ? ",yes" : run->steady == 0 ? ",no" : ",", out);
    for (size_t f = 0; f < s->nfigures; f++) {
        fputc(',', out);
        csv_number(out, s->figures[f].values != NULL ? s->figures[f].values[r].value : NAN);
    }
    fputc('\n', out);
}

void history_write_csv(FILE *out, const struct history_series *s)
{
    fputs("time,run,host,label,version,kind,exit,limited_by,steady", out);
    for (size_t f = 0; f < s->nfigures; f++) {
        fputc(',', out);
        csv_text(out, s->figures[f].name);
    }
    fputc('\n', out);
    for (size_t r = 0; s->runs != NULL && r < s->nruns; r++) {
        csv_run(out, s, r);
    }
}
