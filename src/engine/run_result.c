/* What a run tells its caller once it ended: its result (with the requests it left unanswered
 * and the servers that held them), what limited it. */
#include "run_state.h"
#include "slap/engine/run.h"

#include <sys/socket.h>

#include "slap/base/hostcpu.h"
#include "slap/engine/limits_measure.h"

void run_result(const struct run *r, struct run_result *res)
{
    *res = (struct run_result){.trace_error = ""};
    if (r == NULL) {
        return;
    }
    const struct lane_params *lp = &r->engine.lane;
    uint32_t per_server = lp->concurrency * lp->conns_per_client * (lp->facebook ? 2 : 1);
    *res = (struct run_result){
        .signal = r->signal,
        .global = &r->global,
        .start_ns = r->gate.start_ns,
        .end_ns = r->end_ns,
        .measure_wall_ns = r->start_wall_ns + r->engine.warmup_ns,
        .flush_ns = r->flush_ns,
        .period_ns = r->period_ns,
        .nservers = r->servers.count,
        .servers = r->servers.items,
        .server_stats = r->server_stats,
        .stalls = r->stalls,
        .conns_per_server = per_server,
        .measure_start_ns = run_measure_start(r),
        .trace_counts = &r->replay.counts,
        .trace_sent = &r->trace_sent,
        .trace_error = r->replay.error,
        .samples_written = r->samples_written,
        .samples_dropped = r->samples_dropped,
        .changes = r->control_log,
        .nchanges = r->ncontrol,
    };
}

bool run_all_blocked(const struct run *r)
{
    const struct lane_params *lp = &r->engine.lane;
    return r->blocked_lanes > 0 && r->blocked_lanes == lp->concurrency * lp->conns_per_client;
}

/* slap's threads over the measured part: mean and most of their busy and waiting shares. */
static void client_threads(const struct run *r, double seconds, struct limits_client *c)
{
    double busy_sum = 0, wait_sum = 0;
    c->wait_known = true;
    for (uint32_t t = 0; t < r->nworkers; t++) {
        const struct worker *w = &r->workers[t];
        if (w->cpu_state != WORKER_CPU_MEASURED) {
            continue;
        }
        /* the thread's own readings' span: a thread starved at the end reads late, and its
         * wait then covers more than the measured seconds */
        double span = w->cpu_window_ns > 0 ? (double)w->cpu_window_ns / SLAP_NS_PER_SEC : seconds;
        span = span > seconds ? span : seconds;
        double busy = (double)w->cpu_ns / (double)SLAP_NS_PER_SEC / span;
        double wait = (double)w->wait_ns / (double)SLAP_NS_PER_SEC / span;
        c->wait_known = c->wait_known && w->wait_known;
        c->threads++;
        busy_sum += busy;
        wait_sum += wait;
        c->busy_max = busy > c->busy_max ? busy : c->busy_max;
        c->wait_max = wait > c->wait_max ? wait : c->wait_max;
        c->demand_max = busy + wait > c->demand_max ? busy + wait : c->demand_max;
    }
    c->busy_mean = c->threads > 0 ? busy_sum / c->threads : 0;
    c->wait_mean = c->threads > 0 ? wait_sum / c->threads : 0;
    if (!c->wait_known || c->threads == 0) {
        c->wait_known = false;
        c->wait_mean = c->wait_max = 0;
        c->demand_max = c->busy_max;
    }
}

/* The fewest requests the tail's share is taken over: the P99's tail of a short run (20 of
 * 2000) is too few to say whose it was, and a few late wake-ups would decide it. */
#define RUN_TAIL_MIN 100

/* An open loop's latency taken apart at its P99: each part's own P99, and the share of the
 * requests at or above the P99 (at least the slowest RUN_TAIL_MIN) that were mostly slap late
 * to send. total: scratch. */
static void latency_parts(const struct slap_stats *s, struct hist *total, struct limits *l)
{
    stats_total_of(s->late, total);
    l->slap_late_p99_s = (double)hist_percentile_ns(total, 99.0) / 1e9;
    stats_total_of(s->held, total);
    l->held_p99_s = (double)hist_percentile_ns(total, 99.0) / 1e9;
    stats_total_hist(s, total);
    l->latency_p99_s = (double)hist_percentile_ns(total, 99.0) / 1e9;
    if (total->count > 0) { /* the tail: at or above the P99, or the slowest RUN_TAIL_MIN */
        uint64_t rank = hist_percentile_rank(99.0, total->count);
        rank = total->count - rank + 1 >= RUN_TAIL_MIN || total->count < RUN_TAIL_MIN
                   ? rank
                   : total->count - RUN_TAIL_MIN + 1;
        size_t from = hist_rank_bucket(total, total->count < RUN_TAIL_MIN ? 1 : rank);
        uint64_t tail = hist_count_from(total, from);
        l->slap_tail_share = tail > 0 ? (double)hist_count_from(s->slap_tail, from) / tail : 0;
    }
}

/*
 * Little's law over the measured part: the requests slap had in flight on average (requests
 * per second x their mean latency from the send; the corrected latency of an open loop also
 * holds the wait for a free socket) against what it may have; and how far an open loop's
 * sends fell behind its schedule.
 */
static void in_flight(const struct run *r, double seconds, struct limits *l)
{
    struct hist *total = &r->scratch[RUN_SCRATCH_LIMITS]; /* the run's: written through const */
    const struct lane_params *lp = &r->engine.lane;
    if (lp->tps > 0) {
        latency_parts(&r->global, total, l);
        stats_total_raw(&r->global, total);
        l->client_lag = r->global.counters.client_lag;
        l->send_lag_p99_s = (double)hist_percentile_ns(r->global.lag, 99.0) / 1e9;
        l->net_p99_s = (double)hist_percentile_ns(total, 99.0) / 1e9;
    } else {
        stats_total_hist(&r->global, total);
    }
    const struct slap_counters *c = &r->global.counters;
    l->due = stats_ops(&r->global) + c->unanswered;
    l->silent = c->unanswered > c->unsent ? c->unanswered - c->unsent : 0;
    l->in_flight_max =
        lp->concurrency * lp->conns_per_client * (lp->pipeline > 0 ? lp->pipeline : 1);
    l->in_flight_mean = (double)total->count / seconds * hist_mean_us(total) / 1e6;
    const struct hist *own = r->global.own;
    l->own_known = own != NULL && own->count > 0 && hist_mean_us(total) > 0;
    if (l->own_known) { /* latency ends at the kernel's arrival: slap's read is later by own */
        l->own_share = hist_mean_us(own) / (hist_mean_us(total) + hist_mean_us(own));
        l->own_p99_s = (double)hist_percentile_ns(own, 99.0) / 1e9;
    }
}

enum slap_status run_limits(const struct run *r, struct limits *l)
{
    double seconds = run_seconds(r);
    uint32_t nservers = r->server_stats != NULL ? r->servers.count : 0;
    uint32_t extra = r->server_stats != NULL ? watch_extra(&r->watch) : 0;
    if (limits_init(l, nservers + extra) != SLAP_OK || seconds <= 0 || !r->cpu_measured) {
        return SLAP_ERROR;
    }
    l->seconds = seconds;
    const struct lane_params *lp = &r->engine.lane;
    l->target_tps = lp->tps;
    l->achieved_tps = (double)stats_requests(&r->global) / seconds; /* as -P: a multi-get is one */
    l->paced_by_trace = lp->trace && lp->trace_speed > 0;
    l->ramped = r->engine.ramp.duration_ns > 0;
    l->concurrency = lp->concurrency;
    l->threads = r->plan.threads;
    l->client.cpu_user_s = r->cpu_user_s;
    l->client.cpu_sys_s = r->cpu_sys_s;
    client_threads(r, seconds, &l->client);
    l->client.cpus = r->cpus_allowed;
    l->client.cpu_share =
        r->cpus_allowed > 0 ? (r->cpu_user_s + r->cpu_sys_s) / (seconds * r->cpus_allowed) : 0;
    double host_busy = hostcpu_busy(&r->host_before, &r->host_after);
    l->host.known = host_busy >= 0;
    l->host.busy = host_busy >= 0 ? host_busy : 0;
    double steal = hostcpu_steal(&r->host_before, &r->host_after);
    l->host.steal = steal > 0 ? steal : 0;
    l->host.cpus = hostcpu_online();
    in_flight(r, seconds, l);
    l->stopped = run_all_blocked(r);
    l->down = l->stalled = 0;
    for (uint32_t i = 0; r->stalls != NULL && i < r->servers.count; i++) {
        l->down += r->stalls[i].down;
        l->stalled += r->stalls[i].conns;
    }
    for (uint32_t i = 0; i < nservers; i++) {
        const struct server *srv = &r->servers.items[i];
        bool local = hostcpu_address_local((const struct sockaddr *)&srv->addr);
        limits_server_from_stats(&l->servers[i], srv->name, r->plan.label, &r->server_stats[i],
                                 local ? l->host.cpus : 0);
    }
    if (r->server_stats != NULL) {
        watch_limits(&r->watch, &r->servers, r->plan.label, l->host.cpus,
                     stats_requests(&r->global), l);
    }
    limits_judge(l);
    return SLAP_OK;
}
