/* A results document's parts beside its figures, read back: the servers' stats, what limited
 * the run (or a step), the runs it holds, slap search's outcome, --precision's. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "slap/judge/limits.h"

#include "results_reader.h"

static void read_server_stats(struct reader *r, const struct json_value *obj, const char *label,
                              struct server_stats *s)
{
    reader_fields(r, &results_obj_server_stats, obj, s, label);
}

void reader_servers(struct reader *r, const struct json_value *list, struct results_doc *d)
{
    for (size_t i = 0; list != NULL && i < list->n && !r->failed; i++) {
        const struct json_value *item = list->items[i];
        struct server_stats_pair pair = {.ok = false};
        const char *name = json_to_string(json_get(item, "name"));
        const char *label = json_to_string(json_get(item, "label"));
        const char *note = json_to_string(json_get(item, "note"));
        if (name == NULL || label == NULL) {
            reader_bad(r, "servers", "an entry lacks its name or label");
            return;
        }
        reader_check(r, &results_obj_server, item, "servers", note == NULL);
        if (note != NULL) {
            snprintf(pair.note, sizeof(pair.note), "%s", note);
        } else {
            pair.ok = true;
            reader_check(r, &results_obj_server_stats, json_get(item, "delta"), "servers delta",
                         false);
            read_server_stats(r, json_get(item, "before"), "servers before", &pair.before);
            read_server_stats(r, json_get(item, "after"), "servers after", &pair.after);
            pair.preload_known = json_get(item, "preload_evictions") != NULL;
            pair.preload_evictions =
                pair.preload_known ? reader_double(r, item, "preload_evictions") : 0.0;
        }
        if (!r->failed && results_add_server(d, name, label, &pair) != SLAP_OK) {
            reader_bad(r, "servers", "out of memory, or too many");
        }
    }
}

static void read_limits_client(struct reader *r, const struct json_value *obj,
                               struct limits_client *c)
{
    bool mean_known, max_known;
    if (obj == NULL || obj->type != JSON_OBJECT) {
        reader_bad(r, "limits", "no \"client\" object");
        return;
    }
    reader_fields(r, &results_obj_client, obj, c, "client");
    c->wait_mean = reader_share(r, obj, "cpu_wait_mean", &mean_known);
    c->wait_max = reader_share(r, obj, "cpu_wait_max", &max_known);
    c->wait_known = mean_known && max_known;
    bool cpus_known = false, share_known = false; /* since 2: absent in some of schema 1 */
    c->cpus = reader_share(r, obj, "cpus", &cpus_known);
    c->cpu_share = reader_share(r, obj, "cpu_share", &share_known);
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
        reader_fields(r, &results_obj_host, host, &l->host, "host");
    }
    if (in_flight != NULL) {
        reader_fields(r, &results_obj_in_flight, in_flight, l, "in_flight");
    }
    reader_fields(r, &results_obj_limits, obj, l, "limits");
}

static void read_limits_server(struct reader *r, const struct json_value *item,
                               struct limits_server *s)
{
    const char *name = json_to_string(json_get(item, "name"));
    const char *label = json_to_string(json_get(item, "label"));
    const char *note = json_to_string(json_get(item, "note"));
    bool threads_known;
    if (name == NULL || label == NULL) {
        reader_bad(r, "limits", "a server lacks its name or label");
        return;
    }
    snprintf(s->name, sizeof(s->name), "%s", name);
    snprintf(s->label, sizeof(s->label), "%s", label);
    s->known = note == NULL;
    reader_check(r, &results_obj_limits_server, item, "limits servers", s->known);
    if (!s->known) {
        snprintf(s->note, sizeof(s->note), "%s", note);
        return;
    }
    s->cpu_s = reader_double(r, item, "cpu_s");
    s->threads = reader_share(r, item, "threads", &threads_known);
    s->seconds = reader_double(r, item, "seconds");
    s->busy = reader_double(r, item, "busy");
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
    double pid = reader_share(r, item, "pid", &pid_known); /* these three: since 2 */
    s->pid = pid_known && pid > 0 && pid < 1e9 ? (int)pid : 0;
    s->wait_max = reader_share(r, item, "cpu_wait_max", &s->wait_known);
}

/* "proxy" (--proxy_stats): twemproxy's counters over the run (with a note when partial), or
 * why they are unknown. */
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
    p->partial = note != NULL && json_get(obj, "requests") != NULL; /* a note and the figures */
    p->known = note == NULL || p->partial;
    snprintf(p->note, sizeof(p->note), "%s", note != NULL ? note : "");
    size_t where = reader_where_push(r, "proxy");
    if (!results_fields_read(&results_obj_proxy, obj, p, r->schema, p->known, &name, &why)) {
        reader_bad(r, name, why);
    }
    reader_where_pop(r, where);
}

/* "borderline" and "borderline_figure" (since 2: absent from some files of schema 1): null, or
 * the verdict the figure near its line would have given, and that figure. */
static void read_borderline(struct reader *r, const struct json_value *obj,
                            struct limits_borderline *b)
{
    const struct json_value *with = json_get(obj, "borderline");
    const struct json_value *figure = json_get(obj, "borderline_figure");
    memset(b, 0, sizeof(*b));
    b->which = LIMITS_LINES; /* the file has its own words */
    if (with == NULL || with->type == JSON_NULL) {
        return;
    }
    if (!limits_verdict_parse(json_to_string(with), &b->with)) {
        reader_bad(r, "borderline", "not null or a verdict slap gives");
        return;
    }
    if (figure == NULL && !results_field_due(&results_obj_limits, "borderline_figure", r->schema)) {
        return; /* a file older than the figure: taken as not near */
    }
    b->near = true;
    reader_fields(r, &results_obj_borderline, figure, b, "borderline_figure");
}

/* A "limits" object (a run's, or a sweep step's): the figures and the verdict into l. */
static bool read_limits_into(struct reader *r, const struct json_value *obj, struct limits *l)
{
    const struct json_value *servers = json_get(obj, "servers");
    if (obj->type != JSON_OBJECT || servers == NULL || servers->type != JSON_ARRAY ||
        servers->n > RESULTS_MAX_ITEMS) {
        reader_bad(r, "limits", "not an object with a \"servers\" array");
        return false;
    }
    if (limits_init(l, (uint32_t)servers->n) != SLAP_OK) {
        reader_bad(r, "limits", "out of memory");
        return false;
    }
    reader_check(r, &results_obj_limits, obj, "limits", false);
    if (!limits_verdict_parse(json_to_string(json_get(obj, "verdict")), &l->verdict)) {
        reader_bad(r, "limits", "its verdict is none slap gives");
    }
    read_borderline(r, obj, &l->borderline);
    const char *why = json_to_string(json_get(obj, "why"));
    snprintf(l->read_why, sizeof(l->read_why), "%s", why != NULL ? why : "");
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
void reader_limits(struct reader *r, const struct json_value *obj, struct results_doc *d)
{
    if (obj != NULL) {
        d->has_limits = read_limits_into(r, obj, &d->limits);
    }
}

/* A sweep step's "limits" (absent in documents of older slaps): its verdict must be the step's
 * limited_by. */
void reader_step_limits(struct reader *r, const struct json_value *item, struct results_step *step)
{
    const struct json_value *obj = json_get(item, "limits");
    if (obj == NULL) {
        return;
    }
    size_t where = reader_where_push(r, "limits");
    step->has_limits = read_limits_into(r, obj, &step->limits);
    if (step->has_limits && !r->failed &&
        strcmp(step->limited_by, limits_verdict_name(step->limits.verdict)) != 0) {
        reader_bad(r, "verdict", "not the step's limited_by");
    }
    reader_where_pop(r, where);
}

/* A run's latency (a groups run's groups): known when all five figures are there. */
static void run_latency(struct reader *r, const struct json_value *run, struct results_run_id *id)
{
    static const char *const names[] = {"p50_us", "p90_us", "p99_us", "p99.9_us", "max_us"};
    double *at[] = {&id->p50_us, &id->p90_us, &id->p99_us, &id->p999_us, &id->max_us};
    size_t found = 0;
    for (size_t k = 0; k < SLAP_ARRAY_SIZE(names); k++) {
        const struct json_value *v = json_get(run, names[k]);
        if (v != NULL && !(json_to_double(v, at[k]) && *at[k] >= 0)) {
            reader_bad(r, "runs", "a run's latency figure is not a number of 0 or more");
            return;
        }
        found += v != NULL;
    }
    id->has_latency = found == SLAP_ARRAY_SIZE(names); /* a figure missing: none is known */
}

/* "runs" (since 2; a file of schema 1 may have none: its label and start stand for its host
 * and run). */
void reader_runs(struct reader *r, const struct json_value *list, struct results_doc *d)
{
    struct results_run_id id = {.pid = 0, .start_ms = d->start_ms};
    if (list == NULL) {
        snprintf(id.host, sizeof(id.host), "%s", d->label);
        if (results_add_run(d, &id) != SLAP_OK) {
            reader_bad(r, "runs", "out of memory");
        }
        return;
    }
    if (list->type != JSON_ARRAY || list->n == 0 || list->n > RESULTS_MAX_ITEMS) {
        reader_bad(r, "runs", "not an array of runs");
        return;
    }
    for (size_t i = 0; i < list->n && !r->failed; i++) {
        const char *host = json_to_string(json_get(list->items[i], "host"));
        if (host == NULL || !reader_printable(host)) {
            reader_bad(r, "runs", "a run lacks its host, or it is not printable");
            return;
        }
        reader_fields(r, &results_obj_runs, list->items[i], &id, "runs");
        run_latency(r, list->items[i], &id);
        if (!r->failed && results_add_run(d, &id) != SLAP_OK) {
            reader_bad(r, "runs", "out of memory, or too many");
        }
    }
}

/* "probes" (since 2, a merge's --probe runs; absent from other documents). */
void reader_probes(struct reader *r, const struct json_value *list, struct results_doc *d)
{
    if (list == NULL || r->failed) {
        return;
    }
    if (list->type != JSON_ARRAY || list->n > RESULTS_MAX_ITEMS) {
        reader_bad(r, "probes", "not an array of probes");
        return;
    }
    for (size_t i = 0; i < list->n && !r->failed; i++) {
        struct results_probe p;
        memset(&p, 0, sizeof(p));
        const char *label = json_to_string(json_get(list->items[i], "label"));
        if (label != NULL && !reader_printable(label)) {
            reader_bad(r, "probes", "a probe's label is not printable");
            return;
        }
        reader_fields(r, &results_obj_probes, list->items[i], &p, "probes");
        if (!r->failed && results_keep_probe(d, &p) != SLAP_OK) {
            reader_bad(r, "probes", "out of memory, or too many");
        }
    }
}

void reader_control(struct reader *r, const struct json_value *list, struct results_doc *d)
{
    if (list == NULL || r->failed || r->schema < 3) {
        return; /* since 3: an older document has none */
    }
    if (list->type != JSON_ARRAY || list->n > RESULTS_MAX_ITEMS) {
        reader_bad(r, "control", "not an array of changes");
        return;
    }
    double last = -INFINITY;
    for (size_t i = 0; i < list->n && !r->failed; i++) {
        struct rate_change c = {0};
        const char *action = json_to_string(json_get(list->items[i], "action"));
        if (action == NULL || !rate_action_parse(action, &c.action)) {
            reader_bad(r, "control", "a change's action is not rate, pause, resume or stop");
            return;
        }
        reader_fields(r, &results_obj_control, list->items[i], &c, "control");
        if (r->failed) {
            return;
        }
        if (!(c.tps >= 0) || c.at_s < last) {
            reader_bad(r, "control",
                       "a change's rate is negative, or the changes are not in "
                       "time order");
            return;
        }
        last = c.at_s;
        if (results_keep_change(d, &c) != SLAP_OK) {
            reader_bad(r, "control", "out of memory, or too many");
        }
    }
}

/* slap search's outcome (absent from other documents; "confirmed" since 2). */
void reader_search(struct reader *r, const struct json_value *v, struct results_doc *d)
{
    struct results_search *s = &d->search;
    if (v == NULL || r->failed) {
        return;
    }
    const char *objectives = json_to_string(json_get(v, "objectives"));
    const struct json_value *exhausted = json_get(v, "exhausted");
    const struct json_value *confirmed = json_get(v, "confirmed");
    if (v->type != JSON_OBJECT || objectives == NULL || !reader_printable(objectives) ||
        strlen(objectives) >= sizeof(s->objectives)) {
        reader_bad(r, "search", "not an object with its objectives as text");
        return;
    }
    s->present = true;
    snprintf(s->objectives, sizeof(s->objectives), "%s", objectives);
    s->capacity_tps = reader_rate_or_null(r, v, "capacity_tps");
    s->lowest_broken = reader_rate_or_null(r, v, "lowest_broken_tps");
    s->client_limit = reader_rate_or_null(r, v, "client_limit_tps");
    reader_check(r, &results_obj_search, v, "search", false);
    s->exhausted = exhausted != NULL && exhausted->type == JSON_TRUE;
    /* schema 1 without it: a capacity was given only when found */
    s->confirmed = confirmed != NULL ? confirmed->type == JSON_TRUE : s->capacity_tps > 0;
}

/* --precision's outcome, as the report's line says it (absent without the option). */
void reader_precision(struct reader *r, const struct json_value *v, struct results_doc *d)
{
    const char *text = json_to_string(v);
    if (v == NULL) {
        return;
    }
    if (text == NULL || strlen(text) >= sizeof(d->precision) || !reader_printable(text)) {
        reader_bad(r, "precision", "not printable text of up to 159 bytes");
        return;
    }
    snprintf(d->precision, sizeof(d->precision), "%s", text);
}
