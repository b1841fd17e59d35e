/* A shift between two sets of replicates by ranks: signed-rank (paired), Mann-Whitney (not). */
#include "slap/base/ranks.h"

#include <math.h>
#include <stdlib.h>

#include "slap/base/confidence.h"

#define RANKS_DEFAULT_LEVEL 0.95

static double alpha_of(double level)
{
    return level > 0.0 && level < 1.0 ? 1.0 - level : 1.0 - RANKS_DEFAULT_LEVEL;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of sorted values[0..n). */
static double median_of(const double *values, size_t n)
{
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

/*
 * dist[0..top] is a statistic's exact distribution under "no difference": the largest c >= 1
 * whose lower tail P(S <= c - 1) is at most alpha / 2, and the confidence 1 - 2 P(S <= c - 1)
 * of the interval between the c-th values from each end; 0 when even c = 1 is too wide.
 */
static size_t critical_rank(const double *dist, size_t top, double alpha, double *achieved)
{
    double tail = 0.0;
    size_t c = 0;
    for (size_t s = 0; s <= top; s++) {
        if (tail + dist[s] > alpha / 2.0 * (1.0 + 1e-12)) {
            break;
        }
        tail += dist[s];
        c = s + 1;
    }
    *achieved = 1.0 - 2.0 * tail;
    return c;
}

/* Wilcoxon's signed-rank statistic over n pairs: each of 2^n sign patterns alike. dist has
 * n(n+1)/2 + 1 entries. */
static void signed_rank_dist(size_t n, double *dist)
{
    size_t top = n * (n + 1) / 2;
    for (size_t t = 0; t <= top; t++) {
        dist[t] = t == 0 ? 1.0 : 0.0;
    }
    for (size_t k = 1; k <= n; k++) {
        size_t reach = k * (k + 1) / 2;
        for (size_t t = reach; t >= k; t--) {
            dist[t] = (dist[t] + dist[t - k]) / 2.0;
        }
        for (size_t t = k; t-- > 0;) {
            dist[t] /= 2.0;
        }
    }
}

/*
 * The Mann-Whitney statistic over m and n values: each of the C(m+n, m) orderings alike. Its
 * counts are the coefficients of the Gaussian binomial prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i),
 * computed modulo q^(mn+1), then scaled to probabilities. dist has mn + 1 entries.
 */
static void mann_whitney_dist(size_t m, size_t n, double *dist)
{
    size_t top = m * n;
    double total = 0.0;
    for (size_t u = 0; u <= top; u++) {
        dist[u] = u == 0 ? 1.0 : 0.0;
    }
    for (size_t i = 1; i <= m; i++) {
        for (size_t u = i; u <= top; u++) { /* divided by 1 - q^i */
            dist[u] += dist[u - i];
        }
        for (size_t u = top + 1; u-- > n + i;) { /* times 1 - q^(n+i) */
            dist[u] -= dist[u - n - i];
        }
    }
    for (size_t u = 0; u <= top; u++) {
        dist[u] = dist[u] > 0.0 ? dist[u] : 0.0;
        total += dist[u];
    }
    for (size_t u = 0; u <= top; u++) {
        dist[u] /= total;
    }
}

/* The interval between the c-th of sorted[0..count) from each end, and the estimate. */
static void shift_from(const double *sorted, size_t count, size_t c, double achieved,
                       struct rank_shift *r)
{
    r->estimate = median_of(sorted, count);
    if (c == 0) {
        return;
    }
    r->estimable = true;
    r->low = sorted[c - 1];
    r->high = sorted[count - c];
    r->achieved = achieved;
    r->significant = r->low > 0.0 || r->high < 0.0;
}

/* The count values to sort and a statistic's distribution over 0..count. */
static enum slap_status alloc_two(size_t count, double **values, double **dist)
{
    *values = malloc(count * sizeof(**values));
    *dist = malloc((count + 1) * sizeof(**dist));
    if (*values == NULL || *dist == NULL) {
        free(*values);
        free(*dist);
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

enum slap_status rank_paired(const double *d, size_t n, double level, struct rank_shift *r)
{
    *r = (struct rank_shift){.needed = rank_needed(true, level)};
    if (n == 0) {
        return SLAP_OK;
    }
    if (n > RANKS_MAX) {
        return SLAP_ERROR;
    }
    r->freedom = n - 1;
    size_t count = n * (n + 1) / 2;
    double *walsh, *dist;
    if (alloc_two(count, &walsh, &dist) != SLAP_OK) {
        return SLAP_ERROR;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = i; j < n; j++) {
            walsh[k++] = (d[i] + d[j]) / 2.0;
        }
    }
    qsort(walsh, count, sizeof(*walsh), by_value);
    signed_rank_dist(n, dist);
    double achieved;
    size_t c = critical_rank(dist, count, alpha_of(level), &achieved);
    shift_from(walsh, count, c, achieved, r);
    free(walsh);
    free(dist);
    return SLAP_OK;
}

enum slap_status rank_two_sample(const double *a, size_t na, const double *b, size_t nb,
                                 double level, struct rank_shift *r)
{
    *r = (struct rank_shift){.needed = rank_needed(false, level)};
    if (na == 0 || nb == 0) {
        return SLAP_OK;
    }
    if (na > RANKS_MAX || nb > RANKS_MAX) {
        return SLAP_ERROR;
    }
    r->freedom = na + nb - 2;
    size_t count = na * nb;
    double *diffs, *dist;
    if (alloc_two(count, &diffs, &dist) != SLAP_OK) {
        return SLAP_ERROR;
    }
    for (size_t i = 0; i < na; i++) {
        for (size_t j = 0; j < nb; j++) {
            diffs[i * nb + j] = b[j] - a[i];
        }
    }
    qsort(diffs, count, sizeof(*diffs), by_value);
    mann_whitney_dist(na, nb, dist);
    double achieved;
    size_t c = critical_rank(dist, count, alpha_of(level), &achieved);
    shift_from(diffs, count, c, achieved, r);
    free(diffs);
    free(dist);
    return SLAP_OK;
}

size_t rank_needed(bool paired, double level)
{
    double half = alpha_of(level) / 2.0;
    if (paired) { /* the most extreme of 2^n sign patterns: 2^-n */
        size_t n = 1;
        while (ldexp(1.0, -(int)n) > half * (1.0 + 1e-12) && n < RANKS_MAX) {
            n++;
        }
        return n;
    }
    /* the most extreme of C(2n, n) orderings of two sides of n */
    double orderings = 2.0; /* C(2, 1) */
    size_t n = 1;
    while (1.0 / orderings > half * (1.0 + 1e-12) && n < RANKS_MAX) {
        orderings *= (double)(2 * n + 1) * (double)(2 * n + 2) / (double)((n + 1) * (n + 1));
        n++;
    }
    return n;
}

double rank_detectable(const struct rank_shift *r)
{
    if (!r->estimable || !(r->achieved > 0.0 && r->achieved < 1.0)) {
        return 0.0;
    }
    double z = ci_t_quantile(r->achieved, 0);
    /* one-sided RANKS_POWER, with the freedom h was measured with */
    double z_power = ci_t_quantile(2.0 * RANKS_POWER - 1.0, (unsigned)r->freedom);
    return (r->high - r->low) / 2.0 * (z + z_power) / z;
}

size_t rank_needed_for(const struct rank_shift *r, size_t n, double change, bool paired,
                       double level)
{
    double s = rank_detectable(r);
    if (s <= 0.0 || change == 0.0 || !isfinite(change)) {
        return 0;
    }
    double need = ceil((double)n * (s / change) * (s / change) - 1e-9);
    size_t least = rank_needed(paired, level);
    if (!(need <= (double)RANKS_MAX)) {
        return RANKS_MAX + 1;
    }
    return (size_t)need < least ? least : (size_t)need;
}
