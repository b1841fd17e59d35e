/* Open-loop timing: when each request of a lane is meant to be sent (uniform or Poisson). */
#ifndef SLAP_SCHEDULE_H
#define SLAP_SCHEDULE_H

#include <stdint.h>

#include "slap/base/rng.h"

enum arrival {
    ARRIVAL_UNIFORM = 0, /* evenly spaced */
    ARRIVAL_POISSON = 1, /* exponential gaps with the same mean */
};

/*
 * A schedule of intended send times for one lane at rate lane_rate (requests
 * per second). Uniform times are exact, with no drift: the k-th time is
 * first_ns + k * 1e9 / lane_rate rounded to the nearest ns, computed from k in
 * long double, not by adding rounded gaps. Poisson gaps are -ln(U) / lane_rate
 * with U uniform in (0, 1] from the lane's own generator (seeded: the same seed
 * gives the same times), summed in poisson_ns. Times are plain numbers: nothing
 * here reads a clock, and nothing allocates.
 */
struct schedule {
    enum arrival arrival;
    double rate;       /* requests per second for this lane: total_rate / lanes */
    uint64_t first_ns; /* uniform: time of request 0; Poisson: start_ns */
    uint64_t k;        /* requests scheduled so far (advanced past) */
    double poisson_ns; /* Poisson: offset of the next time from first_ns */
    uint64_t next_ns;  /* the next intended time, as schedule_peek returns it */
    struct rng rng;    /* Poisson: the lane's own generator */
};

/*
 * total_rate > 0, lanes > 0, lane_index < lanes. For uniform arrivals,
 * lane_index / lanes staggers the lanes so that together they send evenly:
 * lane i starts i / total_rate after start (rounded to the ns once). Poisson
 * ignores lane_index: the first time is start_ns plus one random gap.
 */
void schedule_init(struct schedule *s, enum arrival arrival, double total_rate, uint32_t lanes,
                   uint32_t lane_index, uint64_t start_ns, uint64_t seed);
/* The next intended send time, without consuming it. */
uint64_t schedule_peek(const struct schedule *s);
/* Consume the next intended time (the request is sent or queued). */
void schedule_advance(struct schedule *s);
/*
 * Consume the times before end_ns, at most max of them, in a few steps whatever their number
 * (the requests a run's end leaves unsent, at -P 1g): how many. Uniform times are consumed
 * exactly; Poisson ones as many as the rate gives on average (rounded), the next time then
 * a random gap after end_ns.
 */
uint64_t schedule_skip(struct schedule *s, uint64_t end_ns, uint64_t max);

#endif
