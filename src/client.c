/*
 * A simulated client: its key window, its lanes (closed loops) and what they send next.
 *
 *   lane_start ──> issue ──> conn_send ──> ... ──> lane_on_response ──> record ──> issue
 *                    │ (stop asked, quota spent, client stopped)
 *                    └──> idle: worker_lane_idle
 * A lane whose socket is closed waits for it to reconnect (-R) or stops its client.
 */
#include "slap/client.h"

#include <errno.h>
#include <string.h>

#include "slap/common.h"
#include "slap/run.h"
#include "slap/worker.h"

static void lane_issue(struct lane *l);

static struct worker *lane_worker(const struct lane *l)
{
    return l->client->worker;
}

static bool client_may_issue(struct client *c)
{
    return !c->stopped && c->quota > 0 && !worker_should_stop(c->worker);
}

static void lane_go_idle(struct lane *l)
{
    l->busy = false;
    l->sent = false;
    worker_lane_idle(lane_worker(l));
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

/* Choose the next operation and encode it into the lane's buffer. */
static void lane_prepare(struct lane *l)
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
    l->op = op;
    l->server = server_of(c, slot);
    struct conn *conn = &l->conns[l->server];
    size_t cap = wl->key_size + 64;
    if (op == OP_GET) {
        conn->out_len[0] = (uint32_t)proto_ascii_encode_get(l->wbuf, cap, c->key, wl->key_size);
        conn->out[1] = NULL;
        conn->out_len[1] = 0;
    } else {
        conn->out_len[0] = (uint32_t)proto_ascii_encode_set_header(l->wbuf, cap, c->key,
                                                                   wl->key_size, 0, 0,
                                                                   wl->value_size);
        conn->out[1] = wl->value;
        conn->out_len[1] = wl->value_size + 2;
    }
    conn->out[0] = l->wbuf;
    l->req_len = conn->out_len[0] + conn->out_len[1];
    if (c->quota != UINT64_MAX) {
        c->quota--;
    }
}

static void lane_send(struct lane *l)
{
    struct conn *conn = &l->conns[l->server];
    l->sent = true;
    l->start_ns = slap_now_ns();
    conn_send(conn); /* a failure comes back through lane_on_closed */
}

static void lane_issue(struct lane *l)
{
    if (!client_may_issue(l->client)) {
        lane_go_idle(l);
        return;
    }
    lane_prepare(l);
    l->sent = false;
    if (l->conns[l->server].state == CONN_READY) {
        lane_send(l);
    } /* else: sent when the socket reconnects */
}

void lane_start(struct lane *l)
{
    l->busy = true;
    lane_worker(l)->busy_lanes++;
    lane_issue(l);
}

void lane_on_written(struct lane *l, uint64_t bytes)
{
    lane_worker(l)->cur.counters.written_bytes += bytes;
}

void lane_on_read(struct lane *l, uint64_t bytes)
{
    lane_worker(l)->cur.counters.read_bytes += bytes;
}

/* Count a reply; true if it answered the request the way the protocol allows. */
static bool count_reply(struct lane *l, struct slap_counters *k, const struct proto_result *res)
{
    const struct workload *wl = &lane_worker(l)->run->workload;
    switch (res->reply) {
    case PROTO_REPLY_VALUES:
        if (l->op != OP_GET || res->hits > 1) {
            return false;
        }
        k->cmd_get++;
        k->get_misses += 1 - res->hits;
        return true;
    case PROTO_REPLY_STORED:
    case PROTO_REPLY_NOT_STORED:
    case PROTO_REPLY_EXISTS:
    case PROTO_REPLY_NOT_FOUND:
        if (l->op != OP_SET) {
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

void lane_on_response(struct lane *l, struct conn *c, const struct proto_result *res,
                      uint64_t now_ns)
{
    struct worker *w = lane_worker(l);
    struct slap_stats *s = &w->cur;
    if (!l->sent || c != &l->conns[l->server] || !count_reply(l, &s->counters, res)) {
        s->counters.protocol_error++;
        const char *why = "a reply that does not answer the request sent";
        worker_warn(w, "unexpected response", c->server, why, strlen(why));
        conn_close(c);
        lane_on_closed(l, c, "unexpected response");
        return;
    }
    if (reply_is_answer(res->reply)) {
        uint64_t bytes = l->req_len + c->resp_bytes;
        hist_record(&s->lat[l->op], now_ns - l->start_ns);
        if (l->op == OP_GET) {
            s->counters.net_get_bytes += bytes;
        } else {
            s->counters.net_set_bytes += bytes;
        }
    } else {
        worker_warn(w, reply_name(res->reply), c->server, res->msg, res->msg_len);
    }
    lane_issue(l);
}

static void on_retry(evutil_socket_t fd, short what, void *arg);

static void schedule_reconnect(struct lane *l, struct conn *c)
{
    struct worker *w = lane_worker(l);
    if (!event_initialized(&c->retry)) {
        event_assign(&c->retry, w->base, -1, 0, on_retry, c);
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

/* The request on c is lost; the lane either waits for a reconnect or stops its client. */
void lane_on_closed(struct lane *l, struct conn *c, const char *why)
{
    struct worker *w = lane_worker(l);
    bool had_request = l->busy && l->server == c->server;
    w->cur.counters.conn_closed++;
    worker_warn(w, "connection lost", c->server, why, strlen(why));
    if (had_request && l->sent) {
        w->cur.counters.unanswered++;
        l->sent = false;
    }
    if (w->run->opts->reconnect && !w->stopping) {
        if (c->backoff_ns == 0) {
            c->backoff_ns = RUN_RECONNECT_MIN_NS;
        }
        schedule_reconnect(l, c);
        return; /* the lane stays busy: its request is re-sent on the new socket */
    }
    if (!l->client->stopped) {
        l->client->stopped = true;
        w->cur.counters.clients_stopped++;
    }
    if (had_request) {
        lane_go_idle(l);
    }
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
    if (l->busy && !l->sent && l->server == c->server) {
        lane_send(l);
    }
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
        if (l->busy && !l->sent && l->server == c->server) {
            lane_go_idle(l);
        }
        return;
    }
    schedule_reconnect(l, c);
}
