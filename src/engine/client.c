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
 */
#include "slap/engine/client.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CLIENT_SLOT_TABLE_MAX (64ULL * 1024 * 1024) /* bytes of slot-to-server tables, all clients */
#define CLIENT_PAGE 4096
#define LANE_UNSENT_EXACT 256 /* unsent requests a lane counts one by one; the rest in bulk */
#define LANE_UNSENT_SLICES 64 /* the bulk's latencies: this many equal slices of their span */
#define LANE_TRACE_WAIT_MAX_NS (3600 * SLAP_NS_PER_SEC) /* longest a trace lane sleeps at once */

static struct lane_env *lane_env_of(const struct lane *l)
{
    return l->client->env;
}

/* Tell the worker of a problem (it says each kind once per server). */
static void lane_warn(struct lane_env *env, const char *what, uint32_t server, const char *detail,
                      size_t detail_len)
{
    env->ops->warn(env->owner, what, server, detail, detail_len);
}

/* ---- construction --------------------------------------------------------------------- */

uint32_t client_lane_sockets(const struct lane_params *p)
{
    return p->servers->count * (p->facebook ? 2 : 1);
}

size_t client_udp_answer_cap(const struct workload *wl)
{
    size_t bytes = (size_t)wl->division * ((size_t)wl->value_size + wl->key_size + 64) + 64;
    return (bytes / (UDP_MAX_DATAGRAM - UDP_HEADER) + 2) * UDP_MAX_DATAGRAM;
}

enum slap_status client_scratch_init(struct multiget_scratch *s, const struct workload *wl)
{
    s->slots = calloc(wl->division, sizeof(*s->slots));
    s->servers = calloc(wl->division, sizeof(*s->servers));
    s->lens = calloc(wl->division, sizeof(*s->lens));
    s->keys = malloc((size_t)wl->division * wl->key_size);
    s->group_keys = malloc((size_t)wl->division * wl->key_size);
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
        workload_key_slot(c->key, slot);
        c->slot_server[slot] =
            (uint16_t)servers_pick(p->servers, c->key, workload_key_len(wl, c->key_id, slot));
    }
    return SLAP_OK;
}

static const char *lane_value_begin(void *ctx, const char *key, size_t key_len, uint64_t bytes,
                                    uint64_t *expect_len);
static void lane_value_end(void *ctx, int equal, uint64_t first_diff);

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
    c->preload_left += wl->win_size;
}

enum slap_status client_init(struct client *c, struct lane_env *env, const struct lane_slabs *s,
                             uint32_t id, uint32_t k)
{
    const struct lane_params *p = env->params;
    const struct workload *wl = p->wl;
    uint32_t nlanes = p->conns_per_client;

    c->env = env;
    c->id = id;
    c->key = s->keys + (size_t)k * wl->key_size;
    c->quota = client_quota(p, id);
    c->nlanes = nlanes;
    c->lanes = s->lanes + (size_t)k * nlanes;
    c->key_id = p->shared_keys ? 0 : id;
    window_init(&c->win, wl);
    workload_key_init(wl, c->key_id, c->key);
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
static void lane_check_done(struct lane *l)
{
    if (!l->done && l->in_flight == 0 && !lane_may_issue(l) && !lane_awaits_trace(l)) {
        l->done = true;
        lane_env_of(l)->ops->idle(lane_env_of(l)->owner);
    }
}

static uint32_t ms_since_start(const struct lane_env *env, uint64_t now_ns)
{
    return (uint32_t)((now_ns - env->run_start_ns) / SLAP_NS_PER_MS);
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
    workload_key_slot(c->key, slot);
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
    l->in_flight++;
    return r;
}

/* The slot a set writes: the window's walk (*fresh), or (-o) a key already set. */
static uint64_t set_slot(struct client *c, const struct workload *wl, bool *fresh)
{
    struct lane_env *env = c->env;
    *fresh = false;
    if (env->phase != WORKER_PRELOADING && window_can_get(&c->win) &&
        chance(env, wl->overwrite_ppm)) {
        return window_pick_get_slot(&c->win, &env->rng);
    }
    *fresh = c->win.filled < wl->win_size; /* a slot gets will not read before it is stored */
    return window_take_set_slot(&c->win, wl);
}

/* A key already stored, by --key_dist: what gets and the commands on existing keys act on. */
static uint64_t stored_slot(struct client *c)
{
    return key_dist_pick(&c->env->params->key_pop, c->win.filled, &c->env->rng);
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
    const struct workload *wl = c->env->params->wl;
    if (op == OP_SET) {
        return set_slot(c, wl, fresh);
    }
    if (op == OP_ADD) { /* the walk's next slot: absent until the window wraps */
        *fresh = c->win.filled < wl->win_size;
        return window_take_set_slot(&c->win, wl);
    }
    *fresh = false;
    if (op == OP_CAS) {
        c->cas_ready = false;
        return c->cas_slot;
    }
    return stored_slot(c);
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
    uint32_t key_len = workload_key_len(wl, c->key_id, slot);
    uint32_t version = c->slots != NULL ? ++c->slots[slot].version : 0;
    bool preloading = env->phase == WORKER_PRELOADING;
    uint32_t ttl = !preloading && chance(env, wl->expire_ppm) ? wl->exp_time_s : 0;
    uint32_t exptime = wire_exptime(env, ttl);
    uint32_t first = server_of(c, slot, key_len), count = 1;
    if (p->rep_write > 0 && op == OP_SET) {
        first = 0;
        count = p->rep_write;
    }
    workload_key_slot(c->key, slot);
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

/* Counter key i of the client: its key with '#' where window keys have '.'. */
static uint32_t counter_key(struct client *c, uint32_t i, char *key)
{
    const struct workload *wl = c->env->params->wl;
    memcpy(key, c->key, wl->key_size);
    workload_key_slot(key, i);
    key[WORKLOAD_KEY_MARK] = '#';
    return workload_key_len(wl, c->key_id, i);
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
        slot = rng_below(&env->rng, CLIENT_COUNTERS);
        key = env->multiget.keys;
        key_len = counter_key(c, (uint32_t)slot, key);
        server = server_of_key(c, key, key_len);
    } else {
        slot = stored_slot(c);
        key_len = workload_key_len(wl, c->key_id, slot);
        server = server_of(c, slot, key_len);
        workload_key_slot(key, slot);
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

/* Pick the keys of a get (-d of them) with --key_dist (or the whole window), and their servers. */
static uint32_t pick_keys(struct client *c, const struct workload *wl)
{
    struct lane_env *env = c->env;
    struct multiget_scratch *pick = &env->multiget;
    uint32_t n = wl->division;
    bool whole = env->params->multiget_window; /* memslap's mget: every key, in order */
    for (uint32_t i = 0; i < n; i++) {
        uint64_t slot = whole ? i : stored_slot(c);
        uint32_t len = workload_key_len(wl, c->key_id, slot);
        char *key = pick->keys + (size_t)i * wl->key_size;
        memcpy(key, c->key, wl->key_size);
        workload_key_slot(key, slot);
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

/* A single get, gets or gat, encoded straight from the client's key. */
static void queue_single_get(struct lane *l, enum op_type op, uint64_t intended_ns, bool verify)
{
    struct client *c = l->client;
    struct lane_env *env = c->env;
    const struct workload *wl = env->params->wl;
    uint64_t slot = stored_slot(c);
    uint32_t len = workload_key_len(wl, c->key_id, slot);
    uint32_t server = server_of(c, slot, len);
    struct request *r = queue_on(l, server, op);
    workload_key_slot(c->key, slot);
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

/* One retrieval of nkeys keys (key_size apart in keys) to server; slot is its first key's. */
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
    r->hdr_len = (uint32_t)env->codec->encode_retrieve(r->hdr, env->hdr_cap, op, keys, wl->key_size,
                                                       lens, nkeys, wire_exptime(env, r->exptime));
}

/* A get, gets or gat of -d keys: one request per server its keys belong to. */
static void queue_get(struct lane *l, enum op_type op, uint64_t intended_ns)
{
    struct client *c = l->client;
    struct lane_env *env = c->env;
    struct multiget_scratch *pick = &env->multiget;
    const struct workload *wl = env->params->wl;
    bool verify = op == OP_GET && chance(env, wl->verify_ppm);
    if (wl->division == 1) {
        queue_single_get(l, op, intended_ns, verify);
        return;
    }
    uint32_t n = pick_keys(c, wl);
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
                memcpy(pick->group_keys + (size_t)nkeys * wl->key_size,
                       pick->keys + (size_t)j * wl->key_size, wl->key_size);
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
 * a gets is that gets.
 */
static enum op_type client_next_op(struct client *c)
{
    const struct workload *wl = c->env->params->wl;
    if (c->env->phase == WORKER_PRELOADING) {
        return OP_SET;
    }
    enum op_type op = window_next_op(&c->win, wl);
    if (op_needs_stored_key(op) && !window_can_get(&c->win)) {
        return OP_SET; /* nothing of this run to read yet */
    }
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
        queue_trace(l, t, intended);
        replay_ring_pop(l->ring);
    }
}

/* Choose the next operation and queue it on the sockets of its keys' servers. */
static void lane_queue(struct lane *l, uint64_t intended_ns)
{
    struct client *c = l->client;
    enum op_type op = client_next_op(c);
    if (c->env->phase == WORKER_PRELOADING && c->counters_left > 0) {
        queue_counter_set(l, CLIENT_COUNTERS - c->counters_left--);
    } else if (op_class(op) == OP_CLASS_RETRIEVAL) {
        queue_get(l, op, intended_ns);
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
    while (l->in_flight < depth && lane_may_issue(l)) {
        uint64_t intended = open_loop ? schedule_peek(&l->sched) : UINT64_MAX;
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
        }
        lane_queue(l, intended);
    }
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

/* The one place that decides where the answer to r counts: the period's counters, or
 * (warm-up, preload) a set that is never reported. */
static struct slap_counters *answer_counters(struct lane_env *env, const struct request *r)
{
    return r->measured ? &env->cur.counters : &env->uncounted;
}

/*
 * A request of type op, meant to go at intended_ns, will never be answered: it counts as
 * unanswered, and in the latency from its intended time to at_ns, a lower bound of the wait
 * it would have had. sent_ns is 0 if it never left.
 */
static void count_unanswered(struct lane_env *env, uint8_t op, uint64_t intended_ns,
                             uint64_t sent_ns, uint64_t at_ns)
{
    struct slap_stats *s = &env->cur;
    uint64_t latency = at_ns > intended_ns ? at_ns - intended_ns : 0;
    s->counters.unanswered++;
    s->counters.unsent += sent_ns == 0;
    hist_record(s->lat[op], latency);
    samples_put(&env->samples, &(struct sample){intended_ns, sent_ns, latency, op,
                                                sent_ns == 0 ? SAMPLE_UNSENT : SAMPLE_UNANSWERED});
    if (s->raw[op] != NULL && sent_ns != 0) {
        hist_record(s->raw[op], at_ns > sent_ns ? at_ns - sent_ns : 0);
    }
}

/* Requests 0 .. n - 1 of c will not be answered: count the measured ones, then forget them. */
static uint32_t forget(struct lane *l, struct conn *c, uint32_t n, uint64_t at_ns)
{
    struct lane_env *env = lane_env_of(l);
    for (uint32_t i = 0; i < n; i++) {
        const struct request *r = conn_at(c, i);
        if (r->measured) {
            count_unanswered(env, r->op, r->intended_ns, r->sent_ns, at_ns);
        }
    }
    uint32_t dropped = n == c->count ? conn_drop_all(c) : conn_drop_sent(c);
    l->in_flight -= dropped;
    return dropped;
}

void lane_give_up(struct lane *l, uint64_t end_ns)
{
    for (uint32_t s = 0; s < l->nconns; s++) {
        forget(l, &l->conns[s], l->conns[s].count, end_ns);
    }
    lane_check_done(l);
}

/*
 * Of a lane's requests due by end_ns and never sent, those due from held_from_ns on waited
 * for the server; the others are slap's lag. lag counts them as they come, oldest first.
 */
struct lane_lag {
    uint64_t held_from_ns; /* known once the first unsent request is */
    uint64_t unsent;
    uint64_t lag;
};

/*
 * The old rule, for a lane whose fullness may be slap's (its thread starved of CPU, or the
 * lane not full now): its oldest request still unanswered had waited at least half as long
 * as the first unsent one had been due (a request sent late, just before the end, by a slap
 * short of CPU, is not that).
 */
static bool lane_waited_long(const struct lane *l, uint64_t first_due_ns, uint64_t end_ns)
{
    uint64_t due_for = end_ns > first_due_ns ? end_ns - first_due_ns : 0;
    for (uint32_t s = 0; s < l->nconns; s++) {
        uint64_t since;
        if (conn_waiting_since(&l->conns[s], &since) &&
            (since <= first_due_ns || (end_ns > since && end_ns - since >= due_for / 2))) {
            return true;
        }
    }
    return false;
}

/*
 * From when the lane's unsent requests waited for the server (0: all did, UINT64_MAX: none).
 * A socket not open (lost, reconnecting) holds them all. A lane full at the end, each answer
 * followed at once by the next due request, held those due since it filled: they could not
 * go before the server answered; those due before, while the lane had room, are slap's lag.
 * A thread starved of CPU may itself have left the answers unread: then the old rule.
 */
static uint64_t lane_held_from(const struct lane *l, uint64_t first_due_ns, uint64_t end_ns)
{
    for (uint32_t s = 0; s < l->nconns; s++) {
        if (l->conns[s].state != CONN_READY) {
            return 0;
        }
    }
    if (!lane_env_of(l)->cpu_starved && l->held_since_ns != 0) {
        return l->held_since_ns;
    }
    return lane_waited_long(l, first_due_ns, end_ns) ? 0 : UINT64_MAX;
}

/* One more request of the lane, due at due_ns, was never sent. */
static void lane_lag_add(const struct lane *l, struct lane_lag *g, uint64_t due_ns, uint64_t end_ns)
{
    if (g->unsent++ == 0) {
        g->held_from_ns = lane_held_from(l, due_ns, end_ns);
    }
    g->lag += due_ns < g->held_from_ns;
}

/* --trace: the lane's requests of the trace that were due by end_ns but never left. */
static void lane_count_unsent_trace(struct lane *l, uint64_t from_ns, uint64_t end_ns,
                                    struct lane_lag *g)
{
    const struct lane_params *p = lane_env_of(l)->params;
    const struct trace_request *t;
    while (p->trace_speed > 0 && (t = replay_ring_peek(l->ring)) != NULL) {
        uint64_t due = trace_due_ns(lane_env_of(l)->start_ns, t->offset_ns, p->trace_speed);
        if (due >= end_ns) {
            break;
        }
        if (due >= from_ns) {
            count_unanswered(lane_env_of(l), (uint8_t)t->op, due, 0, end_ns);
            lane_lag_add(l, g, due, end_ns);
        }
        replay_ring_pop(l->ring);
    }
}

/* n unsent requests of op, due evenly from first_due_ns to end_ns: counted, their latencies
 * (end_ns - due) in LANE_UNSENT_SLICES slices, their samples as dropped (none is kept). */
static void count_unsent_bulk(struct lane_env *env, uint8_t op, uint64_t n, uint64_t first_due_ns,
                              uint64_t end_ns)
{
    struct slap_stats *s = &env->cur;
    uint64_t span = end_ns > first_due_ns ? end_ns - first_due_ns : 0;
    s->counters.unanswered += n;
    s->counters.unsent += n;
    for (uint64_t j = 0; j < LANE_UNSENT_SLICES; j++) {
        uint64_t count = n * (j + 1) / LANE_UNSENT_SLICES - n * j / LANE_UNSENT_SLICES;
        double middle = ((double)j + 0.5) / LANE_UNSENT_SLICES;
        hist_record_n(s->lat[op], (uint64_t)((double)span * (1.0 - middle)), count);
    }
    if (env->samples.slots != NULL) {
        double share = env->samples.threshold == UINT64_MAX
                           ? 1.0
                           : (double)env->samples.threshold / 18446744073709551616.0;
        atomic_fetch_add_explicit(&env->samples.dropped, (uint64_t)((double)n * share + 0.5),
                                  memory_order_relaxed);
    }
}

/* The n requests after the first LANE_UNSENT_EXACT, from first_due_ns on: shared among the
 * operations by the mix (a retrieval, cas as gets while no token is held), in one step. */
static void lane_count_unsent_bulk(struct lane *l, uint64_t n, uint64_t first_due_ns,
                                   uint64_t end_ns)
{
    struct client *c = l->client;
    const struct workload *wl = c->env->params->wl;
    uint64_t left = n;
    for (uint32_t i = 0; i < wl->mix_nothers; i++) {
        enum op_type op = (enum op_type)wl->mix_others[i];
        uint64_t m = (uint64_t)((double)n * wl->mix_ppm[op] / WORKLOAD_PPM);
        m = m < left ? m : left;
        left -= m;
        op = op == OP_CAS && !c->cas_ready ? OP_GETS : op;
        count_unsent_bulk(c->env, (uint8_t)op, m, first_due_ns, end_ns);
    }
    count_unsent_bulk(c->env, (uint8_t)wl->mix_default, left, first_due_ns, end_ns);
}

/* n more, due evenly from first_due_ns to end_ns: those due before the lane was held are lag. */
static void lane_lag_bulk(const struct lane *l, struct lane_lag *g, uint64_t n,
                          uint64_t first_due_ns, uint64_t end_ns)
{
    if (g->unsent == 0) {
        g->held_from_ns = lane_held_from(l, first_due_ns, end_ns);
    }
    g->unsent += n;
    if (g->held_from_ns <= first_due_ns) {
        return;
    }
    if (g->held_from_ns >= end_ns) {
        g->lag += n;
        return;
    }
    g->lag += (uint64_t)((double)n * (double)(g->held_from_ns - first_due_ns) /
                         (double)(end_ns - first_due_ns));
}

/* Unsent requests of a lane are counted as unanswered; those slap was late with as lag. The
 * first LANE_UNSENT_EXACT one by one, the rest (a rate far past what was sent) in one step. */
void lane_count_unsent(struct lane *l, uint64_t from_ns, uint64_t end_ns)
{
    struct client *c = l->client;
    struct lane_lag g = {0};
    if (l->ring != NULL) {
        lane_count_unsent_trace(l, from_ns, end_ns, &g);
    } else if (c->env->params->tps > 0) {
        schedule_skip(&l->sched, from_ns < end_ns ? from_ns : end_ns, UINT64_MAX); /* not measured */
        while (c->quota > 0 && schedule_peek(&l->sched) < end_ns &&
               g.unsent < LANE_UNSENT_EXACT) {
            uint64_t due = schedule_peek(&l->sched);
            schedule_advance(&l->sched);
            enum op_type op = client_next_op(c);
            count_unanswered(c->env, (uint8_t)op, due, 0, end_ns);
            c->quota -= c->quota != UINT64_MAX;
            lane_lag_add(l, &g, due, end_ns);
        }
        uint64_t bulk_from = schedule_peek(&l->sched);
        uint64_t bulk = c->quota > 0 ? schedule_skip(&l->sched, end_ns, c->quota) : 0;
        if (bulk > 0) {
            lane_count_unsent_bulk(l, bulk, bulk_from, end_ns);
            c->quota -= c->quota != UINT64_MAX ? bulk : 0;
            lane_lag_bulk(l, &g, bulk, bulk_from, end_ns);
        }
    }
    c->env->cur.counters.client_lag += g.lag;
}

void lane_stop(struct lane *l, uint64_t end_ns)
{
    if (l->timer_armed) {
        event_del(l->timer);
        l->timer_armed = false;
    }
    for (uint32_t s = 0; s < l->nconns; s++) {
        struct conn *c = &l->conns[s];
        conn_retry_cancel(c);
        if (c->state != CONN_READY) {
            forget(l, c, c->count, end_ns); /* queued behind a reconnect: never answered */
        }
    }
    lane_check_done(l);
}

/* ---- what comes back ------------------------------------------------------------------ */

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
    if (st->pending > 0 || st->ambiguous || st->stored_version == 0 ||
        st->stored_ms >= sent_ms) {
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
    bool missing = res->reply == PROTO_REPLY_NOT_FOUND ||
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
static const char *lane_value_begin(void *ctx, const char *key, size_t key_len, uint64_t bytes,
                                    uint64_t *expect_len)
{
    struct conn *conn = ctx;
    struct client *c = ((struct lane *)conn->owner)->client;
    const struct workload *wl = c->env->params->wl;
    const struct request *r = conn_oldest(conn);
    uint64_t slot;
    (void)bytes;
    if (r == NULL || !r->verify || c->slots == NULL ||
        !workload_key_decode(key, key_len, c->key_id, &slot) || slot >= wl->win_size) {
        return NULL;
    }
    const struct slot_state *st = &c->slots[slot];
    uint32_t sent_ms = ms_since_start(c->env, r->sent_ns);
    if (st->pending > 0 || st->ambiguous || st->stored_version == 0 ||
        st->stored_ms >= sent_ms) {
        return NULL; /* a set of this key crossed the get */
    }
    *expect_len = workload_value_len(wl, c->key_id, slot, st->stored_version);
    c->env->verify_slot = slot;
    return workload_value(wl, c->key_id, slot, st->stored_version);
}

/* -v: the hook's end: count a value that differs, and show the first ones with -b. */
static void lane_value_end(void *ctx, int equal, uint64_t first_diff)
{
    struct conn *conn = ctx;
    struct client *c = ((struct lane *)conn->owner)->client;
    struct lane_env *env = c->env;
    if (equal) {
        return;
    }
    answer_counters(env, conn_oldest(conn))->verify_failed++;
    if (env->params->verbose && env->verbose_left > 0) {
        env->verbose_left--;
        fprintf(stderr,
                "slap: verify failed: %s: client %u slot %llu: value differs from "
                "byte %llu\n",
                conn->srv->name, c->id, (unsigned long long)env->verify_slot,
                (unsigned long long)first_diff);
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

static void record_latency(struct lane_env *env, const struct request *r,
                           const struct proto_result *res, uint64_t bytes, uint64_t now_ns)
{
    struct slap_stats *s = &env->cur;
    uint64_t latency = now_ns - r->intended_ns;
    hist_record(s->lat[r->op], latency);
    samples_put(&env->samples, &(struct sample){r->intended_ns, r->sent_ns, latency, r->op,
                                                sample_outcome(r, res)});
    if (s->raw[r->op] != NULL) {
        hist_record(s->raw[r->op], now_ns - r->sent_ns);
    }
    if (r->op == OP_GET) {
        hist_record(s->gets[res->hits > 0 ? STATS_HIT : STATS_MISS], latency);
    }
    s->net_bytes[r->op] += bytes;
    s->misses[r->op] += request_misses(r, res);
}

static void lane_closed(struct conn *c, const char *why);

static void lane_answered(struct conn *c, const struct request *r,
                          const struct proto_result *res, uint64_t now_ns)
{
    struct lane *l = c->owner;
    struct lane_env *env = lane_env_of(l);
    l->in_flight--;
    if (r->measured) {
        env->last_answer_ns = now_ns;
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
                       now_ns);
    } else {
        samples_put(&env->samples, &(struct sample){r->intended_ns, r->sent_ns,
                                                    now_ns - r->intended_ns, r->op, SAMPLE_ERROR});
        lane_warn(env, reply_name(res->reply), c->server, res->msg, res->msg_len);
    }
}

/* What was sent on c is lost; queued requests wait for a reconnect, or the client stops. */
static void lane_closed(struct conn *c, const char *why)
{
    struct lane *l = c->owner;
    struct lane_env *env = lane_env_of(l);
    uint64_t now = slap_now_ns();
    forget(l, c, conn_sent_count(c), now);
    env->cur.counters.conn_closed++;
    env->cur.counters.conn_refused += c->answers == 0;
    lane_warn(env, "connection lost", c->server, why, strlen(why));
    if (env->params->reconnect && env->phase != WORKER_STOPPING) {
        conn_retry_later(c);
    } else {
        forget(l, c, c->count, env->phase == WORKER_STOPPING ? env->end_ns : now);
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
        forget(l, c, c->count, env->end_ns);
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
        count_unanswered(lane_env_of(l), r->op, r->intended_ns, r->sent_ns, now_ns);
    }
    l->in_flight--;
}

static void lane_drained(struct conn *c)
{
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
