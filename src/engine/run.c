/*
 * A run: the plan, the worker threads, the main thread's wait, periods and signals.
 *
 * The main thread never touches a socket. It spreads the clients over the
 * workers, waits for every worker to connect, gives the start time, then
 * sleeps in sigtimedwait: a signal asks the workers to stop; each -S period it
 * collects what the workers published and prints the tables.
 */
#include "slap/engine/run.h"
#include "run_state.h"

#include "slap/base/hostcpu.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "slap/base/common.h"
#include "slap/engine/client.h"
#include "slap/engine/worker.h"
#include "slap/net/tls.h"

#define RUN_POLL_NS (2ULL * SLAP_NS_PER_MS)
#define RUN_SAMPLES_DRAIN_NS (5ULL * SLAP_NS_PER_MS)
#define RUN_SPARE_FDS 64
#define RUN_FDS_PER_THREAD 5 /* epoll, timerfd, the signal socketpair, --trace's eventfd */

/*
 * Descriptors: every socket, each thread's event loop (epoll, its timer and its signal pair)
 * and a few spare (standard streams, files, libmemcached's admin connections). The soft
 * limit is raised as far as the hard one allows; only if that is too low is the run refused.
 */
static enum slap_status check_fd_limit(const struct run_plan *p, uint32_t nservers, char *err,
                                       size_t err_len)
{
    const struct lane_params *lp = &p->engine.lane;
    uint64_t lanes = (uint64_t)lp->concurrency * lp->conns_per_client;
    /* UDP: a thread's lanes share a socket to each server (one per UDP_ID_SLOTS_MAX lanes) */
    uint64_t threads = p->threads > 0 ? p->threads : 1;
    uint64_t lanes_per_thread = lanes / threads + (lanes % threads > 0);
    uint64_t udp = threads * nservers * (lanes_per_thread / UDP_ID_SLOTS_MAX + 1);
    uint64_t sockets = lp->udp ? udp : lanes * nservers + (lp->facebook ? udp : 0);
    uint64_t loops = (uint64_t)p->threads * RUN_FDS_PER_THREAD;
    uint64_t need = sockets + loops + RUN_SPARE_FDS;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
        return SLAP_OK;
    }
    if (rl.rlim_cur < need && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? need : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    if (rl.rlim_cur < need) {
        snprintf(err, err_len,
                 "%llu descriptors are needed (%llu sockets, %llu for %u threads' event loops, "
                 "%d spare) but the open file limit is %llu, and its hard limit %llu "
                 "(see ulimit -n)",
                 (unsigned long long)need, (unsigned long long)sockets, (unsigned long long)loops,
                 p->threads, RUN_SPARE_FDS, (unsigned long long)rl.rlim_cur,
                 (unsigned long long)rl.rlim_max);
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

/* Name what took the memory: the windows' per-key state (-w with -v, -e, -o or -p), or the
 * clients and their connections. */
static void out_of_memory(const struct run *r, char *err, size_t err_len)
{
    const struct lane_params *lp = &r->engine.lane;
    if (r->workload.track_slots) {
        double mib = (double)r->workload.win_size * (double)sizeof(struct slot_state) *
                     (double)lp->concurrency / (1024.0 * 1024.0);
        snprintf(err, err_len,
                 "out of memory: -w %llu keys for each of %u clients, with -v, -e, -o or -p "
                 "keeping %zu bytes a key, take %.0f MiB: use a smaller -w or fewer clients",
                 (unsigned long long)r->workload.win_size, lp->concurrency,
                 sizeof(struct slot_state), mib);
        return;
    }
    if (r->engine.memslap_face) {
        snprintf(err, err_len, "out of memory for %u threads (--concurrency)", lp->concurrency);
        return;
    }
    snprintf(err, err_len, "out of memory for %u clients (-c) with %u connections each (-n)",
             lp->concurrency, lp->conns_per_client);
}

/* The worker of lane i: clients are spread over the workers as run_init spreads them. */
static struct worker *worker_of(struct run *r, uint32_t lane)
{
    uint64_t client = lane / r->engine.lane.conns_per_client;
    uint64_t t = ((client + 1) * r->nworkers - 1) / r->engine.lane.concurrency;
    return &r->workers[t];
}

/* --trace: the reader filled the empty ring of a lane (or ended): wake its worker (or all). */
static void wake_lane(void *ctx, uint32_t lane)
{
    struct run *r = ctx;
    if (lane != REPLAY_EVERY_LANE) {
        worker_notify(worker_of(r, lane));
        return;
    }
    for (uint32_t t = 0; t < r->nworkers; t++) {
        worker_notify(&r->workers[t]);
    }
}

/* The plan's engine settings, with what only the run knows: where the workload, servers,
 * trace rings, shape and TLS context are, and what the codec of the protocol tells. */
static void complete_engine(struct run *r)
{
    r->engine = r->plan.engine;
    r->engine.lane.wl = &r->workload;
    r->engine.lane.servers = &r->servers;
    r->engine.lane.rings = r->engine.lane.trace ? r->replay.rings : NULL;
    r->engine.lane.replay_done = &r->replay.done;
    r->engine.lane.meta = codec_get(r->engine.protocol)->meta_replies;
    r->engine.shape = &r->shape;
    r->engine.tls = r->tls;
    r->engine.auth = r->plan.auth.kind != AUTH_NONE ? &r->plan.auth : NULL;
    r->engine.period_ns = r->period_ns;
}

/* The servers, and what the run needs of them: stats to watch, the distribution, descriptors
 * for every socket, flushed when asked. */
static enum slap_status open_servers(struct run *r, char *err, size_t err_len)
{
    const struct run_plan *p = &r->plan;
    if (servers_open(&r->servers, p->servers, err, err_len) != SLAP_OK) {
        return SLAP_ERROR;
    }
    if (watch_init(&r->watch, p->stats_servers, p->proxy_stats, r->servers.count, err, err_len) !=
        SLAP_OK) {
        return SLAP_ERROR;
    }
    if (servers_configure(&r->servers, p->distribution, p->hash, err, err_len) != SLAP_OK ||
        check_fd_limit(p, r->servers.count * (p->engine.lane.facebook ? 2 : 1), err, err_len) !=
            SLAP_OK) {
        return SLAP_ERROR;
    }
    uint64_t flush_start = slap_now_ns();
    if (p->flush && servers_flush(&r->servers, err, err_len) != SLAP_OK) {
        return SLAP_ERROR;
    }
    r->flush_ns = p->flush ? slap_now_ns() - flush_start : 0;
    return SLAP_OK;
}

/* The workers, the run's clients spread over them. */
static enum slap_status make_workers(struct run *r, char *err, size_t err_len)
{
    uint32_t concurrency = r->engine.lane.concurrency;
    r->nworkers = r->plan.threads;
    r->workers = calloc(r->nworkers, sizeof(*r->workers));
    r->stalls = calloc(r->servers.count, sizeof(*r->stalls));
    if (r->workers == NULL || r->stalls == NULL) {
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    for (uint32_t t = 0; t < r->nworkers; t++) {
        /* Clients spread as evenly as possible: counts differ by at most one. */
        uint32_t first = (uint32_t)((uint64_t)concurrency * t / r->nworkers);
        uint32_t next = (uint32_t)((uint64_t)concurrency * (t + 1) / r->nworkers);
        if (worker_init(&r->workers[t], &r->engine, &r->gate, t, first, next - first) != SLAP_OK) {
            out_of_memory(r, err, err_len);
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

/* run_init's work, on a run that is all zeros. */
static enum slap_status init(struct run *r, const struct run_plan *p, FILE *out, char *err,
                             size_t err_len)
{
    struct stat st;
    r->plan = *p;
    r->period_ns = p->period_ns;
    r->out = out;
    r->out_watched = fstat(fileno(out), &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
    pthread_mutex_init(&r->gate.lock, NULL);
    pthread_cond_init(&r->gate.cond, NULL);
    if (open_servers(r, err, err_len) != SLAP_OK) {
        return SLAP_ERROR;
    }
    if (p->tls && tls_ctx_open(&r->tls, &p->tls_settings, err, err_len) != SLAP_OK) {
        return SLAP_ERROR;
    }
    if (workload_init(&r->workload, &p->workload) != SLAP_OK) {
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    r->shape = (struct stats_shape){.types = workload_ops(&r->workload),
                                    .open_loop = p->engine.lane.tps > 0};
    uint32_t nlanes = p->engine.lane.concurrency * p->engine.lane.conns_per_client;
    if (p->engine.lane.trace) {
        r->shape.types = (1u << OP_COUNT) - 1; /* whatever the trace sends */
        struct replay_waker waker = {wake_lane, r};
        if (replay_init(&r->replay, &p->trace, nlanes, p->trace_spread == TRACE_SPREAD_ROUND_ROBIN,
                        &waker, err, err_len) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    if (stats_init(&r->global, &r->shape) != SLAP_OK ||
        stats_init(&r->period, &r->shape) != SLAP_OK ||
        stats_init(&r->tick, &r->shape) != SLAP_OK ||
        hist_slab_alloc(&r->scratch, RUN_SCRATCH_HISTS) != SLAP_OK) {
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    complete_engine(r);
    return make_workers(r, err, err_len);
}

enum slap_status run_init(struct run **rp, const struct run_plan *p, FILE *out, char *err,
                          size_t err_len)
{
    *rp = calloc(1, sizeof(**rp));
    if (*rp == NULL) {
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    return init(*rp, p, out, err, err_len);
}

void run_free(struct run *r)
{
    if (r == NULL) {
        return;
    }
    for (uint32_t t = 0; r->workers != NULL && t < r->nworkers; t++) {
        if (r->workers[t].cfg != NULL) {
            worker_free(&r->workers[t]);
        }
    }
    free(r->workers);
    free(r->stalls);
    free(r->server_stats);
    free(r->fill_evictions);
    replay_free(&r->replay);
    stats_free(&r->global);
    stats_free(&r->period);
    stats_free(&r->tick);
    workload_free(&r->workload);
    tls_ctx_close(r->tls);
    servers_close(&r->servers);
    watch_free(&r->watch);
    pthread_mutex_destroy(&r->gate.lock);
    pthread_cond_destroy(&r->gate.cond);
    hist_slab_free(r->scratch, RUN_SCRATCH_HISTS);
    free(r);
}

uint64_t run_measure_start(const struct run *r)
{
    return r->gate.start_ns + r->engine.warmup_ns;
}

double run_seconds(const struct run *r)
{
    uint64_t start = run_measure_start(r);
    if (r->end_ns <= start) {
        return 0.0;
    }
    return (double)(r->end_ns - start) / (double)SLAP_NS_PER_SEC;
}

void run_stop_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP); /* the terminal closed, an ssh session dropped */
}

void run_ask_stop(struct run *r)
{
    if (!atomic_load(&r->gate.stop)) {
        atomic_store(&r->gate.stop_ns, slap_now_ns());
        atomic_store(&r->gate.stop, true);
    }
}

/* The report goes to a pipe or socket whose reader went away (slap ... | head): stop now. */
static void watch_output(struct run *r)
{
    struct pollfd pfd = {.fd = fileno(r->out), .events = 0};
    if (r->out_watched && !r->output_gone && poll(&pfd, 1, 0) == 1 &&
        (pfd.revents & (POLLERR | POLLHUP)) != 0) {
        r->output_gone = true;
        run_ask_stop(r);
    }
}

static void wait_signal(struct run *r, uint64_t ns)
{
    sigset_t set;
    run_stop_signals(&set);
    struct timespec ts = {.tv_sec = (time_t)(ns / SLAP_NS_PER_SEC),
                          .tv_nsec = (long)(ns % SLAP_NS_PER_SEC)};
    if (r->sinks.wait != NULL) {
        r->sinks.wait(r->sinks.ctx, ns); /* the signals stay blocked: they wait for us */
        ts = (struct timespec){0, 0};
    }
    int sig = sigtimedwait(&set, NULL, &ts);
    if (sig > 0) {
        r->signal = r->signal == 0 ? sig : r->signal;
        run_ask_stop(r);
    }
    watch_output(r);
}

static void set_go(struct run *r, enum gate_go go)
{
    struct timespec wall;
    pthread_mutex_lock(&r->gate.lock);
    clock_gettime(CLOCK_REALTIME, &wall);
    r->gate.start_ns = slap_now_ns();
    r->start_wall_ns = (uint64_t)wall.tv_sec * SLAP_NS_PER_SEC + (uint64_t)wall.tv_nsec;
    r->gate.go = go;
    pthread_cond_broadcast(&r->gate.cond);
    pthread_mutex_unlock(&r->gate.lock);
}

void run_preload(const struct run *r, uint64_t *sets, uint64_t *ns)
{
    *sets = 0;
    *ns = 0;
    for (uint32_t t = 0; t < r->nworkers; t++) {
        *sets += r->workers[t].env.preload_sets;
        *ns = r->workers[t].preload_ns > *ns ? r->workers[t].preload_ns : *ns;
    }
}

/* Tell the run's sinks what happened. */
static void tell(const struct run *r, const struct run_event *e)
{
    run_event_tell(&r->sinks.events, e);
}

/* --preload: how many sets it took and how long, before the measured run. */
static void report_preload(const struct run *r)
{
    uint64_t sets, ns;
    run_preload(r, &sets, &ns);
    if (ns > 0 && !r->plan.silent_preload && !r->plan.quiet) {
        tell(r, &(struct run_event){
                    .kind = RUN_EVENT_PRELOAD,
                    .preload = {.sets = sets, .seconds = (double)ns / (double)SLAP_NS_PER_SEC}});
    }
}

/* Wait until every worker has connected (or failed), answering signals meanwhile. */
static enum slap_status wait_ready(struct run *r, uint32_t spawned, char *err, size_t err_len)
{
    for (;;) {
        pthread_mutex_lock(&r->gate.lock);
        uint32_t ready = r->gate.ready;
        pthread_mutex_unlock(&r->gate.lock);
        if (ready == spawned) {
            break;
        }
        wait_signal(r, RUN_POLL_NS);
    }
    for (uint32_t t = 0; t < spawned; t++) {
        if (r->workers[t].env.phase == WORKER_FAILED) {
            snprintf(err, err_len, "%s", r->workers[t].error);
            return SLAP_ERROR;
        }
    }
    if (atomic_load(&r->gate.stop)) {
        snprintf(err, err_len, "the report's reader went away before the run began");
        return SLAP_ERROR;
    }
    report_preload(r);
    return SLAP_OK;
}

/* After a worker's thread ended: its statistics (into rest), end and stalled sockets. */
static void run_gather(struct run *r, struct worker *w, struct slap_stats *rest)
{
    worker_collect(w, rest);
    r->end_ns = w->env.end_ns > r->end_ns ? w->env.end_ns : r->end_ns;
    r->blocked_lanes += w->blocked_lanes;
    trace_progress_merge(&r->trace_sent, &w->env.trace_sent);
    for (uint32_t i = 0; i < r->servers.count && w->stalls != NULL; i++) {
        struct worker_stall *to = &r->stalls[i];
        const struct worker_stall *from = &w->stalls[i];
        to->down += from->down;
        if (from->conns > 0) {
            to->since_ns =
                to->conns == 0 || from->since_ns < to->since_ns ? from->since_ns : to->since_ns;
            to->conns += from->conns;
        }
    }
}

static uint32_t workers_done(struct run *r)
{
    uint32_t done = 0;
    for (uint32_t t = 0; t < r->nworkers; t++) {
        done += atomic_load(&r->workers[t].done) ? 1 : 0;
    }
    return done;
}

static bool period_published(struct run *r, uint64_t period_no)
{
    for (uint32_t t = 0; t < r->nworkers; t++) {
        if (atomic_load(&r->workers[t].mailbox.ticks) < period_no) {
            return false;
        }
    }
    return true;
}

/* The live line: how far the run is, its rate, p99 and errors over the last second, over the
 * line before. Shown once a second, whatever the periods' length (0.1 s without -S). */
static void show_progress(struct run *r, const struct slap_stats *period, uint64_t period_no)
{
    struct hist *total = &r->scratch[RUN_SCRATCH_PROGRESS];
    struct hist *second = &r->scratch[RUN_SCRATCH_SECOND]; /* the periods since the last line */
    const struct engine_config *o = &r->engine;
    uint64_t elapsed_ns = period_no * r->period_ns;
    if (period_no == 1) {
        hist_reset(second);
        r->progress_ops = 0;
        r->progress_shown_ns = 0;
    }
    stats_total_hist(period, total);
    hist_merge(second, total);
    r->progress_ops += stats_ops(period);
    uint64_t shown_ns = r->progress_shown_ns;
    if (elapsed_ns % SLAP_NS_PER_SEC != 0 && elapsed_ns - shown_ns < SLAP_NS_PER_SEC) {
        return;
    }
    double elapsed = (double)elapsed_ns / (double)SLAP_NS_PER_SEC;
    uint64_t answered = 0;
    if (o->lane.execute_number > 0) {
        struct hist done;
        stats_total_hist(&r->global, &done);
        answered = done.count;
    }
    tell(r, &(struct run_event){
                .kind = RUN_EVENT_PROGRESS,
                .progress = {.done = answered,
                             .total = o->lane.execute_number,
                             .elapsed_s = elapsed,
                             .left_s = (double)o->run_time_ns / (double)SLAP_NS_PER_SEC - elapsed,
                             .ops_per_s = (double)r->progress_ops * (double)SLAP_NS_PER_SEC /
                                          (double)(elapsed_ns - shown_ns),
                             .p99_us =
                                 (double)hist_percentile_ns(second, 99.0) / (double)SLAP_NS_PER_US,
                             .errors = stats_errors(&r->global.counters)}});
    hist_reset(second);
    r->progress_ops = 0;
    r->progress_shown_ns = elapsed_ns;
}

/* The progress line goes when the run ends: nothing of it is left on the terminal. */
static void erase_progress(const struct run *r)
{
    if (r->progress) {
        tell(r, &(struct run_event){.kind = RUN_EVENT_PROGRESS_END});
    }
}

/* One tick, collected: into the run's total and its period. When the period is complete:
 * tables, results and the progress line. */
static void collect_tick(struct run *r, uint64_t tick_no)
{
    stats_reset(&r->tick);
    for (uint32_t t = 0; t < r->nworkers; t++) {
        worker_collect(&r->workers[t], &r->tick);
    }
    stats_merge(&r->global, &r->tick);
    stats_merge(&r->period, &r->tick);
    r->ticks_collected = tick_no;
    if (r->sinks.fine != NULL) {
        r->sinks.fine(r->sinks.ctx, &r->tick, (double)r->tick_ns / (double)SLAP_NS_PER_SEC, false);
    }
    if (r->sinks.tick != NULL) {
        r->sinks.tick(r->sinks.ctx, &r->global,
                      (double)(tick_no * r->tick_ns) / (double)SLAP_NS_PER_SEC);
    }
    if (tick_no % r->ticks_per_period != 0) {
        return;
    }
    uint64_t period_no = tick_no / r->ticks_per_period;
    struct slap_stats *period = &r->period;
    if (r->sinks.period != NULL) {
        double seconds = (double)r->period_ns / (double)SLAP_NS_PER_SEC;
        r->sinks.period(r->sinks.ctx, period, &r->global, period_no, seconds);
    }
    if (r->sinks.enough != NULL && r->sinks.enough(r->sinks.ctx)) {
        run_ask_stop(r);
    }
    if (r->progress) {
        show_progress(r, period, period_no);
    }
    stats_reset(period);
}

/* --samples: what the workers' rings hold, into the file. */
static void drain_samples(struct run *r)
{
    for (uint32_t t = 0; r->sinks.samples != NULL && t < r->nworkers; t++) {
        r->samples_written +=
            r->sinks.samples(r->sinks.ctx, &r->workers[t].env.samples, run_measure_start(r));
    }
}

/* Whether the go was given (or the run aborted): the gate's start_ns, the samples' origin, is
 * written under the lock before and never after, so the samples thread reads it once this is
 * true (the thread starts before the go: reading it sooner raced with set_go). */
static bool go_given(struct run *r)
{
    pthread_mutex_lock(&r->gate.lock);
    bool given = r->gate.go != GATE_WAIT;
    pthread_mutex_unlock(&r->gate.lock);
    return given;
}

/* The samples thread: drains the rings every RUN_SAMPLES_DRAIN_NS from the go while the workers
 * run, and once more after they ended (samples_stop is set after the go). A writer that blocks
 * holds only this thread: the rings fill and the workers count what does not fit as dropped. */
static void *samples_main(void *arg)
{
    struct run *r = arg;
    struct timespec pause = {0, (long)RUN_SAMPLES_DRAIN_NS};
    bool go = false;
    while (!atomic_load(&r->samples_stop)) {
        go = go || go_given(r);
        if (go) {
            drain_samples(r);
        }
        nanosleep(&pause, NULL);
    }
    drain_samples(r);
    return NULL;
}

static void start_samples(struct run *r)
{
    atomic_store(&r->samples_stop, false);
    r->samples_running =
        r->sinks.samples != NULL && pthread_create(&r->samples_thread, NULL, samples_main, r) == 0;
}

/* After the workers: the last samples, then the thread's end (bounded: a stalled output gives
 * up within OUTFILE_STALL_MS, or at once on a stop signal). Without the thread, drained here. */
static void stop_samples(struct run *r)
{
    if (!r->samples_running) {
        drain_samples(r);
        return;
    }
    atomic_store(&r->samples_stop, true);
    pthread_join(r->samples_thread, NULL);
    r->samples_running = false;
}

/* The main thread's wait: signals, -S tables, the end of every worker. */
static void wait_workers(struct run *r)
{
    uint64_t freq = r->tick_ns;
    uint64_t tick_no = 1;
    bool periods = freq > 0;
    for (;;) {
        bool all_done = workers_done(r) == r->nworkers;
        if (all_done && !(periods && period_published(r, tick_no))) {
            break;
        }
        uint64_t now = slap_now_ns();
        uint64_t wait = 10 * SLAP_NS_PER_MS;
        if (periods) {
            uint64_t due = run_measure_start(r) + tick_no * freq;
            if ((now >= due || all_done) && period_published(r, tick_no)) {
                collect_tick(r, tick_no++);
                continue;
            }
            wait = now >= due ? RUN_POLL_NS : (due - now < wait ? due - now : wait);
        }
        wait_signal(r, wait);
        if (r->signal != 0) {
            periods = false;
        }
    }
    erase_progress(r);
}

/* Why slap does not read the servers' stats in this run, or NULL when it does. */
static const char *stats_unread(const struct run *r)
{
    if (r->plan.tls) {
        return "not read: slap reads stats in clear, not TLS";
    }
    return NULL;
}

/* The servers' stats are read in the run's protocol: a server that speaks binary (memcached -B
 * binary, or -S) may refuse text. */
static bool stats_binary(const struct run *r)
{
    return !codec_get(r->engine.protocol)->text_stats;
}

/* What loads the servers before the measured part: a preload, a warm-up, both, or none. */
static enum run_fill loading_phase(const struct run *r)
{
    const struct engine_config *o = &r->engine;
    bool preload = !o->lane.windows_stored && client_windows_full(&o->lane, &r->workload);
    if (preload && o->memslap_face) {
        return RUN_FILL_INITIAL_LOAD;
    }
    if (preload && o->warmup_ns > 0) {
        return RUN_FILL_BOTH;
    }
    return preload ? RUN_FILL_PRELOAD : o->warmup_ns > 0 ? RUN_FILL_WARMUP : RUN_FILL_NONE;
}

/* Before a preload or warm-up: each server's evictions, so that those they cause are told
 * apart from the measured run's (the windows did not fit in the server's memory). */
static void read_fill_evictions(struct run *r)
{
    if (r->server_stats == NULL || stats_unread(r) != NULL || loading_phase(r) == RUN_FILL_NONE) {
        return;
    }
    r->fill_evictions = calloc(r->servers.count, sizeof(*r->fill_evictions));
    for (uint32_t i = 0; r->fill_evictions != NULL && i < r->servers.count; i++) {
        struct server_stats now;
        char why[SERVER_STATS_NOTE_MAX];
        bool read = server_stats_read(&r->servers.items[i], SERVER_STATS_TIMEOUT_NS, r->engine.auth,
                                      stats_binary(r), &now, why, sizeof(why)) == SLAP_OK;
        r->fill_evictions[i] = read ? now.evictions : -1.0;
    }
}

/* Once the stats before the measured part are in: the evictions of the preload or warm-up,
 * kept and, when there were any, told (FILL_EVICTIONS). */
static void note_fill_evictions(struct run *r)
{
    for (uint32_t i = 0; r->fill_evictions != NULL && i < r->servers.count; i++) {
        struct server_stats_pair *p = &r->server_stats[i];
        if (!p->ok || r->fill_evictions[i] < 0 || p->before.evictions < r->fill_evictions[i]) {
            continue;
        }
        p->preload_known = true;
        p->preload_evictions = p->before.evictions - r->fill_evictions[i];
        if (p->preload_evictions > 0) {
            tell(r,
                 &(struct run_event){.kind = RUN_EVENT_FILL_EVICTIONS,
                                     .fill_evictions = {.server = r->servers.items[i].name,
                                                        .evictions = p->preload_evictions,
                                                        .fill = loading_phase(r),
                                                        .memslap_face = r->engine.memslap_face}});
        }
    }
}

/* Each server's own stats, before (after == false) or after the run. */
static void read_server_stats(struct run *r, bool after)
{
    for (uint32_t i = 0; r->server_stats != NULL && i < r->servers.count; i++) {
        struct server_stats_pair *p = &r->server_stats[i];
        char why[SERVER_STATS_NOTE_MAX - 40];
        if (stats_unread(r) != NULL) {
            snprintf(p->note, sizeof(p->note), "%s", stats_unread(r));
            continue;
        }
        if ((after && !p->ok) ||
            server_stats_read(&r->servers.items[i], SERVER_STATS_TIMEOUT_NS, r->engine.auth,
                              stats_binary(r), after ? &p->after : &p->before, why,
                              sizeof(why)) == SLAP_OK) {
            *(after ? &p->after_ns : &p->before_ns) = slap_now_ns();
            p->ok = p->ok || !after;
            continue;
        }
        p->ok = false;
        snprintf(p->note, sizeof(p->note), "stats not read %s the run: %s",
                 after ? "after" : "before", why);
    }
    if (r->server_stats != NULL) {
        watch_read(&r->watch, &r->servers, r->server_stats, after);
    }
    if (!after) {
        note_fill_evictions(r);
    }
}

/* slap's CPU so far (start), or what it used since the start (the end). */
static void mark_cpu(struct run *r, bool start)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0 || (start ? r->cpu_started : !r->cpu_started)) {
        return;
    }
    double user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
    double sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    r->cpu_user_s = start ? user : user - r->cpu_user_s;
    r->cpu_sys_s = start ? sys : sys - r->cpu_sys_s;
    r->cpu_started = true;
    r->cpu_measured = !start;
    *(start ? &r->host_before : &r->host_after) = hostcpu_read();
    r->cpus_allowed = start ? hostcpu_allowed() : r->cpus_allowed;
}

/*
 * The measured part begins: with --warmup, wait (answering signals) for its end, so that the
 * warm-up's load counts neither in slap's CPU nor in the servers' stats, read here then;
 * without, the servers' stats were read just before the go. slap's CPU is read first: a server
 * slow to answer stats (up to SERVER_STATS_TIMEOUT_NS) delays only its own reading.
 */
static void begin_measure(struct run *r)
{
    uint64_t start = run_measure_start(r);
    uint64_t now;
    while (r->engine.warmup_ns > 0 && (now = slap_now_ns()) < start && r->signal == 0 &&
           !atomic_load(&r->gate.stop)) {
        wait_signal(r, start - now < 100 * SLAP_NS_PER_MS ? start - now : 100 * SLAP_NS_PER_MS);
    }
    if (r->signal != 0 || atomic_load(&r->gate.stop)) {
        return;
    }
    mark_cpu(r, true);
    if (r->engine.warmup_ns > 0) {
        read_server_stats(r, false);
    }
}

static uint64_t wall_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * SLAP_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* --start_at: everyone is connected; wait for the instant (signals still stop the wait). */
static enum slap_status wait_start_at(struct run *r, char *err, size_t err_len)
{
    uint64_t at = r->plan.start_at_ns;
    uint64_t now = wall_now_ns();
    if (now > at + SLAP_NS_PER_SEC / 100) {
        tell(r, &(struct run_event){
                    .kind = RUN_EVENT_START_LATE,
                    .start_late = {.late_s = (double)(now - at) / (double)SLAP_NS_PER_SEC}});
    }
    while ((now = wall_now_ns()) < at && r->signal == 0) {
        uint64_t left = at - now;
        wait_signal(r, left < 100 * SLAP_NS_PER_MS ? left : 100 * SLAP_NS_PER_MS);
    }
    if (r->signal != 0) {
        snprintf(err, err_len, "interrupted while waiting for --start_at");
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

/* Join the workers; what they had not published goes into the run's total (and periods):
 * the rest is that, with the ticks of a period left incomplete. */
static void join_workers(struct run *r, uint32_t spawned)
{
    struct slap_stats *rest = &r->period;
    stats_reset(&r->tick);
    for (uint32_t t = 0; t < spawned; t++) {
        pthread_join(r->workers[t].thread, NULL);
        run_gather(r, &r->workers[t], &r->tick);
    }
    stop_samples(r);
    for (uint32_t t = 0; t < spawned; t++) { /* the samples thread's last drain may add some */
        r->samples_dropped += atomic_load(&r->workers[t].env.samples.dropped);
    }
    stats_merge(&r->global, &r->tick);
    stats_merge(rest, &r->tick);
    if (run_seconds(r) <= 0 || r->period_ns == 0) {
        return;
    }
    if (r->sinks.fine != NULL) {
        double left =
            run_seconds(r) - (double)(r->ticks_collected * r->tick_ns) / (double)SLAP_NS_PER_SEC;
        r->sinks.fine(r->sinks.ctx, &r->tick, left > 0 ? left : 0.0, true);
    }
    if (r->sinks.rest != NULL) {
        r->sinks.rest(r->sinks.ctx, rest, run_seconds(r));
    }
}

/* The workers publish every period, or (sinks.tick) at least once a second, or (sinks.fine)
 * every RUN_FINE_TICK_NS: a period longer than that is cut into equal ticks. */
static void plan_ticks(struct run *r)
{
    uint64_t n = 1;
    uint64_t longest = r->sinks.fine != NULL   ? RUN_FINE_TICK_NS
                       : r->sinks.tick != NULL ? SLAP_NS_PER_SEC
                                               : UINT64_MAX;
    if (r->period_ns > longest) {
        n = (r->period_ns + longest - 1) / longest;
    }
    r->ticks_per_period = n;
    r->tick_ns = r->period_ns / n;
    r->engine.period_ns = r->tick_ns;
}

enum slap_status run_execute(struct run *r, char *err, size_t err_len)
{
    uint32_t spawned = 0;
    int rc = SLAP_OK;
    plan_ticks(r);
    read_fill_evictions(r);
    start_samples(r);
    for (; spawned < r->nworkers; spawned++) {
        if (worker_spawn(&r->workers[spawned]) != SLAP_OK) {
            snprintf(err, err_len, "cannot start worker thread: %s", strerror(errno));
            rc = SLAP_ERROR;
            break;
        }
    }
    if (rc == SLAP_OK) {
        rc = wait_ready(r, spawned, err, err_len);
    }
    if (rc == SLAP_OK && r->engine.warmup_ns == 0) {
        read_server_stats(r, false); /* as near the go as can be without delaying it */
    }
    if (rc == SLAP_OK && r->plan.start_at_ns > 0) {
        rc = wait_start_at(r, err, err_len);
    }
    if (rc == SLAP_OK && r->engine.lane.trace) {
        /* Before the go, so that the lanes hold their first requests at the trace's time 0.
         * A failure to start ends the replay: the lanes finish. */
        replay_start(&r->replay, &r->gate.stop);
    }
    set_go(r, rc == SLAP_OK ? GATE_GO : GATE_ABORT);
    if (rc == SLAP_OK) {
        begin_measure(r);
        r->control_open = true;
        wait_workers(r);
        r->control_open = false;
        mark_cpu(r, false);
    }
    join_workers(r, spawned);
    if (rc == SLAP_OK) {
        read_server_stats(r, true);
    }
    atomic_store(&r->gate.stop, true); /* the reader may wait on a lane that no longer takes */
    replay_join(&r->replay);
    return rc;
}

enum slap_status run_want(struct run *r, const struct run_sinks *sinks, bool keep_periods,
                          bool server_stats, bool progress)
{
    r->sinks = sinks != NULL ? *sinks : (struct run_sinks){0};
    r->engine.lane.events = r->sinks.events; /* the workers' and lanes' events */
    r->progress = progress;
    bool ticks = r->sinks.tick != NULL || r->sinks.fine != NULL;
    if (r->period_ns == 0 && (keep_periods || progress || ticks)) {
        r->period_ns = SLAP_NS_PER_SEC;
    }
    r->engine.period_ns = r->period_ns;
    if (server_stats) {
        r->server_stats = calloc(r->servers.count, sizeof(*r->server_stats));
        return r->server_stats != NULL ? SLAP_OK : SLAP_ERROR;
    }
    return SLAP_OK;
}
