/* --auth: a connection's authentication, after its transport's handshake and before its first
 * request: SASL PLAIN over the binary protocol, or memcached's ASCII authentication. */
#include "transport.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/quote.h"
#include "slap/net/auth.h"

#define AUTH_BUF 1024 /* the request (auth_request's), then the answer */
_Static_assert(AUTH_BUF >= AUTH_REQUEST_MAX, "the request fits its buffer");
#define AUTH_SHOWN 80 /* bytes of a refusal shown */

enum { AUTH_WRITING = 1, AUTH_READING, AUTH_DONE };

/* Is the answer in c->auth_buf whole? */
static bool answer_whole(const struct conn *c)
{
    const unsigned char *h = (const unsigned char *)c->auth_buf;
    if (c->env->auth->kind == AUTH_ASCII) {
        return memchr(c->auth_buf, '\n', c->auth_done) != NULL;
    }
    if (c->auth_done > 0 && h[0] != 0x81) {
        return true; /* no binary answer: judged as it is */
    }
    if (c->auth_done < 24) {
        return false;
    }
    size_t body = (size_t)h[8] << 24 | (size_t)h[9] << 16 | (size_t)h[10] << 8 | h[11];
    return c->auth_done >= 24 + body || 24 + body > AUTH_BUF;
}

/* The server's answer judged: SLAP_OK, or SLAP_ERROR with what it said (quoted). */
static enum slap_status judge(struct conn *c, char *err, size_t err_len)
{
    const unsigned char *h = (const unsigned char *)c->auth_buf;
    char said[AUTH_SHOWN * 4 + 8], *at = said;
    const char *text;
    size_t len;
    if (c->env->auth->kind == AUTH_ASCII) {
        len = (size_t)((const char *)memchr(c->auth_buf, '\n', c->auth_done) - c->auth_buf) + 1;
        if (len == 8 && memcmp(c->auth_buf, "STORED\r\n", 8) == 0 && len == c->auth_done) {
            return SLAP_OK;
        }
        text = c->auth_buf;
        len -= len >= 2 && c->auth_buf[len - 2] == '\r' ? 2 : 1;
    } else {
        unsigned status = (unsigned)h[6] << 8 | h[7];
        size_t body = (size_t)h[8] << 24 | (size_t)h[9] << 16 | (size_t)h[10] << 8 | h[11];
        if (h[0] == 0x81 && h[1] == 0x21 && status == 0 && c->auth_done == 24 + body) {
            return SLAP_OK;
        }
        text = c->auth_buf + 24;
        len = body < (size_t)c->auth_done - 24 ? body : (size_t)c->auth_done - 24;
        if (h[0] != 0x81 || h[1] != 0x21) {
            text = c->auth_buf;
            len = c->auth_done;
        }
    }
    quote_put(&at, said + sizeof(said), text, len, AUTH_SHOWN, '"');
    *at = '\0';
    snprintf(err, err_len, "authentication (%s) refused: the server said %s",
             c->env->auth->kind == AUTH_ASCII ? "ASCII" : "SASL PLAIN", said);
    return SLAP_ERROR;
}

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
        ssize_t n = c->tx->read(c, c->auth_buf + c->auth_done, AUTH_BUF - c->auth_done, &stamp,
                                why, sizeof(why));
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            *want_write = 0;
            return SLAP_AGAIN;
        }
        if (n <= 0) {
            snprintf(err, err_len, "authentication: %s",
                     n == 0 ? "the server closed the connection" : why[0] ? why : strerror(errno));
            return SLAP_ERROR;
        }
        c->auth_done = (uint16_t)(c->auth_done + n);
        if (answer_whole(c) || c->auth_done == AUTH_BUF) {
            enum slap_status st = judge(c, err, err_len);
            auth_end(c);
            c->auth_state = st == SLAP_OK ? AUTH_DONE : 0;
            return st;
        }
    }
    return SLAP_OK; /* AUTH_DONE */
}
