/* Confidence intervals on percentiles: batch means over periods, order statistics as fallback. */
#include "slap/base/confidence.h"

#include <math.h>

#define CI_PI 3.14159265358979323846
#define CI_DEFAULT_LEVEL 0.95
#define CI_BISECTIONS 200

/* A run of consecutive periods [from, to) and what they hold together. */
struct ci_span {
    size_t from, to;
    uint64_t count;
    uint64_t min_ns, max_ns; /* over the non-empty periods */
};

static struct ci_span span_measure(const struct ci_periods *periods, size_t from, size_t to)
{
    struct ci_span span = {.from = from, .to = to, .count = 0, .min_ns = UINT64_MAX, .max_ns = 0};
    for (size_t i = from; i < to; i++) {
        uint64_t count, min_ns, max_ns;
        periods->measure(periods->ctx, i, &count, &min_ns, &max_ns);
        if (count == 0) {
            continue;
        }
        span.count += count;
        span.min_ns = min_ns < span.min_ns ? min_ns : span.min_ns;
        span.max_ns = max_ns > span.max_ns ? max_ns : span.max_ns;
    }
    return span;
}

/* The bucket where the span's cumulative count reaches rank (1..count), as if merged. */
static size_t span_rank_bucket(const struct ci_periods *periods, const struct ci_span *span,
                               uint64_t rank)
{
    return periods->rank_bucket(periods->ctx, span->from, span->to, span->min_ns, span->max_ns,
                                rank);
}

/* The bucket's midpoint kept inside the span's [min, max], as hist_percentile_ns reports it. */
static uint64_t span_bucket_value(const struct ci_span *span, size_t index)
{
    uint64_t low = hist_bucket_low(index);
    uint64_t mid = low + (hist_bucket_high(index) - low) / 2;
    if (mid < span->min_ns) {
        return span->min_ns;
    }
    return mid > span->max_ns ? span->max_ns : mid;
}

/* hist_percentile_ns of the span's periods merged, without merging them. */
static uint64_t span_percentile(const struct ci_periods *periods, const struct ci_span *span,
                                double pct)
{
    if (span->count == 0) {
        return 0;
    }
    if (pct >= 100.0) {
        return span->max_ns;
    }
    uint64_t rank = hist_percentile_rank(pct, span->count);
    return span_bucket_value(span, span_rank_bucket(periods, span, rank));
}

/* P(|T| <= t) for Student's t with df degrees of freedom (closed forms of Abramowitz and
 * Stegun 26.7.3-4), the normal's for df 0. */
static double t_two_sided(double t, unsigned df)
{
    if (df == 0) {
        return erf(t / sqrt(2.0));
    }
    double theta = atan(t / sqrt((double)df));
    double c2 = cos(theta) * cos(theta);
    if (df % 2 == 0) {
        double term = 1.0, sum = 1.0;
        for (unsigned k = 2; k + 2 <= df; k += 2) {
            term *= c2 * (double)(k - 1) / (double)k;
            sum += term;
        }
        return sin(theta) * sum;
    }
    double term = cos(theta), sum = df >= 3 ? term : 0.0;
    for (unsigned k = 3; k + 2 <= df; k += 2) {
        term *= c2 * (double)(k - 1) / (double)k;
        sum += term;
    }
    return 2.0 / CI_PI * (theta + sin(theta) * sum);
}

double ci_t_quantile(double level, unsigned df)
{
    if (!(level > 0.0 && level < 1.0)) {
        level = CI_DEFAULT_LEVEL;
    }
    double low = 0.0, high = 1.0;
    for (int i = 0; i < 64 && t_two_sided(high, df) < level; i++) {
        low = high;
        high *= 2.0;
    }
    for (int i = 0; i < CI_BISECTIONS && high - low > 1e-12 * high; i++) {
        double mid = (low + high) / 2.0;
        if (t_two_sided(mid, df) < level) {
            low = mid;
        } else {
            high = mid;
        }
    }
    return (low + high) / 2.0;
}

/* Requests a batch needs: CI_TAIL_MIN beyond the percentile on its smaller side; 0 when no
 * count suffices (p0, p100, nonsense). */
static uint64_t batch_requests_needed(double pct)
{
    double q = pct / 100.0;
    double tail = q < 1.0 - q ? q : 1.0 - q;
    if (!(tail > 0.0)) {
        return 0;
    }
    double need = CI_TAIL_MIN / tail;
    need = ceil(need - need * 1e-9); /* 10 / (1 - 0.99) is 999.99...: 1000 */
    if (need >= (double)(CI_NEEDED_NEVER / CI_BATCHES_MIN)) {
        return 0;
    }
    return (uint64_t)need;
}

static size_t nonempty_periods(const struct ci_periods *periods)
{
    size_t nonempty = 0;
    for (size_t i = 0; i < periods->count; i++) {
        uint64_t count, min_ns, max_ns;
        periods->measure(periods->ctx, i, &count, &min_ns, &max_ns);
        nonempty += count != 0;
    }
    return nonempty;
}

/*
 * Cut the periods into at most batches batches of consecutive periods: a batch closes at the
 * period where the running count crosses the next of batches equal shares of total. The
 * batches made, or 0 when one holds fewer than per_batch requests.
 */
static size_t cut_batches(const struct ci_periods *periods, uint64_t total, size_t batches,
                          uint64_t per_batch, struct ci_span *spans)
{
    size_t made = 0, start = 0;
    uint64_t seen = 0, share = 1;
    for (size_t i = 0; i < periods->count && share <= batches; i++) {
        uint64_t count, min_ns, max_ns;
        periods->measure(periods->ctx, i, &count, &min_ns, &max_ns);
        seen += count;
        if (seen * batches < share * total) {
            continue;
        }
        spans[made] = span_measure(periods, start, i + 1);
        if (spans[made].count < per_batch) {
            return 0;
        }
        made++;
        start = i + 1;
        while (share <= batches && seen * batches >= share * total) {
            share++;
        }
    }
    return made;
}

/* Widen [low, high] to at least the bucket of the estimate: the histogram's resolution. */
static void cover_bucket(struct ci_result *result)
{
    size_t index = hist_bucket_index(result->value_ns);
    uint64_t low = hist_bucket_low(index), high = hist_bucket_high(index);
    result->low_ns = result->low_ns < low ? result->low_ns : low;
    result->high_ns = result->high_ns > high ? result->high_ns : high;
}

/* No bound beyond what was seen: the fastest and the slowest request of the run. */
static void keep_seen(struct ci_result *result, const struct ci_span *all)
{
    result->low_ns = result->low_ns < all->min_ns ? all->min_ns : result->low_ns;
    result->high_ns = result->high_ns > all->max_ns ? all->max_ns : result->high_ns;
}

/* estimate +- t * s / sqrt(B) from the batches' percentiles. */
static void batch_means(const struct ci_periods *periods, const struct ci_span *spans,
                        size_t batches, double pct, double level, struct ci_result *result)
{
    double values[CI_BATCHES_MAX], mean = 0.0, squares = 0.0;
    for (size_t b = 0; b < batches; b++) {
        values[b] = (double)span_percentile(periods, &spans[b], pct);
        mean += values[b];
    }
    mean /= (double)batches;
    for (size_t b = 0; b < batches; b++) {
        squares += (values[b] - mean) * (values[b] - mean);
    }
    double s = sqrt(squares / (double)(batches - 1));
    double half = ci_t_quantile(level, (unsigned)batches - 1) * s / sqrt((double)batches);
    double value = (double)result->value_ns;
    result->method = CI_BATCH_MEANS;
    result->batches = (unsigned)batches;
    result->low_ns = half >= value ? 0 : (uint64_t)floor(value - half);
    result->high_ns = (uint64_t)ceil(value + half);
}

/* The ranks n*q +- z * sqrt(n*q*(1-q)) read through the run's cumulative counts. */
static void order_statistics(const struct ci_periods *periods, const struct ci_span *all,
                             double pct, double level, struct ci_result *result)
{
    double n = (double)all->count, q = pct / 100.0;
    double spread = ci_t_quantile(level, 0) * sqrt(n * q * (1.0 - q));
    double low_rank = floor(n * q - spread), high_rank = ceil(n * q + spread);
    uint64_t low = low_rank < 1.0 ? 1 : (uint64_t)low_rank;
    uint64_t high = high_rank >= n ? all->count : (uint64_t)high_rank;
    result->method = CI_ORDER_STATISTICS;
    result->low_ns = hist_bucket_low(span_rank_bucket(periods, all, low));
    result->high_ns = hist_bucket_high(span_rank_bucket(periods, all, high));
}

void ci_percentile_of(const struct ci_periods *periods, double pct, double level,
                      struct ci_result *result)
{
    struct ci_span all = span_measure(periods, 0, periods->count);
    uint64_t per_batch = batch_requests_needed(pct);
    uint64_t needed = per_batch ? per_batch * CI_BATCHES_MIN : CI_NEEDED_NEVER;
    *result = (struct ci_result){.method = CI_NOT_ESTIMABLE,
                                 .value_ns = span_percentile(periods, &all, pct),
                                 .requests = all.count,
                                 .needed = needed};
    if (per_batch == 0 || all.count < result->needed) {
        return;
    }
    struct ci_span spans[CI_BATCHES_MAX];
    size_t most = nonempty_periods(periods);
    most = most < CI_BATCHES_MAX ? most : CI_BATCHES_MAX;
    most = most < all.count / per_batch ? most : (size_t)(all.count / per_batch);
    size_t made = 0;
    for (size_t batches = most; batches >= CI_BATCHES_MIN && made < CI_BATCHES_MIN; batches--) {
        made = cut_batches(periods, all.count, batches, per_batch, spans);
    }
    if (made >= CI_BATCHES_MIN) {
        batch_means(periods, spans, made, pct, level, result);
    } else {
        order_statistics(periods, &all, pct, level, result);
    }
    result->estimable = true;
    cover_bucket(result);
    keep_seen(result, &all);
}

static void hists_measure(const void *ctx, size_t i, uint64_t *count, uint64_t *min_ns,
                          uint64_t *max_ns)
{
    const struct hist *h = ((const struct hist *const *)ctx)[i];
    *count = h->count;
    *min_ns = h->min_ns;
    *max_ns = h->max_ns;
}

/* Summed bucket by bucket across the periods, none merged. */
static size_t hists_rank_bucket(const void *ctx, size_t from, size_t to, uint64_t min_ns,
                                uint64_t max_ns, uint64_t rank)
{
    const struct hist *const *periods = ctx;
    size_t last = hist_bucket_index(max_ns);
    uint64_t seen = 0;
    for (size_t i = hist_bucket_index(min_ns); i < last; i++) {
        for (size_t p = from; p < to; p++) {
            seen += periods[p]->buckets[i];
        }
        if (seen >= rank) {
            return i;
        }
    }
    return last;
}

void ci_percentile(const struct hist *const *periods, size_t count, double pct, double level,
                   struct ci_result *result)
{
    struct ci_periods of = {count, periods, hists_measure, hists_rank_bucket};
    ci_percentile_of(&of, pct, level, result);
}

double ci_relative_halfwidth(const struct ci_result *result)
{
    if (!result->estimable || result->value_ns == 0) {
        return INFINITY;
    }
    return ((double)result->high_ns - (double)result->low_ns) / 2.0 / (double)result->value_ns;
}

const char *ci_method_name(enum ci_method method)
{
    switch (method) {
    case CI_BATCH_MEANS:
        return "batch means";
    case CI_ORDER_STATISTICS:
        return "order statistics";
    case CI_NOT_ESTIMABLE:
        break;
    }
    return "not estimable";
}

/* A run's standard error and degrees of freedom, from its interval. */
static void run_error(const struct ci_result *r, double level, double *se, double *df)
{
    unsigned freedom = r->method == CI_BATCH_MEANS && r->batches > 1 ? r->batches - 1 : 0;
    *se = ((double)r->high_ns - (double)r->low_ns) / 2.0 / ci_t_quantile(level, freedom);
    *df = freedom;
}

void ci_compare(const struct ci_result *a, const struct ci_result *b, double level,
                struct ci_difference *d)
{
    *d = (struct ci_difference){.estimable = a->estimable && b->estimable};
    d->diff_ns = (double)b->value_ns - (double)a->value_ns;
    d->relative = a->value_ns > 0 ? d->diff_ns / (double)a->value_ns : 0.0;
    if (!d->estimable) {
        return;
    }
    double sa, sb, dfa, dfb;
    run_error(a, level, &sa, &dfa);
    run_error(b, level, &sb, &dfb);
    double var = sa * sa + sb * sb;
    unsigned df = 0; /* normal, unless both come with degrees of freedom */
    if (dfa > 0 && dfb > 0 && var > 0) {
        double den = sa * sa * sa * sa / dfa + sb * sb * sb * sb / dfb;
        df = den > 0 ? (unsigned)fmax(1.0, floor(var * var / den)) : 0;
    }
    double half = ci_t_quantile(level, df) * sqrt(var);
    d->se_ns = sqrt(var);
    d->df = df;
    d->low_ns = d->diff_ns - half;
    d->high_ns = d->diff_ns + half;
    d->significant = d->low_ns > 0 || d->high_ns < 0;
}

bool ci_significant_at(const struct ci_difference *d, double level)
{
    if (!d->estimable) {
        return false;
    }
    return fabs(d->diff_ns) > ci_t_quantile(level, d->df) * d->se_ns;
}

void ci_mean(const double *values, size_t n, double level, double *mean, double *low, double *high,
             double *se)
{
    double sum = 0, sumsq = 0;
    for (size_t i = 0; i < n; i++) {
        sum += values[i];
        sumsq += values[i] * values[i];
    }
    double m = n > 0 ? sum / (double)n : 0.0;
    double err = n > 1 ? sqrt(fmax(0.0, (sumsq - sum * m) / (double)(n - 1)) / (double)n) : 0.0;
    double half = n > 1 ? ci_t_quantile(level, (unsigned)(n - 1)) * err : 0.0;
    *mean = m;
    *low = m - half;
    *high = m + half;
    if (se != NULL) {
        *se = err;
    }
}
