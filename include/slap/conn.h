/* One socket to one server: connect, queue and write requests, read and parse responses. */
#ifndef SLAP_CONN_H
#define SLAP_CONN_H

#include <event2/event.h>
#include <event2/event_struct.h>
#include <stdbool.h>
#include <stdint.h>

#include "slap/proto.h"
#include "slap/udp.h"

struct lane;
struct server;
struct tls_conn;

/*
 *            conn_connect             connected
 *   CLOSED ----------------> CONNECTING ---------> READY <--+ write / read
 *     ^  ^                      | failed            |  |     |
 *     |  +----------------------+                   |  +-----+
 *     |         conn_close: EOF, reset, garbage     |
 *     +---------------------------------------------+
 */
enum conn_state {
    CONN_CLOSED,
    CONN_CONNECTING,
    CONN_HANDSHAKE, /* --tls: connected, TLS handshake under way */
    CONN_READY,
};

/* A request queued on a socket, written, or waiting for its answer. */
struct request {
    uint8_t op;          /* enum op_type */
    bool crlf;           /* "\r\n" follows the value (ASCII and meta sets) */
    bool verify;         /* a get whose values are checked */
    bool measured;       /* queued after the warm-up: its answer counts */
    bool fresh;          /* a set of the window's walk: once stored, gets may read it */
    uint16_t nkeys;      /* keys of a get */
    uint32_t version;    /* a set: the version of the value it carries */
    uint64_t slot;       /* a set, or a single get: the key's window slot */
    uint32_t exptime;    /* a set: its expiry time in seconds, or 0 */
    uint32_t hdr_len;    /* bytes of hdr */
    uint32_t value_len;  /* bytes of value, 0 for a get */
    uint64_t intended_ns; /* when it was meant to go: the schedule's time, or its send time */
    uint64_t sent_ns;    /* when its last byte went to the kernel; 0 until then */
    char *hdr;           /* request line, in the socket's header slab */
    const char *value;   /* shared value bytes, or NULL */
};

/*
 * The ring holds requests in order: [head, head + written) are written whole
 * and wait for answers (which come back in the same order), then `partial`
 * bytes of the next one are written, then the rest are queued.
 */
struct conn {
    enum conn_state state;
    int fd;
    struct tls_conn *tls;     /* --tls: the session, else NULL */
    uint32_t server;          /* index in the server list */
    struct lane *lane;        /* owner */
    struct event rev;         /* readable; persistent while READY */
    struct event wev;         /* writable: connect completion or a blocked write */
    struct event retry;       /* reconnect back-off timer (-R) */
    uint64_t backoff_ns;      /* next back-off; doubles up to a bound */
    const struct codec *codec;
    union proto_parser parser;
    uint64_t resp_bytes;      /* bytes of the response being parsed so far */
    struct request *ring;     /* capacity: the pipeline depth */
    uint32_t cap, head, count;
    uint32_t written;         /* requests written whole, from head */
    uint32_t partial;         /* bytes written of the request after them */
    bool dirty;               /* requests were queued since the last flush */
    bool write_blocked;       /* the kernel took less than offered: wev will finish it */
    struct proto_value_hook hook; /* -v: checks values as they stream past */
    bool udp;                 /* a datagram socket (-U; -a for gets) */
    uint16_t request_id;      /* UDP: the id of the request in flight */
    uint8_t frame[UDP_HEADER]; /* UDP: its frame header */
    struct udp_reasm reasm;   /* UDP: its answer's datagrams */
    struct event timeout;     /* UDP: --udp_timeout of the request in flight */
    uint64_t disorder_seen;   /* UDP: reasm.disorder already counted */
    uint32_t carry_len;       /* bytes of a partial line kept between reads */
    char carry[PROTO_ASCII_MAX_LINE];
};

/* Start a non-blocking connect; the lane hears of the outcome by callback. */
int conn_connect(struct conn *c, const struct server *srv, struct event_base *base,
                 uint64_t timeout_ns);
/* A free request at the tail of the ring (the caller keeps count below cap). */
struct request *conn_queue(struct conn *c);
/* The request the next answer is for, or NULL. */
struct request *conn_oldest(struct conn *c);
/* Write what is queued, in as few writev calls as it takes, if the socket is ready. */
void conn_flush(struct conn *c);
/* Forget requests: sent ones (answers will never come) or all of them. Returns how many. */
uint32_t conn_drop_sent(struct conn *c);
uint32_t conn_drop_all(struct conn *c);
/* Close the socket and drop any partial response; callbacks are not called. */
void conn_close(struct conn *c);
/* --timeout: fail the socket if its oldest request was sent before deadline_ns. */
void conn_check_timeout(struct conn *c, uint64_t deadline_ns);
/* Release the events (at the end of the run). */
void conn_free(struct conn *c);

#endif
