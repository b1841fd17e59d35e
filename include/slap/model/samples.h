/*
 * --samples: every request's (or a sampled share's) times, latency, type and outcome. Each
 * worker puts samples into a ring of its own, without locks or allocation; the main thread
 * drains the rings into the file every few milliseconds, so memory stays bounded.
 */
#ifndef SLAP_SAMPLES_H
#define SLAP_SAMPLES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "slap/base/common.h"
#include "slap/base/rng.h"

#define SAMPLES_RING_BITS 16 /* 65536 samples (2 MiB) a thread between two drains */

enum sample_outcome {
    SAMPLE_HIT,        /* a retrieval that found (one of) its keys; a delete, touch, incr or
                          decr that found its key */
    SAMPLE_MISS,       /* one that found none */
    SAMPLE_STORED,     /* a storage command stored */
    SAMPLE_NOT_STORED, /* one answered NOT_STORED, EXISTS or NOT_FOUND */
    SAMPLE_ERROR,      /* an error reply */
    SAMPLE_UNANSWERED, /* sent, never answered */
    SAMPLE_UNSENT,     /* due, never sent */
    SAMPLE_OUTCOMES,
};

struct sample {
    uint64_t intended_ns; /* monotonic: when it was meant to go */
    uint64_t sent_ns;     /* when it went; 0 if it never did */
    uint64_t latency_ns;  /* from intended_ns to its answer (or to when it was given up) */
    uint8_t type;         /* enum stats_type */
    uint8_t outcome;      /* enum sample_outcome */
};

/* One worker's ring: the worker writes at head, the main thread reads at tail. */
struct sample_ring {
    struct sample *slots; /* NULL: no sampling */
    uint64_t threshold;   /* sample when a draw is below; UINT64_MAX: every request */
    struct rng rng;       /* the draws (not the workload's generator) */
    atomic_uint_fast64_t head;
    atomic_uint_fast64_t tail;
    atomic_uint_fast64_t dropped; /* samples lost to a full ring */
};

/* A ring for a share rate (0, 1] of the requests. SLAP_ERROR when out of memory. */
enum slap_status samples_ring_init(struct sample_ring *r, double rate, uint64_t seed);
void samples_ring_free(struct sample_ring *r);

/* The request path: keep s if the draw says so and the ring has room. No lock, no allocation. */
static inline void samples_put(struct sample_ring *r, const struct sample *s)
{
    if (r->slots == NULL || (r->threshold != UINT64_MAX && rng_next(&r->rng) >= r->threshold)) {
        return;
    }
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    if (head - tail == (1u << SAMPLES_RING_BITS)) {
        atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
        return;
    }
    r->slots[head & ((1u << SAMPLES_RING_BITS) - 1)] = *s;
    atomic_store_explicit(&r->head, head + 1, memory_order_release);
}

/* The CSV header of a samples file (its first line). */
#define SAMPLES_HEADER "intended_s,sent_s,latency_us,type,outcome"
void samples_write_header(FILE *out);
/* Main thread: write what r holds to out, times from origin_ns; how many were written. */
uint64_t samples_drain(struct sample_ring *r, FILE *out, uint64_t origin_ns);
/* The name of an outcome in the file. */
const char *samples_outcome_name(int outcome);

#endif
