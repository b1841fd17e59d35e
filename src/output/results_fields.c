/* The results document's objects as tables of fields (results_fields.h): the one place a field
 * is described, with the generic check, reader and writer the tables drive. */
#include "results_fields.h"

#include <string.h>

#include "slap/judge/limits.h"
#include "slap/output/results.h"

/* A row the hand code writes and reads; the table lists it for the checks. */
#define LISTED(name, type, flags, since, of)                                                       \
    {                                                                                              \
        name, type, flags, since, of, RF_STORE_NONE, 0, 0                                          \
    }
/* A row the table writes and reads itself, at offsetof(st, member). */
#define STORED(name, type, flags, since, store, st, member)                                        \
    {                                                                                              \
        name, type, flags, since, NULL, store, offsetof(st, member), sizeof(((st *)0)->member)     \
    }

#define OBJECT(var, label, path, rows)                                                             \
    const struct results_object var = {label, path, rows, SLAP_ARRAY_SIZE(rows)}

static const struct results_field top_rows[] = {
    LISTED("schema", RF_COUNT, 0, 1, NULL),
    LISTED("tool", RF_TEXT, 0, 1, NULL),
    LISTED("kind", RF_TEXT, 0, 1, NULL),
    LISTED("label", RF_TEXT, 0, 1, NULL),
    LISTED("config", RF_OBJECT, 0, 1, NULL),
    LISTED("start_ms", RF_COUNT, 0, 1, NULL),
    LISTED("end_ms", RF_COUNT, 0, 1, NULL),
    LISTED("runs", RF_ARRAY, 0, 2, "runs"),
    LISTED("seconds", RF_NUMBER, 0, 1, NULL),
    LISTED("interrupted", RF_BOOL, 0, 1, NULL),
    LISTED("signal", RF_TEXT, RF_NULL, 1, NULL),
    LISTED("exit_status", RF_COUNT, 0, 1, NULL),
    LISTED("period_s", RF_NUMBER, 0, 1, NULL),
    LISTED("run", RF_OBJECT, 0, 1, "run"),
    LISTED("types", RF_OBJECT, RF_MAP, 1, "type"),
    LISTED("percentile_intervals", RF_OBJECT, 0, 2, "percentile_intervals"),
    LISTED("steady", RF_BOOL, RF_NULL, 2, NULL),
    LISTED("steady_why", RF_TEXT, 0, 2, NULL),
    LISTED("precision", RF_TEXT, RF_SOMETIMES, 2, NULL),
    LISTED("uncorrected", RF_OBJECT, RF_SOMETIMES | RF_MAP, 1, "summary"),
    LISTED("send_lag", RF_OBJECT, RF_SOMETIMES, 1, "summary"),
    LISTED("late_to_send", RF_OBJECT, RF_SOMETIMES | RF_MAP, 3, "summary"), /* open loop */
    LISTED("held_by_server", RF_OBJECT, RF_SOMETIMES | RF_MAP, 3, "summary"),
    LISTED("slap_tail", RF_OBJECT, RF_SOMETIMES, 3, "summary"),
    LISTED("own_delay", RF_OBJECT, RF_SOMETIMES, 2, "summary"),    /* --timestamps=kernel */
    LISTED("connect_time", RF_OBJECT, RF_SOMETIMES, 2, "summary"), /* reconnections */
    LISTED("get_outcomes", RF_OBJECT, 0, 1, "get_outcomes"),
    LISTED("counters", RF_OBJECT, 0, 1, NULL),
    LISTED("errors", RF_OBJECT, 0, 1, "errors"),
    LISTED("periods", RF_ARRAY, 0, 1, "periods"),
    LISTED("steps", RF_ARRAY, 0, 1, "steps"),
    LISTED("search", RF_OBJECT, RF_SOMETIMES, 2, "search"),
    LISTED("rounds", RF_ARRAY, RF_SOMETIMES, 2, "rounds"),
    LISTED("servers", RF_ARRAY, 0, 1, "servers"),
    LISTED("limits", RF_OBJECT, RF_SOMETIMES, 1, "limits"),
    LISTED("trace", RF_OBJECT, RF_SOMETIMES, 2, "trace"),
    LISTED("samples", RF_OBJECT, 0, 1, "samples"),
    LISTED("probes", RF_ARRAY, RF_SOMETIMES, 2, "probes"),
    LISTED("control", RF_ARRAY, RF_SOMETIMES, 3, "control"),
};
OBJECT(results_obj_top, "document", "", top_rows);

static const struct results_field runs_rows[] = {
    STORED("host", RF_TEXT, 0, 1, RF_STORE_CHARS, struct results_run_id, host),
    STORED("pid", RF_COUNT, 0, 1, RF_STORE_U64, struct results_run_id, pid),
    STORED("start_ms", RF_COUNT, 0, 1, RF_STORE_U64, struct results_run_id, start_ms),
    STORED("label", RF_TEXT, 0, 2, RF_STORE_CHARS, struct results_run_id, label),
    STORED("start_at_ms", RF_COUNT, 0, 2, RF_STORE_U64, struct results_run_id, start_at_ms),
    STORED("requests", RF_COUNT, 0, 2, RF_STORE_U64, struct results_run_id, requests),
    STORED("tps", RF_NUMBER, 0, 2, RF_STORE_DOUBLE, struct results_run_id, tps),
    STORED("errors", RF_COUNT, 0, 2, RF_STORE_U64, struct results_run_id, errors),
    STORED("limited_by", RF_TEXT, 0, 2, RF_STORE_CHARS, struct results_run_id, limited_by),
    /* a groups run's groups (results_json.c writes them when known) */
    LISTED("p50_us", RF_NUMBER, RF_SOMETIMES, 2, NULL),
    LISTED("p90_us", RF_NUMBER, RF_SOMETIMES, 2, NULL),
    LISTED("p99_us", RF_NUMBER, RF_SOMETIMES, 2, NULL),
    LISTED("p99.9_us", RF_NUMBER, RF_SOMETIMES, 2, NULL),
    LISTED("max_us", RF_NUMBER, RF_SOMETIMES, 2, NULL),
};
OBJECT(results_obj_runs, "runs", "/properties/runs/items", runs_rows);

static const struct results_field probes_rows[] = {
    STORED("label", RF_TEXT, 0, 2, RF_STORE_CHARS, struct results_probe, label),
    STORED("requests", RF_COUNT, 0, 2, RF_STORE_U64, struct results_probe, requests),
    STORED("tps", RF_NUMBER, 0, 2, RF_STORE_DOUBLE, struct results_probe, tps),
    STORED("p50_us", RF_NUMBER, 0, 2, RF_STORE_DOUBLE, struct results_probe, p50_us),
    STORED("p99_us", RF_NUMBER, 0, 2, RF_STORE_DOUBLE, struct results_probe, p99_us),
    STORED("p99.9_us", RF_NUMBER, 0, 2, RF_STORE_DOUBLE, struct results_probe, p999_us),
    STORED("max_us", RF_NUMBER, 0, 2, RF_STORE_DOUBLE, struct results_probe, max_us),
};
OBJECT(results_obj_probes, "probes", "/properties/probes/items", probes_rows);

static const struct results_field control_rows[] = {
    STORED("at_s", RF_NUMBER, 0, 3, RF_STORE_DOUBLE, struct rate_change, at_s),
    LISTED("action", RF_TEXT, 0, 3, NULL),
    STORED("tps", RF_NUMBER, 0, 3, RF_STORE_DOUBLE, struct rate_change, tps),
};
OBJECT(results_obj_control, "control", "/properties/control/items", control_rows);

static const struct results_field run_rows[] = {
    LISTED("ops", RF_COUNT, 0, 1, NULL),
    LISTED("tps", RF_NUMBER, 0, 1, NULL),
    LISTED("net_mib_s", RF_NUMBER, 0, 1, NULL),
    LISTED("keys", RF_OBJECT, 0, 1, "keys"),
};
OBJECT(results_obj_run_line, "run", "/properties/run", run_rows);

static const struct results_field keys_rows[] = {
    LISTED("count", RF_COUNT, 0, 1, NULL),
    LISTED("rate", RF_NUMBER, 0, 1, NULL),
};
OBJECT(results_obj_keys, "keys", "/properties/run/properties/keys", keys_rows);

/* A summary's rows; a type's are the same and its traffic. */
#define SUMMARY_ROWS                                                                               \
    LISTED("count", RF_COUNT, 0, 1, NULL), LISTED("rate", RF_NUMBER, 0, 1, NULL),                  \
        LISTED("min_us", RF_NUMBER, 0, 1, NULL), LISTED("max_us", RF_NUMBER, 0, 1, NULL),          \
        LISTED("avg_us", RF_NUMBER, 0, 1, NULL), LISTED("std_us", RF_NUMBER, 0, 1, NULL),          \
        LISTED("geo_us", RF_NUMBER, 0, 1, NULL), LISTED("percentiles", RF_OBJECT, 0, 1, NULL),     \
        LISTED("percentile_ci", RF_OBJECT, 0, 2, NULL), LISTED("hist", RF_OBJECT, 0, 1, "hist")

static const struct results_field summary_rows[] = {SUMMARY_ROWS};
OBJECT(results_obj_summary, "summary", "/$defs/summary", summary_rows);

static const struct results_field type_rows[] = {
    SUMMARY_ROWS,
    LISTED("net_bytes", RF_COUNT, 0, 2, NULL), /* 1d77c31: counters net_get/set_bytes */
    LISTED("net_mib_s", RF_NUMBER, 0, 1, NULL),
    LISTED("misses", RF_COUNT, 0, 1, NULL),
};
OBJECT(results_obj_type, "type", "/$defs/type", type_rows);

static const struct results_field hist_rows[] = {
    LISTED("count", RF_COUNT, 0, 1, NULL),
    LISTED("min_ns", RF_COUNT, 0, 1, NULL),
    LISTED("max_ns", RF_COUNT, 0, 1, NULL),
    LISTED("sum_us", RF_NUMBER, 0, 1, NULL),
    LISTED("sumsq_us", RF_NUMBER, 0, 1, NULL),
    LISTED("sumlog_us", RF_NUMBER, 0, 1, NULL),
    LISTED("buckets", RF_ARRAY, 0, 1, NULL),
    LISTED("log2_us", RF_ARRAY, RF_SOMETIMES, 1, NULL), /* the run's histograms, not a period's */
};
OBJECT(results_obj_hist, "hist", "/$defs/hist", hist_rows);

static const struct results_field outcomes_rows[] = {
    LISTED("hit", RF_OBJECT, 0, 1, "summary"),
    LISTED("miss", RF_OBJECT, 0, 1, "summary"),
};
OBJECT(results_obj_outcomes, "get_outcomes", "/properties/get_outcomes", outcomes_rows);

static const struct results_field errors_rows[] = {
    LISTED("total", RF_COUNT, 0, 1, NULL),
    LISTED("server_error", RF_COUNT, 0, 1, NULL),
    LISTED("client_error", RF_COUNT, 0, 1, NULL),
    LISTED("error_reply", RF_COUNT, 0, 1, NULL),
    LISTED("protocol_error", RF_COUNT, 0, 1, NULL),
    LISTED("unanswered", RF_COUNT, 0, 1, NULL),
    LISTED("unsent", RF_COUNT, 0, 1, NULL),
    LISTED("client_lag", RF_COUNT, RF_NULL, 2, NULL), /* SLAP_COUNTERS' since */
    LISTED("conn_closed", RF_COUNT, 0, 1, NULL),
    LISTED("conn_refused", RF_COUNT, 0, 1, NULL),
    LISTED("udp_timeout", RF_COUNT, 0, 1, NULL),
    LISTED("not_stored", RF_COUNT, 0, 1, NULL),
    LISTED("verify_misses", RF_COUNT, 0, 1, NULL),
    LISTED("verify_failed", RF_COUNT, 0, 1, NULL),
};
OBJECT(results_obj_errors, "errors", "/properties/errors", errors_rows);

static const struct results_field intervals_rows[] = {
    LISTED("level", RF_NUMBER, 0, 1, NULL),
    LISTED("method", RF_TEXT, 0, 1, NULL),
    LISTED("batches_max", RF_COUNT, 0, 1, NULL),
    LISTED("periods", RF_COUNT, 0, 1, NULL),
};
OBJECT(results_obj_intervals, "percentile_intervals", "/properties/percentile_intervals",
       intervals_rows);

static const struct results_field period_rows[] = {
    LISTED("elapsed_s", RF_NUMBER, 0, 1, NULL),
    LISTED("seconds", RF_NUMBER, 0, 1, NULL),
    LISTED("target_rate", RF_NUMBER, RF_SOMETIMES, 2, NULL), /* --ramp */
    LISTED("ops", RF_COUNT, 0, 1, NULL),
    LISTED("errors", RF_COUNT, 0, 1, NULL),
    LISTED("counters", RF_OBJECT, 0, 1, NULL),
    LISTED("types", RF_OBJECT, RF_MAP, 1, "type"),
};
OBJECT(results_obj_period, "periods", "/$defs/period", period_rows);

static const struct results_field step_rows[] = {
    LISTED("target_tps", RF_NUMBER, 0, 1, NULL),
    LISTED("achieved_tps", RF_NUMBER, 0, 1, NULL),
    LISTED("limited_by", RF_TEXT, RF_SOMETIMES, 1, NULL),
    LISTED("slo", RF_TEXT, RF_SOMETIMES, 2, NULL),
    LISTED("limits", RF_OBJECT, RF_SOMETIMES, 2, "limits"),
    LISTED("interrupted", RF_BOOL, 0, 2, NULL),
    LISTED("seconds", RF_NUMBER, 0, 1, NULL),
    LISTED("ops", RF_COUNT, 0, 1, NULL),
    LISTED("errors", RF_COUNT, 0, 1, NULL),
    LISTED("counters", RF_OBJECT, 0, 1, NULL),
    LISTED("types", RF_OBJECT, RF_MAP, 1, "type"),
};
OBJECT(results_obj_step, "steps", "/$defs/step", step_rows);

static const struct results_field round_rows[] = {
    LISTED("round", RF_COUNT, 0, 1, NULL),     LISTED("elapsed_s", RF_NUMBER, 0, 1, NULL),
    LISTED("seconds", RF_NUMBER, 0, 1, NULL),  LISTED("ops", RF_COUNT, 0, 1, NULL),
    LISTED("tps", RF_NUMBER, 0, 1, NULL),      LISTED("errors", RF_COUNT, 0, 1, NULL),
    LISTED("counters", RF_OBJECT, 0, 1, NULL), LISTED("types", RF_OBJECT, RF_MAP, 1, "type"),
};
OBJECT(results_obj_round, "rounds", "/$defs/round", round_rows);

/* A server's own stats: every one stored. */
static const struct results_field server_stats_rows[] = {
#define SERVER_STATS_ROW(field)                                                                    \
    STORED(#field, RF_NUMBER, 0, 1, RF_STORE_DOUBLE, struct server_stats, field),
    SERVER_STATS_FIELDS(SERVER_STATS_ROW)
#undef SERVER_STATS_ROW
};
OBJECT(results_obj_server_stats, "server_stats", "/$defs/server_stats", server_stats_rows);

static const struct results_field server_rows[] = {
    LISTED("name", RF_TEXT, 0, 1, NULL),
    LISTED("label", RF_TEXT, 0, 1, NULL),
    LISTED("note", RF_TEXT, RF_NULL, 1, NULL),
    LISTED("delta", RF_OBJECT, RF_WHEN, 1, "server_stats"), /* note null: the stats were read */
    LISTED("before", RF_OBJECT, RF_WHEN, 1, "server_stats"),
    LISTED("after", RF_OBJECT, RF_WHEN, 1, "server_stats"),
    LISTED("preload_evictions", RF_NUMBER, RF_SOMETIMES, 2, NULL),
};
OBJECT(results_obj_server, "servers", "/$defs/server", server_rows);

static const struct results_field limits_rows[] = {
    LISTED("verdict", RF_TEXT, 0, 1, NULL),
    LISTED("borderline", RF_TEXT, RF_NULL, 2, NULL),
    LISTED("borderline_figure", RF_OBJECT, RF_NULL, 2, "limits.borderline_figure"),
    LISTED("why", RF_TEXT, 0, 1, NULL),
    LISTED("saturation", RF_NUMBER, 0, 1, NULL),
    LISTED("client", RF_OBJECT, 0, 1, "limits.client"),
    LISTED("host", RF_OBJECT, RF_NULL, 2, "limits.host"),
    LISTED("in_flight", RF_OBJECT, 0, 2, "limits.in_flight"),
    STORED("client_lag", RF_COUNT, 0, 2, RF_STORE_U64, struct limits, client_lag),
    STORED("send_lag_p99_s", RF_NUMBER, 0, 2, RF_STORE_DOUBLE, struct limits, send_lag_p99_s),
    STORED("latency_p99_s", RF_NUMBER, 0, 3, RF_STORE_DOUBLE, struct limits, latency_p99_s),
    STORED("late_to_send_p99_s", RF_NUMBER, 0, 3, RF_STORE_DOUBLE, struct limits, slap_late_p99_s),
    STORED("held_by_server_p99_s", RF_NUMBER, 0, 3, RF_STORE_DOUBLE, struct limits, held_p99_s),
    STORED("uncorrected_p99_s", RF_NUMBER, 0, 3, RF_STORE_DOUBLE, struct limits, net_p99_s),
    STORED("slap_tail_share", RF_NUMBER, 0, 3, RF_STORE_DOUBLE, struct limits, slap_tail_share),
    LISTED("proxy", RF_OBJECT, RF_NULL, 2, "limits.proxy"),
    LISTED("servers", RF_ARRAY, 0, 1, "limits.servers"),
};
OBJECT(results_obj_limits, "limits", "/$defs/limits", limits_rows);

static const struct results_field client_rows[] = {
    STORED("cpu_user_s", RF_NUMBER, 0, 1, RF_STORE_DOUBLE, struct limits_client, cpu_user_s),
    STORED("cpu_sys_s", RF_NUMBER, 0, 1, RF_STORE_DOUBLE, struct limits_client, cpu_sys_s),
    STORED("threads", RF_COUNT, 0, 1, RF_STORE_U32, struct limits_client, threads),
    STORED("busy_mean", RF_NUMBER, 0, 1, RF_STORE_DOUBLE, struct limits_client, busy_mean),
    STORED("busy_max", RF_NUMBER, 0, 1, RF_STORE_DOUBLE, struct limits_client, busy_max),
    LISTED("cpu_wait_mean", RF_NUMBER, RF_NULL, 1, NULL),
    LISTED("cpu_wait_max", RF_NUMBER, RF_NULL, 1, NULL),
    STORED("demand_max", RF_NUMBER, 0, 1, RF_STORE_DOUBLE, struct limits_client, demand_max),
    LISTED("cpus", RF_NUMBER, RF_NULL, 2, NULL),
    LISTED("cpu_share", RF_NUMBER, RF_NULL, 2, NULL),
};
OBJECT(results_obj_client, "limits.client", "/$defs/limits/properties/client", client_rows);

static const struct results_field host_rows[] = {
    STORED("cpus", RF_COUNT, 0, 1, RF_STORE_U32, struct limits_host, cpus),
    STORED("busy", RF_NUMBER, 0, 1, RF_STORE_DOUBLE, struct limits_host, busy),
    STORED("steal", RF_NUMBER, 0, 3, RF_STORE_DOUBLE, struct limits_host, steal),
};
OBJECT(results_obj_host, "limits.host", "/$defs/limits/properties/host", host_rows);

static const struct results_field in_flight_rows[] = {
    STORED("mean", RF_NUMBER, 0, 1, RF_STORE_DOUBLE, struct limits, in_flight_mean),
    STORED("possible", RF_COUNT, 0, 1, RF_STORE_U32, struct limits, in_flight_max),
};
OBJECT(results_obj_in_flight, "limits.in_flight", "/$defs/limits/properties/in_flight",
       in_flight_rows);

static const struct results_field proxy_rows[] = {LISTED("name", RF_TEXT, 0, 1, NULL),
                                                  LISTED("note", RF_TEXT, RF_NULL, 1, NULL),
#define PROXY_STATS_ROW(field)                                                                     \
    STORED(#field, RF_NUMBER, RF_WHEN, 1, RF_STORE_DOUBLE, struct limits_proxy, delta.field),
                                                  PROXY_STATS_FIELDS(PROXY_STATS_ROW)
#undef PROXY_STATS_ROW
};
OBJECT(results_obj_proxy, "limits.proxy", "/$defs/limits/properties/proxy", proxy_rows);

static const struct results_field limits_server_rows[] = {
    LISTED("name", RF_TEXT, 0, 1, NULL),
    LISTED("label", RF_TEXT, 0, 1, NULL),
    LISTED("note", RF_TEXT, RF_NULL, 1, NULL),
    /* note null: its CPU was read */
    LISTED("cpu_s", RF_NUMBER, RF_WHEN, 1, NULL),
    LISTED("threads", RF_NUMBER, RF_WHEN | RF_NULL, 1, NULL),
    LISTED("seconds", RF_NUMBER, RF_WHEN, 1, NULL),
    LISTED("busy", RF_NUMBER, RF_WHEN, 1, NULL),
    LISTED("local", RF_BOOL, RF_WHEN, 2, NULL),
    LISTED("cpu_from", RF_TEXT, RF_WHEN, 2, NULL),
    LISTED("cpu_from_why", RF_TEXT, RF_WHEN | RF_NULL, 2, NULL),
    /* known or not */
    LISTED("backend", RF_BOOL, 0, 2, NULL),
    LISTED("pid", RF_NUMBER, RF_NULL, 2, NULL),
    LISTED("cpu_wait_max", RF_NUMBER, RF_NULL, 2, NULL),
};
OBJECT(results_obj_limits_server, "limits.servers", "/$defs/limits/properties/servers/items",
       limits_server_rows);

static const struct results_field borderline_rows[] = {
    STORED("name", RF_TEXT, 0, 1, RF_STORE_CHARS, struct limits_borderline, figure),
    STORED("value", RF_NUMBER, 0, 1, RF_STORE_DOUBLE, struct limits_borderline, value),
    STORED("line", RF_NUMBER, 0, 1, RF_STORE_DOUBLE, struct limits_borderline, line),
    STORED("band", RF_NUMBER, 0, 1, RF_STORE_DOUBLE, struct limits_borderline, band),
};
OBJECT(results_obj_borderline, "limits.borderline_figure",
       "/$defs/limits/properties/borderline_figure", borderline_rows);

static const struct results_field search_rows[] = {
    LISTED("objectives", RF_TEXT, 0, 1, NULL),
    LISTED("capacity_tps", RF_NUMBER, RF_NULL, 1, NULL),
    LISTED("lowest_broken_tps", RF_NUMBER, RF_NULL, 1, NULL),
    LISTED("exhausted", RF_BOOL, 0, 1, NULL),
    LISTED("client_limit_tps", RF_NUMBER, RF_NULL, 1, NULL),
    LISTED("confirmed", RF_BOOL, 0, 2, NULL),
};
OBJECT(results_obj_search, "search", "/properties/search", search_rows);

static const struct results_field trace_rows[] = {
    LISTED("lines", RF_ARRAY, 0, 1, NULL),
    LISTED("requests", RF_COUNT, 0, 1, NULL),
    LISTED("skipped", RF_COUNT, 0, 1, NULL),
    LISTED("keys_hashed", RF_COUNT, 0, 1, NULL),
    LISTED("values_cut", RF_COUNT, 0, 1, NULL),
    LISTED("trace_tps", RF_NUMBER, 0, 1, NULL),
    LISTED("target_tps", RF_NUMBER, RF_NULL, 1, NULL),
    LISTED("achieved_tps", RF_NUMBER, 0, 1, NULL),
    LISTED("miss_ratio", RF_NUMBER, 0, 1, NULL),
};
OBJECT(results_obj_trace, "trace", "/properties/trace", trace_rows);

static const struct results_field samples_rows[] = {
    STORED("written", RF_COUNT, 0, 1, RF_STORE_U64, struct results_doc, samples_written),
    STORED("dropped", RF_COUNT, 0, 1, RF_STORE_U64, struct results_doc, samples_dropped),
};
OBJECT(results_obj_samples, "samples", "/properties/samples", samples_rows);

const struct results_object *const results_objects[] = {
    &results_obj_top,        &results_obj_runs,         &results_obj_run_line,
    &results_obj_keys,       &results_obj_summary,      &results_obj_type,
    &results_obj_hist,       &results_obj_outcomes,     &results_obj_errors,
    &results_obj_intervals,  &results_obj_period,       &results_obj_step,
    &results_obj_round,      &results_obj_server_stats, &results_obj_server,
    &results_obj_limits,     &results_obj_client,       &results_obj_host,
    &results_obj_in_flight,  &results_obj_proxy,        &results_obj_limits_server,
    &results_obj_borderline, &results_obj_search,       &results_obj_trace,
    &results_obj_samples,    &results_obj_probes,       &results_obj_control,
};
const size_t results_nobjects = SLAP_ARRAY_SIZE(results_objects);

const struct results_object *results_object_find(const char *name)
{
    for (size_t i = 0; i < results_nobjects; i++) {
        if (strcmp(results_objects[i]->name, name) == 0) {
            return results_objects[i];
        }
    }
    return NULL;
}

const struct results_field *results_field_find(const struct results_object *o, const char *name)
{
    for (size_t i = 0; i < o->n; i++) {
        if (strcmp(o->fields[i].name, name) == 0) {
            return &o->fields[i];
        }
    }
    return NULL;
}

/* Is v of the field's type? */
static bool of_type(const struct results_field *f, const struct json_value *v)
{
    uint64_t n;
    if (v->type == JSON_NULL) {
        return (f->flags & RF_NULL) != 0;
    }
    switch (f->type) {
    case RF_COUNT:
        return json_to_u64(v, &n);
    case RF_NUMBER:
        return v->type == JSON_NUMBER;
    case RF_TEXT:
        return v->type == JSON_STRING;
    case RF_BOOL:
        return v->type == JSON_TRUE || v->type == JSON_FALSE;
    case RF_OBJECT:
        return v->type == JSON_OBJECT;
    case RF_ARRAY:
        return v->type == JSON_ARRAY;
    }
    return false;
}

static const char *const type_words[] = {
    [RF_COUNT] = "not a whole number", [RF_NUMBER] = "not a number",  [RF_TEXT] = "not text",
    [RF_BOOL] = "not true or false",   [RF_OBJECT] = "not an object", [RF_ARRAY] = "not an array",
};

bool results_field_due(const struct results_object *o, const char *name, unsigned schema)
{
    const struct results_field *f = results_field_find(o, name);
    return f != NULL && f->since <= schema;
}

/* A field missing from a file of a schema that holds it, by the field's since. */
static const char *const missing_since[] = {
    "missing",
    "missing",
    "missing (every file of schema 2 on holds it)",
    "missing (every file of schema 3 on holds it)",
    "missing (every file of schema 4 on holds it)",
    "missing (every file of schema 5 on holds it)",
    "missing (every file of schema 6 on holds it)",
};
_Static_assert(RESULTS_SCHEMA < SLAP_ARRAY_SIZE(missing_since), "words for every schema's fields");

bool results_fields_check(const struct results_object *o, const struct json_value *obj,
                          unsigned schema, bool variant, const char **name, const char **why)
{
    for (size_t i = 0; i < o->n; i++) {
        const struct results_field *f = &o->fields[i];
        const struct json_value *v = json_get(obj, f->name);
        *name = f->name;
        bool wanted = (f->flags & RF_SOMETIMES) == 0 && ((f->flags & RF_WHEN) == 0 || variant);
        if (v == NULL && wanted && f->since <= schema) {
            *why = f->since < SLAP_ARRAY_SIZE(missing_since) ? missing_since[f->since] : "missing";
            return false;
        }
        if (v != NULL && !of_type(f, v)) {
            *why = v->type == JSON_NULL ? "null where a value is due" : type_words[f->type];
            return false;
        }
    }
    return true;
}

void results_fields_write(struct json_writer *w, const struct results_object *o, const void *base)
{
    const char *at = base;
    for (size_t i = 0; i < o->n; i++) {
        const struct results_field *f = &o->fields[i];
        const char *field = at + f->offset;
        uint32_t u32;
        uint64_t u64;
        double d;
        switch (f->store) {
        case RF_STORE_NONE:
            break;
        case RF_STORE_U64:
            memcpy(&u64, field, sizeof(u64));
            json_u64(w, f->name, u64);
            break;
        case RF_STORE_U32:
            memcpy(&u32, field, sizeof(u32));
            json_u64(w, f->name, u32);
            break;
        case RF_STORE_DOUBLE:
            memcpy(&d, field, sizeof(d));
            json_double(w, f->name, d);
            break;
        case RF_STORE_CHARS:
            json_string(w, f->name, field);
            break;
        }
    }
}

/* One stored field from v into field: false with why. */
static bool read_stored(const struct results_field *f, const struct json_value *v, char *field,
                        const char **why)
{
    uint64_t u64 = 0;
    double d = 0;
    const char *text;
    switch (f->store) {
    case RF_STORE_NONE:
        return true;
    case RF_STORE_U64:
    case RF_STORE_U32:
        if (!json_to_u64(v, &u64) ||
            u64 > (f->store == RF_STORE_U32 ? UINT32_MAX : RESULTS_COUNT_MAX)) {
            *why = "not a whole number in range";
            return false;
        }
        if (f->store == RF_STORE_U64) {
            memcpy(field, &u64, sizeof(u64));
        } else {
            uint32_t u32 = (uint32_t)u64;
            memcpy(field, &u32, sizeof(u32));
        }
        return true;
    case RF_STORE_DOUBLE:
        if (!json_to_double(v, &d) || !(d >= 0.0 && d <= (double)RESULTS_COUNT_MAX)) {
            *why = "not a number from 0 to 2^53";
            return false;
        }
        memcpy(field, &d, sizeof(d));
        return true;
    case RF_STORE_CHARS:
        text = json_to_string(v);
        if (text == NULL || strlen(text) >= f->size) {
            *why = "not text, or too long";
            return false;
        }
        memcpy(field, text, strlen(text) + 1);
        return true;
    }
    return false;
}

bool results_fields_read(const struct results_object *o, const struct json_value *obj, void *base,
                         unsigned schema, bool variant, const char **name, const char **why)
{
    char *at = base;
    if (!results_fields_check(o, obj, schema, variant, name, why)) {
        return false;
    }
    for (size_t i = 0; i < o->n; i++) {
        const struct results_field *f = &o->fields[i];
        const struct json_value *v = json_get(obj, f->name);
        *name = f->name;
        if (f->store != RF_STORE_NONE && v != NULL && !read_stored(f, v, at + f->offset, why)) {
            return false;
        }
    }
    return true;
}
