/* A period's sparse histograms (period.h): made from a histogram, added back into one. */
#include "slap/output/period.h"

#include <stdlib.h>
#include <string.h>

void results_sparse_free(struct results_sparse *s)
{
    free(s->index);
    free(s->counts);
    s->index = NULL;
    s->counts = NULL;
    s->npairs = 0;
}

enum slap_status results_sparse_from_hist(const struct hist *h, struct results_sparse *out)
{
    uint32_t n = 0;
    memset(out, 0, sizeof(*out));
    /* the counts lie between min's bucket and max's (hist.h) */
    size_t lo = h->count > 0 ? hist_bucket_index(h->min_ns) : 0;
    size_t hi = h->count > 0 ? hist_bucket_index(h->max_ns) + 1 : 0;
    for (size_t i = lo; i < hi; i++) {
        n += h->buckets[i] != 0;
    }
    out->count = h->count;
    out->min_ns = h->min_ns;
    out->max_ns = h->max_ns;
    out->sum_us = h->sum_us;
    out->sumsq_us = h->sumsq_us;
    if (n == 0) {
        return SLAP_OK;
    }
    out->index = malloc(n * sizeof(*out->index));
    out->counts = malloc(n * sizeof(*out->counts));
    if (out->index == NULL || out->counts == NULL) {
        results_sparse_free(out);
        return SLAP_ERROR;
    }
    for (size_t i = lo; i < hi; i++) {
        if (h->buckets[i] != 0) {
            out->index[out->npairs] = (uint32_t)i;
            out->counts[out->npairs++] = h->buckets[i];
        }
    }
    return SLAP_OK;
}

void results_sparse_add(const struct results_sparse *s, struct hist *h)
{
    if (s->count == 0) {
        return; /* no events: its min_ns (0 in a file) is no minimum */
    }
    h->min_ns = h->count == 0 || s->min_ns < h->min_ns ? s->min_ns : h->min_ns;
    h->max_ns = h->count == 0 || s->max_ns > h->max_ns ? s->max_ns : h->max_ns;
    h->count += s->count;
    h->sum_us += s->sum_us;
    h->sumsq_us += s->sumsq_us;
    for (uint32_t i = 0; i < s->npairs; i++) {
        h->buckets[s->index[i]] += s->counts[i];
    }
}

void results_sparse_to_hist(const struct results_sparse *lat, int type, struct hist *h)
{
    hist_clear(h);
    for (int t = 0; t < STATS_TYPES; t++) {
        if (type == STATS_TYPES || type == t) {
            results_sparse_add(&lat[t], h);
        }
    }
}

enum slap_status results_sparse_sum(struct results_sparse *s, const struct results_sparse *b,
                                    const struct hist *h, struct hist *sum)
{
    if ((h == NULL || h->count == 0) && (b == NULL || b->count == 0)) {
        return SLAP_OK;
    }
    if (s->count == 0 && (b == NULL || b->count == 0)) { /* a first period: h as it is */
        results_sparse_free(s);
        return results_sparse_from_hist(h, s);
    }
    hist_clear(sum);
    results_sparse_add(s, sum);
    if (b != NULL) {
        results_sparse_add(b, sum);
    }
    if (h != NULL) {
        hist_merge(sum, h);
    }
    struct results_sparse out;
    if (results_sparse_from_hist(sum, &out) != SLAP_OK) {
        return SLAP_ERROR;
    }
    results_sparse_free(s);
    *s = out;
    return SLAP_OK;
}
