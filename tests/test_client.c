/* Unit tests of a lane and its answer accounting, driven against a fake server (the test's end
 * of a local socket) and a fake worker (its lane_ops): hits and misses, what a close leaves
 * unanswered, and whether the requests never sent are slap's lag or the server's doing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "slap/engine/client.h"

#define DEPTH 1 /* --pipeline */
#define RBUF (64 * 1024 + PROTO_ASCII_MAX_LINE)
#define LOOP_LIMIT_MS 3000

/* What the lane told its worker. */
struct heard {
    int idle, connected, failed, warned;
};

struct fixture {
    struct workload_plan plan;
    struct workload wl;
    struct server srv;
    struct server_list servers;
    struct stats_shape shape;
    struct lane_params params;
    struct lane_env env;
    struct conn_env conn_env;
    struct lane lane;
    struct conn conn;
    struct request requests[DEPTH];
    struct lane_reopen reopen; /* --reconnect_rate: the socket's */
    char *hdrs;
    char *keys;
    char rbuf[RBUF];
    struct client client;
    struct event_base *base;
    int listener;
    int peer;
    char path[108];
    struct heard heard;
};

static void on_idle(void *owner)
{
    ((struct fixture *)owner)->heard.idle++;
}

static void on_connected(void *owner, const struct conn *c, const char *why)
{
    (void)c;
    *(why == NULL ? &((struct fixture *)owner)->heard.connected
                  : &((struct fixture *)owner)->heard.failed) += 1;
}

static void on_warn(void *owner, const char *what, uint32_t server, const char *detail,
                    size_t detail_len)
{
    (void)what;
    (void)server;
    (void)detail;
    (void)detail_len;
    ((struct fixture *)owner)->heard.warned++;
}

static const struct lane_ops fake_worker = {on_idle, on_connected, on_warn};

/* Run the loop until *value is at least want, or fail after LOOP_LIMIT_MS. */
static void loop_until(struct fixture *f, const uint64_t *value, uint64_t want)
{
    for (int ms = 0; *value < want; ms++) {
        assert_true(ms < LOOP_LIMIT_MS);
        event_base_loop(f->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
        if (*value < want) {
            poll(NULL, 0, 1);
        }
    }
}

/* A get-only workload of small windows, stored already; one server at a unix socket path. */
/* A change to the workload a test asks for (NULL: none). */
typedef void (*plan_shape)(struct workload_plan *p);

static void fixture_plan(struct fixture *f, double tps, plan_shape shape)
{
    f->plan = (struct workload_plan){.key_size = 16,
                                     .value_size = 8,
                                     .win_size = 16,
                                     .mix = {[OP_GET] = 1.0},
                                     .exp_time_ns = 60 * SLAP_NS_PER_SEC,
                                     .division = 1};
    if (shape != NULL) {
        shape(&f->plan);
    }
    assert_int_equal(workload_init(&f->wl, &f->plan), SLAP_OK);
    f->shape = (struct stats_shape){.types = workload_ops(&f->wl), .open_loop = tps > 0};

    struct sockaddr_un *sun = (struct sockaddr_un *)&f->srv.addr;
    snprintf(f->path, sizeof(f->path), "/tmp/slap-test-client-%d.sock", (int)getpid());
    unlink(f->path);
    sun->sun_family = AF_UNIX;
    snprintf(sun->sun_path, sizeof(sun->sun_path), "%s", f->path);
    f->srv.addr_len = sizeof(*sun);
    snprintf(f->srv.name, sizeof(f->srv.name), "%s", f->path);
    f->servers = (struct server_list){.count = 1, .items = &f->srv};
    f->params = (struct lane_params){
        .wl = &f->wl,
        .servers = &f->servers,
        .tps = tps,
        .concurrency = 1,
        .conns_per_client = 1,
        .pipeline = DEPTH,
        .windows_stored = true,
    };
}

/* The thread's side: the lane environment, the sockets' environment, the slabs. */
static void fixture_env(struct fixture *f)
{
    struct lane_env *env = &f->env;
    f->base = event_base_new();
    assert_non_null(f->base);
    env->params = &f->params;
    env->ops = &fake_worker;
    env->owner = f;
    env->base = f->base;
    env->phase = WORKER_CONNECTING;
    env->rng.state = 42;
    env->codec = codec_get(PROTO_ASCII);
    env->hdr_cap = (uint32_t)codec_header_room(env->codec, f->wl.division, f->wl.keys.size);
    env->run_start_ns = slap_now_ns();
    assert_int_equal(stats_init(&env->cur, &f->shape), SLAP_OK);
    assert_int_equal(client_scratch_init(&env->multiget, &f->wl), SLAP_OK);
    f->conn_env = (struct conn_env){
        .base = f->base,
        .codec = env->codec,
        .rbuf = f->rbuf,
        .rbuf_size = sizeof(f->rbuf),
        .counters = &env->cur.counters,
        .connect_timeout_ns = SLAP_NS_PER_SEC,
        .timeout_fault = "no answer within --timeout",
        .udp_timeout_fault = "UDP answer not whole within --udp_timeout",
        .backoff_min_ns = SLAP_NS_PER_MS,
        .backoff_max_ns = 8 * SLAP_NS_PER_MS,
        .ops = client_conn_ops(),
    };
    f->hdrs = calloc(DEPTH, env->hdr_cap);
    f->keys = calloc(1, f->wl.keys.size);
    assert_non_null(f->hdrs);
    assert_non_null(f->keys);
}

#define CHURN_CLIENTS 4 /* --reconnect_rate: the run's clients; the fixture's is the third */
#define CHURN_CLIENT 2

/* One client of one lane, its socket connected to the test's listener, then measuring. With
 * reconnect_rate, a run of CHURN_CLIENTS whose client CHURN_CLIENT it is; shape (or NULL)
 * changes the plan first. */
static struct fixture *fixture_make(double tps, double reconnect_rate, plan_shape shape)
{
    struct fixture *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    fixture_plan(f, tps, shape);
    fixture_env(f);
    struct lane_slabs slabs = {.lanes = &f->lane,
                               .conns = &f->conn,
                               .requests = f->requests,
                               .hdrs = f->hdrs,
                               .keys = f->keys,
                               .conn_env = &f->conn_env};
    uint32_t id = 0;
    if (reconnect_rate > 0) {
        f->params.reconnect_rate = reconnect_rate;
        f->params.concurrency = CHURN_CLIENTS;
        slabs.reopens = &f->reopen;
        id = CHURN_CLIENT;
    }
    assert_int_equal(client_init(&f->client, &f->env, &slabs, id, 0), SLAP_OK);
    f->listener = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_int_equal(bind(f->listener, (struct sockaddr *)&f->srv.addr, f->srv.addr_len), 0);
    assert_int_equal(listen(f->listener, 4), 0);
    assert_int_equal(conn_connect(&f->conn), SLAP_OK);
    for (int ms = 0; f->heard.connected == 0; ms++) {
        assert_true(ms < LOOP_LIMIT_MS);
        event_base_loop(f->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
        poll(NULL, 0, 1);
    }
    f->peer = accept(f->listener, NULL, NULL);
    assert_true(f->peer >= 0);
    f->env.phase = WORKER_MEASURING;
    return f;
}

static struct fixture *fixture_new(double tps)
{
    return fixture_make(tps, 0, NULL);
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    client_free(&f->client);
    if (f->peer > 0) {
        close(f->peer);
    }
    close(f->listener);
    unlink(f->path);
    event_base_free(f->base);
    client_scratch_free(&f->env.multiget);
    stats_free(&f->env.cur);
    workload_free(&f->wl);
    free(f->hdrs);
    free(f->keys);
    free(f);
    return 0;
}

static int setup_closed_loop(void **state)
{
    *state = fixture_new(0);
    return 0;
}

/* The request line the server got ("get <key>"): its key into key. */
static void peer_read_get(struct fixture *f, char *key, size_t key_cap)
{
    char line[256];
    size_t n = 0;
    while (n < 2 || memcmp(line + n - 2, "\r\n", 2) != 0) {
        assert_true(n < sizeof(line) - 1);
        assert_int_equal(read(f->peer, line + n, 1), 1);
        n++;
    }
    line[n - 2] = '\0';
    assert_memory_equal(line, "get ", 4);
    assert_true(strlen(line + 4) < key_cap);
    memcpy(key, line + 4, strlen(line + 4) + 1);
}

static void peer_write(struct fixture *f, const char *bytes)
{
    size_t len = strlen(bytes);
    assert_int_equal(write(f->peer, bytes, len), (ssize_t)len);
}

/* A get answered END is a miss; one answered with its value, a hit: both count in cmd_get. */
static void test_get_hit_and_miss_counted(void **state)
{
    struct fixture *f = *state;
    const struct slap_counters *k = &f->env.cur.counters;
    char key[128], answer[256];

    lane_pump(&f->lane);
    peer_read_get(f, key, sizeof(key));
    assert_int_equal(f->lane.in_flight, 1);
    peer_write(f, "END\r\n");
    loop_until(f, &k->cmd_get, 1);
    assert_int_equal(k->get_misses, 1);
    assert_int_equal(f->env.cur.misses[OP_GET], 1);

    peer_read_get(f, key, sizeof(key)); /* the lane sent the next get when the first came back */
    snprintf(answer, sizeof(answer), "VALUE %s 0 3\r\nabc\r\nEND\r\n", key);
    peer_write(f, answer);
    loop_until(f, &k->cmd_get, 2);
    assert_int_equal(k->get_misses, 1);
    assert_int_equal(f->env.cur.misses[OP_GET], 1);
    assert_int_equal(f->env.cur.gets[STATS_HIT]->count, 1);
    assert_int_equal(f->env.cur.gets[STATS_MISS]->count, 1);
    assert_int_equal(k->unanswered, 0);
    assert_int_equal(k->requests_sent, 3); /* and the third is on its way */
}

/* The server closes with a get awaited: it counts as unanswered (sent, so not unsent), the
 * client stops (no -R) and its lane tells the worker it is done. */
static void test_close_leaves_unanswered(void **state)
{
    struct fixture *f = *state;
    const struct slap_counters *k = &f->env.cur.counters;
    char key[128];

    lane_pump(&f->lane);
    peer_read_get(f, key, sizeof(key));
    close(f->peer);
    f->peer = -1;
    loop_until(f, &k->conn_closed, 1);
    assert_int_equal(k->unanswered, 1);
    assert_int_equal(k->unsent, 0);
    assert_int_equal(k->cmd_get, 0);
    assert_int_equal(k->clients_stopped, 1);
    assert_true(f->client.stopped);
    assert_int_equal(f->lane.in_flight, 0);
    assert_true(f->lane.done);
    assert_int_equal(f->heard.idle, 1);
    assert_int_equal(f->env.cur.lat[OP_GET]->count, 0); /* unanswered: in no latency */
}

#define RATE 1000.0 /* requests a second: one due every millisecond */

/* Open loop, the socket free all along: the requests that fell due and never left are slap's
 * own lateness (client lag), and unanswered, and unsent. */
static void test_unsent_on_a_free_socket_is_client_lag(void **state)
{
    struct fixture *f = fixture_new(RATE);
    *state = f;
    const struct slap_counters *k = &f->env.cur.counters;
    uint64_t now = slap_now_ns();
    uint64_t start = now - 10 * SLAP_NS_PER_MS;
    schedule_init(&f->lane.sched, ARRIVAL_UNIFORM, 0, RATE, 1, 0, start, 7);

    lane_count_unsent(&f->lane, start, now);
    assert_in_range(k->unsent, 9, 11);
    assert_int_equal(k->unanswered, k->unsent);
    assert_int_equal(k->client_lag, k->unsent);
    assert_int_equal(k->requests_sent, 0);
}

#define SLOW_RATE 200.0 /* one due every 5 ms: time enough to send the first before the next */

/* Open loop, a request sent and never answered before the others fell due: they waited for the
 * server (the lane was full), so they are unsent and unanswered but no client lag. */
static void test_unsent_behind_an_unanswered_request_is_not_client_lag(void **state)
{
    struct fixture *f = fixture_new(SLOW_RATE);
    *state = f;
    const struct slap_counters *k = &f->env.cur.counters;
    char key[128];
    uint64_t start = slap_now_ns();
    schedule_init(&f->lane.sched, ARRIVAL_UNIFORM, 0, SLOW_RATE, 1, 0, start, 7);

    lane_pump(&f->lane); /* the first, due at start, goes; the lane is then full */
    peer_read_get(f, key, sizeof(key));
    assert_int_equal(k->requests_sent, 1);
    poll(NULL, 0, 30);
    uint64_t end = slap_now_ns();

    lane_count_unsent(&f->lane, start, end);
    assert_true(k->unsent >= 3);
    assert_int_equal(k->unanswered, k->unsent);
    assert_int_equal(k->client_lag, 0);
}

/* Open loop, a slap short of CPU: the lane fell behind, then sent its oldest due request late,
 * just before the end or (the end's timer handled after the socket) just after it. The others
 * never left because slap was late, not because the server held the lane: client lag. */
static void test_unsent_behind_a_late_send_is_client_lag(void **state)
{
    struct fixture *f = fixture_new(SLOW_RATE);
    *state = f;
    const struct slap_counters *k = &f->env.cur.counters;
    char key[128];
    uint64_t start = slap_now_ns() - 60 * SLAP_NS_PER_MS; /* a dozen due already */
    schedule_init(&f->lane.sched, ARRIVAL_UNIFORM, 0, SLOW_RATE, 1, 0, start, 7);

    lane_pump(&f->lane); /* the first due goes now, 60 ms late */
    peer_read_get(f, key, sizeof(key));
    assert_int_equal(k->requests_sent, 1);
    uint64_t sent = slap_now_ns();
    uint64_t end = sent - SLAP_NS_PER_MS; /* the end came a moment before the send */

    lane_count_unsent(&f->lane, start, end);
    assert_true(k->unsent >= 8);
    assert_int_equal(k->client_lag, k->unsent);
}

static void test_unsent_behind_a_send_just_before_the_end_is_client_lag(void **state)
{
    struct fixture *f = fixture_new(SLOW_RATE);
    *state = f;
    const struct slap_counters *k = &f->env.cur.counters;
    char key[128];
    uint64_t start = slap_now_ns() - 60 * SLAP_NS_PER_MS;
    schedule_init(&f->lane.sched, ARRIVAL_UNIFORM, 0, SLOW_RATE, 1, 0, start, 7);

    lane_pump(&f->lane);
    peer_read_get(f, key, sizeof(key));
    poll(NULL, 0, 2);
    uint64_t end = slap_now_ns(); /* the late request has waited 2 ms of the 60 */

    lane_count_unsent(&f->lane, start, end);
    assert_true(k->unsent >= 8);
    assert_int_equal(k->client_lag, k->unsent);
}

#define SLOW_SERVER_MS 5 /* each answer comes this long after its request */

/* The lane awaits a server that answers each request 5 ms after it, while one falls due
 * every millisecond: each answer is followed at once by the oldest due request. */
static void chain_behind_a_slow_server(struct fixture *f, uint64_t start, int answers)
{
    const struct slap_counters *k = &f->env.cur.counters;
    char key[128];
    schedule_init(&f->lane.sched, ARRIVAL_UNIFORM, 0, RATE, 1, 0, start, 7);
    lane_pump(&f->lane);
    for (int i = 0; i < answers; i++) {
        peer_read_get(f, key, sizeof(key));
        poll(NULL, 0, SLOW_SERVER_MS);
        peer_write(f, "END\r\n");
        loop_until(f, &k->cmd_get, (uint64_t)i + 1);
    }
    peer_read_get(f, key, sizeof(key)); /* the last one sent, awaiting its answer */
}

/* Open loop, a slow but steady server: the lane was full from its first request on, every
 * request due since could not go before the server answered the one ahead. They are unsent
 * and unanswered, and the server's: no client lag, though the last send was a moment ago. */
static void test_unsent_behind_a_slow_server_is_not_client_lag(void **state)
{
    struct fixture *f = fixture_new(RATE);
    *state = f;
    const struct slap_counters *k = &f->env.cur.counters;
    uint64_t start = slap_now_ns();
    chain_behind_a_slow_server(f, start, 4);

    lane_count_unsent(&f->lane, start, slap_now_ns());
    assert_true(k->unsent >= 10);
    assert_int_equal(k->client_lag, 0);
}

/* The same lane, its thread starved of CPU (on one or waiting for one half the run): the
 * answers it awaited may have awaited its read, so the full lane proves nothing and the
 * request in flight, sent a moment ago, is a late send: client lag. */
static void test_unsent_behind_a_starved_thread_is_client_lag(void **state)
{
    struct fixture *f = fixture_new(RATE);
    *state = f;
    const struct slap_counters *k = &f->env.cur.counters;
    uint64_t start = slap_now_ns();
    chain_behind_a_slow_server(f, start, 4);

    f->env.cpu_starved = true;
    lane_count_unsent(&f->lane, start, slap_now_ns());
    assert_true(k->unsent >= 10);
    assert_int_equal(k->client_lag, k->unsent);
}

#define CHURN_RATE 1000.0 /* reopens a second, all clients: each one's every 4 ms */

/* The server answers the get the lane sent (a miss). */
static void peer_answer(struct fixture *f, uint64_t answers)
{
    char key[128];
    peer_read_get(f, key, sizeof(key));
    peer_write(f, "END\r\n");
    loop_until(f, &f->env.cur.counters.cmd_get, answers);
}

/* A reopen's new connection: the old peer closed, the new one accepted. */
static void peer_reaccept(struct fixture *f)
{
    close(f->peer);
    f->peer = accept(f->listener, NULL, NULL);
    assert_true(f->peer >= 0);
    loop_until(f, &f->env.cur.counters.reconnects, f->env.cur.counters.reconnects + 1);
}

/* The run's n-th reopen is due (n - 1/2) / rate after the go: exactly, whatever n. */
static void assert_due_of(const struct fixture *f, uint64_t n)
{
    assert_int_equal(f->reopen.n, n);
    assert_int_equal(f->reopen.due_ns,
                     f->env.start_ns + (uint64_t)(((double)n - 0.5) * 1e9 / CHURN_RATE + 0.5));
}

/* --reconnect_rate 1000 over 4 clients: the third's socket takes the run's reopens 3, 7, 11,
 * ... (due 2.5 ms, 6.5 ms, 10.5 ms after the go). An answer before its time leaves it open; the
 * first answer after reopens it once (a new connection the server accepts, counted and timed),
 * and the times that passed meanwhile are skipped, not made up. */
static void test_reopen_at_its_times(void **state)
{
    struct fixture *f = fixture_make(0, CHURN_RATE, NULL);
    *state = f;
    const struct slap_counters *k = &f->env.cur.counters;
    f->env.start_ns = slap_now_ns();
    lane_reopens_begin(&f->lane);
    assert_due_of(f, CHURN_CLIENT + 1);

    lane_pump(&f->lane);
    peer_answer(f, 1); /* well before 2.5 ms, even on a busy host: not reopened */
    if (slap_now_ns() < f->reopen.due_ns) {
        assert_int_equal(k->reconnects, 0);
        assert_int_equal(f->conn.state, CONN_READY);
    }
    poll(NULL, 0, 5); /* 5 ms after the go at least: the reopen due at 2.5 ms is due */
    peer_answer(f, 2);
    uint64_t answered = f->reopen.answered_ns;
    peer_reaccept(f);
    assert_int_equal(k->reconnects, 1);
    assert_int_equal(f->env.cur.connect->count, 1);
    assert_true(f->reopen.due_ns > answered); /* the next after the answer, a socket's turn on */
    assert_true(f->reopen.due_ns - answered <= CHURN_CLIENTS * SLAP_NS_PER_SEC / CHURN_RATE);
    assert_int_equal((f->reopen.n - (CHURN_CLIENT + 1)) % CHURN_CLIENTS, 0);
    assert_due_of(f, f->reopen.n);

    uint64_t before = f->reopen.n;
    poll(NULL, 0, 20); /* five of its times pass without an answer: one reopen for them */
    peer_answer(f, 3);
    peer_reaccept(f);
    assert_int_equal(k->reconnects, 2);
    assert_true(f->reopen.n >= before + 5 * CHURN_CLIENTS);
    assert_due_of(f, f->reopen.n);
    assert_int_equal(k->unanswered, 0);
}

/* A request the server got: its command and key; a storage command's data read past. */
static void peer_read_request(struct fixture *f, char *cmd, char *key, size_t cap)
{
    char line[256], data[64];
    size_t n = 0;
    unsigned flags, exptime, bytes = 0;
    while (n < 2 || memcmp(line + n - 2, "\r\n", 2) != 0) {
        assert_true(n < sizeof(line) - 1);
        assert_int_equal(read(f->peer, line + n, 1), 1);
        n++;
    }
    line[n - 2] = '\0';
    char *space = strchr(line, ' ');
    assert_non_null(space);
    *space = '\0';
    snprintf(cmd, cap, "%s", line);
    char *end = strchr(space + 1, ' ');
    bool storage = false; /* "KEY FLAGS EXPTIME BYTES": data follows (incr's "KEY 1": none) */
    if (end != NULL) {
        *end = '\0';
        storage = sscanf(end + 1, "%u %u %u", &flags, &exptime, &bytes) == 3;
    }
    snprintf(key, cap, "%s", space + 1);
    assert_true(bytes + 2 <= sizeof(data));
    for (size_t got = 0; storage && got < bytes + 2;) {
        ssize_t r = read(f->peer, data + got, bytes + 2 - got);
        assert_true(r > 0);
        got += (size_t)r;
    }
}

/* The number a key of the range names: a shared window key of the run's layout, its length
 * that of its slot. */
static uint64_t shared_key_number(const struct fixture *f, const char *key)
{
    struct key_name name;
    assert_true(key_layout_decode(&f->wl.keys, key, strlen(key), &name));
    assert_int_equal(name.kind, KEY_WINDOW);
    assert_memory_equal(key, "shared-", 7); /* as the documentation shows it */
    return f->wl.keys.base + name.slot;
}

#define LAW_KEYS 64
#define LAW_SETS 2000

static void shape_sets_by_zipf(struct workload_plan *p)
{
    char err[128];
    p->mix[OP_GET] = 0.0;
    p->mix[OP_SET] = 1.0;
    p->key_min = 1000;
    p->key_count = LAW_KEYS;
    assert_int_equal(key_pattern_parse("set:zipf:1", &p->key_pattern, err, sizeof(err)), SLAP_OK);
}

/* --key_min 1000 --key_max 1063 --key_pattern set:zipf:1: the lane's sets name keys of the range
 * by number alone, and draw them by zipf: key 1000 about 1 / H(64) of them, each of the first
 * ranks more than the next. */
static void test_sets_by_zipf_in_bounds(void **state)
{
    struct fixture *f = fixture_make(0, 0, shape_sets_by_zipf);
    *state = f;
    const struct slap_counters *k = &f->env.cur.counters;
    unsigned hits[LAW_KEYS] = {0};
    char cmd[256], key[256];
    lane_pump(&f->lane);
    for (uint64_t i = 0; i < LAW_SETS; i++) {
        peer_read_request(f, cmd, key, sizeof(cmd));
        assert_string_equal(cmd, "set");
        uint64_t number = shared_key_number(f, key);
        assert_in_range(number, 1000, 1000 + LAW_KEYS - 1);
        hits[number - 1000]++;
        peer_write(f, "STORED\r\n");
        loop_until(f, &k->stored, i + 1);
    }
    double harmonic = 0.0;
    for (int r = 1; r <= LAW_KEYS; r++) {
        harmonic += 1.0 / r;
    }
    double first = (double)hits[0] / LAW_SETS;
    if (first < 0.85 / harmonic || first > 1.15 / harmonic) {
        fail_msg("key 1000 set %.3f of the time; zipf:1 over %d keys says %.3f", first, LAW_KEYS,
                 1.0 / harmonic);
    }
    assert_true(hits[0] > hits[1] && hits[1] > hits[2]);
}

static void shape_gets_walk_in_bounds(struct workload_plan *p)
{
    char err[128];
    p->key_min = 70;
    p->key_count = 5;
    assert_int_equal(key_pattern_parse("read:sequential", &p->key_pattern, err, sizeof(err)),
                     SLAP_OK);
}

/* --key_min 70 --key_max 74 --key_pattern read:sequential, gets only: the gets walk the range in
 * order from the client's place (client 0 of 1: its start), at once (no set first: the range is
 * shared, a key never set a miss), and each miss counts as one. */
static void test_gets_walk_in_bounds(void **state)
{
    struct fixture *f = fixture_make(0, 0, shape_gets_walk_in_bounds);
    *state = f;
    const struct slap_counters *k = &f->env.cur.counters;
    char cmd[256], key[256];
    lane_pump(&f->lane);
    for (uint64_t i = 0; i < 12; i++) {
        peer_read_request(f, cmd, key, sizeof(cmd));
        assert_string_equal(cmd, "get");
        assert_int_equal(shared_key_number(f, key), 70 + i % 5);
        peer_write(f, "END\r\n");
        loop_until(f, &k->cmd_get, i + 1);
    }
    assert_int_equal(k->get_misses, 12);
    assert_int_equal(k->cmd_set, 0);
}

static void shape_incr_walks(struct workload_plan *p)
{
    char err[128];
    p->mix[OP_GET] = 0.0;
    p->mix[OP_INCR] = 1.0;
    assert_int_equal(
        key_pattern_parse("all:zipf,incr:sequential", &p->key_pattern, err, sizeof(err)), SLAP_OK);
}

/* --key_pattern all:zipf,incr:sequential with a mix of incr: the later item wins for incr,
 * whose requests walk the client's 16 counter keys in order and wrap. */
static void test_incr_walks_its_counters(void **state)
{
    struct fixture *f = fixture_make(0, 0, shape_incr_walks);
    *state = f;
    const struct slap_counters *k = &f->env.cur.counters;
    char cmd[256], key[256], want[256];
    lane_pump(&f->lane);
    for (uint64_t i = 0; i < 2 * CLIENT_COUNTERS + 3; i++) {
        peer_read_request(f, cmd, key, sizeof(cmd));
        assert_string_equal(cmd, "incr");
        struct key_name counter = {KEY_COUNTER, f->client.key_id, i % CLIENT_COUNTERS};
        want[key_layout_encode(&f->wl.keys, &counter, want)] = '\0';
        assert_string_equal(key, want);
        peer_write(f, "1000000001\r\n");
        loop_until(f, &k->incr_hits, i + 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_get_hit_and_miss_counted, setup_closed_loop, teardown),
        cmocka_unit_test_setup_teardown(test_close_leaves_unanswered, setup_closed_loop, teardown),
        cmocka_unit_test_teardown(test_unsent_on_a_free_socket_is_client_lag, teardown),
        cmocka_unit_test_teardown(test_unsent_behind_an_unanswered_request_is_not_client_lag,
                                  teardown),
        cmocka_unit_test_teardown(test_unsent_behind_a_late_send_is_client_lag, teardown),
        cmocka_unit_test_teardown(test_unsent_behind_a_send_just_before_the_end_is_client_lag,
                                  teardown),
        cmocka_unit_test_teardown(test_unsent_behind_a_slow_server_is_not_client_lag, teardown),
        cmocka_unit_test_teardown(test_unsent_behind_a_starved_thread_is_client_lag, teardown),
        cmocka_unit_test_teardown(test_reopen_at_its_times, teardown),
        cmocka_unit_test_teardown(test_sets_by_zipf_in_bounds, teardown),
        cmocka_unit_test_teardown(test_gets_walk_in_bounds, teardown),
        cmocka_unit_test_teardown(test_incr_walks_its_counters, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
