/* What clients send: keys, values, the set/get mix and each client's key window. */
#ifndef SLAP_WORKLOAD_H
#define SLAP_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slap/options.h"

/* Characters of a key that identify its client and its slot (see workload_key_init). */
#define WORKLOAD_KEY_ID_LEN 15
#define WORKLOAD_PPM 1000000u

/* Read-only after workload_init: shared by every thread. */
struct workload {
    uint32_t key_size;   /* bytes of every key */
    uint32_t value_size; /* bytes of every value */
    uint64_t win_size;   /* keys in each client's window */
    uint32_t set_ppm;    /* share of sets, parts per million */
    char *value;         /* value_size printable bytes followed by "\r\n" */
};

int workload_init(struct workload *w, const struct slap_options *o);
void workload_free(struct workload *w);

/* A small fast generator owned by one thread (splitmix64). */
struct rng {
    uint64_t state;
};

static inline uint64_t rng_next(struct rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0 (multiply-shift; bias below 2^-32 for n < 2^32). */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
    __extension__ typedef unsigned __int128 u128;
    return (uint64_t)(((u128)rng_next(r) * n) >> 64);
}

/*
 * Keys are printable and distinct per client and slot:
 *   cccccc.ssssssss + filler to key_size
 * six hex digits of the client id, a dot, eight hex digits of the slot.
 * workload_key_init writes the whole key for slot 0; workload_key_slot then
 * rewrites only the slot digits, so a key costs eight byte stores.
 */
void workload_key_init(const struct workload *w, uint32_t client_id, char *key);
void workload_key_slot(char *key, uint64_t slot);

enum op_type {
    OP_GET = 0,
    OP_SET = 1,
};

/* A client's window: sets walk it in order; gets pick a slot already set. */
struct key_window {
    uint64_t next_set; /* slot the next set writes */
    uint64_t filled;   /* slots [0, filled) hold a value written by this run */
    uint32_t mix_acc;  /* deterministic mix: a set each time it reaches WORKLOAD_PPM */
};

void window_init(struct key_window *win, const struct workload *w);
/* The next operation by the mix (memaslap's order: 0.1 gives one set, nine gets). */
enum op_type window_next_op(struct key_window *win, const struct workload *w);
/* Slot for the next set, advancing the walk. */
uint64_t window_take_set_slot(struct key_window *win, const struct workload *w);
/* A set of the walk was stored: one more slot may be read. */
void window_set_done(struct key_window *win, const struct workload *w);
/* A slot already set, uniformly; only when window_can_get. */
uint64_t window_pick_get_slot(const struct key_window *win, struct rng *r);

static inline bool window_can_get(const struct key_window *win)
{
    return win->filled > 0;
}

#endif
