/* A latency objective, 'p99<1ms': a percentile under a limit, as slap search takes it. */
#ifndef SLAP_OBJECTIVE_H
#define SLAP_OBJECTIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OBJECTIVES_MAX 8 /* objectives in one --slo */

/* One objective: percentile pct below limit_ns. */
struct objective {
    double pct; /* (0, 100) */
    uint64_t limit_ns;
    char text[32]; /* as given, "p99<1ms" */
};

/* 'p99<1ms' or several comma-separated ('p50<200us,p99.9<5ms'): units us (or µs), ms, s.
 * false with err (one line) when the text is not that. */
bool objective_parse(const char *text, struct objective *out, size_t *n, char *err, size_t err_len);

#endif
