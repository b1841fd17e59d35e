/* --auth: the credentials each connection presents before its first request. */
#ifndef SLAP_AUTH_H
#define SLAP_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#include "slap/base/common.h"

#define AUTH_FIELD_MAX 256 /* bytes of a user name or a password, with its NUL */

/* How a connection authenticates: SASL PLAIN over the binary protocol (memcached -S), or
 * memcached's ASCII authentication (-Y: a set whose data is "USER PASSWORD") for ascii and
 * meta. */
enum auth_kind { AUTH_NONE, AUTH_SASL_PLAIN, AUTH_ASCII };

struct conn_auth {
    enum auth_kind kind;
    char user[AUTH_FIELD_MAX];
    char password[AUTH_FIELD_MAX];
};

/* The credentials of --auth SOURCE into a: SOURCE "env" takes SLAP_AUTH_USER and
 * SLAP_AUTH_PASSWORD, any other is a file whose first line is USER:PASSWORD (memcached -Y's
 * form; the password may hold ':'). a->kind is left for the caller. On failure, why names
 * what was wrong (never the password). */
enum slap_status auth_read(struct conn_auth *a, const char *source, char *why, size_t why_len);
/* The bytes a connection sends to authenticate by a (kind SASL PLAIN or ASCII) into buf, of at
 * least AUTH_REQUEST_MAX bytes: their number. */
#define AUTH_REQUEST_MAX (24 + 5 + 2 * AUTH_FIELD_MAX + 64)
size_t auth_request(const struct conn_auth *a, char *buf);

/*
 * A server's answer to the authentication of kind (SASL PLAIN or ASCII) judged from the bytes
 * come so far, buf[0..len) of a buffer of cap: AUTH_ANSWER_MORE while it is not whole and the
 * buffer has room; AUTH_ANSWER_OK when it accepts (exactly "STORED\r\n", or a binary
 * SASL_AUTH answer of status 0 and nothing after it); else AUTH_ANSWER_REFUSED, why saying
 * what the server said, quoted (at most AUTH_SHOWN bytes of it), or that its answer filled
 * the buffer without an end.
 */
enum auth_answer { AUTH_ANSWER_MORE, AUTH_ANSWER_OK, AUTH_ANSWER_REFUSED };
#define AUTH_SHOWN 80
enum auth_answer auth_answer_judge(enum auth_kind kind, const char *buf, size_t len, size_t cap,
                                   char *why, size_t why_len);

#endif
