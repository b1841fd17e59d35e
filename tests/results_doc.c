/* What the results tests share (results_doc.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/base/hist.h"
#include "slap/base/rng.h"
#include "slap/output/results_json.h"
#include "slap/output/results_read.h"

#include "results_doc.h"

/* The settings a test configuration holds, in order, and what they are beyond their value. */
static const struct {
    const char *name;
    enum run_config_kind kind;
    unsigned flags;
} settings[] = {
    {"servers", RUN_CONFIG_TEXT, RUN_CONFIG_REPLAYED},
    {"threads", RUN_CONFIG_NUMBER, RUN_CONFIG_REPLAYED},
    {"concurrency", RUN_CONFIG_NUMBER, RUN_CONFIG_REPLAYED},
    {"time", RUN_CONFIG_NUMBER, RUN_CONFIG_REPLAYED},
    {"value_size", RUN_CONFIG_TEXT, RUN_CONFIG_REPLAYED | RUN_CONFIG_WORKLOAD},
    {"division", RUN_CONFIG_NUMBER, RUN_CONFIG_REPLAYED | RUN_CONFIG_WORKLOAD},
    {"protocol", RUN_CONFIG_TEXT, RUN_CONFIG_REPLAYED | RUN_CONFIG_WORKLOAD},
    {"tps", RUN_CONFIG_NUMBER, RUN_CONFIG_REPLAYED},
    {"arrival", RUN_CONFIG_TEXT, RUN_CONFIG_REPLAYED | RUN_CONFIG_WORKLOAD},
    {"ramp", RUN_CONFIG_TEXT, RUN_CONFIG_REPLAYED | RUN_CONFIG_WORKLOAD},
    {"percentiles", RUN_CONFIG_TEXT, RUN_CONFIG_REPLAYED},
    {"label", RUN_CONFIG_TEXT, RUN_CONFIG_REPLAYED},
    {"json", RUN_CONFIG_NULL, 0},
};

/* The setting of settings[] named name, or SLAP_ARRAY_SIZE(settings). */
static size_t setting_index(const char *name)
{
    size_t i = 0;
    while (i < SLAP_ARRAY_SIZE(settings) && strcmp(settings[i].name, name) != 0) {
        i++;
    }
    return i;
}

/* The figures the outputs read, from the configuration's texts (as the cli reads them). */
static bool figures_of(struct run_desc *d, char *err, size_t err_len)
{
    const struct run_config_entry *e = run_config_find(&d->config, "percentiles");
    d->threads = (uint32_t)strtoul(run_config_find(&d->config, "threads")->value, NULL, 10);
    d->concurrency = (uint32_t)strtoul(run_config_find(&d->config, "concurrency")->value, NULL, 10);
    d->run_time_ns = (uint64_t)(strtod(run_config_find(&d->config, "time")->value, NULL) * 1e9);
    d->tps = strtod(run_config_find(&d->config, "tps")->value, NULL);
    d->arrival = strcmp(run_config_find(&d->config, "arrival")->value, "poisson") == 0
                     ? ARRIVAL_POISSON
                     : ARRIVAL_UNIFORM;
    d->division = (uint32_t)strtoul(run_config_find(&d->config, "division")->value, NULL, 10);
    const struct run_config_entry *ramp = run_config_find(&d->config, "ramp");
    double ramp_seconds = 0;
    d->ramp = (struct ramp){0};
    if (ramp != NULL && ramp->kind == RUN_CONFIG_TEXT &&
        sscanf(ramp->value, "%lf:%lf/%lfs", &d->ramp.from, &d->ramp.to, &ramp_seconds) == 3) {
        d->ramp.duration_ns = (uint64_t)(ramp_seconds * 1e9);
    }
    d->npercentiles = 0;
    for (const char *p = e->value; *p != '\0' && d->npercentiles < RUN_DESC_MAX_PERCENTILES;
         p += strcspn(p, ","), p += *p == ',') {
        d->percentiles[d->npercentiles++] = strtod(p, NULL);
    }
    if (d->threads == 0) {
        snprintf(err, err_len, "config does not read back as options: --threads: 0 is below 1");
        return false;
    }
    return run_desc_set_text(&d->servers, run_config_find(&d->config, "servers")->value) == SLAP_OK;
}

/* The test's results_config_reader: every member a setting of settings[], taken as it is. */
enum slap_status read_test_config(const struct json_value *config, struct run_desc *out, char *err,
                                  size_t err_len)
{
    for (size_t i = 0; i < config->n; i++) {
        const struct json_value *v = config->items[i];
        size_t at = setting_index(config->keys[i]);
        if (at == SLAP_ARRAY_SIZE(settings)) {
            snprintf(err, err_len, "config: unknown option '%.60s' (written by a newer slap?)",
                     config->keys[i]);
            return SLAP_ERROR;
        }
        enum run_config_kind kind = v->type == JSON_NULL     ? RUN_CONFIG_NULL
                                    : v->type == JSON_STRING ? RUN_CONFIG_TEXT
                                                             : RUN_CONFIG_NUMBER;
        assert_int_equal(
            run_config_add(&out->config, settings[at].name, kind, settings[at].flags, v->text),
            SLAP_OK);
    }
    return figures_of(out, err, err_len) ? SLAP_OK : SLAP_ERROR;
}

/* The description of a run given spec: its configuration, and the figures read from it. */
void describe(struct run_desc *d, const struct spec *spec)
{
    char threads[16], concurrency[16], err[128];
    const char *values[SLAP_ARRAY_SIZE(settings)] = {
        spec->servers,
        threads,
        concurrency,
        spec->time,
        spec->value_size != NULL ? spec->value_size : "1024",
        spec->division != NULL ? spec->division : "1",
        spec->protocol != NULL ? spec->protocol : "ascii",
        spec->tps,
        spec->arrival != NULL ? spec->arrival : "uniform",
        spec->ramp,
        spec->percentiles != NULL ? spec->percentiles : "50,90,99,99.9",
        spec->label != NULL ? spec->label : "host",
        NULL};
    snprintf(threads, sizeof(threads), "%u", spec->threads > 0 ? spec->threads : 1);
    snprintf(concurrency, sizeof(concurrency), "%u",
             spec->concurrency > 0 ? spec->concurrency : 16);
    run_desc_free(d);
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(settings); i++) {
        enum run_config_kind kind = values[i] != NULL ? settings[i].kind : RUN_CONFIG_NULL;
        assert_int_equal(
            run_config_add(&d->config, settings[i].name, kind, settings[i].flags, values[i]),
            SLAP_OK);
    }
    assert_true(figures_of(d, err, sizeof(err)));
}

/* Latencies drawn from a log-uniform spread, into h (and into all when not NULL). */
static void record(struct hist *h, struct hist *all, struct rng *r, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t ns = 1000 + rng_below(r, 1u << (10 + rng_below(r, 14)));
        hist_record(h, ns);
        if (all != NULL) {
            hist_record(all, ns);
        }
    }
}

/* A document as a run of the given options would leave it: figures, periods and servers. */
void make_doc(struct results_doc *d, const struct spec *spec, uint64_t seed, struct slap_stats *all)
{
    struct rng r = {.state = seed};
    int samples = spec->samples > 0 ? spec->samples : 500;
    struct slap_stats *period = malloc(sizeof(*period));
    assert_non_null(period);
    assert_int_equal(stats_init(period, &stats_shape_all), SLAP_OK);
    assert_int_equal(results_doc_init(d), SLAP_OK);
    describe(&d->desc, spec);
    snprintf(d->label, sizeof(d->label), "host-%llu", (unsigned long long)seed);
    d->start_ms = 1767225600000ULL + seed;
    d->end_ms = d->start_ms + 3000;
    d->seconds = 3.0;
    d->period_s = 1.0;
    struct results_run_id id = {.pid = 4000 + seed, .start_ms = d->start_ms};
    snprintf(id.host, sizeof(id.host), "%s", d->label);
    assert_int_equal(results_add_run(d, &id), SLAP_OK);
    for (int p = 1; p <= 3; p++) {
        stats_reset(period);
        for (int t = 0; t < STATS_TYPES; t++) {
            record(period->lat[t], all != NULL ? all->lat[t] : NULL, &r, samples * (t + 1) * p);
            period->net_bytes[t] = 1000 * (uint64_t)(t + 1) + (uint64_t)p;
            period->misses[t] = (uint64_t)(t * p);
        }
        period->counters.cmd_get = period->lat[STATS_GET]->count;
        period->counters.cmd_set = period->lat[STATS_SET]->count;
        period->counters.unanswered = (uint64_t)p;
        assert_int_equal(results_add_period(d, p, 1.0, period), SLAP_OK);
        stats_merge(d->global, period);
    }
    record(d->global->gets[STATS_HIT], NULL, &r, 100);
    struct server_stats_pair ok = {.ok = true, .before = {.cmd_get = 10}, .after = {.cmd_get = 99}};
    struct server_stats_pair refused = {.ok = false, .note = "it did not answer stats"};
    assert_int_equal(results_add_server(d, "127.0.0.1:1", d->label, &ok), SLAP_OK);
    assert_int_equal(results_add_server(d, "127.0.0.1:2", d->label, &refused), SLAP_OK);
    stats_free(period);
    free(period);
}

void to_json(const struct results_doc *d, char **text, size_t *len)
{
    FILE *out = open_memstream(text, len);
    assert_non_null(out);
    results_write_json(out, d);
    fclose(out);
}

/* What limited a run or a step: every figure known, a proxy, a server read and one not. */
static void fill_limits(struct limits *l, enum limits_verdict verdict)
{
    assert_int_equal(limits_init(l, 2), SLAP_OK);
    l->verdict = verdict;
    snprintf(l->read_why, sizeof(l->read_why), "borderline with client: the servers were busy");
    l->borderline = (struct limits_borderline){
        .near = true, .with = LIMITS_CLIENT, .value = 0.84, .line = 0.85, .band = 0.05};
    snprintf(l->borderline.figure, sizeof(l->borderline.figure), "client.cpu_wait_max");
    l->client = (struct limits_client){.cpu_user_s = 1.5,
                                       .cpu_sys_s = 0.25,
                                       .threads = 2,
                                       .busy_mean = 0.4,
                                       .busy_max = 0.5,
                                       .wait_known = true,
                                       .wait_mean = 0.01,
                                       .wait_max = 0.02,
                                       .demand_max = 0.52,
                                       .cpus = 4,
                                       .cpu_share = 0.15};
    l->host = (struct limits_host){.known = true, .cpus = 8, .busy = 0.3};
    l->in_flight_mean = 7.5;
    l->in_flight_max = 16;
    l->client_lag = 3;
    l->send_lag_p99_s = 0.002;
    l->proxy.known = true;
    snprintf(l->proxy.name, sizeof(l->proxy.name), "127.0.0.1:22122");
    l->proxy.delta.server_ejects = 2;
    struct limits_server *s = l->servers;
    snprintf(s[0].name, sizeof(s[0].name), "127.0.0.1:1");
    snprintf(s[0].label, sizeof(s[0].label), "host-3");
    s[0].known = true;
    s[0].cpu_s = 1.25;
    s[0].threads = 4;
    s[0].seconds = 3;
    s[0].busy = 0.1;
    s[0].local = true;
    s[0].from_proc = true;
    snprintf(s[0].note, sizeof(s[0].note), "it answers no stats");
    s[0].pid = 1234;
    s[0].wait_known = true;
    s[0].wait_max = 0.05;
    snprintf(s[1].name, sizeof(s[1].name), "127.0.0.1:2");
    snprintf(s[1].label, sizeof(s[1].label), "host-3");
    snprintf(s[1].note, sizeof(s[1].note), "it did not answer stats");
    s[1].backend = true;
}

/* A run of every part (results_doc.h); few latencies, each test of a field reads it again. */
void make_run(struct results_doc *d, bool extras)
{
    make_doc(d,
             &(struct spec){.servers = "127.0.0.1:1",
                            .threads = 2,
                            .time = "3",
                            .tps = "900",
                            .ramp = "600:1200/2s",
                            .samples = 3},
             3, NULL);
    d->has_limits = true;
    fill_limits(&d->limits, LIMITS_SERVER);
    assert_int_equal(results_add_to_round(d, 0, 3.0, 3.0, d->global), SLAP_OK);
    d->samples_written = 40;
    d->samples_dropped = 2;
    snprintf(d->precision, sizeof(d->precision), "p99 within 4.1%% after 23 s");
    struct results_probe probe = {.label = "probe-1",
                                  .requests = 300,
                                  .tps = 100,
                                  .p50_us = 2100,
                                  .p99_us = 2800,
                                  .p999_us = 3100,
                                  .max_us = 3150};
    assert_int_equal(results_keep_probe(d, &probe), SLAP_OK);
    const struct rate_change changes[] = {{.at_s = 1.25, .action = RATE_SET, .tps = 4000},
                                          {.at_s = 2.5, .action = RATE_PAUSE},
                                          {.at_s = 2.75, .action = RATE_RESUME, .tps = 4000}};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(changes); i++) {
        assert_int_equal(results_keep_change(d, &changes[i]), SLAP_OK);
    }
    struct results_run_id *run = d->runs.items; /* as a groups run's group */
    run->has_latency = true;
    run->p50_us = 110;
    run->p90_us = 180;
    run->p99_us = 420;
    run->p999_us = 900;
    run->max_us = 1200;
    if (extras) {
        d->trace.present = true;
        d->trace.counts.skipped = 1;
        struct results_server *srv = d->servers.items;
        srv[0].stats.preload_known = true;
        srv[0].stats.preload_evictions = 5;
        hist_record(d->global->own, 25000); /* --timestamps=kernel: own_delay */
        hist_record(d->global->own, 41000);
        hist_record(d->global->connect, 90000); /* --reconnect_every: connect_time */
        if (d->global->late[OP_GET] != NULL) {  /* an open loop's parts (schema 3) */
            hist_record(d->global->late[OP_GET], 1500000);
            hist_record(d->global->held[OP_GET], 0);
            hist_record(d->global->slap_tail, 1700000);
        }
    }
}

/* slap search's sweep (results_doc.h). */
void make_search(struct results_doc *d)
{
    make_doc(d, &(struct spec){.servers = "127.0.0.1:1", .threads = 2, .time = "3", .samples = 3},
             4, NULL);
    results_drop_periods(d);
    d->sweep = true;
    assert_int_equal(results_add_step(d, 1000, 1.0, d->global), SLAP_OK);
    assert_int_equal(results_add_step(d, 2000, 1.0, d->global), SLAP_OK);
    struct results_step *steps = d->steps.items;
    steps[0].has_limits = true;
    fill_limits(&steps[0].limits, LIMITS_RATE);
    snprintf(steps[0].limited_by, sizeof(steps[0].limited_by), "%s",
             limits_verdict_name(LIMITS_RATE));
    snprintf(steps[0].slo, sizeof(steps[0].slo), "held");
    snprintf(steps[1].slo, sizeof(steps[1].slo), "broken");
    steps[1].interrupted = true;
    d->search = (struct results_search){
        .present = true, .capacity_tps = 1000, .lowest_broken = 2000, .confirmed = true};
    snprintf(d->search.objectives, sizeof(d->search.objectives), "p99<1ms");
}

/* The documents of every object as text (results_doc.h). */
void every_object_texts(char **run, char **search, bool extras)
{
    struct results_doc d;
    size_t len;
    make_run(&d, extras);
    to_json(&d, run, &len);
    results_doc_free(&d);
    make_search(&d);
    to_json(&d, search, &len);
    results_doc_free(&d);
}
