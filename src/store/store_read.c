/* slap history's reads: the series of a store, a series' runs and their figures. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/store/store.h"
#include "store_internal.h"

const char *const store_judged_figures[] = {"tps", "p50", "p90", "p99", "p99.9", "errors"};
const size_t store_judged_count = sizeof(store_judged_figures) / sizeof(store_judged_figures[0]);

#define SERIES_COLUMNS "s.id, s.short, s.label, s.kind, s.servers, s.workload"
#define RUN_FILTER                                                                                 \
    " AND (CAST(? AS TEXT) IS NULL OR r.host = ?) AND (CAST(? AS TEXT) IS NULL OR r.kind = ?)"     \
    " AND r.started_ms >= ? AND r.started_ms <= ?"

/* The filter's parameters, as RUN_FILTER takes them: 6 of them. */
static void run_params(const struct store_filter *f, struct db_value *p)
{
    struct db_value none = {.kind = DB_NULL};
    p[0] = p[1] = f->host != NULL ? DB_T(f->host) : none;
    p[2] = p[3] = f->kind != NULL ? DB_T(f->kind) : none;
    p[4] = DB_I((int64_t)f->since_ms);
    p[5] = DB_I(f->until_ms > 0 ? (int64_t)f->until_ms : INT64_MAX);
}

struct series_list {
    struct history_series *s;
    size_t n, cap;
    int64_t *ids; /* each one's row in slap_series */
    const struct store_filter *f;
};

static void copy(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src != NULL ? src : "");
}

static enum slap_status series_row(void *arg, const char *const *cols, const size_t *lens, size_t n)
{
    (void)lens;
    struct series_list *l = arg;
    if (n < 9) {
        return SLAP_ERROR;
    }
    if (l->f->servers != NULL && strstr(cols[4] != NULL ? cols[4] : "", l->f->servers) == NULL) {
        return SLAP_OK;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        struct history_series *s = realloc(l->s, cap * sizeof(*s));
        int64_t *ids = s != NULL ? realloc(l->ids, cap * sizeof(*ids)) : NULL;
        if (s != NULL) {
            l->s = s;
        }
        if (ids == NULL) {
            return SLAP_ERROR;
        }
        l->ids = ids;
        l->cap = cap;
    }
    struct history_series *s = &l->s[l->n];
    memset(s, 0, sizeof(*s));
    l->ids[l->n++] = strtoll(cols[0], NULL, 10);
    copy(s->id, sizeof(s->id), cols[1]);
    copy(s->label, sizeof(s->label), cols[2]);
    copy(s->kind, sizeof(s->kind), cols[3]);
    copy(s->servers, sizeof(s->servers), cols[4]);
    copy(s->workload, sizeof(s->workload), cols[5]);
    s->nruns = cols[6] != NULL ? strtoull(cols[6], NULL, 10) : 0;
    s->first_ms = cols[7] != NULL ? strtoull(cols[7], NULL, 10) : 0;
    s->last_ms = cols[8] != NULL ? strtoull(cols[8], NULL, 10) : 0;
    return SLAP_OK;
}

static enum slap_status series_of(struct store *s, const struct store_filter *f,
                                  struct series_list *l, char *err, size_t err_len)
{
    struct db_value p[8];
    struct db_value none = {.kind = DB_NULL};
    p[0] = p[1] = f->label != NULL ? DB_T(f->label) : none;
    run_params(f, p + 2);
    l->f = f;
    return db_exec(s->db,
                   "SELECT " SERIES_COLUMNS ", count(r.id), min(r.started_ms), max(r.started_ms) "
                   "FROM slap_series s JOIN slap_runs r ON r.series = s.id "
                   "WHERE (CAST(? AS TEXT) IS NULL OR s.label = ?)" RUN_FILTER
                   " GROUP BY " SERIES_COLUMNS " ORDER BY max(r.started_ms) DESC, s.id",
                   p, 8, series_row, l, err, err_len);
}

/* ---- a series' runs and figures ---------------------------------------------------------- */

struct run_rows {
    struct history_series *s;
    size_t cap;
    int64_t *ids; /* the runs' ids, in the series' order */
};

static enum slap_status run_row(void *arg, const char *const *cols, const size_t *lens, size_t n)
{
    (void)lens;
    struct run_rows *rr = arg;
    struct history_series *s = rr->s;
    if (n < 10) {
        return SLAP_ERROR;
    }
    if (s->nruns == rr->cap) {
        size_t cap = rr->cap ? 2 * rr->cap : 64;
        struct history_run *runs = realloc(s->runs, cap * sizeof(*runs));
        int64_t *ids = runs != NULL ? realloc(rr->ids, cap * sizeof(*ids)) : NULL;
        if (runs != NULL) {
            s->runs = runs;
        }
        if (ids == NULL) {
            return SLAP_ERROR;
        }
        rr->ids = ids;
        rr->cap = cap;
    }
    struct history_run *r = &s->runs[s->nruns];
    memset(r, 0, sizeof(*r));
    r->id = rr->ids[s->nruns++] = strtoll(cols[0], NULL, 10);
    r->time_ms = strtoull(cols[1], NULL, 10);
    copy(r->host, sizeof(r->host), cols[2]);
    copy(r->label, sizeof(r->label), cols[3]);
    copy(r->version, sizeof(r->version), cols[4]);
    copy(r->kind, sizeof(r->kind), cols[5]);
    r->exit_status = (int)strtol(cols[6] != NULL ? cols[6] : "0", NULL, 10);
    copy(r->limited_by, sizeof(r->limited_by), cols[7]);
    r->steady = cols[8] == NULL ? -1 : (int)strtol(cols[8], NULL, 10);
    r->parts = cols[9] != NULL ? strtoull(cols[9], NULL, 10) : 0;
    return SLAP_OK;
}

struct figure_rows {
    struct history_series *s;
    const int64_t *ids;
    size_t at; /* the run the rows have come to */
};

static double number(const char *text)
{
    return text != NULL ? strtod(text, NULL) : NAN;
}

static enum slap_status figure_row(void *arg, const char *const *cols, const size_t *lens, size_t n)
{
    (void)lens;
    struct figure_rows *fr = arg;
    if (n < 5) {
        return SLAP_ERROR;
    }
    int64_t run = strtoll(cols[0], NULL, 10);
    while (fr->at < fr->s->nruns && fr->ids[fr->at] != run) {
        fr->at++;
    }
    for (size_t i = 0; fr->at < fr->s->nruns && i < fr->s->nfigures; i++) {
        struct history_figure *f = &fr->s->figures[i];
        if (strcmp(f->name, cols[1]) == 0) {
            f->values[fr->at] =
                (struct history_value){number(cols[2]), number(cols[3]), number(cols[4])};
        }
    }
    return SLAP_OK;
}

static enum slap_status name_row(void *arg, const char *const *cols, const size_t *lens, size_t n)
{
    (void)lens;
    struct history_series *s = arg;
    if (n < 1 || cols[0] == NULL) {
        return SLAP_ERROR;
    }
    struct history_figure *f = realloc(s->figures, (s->nfigures + 1) * sizeof(*f));
    if (f == NULL) {
        return SLAP_ERROR;
    }
    s->figures = f;
    f = &f[s->nfigures++];
    memset(f, 0, sizeof(*f));
    copy(f->name, sizeof(f->name), cols[0]);
    return SLAP_OK;
}

/* The figures named (every one stored when names is NULL), values NaN until read. */
static enum slap_status make_figures(struct store *s, int64_t series, const char *const *names,
                                     size_t n, struct history_series *out, char *err,
                                     size_t err_len)
{
    struct db_value p[] = {DB_I(series)};
    if (names == NULL &&
        db_exec(s->db,
                "SELECT DISTINCT f.name FROM slap_figures f JOIN slap_runs r ON f.run = r.id "
                "WHERE r.series = ? ORDER BY f.name",
                p, 1, name_row, out, err, err_len) != SLAP_OK) {
        return SLAP_ERROR;
    }
    for (size_t i = 0; names != NULL && i < n; i++) {
        const char *col[] = {names[i]};
        if (name_row(out, col, NULL, 1) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    for (size_t i = 0; i < out->nfigures; i++) {
        struct history_figure *f = &out->figures[i];
        const char *dot = strrchr(f->name, '.');
        const char *base = dot != NULL && !(dot[1] >= '0' && dot[1] <= '9') ? dot + 1 : f->name;
        f->higher_is_better = strcmp(base, "tps") == 0 || strcmp(base, "capacity") == 0;
        f->values = malloc((out->nruns ? out->nruns : 1) * sizeof(*f->values));
        if (f->values == NULL) {
            return SLAP_ERROR;
        }
        for (size_t k = 0; k < out->nruns; k++) {
            f->values[k] = (struct history_value){NAN, NAN, NAN};
        }
    }
    return SLAP_OK;
}

static enum slap_status read_runs(struct store *s, int64_t series, const struct store_filter *f,
                                  const char *const *names, size_t nnames,
                                  struct history_series *out, char *err, size_t err_len)
{
    struct db_value p[7];
    struct run_rows rr = {out, 0, NULL};
    p[0] = DB_I(series);
    run_params(f, p + 1);
    enum slap_status st =
        db_exec(s->db,
                "SELECT r.id, r.started_ms, r.host, r.label, r.version, r.kind, r.exit_status, "
                "r.limited_by, r.steady, r.parts FROM slap_runs r WHERE r.series = ?" RUN_FILTER
                " ORDER BY r.started_ms, r.id",
                p, 7, run_row, &rr, err, err_len);
    if (st == SLAP_OK) {
        st = make_figures(s, series, names, nnames, out, err, err_len);
    }
    struct figure_rows fr = {out, rr.ids, 0};
    if (st == SLAP_OK && out->nruns > 0) {
        st = db_exec(s->db,
                     "SELECT r.id, f.name, f.value, f.low, f.high FROM slap_runs r "
                     "JOIN slap_figures f ON f.run = r.id WHERE r.series = ?" RUN_FILTER
                     " ORDER BY r.started_ms, r.id",
                     p, 7, figure_row, &fr, err, err_len);
    }
    if (out->nruns > 0) {
        out->first_ms = out->runs[0].time_ms;
        out->last_ms = out->runs[out->nruns - 1].time_ms;
    }
    free(rr.ids);
    if (st != SLAP_OK && err[0] == '\0') {
        snprintf(err, err_len, "out of memory");
    }
    return st;
}

enum slap_status store_list_series(struct store *s, const struct store_filter *f,
                                   struct history_series **out, size_t *n, char *err,
                                   size_t err_len)
{
    struct series_list l = {0};
    err[0] = '\0';
    enum slap_status st = series_of(s, f, &l, err, err_len);
    for (size_t i = 0; st == SLAP_OK && i < l.n; i++) {
        struct history_series *one = &l.s[i];
        one->nruns = 0;
        st = read_runs(s, l.ids[i], f, store_judged_figures, store_judged_count, one, err, err_len);
    }
    free(l.ids);
    if (st != SLAP_OK) {
        for (size_t i = 0; i < l.n; i++) {
            history_series_free(&l.s[i]);
        }
        free(l.s);
        l.s = NULL;
        l.n = 0;
    }
    *out = l.s;
    *n = l.n;
    return st;
}

/* Which of the series answers to name: its id, the start of one (4 digits or more), or its
 * label when only one series has it. */
static enum slap_status pick(const struct series_list *l, const char *name, size_t *at, char *err,
                             size_t err_len)
{
    size_t found = 0, len = strlen(name);
    for (int pass = 0; pass < 3 && found == 0; pass++) {
        for (size_t i = 0; i < l->n; i++) {
            const struct history_series *s = &l->s[i];
            bool match = pass == 0   ? strcmp(s->id, name) == 0
                         : pass == 1 ? len >= 4 && strncmp(s->id, name, len) == 0
                                     : strcmp(s->label, name) == 0;
            if (match && found++ == 0) {
                *at = i;
            }
        }
    }
    if (found == 1) {
        return SLAP_OK;
    }
    snprintf(err, err_len,
             found == 0 ? "no series is named so (slap history lists them)"
                        : "more than one series answers to that name: give "
                          "its id (slap history lists them)");
    return SLAP_AGAIN;
}

enum slap_status store_read_series(struct store *s, const char *name, const struct store_filter *f,
                                   const char *const *figures, size_t nfigures,
                                   struct history_series *out, char *err, size_t err_len)
{
    struct series_list l = {0};
    struct store_filter any = {.label = f->label, .servers = f->servers};
    size_t at = 0;
    memset(out, 0, sizeof(*out));
    err[0] = '\0';
    enum slap_status st = series_of(s, &any, &l, err, err_len);
    if (st == SLAP_OK) {
        st = pick(&l, name, &at, err, err_len);
    }
    if (st == SLAP_OK) {
        bool every = nfigures == 1 && strcmp(figures[0], "all") == 0;
        *out = l.s[at];
        out->nruns = 0;
        st = read_runs(s, l.ids[at], f,
                       every             ? NULL
                       : figures != NULL ? figures
                                         : store_judged_figures,
                       every             ? 0
                       : figures != NULL ? nfigures
                                         : store_judged_count,
                       out, err, err_len);
    }
    free(l.ids);
    free(l.s);
    return st;
}
