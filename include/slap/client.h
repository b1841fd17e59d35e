/* A simulated client: its key window, its lanes and what they send next. */
#ifndef SLAP_CLIENT_H
#define SLAP_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "slap/conn.h"
#include "slap/proto_ascii.h"
#include "slap/schedule.h"
#include "slap/workload.h"

struct worker;
struct client;

/*
 * A lane is one stream of requests with up to --pipeline of them in flight,
 * each sent on the lane's socket to the server its key belongs to. Closed
 * loop: a new request as soon as one is answered. Open loop: a new request at
 * each time of the lane's schedule; when the lane is full, due requests wait
 * and their latency still counts from their intended time. A client has -n lanes.
 */
struct lane {
    struct client *client;
    struct conn *conns;   /* one per server; with -a, then one UDP socket per server */
    uint32_t nconns;
    uint32_t in_flight;   /* requests queued or waiting for answers, over all sockets */
    bool done;            /* nothing left to send or to wait for */
    bool timer_armed;
    struct schedule sched; /* open loop */
    struct event timer;   /* open loop: wakes the lane at its next intended time */
};

struct client {
    struct worker *worker;
    uint32_t id;              /* 0 .. concurrency-1, across all threads */
    struct key_window win;
    char *key;                /* this client's key, slot digits rewritten per request */
    uint16_t *slot_server;    /* server of each window slot with several servers, else NULL */
    uint64_t quota;           /* requests still to send in a counted run; UINT64_MAX if timed */
    bool stopped;             /* lost a connection without -R: sends nothing more */
    uint64_t preload_left;    /* --preload: window keys still to set before the run */
    struct slot_state *slots; /* per window slot, with -v, -e or -o; else NULL */
    uint32_t nlanes;
    struct lane *lanes;
};

/* Send what the lane may send now (start, an answer, its timer, a reconnect). */
void lane_pump(struct lane *l);
/* The worker stops: drop requests that cannot be written, stop the timer. */
void lane_stop(struct lane *l);

/* Callbacks from conn.c. */
void lane_on_connected(struct lane *l, struct conn *c);
void lane_on_connect_failed(struct lane *l, struct conn *c, const char *why);
void lane_on_sent(struct lane *l, const struct request *r);
void lane_on_response(struct lane *l, struct conn *c, const struct request *r,
                      const struct proto_result *res, uint64_t now_ns);
void lane_on_closed(struct lane *l, struct conn *c, const char *why);
void lane_on_written(struct lane *l, uint64_t bytes);
void lane_on_read(struct lane *l, uint64_t bytes);
/* -v: the proto_value_hook of a socket (ctx is the conn). */
const char *lane_value_begin(void *ctx, const char *key, size_t key_len, uint64_t bytes,
                             uint64_t *expect_len);
void lane_value_end(void *ctx, int equal, uint64_t first_diff);

#endif
