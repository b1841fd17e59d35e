/* The per-thread random generator: splitmix64, no locks, reproducible from a seed. */
#ifndef SLAP_RNG_H
#define SLAP_RNG_H

#include <stddef.h>
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

/* Hash len bytes into 64 bits, a different function for each seed (for trace keys: not
 * cryptographic, but well spread). */
static inline uint64_t rng_hash_bytes(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = (const unsigned char *)data;
    uint64_t h = rng_mix(seed, len, 0x5bd1e9955bd1e995ULL);
    for (size_t at = 0; at < len; at += 8) {
        uint64_t word = 0;
        size_t n = len - at < 8 ? len - at : 8;
        for (size_t i = 0; i < n; i++) {
            word |= (uint64_t)p[at + i] << (8 * i);
        }
        h = rng_mix(h, word, at);
    }
    return h;
}

#endif
