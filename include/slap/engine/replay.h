/* Trace replay: a thread that reads the trace and hands each request to the lane of its client. */
#ifndef SLAP_REPLAY_H
#define SLAP_REPLAY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "slap/base/common.h"
#include "slap/model/trace.h"

/* --trace-spread: which lane sends a trace request. */
enum trace_spread {
    TRACE_SPREAD_CLIENT = 0,      /* the lane of its client id: a client's requests in order */
    TRACE_SPREAD_ROUND_ROBIN = 1, /* the lanes in turn */
};

/* Requests a lane holds ahead of sending them: the trace reader fills, the lane's thread takes. */
#define REPLAY_LANE_RING 32

/* A lane's queue of trace requests: one producer (the reader), one consumer (its worker). */
struct replay_ring {
    _Atomic uint32_t head; /* next to take; written by the worker */
    _Atomic uint32_t tail; /* next to fill; written by the reader */
    struct trace_request items[REPLAY_LANE_RING];
};

/* The request the lane sends next, or NULL when its ring is empty (the worker's side). */
static inline const struct trace_request *replay_ring_peek(struct replay_ring *r)
{
    uint32_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    if (head == atomic_load(&r->tail)) { /* seq_cst: pairs with the reader's wake-up check */
        return NULL;
    }
    return &r->items[head % REPLAY_LANE_RING];
}

static inline void replay_ring_pop(struct replay_ring *r)
{
    atomic_fetch_add(&r->head, 1);
}

/* How the reader wakes the thread of a lane whose empty ring it filled; lane is
 * REPLAY_EVERY_LANE when the trace ended (every thread is to look at its lanes). Set when the
 * replay is made: the reader knows no worker. */
#define REPLAY_EVERY_LANE UINT32_MAX
struct replay_waker {
    void (*wake)(void *ctx, uint32_t lane);
    void *ctx;
};

/* The reader's side of a run. */
struct replay {
    struct replay_waker waker;
    const atomic_bool *stop; /* the run stops: read no more */
    bool round_robin;        /* --trace-spread=round-robin, else by the request's client */
    struct trace_reader *reader;
    pthread_t thread;
    bool started;
    struct replay_ring *rings; /* one per lane of the run, lane (client * n + i) at that index */
    uint32_t nrings;
    uint64_t next_rr;           /* --trace-spread=round-robin: the next lane */
    atomic_bool done;           /* the trace ended (or the run stopped): no more requests */
    char error[512];            /* why the reader stopped early, or "" */
    struct trace_counts counts; /* the reader's, copied when it ends */
};

/* Open the trace and the rings of nlanes lanes. SLAP_ERROR with err. replay_free is safe
 * after it. */
enum slap_status replay_init(struct replay *p, const struct trace_options *to, uint32_t nlanes,
                             bool round_robin, const struct replay_waker *waker, char *err,
                             size_t err_len);
/* Start reading (before the go: the trace's time 0 is the run's start) until *stop. */
enum slap_status replay_start(struct replay *p, const atomic_bool *stop);
/* Wait for the reader (it stops by itself on *stop), and close the trace. */
void replay_join(struct replay *p);
void replay_free(struct replay *p);

#endif
