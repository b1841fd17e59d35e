/* Results documents read back (strictly: a file slap did not write is refused) and merged. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "slap/json.h"
#include "slap/results.h"

#include "results_split.h"

#define READ_ERR_MAX 512

/* Options a document records but a reader does not replay: files of the host that ran it,
 * and instants already past. */
static const char *const not_replayed[] = {"cfg_cmd",  "tls_ca",  "tls_cert", "tls_key",
                                           "json",     "csv",     "svg",      "samples",
                                           "start_at", "hdr_out", "binary",   "sample_rate"};

/* Settings that must be equal for a sum of two runs to mean something. */
static const char *const workload_settings[] = {
    "protocol",   "key_size",    "value_size",  "ratio",     "mix",          "division",
    "win_size",   "verify",      "exp_verify",  "exp_time",  "overwrite",    "rep_write",
    "key_dist",   "udp",         "facebook",    "tls",       "pipeline",     "arrival",
    "latency",    "sweep",       "step_time",   "trace",     "trace_speed",  "trace_limit",
    "trace_spread", "execute_number",
};

static bool replayed(const char *name)
{
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(not_replayed); i++) {
        if (strcmp(name, not_replayed[i]) == 0) {
            return false;
        }
    }
    return true;
}

/* Does v say what the option says when it is not given? (Only settings given are replayed:
 * some options are refused without others, even at their default value.) */
static bool is_default(size_t row, const struct json_value *v)
{
    static struct slap_options defaults;
    char text[1024];
    options_defaults(&defaults);
    switch (options_value(&defaults, row, text, sizeof(text))) {
    case OPTION_VALUE_NONE:
        return v->type == JSON_NULL;
    case OPTION_VALUE_BOOL:
        return (v->type == JSON_TRUE) == (strcmp(text, "true") == 0);
    case OPTION_VALUE_NUMBER:
    case OPTION_VALUE_TEXT:
        return (v->type == JSON_NUMBER || v->type == JSON_STRING) && strcmp(v->text, text) == 0;
    case OPTION_VALUE_SKIP:
    default:
        return true;
    }
}

/* "--name=value" (a duration's seconds with "s"), or "--name" for a flag set; NULL to skip. */
static char *replay_arg(size_t row, const char *name, const struct json_value *v)
{
    char *arg = NULL;
    int n = -1;
    if (!replayed(name) || v->type == JSON_NULL || v->type == JSON_FALSE || is_default(row, v)) {
        return NULL;
    }
    if (v->type == JSON_TRUE) {
        n = asprintf(&arg, "--%s", name);
    } else if (v->type == JSON_NUMBER || v->type == JSON_STRING) {
        n = asprintf(&arg, "--%s=%s%s", name, v->text,
                     options_table_is_duration(row) && v->type == JSON_NUMBER ? "s" : "");
    }
    return n < 0 ? NULL : arg;
}

/* The options the document's "config" says, read as slap would read them from a command line. */
static enum slap_status replay_config(const struct json_value *config, struct results_doc *d,
                                      char *err, size_t err_len)
{
    if (config == NULL || config->type != JSON_OBJECT) {
        snprintf(err, err_len, "no \"config\" object");
        return SLAP_ERROR;
    }
    d->argv = calloc(config->n + 2, sizeof(*d->argv));
    if (d->argv == NULL) {
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    d->argv[d->argc++] = strdup("slap");
    for (size_t i = 0; i < config->n; i++) {
        size_t row = options_table_find(config->keys[i]);
        if (row == options_table_size()) {
            snprintf(err, err_len, "config: unknown option '%.60s' (written by a newer slap?)",
                     config->keys[i]);
            return SLAP_ERROR;
        }
        char *arg = replay_arg(row, config->keys[i], config->items[i]);
        if (arg != NULL) {
            d->argv[d->argc++] = arg;
        }
    }
    char *why = NULL;
    size_t why_len = 0;
    FILE *msg = open_memstream(&why, &why_len);
    enum options_outcome outcome =
        msg != NULL ? options_parse(&d->opts, d->argc, d->argv, msg, msg) : OPTIONS_USAGE;
    if (msg != NULL) {
        fclose(msg);
    }
    if (outcome != OPTIONS_RUN) {
        size_t line = why != NULL ? strcspn(why, "\n") : 0;
        snprintf(err, err_len, "config does not read back as options: %.*s", (int)line,
                 why != NULL ? why : "");
    }
    free(why);
    return outcome == OPTIONS_RUN ? SLAP_OK : SLAP_ERROR;
}

/* ---- members -------------------------------------------------------------------------- */

struct reader {
    char *err;
    size_t err_len;
    bool failed;
    char where[64]; /* what is being read ("periods[3] get"), before the member's name */
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

/* A histogram object into h (empty first): its counts must add up, its bounds and sums hold. */
static void read_hist(struct reader *r, const struct json_value *obj, struct hist *h)
{
    uint64_t sum = 0, log2_sum = 0;
    hist_reset(h);
    if (obj == NULL || obj->type != JSON_OBJECT) {
        bad(r, "hist", "missing, or not an object");
        return;
    }
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
    if (!r->failed) {
        check_sums(r, h);
    }
}

/* Every type of "types" (object of name -> {hist, net_bytes, misses}) into view (every type
 * kept), and their bytes and misses unless NULL; an unknown type is an error. */
static void read_types(struct reader *r, const struct json_value *types, struct hist *const *view,
                       uint64_t *net_bytes, uint64_t *misses)
{
    for (size_t i = 0; types != NULL && i < types->n && !r->failed; i++) {
        int t = 0;
        while (t <= STATS_TYPES && strcmp(results_type_name(t), types->keys[i]) != 0) {
            t++;
        }
        if (t > STATS_TYPES) {
            bad(r, types->keys[i], "unknown request type (written by a newer slap?)");
        } else if (t < STATS_TYPES) {
            size_t where = where_push(r, types->keys[i]);
            read_hist(r, json_get(types->items[i], "hist"), view[t]);
            if (net_bytes != NULL) {
                net_bytes[t] = get_u64(r, types->items[i], "net_bytes");
                misses[t] = get_u64(r, types->items[i], "misses");
            }
            where_pop(r, where);
        }
    }
}

static void read_counters(struct reader *r, const struct json_value *obj, struct slap_counters *c)
{
    if (obj == NULL || obj->type != JSON_OBJECT) {
        bad(r, "counters", "missing, or not an object");
        return;
    }
#define SLAP_COUNTER_READ(name, show, meaning) c->name = get_u64(r, obj, #name);
    SLAP_COUNTERS(SLAP_COUNTER_READ)
#undef SLAP_COUNTER_READ
}

/* A step's verdict, when known, and whether a signal cut it short (older slaps do not say). */
static void read_step_marks(struct reader *r, const struct json_value *item,
                            struct results_step *step)
{
    const char *limited_by = json_to_string(json_get(item, "limited_by"));
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
}

/* Period (or step) i: into s, then appended to d. */
static void read_item(struct reader *r, const struct json_value *item, struct results_doc *d,
                      bool steps, size_t i, struct slap_stats *s)
{
    char name[32];
    snprintf(name, sizeof(name), "%s[%zu]", steps ? "steps" : "periods", i);
    size_t where = where_push(r, name);
    stats_reset(s);
    read_counters(r, json_get(item, "counters"), &s->counters);
    read_types(r, get_typed(r, item, "types", JSON_OBJECT), s->lat, s->net_bytes, s->misses);
    double seconds = get_double(r, item, "seconds");
    enum slap_status st = SLAP_ERROR;
    if (!r->failed) {
        st = steps ? results_add_step(d, get_double(r, item, "target_tps"), seconds, s)
                   : results_add_period(d, get_double(r, item, "elapsed_s"), seconds, s);
        if (st != SLAP_OK) {
            bad(r, steps ? "steps" : "periods", "out of memory, or too many");
        }
    }
    if (st == SLAP_OK && steps) {
        read_step_marks(r, item, &((struct results_step *)d->steps.items)[d->steps.n - 1]);
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

/* Periods or steps: one slap_stats each, handed to add. */
static void read_items(struct reader *r, const struct json_value *list, struct results_doc *d,
                       bool steps)
{
    struct slap_stats *s = new_scratch();
    for (size_t i = 0; s != NULL && list != NULL && i < list->n && !r->failed; i++) {
        read_item(r, list->items[i], d, steps, i, s);
    }
    if (s == NULL) {
        bad(r, "document", "out of memory");
    }
    free_scratch(s);
}

static void read_server_stats(struct reader *r, const struct json_value *obj,
                              struct server_stats *s)
{
#define SERVER_STATS_READ(field) s->field = get_double(r, obj, #field);
    SERVER_STATS_FIELDS(SERVER_STATS_READ)
#undef SERVER_STATS_READ
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
        if (note != NULL) {
            snprintf(pair.note, sizeof(pair.note), "%s", note);
        } else {
            pair.ok = true;
            read_server_stats(r, get_typed(r, item, "before", JSON_OBJECT), &pair.before);
            read_server_stats(r, get_typed(r, item, "after", JSON_OBJECT), &pair.after);
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
    c->cpu_user_s = get_double(r, obj, "cpu_user_s");
    c->cpu_sys_s = get_double(r, obj, "cpu_sys_s");
    c->threads = (uint32_t)get_u64_max(r, obj, "threads", UINT32_MAX);
    c->busy_mean = get_double(r, obj, "busy_mean");
    c->busy_max = get_double(r, obj, "busy_max");
    c->wait_mean = get_share(r, obj, "cpu_wait_mean", &mean_known);
    c->wait_max = get_share(r, obj, "cpu_wait_max", &max_known);
    c->wait_known = mean_known && max_known;
    c->demand_max = get_double(r, obj, "demand_max");
    bool cpus_known = false, share_known = false; /* absent in documents of slap before 0.x */
    if (json_get(obj, "cpus") != NULL) {
        c->cpus = get_share(r, obj, "cpus", &cpus_known);
        c->cpu_share = get_share(r, obj, "cpu_share", &share_known);
    }
    if (!cpus_known || !share_known) {
        c->cpus = c->cpu_share = 0;
    }
}

/* The host's CPUs and requests in flight, where the document has them (else unknown). */
static void read_limits_run(struct reader *r, const struct json_value *obj, struct limits *l)
{
    const struct json_value *host = json_get(obj, "host");
    const struct json_value *in_flight = json_get(obj, "in_flight");
    if (host != NULL && host->type == JSON_OBJECT) {
        l->host.known = true;
        l->host.cpus = (uint32_t)get_u64_max(r, host, "cpus", UINT32_MAX);
        l->host.busy = get_double(r, host, "busy");
    }
    if (in_flight != NULL && in_flight->type == JSON_OBJECT) {
        l->in_flight_mean = get_double(r, in_flight, "mean");
        l->in_flight_max = (uint32_t)get_u64_max(r, in_flight, "possible", UINT32_MAX);
    }
    if (json_get(obj, "client_lag") != NULL) {
        l->client_lag = get_u64(r, obj, "client_lag");
        l->send_lag_p99_s = get_double(r, obj, "send_lag_p99_s");
    }
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
}

/* What every server entry may add, known or not: behind a proxy, its process, its CPU wait. */
static void read_limits_server_process(struct reader *r, const struct json_value *item,
                                       struct limits_server *s)
{
    const struct json_value *backend = json_get(item, "backend");
    bool pid_known = false;
    s->backend = backend != NULL && backend->type == JSON_TRUE;
    if (json_get(item, "pid") != NULL) {
        double pid = get_share(r, item, "pid", &pid_known);
        s->pid = pid_known && pid > 0 && pid < 1e9 ? (int)pid : 0;
    }
    if (json_get(item, "cpu_wait_max") != NULL) {
        s->wait_max = get_share(r, item, "cpu_wait_max", &s->wait_known);
    }
}

/* "proxy" (--proxy_stats): twemproxy's counters over the run, or why they are unknown. */
static void read_limits_proxy(struct reader *r, const struct json_value *obj,
                              struct limits_proxy *p)
{
    if (obj == NULL || obj->type != JSON_OBJECT) {
        return;
    }
    const char *name = json_to_string(json_get(obj, "name"));
    const char *note = json_to_string(json_get(obj, "note"));
    snprintf(p->name, sizeof(p->name), "%s", name != NULL ? name : "");
    p->known = note == NULL;
    snprintf(p->note, sizeof(p->note), "%s", note != NULL ? note : "");
    if (p->known) {
#define PROXY_STATS_READ(field) p->delta.field = get_double(r, obj, #field);
        PROXY_STATS_FIELDS(PROXY_STATS_READ)
#undef PROXY_STATS_READ
    }
}

/* "limits" (absent when the run measured nothing): the figures and the verdict. */
static void read_limits(struct reader *r, const struct json_value *obj, struct results_doc *d)
{
    const struct json_value *servers = json_get(obj, "servers");
    struct limits *l = &d->limits;
    if (obj == NULL) {
        return;
    }
    if (obj->type != JSON_OBJECT || servers == NULL || servers->type != JSON_ARRAY ||
        servers->n > RESULTS_MAX_ITEMS) {
        bad(r, "limits", "not an object with a \"servers\" array");
        return;
    }
    if (limits_init(l, (uint32_t)servers->n) != SLAP_OK) {
        bad(r, "limits", "out of memory");
        return;
    }
    d->has_limits = true;
    if (!limits_verdict_parse(json_to_string(json_get(obj, "verdict")), &l->verdict)) {
        bad(r, "limits", "its verdict is none slap gives");
    }
    const char *why = json_to_string(json_get(obj, "why"));
    snprintf(l->why, sizeof(l->why), "%s", why != NULL ? why : "");
    read_limits_client(r, json_get(obj, "client"), &l->client);
    read_limits_run(r, obj, l);
    for (size_t i = 0; i < servers->n && !r->failed; i++) {
        read_limits_server(r, servers->items[i], &l->servers[i]);
        read_limits_server_process(r, servers->items[i], &l->servers[i]);
    }
    read_limits_proxy(r, json_get(obj, "proxy"), &l->proxy);
}

/* A label shown in text reports: results_label_problem's rule, the one --label follows. */
static bool printable_text(const char *s)
{
    return results_label_problem(s) == NULL;
}

/* "runs" (an older file has none: its label and start stand for its host and run). */
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
        snprintf(id.host, sizeof(id.host), "%s", host);
        id.pid = get_u64(r, list->items[i], "pid");
        id.start_ms = get_u64(r, list->items[i], "start_ms");
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

/* The members of the top level, in the order results_write_json writes them. */
static void read_top(struct reader *r, const struct json_value *root, struct results_doc *d)
{
    const char *kind = json_to_string(json_get(root, "kind"));
    const char *label = json_to_string(json_get(root, "label"));
    if (kind == NULL || (strcmp(kind, "run") != 0 && strcmp(kind, "sweep") != 0)) {
        bad(r, "kind", "missing, or neither \"run\" nor \"sweep\"");
    }
    if (label == NULL || !printable_text(label)) {
        bad(r, "label", "missing, empty, too long or not printable");
    }
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
               d->global->misses);
    read_types(r, json_get(root, "uncorrected"), d->global->raw, NULL, NULL);
    const struct json_value *lag = json_get(root, "send_lag");
    if (lag != NULL) {
        read_hist(r, json_get(lag, "hist"), &d->global->lag);
    }
    const struct json_value *outcomes = get_typed(r, root, "get_outcomes", JSON_OBJECT);
    read_hist(r, json_get(json_get(outcomes, "hit"), "hist"), &d->global->gets[STATS_HIT]);
    read_hist(r, json_get(json_get(outcomes, "miss"), "hist"), &d->global->gets[STATS_MISS]);
    read_counters(r, json_get(root, "counters"), &d->global->counters);
    read_items(r, get_typed(r, root, "periods", JSON_ARRAY), d, false);
    read_items(r, get_typed(r, root, "steps", JSON_ARRAY), d, true);
    read_servers(r, get_typed(r, root, "servers", JSON_ARRAY), d);
    read_limits(r, json_get(root, "limits"), d);
}

/* The document without its periods' elements (results_split's head) into d. */
static void read_head(struct reader *r, const char *text, size_t len, struct results_doc *d)
{
    struct json_value *root = NULL;
    uint64_t schema = 0;
    if (json_parse(text, len, &root, r->err, r->err_len) != SLAP_OK) {
        r->failed = true;
        return;
    }
    if (root->type != JSON_OBJECT || !json_to_u64(json_get(root, "schema"), &schema)) {
        bad(r, "schema", "not a slap results document (no \"schema\" number)");
    } else if (schema != RESULTS_SCHEMA) {
        char why[64];
        snprintf(why, sizeof(why), "version %llu; this slap reads version %d",
                 (unsigned long long)schema, RESULTS_SCHEMA);
        bad(r, "schema", why);
    } else if (replay_config(json_get(root, "config"), d, r->err, r->err_len) != SLAP_OK) {
        r->failed = true;
    } else {
        read_top(r, root, d);
    }
    json_free(root);
}

/* What reads a file's periods one at a time. */
struct period_reader {
    struct reader r;
    struct results_doc *d;
    struct slap_stats *scratch;
};

/* One period's text (results_split_each): parsed, read into the document, its tree freed. */
static enum slap_status read_period_text(void *arg, const char *text, size_t len, size_t index,
                                         size_t line)
{
    struct period_reader *p = arg;
    struct json_value *item = NULL;
    char why[READ_ERR_MAX];
    if (json_parse(text, len, &item, why, sizeof(why)) != SLAP_OK) {
        snprintf(p->r.err, p->r.err_len, "periods[%zu], from line %zu: %s", index, line, why);
        p->r.failed = true;
        return SLAP_ERROR;
    }
    read_item(&p->r, item, p->d, false, index, p->scratch);
    json_free(item);
    return p->r.failed ? SLAP_ERROR : SLAP_OK;
}

/* A document from in, a period at a time, into d (initialised). */
static enum slap_status read_stream(FILE *in, struct results_doc *d, char *err, size_t err_len)
{
    struct period_reader p = {.r = {.err = err, .err_len = err_len}, .d = d};
    char *head = NULL;
    size_t head_len = 0;
    p.scratch = new_scratch();
    if (p.scratch == NULL) {
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    if (results_split(in, &head, &head_len, read_period_text, &p, err, err_len) != SLAP_OK) {
        p.r.failed = true;
    } else {
        read_head(&p.r, head, head_len, d);
    }
    free(head);
    free_scratch(p.scratch);
    return p.r.failed ? SLAP_ERROR : SLAP_OK;
}

enum slap_status results_parse(const char *text, size_t len, struct results_doc *d, char *err,
                               size_t err_len)
{
    struct reader r = {.err = err, .err_len = err_len};
    if (results_doc_init(d) != SLAP_OK) {
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    FILE *in = len > 0 ? fmemopen((void *)text, len, "r") : NULL;
    if (in == NULL) {
        read_head(&r, text, len, d); /* nothing to split: json_parse says what is wrong */
        return r.failed ? SLAP_ERROR : SLAP_OK;
    }
    enum slap_status st = read_stream(in, d, err, err_len);
    fclose(in);
    return st;
}

enum slap_status results_read(const char *path, struct results_doc *d, char *err, size_t err_len)
{
    char why[READ_ERR_MAX] = "";
    FILE *f = fopen(path, "r");
    enum slap_status st = SLAP_ERROR;
    memset(d, 0, sizeof(*d));
    if (f == NULL) {
        snprintf(err, err_len, "cannot read '%s': %s", path, strerror(errno));
        return SLAP_ERROR;
    }
    if (results_doc_init(d) != SLAP_OK) {
        snprintf(why, sizeof(why), "out of memory");
    } else {
        st = read_stream(f, d, why, sizeof(why));
    }
    d->source = strdup(path);
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

/* ---- merging -------------------------------------------------------------------------- */

/* The text of setting name in d's options, for comparing two documents. */
static void setting_text(const struct results_doc *d, const char *name, char *buf, size_t len)
{
    buf[0] = '\0';
    if (options_value(&d->opts, options_table_find(name), buf, len) == OPTION_VALUE_NONE) {
        snprintf(buf, len, "(none)");
    }
}

/* Can b be added to a? If not, err names the setting that differs. */
static enum slap_status check_compatible(const struct results_doc *a, const struct results_doc *b,
                                         char *err, size_t err_len)
{
    char va[256], vb[256];
    if (a->sweep != b->sweep) {
        snprintf(err, err_len, "'%s' is a sweep and '%s' is not", a->sweep ? a->label : b->label,
                 a->sweep ? b->label : a->label);
        return SLAP_ERROR;
    }
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(workload_settings); i++) {
        setting_text(a, workload_settings[i], va, sizeof(va));
        setting_text(b, workload_settings[i], vb, sizeof(vb));
        if (strcmp(va, vb) != 0) {
            snprintf(err, err_len, "the workloads differ: --%s is %s in '%s' and %s in '%s'",
                     workload_settings[i], va, a->label, vb, b->label);
            return SLAP_ERROR;
        }
    }
    if (a->opts.execute_number == 0 && a->opts.run_time_ns != b->opts.run_time_ns) {
        setting_text(a, "time", va, sizeof(va));
        setting_text(b, "time", vb, sizeof(vb));
        snprintf(err, err_len, "the runs differ in length: --time is %ss in '%s' and %ss in '%s'",
                 va, a->label, vb, b->label);
        return SLAP_ERROR;
    }
    if (a->period_s != b->period_s && a->periods.n > 0 && b->periods.n > 0) {
        snprintf(err, err_len, "the periods differ: %gs in '%s' and %gs in '%s'", a->period_s,
                 a->label, b->period_s, b->label);
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

/* A period's or a step's figures, whichever it is. */
struct merge_part {
    double when; /* elapsed_s, or target_tps */
    double seconds;
    const struct slap_counters *counters;
    const struct results_sparse *lat;
    const uint64_t *net_bytes;
    const uint64_t *misses;
};

/* Would a + b pass RESULTS_COUNT_MAX? */
static bool count_overflows(uint64_t a, uint64_t b)
{
    uint64_t sum;
    return __builtin_add_overflow(a, b, &sum) || sum > RESULTS_COUNT_MAX;
}

/* The first counter whose sum would pass RESULTS_COUNT_MAX, or NULL. */
static const char *counters_overflow(const struct slap_counters *a, const struct slap_counters *b)
{
#define SLAP_COUNTER_OVERFLOW(name, show, meaning)                                                 \
    if (count_overflows(a->name, b->name)) {                                                       \
        return #name;                                                                              \
    }
    SLAP_COUNTERS(SLAP_COUNTER_OVERFLOW)
#undef SLAP_COUNTER_OVERFLOW
    return NULL;
}

/* Type t's figure whose sum would pass RESULTS_COUNT_MAX ("get net_bytes") into name, or "". */
static void type_overflow(int t, const uint64_t bytes[2], const uint64_t misses[2],
                          const uint64_t counts[2], char *name, size_t len)
{
    const char *what = count_overflows(bytes[0], bytes[1])     ? "net_bytes"
                       : count_overflows(misses[0], misses[1]) ? "misses"
                       : count_overflows(counts[0], counts[1]) ? "hist count"
                                                               : NULL;
    snprintf(name, len, "%s%s%s", what != NULL ? results_type_name(t) : "", what != NULL ? " " : "",
             what != NULL ? what : "");
}

/* The first figure of a period or step whose sum would pass RESULTS_COUNT_MAX into name; false
 * when there is none. */
static bool part_overflow(const struct merge_part *a, const struct merge_part *b, char *name,
                          size_t len)
{
    const char *counter = counters_overflow(a->counters, b->counters);
    if (counter != NULL) {
        snprintf(name, len, "%s", counter);
        return true;
    }
    for (int t = 0; t < STATS_TYPES; t++) {
        uint64_t bytes[2] = {a->net_bytes[t], b->net_bytes[t]};
        uint64_t misses[2] = {a->misses[t], b->misses[t]};
        uint64_t counts[2] = {a->lat[t].count, b->lat[t].count};
        type_overflow(t, bytes, misses, counts, name, len);
        if (name[0] != '\0') {
            return true;
        }
    }
    return false;
}

/* The first figure of the whole run whose sum would pass RESULTS_COUNT_MAX into name; false
 * when there is none. */
static bool stats_overflow(const struct slap_stats *a, const struct slap_stats *b, char *name,
                           size_t len)
{
    const char *counter = counters_overflow(&a->counters, &b->counters);
    if (counter != NULL) {
        snprintf(name, len, "%s", counter);
        return true;
    }
    for (int t = 0; t < STATS_TYPES; t++) {
        uint64_t bytes[2] = {a->net_bytes[t], b->net_bytes[t]};
        uint64_t misses[2] = {a->misses[t], b->misses[t]};
        uint64_t lat[2] = {a->lat[t] != NULL ? a->lat[t]->count : 0,
                           b->lat[t] != NULL ? b->lat[t]->count : 0};
        uint64_t raw[2] = {a->raw[t] != NULL ? a->raw[t]->count : 0,
                           b->raw[t] != NULL ? b->raw[t]->count : 0};
        uint64_t none[2] = {0, 0};
        type_overflow(t, bytes, misses, lat, name, len);
        if (name[0] == '\0') {
            type_overflow(t, none, none, raw, name, len);
        }
        if (name[0] != '\0') {
            return true;
        }
    }
    for (int o = 0; o < STATS_OUTCOMES; o++) {
        if (count_overflows(a->gets[o].count, b->gets[o].count)) {
            snprintf(name, len, "get_outcomes hist count");
            return true;
        }
    }
    if (count_overflows(a->lag.count, b->lag.count)) {
        snprintf(name, len, "send_lag hist count");
        return true;
    }
    return false;
}

/* A document's name in messages: its file, else its label. */
static const char *doc_name(const struct results_doc *d)
{
    return d->source != NULL ? d->source : d->label;
}

/* "'file': its name ..." into err, for a figure whose sum passes RESULTS_COUNT_MAX. */
static void say_overflow(char *err, size_t err_len, const struct results_doc *d, const char *where,
                         const char *name)
{
    snprintf(err, err_len,
             "'%s': %s%s%s added to the files before it is more than 2^53 (a corrupt number?)",
             doc_name(d), where, where[0] != '\0' ? " " : "", name);
}

/* Add src's period (or step) i into dst's, appending when dst has fewer. scratch keeps every
 * type. SLAP_AGAIN with the figure named in overflow when a sum would pass RESULTS_COUNT_MAX. */
static enum slap_status merge_item(struct results_doc *dst, size_t i, const struct merge_part *src,
                                   bool step, struct slap_stats *scratch, char *overflow,
                                   size_t overflow_len)
{
    struct results_list *list = step ? &dst->steps : &dst->periods;
    stats_reset(scratch);
    if (i < list->n) {
        struct results_step *st = step ? &((struct results_step *)list->items)[i] : NULL;
        struct results_period *p = step ? NULL : &((struct results_period *)list->items)[i];
        struct results_sparse *have = step ? st->lat : p->lat;
        struct slap_counters *sum = step ? &st->counters : &p->counters;
        uint64_t *bytes = step ? st->net_bytes : p->net_bytes;
        uint64_t *misses = step ? st->misses : p->misses;
        struct merge_part now = {0, 0, sum, have, bytes, misses};
        if (part_overflow(&now, src, overflow, overflow_len)) {
            return SLAP_AGAIN;
        }
        if (step) {
            st->target_tps += src->when; /* the hosts together aimed at the sum */
        }
        for (int t = 0; t < STATS_TYPES; t++) {
            results_sparse_add(&have[t], scratch->lat[t]);
            results_sparse_add(&src->lat[t], scratch->lat[t]);
            results_sparse_free(&have[t]);
            if (results_sparse_from_hist(scratch->lat[t], &have[t]) != SLAP_OK) {
                return SLAP_ERROR;
            }
            bytes[t] += src->net_bytes[t];
            misses[t] += src->misses[t];
        }
#define SLAP_COUNTER_SUM(name, show, meaning) sum->name += src->counters->name;
        SLAP_COUNTERS(SLAP_COUNTER_SUM)
#undef SLAP_COUNTER_SUM
        return SLAP_OK;
    }
    scratch->counters = *src->counters;
    for (int t = 0; t < STATS_TYPES; t++) {
        results_sparse_add(&src->lat[t], scratch->lat[t]);
        scratch->net_bytes[t] = src->net_bytes[t];
        scratch->misses[t] = src->misses[t];
    }
    return step ? results_add_step(dst, src->when, src->seconds, scratch)
                : results_add_period(dst, src->when, src->seconds, scratch);
}

/* merge_item's outcome as merge_lists': err says what went wrong. */
static enum slap_status item_merged(enum slap_status st, const struct results_doc *src, bool step,
                                    size_t i, const char *overflow, char *err, size_t err_len)
{
    char where[32];
    if (st == SLAP_AGAIN) {
        snprintf(where, sizeof(where), "%s[%zu]", step ? "steps" : "periods", i);
        say_overflow(err, err_len, src, where, overflow);
        return SLAP_ERROR;
    }
    if (st != SLAP_OK) {
        snprintf(err, err_len, "out of memory");
    }
    return st;
}

/* Add src's periods, steps and servers into dst. */
static enum slap_status merge_lists(struct results_doc *dst, const struct results_doc *src,
                                    struct slap_stats *scratch, char *err, size_t err_len)
{
    const struct results_period *periods = src->periods.items;
    const struct results_step *steps = src->steps.items;
    const struct results_server *servers = src->servers.items;
    char overflow[64] = "";
    for (size_t i = 0; i < src->periods.n; i++) {
        const struct results_period *p = &periods[i];
        struct merge_part part = {p->elapsed_s, p->seconds,   &p->counters,
                                  p->lat,       p->net_bytes, p->misses};
        enum slap_status st = merge_item(dst, i, &part, false, scratch, overflow, sizeof(overflow));
        if (item_merged(st, src, false, i, overflow, err, err_len) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    for (size_t i = 0; i < src->steps.n; i++) {
        const struct results_step *st = &steps[i];
        struct merge_part part = {st->target_tps, st->seconds,   &st->counters,
                                  st->lat,        st->net_bytes, st->misses};
        enum slap_status status =
            merge_item(dst, i, &part, true, scratch, overflow, sizeof(overflow));
        if (item_merged(status, src, true, i, overflow, err, err_len) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    for (size_t i = 0; i < src->servers.n; i++) {
        if (results_add_server(dst, servers[i].name, servers[i].label, &servers[i].stats) !=
            SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    for (size_t i = 0; i < src->runs.n; i++) {
        if (results_add_run(dst, &((const struct results_run_id *)src->runs.items)[i]) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

/* A merged step's verdict: the hosts' when they agree, else "mixed"; cut short when any host's
 * step was. */
static void merge_step_verdicts(struct results_doc *dst, const struct results_doc *src, bool first)
{
    struct results_step *to = dst->steps.items;
    const struct results_step *from = src->steps.items;
    for (size_t i = 0; i < src->steps.n && i < dst->steps.n; i++) {
        to[i].interrupted = to[i].interrupted || from[i].interrupted;
        if (first || to[i].limited_by[0] == '\0') {
            snprintf(to[i].limited_by, sizeof(to[i].limited_by), "%s", from[i].limited_by);
        } else if (strcmp(to[i].limited_by, from[i].limited_by) != 0) {
            snprintf(to[i].limited_by, sizeof(to[i].limited_by), "mixed");
        }
    }
}

/*
 * What limited the hosts together: their slaps as one (CPU summed, the busiest thread of
 * all), every server each host read, judged again over the merged rate and clients. Only
 * when every document has its limits.
 */
static enum slap_status merge_limits(struct results_doc *out, struct results_doc *const *docs,
                                     size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!docs[i]->has_limits) {
            limits_free(&out->limits);
            out->has_limits = false;
            return SLAP_OK;
        }
        if (limits_add(&out->limits, &docs[i]->limits, i == 0) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    struct limits *l = &out->limits;
    out->has_limits = n > 0 && !out->sweep;
    l->seconds = out->seconds;
    l->target_tps = out->opts.tps;
    l->achieved_tps =
        out->seconds > 0 ? (double)stats_requests(out->global) / out->seconds : 0; /* as -P */
    l->paced_by_trace = out->opts.trace != NULL && out->opts.trace_speed > 0;
    l->concurrency = out->opts.concurrency;
    l->threads = out->opts.threads;
    limits_judge(l);
    return SLAP_OK;
}

/* The figures of the whole: the longest measured time, the earliest start, the worst exit. */
static void merge_top(struct results_doc *dst, const struct results_doc *src, bool first)
{
    dst->start_ms = first || src->start_ms < dst->start_ms ? src->start_ms : dst->start_ms;
    dst->end_ms = src->end_ms > dst->end_ms ? src->end_ms : dst->end_ms;
    dst->seconds = src->seconds > dst->seconds ? src->seconds : dst->seconds;
    dst->signal = dst->signal != 0 ? dst->signal : src->signal;
    dst->exit_status = src->exit_status > dst->exit_status ? src->exit_status : dst->exit_status;
    dst->samples_written += src->samples_written;
    dst->samples_dropped += src->samples_dropped;
    if (first) {
        dst->opts = src->opts;
        dst->sweep = src->sweep;
        dst->period_s = src->period_s;
        snprintf(dst->label, sizeof(dst->label), "%s", src->label);
        return;
    }
    size_t used = strlen(dst->label);
    snprintf(dst->label + used, sizeof(dst->label) - used, "+%s", src->label);
    dst->opts.label = dst->label;
    dst->opts.threads += src->opts.threads;
    dst->opts.concurrency += src->opts.concurrency;
    dst->opts.tps += src->opts.tps;
    dst->opts.sweep_start += src->opts.sweep_start;
    dst->opts.sweep_end += src->opts.sweep_end;
    dst->opts.sweep_step += src->opts.sweep_step;
}

enum slap_status results_merge(struct results_doc *out, struct results_doc *const *docs, size_t n,
                               char *err, size_t err_len)
{
    struct slap_stats *scratch = malloc(sizeof(*scratch));
    enum slap_status st = results_doc_init(out);
    if (scratch != NULL && stats_init(scratch, &stats_shape_all) != SLAP_OK) {
        free(scratch);
        scratch = NULL;
    }
    for (size_t i = 0; st == SLAP_OK && i < n; i++) {
        if (i > 0 && check_compatible(docs[0], docs[i], err, err_len) != SLAP_OK) {
            st = SLAP_ERROR;
            break;
        }
        char overflow[64] = "";
        if (stats_overflow(out->global, docs[i]->global, overflow, sizeof(overflow))) {
            say_overflow(err, err_len, docs[i], "", overflow);
            st = SLAP_ERROR;
            break;
        }
        merge_top(out, docs[i], i == 0);
        stats_merge(out->global, docs[i]->global);
        if (scratch == NULL) {
            snprintf(err, err_len, "out of memory");
            st = SLAP_ERROR;
        } else if (merge_lists(out, docs[i], scratch, err, err_len) != SLAP_OK) {
            st = SLAP_ERROR;
        }
        merge_step_verdicts(out, docs[i], i == 0);
    }
    if (st == SLAP_OK && merge_limits(out, docs, n) != SLAP_OK) {
        snprintf(err, err_len, "out of memory");
        st = SLAP_ERROR;
    }
    if (st == SLAP_ERROR && err[0] == '\0') {
        snprintf(err, err_len, "out of memory");
    }
    if (scratch != NULL) {
        stats_free(scratch);
    }
    free(scratch);
    return st;
}
