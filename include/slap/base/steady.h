/* Was a run steady? Its periods' rate and median latency, first third against last third. */
#ifndef SLAP_STEADY_H
#define SLAP_STEADY_H

#include <stddef.h>
#include <stdint.h>

/*
 * How it is decided. The measured periods (after any warm-up) are cut into thirds by time.
 * The first and the last third are compared on two figures: the rate (requests answered a
 * second) and the median latency, each period's own median. A figure drifted when the two
 * thirds' means differ by more than its threshold (STEADY_RATE_DRIFT of the rate,
 * STEADY_LATENCY_DRIFT of the latency) and the difference stands out of the periods' own
 * noise (Welch's t above STEADY_T). A run with a drifting figure is not steady: a server whose
 * memory filled and started evicting, a warm-up too short, a neighbour that took the CPU
 * halfway, a proxy whose queue grew. Fewer than STEADY_MIN_PERIODS periods: unknown. So is a
 * run where a figure moved beyond its threshold but not out of the noise, in periods so
 * scattered that one standard error of the difference is larger than the threshold itself
 * (a 75% fall may then be chance, and "held" would be false), unless the other figure drifted.
 */
#define STEADY_MIN_PERIODS 6
#define STEADY_RATE_DRIFT 0.10    /* the rate moved by a tenth */
#define STEADY_LATENCY_DRIFT 0.25 /* the median latency moved by a quarter */
#define STEADY_T 3.0              /* and by three standard errors of the difference */

struct steady_period {
    double seconds;   /* its length (the last one may be short) */
    uint64_t answers; /* requests answered in it */
    double median_us; /* its median latency; < 0 when it had no answer */
};

enum steady_state {
    STEADY_UNKNOWN, /* too few periods, or too scattered, to say */
    STEADY_YES,
    STEADY_NO,
};

struct steady_verdict {
    enum steady_state state;
    char why[192]; /* "the rate fell 23% from the first third to the last" ... or the unknown */
    double rate_change;    /* last third against first, relative (-0.23: fell 23%) */
    double latency_change; /* the same for the median latency */
};

/* Judge the periods (in time order). */
void steady_judge(const struct steady_period *p, size_t n, struct steady_verdict *v);
/* "yes", "no" or "unknown". */
const char *steady_state_name(enum steady_state s);

#endif
