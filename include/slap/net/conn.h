/* One socket to one server: connect, queue and write requests, read and parse responses. */
#ifndef SLAP_CONN_H
#define SLAP_CONN_H

#include <event2/event.h>
#include <event2/event_struct.h>
#include <stdbool.h>
#include <stdint.h>

#include "slap/base/common.h"
#include "slap/model/stats.h"
#include "slap/net/conn_clock.h"
#include "slap/net/servers.h"
#include "slap/proto/proto.h"
#include "slap/proto/udp.h"

struct conn;
struct conn_dgram;
struct conn_transport;
struct udp_endpoints;
struct tls_ctx;
struct conn_auth;
struct tls_conn;

/*
 *              conn_connect              connected
 *   CLOSED ------------------> CONNECTING ---------> HANDSHAKE ---------> READY <--+ write
 *     ^  ^                        |                     |    transport's   |  |     / read
 *     |  |   failed, time-out     |                     |    handshake     |  +-----+
 *     |  +------------------------+---------------------+    done          |
 *     |                                                                    |
 *     +-------------------- conn_close: EOF, reset, garbage, --timeout ----+
 * The transport's handshake is TLS's; TCP and UDP have none and are READY at once.
 * A closed socket may be opened again: conn_retry_later (after a back-off) or conn_connect.
 */
enum conn_state {
    CONN_CLOSED,
    CONN_CONNECTING,
    CONN_HANDSHAKE, /* connected, the transport's handshake (TLS) under way */
    CONN_READY,
};

/* A request queued on a socket, written, or waiting for its answer. */
struct request {
    uint8_t op;           /* enum op_type */
    bool crlf;            /* "\r\n" follows the value (ASCII and meta sets) */
    bool verify;          /* a get whose values are checked */
    bool measured;        /* queued after the warm-up: its answer counts */
    bool fresh;           /* a set of the window's walk: once stored, gets may read it */
    uint8_t key_len;      /* a storage command: its key's bytes (for object_bytes) */
    uint32_t nkeys;       /* keys of a get */
    uint32_t version;     /* a set: the version of the value it carries */
    uint64_t slot;        /* a set, or a single get: the key's window slot */
    uint32_t exptime;     /* a set, touch, gat: its TTL in seconds as meant (the wire may carry
                             the Unix time that far ahead), or 0 */
    uint32_t hdr_len;     /* bytes of hdr */
    uint32_t value_len;   /* bytes of value, 0 for a get */
    uint64_t intended_ns; /* when it was meant to go: the schedule's time, or its send time */
    uint64_t sent_ns;     /* when its last byte went to the kernel; 0 until then */
    uint64_t held_ns;     /* of the wait from intended_ns to sent_ns, how long the server held
                             it: its lane full of unanswered requests, its socket not connected
                             or not taking bytes (the rest of that wait is slap's lateness) */
    char *hdr;            /* request line, in the socket's header slab */
    const char *value;    /* shared value bytes, or NULL */
};

/* What a connection tells its owner (c->owner), as twemproxy's conn callbacks do. */
struct conn_ops {
    /* Connected (with --tls, handshake done): queued requests may be written. */
    void (*connected)(struct conn *c);
    /* A connect, or its TLS handshake, failed or timed out; the socket is closed. */
    void (*connect_failed)(struct conn *c, const char *why);
    /* The last byte of r went to the kernel (r->sent_ns is set). */
    void (*sent)(struct conn *c, const struct request *r);
    /* A whole response to r, the oldest written request, which has left the ring: read at
     * now_ns; kernel_ns, the kernel's arrival stamp of the read that completed it (in slap's
     * clock), or 0 without --timestamps=kernel or where the socket brings none. */
    void (*answered)(struct conn *c, const struct request *r, const struct proto_result *res,
                     uint64_t now_ns, uint64_t kernel_ns);
    /* The socket closed (EOF, reset, garbage, --timeout); its requests are still queued. */
    void (*closed)(struct conn *c, const char *why);
    /* UDP: r, the request in flight, got no whole answer in time; it is forgotten next. */
    void (*given_up)(struct conn *c, const struct request *r, uint64_t now_ns);
    /* Everything that could be read was read: the owner may queue more. */
    void (*drained)(struct conn *c);
    /* The server said something that answers no request: an error line (memcached refusing
     * a connection: "ERROR Too many open connections"); the socket closes next. */
    void (*unsolicited)(struct conn *c, const struct proto_result *res);
    /* Something was wrong that costs no connection (a bad UDP datagram): what, and detail. */
    void (*fault)(struct conn *c, const char *what, const char *detail);
};

/* --timestamps: where an answer's latency ends. */
enum timestamps {
    TIMESTAMPS_READ = 0,   /* slap's read of it */
    TIMESTAMPS_KERNEL = 1, /* the kernel's arrival stamp (SO_TIMESTAMPING), where it has one */
};

/* What every connection of a thread shares, given when it is made and never reached around. */
struct conn_env {
    struct event_base *base;   /* the thread's loop */
    const struct codec *codec; /* the protocol spoken */
    struct tls_ctx *tls;       /* --tls: the run's context, else NULL */
    char *rbuf;                /* read buffer shared by the thread's sockets */
    size_t rbuf_size;
    char *ubuf;    /* UDP: a carried partial line and the next message */
    char *tls_out; /* --tls: requests gathered for one SSL_write */
    size_t tls_out_size;
    struct slap_counters *counters; /* bytes and faults of the transport are counted here */
    struct udp_endpoints *udp;      /* UDP: the thread's sockets, one per server, each shared
                                       by its datagram conns; NULL: each conn has its own */
    uint64_t connect_timeout_ns;    /* connect and TLS handshake */
    uint64_t udp_timeout_ns;        /* --udp_timeout */
    const char *timeout_fault;      /* what a TCP answer later than the time-out is called */
    const char *udp_timeout_fault;  /* and a UDP answer not whole in time (fixed strings) */
    uint64_t backoff_min_ns;        /* reconnect back-off, doubling up to backoff_max_ns */
    uint64_t backoff_max_ns;
    const struct conn_ops *ops;
    struct conn_clock *clock;     /* --timestamps=kernel: the thread's (its sockets ask for
                                     arrival stamps); NULL: no stamps, latency ends at read */
    const struct conn_auth *auth; /* --auth: each connection authenticates first; NULL: not */
};

/*
 * The ring holds requests in order: [head, head + written) are written whole
 * and wait for answers (which come back in the same order), then `partial`
 * bytes of the next one are written, then the rest are queued.
 * Parts that few sockets use are held by pointer and made only when needed (memory per
 * connection is what limits -c): the UDP state and the back-off timer when the socket is
 * made, the carry at the first partial line.
 */
struct conn {
    /* What every request touches, together at the front (at -c 1000 the sockets outgrow the
     * CPU's first-level cache: each line they span costs a miss per request). */
    enum conn_state state;
    int fd;
    const struct conn_env *env;
    const struct conn_transport *tx; /* TCP, TLS or UDP: chosen by conn_init, never changed */
    void *owner;                     /* what the callbacks are about */
    uint32_t server;                 /* its index in the server list */
    uint32_t carry_len;              /* bytes of a partial line kept between reads */
    struct request *ring;            /* capacity: the pipeline depth */
    uint32_t cap, head, count;
    uint32_t written;          /* requests written whole, from head */
    uint32_t partial;          /* bytes written of the request after them */
    bool dirty;                /* requests were queued since the last flush */
    bool write_blocked;        /* the kernel took less than offered: wev will finish it */
    uint64_t blocked_ns;       /* since when (write_blocked): what waits from then is held */
    uint64_t resp_bytes;       /* bytes of the response being parsed so far */
    uint64_t answers;          /* responses since the socket was opened, error lines aside */
    struct event rev;          /* readable; persistent while READY */
    union proto_parser parser; /* the text codecs' part (104 bytes) begins it */
    /* The rest: set-up, reconnects, blocked writes, partial lines, -v. */
    char *carry;                  /* PROTO_ASCII_MAX_LINE bytes, made at the first partial line */
    const struct server *srv;     /* the peer */
    union {                       /* the transport's own, each touched by its file alone: */
        struct tls_conn *tls;     /* TLS: the session while connected, else NULL */
        struct conn_dgram *dgram; /* UDP: its state, made by conn_init (transport_udp.c) */
    };
    struct event wev;             /* writable: connect completion or a blocked write */
    struct event *retry;          /* reconnect back-off timer (setup.reconnect), else NULL */
    uint64_t backoff_ns;          /* next back-off; doubles up to a bound until an answer comes */
    uint64_t connect_ns;          /* when the connect began; once ready, how long it took (the
                                     connect, a TLS handshake, --auth): the owner reads it */
    struct proto_value_hook hook; /* -v: checks values as they stream past (ctx: the conn) */
    bool unstamped_told;          /* --timestamps=kernel: a read without a stamp was told */
    uint8_t auth_state;           /* --auth: where its exchange is (conn_auth.c); 0 before */
    uint16_t auth_len;            /* bytes of auth_buf: to write, then read */
    uint16_t auth_done;           /* of them, written (or read) so far */
    char *auth_buf;               /* the request, then the answer; made for the exchange */
};

/* What conn_init needs to know of one socket. */
struct conn_setup {
    void *owner;
    const struct server *srv;
    uint32_t server;
    bool udp;                        /* a datagram socket (-U; -a for gets) */
    const struct conn_transport *tx; /* the transport, or NULL: UDP if udp, else TLS if the
                                        env has a TLS context, else TCP */
    bool reconnect;                  /* may reconnect after a close (-R): a back-off timer */
    size_t udp_answer_cap;           /* UDP: room for the largest answer */
    struct request *ring;            /* cap requests, their hdr pointers set */
    uint32_t cap;
    const struct proto_value_hook *hook; /* begin and end, or NULL; ctx becomes the conn */
};

/* A closed socket ready to connect. conn_free is safe after a failed conn_init. */
enum slap_status conn_init(struct conn *c, const struct conn_env *env,
                           const struct conn_setup *setup);
/* Release everything (at the end of the run); callbacks are not called. */
void conn_free(struct conn *c);

/* Start a non-blocking connect; the owner hears of the outcome by callback. */
enum slap_status conn_connect(struct conn *c);
/* Connect again after the back-off, which doubles with each call until an answer comes on a
 * new connection (a server that accepts and closes at once is not hammered). Only for a
 * socket set up with reconnect; any other is left closed. */
void conn_retry_later(struct conn *c);
/* Forget a pending reconnect. */
void conn_retry_cancel(struct conn *c);

/* A free request at the tail of the ring (the caller keeps count below cap). */
struct request *conn_queue(struct conn *c);
/* The request the next answer is for, or NULL. */
struct request *conn_oldest(struct conn *c);
/* The i-th queued request from the oldest (i < c->count). */
struct request *conn_at(const struct conn *c, uint32_t i);
/* Requests sent, wholly or in part, that wait for an answer: conn_at(c, 0 .. n - 1). */
uint32_t conn_sent_count(const struct conn *c);
/* Does the socket hold requests? Then *since_ns is when the oldest was sent (or meant to be). */
bool conn_waiting_since(const struct conn *c, uint64_t *since_ns);
/* Whether c awaits an answer whose bytes are already in its socket, unread (the kernel's
 * count; at a run's end only: a system call). */
bool conn_answer_unread(const struct conn *c);
/* Write what is queued, in as few writev calls as it takes, if the socket is ready. */
void conn_flush(struct conn *c);
/* Forget requests: sent ones (answers will never come) or all of them. Returns how many. */
uint32_t conn_drop_sent(struct conn *c);
uint32_t conn_drop_all(struct conn *c);
/* Close the socket and drop any partial response; callbacks are not called. */
void conn_close(struct conn *c);
/* --timeout: fail the socket if its oldest request was sent before deadline_ns. */
void conn_check_timeout(struct conn *c, uint64_t deadline_ns);

#endif
