/*
 * One socket to one server: connect, queue and write requests, read and parse responses.
 *
 *   conn_connect ──> CONNECTING ──(writable, SO_ERROR = 0)──> HANDSHAKE
 *                        │                                        └──> READY ──> ops->connected
 *                        └─(error or time-out)──> CLOSED ──> ops->connect_failed
 *   HANDSHAKE: the transport's (TLS's) steps, each waiting on the direction it asks for;
 *          TCP and UDP have none and are READY at once.
 *   A transport with join (UDP) shares one connected socket among a thread's conns to a
 *   server: conn_connect joins it; the conn is READY at the next turn of the loop.
 *   READY: conn_flush writes every queued request with c->tx->writev (one call for a
 *          whole pipeline); a short write arms wev and finishes later.
 *          readable: c->tx->readable; for a stream (TCP, TLS), conn_read_stream reads into
 *          the thread's buffer (after any carried partial line), answers the ring's oldest
 *          requests in order (ops->answered), carries a partial line to the next read, then
 *          ops->drained (once per read, not per answer). UDP's shared socket takes the
 *          datagrams of all its conns and hands each whole message to its conn's conn_parse.
 *          EOF, reset or garbage ──> CLOSED ──> ops->closed
 * The transport (TCP, TLS or UDP) is chosen once, by conn_init: this file calls it through
 * c->tx and never asks which it is. A connection knows its environment (loop, buffers, TLS
 * context, counters) and its owner only through the callbacks: it never reaches up.
 */
#include "slap/net/conn.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "stamp.h"
#include "transport.h"

#define CONN_IOV_MAX 96 /* iovecs per writev: 32 requests */

static void on_readable(evutil_socket_t fd, short what, void *arg);
static void on_writable(evutil_socket_t fd, short what, void *arg);

static struct request *ring_at(const struct conn *c, uint32_t i)
{
    assert(i < c->cap && c->head < c->cap); /* within the ring: the pipeline's depth */
    uint32_t at = c->head + i;
    return &c->ring[at >= c->cap ? at - c->cap : at];
}

static void on_retry(evutil_socket_t fd, short what, void *arg);

/* The transport, chosen here once for the conn's life: the setup's, else UDP for a datagram
 * socket, else TLS when the thread has a TLS context, else TCP (read by recvmsg for its
 * arrival stamps with --timestamps=kernel). */
static const struct conn_transport *transport_for(const struct conn_env *env,
                                                  const struct conn_setup *setup)
{
    if (setup->tx != NULL) {
        return setup->tx;
    }
    if (setup->udp) {
        return &transport_udp;
    }
    if (env->tls != NULL) {
        return &transport_tls;
    }
    return env->clock != NULL ? &transport_tcp_stamped : &transport_tcp;
}

enum slap_status conn_init(struct conn *c, const struct conn_env *env,
                           const struct conn_setup *setup)
{
    memset(c, 0, sizeof(*c));
    c->fd = -1;
    c->env = env;
    c->tx = transport_for(env, setup);
    c->owner = setup->owner;
    c->srv = setup->srv;
    c->server = setup->server;
    c->ring = setup->ring;
    c->cap = setup->cap;
    if (setup->hook != NULL) {
        c->hook = (struct proto_value_hook){setup->hook->begin, setup->hook->end, c};
    }
    if (setup->reconnect) { /* the loop comes later: the timer is assigned at its first use */
        c->retry = calloc(1, sizeof(*c->retry));
        if (c->retry == NULL) {
            return SLAP_ERROR;
        }
    }
    return c->tx->attach(c, setup);
}

enum slap_status conn_connect(struct conn *c)
{
    const struct conn_env *env = c->env;
    assert(c->state == CONN_CLOSED); /* a connection opens from closed only */
    c->fd = c->tx->join != NULL ? c->tx->join(c) : c->tx->open(c);
    if (c->fd < 0) {
        return SLAP_ERROR;
    }
    c->carry_len = 0;
    c->resp_bytes = 0;
    c->answers = 0;
    env->codec->reset(&c->parser, c->hook.begin != NULL ? &c->hook : NULL);
    event_assign(&c->rev, env->base, c->fd, EV_READ | EV_PERSIST, on_readable, c);
    event_assign(&c->wev, env->base, c->fd, EV_WRITE, on_writable, c);
    c->state = CONN_CONNECTING;
    c->connect_ns = slap_now_ns();
    if (c->tx->join != NULL) { /* a shared socket, connected already: READY at the next turn */
        event_active(&c->wev, EV_WRITE, 1);
        return SLAP_OK;
    }
    if (connect(c->fd, (const struct sockaddr *)&c->srv->addr, c->srv->addr_len) < 0 &&
        errno != EINPROGRESS) {
        int err = errno;
        conn_close(c);
        errno = err;
        return SLAP_ERROR;
    }
    struct timeval tv = slap_ns_to_timeval(env->connect_timeout_ns);
    event_add(&c->wev, &tv);
    return SLAP_OK;
}

/*
 * The requests still unsent could not go from from_ns (or their intended time, if later) until
 * now_ns: the socket was not connected, or the kernel took no more bytes. That wait is the
 * server's (or the network's), not slap's: add it to what held them. A closed loop's requests
 * are meant to go when written (intended_ns 0 until then).
 */
static void hold_unsent(struct conn *c, uint64_t from_ns, uint64_t now_ns)
{
    for (uint32_t i = c->written; i < c->count; i++) {
        struct request *r = ring_at(c, i);
        uint64_t since = r->intended_ns + r->held_ns;
        since = since > from_ns ? since : from_ns;
        if (r->intended_ns != 0 && now_ns > since) {
            r->held_ns += now_ns - since;
        }
    }
}

static void connected(struct conn *c)
{
    uint64_t now = slap_now_ns();
    assert(c->state == CONN_CONNECTING || c->state == CONN_HANDSHAKE);
    c->state = CONN_READY;
    c->connect_ns = now - c->connect_ns;
    hold_unsent(c, 0, now);
    if (c->tx->join == NULL) { /* a shared socket is read by its transport */
        event_add(&c->rev, NULL);
    }
    c->env->ops->connected(c);
}

static void connect_failed(struct conn *c, const char *why)
{
    conn_close(c);
    c->env->ops->connect_failed(c, why);
}

void conn_retry_later(struct conn *c)
{
    const struct conn_env *env = c->env;
    if (c->retry == NULL) {
        return; /* not set up to reconnect */
    }
    if (!event_initialized(c->retry)) {
        event_assign(c->retry, env->base, -1, 0, on_retry, c);
    }
    if (c->backoff_ns == 0) {
        c->backoff_ns = env->backoff_min_ns;
    }
    struct timeval tv = slap_ns_to_timeval(c->backoff_ns);
    event_add(c->retry, &tv);
    c->backoff_ns =
        c->backoff_ns * 2 > env->backoff_max_ns ? env->backoff_max_ns : c->backoff_ns * 2;
}

void conn_retry_cancel(struct conn *c)
{
    if (c->retry != NULL && event_initialized(c->retry)) {
        event_del(c->retry);
    }
}

static void on_retry(evutil_socket_t fd, short what, void *arg)
{
    struct conn *c = arg;
    (void)fd;
    (void)what;
    if (conn_connect(c) != SLAP_OK) {
        conn_retry_later(c);
    }
}

/* One more step of the transport's handshake; waits on whichever direction it needs. */
static void handshake(struct conn *c, short what)
{
    char err[256];
    int want_write = 0;
    if (what & EV_TIMEOUT) {
        snprintf(err, sizeof(err), "%s: no %s within the connect time-out", c->tx->name,
                 c->auth_state != 0 ? "answer to its authentication" : "handshake");
        connect_failed(c, err);
        return;
    }
    /* the transport's handshake, then --auth's exchange over it */
    int rc = c->auth_state == 0 ? c->tx->handshake(c, &want_write, err, sizeof(err)) : SLAP_OK;
    if (rc == SLAP_OK && c->env->auth != NULL) {
        rc = conn_auth_step(c, &want_write, err, sizeof(err));
    }
    if (rc == SLAP_OK) {
        event_del(&c->rev);
        connected(c);
    } else if (rc == SLAP_AGAIN) {
        /* one deadline for the whole set-up (connect, TLS, authentication), from the connect:
         * a server dripping its answer a byte at a time does not re-arm it */
        uint64_t deadline = c->connect_ns + c->env->connect_timeout_ns, now = slap_now_ns();
        if (now >= deadline) {
            snprintf(err, sizeof(err), "%s: no %s within the connect time-out", c->tx->name,
                     c->auth_state != 0 ? "answer to its authentication" : "handshake");
            connect_failed(c, err);
            return;
        }
        struct timeval tv = slap_ns_to_timeval(deadline - now);
        event_add(want_write ? &c->wev : &c->rev, &tv);
    } else {
        connect_failed(c, err);
    }
}

static void finish_connect(struct conn *c, short what)
{
    int err = (what & EV_TIMEOUT) != 0 ? ETIMEDOUT : 0;
    socklen_t len = sizeof(err);

    /* A shared socket's error is not this conn's: its transport reads it. */
    if (err == 0 && c->tx->join == NULL &&
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0) {
        err = errno;
    }
    if (err != 0) {
        connect_failed(c, strerror(err));
        return;
    }
    assert(c->state == CONN_CONNECTING);
    c->state = CONN_HANDSHAKE;
    handshake(c, 0);
}

void conn_close(struct conn *c)
{
    if (c->state == CONN_CLOSED) {
        return;
    }
    event_del(&c->rev);
    event_del(&c->wev);
    c->tx->close(c);
    conn_auth_reset(c);
    c->fd = -1;
    c->state = CONN_CLOSED;
    c->write_blocked = false;
    c->carry_len = 0;
}

void conn_free(struct conn *c)
{
    conn_close(c);
    conn_retry_cancel(c);
    free(c->retry);
    c->retry = NULL;
    if (c->tx != NULL) { /* NULL: a conn never given to conn_init, zeroed with its slab */
        c->tx->detach(c);
    }
    free(c->carry);
    c->carry = NULL;
}

void conn_fail(struct conn *c, const char *why)
{
    conn_close(c);
    c->env->ops->closed(c, why);
}

struct request *conn_queue(struct conn *c)
{
    assert(c->count < c->cap && c->written <= c->count); /* the owner queues only into room */
    struct request *r = ring_at(c, c->count);
    c->count++;
    c->dirty = true;
    return r;
}

struct request *conn_at(const struct conn *c, uint32_t i)
{
    return ring_at(c, i);
}

uint32_t conn_sent_count(const struct conn *c)
{
    return c->written + (c->partial > 0 ? 1 : 0);
}

bool conn_waiting_since(const struct conn *c, uint64_t *since_ns)
{
    if (c->count == 0) {
        return false;
    }
    const struct request *r = ring_at(c, 0);
    *since_ns = r->sent_ns != 0 ? r->sent_ns : r->intended_ns;
    return true;
}

bool conn_answer_unread(const struct conn *c)
{
    int n = 0;
    return c->count > 0 && c->fd >= 0 && ioctl(c->fd, FIONREAD, &n) == 0 && n > 0;
}

uint32_t conn_drop_sent(struct conn *c)
{
    uint32_t lost = conn_sent_count(c);
    c->head = (c->head + lost) % c->cap;
    c->count -= lost;
    c->written = 0;
    c->partial = 0;
    return lost;
}

uint32_t conn_drop_all(struct conn *c)
{
    uint32_t dropped = c->count;
    c->head = 0;
    c->count = 0;
    c->written = 0;
    c->partial = 0;
    return dropped;
}

/* iovecs for the unwritten bytes, from the first request not yet written whole, of as many
 * requests as the transport takes in one write. */
static int gather(const struct conn *c, struct iovec *iov)
{
    int n = 0;
    uint32_t skip = c->partial;
    uint32_t per_write = c->tx->requests_per_write;
    uint32_t last = c->count - c->written > per_write ? c->written + per_write : c->count;
    for (uint32_t i = c->written; i < last && n + 3 <= CONN_IOV_MAX; i++) {
        const struct request *r = ring_at(c, i);
        const char *parts[3] = {r->hdr, r->value, "\r\n"};
        uint32_t lens[3] = {r->hdr_len, r->value_len, r->crlf ? 2 : 0};
        for (int p = 0; p < 3; p++) {
            if (skip >= lens[p]) {
                skip -= lens[p];
                continue;
            }
            iov[n].iov_base = (void *)(parts[p] + skip);
            iov[n].iov_len = lens[p] - skip;
            skip = 0;
            n++;
        }
    }
    return n;
}

/* Mark the requests that `done` more bytes completed, with the time of their writev. */
static void advance(struct conn *c, uint64_t done, uint64_t now_ns)
{
    uint64_t left = done + c->partial;
    while (c->written < c->count) {
        struct request *r = ring_at(c, c->written);
        uint32_t len = r->hdr_len + r->value_len + (r->crlf ? 2 : 0);
        if (left < len) {
            break;
        }
        left -= len;
        r->sent_ns = now_ns;
        if (r->intended_ns == 0) {
            r->intended_ns = now_ns; /* closed loop: meant to go now */
        }
        c->written++;
        c->env->ops->sent(c, r);
    }
    c->partial = (uint32_t)left;
}

static enum slap_status write_queued(struct conn *c)
{
    for (;;) {
        struct iovec iov[CONN_IOV_MAX];
        int n = gather(c, iov);
        if (n == 0) {
            return SLAP_OK;
        }
        uint64_t now = slap_now_ns();
        ssize_t done = c->tx->writev(c, iov, n);
        if (done < 0) {
            if (errno == EINTR) {
                continue;
            }
            return errno == EAGAIN || errno == EWOULDBLOCK ? SLAP_AGAIN : SLAP_ERROR;
        }
        c->env->counters->written_bytes += (uint64_t)done;
        advance(c, (uint64_t)done, now);
    }
}

static void flush_ready(struct conn *c)
{
    if (c->write_blocked) {
        hold_unsent(c, c->blocked_ns, slap_now_ns());
    }
    int rc = write_queued(c);
    if (rc == SLAP_AGAIN && !c->write_blocked) {
        c->blocked_ns = slap_now_ns();
    }
    c->write_blocked = rc == SLAP_AGAIN;
    if (rc == SLAP_AGAIN) {
        event_add(&c->wev, NULL);
    } else if (rc == SLAP_ERROR) {
        conn_fail(c, strerror(errno));
    }
}

void conn_flush(struct conn *c)
{
    c->dirty = false;
    if (c->state == CONN_READY && !c->write_blocked) {
        flush_ready(c);
    }
}

static void on_writable(evutil_socket_t fd, short what, void *arg)
{
    struct conn *c = arg;
    (void)fd;
    if (c->state == CONN_CONNECTING) {
        finish_connect(c, what);
        return;
    }
    if (c->state == CONN_HANDSHAKE) {
        handshake(c, what);
        return;
    }
    flush_ready(c);
}

/* One complete response: it answers the oldest written request. */
static enum slap_status answer(struct conn *c, const struct proto_result *res, uint64_t now_ns,
                               uint64_t kernel_ns)
{
    if (c->written == 0) {
        return c->tx->unasked(c, res);
    }
    if (res->reply != PROTO_REPLY_ERROR && res->reply != PROTO_REPLY_CLIENT_ERROR &&
        res->reply != PROTO_REPLY_SERVER_ERROR && c->answers++ == 0) {
        c->backoff_ns = 0; /* the connection works: a later close reconnects quickly again */
    }
    assert(c->written <= c->count && c->count <= c->cap);
    struct request *r = ring_at(c, 0);
    c->tx->answered(c);
    c->head = c->head + 1 == c->cap ? 0 : c->head + 1;
    c->count--;
    c->written--;
    c->env->ops->answered(c, r, res, now_ns, kernel_ns);
    c->resp_bytes = 0;
    return c->state == CONN_READY ? SLAP_OK : SLAP_ERROR;
}

/*
 * Keep the partial line that ends a read (the parser leaves at most PROTO_ASCII_MAX_LINE
 * bytes) until the next one. The carry is made the first time a socket needs it and kept
 * until conn_free: at most one allocation in a connection's life, never one per request,
 * and none at all on the many sockets whose answers never straddle two reads.
 */
static enum slap_status keep_partial(struct conn *c, const char *rest, size_t len)
{
    c->carry_len = (uint32_t)len;
    if (len == 0) {
        return SLAP_OK;
    }
    if (c->carry == NULL && (c->carry = malloc(PROTO_ASCII_MAX_LINE)) == NULL) {
        c->carry_len = 0;
        conn_fail(c, "out of memory for a partial line");
        return SLAP_ERROR;
    }
    memcpy(c->carry, rest, len);
    return SLAP_OK;
}

/* Tell the parser which request the next bytes answer: the oldest written, if any. */
static void tell_asked(struct conn *c)
{
    const struct request *r = c->written > 0 ? ring_at(c, 0) : NULL;
    c->env->codec->asked(&c->parser, r != NULL ? r->hdr : NULL, r != NULL ? r->hdr_len : 0);
}

/* A parse said SLAP_ERROR: count it, say what came back when the parser knows more than
 * "garbage" (once per kind and server, the server's bytes escaped), and give the reason
 * for closing. */
static const char *protocol_error(struct conn *c, const struct proto_result *res)
{
    c->env->counters->protocol_error++;
    if (res->fault == PROTO_FAULT_GARBAGE) {
        return "the server sent bytes that are not a memcached response";
    }
    char detail[PROTO_FAULT_DETAIL];
    proto_fault_describe(detail, sizeof(detail), res);
    c->env->ops->fault(c, proto_fault_name(res->fault), detail);
    return res->fault == PROTO_FAULT_TOO_LARGE
               ? "the server sent bytes that are not a memcached response"
               : "a reply that does not answer the request sent";
}

enum slap_status conn_parse(struct conn *c, const char *buf, size_t len, uint64_t now_ns,
                            uint64_t kernel_ns)
{
    size_t off = 0;
    while (off < len) {
        struct proto_result res;
        size_t used = 0;
        tell_asked(c);
        int rc = c->env->codec->parse(&c->parser, buf + off, len - off, &used, &res);
        off += used;
        c->resp_bytes += used;
        if (rc == SLAP_AGAIN) {
            break;
        }
        if (rc == SLAP_ERROR) {
            return c->tx->garbled(c, protocol_error(c, &res));
        }
        if (answer(c, &res, now_ns, kernel_ns) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return keep_partial(c, buf + off, len - off);
}

void conn_give_up(struct conn *c)
{
    c->carry_len = 0;
    c->env->codec->reset(&c->parser, c->hook.begin != NULL ? &c->hook : NULL);
    uint64_t now = slap_now_ns();
    for (uint32_t i = 0; i < conn_sent_count(c); i++) {
        c->env->ops->given_up(c, ring_at(c, i), now);
    }
    conn_drop_sent(c);
}

void conn_unstamped(struct conn *c)
{
    char detail[200];
    if (c->unstamped_told) {
        return;
    }
    c->unstamped_told = true;
    const char *why = c->tx->unstamped != NULL ? c->tx->unstamped : "a read came without one";
    if (c->srv != NULL && c->srv->addr.ss_family == AF_UNIX) {
        why = "the kernel does not stamp a unix socket's bytes";
    }
    snprintf(detail, sizeof(detail), "%s: %s; its latencies end at slap's read", c->tx->name, why);
    c->env->ops->fault(c, "no kernel arrival stamps", detail);
}

void conn_read_stream(struct conn *c)
{
    const struct conn_env *env = c->env;
    char err[256];
    err[0] = '\0'; /* only a transport with reasons of its own (TLS) fills it */
    for (;;) {
        if (c->carry_len > 0) {
            memcpy(env->rbuf, c->carry, c->carry_len);
        }
        size_t room = env->rbuf_size - c->carry_len;
        uint64_t stamp = 0;
        ssize_t n = c->tx->read(c, env->rbuf + c->carry_len, room, &stamp, err, sizeof(err));
        if (n <= 0) {
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
                break;
            }
            conn_fail(c, n == 0   ? "connection closed by the server"
                         : err[0] ? err
                                  : strerror(errno));
            return;
        }
        uint64_t now = slap_now_ns();
        uint64_t arrived = 0;
        if (env->clock != NULL) {
            if (stamp != 0) {
                arrived = stamp_in_clock(env->clock, stamp, now);
            } else {
                conn_unstamped(c);
            }
        }
        env->counters->read_bytes += (uint64_t)n;
        if (conn_parse(c, env->rbuf, c->carry_len + (size_t)n, now, arrived) != SLAP_OK) {
            return;
        }
        if ((size_t)n < room && !c->tx->read_until_again) {
            break; /* the kernel had no more */
        }
    }
    env->ops->drained(c);
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
    struct conn *c = arg;
    (void)fd;
    if (c->state == CONN_HANDSHAKE) {
        handshake(c, what);
        return;
    }
    c->tx->readable(c);
}

struct request *conn_oldest(struct conn *c)
{
    return c->written > 0 ? ring_at(c, 0) : NULL;
}

void conn_check_timeout(struct conn *c, uint64_t deadline_ns)
{
    if (c->state == CONN_READY && c->written > 0 && ring_at(c, 0)->sent_ns < deadline_ns) {
        c->tx->late(c);
    }
}
