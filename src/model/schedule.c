/* Open-loop timing: intended send times of one lane, uniform (exact) or Poisson (seeded), at a
 * fixed rate or over a --ramp. */
#include "slap/model/schedule.h"

#include <math.h>

#include <stdio.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/base/units.h"
#include "slap/model/sizelaw.h"

/* 2^53: (x >> 11) + 1 over this is uniform in (0, 1] with a double's full mantissa. */
#define UNIT_SCALE 9007199254740992.0
/* 2^52: (x >> 12) + 0.5 over this is in (0, 1), both ends out: with 53 bits, (2^53 - 1/2) / 2^53
 * rounds to 1, the law's end (an infinite gap: a lane silent for good). */
#define QUANTILE_SCALE 4503599627370496.0

const struct arrival_law arrival_laws[] = {
    {.name = "uniform", .arrival = ARRIVAL_UNIFORM},
    {.name = "poisson", .arrival = ARRIVAL_POISSON},
    {.name = "exponential", .arrival = ARRIVAL_POISSON},
    {.name = "normal",
     .arrival = ARRIVAL_NORMAL,
     .shaped = true,
     .shape_name = "CV",
     .lo = 0,
     .hi = ARRIVAL_NORMAL_CV_MAX,
     .hi_in = true,
     .why_lo = "a deviation of 0 is --arrival=uniform",
     .why_hi = "beyond it more gaps fall below 0 and are sent at once, which slows the rate: "
               "0.011% at 0.33, 0.4% at 0.5, 8% at 1"},
    {.name = "gev",
     .arrival = ARRIVAL_GEV,
     .shaped = true,
     .shape_name = "SHAPE",
     .lo = 0,
     .hi = ARRIVAL_SHAPE_MAX,
     .why_lo = "at 0 and below the law has no least gap to start from 0",
     .why_hi = "from 0.5 the gaps' variance is infinite and a run's rate strays above -P's: "
               "at 0.8, 5% over a million gaps",
     .hi_before = 1},
    {.name = "gpareto",
     .arrival = ARRIVAL_GPARETO,
     .shaped = true,
     .shape_name = "SHAPE",
     .lo = 0,
     .hi = ARRIVAL_SHAPE_MAX,
     .lo_in = true,
     .why_lo = "below 0 the gaps are bounded, a law slap does not offer",
     .why_hi = "from 0.5 the gaps' variance is infinite and a run's rate strays above -P's: "
               "at 0.8, 6% over a million gaps",
     .hi_before = 1},
    {.name = "etc", .arrival = ARRIVAL_GPARETO, .shape = ARRIVAL_ETC_SHAPE},
};
const size_t arrival_law_count = sizeof(arrival_laws) / sizeof(arrival_laws[0]);

/* The first row of an arrival (its name), or NULL. */
static const struct arrival_law *arrival_row(enum arrival arrival)
{
    for (size_t i = 0; i < arrival_law_count; i++) {
        if (arrival_laws[i].arrival == arrival) {
            return &arrival_laws[i];
        }
    }
    return NULL;
}

const char *arrival_name(enum arrival arrival)
{
    const struct arrival_law *law = arrival_row(arrival);
    return law != NULL ? law->name : "?";
}

void arrival_law_names(char *buf, size_t len)
{
    size_t used = 0;
    if (len > 0) {
        buf[0] = '\0';
    }
    for (size_t i = 0; i < arrival_law_count && used < len; i++) {
        const struct arrival_law *law = &arrival_laws[i], *before = &arrival_laws[i - (i > 0)];
        bool alias = i > 0 && !law->shaped && !before->shaped && before->arrival == law->arrival;
        int n =
            alias ? snprintf(buf + used, len - used, " (or %s)", law->name)
                  : snprintf(buf + used, len - used, "%s%s%s%s",
                             i == 0                       ? ""
                             : i + 1 == arrival_law_count ? " or "
                                                          : ", ",
                             law->name, law->shaped ? ":" : "", law->shaped ? law->shape_name : "");
        used += n > 0 ? (size_t)n : 0;
    }
}

/* A non-negative number of ns rounded to the nearest, saturating at UINT64_MAX. */
static uint64_t round_ns(long double ns)
{
    if (!(ns > 0.0L)) {
        return 0;
    }
    if (ns >= (long double)UINT64_MAX) {
        return UINT64_MAX;
    }
    return (uint64_t)(ns + 0.5L);
}

static uint64_t add_saturating(uint64_t a, uint64_t b)
{
    return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

/* Uniform: request k of the lane, from k itself (k * 1e9 is exact in long double). */
static uint64_t uniform_time_of(const struct schedule *s, uint64_t k)
{
    long double offset = (long double)k * (long double)SLAP_NS_PER_SEC / (long double)s->rate;
    return add_saturating(s->first_ns, round_ns(offset));
}

static uint64_t uniform_time(const struct schedule *s)
{
    return uniform_time_of(s, s->k);
}

/* The law of gaps of mean 1 with the shape: normal (1, shape); GEV from 0 (location
 * scale / shape, scale shape / Gamma(1 - shape)); generalized Pareto from 0 (scale 1 - shape),
 * also what uniform and Poisson schedules keep, unused. */
static enum size_law gap_law(enum arrival arrival, double shape, double p[3])
{
    p[0] = p[1] = p[2] = 0;
    if (arrival == ARRIVAL_NORMAL) {
        p[0] = 1, p[1] = shape;
        return SIZE_LAW_NORMAL;
    }
    if (arrival == ARRIVAL_GEV) {
        p[1] = shape / tgamma(1 - shape), p[2] = shape;
        p[0] = p[1] / shape;
        return SIZE_LAW_GEV;
    }
    p[1] = 1 - shape, p[2] = shape;
    return SIZE_LAW_GPARETO;
}

double arrival_gap_quantile(enum arrival arrival, double shape, double q)
{
    if (arrival == ARRIVAL_UNIFORM) {
        return 1;
    }
    if (arrival == ARRIVAL_POISSON) {
        return -log1p(-q);
    }
    double p[3];
    double gap = size_law_quantile(gap_law(arrival, shape, p), p, q);
    return gap > 0 ? gap : 0;
}

/* Random gaps of mean 1: Poisson's -ln(U) with U in (0, 1]; another law's quantile at U (in
 * (0, 1)) of the law of mean 1. */
static double unit_gap(struct schedule *s)
{
    uint64_t bits = rng_next(&s->rng);
    if (s->arrival == ARRIVAL_POISSON) {
        return -log((double)((bits >> 11) + 1) / UNIT_SCALE);
    }
    double q = ((double)(bits >> 12) + 0.5) / QUANTILE_SCALE;
    double gap = size_law_quantile(s->law, s->p, q);
    return gap > 0 ? gap : 0;
}

/* One random gap in ns: a gap of mean 1 times the mean gap. */
static double poisson_gap_ns(struct schedule *s)
{
    return unit_gap(s) * ((double)SLAP_NS_PER_SEC / s->rate);
}

void arrival_text(char *buf, size_t len, enum arrival arrival, double shape)
{
    const struct arrival_law *law = arrival_row(arrival);
    if (law == NULL || !law->shaped) {
        snprintf(buf, len, "%s", arrival_name(arrival));
    } else {
        char number[32];
        units_shortest(number, sizeof(number), shape); /* the shortest text that reads back */
        snprintf(buf, len, "%s:%s", arrival_name(arrival), number);
    }
}

static uint64_t poisson_time(const struct schedule *s)
{
    return add_saturating(s->first_ns, round_ns((long double)s->poisson_ns));
}

void schedule_init(struct schedule *s, enum arrival arrival, double shape, double total_rate,
                   uint32_t lanes, uint32_t lane_index, uint64_t start_ns, uint64_t seed)
{
    s->arrival = arrival;
    s->rate = total_rate / (double)lanes;
    s->lanes = lanes;
    s->lane_index = lane_index;
    s->shape = shape;
    s->switch_ns = UINT64_MAX;
    s->op_count = 0.0L;
    s->k = 0;
    s->poisson_ns = 0.0;
    s->rng.state = seed;
    s->ramp = (struct ramp){0};
    s->law = gap_law(arrival, shape, s->p);
    if (arrival != ARRIVAL_UNIFORM) {
        s->first_ns = start_ns;
        s->poisson_ns = poisson_gap_ns(s);
        s->next_ns = poisson_time(s);
        return;
    }
    long double stagger = (long double)lane_index * (long double)SLAP_NS_PER_SEC / total_rate;
    s->first_ns = add_saturating(start_ns, round_ns(stagger));
    s->next_ns = uniform_time(s);
}

long double ramp_count(const struct ramp *r, long double t)
{
    long double d = (long double)r->duration_ns / (long double)SLAP_NS_PER_SEC;
    long double a = r->from, b = r->to;
    if (t <= 0.0L) {
        return 0.0L;
    }
    if (t <= d) {
        return a * t + (b - a) * t * t / (2.0L * d);
    }
    return (a + b) * d / 2.0L + b * (t - d);
}

/* Within the ramp, the root of (b - a) t^2 / (2 d) + a t - count = 0 as 2 count / (a +
 * sqrt(a^2 + 2 (b - a) count / d)): no difference of near numbers when a and b are close
 * (the usual form divides by b - a), and sqrt(2 count d / b) when a is 0. Falling, the square
 * stays at least b^2 up to L(d). */
long double ramp_time(const struct ramp *r, long double count)
{
    long double d = (long double)r->duration_ns / (long double)SLAP_NS_PER_SEC;
    long double a = r->from, b = r->to;
    long double at_end = (a + b) * d / 2.0L;
    if (!(count > 0.0L)) {
        return 0.0L;
    }
    if (count > at_end) {
        return d + (count - at_end) / b;
    }
    long double square = a * a + 2.0L * (b - a) * count / d;
    long double t = 2.0L * count / (a + sqrtl(square > 0.0L ? square : 0.0L));
    return t < d ? t : d;
}

double ramp_rate_between(const struct ramp *r, double t0, double t1)
{
    if (!(t1 > t0)) { /* the rate at t0 */
        long double d = (long double)r->duration_ns / (long double)SLAP_NS_PER_SEC;
        return t0 >= d ? r->to : (double)(r->from + (r->to - r->from) * t0 / d);
    }
    return (double)((ramp_count(r, t1) - ramp_count(r, t0)) / ((long double)t1 - t0));
}

struct ramp ramp_share(const struct ramp *r, double parts)
{
    return (struct ramp){r->from / parts, r->to / parts, r->duration_ns};
}

/* A ramp's count as an intended time: start plus ramp_time, rounded to the ns once. */
static uint64_t ramp_time_ns(const struct schedule *s, long double count)
{
    return add_saturating(s->first_ns,
                          round_ns(ramp_time(&s->ramp, count) * (long double)SLAP_NS_PER_SEC));
}

/* Uniform over a ramp: request k of the lane is the (k lanes + lane_index)-th of the run. */
static uint64_t ramp_uniform_time_of(const struct schedule *s, uint64_t k)
{
    return ramp_time_ns(s, (long double)k * s->lanes + s->lane_index);
}

/* The next time of s, whichever law and shape it follows. */
static uint64_t next_time(const struct schedule *s)
{
    if (s->ramp.duration_ns > 0) {
        return s->arrival == ARRIVAL_UNIFORM ? ramp_uniform_time_of(s, s->k)
                                             : ramp_time_ns(s, s->op_count);
    }
    return s->arrival == ARRIVAL_UNIFORM ? uniform_time(s) : poisson_time(s);
}

void schedule_init_ramp(struct schedule *s, enum arrival arrival, double shape,
                        const struct ramp *r, uint32_t lanes, uint32_t lane_index,
                        uint64_t start_ns, uint64_t seed)
{
    *s = (struct schedule){.arrival = arrival,
                           .rate = r->to / (double)lanes,
                           .first_ns = start_ns,
                           .rng = {.state = seed},
                           .ramp = *r,
                           .lanes = lanes,
                           .lane_index = lane_index,
                           .shape = shape,
                           .switch_ns = UINT64_MAX};
    s->law = gap_law(arrival, shape, s->p);
    if (arrival != ARRIVAL_UNIFORM) {
        s->op_count = (long double)unit_gap(s) * lanes;
    }
    s->next_ns = next_time(s);
}

uint64_t schedule_peek(const struct schedule *s)
{
    return s->next_ns;
}

/* The pending change is due (the next time is at or past it): the times from it on. */
static void switch_now(struct schedule *s)
{
    uint64_t at = s->switch_ns;
    double rate = s->switch_rate;
    uint64_t seed = rng_next(&s->rng);
    if (rate > 0) {
        schedule_init(s, s->arrival, s->shape, rate, s->lanes, s->lane_index, at, seed);
        return;
    }
    s->rate = 0.0;
    s->ramp = (struct ramp){0};
    s->switch_ns = UINT64_MAX;
    s->next_ns = UINT64_MAX;
}

void schedule_retarget(struct schedule *s, uint64_t at_ns, double total_rate)
{
    s->switch_ns = at_ns;
    s->switch_rate = total_rate;
    if (s->next_ns >= at_ns) {
        switch_now(s);
    }
}

static void advance(struct schedule *s);

void schedule_advance(struct schedule *s)
{
    advance(s);
    if (s->next_ns >= s->switch_ns) {
        switch_now(s);
    }
}

static void advance(struct schedule *s)
{
    if (s->rate <= 0.0 && s->ramp.duration_ns == 0) {
        return; /* paused: nothing is intended */
    }
    s->k++;
    if (s->ramp.duration_ns > 0) {
        if (s->arrival != ARRIVAL_UNIFORM) {
            s->op_count += (long double)unit_gap(s) * s->lanes;
        }
        s->next_ns = next_time(s);
        return;
    }
    if (s->arrival != ARRIVAL_UNIFORM) {
        s->poisson_ns += poisson_gap_ns(s);
        s->next_ns = poisson_time(s);
        return;
    }
    s->next_ns = uniform_time(s);
}

/* Uniform: the first k from s->k on whose time is end_ns or later, from the rate, then set
 * right by the times themselves (a step or two for rounding). */
static uint64_t uniform_first_at(const struct schedule *s, uint64_t end_ns)
{
    long double span =
        (long double)(end_ns - s->first_ns) * (long double)s->rate / (long double)SLAP_NS_PER_SEC;
    uint64_t k = span >= (long double)UINT64_MAX / 2 ? UINT64_MAX / 2 : (uint64_t)ceill(span);
    k = k > s->k ? k : s->k;
    while (k > s->k && uniform_time_of(s, k - 1) >= end_ns) {
        k--;
    }
    while (uniform_time_of(s, k) < end_ns) {
        k++;
    }
    return k;
}

/* Uniform over a ramp: the first k from s->k on whose time is end_ns or later, from the count
 * due by then, set right by the times themselves. */
static uint64_t ramp_uniform_first_at(const struct schedule *s, uint64_t end_ns)
{
    long double t = (long double)(end_ns - s->first_ns) / (long double)SLAP_NS_PER_SEC;
    long double span = (ramp_count(&s->ramp, t) - s->lane_index) / s->lanes;
    uint64_t k = span >= (long double)UINT64_MAX / 2 ? UINT64_MAX / 2
                 : span > 0                          ? (uint64_t)ceill(span)
                                                     : 0;
    k = k > s->k ? k : s->k;
    while (k > s->k && ramp_uniform_time_of(s, k - 1) >= end_ns) {
        k--;
    }
    while (ramp_uniform_time_of(s, k) < end_ns) {
        k++;
    }
    return k;
}

/* schedule_skip over a ramp: uniform times exactly; random ones as many as the ramp's count
 * gives the lane on average, the next time then a random gap past end_ns. */
static uint64_t ramp_skip(struct schedule *s, uint64_t end_ns, uint64_t max)
{
    uint64_t n;
    if (s->arrival == ARRIVAL_UNIFORM) {
        n = ramp_uniform_first_at(s, end_ns) - s->k;
        n = n < max ? n : max;
    } else {
        long double t = (long double)(end_ns - s->first_ns) / (long double)SLAP_NS_PER_SEC;
        long double due = ramp_count(&s->ramp, t);
        long double after = (due - s->op_count) / s->lanes;
        n = 1 + (after > 0 ? (uint64_t)(after + 0.5L) : 0);
        if (n > max) {
            n = max;
            s->op_count += (long double)n * s->lanes;
        } else {
            s->op_count = due + (long double)unit_gap(s) * s->lanes;
        }
    }
    s->k += n;
    s->next_ns = next_time(s);
    return n;
}

static uint64_t skip(struct schedule *s, uint64_t end_ns, uint64_t max);

uint64_t schedule_skip(struct schedule *s, uint64_t end_ns, uint64_t max)
{
    if (s->switch_ns >= end_ns) {
        return skip(s, end_ns, max);
    }
    /* a change within: the old times up to it, then the new ones */
    uint64_t n = skip(s, s->switch_ns, max);
    if (s->next_ns >= s->switch_ns) {
        switch_now(s);
    }
    return n < max ? n + skip(s, end_ns, max - n) : n;
}

static uint64_t skip(struct schedule *s, uint64_t end_ns, uint64_t max)
{
    if (s->next_ns >= end_ns || max == 0) {
        return 0;
    }
    if (s->ramp.duration_ns > 0) {
        return ramp_skip(s, end_ns, max);
    }
    if (s->arrival != ARRIVAL_UNIFORM) {
        double after = (double)(end_ns - s->next_ns) * s->rate / (double)SLAP_NS_PER_SEC;
        uint64_t n = 1 + (uint64_t)(after + 0.5);
        if (n > max) {
            n = max;
            s->poisson_ns += (double)n * (double)SLAP_NS_PER_SEC / s->rate;
        } else {
            s->poisson_ns = (double)(end_ns - s->first_ns) + poisson_gap_ns(s);
        }
        s->k += n;
        s->next_ns = poisson_time(s);
        return n;
    }
    uint64_t n = uniform_first_at(s, end_ns) - s->k;
    n = n < max ? n : max;
    s->k += n;
    s->next_ns = uniform_time(s);
    return n;
}

static const char *const rate_action_names[RATE_ACTIONS] = {
    [RATE_SET] = "rate", [RATE_PAUSE] = "pause", [RATE_RESUME] = "resume", [RATE_STOP] = "stop"};

const char *rate_action_name(enum rate_action a)
{
    return (unsigned)a < RATE_ACTIONS ? rate_action_names[a] : "?";
}

bool rate_action_parse(const char *name, enum rate_action *out)
{
    for (int a = 0; a < RATE_ACTIONS; a++) {
        if (strcmp(name, rate_action_names[a]) == 0) {
            *out = (enum rate_action)a;
            return true;
        }
    }
    return false;
}

/* The requests the plan meant to send from 0 to t: the ramp's (or tps's) count up to the first
 * change, then each change's rate from its time on. */
static long double plan_count(const struct ramp *r, double tps, const struct rate_change *changes,
                              size_t n, double t)
{
    long double count = 0.0L;
    double from = 0.0;
    double rate = tps;
    size_t i = 0;
    for (; i < n && changes[i].action == RATE_STOP; i++) {
    }
    double first = i < n ? fmax(changes[i].at_s, 0.0) : INFINITY;
    double upto = fmin(t, first);
    if (upto > 0) {
        count = r->duration_ns > 0 ? ramp_count(r, upto) : (long double)tps * upto;
    }
    if (t <= first) {
        return count;
    }
    from = first;
    rate = changes[i].tps;
    for (i++; i < n; i++) {
        if (changes[i].action == RATE_STOP) {
            continue;
        }
        double at = fmax(changes[i].at_s, 0.0);
        if (at >= t) {
            break;
        }
        count += (long double)rate * (at - from);
        from = at;
        rate = changes[i].tps;
    }
    return count + (long double)rate * (t - from);
}

double rate_plan_between(const struct ramp *r, double tps, const struct rate_change *changes,
                         size_t n, double t0, double t1)
{
    if (t1 <= t0) { /* the rate at t0: over a sliver after it */
        double dt = 1e-6;
        return (
            double)((plan_count(r, tps, changes, n, t0 + dt) - plan_count(r, tps, changes, n, t0)) /
                    dt);
    }
    return (double)((plan_count(r, tps, changes, n, t1) - plan_count(r, tps, changes, n, t0)) /
                    ((long double)t1 - t0));
}
