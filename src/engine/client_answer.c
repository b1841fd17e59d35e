/*
 * What comes back to a lane: its sockets' callbacks (lane_conn_ops). An answer is counted
 * (hit, miss, stored, error), its latency recorded, and with -v or -e the value checked against
 * what the slot should hold; a lost connection forgets what was sent on it.
 */
#include "lane.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void lane_sent(struct conn *conn, const struct request *r)
{
    struct lane_env *env = lane_env_of(conn->owner);
    env->cur.counters.requests_sent++;
    if (env->params->tps > 0) {
        hist_record(env->cur.lag, r->sent_ns - r->intended_ns);
    }
}

/*
 * A write of r's slot was answered: stored or not (-p: by one of its servers). Its value is
 * now r's version; after append or prepend, or a delete, it is no value slap can check.
 * A fresh key's set that the server answered, stored or declined (NOT_STORED, EXISTS,
 * NOT_FOUND), opens its slot to the gets: a server that stores nothing then gets the mix
 * asked for (its gets asking for keys it declined), not sets alone. An error reply opens
 * nothing.
 */
static void write_answered(struct client *c, const struct request *r, bool done, bool declined,
                           uint64_t now_ns)
{
    const struct workload *wl = c->env->params->wl;
    bool fills = (done || declined) && r->fresh;
    struct slot_state *st = c->slots != NULL ? &c->slots[r->slot] : NULL;
    if (st != NULL) {
        st->pending--;
        fills = fills && st->pending == 0; /* on every server it goes to (-p) */
    }
    if (fills) {
        window_set_done(&c->win, wl);
    }
    if (st == NULL || !done) {
        return;
    }
    uint32_t now_ms = ms_since_start(c->env, now_ns);
    bool known = r->op == OP_SET || r->op == OP_ADD || r->op == OP_REPLACE || r->op == OP_CAS;
    st->stored_version = known ? r->version : 0;
    st->stored_ms = now_ms;
    /* a TTL past what the run's milliseconds count (49 days) never expires within it */
    uint64_t expire_ms = (uint64_t)now_ms + (uint64_t)r->exptime * 1000;
    expire_ms = expire_ms < UINT32_MAX - 1000 ? expire_ms : UINT32_MAX - 1000;
    st->expire_ms = r->exptime > 0 ? (uint32_t)expire_ms : 0;
}

/* -e, -v: what a single get found, against what the slot should hold now. */
static void check_get(struct client *c, const struct request *r, struct slap_counters *k,
                      uint32_t hits, uint64_t now_ns)
{
    if (c->slots == NULL || r->nkeys != 1 || r->op != OP_GET) {
        return;
    }
    const struct slot_state *st = &c->slots[r->slot];
    uint32_t now_ms = ms_since_start(c->env, now_ns);
    uint32_t sent_ms = ms_since_start(c->env, r->sent_ns);
    if (st->pending > 0 || st->ambiguous || st->stored_version == 0 || st->stored_ms >= sent_ms) {
        return; /* a set of this key crossed the get: either answer is right */
    }
    if (st->expire_ms != 0) {
        /* memcached's clock ticks once a second: leave a second either side */
        if (hits > 0 && now_ms >= st->expire_ms + 1000) {
            k->expired_get++;
        } else if (hits == 0 && now_ms + 1000 < st->expire_ms) {
            k->unexpired_unget++;
        }
        return;
    }
    if (r->verify && hits == 0) {
        k->verify_misses++;
        k->verify_checked++;
    }
}

/* An error line, counted by its kind. */
static void count_error_reply(struct slap_counters *k, enum proto_reply reply)
{
    if (reply == PROTO_REPLY_SERVER_ERROR) {
        k->server_error++;
    } else if (reply == PROTO_REPLY_CLIENT_ERROR) {
        k->client_error++;
    } else {
        k->error_reply++;
    }
}

static bool reply_is_error(enum proto_reply reply)
{
    return reply == PROTO_REPLY_SERVER_ERROR || reply == PROTO_REPLY_CLIENT_ERROR ||
           reply == PROTO_REPLY_ERROR;
}

/*
 * Keys a retrieval asked for: get and gets in cmd_get, gat in cmd_touch, as the server
 * counts them; the meta protocol's server counts a gat's misses as get misses.
 */
static void count_retrieval(struct client *c, const struct request *r, struct slap_counters *k,
                            const struct proto_result *res, uint64_t now_ns)
{
    uint32_t misses = r->nkeys - res->hits;
    if (r->op != OP_GAT) {
        k->cmd_get += r->nkeys;
        k->get_misses += misses;
        check_get(c, r, k, res->hits, now_ns);
    } else if (c->env->params->meta) {
        k->cmd_touch += res->hits;
        k->touch_hits += res->hits;
        k->cmd_get += misses;
        k->get_misses += misses;
    } else {
        k->cmd_touch += r->nkeys;
        k->touch_hits += res->hits;
        k->touch_misses += misses;
    }
    if (r->op == OP_GETS && r->nkeys == 1 && res->hits == 1) {
        c->cas_ready = true; /* the next cas uses this token */
        c->cas_slot = r->slot;
        c->cas_token = res->cas;
    }
}

/* A storage command's answer; false if the reply is not one. */
static bool count_storage(struct client *c, const struct request *r, struct slap_counters *k,
                          enum proto_reply reply, uint64_t now_ns)
{
    switch (reply) {
    case PROTO_REPLY_STORED:
        k->stored++;
        k->cas_hits += r->op == OP_CAS;
        k->object_bytes += r->key_len + r->value_len;
        break;
    case PROTO_REPLY_NOT_STORED:
        k->not_stored++;
        break;
    case PROTO_REPLY_EXISTS:
        k->exists++;
        k->cas_badval += r->op == OP_CAS;
        break;
    case PROTO_REPLY_NOT_FOUND:
        k->not_found++;
        k->cas_misses += r->op == OP_CAS;
        break;
    default:
        return false;
    }
    k->cmd_set++;
    write_answered(c, r, reply == PROTO_REPLY_STORED, true, now_ns);
    return true;
}

/*
 * delete, incr, decr, touch: done (DELETED, the number, TOUCHED; HD in the meta protocol)
 * or not found (NOT_FOUND; a meta touch's EN). False if the reply is neither.
 */
static bool count_command(struct client *c, const struct request *r, struct slap_counters *k,
                          const struct proto_result *res, uint64_t now_ns)
{
    bool meta = c->env->params->meta;
    enum proto_reply done_reply = r->op == OP_DELETE  ? PROTO_REPLY_DELETED
                                  : r->op == OP_TOUCH ? PROTO_REPLY_TOUCHED
                                                      : PROTO_REPLY_NUMBER;
    bool done = res->reply == done_reply || (meta && res->reply == PROTO_REPLY_STORED);
    bool missing =
        res->reply == PROTO_REPLY_NOT_FOUND ||
        (meta && r->op == OP_TOUCH && res->reply == PROTO_REPLY_VALUES && res->hits == 0);
    if (!done && !missing) {
        return false;
    }
    switch (r->op) {
    case OP_DELETE:
        k->deleted += done;
        k->delete_hits += done;
        k->delete_misses += missing;
        write_answered(c, r, done, false, now_ns);
        break;
    case OP_INCR:
        k->incr_hits += done;
        k->incr_misses += missing;
        break;
    case OP_DECR:
        k->decr_hits += done;
        k->decr_misses += missing;
        break;
    default: /* touch; the meta server counts a miss as a get miss */
        k->touched += done;
        k->cmd_touch += done || !meta;
        k->touch_hits += done;
        k->touch_misses += missing && !meta;
        k->cmd_get += missing && meta;
        k->get_misses += missing && meta;
        break;
    }
    k->not_found += missing;
    return true;
}

/* Count a reply; false if it cannot answer the request (a protocol error). */
static bool count_reply(struct lane *l, const struct request *r, struct slap_counters *k,
                        const struct proto_result *res, uint64_t now_ns)
{
    struct client *c = l->client;
    if (reply_is_error(res->reply)) {
        count_error_reply(k, res->reply);
        if (op_class(r->op) == OP_CLASS_STORAGE || r->op == OP_DELETE) {
            write_answered(c, r, false, false, now_ns);
        }
        return true;
    }
    switch (op_class(r->op)) {
    case OP_CLASS_RETRIEVAL:
        if (res->reply != PROTO_REPLY_VALUES || res->hits > r->nkeys) {
            return false;
        }
        count_retrieval(c, r, k, res, now_ns);
        return true;
    case OP_CLASS_STORAGE:
        return count_storage(c, r, k, res->reply, now_ns);
    default:
        return count_command(c, r, k, res, now_ns);
    }
}

/* -v: the hook's begin: what this VALUE's data must be, if the get is checked. */
const char *lane_value_begin(void *ctx, const char *key, size_t key_len, uint64_t bytes,
                             uint64_t *expect_len)
{
    struct conn *conn = ctx;
    struct client *c = ((struct lane *)conn->owner)->client;
    const struct workload *wl = c->env->params->wl;
    const struct request *r = conn_oldest(conn);
    struct key_name name;
    (void)bytes;
    if (r == NULL || !r->verify || c->slots == NULL ||
        !key_layout_decode(&wl->keys, key, key_len, &name) || name.kind != KEY_WINDOW ||
        name.owner != c->key_id || name.slot >= wl->win_size) {
        return NULL; /* not a key of this client's window */
    }
    uint64_t slot = name.slot;
    const struct slot_state *st = &c->slots[slot];
    uint32_t sent_ms = ms_since_start(c->env, r->sent_ns);
    if (st->pending > 0 || st->ambiguous || st->stored_version == 0 || st->stored_ms >= sent_ms) {
        return NULL; /* a set of this key crossed the get */
    }
    *expect_len = workload_value_len(wl, c->key_id, slot, st->stored_version);
    c->env->verify_slot = slot;
    return workload_value(wl, c->key_id, slot, st->stored_version);
}

/* -v: the hook's end: count a value that differs, and show the first ones with -b. */
void lane_value_end(void *ctx, int equal, uint64_t first_diff)
{
    struct conn *conn = ctx;
    struct client *c = ((struct lane *)conn->owner)->client;
    struct lane_env *env = c->env;
    struct slap_counters *k = answer_counters(env, conn_oldest(conn));
    k->verify_checked++;
    if (equal) {
        return;
    }
    k->verify_failed++;
    if (env->params->verbose && env->verbose_left > 0) {
        env->verbose_left--;
        run_event_tell(&env->params->events,
                       &(struct run_event){.kind = RUN_EVENT_VERIFY_FAILED,
                                           .verify_failed = {.server = conn->srv->name,
                                                             .client = c->id,
                                                             .slot = env->verify_slot,
                                                             .first_diff = first_diff}});
    }
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

/* Keys the request did not find: a retrieval's missing keys, another's NOT_FOUND. */
static uint32_t request_misses(const struct request *r, const struct proto_result *res)
{
    if (op_class(r->op) == OP_CLASS_RETRIEVAL) {
        return r->nkeys - res->hits;
    }
    return res->reply == PROTO_REPLY_NOT_FOUND ||
           (r->op == OP_TOUCH && res->reply == PROTO_REPLY_VALUES);
}

/* What became of an answered request, for --samples: a retrieval hit or missed; a storage
 * command stored or not; delete, touch, incr and decr found their key (hit) or not (miss). */
static uint8_t sample_outcome(const struct request *r, const struct proto_result *res)
{
    if (reply_is_error(res->reply)) {
        return SAMPLE_ERROR;
    }
    switch (op_class(r->op)) {
    case OP_CLASS_RETRIEVAL:
        return res->hits > 0 ? SAMPLE_HIT : SAMPLE_MISS;
    case OP_CLASS_STORAGE:
        return res->reply == PROTO_REPLY_STORED ? SAMPLE_STORED : SAMPLE_NOT_STORED;
    default:
        return request_misses(r, res) > 0 ? SAMPLE_MISS : SAMPLE_HIT;
    }
}

/* Where r's latency ends: the kernel's arrival stamp of its answer, if the read had one (not
 * before r went: the stamp's clock is converted to slap's, a few tens of ns apart), else the
 * read at now_ns. */
static uint64_t answer_end(const struct request *r, uint64_t now_ns, uint64_t kernel_ns)
{
    if (kernel_ns == 0) {
        return now_ns;
    }
    return kernel_ns > r->sent_ns ? kernel_ns : r->sent_ns;
}

/*
 * An open loop's latency in its parts (stats.h): the server held the request (held_ns), slap
 * was late to send it (the rest of the wait before it went), the network and the server (sent
 * to the answer's end). slap late to read it is the own delay (kernel stamps), which the
 * latency leaves out. A latency mostly slap's lateness, by STATS_SLAP_LATE_NS or more, is
 * counted and kept apart.
 */
static void record_parts(struct slap_stats *s, const struct request *r, uint64_t latency,
                         uint64_t end_ns)
{
    uint64_t wait = r->sent_ns - r->intended_ns;
    uint64_t held = r->held_ns < wait ? r->held_ns : wait;
    uint64_t late = wait - held;
    hist_record(s->raw[r->op], end_ns - r->sent_ns);
    hist_record(s->held[r->op], held);
    hist_record(s->late[r->op], late);
    if (late >= STATS_SLAP_LATE_NS && 2 * late > latency) {
        s->counters.slap_late++;
        hist_record(s->slap_tail, latency);
    }
}

static void record_latency(struct lane_env *env, const struct request *r,
                           const struct proto_result *res, uint64_t bytes, uint64_t now_ns,
                           uint64_t kernel_ns)
{
    struct slap_stats *s = &env->cur;
    uint64_t end_ns = answer_end(r, now_ns, kernel_ns);
    uint64_t latency = end_ns - r->intended_ns;
    hist_record(s->lat[r->op], latency);
    samples_put(&env->samples, &(struct sample){r->intended_ns, r->sent_ns, latency, r->op,
                                                sample_outcome(r, res)});
    if (s->raw[r->op] != NULL) { /* open loop: the latency taken apart */
        record_parts(s, r, latency, end_ns);
    }
    if (kernel_ns != 0) { /* slap's own delay: the answer waited in the socket this long */
        hist_record(s->own, now_ns - end_ns);
    }
    if (r->op == OP_GET) {
        hist_record(s->gets[res->hits > 0 ? STATS_HIT : STATS_MISS], latency);
    }
    s->net_bytes[r->op] += bytes;
    s->misses[r->op] += request_misses(r, res);
}

static void lane_closed(struct conn *c, const char *why);

/*
 * When r's answer would have come had slap kept its schedule: r sent as soon as the server
 * let it (its intended time plus what the server held it), answered after the same network
 * and server time. A lane that r's answer frees has room from then: what a request waits
 * past it is slap's lateness, also when slap's earlier lateness filled the lane (a backlog
 * after a stop is slap's, not the server's).
 */
static uint64_t punctual_answer(const struct request *r, uint64_t now_ns, uint64_t kernel_ns)
{
    uint64_t end = answer_end(r, now_ns, kernel_ns);
    if (r->intended_ns == 0 || r->sent_ns < r->intended_ns + r->held_ns) {
        return end; /* a closed loop's, or sent before the server let it (none) */
    }
    return r->intended_ns + r->held_ns + (end - r->sent_ns);
}

static void lane_answered(struct conn *c, const struct request *r, const struct proto_result *res,
                          uint64_t now_ns, uint64_t kernel_ns)
{
    struct lane *l = c->owner;
    struct lane_env *env = lane_env_of(l);
    l->in_flight--;
    if (l->held_since_ns != 0 && l->freed_ns == 0) { /* the full lane has room from then */
        l->freed_ns = punctual_answer(r, now_ns, kernel_ns);
    }
    if (r->measured) {
        env->last_answer_ns = now_ns;
    }
    if (l->reopens != NULL) { /* --reconnect_rate: the socket's time, read by lane_drained */
        l->reopens[c - l->conns].answered_ns = now_ns;
    }
    if (!count_reply(l, r, answer_counters(env, r), res, now_ns)) {
        const char *why = "a reply that does not answer the request sent";
        env->cur.counters.protocol_error++;
        lane_warn(env, "unexpected response", c->server, why, strlen(why));
        conn_close(c);
        lane_closed(c, "unexpected response");
        return;
    }
    if (env->phase == WORKER_PRELOADING) {
        env->preload_sets += r->op == OP_SET && res->reply == PROTO_REPLY_STORED;
    } else if (!r->measured) {
        return;
    } else if (!reply_is_error(res->reply)) {
        record_latency(env, r, res, r->hdr_len + r->value_len + (r->crlf ? 2 : 0) + c->resp_bytes,
                       now_ns, kernel_ns);
    } else {
        samples_put(&env->samples,
                    &(struct sample){r->intended_ns, r->sent_ns,
                                     answer_end(r, now_ns, kernel_ns) - r->intended_ns, r->op,
                                     SAMPLE_ERROR});
        lane_warn(env, reply_name(res->reply), c->server, res->msg, res->msg_len);
    }
}

/* What was sent on c is lost; queued requests wait for a reconnect, or the client stops. */
static void lane_closed(struct conn *c, const char *why)
{
    struct lane *l = c->owner;
    struct lane_env *env = lane_env_of(l);
    uint64_t now = slap_now_ns();
    lane_forget(l, c, conn_sent_count(c), now);
    env->cur.counters.conn_closed++;
    env->cur.counters.conn_refused += c->answers == 0;
    lane_warn(env, "connection lost", c->server, why, strlen(why));
    if (env->params->reconnect && env->phase != WORKER_STOPPING) {
        conn_retry_later(c);
    } else {
        lane_forget(l, c, c->count, env->phase == WORKER_STOPPING ? env->end_ns : now);
        if (!env->params->reconnect && !l->client->stopped) {
            l->client->stopped = true;
            env->cur.counters.clients_stopped++;
        }
    }
    lane_pump(l);
}

static void lane_connected(struct conn *c)
{
    struct lane *l = c->owner;
    struct lane_env *env = lane_env_of(l);
    if (env->phase == WORKER_CONNECTING) {
        env->ops->connected(env->owner, c, NULL);
        return;
    }
    if (env->phase == WORKER_MEASURING) { /* c->connect_ns: connect to ready */
        hist_record(env->cur.connect, c->connect_ns);
    }
    env->cur.counters.reconnects++;
    conn_flush(c);
    lane_pump(l);
}

static void lane_connect_failed(struct conn *c, const char *why)
{
    struct lane *l = c->owner;
    struct lane_env *env = lane_env_of(l);
    if (env->phase == WORKER_CONNECTING) {
        env->ops->connected(env->owner, c, why);
        return;
    }
    lane_warn(env, "reconnect failed", c->server, why, strlen(why));
    if (env->phase == WORKER_STOPPING) {
        lane_forget(l, c, c->count, env->end_ns);
        lane_check_done(l);
        return;
    }
    conn_retry_later(c);
}

/* UDP: the request in flight was given up (the socket counts udp_timeout and forgets it). */
static void lane_given_up(struct conn *c, const struct request *r, uint64_t now_ns)
{
    struct lane *l = c->owner;
    if (r->measured) {
        lane_count_unanswered(lane_env_of(l), r->op, r->intended_ns, r->sent_ns, now_ns);
    }
    l->in_flight--;
}

/* ---- connection churn: --reconnect_every, --reconnect_rate ----------------------------- */

/* Close c and open it again at once (option says why); what the lane sends next waits for it. */
static void reopen(struct conn *c, const char *option)
{
    conn_close(c);
    if (conn_connect(c) != SLAP_OK) {
        char why[128];
        snprintf(why, sizeof(why), "%s: cannot connect again: %s", option, strerror(errno));
        lane_closed(c, why);
    }
}

/* --reconnect_every: a socket that has had its answers, with nothing in flight or queued, is
 * closed and opened again. */
static void churn_every(struct conn *c)
{
    struct lane_env *env = lane_env_of(c->owner);
    if (c->state != CONN_READY || c->answers < env->params->reconnect_every || c->count > 0 ||
        env->phase == WORKER_STOPPING) {
        return;
    }
    reopen(c, "--reconnect_every");
}

/* --reconnect_rate: the sockets of the run, all threads', which take its reopens in turn. */
static uint64_t run_sockets(const struct lane_params *p)
{
    return (uint64_t)p->concurrency * p->conns_per_client * client_lane_sockets(p);
}

/* When the run's n-th reopen is due: (n - 1/2) / rate after the go, rounded to the ns once. */
static uint64_t reopen_due(const struct lane_env *env, uint64_t n)
{
    long double after = ((long double)n - 0.5L) * 1e9L / env->params->reconnect_rate;
    return env->start_ns + (uint64_t)(after + 0.5L);
}

void lane_reopens_begin(struct lane *l)
{
    for (uint32_t s = 0; s < l->nconns; s++) {
        l->reopens[s].due_ns = reopen_due(lane_env_of(l), l->reopens[s].n);
    }
}

/* The socket's first reopen due after now_ns: those that fell due while no answer came are
 * skipped, not made up (a socket reopens once per answer at most). */
static void reopen_next(struct lane_reopen *ro, const struct lane_env *env, uint64_t now_ns)
{
    uint64_t every = run_sockets(env->params);
    /* the run's reopens due after now are those with n > (now - go) x rate + 1/2 */
    long double past =
        (long double)(now_ns - env->start_ns) * env->params->reconnect_rate / 1e9L + 0.5L;
    uint64_t first = (uint64_t)past + 1;
    ro->n += (first > ro->n ? (first - ro->n + every - 1) / every : 1) * every;
    while ((ro->due_ns = reopen_due(env, ro->n)) <= now_ns) { /* rounding's last ns */
        ro->n += every;
    }
}

/* --reconnect_rate: a socket whose latest answer came at or after its reopen time, with
 * nothing in flight or queued, is closed and opened again. */
static void churn_by_rate(struct conn *c)
{
    struct lane *l = c->owner;
    struct lane_env *env = lane_env_of(l);
    struct lane_reopen *ro = &l->reopens[c - l->conns];
    if (c->state != CONN_READY || ro->answered_ns < ro->due_ns || c->count > 0 ||
        env->phase == WORKER_STOPPING) {
        return;
    }
    reopen_next(ro, env, ro->answered_ns);
    reopen(c, "--reconnect_rate");
}

static void lane_drained(struct conn *c)
{
    const struct lane *l = c->owner;
    if (l->churn) { /* one test on the request path when neither option is given */
        if (l->reopens != NULL) {
            churn_by_rate(c);
        } else {
            churn_every(c);
        }
    }
    lane_pump(c->owner);
}

/* An error line that answers no request: the server's words, counted by kind, shown once. */
static void lane_unsolicited(struct conn *c, const struct proto_result *res)
{
    struct lane_env *env = lane_env_of(c->owner);
    count_error_reply(&env->cur.counters, res->reply);
    lane_warn(env, reply_name(res->reply), c->server, res->msg, res->msg_len);
}

static void lane_fault(struct conn *c, const char *what, const char *detail)
{
    lane_warn(lane_env_of(c->owner), what, c->server, detail, strlen(detail));
}

static const struct conn_ops lane_conn_ops = {
    .connected = lane_connected,
    .connect_failed = lane_connect_failed,
    .sent = lane_sent,
    .answered = lane_answered,
    .closed = lane_closed,
    .given_up = lane_given_up,
    .drained = lane_drained,
    .unsolicited = lane_unsolicited,
    .fault = lane_fault,
};

const struct conn_ops *client_conn_ops(void)
{
    return &lane_conn_ops;
}
