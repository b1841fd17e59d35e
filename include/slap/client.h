/* A simulated client: its key window, its lanes and what they send next. */
#ifndef SLAP_CLIENT_H
#define SLAP_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "slap/common.h"
#include "slap/conn.h"
#include "slap/replay.h"
#include "slap/schedule.h"
#include "slap/workload.h"

struct run;
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
    struct conn *conns;    /* one per server; with -a, then one UDP socket per server */
    uint32_t nconns;
    uint32_t in_flight;    /* requests queued or waiting for answers, over all sockets */
    bool done;             /* nothing left to send or to wait for */
    bool timer_armed;
    struct schedule sched; /* open loop */
    struct event *timer;   /* open loop, --trace: wakes the lane at its next intended time;
                              made with the lane, NULL in a closed loop (which never waits) */
    struct replay_ring *ring; /* --trace: the requests of the trace for this lane, else NULL */
};

/* Keys that incr and decr count on, per client, stored with CLIENT_COUNTER_START first. */
#define CLIENT_COUNTERS 16
#define CLIENT_COUNTER_START "1000000000"
/* A cas token memcached never hands out (its tokens count up from 1), for a cas without one. */
#define CLIENT_CAS_NONE UINT64_MAX

struct client {
    struct worker *worker;
    uint32_t id;              /* 0 .. concurrency-1, across all threads */
    uint32_t key_id;          /* whose keys it uses: id, or 0 with shared_keys (memslap) */
    struct key_window win;
    char *key;                /* this client's key, slot digits rewritten per request */
    uint16_t *slot_server;    /* server of each window slot with several servers, else NULL */
    uint64_t quota;           /* requests still to send in a counted run; UINT64_MAX if timed */
    bool stopped;             /* lost a connection without -R: sends nothing more */
    uint64_t preload_left;    /* keys still to set before the run: counters, then (--preload,
                                 or a mix that stores no new key) the whole window */
    uint32_t counters_left;   /* of them, counter keys (incr, decr) */
    bool cas_ready;           /* a gets left a token for the next cas: */
    uint64_t cas_slot;        /* the slot it read (--trace: its key's hash) */
    uint64_t cas_token;       /* and the token */
    struct slot_state *slots; /* per window slot, with -v, -e or -o; else NULL */
    uint32_t nlanes;
    struct lane *lanes;
};

/* One multi-get being put together: its keys, their slots and servers (one per thread). */
struct multiget_scratch {
    uint64_t *slots;       /* the slot of each key, */
    uint32_t *servers;     /* its server (UINT32_MAX once taken into a request), */
    uint32_t *lens;        /* its length, */
    char *keys;            /* and the keys themselves (division x key_size) */
    char *group_keys;      /* the keys of one server's part of it, */
    uint32_t *group_lens;  /* and their lengths */
};

/* Sockets of each lane: one per server, twice with -a (TCP for sets, then UDP for gets). */
uint32_t client_lane_sockets(const struct run *run);
/* Room for the largest answer a UDP socket can get (a get of -d keys), by datagram. */
size_t client_udp_answer_cap(const struct workload *wl);

/* Scratch for multi-gets of wl->division keys. client_scratch_free is safe after a failure. */
enum slap_status client_scratch_init(struct multiget_scratch *s, const struct workload *wl);
void client_scratch_free(struct multiget_scratch *s);

/*
 * Client id of worker w, its k-th: its key, window and lanes, carved from the worker's
 * slabs (lanes, sockets, rings, headers, keys). client_free is safe after a failure.
 */
enum slap_status client_init(struct client *c, struct worker *w, uint32_t id, uint32_t k);
/* Does a run of these options begin with every window stored (--preload, or a mix that stores
 * no new key), by a preload of its own or (windows_stored) an earlier sweep step's? */
bool client_windows_full(const struct slap_options *o, const struct workload *wl);
void client_free(struct client *c);

/* The callbacks by which a lane hears from its sockets (the conn_env's ops). */
const struct conn_ops *client_conn_ops(void);

/* Send what the lane may send now (start, an answer, its timer, a reconnect). */
void lane_pump(struct lane *l);
/* The worker stops: requests that cannot be written (queued behind a reconnect) count as
 * unanswered, with latency to end_ns; timers and reconnects stop. */
void lane_stop(struct lane *l, uint64_t end_ns);
/* The end: every request still queued or awaited counts as unanswered (latency to end_ns). */
void lane_give_up(struct lane *l, uint64_t end_ns);
/* Open loop: requests the schedule made due in [from_ns, end_ns) but that never left (the lane
 * was full: a stalled or lost connection) count as unanswered, with latency to end_ns. */
void lane_count_unsent(struct lane *l, uint64_t from_ns, uint64_t end_ns);


#endif
