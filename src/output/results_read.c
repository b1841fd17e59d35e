/* Results documents read back (strictly: a file slap did not write is refused), whole or a
 * period at a time. Merging them is in results_merge.c. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "slap/base/json.h"
#include "slap/output/results.h"
#include "slap/base/quote.h"

#include "results_fields.h"
#include "results_split.h"

#define READ_ERR_MAX 512
#define SECONDS_SLACK 0.01 /* the periods' ends may pass the run's seconds by 1% and 10 ms */

/* The document's "config", read back into its description by read_config. */
static enum slap_status read_config_object(const struct json_value *config,
                                           results_config_reader read_config,
                                           struct results_doc *d, char *err, size_t err_len)
{
    if (config == NULL || config->type != JSON_OBJECT) {
        snprintf(err, err_len, "no \"config\" object");
        return SLAP_ERROR;
    }
    run_desc_free(&d->desc);
    return read_config(config, &d->desc, err, err_len);
}

/* ---- members -------------------------------------------------------------------------- */

/* What an element of a list is: a period, a --sweep step or a --rounds round. */
enum item_kind { ITEM_PERIOD, ITEM_STEP, ITEM_ROUND, ITEM_KINDS };

/* What a list's elements add up to, for the rules across a document (check_whole). */
struct list_seen {
    size_t n;                     /* elements read */
    double last_elapsed;          /* the last one's end */
    uint64_t counts[STATS_TYPES]; /* their requests, per type */
};

struct reader {
    char *err;
    size_t err_len;
    bool failed;
    char where[64]; /* what is being read ("periods[3] get"), before the member's name */
    unsigned schema; /* the document's version: a field younger than it may be absent */
    struct list_seen seen[ITEM_KINDS];
};

static void bad(struct reader *r, const char *key, const char *what)
{
    if (!r->failed) {
        snprintf(r->err, r->err_len, "%s%s%s: %s", r->where, r->where[0] ? " " : "", key, what);
        r->failed = true;
    }
}

/* Say what is being read: text after what was said, until where_pop(r, the length returned). */
static size_t where_push(struct reader *r, const char *text)
{
    size_t len = strlen(r->where);
    snprintf(r->where + len, sizeof(r->where) - len, "%s%s", len > 0 ? " " : "", text);
    return len;
}

static void where_pop(struct reader *r, size_t len)
{
    r->where[len] = '\0';
}

/* obj (an object; else nothing to check) against its table for the file's version, named label
 * in messages (NULL: what is being read already says). variant: its RF_WHEN fields are due. */
static void check_fields(struct reader *r, const struct results_object *o,
                         const struct json_value *obj, const char *label, bool variant)
{
    const char *name, *why;
    if (r->failed || obj == NULL || obj->type != JSON_OBJECT) {
        return;
    }
    if (!results_fields_check(o, obj, r->schema, variant, &name, &why)) {
        size_t where = label != NULL ? where_push(r, label) : strlen(r->where);
        bad(r, name, why);
        where_pop(r, where);
    }
}

/* o's fields, the table-driven ones read into base (results_fields_read), named label. */
static void read_fields(struct reader *r, const struct results_object *o,
                        const struct json_value *obj, void *base, const char *label)
{
    const char *name, *why;
    if (r->failed) {
        return;
    }
    if (obj == NULL || obj->type != JSON_OBJECT) {
        bad(r, label, "missing, or not an object");
        return;
    }
    size_t where = where_push(r, label);
    if (!results_fields_read(o, obj, base, r->schema, false, &name, &why)) {
        bad(r, name, why);
    }
    where_pop(r, where);
}

/* A whole number up to max. */
static uint64_t get_u64_max(struct reader *r, const struct json_value *obj, const char *key,
                            uint64_t max)
{
    uint64_t value = 0;
    if (!json_to_u64(json_get(obj, key), &value)) {
        bad(r, key, "missing, or not a whole number");
    } else if (value > max) {
        char why[64];
        snprintf(why, sizeof(why), "%llu is above %llu", (unsigned long long)value,
                 (unsigned long long)max);
        bad(r, key, why);
        value = 0;
    }
    return value;
}

/* A count, bytes or nanoseconds: a whole number up to RESULTS_COUNT_MAX. */
static uint64_t get_u64(struct reader *r, const struct json_value *obj, const char *key)
{
    return get_u64_max(r, obj, key, RESULTS_COUNT_MAX);
}

/* A number from 0 to max (a sum: the finite numbers). */
static double get_double_max(struct reader *r, const struct json_value *obj, const char *key,
                             double max)
{
    double value = 0.0;
    if (!json_to_double(json_get(obj, key), &value)) {
        bad(r, key, "missing, or not a finite number");
    } else if (!(value >= 0.0 && value <= max)) {
        bad(r, key, max == RESULTS_COUNT_MAX ? "not a number from 0 to 2^53" : "negative");
        value = 0.0;
    }
    return value;
}

/* Seconds, shares, rates, servers' figures: from 0 to 2^53. */
static double get_double(struct reader *r, const struct json_value *obj, const char *key)
{
    return get_double_max(r, obj, key, (double)RESULTS_COUNT_MAX);
}

static const struct json_value *get_typed(struct reader *r, const struct json_value *obj,
                                          const char *key, enum json_type type)
{
    const struct json_value *v = json_get(obj, key);
    if (v == NULL || v->type != type) {
        bad(r, key, type == JSON_ARRAY ? "missing, or not an array" : "missing, or not an object");
        return NULL;
    }
    return v;
}

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
            bad(r, key, "a bucket is not [index, count] with increasing indexes in range");
            return;
        }
        if (count > RESULTS_COUNT_MAX - *sum) {
            bad(r, key, "the counts add up to more than 2^53");
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
        bad(r, "sum_us", "not what count latencies from min_ns to max_ns add up to");
    } else if (h->sumsq_us < n * lo * lo * (1 - slack) || h->sumsq_us > n * hi * hi * (1 + slack)) {
        bad(r, "sumsq_us", "not what count latencies from min_ns to max_ns add up to");
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
        bad(r, "hist", "missing, or not an object");
        return;
    }
    check_fields(r, &results_obj_hist, obj, "hist", false);
    h->count = get_u64(r, obj, "count");
    h->min_ns = h->count ? get_u64(r, obj, "min_ns") : UINT64_MAX;
    h->max_ns = get_u64(r, obj, "max_ns");
    h->sum_us = get_double_max(r, obj, "sum_us", HUGE_VAL);
    h->sumsq_us = get_double_max(r, obj, "sumsq_us", HUGE_VAL);
    (void)get_double_max(r, obj, "sumlog_us", HUGE_VAL); /* the geometric mean: from buckets */
    read_pairs(r, "buckets", get_typed(r, obj, "buckets", JSON_ARRAY), HIST_BUCKETS, h->buckets,
               &sum);
    const struct json_value *log2 = json_get(obj, "log2_us");
    if (log2 != NULL) {
        read_pairs(r, "log2_us", log2->type == JSON_ARRAY ? log2 : NULL, HIST_LOG2_BUCKETS,
                   h->log2_us, &log2_sum);
    }
    if (!r->failed && (sum != h->count || (h->count > 0 && h->min_ns > h->max_ns))) {
        bad(r, "hist", "its buckets do not add up to its count, or min is above max");
    }
    if (!r->failed && !buckets_within(h)) {
        bad(r, "hist", "a bucket lies outside min_ns..max_ns");
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
        return get_u64(r, type, "net_bytes");
    }
    if (t == STATS_GET || t == STATS_SET) {
        return get_u64(r, counters, t == STATS_GET ? "net_get_bytes" : "net_set_bytes");
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
            bad(r, types->keys[i], "unknown request type (written by a newer slap?)");
        } else if (t == STATS_TYPES) {
            check_fields(r, o, types->items[i], types->keys[i], false);
        } else {
            size_t where = where_push(r, types->keys[i]);
            check_fields(r, o, types->items[i], NULL, false);
            read_hist(r, json_get(types->items[i], "hist"), view[t]);
            if (net_bytes != NULL) {
                net_bytes[t] = read_net_bytes(r, types->items[i], counters, t);
                misses[t] = get_u64(r, types->items[i], "misses");
            }
            where_pop(r, where);
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
    return get_u64(r, obj, name);
}

static void read_counters(struct reader *r, const struct json_value *obj, struct slap_counters *c,
                          uint64_t *unknown)
{
    if (obj == NULL || obj->type != JSON_OBJECT) {
        bad(r, "counters", "missing, or not an object");
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
            bad(r, "interrupted", "not true or false");
        }
        step->interrupted = interrupted->type == JSON_TRUE;
    }
    if (limited_by != NULL) {
        if (!limits_verdict_parse(limited_by, &verdict) && strcmp(limited_by, "mixed") != 0) {
            bad(r, "limited_by", "not a verdict slap gives");
        }
        snprintf(step->limited_by, sizeof(step->limited_by), "%s", limited_by);
    }
    if (slo != NULL) {
        if (strcmp(slo, "held") != 0 && strcmp(slo, "broken") != 0 &&
            strcmp(slo, "undecided") != 0) {
            bad(r, "slo", "not held, broken or undecided");
        }
        snprintf(step->slo, sizeof(step->slo), "%s", slo);
    }
}

static void read_step_limits(struct reader *r, const struct json_value *item,
                             struct results_step *step);

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
        bad(r, "seconds", "0 for requests made: no time, no rate");
    } else if (kind != ITEM_STEP && seen->n > 0 && !(when > seen->last_elapsed)) {
        char why[96];
        snprintf(why, sizeof(why), "%g is not after the %s before it (%g): out of order", when,
                 kind == ITEM_ROUND ? "round" : "period", seen->last_elapsed);
        bad(r, "elapsed_s", why);
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
    size_t where = where_push(r, name);
    static const struct results_object *const tables[] = {&results_obj_period, &results_obj_step,
                                                         &results_obj_round};
    check_fields(r, tables[kind], item, NULL, false);
    stats_reset(s);
    read_counters(r, json_get(item, "counters"), &s->counters, NULL);
    read_types(r, get_typed(r, item, "types", JSON_OBJECT), s->lat, s->net_bytes, s->misses,
               json_get(item, "counters"));
    double seconds = get_double(r, item, "seconds");
    double when = get_double(r, item, kind == ITEM_STEP ? "target_tps" : "elapsed_s");
    enum slap_status st = SLAP_ERROR;
    if (!r->failed) {
        check_item(r, kind, when, seconds, s);
    }
    if (!r->failed) {
        st = add_item(d, kind, when, seconds, s);
        if (st != SLAP_OK) {
            bad(r, item_list[kind], "out of memory, or too many");
        }
    }
    if (st == SLAP_OK && kind == ITEM_STEP) {
        struct results_step *step = &((struct results_step *)d->steps.items)[d->steps.n - 1];
        read_step_marks(r, item, step);
        read_step_limits(r, item, step);
    }
    where_pop(r, where);
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
        bad(r, "document", "out of memory");
    }
    free_scratch(s);
}

static void read_server_stats(struct reader *r, const struct json_value *obj, const char *label,
                              struct server_stats *s)
{
    read_fields(r, &results_obj_server_stats, obj, s, label);
}

static void read_servers(struct reader *r, const struct json_value *list, struct results_doc *d)
{
    for (size_t i = 0; list != NULL && i < list->n && !r->failed; i++) {
        const struct json_value *item = list->items[i];
        struct server_stats_pair pair = {.ok = false};
        const char *name = json_to_string(json_get(item, "name"));
        const char *label = json_to_string(json_get(item, "label"));
        const char *note = json_to_string(json_get(item, "note"));
        if (name == NULL || label == NULL) {
            bad(r, "servers", "an entry lacks its name or label");
            return;
        }
        check_fields(r, &results_obj_server, item, "servers", note == NULL);
        if (note != NULL) {
            snprintf(pair.note, sizeof(pair.note), "%s", note);
        } else {
            pair.ok = true;
            check_fields(r, &results_obj_server_stats, json_get(item, "delta"), "servers delta",
                         false);
            read_server_stats(r, json_get(item, "before"), "servers before", &pair.before);
            read_server_stats(r, json_get(item, "after"), "servers after", &pair.after);
            pair.preload_known = json_get(item, "preload_evictions") != NULL;
            pair.preload_evictions =
                pair.preload_known ? get_double(r, item, "preload_evictions") : 0.0;
        }
        if (!r->failed && results_add_server(d, name, label, &pair) != SLAP_OK) {
            bad(r, "servers", "out of memory, or too many");
        }
    }
}

/* A share that may be null (not known): its value, and whether it was known. */
static double get_share(struct reader *r, const struct json_value *obj, const char *key,
                        bool *known)
{
    const struct json_value *v = json_get(obj, key);
    *known = v != NULL && v->type != JSON_NULL;
    return *known ? get_double(r, obj, key) : 0.0;
}

static void read_limits_client(struct reader *r, const struct json_value *obj,
                               struct limits_client *c)
{
    bool mean_known, max_known;
    if (obj == NULL || obj->type != JSON_OBJECT) {
        bad(r, "limits", "no \"client\" object");
        return;
    }
    read_fields(r, &results_obj_client, obj, c, "client");
    c->wait_mean = get_share(r, obj, "cpu_wait_mean", &mean_known);
    c->wait_max = get_share(r, obj, "cpu_wait_max", &max_known);
    c->wait_known = mean_known && max_known;
    bool cpus_known = false, share_known = false; /* since 2: absent in some of schema 1 */
    c->cpus = get_share(r, obj, "cpus", &cpus_known);
    c->cpu_share = get_share(r, obj, "cpu_share", &share_known);
    if (!cpus_known || !share_known) {
        c->cpus = c->cpu_share = 0;
    }
}

/* The host's CPUs (null: not known), requests in flight and slap's lag: since 2, absent from
 * some files of schema 1 (not known then). */
static void read_limits_run(struct reader *r, const struct json_value *obj, struct limits *l)
{
    const struct json_value *host = json_get(obj, "host");
    const struct json_value *in_flight = json_get(obj, "in_flight");
    if (host != NULL && host->type == JSON_OBJECT) {
        l->host.known = true;
        read_fields(r, &results_obj_host, host, &l->host, "host");
    }
    if (in_flight != NULL) {
        read_fields(r, &results_obj_in_flight, in_flight, l, "in_flight");
    }
    read_fields(r, &results_obj_limits, obj, l, "limits");
}

static void read_limits_server(struct reader *r, const struct json_value *item,
                               struct limits_server *s)
{
    const char *name = json_to_string(json_get(item, "name"));
    const char *label = json_to_string(json_get(item, "label"));
    const char *note = json_to_string(json_get(item, "note"));
    bool threads_known;
    if (name == NULL || label == NULL) {
        bad(r, "limits", "a server lacks its name or label");
        return;
    }
    snprintf(s->name, sizeof(s->name), "%s", name);
    snprintf(s->label, sizeof(s->label), "%s", label);
    s->known = note == NULL;
    check_fields(r, &results_obj_limits_server, item, "limits servers", s->known);
    if (!s->known) {
        snprintf(s->note, sizeof(s->note), "%s", note);
        return;
    }
    s->cpu_s = get_double(r, item, "cpu_s");
    s->threads = get_share(r, item, "threads", &threads_known);
    s->seconds = get_double(r, item, "seconds");
    s->busy = get_double(r, item, "busy");
    const struct json_value *local = json_get(item, "local");
    const char *from = json_to_string(json_get(item, "cpu_from"));
    s->local = local != NULL && local->type == JSON_TRUE;
    s->from_proc = from != NULL && strcmp(from, "proc") == 0;
    const char *why = json_to_string(json_get(item, "cpu_from_why")); /* since 2 */
    if (s->from_proc && why != NULL) {
        snprintf(s->note, sizeof(s->note), "%s", why);
    }
}

/* What every server entry may add, known or not: behind a proxy, its process, its CPU wait. */
static void read_limits_server_process(struct reader *r, const struct json_value *item,
                                       struct limits_server *s)
{
    const struct json_value *backend = json_get(item, "backend");
    bool pid_known = false;
    s->backend = backend != NULL && backend->type == JSON_TRUE;
    double pid = get_share(r, item, "pid", &pid_known); /* these three: since 2 */
    s->pid = pid_known && pid > 0 && pid < 1e9 ? (int)pid : 0;
    s->wait_max = get_share(r, item, "cpu_wait_max", &s->wait_known);
}

/* "proxy" (--proxy_stats): twemproxy's counters over the run, or why they are unknown. */
static void read_limits_proxy(struct reader *r, const struct json_value *obj,
                              struct limits_proxy *p)
{
    const char *name, *why;
    if (obj == NULL || obj->type != JSON_OBJECT || r->failed) {
        return;
    }
    const char *proxy = json_to_string(json_get(obj, "name"));
    const char *note = json_to_string(json_get(obj, "note"));
    snprintf(p->name, sizeof(p->name), "%s", proxy != NULL ? proxy : "");
    p->known = note == NULL;
    snprintf(p->note, sizeof(p->note), "%s", note != NULL ? note : "");
    size_t where = where_push(r, "proxy");
    if (!results_fields_read(&results_obj_proxy, obj, p, r->schema, p->known, &name, &why)) {
        bad(r, name, why);
    }
    where_pop(r, where);
}

/* "borderline" and "borderline_figure" (since 2: absent from some files of schema 1): null, or
 * the verdict the figure near its line would have given, and that figure. */
static void read_borderline(struct reader *r, const struct json_value *obj,
                            struct limits_borderline *b)
{
    const struct json_value *with = json_get(obj, "borderline");
    const struct json_value *figure = json_get(obj, "borderline_figure");
    memset(b, 0, sizeof(*b));
    if (with == NULL || with->type == JSON_NULL) {
        return;
    }
    if (!limits_verdict_parse(json_to_string(with), &b->with)) {
        bad(r, "borderline", "not null or a verdict slap gives");
        return;
    }
    if (figure == NULL && !results_field_due(&results_obj_limits, "borderline_figure", r->schema)) {
        return; /* a file older than the figure: taken as not near */
    }
    b->near = true;
    read_fields(r, &results_obj_borderline, figure, b, "borderline_figure");
}

/* A "limits" object (a run's, or a sweep step's): the figures and the verdict into l. */
static bool read_limits_into(struct reader *r, const struct json_value *obj, struct limits *l)
{
    const struct json_value *servers = json_get(obj, "servers");
    if (obj->type != JSON_OBJECT || servers == NULL || servers->type != JSON_ARRAY ||
        servers->n > RESULTS_MAX_ITEMS) {
        bad(r, "limits", "not an object with a \"servers\" array");
        return false;
    }
    if (limits_init(l, (uint32_t)servers->n) != SLAP_OK) {
        bad(r, "limits", "out of memory");
        return false;
    }
    check_fields(r, &results_obj_limits, obj, "limits", false);
    if (!limits_verdict_parse(json_to_string(json_get(obj, "verdict")), &l->verdict)) {
        bad(r, "limits", "its verdict is none slap gives");
    }
    read_borderline(r, obj, &l->borderline);
    const char *why = json_to_string(json_get(obj, "why"));
    snprintf(l->why, sizeof(l->why), "%s", why != NULL ? why : "");
    read_limits_client(r, json_get(obj, "client"), &l->client);
    read_limits_run(r, obj, l);
    for (size_t i = 0; i < servers->n && !r->failed; i++) {
        read_limits_server(r, servers->items[i], &l->servers[i]);
        read_limits_server_process(r, servers->items[i], &l->servers[i]);
    }
    read_limits_proxy(r, json_get(obj, "proxy"), &l->proxy);
    return true;
}

/* "limits" (absent when the run measured nothing, and in a sweep): the figures and the
 * verdict. */
static void read_limits(struct reader *r, const struct json_value *obj, struct results_doc *d)
{
    if (obj != NULL) {
        d->has_limits = read_limits_into(r, obj, &d->limits);
    }
}

/* A sweep step's "limits" (absent in documents of older slaps): its verdict must be the step's
 * limited_by. */
static void read_step_limits(struct reader *r, const struct json_value *item,
                             struct results_step *step)
{
    const struct json_value *obj = json_get(item, "limits");
    if (obj == NULL) {
        return;
    }
    size_t where = where_push(r, "limits");
    step->has_limits = read_limits_into(r, obj, &step->limits);
    if (step->has_limits && !r->failed &&
        strcmp(step->limited_by, limits_verdict_name(step->limits.verdict)) != 0) {
        bad(r, "verdict", "not the step's limited_by");
    }
    where_pop(r, where);
}

/* A label shown in text reports: results_label_problem's rule, the one --label follows. */
static bool printable_text(const char *s)
{
    return results_label_problem(s) == NULL;
}

/* "runs" (since 2; a file of schema 1 may have none: its label and start stand for its host
 * and run). */
static void read_runs(struct reader *r, const struct json_value *list, struct results_doc *d)
{
    struct results_run_id id = {.pid = 0, .start_ms = d->start_ms};
    if (list == NULL) {
        snprintf(id.host, sizeof(id.host), "%s", d->label);
        if (results_add_run(d, &id) != SLAP_OK) {
            bad(r, "runs", "out of memory");
        }
        return;
    }
    if (list->type != JSON_ARRAY || list->n == 0 || list->n > RESULTS_MAX_ITEMS) {
        bad(r, "runs", "not an array of runs");
        return;
    }
    for (size_t i = 0; i < list->n && !r->failed; i++) {
        const char *host = json_to_string(json_get(list->items[i], "host"));
        if (host == NULL || !printable_text(host)) {
            bad(r, "runs", "a run lacks its host, or it is not printable");
            return;
        }
        read_fields(r, &results_obj_runs, list->items[i], &id, "runs");
        if (!r->failed && results_add_run(d, &id) != SLAP_OK) {
            bad(r, "runs", "out of memory, or too many");
        }
    }
}

static int signal_number(const char *name)
{
    if (name == NULL) {
        return 0;
    }
    return strcmp(name, "SIGINT") == 0 ? SIGINT : strcmp(name, "SIGHUP") == 0 ? SIGHUP : SIGTERM;
}

/* A rate or null (0). */
static double get_rate_or_null(struct reader *r, const struct json_value *obj, const char *key)
{
    const struct json_value *v = json_get(obj, key);
    return v != NULL && v->type == JSON_NULL ? 0.0 : get_double(r, obj, key);
}

/* slap search's outcome (absent from other documents; "confirmed" since 2). */
static void read_search(struct reader *r, const struct json_value *v, struct results_doc *d)
{
    struct results_search *s = &d->search;
    if (v == NULL || r->failed) {
        return;
    }
    const char *objectives = json_to_string(json_get(v, "objectives"));
    const struct json_value *exhausted = json_get(v, "exhausted");
    const struct json_value *confirmed = json_get(v, "confirmed");
    if (v->type != JSON_OBJECT || objectives == NULL || !printable_text(objectives) ||
        strlen(objectives) >= sizeof(s->objectives)) {
        bad(r, "search", "not an object with its objectives as text");
        return;
    }
    s->present = true;
    snprintf(s->objectives, sizeof(s->objectives), "%s", objectives);
    s->capacity_tps = get_rate_or_null(r, v, "capacity_tps");
    s->lowest_broken = get_rate_or_null(r, v, "lowest_broken_tps");
    s->client_limit = get_rate_or_null(r, v, "client_limit_tps");
    check_fields(r, &results_obj_search, v, "search", false);
    s->exhausted = exhausted != NULL && exhausted->type == JSON_TRUE;
    /* schema 1 without it: a capacity was given only when found */
    s->confirmed = confirmed != NULL ? confirmed->type == JSON_TRUE : s->capacity_tps > 0;
}

/* --precision's outcome, as the report's line says it (absent without the option). */
static void read_precision(struct reader *r, const struct json_value *v, struct results_doc *d)
{
    const char *text = json_to_string(v);
    if (v == NULL) {
        return;
    }
    if (text == NULL || strlen(text) >= sizeof(d->precision) || !printable_text(text)) {
        bad(r, "precision", "not printable text of up to 159 bytes");
        return;
    }
    snprintf(d->precision, sizeof(d->precision), "%s", text);
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
            bad(r, list, why);
        } else if (seen->counts[t] != run) {
            snprintf(why, sizeof(why),
                     "%zu of them holding %llu %s requests, where the run's types say %llu",
                     seen->n, (unsigned long long)seen->counts[t], stats_type_name(t),
                     (unsigned long long)run);
            bad(r, list, why);
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
        bad(r, "rounds", why);
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
        bad(r, "seconds", "0 for requests made: no time, no rate");
    } else if (!d->sweep && periods->n > 0 &&
               periods->last_elapsed > d->seconds * (1 + SECONDS_SLACK) + SECONDS_SLACK) {
        char why[128];
        snprintf(why, sizeof(why), "%g, shorter than the periods (the last ends at %g)",
                 d->seconds, periods->last_elapsed);
        bad(r, "seconds", why);
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
        bad(r, "kind", "missing, or neither \"run\" nor \"sweep\"");
    }
    const struct json_value *label_value = json_get(root, "label");
    if (label == NULL && label_value != NULL && label_value->type == JSON_STRING) {
        bad(r, "label", "holds a NUL (\\u0000): not printable");
    } else if (label == NULL || !printable_text(label)) {
        bad(r, "label", "missing, empty, too long or not printable");
    }
    check_fields(r, &results_obj_top, root, NULL, false);
    if (r->failed) {
        return;
    }
    d->sweep = strcmp(kind, "sweep") == 0;
    snprintf(d->label, sizeof(d->label), "%s", label);
    d->start_ms = get_u64(r, root, "start_ms");
    d->end_ms = get_u64(r, root, "end_ms");
    read_runs(r, json_get(root, "runs"), d);
    d->seconds = get_double(r, root, "seconds");
    d->signal = signal_number(json_to_string(json_get(root, "signal")));
    d->exit_status = (int)get_u64_max(r, root, "exit_status", 255);
    d->period_s = get_double(r, root, "period_s");
    read_types(r, get_typed(r, root, "types", JSON_OBJECT), d->global->lat, d->global->net_bytes,
               d->global->misses, json_get(root, "counters"));
    read_types(r, json_get(root, "uncorrected"), d->global->raw, NULL, NULL, NULL);
    const struct json_value *lag = json_get(root, "send_lag");
    if (lag != NULL) {
        read_hist(r, json_get(lag, "hist"), d->global->lag);
    }
    check_fields(r, &results_obj_run_line, json_get(root, "run"), "run", false);
    check_fields(r, &results_obj_keys, json_get(json_get(root, "run"), "keys"), "run keys", false);
    check_fields(r, &results_obj_intervals, json_get(root, "percentile_intervals"),
                 "percentile_intervals", false);
    check_fields(r, &results_obj_errors, json_get(root, "errors"), "errors", false);
    check_fields(r, &results_obj_summary, lag, "send_lag", false);
    const struct json_value *outcomes = get_typed(r, root, "get_outcomes", JSON_OBJECT);
    check_fields(r, &results_obj_outcomes, outcomes, "get_outcomes", false);
    check_fields(r, &results_obj_summary, json_get(outcomes, "hit"), "get_outcomes hit", false);
    check_fields(r, &results_obj_summary, json_get(outcomes, "miss"), "get_outcomes miss", false);
    read_hist(r, json_get(json_get(outcomes, "hit"), "hist"), d->global->gets[STATS_HIT]);
    read_hist(r, json_get(json_get(outcomes, "miss"), "hist"), d->global->gets[STATS_MISS]);
    read_counters(r, json_get(root, "counters"), &d->global->counters, &d->counters_unknown);
    read_items(r, get_typed(r, root, "periods", JSON_ARRAY), d, ITEM_PERIOD);
    read_items(r, get_typed(r, root, "steps", JSON_ARRAY), d, ITEM_STEP);
    const struct json_value *rounds = json_get(root, "rounds"); /* --rounds only */
    if (rounds != NULL) {
        read_items(r, get_typed(r, root, "rounds", JSON_ARRAY), d, ITEM_ROUND);
    }
    read_servers(r, get_typed(r, root, "servers", JSON_ARRAY), d);
    read_limits(r, json_get(root, "limits"), d);
    read_search(r, json_get(root, "search"), d);
    check_fields(r, &results_obj_trace, json_get(root, "trace"), "trace", false);
    read_precision(r, json_get(root, "precision"), d);
    read_fields(r, &results_obj_samples, json_get(root, "samples"), d, "samples");
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
        bad(r, "schema", "not a slap results document (no \"schema\" number)");
    } else if (schema < 1 || schema > RESULTS_SCHEMA) {
        char why[128];
        snprintf(why, sizeof(why), "version %llu; this slap reads versions 1 to %d%s",
                 (unsigned long long)schema, RESULTS_SCHEMA,
                 schema > RESULTS_SCHEMA ? " (a newer slap wrote it)" : "");
        bad(r, "schema", why);
    } else if (read_config_object(json_get(root, "config"), read_config, d, r->err,
                                  r->err_len) != SLAP_OK) {
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
    struct results_doc *d;  /* the document: its head, and its periods when keep */
    results_config_reader read_config; /* how its "config" reads back */
    struct results_doc one; /* not keep: the last period read (its periods list only) */
    bool keep;              /* the periods appended to d */
    size_t stride;          /* keep: the file's periods in each of d's (RESULTS_KEEP_PERIODS) */
    size_t fill;            /* keep: the file's periods in d's last */
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
        bad(&rs->r, "periods", "out of memory");
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
        snprintf(err, err_len, "%s: %s", rs->path, rs->why);
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
            bad(&rs->r, "schema", "after the periods (slap writes it first): not read as such");
        }
        if (rs->path != NULL && !rs->r.failed && (rs->d->source = strdup(rs->path)) == NULL) {
            bad(&rs->r, "document", "out of memory");
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
        snprintf(err, err_len, "%s: %s", path, why);
    }
    fclose(f);
    return st;
}
