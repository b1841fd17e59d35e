/* TLS over OpenSSL: one context for the run, one session per socket, non-blocking. */
#ifndef SLAP_TLS_H
#define SLAP_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "slap/base/common.h"

/* --tls_version: which TLS versions the handshake may settle on. */
enum tls_version {
    TLS_VERSION_ANY = 0, /* negotiate */
    TLS_VERSION_1_2,     /* TLS 1.2 only */
    TLS_VERSION_1_3,     /* TLS 1.3 only */
};

/* What the run's context is made of. */
struct tls_settings {
    const char *ca;           /* --tls_ca FILE: trusted CAs; NULL: the system's */
    const char *cert;         /* --tls_cert FILE: client certificate, or NULL */
    const char *key;          /* --tls_key FILE: its key */
    bool skip_verify;         /* --tls_skip_verify */
    enum tls_version version; /* --tls_version */
};

struct tls_ctx;
struct tls_conn;

/* The run's context from --tls_ca, --tls_cert, --tls_key, --tls_skip_verify, --tls_version. */
enum slap_status tls_ctx_open(struct tls_ctx **out, const struct tls_settings *s, char *err,
                              size_t err_len);
void tls_ctx_close(struct tls_ctx *ctx);

/* A session on a connected socket; host is checked against the certificate (name or IP).
 * stamped: OpenSSL reads the socket by recvmsg, keeping the kernel's arrival stamps (the
 * socket asked for them: --timestamps=kernel), else by read(2). */
struct tls_conn *tls_conn_open(struct tls_ctx *ctx, int fd, const char *host, bool stamped);
void tls_conn_close(struct tls_conn *t);

/*
 * Non-blocking steps. Each returns SLAP_OK (done, or *n bytes moved), SLAP_AGAIN
 * with *want_write telling whether to wait for writable (else readable), or
 * SLAP_ERROR with a reason in err. tls_read returns SLAP_OK with *n = 0 when the
 * server closed the session.
 */
enum slap_status tls_handshake(struct tls_conn *t, int *want_write, char *err, size_t err_len);
enum slap_status tls_write(struct tls_conn *t, const void *buf, size_t len, size_t *n,
                           int *want_write, char *err, size_t err_len);
enum slap_status tls_read(struct tls_conn *t, void *buf, size_t len, size_t *n, int *want_write,
                          char *err, size_t err_len);
/* A stamped session: the kernel's arrival stamp (CLOCK_REALTIME, ns) of the latest segment
 * OpenSSL read from the socket, the last of the record a tls_read's bytes came from (OpenSSL
 * reads no further than a record's end); 0 if none came (or the session is not stamped). */
uint64_t tls_stamp(const struct tls_conn *t);

#endif
