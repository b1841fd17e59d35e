/* slap history: the runs a results store holds, by series, the changes found in each figure,
 * --fail-if's thresholds for cron and CI; --import and --prune change the store. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slap/base/json.h"
#include "slap/base/outfile.h"
#include "slap/base/quote.h"
#include "slap/base/units.h"
#include "slap/commands/subcommands.h"
#include "slap/judge/changes.h"
#include "slap/options/plan_output.h"
#include "slap/options/subargs.h"
#include "slap/output/history.h"
#include "slap/output/results_read.h"
#include "slap/store/store.h"

#define HISTORY_MAX_FIGURES 32
#define HISTORY_MAX_THRESHOLDS 16
/* --min-change's default: on this project's two-core host, runs of a server that never changed
 * drifted by 1 to 4.5% over a history, real but no change of the server
 * (scripts/history_calibrate.py; README's "History") */
#define HISTORY_MIN_CHANGE 0.05

/* --fail-if FIGURE>+P% or FIGURE<-P%: the latest change of FIGURE beyond P%. */
struct history_threshold {
    char figure[HISTORY_FIGURE_MAX];
    bool above;   /* '>': a rise past limit; '<': a fall past it */
    double limit; /* relative: +0.05 */
    const char *as_given;
};

struct history_args {
    const char *store, *label, *servers, *host, *kind, *since, *until, *before;
    const char *json, *csv, *svg, *min_segment, *min_change, *run;
    bool import, prune;
    const char *figures[HISTORY_MAX_FIGURES];
    size_t nfigures;
    struct history_threshold th[HISTORY_MAX_THRESHOLDS];
    size_t nth;
    bool bad; /* a --figure or --fail-if was refused (said) */
};

static int take_figure(void *args, const char *value);
static int take_fail_if(void *args, const char *value);

#define TEXT_ROW(opt, val, field, words)                                                           \
    {                                                                                              \
        .name = opt, .value = val, .kind = SUBARG_TEXT,                                            \
        .offset = offsetof(struct history_args, field), .help = words                              \
    }

static const struct subarg history_rows[] = {
    TEXT_ROW("--store", "LOCATION", store,
             "the store: an SQLite file or a postgresql:// URL\n"
             "(default: $SLAP_STORE)"),
    TEXT_ROW("--label", "NAME", label, "only the series of this label"),
    TEXT_ROW("--servers", "TEXT", servers, "only the series whose servers hold TEXT"),
    TEXT_ROW("--host", "NAME", host, "only the runs made on this load host"),
    TEXT_ROW("--kind", "KIND", kind,
             "only the runs of this kind: run, rounds, sweep,\n"
             "search, merge, groups or compare"),
    TEXT_ROW("--since", "WHEN", since,
             "only the runs started at WHEN or later: a time\n"
             "(2026-12-01, 2026-12-01T06:00:00Z) or an age (7d)"),
    TEXT_ROW("--until", "WHEN", until, "only the runs started at WHEN or earlier"),
    {.name = "--figure",
     .value = "NAME",
     .kind = SUBARG_CALL,
     .take = take_figure,
     .help = "a figure shown and judged (repeat it): tps, p50,\n"
             "p90, p99, p99.9, errors, capacity, get.p99 ...;\n"
             "all: every one stored (default: tps, p50, p90,\n"
             "p99, p99.9 and errors)"},
    {.name = "--fail-if",
     .value = "RULE",
     .kind = SUBARG_CALL,
     .take = take_fail_if,
     .help = "exit 1 when the latest change of a figure crosses\n"
             "RULE ('p99>+5%', 'tps<-10%'; repeat it, or join\n"
             "rules with commas), 2 when it cannot be judged"},
    TEXT_ROW("--min-segment", "N", min_segment, "runs each side of a change, at least (default 4)"),
    TEXT_ROW("--min-change", "PERCENT", min_change,
             "changes smaller than this are not shown\n"
             "(default 5%)"),
    TEXT_ROW("--json", "FILE", json,
             "the series (or the list) as JSON (- standard\n"
             "output)"),
    TEXT_ROW("--csv", "FILE", csv,
             "one row per run: time, attributes, figures\n"
             "(- standard output)"),
    TEXT_ROW("--svg", "FILE", svg, "each figure over time, with its changes"),
    TEXT_ROW("--run", "ID", run,
             "print a stored run's results document, as --json\n"
             "wrote it (slap merge, compare and plot read it)"),
    {.name = "--import",
     .kind = SUBARG_FLAG,
     .offset = offsetof(struct history_args, import),
     .help = "keep the results files given (--json's, any\n"
             "version) in the store, with their own times"},
    {.name = "--prune",
     .kind = SUBARG_FLAG,
     .offset = offsetof(struct history_args, prune),
     .help = "remove the runs started before --before's time"},
    TEXT_ROW("--before", "WHEN", before, "--prune's time"),
};

static const struct subargs_spec history_spec = {
    .name = "history",
    .intro = "Usage: slap history [--store LOCATION] [OPTIONS] [SERIES]\n"
             "       slap history --import RESULT.json...\n"
             "       slap history --prune --before WHEN\n"
             "       slap history --run ID\n"
             "The runs a store holds (--store on a run keeps them). Without SERIES: each\n"
             "series (one workload against one set of servers under one label), its runs,\n"
             "latest figures and latest change. With SERIES (its id, or its label): its runs\n"
             "and, for each figure, where its level changed, before and after, with the\n"
             "change's interval and p (E-divisive means, a permutation test).\n",
    .outro = "Exit status: 0 done (no --fail-if crossed), 1 a --fail-if rule crossed or the\n"
             "store could not be read or written, 2 bad usage, a file that does not import,\n"
             "or a series too short to judge with --fail-if.\n",
    .rows = history_rows,
    .count = SLAP_ARRAY_SIZE(history_rows),
};

size_t history_docs(struct optdoc *out, size_t max)
{
    return subargs_docs(&history_spec, out, max);
}

/* ---- the options' values ------------------------------------------------------------------ */

static int take_figure(void *args, const char *value)
{
    struct history_args *a = args;
    if (a->nfigures == HISTORY_MAX_FIGURES || value[0] == '\0' ||
        strlen(value) >= HISTORY_FIGURE_MAX) {
        a->bad = true;
        return subargs_usage(&history_spec, "--figure: too many, or a name too long:", value);
    }
    a->figures[a->nfigures++] = value;
    return SLAP_EXIT_OK;
}

/* One rule, "p99>+5%", into t. */
static bool parse_rule(const char *text, size_t len, struct history_threshold *t)
{
    const char *op = memchr(text, '>', len);
    op = op != NULL ? op : memchr(text, '<', len);
    if (op == NULL || op == text || (size_t)(op - text) >= sizeof(t->figure) || len < 2 ||
        text[len - 1] != '%') {
        return false;
    }
    char number[32];
    size_t n = len - (size_t)(op - text) - 2;
    if (n == 0 || n >= sizeof(number)) {
        return false;
    }
    memcpy(number, op + 1, n);
    number[n] = '\0';
    char *end;
    double pct = strtod(number, &end);
    if (*end != '\0' || !isfinite(pct) || (number[0] != '+' && number[0] != '-')) {
        return false;
    }
    memcpy(t->figure, text, (size_t)(op - text));
    t->figure[op - text] = '\0';
    t->above = *op == '>';
    t->limit = pct / 100;
    return true;
}

static int take_fail_if(void *args, const char *value)
{
    struct history_args *a = args;
    for (const char *p = value; *p != '\0';) {
        size_t len = strcspn(p, ",");
        if (a->nth == HISTORY_MAX_THRESHOLDS || !parse_rule(p, len, &a->th[a->nth])) {
            a->bad = true;
            return subargs_usage(&history_spec,
                                 "--fail-if takes FIGURE>+P% or FIGURE<-P% (such as "
                                 "'p99>+5%' or 'tps<-10%'; at most 16), not",
                                 value);
        }
        a->th[a->nth++].as_given = value;
        p += len + (p[len] == ',');
    }
    return SLAP_EXIT_OK;
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* WHEN: a time (RFC 3339, a date alone: its midnight UTC, or seconds since the epoch) or an age
 * ("7d": a number and its unit). */
static bool parse_when(const char *text, uint64_t *ms)
{
    char full[64];
    uint64_t ns;
    size_t len = strlen(text);
    bool age = len > 0 && ((text[len - 1] >= 'a' && text[len - 1] <= 'z') ||
                           (text[len - 1] >= 'A' && text[len - 1] <= 'Z'));
    if (len == 10 && text[4] == '-' && text[7] == '-') {
        snprintf(full, sizeof(full), "%sT00:00:00Z", text);
        text = full;
        len = strlen(full);
        age = false;
    }
    if (!age && units_parse_time(text, len, &ns) == UNITS_OK) {
        *ms = ns / SLAP_NS_PER_MS;
        return true;
    }
    if (age && units_parse_duration(text, len, &ns) == UNITS_OK &&
        ns / SLAP_NS_PER_MS <= now_ms()) {
        *ms = now_ms() - ns / SLAP_NS_PER_MS;
        return true;
    }
    return false;
}

static int when_of(const char *option, const char *text, uint64_t *ms)
{
    char problem[96];
    *ms = 0;
    if (text == NULL || parse_when(text, ms)) {
        return SLAP_EXIT_OK;
    }
    snprintf(problem, sizeof(problem),
             "%s takes a time (2026-12-01, 2026-12-01T06:00:00Z) or an age (7d), not", option);
    return subargs_usage(&history_spec, problem, text);
}

/* The options read and checked: SLAP_EXIT_OK, or the refusal's status (said). */
static int check_args(struct history_args *a, struct store_filter *f, struct changes_settings *cs,
                      uint64_t *before_ms)
{
    uint64_t value;
    changes_defaults(cs);
    cs->min_relative = HISTORY_MIN_CHANGE;
    *f = (struct store_filter){a->label, a->servers, a->host, a->kind, 0, 0};
    int status = when_of("--since", a->since, &f->since_ms);
    status = status == SLAP_EXIT_OK ? when_of("--until", a->until, &f->until_ms) : status;
    status = status == SLAP_EXIT_OK ? when_of("--before", a->before, before_ms) : status;
    if (status != SLAP_EXIT_OK) {
        return status;
    }
    if (a->min_segment != NULL) {
        if (units_parse_size(a->min_segment, strlen(a->min_segment), 0, &value) != UNITS_OK ||
            value < 2 || value > 1000) {
            return subargs_usage(&history_spec, "--min-segment takes 2 to 1000 runs, not",
                                 a->min_segment);
        }
        cs->min_segment = value;
    }
    if (a->min_change != NULL) {
        char *end;
        double pct = strtod(a->min_change, &end);
        if (end == a->min_change || (*end != '\0' && strcmp(end, "%") != 0) || !(pct >= 0) ||
            pct > 1000) {
            return subargs_usage(&history_spec, "--min-change takes a percentage (5%), not",
                                 a->min_change);
        }
        cs->min_relative = pct / 100;
    }
    return SLAP_EXIT_OK;
}

/* ---- changes and thresholds ------------------------------------------------------------------ */

/* Was run i limited by slap's own host? */
static bool host_limited(const struct history_run *r)
{
    return strcmp(r->limited_by, "client") == 0 || strcmp(r->limited_by, "both") == 0;
}

/* Were most runs from..to (run indexes) limited by slap's host? */
static bool mostly_host(const struct history_series *s, size_t from, size_t to)
{
    size_t host = 0;
    for (size_t i = from; i < to; i++) {
        host += host_limited(&s->runs[i]);
    }
    return to > from && 2 * host > to - from;
}

/* Each change of f marked when most runs of a side of it (to its neighbours) were limited by
 * slap's host: the runs measured slap's share of the host, and the change may be the host's. */
static enum slap_status mark_host(const struct history_series *s, struct history_figure *f)
{
    if (f->changes.n == 0 || s->runs == NULL) {
        return SLAP_OK;
    }
    f->host = calloc(f->changes.n, sizeof(*f->host));
    if (f->host == NULL) {
        return SLAP_ERROR;
    }
    for (size_t k = 0; k < f->changes.n; k++) {
        size_t from = k > 0 ? f->at[k - 1] : 0, at = f->at[k];
        size_t to = k + 1 < f->changes.n ? f->at[k + 1] : s->nruns;
        f->host[k] = mostly_host(s, from, at) || mostly_host(s, at, to);
    }
    return SLAP_OK;
}

/* The changes of f over its runs' known values; at[] maps them back to runs. */
static enum slap_status judge_figure(struct history_figure *f, size_t nruns,
                                     const struct changes_settings *cs)
{
    double *x = malloc((nruns ? nruns : 1) * sizeof(*x));
    size_t *index = malloc((nruns ? nruns : 1) * sizeof(*index));
    size_t n = 0;
    enum slap_status st = x != NULL && index != NULL ? SLAP_OK : SLAP_ERROR;
    for (size_t i = 0; st == SLAP_OK && i < nruns; i++) {
        if (isfinite(f->values[i].value)) {
            index[n] = i;
            x[n++] = f->values[i].value;
        }
    }
    if (st == SLAP_OK) {
        st = changes_find(x, n, cs, &f->changes);
    }
    if (st == SLAP_OK && f->changes.n > 0) {
        f->at = malloc(f->changes.n * sizeof(*f->at));
        st = f->at != NULL ? SLAP_OK : SLAP_ERROR;
        for (size_t k = 0; st == SLAP_OK && k < f->changes.n; k++) {
            f->at[k] = index[f->changes.points[k].at];
        }
    }
    free(x);
    free(index);
    return st;
}

static enum slap_status judge_series(struct history_series *s, const struct changes_settings *cs)
{
    for (size_t i = 0; i < s->nfigures; i++) {
        if (judge_figure(&s->figures[i], s->nruns, cs) != SLAP_OK ||
            mark_host(s, &s->figures[i]) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

/* The rules on one series: 1 when one crossed, 2 when a figure it names cannot be judged,
 * else 0; each said on standard error. */
static int rules_on(const struct history_args *a, const struct history_series *s)
{
    int worst = SLAP_EXIT_OK;
    char id[QUOTE_PATH_BUF];
    for (size_t k = 0; k < a->nth; k++) {
        const struct history_threshold *t = &a->th[k];
        const struct history_figure *f = NULL;
        for (size_t i = 0; i < s->nfigures && f == NULL; i++) {
            f = strcmp(s->figures[i].name, t->figure) == 0 ? &s->figures[i] : NULL;
        }
        if (f == NULL || f->changes.needed > 0) {
            fprintf(stderr, "slap history: series %s: %s cannot be judged: %s\n",
                    quote_text(id, s->id), t->figure,
                    f == NULL ? "no such figure (give it with --figure)" : "too few runs");
            worst = worst == SLAP_EXIT_OK ? SLAP_EXIT_USAGE : worst;
            continue;
        }
        if (f->changes.n == 0) {
            continue;
        }
        const struct change_point *c = &f->changes.points[f->changes.n - 1];
        bool crossed = t->above ? c->relative > t->limit : c->relative < t->limit;
        if (crossed && history_change_host(f, f->changes.n - 1)) {
            fprintf(stderr,
                    "slap history: series %s: %s changed %+.1f%% at run %zu, but most runs "
                    "around it were limited by slap's own host (client or both): not judged; "
                    "give slap CPUs of its own\n",
                    quote_text(id, s->id), t->figure, c->relative * 100,
                    f->at[f->changes.n - 1] + 1);
            worst = worst == SLAP_EXIT_OK ? SLAP_EXIT_USAGE : worst;
        } else if (crossed) {
            fprintf(stderr, "slap history: series %s: %s changed %+.1f%% at run %zu: past %s\n",
                    quote_text(id, s->id), t->figure, c->relative * 100,
                    f->at[f->changes.n - 1] + 1, t->as_given);
            worst = SLAP_EXIT_FAILED;
        }
    }
    return worst;
}

/* ---- the outputs --------------------------------------------------------------------------- */

static void write_series_json(FILE *out, const void *s)
{
    history_write_series_json(out, s);
}
static void write_series_csv(FILE *out, const void *s)
{
    history_write_csv(out, s);
}
static void write_series_svg(FILE *out, const void *s)
{
    history_write_svg(out, s);
}

struct list_arg {
    const struct history_series *s;
    size_t n;
};
static void write_list_json(FILE *out, const void *arg)
{
    const struct list_arg *l = arg;
    history_write_list_json(out, l->s, l->n);
}

static int save(const char *option, const char *path, outfile_writer write, const void *arg)
{
    char err[512];
    if (path == NULL) {
        return SLAP_EXIT_OK;
    }
    if (outfile_save(path, write, arg, err, sizeof(err)) != SLAP_OK) {
        char prefix[64];
        snprintf(prefix, sizeof(prefix), "slap history: %s: ", option);
        quote_line(stderr, prefix, err);
        return SLAP_EXIT_FAILED;
    }
    return SLAP_EXIT_OK;
}

static bool to_stdout(const char *path)
{
    return path != NULL && strcmp(path, "-") == 0;
}

static int show_series(const struct history_args *a, const struct history_series *s)
{
    int status = SLAP_EXIT_OK;
    if (!to_stdout(a->json) && !to_stdout(a->csv)) {
        history_write_series(stdout, s);
    }
    status =
        save("--json", a->json, write_series_json, s) != SLAP_EXIT_OK ? SLAP_EXIT_FAILED : status;
    status = save("--csv", a->csv, write_series_csv, s) != SLAP_EXIT_OK ? SLAP_EXIT_FAILED : status;
    status = save("--svg", a->svg, write_series_svg, s) != SLAP_EXIT_OK ? SLAP_EXIT_FAILED : status;
    return status;
}

/* ---- --import, --prune ------------------------------------------------------------------- */

/* A file's bytes, whole (at most JSON_MAX_INPUT), into *text. */
static enum slap_status read_whole(const char *path, char **text, size_t *len, char *err,
                                   size_t err_len)
{
    char shown[QUOTE_PATH_BUF];
    FILE *f = fopen(path, "rb");
    *text = NULL;
    *len = 0;
    if (f == NULL) {
        snprintf(err, err_len, "cannot read %s: %s", quote_name(shown, path), strerror(errno));
        return SLAP_ERROR;
    }
    size_t cap = 0;
    for (;;) {
        if (*len + 65536 > cap) {
            char *more = cap >= JSON_MAX_INPUT ? NULL : realloc(*text, cap + 65537 + cap);
            if (more == NULL) {
                snprintf(err, err_len, "%s: larger than a results file can be",
                         quote_name(shown, path));
                break;
            }
            *text = more;
            cap += 65536 + cap;
        }
        size_t got = fread(*text + *len, 1, cap - *len, f);
        *len += got;
        if (got == 0) {
            (*text)[*len] = '\0';
            fclose(f);
            return SLAP_OK;
        }
    }
    fclose(f);
    free(*text);
    *text = NULL;
    return SLAP_ERROR;
}

/* How a file's run is kept: its document's kind. */
static const char *kind_of(const struct results_doc *d, const struct json_value *root)
{
    if (json_get(root, "search") != NULL && json_get(root, "search")->type != JSON_NULL) {
        return "search";
    }
    return d->sweep ? "sweep" : d->runs.n > 1 ? "merge" : d->rounds.n > 1 ? "rounds" : "run";
}

/* One file into the store: SLAP_OK (*already when it was there), else err says why. */
static enum slap_status import_one(struct store *s, const char *path, bool *already, char *err,
                                   size_t err_len)
{
    struct results_doc d;
    struct json_value *root = NULL;
    char *text;
    size_t len;
    int64_t id;
    uint64_t schema = 0;
    memset(&d, 0, sizeof(d));
    if (read_whole(path, &text, &len, err, err_len) != SLAP_OK) {
        return SLAP_ERROR;
    }
    enum slap_status st = results_parse(text, len, plan_output_read_config, &d, err, err_len);
    if (st == SLAP_OK) {
        st = json_parse(text, len, &root, err, err_len);
    }
    if (st == SLAP_OK) {
        const char *tool = json_to_string(json_get(root, "tool"));
        json_to_u64(json_get(root, "schema"), &schema);
        struct store_put_info info = {kind_of(&d, root), text, len, schema,
                                      tool != NULL ? tool : "slap"};
        st = store_put(s, &d, &info, &id, already, err, err_len);
    }
    json_free(root);
    results_doc_free(&d);
    free(text);
    return st;
}

static int import_files(struct store *s, char **files, int n)
{
    int status = SLAP_EXIT_OK, stored = 0, there = 0;
    for (int i = 0; i < n; i++) {
        char err[1024] = "", shown[QUOTE_PATH_BUF];
        bool already = false;
        if (import_one(s, files[i], &already, err, sizeof(err)) != SLAP_OK) {
            char prefix[QUOTE_PATH_BUF + 32];
            snprintf(prefix, sizeof(prefix),
                     "slap history: --import %s: ", quote_name(shown, files[i]));
            quote_line(stderr, prefix, err);
            status = SLAP_EXIT_USAGE;
            continue;
        }
        stored += !already;
        there += already;
    }
    printf("imported %d run%s", stored, stored == 1 ? "" : "s");
    printf(there > 0 ? " (%d already in the store)\n" : "\n", there);
    return status;
}

/* --run ID: its document on standard output, as it was kept. */
static int print_run(struct store *s, const char *id_text)
{
    char err[1024], *end, *text;
    long long id = strtoll(id_text, &end, 10);
    if (end == id_text || *end != '\0' || id < 1) {
        return subargs_usage(
            &history_spec, "--run takes a run's id (slap history SERIES lists them), not", id_text);
    }
    if (store_document(s, id, &text, err, sizeof(err)) != SLAP_OK) {
        quote_line(stderr, "slap history: --run: ", err);
        return SLAP_EXIT_FAILED;
    }
    fputs(text, stdout);
    free(text);
    return SLAP_EXIT_OK;
}

static int prune(struct store *s, uint64_t before_ms)
{
    char err[1024], when[32];
    uint64_t removed;
    if (store_prune(s, before_ms, &removed, err, sizeof(err)) != SLAP_OK) {
        quote_line(stderr, "slap history: --prune: ", err);
        return SLAP_EXIT_FAILED;
    }
    history_time(when, sizeof(when), before_ms);
    printf("removed %llu run%s started before %s\n", (unsigned long long)removed,
           removed == 1 ? "" : "s", when);
    return SLAP_EXIT_OK;
}

/* ---- the series ------------------------------------------------------------------------------ */

static int list(const struct history_args *a, struct store *s, const struct store_filter *f,
                const struct changes_settings *cs)
{
    struct history_series *all = NULL;
    size_t n = 0;
    char err[1024];
    if (store_list_series(s, f, &all, &n, err, sizeof(err)) != SLAP_OK) {
        quote_line(stderr, "slap history: ", err);
        return SLAP_EXIT_FAILED;
    }
    int status = SLAP_EXIT_OK, worst = SLAP_EXIT_OK;
    for (size_t i = 0; i < n && status == SLAP_EXIT_OK; i++) {
        status = judge_series(&all[i], cs) == SLAP_OK ? SLAP_EXIT_OK : SLAP_EXIT_FAILED;
    }
    if (status == SLAP_EXIT_OK) {
        struct list_arg l = {all, n};
        if (!to_stdout(a->json)) {
            history_write_list(stdout, all, n);
        }
        status = save("--json", a->json, write_list_json, &l);
        for (size_t i = 0; i < n; i++) {
            int r = rules_on(a, &all[i]);
            worst = r == SLAP_EXIT_FAILED || worst == SLAP_EXIT_OK ? r : worst;
        }
    } else {
        fprintf(stderr, "slap history: out of memory\n");
    }
    for (size_t i = 0; i < n; i++) {
        history_series_free(&all[i]);
    }
    free(all);
    return status != SLAP_EXIT_OK ? status : worst;
}

static int one_series(const struct history_args *a, struct store *s, const char *name,
                      const struct store_filter *f, const struct changes_settings *cs)
{
    struct history_series series;
    char err[1024];
    const char *const *figures = a->nfigures > 0 ? a->figures : NULL;
    enum slap_status st =
        store_read_series(s, name, f, figures, a->nfigures, &series, err, sizeof(err));
    if (st != SLAP_OK) {
        char prefix[QUOTE_PATH_BUF + 32], shown[QUOTE_PATH_BUF];
        snprintf(prefix, sizeof(prefix), "slap history: %s: ", quote_name(shown, name));
        quote_line(stderr, prefix, err);
        history_series_free(&series);
        return st == SLAP_AGAIN ? SLAP_EXIT_USAGE : SLAP_EXIT_FAILED;
    }
    int status = SLAP_EXIT_FAILED;
    if (judge_series(&series, cs) == SLAP_OK) {
        status = show_series(a, &series);
        int r = rules_on(a, &series);
        status = status != SLAP_EXIT_OK ? status : r;
    } else {
        fprintf(stderr, "slap history: out of memory\n");
    }
    history_series_free(&series);
    return status;
}

/* ---- the command ----------------------------------------------------------------------------- */

static int refuse_mix(const struct history_args *a, int n)
{
    if (a->run != NULL && (a->import || a->prune || n > 0)) {
        return subargs_usage(&history_spec, "--run prints one run: no series, --import or --prune",
                             NULL);
    }
    if (a->import && a->prune) {
        return subargs_usage(&history_spec, "--import and --prune are two commands: give one",
                             NULL);
    }
    if (a->prune && (a->before == NULL || n > 0)) {
        return subargs_usage(&history_spec, "--prune takes --before WHEN and no series", NULL);
    }
    if (a->import && n == 0) {
        return subargs_usage(&history_spec, "--import: give the results files to keep", NULL);
    }
    if (!a->import && n > 1) {
        return subargs_usage(&history_spec, "one series at a time; also given", NULL);
    }
    if (!a->import && !a->prune && n == 0 && (a->csv != NULL || a->svg != NULL)) {
        return subargs_usage(&history_spec, "--csv and --svg draw one series: name it", NULL);
    }
    return SLAP_EXIT_OK;
}

static int open_store(const char *location, bool create, struct store **s)
{
    char err[1024], shown[STORE_LOCATION_SHOWN], prefix[STORE_LOCATION_SHOWN + 48];
    if (store_open(s, location, create, err, sizeof(err)) == SLAP_OK) {
        return SLAP_EXIT_OK;
    }
    store_location_shown(shown, sizeof(shown), location);
    snprintf(prefix, sizeof(prefix), "slap history: --store %s: ", shown);
    quote_line(stderr, prefix, err);
    return SLAP_EXIT_FAILED;
}

static int history_do(struct history_args *a, char **operands, int n)
{
    struct store_filter f;
    struct changes_settings cs;
    uint64_t before_ms = 0;
    struct store *s = NULL;
    const char *location = store_location(a->store);
    int status = refuse_mix(a, n);
    status = status == SLAP_EXIT_OK ? check_args(a, &f, &cs, &before_ms) : status;
    if (status == SLAP_EXIT_OK && location == NULL) {
        status = subargs_usage(&history_spec, "which store? Give --store, or set SLAP_STORE", NULL);
    }
    if (status == SLAP_EXIT_OK && store_location_problem(location) != NULL) {
        status = subargs_usage(&history_spec, store_location_problem(location), "--store");
    }
    status = status == SLAP_EXIT_OK ? open_store(location, a->import, &s) : status;
    if (status != SLAP_EXIT_OK) {
        return status;
    }
    if (a->import) {
        status = import_files(s, operands, n);
    } else if (a->prune) {
        status = prune(s, before_ms);
    } else if (a->run != NULL) {
        status = print_run(s, a->run);
    } else if (n == 1) {
        status = one_series(a, s, operands[0], &f, &cs);
    } else {
        status = list(a, s, &f, &cs);
    }
    store_close(s);
    fflush(stdout);
    return ferror(stdout) && status == SLAP_EXIT_OK ? SLAP_EXIT_FAILED : status;
}

int history_main(int argc, char **argv)
{
    struct history_args a;
    char **operands = calloc((size_t)argc + 1, sizeof(*operands));
    int n = 0;
    bool run;
    memset(&a, 0, sizeof(a));
    if (operands == NULL) {
        fprintf(stderr, "slap history: out of memory\n");
        return SLAP_EXIT_FAILED;
    }
    int status = subargs_parse(&history_spec, argc, argv, &a, operands, &n, &run);
    if (run && !a.bad) {
        status = history_do(&a, operands, n);
    }
    free(operands);
    return status;
}
