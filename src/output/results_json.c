/* The results document written as JSON (schema/slap-results.schema.json), whole or a period at
 * a time; the fields of each object are results_fields.c's. */
#include "slap/output/results_json.h"
#include "slap/output/intervals.h"
#include "slap/output/limits_words.h"

#include <signal.h>
#include <string.h>

#include "slap/base/json.h"
#include "slap/base/version.h"

#include "results_fields.h"
#include "results_figures.h"

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
            if ((ci != NULL && !r[i].estimable) || h->count == 0) {
                json_null(w, name); /* too few to estimate; or none answered: no latency */
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
                       double seconds, bool log2, const struct intervals *iv, int series,
                       struct hist *scratch)
{
    struct hist *total = &scratch[0], *none = &scratch[1]; /* none: a type without events */
    hist_clear(total);
    hist_clear(none);
    json_open_object(w, key);
    for (int t = 0; t <= STATS_TYPES; t++) {
        const struct hist *h = t == STATS_TYPES ? total : view[t] != NULL ? view[t] : none;
        if (t < STATS_TYPES) {
            hist_merge(total, h);
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

/* A period's or a step's types: summaries from their sparse histograms. */
static void json_sparse_types(struct json_writer *w, const struct run_desc *desc, uint32_t types,
                              const struct results_sparse *lat, const uint64_t *net_bytes,
                              const uint64_t *misses, const struct slap_counters *c, double seconds,
                              bool step, const struct intervals *iv, struct hist *h)
{
    json_open_object(w, "types");
    for (int t = 0; t <= STATS_TYPES; t++) {
        if (!shown(types, t)) {
            continue;
        }
        results_sparse_to_hist(lat, t, h);
        struct json_ci ci = {iv, t == STATS_TYPES ? intervals_types(INTERVALS_LAT)
                                                  : INTERVALS_BIT(INTERVALS_LAT + t)};
        json_open_object(w, stats_type_name(t));
        json_summary(w, desc, h, seconds, false, step ? &ci : NULL);
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
    if (results_has_targets(d)) {
        json_double(w, "target_rate", results_period_target(d, p));
    }
    json_u64(w, "ops", stats_counters_ops(&p->counters));
    json_u64(w, "errors", stats_errors(&p->counters));
    json_counters(w, &p->counters, d->counters_unknown);
    json_sparse_types(w, &d->desc, types, p->lat, p->net_bytes, p->misses, &p->counters, p->seconds,
                      false, NULL, d->scratch);
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
                          s->seconds, true, s->intervals, d->scratch);
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
                          p->seconds, false, NULL, d->scratch);
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
    if (l->proxy.known) { /* partial figures: the numbers with a note saying how much */
        if (l->proxy.partial) {
            json_string(w, "note", l->proxy.note);
        } else {
            json_null(w, "note");
        }
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
    char why[LIMITS_WHY_MAX];
    json_open_object(w, "limits");
    json_string(w, "verdict", limits_verdict_name(l->verdict));
    json_borderline(w, &l->borderline);
    json_string(w, "why", limits_why(l, why, sizeof(why)));
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
        struct results_run_id id = runs[i];
        if (d->runs.n == 1) {
            results_run_figures(d, &id); /* one run: the document's own */
        }
        json_open_object(w, NULL);
        results_fields_write(w, &results_obj_runs, &id);
        if (id.has_latency) {
            json_double(w, "p50_us", id.p50_us);
            json_double(w, "p90_us", id.p90_us);
            json_double(w, "p99_us", id.p99_us);
            json_double(w, "p99.9_us", id.p999_us);
            json_double(w, "max_us", id.max_us);
        }
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
    json_types(w, "uncorrected", &d->desc, d->global->raw, results_doc_types(d), NULL, d->seconds,
               true, d->intervals, INTERVALS_RAW, d->scratch);
    struct json_ci lag = {d->intervals, INTERVALS_BIT(INTERVALS_LAG)};
    json_open_object(w, "send_lag");
    json_summary(w, &d->desc, d->global->lag, d->seconds, true, &lag);
    json_close(w);
    bool parts = false;
    for (int t = 0; t < STATS_TYPES; t++) {
        parts = parts || (d->global->late[t] != NULL && d->global->late[t]->count > 0);
    }
    if (!parts) {
        return; /* nothing answered, or a document from before the parts (schema 3) */
    }
    json_types(w, "late_to_send", &d->desc, d->global->late, results_doc_types(d), NULL, d->seconds,
               true, NULL, 0, d->scratch);
    json_types(w, "held_by_server", &d->desc, d->global->held, results_doc_types(d), NULL,
               d->seconds, true, NULL, 0, d->scratch);
    json_open_object(w, "slap_tail");
    json_summary(w, &d->desc, d->global->slap_tail, d->seconds, true, NULL);
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
    struct hist *total = d->scratch;
    stats_total_hist(d->global, total);
    intervals_ci(d->intervals, intervals_types(INTERVALS_LAT), total, 50.0, &r);
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
               true, d->intervals, INTERVALS_LAT, d->scratch);
    json_confidence(w, d);
    json_open_loop(w, d);
    if (d->global->own != NULL && d->global->own->count > 0) { /* --timestamps=kernel */
        json_open_object(w, "own_delay");
        json_summary(w, &d->desc, d->global->own, d->seconds, true, NULL);
        json_close(w);
    }
    if (d->global->connect != NULL && d->global->connect->count > 0) { /* reconnections */
        json_open_object(w, "connect_time");
        json_summary(w, &d->desc, d->global->connect, d->seconds, true, NULL);
        json_close(w);
    }
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
    if (d->probes.n > 0) { /* a merge's --probe runs, apart from the load */
        const struct results_probe *probes = d->probes.items;
        json_open_array(w, "probes", false);
        for (size_t i = 0; i < d->probes.n; i++) {
            json_open_object(w, NULL);
            results_fields_write(w, &results_obj_probes, &probes[i]);
            json_close(w);
        }
        json_close(w);
    }
    if (d->changes.n > 0) { /* --control's changes */
        const struct rate_change *changes = d->changes.items;
        json_open_array(w, "control", false);
        for (size_t i = 0; i < d->changes.n; i++) {
            json_open_object(w, NULL);
            json_double(w, "at_s", changes[i].at_s);
            json_string(w, "action", rate_action_name(changes[i].action));
            json_double(w, "tps", changes[i].tps);
            json_close(w);
        }
        json_close(w);
    }
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
