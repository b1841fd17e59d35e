/* Was a run steady? Its periods' rate and median latency, first third against last third. */
#include "slap/base/steady.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>

/* Mean and sample variance of a third's values. */
struct third {
    double mean;
    double var;
    size_t n;
};

/* A period's rate or median latency; < 0 when it has none. */
static double period_value(const struct steady_period *p, bool rate)
{
    if (!rate) {
        return p->median_us;
    }
    return p->seconds > 0 ? (double)p->answers / p->seconds : -1.0;
}

/* The values (>= 0) of periods [from, to) as a third. */
static struct third third_of(const struct steady_period *p, size_t from, size_t to, bool rate)
{
    struct third t = {0};
    double sum = 0, sumsq = 0;
    for (size_t i = from; i < to; i++) {
        double v = period_value(&p[i], rate);
        if (v >= 0) {
            sum += v;
            sumsq += v * v;
            t.n++;
        }
    }
    if (t.n > 0) {
        t.mean = sum / (double)t.n;
    }
    if (t.n > 1) {
        t.var = fmax(0.0, (sumsq - sum * t.mean) / (double)(t.n - 1));
    }
    return t;
}

/* How a figure moved from the first third to the last. */
enum move {
    HELD,    /* within its drift, or beyond it by less than the noise lets one tell */
    DRIFTED, /* beyond its drift, and out of the periods' noise (Welch's t) */
    NOISY,   /* beyond its drift, within the noise, and one standard error of the difference
                is larger than the drift itself: the run cannot tell either way */
};

static enum move moved(struct third a, struct third b, double drift, double *change)
{
    *change = a.mean > 0 ? b.mean / a.mean - 1.0 : 0.0;
    if (a.n < 2 || b.n < 2 || fabs(*change) <= drift) {
        return HELD;
    }
    double se = sqrt(a.var / (double)a.n + b.var / (double)b.n);
    if (se == 0.0 || fabs(b.mean - a.mean) / se > STEADY_T) {
        return DRIFTED;
    }
    return se / a.mean > drift ? NOISY : HELD;
}

#define SCATTERED                                                                               \
    " from the first third of the run to the last, but the periods varied too much to tell a "  \
    "drift from noise"

void steady_judge(const struct steady_period *p, size_t n, struct steady_verdict *v)
{
    *v = (struct steady_verdict){.state = STEADY_UNKNOWN};
    if (n < STEADY_MIN_PERIODS) {
        snprintf(v->why, sizeof(v->why), "%zu periods, %d needed to judge", n,
                 STEADY_MIN_PERIODS);
        return;
    }
    size_t k = n / 3;
    struct third r1 = third_of(p, 0, k, true), r3 = third_of(p, n - k, n, true);
    struct third l1 = third_of(p, 0, k, false), l3 = third_of(p, n - k, n, false);
    enum move rate_move = moved(r1, r3, STEADY_RATE_DRIFT, &v->rate_change);
    enum move latency_move = moved(l1, l3, STEADY_LATENCY_DRIFT, &v->latency_change);
    bool rate = rate_move == DRIFTED, latency = latency_move == DRIFTED;
    v->state = rate || latency ? STEADY_NO : STEADY_YES;
    if (!rate && !latency && (rate_move == NOISY || latency_move == NOISY)) {
        /* a mean that moved this far, in periods this scattered, says neither */
        const char *rate_way = v->rate_change < 0 ? "fell" : "rose";
        const char *latency_way = v->latency_change < 0 ? "fell" : "rose";
        double rate_pct = fabs(v->rate_change) * 100, latency_pct = fabs(v->latency_change) * 100;
        if (rate_move == NOISY && latency_move == NOISY) {
            snprintf(v->why, sizeof(v->why), "the rate %s %.0f%% and the median latency %s %.0f%%"
                     SCATTERED, rate_way, rate_pct, latency_way, latency_pct);
        } else if (rate_move == NOISY) {
            snprintf(v->why, sizeof(v->why), "the rate %s %.0f%%" SCATTERED, rate_way, rate_pct);
        } else {
            snprintf(v->why, sizeof(v->why), "the median latency %s %.0f%%" SCATTERED, latency_way,
                     latency_pct);
        }
        v->state = STEADY_UNKNOWN;
        return;
    }
    if (rate && latency) {
        snprintf(v->why, sizeof(v->why),
                 "the rate %s %.0f%% and the median latency %s %.0f%% from the first third of "
                 "the run to the last",
                 v->rate_change < 0 ? "fell" : "rose", fabs(v->rate_change) * 100,
                 v->latency_change < 0 ? "fell" : "rose", fabs(v->latency_change) * 100);
    } else if (rate) {
        snprintf(v->why, sizeof(v->why),
                 "the rate %s %.0f%% from the first third of the run to the last (%.0f to "
                 "%.0f ops/s)",
                 v->rate_change < 0 ? "fell" : "rose", fabs(v->rate_change) * 100, r1.mean,
                 r3.mean);
    } else if (latency) {
        snprintf(v->why, sizeof(v->why),
                 "the median latency %s %.0f%% from the first third of the run to the last "
                 "(%.0f to %.0f us)",
                 v->latency_change < 0 ? "fell" : "rose", fabs(v->latency_change) * 100,
                 l1.mean, l3.mean);
    } else {
        snprintf(v->why, sizeof(v->why),
                 "the rate and the median latency held from the first third of the run to the last "
                 "(%+.1f%%, %+.1f%%)",
                 v->rate_change * 100, v->latency_change * 100);
    }
}

const char *steady_state_name(enum steady_state s)
{
    return s == STEADY_YES ? "yes" : s == STEADY_NO ? "no" : "unknown";
}
