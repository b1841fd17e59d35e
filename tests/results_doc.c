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
enum slap_status read_test_config(const struct json_value *config, struct run_desc *out,
                                         char *err, size_t err_len)
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
void make_doc(struct results_doc *d, const struct spec *spec, uint64_t seed,
                     struct slap_stats *all)
{
    struct rng r = {.state = seed};
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
            record(period->lat[t], all != NULL ? all->lat[t] : NULL, &r, 500 * (t + 1) * p);
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

