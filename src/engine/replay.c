/*
 * Trace replay: a thread that reads the trace and hands each request to the lane of its client.
 *
 *   trace_next ──> lane by client id (or round-robin) ──> that lane's ring ──> its worker
 *                      (a full ring: wait for its worker)      (an empty ring made non-empty:
 *                                                               wake the worker by eventfd)
 * The worker sends a lane's requests in ring order, each at its time in the trace (scaled by
 * --trace-speed) or, with --trace-speed=max, as soon as the lane has room. Memory is bounded:
 * the reader holds at most a second of the trace, each lane REPLAY_LANE_RING requests.
 */
#include "slap/engine/replay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "slap/base/rng.h"

#define REPLAY_WAIT_NS (50 * 1000) /* a full ring: look again after this long */

enum slap_status replay_init(struct replay *p, const struct trace_options *to, uint32_t nlanes,
                             bool round_robin, const struct replay_waker *waker, char *err,
                             size_t err_len)
{
    memset(p, 0, sizeof(*p));
    p->waker = *waker;
    p->round_robin = round_robin;
    p->nrings = nlanes;
    p->rings = calloc(p->nrings, sizeof(*p->rings));
    if (p->rings == NULL) {
        snprintf(err, err_len, "out of memory for the trace's %u lanes", p->nrings);
        return SLAP_ERROR;
    }
    return trace_open(&p->reader, to, err, err_len);
}

/* The lane a request goes to: its client's (one client's requests keep their order), or the
 * next one round-robin. */
static uint32_t lane_of(struct replay *p, const struct trace_request *r)
{
    if (p->round_robin) {
        return (uint32_t)(p->next_rr++ % p->nrings);
    }
    return (uint32_t)(rng_mix(r->client, 0x636c69656e74ULL, 0) % p->nrings);
}

static void wait_a_little(void)
{
    struct timespec ts = {.tv_sec = 0, .tv_nsec = REPLAY_WAIT_NS};
    nanosleep(&ts, NULL);
}

/* Put r in lane's ring, waiting while it is full; false if the run stopped meanwhile. */
static bool hand_over(struct replay *p, uint32_t lane, const struct trace_request *r)
{
    struct replay_ring *ring = &p->rings[lane];
    uint32_t tail = atomic_load_explicit(&ring->tail, memory_order_relaxed);
    while (tail - atomic_load_explicit(&ring->head, memory_order_acquire) == REPLAY_LANE_RING) {
        if (atomic_load(p->stop)) {
            return false;
        }
        wait_a_little();
    }
    ring->items[tail % REPLAY_LANE_RING] = *r;
    atomic_store(&ring->tail, tail + 1);
    /* After the new tail is visible: if the worker had taken everything before it, it may
     * have looked at the empty ring and gone to sleep, so wake it (seq_cst on both sides). */
    if (atomic_load(&ring->head) == tail) {
        p->waker.wake(p->waker.ctx, lane);
    }
    return true;
}

static void *replay_main(void *arg)
{
    struct replay *p = arg;
    struct trace_request r;
    for (;;) {
        if (atomic_load(p->stop)) {
            break;
        }
        enum slap_status rc = trace_next(p->reader, &r, p->error, sizeof(p->error));
        if (rc != SLAP_OK) {
            if (rc == SLAP_AGAIN) {
                p->error[0] = '\0';
            }
            break;
        }
        if (!hand_over(p, lane_of(p, &r), &r)) {
            break;
        }
    }
    p->counts = *trace_counts(p->reader);
    atomic_store(&p->done, true);
    p->waker.wake(p->waker.ctx, REPLAY_EVERY_LANE);
    return NULL;
}

enum slap_status replay_start(struct replay *p, const atomic_bool *stop)
{
    p->stop = stop;
    if (pthread_create(&p->thread, NULL, replay_main, p) != 0) {
        snprintf(p->error, sizeof(p->error), "cannot start the trace reader: %s", strerror(errno));
        atomic_store(&p->done, true);
        return SLAP_ERROR;
    }
    p->started = true;
    return SLAP_OK;
}

void replay_join(struct replay *p)
{
    if (p->started) {
        pthread_join(p->thread, NULL);
        p->started = false;
    }
}

void replay_free(struct replay *p)
{
    replay_join(p);
    trace_close(p->reader);
    p->reader = NULL;
    free(p->rings);
    p->rings = NULL;
}
