/* The TCP transport (unix stream sockets too): the kernel's read (or recvmsg, for arrival
 * stamps) and writev, nothing between. */
#include "transport.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sock_io.h"
#include "stamp.h"

int transport_stream_open(const struct conn *c)
{
    const struct server *srv = c->srv;
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

/* A stream carries one conversation: bytes that answer nothing mean it is lost. An error line
 * is the server talking (memcached refusing a connection), and it closes next. */
enum slap_status transport_stream_unasked(struct conn *c, const struct proto_result *res)
{
    if (res->reply == PROTO_REPLY_ERROR || res->reply == PROTO_REPLY_CLIENT_ERROR ||
        res->reply == PROTO_REPLY_SERVER_ERROR) {
        c->env->ops->unsolicited(c, res);
        conn_fail(c, "the server closed it after an error line");
        return SLAP_ERROR;
    }
    c->env->counters->protocol_error++;
    conn_fail(c, "the server answered a request that was not sent");
    return SLAP_ERROR;
}

enum slap_status transport_stream_garbled(struct conn *c, const char *why)
{
    conn_fail(c, why);
    return SLAP_ERROR;
}

void transport_stream_late(struct conn *c)
{
    conn_fail(c, c->env->timeout_fault);
}

enum slap_status transport_attach_nothing(struct conn *c, const struct conn_setup *setup)
{
    (void)c;
    (void)setup;
    return SLAP_OK;
}

void transport_nothing(struct conn *c)
{
    (void)c;
}

static enum slap_status tcp_handshake(struct conn *c, int *want_write, char *err, size_t err_len)
{
    (void)c;
    (void)want_write;
    (void)err;
    (void)err_len;
    return SLAP_OK; /* connected is ready */
}

static ssize_t tcp_read(struct conn *c, void *buf, size_t len, uint64_t *stamp_ns, char *err,
                        size_t err_len)
{
    (void)stamp_ns;
    (void)err;
    (void)err_len;
    return sock_read(c->fd, buf, len);
}

/* --timestamps=kernel: the socket stamps what arrives (a unix socket takes the option and
 * stamps nothing: its reads say so once, and end at read time). */
int transport_stream_open_stamped(const struct conn *c)
{
    int fd = transport_stream_open(c);
    if (fd >= 0 && stamp_enable(fd) != 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

/* recvmsg in place of read, the same one system call: the kernel adds the stamp of the
 * latest segment the read took. */
static ssize_t tcp_read_stamped(struct conn *c, void *buf, size_t len, uint64_t *stamp_ns,
                                char *err, size_t err_len)
{
    (void)err;
    (void)err_len;
    union {
        char bytes[STAMP_CONTROL];
        size_t align; /* a cmsghdr's alignment */
    } control;
    struct iovec iov = {.iov_base = buf, .iov_len = len};
    struct msghdr m = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = control.bytes,
                       .msg_controllen = sizeof(control.bytes)};
    ssize_t n = sock_recvmsg(c->fd, &m);
    *stamp_ns = n > 0 ? stamp_of(&m) : 0;
    return n;
}

static ssize_t tcp_writev(struct conn *c, const struct iovec *iov, int n)
{
    return sock_writev(c->fd, iov, n);
}

static void tcp_close(struct conn *c)
{
    close(c->fd);
}

const struct conn_transport transport_tcp = {
    .name = "TCP",
    .open = transport_stream_open,
    .attach = transport_attach_nothing,
    .detach = transport_nothing,
    .handshake = tcp_handshake,
    .readable = conn_read_stream,
    .read = tcp_read,
    .writev = tcp_writev,
    .answered = transport_nothing,
    .unasked = transport_stream_unasked,
    .garbled = transport_stream_garbled,
    .late = transport_stream_late,
    .close = tcp_close,
    .requests_per_write = UINT32_MAX,
    .read_until_again = false,
};

const struct conn_transport transport_tcp_stamped = {
    .name = "TCP",
    .open = transport_stream_open_stamped,
    .attach = transport_attach_nothing,
    .detach = transport_nothing,
    .handshake = tcp_handshake,
    .readable = conn_read_stream,
    .read = tcp_read_stamped,
    .writev = tcp_writev,
    .answered = transport_nothing,
    .unasked = transport_stream_unasked,
    .garbled = transport_stream_garbled,
    .late = transport_stream_late,
    .close = tcp_close,
    .requests_per_write = UINT32_MAX,
    .read_until_again = false,
};
