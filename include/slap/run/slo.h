/* slap search's pure parts: a step's verdict on an objective and the next rate from held and
 * broken. */
#ifndef SLAP_SLO_H
#define SLAP_SLO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slap/base/confidence.h"
#include "slap/base/objective.h"

#define SLO_MAX OBJECTIVES_MAX

/* What one step's interval says of an objective. */
enum slo_verdict {
    SLO_HELD,      /* the interval's upper bound is below the limit */
    SLO_BROKEN,    /* its lower bound is above the limit (or the estimate, not estimable) */
    SLO_UNDECIDED, /* the interval holds the limit, or it cannot be estimated yet */
};
enum slo_verdict slo_judge(const struct ci_result *ci, uint64_t limit_ns);

/* The search over rates: a ramp (doubling from start) until a rate breaks the objective,
 * then bisection between the highest held and the lowest broken. Every rate's latest verdict
 * is kept, so that a rate measured again (a confirmation) can overturn what it said. */
#define SEARCH_HISTORY 256
struct search_state {
    double rate;       /* the rate to try next */
    double held;       /* the highest rate held below every broken one (0: none yet) */
    double broken;     /* the lowest rate broken (0: none yet) */
    double max_rate;   /* never beyond */
    double min_rate;   /* never below: a search that breaks here ends with capacity 0 */
    double resolution; /* stop when (broken - held) / held is at most this */
    unsigned steps;    /* recorded so far */
    unsigned max_steps;
    size_t n;                     /* rates measured */
    double rates[SEARCH_HISTORY]; /* each rate measured */
    bool held_at[SEARCH_HISTORY]; /* its latest verdict */
};

enum search_next {
    SEARCH_TRY,       /* try state->rate */
    SEARCH_DONE,      /* held and broken are within the resolution (or at a bound) */
    SEARCH_EXHAUSTED, /* max_steps reached first */
};

void search_start(struct search_state *s, double start, double min_rate, double max_rate,
                  unsigned max_steps, double resolution);
/* The step at rate held or broke the objective: what to do next (state->rate set for TRY). */
enum search_next search_record(struct search_state *s, double rate, bool held);
/* After a confirmation changed held or broken: go on for at most extra_steps more steps (the
 * next rate set for TRY). */
enum search_next search_continue(struct search_state *s, unsigned extra_steps);

#endif
