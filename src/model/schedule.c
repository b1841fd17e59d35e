/* Open-loop timing: intended send times of one lane, uniform (exact) or Poisson (seeded). */
#include "slap/model/schedule.h"

#include <math.h>

#include "slap/base/common.h"

/* 2^53: (x >> 11) + 1 over this is uniform in (0, 1] with a double's full mantissa. */
#define UNIT_SCALE 9007199254740992.0

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

/* Poisson: one exponential gap in ns, -ln(U) * 1e9 / rate with U in (0, 1]. */
static double poisson_gap_ns(struct schedule *s)
{
    double unit = (double)((rng_next(&s->rng) >> 11) + 1) / UNIT_SCALE;
    return -log(unit) * (double)SLAP_NS_PER_SEC / s->rate;
}

static uint64_t poisson_time(const struct schedule *s)
{
    return add_saturating(s->first_ns, round_ns((long double)s->poisson_ns));
}

void schedule_init(struct schedule *s, enum arrival arrival, double total_rate, uint32_t lanes,
                   uint32_t lane_index, uint64_t start_ns, uint64_t seed)
{
    s->arrival = arrival;
    s->rate = total_rate / (double)lanes;
    s->k = 0;
    s->poisson_ns = 0.0;
    s->rng.state = seed;
    if (arrival == ARRIVAL_POISSON) {
        s->first_ns = start_ns;
        s->poisson_ns = poisson_gap_ns(s);
        s->next_ns = poisson_time(s);
        return;
    }
    long double stagger = (long double)lane_index * (long double)SLAP_NS_PER_SEC / total_rate;
    s->first_ns = add_saturating(start_ns, round_ns(stagger));
    s->next_ns = uniform_time(s);
}

uint64_t schedule_peek(const struct schedule *s)
{
    return s->next_ns;
}

void schedule_advance(struct schedule *s)
{
    s->k++;
    if (s->arrival == ARRIVAL_POISSON) {
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

uint64_t schedule_skip(struct schedule *s, uint64_t end_ns, uint64_t max)
{
    if (s->next_ns >= end_ns || max == 0) {
        return 0;
    }
    if (s->arrival == ARRIVAL_POISSON) {
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
