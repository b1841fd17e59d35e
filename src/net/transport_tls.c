/* The TLS transport (--tls): a session over a TCP socket; its handshake, reads and writes. */
#include "transport.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "slap/net/tls.h"

/* A TCP socket, stamping what arrives with --timestamps=kernel (the session reads it by
 * recvmsg then). */
static int transport_open(const struct conn *c)
{
    return c->env->clock != NULL ? transport_stream_open_stamped(c) : transport_stream_open(c);
}

/* The session is made at the first step, on the connected socket, and ended by tls_close. */
static enum slap_status tls_step(struct conn *c, int *want_write, char *err, size_t err_len)
{
    if (c->tls == NULL) {
        c->tls = tls_conn_open(c->env->tls, c->fd, c->srv->host, c->env->clock != NULL);
        if (c->tls == NULL) {
            snprintf(err, err_len, "TLS: cannot start a session");
            return SLAP_ERROR;
        }
    }
    return tls_handshake(c->tls, want_write, err, err_len);
}

/* Like read(2); EAGAIN when the session needs more bytes. */
static ssize_t tls_read_into(struct conn *c, void *buf, size_t room, uint64_t *stamp_ns, char *err,
                             size_t err_len)
{
    size_t n = 0;
    int want_write = 0;
    int rc = tls_read(c->tls, buf, room, &n, &want_write, err, err_len);
    if (rc == SLAP_OK) {
        *stamp_ns = tls_stamp(c->tls); /* the record's last segment's (a stamped session) */
        return (ssize_t)n;
    }
    errno = rc == SLAP_AGAIN ? EAGAIN : EPROTO;
    return -1;
}

/* The gathered bytes as one buffer for SSL_write (TLS copies anyway). */
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

static void tls_close(struct conn *c)
{
    tls_conn_close(c->tls);
    c->tls = NULL;
    close(c->fd);
}

const struct conn_transport transport_tls = {
    .name = "TLS",
    .open = transport_open,
    .attach = transport_attach_nothing,
    .detach = transport_nothing,
    .handshake = tls_step,
    .readable = conn_read_stream,
    .read = tls_read_into,
    .writev = tls_writev,
    .answered = transport_nothing,
    .unasked = transport_stream_unasked,
    .garbled = transport_stream_garbled,
    .late = transport_stream_late,
    .close = tls_close,
    .requests_per_write = UINT32_MAX,
    .read_until_again = true, /* a session may hold more decrypted bytes than the socket shows */
};
