/*
 * A simulated client: its key window, its lanes and what they send next.
 *
 *   lane_pump ──> (room in the pipeline, allowed to send, due) ──> lane_queue ──> conn_flush
 *       ^                 │ open loop, not yet due: arm the lane's timer
 *       │                 └ nothing more to send and nothing in flight: the lane is done
 *       └── an answer (after each read), the timer, a reconnect
 * A socket that closes loses what was sent on it; queued requests wait for the
 * reconnect (-R), or the client stops.
 */
#include "slap/client.h"

#include <errno.h>
#include <string.h>

#include "slap/common.h"
#include "slap/run.h"
#include "slap/worker.h"

static struct worker *lane_worker(const struct lane *l)
{
    return l->client->worker;
}

static bool lane_may_issue(const struct lane *l)
{
    const struct client *c = l->client;
    return !c->stopped && c->quota > 0 && !worker_should_stop(c->worker);
}

/* The lane has nothing left to do: tell the worker, once. */
static void lane_check_done(struct lane *l)
{
    if (!l->done && l->in_flight == 0 && !lane_may_issue(l)) {
        l->done = true;
        worker_lane_idle(lane_worker(l));
    }
}

static uint32_t server_of(const struct client *c, uint64_t slot)
{
    const struct run *run = c->worker->run;
    if (run->servers.count <= 1) {
        return 0;
    }
    if (c->slot_server != NULL) {
        return c->slot_server[slot];
    }
    return servers_pick(&run->servers, c->key, run->workload.key_size);
}

/* Choose the next operation and queue it on the socket of its key's server. */
static void lane_queue(struct lane *l, uint64_t intended_ns)
{
    struct client *c = l->client;
    struct worker *w = c->worker;
    const struct workload *wl = &w->run->workload;
    enum op_type op = window_next_op(&c->win, wl);
    if (op == OP_GET && !window_can_get(&c->win)) {
        op = OP_SET; /* nothing of this run to read yet */
    }
    uint64_t slot = op == OP_SET ? window_take_set_slot(&c->win, wl)
                                 : window_pick_get_slot(&c->win, &w->rng);
    workload_key_slot(c->key, slot);
    struct conn *conn = &l->conns[server_of(c, slot)];
    struct request *r = conn_queue(conn);
    size_t cap = wl->key_size + 64;
    r->op = (uint8_t)op;
    r->intended_ns = intended_ns;
    r->sent_ns = 0;
    if (op == OP_GET) {
        r->hdr_len = (uint32_t)proto_ascii_encode_get(r->hdr, cap, c->key, wl->key_size);
        r->value = NULL;
        r->value_len = 0;
    } else {
        r->hdr_len = (uint32_t)proto_ascii_encode_set_header(r->hdr, cap, c->key, wl->key_size, 0,
                                                             0, wl->value_size);
        r->value = wl->value;
        r->value_len = wl->value_size + 2;
    }
    l->in_flight++;
    if (c->quota != UINT64_MAX && w->measuring) {
        c->quota--;
    }
}

static void on_lane_timer(evutil_socket_t fd, short what, void *arg)
{
    struct lane *l = arg;
    (void)fd;
    (void)what;
    l->timer_armed = false;
    lane_pump(l);
}

static void lane_arm(struct lane *l, uint64_t after_ns)
{
    if (l->timer_armed) {
        return; /* already set for an earlier (or the same) time */
    }
    if (!event_initialized(&l->timer)) {
        event_assign(&l->timer, lane_worker(l)->base, -1, 0, on_lane_timer, l);
    }
    struct timeval tv = slap_ns_to_timeval(after_ns);
    event_add(&l->timer, &tv);
    l->timer_armed = true;
}

void lane_pump(struct lane *l)
{
    const struct run *run = lane_worker(l)->run;
    uint32_t depth = run->opts->pipeline;
    bool open_loop = run->opts->tps > 0;
    uint64_t now = 0;
    while (l->in_flight < depth && lane_may_issue(l)) {
        uint64_t intended = 0;
        if (open_loop) {
            intended = schedule_peek(&l->sched);
            if (intended > now) {
                now = slap_now_ns();
            }
            if (intended > now) {
                lane_arm(l, intended - now);
                break;
            }
            schedule_advance(&l->sched);
        }
        lane_queue(l, intended);
    }
    for (uint32_t s = 0; s < run->servers.count; s++) {
        if (l->conns[s].dirty) {
            conn_flush(&l->conns[s]);
        }
    }
    lane_check_done(l);
}

void lane_stop(struct lane *l)
{
    const struct run *run = lane_worker(l)->run;
    if (l->timer_armed) {
        event_del(&l->timer);
        l->timer_armed = false;
    }
    for (uint32_t s = 0; s < run->servers.count; s++) {
        if (l->conns[s].state != CONN_READY) {
            l->in_flight -= conn_drop_all(&l->conns[s]); /* never sent: not counted */
        }
    }
    lane_check_done(l);
}

void lane_on_written(struct lane *l, uint64_t bytes)
{
    lane_worker(l)->cur.counters.written_bytes += bytes;
}

void lane_on_read(struct lane *l, uint64_t bytes)
{
    lane_worker(l)->cur.counters.read_bytes += bytes;
}

void lane_on_sent(struct lane *l, const struct request *r)
{
    struct worker *w = lane_worker(l);
    w->cur.counters.requests_sent++;
    if (w->run->opts->tps > 0) {
        hist_record(&w->cur.lag, r->sent_ns - r->intended_ns);
    }
}

/* Count a reply; false if it cannot answer the request (a protocol error). */
static bool count_reply(struct lane *l, const struct request *r, struct slap_counters *k,
                        const struct proto_result *res)
{
    const struct workload *wl = &lane_worker(l)->run->workload;
    switch (res->reply) {
    case PROTO_REPLY_VALUES:
        if (r->op != OP_GET || res->hits > 1) {
            return false;
        }
        k->cmd_get++;
        k->get_misses += 1 - res->hits;
        return true;
    case PROTO_REPLY_STORED:
    case PROTO_REPLY_NOT_STORED:
    case PROTO_REPLY_EXISTS:
    case PROTO_REPLY_NOT_FOUND:
        if (r->op != OP_SET) {
            return false;
        }
        k->cmd_set++;
        if (res->reply == PROTO_REPLY_STORED) {
            k->object_bytes += wl->key_size + wl->value_size;
            window_set_done(&l->client->win, wl);
        } else {
            k->not_stored++;
        }
        return true;
    case PROTO_REPLY_SERVER_ERROR:
        k->server_error++;
        return true;
    case PROTO_REPLY_CLIENT_ERROR:
        k->client_error++;
        return true;
    case PROTO_REPLY_ERROR:
        k->error_reply++;
        return true;
    }
    return false;
}

static const char *reply_name(enum proto_reply reply)
{
    switch (reply) {
    case PROTO_REPLY_SERVER_ERROR:
        return "SERVER_ERROR";
    case PROTO_REPLY_CLIENT_ERROR:
        return "CLIENT_ERROR";
    default:
        return "ERROR";
    }
}

static bool reply_is_answer(enum proto_reply reply)
{
    return reply != PROTO_REPLY_SERVER_ERROR && reply != PROTO_REPLY_CLIENT_ERROR &&
           reply != PROTO_REPLY_ERROR;
}

static void record_latency(struct worker *w, const struct request *r,
                           const struct proto_result *res, uint64_t bytes, uint64_t now_ns)
{
    struct slap_stats *s = &w->cur;
    uint64_t latency = now_ns - r->intended_ns;
    hist_record(&s->lat[r->op], latency);
    if (w->run->opts->tps > 0) {
        hist_record(&s->raw[r->op], now_ns - r->sent_ns);
    }
    if (r->op == OP_GET) {
        hist_record(&s->gets[res->hits > 0 ? STATS_HIT : STATS_MISS], latency);
        s->counters.net_get_bytes += bytes;
    } else {
        s->counters.net_set_bytes += bytes;
    }
}

void lane_on_response(struct lane *l, struct conn *c, const struct request *r,
                      const struct proto_result *res, uint64_t now_ns)
{
    struct worker *w = lane_worker(l);
    l->in_flight--;
    if (!count_reply(l, r, &w->cur.counters, res)) {
        const char *why = "a reply that does not answer the request sent";
        w->cur.counters.protocol_error++;
        worker_warn(w, "unexpected response", c->server, why, strlen(why));
        conn_close(c);
        lane_on_closed(l, c, "unexpected response");
        return;
    }
    if (reply_is_answer(res->reply)) {
        record_latency(w, r, res, r->hdr_len + r->value_len + c->resp_bytes, now_ns);
    } else {
        worker_warn(w, reply_name(res->reply), c->server, res->msg, res->msg_len);
    }
}

static void on_retry(evutil_socket_t fd, short what, void *arg);

static void schedule_reconnect(struct lane *l, struct conn *c)
{
    struct worker *w = lane_worker(l);
    if (!event_initialized(&c->retry)) {
        event_assign(&c->retry, w->base, -1, 0, on_retry, c);
    }
    if (c->backoff_ns == 0) {
        c->backoff_ns = RUN_RECONNECT_MIN_NS;
    }
    struct timeval tv = slap_ns_to_timeval(c->backoff_ns);
    event_add(&c->retry, &tv);
    c->backoff_ns = c->backoff_ns * 2 > RUN_RECONNECT_MAX_NS ? RUN_RECONNECT_MAX_NS
                                                             : c->backoff_ns * 2;
}

static void on_retry(evutil_socket_t fd, short what, void *arg)
{
    struct conn *c = arg;
    struct lane *l = c->lane;
    struct worker *w = lane_worker(l);
    (void)fd;
    (void)what;
    if (w->stopping) {
        return;
    }
    if (conn_connect(c, &w->run->servers.items[c->server], w->base, RUN_CONNECT_TIMEOUT_NS) !=
        SLAP_OK) {
        schedule_reconnect(l, c);
    }
}

/* What was sent on c is lost; queued requests wait for a reconnect, or the client stops. */
void lane_on_closed(struct lane *l, struct conn *c, const char *why)
{
    struct worker *w = lane_worker(l);
    uint32_t lost = conn_drop_sent(c);
    w->cur.counters.conn_closed++;
    w->cur.counters.unanswered += lost;
    l->in_flight -= lost;
    worker_warn(w, "connection lost", c->server, why, strlen(why));
    if (w->run->opts->reconnect && !w->stopping) {
        schedule_reconnect(l, c);
    } else {
        l->in_flight -= conn_drop_all(c);
        if (!w->run->opts->reconnect && !l->client->stopped) {
            l->client->stopped = true;
            w->cur.counters.clients_stopped++;
        }
    }
    lane_pump(l);
}

void lane_on_connected(struct lane *l, struct conn *c)
{
    struct worker *w = lane_worker(l);
    if (!w->started) {
        w->connecting--;
        if (w->connecting == 0) {
            event_base_loopbreak(w->base);
        }
        return;
    }
    w->cur.counters.reconnects++;
    c->backoff_ns = RUN_RECONNECT_MIN_NS;
    conn_flush(c);
    lane_pump(l);
}

void lane_on_connect_failed(struct lane *l, struct conn *c, int err)
{
    struct worker *w = lane_worker(l);
    const char *name = w->run->servers.items[c->server].name;
    if (!w->started) {
        if (!w->setup_failed) {
            w->setup_failed = true;
            snprintf(w->error, sizeof(w->error), "cannot connect to %s: %s", name, strerror(err));
        }
        event_base_loopbreak(w->base);
        return;
    }
    worker_warn(w, "reconnect failed", c->server, strerror(err), strlen(strerror(err)));
    if (w->stopping) {
        l->in_flight -= conn_drop_all(c);
        lane_check_done(l);
        return;
    }
    schedule_reconnect(l, c);
}
