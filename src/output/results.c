/*
 * The run as data: building the document, writing it as JSON (schema/slap-results.schema.json)
 * or CSV (saved by outfile.c).
 * Reading documents back and merging them is in results_read.c.
 */
#include "slap/output/results.h"
#include "slap/output/intervals.h"

#include <ctype.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slap/base/json.h"
#include "slap/output/report.h"
#include "slap/base/version.h"

#include "results_fields.h"

#define MIB (1024.0 * 1024.0)

/* The percentiles CSV rows always carry, whatever --percentiles says. */
static const double csv_percentiles[] = {50.0, 90.0, 99.0, 99.9};

/* ---- the document --------------------------------------------------------------------- */

const char *results_label_problem(const char *label)
{
    size_t n = 0;
    for (; label[n] != '\0'; n++) {
        if ((unsigned char)label[n] < 0x20 || label[n] == 0x7f) {
            return "the name holds a control character";
        }
    }
    if (n == 0) {
        return "the name is empty";
    }
    return n < RESULTS_LABEL_MAX ? NULL : "the name is longer than 255 bytes";
}

enum slap_status results_doc_init(struct results_doc *d)
{
    memset(d, 0, sizeof(*d));
    d->global = malloc(sizeof(*d->global));
    if (d->global == NULL || stats_init(d->global, &stats_shape_all) != SLAP_OK) {
        free(d->global);
        d->global = NULL;
        return SLAP_ERROR;
    }
    d->intervals = malloc(sizeof(*d->intervals));
    if (d->intervals == NULL || intervals_init(d->intervals) != SLAP_OK) {
        results_doc_free(d);
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

uint32_t results_doc_types(const struct results_doc *d)
{
    uint32_t types = op_bit(OP_GET) | op_bit(OP_SET);
    for (int t = 0; t < STATS_TYPES; t++) {
        const struct hist *h = d->global->lat[t];
        types |= h != NULL && h->count > 0 ? op_bit((enum op_type)t) : 0;
    }
    return types;
}

void results_sparse_free(struct results_sparse *s)
{
    free(s->index);
    free(s->counts);
    s->index = NULL;
    s->counts = NULL;
    s->npairs = 0;
}

void results_doc_free(struct results_doc *d)
{
    struct results_step *steps = d->steps.items;
    results_drop_periods(d);
    for (size_t i = 0; i < d->steps.n; i++) {
        for (int t = 0; t < STATS_TYPES; t++) {
            results_sparse_free(&steps[i].lat[t]);
        }
        if (steps[i].intervals != NULL) {
            intervals_free(steps[i].intervals);
            free(steps[i].intervals);
        }
        limits_free(&steps[i].limits);
    }
    if (d->intervals != NULL) {
        intervals_free(d->intervals);
        free(d->intervals);
    }
    struct results_period *rounds = d->rounds.items;
    for (size_t i = 0; i < d->rounds.n; i++) {
        for (int t = 0; t < STATS_TYPES; t++) {
            results_sparse_free(&rounds[i].lat[t]);
        }
    }
    free(d->periods.items);
    free(d->rounds.items);
    free(d->steps.items);
    free(d->servers.items);
    free(d->runs.items);
    limits_free(&d->limits);
    run_desc_free(&d->desc);
    free(d->source);
    if (d->global != NULL) {
        stats_free(d->global);
    }
    free(d->global);
    memset(d, 0, sizeof(*d));
}

enum slap_status results_sparse_from_hist(const struct hist *h, struct results_sparse *out)
{
    uint32_t n = 0;
    memset(out, 0, sizeof(*out));
    /* the counts lie between min's bucket and max's (hist.h) */
    size_t lo = h->count > 0 ? hist_bucket_index(h->min_ns) : 0;
    size_t hi = h->count > 0 ? hist_bucket_index(h->max_ns) + 1 : 0;
    for (size_t i = lo; i < hi; i++) {
        n += h->buckets[i] != 0;
    }
    out->count = h->count;
    out->min_ns = h->min_ns;
    out->max_ns = h->max_ns;
    out->sum_us = h->sum_us;
    out->sumsq_us = h->sumsq_us;
    if (n == 0) {
        return SLAP_OK;
    }
    out->index = malloc(n * sizeof(*out->index));
    out->counts = malloc(n * sizeof(*out->counts));
    if (out->index == NULL || out->counts == NULL) {
        results_sparse_free(out);
        return SLAP_ERROR;
    }
    for (size_t i = lo; i < hi; i++) {
        if (h->buckets[i] != 0) {
            out->index[out->npairs] = (uint32_t)i;
            out->counts[out->npairs++] = h->buckets[i];
        }
    }
    return SLAP_OK;
}

void results_sparse_add(const struct results_sparse *s, struct hist *h)
{
    if (s->count == 0) {
        return; /* no events: its min_ns (0 in a file) is no minimum */
    }
    h->min_ns = h->count == 0 || s->min_ns < h->min_ns ? s->min_ns : h->min_ns;
    h->max_ns = h->count == 0 || s->max_ns > h->max_ns ? s->max_ns : h->max_ns;
    h->count += s->count;
    h->sum_us += s->sum_us;
    h->sumsq_us += s->sumsq_us;
    for (uint32_t i = 0; i < s->npairs; i++) {
        h->buckets[s->index[i]] += s->counts[i];
    }
}

/* Room for one more item of size bytes in list; NULL when out of memory or full. */
static void *list_add(struct results_list *list, size_t size)
{
    if (list->n == RESULTS_MAX_ITEMS) {
        return NULL;
    }
    if (list->n == list->cap) {
        size_t cap = list->cap == 0 ? 16 : list->cap * 2;
        void *items = realloc(list->items, cap * size);
        if (items == NULL) {
            return NULL;
        }
        list->items = items;
        list->cap = cap;
    }
    void *item = (char *)list->items + list->n * size;
    memset(item, 0, size);
    list->n++;
    return item;
}

/* The lat histograms of s, sparse, into lat[] (a type s does not keep: empty); everything
 * freed on failure. */
static enum slap_status sparse_types(const struct slap_stats *s, struct results_sparse *lat)
{
    static struct hist empty; /* no events */
    hist_reset(&empty);
    for (int t = 0; t < STATS_TYPES; t++) {
        if (results_sparse_from_hist(s->lat[t] != NULL ? s->lat[t] : &empty, &lat[t]) !=
            SLAP_OK) {
            while (t-- > 0) {
                results_sparse_free(&lat[t]);
            }
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

/* Append a period made from s to list. */
static enum slap_status list_add_period(struct results_list *list, double elapsed_s, double seconds,
                                        const struct slap_stats *s)
{
    struct results_period *p = list_add(list, sizeof(*p));
    if (p == NULL) {
        return SLAP_ERROR;
    }
    p->elapsed_s = elapsed_s;
    p->seconds = seconds;
    p->counters = s->counters;
    memcpy(p->net_bytes, s->net_bytes, sizeof(p->net_bytes));
    memcpy(p->misses, s->misses, sizeof(p->misses));
    if (sparse_types(s, p->lat) != SLAP_OK) {
        list->n--;
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

enum slap_status results_add_period(struct results_doc *d, double elapsed_s, double seconds,
                                    const struct slap_stats *s)
{
    return list_add_period(&d->periods, elapsed_s, seconds, s);
}

enum slap_status results_move_period(struct results_doc *d, struct results_period *p)
{
    struct results_period *to = list_add(&d->periods, sizeof(*to));
    if (to == NULL) {
        return SLAP_ERROR;
    }
    *to = *p;
    for (int t = 0; t < STATS_TYPES; t++) {
        p->lat[t].index = NULL;
        p->lat[t].counts = NULL;
        p->lat[t].npairs = 0;
    }
    return SLAP_OK;
}

void results_drop_periods(struct results_doc *d)
{
    struct results_period *periods = d->periods.items;
    for (size_t i = 0; i < d->periods.n; i++) {
        for (int t = 0; t < STATS_TYPES; t++) {
            results_sparse_free(&periods[i].lat[t]);
        }
    }
    d->periods.n = 0;
}

/* Add s into p: counters, bytes, misses and histograms. */
static enum slap_status period_extend(struct results_period *p, const struct slap_stats *s)
{
    static struct hist h; /* main thread only */
#define SLAP_COUNTER_ADD(name, show, since, meaning) p->counters.name += s->counters.name;
    SLAP_COUNTERS(SLAP_COUNTER_ADD)
#undef SLAP_COUNTER_ADD
    for (int t = 0; t < STATS_TYPES; t++) {
        p->net_bytes[t] += s->net_bytes[t];
        p->misses[t] += s->misses[t];
        if (s->lat[t] == NULL) {
            continue;
        }
        hist_reset(&h);
        results_sparse_add(&p->lat[t], &h);
        hist_merge(&h, s->lat[t]);
        results_sparse_free(&p->lat[t]);
        if (results_sparse_from_hist(&h, &p->lat[t]) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

/* p added into into: its end p's, its length the sum; p is left as it was. */
static enum slap_status period_fold(struct results_period *into, const struct results_period *p)
{
    static struct hist h; /* main thread only */
#define SLAP_COUNTER_FOLD(name, show, since, meaning) into->counters.name += p->counters.name;
    SLAP_COUNTERS(SLAP_COUNTER_FOLD)
#undef SLAP_COUNTER_FOLD
    into->elapsed_s = p->elapsed_s;
    into->seconds += p->seconds;
    for (int t = 0; t < STATS_TYPES; t++) {
        into->net_bytes[t] += p->net_bytes[t];
        into->misses[t] += p->misses[t];
        hist_reset(&h);
        results_sparse_add(&into->lat[t], &h);
        results_sparse_add(&p->lat[t], &h);
        results_sparse_free(&into->lat[t]);
        if (results_sparse_from_hist(&h, &into->lat[t]) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

enum slap_status results_fold_into_last(struct results_doc *d, const struct results_period *p)
{
    if (d->periods.n == 0) {
        return SLAP_ERROR;
    }
    return period_fold(&((struct results_period *)d->periods.items)[d->periods.n - 1], p);
}

enum slap_status results_halve_periods(struct results_doc *d)
{
    struct results_period *items = d->periods.items;
    size_t kept = 0;
    for (size_t i = 0; i < d->periods.n; i += 2) {
        if (i + 1 < d->periods.n) {
            if (period_fold(&items[i], &items[i + 1]) != SLAP_OK) {
                return SLAP_ERROR;
            }
            for (int t = 0; t < STATS_TYPES; t++) {
                results_sparse_free(&items[i + 1].lat[t]);
            }
        }
        items[kept++] = items[i];
    }
    d->periods.n = kept;
    return SLAP_OK;
}

enum slap_status results_extend_last_period(struct results_doc *d, const struct slap_stats *s)
{
    if (d->periods.n == 0) {
        return results_add_period(d, 0.0, 0.0, s);
    }
    return period_extend(&((struct results_period *)d->periods.items)[d->periods.n - 1], s);
}

enum slap_status results_add_to_round(struct results_doc *d, size_t index, double elapsed_s,
                                      double seconds, const struct slap_stats *s)
{
    if (index == d->rounds.n) {
        return list_add_period(&d->rounds, elapsed_s, seconds, s);
    }
    if (index > d->rounds.n) {
        return SLAP_ERROR;
    }
    struct results_period *r = &((struct results_period *)d->rounds.items)[index];
    r->elapsed_s = elapsed_s > r->elapsed_s ? elapsed_s : r->elapsed_s;
    r->seconds += seconds;
    return period_extend(r, s);
}

enum slap_status results_add_step(struct results_doc *d, double target_tps, double seconds,
                                  const struct slap_stats *s)
{
    struct results_step *step = list_add(&d->steps, sizeof(*step));
    if (step == NULL) {
        return SLAP_ERROR;
    }
    step->target_tps = target_tps;
    step->seconds = seconds;
    step->counters = s->counters;
    memcpy(step->net_bytes, s->net_bytes, sizeof(step->net_bytes));
    memcpy(step->misses, s->misses, sizeof(step->misses));
    if (sparse_types(s, step->lat) != SLAP_OK) {
        d->steps.n--;
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

enum slap_status results_add_server(struct results_doc *d, const char *name, const char *label,
                                    const struct server_stats_pair *pair)
{
    struct results_server *srv = list_add(&d->servers, sizeof(*srv));
    if (srv == NULL) {
        return SLAP_ERROR;
    }
    snprintf(srv->name, sizeof(srv->name), "%s", name);
    snprintf(srv->label, sizeof(srv->label), "%s", label);
    srv->stats = *pair;
    return SLAP_OK;
}

enum slap_status results_add_run(struct results_doc *d, const struct results_run_id *id)
{
    struct results_run_id *run = list_add(&d->runs, sizeof(*run));
    if (run == NULL) {
        return SLAP_ERROR;
    }
    *run = *id;
    return SLAP_OK;
}

enum slap_status results_add_this_run(struct results_doc *d)
{
    struct results_run_id id = {.pid = (uint64_t)getpid(), .start_ms = d->start_ms};
    if (gethostname(id.host, sizeof(id.host) - 1) != 0 || results_label_problem(id.host) != NULL) {
        snprintf(id.host, sizeof(id.host), "%s", d->label);
    }
    return results_add_run(d, &id);
}

static bool same_run(const struct results_run_id *a, const struct results_run_id *b)
{
    return a->pid == b->pid && a->start_ms == b->start_ms && strcmp(a->host, b->host) == 0;
}

bool results_share_run(const struct results_doc *a, const struct results_doc *b,
                       struct results_run_id *same)
{
    const struct results_run_id *ra = a->runs.items, *rb = b->runs.items;
    for (size_t i = 0; i < a->runs.n; i++) {
        for (size_t j = 0; j < b->runs.n; j++) {
            if (same_run(&ra[i], &rb[j])) {
                *same = ra[i];
                return true;
            }
        }
    }
    return false;
}

uint64_t results_requests(const struct slap_stats *s)
{
    const struct slap_counters *c = &s->counters;
    uint64_t events = 0;
    for (int t = 0; t < STATS_TYPES; t++) {
        events += s->lat[t] != NULL ? s->lat[t]->count : 0;
    }
    return events + c->server_error + c->client_error + c->error_reply;
}

/* ---- figures -------------------------------------------------------------------------- */

static double per_second(double amount, double seconds)
{
    return seconds > 0 ? amount / seconds : 0.0;
}

static double us(uint64_t ns)
{
    return (double)ns / (double)SLAP_NS_PER_US;
}

/* Bytes of one type, or (STATS_TYPES) of all. */
static uint64_t type_net_bytes(const uint64_t *net_bytes, int type)
{
    uint64_t sum = 0;
    for (int t = 0; t < STATS_TYPES; t++) {
        sum += type == STATS_TYPES || type == t ? net_bytes[t] : 0;
    }
    return sum;
}

/* Keys one type did not find; for the total, memaslap's get_misses (as the report's). */
static uint64_t type_misses(const uint64_t *misses, const struct slap_counters *c, int type)
{
    return type == STATS_TYPES ? c->get_misses : misses[type];
}

/* Whether results show type t (STATS_TYPES: the total, always). */
static bool shown(uint32_t types, int t)
{
    return t == STATS_TYPES || (types & op_bit((enum op_type)t)) != 0;
}

/* ---- JSON ----------------------------------------------------------------------------- */

static void json_hist(struct json_writer *w, const char *key, const struct hist *h, bool log2)
{
    json_open_object(w, key);
    json_u64(w, "count", h->count);
    json_u64(w, "min_ns", h->count ? h->min_ns : 0);
    json_u64(w, "max_ns", h->max_ns);
    json_double(w, "sum_us", h->sum_us);
    json_double(w, "sumsq_us", h->sumsq_us);
    json_double(w, "sumlog_us", hist_sumlog_us(h));
    json_open_array(w, "buckets", true);
    for (size_t i = 0; i < HIST_BUCKETS; i++) {
        if (h->buckets[i] != 0) {
            json_open_array(w, NULL, true);
            json_u64(w, NULL, i);
            json_u64(w, NULL, h->buckets[i]);
            json_close(w);
        }
    }
    json_close(w);
    if (log2) {
        json_open_array(w, "log2_us", true);
        for (size_t i = 0; i < HIST_LOG2_BUCKETS; i++) {
            if (h->log2_us[i] != 0) {
                json_open_array(w, NULL, true);
                json_u64(w, NULL, i);
                json_u64(w, NULL, h->log2_us[i]);
                json_close(w);
            }
        }
        json_close(w);
    }
    json_close(w);
}

/* Where a summary's intervals come from: the periods (NULL: order statistics of the run alone)
 * and the series that make the histogram; NULL itself: none (a period's own percentiles). */
struct json_ci {
    const struct intervals *iv;
    intervals_mask mask;
};

/* "percentiles" and "percentile_ci" of h: null in both where a percentile is not estimable. */
static void json_percentiles(struct json_writer *w, const struct run_desc *desc,
                             const struct hist *h, const struct json_ci *ci)
{
    struct ci_result r[RUN_DESC_MAX_PERCENTILES];
    struct intervals_view v;
    intervals_view_open(&v, ci != NULL ? ci->iv : NULL, ci != NULL ? ci->mask : 0, h);
    for (uint32_t i = 0; i < desc->npercentiles; i++) {
        intervals_view_ci(&v, desc->percentiles[i], &r[i]);
    }
    intervals_view_close(&v);
    for (int pass = 0; pass < 2; pass++) {
        json_open_object(w, pass == 0 ? "percentiles" : "percentile_ci");
        for (uint32_t i = 0; i < desc->npercentiles; i++) {
            char name[32];
            snprintf(name, sizeof(name), "%g", desc->percentiles[i]);
            if (ci != NULL && !r[i].estimable) {
                json_null(w, name);
            } else if (pass == 0) {
                json_double(w, name, us(hist_percentile_ns(h, desc->percentiles[i])));
            } else if (ci == NULL) {
                json_null(w, name);
            } else {
                json_open_array(w, name, true);
                json_double(w, NULL, us(r[i].low_ns));
                json_double(w, NULL, us(r[i].high_ns));
                json_close(w);
            }
        }
        json_close(w);
    }
}

/* count, rate, the summaries and percentiles of h (their intervals from ci); the histogram. */
static void json_summary(struct json_writer *w, const struct run_desc *desc, const struct hist *h,
                         double seconds, bool log2, const struct json_ci *ci)
{
    json_u64(w, "count", h->count);
    json_double(w, "rate", per_second((double)h->count, seconds));
    json_double(w, "min_us", h->count ? us(h->min_ns) : 0.0);
    json_double(w, "max_us", us(h->max_ns));
    json_double(w, "avg_us", hist_mean_us(h));
    json_double(w, "std_us", hist_stddev_us(h));
    json_double(w, "geo_us", hist_geomean_us(h));
    json_percentiles(w, desc, h, ci);
    json_hist(w, "hist", h, log2);
}

/* The bytes and misses of a type (exact bytes, so that merged documents add up). */
static void json_type_traffic(struct json_writer *w, const uint64_t *net_bytes,
                              const uint64_t *misses, const struct slap_counters *c, int t,
                              double seconds)
{
    uint64_t bytes = type_net_bytes(net_bytes, t);
    json_u64(w, "net_bytes", bytes);
    json_double(w, "net_mib_s", per_second((double)bytes / MIB, seconds));
    json_u64(w, "misses", type_misses(misses, c, t));
}

/* Every type shown of view, then "total": a summary each; traffic when s is given. */
static void json_types(struct json_writer *w, const char *key, const struct run_desc *desc,
                       struct hist *const *view, uint32_t types, const struct slap_stats *s,
                       double seconds, bool log2, const struct intervals *iv, int series)
{
    static struct hist total, none; /* main thread only */
    hist_reset(&total);
    hist_reset(&none);
    json_open_object(w, key);
    for (int t = 0; t <= STATS_TYPES; t++) {
        const struct hist *h = t == STATS_TYPES ? &total : view[t] != NULL ? view[t] : &none;
        if (t < STATS_TYPES) {
            hist_merge(&total, h);
        }
        if (!shown(types, t)) {
            continue;
        }
        struct json_ci ci = {iv, t == STATS_TYPES ? intervals_types(series)
                                                  : INTERVALS_BIT(series + t)};
        json_open_object(w, stats_type_name(t));
        json_summary(w, desc, h, seconds, log2, &ci);
        if (s != NULL) {
            json_type_traffic(w, s->net_bytes, s->misses, &s->counters, t, seconds);
        }
        json_close(w);
    }
    json_close(w);
}

/* The counters; one an older file lacked (a bit of unknown) is null. */
static void json_counters(struct json_writer *w, const struct slap_counters *c, uint64_t unknown)
{
    json_open_object(w, "counters");
#define SLAP_COUNTER_JSON(name, show, since, meaning)                                              \
    if (unknown & (1ULL << RESULTS_COUNTER_##name)) {                                              \
        json_null(w, #name);                                                                       \
    } else {                                                                                       \
        json_u64(w, #name, c->name);                                                               \
    }
    SLAP_COUNTERS(SLAP_COUNTER_JSON)
#undef SLAP_COUNTER_JSON
    json_close(w);
}

static void json_errors(struct json_writer *w, const struct slap_counters *c, uint64_t unknown)
{
    json_open_object(w, "errors");
    json_u64(w, "total", stats_errors(c));
    json_u64(w, "server_error", c->server_error);
    json_u64(w, "client_error", c->client_error);
    json_u64(w, "error_reply", c->error_reply);
    json_u64(w, "protocol_error", c->protocol_error);
    json_u64(w, "unanswered", c->unanswered);
    json_u64(w, "unsent", c->unsent);
    if (unknown & (1ULL << RESULTS_COUNTER_client_lag)) {
        json_null(w, "client_lag");
    } else {
        json_u64(w, "client_lag", c->client_lag);
    }
    json_u64(w, "conn_closed", c->conn_closed);
    json_u64(w, "conn_refused", c->conn_refused);
    json_u64(w, "udp_timeout", c->udp_timeout);
    json_u64(w, "not_stored", c->not_stored);
    json_u64(w, "verify_misses", c->verify_misses);
    json_u64(w, "verify_failed", c->verify_failed);
    json_close(w);
}

/* Every option's effective value, by its long name (durations in seconds). */
static void json_config(struct json_writer *w, const struct run_config *c)
{
    json_open_object(w, "config");
    for (size_t i = 0; i < c->n; i++) {
        const struct run_config_entry *e = &c->entries[i];
        switch (e->kind) {
        case RUN_CONFIG_NULL:
            json_null(w, e->name);
            break;
        case RUN_CONFIG_BOOL:
        case RUN_CONFIG_NUMBER:
            json_raw(w, e->name, e->value);
            break;
        case RUN_CONFIG_TEXT:
            json_string(w, e->name, e->value);
            break;
        }
    }
    json_close(w);
}

static void json_run_line(struct json_writer *w, const struct results_doc *d)
{
    const struct slap_counters *c = &d->global->counters;
    uint64_t ops = stats_ops(d->global);
    json_open_object(w, "run");
    json_u64(w, "ops", ops);
    json_double(w, "tps", per_second((double)ops, d->seconds));
    json_double(w, "net_mib_s",
                per_second((double)(c->written_bytes + c->read_bytes) / MIB, d->seconds));
    json_open_object(w, "keys");
    json_u64(w, "count", c->cmd_get);
    json_double(w, "rate", per_second((double)c->cmd_get, d->seconds));
    json_close(w);
    json_close(w);
}

static void sparse_to_hist(const struct results_sparse *lat, int type, struct hist *h)
{
    hist_reset(h);
    for (int t = 0; t < STATS_TYPES; t++) {
        if (type == STATS_TYPES || type == t) {
            results_sparse_add(&lat[t], h);
        }
    }
}

/* A period's or a step's types: summaries from their sparse histograms. */
static void json_sparse_types(struct json_writer *w, const struct run_desc *desc, uint32_t types,
                              const struct results_sparse *lat, const uint64_t *net_bytes,
                              const uint64_t *misses, const struct slap_counters *c,
                              double seconds, bool step, const struct intervals *iv)
{
    static struct hist h; /* main thread only */
    json_open_object(w, "types");
    for (int t = 0; t <= STATS_TYPES; t++) {
        if (!shown(types, t)) {
            continue;
        }
        sparse_to_hist(lat, t, &h);
        struct json_ci ci = {iv, t == STATS_TYPES ? intervals_types(INTERVALS_LAT)
                                                  : INTERVALS_BIT(INTERVALS_LAT + t)};
        json_open_object(w, stats_type_name(t));
        json_summary(w, desc, &h, seconds, false, step ? &ci : NULL);
        json_type_traffic(w, net_bytes, misses, c, t, seconds);
        json_close(w);
    }
    json_close(w);
}

/* One element of "periods". */
static void json_period(struct json_writer *w, const struct results_doc *d, uint32_t types,
                        const struct results_period *p)
{
    json_open_object(w, NULL);
    json_double(w, "elapsed_s", p->elapsed_s);
    json_double(w, "seconds", p->seconds);
    json_u64(w, "ops", stats_counters_ops(&p->counters));
    json_u64(w, "errors", stats_errors(&p->counters));
    json_counters(w, &p->counters, d->counters_unknown);
    json_sparse_types(w, &d->desc, types, p->lat, p->net_bytes, p->misses, &p->counters,
                      p->seconds, false, NULL);
    json_close(w);
}

static void json_limits_object(struct json_writer *w, const struct limits *l);

static void json_steps(struct json_writer *w, const struct results_doc *d)
{
    uint32_t types = results_doc_types(d);
    const struct results_step *steps = d->steps.items;
    json_open_array(w, "steps", false);
    for (size_t i = 0; i < d->steps.n; i++) {
        const struct results_step *s = &steps[i];
        uint64_t ops = stats_counters_ops(&s->counters);
        json_open_object(w, NULL);
        json_double(w, "target_tps", s->target_tps);
        json_double(w, "achieved_tps",
                    per_second((double)stats_counters_requests(&s->counters), s->seconds));
        if (s->limited_by[0] != '\0') {
            json_string(w, "limited_by", s->limited_by);
        }
        if (s->slo[0] != '\0') {
            json_string(w, "slo", s->slo);
        }
        if (s->has_limits) {
            json_limits_object(w, &s->limits);
        }
        json_bool(w, "interrupted", s->interrupted);
        json_double(w, "seconds", s->seconds);
        json_u64(w, "ops", ops);
        json_u64(w, "errors", stats_errors(&s->counters));
        json_counters(w, &s->counters, d->counters_unknown);
        json_sparse_types(w, &d->desc, types, s->lat, s->net_bytes, s->misses, &s->counters,
                          s->seconds, true, s->intervals);
        json_close(w);
    }
    json_close(w);
}

/* A rate, or null when there is none (0). */
static void json_rate_or_null(struct json_writer *w, const char *key, double rate)
{
    if (rate > 0) {
        json_double(w, key, rate);
    } else {
        json_null(w, key);
    }
}

/* slap search: its objectives and how it ended (none: no member). */
static void json_search(struct json_writer *w, const struct results_doc *d)
{
    const struct results_search *s = &d->search;
    if (!s->present) {
        return;
    }
    json_open_object(w, "search");
    json_string(w, "objectives", s->objectives);
    /* an answer that did not hold when measured again is none */
    json_rate_or_null(w, "capacity_tps",
                      s->confirmed || s->client_limit > 0 ? s->capacity_tps : 0.0);
    json_rate_or_null(w, "lowest_broken_tps", s->lowest_broken);
    json_bool(w, "exhausted", s->exhausted);
    json_rate_or_null(w, "client_limit_tps", s->client_limit);
    json_bool(w, "confirmed", s->confirmed);
    json_close(w);
}

/* --rounds: each round, as a period with its number and rate (none: no member). */
static void json_rounds(struct json_writer *w, const struct results_doc *d)
{
    uint32_t types = results_doc_types(d);
    const struct results_period *rounds = d->rounds.items;
    if (d->rounds.n == 0) {
        return;
    }
    json_open_array(w, "rounds", false);
    for (size_t i = 0; i < d->rounds.n; i++) {
        const struct results_period *p = &rounds[i];
        json_open_object(w, NULL);
        json_u64(w, "round", i + 1);
        json_double(w, "elapsed_s", p->elapsed_s);
        json_double(w, "seconds", p->seconds);
        json_u64(w, "ops", stats_counters_ops(&p->counters));
        json_double(w, "tps", per_second((double)stats_counters_ops(&p->counters), p->seconds));
        json_u64(w, "errors", stats_errors(&p->counters));
        json_counters(w, &p->counters, d->counters_unknown);
        json_sparse_types(w, &d->desc, types, p->lat, p->net_bytes, p->misses, &p->counters,
                          p->seconds, false, NULL);
        json_close(w);
    }
    json_close(w);
}

static void json_server_stats(struct json_writer *w, const char *key, const struct server_stats *s)
{
    json_open_object(w, key);
    results_fields_write(w, &results_obj_server_stats, s);
    json_close(w);
}

static void json_servers(struct json_writer *w, const struct results_doc *d)
{
    const struct results_server *servers = d->servers.items;
    json_open_array(w, "servers", false);
    for (size_t i = 0; i < d->servers.n; i++) {
        const struct results_server *srv = &servers[i];
        json_open_object(w, NULL);
        json_string(w, "name", srv->name);
        json_string(w, "label", srv->label);
        if (srv->stats.ok) {
            struct server_stats delta;
            server_stats_delta(&srv->stats, &delta);
            json_null(w, "note");
            json_server_stats(w, "delta", &delta);
            json_server_stats(w, "before", &srv->stats.before);
            json_server_stats(w, "after", &srv->stats.after);
            if (srv->stats.preload_known) {
                json_double(w, "preload_evictions", srv->stats.preload_evictions);
            }
        } else {
            json_string(w, "note", srv->stats.note);
        }
        json_close(w);
    }
    json_close(w);
}

/* A share, or null when it is not known. */
static void json_share(struct json_writer *w, const char *key, bool known, double value)
{
    if (known) {
        json_double(w, key, value);
    } else {
        json_null(w, key);
    }
}

static void json_limits_client(struct json_writer *w, const struct limits_client *c)
{
    json_open_object(w, "client");
    json_double(w, "cpu_user_s", c->cpu_user_s);
    json_double(w, "cpu_sys_s", c->cpu_sys_s);
    json_u64(w, "threads", c->threads);
    json_double(w, "busy_mean", c->busy_mean);
    json_double(w, "busy_max", c->busy_max);
    json_share(w, "cpu_wait_mean", c->wait_known, c->wait_mean);
    json_share(w, "cpu_wait_max", c->wait_known, c->wait_max);
    json_double(w, "demand_max", c->demand_max);
    json_share(w, "cpus", c->cpus > 0, c->cpus);
    json_share(w, "cpu_share", c->cpus > 0, c->cpu_share);
    json_close(w);
}

/* The host's CPUs and Little's law: the figures the verdict weighs besides the CPU shares. */
static void json_limits_run(struct json_writer *w, const struct limits *l)
{
    if (l->host.known) {
        json_open_object(w, "host");
        results_fields_write(w, &results_obj_host, &l->host);
        json_close(w);
    } else {
        json_null(w, "host");
    }
    json_open_object(w, "in_flight");
    results_fields_write(w, &results_obj_in_flight, l);
    json_close(w);
    results_fields_write(w, &results_obj_limits, l); /* client_lag, send_lag_p99_s */
    if (l->proxy.name[0] == '\0') {
        json_null(w, "proxy");
        return;
    }
    json_open_object(w, "proxy");
    json_string(w, "name", l->proxy.name);
    if (l->proxy.known) {
        json_null(w, "note");
        results_fields_write(w, &results_obj_proxy, &l->proxy);
    } else {
        json_string(w, "note", l->proxy.note);
    }
    json_close(w);
}

/* A borderline verdict: the other verdict, and the figure near its line (both null if not). */
static void json_borderline(struct json_writer *w, const struct limits_borderline *b)
{
    if (!b->near) {
        json_null(w, "borderline");
        json_null(w, "borderline_figure");
        return;
    }
    json_string(w, "borderline", limits_verdict_name(b->with));
    json_open_object(w, "borderline_figure");
    results_fields_write(w, &results_obj_borderline, b);
    json_close(w);
}

static void json_limits_server(struct json_writer *w, const struct limits_server *srv)
{
    json_open_object(w, NULL);
    json_string(w, "name", srv->name);
    json_string(w, "label", srv->label);
    if (srv->known) {
        json_null(w, "note");
        json_double(w, "cpu_s", srv->cpu_s);
        json_share(w, "threads", srv->threads > 0, srv->threads);
        json_double(w, "seconds", srv->seconds);
        json_double(w, "busy", srv->busy);
        json_bool(w, "local", srv->local);
        json_string(w, "cpu_from", srv->from_proc ? "proc" : "stats");
        if (srv->from_proc && srv->note[0] != '\0') {
            json_string(w, "cpu_from_why", srv->note);
        } else {
            json_null(w, "cpu_from_why");
        }
    } else {
        json_string(w, "note", srv->note);
    }
    json_bool(w, "backend", srv->backend);
    json_share(w, "pid", srv->pid > 0, srv->pid);
    json_share(w, "cpu_wait_max", srv->wait_known, srv->wait_max);
    json_close(w);
}

/* What limited a run (or a sweep's step): slap's CPU, the servers', the verdict. */
static void json_limits_object(struct json_writer *w, const struct limits *l)
{
    json_open_object(w, "limits");
    json_string(w, "verdict", limits_verdict_name(l->verdict));
    json_borderline(w, &l->borderline);
    json_string(w, "why", l->why);
    json_double(w, "saturation", LIMITS_SATURATED);
    json_limits_client(w, &l->client);
    json_limits_run(w, l);
    json_open_array(w, "servers", false);
    for (uint32_t i = 0; i < l->nservers; i++) {
        json_limits_server(w, &l->servers[i]);
    }
    json_close(w);
    json_close(w);
}

static void json_limits(struct json_writer *w, const struct results_doc *d)
{
    if (d->has_limits) {
        json_limits_object(w, &d->limits);
    }
}

/* Which runs the document holds: one, or a merged document's every one (none known: absent). */
static void json_runs(struct json_writer *w, const struct results_doc *d)
{
    const struct results_run_id *runs = d->runs.items;
    if (d->runs.n == 0) {
        return;
    }
    json_open_array(w, "runs", false);
    for (size_t i = 0; i < d->runs.n; i++) {
        json_open_object(w, NULL);
        results_fields_write(w, &results_obj_runs, &runs[i]);
        json_close(w);
    }
    json_close(w);
}

static const char *signal_name(int sig)
{
    return sig == 0 ? NULL : sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "SIGTERM";
}

/* The open loop's other views: uncorrected latency and the send lag. */
static void json_open_loop(struct json_writer *w, const struct results_doc *d)
{
    if (d->desc.tps <= 0 && !d->sweep) {
        return;
    }
    json_types(w, "uncorrected", &d->desc, d->global->raw, results_doc_types(d), NULL,
               d->seconds, true, d->intervals, INTERVALS_RAW);
    struct json_ci lag = {d->intervals, INTERVALS_BIT(INTERVALS_LAG)};
    json_open_object(w, "send_lag");
    json_summary(w, &d->desc, d->global->lag, d->seconds, true, &lag);
    json_close(w);
}

static void json_outcomes(struct json_writer *w, const struct results_doc *d)
{
    static const char *const names[STATS_OUTCOMES] = {"hit", "miss"};
    json_open_object(w, "get_outcomes");
    for (int i = 0; i < STATS_OUTCOMES; i++) {
        struct json_ci ci = {d->intervals, INTERVALS_BIT(INTERVALS_HIT + i)};
        json_open_object(w, names[i]);
        json_summary(w, &d->desc, d->global->gets[i], d->seconds, true, &ci);
        json_close(w);
    }
    json_close(w);
}

/* --trace: the trace's lines, requests and rates, as the report gives them. */
static void json_trace(struct json_writer *w, const struct results_doc *d)
{
    const struct results_trace *t = &d->trace;
    if (!t->present) {
        return;
    }
    const struct slap_counters *c = &d->global->counters;
    double rate = trace_progress_rate(&t->sent);
    json_open_object(w, "trace");
    json_open_array(w, "lines", true);
    json_u64(w, NULL, t->sent.min_line);
    json_u64(w, NULL, t->sent.max_line);
    json_close(w);
    json_u64(w, "requests", t->sent.sent);
    json_u64(w, "skipped", t->counts.skipped);
    json_u64(w, "keys_hashed", t->counts.keys_hashed);
    json_u64(w, "values_cut", t->counts.values_cut);
    json_double(w, "trace_tps", rate);
    if (d->desc.trace_speed > 0) {
        json_double(w, "target_tps", rate * d->desc.trace_speed);
    } else {
        json_null(w, "target_tps");
    }
    json_double(w, "achieved_tps", per_second((double)stats_requests(d->global), d->seconds));
    json_double(w, "miss_ratio", c->cmd_get > 0 ? (double)c->get_misses / (double)c->cmd_get : 0);
    json_close(w);
}

/* How the intervals were made, whether the run was steady, --precision's outcome. */
static void json_confidence(struct json_writer *w, const struct results_doc *d)
{
    struct ci_result r;
    struct steady_verdict v;
    static struct hist total; /* main thread only */
    stats_total_hist(d->global, &total);
    intervals_ci(d->intervals, intervals_types(INTERVALS_LAT), &total, 50.0, &r);
    json_open_object(w, "percentile_intervals");
    json_double(w, "level", INTERVALS_LEVEL);
    json_string(w, "method", r.estimable ? ci_method_name(r.method) : "batch means");
    json_u64(w, "batches_max", CI_BATCHES_MAX);
    json_u64(w, "periods", d->intervals != NULL ? d->intervals->periods : 0);
    json_close(w);
    intervals_steady(d->intervals, &v);
    if (v.state == STEADY_UNKNOWN) {
        json_null(w, "steady");
    } else {
        json_bool(w, "steady", v.state == STEADY_YES);
    }
    json_string(w, "steady_why", v.why);
    if (d->precision[0] != '\0') {
        json_string(w, "precision", d->precision);
    }
}

void results_json_begin(struct results_json_stream *js, FILE *out, const struct results_doc *d)
{
    struct json_writer *w = &js->w;
    js->d = d;
    json_writer_init(w, out);
    json_open_object(w, NULL);
    json_u64(w, "schema", RESULTS_SCHEMA);
    json_string(w, "tool", "slap " SLAP_VERSION);
    json_string(w, "kind", d->sweep ? "sweep" : "run");
    json_string(w, "label", d->label);
    json_config(w, &d->desc.config);
    json_u64(w, "start_ms", d->start_ms);
    json_u64(w, "end_ms", d->end_ms);
    json_runs(w, d);
    json_double(w, "seconds", d->seconds);
    json_bool(w, "interrupted", d->signal != 0);
    json_string(w, "signal", signal_name(d->signal));
    json_u64(w, "exit_status", (uint64_t)d->exit_status);
    json_double(w, "period_s", d->period_s);
    json_run_line(w, d);
    json_types(w, "types", &d->desc, d->global->lat, results_doc_types(d), d->global, d->seconds,
               true, d->intervals, INTERVALS_LAT);
    json_confidence(w, d);
    json_open_loop(w, d);
    json_outcomes(w, d);
    json_counters(w, &d->global->counters, d->counters_unknown);
    json_errors(w, &d->global->counters, d->counters_unknown);
    json_open_array(w, "periods", false);
}

void results_json_period(struct results_json_stream *js, const struct results_period *p)
{
    json_period(&js->w, js->d, results_doc_types(js->d), p);
}

void results_json_end(struct results_json_stream *js)
{
    struct json_writer *w = &js->w;
    const struct results_doc *d = js->d;
    json_close(w); /* periods */
    json_steps(w, d);
    json_search(w, d);
    json_rounds(w, d);
    json_servers(w, d);
    json_limits(w, d);
    json_trace(w, d);
    json_open_object(w, "samples");
    results_fields_write(w, &results_obj_samples, d);
    json_close(w);
    json_close(w);
}

void results_write_json(FILE *out, const struct results_doc *d)
{
    struct results_json_stream js;
    const struct results_period *periods = d->periods.items;
    results_json_begin(&js, out, d);
    for (size_t i = 0; i < d->periods.n; i++) {
        results_json_period(&js, &periods[i]);
    }
    results_json_end(&js);
}

/* ---- CSV ------------------------------------------------------------------------------ */

/* The latency columns, without the end of the line. */
static void csv_figures(FILE *out, const struct hist *h)
{
    fprintf(out, "%.3f,%.3f,%.3f,%.3f", h->count ? us(h->min_ns) : 0.0, us(h->max_ns),
            hist_mean_us(h), hist_stddev_us(h));
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(csv_percentiles); i++) {
        fprintf(out, ",%.3f", us(hist_percentile_ns(h, csv_percentiles[i])));
    }
}

/* -d above 1: keys a second at the end of the row, for get (cmd_get) and the total (every
 * operation's keys, as the run line); empty for the other types. */
static void csv_keys(FILE *out, const struct results_doc *d, const struct results_period *p, int t)
{
    if (d->desc.division <= 1) {
        return;
    }
    if (t == OP_GET || t == STATS_TYPES) {
        uint64_t keys = t == OP_GET ? p->counters.cmd_get : stats_counters_ops(&p->counters);
        fprintf(out, ",%.1f", per_second((double)keys, p->seconds));
    } else {
        fputc(',', out);
    }
}

static void csv_header(FILE *out, const struct results_doc *d)
{
    fputs("elapsed_s,type,ops,tps,net_mib_s,misses,errors,min_us,max_us,avg_us,std_us,p50_us,"
          "p90_us,p99_us,p99.9_us",
          out);
    fputs(d->desc.division > 1 ? ",keys_per_s\n" : "\n", out);
}

void results_csv_period(FILE *out, const struct results_doc *d, const struct results_period *p)
{
    static struct hist h; /* main thread only */
    uint32_t types = results_doc_types(d);
    for (int t = 0; t <= STATS_TYPES; t++) {
        if (!shown(types, t)) {
            continue;
        }
        sparse_to_hist(p->lat, t, &h);
        fprintf(out, "%.3f,%s,%llu,%.1f,%.3f,%llu,", p->elapsed_s, stats_type_name(t),
                (unsigned long long)h.count, per_second((double)h.count, p->seconds),
                per_second((double)type_net_bytes(p->net_bytes, t) / MIB, p->seconds),
                (unsigned long long)type_misses(p->misses, &p->counters, t));
        if (t == STATS_TYPES) {
            fprintf(out, "%llu", (unsigned long long)stats_errors(&p->counters));
        }
        fputc(',', out);
        csv_figures(out, &h);
        csv_keys(out, d, p, t);
        fputc('\n', out);
    }
}

/* A step's figures: its percentiles empty where not estimable (the table's "-"), then each
 * one's 95% interval, low and high, empty where not estimable. */
static void csv_step_figures(FILE *out, const struct intervals *iv, const struct hist *h)
{
    enum { N = SLAP_ARRAY_SIZE(csv_percentiles) };
    struct ci_result r[N];
    struct intervals_view v;
    intervals_view_open(&v, iv, intervals_types(INTERVALS_LAT), h);
    for (size_t i = 0; i < N; i++) {
        intervals_view_ci(&v, csv_percentiles[i], &r[i]);
    }
    intervals_view_close(&v);
    fprintf(out, "%.3f,%.3f,%.3f,%.3f", h->count ? us(h->min_ns) : 0.0, us(h->max_ns),
            hist_mean_us(h), hist_stddev_us(h));
    for (size_t i = 0; i < N; i++) {
        if (r[i].estimable) {
            fprintf(out, ",%.3f", us(hist_percentile_ns(h, csv_percentiles[i])));
        } else {
            fputc(',', out);
        }
    }
    for (size_t i = 0; i < N; i++) {
        if (r[i].estimable) {
            fprintf(out, ",%.3f,%.3f", us(r[i].low_ns), us(r[i].high_ns));
        } else {
            fputs(",,", out);
        }
    }
}

static void csv_steps(FILE *out, const struct results_doc *d)
{
    static struct hist h; /* main thread only */
    const struct results_step *steps = d->steps.items;
    fputs("target_tps,achieved_tps,seconds,ops,errors,min_us,max_us,avg_us,std_us,p50_us,"
          "p90_us,p99_us,p99.9_us,p50_low_us,p50_high_us,p90_low_us,p90_high_us,p99_low_us,"
          "p99_high_us,p99.9_low_us,p99.9_high_us\n",
          out);
    for (size_t i = 0; i < d->steps.n; i++) {
        const struct results_step *s = &steps[i];
        uint64_t ops = stats_counters_ops(&s->counters);
        sparse_to_hist(s->lat, STATS_TYPES, &h);
        fprintf(out, "%.0f,%.1f,%.3f,%llu,%llu,", s->target_tps,
                per_second((double)stats_counters_requests(&s->counters), s->seconds), s->seconds,
                (unsigned long long)ops,
                (unsigned long long)stats_errors(&s->counters));
        csv_step_figures(out, s->intervals, &h);
        fputc('\n', out);
    }
}

void results_csv_begin(FILE *out, const struct results_doc *d)
{
    if (d->sweep) {
        csv_steps(out, d);
    } else {
        csv_header(out, d);
    }
}

void results_write_csv(FILE *out, const struct results_doc *d)
{
    const struct results_period *periods = d->periods.items;
    results_csv_begin(out, d);
    for (size_t i = 0; !d->sweep && i < d->periods.n; i++) {
        results_csv_period(out, d, &periods[i]);
    }
}
