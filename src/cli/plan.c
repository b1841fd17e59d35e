/* The plans each layer runs by, made once from the command line's options. */
#include "plan.h"

#include <string.h>

void plan_workload(struct workload_plan *p, const struct slap_options *o)
{
    *p = (struct workload_plan){
        .key_size = o->key_size,
        .value_size = o->value_size,
        .key_sizes = o->key_sizes,
        .value_sizes = o->value_sizes,
        .win_size = o->win_size,
        .overwrite = o->overwrite,
        .verify = o->verify,
        .exp_verify = o->exp_verify,
        .exp_time_ns = o->exp_time_ns,
        .division = o->division,
        .rep_write = o->rep_write,
        .trace = o->trace != NULL,
        .trace_value_max = o->trace_value_max,
    };
    memcpy(p->mix, o->mix, sizeof(p->mix));
}

void plan_tls(struct tls_settings *p, const struct slap_options *o)
{
    *p = (struct tls_settings){
        .ca = o->tls_ca,
        .cert = o->tls_cert,
        .key = o->tls_key,
        .skip_verify = o->tls_skip_verify,
        .version = o->tls_version,
    };
}

/* What every lane reads; run_init adds where the run's parts are. */
static struct lane_params plan_lanes(const struct slap_options *o)
{
    return (struct lane_params){
        .key_pop = o->key_pop,
        .execute_number = plan_share_count(o, o->execute_number),
        .tps = plan_share_rate(o, o->tps),
        .trace_speed = o->trace_speed,
        .concurrency = o->concurrency,
        .conns_per_client = o->conns_per_client,
        .pipeline = o->pipeline,
        .rep_write = o->rep_write,
        .trace = o->trace != NULL,
        .udp = o->udp,
        .facebook = o->facebook,
        .reconnect = o->reconnect,
        .verify = o->verify > 0,
        .verbose = o->verbose,
        .multiget_window = o->multiget_window,
        .shared_keys = o->shared_keys,
        .key_id_base = o->share_keys ? (o->share_index - 1) * o->concurrency : 0,
        .windows_stored = o->windows_stored,
        .preload = o->preload,
    };
}

/* What the workers read; run_init adds where the run's parts are, and the period. */
static struct engine_config plan_engine(const struct slap_options *o)
{
    return (struct engine_config){
        .lane = plan_lanes(o),
        .protocol = o->protocol,
        .arrival = o->arrival,
        .run_time_ns = o->run_time_ns * (o->rounds > 1 ? o->rounds : 1), /* rounds back to back */
        .warmup_ns = o->warmup_ns,
        .timeout_ns = o->timeout_ns,
        .udp_timeout_ns = o->udp_timeout_ns,
        .sample_rate = o->sample_rate,
        .samples = o->samples_out != NULL,
        .memslap_face = o->memslap_face,
    };
}

void plan_run(struct run_plan *p, const struct slap_options *o, enum plan_periods periods)
{
    bool fine = periods == PLAN_PERIODS_FINE && o->stat_freq_ns == 0;
    *p = (struct run_plan){
        .servers = o->servers,
        .stats_servers = o->stats_servers,
        .proxy_stats = o->proxy_stats,
        .distribution = o->distribution,
        .hash = o->hash,
        .threads = o->threads,
        .flush = o->flush,
        .tls = o->tls,
        .trace = {.path = o->trace,
                  .skip_bad = o->trace_skip_bad,
                  .limit = o->trace_limit,
                  .value_max = o->trace_value_max},
        .trace_spread = o->trace_spread,
        .engine = plan_engine(o),
        .period_ns = fine ? PLAN_FINE_PERIOD_NS : o->stat_freq_ns,
        .start_at_ns = o->start_at_ns,
        .label = o->label,
        .quiet = o->quiet,
    };
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
