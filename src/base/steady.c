/* Was a run steady? Its periods' rate and median latency, first third against last third. */
#include "slap/base/steady.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "slap/base/confidence.h"

/* A third of the run as the values of its batches (consecutive periods). */
struct third {
    double value[STEADY_BATCHES];
    size_t n; /* batches with a value */
    double mean;
};

/* The value of periods [from, to) together: the rate (answers over seconds), or the mean of
 * the medians of those with answers; < 0 when there is none. */
static double batch_value(const struct steady_period *p, size_t from, size_t to, bool rate)
{
    double sum = 0, seconds = 0;
    size_t n = 0;
    for (size_t i = from; i < to; i++) {
        if (rate) {
            sum += (double)p[i].answers;
            seconds += p[i].seconds;
        } else if (p[i].median_us >= 0) {
            sum += p[i].median_us;
            n++;
        }
    }
    if (rate) {
        return seconds > 0 ? sum / seconds : -1.0;
    }
    return n > 0 ? sum / (double)n : -1.0;
}

/* Batches of periods [from, to): STEADY_BATCHES, fewer when they would be shorter than
 * STEADY_BATCH_MIN_S or hold no period, at least one. */
static size_t batches_of(const struct steady_period *p, size_t from, size_t to)
{
    double seconds = 0;
    for (size_t i = from; i < to; i++) {
        seconds += p[i].seconds;
    }
    size_t by_time = (size_t)(seconds / STEADY_BATCH_MIN_S + 1e-9);
    size_t b = to - from < STEADY_BATCHES ? to - from : STEADY_BATCHES;
    b = by_time < b ? by_time : b;
    return b > 0 ? b : 1;
}

static struct third third_of(const struct steady_period *p, size_t from, size_t to, bool rate)
{
    struct third t = {.n = 0};
    size_t len = to - from, batches = batches_of(p, from, to);
    double sum = 0;
    for (size_t b = 0; b < batches; b++) {
        double v = batch_value(p, from + b * len / batches, from + (b + 1) * len / batches, rate);
        if (v >= 0) {
            t.value[t.n++] = v;
            sum += v;
        }
    }
    t.mean = t.n > 0 ? sum / (double)t.n : 0.0;
    return t;
}

/* How a figure moved from the first third to the last. */
enum move_kind {
    HELD,    /* measured small: its interval inside +-its threshold */
    DRIFTED, /* past its threshold, and out of the noise */
    UNSURE,  /* neither: the noise does not tell */
};

struct move {
    enum move_kind kind;
    double from, to;  /* the first and the last third's means */
    double change;    /* to / from - 1 */
    double low, high; /* its STEADY_HELD_LEVEL interval (NAN: too few batches) */
    double seen;      /* the smallest change likely to be called drifted (0: none) */
    int empty;        /* a third without a value (no answers): 1 the first, 3 the last, 0 none */
};

/* The batches' variance about their own third's mean, pooled over the three thirds, and its
 * degrees of freedom (0: none to pool). */
static double pooled_variance(const struct third t[3], unsigned *df)
{
    double squares = 0;
    size_t values = 0, groups = 0;
    for (int k = 0; k < 3; k++) {
        for (size_t b = 0; b < t[k].n; b++) {
            squares += (t[k].value[b] - t[k].mean) * (t[k].value[b] - t[k].mean);
        }
        values += t[k].n;
        groups += t[k].n > 0;
    }
    *df = (unsigned)(values - groups);
    return *df > 0 ? squares / *df : 0.0;
}

static struct move moved(const struct third t[3], double drift)
{
    const struct third *a = &t[0], *b = &t[2];
    struct move m = {.kind = UNSURE, .from = a->mean, .to = b->mean, .low = NAN, .high = NAN};
    double base = a->mean > 0 ? a->mean : b->mean; /* from nothing: relative to where it got */
    m.change = base > 0 ? (b->mean - a->mean) / base : 0.0;
    unsigned df;
    double var = pooled_variance(t, &df);
    m.empty = a->n == 0 ? 1 : b->n == 0 ? 3 : 0;
    if (a->n == 0 || b->n == 0 || df == 0) {
        return m;
    }
    double se = sqrt(var * (1.0 / (double)a->n + 1.0 / (double)b->n));
    double half = base > 0 ? ci_t_quantile(STEADY_HELD_LEVEL, df) * se / base : 0.0;
    m.low = fmax(m.change - half, -1.0); /* no figure falls below 0 */
    m.high = m.change + half;
    double rel = base > 0 ? se / base : 0.0;
    double out_of_noise = ci_t_quantile(STEADY_DRIFT_LEVEL, df) * rel;
    double power = ci_t_quantile(2.0 * STEADY_SEEN_POWER - 1.0, df) * rel; /* one-sided */
    double beyond = ci_t_quantile(STEADY_BEYOND_LEVEL, df) * rel;          /* surely past it */
    m.seen = fmin(fmax(drift, out_of_noise + power), drift + beyond + power);
    if ((fabs(m.change) > drift &&
         fabs(b->mean - a->mean) > ci_t_quantile(STEADY_DRIFT_LEVEL, df) * se) ||
        fabs(m.change) - beyond > drift) {
        m.kind = DRIFTED;
    } else if (m.low >= -drift && m.high <= drift) {
        m.kind = HELD;
    }
    return m;
}

/* A figure of the thirds [0, k), [k, n - k) and [n - k, n). */
static struct move figure(const struct steady_period *p, size_t n, bool rate, double drift)
{
    size_t k = n / 3;
    struct third t[3] = {third_of(p, 0, k, rate), third_of(p, k, n - k, rate),
                         third_of(p, n - k, n, rate)};
    return moved(t, drift);
}

static const char *way(double change)
{
    return change < 0 ? "fell" : "rose";
}

#define THIRDS " from the first third of the run to the last"

/* Both held: "... held ... (rate +0.4% [-1.2%, +2.0%], median -2.1% [-5.3%, +1.1%] at 95%)" */
static void say_held(const struct move *r, const struct move *l, struct steady_verdict *v)
{
    snprintf(v->why, sizeof(v->why),
             "the rate and the median latency held" THIRDS " (rate %+.1f%% [%+.1f%%, %+.1f%%], "
             "median %+.1f%% [%+.1f%%, %+.1f%%] at %.0f%%)",
             r->change * 100, r->low * 100, r->high * 100, l->change * 100, l->low * 100,
             l->high * 100, STEADY_HELD_LEVEL * 100);
}

/* One figure that the noise leaves open, into buf: "the rate rose 17.0% [-3.1%, +37.2%]". */
static int say_unsure_figure(char *buf, size_t len, const char *name, const struct move *m)
{
    if (m->empty != 0) { /* a change from or to nothing is no change of a figure */
        return snprintf(buf, len, "the %s has no answers in the %s third to compare", name,
                        m->empty == 1 ? "first" : "last");
    }
    if (isnan(m->low)) {
        return snprintf(buf, len, "the %s %s %.1f%% (too few periods with answers)", name,
                        way(m->change), fabs(m->change) * 100);
    }
    return snprintf(buf, len, "the %s %s %.1f%% [%+.1f%%, %+.1f%%]", name, way(m->change),
                    fabs(m->change) * 100, m->low * 100, m->high * 100);
}

/* What the unsure figures' noise would likely have shown: "; a drift of 29% would likely
 * have been seen", or "; drifts of 29% (rate) and 60% (median) ...". Nothing for a figure
 * without an interval. */
static void say_seen(char *buf, size_t len, const struct move *r, const struct move *l, bool rate,
                     bool latency)
{
    rate = rate && !isnan(r->low);
    latency = latency && !isnan(l->low);
    if (rate && latency) {
        snprintf(buf, len,
                 "; drifts of %.0f%% (rate) and %.0f%% (median) would likely have "
                 "been seen",
                 r->seen * 100, l->seen * 100);
    } else if (rate || latency) {
        snprintf(buf, len, "; a drift of %.0f%% would likely have been seen",
                 (rate ? r->seen : l->seen) * 100);
    }
}

/* What the noise leaves open about an unsure figure: whether it moved past its threshold
 * (it moved that far, but not surely beyond chance) or stayed within it. */
static bool past(const struct move *m, double drift)
{
    return fabs(m->change) > drift;
}

/* Neither drifted, one or both unsure: what moved how far, and that the noise hides it. */
static void say_unsure(const struct move *r, const struct move *l, struct steady_verdict *v)
{
    char *buf = v->why;
    size_t len = sizeof(v->why), used = 0;
    bool rate = r->kind == UNSURE, latency = l->kind == UNSURE;
    if (rate) {
        used += (size_t)say_unsure_figure(buf, len, "rate", r);
    }
    if (rate && latency && used < len) {
        used += (size_t)snprintf(buf + used, len - used, " and ");
    }
    if (latency && used < len) {
        used += (size_t)say_unsure_figure(buf + used, len - used, "median latency", l);
    }
    if (used >= len) {
        return;
    }
    /* a figure without answers in a third was said as such: the noise speaks of the others */
    rate = rate && r->empty == 0;
    latency = latency && l->empty == 0;
    if (!rate && !latency) {
        snprintf(buf + used, len - used, THIRDS);
        return;
    }
    bool out = (!rate || past(r, STEADY_RATE_DRIFT)) && (!latency || past(l, STEADY_LATENCY_DRIFT));
    bool in =
        (!rate || !past(r, STEADY_RATE_DRIFT)) && (!latency || !past(l, STEADY_LATENCY_DRIFT));
    const char *doubt = out || in ? "to be sure" : "to tell whether";
    const char *moved = in ? "stayed within" : "moved past";
    const char *who = rate && latency ? "they" : "it";
    int n;
    if (rate && latency) {
        n = snprintf(buf + used, len - used, THIRDS ": too noisy %s %s %s %.0f%% and %.0f%%", doubt,
                     who, moved, STEADY_RATE_DRIFT * 100, STEADY_LATENCY_DRIFT * 100);
    } else {
        n = snprintf(buf + used, len - used, THIRDS ": too noisy %s %s %s %.0f%%", doubt, who,
                     moved, (rate ? STEADY_RATE_DRIFT : STEADY_LATENCY_DRIFT) * 100);
    }
    used += n > 0 ? (size_t)n : 0;
    if (used < len) {
        say_seen(buf + used, len - used, r, l, rate, latency);
    }
}

/* A figure or both drifted: which, by how much, from what to what. */
static void say_drifted(const struct move *r, const struct move *l, struct steady_verdict *v)
{
    if (r->kind == DRIFTED && l->kind == DRIFTED) {
        snprintf(v->why, sizeof(v->why),
                 "the rate %s %.0f%% and the median latency %s %.0f%%" THIRDS, way(r->change),
                 fabs(r->change) * 100, way(l->change), fabs(l->change) * 100);
    } else if (r->kind == DRIFTED) {
        snprintf(v->why, sizeof(v->why), "the rate %s %.0f%%" THIRDS " (%.0f to %.0f ops/s)",
                 way(r->change), fabs(r->change) * 100, r->from, r->to);
    } else {
        snprintf(v->why, sizeof(v->why), "the median latency %s %.0f%%" THIRDS " (%.0f to %.0f us)",
                 way(l->change), fabs(l->change) * 100, l->from, l->to);
    }
}

void steady_judge(const struct steady_period *p, size_t n, struct steady_verdict *v)
{
    *v = (struct steady_verdict){.state = STEADY_UNKNOWN};
    if (n < STEADY_MIN_PERIODS) {
        snprintf(v->why, sizeof(v->why), "%zu periods, %d needed to judge", n, STEADY_MIN_PERIODS);
        return;
    }
    size_t k = n / 3;
    if (batches_of(p, 0, k) < 2 || batches_of(p, n - k, n) < 2) {
        double first = 0;
        for (size_t i = 0; i < k; i++) {
            first += p[i].seconds;
        }
        snprintf(v->why, sizeof(v->why), "a third of the run is %.1f s, %.1f s needed to judge",
                 first, 2 * STEADY_BATCH_MIN_S);
        return;
    }
    struct move rate = figure(p, n, true, STEADY_RATE_DRIFT);
    struct move latency = figure(p, n, false, STEADY_LATENCY_DRIFT);
    v->rate_change = rate.change;
    v->latency_change = latency.change;
    v->rate_seen = rate.seen;
    v->latency_seen = latency.seen;
    if (rate.kind == DRIFTED || latency.kind == DRIFTED) {
        v->state = STEADY_NO;
        say_drifted(&rate, &latency, v);
    } else if (rate.kind == HELD && latency.kind == HELD) {
        v->state = STEADY_YES;
        say_held(&rate, &latency, v);
    } else {
        say_unsure(&rate, &latency, v);
    }
}

const char *steady_state_name(enum steady_state s)
{
    return s == STEADY_YES ? "yes" : s == STEADY_NO ? "no" : "unknown";
}
