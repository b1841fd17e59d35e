/*
 * A worker thread: its event_base, its clients, timers, and the period mailbox.
 *
 * Its phase (w->env.phase) moves one way:
 *
 *   CONNECTING ──(every socket up)──┬──────────────────────────> READY ──(go)──┬─> WARMING ─┐
 *        │                          └─(--preload)─> PRELOADING ──┘    │        └────────────┴─>
 * MEASURING └──(a connect failed)──> FAILED <──(a client lost)──┘        │(abort)        │ end, -x
 * done, v               v stop asked DONE <──────── STOPPING (answers in, or
 * WORKER_DRAIN_TIMEOUT_NS)
 *
 *   worker_main: connect every socket ──> tell the main thread ──> wait for go
 *     ──> start every lane ──> event loop (end timer, -S tick, stop watch)
 *     ──> stop: no new requests, answers awaited up to WORKER_DRAIN_TIMEOUT_NS
 *     ──> publish the rest ──> done
 * Nothing here is shared but the mailbox, locked once a period.
 */
#include "slap/engine/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "slap/base/common.h"
#include "slap/judge/limits.h"
#include "slap/net/udp_endpoints.h"

#define WORKER_WATCH_NS (10ULL * SLAP_NS_PER_MS)
#define WORKER_TIMEOUT_CHECK_NS (100ULL * SLAP_NS_PER_MS)
#define WORKER_READ_BUFFER (64u * 1024u)

/* What every socket of the thread is given (the loop is filled in by worker_spawn). */
static void worker_conn_env(struct worker *w)
{
    const struct engine_config *o = w->cfg;
    w->conn_env = (struct conn_env){
        .codec = w->env.codec,
        .tls = o->tls,
        .auth = o->auth,
        .rbuf = w->rbuf,
        .rbuf_size = WORKER_READ_BUFFER + PROTO_ASCII_MAX_LINE,
        .ubuf = w->ubuf,
        .tls_out = w->tls_out,
        .tls_out_size = WORKER_TLS_OUT,
        .counters = &w->env.cur.counters,
        .udp = w->udp,
        .connect_timeout_ns = WORKER_CONNECT_TIMEOUT_NS,
        .udp_timeout_ns = o->udp_timeout_ns,
        /* the memslap face has neither option: its values are slap's defaults */
        .timeout_fault = o->memslap_face ? "no answer within 5 s" : "no answer within --timeout",
        .udp_timeout_fault = o->memslap_face ? "UDP answer not whole within 200 ms"
                                             : "UDP answer not whole within --udp_timeout",
        .backoff_min_ns = WORKER_RECONNECT_MIN_NS,
        .backoff_max_ns = WORKER_RECONNECT_MAX_NS,
        .ops = client_conn_ops(),
        .clock = o->timestamps == TIMESTAMPS_KERNEL ? &w->clock : NULL,
    };
}

/* The thread's slabs: clients, lanes, sockets, rings, headers, keys and buffers. */
static enum slap_status worker_alloc(struct worker *w)
{
    const struct lane_params *o = &w->cfg->lane;
    const struct workload *wl = o->wl;
    bool tls = w->cfg->tls != NULL;
    bool udp = o->udp || o->facebook;
    size_t nrequests = w->nconns * o->pipeline;

    w->clients = calloc(w->nclients, sizeof(*w->clients));
    w->lanes = calloc(w->nlanes, sizeof(*w->lanes));
    w->conns = calloc(w->nconns, sizeof(*w->conns));
    w->requests = calloc(nrequests, sizeof(*w->requests));
    w->reopens = o->reconnect_rate > 0 ? calloc(w->nconns, sizeof(*w->reopens)) : NULL;
    w->hdrs = malloc(nrequests * w->env.hdr_cap);
    w->keys = malloc((size_t)w->nclients * wl->keys.size);
    w->rbuf = malloc(WORKER_READ_BUFFER + PROTO_ASCII_MAX_LINE);
    w->tls_out = tls ? malloc(WORKER_TLS_OUT) : NULL;
    w->ubuf = udp ? malloc(client_udp_answer_cap(wl) + PROTO_ASCII_MAX_LINE) : NULL;
    w->stalls = calloc(o->servers->count, sizeof(*w->stalls));
    if (!w->clients || !w->lanes || !w->conns || !w->requests || !w->hdrs || !w->keys ||
        (o->reconnect_rate > 0 && !w->reopens) || !w->rbuf || (tls && !w->tls_out) ||
        (udp && !w->ubuf) || !w->stalls) {
        return SLAP_ERROR;
    }
    /* every lane has a UDP conn to each server: they share the thread's socket to it */
    if (udp && udp_endpoints_init(&w->udp, o->servers->count, (uint32_t)w->nlanes) != SLAP_OK) {
        return SLAP_ERROR;
    }
    return client_scratch_init(&w->env.multiget, wl);
}

static const struct lane_ops worker_lane_ops;

/* What the worker's lanes share: the run's parameters, the way back to it, its state. */
static void worker_lane_env(struct worker *w, uint32_t index)
{
    const struct workload *wl = w->cfg->lane.wl;
    struct lane_env *env = &w->env;
    env->params = &w->cfg->lane;
    env->ops = &worker_lane_ops;
    env->owner = w;
    env->phase = WORKER_CONNECTING;
    env->rng.state = 0x9e3779b97f4a7c15ULL * (index + 1) ^ slap_now_ns();
    env->codec = codec_get(w->cfg->protocol);
    env->hdr_cap = (uint32_t)codec_header_room(env->codec, wl->division, wl->keys.size);
    env->verbose_left = 10;
    env->run_start_ns = slap_now_ns();
}

enum slap_status worker_init(struct worker *w, const struct engine_config *cfg,
                             struct worker_gate *gate, uint32_t index, uint32_t first_client,
                             uint32_t nclients)
{
    memset(w, 0, sizeof(*w));
    w->cfg = cfg;
    w->gate = gate;
    w->index = index;
    w->notify_fd = -1;
    w->nclients = nclients;
    w->nlanes = (size_t)nclients * cfg->lane.conns_per_client;
    w->nconns = w->nlanes * client_lane_sockets(&cfg->lane);
    worker_lane_env(w, index);
    bool notified = cfg->lane.trace || cfg->control;
    if (notified) {
        w->notify_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    }
    if ((notified && w->notify_fd < 0) || stats_init(&w->env.cur, cfg->shape) != SLAP_OK ||
        worker_mailbox_init(&w->mailbox, cfg->shape) != SLAP_OK || worker_alloc(w) != SLAP_OK) {
        return SLAP_ERROR;
    }
    if (cfg->samples &&
        samples_ring_init(&w->env.samples, cfg->sample_rate, rng_next(&w->env.rng)) != SLAP_OK) {
        return SLAP_ERROR;
    }
    worker_conn_env(w);
    struct lane_slabs slabs = {.lanes = w->lanes,
                               .conns = w->conns,
                               .requests = w->requests,
                               .reopens = w->reopens,
                               .hdrs = w->hdrs,
                               .keys = w->keys,
                               .conn_env = &w->conn_env};
    for (uint32_t k = 0; k < nclients; k++) {
        if (client_init(&w->clients[k], &w->env, &slabs, first_client + k, k) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

void worker_free(struct worker *w)
{
    for (uint32_t k = 0; w->clients != NULL && k < w->nclients; k++) {
        client_free(&w->clients[k]);
    }
    udp_endpoints_free(w->udp); /* after its conns, before their loop */
    struct event *timers[] = {w->end_timer,   w->tick_timer,   w->watch_timer,
                              w->drain_timer, w->warmup_timer, w->notify_event};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(timers); i++) {
        if (timers[i] != NULL) {
            event_free(timers[i]);
        }
    }
    if (w->base != NULL) {
        event_base_free(w->base);
    }
    if (w->notify_fd >= 0) {
        close(w->notify_fd);
    }
    free(w->clients);
    free(w->lanes);
    free(w->conns);
    free(w->requests);
    free(w->reopens);
    free(w->hdrs);
    free(w->keys);
    free(w->rbuf);
    client_scratch_free(&w->env.multiget);
    stats_free(&w->env.cur);
    worker_mailbox_free(&w->mailbox);
    free(w->stalls);
    free(w->tls_out);
    free(w->ubuf);
    samples_ring_free(&w->env.samples);
}

/* Has the run not shown this kind of problem at server yet? Then it is noted as shown. Each
 * kind once per server and run: a dying server must not flood stderr. */
static bool first_warning(struct worker_gate *g, const char *what, uint32_t server)
{
    bool first = true;
    pthread_mutex_lock(&g->lock);
    for (size_t i = 0; i < g->nwarned && first; i++) {
        first = !(g->warned[i].what == what && g->warned[i].server == server);
    }
    if (first && g->nwarned < WORKER_MAX_WARNINGS) {
        g->warned[g->nwarned++] = (struct worker_warned){what, server};
    } else {
        first = false;
    }
    pthread_mutex_unlock(&g->lock);
    return first;
}

/* Tell the run of a problem once per kind and server (never per request). */
static void worker_warn(void *owner, const char *what, uint32_t server, const char *detail,
                        size_t detail_len)
{
    const struct worker *w = owner;
    if (!first_warning(w->gate, what, server)) {
        return;
    }
    run_event_tell(&w->cfg->lane.events,
                   &(struct run_event){.kind = RUN_EVENT_WARN,
                                       .warn = {.server = w->cfg->lane.servers->items[server].name,
                                                .what = what,
                                                .detail = detail,
                                                .detail_len = detail_len}});
}

void worker_notify(struct worker *w)
{
    uint64_t one = 1;
    if (write(w->notify_fd, &one, sizeof(one)) < 0) {
        /* EAGAIN: the counter is full, so the thread will wake anyway */
    }
}

/* --control: the changes of rate the lanes have not seen yet, each from its own time. */
static void worker_apply_control(struct worker *w)
{
    const struct worker_control *ctl = &w->gate->control;
    uint32_t n = (uint32_t)atomic_load_explicit(&ctl->n, memory_order_acquire);
    for (; w->control_seen < n; w->control_seen++) {
        const struct worker_control_change *c = &ctl->changes[w->control_seen];
        w->env.paused = c->paused;
        for (size_t i = 0; i < w->nlanes && w->cfg->lane.tps > 0; i++) {
            lane_retarget(&w->lanes[i], c->at_ns, c->tps);
        }
    }
}

/* --trace: the reader brought requests to lanes that had none, or ended; --control: the rate
 * changed. Either way, see to every lane. */
static void on_notify(evutil_socket_t fd, short what, void *arg)
{
    struct worker *w = arg;
    uint64_t count;
    (void)what;
    if (read(fd, &count, sizeof(count)) < 0) {
        /* EAGAIN: nothing counted since the last read */
    }
    if (w->cfg->control) {
        worker_apply_control(w);
    }
    for (size_t i = 0; i < w->nlanes; i++) {
        if (!w->lanes[i].done) {
            lane_pump(&w->lanes[i]);
        }
    }
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * SLAP_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* The calling thread's time runnable but waiting for a CPU, throttling by a CPU quota
 * included (the second figure of /proc/thread-self/schedstat); false when it cannot be read. */
static bool thread_wait_ns(uint64_t *ns)
{
    char text[128];
    int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;
    unsigned long long run_ns, wait_ns;
    if (fd >= 0) {
        close(fd);
    }
    if (n <= 0) {
        return false;
    }
    text[n] = '\0';
    if (sscanf(text, "%llu %llu", &run_ns, &wait_ns) != 2) {
        return false;
    }
    *ns = wait_ns;
    return true;
}

/* The thread's CPU readings when the measured part begins (start) and when it ends. Twice
 * a run, never on the request path. */
static void worker_cpu_mark(struct worker *w, bool start)
{
    uint64_t wait = 0;
    if (start && w->cpu_state == WORKER_CPU_NONE) {
        w->cpu_window_ns = slap_now_ns();
        w->cpu_ns = thread_cpu_ns();
        w->wait_known = thread_wait_ns(&w->wait_ns);
        w->cpu_state = WORKER_CPU_STARTED;
    } else if (!start && w->cpu_state == WORKER_CPU_STARTED) {
        w->cpu_ns = thread_cpu_ns() - w->cpu_ns;
        w->wait_known = w->wait_known && thread_wait_ns(&wait) && wait >= w->wait_ns;
        w->wait_ns = w->wait_known ? wait - w->wait_ns : 0;
        /* after the readings: a wait for a CPU between them and the clock is in both */
        w->cpu_window_ns = slap_now_ns() - w->cpu_window_ns;
        w->cpu_state = WORKER_CPU_MEASURED;
        w->env.cpu_starved =
            w->cpu_window_ns > 0 &&
            (double)(w->cpu_ns + w->wait_ns) >= LIMITS_HELD_BY_CLIENT * (double)w->cpu_window_ns;
    }
}

/* Arm ev for the instant at_ns, the same for every worker however late this one woke. */
static void timer_until(struct event *ev, uint64_t at_ns)
{
    uint64_t now = slap_now_ns();
    struct timeval tv = slap_ns_to_timeval(at_ns > now ? at_ns - now : 0);
    event_add(ev, &tv);
}

enum slap_status worker_mailbox_init(struct worker_mailbox *m, const struct stats_shape *shape)
{
    pthread_mutex_init(&m->lock, NULL);
    atomic_init(&m->ticks, 0);
    return stats_init(&m->box, shape);
}

void worker_mailbox_free(struct worker_mailbox *m)
{
    stats_free(&m->box);
    pthread_mutex_destroy(&m->lock);
}

void worker_mailbox_publish(struct worker_mailbox *m, struct slap_stats *cur)
{
    pthread_mutex_lock(&m->lock);
    stats_merge(&m->box, cur);
    pthread_mutex_unlock(&m->lock);
    stats_reset(cur);
}

void worker_mailbox_collect(struct worker_mailbox *m, struct slap_stats *dst)
{
    pthread_mutex_lock(&m->lock);
    stats_merge(dst, &m->box);
    stats_reset(&m->box);
    pthread_mutex_unlock(&m->lock);
}

static void worker_publish(struct worker *w)
{
    worker_mailbox_publish(&w->mailbox, &w->env.cur);
}

void worker_collect(struct worker *w, struct slap_stats *dst)
{
    worker_mailbox_collect(&w->mailbox, dst);
}

/*
 * The loop ends. If every lane ended before the run did (-x done, or every client lost its
 * connection), the measured part ends now, or with -x at the last answer; due requests of
 * the schedule that never left count as unanswered.
 */
static void worker_finish(struct worker *w)
{
    if (w->env.phase == WORKER_WARMING || w->env.phase == WORKER_MEASURING) {
        const struct lane_params *o = &w->cfg->lane;
        bool counted = o->execute_number > 0 || o->trace; /* -x, a whole trace */
        uint64_t last = w->env.last_answer_ns;
        w->env.end_ns = counted && last > 0 ? last : slap_now_ns();
        worker_cpu_mark(w, false);
        for (size_t i = 0; i < w->nlanes; i++) {
            lane_count_unsent(&w->lanes[i], worker_measure_start(w->gate, w->cfg), w->env.end_ns);
        }
    }
    event_base_loopbreak(w->base);
}

static void worker_lane_idle(struct worker *w)
{
    w->active_lanes--;
    if (w->active_lanes == 0) {
        worker_finish(w);
    }
}

/* The answers still awaited will not come: note which sockets hold them, then count them. */
static void on_drain_timeout(evutil_socket_t fd, short what, void *arg)
{
    struct worker *w = arg;
    (void)fd;
    (void)what;
    for (size_t i = 0; i < w->nlanes; i++) {
        struct lane *l = &w->lanes[i];
        for (uint32_t s = 0; s < l->nconns; s++) {
            const struct conn *c = &l->conns[s];
            uint64_t since;
            if (conn_waiting_since(c, &since)) {
                struct worker_stall *st = &w->stalls[c->server];
                st->since_ns = st->conns == 0 || since < st->since_ns ? since : st->since_ns;
                st->conns++;
            }
        }
        w->blocked_lanes += l->in_flight > 0;
        lane_give_up(l, w->env.end_ns);
    }
    worker_finish(w);
}

/* -R: the sockets still not open again when the run ends, by server (their server never
 * answered again on them). */
static void worker_count_down(struct worker *w)
{
    for (size_t i = 0; i < w->nlanes; i++) {
        const struct lane *l = &w->lanes[i];
        for (uint32_t s = 0; s < l->nconns; s++) {
            const struct conn *c = &l->conns[s];
            w->stalls[c->server].down += c->retry != NULL && c->state != CONN_READY;
        }
    }
}

/*
 * No new requests from now on: the measured part ends at end_ns (the common end, or when
 * the main thread was asked to stop). What was sent is awaited up to WORKER_DRAIN_TIMEOUT_NS.
 */
static void worker_begin_stop(struct worker *w, uint64_t end_ns)
{
    if (w->env.phase == WORKER_STOPPING) {
        return;
    }
    w->env.phase = WORKER_STOPPING;
    w->env.end_ns = end_ns;
    uint64_t now = slap_now_ns();
    w->env.stalled = now > end_ns && now - end_ns >= WORKER_STALL_NS;
    worker_cpu_mark(w, false);
    worker_count_down(w);
    w->active_lanes++; /* hold the loop while the lanes stop */
    for (size_t i = 0; i < w->nlanes; i++) {
        lane_count_unsent(&w->lanes[i], worker_measure_start(w->gate, w->cfg), end_ns);
        lane_stop(&w->lanes[i], end_ns);
    }
    worker_lane_idle(w);
    if (w->active_lanes > 0) {
        struct timeval tv = slap_ns_to_timeval(WORKER_DRAIN_TIMEOUT_NS);
        w->drain_timer = evtimer_new(w->base, on_drain_timeout, w);
        evtimer_add(w->drain_timer, &tv);
    }
}

static void on_end(evutil_socket_t fd, short what, void *arg)
{
    struct worker *w = arg;
    const struct engine_config *o = w->cfg;
    (void)fd;
    (void)what;
    if (w->cfg->period_ns > 0) {
        /* The end falls on a period boundary the tick timer may not reach first. */
        uint64_t due = o->run_time_ns / w->cfg->period_ns;
        if (atomic_load(&w->mailbox.ticks) < due) {
            worker_publish(w);
            atomic_store(&w->mailbox.ticks, due);
        }
    }
    worker_begin_stop(w, worker_measure_start(w->gate, w->cfg) + o->run_time_ns);
}

/* --timeout: sockets whose oldest request waits too long are failed (a few times a second). */
static void check_timeouts(struct worker *w, uint64_t now_ns)
{
    uint64_t timeout = w->cfg->timeout_ns;
    if (now_ns < w->next_timeout_check || now_ns < timeout) {
        return;
    }
    w->next_timeout_check = now_ns + WORKER_TIMEOUT_CHECK_NS;
    for (size_t i = 0; i < w->nconns; i++) {
        conn_check_timeout(&w->conns[i], now_ns - timeout);
    }
}

static bool stop_asked(const struct worker *w)
{
    return atomic_load(&w->gate->stop);
}

/* A few times a second in every phase: a stop asked by the main thread, and --timeout. */
static void on_watch(evutil_socket_t fd, short what, void *arg)
{
    struct worker *w = arg;
    (void)fd;
    (void)what;
    if (stop_asked(w)) {
        if (w->env.phase == WORKER_CONNECTING || w->env.phase == WORKER_PRELOADING) {
            event_base_loopbreak(w->base); /* set-up ends here; nothing was measured */
            return;
        }
        worker_begin_stop(w, atomic_load(&w->gate->stop_ns));
    }
    check_timeouts(w, slap_now_ns());
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
    struct worker *w = arg;
    (void)fd;
    (void)what;
    if (w->env.phase == WORKER_STOPPING) {
        return; /* the rest goes to the final report */
    }
    worker_publish(w);
    uint64_t ticks = atomic_fetch_add(&w->mailbox.ticks, 1) + 1;
    uint64_t next = worker_measure_start(w->gate, w->cfg) + (ticks + 1) * w->cfg->period_ns;
    timer_until(w->tick_timer, next);
}

/* Set-up failed: say why (the first reason only; server NULL when it is no connect) and
 * leave the loop. */
static void worker_fail(struct worker *w, const char *server, const char *why)
{
    if (w->env.phase != WORKER_FAILED) {
        w->env.phase = WORKER_FAILED;
        if (server != NULL) {
            snprintf(w->error, sizeof(w->error), "cannot connect to %s: %s", server, why);
        } else {
            snprintf(w->error, sizeof(w->error), "%s", why);
        }
    }
    event_base_loopbreak(w->base);
}

/* During set-up: one socket's connect ended (why is NULL when it succeeded). */
static void worker_setup_connected(void *owner, const struct conn *c, const char *why)
{
    struct worker *w = owner;
    if (why != NULL) {
        worker_fail(w, c->srv->name, why);
        return;
    }
    w->connecting--;
    if (w->connecting == 0) {
        event_base_loopbreak(w->base);
    }
}

static void worker_lane_done(void *owner)
{
    worker_lane_idle(owner);
}

/* How the worker's lanes reach it. */
static const struct lane_ops worker_lane_ops = {
    .idle = worker_lane_done,
    .connected = worker_setup_connected,
    .warn = worker_warn,
};

/* Connect every socket; returns when all are up or one failed. */
static enum slap_status worker_connect_all(struct worker *w)
{
    for (size_t i = 0; i < w->nconns; i++) {
        struct conn *c = &w->conns[i];
        if (conn_connect(c) != SLAP_OK) {
            worker_fail(w, c->srv->name, strerror(errno));
            return SLAP_ERROR;
        }
        w->connecting++;
    }
    if (w->connecting > 0) {
        event_base_dispatch(w->base);
    }
    return w->env.phase == WORKER_FAILED ? SLAP_ERROR : SLAP_OK;
}

static struct event *timer_at(struct worker *w, uint64_t after_ns, short flags,
                              event_callback_fn fn)
{
    struct event *ev = event_new(w->base, -1, flags, fn, w);
    struct timeval tv = slap_ns_to_timeval(after_ns);
    event_add(ev, &tv);
    return ev;
}

/* Statistics count from here: the run proper starts (after any warm-up). */
static void worker_measure(struct worker *w)
{
    const struct engine_config *o = w->cfg;
    uint64_t start = worker_measure_start(w->gate, w->cfg);
    stats_reset(&w->env.cur);
    worker_cpu_mark(w, true);
    w->env.phase = WORKER_MEASURING;
    if ((o->lane.execute_number == 0 || o->time_caps_count) && o->run_time_ns > 0) {
        /* run_time_ns 0: a whole trace */
        w->end_timer = evtimer_new(w->base, on_end, w);
        timer_until(w->end_timer, start + o->run_time_ns);
    }
    if (w->cfg->period_ns > 0) {
        w->tick_timer = evtimer_new(w->base, on_tick, w);
        timer_until(w->tick_timer, start + w->cfg->period_ns);
    }
}

static void on_warmup_end(evutil_socket_t fd, short what, void *arg)
{
    struct worker *w = arg;
    (void)fd;
    (void)what;
    if (w->env.phase == WORKER_WARMING) {
        worker_measure(w);
    }
}

static void worker_start(struct worker *w, uint64_t start_ns)
{
    const struct engine_config *o = w->cfg;
    uint32_t total_lanes = o->lane.concurrency * o->lane.conns_per_client;
    uint32_t first_lane = w->clients[0].id * o->lane.conns_per_client;

    if (o->warmup_ns > 0) {
        w->env.phase = WORKER_WARMING;
        w->warmup_timer = evtimer_new(w->base, on_warmup_end, w);
        timer_until(w->warmup_timer, worker_measure_start(w->gate, w->cfg));
    } else {
        worker_measure(w);
    }
    if (w->notify_fd >= 0) {
        w->notify_event = event_new(w->base, w->notify_fd, EV_READ | EV_PERSIST, on_notify, w);
        event_add(w->notify_event, NULL);
    }
    w->env.start_ns = start_ns;
    for (size_t i = 0; i < w->nlanes && o->lane.tps > 0; i++) {
        if (o->ramp.duration_ns > 0) {
            schedule_init_ramp(&w->lanes[i].sched, o->arrival, o->arrival_shape, &o->ramp,
                               total_lanes, first_lane + (uint32_t)i, start_ns,
                               rng_next(&w->env.rng));
        } else {
            schedule_init(&w->lanes[i].sched, o->arrival, o->arrival_shape, o->lane.tps,
                          total_lanes, first_lane + (uint32_t)i, start_ns, rng_next(&w->env.rng));
        }
    }
    for (size_t i = 0; i < w->nlanes && w->reopens != NULL; i++) {
        lane_reopens_begin(&w->lanes[i]);
    }
}

static enum gate_go worker_wait_go(struct worker *w)
{
    struct worker_gate *g = w->gate;
    pthread_mutex_lock(&g->lock);
    g->ready++;
    pthread_cond_broadcast(&g->cond);
    while (g->go == GATE_WAIT) {
        pthread_cond_wait(&g->cond, &g->lock);
    }
    enum gate_go go = g->go;
    pthread_mutex_unlock(&g->lock);
    return go;
}

/* Start every lane and run the loop until they are all done (or the loop breaks). */
static void worker_run_lanes(struct worker *w)
{
    w->active_lanes = (uint32_t)w->nlanes + 1; /* hold the loop open while the lanes start */
    for (size_t i = 0; i < w->nlanes; i++) {
        w->lanes[i].done = false;
        lane_pump(&w->lanes[i]);
    }
    worker_lane_idle(w);
    if (w->active_lanes > 0) {
        event_base_dispatch(w->base);
    }
}

/* --preload (or a run without sets): set every window key once, unmeasured. */
static void worker_preload(struct worker *w)
{
    uint64_t start = slap_now_ns();
    w->env.phase = WORKER_PRELOADING;
    worker_run_lanes(w);
    w->env.phase = WORKER_READY;
    w->env.end_ns = 0;
    w->preload_ns = slap_now_ns() - start;
    stats_reset(&w->env.cur);
    for (uint32_t k = 0; k < w->nclients && !stop_asked(w); k++) {
        if (w->clients[k].stopped) {
            worker_fail(w, NULL,
                        w->cfg->memslap_face ? "a connection was lost while loading the keys"
                                             : "a connection was lost during the preload (the "
                                               "window's keys set before the run)");
        }
    }
}

/* --priority=realtime: this worker's thread at the lowest SCHED_FIFO priority (checked to be
 * permitted before the run: a refusal now is said, and the thread runs as it is). */
static void worker_set_priority(struct worker *w)
{
    if (w->cfg->priority != PRIORITY_REALTIME) {
        return;
    }
    struct sched_param param = {.sched_priority = sched_get_priority_min(SCHED_FIFO)};
    int err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
    if (err != 0) {
        run_event_tell(&w->cfg->lane.events,
                       &(struct run_event){.kind = RUN_EVENT_REALTIME_REFUSED,
                                           .realtime_refused = {.error = err}});
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    worker_set_priority(w);
    w->watch_timer = timer_at(w, WORKER_WATCH_NS, EV_PERSIST, on_watch);
    if (worker_connect_all(w) == SLAP_OK && !stop_asked(w)) {
        w->env.phase = WORKER_READY;
        if (w->clients[0].preload_left > 0) {
            worker_preload(w);
        }
    }
    if (worker_wait_go(w) == GATE_GO) {
        worker_start(w, w->gate->start_ns);
        worker_run_lanes(w);
    }
    if (w->env.end_ns <= worker_measure_start(w->gate, w->cfg)) {
        stats_reset(&w->env.cur); /* stopped before the warm-up ended: nothing was measured */
    }
    if (w->env.phase != WORKER_FAILED) {
        w->env.phase = WORKER_DONE;
    }
    worker_publish(w);
    atomic_store(&w->done, true);
    return NULL;
}

enum slap_status worker_spawn(struct worker *w)
{
    struct event_config *cfg = event_config_new();
    if (cfg == NULL) {
        return SLAP_ERROR;
    }
    event_config_set_flag(cfg, EVENT_BASE_FLAG_NOLOCK);
    const struct lane_params *p = &w->cfg->lane;
    if (p->tps > 0 || (p->trace && p->trace_speed > 0)) {
        /* Open loop (a rate, or a trace's times): timers must fire at the microsecond, not at
         * the coarse clock's tick (4 ms here). */
        event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
    }
    w->base = event_base_new_with_config(cfg);
    event_config_free(cfg);
    if (w->base == NULL) {
        return SLAP_ERROR;
    }
    w->conn_env.base = w->base;
    w->env.base = w->base;
    return pthread_create(&w->thread, NULL, worker_main, w) == 0 ? SLAP_OK : SLAP_ERROR;
}
