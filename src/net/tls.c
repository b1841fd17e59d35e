/* TLS over OpenSSL: one context for the run, one session per socket, non-blocking. */
#include "slap/net/tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "slap/base/common.h"

#include "sock_io.h"
#include "stamp.h"

struct tls_ctx {
    SSL_CTX *ssl_ctx;
    int verify;
    BIO_METHOD *stamped; /* a socket BIO reading by recvmsg, for --timestamps=kernel */
};

struct tls_conn {
    SSL *ssl;
    int fd;
    uint64_t stamp_ns; /* the arrival stamp of the latest segment OpenSSL read (0: none) */
};

/* ---- the stamped socket BIO: OpenSSL's reads by recvmsg, each keeping its stamp ---------- */

static int stamped_read(BIO *b, char *buf, int len)
{
    struct tls_conn *t = BIO_get_data(b);
    union {
        char bytes[STAMP_CONTROL];
        size_t align; /* a cmsghdr's alignment */
    } control;
    struct iovec iov = {.iov_base = buf, .iov_len = len > 0 ? (size_t)len : 0};
    struct msghdr m = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = control.bytes,
                       .msg_controllen = sizeof(control.bytes)};
    BIO_clear_retry_flags(b);
    ssize_t n = sock_recvmsg(t->fd, &m);
    if (n > 0) {
        t->stamp_ns = stamp_of(&m);
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        BIO_set_retry_read(b);
    }
    return (int)n;
}

static int stamped_write(BIO *b, const char *buf, int len)
{
    struct tls_conn *t = BIO_get_data(b);
    BIO_clear_retry_flags(b);
    ssize_t n = send(t->fd, buf, len > 0 ? (size_t)len : 0, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        BIO_set_retry_write(b);
    }
    return (int)n;
}

static long stamped_ctrl(BIO *b, int cmd, long num, void *ptr)
{
    (void)b;
    (void)num;
    (void)ptr;
    return cmd == BIO_CTRL_FLUSH ? 1 : 0; /* writes go straight to the socket */
}

static int stamped_create(BIO *b)
{
    BIO_set_init(b, 1);
    return 1;
}

static BIO_METHOD *stamped_method(void)
{
    BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR,
                                 "slap stamped socket");
    if (m != NULL &&
        (BIO_meth_set_read(m, stamped_read) != 1 || BIO_meth_set_write(m, stamped_write) != 1 ||
         BIO_meth_set_ctrl(m, stamped_ctrl) != 1 || BIO_meth_set_create(m, stamped_create) != 1)) {
        BIO_meth_free(m);
        return NULL;
    }
    return m;
}

/* OpenSSL's own reason for the last failure, or what the caller says. */
static void openssl_reason(char *err, size_t err_len, const char *what)
{
    unsigned long code = ERR_get_error();
    if (code != 0) {
        char text[256];
        ERR_error_string_n(code, text, sizeof(text));
        snprintf(err, err_len, "TLS: %s: %s", what, text);
    } else {
        snprintf(err, err_len, "TLS: %s", what);
    }
    ERR_clear_error();
}

static enum slap_status load_files(SSL_CTX *c, const struct tls_settings *s, char *err,
                                   size_t err_len)
{
    if (s->ca != NULL ? SSL_CTX_load_verify_locations(c, s->ca, NULL) != 1
                      : SSL_CTX_set_default_verify_paths(c) != 1) {
        openssl_reason(err, err_len, s->ca != NULL ? s->ca : "default CA paths");
        return SLAP_ERROR;
    }
    if (s->cert != NULL && (SSL_CTX_use_certificate_chain_file(c, s->cert) != 1 ||
                            SSL_CTX_use_PrivateKey_file(c, s->key, SSL_FILETYPE_PEM) != 1 ||
                            SSL_CTX_check_private_key(c) != 1)) {
        openssl_reason(err, err_len, s->cert);
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

enum slap_status tls_ctx_open(struct tls_ctx **out, const struct tls_settings *s, char *err,
                              size_t err_len)
{
    struct tls_ctx *ctx = calloc(1, sizeof(*ctx));
    if (ctx == NULL) {
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    ctx->ssl_ctx = SSL_CTX_new(TLS_client_method());
    ctx->verify = !s->skip_verify;
    if (ctx->ssl_ctx == NULL || load_files(ctx->ssl_ctx, s, err, err_len) != SLAP_OK) {
        if (ctx->ssl_ctx == NULL) {
            openssl_reason(err, err_len, "cannot create a context");
        }
        tls_ctx_close(ctx);
        return SLAP_ERROR;
    }
    SSL_CTX_set_verify(ctx->ssl_ctx, ctx->verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, NULL);
    if (s->version != TLS_VERSION_ANY) {
        int v = s->version == TLS_VERSION_1_2 ? TLS1_2_VERSION : TLS1_3_VERSION;
        SSL_CTX_set_min_proto_version(ctx->ssl_ctx, v);
        SSL_CTX_set_max_proto_version(ctx->ssl_ctx, v);
    }
    SSL_CTX_set_mode(ctx->ssl_ctx,
                     SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    ctx->stamped = stamped_method();
    if (ctx->stamped == NULL) {
        openssl_reason(err, err_len, "cannot create a socket BIO");
        tls_ctx_close(ctx);
        return SLAP_ERROR;
    }
    *out = ctx;
    return SLAP_OK;
}

void tls_ctx_close(struct tls_ctx *ctx)
{
    if (ctx != NULL) {
        SSL_CTX_free(ctx->ssl_ctx);
        BIO_meth_free(ctx->stamped);
        free(ctx);
    }
}

/* The certificate must name host: as an IP address if it is one, else as a DNS name. */
static int expect_host(SSL *ssl, const char *host)
{
    unsigned char ip[16];
    X509_VERIFY_PARAM *param = SSL_get0_param(ssl);
    if (inet_pton(AF_INET, host, ip) == 1 || inet_pton(AF_INET6, host, ip) == 1) {
        return X509_VERIFY_PARAM_set1_ip_asc(param, host) == 1;
    }
    SSL_set_tlsext_host_name(ssl, host);
    return X509_VERIFY_PARAM_set1_host(param, host, 0) == 1;
}

/* The session reads fd through the stamped BIO. */
static int set_stamped_bio(struct tls_ctx *ctx, struct tls_conn *t)
{
    BIO *b = BIO_new(ctx->stamped);
    if (b == NULL) {
        return 0;
    }
    BIO_set_data(b, t);
    SSL_set_bio(t->ssl, b, b); /* one BIO both ways: the session holds its one reference */
    return 1;
}

struct tls_conn *tls_conn_open(struct tls_ctx *ctx, int fd, const char *host, bool stamped)
{
    struct tls_conn *t = calloc(1, sizeof(*t));
    if (t == NULL) {
        return NULL;
    }
    t->fd = fd;
    t->ssl = SSL_new(ctx->ssl_ctx);
    if (t->ssl == NULL || (stamped ? set_stamped_bio(ctx, t) != 1 : SSL_set_fd(t->ssl, fd) != 1) ||
        (ctx->verify && !expect_host(t->ssl, host))) {
        tls_conn_close(t);
        return NULL;
    }
    SSL_set_connect_state(t->ssl);
    return t;
}

void tls_conn_close(struct tls_conn *t)
{
    if (t != NULL) {
        SSL_free(t->ssl);
        free(t);
    }
}

/* What an SSL call's result means for a non-blocking caller. */
static enum slap_status outcome(struct tls_conn *t, int rc, int *want_write, char *err,
                                size_t err_len)
{
    switch (SSL_get_error(t->ssl, rc)) {
    case SSL_ERROR_WANT_READ:
        *want_write = 0;
        return SLAP_AGAIN;
    case SSL_ERROR_WANT_WRITE:
        *want_write = 1;
        return SLAP_AGAIN;
    case SSL_ERROR_ZERO_RETURN:
        return SLAP_OK;
    default: {
        long verify = SSL_get_verify_result(t->ssl);
        if (verify != X509_V_OK) {
            snprintf(err, err_len, "TLS: certificate verification failed: %s",
                     X509_verify_cert_error_string(verify));
            ERR_clear_error();
        } else {
            openssl_reason(err, err_len, "session failed");
        }
        return SLAP_ERROR;
    }
    }
}

enum slap_status tls_handshake(struct tls_conn *t, int *want_write, char *err, size_t err_len)
{
    int rc = SSL_do_handshake(t->ssl);
    return rc == 1 ? SLAP_OK : outcome(t, rc, want_write, err, err_len);
}

enum slap_status tls_write(struct tls_conn *t, const void *buf, size_t len, size_t *n,
                           int *want_write, char *err, size_t err_len)
{
    int rc = SSL_write_ex(t->ssl, buf, len, n);
    return rc == 1 ? SLAP_OK : outcome(t, 0, want_write, err, err_len);
}

enum slap_status tls_read(struct tls_conn *t, void *buf, size_t len, size_t *n, int *want_write,
                          char *err, size_t err_len)
{
    *n = 0;
    int rc = SSL_read_ex(t->ssl, buf, len, n);
    return rc == 1 ? SLAP_OK : outcome(t, 0, want_write, err, err_len);
}

uint64_t tls_stamp(const struct tls_conn *t)
{
    return t->stamp_ns;
}
