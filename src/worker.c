/*
 * A worker thread: its event_base, its clients, timers, and the period mailbox.
 *
 *   worker_main: connect every socket ──> tell the main thread ──> wait for go
 *     ──> start every lane ──> event loop (end timer, -S tick, stop watch)
 *     ──> stop: no new requests, answers awaited up to RUN_DRAIN_TIMEOUT_NS
 *     ──> publish the rest ──> done
 * Nothing here is shared but the mailbox, locked once a period.
 */
#include "slap/worker.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/common.h"
#include "slap/run.h"

#define WORKER_WATCH_NS (10ULL * SLAP_NS_PER_MS)
#define WORKER_TIMEOUT_CHECK_NS (100ULL * SLAP_NS_PER_MS)
#define WORKER_READ_BUFFER (64u * 1024u)
#define WORKER_MAX_WARNINGS 32
#define WORKER_SLOT_TABLE_MAX (64ULL * 1024 * 1024)

static uint64_t client_quota(const struct slap_options *o, uint32_t id)
{
    if (o->execute_number == 0) {
        return UINT64_MAX;
    }
    uint64_t share = o->execute_number / o->concurrency;
    return share + (id < o->execute_number % o->concurrency ? 1 : 0);
}

/* With several servers, look every slot's server up once instead of per request. */
static int client_map_slots(struct client *c, const struct run *run)
{
    const struct workload *wl = &run->workload;
    uint64_t bytes = wl->win_size * sizeof(uint16_t) * run->opts->concurrency;
    if (run->servers.count <= 1 || run->servers.count > UINT16_MAX ||
        bytes > WORKER_SLOT_TABLE_MAX) {
        return SLAP_OK; /* one server, or too big: computed per request */
    }
    c->slot_server = malloc(wl->win_size * sizeof(uint16_t));
    if (c->slot_server == NULL) {
        return SLAP_ERROR;
    }
    for (uint64_t slot = 0; slot < wl->win_size; slot++) {
        workload_key_slot(c->key, slot);
        c->slot_server[slot] = (uint16_t)servers_pick(&run->servers, c->key,
                                                      workload_key_len(wl, c->id, slot));
    }
    return SLAP_OK;
}


/* Sockets of each lane: one per server, twice with -a (TCP for sets, then UDP for gets). */
static uint32_t lane_sockets(const struct run *run)
{
    return run->servers.count * (run->opts->facebook ? 2 : 1);
}

/* Room to gather the largest answer a UDP socket can get (a get of -d keys), by datagram. */
static size_t udp_answer_cap(const struct workload *wl)
{
    size_t bytes = (size_t)wl->division * ((size_t)wl->value_size + wl->key_size + 64) + 64;
    return (bytes / (UDP_MAX_DATAGRAM - UDP_HEADER) + 2) * UDP_MAX_DATAGRAM;
}

static int lane_init(struct worker *w, struct lane *l, struct client *c, size_t lane_no)
{
    const struct run *run = w->run;
    uint32_t nservers = run->servers.count;
    uint32_t nsockets = lane_sockets(run);
    uint32_t depth = run->opts->pipeline;
    l->client = c;
    l->nconns = nsockets;
    l->conns = w->conns + lane_no * nsockets;
    for (uint32_t s = 0; s < nsockets; s++) {
        struct conn *conn = &l->conns[s];
        size_t conn_no = lane_no * nsockets + s;
        conn->lane = l;
        conn->server = s % nservers;
        conn->udp = run->opts->udp || s >= nservers;
        if (conn->udp && udp_reasm_init(&conn->reasm, udp_answer_cap(&run->workload)) != SLAP_OK) {
            return SLAP_ERROR;
        }
        conn->fd = -1;
        conn->cap = depth;
        conn->ring = w->requests + conn_no * depth;
        conn->codec = w->codec;
        if (run->opts->verify > 0) {
            conn->hook = (struct proto_value_hook){lane_value_begin, lane_value_end, conn};
        }
        for (uint32_t i = 0; i < depth; i++) {
            conn->ring[i].hdr = w->hdrs + (conn_no * depth + i) * w->hdr_cap;
        }
    }
    return SLAP_OK;
}

static int client_init(struct worker *w, struct client *c, uint32_t id, uint32_t k)
{
    const struct run *run = w->run;
    const struct workload *wl = &run->workload;
    uint32_t nlanes = run->opts->conns_per_client;

    c->worker = w;
    c->id = id;
    c->key = w->keys + (size_t)k * wl->key_size;
    c->quota = client_quota(run->opts, id);
    c->nlanes = nlanes;
    c->lanes = w->lanes + (size_t)k * nlanes;
    window_init(&c->win, wl);
    workload_key_init(wl, id, c->key);
    c->preload_left = run->opts->preload || run->opts->set_prop == 0 ? wl->win_size : 0;
    if (wl->track_slots) {
        c->slots = calloc(wl->win_size, sizeof(*c->slots));
        if (c->slots == NULL) {
            return SLAP_ERROR;
        }
    }
    for (uint32_t i = 0; i < nlanes; i++) {
        if (lane_init(w, &c->lanes[i], c, (size_t)k * nlanes + i) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return client_map_slots(c, run);
}

int worker_init(struct worker *w, struct run *run, uint32_t index, uint32_t first_client,
                uint32_t nclients)
{
    const struct workload *wl = &run->workload;
    size_t nlanes = (size_t)nclients * run->opts->conns_per_client;
    size_t nconns = nlanes * lane_sockets(run);
    size_t nrequests = nconns * run->opts->pipeline;

    memset(w, 0, sizeof(*w));
    w->run = run;
    w->index = index;
    w->nclients = nclients;
    w->rng.state = 0x9e3779b97f4a7c15ULL * (index + 1) ^ slap_now_ns();
    w->rbuf_size = WORKER_READ_BUFFER + PROTO_ASCII_MAX_LINE;
    w->clients = calloc(nclients, sizeof(*w->clients));
    w->lanes = calloc(nlanes, sizeof(*w->lanes));
    w->conns = calloc(nconns, sizeof(*w->conns));
    w->requests = calloc(nrequests, sizeof(*w->requests));
    w->codec = codec_get(run->opts->protocol);
    w->hdr_cap = (uint32_t)codec_header_room(w->codec, wl->division, wl->key_size);
    w->hdrs = malloc(nrequests * w->hdr_cap);
    w->keys = malloc((size_t)nclients * wl->key_size);
    w->rbuf = malloc(w->rbuf_size);
    w->pick_slots = calloc(wl->division, sizeof(*w->pick_slots));
    w->pick_servers = calloc(wl->division, sizeof(*w->pick_servers));
    w->pick_lens = calloc(wl->division, sizeof(*w->pick_lens));
    w->pick_keys = malloc((size_t)wl->division * wl->key_size);
    w->group_keys = malloc((size_t)wl->division * wl->key_size);
    w->group_lens = calloc(wl->division, sizeof(*w->group_lens));
    w->verbose_left = 10;
    w->tls_out = run->opts->tls ? malloc(WORKER_TLS_OUT) : NULL;
    w->ubuf = run->opts->udp || run->opts->facebook
                  ? malloc(udp_answer_cap(wl) + PROTO_ASCII_MAX_LINE)
                  : NULL;
    w->run_start_ns = slap_now_ns();
    pthread_mutex_init(&w->box_lock, NULL);
    stats_reset(&w->cur);
    stats_reset(&w->box);
    if (!w->clients || !w->lanes || !w->conns || !w->requests || !w->hdrs || !w->keys ||
        !w->rbuf || !w->pick_slots || !w->pick_servers || !w->pick_lens || !w->pick_keys ||
        !w->group_keys || !w->group_lens ||
        (run->opts->tls && !w->tls_out) || ((run->opts->udp || run->opts->facebook) && !w->ubuf)) {
        return SLAP_ERROR;
    }
    for (uint32_t k = 0; k < nclients; k++) {
        if (client_init(w, &w->clients[k], first_client + k, k) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

void worker_free(struct worker *w)
{
    size_t nconns = (size_t)w->nclients * w->run->opts->conns_per_client * lane_sockets(w->run);
    for (size_t i = 0; w->conns != NULL && i < nconns; i++) {
        conn_free(&w->conns[i]);
    }
    for (uint32_t k = 0; w->clients != NULL && k < w->nclients; k++) {
        free(w->clients[k].slot_server);
        free(w->clients[k].slots);
    }
    size_t nlanes = (size_t)w->nclients * w->run->opts->conns_per_client;
    for (size_t i = 0; w->lanes != NULL && i < nlanes; i++) {
        if (event_initialized(&w->lanes[i].timer)) {
            event_del(&w->lanes[i].timer);
        }
    }
    struct event *timers[] = {w->end_timer, w->tick_timer, w->watch_timer, w->drain_timer,
                              w->warmup_timer};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(timers); i++) {
        if (timers[i] != NULL) {
            event_free(timers[i]);
        }
    }
    if (w->base != NULL) {
        event_base_free(w->base);
    }
    free(w->clients);
    free(w->lanes);
    free(w->conns);
    free(w->requests);
    free(w->hdrs);
    free(w->keys);
    free(w->rbuf);
    free(w->pick_slots);
    free(w->pick_servers);
    free(w->pick_lens);
    free(w->pick_keys);
    free(w->group_keys);
    free(w->group_lens);
    free(w->tls_out);
    free(w->ubuf);
    pthread_mutex_destroy(&w->box_lock);
}

void worker_warn(struct worker *w, const char *what, uint32_t server, const char *detail,
                 size_t detail_len)
{
    /* Each kind of problem once per server: a dying server must not flood stderr. */
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static struct {
        const char *what;
        uint32_t server;
    } seen[WORKER_MAX_WARNINGS];
    static size_t nseen;
    bool print = true;

    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nseen && print; i++) {
        print = !(seen[i].what == what && seen[i].server == server);
    }
    if (print && nseen < WORKER_MAX_WARNINGS) {
        seen[nseen].what = what;
        seen[nseen++].server = server;
    } else {
        print = false;
    }
    pthread_mutex_unlock(&lock);
    if (print) {
        fprintf(stderr, "slap: %s: %s: %.*s\n", w->run->servers.items[server].name, what,
                (int)detail_len, detail ? detail : "");
    }
}

bool worker_should_stop(struct worker *w)
{
    return w->stopping;
}

static void worker_publish(struct worker *w)
{
    pthread_mutex_lock(&w->box_lock);
    stats_merge(&w->box, &w->cur);
    pthread_mutex_unlock(&w->box_lock);
    stats_reset(&w->cur);
}

void worker_collect(struct worker *w, struct slap_stats *dst)
{
    pthread_mutex_lock(&w->box_lock);
    stats_merge(dst, &w->box);
    stats_reset(&w->box);
    pthread_mutex_unlock(&w->box_lock);
}

static void worker_finish(struct worker *w)
{
    w->end_ns = slap_now_ns();
    event_base_loopbreak(w->base);
}

void worker_lane_idle(struct worker *w)
{
    w->active_lanes--;
    if (w->active_lanes == 0) {
        worker_finish(w);
    }
}

static void on_drain_timeout(evutil_socket_t fd, short what, void *arg)
{
    struct worker *w = arg;
    (void)fd;
    (void)what;
    size_t nlanes = (size_t)w->nclients * w->run->opts->conns_per_client;
    for (size_t i = 0; i < nlanes; i++) {
        w->cur.counters.unanswered += w->lanes[i].in_flight;
    }
    worker_finish(w);
}

/* No new requests from now on; what was sent is awaited up to RUN_DRAIN_TIMEOUT_NS. */
static void worker_begin_stop(struct worker *w)
{
    if (w->stopping) {
        return;
    }
    w->stopping = true;
    size_t nlanes = (size_t)w->nclients * w->run->opts->conns_per_client;
    w->active_lanes++; /* hold the loop while the lanes stop */
    for (size_t i = 0; i < nlanes; i++) {
        lane_stop(&w->lanes[i]);
    }
    worker_lane_idle(w);
    if (w->active_lanes > 0) {
        struct timeval tv = slap_ns_to_timeval(RUN_DRAIN_TIMEOUT_NS);
        w->drain_timer = evtimer_new(w->base, on_drain_timeout, w);
        evtimer_add(w->drain_timer, &tv);
    }
}

static void on_end(evutil_socket_t fd, short what, void *arg)
{
    struct worker *w = arg;
    const struct slap_options *o = w->run->opts;
    (void)fd;
    (void)what;
    if (o->stat_freq_ns > 0) {
        /* The end falls on a period boundary the tick timer may not reach first. */
        uint64_t due = o->run_time_ns / o->stat_freq_ns;
        if (atomic_load(&w->ticks) < due) {
            worker_publish(w);
            atomic_store(&w->ticks, due);
        }
    }
    worker_begin_stop(w);
}

/* --timeout: sockets whose oldest request waits too long are failed (a few times a second). */
static void check_timeouts(struct worker *w, uint64_t now_ns)
{
    uint64_t timeout = w->run->opts->timeout_ns;
    if (now_ns < w->next_timeout_check || now_ns < timeout) {
        return;
    }
    w->next_timeout_check = now_ns + WORKER_TIMEOUT_CHECK_NS;
    size_t nconns = (size_t)w->nclients * w->run->opts->conns_per_client * lane_sockets(w->run);
    for (size_t i = 0; i < nconns; i++) {
        conn_check_timeout(&w->conns[i], now_ns - timeout);
    }
}

static void on_watch(evutil_socket_t fd, short what, void *arg)
{
    struct worker *w = arg;
    (void)fd;
    (void)what;
    if (atomic_load_explicit(&w->run->stop, memory_order_relaxed)) {
        worker_begin_stop(w);
    }
    check_timeouts(w, slap_now_ns());
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
    struct worker *w = arg;
    (void)fd;
    (void)what;
    if (w->stopping) {
        return; /* the rest goes to the final report */
    }
    worker_publish(w);
    atomic_fetch_add(&w->ticks, 1);
}

/* Connect every socket; returns when all are up or one failed. */
static int worker_connect_all(struct worker *w)
{
    const struct run *run = w->run;
    size_t nconns = (size_t)w->nclients * run->opts->conns_per_client * lane_sockets(run);
    for (size_t i = 0; i < nconns; i++) {
        struct conn *c = &w->conns[i];
        const struct server *srv = &run->servers.items[c->server];
        if (conn_connect(c, srv, w->base, RUN_CONNECT_TIMEOUT_NS) != SLAP_OK) {
            snprintf(w->error, sizeof(w->error), "cannot connect to %s: %s", srv->name,
                     strerror(errno));
            return SLAP_ERROR;
        }
        w->connecting++;
    }
    if (w->connecting > 0) {
        event_base_dispatch(w->base);
    }
    return w->setup_failed ? SLAP_ERROR : SLAP_OK;
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
    const struct slap_options *o = w->run->opts;
    stats_reset(&w->cur);
    w->measuring = true;
    if (o->execute_number == 0) {
        w->end_timer = timer_at(w, o->run_time_ns, 0, on_end);
    }
    if (o->stat_freq_ns > 0) {
        w->tick_timer = timer_at(w, o->stat_freq_ns, EV_PERSIST, on_tick);
    }
}

static void on_warmup_end(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    worker_measure(arg);
}

static void worker_start(struct worker *w, uint64_t start_ns)
{
    const struct slap_options *o = w->run->opts;
    size_t nlanes = (size_t)w->nclients * o->conns_per_client;
    uint32_t total_lanes = o->concurrency * o->conns_per_client;
    uint32_t first_lane = w->clients[0].id * o->conns_per_client;

    w->started = true;
    if (o->warmup_ns > 0) {
        w->warmup_timer = timer_at(w, o->warmup_ns, 0, on_warmup_end);
    } else {
        worker_measure(w);
    }
    w->watch_timer = timer_at(w, WORKER_WATCH_NS, EV_PERSIST, on_watch);
    for (size_t i = 0; i < nlanes && o->tps > 0; i++) {
        schedule_init(&w->lanes[i].sched, o->arrival, o->tps, total_lanes,
                      first_lane + (uint32_t)i, start_ns, rng_next(&w->rng));
    }
}

static enum run_go worker_wait_go(struct worker *w)
{
    struct run *r = w->run;
    pthread_mutex_lock(&r->lock);
    r->ready++;
    pthread_cond_broadcast(&r->cond);
    while (r->go == RUN_WAIT) {
        pthread_cond_wait(&r->cond, &r->lock);
    }
    enum run_go go = r->go;
    pthread_mutex_unlock(&r->lock);
    return go;
}

/* Start every lane and run the loop until they are all done (or the loop breaks). */
static void worker_run_lanes(struct worker *w)
{
    size_t nlanes = (size_t)w->nclients * w->run->opts->conns_per_client;
    w->active_lanes = (uint32_t)nlanes + 1; /* hold the loop open while the lanes start */
    for (size_t i = 0; i < nlanes; i++) {
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
    w->preloading = true;
    w->started = true;
    worker_run_lanes(w);
    w->preloading = false;
    w->started = false;
    w->end_ns = 0;
    w->preload_ns = slap_now_ns() - start;
    stats_reset(&w->cur);
    for (uint32_t k = 0; k < w->nclients; k++) {
        if (w->clients[k].stopped) {
            w->setup_failed = true;
            snprintf(w->error, sizeof(w->error), "a connection was lost during --preload");
        }
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    if (worker_connect_all(w) != SLAP_OK) {
        w->setup_failed = true;
    } else if (w->clients[0].preload_left > 0) {
        worker_preload(w);
    }
    if (worker_wait_go(w) == RUN_GO) {
        worker_start(w, w->run->start_ns);
        worker_run_lanes(w);
    }
    if (w->end_ns == 0) {
        w->end_ns = slap_now_ns();
    }
    worker_publish(w);
    atomic_store(&w->done, true);
    return NULL;
}

int worker_spawn(struct worker *w)
{
    struct event_config *cfg = event_config_new();
    if (cfg == NULL) {
        return SLAP_ERROR;
    }
    event_config_set_flag(cfg, EVENT_BASE_FLAG_NOLOCK);
    if (w->run->opts->tps > 0) {
        /* Open loop: timers must fire at the microsecond, not the millisecond. */
        event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
    }
    w->base = event_base_new_with_config(cfg);
    event_config_free(cfg);
    if (w->base == NULL) {
        return SLAP_ERROR;
    }
    return pthread_create(&w->thread, NULL, worker_main, w) == 0 ? SLAP_OK : SLAP_ERROR;
}
