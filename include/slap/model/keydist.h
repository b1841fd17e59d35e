/* Key popularity inside a window: which of n keys a get reads (uniform, zipf, gaussian). */
#ifndef SLAP_KEYDIST_H
#define SLAP_KEYDIST_H

#include <stddef.h>
#include <stdint.h>

#include "slap/base/common.h"
#include "slap/base/rng.h"

enum key_dist_kind {
    KEY_DIST_UNIFORM = 0,  /* every key alike (memaslap) */
    KEY_DIST_ZIPF = 1,     /* rank r (0-based) drawn with weight 1 / (r + 1)^s */
    KEY_DIST_GAUSSIAN = 2, /* normal around n / 2, standard deviation n / 6, cut to [0, n) */
    KEY_DIST_LATEST = 3,   /* zipf over recency: rank 0 the key set last (YCSB's "latest");
                              key_dist_pick gives the rank, window_latest_slot the key */
};

struct key_dist {
    enum key_dist_kind kind;
    double s; /* zipf exponent, > 0 (default 0.99); unused otherwise */
};

/* "uniform", "zipf", "zipf:S", "latest", "latest:S" or "gaussian"; SLAP_ERROR with one line
 * in err otherwise. */
enum slap_status key_dist_parse(const char *text, struct key_dist *d, char *err, size_t err_len);
/* key_dist_pick for any kind; the inline part below takes the uniform draws itself. */
uint64_t key_dist_pick_shaped(const struct key_dist *d, uint64_t n, struct rng *r);

/*
 * A key index in [0, n), n >= 1, from the thread's generator. No allocation and
 * no table: n may change from call to call (a window filling up), so zipf uses
 * rejection-inversion sampling (O(1) expected per draw). Inline for the uniform
 * draw: a multi-get picks -d keys a request.
 */
static inline uint64_t key_dist_pick(const struct key_dist *d, uint64_t n, struct rng *r)
{
    return d->kind == KEY_DIST_UNIFORM && n > 1 ? rng_below(r, n) : key_dist_pick_shaped(d, n, r);
}

#endif
