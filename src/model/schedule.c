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
static uint64_t uniform_time(const struct schedule *s)
{
    long double offset = (long double)s->k * (long double)SLAP_NS_PER_SEC / (long double)s->rate;
    return add_saturating(s->first_ns, round_ns(offset));
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
