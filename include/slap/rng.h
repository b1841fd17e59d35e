/* The per-thread random generator: splitmix64, no locks, reproducible from a seed. */
#ifndef SLAP_RNG_H
#define SLAP_RNG_H

#include <stdint.h>

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

/* Mix up to three numbers into 64 well-spread bits (for sizes and offsets derived from keys). */
static inline uint64_t rng_mix(uint64_t a, uint64_t b, uint64_t c)
{
    struct rng r = {.state = a * 0x9e3779b97f4a7c15ULL ^ b * 0xc2b2ae3d27d4eb4fULL ^ c};
    return rng_next(&r);
}

#endif
