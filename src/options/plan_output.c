/* The outputs' description of a run, made from the options (or from a results file's config). */
#include "slap/options/plan_output.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "slap/options/plan.h"

#define VALUE_MAX 1024 /* a configuration value's text, its NUL counted: longer ones are cut */

static enum run_config_kind kind_of(enum option_value v)
{
    switch (v) {
    case OPTION_VALUE_BOOL:
        return RUN_CONFIG_BOOL;
    case OPTION_VALUE_NUMBER:
        return RUN_CONFIG_NUMBER;
    case OPTION_VALUE_TEXT:
        return RUN_CONFIG_TEXT;
    case OPTION_VALUE_NONE:
    case OPTION_VALUE_SKIP:
    default:
        return RUN_CONFIG_NULL;
    }
}

/* Every option's effective value, as results files record it. */
static enum slap_status describe_config(struct run_config *c, const struct slap_options *o)
{
    char value[VALUE_MAX];
    for (size_t i = 0; i < options_table_size(); i++) {
        enum option_value v = options_value(o, i, value, sizeof(value));
        unsigned flags = (options_table_workload(i) ? RUN_CONFIG_WORKLOAD : 0) |
                         (options_table_replayed(i) ? RUN_CONFIG_REPLAYED : 0);
        if (v != OPTION_VALUE_SKIP &&
            run_config_add(c, options_table_long_name(i), kind_of(v), flags, value) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

/* The text of the option named name, as --key_size shows it: NULL unless it is a text. */
static enum slap_status describe_text(char **field, const struct slap_options *o, const char *name)
{
    char value[VALUE_MAX];
    enum option_value v = options_value(o, options_table_find(name), value, sizeof(value));
    return run_desc_set_text(field, v == OPTION_VALUE_TEXT ? value : NULL);
}

#define DESC(field, type) PLAN_COPY(struct run_desc, field, field, type)
/* The figures the outputs read as the options hold them (see plan.c). */
static const struct plan_copy desc_copies[] = {
    DESC(threads, uint32_t),
    DESC(concurrency, uint32_t),
    DESC(run_time_ns, uint64_t),
    DESC(win_size, uint64_t),
    DESC(share_index, uint32_t),
    DESC(share_count, uint32_t),
    DESC(share_keys, bool),
    DESC(probe, bool),
    DESC(arrival, enum arrival),
    DESC(arrival_shape, double),
    DESC(pipeline, uint32_t),
    DESC(latency, enum latency_view),
    DESC(warmup_ns, uint64_t),
    DESC(stat_freq_ns, uint64_t),
    DESC(npercentiles, uint32_t),
    DESC(step_time_ns, uint64_t),
    DESC(trace_speed, double),
    DESC(division, uint32_t),
    DESC(verify, double),
    DESC(exp_verify, double),
    DESC(udp, bool),
    DESC(facebook, bool),
};

/* The figures the outputs read: this host's part of the load, and the rest as they are. */
static void describe_figures(struct run_desc *d, const struct slap_options *o)
{
    _Static_assert(RUN_DESC_MAX_PERCENTILES >= SLAP_MAX_PERCENTILES, "room for the percentiles");
    _Static_assert(sizeof(d->mix) == sizeof(o->mix), "one share per operation");
    d->execute_number = plan_share_count(o, o->execute_number);
    d->tps = plan_share_target(o);
    d->ramp = plan_share_ramp(o);
    d->sweep_start = plan_share_rate(o, o->sweep_start);
    d->sweep_end = plan_share_rate(o, o->sweep_end);
    d->sweep_step = plan_share_rate(o, o->sweep_step);
    memcpy(d->mix, o->mix, sizeof(d->mix));
    memcpy(d->percentiles, o->percentiles, sizeof(o->percentiles));
    plan_copy(d, o, desc_copies, SLAP_ARRAY_SIZE(desc_copies));
}

enum slap_status plan_output_describe(struct run_desc *d, const struct slap_options *o)
{
    memset(d, 0, sizeof(*d));
    describe_figures(d, o);
    enum slap_status st = run_desc_set_text(&d->servers, o->servers);
    st = st == SLAP_OK ? run_desc_set_text(&d->trace, o->trace) : st;
    st = st == SLAP_OK ? describe_text(&d->key_sizes, o, "key_size") : st;
    st = st == SLAP_OK ? describe_text(&d->value_sizes, o, "value_size") : st;
    st = st == SLAP_OK ? describe_config(&d->config, o) : st;
    if (st != SLAP_OK) {
        run_desc_free(d);
    }
    return st;
}

/* Where each sink's file is among the options, by the sink's row (output/sinks.c); a row
 * left out would read the options' first field: test_plan_output's test_every_sink_has_its_path
 * gives each sink's option and finds its file. */
static const size_t sink_paths[RESULTS_SINKS] = {
    [RESULTS_SINK_CSV] = offsetof(struct slap_options, csv_out),
    [RESULTS_SINK_SVG] = offsetof(struct slap_options, svg_out),
    [RESULTS_SINK_JSON] = offsetof(struct slap_options, json_out),
    [RESULTS_SINK_HLOG] = offsetof(struct slap_options, hlog_out),
};

void plan_output_paths(const struct slap_options *o, const char *paths[RESULTS_SINKS])
{
    for (size_t k = 0; k < RESULTS_SINKS; k++) {
        paths[k] = *(const char *const *)((const char *)o + sink_paths[k]);
    }
}

/* ---- a results file's config, read back ------------------------------------------------- */

/* Does v say what the option says when it is not given (in defaults)? (Only settings given
 * are replayed: some options are refused without others, even at their default value.) */
static bool is_default(const struct slap_options *defaults, size_t row, const struct json_value *v)
{
    char text[VALUE_MAX];
    switch (options_value(defaults, row, text, sizeof(text))) {
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

/* "--name=value" (a duration's seconds with "s"), or "--name" for a flag set; NULL to skip
 * (the option's row says whether a reader replays it). */
static char *replay_arg(const struct slap_options *defaults, size_t row, const char *name,
                        const struct json_value *v)
{
    char *arg = NULL;
    int n = -1;
    if (!options_table_replayed(row) || v->type == JSON_NULL || v->type == JSON_FALSE ||
        is_default(defaults, row, v)) {
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

/* The command line config says, into r->argv; r->opts holds the defaults, not parsed yet. */
static enum slap_status replay_args(const struct json_value *config, struct plan_replay *r,
                                    char *err, size_t err_len)
{
    r->argv = calloc(config->n + 2, sizeof(*r->argv));
    if (r->argv == NULL) {
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    r->argv[r->argc++] = strdup("slap");
    for (size_t i = 0; i < config->n; i++) {
        size_t row = options_table_find(config->keys[i]);
        if (row == options_table_size()) {
            snprintf(err, err_len, "config: unknown option '%.60s' (written by a newer slap?)",
                     config->keys[i]);
            return SLAP_ERROR;
        }
        char *arg = replay_arg(&r->opts, row, config->keys[i], config->items[i]);
        if (arg != NULL) {
            r->argv[r->argc++] = arg;
        }
    }
    return SLAP_OK;
}

enum slap_status plan_output_replay(const struct json_value *config, struct plan_replay *r,
                                    char *err, size_t err_len)
{
    memset(r, 0, sizeof(*r));
    options_defaults(&r->opts);
    if (replay_args(config, r, err, err_len) != SLAP_OK) {
        return SLAP_ERROR;
    }
    char *why = NULL;
    size_t why_len = 0;
    FILE *msg = open_memstream(&why, &why_len);
    enum options_outcome outcome =
        msg != NULL ? options_parse_read_back(&r->opts, r->argc, r->argv, msg, msg) : OPTIONS_USAGE;
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

void plan_output_replay_free(struct plan_replay *r)
{
    for (int i = 0; r->argv != NULL && i < r->argc; i++) {
        free(r->argv[i]);
    }
    free(r->argv);
    memset(r, 0, sizeof(*r));
}

enum slap_status plan_output_read_config(const struct json_value *config, struct run_desc *out,
                                         char *err, size_t err_len)
{
    struct plan_replay r;
    enum slap_status st = plan_output_replay(config, &r, err, err_len);
    if (st == SLAP_OK && plan_output_describe(out, &r.opts) != SLAP_OK) {
        snprintf(err, err_len, "out of memory");
        st = SLAP_ERROR;
    }
    plan_output_replay_free(&r);
    return st;
}
