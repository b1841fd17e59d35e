/*
 * One socket to one server: connect, queue and write requests, read and parse responses.
 *
 *   conn_connect ──> CONNECTING ──(writable, SO_ERROR = 0)──> READY ──> ops->connected
 *                        │             └─(--tls)──> HANDSHAKE ──> READY
 *                        └─(error or time-out)──> CLOSED ──> ops->connect_failed
 *   READY: conn_flush writes every queued request with writev (one call for a
 *          whole pipeline); a short write arms wev and finishes later.
 *          readable: read into the thread's buffer (after any carried partial line),
 *          answer the ring's oldest requests in order (ops->answered), carry a partial
 *          line to the next read, then ops->drained (once per read, not per answer).
 *          EOF, reset or garbage ──> CLOSED ──> ops->closed
 * A connection knows its environment (loop, buffers, TLS context, counters) and its
 * owner only through the callbacks: it never reaches up.
 */
#include "slap/conn.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "slap/tls.h"

#define CONN_IOV_MAX 96   /* iovecs per writev: 32 requests */
#define CONN_UDP_BATCH 16 /* datagrams per recvmmsg */

static void on_readable(evutil_socket_t fd, short what, void *arg);
static void on_writable(evutil_socket_t fd, short what, void *arg);

/*
 * read(2) and writev(2) for the request path. glibc's wrappers are cancellation points: in a
 * program with threads each call also switches asynchronous cancellation on and off, about
 * half again the wrapper's instructions. slap never cancels a thread, so on Linux it makes the
 * same system calls through syscall(2) (the sanitizers keep the wrappers, which they check).
 */
#if defined(__linux__) && defined(SYS_read) && defined(SYS_writev) &&                              \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
static ssize_t sock_read(int fd, void *buf, size_t len)
{
    return (ssize_t)syscall(SYS_read, fd, buf, len);
}

static ssize_t sock_writev(int fd, const struct iovec *iov, int n)
{
    return (ssize_t)syscall(SYS_writev, fd, iov, n);
}
#else
static ssize_t sock_read(int fd, void *buf, size_t len)
{
    return read(fd, buf, len);
}

static ssize_t sock_writev(int fd, const struct iovec *iov, int n)
{
    return writev(fd, iov, n);
}
#endif

static struct request *ring_at(const struct conn *c, uint32_t i)
{
    uint32_t at = c->head + i;
    return &c->ring[at >= c->cap ? at - c->cap : at];
}

static int open_socket(const struct server *srv, bool udp)
{
    int type = udp ? SOCK_DGRAM : SOCK_STREAM;
    int fd = socket(srv->addr.ss_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    int one = 1;
    if (!udp && (srv->addr.ss_family == AF_INET || srv->addr.ss_family == AF_INET6)) {
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    }
    return fd;
}

static void on_retry(evutil_socket_t fd, short what, void *arg);
static void on_udp_timeout(evutil_socket_t fd, short what, void *arg);

enum slap_status conn_init(struct conn *c, const struct conn_env *env,
                           const struct conn_setup *setup)
{
    memset(c, 0, sizeof(*c));
    c->fd = -1;
    c->env = env;
    c->owner = setup->owner;
    c->srv = setup->srv;
    c->server = setup->server;
    c->udp = setup->udp;
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
    if (c->udp) {
        c->dgram = calloc(1, sizeof(*c->dgram));
        if (c->dgram == NULL) {
            return SLAP_ERROR;
        }
        return udp_reasm_init(&c->dgram->reasm, setup->udp_answer_cap);
    }
    return SLAP_OK;
}

enum slap_status conn_connect(struct conn *c)
{
    const struct conn_env *env = c->env;
    c->fd = open_socket(c->srv, c->udp);
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

static void connected(struct conn *c)
{
    c->state = CONN_READY;
    event_add(&c->rev, NULL);
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

/* --tls: one more step of the handshake; waits on whichever direction it needs. */
static void handshake(struct conn *c, short what)
{
    char err[256];
    int want_write = 0;
    if (what & EV_TIMEOUT) {
        connect_failed(c, "TLS: no handshake within the connect time-out");
        return;
    }
    int rc = tls_handshake(c->tls, &want_write, err, sizeof(err));
    if (rc == SLAP_OK) {
        event_del(&c->rev);
        connected(c);
    } else if (rc == SLAP_AGAIN) {
        struct timeval tv = slap_ns_to_timeval(c->env->connect_timeout_ns);
        event_add(want_write ? &c->wev : &c->rev, &tv);
    } else {
        connect_failed(c, err);
    }
}

static void finish_connect(struct conn *c, short what)
{
    int err = ETIMEDOUT;
    socklen_t len = sizeof(err);

    if ((what & EV_TIMEOUT) == 0 && getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0) {
        err = errno;
    }
    if (err != 0) {
        connect_failed(c, strerror(err));
        return;
    }
    if (c->env->tls == NULL) {
        connected(c);
        return;
    }
    c->tls = tls_conn_open(c->env->tls, c->fd, c->srv->host);
    if (c->tls == NULL) {
        connect_failed(c, "TLS: cannot start a session");
        return;
    }
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
    tls_conn_close(c->tls);
    c->tls = NULL;
    if (c->dgram != NULL && event_initialized(&c->dgram->timeout)) {
        event_del(&c->dgram->timeout);
    }
    close(c->fd);
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
    if (c->dgram != NULL) {
        if (event_initialized(&c->dgram->timeout)) {
            event_del(&c->dgram->timeout);
        }
        udp_reasm_free(&c->dgram->reasm);
        free(c->dgram);
        c->dgram = NULL;
    }
    free(c->carry);
    c->carry = NULL;
}

static void fail(struct conn *c, const char *why)
{
    conn_close(c);
    c->env->ops->closed(c, why);
}

struct request *conn_queue(struct conn *c)
{
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

/* iovecs for the unwritten bytes, from the first request not yet written whole. */
static int gather(const struct conn *c, struct iovec *iov)
{
    int n = 0;
    if (c->udp) { /* one request a datagram, behind its frame header */
        if (c->written == c->count) {
            return 0;
        }
        iov[n].iov_base = (void *)c->dgram->frame;
        iov[n++].iov_len = UDP_HEADER;
    }
    uint32_t skip = c->partial;
    uint32_t last = c->udp ? c->written + 1 : c->count;
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

/* UDP: a request went out; gather its answer and give it --udp_timeout to come. */
static void udp_sent(struct conn *c)
{
    struct conn_dgram *d = c->dgram;
    udp_reasm_start(&d->reasm, d->request_id);
    if (!event_initialized(&d->timeout)) {
        event_assign(&d->timeout, c->env->base, -1, 0, on_udp_timeout, c);
    }
    struct timeval tv = slap_ns_to_timeval(c->env->udp_timeout_ns);
    event_add(&d->timeout, &tv);
}

/* UDP: the answer did not come whole in time: count it, forget the request, go on. */
/* UDP: forget the request in flight, whose answer did not come whole or came wrong; its late
 * datagrams are stale from now on. The socket goes on with the next request. */
static void udp_give_up(struct conn *c)
{
    struct conn_dgram *d = c->dgram;
    if (event_initialized(&d->timeout)) {
        event_del(&d->timeout);
    }
    c->carry_len = 0;
    c->env->codec->reset(&c->parser, c->hook.begin != NULL ? &c->hook : NULL);
    udp_reasm_start(&d->reasm, (uint16_t)(d->request_id + 1));
    uint64_t now = slap_now_ns();
    for (uint32_t i = 0; i < conn_sent_count(c); i++) {
        c->env->ops->given_up(c, ring_at(c, i), now);
    }
    conn_drop_sent(c);
}

static void on_udp_timeout(evutil_socket_t fd, short what, void *arg)
{
    struct conn *c = arg;
    struct slap_counters *k = c->env->counters;
    uint32_t missing = udp_reasm_missing(&c->dgram->reasm);
    (void)fd;
    (void)what;
    k->udp_timeout++;
    k->packet_drop += missing > 0 ? missing : 1;
    c->env->ops->fault(c, c->env->udp_timeout_fault,
                       "given up (datagrams lost, late or cut short)");
    udp_give_up(c);
    c->env->ops->drained(c);
}

/* --tls: the gathered bytes as one buffer for SSL_write (TLS copies anyway). */
static ssize_t tls_writev(struct conn *c, const struct iovec *iov, int n)
{
    char *out = c->env->tls_out;
    size_t room = c->env->tls_out_size;
    size_t len = 0;
    for (int i = 0; i < n && len < room; i++) {
        size_t take = iov[i].iov_len < room - len ? iov[i].iov_len : room - len;
        memcpy(out + len, iov[i].iov_base, take);
        len += take;
    }
    size_t done = 0;
    int want_write = 0;
    char err[256];
    int rc = tls_write(c->tls, out, len, &done, &want_write, err, sizeof(err));
    if (rc == SLAP_OK) {
        return (ssize_t)done;
    }
    errno = rc == SLAP_AGAIN ? EAGAIN : EPROTO;
    return -1;
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
        if (c->udp) {
            udp_frame_encode(c->dgram->frame, ++c->dgram->request_id, 0, 1);
        }
        ssize_t done = c->tls != NULL ? tls_writev(c, iov, n) : sock_writev(c->fd, iov, n);
        if (done < 0) {
            if (errno == EINTR) {
                continue;
            }
            return errno == EAGAIN || errno == EWOULDBLOCK ? SLAP_AGAIN : SLAP_ERROR;
        }
        c->env->counters->written_bytes += (uint64_t)done;
        if (c->udp) {
            udp_sent(c);
            done -= UDP_HEADER;
        }
        advance(c, (uint64_t)done, now);
    }
}

static void flush_ready(struct conn *c)
{
    int rc = write_queued(c);
    c->write_blocked = rc == SLAP_AGAIN;
    if (rc == SLAP_AGAIN) {
        event_add(&c->wev, NULL);
    } else if (rc == SLAP_ERROR) {
        fail(c, strerror(errno));
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
static enum slap_status answer(struct conn *c, const struct proto_result *res, uint64_t now_ns)
{
    if (c->written == 0 && c->udp) {
        c->env->ops->fault(c, "UDP answer to no request", "ignored (a duplicated or late one)");
        return SLAP_OK;
    }
    if (c->written == 0) {
        if (res->reply == PROTO_REPLY_ERROR || res->reply == PROTO_REPLY_CLIENT_ERROR ||
            res->reply == PROTO_REPLY_SERVER_ERROR) {
            c->env->ops->unsolicited(c, res); /* the server talking: it closes next */
            fail(c, "the server closed it after an error line");
            return SLAP_ERROR;
        }
        c->env->counters->protocol_error++;
        fail(c, "the server answered a request that was not sent");
        return SLAP_ERROR;
    }
    if (res->reply != PROTO_REPLY_ERROR && res->reply != PROTO_REPLY_CLIENT_ERROR &&
        res->reply != PROTO_REPLY_SERVER_ERROR && c->answers++ == 0) {
        c->backoff_ns = 0; /* the connection works: a later close reconnects quickly again */
    }
    struct request *r = ring_at(c, 0);
    if (c->udp) {
        event_del(&c->dgram->timeout);
    }
    c->head = c->head + 1 == c->cap ? 0 : c->head + 1;
    c->count--;
    c->written--;
    c->env->ops->answered(c, r, res, now_ns);
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
        fail(c, "out of memory for a partial line");
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

/* Parse every complete response in buf; keep a partial line. SLAP_ERROR if closed. */
static enum slap_status parse_all(struct conn *c, const char *buf, size_t len, uint64_t now_ns)
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
        if (rc == SLAP_ERROR && c->udp) {
            protocol_error(c, &res);
            c->env->ops->fault(c, "bad UDP answer",
                               "not a memcached response: its request is given up");
            udp_give_up(c);
            return SLAP_OK; /* datagrams are separate: the socket goes on */
        }
        if (rc == SLAP_ERROR) {
            fail(c, protocol_error(c, &res));
            return SLAP_ERROR;
        }
        if (answer(c, &res, now_ns) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return keep_partial(c, buf + off, len - off);
}

/* --tls: read like read(2); EAGAIN when the session needs more bytes. */
static ssize_t tls_read_into(struct conn *c, char *buf, size_t room, char *err, size_t err_len)
{
    size_t n = 0;
    int want_write = 0;
    int rc = tls_read(c->tls, buf, room, &n, &want_write, err, err_len);
    if (rc == SLAP_OK) {
        return (ssize_t)n;
    }
    errno = rc == SLAP_AGAIN ? EAGAIN : EPROTO;
    return -1;
}

/* UDP: one whole message of the answer, after any partial line carried from the last. */
static enum slap_status udp_message(struct conn *c, const char *msg, size_t len, uint64_t now_ns)
{
    char *ubuf = c->env->ubuf;
    if (c->carry_len == 0) {
        return parse_all(c, msg, len, now_ns);
    }
    memcpy(ubuf, c->carry, c->carry_len);
    memcpy(ubuf + c->carry_len, msg, len);
    return parse_all(c, ubuf, c->carry_len + len, now_ns);
}

/* UDP: one datagram of the answer; SLAP_ERROR if the socket closed while parsing. */
static enum slap_status udp_datagram(struct conn *c, const char *data, size_t n, uint64_t now_ns)
{
    struct slap_counters *k = c->env->counters;
    struct conn_dgram *d = c->dgram;
    const char *msg;
    size_t len;
    k->read_bytes += (uint64_t)n;
    int rc = udp_reasm_add(&d->reasm, (const uint8_t *)data, n, &msg, &len);
    k->packet_disorder += d->reasm.disorder - d->disorder_seen;
    d->disorder_seen = d->reasm.disorder;
    if (rc == SLAP_ERROR) {
        k->protocol_error++;
        c->env->ops->fault(c, "bad UDP datagram", d->reasm.why);
        return SLAP_OK;
    }
    if (d->reasm.stale != d->stale_seen) {
        d->stale_seen = d->reasm.stale;
        c->env->ops->fault(c, "UDP datagram of an unknown request id",
                           "ignored (a late answer, or not ours)");
    }
    if (d->reasm.duplicates != d->duplicates_seen) {
        d->duplicates_seen = d->reasm.duplicates;
        c->env->ops->fault(c, "duplicated UDP datagram", "ignored");
    }
    return rc == SLAP_OK ? udp_message(c, msg, len, now_ns) : SLAP_OK;
}

/*
 * UDP: take every datagram that is there, up to CONN_UDP_BATCH a recvmmsg call
 * (an answer of several datagrams costs one call, not one per datagram).
 */
static void udp_readable(struct conn *c)
{
    const struct conn_env *env = c->env;
    struct mmsghdr msgs[CONN_UDP_BATCH];
    struct iovec iov[CONN_UDP_BATCH];
    size_t slot = env->rbuf_size / CONN_UDP_BATCH;
    for (;;) {
        for (int i = 0; i < CONN_UDP_BATCH; i++) {
            iov[i] = (struct iovec){.iov_base = env->rbuf + (size_t)i * slot, .iov_len = slot};
            msgs[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i], .msg_iovlen = 1}};
        }
        int got = recvmmsg(c->fd, msgs, CONN_UDP_BATCH, MSG_DONTWAIT, NULL);
        if (got < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                fail(c, strerror(errno)); /* e.g. ECONNREFUSED: no UDP port there */
                return;
            }
            break;
        }
        uint64_t now = slap_now_ns();
        for (int i = 0; i < got; i++) {
            if (udp_datagram(c, iov[i].iov_base, msgs[i].msg_len, now) != SLAP_OK) {
                return;
            }
        }
        if (got < CONN_UDP_BATCH) {
            break;
        }
    }
    env->ops->drained(c);
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
    struct conn *c = arg;
    const struct conn_env *env = c->env;
    char err[256];
    (void)what;
    err[0] = '\0'; /* only a TLS read fills it */
    if (c->udp) {
        udp_readable(c);
        return;
    }
    if (c->state == CONN_HANDSHAKE) {
        handshake(c, what);
        return;
    }
    for (;;) {
        if (c->carry_len > 0) {
            memcpy(env->rbuf, c->carry, c->carry_len);
        }
        size_t room = env->rbuf_size - c->carry_len;
        char *into = env->rbuf + c->carry_len;
        ssize_t n = c->tls != NULL ? tls_read_into(c, into, room, err, sizeof(err))
                                   : sock_read(fd, into, room);
        if (n <= 0) {
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
                break;
            }
            fail(c, n == 0 ? "connection closed by the server" : err[0] ? err : strerror(errno));
            return;
        }
        uint64_t now = slap_now_ns();
        env->counters->read_bytes += (uint64_t)n;
        if (parse_all(c, env->rbuf, c->carry_len + (size_t)n, now) != SLAP_OK) {
            return;
        }
        if ((size_t)n < room && c->tls == NULL) {
            break; /* a TLS session may hold more decrypted bytes: read until EAGAIN */
        }
    }
    env->ops->drained(c);
}

struct request *conn_oldest(struct conn *c)
{
    return c->written > 0 ? ring_at(c, 0) : NULL;
}

void conn_check_timeout(struct conn *c, uint64_t deadline_ns)
{
    if (!c->udp && c->state == CONN_READY && c->written > 0 &&
        ring_at(c, 0)->sent_ns < deadline_ns) {
        fail(c, c->env->timeout_fault);
    }
}
