/*
 * One socket to one server: connect, write a request, read and parse responses.
 *
 *   conn_connect ──> CONNECTING ──(writable, SO_ERROR = 0)──> READY ──> lane_on_connected
 *                        └─(error or time-out)──> CLOSED ──> lane_on_connect_failed
 *   READY: conn_send writes with writev; a short write arms wev and finishes later.
 *          readable: read into the thread's buffer (after any carried partial line),
 *          parse every complete response, carry the partial line to the next read.
 *          EOF, reset or garbage ──> CLOSED ──> lane_on_closed
 */
#include "slap/conn.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "slap/client.h"
#include "slap/common.h"
#include "slap/servers.h"
#include "slap/worker.h"

static void on_readable(evutil_socket_t fd, short what, void *arg);
static void on_writable(evutil_socket_t fd, short what, void *arg);

static struct worker *conn_worker(const struct conn *c)
{
    return c->lane->client->worker;
}

static int open_socket(const struct server *srv)
{
    int fd = socket(srv->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    int one = 1;
    if (srv->addr.ss_family == AF_INET || srv->addr.ss_family == AF_INET6) {
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    }
    return fd;
}

int conn_connect(struct conn *c, const struct server *srv, struct event_base *base,
                 uint64_t timeout_ns)
{
    c->fd = open_socket(srv);
    if (c->fd < 0) {
        return SLAP_ERROR;
    }
    c->carry_len = 0;
    c->resp_bytes = 0;
    proto_ascii_parser_reset(&c->parser);
    event_assign(&c->rev, base, c->fd, EV_READ | EV_PERSIST, on_readable, c);
    event_assign(&c->wev, base, c->fd, EV_WRITE, on_writable, c);
    c->state = CONN_CONNECTING;
    if (connect(c->fd, (const struct sockaddr *)&srv->addr, srv->addr_len) < 0 &&
        errno != EINPROGRESS) {
        int err = errno;
        conn_close(c);
        errno = err;
        return SLAP_ERROR;
    }
    struct timeval tv = slap_ns_to_timeval(timeout_ns);
    event_add(&c->wev, &tv);
    return SLAP_OK;
}

static void finish_connect(struct conn *c, short what)
{
    int err = ETIMEDOUT;
    socklen_t len = sizeof(err);

    if ((what & EV_TIMEOUT) == 0 && getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0) {
        err = errno;
    }
    if (err != 0) {
        conn_close(c);
        lane_on_connect_failed(c->lane, c, err);
        return;
    }
    c->state = CONN_READY;
    event_add(&c->rev, NULL);
    lane_on_connected(c->lane, c);
}

void conn_close(struct conn *c)
{
    if (c->state == CONN_CLOSED) {
        return;
    }
    event_del(&c->rev);
    event_del(&c->wev);
    close(c->fd);
    c->fd = -1;
    c->state = CONN_CLOSED;
    c->carry_len = 0;
}

void conn_free(struct conn *c)
{
    conn_close(c);
    if (event_initialized(&c->retry)) {
        event_del(&c->retry);
    }
}

static void fail(struct conn *c, const char *why)
{
    conn_close(c);
    lane_on_closed(c->lane, c, why);
}

/* Write what is left of the request; one writev in the common case. */
static int write_rest(struct conn *c)
{
    for (;;) {
        struct iovec iov[2];
        int n = 0;
        uint64_t skip = c->out_done;
        for (int i = 0; i < 2; i++) {
            if (skip >= c->out_len[i]) {
                skip -= c->out_len[i];
                continue;
            }
            iov[n].iov_base = (void *)(c->out[i] + skip);
            iov[n].iov_len = c->out_len[i] - skip;
            skip = 0;
            n++;
        }
        if (n == 0) {
            return SLAP_OK;
        }
        ssize_t done = writev(c->fd, iov, n);
        if (done < 0) {
            if (errno == EINTR) {
                continue;
            }
            return errno == EAGAIN || errno == EWOULDBLOCK ? SLAP_AGAIN : SLAP_ERROR;
        }
        c->out_done += (uint64_t)done;
        lane_on_written(c->lane, (uint64_t)done);
    }
}

int conn_send(struct conn *c)
{
    c->out_done = 0;
    int rc = write_rest(c);
    if (rc == SLAP_AGAIN) {
        event_add(&c->wev, NULL);
    } else if (rc == SLAP_ERROR) {
        fail(c, strerror(errno));
    }
    return rc;
}

static void on_writable(evutil_socket_t fd, short what, void *arg)
{
    struct conn *c = arg;
    (void)fd;
    if (c->state == CONN_CONNECTING) {
        finish_connect(c, what);
        return;
    }
    int rc = write_rest(c);
    if (rc == SLAP_AGAIN) {
        event_add(&c->wev, NULL);
    } else if (rc == SLAP_ERROR) {
        fail(c, strerror(errno));
    }
}

/* Parse every complete response in buf; keep a partial line. SLAP_ERROR if closed. */
static int parse_all(struct conn *c, const char *buf, size_t len, uint64_t now_ns)
{
    size_t off = 0;
    while (off < len) {
        struct proto_result res;
        size_t used = 0;
        int rc = proto_ascii_parse(&c->parser, buf + off, len - off, &used, &res);
        off += used;
        c->resp_bytes += used;
        if (rc == SLAP_AGAIN) {
            break;
        }
        if (rc == SLAP_ERROR) {
            fail(c, "the server sent bytes that are not a memcached response");
            return SLAP_ERROR;
        }
        lane_on_response(c->lane, c, &res, now_ns);
        c->resp_bytes = 0;
        if (c->state != CONN_READY) {
            return SLAP_ERROR;
        }
    }
    c->carry_len = (uint32_t)(len - off);
    memcpy(c->carry, buf + off, c->carry_len);
    return SLAP_OK;
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
    struct conn *c = arg;
    struct worker *w = conn_worker(c);
    (void)what;
    for (;;) {
        memcpy(w->rbuf, c->carry, c->carry_len);
        size_t room = w->rbuf_size - c->carry_len;
        ssize_t n = read(fd, w->rbuf + c->carry_len, room);
        if (n <= 0) {
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
                return;
            }
            fail(c, n == 0 ? "connection closed by the server" : strerror(errno));
            return;
        }
        uint64_t now = slap_now_ns();
        lane_on_read(c->lane, (uint64_t)n);
        if (parse_all(c, w->rbuf, c->carry_len + (size_t)n, now) != SLAP_OK) {
            return;
        }
        if ((size_t)n < room) {
            return;
        }
    }
}
