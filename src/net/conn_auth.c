/* --auth: a connection's authentication, after its transport's handshake and before its first
 * request: SASL PLAIN over the binary protocol, or memcached's ASCII authentication. */
#include "transport.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/net/auth.h"

#define AUTH_BUF 1024 /* the request (auth_request's), then the answer */
_Static_assert(AUTH_BUF >= AUTH_REQUEST_MAX, "the request fits its buffer");

enum { AUTH_WRITING = 1, AUTH_READING, AUTH_DONE };

static void auth_end(struct conn *c)
{
    free(c->auth_buf);
    c->auth_buf = NULL;
}

void conn_auth_reset(struct conn *c)
{
    auth_end(c);
    c->auth_state = 0;
}

enum slap_status conn_auth_step(struct conn *c, int *want_write, char *err, size_t err_len)
{
    if (c->auth_state == 0) {
        c->auth_buf = malloc(AUTH_BUF);
        if (c->auth_buf == NULL) {
            snprintf(err, err_len, "out of memory");
            return SLAP_ERROR;
        }
        c->auth_len = (uint16_t)auth_request(c->env->auth, c->auth_buf);
        c->auth_done = 0;
        c->auth_state = AUTH_WRITING;
    }
    while (c->auth_state == AUTH_WRITING) {
        struct iovec iov = {c->auth_buf + c->auth_done, (size_t)(c->auth_len - c->auth_done)};
        ssize_t n = c->tx->writev(c, &iov, 1);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                *want_write = 1;
                return SLAP_AGAIN;
            }
            snprintf(err, err_len, "authentication: %s", strerror(errno));
            return SLAP_ERROR;
        }
        c->auth_done = (uint16_t)(c->auth_done + n);
        if (c->auth_done == c->auth_len) {
            memset(c->auth_buf, 0, c->auth_len); /* the password is not kept */
            c->auth_done = 0;
            c->auth_state = AUTH_READING;
        }
    }
    while (c->auth_state == AUTH_READING) {
        uint64_t stamp = 0;
        char why[256] = "";
        ssize_t n = c->tx->read(c, c->auth_buf + c->auth_done, AUTH_BUF - c->auth_done, &stamp, why,
                                sizeof(why));
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            *want_write = 0;
            return SLAP_AGAIN;
        }
        if (n <= 0) {
            /* memcached -S closes an ASCII connection at its first line: SASL is binary only */
            bool sasl = n == 0 && c->env->auth->kind == AUTH_ASCII;
            snprintf(err, err_len, "authentication: %s%s",
                     n == 0   ? "the server closed the connection"
                     : why[0] ? why
                              : strerror(errno),
                     sasl ? " (a server with SASL, memcached -S, takes only the binary "
                            "protocol: --protocol=binary)"
                          : "");
            return SLAP_ERROR;
        }
        c->auth_done = (uint16_t)(c->auth_done + n);
        enum auth_answer said = auth_answer_judge(c->env->auth->kind, c->auth_buf, c->auth_done,
                                                  AUTH_BUF, err, err_len);
        if (said != AUTH_ANSWER_MORE) {
            auth_end(c);
            c->auth_state = said == AUTH_ANSWER_OK ? AUTH_DONE : 0;
            return said == AUTH_ANSWER_OK ? SLAP_OK : SLAP_ERROR;
        }
    }
    return SLAP_OK; /* AUTH_DONE */
}
