/* Unit tests of one connection over real local sockets: partial writes and reads, a close in
 * the middle of a value, garbage, time-outs, reconnect back-off, a UDP answer that never came;
 * and a fake transport table, to see that the connection goes through it and that it can fail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "slap/net/conn.h"
#include "slap/net/udp_endpoints.h"
#include "transport.h"

#define RING 4
#define HDR_CAP 512
#define RBUF (64 * 1024 + PROTO_ASCII_MAX_LINE)
#define LOOP_LIMIT_MS 3000
#define BIG_VALUE (1024 * 1024)

/* What the owner heard, in order. */
struct heard {
    int connected, connect_failed, sent, answered, closed, given_up, drained, unsolicited, faults;
    char why[256];
    enum proto_reply reply;
    uint32_t hits;
};

struct fixture {
    struct event_base *base;
    struct conn_env env;
    struct slap_counters counters;
    struct server srv;
    struct conn conn;
    struct request ring[RING];
    char hdrs[RING][HDR_CAP];
    char rbuf[RBUF];
    char ubuf[RBUF];
    int listener; /* the test's end: a listening socket, or a bound datagram socket */
    int peer;     /* the accepted connection */
    char path[108];
    struct heard heard;
};

static struct heard *heard_of(struct conn *c)
{
    return c->owner;
}

static void on_connected(struct conn *c)
{
    heard_of(c)->connected++;
}

static void on_connect_failed(struct conn *c, const char *why)
{
    heard_of(c)->connect_failed++;
    snprintf(heard_of(c)->why, sizeof(heard_of(c)->why), "%s", why);
}

static void on_sent(struct conn *c, const struct request *r)
{
    assert_true(r->sent_ns > 0);
    heard_of(c)->sent++;
}

static void on_answered(struct conn *c, const struct request *r, const struct proto_result *res,
                        uint64_t now_ns, uint64_t kernel_ns)
{
    assert_true(kernel_ns == 0 || (kernel_ns >= r->sent_ns && kernel_ns <= now_ns));
    assert_true(now_ns >= r->sent_ns);
    heard_of(c)->answered++;
    heard_of(c)->reply = res->reply;
    heard_of(c)->hits = res->hits;
}

static void on_closed(struct conn *c, const char *why)
{
    heard_of(c)->closed++;
    snprintf(heard_of(c)->why, sizeof(heard_of(c)->why), "%s", why);
}

static void on_given_up(struct conn *c, const struct request *r, uint64_t now_ns)
{
    assert_ptr_equal(r, conn_oldest(c)); /* still in the ring while the owner hears of it */
    assert_true(now_ns >= r->sent_ns);
    heard_of(c)->given_up++;
}

static void on_drained(struct conn *c)
{
    heard_of(c)->drained++;
}

static void on_unsolicited(struct conn *c, const struct proto_result *res)
{
    heard_of(c)->unsolicited++;
    heard_of(c)->reply = res->reply;
    snprintf(heard_of(c)->why, sizeof(heard_of(c)->why), "%.*s", (int)res->msg_len, res->msg);
}

static void on_fault(struct conn *c, const char *what, const char *detail)
{
    heard_of(c)->faults++;
    snprintf(heard_of(c)->why, sizeof(heard_of(c)->why), "%s: %s", what, detail);
}

static const struct conn_ops ops = {
    .connected = on_connected,
    .connect_failed = on_connect_failed,
    .sent = on_sent,
    .answered = on_answered,
    .closed = on_closed,
    .given_up = on_given_up,
    .drained = on_drained,
    .unsolicited = on_unsolicited,
    .fault = on_fault,
};

/* Run the loop until *flag is at least want, or fail after LOOP_LIMIT_MS. */
static void loop_until(struct fixture *f, const int *flag, int want)
{
    for (int ms = 0; *flag < want; ms++) {
        assert_true(ms < LOOP_LIMIT_MS);
        event_base_loop(f->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
        if (*flag < want) {
            poll(NULL, 0, 1);
        }
    }
}

/* A few turns of the loop, for what should not happen. */
static void loop_a_while(struct fixture *f)
{
    for (int i = 0; i < 20; i++) {
        event_base_loop(f->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
        poll(NULL, 0, 1);
    }
}

static void fixture_env(struct fixture *f, uint64_t udp_timeout_ns)
{
    f->base = event_base_new();
    assert_non_null(f->base);
    f->env = (struct conn_env){
        .base = f->base,
        .codec = codec_get(PROTO_ASCII),
        .rbuf = f->rbuf,
        .rbuf_size = sizeof(f->rbuf),
        .ubuf = f->ubuf,
        .counters = &f->counters,
        .connect_timeout_ns = SLAP_NS_PER_SEC,
        .udp_timeout_ns = udp_timeout_ns,
        .timeout_fault = "no answer within --timeout",
        .udp_timeout_fault = "UDP answer not whole within --udp_timeout",
        .backoff_min_ns = SLAP_NS_PER_MS,
        .backoff_max_ns = 8 * SLAP_NS_PER_MS,
        .ops = &ops,
    };
    for (int i = 0; i < RING; i++) {
        f->ring[i].hdr = f->hdrs[i];
    }
}

static void fixture_conn(struct fixture *f, bool udp)
{
    struct conn_setup setup = {.owner = &f->heard,
                               .srv = &f->srv,
                               .udp = udp,
                               .reconnect = true,
                               .udp_answer_cap = 8 * UDP_MAX_DATAGRAM,
                               .ring = f->ring,
                               .cap = RING};
    assert_int_equal(conn_init(&f->conn, &f->env, &setup), SLAP_OK);
}

/* The test's end of the socket: a unix socket of the type, bound at a fresh path named as
 * the server; the connection made for it. */
static struct fixture *unix_fixture(int type, uint64_t udp_timeout_ns)
{
    struct fixture *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    fixture_env(f, udp_timeout_ns);
    struct sockaddr_un *sun = (struct sockaddr_un *)&f->srv.addr;
    snprintf(f->path, sizeof(f->path), "/tmp/slap-test-conn-%d-%d.sock", (int)getpid(), type);
    unlink(f->path);
    sun->sun_family = AF_UNIX;
    snprintf(sun->sun_path, sizeof(sun->sun_path), "%s", f->path);
    f->srv.addr_len = sizeof(*sun);
    snprintf(f->srv.name, sizeof(f->srv.name), "%s", f->path);
    f->listener = socket(AF_UNIX, type, 0);
    assert_int_equal(bind(f->listener, (struct sockaddr *)sun, sizeof(*sun)), 0);
    fixture_conn(f, type == SOCK_DGRAM);
    return f;
}

/* A unix stream listener at a fresh path; the connection connected and accepted. */
static int setup_stream(void **state)
{
    struct fixture *f = unix_fixture(SOCK_STREAM, 200 * SLAP_NS_PER_MS);
    assert_int_equal(listen(f->listener, 4), 0);
    assert_int_equal(conn_connect(&f->conn), SLAP_OK);
    loop_until(f, &f->heard.connected, 1);
    assert_int_equal(f->conn.state, CONN_READY);
    f->peer = accept(f->listener, NULL, NULL);
    assert_true(f->peer >= 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    conn_free(&f->conn);
    if (f->peer > 0) {
        close(f->peer);
    }
    close(f->listener);
    if (f->path[0] != '\0') {
        unlink(f->path);
    }
    event_base_free(f->base);
    free(f);
    return 0;
}

/* Queue "get <key>" and write it. */
static struct request *send_get(struct fixture *f, const char *key)
{
    struct request *r = conn_queue(&f->conn);
    memset(r, 0, offsetof(struct request, hdr));
    r->nkeys = 1;
    r->hdr_len = (uint32_t)proto_ascii_encode_get(r->hdr, HDR_CAP, key, strlen(key));
    conn_flush(&f->conn);
    return r;
}

/* Read exactly len bytes at the peer (blocking). */
static void peer_expect(struct fixture *f, const char *want, size_t len)
{
    char got[256];
    size_t have = 0;
    assert_true(len <= sizeof(got));
    while (have < len) {
        ssize_t n = read(f->peer, got + have, len - have);
        assert_true(n > 0);
        have += (size_t)n;
    }
    assert_memory_equal(got, want, len);
}

static void peer_write(struct fixture *f, const char *bytes)
{
    size_t len = strlen(bytes);
    assert_int_equal(write(f->peer, bytes, len), (ssize_t)len);
}

static void test_request_and_answer(void **state)
{
    struct fixture *f = *state;
    send_get(f, "key1");
    assert_int_equal(f->heard.sent, 1);
    peer_expect(f, "get key1\r\n", 10);
    peer_write(f, "VALUE key1 0 5\r\nhello\r\nEND\r\n");
    loop_until(f, &f->heard.answered, 1);
    assert_int_equal(f->heard.reply, PROTO_REPLY_VALUES);
    assert_int_equal(f->heard.hits, 1);
    assert_true(f->heard.drained >= 1);
    assert_null(conn_oldest(&f->conn));
    assert_int_equal(f->counters.written_bytes, 10);
    assert_int_equal(f->counters.read_bytes, 28);
    assert_null(f->conn.carry); /* no line straddled two reads: no carry was made */
}

/*
 * A line that straddles two reads is carried to the next one. The carry is made at the first
 * partial line and kept for the connection's life, across further partial lines and a
 * reconnect: one allocation, never one per request.
 */
static void test_line_straddles_reads(void **state)
{
    struct fixture *f = *state;
    send_get(f, "key1");
    peer_expect(f, "get key1\r\n", 10);
    assert_null(f->conn.carry);
    peer_write(f, "VALUE key1 0 5\r\nhello\r\nEN");
    loop_until(f, &f->heard.drained, 1);
    assert_int_equal(f->heard.answered, 0);
    assert_non_null(f->conn.carry);
    assert_int_equal(f->conn.carry_len, 2);
    assert_memory_equal(f->conn.carry, "EN", 2);
    const char *carry = f->conn.carry;
    peer_write(f, "D\r\n");
    loop_until(f, &f->heard.answered, 1);
    assert_int_equal(f->heard.reply, PROTO_REPLY_VALUES);
    assert_int_equal(f->heard.hits, 1);
    assert_int_equal(f->conn.carry_len, 0);

    send_get(f, "key2"); /* the header line itself split */
    peer_expect(f, "get key2\r\n", 10);
    peer_write(f, "VALUE ke");
    loop_until(f, &f->heard.drained, 3);
    assert_int_equal(f->conn.carry_len, 8);
    peer_write(f, "y2 0 3\r\nabc\r\nEND\r\n");
    loop_until(f, &f->heard.answered, 2);
    assert_int_equal(f->heard.hits, 1);
    assert_int_equal(f->heard.closed, 0);
    assert_ptr_equal(f->conn.carry, carry);

    conn_close(&f->conn); /* a new connection keeps the carry, empty */
    close(f->peer);
    assert_int_equal(conn_connect(&f->conn), SLAP_OK);
    loop_until(f, &f->heard.connected, 2);
    f->peer = accept(f->listener, NULL, NULL);
    assert_true(f->peer >= 0);
    assert_int_equal(f->conn.carry_len, 0);
    send_get(f, "key3");
    peer_expect(f, "get key3\r\n", 10);
    peer_write(f, "EN");
    loop_until(f, &f->heard.drained, 5);
    peer_write(f, "D\r\n");
    loop_until(f, &f->heard.answered, 3);
    assert_int_equal(f->heard.hits, 0);
    assert_ptr_equal(f->conn.carry, carry);
    assert_int_equal(f->counters.protocol_error, 0);
}

/* An answer that comes a byte at a time is one answer, at its last byte. */
static void test_partial_reads(void **state)
{
    struct fixture *f = *state;
    const char answer[] = "VALUE key1 0 10\r\n0123456789\r\nEND\r\n";
    send_get(f, "key1");
    peer_expect(f, "get key1\r\n", 10);
    for (size_t i = 0; i + 1 < sizeof(answer) - 1; i++) {
        char one[2] = {answer[i], '\0'};
        peer_write(f, one);
        loop_a_while(f);
        assert_int_equal(f->heard.answered, 0);
    }
    peer_write(f, answer + sizeof(answer) - 2);
    loop_until(f, &f->heard.answered, 1);
    assert_int_equal(f->heard.hits, 1);
    assert_int_equal(f->heard.closed, 0);
    assert_int_equal(f->counters.read_bytes, sizeof(answer) - 1);
}

/* A set larger than the socket buffers: written in pieces, sent once, whole and in order. */
static void test_partial_writes(void **state)
{
    struct fixture *f = *state;
    static char value[BIG_VALUE];
    for (size_t i = 0; i < sizeof(value); i++) {
        value[i] = (char)('a' + i % 26);
    }
    int small = 4096;
    setsockopt(f->conn.fd, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
    struct request *r = conn_queue(&f->conn);
    memset(r, 0, offsetof(struct request, hdr));
    r->op = 1;
    r->crlf = true;
    r->value = value;
    r->value_len = BIG_VALUE;
    r->hdr_len =
        (uint32_t)proto_ascii_encode_set_header(r->hdr, HDR_CAP, "big", 3, 0, 0, BIG_VALUE);
    conn_flush(&f->conn);
    assert_true(f->conn.write_blocked);
    assert_int_equal(f->heard.sent, 0);
    size_t total = r->hdr_len + BIG_VALUE + 2, have = 0;
    char *got = malloc(total);
    assert_non_null(got);
    while (have < total) {
        event_base_loop(f->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
        ssize_t n = recv(f->peer, got + have, total - have, MSG_DONTWAIT);
        if (n > 0) {
            have += (size_t)n;
        }
    }
    loop_until(f, &f->heard.sent, 1);
    assert_int_equal(f->heard.sent, 1);
    assert_memory_equal(got, "set big 0 0 1048576\r\n", 21);
    assert_memory_equal(got + r->hdr_len, value, BIG_VALUE);
    assert_memory_equal(got + total - 2, "\r\n", 2);
    assert_int_equal(f->counters.written_bytes, total);
    free(got);
}

/* The server closes in the middle of a value: the socket closes, the request is not answered. */
static void test_close_mid_value(void **state)
{
    struct fixture *f = *state;
    send_get(f, "key1");
    peer_expect(f, "get key1\r\n", 10);
    peer_write(f, "VALUE key1 0 10\r\nabc");
    close(f->peer);
    f->peer = -1;
    loop_until(f, &f->heard.closed, 1);
    assert_string_equal(f->heard.why, "connection closed by the server");
    assert_int_equal(f->heard.answered, 0);
    assert_int_equal(f->conn.state, CONN_CLOSED);
    assert_int_equal(conn_drop_sent(&f->conn), 1);
}

static void test_garbage(void **state)
{
    struct fixture *f = *state;
    send_get(f, "key1");
    peer_expect(f, "get key1\r\n", 10);
    peer_write(f, "HELLO WORLD\r\n");
    loop_until(f, &f->heard.closed, 1);
    assert_non_null(strstr(f->heard.why, "not a memcached response"));
    assert_int_equal(f->counters.protocol_error, 1);
}

/* An answer when nothing was sent is not the server talking to us. */
static void test_unsolicited_answer(void **state)
{
    struct fixture *f = *state;
    peer_write(f, "END\r\n");
    loop_until(f, &f->heard.closed, 1);
    assert_int_equal(f->counters.protocol_error, 1);
    assert_int_equal(f->heard.answered, 0);
}

/* --timeout: only a request sent before the deadline fails the socket. */
static void test_timeout(void **state)
{
    struct fixture *f = *state;
    struct request *r = send_get(f, "key1");
    uint64_t sent = r->sent_ns;
    conn_check_timeout(&f->conn, sent);
    assert_int_equal(f->heard.closed, 0);
    conn_check_timeout(&f->conn, sent + 1);
    assert_int_equal(f->heard.closed, 1);
    assert_string_equal(f->heard.why, "no answer within --timeout");
    assert_int_equal(f->conn.state, CONN_CLOSED);
}

/* Reconnects back off, doubling up to the bound; only an answer on the new connection starts
 * over (a server that accepts and closes at once must not be hammered). */
static void test_reconnect_backoff(void **state)
{
    struct fixture *f = *state;
    conn_close(&f->conn);
    close(f->peer);
    f->peer = -1;
    uint64_t want[] = {2, 4, 8, 8};
    for (size_t i = 0; i < 4; i++) {
        conn_retry_later(&f->conn);
        assert_int_equal(f->conn.backoff_ns, want[i] * SLAP_NS_PER_MS);
    }
    loop_until(f, &f->heard.connected, 2);
    assert_int_equal(f->conn.state, CONN_READY);
    assert_int_equal(f->conn.backoff_ns, 8 * SLAP_NS_PER_MS); /* connected, not yet answered */
    f->peer = accept(f->listener, NULL, NULL);
    assert_true(f->peer >= 0);
    send_get(f, "key1");
    peer_expect(f, "get key1\r\n", 10);
    peer_write(f, "END\r\n");
    loop_until(f, &f->heard.answered, 1);
    assert_int_equal(f->conn.backoff_ns, 0);
}

/* A socket set up without reconnect has no back-off timer: a retry leaves it closed. */
static void test_no_reconnect_timer(void **state)
{
    (void)state;
    struct fixture *f = unix_fixture(SOCK_STREAM, 0);
    assert_int_equal(listen(f->listener, 4), 0);
    struct conn_setup setup = {.owner = &f->heard, .srv = &f->srv, .ring = f->ring, .cap = RING};
    conn_free(&f->conn);
    assert_int_equal(conn_init(&f->conn, &f->env, &setup), SLAP_OK);
    assert_null(f->conn.retry);
    assert_null(f->conn.dgram);
    conn_retry_later(&f->conn);
    loop_a_while(f);
    assert_int_equal(f->heard.connected, 0);
    assert_int_equal(f->conn.state, CONN_CLOSED);
    conn_retry_cancel(&f->conn);
    void *fx = f;
    teardown(&fx);
}

/* memcached refusing a connection: an error line that answers nothing, then its close. */
static void test_server_refuses(void **state)
{
    struct fixture *f = *state;
    peer_write(f, "ERROR Too many open connections\r\n");
    loop_until(f, &f->heard.closed, 1);
    assert_int_equal(f->heard.unsolicited, 1);
    assert_int_equal(f->heard.reply, PROTO_REPLY_ERROR);
    assert_int_equal(f->counters.protocol_error, 0); /* the server talking, not garbage */
    assert_int_equal(f->conn.answers, 0);
}

/* A connect refused after EINPROGRESS is told through connect_failed. */
static void test_connect_refused(void **state)
{
    (void)state;
    struct fixture *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    fixture_env(f, 0);
    int probe = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in *sin = (struct sockaddr_in *)&f->srv.addr;
    sin->sin_family = AF_INET;
    sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    f->srv.addr_len = sizeof(*sin);
    assert_int_equal(bind(probe, (struct sockaddr *)sin, sizeof(*sin)), 0);
    socklen_t len = sizeof(*sin);
    getsockname(probe, (struct sockaddr *)sin, &len);
    close(probe); /* the port is free now: nobody listens */
    f->listener = -1;
    fixture_conn(f, false);
    if (conn_connect(&f->conn) == SLAP_OK) {
        loop_until(f, &f->heard.connect_failed, 1);
        assert_non_null(strstr(f->heard.why, "refused"));
    } else {
        assert_int_equal(errno, ECONNREFUSED);
    }
    assert_int_equal(f->conn.state, CONN_CLOSED);
    void *fx = f;
    f->listener = socket(AF_INET, SOCK_STREAM, 0); /* something for teardown to close */
    teardown(&fx);
}

/* UDP: an answer that never comes is given up after --udp_timeout and counted. */
static void test_udp_given_up(void **state)
{
    (void)state;
    struct fixture *f = unix_fixture(SOCK_DGRAM, 20 * SLAP_NS_PER_MS);
    assert_int_equal(conn_connect(&f->conn), SLAP_OK);
    loop_until(f, &f->heard.connected, 1);
    send_get(f, "key1");
    char dgram[64];
    ssize_t n = recv(f->listener, dgram, sizeof(dgram), 0);
    assert_int_equal(n, UDP_HEADER + 10);
    assert_memory_equal(dgram + UDP_HEADER, "get key1\r\n", 10);
    loop_until(f, &f->heard.given_up, 1);
    assert_int_equal(f->counters.udp_timeout, 1);
    assert_int_equal(f->counters.packet_drop, 1);
    assert_null(conn_oldest(&f->conn));
    void *fx = f;
    teardown(&fx);
}

/* Queue "get <key>" on c and write it (on a shared UDP socket: queued for the turn's end). */
static void queue_get_on(struct conn *c, const char *key)
{
    struct request *r = conn_queue(c);
    memset(r, 0, offsetof(struct request, hdr));
    r->nkeys = 1;
    r->hdr_len = (uint32_t)proto_ascii_encode_get(r->hdr, HDR_CAP, key, strlen(key));
    conn_flush(c);
}

/* A UDP server socket on a free loopback port, named as the fixture's server. */
static void udp_loopback_server(struct fixture *f)
{
    struct sockaddr_in *sin = (struct sockaddr_in *)&f->srv.addr;
    socklen_t len = sizeof(*sin);
    sin->sin_family = AF_INET;
    sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    f->listener = socket(AF_INET, SOCK_DGRAM, 0);
    assert_int_equal(bind(f->listener, (struct sockaddr *)sin, len), 0);
    assert_int_equal(getsockname(f->listener, (struct sockaddr *)sin, &len), 0);
    f->srv.addr_len = len;
    snprintf(f->srv.name, sizeof(f->srv.name), "127.0.0.1:%d", ntohs(sin->sin_port));
}

/*
 * Two UDP conns of a thread share one socket: their requests leave together at the end of the
 * loop's turn, from one port; the answers, sent back in the other order, each reach the conn
 * whose request id they carry (a hit for one, a miss for the other).
 */
static void test_udp_shared_socket_routes_by_id(void **state)
{
    (void)state;
    struct fixture *f = calloc(1, sizeof(*f));
    struct udp_endpoints *set = NULL;
    struct conn other;
    struct request other_ring[RING];
    char other_hdrs[RING][HDR_CAP];
    struct heard other_heard = {0};
    assert_non_null(f);
    fixture_env(f, SLAP_NS_PER_SEC);
    assert_int_equal(udp_endpoints_init(&set, 1, 4), SLAP_OK); /* room for 4: 2 do not fill it */
    f->env.udp = set;
    udp_loopback_server(f);
    fixture_conn(f, true);
    for (int i = 0; i < RING; i++) {
        other_ring[i].hdr = other_hdrs[i];
    }
    struct conn_setup setup = {.owner = &other_heard,
                               .srv = &f->srv,
                               .udp = true,
                               .udp_answer_cap = 8 * UDP_MAX_DATAGRAM,
                               .ring = other_ring,
                               .cap = RING};
    assert_int_equal(conn_init(&other, &f->env, &setup), SLAP_OK);
    assert_int_equal(conn_connect(&f->conn), SLAP_OK);
    assert_int_equal(conn_connect(&other), SLAP_OK);
    assert_int_equal(f->conn.fd, other.fd); /* one socket */
    loop_until(f, &f->heard.connected, 1);
    loop_until(f, &other_heard.connected, 1);

    queue_get_on(&f->conn, "key1");
    queue_get_on(&other, "key2");
    char dgram[2][64];
    struct sockaddr_in from[2];
    socklen_t from_len = sizeof(from[0]);
    assert_int_equal(recv(f->listener, dgram[0], sizeof(dgram[0]), MSG_DONTWAIT), -1);
    event_base_loop(f->base, EVLOOP_ONCE | EVLOOP_NONBLOCK); /* the turn ends: both go */
    for (int i = 0; i < 2; i++) {
        from_len = sizeof(from[i]);
        assert_int_equal(recvfrom(f->listener, dgram[i], sizeof(dgram[i]), 0,
                                  (struct sockaddr *)&from[i], &from_len),
                         UDP_HEADER + 10);
    }
    assert_int_equal(from[0].sin_port, from[1].sin_port);
    int second = memcmp(dgram[0] + UDP_HEADER, "get key2", 8) == 0 ? 0 : 1;
    assert_memory_equal(dgram[second] + UDP_HEADER, "get key2\r\n", 10);
    assert_memory_equal(dgram[1 - second] + UDP_HEADER, "get key1\r\n", 10);

    /* key2's answer (a hit) first, then key1's (a miss), each under the frame header of its
     * request (the same id, seq 0 of 1) */
    char answer[64];
    memcpy(answer, dgram[second], UDP_HEADER);
    memcpy(answer + UDP_HEADER, "VALUE key2 0 2\r\nv2\r\nEND\r\n", 25);
    assert_int_equal(sendto(f->listener, answer, UDP_HEADER + 25, 0, (struct sockaddr *)&from[0],
                            sizeof(from[0])),
                     UDP_HEADER + 25);
    memcpy(answer, dgram[1 - second], UDP_HEADER);
    memcpy(answer + UDP_HEADER, "END\r\n", 5);
    assert_int_equal(sendto(f->listener, answer, UDP_HEADER + 5, 0, (struct sockaddr *)&from[0],
                            sizeof(from[0])),
                     UDP_HEADER + 5);
    loop_until(f, &f->heard.answered, 1);
    loop_until(f, &other_heard.answered, 1);
    assert_int_equal(other_heard.hits, 1);
    assert_int_equal(f->heard.hits, 0);
    assert_int_equal(f->counters.protocol_error, 0);

    conn_free(&other);
    conn_free(&f->conn);
    udp_endpoints_free(set); /* after its conns, before their loop */
    void *fx = f;
    teardown(&fx);
}

/* A fake transport: TCP's socket and system calls, each entry counted; it can be made to fail. */
enum fake_failure { FAKE_WORKS, FAKE_HANDSHAKE_FAILS, FAKE_WRITE_FAILS, FAKE_READ_FAILS };

static struct fake_calls {
    int open, attach, detach, handshake, readable, read, writev, answered, unasked, garbled, late,
        close;
} fake_calls;
static enum fake_failure fake_failure;

static int fake_open(const struct conn *c)
{
    fake_calls.open++;
    return transport_tcp.open(c);
}

static enum slap_status fake_attach(struct conn *c, const struct conn_setup *setup)
{
    (void)c;
    (void)setup;
    fake_calls.attach++;
    return SLAP_OK;
}

static void fake_detach(struct conn *c)
{
    (void)c;
    fake_calls.detach++;
}

/* Asks to wait for writable once, then is done (or fails). */
static enum slap_status fake_handshake(struct conn *c, int *want_write, char *err, size_t err_len)
{
    (void)c;
    if (fake_failure == FAKE_HANDSHAKE_FAILS) {
        snprintf(err, err_len, "fake: handshake refused");
        return SLAP_ERROR;
    }
    *want_write = 1;
    return ++fake_calls.handshake == 1 ? SLAP_AGAIN : SLAP_OK;
}

static void fake_readable(struct conn *c)
{
    fake_calls.readable++;
    conn_read_stream(c);
}

static ssize_t fake_read(struct conn *c, void *buf, size_t len, uint64_t *stamp_ns, char *err,
                         size_t err_len)
{
    (void)stamp_ns;
    fake_calls.read++;
    if (fake_failure == FAKE_READ_FAILS) {
        snprintf(err, err_len, "fake: read refused");
        errno = EPROTO;
        return -1;
    }
    return read(c->fd, buf, len);
}

static ssize_t fake_writev(struct conn *c, const struct iovec *iov, int n)
{
    fake_calls.writev++;
    if (fake_failure == FAKE_WRITE_FAILS) {
        errno = EIO;
        return -1;
    }
    return writev(c->fd, iov, n);
}

static void fake_answered(struct conn *c)
{
    (void)c;
    fake_calls.answered++;
}

static enum slap_status fake_unasked(struct conn *c, const struct proto_result *res)
{
    fake_calls.unasked++;
    return transport_tcp.unasked(c, res);
}

static enum slap_status fake_garbled(struct conn *c, const char *why)
{
    fake_calls.garbled++;
    return transport_tcp.garbled(c, why);
}

static void fake_late(struct conn *c)
{
    fake_calls.late++;
    transport_tcp.late(c);
}

static void fake_close(struct conn *c)
{
    fake_calls.close++;
    close(c->fd);
}

static const struct conn_transport fake_transport = {
    .name = "fake",
    .open = fake_open,
    .attach = fake_attach,
    .detach = fake_detach,
    .handshake = fake_handshake,
    .readable = fake_readable,
    .read = fake_read,
    .writev = fake_writev,
    .answered = fake_answered,
    .unasked = fake_unasked,
    .garbled = fake_garbled,
    .late = fake_late,
    .close = fake_close,
    .requests_per_write = UINT32_MAX,
};

/* A unix stream listener and a connection made with the fake transport, connecting. */
static struct fixture *fake_fixture(enum fake_failure failure)
{
    memset(&fake_calls, 0, sizeof(fake_calls));
    fake_failure = failure;
    struct fixture *f = unix_fixture(SOCK_STREAM, 0);
    assert_int_equal(listen(f->listener, 4), 0);
    conn_free(&f->conn);
    struct conn_setup setup = {
        .owner = &f->heard, .srv = &f->srv, .ring = f->ring, .cap = RING, .tx = &fake_transport};
    assert_int_equal(conn_init(&f->conn, &f->env, &setup), SLAP_OK);
    assert_ptr_equal(f->conn.tx, &fake_transport);
    assert_int_equal(fake_calls.attach, 1);
    assert_int_equal(conn_connect(&f->conn), SLAP_OK);
    assert_int_equal(fake_calls.open, 1);
    return f;
}

static void fake_accept(struct fixture *f)
{
    loop_until(f, &f->heard.connected, 1);
    f->peer = accept(f->listener, NULL, NULL);
    assert_true(f->peer >= 0);
}

static void fake_teardown(struct fixture *f)
{
    void *fx = f;
    teardown(&fx);
    assert_int_equal(fake_calls.detach, 1);
}

/* Every step goes through the connection's transport table: its handshake (waiting once for
 * writable), writes, reads, the answer, the time-out and the close. */
static void test_transport_table(void **state)
{
    (void)state;
    struct fixture *f = fake_fixture(FAKE_WORKS);
    fake_accept(f);
    assert_int_equal(fake_calls.handshake, 2);
    assert_int_equal(f->conn.state, CONN_READY);
    send_get(f, "key1");
    assert_int_equal(fake_calls.writev, 1);
    peer_expect(f, "get key1\r\n", 10);
    peer_write(f, "END\r\n");
    loop_until(f, &f->heard.answered, 1);
    assert_true(fake_calls.readable >= 1);
    assert_true(fake_calls.read >= 1);
    assert_int_equal(fake_calls.answered, 1);
    struct request *r = send_get(f, "key2");
    conn_check_timeout(&f->conn, r->sent_ns + 1);
    assert_int_equal(fake_calls.late, 1);
    assert_int_equal(f->heard.closed, 1);
    assert_string_equal(f->heard.why, "no answer within --timeout");
    assert_int_equal(fake_calls.close, 1);
    assert_int_equal(fake_calls.unasked + fake_calls.garbled, 0);
    fake_teardown(f);
}

/* A transport's failures are the connection's: a handshake refused, a write or a read that
 * fails, an answer to nothing and garbage are told as the transport says. */
static void test_transport_fails(void **state)
{
    (void)state;
    struct fixture *f = fake_fixture(FAKE_HANDSHAKE_FAILS);
    loop_until(f, &f->heard.connect_failed, 1);
    assert_string_equal(f->heard.why, "fake: handshake refused");
    assert_int_equal(f->conn.state, CONN_CLOSED);
    assert_int_equal(fake_calls.close, 1);
    fake_teardown(f);

    f = fake_fixture(FAKE_WRITE_FAILS);
    fake_accept(f);
    send_get(f, "key1");
    assert_int_equal(f->heard.closed, 1);
    assert_string_equal(f->heard.why, strerror(EIO));
    fake_teardown(f);

    f = fake_fixture(FAKE_READ_FAILS);
    fake_accept(f);
    send_get(f, "key1");
    peer_write(f, "END\r\n");
    loop_until(f, &f->heard.closed, 1);
    assert_string_equal(f->heard.why, "fake: read refused");
    assert_int_equal(f->heard.answered, 0);
    fake_teardown(f);

    f = fake_fixture(FAKE_WORKS);
    fake_accept(f);
    peer_write(f, "END\r\n");
    loop_until(f, &f->heard.closed, 1);
    assert_int_equal(fake_calls.unasked, 1);
    fake_teardown(f);

    f = fake_fixture(FAKE_WORKS);
    fake_accept(f);
    send_get(f, "key1");
    peer_write(f, "HELLO WORLD\r\n");
    loop_until(f, &f->heard.closed, 1);
    assert_int_equal(fake_calls.garbled, 1);
    assert_non_null(strstr(f->heard.why, "not a memcached response"));
    fake_teardown(f);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* as slap does: a write to a closed peer is an error, not death */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_request_and_answer, setup_stream, teardown),
        cmocka_unit_test_setup_teardown(test_partial_reads, setup_stream, teardown),
        cmocka_unit_test_setup_teardown(test_line_straddles_reads, setup_stream, teardown),
        cmocka_unit_test_setup_teardown(test_partial_writes, setup_stream, teardown),
        cmocka_unit_test_setup_teardown(test_close_mid_value, setup_stream, teardown),
        cmocka_unit_test_setup_teardown(test_garbage, setup_stream, teardown),
        cmocka_unit_test_setup_teardown(test_unsolicited_answer, setup_stream, teardown),
        cmocka_unit_test_setup_teardown(test_timeout, setup_stream, teardown),
        cmocka_unit_test_setup_teardown(test_reconnect_backoff, setup_stream, teardown),
        cmocka_unit_test_setup_teardown(test_server_refuses, setup_stream, teardown),
        cmocka_unit_test(test_connect_refused),
        cmocka_unit_test(test_no_reconnect_timer),
        cmocka_unit_test(test_udp_given_up),
        cmocka_unit_test(test_udp_shared_socket_routes_by_id),
        cmocka_unit_test(test_transport_table),
        cmocka_unit_test(test_transport_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
