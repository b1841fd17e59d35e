/*
 * A simulated client: its key window, its lanes and what they send next.
 *
 *   lane_pump ──> (room in the pipeline, allowed to send, due) ──> lane_queue ──> conn_flush
 *       ^                 │ open loop, not yet due: arm the lane's timer
 *       │                 └ nothing more to send and nothing in flight: the lane is done
 *       └── an answer (after each read), the timer, a reconnect
 * A socket that closes loses what was sent on it; queued requests wait for the
 * reconnect (-R), or the client stops. The lane is its sockets' owner: conn.c
 * tells it what happened through lane_conn_ops. It knows its worker only through
 * lane_ops (env->ops), and the run only through the lane_params it was made with.
 * Here: making clients and lanes, and what they send. What comes back: client_answer.c; what
 * is left unanswered or unsent when the run ends: lane_end.c; what they share: lane.h.
 */
#include "slap/engine/client.h"
#include "lane.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CLIENT_SLOT_TABLE_MAX                                                                      \
    (64ULL * 1024 * 1024) /* bytes of slot-to-server tables, all clients */
#define CLIENT_PAGE 4096
#define LANE_TRACE_WAIT_MAX_NS (3600 * SLAP_NS_PER_SEC) /* longest a trace lane sleeps at once */

/* ---- construction --------------------------------------------------------------------- */

uint32_t client_lane_sockets(const struct lane_params *p)
{
    return p->servers->count * (p->facebook ? 2 : 1);
}

size_t client_udp_answer_cap(const struct workload *wl)
{
    size_t bytes = (size_t)wl->division * ((size_t)wl->value_size + wl->keys.size + 64) + 64;
    return (bytes / (UDP_MAX_DATAGRAM - UDP_HEADER) + 2) * UDP_MAX_DATAGRAM;
}

enum slap_status client_scratch_init(struct multiget_scratch *s, const struct workload *wl)
{
    s->slots = calloc(wl->division, sizeof(*s->slots));
    s->servers = calloc(wl->division, sizeof(*s->servers));
    s->lens = calloc(wl->division, sizeof(*s->lens));
    s->keys = malloc((size_t)wl->division * wl->keys.size);
    s->group_keys = malloc((size_t)wl->division * wl->keys.size);
    s->group_lens = calloc(wl->division, sizeof(*s->group_lens));
    return s->slots && s->servers && s->lens && s->keys && s->group_keys && s->group_lens
               ? SLAP_OK
               : SLAP_ERROR;
}

void client_scratch_free(struct multiget_scratch *s)
{
    free(s->slots);
    free(s->servers);
    free(s->lens);
    free(s->keys);
    free(s->group_keys);
    free(s->group_lens);
}

/*
 * Touch every page of a fresh zeroed allocation now, so that the run takes no page faults
 * on it (and its resident size is what it will stay). Stores through a volatile pointer:
 * the compiler may not drop them as writes of what calloc already wrote.
 */
static void prefault(void *p, size_t n)
{
    volatile char *bytes = p;
    for (size_t i = 0; i < n; i += CLIENT_PAGE) {
        bytes[i] = 0;
    }
}

static uint64_t client_quota(const struct lane_params *o, uint32_t id)
{
    if (o->execute_number == 0) {
        return UINT64_MAX;
    }
    uint64_t share = o->execute_number / o->concurrency;
    return share + (id < o->execute_number % o->concurrency ? 1 : 0);
}

/* With several servers, look every slot's server up once instead of per request. */
static enum slap_status client_map_slots(struct client *c, const struct lane_params *p)
{
    const struct workload *wl = p->wl;
    uint64_t bytes = wl->win_size * sizeof(uint16_t) * p->concurrency;
    if (p->servers->count <= 1 || p->servers->count > UINT16_MAX || bytes > CLIENT_SLOT_TABLE_MAX) {
        return SLAP_OK; /* one server, or too big: computed per request */
    }
    c->slot_server = malloc(wl->win_size * sizeof(uint16_t));
    if (c->slot_server == NULL) {
        return SLAP_ERROR;
    }
    for (uint64_t slot = 0; slot < wl->win_size; slot++) {
        key_layout_slot(&wl->keys, c->key, slot);
        c->slot_server[slot] =
            (uint16_t)servers_pick(p->servers, c->key, key_layout_len(&wl->keys, c->key_id, slot));
    }
    return SLAP_OK;
}

/* Lane lane_no of the worker: its sockets, one per server (and per UDP server with -a). */
static enum slap_status lane_init(struct lane *l, struct client *c, const struct lane_slabs *slabs,
                                  size_t lane_no)
{
    struct lane_env *env = c->env;
    const struct lane_params *p = env->params;
    static const struct proto_value_hook verify_hook = {lane_value_begin, lane_value_end, NULL};
    uint32_t nservers = p->servers->count;
    uint32_t nsockets = client_lane_sockets(p);
    uint32_t depth = p->pipeline;
    l->client = c;
    if (p->trace) {
        l->ring = &p->rings[(size_t)c->id * p->conns_per_client + lane_no % p->conns_per_client];
    }
    /* Only these lanes ever wait for a time. The loop comes later: the timer is assigned at
     * its first use. */
    if (p->tps > 0 || p->trace) {
        l->timer = calloc(1, sizeof(*l->timer));
        if (l->timer == NULL) {
            return SLAP_ERROR;
        }
    }
    l->nconns = nsockets;
    l->conns = slabs->conns + lane_no * nsockets;
    l->churn = p->reconnect_every > 0 || slabs->reopens != NULL;
    if (slabs->reopens != NULL) { /* the run's sockets numbered lane by lane, client by client */
        uint64_t first =
            ((uint64_t)c->id * p->conns_per_client + lane_no % p->conns_per_client) * nsockets;
        l->reopens = slabs->reopens + lane_no * nsockets;
        for (uint32_t s = 0; s < nsockets; s++) {
            l->reopens[s] = (struct lane_reopen){.due_ns = UINT64_MAX, .n = first + s + 1};
        }
    }
    for (uint32_t s = 0; s < nsockets; s++) {
        size_t conn_no = lane_no * nsockets + s;
        struct conn_setup setup = {
            .owner = l,
            .srv = &p->servers->items[s % nservers],
            .server = s % nservers,
            .udp = p->udp || s >= nservers,
            .reconnect = p->reconnect,
            .udp_answer_cap = client_udp_answer_cap(p->wl),
            .ring = slabs->requests + conn_no * depth,
            .cap = depth,
            .hook = p->verify ? &verify_hook : NULL,
        };
        for (uint32_t i = 0; i < depth; i++) {
            setup.ring[i].hdr = slabs->hdrs + (conn_no * depth + i) * env->hdr_cap;
        }
        if (conn_init(&l->conns[s], slabs->conn_env, &setup) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

uint64_t client_range_start(const struct lane_params *p, const struct workload *wl, uint32_t id)
{
    return wl->win_size * id / p->concurrency; /* at most 2^32 keys, 2^20 clients: no overflow */
}

bool client_windows_full(const struct lane_params *o, const struct workload *wl)
{
    return !o->trace && (o->preload || workload_needs_fill(wl));
}

/*
 * Before the run: the counter keys of incr and decr, then (--preload, or a mix that stores no
 * new key) the whole window. With shared keys (memslap) client 0 sets the window once for all,
 * and the others read a window already full; so do a sweep's later steps, whose first step
 * stored every window (and counter). A trace sets nothing first.
 */
static void client_plan_preload(struct client *c, const struct lane_params *o,
                                const struct workload *wl)
{
    c->preload_left = c->counters_left = 0;
    if (o->trace) {
        return;
    }
    if (wl->mix_ops & (op_bit(OP_INCR) | op_bit(OP_DECR)) && !o->windows_stored) {
        c->counters_left = CLIENT_COUNTERS;
    }
    c->preload_left = c->counters_left;
    if (!client_windows_full(o, wl)) {
        return;
    }
    if (o->windows_stored || (o->shared_keys && c->id != 0)) {
        c->win.filled = wl->win_size;
        return;
    }
    c->preload_left +=
        wl->bounds ? client_range_start(o, wl, c->id + 1) - c->win.next_set : wl->win_size;
}

enum slap_status client_init(struct client *c, struct lane_env *env, const struct lane_slabs *s,
                             uint32_t id, uint32_t k)
{
    const struct lane_params *p = env->params;
    const struct workload *wl = p->wl;
    uint32_t nlanes = p->conns_per_client;

    c->env = env;
    c->id = id;
    c->key = s->keys + (size_t)k * wl->keys.size;
    c->quota = client_quota(p, id);
    c->nlanes = nlanes;
    c->lanes = s->lanes + (size_t)k * nlanes;
    c->key_id = p->shared_keys ? 0 : p->key_id_base + id;
    window_init(&c->win, wl);
    if (wl->bounds) { /* one range for all: each client walks it from a place of its own */
        c->key_id = 0;
        window_start(&c->win, wl, client_range_start(p, wl, id));
    }
    key_layout_first(&wl->keys, c->key_id, c->key);
    client_plan_preload(c, p, wl);
    if (wl->track_slots) {
        c->slots = calloc(wl->win_size, sizeof(*c->slots));
        if (c->slots == NULL) {
            return SLAP_ERROR;
        }
        prefault(c->slots, wl->win_size * sizeof(*c->slots));
    }
    for (uint32_t i = 0; i < nlanes; i++) {
        if (lane_init(&c->lanes[i], c, s, (size_t)k * nlanes + i) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return client_map_slots(c, p);
}

void client_free(struct client *c)
{
    for (uint32_t i = 0; c->lanes != NULL && i < c->nlanes; i++) {
        struct lane *l = &c->lanes[i];
        for (uint32_t s = 0; l->conns != NULL && s < l->nconns; s++) {
            conn_free(&l->conns[s]);
        }
        if (l->timer != NULL && event_initialized(l->timer)) {
            event_del(l->timer);
        }
        free(l->timer);
        l->timer = NULL;
    }
    free(c->slot_server);
    free(c->slots);
}

/* ---- what to send --------------------------------------------------------------------- */

static bool lane_may_issue(const struct lane *l)
{
    const struct client *c = l->client;
    if (c->stopped) {
        return false;
    }
    switch (c->env->phase) {
    case WORKER_PRELOADING:
        return c->preload_left > 0;
    case WORKER_WARMING:
    case WORKER_MEASURING:
        return l->ring != NULL ? replay_ring_peek(l->ring) != NULL : c->quota > 0;
    default:
        return false;
    }
}

/* --trace: the lane has nothing to send now, but the trace may bring it more. */
static bool lane_awaits_trace(const struct lane *l)
{
    enum worker_phase phase = l->client->env->phase;
    return l->ring != NULL && !l->client->stopped &&
           (phase == WORKER_WARMING || phase == WORKER_MEASURING) &&
           !atomic_load(l->client->env->params->replay_done);
}

/* The lane has nothing left to do: tell the worker, once. */
void lane_check_done(struct lane *l)
{
    if (!l->done && l->in_flight == 0 && !lane_may_issue(l) && !lane_awaits_trace(l)) {
        l->done = true;
        lane_env_of(l)->ops->idle(lane_env_of(l)->owner);
    }
}

static bool chance(struct lane_env *env, uint32_t ppm)
{
    return ppm > 0 && rng_below(&env->rng, WORKLOAD_PPM) < ppm;
}

/* The server of a slot's key (gets; sets without -p). */
static uint32_t server_of_many(const struct client *c, uint64_t slot, uint32_t key_len)
{
    const struct lane_params *p = c->env->params;
    if (p->rep_write > 0) {
        return (uint32_t)(rng_mix(c->key_id, slot, 0x726570) % p->rep_write);
    }
    if (c->slot_server != NULL) {
        return c->slot_server[slot];
    }
    key_layout_slot(&p->wl->keys, c->key, slot);
    return servers_pick(p->servers, c->key, key_len);
}

/* One server: no call (a multi-get asks this for each of its keys). */
static inline uint32_t server_of(const struct client *c, uint64_t slot, uint32_t key_len)
{
    return c->env->params->servers->count <= 1 ? 0 : server_of_many(c, slot, key_len);
}

static struct request *queue_on(struct lane *l, uint32_t server, enum op_type op)
{
    const struct lane_params *p = l->client->env->params;
    if (op_class(op) == OP_CLASS_RETRIEVAL && p->facebook) {
        server += p->servers->count; /* -a: gets go over the UDP sockets */
    }
    struct request *r = conn_queue(&l->conns[server]);
    memset(r, 0, offsetof(struct request, hdr));
    r->op = (uint8_t)op;
    r->measured = l->client->env->phase == WORKER_MEASURING;
    r->held_ns = l->next_held_ns;
    l->in_flight++;
    return r;
}

/*
 * The slot a set or an add (op) writes: the window's walk (*fresh), or (-o, sets) a key already
 * set; by a law (--key_pattern), any key of the window once something is stored (the preload,
 * and a first set, walk).
 */
static uint64_t set_slot(struct client *c, const struct workload *wl, enum op_type op, bool *fresh)
{
    struct lane_env *env = c->env;
    *fresh = false;
    bool running = env->phase != WORKER_PRELOADING && window_can_get(&c->win);
    if (running && !(wl->walk_ops & op_bit(op))) {
        return window_pick(&c->win, wl, op, wl->win_size, &env->rng);
    }
    if (running && op == OP_SET && chance(env, wl->overwrite_ppm)) {
        return window_pick_get_slot(&c->win, &env->rng);
    }
    *fresh = c->win.filled < wl->win_size; /* a slot gets will not read before it is stored */
    return window_take_set_slot(&c->win, wl);
}

/* A key already stored (bounds: any of the range), by op's law: what gets and the commands on
 * existing keys act on. */
static uint64_t stored_slot(struct client *c, enum op_type op)
{
    return window_pick(&c->win, c->env->params->wl, op, c->win.filled, &c->env->rng);
}

/* A write of slot is about to go out (to one or more servers). */
static void slot_set_issued(struct client *c, uint64_t slot, uint32_t targets)
{
    if (c->slots != NULL) {
        struct slot_state *st = &c->slots[slot];
        st->ambiguous = st->pending > 0; /* another set of it is in flight */
        st->pending = (uint16_t)(st->pending + targets);
    }
}

/* The value a storage command of slot carries, version given. */
static void put_value(struct request *r, const struct client *c, uint64_t slot, uint32_t version)
{
    const struct workload *wl = c->env->params->wl;
    if (wl->fixed_values) {
        r->value = wl->value;
        r->value_len = wl->value_size;
    } else {
        r->value = workload_value(wl, c->key_id, slot, version);
        r->value_len = workload_value_len(wl, c->key_id, slot, version);
    }
    r->crlf = c->env->codec->set_crlf;
}

/* The slot a storage command writes, and whether it is fresh (not stored before). */
static uint64_t store_slot(struct client *c, enum op_type op, bool *fresh)
{
    if (op == OP_SET || op == OP_ADD) { /* add: the walk's next slot, absent until it wraps */
        return set_slot(c, c->env->params->wl, op, fresh);
    }
    *fresh = false;
    if (op == OP_CAS) {
        c->cas_ready = false;
        return c->cas_slot;
    }
    return stored_slot(c, op);
}

/* A TTL (seconds, 0: none) as memcached must read it: up to 30 days, seconds from now; longer,
 * memcached would take it for a Unix time, so it goes as the Unix time that far ahead. */
static uint32_t wire_exptime(const struct lane_env *env, uint32_t ttl)
{
    return ttl > CODEC_TTL_RELATIVE_MAX ? codec_exptime(env->codec, ttl, (uint64_t)time(NULL))
                                        : ttl;
}

/* A storage command of one slot, to its server or (-p, sets) to each of the first N. */
static void queue_store(struct lane *l, enum op_type op, uint64_t intended_ns)
{
    struct client *c = l->client;
    struct lane_env *env = c->env;
    const struct lane_params *p = env->params;
    const struct workload *wl = p->wl;
    bool fresh;
    uint64_t cas = c->cas_token;
    uint64_t slot = store_slot(c, op, &fresh);
    uint32_t key_len = key_layout_len(&wl->keys, c->key_id, slot);
    uint32_t version = c->slots != NULL ? ++c->slots[slot].version : 0;
    bool preloading = env->phase == WORKER_PRELOADING;
    uint32_t ttl = !preloading && chance(env, wl->expire_ppm) ? wl->exp_time_s : 0;
    uint32_t exptime = wire_exptime(env, ttl);
    uint32_t first = server_of(c, slot, key_len), count = 1;
    if (p->rep_write > 0 && op == OP_SET) {
        first = 0;
        count = p->rep_write;
    }
    key_layout_slot(&wl->keys, c->key, slot);
    slot_set_issued(c, slot, count);
    for (uint32_t s = first; s < first + count; s++) {
        struct request *r = queue_on(l, s, op);
        r->intended_ns = intended_ns;
        r->fresh = fresh;
        r->slot = slot;
        r->key_len = (uint8_t)key_len;
        r->version = version;
        r->exptime = ttl;
        put_value(r, c, slot, version);
        r->hdr_len = (uint32_t)env->codec->encode_store(r->hdr, env->hdr_cap, op, c->key, key_len,
                                                        0, exptime, r->value_len, cas);
    }
}

/* Counter key i of the client, into key; returns its length. */
static uint32_t counter_key(struct client *c, uint32_t i, char *key)
{
    const struct key_layout *k = &c->env->params->wl->keys;
    key_layout_counter(k, c->key, i, key);
    return key_layout_len(k, c->key_id, i);
}

/* The server of a key not in the window (counters). */
static uint32_t server_of_key(const struct client *c, const char *key, uint32_t key_len)
{
    const struct lane_params *p = c->env->params;
    return p->servers->count <= 1 ? 0 : servers_pick(p->servers, key, key_len);
}

/* Preload: store counter i with its start value, so that incr and decr count. */
static void queue_counter_set(struct lane *l, uint32_t i)
{
    struct client *c = l->client;
    struct lane_env *env = c->env;
    char *key = env->multiget.keys;
    uint32_t key_len = counter_key(c, i, key);
    struct request *r = queue_on(l, server_of_key(c, key, key_len), OP_SET);
    r->slot = i;
    r->key_len = (uint8_t)key_len;
    r->value = CLIENT_COUNTER_START;
    r->value_len = sizeof(CLIENT_COUNTER_START) - 1;
    r->crlf = env->codec->set_crlf;
    r->hdr_len = (uint32_t)env->codec->encode_store(r->hdr, env->hdr_cap, OP_SET, key, key_len, 0,
                                                    0, r->value_len, 0);
}

/* delete, touch (a stored key); incr, decr (a counter key). */
static void queue_command(struct lane *l, enum op_type op, uint64_t intended_ns)
{
    struct client *c = l->client;
    struct lane_env *env = c->env;
    const struct workload *wl = env->params->wl;
    char *key = c->key;
    uint64_t slot, arg = 1;
    uint32_t key_len, server;
    if (op_is_arithmetic(op)) {
        slot = window_pick(&c->win, wl, op, CLIENT_COUNTERS, &env->rng);
        key = env->multiget.keys;
        key_len = counter_key(c, (uint32_t)slot, key);
        server = server_of_key(c, key, key_len);
    } else {
        slot = stored_slot(c, op);
        key_len = key_layout_len(&wl->keys, c->key_id, slot);
        server = server_of(c, slot, key_len);
        key_layout_slot(&wl->keys, key, slot);
        arg = wl->expire_ppm > 0 ? wl->exp_time_s : 0; /* touch: -e's expiry, else none */
        slot_set_issued(c, slot, op == OP_DELETE ? 1 : 0);
    }
    struct request *r = queue_on(l, server, op);
    r->intended_ns = intended_ns;
    r->slot = slot;
    r->exptime = (uint32_t)arg;
    arg = op == OP_TOUCH ? wire_exptime(env, (uint32_t)arg) : arg;
    r->hdr_len = (uint32_t)env->codec->encode_command(r->hdr, env->hdr_cap, op, key, key_len, arg);
}

/* Pick the keys of a get (-d of them) by key_op's law (or the whole window), and their servers. */
static uint32_t pick_keys(struct client *c, const struct workload *wl, enum op_type key_op)
{
    struct lane_env *env = c->env;
    struct multiget_scratch *pick = &env->multiget;
    uint32_t n = wl->division;
    bool whole = env->params->multiget_window; /* memslap's mget: every key, in order */
    for (uint32_t i = 0; i < n; i++) {
        uint64_t slot = whole ? i : stored_slot(c, key_op);
        uint32_t len = key_layout_len(&wl->keys, c->key_id, slot);
        key_layout_copy_slot(&wl->keys, c->key, slot, pick->keys + (size_t)i * wl->keys.size);
        pick->slots[i] = slot;
        pick->lens[i] = len;
        pick->servers[i] = server_of(c, slot, len);
    }
    return n;
}

/* The expiry a gat sets: -e's, else none. */
static uint32_t touch_exptime(const struct workload *wl)
{
    return wl->expire_ppm > 0 ? wl->exp_time_s : 0;
}

/* A single get, gets or gat, encoded straight from the client's key (key_op's law). */
static void queue_single_get(struct lane *l, enum op_type op, enum op_type key_op,
                             uint64_t intended_ns, bool verify)
{
    struct client *c = l->client;
    struct lane_env *env = c->env;
    const struct workload *wl = env->params->wl;
    uint64_t slot = stored_slot(c, key_op);
    uint32_t len = key_layout_len(&wl->keys, c->key_id, slot);
    uint32_t server = server_of(c, slot, len);
    struct request *r = queue_on(l, server, op);
    key_layout_slot(&wl->keys, c->key, slot);
    r->intended_ns = intended_ns;
    r->nkeys = 1;
    r->slot = slot;
    r->verify = verify;
    r->exptime = op == OP_GAT ? touch_exptime(wl) : 0;
    r->hdr_len = (uint32_t)env->codec->encode_retrieve(r->hdr, env->hdr_cap, op, c->key, 0, &len, 1,
                                                       wire_exptime(env, r->exptime));
}

/* Do all n keys belong to the same server? */
static bool one_server(const uint32_t *servers, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {
        if (servers[i] != servers[0]) {
            return false;
        }
    }
    return true;
}

/* One retrieval of nkeys keys (keys.size apart in keys) to server; slot is its first key's. */
static void queue_get_keys(struct lane *l, uint32_t server, enum op_type op, uint64_t intended_ns,
                           bool verify, const char *keys, const uint32_t *lens, uint32_t nkeys,
                           uint64_t slot)
{
    struct lane_env *env = l->client->env;
    const struct workload *wl = env->params->wl;
    struct request *r = queue_on(l, server, op);
    r->intended_ns = intended_ns;
    r->nkeys = nkeys;
    r->slot = slot;
    r->verify = verify;
    r->exptime = op == OP_GAT ? touch_exptime(wl) : 0;
    r->hdr_len = (uint32_t)env->codec->encode_retrieve(
        r->hdr, env->hdr_cap, op, keys, wl->keys.size, lens, nkeys, wire_exptime(env, r->exptime));
}

/* A get, gets or gat of -d keys, by key_op's law (a cas's gets: the cas's): one request per
 * server its keys belong to. */
static void queue_get(struct lane *l, enum op_type op, enum op_type key_op, uint64_t intended_ns)
{
    struct client *c = l->client;
    struct lane_env *env = c->env;
    struct multiget_scratch *pick = &env->multiget;
    const struct workload *wl = env->params->wl;
    bool verify = op == OP_GET && chance(env, wl->verify_ppm);
    if (wl->division == 1) {
        queue_single_get(l, op, key_op, intended_ns, verify);
        return;
    }
    uint32_t n = pick_keys(c, wl, key_op);
    if (one_server(pick->servers, n)) { /* the keys as picked: no regrouping copy */
        queue_get_keys(l, pick->servers[0], op, intended_ns, verify, pick->keys, pick->lens, n,
                       pick->slots[0]);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t server = pick->servers[i];
        if (server == UINT32_MAX) {
            continue; /* already in an earlier request */
        }
        uint32_t nkeys = 0;
        for (uint32_t j = i; j < n; j++) { /* gather this server's keys, in order */
            if (pick->servers[j] == server) {
                memcpy(pick->group_keys + (size_t)nkeys * wl->keys.size,
                       pick->keys + (size_t)j * wl->keys.size, wl->keys.size);
                pick->group_lens[nkeys++] = pick->lens[j];
                pick->servers[j] = UINT32_MAX;
            }
        }
        queue_get_keys(l, server, op, intended_ns, verify, pick->group_keys, pick->group_lens,
                       nkeys, pick->slots[i]);
    }
}

/*
 * The next operation by the mix (and the -d keys a get stands for); sets only in a preload.
 * One that needs a stored key when nothing is stored yet is a set; a cas with no token from
 * a gets is that gets, its key drawn by the cas's law (*key_op: the op whose law picks the key).
 */
enum op_type client_next_op(struct client *c, enum op_type *key_op)
{
    const struct workload *wl = c->env->params->wl;
    *key_op = OP_SET;
    if (c->env->phase == WORKER_PRELOADING) {
        return OP_SET;
    }
    enum op_type op = window_next_op(&c->win, wl);
    if (op_needs_stored_key(op) && !window_can_get(&c->win)) {
        return OP_SET; /* nothing of this run to read yet */
    }
    *key_op = op;
    if (op == OP_CAS && !c->cas_ready) {
        op = OP_GETS;
    }
    if (wl->division > 1 && op_class(op) == OP_CLASS_RETRIEVAL) {
        window_more_gets(&c->win, wl, wl->division - 1);
    }
    return op;
}

/* One more request of the run was issued (or was due and could not be). */
static void client_count_issue(struct client *c)
{
    enum worker_phase phase = c->env->phase;
    if (phase == WORKER_PRELOADING) {
        c->preload_left--;
    } else if (c->quota != UINT64_MAX && phase == WORKER_MEASURING) {
        c->quota--;
    }
}

/* --trace: a key's 64-bit FNV-1a hash, which stands for it where a window slot would. */
static uint64_t trace_key_id(const char *key, uint32_t len)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (uint32_t i = 0; i < len; i++) {
        h = (h ^ (uint8_t)key[i]) * 0x100000001b3ULL;
    }
    return h;
}

/* --trace: one request of the trace, its key as given, its value of the trace's size. */
static void queue_trace(struct lane *l, const struct trace_request *t, uint64_t intended_ns)
{
    struct client *c = l->client;
    struct lane_env *env = c->env;
    const struct workload *wl = env->params->wl;
    uint32_t len = t->key_len;
    struct request *r = queue_on(l, server_of_key(c, t->key, len), t->op);
    r->intended_ns = intended_ns;
    r->exptime = t->ttl;
    uint32_t exptime = wire_exptime(env, t->ttl); /* a TTL past the protocol's field: its last */
    if (r->measured) {
        trace_progress_add(&env->trace_sent, t);
    }
    r->slot = trace_key_id(t->key, len); /* a gets answer leaves its token for this key */
    if (op_class(t->op) == OP_CLASS_RETRIEVAL) {
        r->nkeys = 1;
        r->hdr_len = (uint32_t)env->codec->encode_retrieve(r->hdr, env->hdr_cap, t->op, t->key, 0,
                                                           &len, 1, exptime);
    } else if (op_class(t->op) == OP_CLASS_STORAGE) {
        /* A trace has no tokens: a cas uses the one of the client's latest gets of its key,
         * or one that memcached never hands out (0 would mean "no cas" in binary and meta). */
        bool token = t->op == OP_CAS && c->cas_ready && c->cas_slot == r->slot;
        r->key_len = (uint8_t)len;
        r->value = workload_trace_value(wl, t->value_size);
        r->value_len = t->value_size;
        r->crlf = env->codec->set_crlf;
        r->hdr_len = (uint32_t)env->codec->encode_store(r->hdr, env->hdr_cap, t->op, t->key, len, 0,
                                                        exptime, r->value_len,
                                                        token ? c->cas_token : CLIENT_CAS_NONE);
    } else {
        uint64_t arg = op_is_arithmetic(t->op) ? 1 : exptime;
        r->hdr_len =
            (uint32_t)env->codec->encode_command(r->hdr, env->hdr_cap, t->op, t->key, len, arg);
    }
}

static void lane_arm(struct lane *l, uint64_t after_ns);

/*
 * Open loop, --trace: how long the server held a request due at intended_ns that goes now. A
 * lane full since held_since_ns held it from then (or from its time, if later) until the
 * answer that gave it room would have come on schedule (freed_ns); what it waited before the
 * lane filled or after that is slap's own lateness.
 */
static uint64_t lane_held_for(const struct lane *l, uint64_t intended_ns)
{
    if (l->held_since_ns == 0 || l->freed_ns == 0 || intended_ns >= l->freed_ns) {
        return 0;
    }
    uint64_t from = intended_ns > l->held_since_ns ? intended_ns : l->held_since_ns;
    return l->freed_ns > from ? l->freed_ns - from : 0;
}

/* --trace: send the lane's requests of the trace, each at its time (scaled by --trace-speed)
 * or, at speed max, as soon as the lane has room. */
static void lane_pump_trace(struct lane *l)
{
    const struct lane_params *p = lane_env_of(l)->params;
    double speed = p->trace_speed;
    uint64_t now = 0;
    while (l->in_flight < p->pipeline && lane_may_issue(l)) {
        const struct trace_request *t = replay_ring_peek(l->ring);
        uint64_t intended =
            speed > 0 ? trace_due_ns(lane_env_of(l)->start_ns, t->offset_ns, speed) : UINT64_MAX;
        if (now == 0 || intended > now) {
            now = slap_now_ns();
        }
        if (speed == 0) {
            intended = now;
        } else if (intended > now) {
            /* look again within the hour: a request due centuries ahead never comes */
            lane_arm(l, intended - now < LANE_TRACE_WAIT_MAX_NS ? intended - now
                                                                : LANE_TRACE_WAIT_MAX_NS);
            break;
        }
        l->next_held_ns = speed > 0 ? lane_held_for(l, intended) : 0;
        queue_trace(l, t, intended);
        replay_ring_pop(l->ring);
    }
}

/* Choose the next operation and queue it on the sockets of its keys' servers. */
static void lane_queue(struct lane *l, uint64_t intended_ns)
{
    struct client *c = l->client;
    enum op_type key_op;
    enum op_type op = client_next_op(c, &key_op);
    if (c->env->phase == WORKER_PRELOADING && c->counters_left > 0) {
        queue_counter_set(l, CLIENT_COUNTERS - c->counters_left--);
    } else if (op_class(op) == OP_CLASS_RETRIEVAL) {
        queue_get(l, op, key_op, intended_ns);
    } else if (op_class(op) == OP_CLASS_STORAGE) {
        queue_store(l, op, intended_ns);
    } else {
        queue_command(l, op, intended_ns);
    }
    client_count_issue(c);
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
    if (l->timer_armed || l->timer == NULL) {
        return; /* already set for an earlier (or the same) time */
    }
    if (!event_initialized(l->timer)) {
        event_assign(l->timer, lane_env_of(l)->base, -1, 0, on_lane_timer, l);
    }
    struct timeval tv = slap_ns_to_timeval(after_ns);
    event_add(l->timer, &tv);
    l->timer_armed = true;
}

/*
 * Open loop, --trace: whether the lane is left full (a request due now cannot go until the
 * server answers). A stretch of fullness begins when the lane fills and lasts while each
 * answer is followed at once by the next due request; it ends when the lane is left with room.
 */
static void lane_note_held(struct lane *l)
{
    if (l->in_flight < lane_env_of(l)->params->pipeline) {
        l->held_since_ns = 0;
    } else if (l->held_since_ns == 0) {
        l->held_since_ns = slap_now_ns();
    }
}

void lane_retarget(struct lane *l, uint64_t at_ns, double total_rate)
{
    schedule_retarget(&l->sched, at_ns, total_rate);
    if (l->timer_armed) {
        event_del(l->timer);
        l->timer_armed = false;
    }
}

/*
 * Closed loop, a request is meant to go when it is queued; open loop, at its time in the
 * lane's schedule. Either way its latency counts from then, also while it waits behind a
 * full pipeline, a blocked write or a reconnect.
 */
void lane_pump(struct lane *l)
{
    const struct lane_params *p = lane_env_of(l)->params;
    uint32_t depth = p->pipeline;
    bool open_loop = p->tps > 0 && lane_env_of(l)->phase != WORKER_PRELOADING;
    uint64_t now = 0;
    if (l->ring != NULL && lane_env_of(l)->phase != WORKER_PRELOADING) {
        lane_pump_trace(l);
        depth = 0; /* what is queued goes out below */
    }
    if (lane_env_of(l)->paused && !open_loop) {
        depth = 0; /* --control paused a closed loop */
    }
    while (l->in_flight < depth && lane_may_issue(l)) {
        uint64_t intended = open_loop ? schedule_peek(&l->sched) : UINT64_MAX;
        if (intended == UINT64_MAX && open_loop) {
            break; /* --control paused the schedule: nothing is due until it resumes */
        }
        if (now == 0 || intended > now) {
            now = slap_now_ns();
        }
        if (!open_loop) {
            intended = now;
        } else if (intended > now) {
            lane_arm(l, intended - now);
            break;
        } else {
            schedule_advance(&l->sched);
            l->next_held_ns = lane_held_for(l, intended);
        }
        lane_queue(l, intended);
    }
    l->next_held_ns = 0;
    l->freed_ns = 0;
    for (uint32_t s = 0; s < l->nconns; s++) {
        if (l->conns[s].dirty) {
            conn_flush(&l->conns[s]);
        }
    }
    if (open_loop || l->ring != NULL) {
        lane_note_held(l);
    }
    lane_check_done(l);
}
