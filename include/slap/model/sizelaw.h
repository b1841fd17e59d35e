/* Sizes drawn from a named law (--key_size, --value_size): its quantile function, by which a
 * draw is made, and its distribution function, by which the draws are checked. */
#ifndef SLAP_SIZELAW_H
#define SLAP_SIZELAW_H

#include <stdbool.h>
#include <stddef.h>

/* A range's law: uniform over [min, max] (the ranges of memaslap's lists), or one of these,
 * its draw floored to whole bytes and clamped to the range. */
enum size_law {
    SIZE_LAW_UNIFORM = 0,
    SIZE_LAW_NORMAL,      /* p: mean, standard deviation */
    SIZE_LAW_EXPONENTIAL, /* p: mean (from 0) */
    SIZE_LAW_GEV,         /* p: location, scale, shape (generalized extreme value) */
    SIZE_LAW_GPARETO,     /* p: location, scale, shape (generalized Pareto) */
};

/* The laws by name, one row each: "NAME:P1,P2,..." as --key_size and --value_size take it.
 * A parameter is any finite number, or above 0 when positive says so; sizes: the parameters
 * are whole sizes within the option's range, the least first (uniform:MIN,MAX, fixed:N).
 * Every law holds at every value accepted: the tests walk the rows at their extremes. */
struct size_law_row {
    const char *name;
    enum size_law law;
    unsigned params;
    const char *param_names[3]; /* for messages: "standard deviation" */
    bool positive[3];
    bool sizes;
};
extern const struct size_law_row size_law_rows[];
extern const size_t size_law_row_count;
/* The rows' names, "normal, exponential, ...", into buf: what messages list. */
void size_law_names(char *buf, size_t len);

/* The law's q-quantile, 0 < q < 1 (at 0 or 1 the law's end, infinite for an open one). */
double size_law_quantile(enum size_law law, const double p[3], double q);
/* The same apart: the law's location in *at and the return value the quantile's excess over
 * it, so that a draw floored to whole bytes keeps a deviation far below the location's
 * precision (normal:100,1e-300 falls below 100 half the time, as the law does). */
double size_law_excess(enum size_law law, const double p[3], double q, double *at);
/* The law's distribution function at x: P(X <= x). */
double size_law_cdf(enum size_law law, const double p[3], double x);

#endif
