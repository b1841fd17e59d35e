/* A period of a run as the results keep it: its counters, and per request type its bytes, misses
 * and latency histogram without empty buckets (sparse). Both the results document and the
 * intervals hold periods. */
#ifndef SLAP_PERIOD_H
#define SLAP_PERIOD_H

#include <stdint.h>

#include "slap/base/common.h"
#include "slap/base/hist.h"
#include "slap/model/stats.h"

/* A histogram without its empty buckets: what a period or a step keeps, what JSON holds. */
struct results_sparse {
    uint64_t count;
    uint64_t min_ns;
    uint64_t max_ns;
    double sum_us;
    double sumsq_us;
    uint32_t npairs;
    uint32_t *index; /* bucket indexes, increasing */
    uint64_t *counts;
};

/* One period of the run (-S, else a second when results need periods). */
struct results_period {
    double elapsed_s; /* its end, seconds since the measured start */
    double seconds;   /* its length */
    struct slap_counters counters;
    struct results_sparse lat[STATS_TYPES]; /* latency per type */
    uint64_t net_bytes[STATS_TYPES];        /* bytes written and read per type */
    uint64_t misses[STATS_TYPES];           /* keys not found per type */
    /* an open loop's latency parts per type as the run kept them (stats.h's late and held:
     * slap late to send, held by the server); empty in a period read back from a file or
     * merged: results files keep the run's parts, not each period's */
    struct results_sparse late[STATS_TYPES];
    struct results_sparse held[STATS_TYPES];
    double stalled_s; /* --rounds: a server stopped answering this far into the round (its
                         stalled connections' oldest request was sent then); 0: none did.
                         Not written: the report's note only */
};

/* Copy h without its empty buckets (allocates); results_sparse_free releases it. */
enum slap_status results_sparse_from_hist(const struct hist *h, struct results_sparse *out);
void results_sparse_free(struct results_sparse *s);
/* Add s into h: the same as merging the histogram s was taken from (log2 view aside). */
void results_sparse_add(const struct results_sparse *s, struct hist *h);
/* s becomes s + b + h (b and h may be NULL), summed in sum; on failure s is left as it was. */
enum slap_status results_sparse_sum(struct results_sparse *s, const struct results_sparse *b,
                                    const struct hist *h, struct hist *sum);

/* The sparse histograms of lat (one per type) of type, or (STATS_TYPES) of every type, added
 * into h, emptied first. */
void results_sparse_to_hist(const struct results_sparse *lat, int type, struct hist *h);

#endif
