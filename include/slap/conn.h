/* One socket to one server: connect, write a request, read and parse responses. */
#ifndef SLAP_CONN_H
#define SLAP_CONN_H

#include <event2/event.h>
#include <event2/event_struct.h>
#include <stdint.h>

#include "slap/proto_ascii.h"

struct lane;
struct server;

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
    CONN_READY,
};

struct conn {
    enum conn_state state;
    int fd;
    uint32_t server;          /* index in the server list */
    struct lane *lane;        /* owner: the closed loop that sends on this socket */
    struct event rev;         /* readable; persistent while READY */
    struct event wev;         /* writable: connect completion or a blocked write */
    struct event retry;       /* reconnect back-off timer (-R) */
    uint64_t backoff_ns;      /* next back-off; doubles up to a bound */
    struct ascii_parser parser;
    uint64_t resp_bytes;      /* bytes of the response being parsed so far */
    const char *out[2];       /* request being written: header, then value (or NULL) */
    uint32_t out_len[2];
    uint64_t out_done;        /* bytes of it written so far */
    uint32_t carry_len;       /* bytes of a partial line kept between reads */
    char carry[PROTO_ASCII_MAX_LINE];
};

/* Start a non-blocking connect; the lane hears of the outcome by callback. */
int conn_connect(struct conn *c, const struct server *srv, struct event_base *base,
                 uint64_t timeout_ns);
/* Write the request set in c->out from the start; SLAP_OK, SLAP_AGAIN (finishes later) or error. */
int conn_send(struct conn *c);
/* Close the socket and drop any partial response; callbacks are not called. */
void conn_close(struct conn *c);
/* Release the events (at the end of the run). */
void conn_free(struct conn *c);

#endif
