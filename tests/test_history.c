/* Unit tests of slap history's writers: a series made by hand as text, JSON, CSV and SVG. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/base/json.h"
#include "slap/output/history.h"

#define NRUNS 12
#define DAY_MS 86400000ULL
#define FIRST_MS 1796119200000ULL /* 2026-12-01T10:00:00Z */
#define CHANGE_RUN 7              /* 1-based: the first run of p99's new level */

/* A label a store may hand back: quotes, SQL, a control byte, XML's specials. */
static const char hostile[] = "x'; DROP TABLE runs; --\x01\"<>&";
/* A host with an escape sequence and a byte of no UTF-8. */
static const char hostile_host[] = "h\x1b[31mred\xff";

/* ---- the series ----------------------------------------------------------------------- */

static void add_figure(struct history_series *s, size_t i, const char *name, bool higher)
{
    struct history_figure *f = &s->figures[i];
    snprintf(f->name, sizeof(f->name), "%s", name);
    f->higher_is_better = higher;
    f->values = calloc(s->nruns, sizeof(*f->values));
    assert_non_null(f->values);
}

/* p99's one change: 800 us to 960 us at CHANGE_RUN, shift 160 in [144, 199.2]. */
static void add_change(struct history_figure *f)
{
    f->changes.n = 1;
    f->changes.points = calloc(1, sizeof(*f->changes.points));
    f->at = calloc(1, sizeof(*f->at));
    assert_non_null(f->changes.points);
    assert_non_null(f->at);
    f->changes.points[0] = (struct change_point){.at = CHANGE_RUN - 1,
                                                 .before = 800,
                                                 .after = 960,
                                                 .relative = 0.2,
                                                 .estimable = true,
                                                 .shift = 160,
                                                 .low = 144,
                                                 .high = 199.2,
                                                 .p = 0.005};
    f->at[0] = CHANGE_RUN - 1;
}

static void fill_run(struct history_series *s, size_t r)
{
    struct history_run *run = &s->runs[r];
    run->id = 100 + (int64_t)r;
    run->time_ms = FIRST_MS + r * DAY_MS;
    snprintf(run->host, sizeof(run->host), "%s", r == 1 ? hostile_host : "bench1");
    snprintf(run->label, sizeof(run->label), "%s", hostile);
    snprintf(run->version, sizeof(run->version), "1.4.0");
    snprintf(run->kind, sizeof(run->kind), "run");
    snprintf(run->limited_by, sizeof(run->limited_by), "%s", r % 2 ? "server" : "");
    run->steady = r == 2 ? -1 : r == 5 ? 0 : 1;
    s->figures[0].values[r] = (struct history_value){100000 + 10.0 * (double)r, NAN, NAN};
    s->figures[1].values[r] = (struct history_value){250, 240, 260};
    s->figures[2].values[r] = (struct history_value){r + 1 < CHANGE_RUN ? 800 : 960, NAN, NAN};
}

/* n runs of tps, p50 and p99 a day apart, run 4's p50 missing; with a change in p99 when
 * change, else every figure needing 8 runs. */
static struct history_series *make_series(size_t n, bool change)
{
    struct history_series *s = calloc(1, sizeof(*s));
    assert_non_null(s);
    snprintf(s->id, sizeof(s->id), "3fa2c1d0e9b8");
    snprintf(s->label, sizeof(s->label), "%s", hostile);
    snprintf(s->kind, sizeof(s->kind), "run");
    snprintf(s->servers, sizeof(s->servers), "127.0.0.1:11211,127.0.0.1:11212");
    snprintf(s->workload, sizeof(s->workload), "-T 4 -c 64 -t 30s");
    s->nruns = n;
    s->runs = calloc(n, sizeof(*s->runs));
    s->nfigures = 3;
    s->figures = calloc(3, sizeof(*s->figures));
    assert_non_null(s->runs);
    assert_non_null(s->figures);
    add_figure(s, 0, "tps", true);
    add_figure(s, 1, "p50", false);
    add_figure(s, 2, "p99", false);
    for (size_t r = 0; r < n; r++) {
        fill_run(s, r);
    }
    if (n > 3) {
        s->figures[1].values[3].value = NAN;
    }
    s->first_ms = FIRST_MS;
    s->last_ms = FIRST_MS + (n - 1) * DAY_MS;
    for (size_t f = 0; f < 3; f++) {
        s->figures[f].changes.needed = change ? 0 : 8;
    }
    if (change) {
        add_change(&s->figures[2]);
    }
    return s;
}

static void drop_series(struct history_series *s)
{
    history_series_free(s);
    free(s);
}

/* ---- capturing ------------------------------------------------------------------------ */

enum writer { W_LIST, W_SERIES, W_LIST_JSON, W_SERIES_JSON, W_CSV, W_SVG, W_COUNT };

/* What writer w writes of s (n series for the lists), in memory; the caller frees it. */
static char *capture(enum writer w, const struct history_series *s, size_t n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    switch (w) {
    case W_LIST:
        history_write_list(out, s, n);
        break;
    case W_SERIES:
        history_write_series(out, s);
        break;
    case W_LIST_JSON:
        history_write_list_json(out, s, n);
        break;
    case W_SERIES_JSON:
        history_write_series_json(out, s);
        break;
    case W_CSV:
        history_write_csv(out, s);
        break;
    case W_SVG:
        history_write_svg(out, s);
        break;
    case W_COUNT:
        break;
    }
    assert_int_equal(fclose(out), 0);
    assert_int_equal(strlen(text), len); /* no NUL written */
    return text;
}

/* The line of text that holds needle (a copy the caller frees); fails when none does. */
static char *line_with(const char *text, const char *needle)
{
    const char *hit = strstr(text, needle);
    if (hit == NULL) {
        fail_msg("no line with '%s' in:\n%s", needle, text);
    }
    const char *start = hit;
    while (start > text && start[-1] != '\n') {
        start--;
    }
    size_t len = strcspn(start, "\n");
    char *line = malloc(len + 1);
    assert_non_null(line);
    memcpy(line, start, len);
    line[len] = '\0';
    return line;
}

static void assert_contains(const char *text, const char *needle)
{
    if (strstr(text, needle) == NULL) {
        fail_msg("'%s' not in:\n%s", needle, text);
    }
}

static size_t count_of(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(text, needle); p != NULL; p = strstr(p + 1, needle)) {
        n++;
    }
    return n;
}

/* Every byte printable or a newline: nothing moves a terminal's cursor or paints it. */
static void assert_no_controls(const char *text, const char *what)
{
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++) {
        if (*p < 0x20 && *p != '\n') {
            fail_msg("%s: byte 0x%02x at %zu", what, *p, (size_t)(p - (const unsigned char *)text));
        }
    }
}

/* ---- the tests ------------------------------------------------------------------------ */

static void test_time(void **state)
{
    (void)state;
    char buf[32];
    history_time(buf, sizeof(buf), 0);
    assert_string_equal(buf, "1970-01-01T00:00:00Z");
    history_time(buf, sizeof(buf), FIRST_MS + 11 * DAY_MS + 999);
    assert_string_equal(buf, "2026-12-12T10:00:00Z");
    history_time(buf, sizeof(buf), FIRST_MS + 4 * DAY_MS + 32 * 60000 + 14000);
    assert_string_equal(buf, "2026-12-05T10:32:14Z");
}

/* The label as the tables show it: the control byte as \x01, the rest as it is. */
#define SHOWN_LABEL "x'; DROP TABLE runs; --\\x01\"<>&"

static void test_list_text(void **state)
{
    (void)state;
    struct history_series *s = make_series(NRUNS, true);
    struct history_series *t = make_series(3, false);
    struct history_series both[2] = {*s, *t};
    snprintf(both[1].id, sizeof(both[1].id), "00000000beef");
    char *text = capture(W_LIST, both, 2);
    char *head = line_with(text, "changes");
    char *row = line_with(text, "3fa2c1d0e9b8");
    char *short_row = line_with(text, "00000000beef");
    assert_true(strncmp(head, "id ", 3) == 0);
    assert_contains(head, "runs  first");
    assert_contains(row, "   12  2026-12-01T10:00:00Z  2026-12-12T10:00:00Z  " SHOWN_LABEL "  ");
    assert_contains(row, "  100110  960.0us  p99 +20.0% at run 7");
    assert_contains(short_row, "    3  2026-12-01T10:00:00Z  2026-12-03T10:00:00Z  ");
    assert_contains(short_row, "  100020  800.0us  needs 8 runs");
    /* the columns line up: tps ends where the header's does */
    assert_int_equal(strstr(row, "100110") + 6 - row, strstr(head, "tps") + 3 - head);
    assert_int_equal(count_of(text, "\n"), 3);
    free(head);
    free(row);
    free(short_row);
    free(text);
    drop_series(s);
    drop_series(t);
}

/* A series without changes but judged says "none". */
static void test_list_none(void **state)
{
    (void)state;
    struct history_series *s = make_series(NRUNS, true);
    free(s->figures[2].changes.points);
    free(s->figures[2].at);
    s->figures[2].changes = (struct changes){0};
    s->figures[2].at = NULL;
    char *text = capture(W_LIST, s, 1);
    char *row = line_with(text, "3fa2c1d0e9b8");
    assert_contains(row, "960.0us  none");
    free(row);
    free(text);
    drop_series(s);
}

static void test_series_text(void **state)
{
    (void)state;
    struct history_series *s = make_series(NRUNS, true);
    char *text = capture(W_SERIES, s, 0);
    char *run7 = line_with(text, "  #7  ");
    char *run4 = line_with(text, "  #4  ");
    char *run3 = line_with(text, "  #3  ");
    char *change = line_with(text, "  p99     #7");
    assert_contains(text, "series 3fa2c1d0e9b8\nlabel " SHOWN_LABEL "\nkind run\n");
    assert_contains(text, "12 runs from 2026-12-01T10:00:00Z to 2026-12-12T10:00:00Z\n");
    assert_contains(run7, "  #7  2026-12-07T10:00:00Z  bench1");
    assert_contains(run7, "     0  -           yes     100060  250.0us  960.0us");
    assert_contains(run4, "  server      yes     100030        -  800.0us");
    assert_contains(run3, "     0  -           -       100020  250.0us  800.0us");
    assert_string_equal(change, "  p99     #7     2026-12-07T10:00:00Z    800.0us    960.0us   "
                                "+20.0%  [+18.0%, +24.9%]    p=0.005");
    assert_null(strstr(text, "no change found"));
    assert_null(strstr(text, "needs"));
    /* the host's escape and its stray byte shown as \xNN */
    assert_contains(text, "  h\\x1b[31mred\\xff  ");
    free(run7);
    free(run4);
    free(run3);
    free(change);
    free(text);
    drop_series(s);
}

static void test_series_text_too_short(void **state)
{
    (void)state;
    struct history_series *s = make_series(3, false);
    for (size_t r = 0; r < 3; r++) { /* p50 in no run: too few requests for its interval */
        s->figures[1].values[r].value = NAN;
    }
    char *text = capture(W_SERIES, s, 0);
    assert_contains(text, "\nno change found\n");
    assert_contains(text, "\np99: needs 8 runs to judge (has 3)\n");
    assert_contains(text, "\ntps: needs 8 runs to judge (has 3)\n");
    assert_contains(text, "\np50: no run holds it (a percentile needs enough requests");
    free(text);
    drop_series(s);
}

/* Nothing any writer writes holds a control byte but the newline, whatever the store held. */
static void test_no_controls_anywhere(void **state)
{
    (void)state;
    struct history_series *s = make_series(NRUNS, true);
    snprintf(s->figures[1].name, sizeof(s->figures[1].name), "p\x07\r\n50");
    snprintf(s->servers, sizeof(s->servers), "a\r\nb\tc\x1b]0;title\x07");
    snprintf(s->runs[3].limited_by, sizeof(s->runs[3].limited_by), "\x1b[2J");
    snprintf(s->runs[4].version, sizeof(s->runs[4].version), "1\n2");
    static const char *const names[W_COUNT] = {"list",        "series", "list json",
                                               "series json", "csv",    "svg"};
    for (int w = 0; w < W_COUNT; w++) {
        char *text = capture((enum writer)w, s, 1);
        assert_no_controls(text, names[w]);
        free(text);
    }
    drop_series(s);
}

/* ---- JSON ----------------------------------------------------------------------------- */

static struct json_value *parse(const char *text)
{
    struct json_value *root = NULL;
    char err[160] = "";
    if (json_parse(text, strlen(text), &root, err, sizeof(err)) != SLAP_OK) {
        fail_msg("not JSON (%s):\n%s", err, text);
    }
    return root;
}

/* The member path of v, one key after another, or an index of an array as "#N". */
static const struct json_value *at(const struct json_value *v, const char *const *path, size_t n)
{
    for (size_t i = 0; i < n && v != NULL; i++) {
        if (path[i][0] == '#') {
            size_t k = strtoul(path[i] + 1, NULL, 10);
            v = v->type == JSON_ARRAY && k < v->n ? v->items[k] : NULL;
        } else {
            v = json_get(v, path[i]);
        }
    }
    assert_non_null(v);
    return v;
}
#define AT(v, ...)                                                                                 \
    at(v, (const char *const[]){__VA_ARGS__},                                                      \
       sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

static double number_at(const struct json_value *v)
{
    double d;
    assert_true(json_to_double(v, &d));
    return d;
}

static void test_series_json(void **state)
{
    (void)state;
    struct history_series *s = make_series(NRUNS, true);
    char *text = capture(W_SERIES_JSON, s, 0);
    struct json_value *root = parse(text);
    assert_string_equal(json_to_string(AT(root, "label")), hostile);
    assert_string_equal(json_to_string(AT(root, "id")), "3fa2c1d0e9b8");
    assert_int_equal(AT(root, "runs")->n, NRUNS);
    assert_float_equal(number_at(AT(root, "runs", "#6", "figures", "p99", "value")), 960, 0);
    assert_float_equal(number_at(AT(root, "runs", "#0", "figures", "p50", "low")), 240, 0);
    assert_int_equal(AT(root, "runs", "#3", "figures", "p50", "value")->type, JSON_NULL);
    assert_int_equal(AT(root, "runs", "#0", "figures", "tps", "high")->type, JSON_NULL);
    assert_int_equal(AT(root, "runs", "#2", "steady")->type, JSON_NULL);
    assert_int_equal(AT(root, "runs", "#5", "steady")->type, JSON_FALSE);
    assert_int_equal(AT(root, "runs", "#0", "limited_by")->type, JSON_NULL);
    assert_string_equal(json_to_string(AT(root, "runs", "#1", "limited_by")), "server");
    assert_string_equal(json_to_string(AT(root, "runs", "#4", "time")), "2026-12-05T10:00:00Z");
    assert_float_equal(number_at(AT(root, "runs", "#4", "time_ms")), FIRST_MS + 4 * DAY_MS, 0);
    assert_float_equal(number_at(AT(root, "runs", "#4", "id")), 104, 0);
    assert_int_equal(AT(root, "changes")->n, 1);
    assert_string_equal(json_to_string(AT(root, "changes", "#0", "figure")), "p99");
    assert_float_equal(number_at(AT(root, "changes", "#0", "at_run")), CHANGE_RUN, 0);
    assert_float_equal(number_at(AT(root, "changes", "#0", "before")), 800, 0);
    assert_float_equal(number_at(AT(root, "changes", "#0", "after")), 960, 0);
    assert_float_equal(number_at(AT(root, "changes", "#0", "relative")), 0.2, 0);
    assert_float_equal(number_at(AT(root, "changes", "#0", "high")), 199.2, 0);
    assert_float_equal(number_at(AT(root, "changes", "#0", "p")), 0.005, 0);
    assert_int_equal(AT(root, "changes", "#0", "estimable")->type, JSON_TRUE);
    assert_string_equal(json_to_string(AT(root, "changes", "#0", "time")), "2026-12-07T10:00:00Z");
    assert_int_equal(AT(root, "needs")->n, 0);
    json_free(root);
    free(text);
    drop_series(s);
}

static void test_list_json(void **state)
{
    (void)state;
    struct history_series *s = make_series(NRUNS, true);
    struct history_series *t = make_series(3, false);
    struct history_series both[2] = {*s, *t};
    char *text = capture(W_LIST_JSON, both, 2);
    struct json_value *root = parse(text);
    assert_int_equal(AT(root, "series")->n, 2);
    assert_string_equal(json_to_string(AT(root, "series", "#0", "label")), hostile);
    assert_float_equal(number_at(AT(root, "series", "#0", "runs")), NRUNS, 0);
    assert_float_equal(number_at(AT(root, "series", "#0", "latest", "p99")), 960, 0);
    assert_float_equal(number_at(AT(root, "series", "#0", "latest", "tps")), 100110, 0);
    assert_float_equal(number_at(AT(root, "series", "#0", "changes")), 1, 0);
    assert_float_equal(number_at(AT(root, "series", "#1", "changes")), 0, 0);
    assert_string_equal(json_to_string(AT(root, "series", "#1", "last")), "2026-12-03T10:00:00Z");
    json_free(root);
    free(text);
    char *one = capture(W_SERIES_JSON, t, 0);
    root = parse(one);
    assert_float_equal(number_at(AT(root, "needs", "p99")), 8, 0);
    assert_int_equal(AT(root, "needs")->n, 3);
    json_free(root);
    free(one);
    drop_series(s);
    drop_series(t);
}

/* Hostile bytes everywhere a string goes, keys too: the document still parses, and strings of
 * valid UTF-8 read back as they were. */
static void test_json_hostile(void **state)
{
    (void)state;
    struct history_series *s = make_series(NRUNS, true);
    snprintf(s->figures[0].name, sizeof(s->figures[0].name), "t\"p\\s\x01\xff");
    snprintf(s->workload, sizeof(s->workload), "\\\"\n\t\x7f\xc3\xa9");
    char *text = capture(W_SERIES_JSON, s, 0);
    struct json_value *root = parse(text);
    assert_string_equal(json_to_string(AT(root, "workload")), "\\\"\n\t\x7f\xc3\xa9");
    assert_int_equal(AT(root, "runs", "#0", "figures")->n, 3);
    json_free(root);
    free(text);
    text = capture(W_LIST_JSON, s, 1);
    root = parse(text);
    json_free(root);
    free(text);
    drop_series(s);
}

/* ---- CSV ------------------------------------------------------------------------------ */

#define CSV_LABEL "\"x'; DROP TABLE runs; --\\x01\"\"<>&\""

static void test_csv(void **state)
{
    (void)state;
    struct history_series *s = make_series(NRUNS, true);
    s->figures[0].values[9].value = 0.1 + 0.2; /* read back exactly */
    s->runs[5].exit_status = 3;
    snprintf(s->runs[7].host, sizeof(s->runs[7].host), "a,b");
    char *text = capture(W_CSV, s, 0);
    assert_int_equal(count_of(text, "\n"), NRUNS + 1);
    assert_true(strncmp(text,
                        "time,run,host,label,version,kind,exit,limited_by,steady,tps,p50,p99\n",
                        68) == 0);
    assert_contains(text, "\n2026-12-01T10:00:00Z,100,bench1," CSV_LABEL
                          ",1.4.0,run,0,,yes,100000,250,800\n");
    assert_contains(text, "\n2026-12-02T10:00:00Z,101,h\\x1b[31mred\\xff," CSV_LABEL
                          ",1.4.0,run,0,server,yes,100010,250,800\n");
    assert_contains(text, "\n2026-12-03T10:00:00Z,102,bench1," CSV_LABEL
                          ",1.4.0,run,0,,,100020,250,800\n");
    assert_contains(text, "\n2026-12-04T10:00:00Z,103,bench1," CSV_LABEL
                          ",1.4.0,run,0,server,yes,100030,,800\n");
    assert_contains(text, ",run,3,server,no,100050,250,800\n");
    assert_contains(text, ",107,\"a,b\"," CSV_LABEL ",1.4.0,run,0,server,yes,100070,250,960\n");
    assert_contains(text, ",0.30000000000000004,250,960\n");
    free(text);
    drop_series(s);
}

/* ---- SVG ------------------------------------------------------------------------------ */

/* An XML name at *p (letters, digits, '-', ':', '_', '.'), moved past; false when none. */
static bool xml_name(const char **p)
{
    const char *start = *p;
    while (**p != '\0' && (strchr("-:_.", **p) != NULL || (**p >= 'a' && **p <= 'z') ||
                           (**p >= 'A' && **p <= 'Z') || (**p >= '0' && **p <= '9'))) {
        (*p)++;
    }
    return *p > start;
}

/* Text or an attribute's value up to stop: no '<', every '&' one of the five entities. */
static bool xml_chars(const char **p, char stop)
{
    static const char *const entities[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (; **p != stop; (*p)++) {
        if (**p == '\0') {
            return stop == '<'; /* the document's end, after its last element */
        }
        if (**p == '<') {
            return false;
        }
        bool known = **p != '&';
        for (size_t i = 0; !known && i < SLAP_ARRAY_SIZE(entities); i++) {
            known = strncmp(*p, entities[i], strlen(entities[i])) == 0;
        }
        if (!known) {
            return false;
        }
    }
    return true;
}

/* A start tag's attributes and its end at *p (after its name): name="value" pairs, then '>'
 * or "/>". */
static bool xml_attributes(const char **p, bool *empty)
{
    for (;;) {
        while (**p == ' ' || **p == '\n') {
            (*p)++;
        }
        if (**p == '>' || strncmp(*p, "/>", 2) == 0) {
            *empty = **p == '/';
            *p += *empty ? 2 : 1;
            return true;
        }
        if (!xml_name(p) || strncmp(*p, "=\"", 2) != 0) {
            return false;
        }
        *p += 2;
        if (!xml_chars(p, '"')) {
            return false;
        }
        (*p)++;
    }
}

/* A small well-formedness check: one declaration, elements nested and closed by their names,
 * attributes quoted, text and values without a raw '<' or a stray '&'. */
static void assert_well_formed(const char *text)
{
    const char *stack[64];
    size_t depth = 0, roots = 0;
    const char *p = text;
    assert_true(strncmp(p, "<?xml ", 6) == 0);
    p = strstr(p, "?>") + 2;
    while (*p != '\0') {
        assert_true(xml_chars(&p, '<'));
        if (*p == '\0') {
            break;
        }
        p++;
        bool closing = *p == '/';
        p += closing;
        const char *name = p;
        assert_true(xml_name(&p));
        size_t len = (size_t)(p - name);
        if (closing) {
            assert_true(depth > 0);
            depth--;
            const char *open = stack[depth];
            assert_true(xml_name(&open));
            assert_true((size_t)(open - stack[depth]) == len &&
                        strncmp(stack[depth], name, len) == 0);
            assert_int_equal(*p, '>');
            p++;
            continue;
        }
        bool empty = false;
        assert_true(xml_attributes(&p, &empty));
        roots += depth == 0;
        if (!empty) {
            assert_true(depth < SLAP_ARRAY_SIZE(stack));
            stack[depth++] = name;
        }
    }
    assert_int_equal(depth, 0);
    assert_int_equal(roots, 1);
}

static void test_svg(void **state)
{
    (void)state;
    struct history_series *s = make_series(NRUNS, true);
    char *text = capture(W_SVG, s, 0);
    assert_well_formed(text);
    assert_int_equal(count_of(text, "<g class=\"panel\""), 3);
    assert_contains(text, "<g class=\"panel\" data-figure=\"p99\">");
    assert_int_equal(count_of(text, "<g class=\"change\""), 1);
    assert_contains(text, "<g class=\"change\" data-run=\"7\" data-before=\"800\" "
                          "data-after=\"960\">");
    assert_contains(text, ">+20.0%</text>");
    /* p99's two levels, and each run's value: p50 has 11 (run 4's is missing) */
    assert_int_equal(count_of(text, "<line class=\"level\""), 2);
    assert_int_equal(count_of(text, "<circle "), 3 * NRUNS - 1);
    assert_int_equal(count_of(text, "<line class=\"interval\""), NRUNS - 1);
    assert_contains(text, "x'; DROP TABLE runs; --\\x01&quot;&lt;&gt;&amp; (series 3fa2c1d0e9b8");
    assert_null(strstr(text, "<>&"));
    assert_null(strstr(text, "nan"));
    assert_null(strstr(text, "inf"));
    free(text);
    drop_series(s);
}

/* One run, or every value the same, or nothing at all: still a picture, no NaN in it. */
static void test_svg_degenerate(void **state)
{
    (void)state;
    for (size_t n = 1; n <= 3; n++) {
        struct history_series *s = make_series(n, false);
        for (size_t r = 0; r < n; r++) {
            s->figures[0].values[r] = (struct history_value){5000, 5000, 5000};
        }
        char *text = capture(W_SVG, s, 0);
        assert_well_formed(text);
        assert_int_equal(count_of(text, "<g class=\"panel\""), 3);
        assert_int_equal(count_of(text, "<circle "), 3 * n);
        assert_contains(text, "needs 8 runs to judge, has ");
        assert_null(strstr(text, "nan"));
        assert_null(strstr(text, "inf"));
        free(text);
        for (size_t r = 0; r < n; r++) { /* errors: 0 every time */
            s->figures[0].values[r] = (struct history_value){0, NAN, NAN};
        }
        text = capture(W_SVG, s, 0);
        assert_well_formed(text);
        assert_int_equal(count_of(text, "<circle "), 3 * n);
        assert_null(strstr(text, "nan"));
        assert_null(strstr(text, "inf"));
        free(text);
        for (size_t f = 0; f < s->nfigures; f++) {
            for (size_t r = 0; r < n; r++) {
                s->figures[f].values[r] = (struct history_value){NAN, NAN, NAN};
            }
        }
        text = capture(W_SVG, s, 0);
        assert_well_formed(text);
        assert_null(strstr(text, "<circle "));
        assert_null(strstr(text, "nan"));
        free(text);
        drop_series(s);
    }
    struct history_series empty = {.id = "000000000000"};
    char *text = capture(W_SVG, &empty, 0);
    assert_well_formed(text);
    assert_contains(text, "No figures to draw");
    free(text);
    text = capture(W_SERIES, &empty, 0);
    assert_contains(text, "0 runs from 1970-01-01T00:00:00Z");
    free(text);
    text = capture(W_LIST, &empty, 1);
    assert_contains(text, "  none\n");
    free(text);
}

/* Without at, a change's run is found among the values that are not NaN. */
static void test_change_run_without_at(void **state)
{
    (void)state;
    struct history_series *s = make_series(NRUNS, true);
    struct history_figure *p50 = &s->figures[1];
    p50->changes.n = 1;
    p50->changes.points = calloc(1, sizeof(*p50->changes.points));
    assert_non_null(p50->changes.points);
    p50->changes.points[0].at = 5; /* the sixth value present: run 4's is missing */
    assert_int_equal(history_change_run(p50, s->nruns, 0), 6);
    assert_int_equal(history_change_run(&s->figures[2], s->nruns, 0), CHANGE_RUN - 1);
    drop_series(s);
}

/* A change marked as perhaps the host's: "host?" on its line, the footnote once, "(host?)" in
 * the list, and "host": true in the JSON; unmarked, none of them. */
static void test_change_marked_host(void **state)
{
    (void)state;
    struct history_series *s = make_series(NRUNS, true);
    struct history_figure *p99 = NULL;
    for (size_t f = 0; f < s->nfigures; f++) {
        p99 = strcmp(s->figures[f].name, "p99") == 0 ? &s->figures[f] : p99;
    }
    assert_non_null(p99);
    char *plain = capture(W_SERIES, s, 0);
    assert_null(strstr(plain, "host?"));
    free(plain);
    p99->host = calloc(1, sizeof(*p99->host));
    assert_non_null(p99->host);
    p99->host[0] = true;
    char *text = capture(W_SERIES, s, 0);
    char *change = line_with(text, "  p99     #7");
    assert_contains(change, "p=0.005  host?");
    assert_contains(text, "\nhost?: most runs on a side of it were limited by slap's own host");
    char *list = capture(W_LIST, s, 1);
    assert_contains(list, "p99 +20.0% at run 7 (host?)");
    char *json = capture(W_SERIES_JSON, s, 0);
    struct json_value *root = parse(json);
    assert_int_equal(AT(root, "changes", "#0", "host")->type, JSON_TRUE);
    json_free(root);
    free(json);
    free(list);
    free(change);
    free(text);
    drop_series(s);
}

/* A change from 0 (errors appearing) has no relative size: "-" and no interval in the table,
 * "from 0" in the list, never "+0.0%". */
static void test_change_from_zero(void **state)
{
    (void)state;
    struct history_series *s = make_series(NRUNS, true);
    struct change_point *c = &s->figures[2].changes.points[0];
    c->before = 0;
    c->after = 12;
    c->relative = 0;
    c->shift = 12;
    c->low = 10;
    c->high = 14;
    char *text = capture(W_SERIES, s, 0);
    char *change = line_with(text, "  p99     #7");
    assert_contains(change, "0.0us     12.0us        -  no interval");
    assert_null(strstr(text, "+0.0%"));
    char *list = capture(W_LIST, s, 1);
    assert_contains(list, "p99 from 0 at run 7");
    free(list);
    free(change);
    free(text);
    drop_series(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time),
        cmocka_unit_test(test_list_text),
        cmocka_unit_test(test_list_none),
        cmocka_unit_test(test_series_text),
        cmocka_unit_test(test_change_marked_host),
        cmocka_unit_test(test_change_from_zero),
        cmocka_unit_test(test_series_text_too_short),
        cmocka_unit_test(test_no_controls_anywhere),
        cmocka_unit_test(test_series_json),
        cmocka_unit_test(test_list_json),
        cmocka_unit_test(test_json_hostile),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_svg),
        cmocka_unit_test(test_svg_degenerate),
        cmocka_unit_test(test_change_run_without_at),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
