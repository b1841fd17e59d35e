/* Was a run steady? Its periods' rate and median latency, first third against last third. */
#ifndef SLAP_STEADY_H
#define SLAP_STEADY_H

#include <stddef.h>
#include <stdint.h>

/*
 * How it is decided. The measured periods (after any warm-up) are cut into thirds by time.
 * The first and the last third are compared on two figures: the rate (requests answered a
 * second) and the median latency (the mean of the periods' own medians).
 *
 * Neighbouring periods are alike: a slow moment (a neighbour on the CPU, the scheduler moving
 * a thread) spans several tenths of a second, so periods one by one would make the noise look
 * smaller than it is. Each third is therefore cut into up to STEADY_BATCHES batches of
 * consecutive periods, none shorter than STEADY_BATCH_MIN_S, and the batches' values are
 * taken as independent: the noise is their variance about their own third's mean, pooled over
 * the three thirds, with Student's t at its degrees of freedom (batches - 3). Per figure, with
 * d the difference of the last and the first third's means:
 * - drifted: the change (d over the first third's mean) is beyond the figure's threshold
 *   (STEADY_RATE_DRIFT, STEADY_LATENCY_DRIFT) and d stands out of the noise, outside its
 *   STEADY_DRIFT_LEVEL interval around 0: a run that held still is called drifted about once
 *   in a thousand per figure at most; or the change's STEADY_HELD_LEVEL interval lies wholly
 *   beyond the threshold (it surely moved past it);
 * - held: the change was measured small, its STEADY_HELD_LEVEL interval inside +-threshold;
 * - unsure otherwise: the noise does not tell whether it moved past its threshold.
 * What could have been seen is said with an unsure figure: the smallest change that would
 * likely have been called drifted (the noise's STEADY_DRIFT_LEVEL and STEADY_BEYOND_LEVEL
 * bounds above, plus Student's one-sided STEADY_SEEN_POWER; measured by test_steady over
 * many series: found 83% of the time in 30 s of independent noise, 65% in 3 s whose slow
 * moments span periods), so that "unknown" still says how far the run did not drift.
 * The run is not steady when a figure drifted (a server whose memory filled and started
 * evicting, a warm-up too short, a neighbour that took the CPU halfway, a proxy whose queue
 * grew), steady when both held, unknown otherwise; unknown too with fewer than
 * STEADY_MIN_PERIODS periods, or thirds too short for two batches each (a run under 3 s).
 */
#define STEADY_MIN_PERIODS 6
#define STEADY_BATCHES 5          /* per third, at most: see the README's figures */
#define STEADY_BATCH_MIN_S 0.5    /* and none shorter: the periods' correlation, measured */
#define STEADY_RATE_DRIFT 0.10    /* the rate moved by a tenth */
#define STEADY_LATENCY_DRIFT 0.25 /* the median latency moved by a quarter */
#define STEADY_HELD_LEVEL 0.95    /* held: the change's 95% interval inside the threshold */
#define STEADY_DRIFT_LEVEL 0.999  /* drifted: past the threshold and out of the 99.9% noise */
#define STEADY_BEYOND_LEVEL 0.99  /* drifted too: the change's 99% interval beyond the threshold */
#define STEADY_SEEN_POWER 0.95    /* what could have been seen: designed for 19 in 20 */

struct steady_period {
    double seconds;   /* its length (the last one may be short) */
    uint64_t answers; /* requests answered in it */
    double median_us; /* its median latency; < 0 when it had no answer */
};

enum steady_state {
    STEADY_UNKNOWN, /* too few periods, or too noisy, to say */
    STEADY_YES,
    STEADY_NO,
};

struct steady_verdict {
    enum steady_state state;
    char why[512]; /* "the rate fell 23% from the first third to the last" ... or the unknown */
    double rate_change;    /* last third against first, relative (-0.23: fell 23%) */
    double latency_change; /* the same for the median latency */
    double rate_seen;      /* the smallest change that would have been called a drift (0: not
                              judged) */
    double latency_seen;
};

/* Judge the periods (in time order). */
void steady_judge(const struct steady_period *p, size_t n, struct steady_verdict *v);
/* "yes", "no" or "unknown". */
const char *steady_state_name(enum steady_state s);

#endif
