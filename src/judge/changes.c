/* Where a series' level changed: E-divisive means (exponent 1), each split a permutation test. */
#include "slap/judge/changes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/ranks.h"
#include "slap/base/rng.h"

#define CHANGES_SEED 0x736c61702d636870ULL /* the default seed: any fixed number */
#define CHANGES_TIE 1e-9 /* a shuffle's statistic this close below the split's reaches it */

struct ranked {
    double value;
    double all;  /* the sum of its distances to the segment's other values */
    uint32_t at; /* its offset in the segment */
};

struct segment {
    size_t lo, hi;
};

struct found {
    size_t at;
    double p;
};

/* Everything one call needs, allocated once at the series' length. */
struct work {
    const double *x;
    const struct changes_settings *s;
    struct ranked *order;  /* the segment's values sorted (ties by offset) */
    uint32_t *rank;        /* the rank of each of the segment's values, in time order */
    uint32_t *shuffled;    /* the same ranks, shuffled */
    double total;          /* the sum of the distances within the segment */
    double *twice_inverse; /* [m]: 2 / m */
    double *sums;          /* the tree over ranks: sums and counts of the values so far */
    uint32_t *counts;
    struct segment *stack;
    size_t depth;
    struct found *found;
    size_t nfound;
    double *level; /* the medians between neighbouring changes */
    double *scratch;
};

void changes_defaults(struct changes_settings *s)
{
    s->min_segment = CHANGES_MIN_SEGMENT;
    s->permutations = CHANGES_PERMUTATIONS;
    s->max_p = CHANGES_MAX_P;
    s->min_relative = 0.0;
    s->seed = CHANGES_SEED;
}

void changes_free(struct changes *c)
{
    free(c->points);
    memset(c, 0, sizeof(*c));
}

static int by_value(const void *a, const void *b)
{
    const struct ranked *p = a, *q = b;
    if (p->value != q->value) {
        return p->value < q->value ? -1 : 1;
    }
    return (p->at > q->at) - (p->at < q->at);
}

static int by_double(const void *a, const void *b)
{
    double p = *(const double *)a, q = *(const double *)b;
    return (p > q) - (p < q);
}

static int by_at(const void *a, const void *b)
{
    const struct found *p = a, *q = b;
    return (p->at > q->at) - (p->at < q->at);
}

/* Sorts the segment x[lo..hi), and sets each value's rank, its distances to all the others and
 * the sum of the distances within. */
static void rank_segment(struct work *w, size_t lo, size_t hi)
{
    size_t n = hi - lo;
    double total = 0.0, below = 0.0;
    w->total = 0.0;
    for (size_t i = 0; i < n; i++) {
        w->order[i] = (struct ranked){.value = w->x[lo + i], .at = (uint32_t)i};
        total += w->x[lo + i];
    }
    qsort(w->order, n, sizeof(*w->order), by_value);
    for (size_t r = 0; r < n; r++) {
        double v = w->order[r].value;
        w->rank[w->order[r].at] = (uint32_t)r;
        w->order[r].all = v * (double)r - below + (total - below - v) - v * (double)(n - r - 1);
        w->total += v * (double)r - below; /* to the smaller ones */
        below += v;
    }
}

/*
 * The largest statistic over the splits of n values in the order rank[0..n); *best its split
 * (the earliest of equal ones), in O(n log n).
 *
 * With m values before a split and k after, wx and wy the distances within each side and t
 * those within the whole (the same for every order: w->total), the distances between the
 * sides are t - wx - wy, and the statistic
 *     m k / (m + k) (2 (t - wx - wy) / (m k) - 2 wx / m^2 - 2 wy / k^2)
 * comes to 2 t / (m + k) - 2 wx / m - 2 wy / k. One pass in time order: each value's
 * distances to those before it, from the count and the sum of the smaller ones (the tree over
 * ranks), make wx; wy is t less the distances of the first m values to all (.all) plus wx.
 */
static double largest_split(struct work *w, const uint32_t *rank, size_t n, size_t *best)
{
    const double *half = w->twice_inverse; /* [m]: 2 / m */
    double total = w->total, wx = 0.0, theirs = 0.0, run = 0.0, top = -INFINITY;
    size_t least = w->s->min_segment;
    memset(w->sums, 0, (n + 1) * sizeof(*w->sums));
    memset(w->counts, 0, (n + 1) * sizeof(*w->counts));
    for (size_t i = 0; i < n; i++) {
        size_t r = rank[i], m = i + 1;
        const struct ranked *it = &w->order[r];
        double v = it->value, below = 0.0;
        uint32_t count = 0;
        for (size_t j = r; j > 0; j &= j - 1) {
            below += w->sums[j];
            count += w->counts[j];
        }
        for (size_t j = r + 1; j <= n; j += j & (~j + 1)) {
            w->sums[j] += v;
            w->counts[j]++;
        }
        /* smaller: v count - below; larger: (run - below) - v (i - count) */
        wx += v * (2.0 * (double)count - (double)i) + run - 2.0 * below;
        run += v;
        theirs += it->all;
        double q = -wx * half[m] - (total - theirs + wx) * half[n - m];
        if (q > top && m >= least && n - m >= least) {
            top = q;
            *best = m;
        }
    }
    return top + total * half[n];
}

static void shuffle(uint32_t *v, size_t n, struct rng *g)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)rng_below(g, i);
        uint32_t t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

/* The permutation test's p for the segment [lo, hi) whose largest statistic is observed (its
 * ranks in w->rank); it stops as soon as p passes max_p. */
static double permutation_p(struct work *w, size_t lo, size_t hi, double observed)
{
    size_t n = hi - lo, ignored;
    double shuffles = 1.0 + (double)w->s->permutations, reached = 0.0;
    double bar = observed - CHANGES_TIE * fabs(observed);
    struct rng g = {.state = rng_mix(w->s->seed, lo, hi)};
    memcpy(w->shuffled, w->rank, n * sizeof(*w->shuffled));
    for (unsigned t = 0; t < w->s->permutations; t++) {
        shuffle(w->shuffled, n, &g);
        if (largest_split(w, w->shuffled, n, &ignored) >= bar) {
            reached += 1.0;
            if ((1.0 + reached) / shuffles > w->s->max_p) {
                break;
            }
        }
    }
    return (1.0 + reached) / shuffles;
}

/* Splits the series where the splits hold, each side searched again, into w->found. */
static void search(struct work *w, size_t n)
{
    size_t least = w->s->min_segment;
    w->stack[w->depth++] = (struct segment){0, n};
    while (w->depth > 0) {
        struct segment seg = w->stack[--w->depth];
        size_t at = 0;
        if (seg.hi - seg.lo < 2 * least) {
            continue;
        }
        rank_segment(w, seg.lo, seg.hi);
        double observed = largest_split(w, w->rank, seg.hi - seg.lo, &at);
        double p = permutation_p(w, seg.lo, seg.hi, observed);
        if (p > w->s->max_p) {
            continue;
        }
        w->found[w->nfound++] = (struct found){seg.lo + at, p};
        w->stack[w->depth++] = (struct segment){seg.lo, seg.lo + at};
        w->stack[w->depth++] = (struct segment){seg.lo + at, seg.hi};
    }
    qsort(w->found, w->nfound, sizeof(*w->found), by_at);
}

/* The first value of the j-th stretch between changes, and the one after its last. */
static size_t stretch_lo(const struct work *w, size_t j)
{
    return j == 0 ? 0 : w->found[j - 1].at;
}

static size_t stretch_hi(const struct work *w, size_t j, size_t n)
{
    return j == w->nfound ? n : w->found[j].at;
}

static double median_of(struct work *w, size_t lo, size_t hi)
{
    size_t n = hi - lo;
    memcpy(w->scratch, w->x + lo, n * sizeof(*w->scratch));
    qsort(w->scratch, n, sizeof(*w->scratch), by_double);
    return n % 2 == 1 ? w->scratch[n / 2] : (w->scratch[n / 2 - 1] + w->scratch[n / 2]) / 2.0;
}

/* The change below min_relative of the level before it, the smallest; nfound when none is. */
static size_t smallest_change(const struct work *w)
{
    size_t worst = w->nfound;
    double smallest = INFINITY;
    for (size_t j = 0; j < w->nfound; j++) {
        double before = fabs(w->level[j]), size = fabs(w->level[j + 1] - w->level[j]);
        if (size < w->s->min_relative * before && size / before < smallest) {
            smallest = size / before;
            worst = j;
        }
    }
    return worst;
}

/* The levels between the changes found, the small changes dropped one at a time. */
static void settle_levels(struct work *w, size_t n)
{
    size_t j;
    for (j = 0; j <= w->nfound; j++) {
        w->level[j] = median_of(w, stretch_lo(w, j), stretch_hi(w, j, n));
    }
    while ((j = smallest_change(w)) < w->nfound) {
        memmove(w->found + j, w->found + j + 1, (w->nfound - j - 1) * sizeof(*w->found));
        memmove(w->level + j + 1, w->level + j + 2, (w->nfound - j - 1) * sizeof(*w->level));
        w->nfound--;
        w->level[j] = median_of(w, stretch_lo(w, j), stretch_hi(w, j, n));
    }
}

/* The j-th change as reported: its levels, and the shift from the values nearest it. */
static enum slap_status describe(const struct work *w, size_t j, size_t n, struct change_point *c)
{
    size_t at = w->found[j].at, lo = stretch_lo(w, j), hi = stretch_hi(w, j + 1, n);
    size_t na = at - lo < CHANGES_SHIFT_RUNS ? at - lo : CHANGES_SHIFT_RUNS;
    size_t nb = hi - at < CHANGES_SHIFT_RUNS ? hi - at : CHANGES_SHIFT_RUNS;
    struct rank_shift r;
    if (rank_two_sample(w->x + at - na, na, w->x + at, nb, CHANGES_LEVEL, &r) != SLAP_OK) {
        return SLAP_ERROR;
    }
    *c = (struct change_point){.at = at, .before = w->level[j], .after = w->level[j + 1]};
    c->relative = c->before != 0.0 ? (c->after - c->before) / c->before : 0.0;
    c->estimable = r.estimable;
    c->shift = r.estimate;
    c->low = r.estimable ? r.low : 0.0;
    c->high = r.estimable ? r.high : 0.0;
    c->p = w->found[j].p;
    return SLAP_OK;
}

static enum slap_status report(const struct work *w, size_t n, struct changes *out)
{
    if (w->nfound == 0) {
        return SLAP_OK;
    }
    out->points = calloc(w->nfound, sizeof(*out->points));
    if (out->points == NULL) {
        return SLAP_ERROR;
    }
    out->n = w->nfound;
    for (size_t j = 0; j < w->nfound; j++) {
        if (describe(w, j, n, &out->points[j]) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

static void work_free(struct work *w)
{
    free(w->order);
    free(w->rank);
    free(w->shuffled);
    free(w->twice_inverse);
    free(w->sums);
    free(w->counts);
    free(w->stack);
    free(w->found);
    free(w->level);
    free(w->scratch);
}

static enum slap_status work_alloc(struct work *w, size_t n)
{
    size_t segments = n / w->s->min_segment + 1; /* each at least min_segment long */
    w->order = malloc(n * sizeof(*w->order));
    w->rank = malloc(n * sizeof(*w->rank));
    w->shuffled = malloc(n * sizeof(*w->shuffled));
    w->twice_inverse = malloc((n + 1) * sizeof(*w->twice_inverse));
    w->sums = malloc((n + 1) * sizeof(*w->sums));
    w->counts = malloc((n + 1) * sizeof(*w->counts));
    w->stack = malloc(segments * sizeof(*w->stack));
    w->found = malloc(segments * sizeof(*w->found));
    w->level = malloc((segments + 1) * sizeof(*w->level));
    w->scratch = malloc(n * sizeof(*w->scratch));
    bool ok = w->order != NULL && w->rank != NULL && w->shuffled != NULL && w->sums != NULL &&
              w->counts != NULL && w->stack != NULL && w->found != NULL && w->level != NULL &&
              w->scratch != NULL && w->twice_inverse != NULL;
    if (!ok) {
        return SLAP_ERROR;
    }
    w->twice_inverse[0] = 0.0;
    for (size_t m = 1; m <= n; m++) {
        w->twice_inverse[m] = 2.0 / (double)m;
    }
    return SLAP_OK;
}

/* The settings in their ranges: a min_segment above CHANGES_MAX / 2 no series could meet. */
static bool settings_hold(const struct changes_settings *s)
{
    return s != NULL && s->min_segment >= 2 && s->min_segment <= CHANGES_MAX / 2 &&
           s->permutations >= 19 && s->max_p > 0.0 && s->max_p < 1.0 && isfinite(s->min_relative) &&
           s->min_relative >= 0.0;
}

static bool all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i])) {
            return false;
        }
    }
    return true;
}

enum slap_status changes_find(const double *x, size_t n, const struct changes_settings *s,
                              struct changes *out)
{
    enum slap_status status = SLAP_ERROR;
    struct work w = {.x = x, .s = s};
    if (out == NULL) {
        return SLAP_ERROR;
    }
    memset(out, 0, sizeof(*out));
    if (!settings_hold(s) || n > CHANGES_MAX || (x == NULL && n > 0) || !all_finite(x, n)) {
        return SLAP_ERROR;
    }
    if (n < 2 * s->min_segment) {
        out->needed = 2 * s->min_segment;
        return SLAP_OK;
    }
    if (work_alloc(&w, n) != SLAP_OK) {
        goto done;
    }
    search(&w, n);
    settle_levels(&w, n);
    status = report(&w, n, out);
done:
    work_free(&w);
    if (status != SLAP_OK) {
        changes_free(out);
    }
    return status;
}
