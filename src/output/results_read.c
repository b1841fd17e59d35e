/* Results documents read back (strictly: a file slap did not write is refused), whole or a
 * period at a time. Merging them is in results_merge.c. */
#include "slap/output/results_read.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "slap/base/json.h"
#include "slap/base/quote.h"
#include "slap/output/results.h"

#include "results_reader.h"
#include "results_split.h"

#define READ_ERR_MAX 512
#define SECONDS_SLACK 0.01 /* the periods' ends may pass the run's seconds by 1% and 10 ms */

/* The document's "config", read back into its description by read_config. */
static enum slap_status read_config_object(const struct json_value *config,
                                           results_config_reader read_config, struct results_doc *d,
                                           char *err, size_t err_len)
{
    if (config == NULL || config->type != JSON_OBJECT) {
        snprintf(err, err_len, "no \"config\" object");
        return SLAP_ERROR;
    }
    run_desc_free(&d->desc);
    return read_config(config, &d->desc, err, err_len);
}

/* ---- members -------------------------------------------------------------------------- */

/* [[index, count], ...] with indexes increasing below limit and counts up to RESULTS_COUNT_MAX,
 * into dense; the counts' sum into *sum (false when it passes RESULTS_COUNT_MAX). */
static void read_pairs(struct reader *r, const char *key, const struct json_value *pairs,
                       size_t limit, uint64_t *dense, uint64_t *sum)
{
    uint64_t last = 0;
    *sum = 0;
    for (size_t i = 0; pairs != NULL && i < pairs->n && !r->failed; i++) {
        const struct json_value *p = pairs->items[i];
        uint64_t index, count;
        if (p->type != JSON_ARRAY || p->n != 2 || !json_to_u64(p->items[0], &index) ||
            !json_to_u64(p->items[1], &count) || index >= limit || (i > 0 && index <= last)) {
            reader_bad(r, key, "a bucket is not [index, count] with increasing indexes in range");
            return;
        }
        if (count > RESULTS_COUNT_MAX - *sum) {
            reader_bad(r, key, "the counts add up to more than 2^53");
            return;
        }
        dense[index] = count;
        *sum += count;
        last = index;
    }
}

/* Do the sums hold what count values from min_ns to max_ns can add up to? (Rounding of the
 * running sums allowed for.) */
static void check_sums(struct reader *r, const struct hist *h)
{
    const double slack = 1e-4;
    double n = (double)h->count;
    double lo = h->count > 0 ? (double)h->min_ns / 1000.0 : 0.0;
    double hi = (double)h->max_ns / 1000.0;
    if (h->sum_us < n * lo * (1 - slack) || h->sum_us > n * hi * (1 + slack)) {
        reader_bad(r, "sum_us", "not what count latencies from min_ns to max_ns add up to");
    } else if (h->sumsq_us < n * lo * lo * (1 - slack) || h->sumsq_us > n * hi * hi * (1 + slack)) {
        reader_bad(r, "sumsq_us", "not what count latencies from min_ns to max_ns add up to");
    }
}

/* Are h's counts all between min_ns's bucket and max_ns's, as hist.h holds every histogram? */
static bool buckets_within(const struct hist *h)
{
    size_t lo = h->count > 0 ? hist_bucket_index(h->min_ns) : HIST_BUCKETS;
    size_t hi = h->count > 0 ? hist_bucket_index(h->max_ns) : 0;
    for (size_t i = 0; i < HIST_BUCKETS; i++) {
        if (h->buckets[i] != 0 && (i < lo || i > hi)) {
            return false;
        }
    }
    return true;
}

/* A histogram object into h (empty first): its counts must add up, its bounds and sums hold. */
static void read_hist(struct reader *r, const struct json_value *obj, struct hist *h)
{
    uint64_t sum = 0, log2_sum = 0;
    hist_reset(h);
    if (obj == NULL || obj->type != JSON_OBJECT) {
        reader_bad(r, "hist", "missing, or not an object");
        return;
    }
    reader_check(r, &results_obj_hist, obj, "hist", false);
    h->count = reader_u64(r, obj, "count");
    h->min_ns = h->count ? reader_u64(r, obj, "min_ns") : UINT64_MAX;
    h->max_ns = reader_u64(r, obj, "max_ns");
    h->sum_us = reader_double_max(r, obj, "sum_us", HUGE_VAL);
    h->sumsq_us = reader_double_max(r, obj, "sumsq_us", HUGE_VAL);
    (void)reader_double_max(r, obj, "sumlog_us", HUGE_VAL); /* the geometric mean: from buckets */
    read_pairs(r, "buckets", reader_typed(r, obj, "buckets", JSON_ARRAY), HIST_BUCKETS, h->buckets,
               &sum);
    const struct json_value *log2 = json_get(obj, "log2_us");
    if (log2 != NULL) {
        read_pairs(r, "log2_us", log2->type == JSON_ARRAY ? log2 : NULL, HIST_LOG2_BUCKETS,
                   h->log2_us, &log2_sum);
    }
    if (!r->failed && (sum != h->count || (h->count > 0 && h->min_ns > h->max_ns))) {
        reader_bad(r, "hist", "its buckets do not add up to its count, or min is above max");
    }
    if (!r->failed && !buckets_within(h)) {
        reader_bad(r, "hist", "a bucket lies outside min_ns..max_ns");
    }
    if (!r->failed) {
        check_sums(r, h);
    }
}

/* A type's bytes written and read. Files of schema 1 before 315d188 kept them as the counters
 * net_get_bytes and net_set_bytes (gets and sets were then the only types: another's is 0). */
static uint64_t read_net_bytes(struct reader *r, const struct json_value *type,
                               const struct json_value *counters, int t)
{
    if (json_get(type, "net_bytes") != NULL ||
        results_field_due(&results_obj_type, "net_bytes", r->schema) || counters == NULL) {
        return reader_u64(r, type, "net_bytes");
    }
    if (t == STATS_GET || t == STATS_SET) {
        return reader_u64(r, counters, t == STATS_GET ? "net_get_bytes" : "net_set_bytes");
    }
    return 0;
}

/* Every type of "types" (object of name -> {hist, net_bytes, misses}) into view (every type
 * kept), and their bytes and misses unless NULL (counters: the object's, for older files' bytes);
 * an unknown type is an error. */
static void read_types(struct reader *r, const struct json_value *types, struct hist *const *view,
                       uint64_t *net_bytes, uint64_t *misses, const struct json_value *counters)
{
    const struct results_object *o = net_bytes != NULL ? &results_obj_type : &results_obj_summary;
    for (size_t i = 0; types != NULL && i < types->n && !r->failed; i++) {
        int t = 0;
        while (t <= STATS_TYPES && strcmp(stats_type_name(t), types->keys[i]) != 0) {
            t++;
        }
        if (t > STATS_TYPES) {
            reader_bad(r, types->keys[i], "unknown request type (written by a newer slap?)");
        } else if (t == STATS_TYPES) {
            reader_check(r, o, types->items[i], types->keys[i], false);
        } else {
            size_t where = reader_where_push(r, types->keys[i]);
            reader_check(r, o, types->items[i], NULL, false);
            read_hist(r, json_get(types->items[i], "hist"), view[t]);
            if (net_bytes != NULL) {
                net_bytes[t] = read_net_bytes(r, types->items[i], counters, t);
                misses[t] = reader_u64(r, types->items[i], "misses");
            }
            reader_where_pop(r, where);
        }
    }
}

/* A counter: a whole number; absent in a file older than the counter (since above its schema)
 * or null (a merge of such a file), not known: 0, and its bit set in *unknown unless NULL. */
static uint64_t read_counter(struct reader *r, const struct json_value *obj, const char *name,
                             unsigned since, int index, uint64_t *unknown)
{
    const struct json_value *v = json_get(obj, name);
    if (since > 1 && ((v == NULL && since > r->schema) || (v != NULL && v->type == JSON_NULL))) {
        if (unknown != NULL) {
            *unknown |= 1ULL << index;
        }
        return 0;
    }
    return reader_u64(r, obj, name);
}

static void read_counters(struct reader *r, const struct json_value *obj, struct slap_counters *c,
                          uint64_t *unknown)
{
    if (obj == NULL || obj->type != JSON_OBJECT) {
        reader_bad(r, "counters", "missing, or not an object");
        return;
    }
#define SLAP_COUNTER_READ(name, show, since, meaning)                                              \
    c->name = read_counter(r, obj, #name, since, RESULTS_COUNTER_##name, unknown);
    SLAP_COUNTERS(SLAP_COUNTER_READ)
#undef SLAP_COUNTER_READ
}

/* A step's verdict and its objectives' (when known), and whether a signal cut it short. */
static void read_step_marks(struct reader *r, const struct json_value *item,
                            struct results_step *step)
{
    const char *limited_by = json_to_string(json_get(item, "limited_by"));
    const char *slo = json_to_string(json_get(item, "slo"));
    const struct json_value *interrupted = json_get(item, "interrupted");
    enum limits_verdict verdict;
    if (interrupted != NULL) {
        if (interrupted->type != JSON_TRUE && interrupted->type != JSON_FALSE) {
            reader_bad(r, "interrupted", "not true or false");
        }
        step->interrupted = interrupted->type == JSON_TRUE;
    }
    if (limited_by != NULL) {
        if (!limits_verdict_parse(limited_by, &verdict) && strcmp(limited_by, "mixed") != 0) {
            reader_bad(r, "limited_by", "not a verdict slap gives");
        }
        snprintf(step->limited_by, sizeof(step->limited_by), "%s", limited_by);
    }
    if (slo != NULL) {
        if (strcmp(slo, "held") != 0 && strcmp(slo, "broken") != 0 &&
            strcmp(slo, "undecided") != 0) {
            reader_bad(r, "slo", "not held, broken or undecided");
        }
        snprintf(step->slo, sizeof(step->slo), "%s", slo);
    }
}

static const char *const item_list[] = {"periods", "steps", "rounds"};

/* s, read from an item, appended to d as its kind (when: its end, or a step's target rate). */
static enum slap_status add_item(struct results_doc *d, enum item_kind kind, double when,
                                 double seconds, const struct slap_stats *s)
{
    switch (kind) {
    case ITEM_STEP:
        return results_add_step(d, when, seconds, s);
    case ITEM_ROUND:
        return results_add_to_round(d, d->rounds.n, when, seconds, s);
    case ITEM_PERIOD:
    case ITEM_KINDS:
        break;
    }
    return results_add_period(d, when, seconds, s);
}

/* The requests of s, every type. */
static uint64_t requests_of(struct hist *const *lat)
{
    uint64_t n = 0;
    for (int t = 0; t < STATS_TYPES; t++) {
        n += lat[t] != NULL ? lat[t]->count : 0;
    }
    return n;
}

/* A period or round ends after the one before it (they are paired by position), and one that
 * holds requests lasted some time; what it holds is added to what the list has seen. */
static void check_item(struct reader *r, enum item_kind kind, double when, double seconds,
                       const struct slap_stats *s)
{
    struct list_seen *seen = &r->seen[kind];
    if (seconds <= 0.0 && requests_of(s->lat) > 0) {
        reader_bad(r, "seconds", "0 for requests made: no time, no rate");
    } else if (kind != ITEM_STEP && seen->n > 0 && !(when > seen->last_elapsed)) {
        char why[96];
        snprintf(why, sizeof(why), "%g is not after the %s before it (%g): out of order", when,
                 kind == ITEM_ROUND ? "round" : "period", seen->last_elapsed);
        reader_bad(r, "elapsed_s", why);
    }
    seen->n++;
    seen->last_elapsed = when;
    for (int t = 0; t < STATS_TYPES; t++) {
        seen->counts[t] += s->lat[t]->count;
    }
}

/* Period (step, round) i: into s, then appended to d. */
static void read_item(struct reader *r, const struct json_value *item, struct results_doc *d,
                      enum item_kind kind, size_t i, struct slap_stats *s)
{
    char name[32];
    snprintf(name, sizeof(name), "%s[%zu]", item_list[kind], i);
    size_t where = reader_where_push(r, name);
    static const struct results_object *const tables[] = {&results_obj_period, &results_obj_step,
                                                          &results_obj_round};
    reader_check(r, tables[kind], item, NULL, false);
    stats_reset(s);
    read_counters(r, json_get(item, "counters"), &s->counters, NULL);
    read_types(r, reader_typed(r, item, "types", JSON_OBJECT), s->lat, s->net_bytes, s->misses,
               json_get(item, "counters"));
    double seconds = reader_double(r, item, "seconds");
    double when = reader_double(r, item, kind == ITEM_STEP ? "target_tps" : "elapsed_s");
    enum slap_status st = SLAP_ERROR;
    if (!r->failed) {
        check_item(r, kind, when, seconds, s);
    }
    if (!r->failed) {
        st = add_item(d, kind, when, seconds, s);
        if (st != SLAP_OK) {
            reader_bad(r, item_list[kind], "out of memory, or too many");
        }
    }
    if (st == SLAP_OK && kind == ITEM_STEP) {
        struct results_step *step = &((struct results_step *)d->steps.items)[d->steps.n - 1];
        read_step_marks(r, item, step);
        reader_step_limits(r, item, step);
    }
    reader_where_pop(r, where);
}

/* A slap_stats of every type (NULL when out of memory); free_scratch releases it. */
static struct slap_stats *new_scratch(void)
{
    struct slap_stats *s = malloc(sizeof(*s));
    if (s != NULL && stats_init(s, &stats_shape_all) != SLAP_OK) {
        free(s);
        s = NULL;
    }
    return s;
}

static void free_scratch(struct slap_stats *s)
{
    if (s != NULL) {
        stats_free(s);
    }
    free(s);
}

/* Periods, steps or rounds: one slap_stats each, handed to add. */
static void read_items(struct reader *r, const struct json_value *list, struct results_doc *d,
                       enum item_kind kind)
{
    struct slap_stats *s = new_scratch();
    for (size_t i = 0; s != NULL && list != NULL && i < list->n && !r->failed; i++) {
        read_item(r, list->items[i], d, kind, i, s);
    }
    if (s == NULL) {
        reader_bad(r, "document", "out of memory");
    }
    free_scratch(s);
}

static int signal_number(const char *name)
{
    if (name == NULL) {
        return 0;
    }
    return strcmp(name, "SIGINT") == 0 ? SIGINT : strcmp(name, "SIGHUP") == 0 ? SIGHUP : SIGTERM;
}

/* list's requests of each type (seen) against the run's: what is wrong into r. */
static void check_list_sums(struct reader *r, const char *list, const struct list_seen *seen,
                            const struct results_doc *d)
{
    for (int t = 0; t < STATS_TYPES && !r->failed; t++) {
        uint64_t run = d->global->lat[t]->count;
        char why[160];
        if (seen->counts[t] != run && seen->n == 0) {
            snprintf(why, sizeof(why), "none, beside the run's %llu %s requests",
                     (unsigned long long)run, stats_type_name(t));
            reader_bad(r, list, why);
        } else if (seen->counts[t] != run) {
            snprintf(why, sizeof(why),
                     "%zu of them holding %llu %s requests, where the run's types say %llu",
                     seen->n, (unsigned long long)seen->counts[t], stats_type_name(t),
                     (unsigned long long)run);
            reader_bad(r, list, why);
        }
    }
}

/* The rounds of a --rounds run: as many as config.rounds (fewer when a signal cut the run
 * short), adding up to the run. */
static void check_rounds(struct reader *r, const struct results_doc *d)
{
    const struct run_config_entry *e = run_config_find(&d->desc.config, "rounds");
    unsigned long long want =
        e != NULL && e->kind != RUN_CONFIG_NULL ? strtoull(e->value, NULL, 10) : 1;
    size_t n = r->seen[ITEM_ROUND].n;
    if (n > want || (n < want && d->signal == 0)) {
        char why[128];
        snprintf(why, sizeof(why), "%zu rounds where config.rounds says %llu%s", n, want,
                 n < want ? " and no signal cut the run short" : "");
        reader_bad(r, "rounds", why);
    }
    check_list_sums(r, "rounds", &r->seen[ITEM_ROUND], d);
}

/* The rules across the document: a run with requests lasted some time, its periods add up to
 * it and end within it, its rounds are config.rounds' and add up to it. */
static void check_whole(struct reader *r, const struct json_value *root,
                        const struct results_doc *d)
{
    const struct list_seen *periods = &r->seen[ITEM_PERIOD];
    if (r->failed) {
        return;
    }
    if (d->seconds <= 0.0 && requests_of(d->global->lat) > 0) {
        reader_bad(r, "seconds", "0 for requests made: no time, no rate");
    } else if (!d->sweep && periods->n > 0 &&
               periods->last_elapsed > d->seconds * (1 + SECONDS_SLACK) + SECONDS_SLACK) {
        char why[128];
        snprintf(why, sizeof(why), "%g, shorter than the periods (the last ends at %g)", d->seconds,
                 periods->last_elapsed);
        reader_bad(r, "seconds", why);
    }
    if (!d->sweep) {
        check_list_sums(r, "periods", periods, d);
    }
    if (json_get(root, "rounds") != NULL) {
        check_rounds(r, d);
    }
}

/* The members of the top level, in the order results_write_json writes them. */
static void read_top(struct reader *r, const struct json_value *root, struct results_doc *d)
{
    const char *kind = json_to_string(json_get(root, "kind"));
    const char *label = json_to_string(json_get(root, "label"));
    if (kind == NULL || (strcmp(kind, "run") != 0 && strcmp(kind, "sweep") != 0)) {
        reader_bad(r, "kind", "missing, or neither \"run\" nor \"sweep\"");
    }
    const struct json_value *label_value = json_get(root, "label");
    if (label == NULL && label_value != NULL && label_value->type == JSON_STRING) {
        reader_bad(r, "label", "holds a NUL (\\u0000): not printable");
    } else if (label == NULL || !reader_printable(label)) {
        reader_bad(r, "label", "missing, empty, too long or not printable");
    }
    reader_check(r, &results_obj_top, root, NULL, false);
    if (r->failed) {
        return;
    }
    d->sweep = strcmp(kind, "sweep") == 0;
    snprintf(d->label, sizeof(d->label), "%s", label);
    d->start_ms = reader_u64(r, root, "start_ms");
    d->end_ms = reader_u64(r, root, "end_ms");
    reader_runs(r, json_get(root, "runs"), d);
    reader_probes(r, json_get(root, "probes"), d);
    reader_control(r, json_get(root, "control"), d);
    d->seconds = reader_double(r, root, "seconds");
    d->signal = signal_number(json_to_string(json_get(root, "signal")));
    d->exit_status = (int)reader_u64_max(r, root, "exit_status", 255);
    d->period_s = reader_double(r, root, "period_s");
    read_types(r, reader_typed(r, root, "types", JSON_OBJECT), d->global->lat, d->global->net_bytes,
               d->global->misses, json_get(root, "counters"));
    read_types(r, json_get(root, "uncorrected"), d->global->raw, NULL, NULL, NULL);
    const struct json_value *lag = json_get(root, "send_lag");
    if (lag != NULL) {
        read_hist(r, json_get(lag, "hist"), d->global->lag);
    }
    read_types(r, json_get(root, "late_to_send"), d->global->late, NULL, NULL, NULL);
    read_types(r, json_get(root, "held_by_server"), d->global->held, NULL, NULL, NULL);
    const struct json_value *tail = json_get(root, "slap_tail"); /* schema 3 */
    if (tail != NULL) {
        read_hist(r, json_get(tail, "hist"), d->global->slap_tail);
    }
    const struct json_value *own = json_get(root, "own_delay"); /* --timestamps=kernel */
    if (own != NULL) {
        read_hist(r, json_get(own, "hist"), d->global->own);
    }
    const struct json_value *connect = json_get(root, "connect_time"); /* reconnections */
    if (connect != NULL) {
        read_hist(r, json_get(connect, "hist"), d->global->connect);
    }
    reader_check(r, &results_obj_run_line, json_get(root, "run"), "run", false);
    reader_check(r, &results_obj_keys, json_get(json_get(root, "run"), "keys"), "run keys", false);
    reader_check(r, &results_obj_intervals, json_get(root, "percentile_intervals"),
                 "percentile_intervals", false);
    reader_check(r, &results_obj_errors, json_get(root, "errors"), "errors", false);
    reader_check(r, &results_obj_summary, lag, "send_lag", false);
    reader_check(r, &results_obj_summary, tail, "slap_tail", false);
    reader_check(r, &results_obj_summary, own, "own_delay", false);
    reader_check(r, &results_obj_summary, connect, "connect_time", false);
    const struct json_value *outcomes = reader_typed(r, root, "get_outcomes", JSON_OBJECT);
    reader_check(r, &results_obj_outcomes, outcomes, "get_outcomes", false);
    reader_check(r, &results_obj_summary, json_get(outcomes, "hit"), "get_outcomes hit", false);
    reader_check(r, &results_obj_summary, json_get(outcomes, "miss"), "get_outcomes miss", false);
    read_hist(r, json_get(json_get(outcomes, "hit"), "hist"), d->global->gets[STATS_HIT]);
    read_hist(r, json_get(json_get(outcomes, "miss"), "hist"), d->global->gets[STATS_MISS]);
    read_counters(r, json_get(root, "counters"), &d->global->counters, &d->counters_unknown);
    read_items(r, reader_typed(r, root, "periods", JSON_ARRAY), d, ITEM_PERIOD);
    read_items(r, reader_typed(r, root, "steps", JSON_ARRAY), d, ITEM_STEP);
    const struct json_value *rounds = json_get(root, "rounds"); /* --rounds only */
    if (rounds != NULL) {
        read_items(r, reader_typed(r, root, "rounds", JSON_ARRAY), d, ITEM_ROUND);
    }
    reader_servers(r, reader_typed(r, root, "servers", JSON_ARRAY), d);
    reader_limits(r, json_get(root, "limits"), d);
    reader_search(r, json_get(root, "search"), d);
    reader_check(r, &results_obj_trace, json_get(root, "trace"), "trace", false);
    reader_precision(r, json_get(root, "precision"), d);
    reader_fields(r, &results_obj_samples, json_get(root, "samples"), d, "samples");
    check_whole(r, root, d);
}

/* The document without its periods' elements (results_split's head) into d. */
static void read_head(struct reader *r, const char *text, size_t len,
                      results_config_reader read_config, struct results_doc *d)
{
    struct json_value *root = NULL;
    uint64_t schema = 0;
    if (json_parse(text, len, &root, r->err, r->err_len) != SLAP_OK) {
        r->failed = true;
        return;
    }
    bool numbered = root->type == JSON_OBJECT && json_to_u64(json_get(root, "schema"), &schema);
    r->schema = schema <= RESULTS_SCHEMA ? (unsigned)schema : 0;
    if (!numbered) {
        reader_bad(r, "schema", "not a slap results document (no \"schema\" number)");
    } else if (schema < 1 || schema > RESULTS_SCHEMA) {
        char why[128];
        snprintf(why, sizeof(why), "version %llu; this slap reads versions 1 to %d%s",
                 (unsigned long long)schema, RESULTS_SCHEMA,
                 schema > RESULTS_SCHEMA ? " (a newer slap wrote it)" : "");
        reader_bad(r, "schema", why);
    } else if (read_config_object(json_get(root, "config"), read_config, d, r->err, r->err_len) !=
               SLAP_OK) {
        r->failed = true;
    } else {
        read_top(r, root, d);
    }
    json_free(root);
}

/* A document read a period at a time. */
struct results_stream {
    struct reader r;
    char why[READ_ERR_MAX + 128]; /* what r says went wrong */
    FILE *in;                     /* owned when path is not NULL */
    const char *path;             /* the file's name, or NULL (a text given) */
    struct results_split *split;
    struct results_doc *d;             /* the document: its head, and its periods when keep */
    results_config_reader read_config; /* how its "config" reads back */
    struct results_doc one;            /* not keep: the last period read (its periods list only) */
    bool keep;                         /* the periods appended to d */
    size_t stride; /* keep: the file's periods in each of d's (RESULTS_KEEP_PERIODS) */
    size_t fill;   /* keep: the file's periods in d's last */
    struct slap_stats *scratch;
};

/* Start reading in into d (initialised here, whatever the outcome); SLAP_ERROR when out of
 * memory. */
static enum slap_status stream_start(struct results_stream *rs, FILE *in,
                                     results_config_reader read_config, struct results_doc *d,
                                     bool keep)
{
    rs->r = (struct reader){.err = rs->why, .err_len = sizeof(rs->why)};
    rs->in = in;
    rs->read_config = read_config;
    rs->d = d;
    rs->keep = keep;
    rs->stride = 1;
    rs->scratch = new_scratch();
    if (results_doc_init(d) != SLAP_OK || rs->scratch == NULL ||
        results_split_open(in, &rs->split) != SLAP_OK) {
        snprintf(rs->why, sizeof(rs->why), "out of memory");
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

static void stream_free(struct results_stream *rs)
{
    results_split_close(rs->split);
    free_scratch(rs->scratch);
    results_doc_free(&rs->one);
    if (rs->path != NULL && rs->in != NULL) {
        fclose(rs->in);
    }
    free(rs);
}

/* The period just read (rs->one's) kept in the document: appended, or joined to its last
 * when each of its periods holds stride of the file's; at RESULTS_KEEP_PERIODS, neighbours
 * are joined two by two and the stride doubles. */
static void keep_period(struct results_stream *rs)
{
    struct results_doc *d = rs->d;
    struct results_period *p = rs->one.periods.items;
    enum slap_status st = SLAP_OK;
    if (d->periods.n > 0 && rs->fill < rs->stride) {
        st = results_fold_into_last(d, p);
        rs->fill++;
    } else {
        if (d->periods.n == RESULTS_KEEP_PERIODS) {
            st = results_halve_periods(d);
            rs->stride *= 2;
        }
        st = st == SLAP_OK ? results_move_period(d, p) : st;
        rs->fill = 1;
    }
    if (st != SLAP_OK) {
        reader_bad(&rs->r, "periods", "out of memory");
    }
}

/* One period's text: parsed and read into rs->one, kept in the document when rs->keep, its
 * tree freed. */
static void read_period_text(struct results_stream *rs, const struct results_split_piece *piece)
{
    struct results_doc *to = &rs->one;
    struct json_value *item = NULL;
    char why[READ_ERR_MAX];
    if (json_parse(piece->text, piece->len, &item, why, sizeof(why)) != SLAP_OK) {
        snprintf(rs->why, sizeof(rs->why), "periods[%zu], from line %zu: %s", piece->index,
                 piece->line, why);
        rs->r.failed = true;
        return;
    }
    results_drop_periods(to);
    /* the fields a period must hold are its file's version's: "schema" came before it */
    unsigned schema = results_split_schema(rs->split);
    rs->r.schema = schema <= RESULTS_SCHEMA ? schema : 0;
    read_item(&rs->r, item, to, ITEM_PERIOD, piece->index, rs->scratch);
    json_free(item);
    if (rs->keep && !rs->r.failed && to->periods.n == 1) {
        keep_period(rs);
    }
}

/* What went wrong into err: "PATH: why" for a file. */
static enum slap_status stream_failed(struct results_stream *rs, char *err, size_t err_len)
{
    rs->r.failed = true;
    if (rs->path != NULL) {
        char shown[QUOTE_PATH_BUF];
        snprintf(err, err_len, "%s: %s", quote_name(shown, rs->path), rs->why);
    } else {
        snprintf(err, err_len, "%s", rs->why);
    }
    return SLAP_ERROR;
}

/* The next period (kept in the document when rs->keep), or the head at the end. */
static enum slap_status stream_next(struct results_stream *rs, const struct results_period **p,
                                    char *err, size_t err_len)
{
    struct results_split_piece piece;
    enum slap_status st =
        rs->r.failed ? SLAP_ERROR : results_split_next(rs->split, &piece, rs->why, sizeof(rs->why));
    if (st == SLAP_OK) {
        read_period_text(rs, &piece);
        const struct results_list *list = rs->keep ? &rs->d->periods : &rs->one.periods;
        if (rs->r.failed || list->n == 0) { /* a period that did not read: none to hand out */
            if (rs->why[0] == '\0') {
                snprintf(rs->why, sizeof(rs->why), "a period that does not read");
            }
            return stream_failed(rs, err, err_len);
        }
        *p = &((const struct results_period *)list->items)[list->n - 1];
        return SLAP_OK;
    }
    if (st == SLAP_AGAIN) {
        size_t len;
        const char *head = results_split_head(rs->split, &len);
        read_head(&rs->r, head, len, rs->read_config, rs->d);
        if (!rs->r.failed && rs->r.seen[ITEM_PERIOD].n > 0 &&
            results_split_schema(rs->split) != rs->r.schema) {
            reader_bad(&rs->r, "schema",
                       "after the periods (slap writes it first): not read as such");
        }
        if (rs->path != NULL && !rs->r.failed && (rs->d->source = strdup(rs->path)) == NULL) {
            reader_bad(&rs->r, "document", "out of memory");
        }
        return rs->r.failed ? stream_failed(rs, err, err_len) : SLAP_AGAIN;
    }
    return stream_failed(rs, err, err_len);
}

/* path opened for reading (name in messages): NULL with err saying why, a directory or a
 * socket too. */
static FILE *open_input(const char *path, const char *name, char *err, size_t err_len)
{
    struct stat st;
    bool found = stat(path, &st) == 0;
    FILE *in = NULL;
    char shown[QUOTE_PATH_BUF];
    if (found && (S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode))) {
        snprintf(err, err_len, "%s: %s, not a results file", quote_name(shown, name),
                 S_ISDIR(st.st_mode) ? "a directory" : "a socket");
    } else if ((in = fopen(path, "r")) == NULL) {
        snprintf(err, err_len, "cannot read %s: %s", quote_name(shown, name), strerror(errno));
    }
    return in;
}

enum slap_status results_stream_open(const char *path, const char *name,
                                     results_config_reader read_config, struct results_doc *d,
                                     struct results_stream **out, char *err, size_t err_len)
{
    struct results_stream *rs = calloc(1, sizeof(*rs));
    FILE *in = NULL;
    *out = NULL;
    memset(d, 0, sizeof(*d));
    if (rs == NULL) {
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    if ((in = open_input(path, name, err, err_len)) == NULL) {
        free(rs);
        return SLAP_ERROR;
    }
    rs->path = name;
    if (stream_start(rs, in, read_config, d, false) != SLAP_OK) {
        stream_failed(rs, err, err_len);
        stream_free(rs);
        return SLAP_ERROR;
    }
    *out = rs;
    return SLAP_OK;
}

enum slap_status results_stream_next(struct results_stream *rs, const struct results_period **p,
                                     char *err, size_t err_len)
{
    return stream_next(rs, p, err, err_len);
}

void results_stream_close(struct results_stream *rs)
{
    if (rs != NULL) {
        stream_free(rs);
    }
}

/* Every period of in kept in d, then the head: SLAP_OK when the whole document reads. */
static enum slap_status read_all(FILE *in, const char *path, results_config_reader read_config,
                                 struct results_doc *d, char *err, size_t err_len)
{
    struct results_stream *rs = calloc(1, sizeof(*rs));
    const struct results_period *p;
    enum slap_status st = SLAP_ERROR;
    if (rs == NULL) {
        (void)results_doc_init(d);
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    if (stream_start(rs, in, read_config, d, true) != SLAP_OK) {
        stream_failed(rs, err, err_len);
    } else {
        while ((st = stream_next(rs, &p, err, err_len)) == SLAP_OK) {
        }
    }
    if (path != NULL && d->source == NULL) {
        d->source = strdup(path);
    }
    stream_free(rs);
    return st == SLAP_AGAIN ? SLAP_OK : SLAP_ERROR;
}

enum slap_status results_parse(const char *text, size_t len, results_config_reader read_config,
                               struct results_doc *d, char *err, size_t err_len)
{
    struct reader r = {.err = err, .err_len = err_len};
    FILE *in = len > 0 ? fmemopen((void *)text, len, "r") : NULL;
    if (in == NULL) {
        if (results_doc_init(d) != SLAP_OK) {
            snprintf(err, err_len, "out of memory");
            return SLAP_ERROR;
        }
        /* nothing to split: json_parse says what is wrong */
        read_head(&r, text, len, read_config, d);
        return r.failed ? SLAP_ERROR : SLAP_OK;
    }
    enum slap_status st = read_all(in, NULL, read_config, d, err, err_len);
    fclose(in);
    return st;
}

enum slap_status results_read(const char *path, results_config_reader read_config,
                              struct results_doc *d, char *err, size_t err_len)
{
    char why[READ_ERR_MAX] = "";
    FILE *f = open_input(path, path, err, err_len);
    memset(d, 0, sizeof(*d));
    if (f == NULL) {
        return SLAP_ERROR;
    }
    enum slap_status st = read_all(f, path, read_config, d, why, sizeof(why));
    if (st == SLAP_OK && d->source == NULL) {
        snprintf(why, sizeof(why), "out of memory");
        st = SLAP_ERROR;
    }
    if (st != SLAP_OK) {
        char shown[QUOTE_PATH_BUF];
        snprintf(err, err_len, "%s: %s", quote_name(shown, path), why);
    }
    fclose(f);
    return st;
}
