/* The plans each layer runs by, made once from the command line's options. */
#include "slap/options/plan.h"

#include <string.h>

void plan_copy(void *plan, const struct slap_options *o, const struct plan_copy *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        memcpy((char *)plan + rows[i].to, (const char *)o + rows[i].from, rows[i].size);
    }
}

/* Below, each plan is the fields worked out from the options, then its table of the settings
 * it takes as they are (one row each: the plan's field, the option's, their type). */

#define WORKLOAD(to, from, type) PLAN_COPY(struct workload_plan, to, from, type)
static const struct plan_copy workload_copies[] = {
    WORKLOAD(key_size, key_size, uint32_t),
    WORKLOAD(value_size, value_size, uint32_t),
    WORKLOAD(key_sizes, key_sizes, struct size_dist),
    WORKLOAD(value_sizes, value_sizes, struct size_dist),
    WORKLOAD(win_size, win_size, uint64_t),
    WORKLOAD(overwrite, overwrite, double),
    WORKLOAD(verify, verify, double),
    WORKLOAD(exp_verify, exp_verify, double),
    WORKLOAD(exp_time_ns, exp_time_ns, uint64_t),
    WORKLOAD(division, division, uint32_t),
    WORKLOAD(rep_write, rep_write, uint32_t),
    WORKLOAD(trace_value_max, trace_value_max, uint32_t),
    WORKLOAD(key_pop, key_pop, struct key_dist),
    WORKLOAD(key_pattern, key_pattern, struct key_pattern),
};

/* --key_min, --key_max: this host's keys, the whole range or (--share I/N,keys) its I-th part
 * of N, so that no two hosts share a key. */
static void plan_key_range(struct workload_plan *p, const struct slap_options *o)
{
    if (!o->key_bounds) {
        return;
    }
    uint64_t count = o->key_max - o->key_min + 1; /* at most 2^32 */
    uint64_t parts = o->share_keys ? o->share_count : 1;
    uint64_t part = o->share_keys ? o->share_index - 1 : 0;
    uint64_t first = count * part / parts, end = count * (part + 1) / parts;
    p->key_min = o->key_min + first;
    p->key_count = end - first;
}

void plan_workload(struct workload_plan *p, const struct slap_options *o)
{
    _Static_assert(sizeof(p->mix) == sizeof(o->mix), "one share per operation");
    *p = (struct workload_plan){.trace = o->trace != NULL};
    memcpy(p->mix, o->mix, sizeof(p->mix));
    plan_copy(p, o, workload_copies, SLAP_ARRAY_SIZE(workload_copies));
    plan_key_range(p, o);
}

#define TLS(to, from, type) PLAN_COPY(struct tls_settings, to, from, type)
static const struct plan_copy tls_copies[] = {
    TLS(ca, tls_ca, const char *),
    TLS(cert, tls_cert, const char *),
    TLS(key, tls_key, const char *),
    TLS(skip_verify, tls_skip_verify, bool),
    TLS(version, tls_version, enum tls_version),
};

void plan_tls(struct tls_settings *p, const struct slap_options *o)
{
    *p = (struct tls_settings){0};
    plan_copy(p, o, tls_copies, SLAP_ARRAY_SIZE(tls_copies));
}

#define LANE(to, from, type) PLAN_COPY(struct lane_params, to, from, type)
static const struct plan_copy lane_copies[] = {
    LANE(trace_speed, trace_speed, double),
    LANE(concurrency, concurrency, uint32_t),
    LANE(conns_per_client, conns_per_client, uint32_t),
    LANE(pipeline, pipeline, uint32_t),
    LANE(rep_write, rep_write, uint32_t),
    LANE(udp, udp, bool),
    LANE(facebook, facebook, bool),
    LANE(reconnect, reconnect, bool),
    LANE(reconnect_every, reconnect_every, uint64_t),
    LANE(verbose, verbose, bool),
    LANE(multiget_window, multiget_window, bool),
    LANE(shared_keys, shared_keys, bool),
    LANE(windows_stored, windows_stored, bool),
    LANE(preload, preload, bool),
};

/* What every lane reads; run_init adds where the run's parts are. */
static struct lane_params plan_lanes(const struct slap_options *o)
{
    struct lane_params p = {
        .execute_number = plan_share_count(o, o->execute_number),
        .tps = plan_share_target(o),
        .reconnect_rate = plan_share_rate(o, o->reconnect_rate), /* --share: this host's part */
        .trace = o->trace != NULL,
        .verify = o->verify > 0,
        .key_id_base = o->share_keys ? (o->share_index - 1) * o->concurrency : 0,
    };
    plan_copy(&p, o, lane_copies, SLAP_ARRAY_SIZE(lane_copies));
    return p;
}

#define ENGINE(to, from, type) PLAN_COPY(struct engine_config, to, from, type)
static const struct plan_copy engine_copies[] = {
    ENGINE(protocol, protocol, enum proto_kind),  ENGINE(arrival, arrival, enum arrival),
    ENGINE(arrival_shape, arrival_shape, double), ENGINE(warmup_ns, warmup_ns, uint64_t),
    ENGINE(timeout_ns, timeout_ns, uint64_t),     ENGINE(udp_timeout_ns, udp_timeout_ns, uint64_t),
    ENGINE(sample_rate, sample_rate, double),     ENGINE(memslap_face, memslap_face, bool),
    ENGINE(timestamps, stamps, enum timestamps),  ENGINE(priority, priority, enum worker_priority),
};

/* What the workers read; run_init adds where the run's parts are, and the period. */
static struct engine_config plan_engine(const struct slap_options *o)
{
    struct engine_config p = {
        .lane = plan_lanes(o),
        .run_time_ns = o->run_time_ns * (o->rounds > 1 ? o->rounds : 1), /* rounds back to back */
        .samples = o->samples_out != NULL,
        .ramp = plan_share_ramp(o),
        .control = o->control != NULL,
    };
    plan_copy(&p, o, engine_copies, SLAP_ARRAY_SIZE(engine_copies));
    return p;
}

#define RUN(to, from, type) PLAN_COPY(struct run_plan, to, from, type)
static const struct plan_copy run_copies[] = {
    RUN(servers, servers, const char *),
    RUN(stats_servers, stats_servers, const char *),
    RUN(proxy_stats, proxy_stats, const char *),
    RUN(distribution, distribution, enum server_distribution),
    RUN(hash, hash, enum server_hash),
    RUN(threads, threads, uint32_t),
    RUN(flush, flush, bool),
    RUN(tls, tls, bool),
    RUN(auth, auth_creds, struct conn_auth),
    RUN(trace.path, trace, const char *),
    RUN(trace.skip_bad, trace_skip_bad, bool),
    RUN(trace.limit, trace_limit, uint64_t),
    RUN(trace.value_max, trace_value_max, uint32_t),
    RUN(trace_spread, trace_spread, enum trace_spread),
    RUN(start_at_ns, start_at_ns, uint64_t),
    RUN(label, label, const char *),
    RUN(quiet, quiet, bool),
};

void plan_run(struct run_plan *p, const struct slap_options *o, enum plan_periods periods)
{
    bool fine = periods == PLAN_PERIODS_FINE && o->stat_freq_ns == 0;
    *p = (struct run_plan){
        .engine = plan_engine(o),
        .period_ns = fine ? PLAN_FINE_PERIOD_NS : o->stat_freq_ns,
    };
    plan_copy(p, o, run_copies, SLAP_ARRAY_SIZE(run_copies));
    plan_tls(&p->tls_settings, o);
    plan_workload(&p->workload, o);
}

void plan_step(struct run_plan *p, struct slap_options *step, const struct slap_options *o,
               double rate, uint64_t run_time_ns, uint64_t stat_freq_ns, bool first)
{
    *step = *o;
    if (o->label == o->host_label) {
        step->label = step->host_label; /* the copy's own, not o's */
    }
    step->tps = rate;
    step->run_time_ns = run_time_ns;
    step->stat_freq_ns = stat_freq_ns;
    step->start_at_ns = first ? o->start_at_ns : 0;
    step->flush = first && o->flush;
    step->windows_stored = !first;
    plan_run(p, step, PLAN_PERIODS_FINE);
}
