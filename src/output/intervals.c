/* A run's periods kept, merged into at most INTERVALS_SEGMENTS segments, for intervals and
 * steadiness. */
#include "slap/output/intervals.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum slap_status intervals_init(struct intervals *iv)
{
    memset(iv, 0, sizeof(*iv));
    iv->width = 1;
    iv->seg = calloc(INTERVALS_SEGMENTS, sizeof(*iv->seg));
    if (iv->seg == NULL || hist_slab_alloc(&iv->scratch, 1) != SLAP_OK) {
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

static void segment_free(struct intervals_segment *g)
{
    for (int i = 0; i < INTERVALS_SERIES; i++) {
        results_sparse_free(&g->series[i]);
    }
    memset(g, 0, sizeof(*g));
}

void intervals_free(struct intervals *iv)
{
    for (size_t i = 0; iv->seg != NULL && i < iv->n; i++) {
        segment_free(&iv->seg[i]);
    }
    free(iv->seg);
    hist_slab_free(iv->scratch, 1);
    memset(iv, 0, sizeof(*iv));
}

/* Each series of s, in the order of the enum. */
static const struct hist *series_of(const struct slap_stats *s, int i)
{
    if (i < INTERVALS_RAW) {
        return s->lat[i - INTERVALS_LAT];
    }
    if (i < INTERVALS_HIT) {
        return s->raw[i - INTERVALS_RAW];
    }
    return i == INTERVALS_HIT    ? s->gets[STATS_HIT]
           : i == INTERVALS_MISS ? s->gets[STATS_MISS]
                                 : s->lag;
}

static enum slap_status segment_add(struct intervals_segment *g, const struct slap_stats *s,
                                    double seconds, struct hist *sum)
{
    g->seconds += seconds;
    g->answers += stats_counters_requests(&s->counters);
    for (int i = 0; i < INTERVALS_SERIES; i++) {
        if (results_sparse_sum(&g->series[i], NULL, series_of(s, i), sum) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

/* b merged into a (b emptied). */
static enum slap_status segment_merge(struct intervals_segment *a, struct intervals_segment *b,
                                      struct hist *sum)
{
    a->seconds += b->seconds;
    a->answers += b->answers;
    a->periods += b->periods;
    for (int i = 0; i < INTERVALS_SERIES; i++) {
        if (results_sparse_sum(&a->series[i], &b->series[i], NULL, sum) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    segment_free(b);
    return SLAP_OK;
}

/* Every segment full: neighbours merged in pairs, the width doubled. */
static enum slap_status compact(struct intervals *iv)
{
    size_t kept = 0;
    for (size_t i = 0; i < iv->n; i += 2) {
        if (i + 1 < iv->n && segment_merge(&iv->seg[i], &iv->seg[i + 1], iv->scratch) != SLAP_OK) {
            return SLAP_ERROR;
        }
        if (kept != i) {
            iv->seg[kept] = iv->seg[i];
            memset(&iv->seg[i], 0, sizeof(iv->seg[i]));
        }
        kept++;
    }
    iv->n = kept;
    iv->width *= 2;
    return SLAP_OK;
}

/* The segment a new period goes into (a new one when the last is full). */
static struct intervals_segment *next_segment(struct intervals *iv)
{
    if (iv->n > 0 && iv->seg[iv->n - 1].periods < iv->width) {
        iv->seg[iv->n - 1].periods++;
        return &iv->seg[iv->n - 1];
    }
    if (iv->n == INTERVALS_SEGMENTS && compact(iv) != SLAP_OK) {
        return NULL;
    }
    if (iv->n == 0 || iv->seg[iv->n - 1].periods >= iv->width) {
        iv->n++;
    }
    iv->seg[iv->n - 1].periods++;
    return &iv->seg[iv->n - 1];
}

enum slap_status intervals_add_stats(struct intervals *iv, const struct slap_stats *s,
                                     double seconds)
{
    struct intervals_segment *g = next_segment(iv);
    if (g == NULL) {
        return SLAP_ERROR;
    }
    iv->periods++;
    return segment_add(g, s, seconds, iv->scratch);
}

enum slap_status intervals_extend(struct intervals *iv, const struct slap_stats *s, double seconds)
{
    if (iv->n == 0) {
        return intervals_add_stats(iv, s, seconds);
    }
    return segment_add(&iv->seg[iv->n - 1], s, seconds, iv->scratch);
}

enum slap_status intervals_add_period(struct intervals *iv, const struct results_period *p)
{
    struct intervals_segment *g = next_segment(iv);
    if (g == NULL) {
        return SLAP_ERROR;
    }
    iv->periods++;
    g->seconds += p->seconds;
    g->answers += stats_counters_requests(&p->counters);
    for (int t = 0; t < STATS_TYPES; t++) {
        if (results_sparse_sum(&g->series[INTERVALS_LAT + t], &p->lat[t], NULL, iv->scratch) !=
            SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

intervals_mask intervals_types(int view)
{
    intervals_mask m = 0;
    for (int t = 0; t < STATS_TYPES; t++) {
        m |= INTERVALS_BIT(view + t);
    }
    return m;
}

/* Each segment's bounds of mask, into v; is their sum whole? */
static bool view_fill(struct intervals_view *v)
{
    uint64_t total = 0;
    for (size_t i = 0; i < v->iv->n; i++) {
        struct intervals_bounds b = {0, UINT64_MAX, 0};
        for (int s = 0; s < INTERVALS_SERIES; s++) {
            const struct results_sparse *series = &v->iv->seg[i].series[s];
            if ((v->mask & INTERVALS_BIT(s)) == 0 || series->count == 0) {
                continue;
            }
            b.count += series->count;
            b.min_ns = series->min_ns < b.min_ns ? series->min_ns : b.min_ns;
            b.max_ns = series->max_ns > b.max_ns ? series->max_ns : b.max_ns;
        }
        v->bounds[i] = b;
        total += b.count;
    }
    return total == v->whole->count;
}

enum slap_status intervals_view_open(struct intervals_view *v, const struct intervals *iv,
                                     intervals_mask mask, const struct hist *whole)
{
    memset(v, 0, sizeof(*v));
    v->whole = whole;
    if (iv == NULL || iv->n == 0) {
        return SLAP_OK;
    }
    v->iv = iv;
    v->mask = mask;
    v->bounds = malloc(iv->n * sizeof(*v->bounds));
    if (v->bounds == NULL) {
        return SLAP_ERROR;
    }
    v->n = view_fill(v) ? iv->n : 0; /* 0: the periods do not hold the run: the run alone */
    return SLAP_OK;
}

static void view_measure(const void *ctx, size_t i, uint64_t *count, uint64_t *min_ns,
                         uint64_t *max_ns)
{
    const struct intervals_bounds *b = &((const struct intervals_view *)ctx)->bounds[i];
    *count = b->count;
    *min_ns = b->min_ns;
    *max_ns = b->max_ns;
}

/* Segments [from, to) of the mask merged into one histogram, then read as ci_periods asks. */
static size_t view_rank_bucket(const void *ctx, size_t from, size_t to, uint64_t min_ns,
                               uint64_t max_ns, uint64_t rank)
{
    const struct intervals_view *v = ctx;
    struct hist *merged = v->iv->scratch; /* only its buckets in use are written */
    (void)min_ns; /* the merged histogram's own: the same segments' bounds */
    (void)max_ns;
    hist_clear(merged);
    for (size_t i = from; i < to; i++) {
        for (int s = 0; s < INTERVALS_SERIES; s++) {
            if ((v->mask & INTERVALS_BIT(s)) != 0) {
                results_sparse_add(&v->iv->seg[i].series[s], merged);
            }
        }
    }
    return hist_rank_bucket(merged, rank);
}

void intervals_view_ci(const struct intervals_view *v, double pct, struct ci_result *r)
{
    if (v->n > 0) {
        struct ci_periods of = {v->n, v, view_measure, view_rank_bucket};
        ci_percentile_of(&of, pct, INTERVALS_LEVEL, r);
    } else {
        const struct hist *one = v->whole;
        ci_percentile(&one, 1, pct, INTERVALS_LEVEL, r);
    }
}

void intervals_view_close(struct intervals_view *v)
{
    free(v->bounds);
    memset(v, 0, sizeof(*v));
}

void intervals_ci(const struct intervals *iv, intervals_mask mask, const struct hist *whole,
                  double pct, struct ci_result *r)
{
    struct intervals_view v;
    intervals_view_open(&v, iv, mask, whole);
    intervals_view_ci(&v, pct, r);
    intervals_view_close(&v);
}

void intervals_steady(const struct intervals *iv, struct steady_verdict *v)
{
    struct steady_period p[INTERVALS_SEGMENTS];
    size_t n = iv != NULL ? iv->n : 0;
    for (size_t i = 0; i < n; i++) {
        const struct intervals_segment *g = &iv->seg[i];
        struct hist *h = iv->scratch;
        hist_clear(h);
        for (int t = 0; t < STATS_TYPES; t++) {
            results_sparse_add(&g->series[INTERVALS_LAT + t], h);
        }
        p[i].seconds = g->seconds;
        p[i].answers = g->answers;
        p[i].median_us = h->count > 0 ? (double)hist_percentile_ns(h, 50.0) / 1000.0 : -1.0;
    }
    /* the last segment may be short of its width: judged on whole segments when others are */
    if (n > STEADY_MIN_PERIODS && iv->seg[n - 1].periods < iv->width) {
        n--;
    }
    steady_judge(p, n, v);
}

void intervals_describe(const struct ci_result *r, char *buf, size_t len)
{
    int pct = (int)lround(INTERVALS_LEVEL * 100.0);
    if (r->method == CI_BATCH_MEANS) {
        snprintf(buf, len, "%d%%, batch means of %u batches of periods", pct, r->batches);
    } else if (r->method == CI_ORDER_STATISTICS) {
        snprintf(buf, len, "%d%%, order statistics (too few periods for batch means: optimistic)",
                 pct);
    } else {
        snprintf(buf, len, "%d%%, %s", pct, ci_method_name(r->method));
    }
}
