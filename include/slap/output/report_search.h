/* slap search's text: its header, one row per step, and the capacity it found. */
#ifndef SLAP_REPORT_SEARCH_H
#define SLAP_REPORT_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "slap/base/confidence.h"
#include "slap/output/run_desc.h"

/* The objectives, as the cli parsed them: percentile and limit. */
struct search_objectives {
    size_t n;
    const double *pct;
    const uint64_t *limit_ns;
    const char *text; /* as given, "p99<1ms" */
};

/* The header block (the run's, steps of step_time) and the search's line. */
void report_search_header(FILE *out, const struct run_desc *desc,
                          const struct search_objectives *slo, double start, double max_rate,
                          unsigned max_steps, uint64_t max_step_ns);
/* The table's column names, after a blank line. */
void report_search_columns(FILE *out, const struct search_objectives *slo);

/* One step: the rate asked and achieved, each objective's percentile and its interval. */
struct report_search_step {
    double target;
    double achieved;
    double seconds;             /* measured at this rate (lengthened: all of it) */
    const struct ci_result *ci; /* one per objective */
    const char *verdict;        /* "held", "broken", "undecided", "starved" */
    const char *limited_by;     /* a limits_verdict_name; "-" when NULL or empty */
    uint64_t late_p99_ns;       /* the P99 of slap late to send over the step's requests */
    uint64_t held_p99_ns;       /* the P99 of the wait the server held them */
};
void report_search_row(FILE *out, const struct search_objectives *slo,
                       const struct report_search_step *step);

/* How the search ended. */
struct report_search_end {
    double capacity;            /* the highest rate held; 0: none */
    const struct ci_result *ci; /* its objectives' intervals (NULL when none held) */
    double lowest_broken;       /* 0: no rate broke */
    double lowest_tried;
    double max_rate;
    bool exhausted;         /* the step budget ran out before the resolution */
    double client_limit;    /* > 0: slap itself was short of CPU at this rate (twice) */
    const char *client_why; /* and why */
    bool confirmed;         /* the capacity held again and the rate above it broke again */
    unsigned confirmations; /* times the capacity was measured again */
    bool alone;             /* no table above (-q): no blank line first */
};
void report_search_end(FILE *out, const struct search_objectives *slo,
                       const struct report_search_end *end);

#endif
