/* Sizes drawn from a named law (--key_size, --value_size): its quantile function, by which a
 * draw is made, and its distribution function, by which the draws are checked. */
#ifndef SLAP_SIZELAW_H
#define SLAP_SIZELAW_H

/* A range's law: uniform over [min, max] (the ranges of memaslap's lists), or one of these,
 * its draw floored to whole bytes and clamped to the range. */
enum size_law {
    SIZE_LAW_UNIFORM = 0,
    SIZE_LAW_NORMAL,      /* p: mean, standard deviation */
    SIZE_LAW_EXPONENTIAL, /* p: mean (from 0) */
    SIZE_LAW_GEV,         /* p: location, scale, shape (generalized extreme value) */
    SIZE_LAW_GPARETO,     /* p: location, scale, shape (generalized Pareto) */
};

/* The law's q-quantile, 0 < q < 1. */
double size_law_quantile(enum size_law law, const double p[3], double q);
/* The law's distribution function at x: P(X <= x). */
double size_law_cdf(enum size_law law, const double p[3], double x);

#endif
