/* A simulated client: its key window, its lanes (closed loops) and what they send next. */
#ifndef SLAP_CLIENT_H
#define SLAP_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "slap/conn.h"
#include "slap/proto_ascii.h"
#include "slap/workload.h"

struct worker;
struct client;

/*
 * A lane is one closed loop: one request in flight at a time, sent on the
 * lane's socket to the server the key belongs to. A client has -n lanes.
 */
struct lane {
    struct client *client;
    struct conn *conns;  /* one per server */
    bool busy;           /* a request is prepared and not yet answered */
    bool sent;           /* ... and it was handed to its socket */
    enum op_type op;
    uint32_t server;     /* where the request goes */
    uint64_t start_ns;   /* when it was sent */
    uint32_t req_len;    /* bytes of the request */
    char *wbuf;          /* the request header (key_size + 64 bytes) */
};

struct client {
    struct worker *worker;
    uint32_t id;              /* 0 .. concurrency-1, across all threads */
    struct key_window win;
    char *key;                /* this client's key, slot digits rewritten per request */
    uint16_t *slot_server;    /* server of each window slot with several servers, else NULL */
    uint64_t quota;           /* requests still to send in a counted run; UINT64_MAX if timed */
    bool stopped;             /* lost a connection without -R: sends nothing more */
    uint32_t nlanes;
    struct lane *lanes;
};

/* Callbacks from conn.c. */
void lane_on_connected(struct lane *l, struct conn *c);
void lane_on_connect_failed(struct lane *l, struct conn *c, int err);
void lane_on_response(struct lane *l, struct conn *c, const struct proto_result *res,
                      uint64_t now_ns);
void lane_on_closed(struct lane *l, struct conn *c, const char *why);
void lane_on_written(struct lane *l, uint64_t bytes);
void lane_on_read(struct lane *l, uint64_t bytes);

/* Begin the lane's loop (the run has started). */
void lane_start(struct lane *l);

#endif
