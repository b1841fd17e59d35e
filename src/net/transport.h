/* A connection's transport table: how its socket is opened, readied, read, written, closed. */
#ifndef SLAP_TRANSPORT_H
#define SLAP_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "slap/base/common.h"
#include "slap/net/conn.h"
#include "slap/proto/proto.h"

/*
 * How one socket moves bytes, chosen once when its conn is made (wrk's struct sock): conn.c's
 * state machine calls c->tx->writev(...) and never asks which transport it has. TCP
 * (transport_tcp.c), TLS (transport_tls.c) and UDP (transport_udp.c) each fill one; a
 * stream transport (TCP, TLS) reads through conn_read_stream, UDP takes datagrams itself.
 */
struct conn_transport {
    const char *name;
    /* A non-blocking socket for c->srv, which conn.c connects; or -1 with errno set. */
    int (*open)(const struct conn *c);
    /* Or, for a socket shared by the thread's conns to c->srv (UDP), NULL above and here the
     * shared socket, opened and connected by the first conn to join (connect(2) of a datagram
     * socket does not wait); or -1 with errno set. conn.c never reads it for the conn: the
     * transport's own event does, and the conn is READY at the next turn of the loop. */
    int (*join)(struct conn *c);
    /* State kept for the conn's life (UDP: its reassembly buffers), made by conn_init;
     * detach releases it, after a failed attach too. */
    enum slap_status (*attach)(struct conn *c, const struct conn_setup *setup);
    void (*detach)(struct conn *c);
    /* The socket connected. SLAP_OK: it carries requests now. SLAP_AGAIN: a handshake step
     * waits for the socket (writable if *want_write, else readable); call again then.
     * SLAP_ERROR: the reason is in err. */
    enum slap_status (*handshake)(struct conn *c, int *want_write, char *err, size_t err_len);
    /* The READY socket is readable: take what came, answer requests, then ops->drained
     * (unless the socket closed meanwhile). */
    void (*readable)(struct conn *c);
    /* For conn_read_stream: like read(2), bytes, 0 at the end, or -1 with errno (EAGAIN:
     * nothing more yet) and perhaps a reason in err (left empty if errno says it). *stamp_ns:
     * the kernel's arrival stamp of the latest segment read (CLOCK_REALTIME), or 0. */
    ssize_t (*read)(struct conn *c, void *buf, size_t len, uint64_t *stamp_ns, char *err,
                    size_t err_len);
    /* Like writev(2): how many of the iovecs' bytes went, or -1 with errno. Bytes of its
     * own framing are not in the count: the transport adds them to written_bytes. */
    ssize_t (*writev)(struct conn *c, const struct iovec *iov, int n);
    /* The oldest written request is answered; the owner hears of it next. */
    void (*answered)(struct conn *c);
    /* An answer came when no request was written. SLAP_OK: ignored, the socket goes on;
     * SLAP_ERROR: the socket was failed. */
    enum slap_status (*unasked)(struct conn *c, const struct proto_result *res);
    /* The bytes are no answer to the request (counted; why says so). SLAP_OK: the request
     * was given up and the socket goes on; SLAP_ERROR: the socket was failed. */
    enum slap_status (*garbled)(struct conn *c, const char *why);
    /* conn_check_timeout: the oldest written request waited past --timeout. */
    void (*late)(struct conn *c);
    /* Close the socket and end what the transport keeps for it (a TLS session); a shared
     * socket is left, and closed when its last conn leaves. */
    void (*close)(struct conn *c);
    const char *unstamped;       /* --timestamps=kernel: why its reads bring no stamp, or NULL */
    uint32_t requests_per_write; /* requests one writev may carry (UDP: one a datagram) */
    bool read_until_again;       /* may hold bytes the socket no longer shows (decrypted TLS
                                    records): conn_read_stream reads until EAGAIN */
};

extern const struct conn_transport transport_tcp;
extern const struct conn_transport transport_tcp_stamped; /* --timestamps=kernel: recvmsg */
extern const struct conn_transport transport_tls;
extern const struct conn_transport transport_udp;

/* What conn.c offers its transports. */
/* Read with c->tx->read into the thread's buffer (after a carried partial line) and parse,
 * until the kernel has no more; then ops->drained. The readable of a stream transport. */
void conn_read_stream(struct conn *c);
/* Parse every whole response in buf, answering requests; keep a partial line. SLAP_ERROR if
 * the socket closed. Read at now_ns; kernel_ns: its arrival stamp in slap's clock, or 0. */
enum slap_status conn_parse(struct conn *c, const char *buf, size_t len, uint64_t now_ns,
                            uint64_t kernel_ns);
/* --timestamps=kernel: a read of c brought no stamp; the owner hears so once per conn. */
void conn_unstamped(struct conn *c);

/* --auth (conn_auth.c): one more step of c's authentication, after its transport's handshake:
 * SLAP_OK once the server accepted it, SLAP_AGAIN waiting (on writable if *want_write, else
 * readable), SLAP_ERROR with why in err (the server's words quoted, never the password). */
enum slap_status conn_auth_step(struct conn *c, int *want_write, char *err, size_t err_len);
/* Forget a connection's exchange (a new connect starts it again). */
void conn_auth_reset(struct conn *c);
/* Close the socket and tell the owner why (ops->closed). */
void conn_fail(struct conn *c, const char *why);
/* Forget the requests sent, telling the owner of each (ops->given_up), and any partial
 * answer: the socket goes on with the next request. */
void conn_give_up(struct conn *c);

/* What every stream transport does as TCP does (transport_tcp.c). */
int transport_stream_open(const struct conn *c);
/* The same, asking the kernel to stamp what arrives (--timestamps=kernel). */
int transport_stream_open_stamped(const struct conn *c);
enum slap_status transport_stream_unasked(struct conn *c, const struct proto_result *res);
enum slap_status transport_stream_garbled(struct conn *c, const char *why);
void transport_stream_late(struct conn *c);
/* Nothing to do: attach, detach, answered of a transport that keeps no state for them. */
enum slap_status transport_attach_nothing(struct conn *c, const struct conn_setup *setup);
void transport_nothing(struct conn *c);

#endif
