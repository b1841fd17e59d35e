/* Sizes drawn from a named law (--key_size, --value_size): its quantile function, by which a
 * draw is made, and its distribution function, by which the draws are checked. */
#ifndef SLAP_SIZELAW_H
#define SLAP_SIZELAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#define SIZE_DIST_MAX 64 /* ranges in one distribution */

/* One range of sizes, drawn uniformly from [min, max] inclusive (or by its law, floored and
 * clamped to [min, max]), with its share. */
struct size_range {
    uint32_t min;
    uint32_t max;
    double prop;       /* share as given */
    double cumul;      /* cumulative share, normalised: the last range ends at 1 */
    enum size_law law; /* SIZE_LAW_UNIFORM: memaslap's ranges */
    double p[3];       /* the law's parameters (sizelaw.h) */
};

#define SIZE_DIST_NAME 96   /* a law's or preset's text, as given, with its NUL */
#define SIZE_DIST_ETC "etc" /* the preset's name */

/* A weighted list of size ranges. */
struct size_dist {
    uint32_t n;
    struct size_range r[SIZE_DIST_MAX];
    char name[SIZE_DIST_NAME]; /* a law or preset ("gev:30,8,0.1", "etc") as given; "": ranges */
};

/* A single size: the distribution that always gives size. */
void size_dist_fixed(struct size_dist *d, uint32_t size);
/*
 * A size drawn by the shares, from 64 random bits u: a range by the cumulative
 * shares, then uniformly inside it, endpoints included. Deterministic in u.
 */
uint32_t size_dist_sample(const struct size_dist *d, uint64_t u);
/* The mean size d gives. */
double size_dist_mean(const struct size_dist *d);
/* The largest size d gives. */
uint32_t size_dist_max(const struct size_dist *d);

#endif
