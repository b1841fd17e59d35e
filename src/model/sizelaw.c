/* Named laws of sizes: quantile and distribution functions; a weighted list of ranges drawn
 * from (sizelaw.h). */
#include "slap/model/sizelaw.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The standard normal's quantile: a rational approximation on three intervals (P. J. Acklam's,
 * relative error under 1.2e-9), then one Halley step against erfc, to double precision. */
static double normal_quantile(double q)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                               -2.759285104469687e+02, 1.383577518672690e+02,
                               -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                               -1.556989798598866e+02, 6.680131188771972e+01,
                               -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                               -2.400758277161838e+00, -2.549732539343734e+00,
                               4.374664141464968e+00,  2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    const double low = 0.02425;
    double x;
    if (q < low || q > 1 - low) {
        double t = sqrt(-2 * log(q < low ? q : 1 - q));
        x = (((((c[0] * t + c[1]) * t + c[2]) * t + c[3]) * t + c[4]) * t + c[5]) /
            ((((d[0] * t + d[1]) * t + d[2]) * t + d[3]) * t + 1);
        x = q < low ? x : -x;
    } else {
        double t = q - 0.5, r = t * t;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * t /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    double e = 0.5 * erfc(-x / sqrt(2)) - q;
    double u = e * sqrt(2 * M_PI) * exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

/* Shapes nearer 0 than this are the limit law's (Gumbel's, the exponential): the shape would
 * move a quantile by under 1e-196 of the scale, and expm1(shape x) / shape, the stable form,
 * would lose its digits in numbers below the least normal double. */
#define SHAPE_NEGLIGIBLE 1e-200

/* (y^-shape - 1) / shape as expm1 of -shape log y over shape: exact to the last digits at a
 * shape of 1e-9 or 1e-300, where the difference of powers loses them all; log y at a
 * negligible shape. */
static double power_excess(double log_y, double shape)
{
    if (fabs(shape) < SHAPE_NEGLIGIBLE) {
        return -log_y;
    }
    return expm1(-shape * log_y) / shape;
}

const struct size_law_row size_law_rows[] = {
    {"normal", SIZE_LAW_NORMAL, 2, {"mean", "standard deviation"}, {false, true}, false},
    {"exponential", SIZE_LAW_EXPONENTIAL, 1, {"mean"}, {true}, false},
    {"gev", SIZE_LAW_GEV, 3, {"location", "scale", "shape"}, {false, true, false}, false},
    {"gpareto", SIZE_LAW_GPARETO, 3, {"location", "scale", "shape"}, {false, true, false}, false},
    {"uniform", SIZE_LAW_UNIFORM, 2, {"least size", "largest size"}, {false, false}, true},
    {"fixed", SIZE_LAW_UNIFORM, 1, {"size"}, {false}, true},
};
const size_t size_law_row_count = sizeof(size_law_rows) / sizeof(size_law_rows[0]);

void size_law_names(char *buf, size_t len)
{
    size_t used = 0;
    if (len > 0) {
        buf[0] = '\0';
    }
    for (size_t i = 0; i < size_law_row_count && used < len; i++) {
        int n = snprintf(buf + used, len - used, "%s%s", i > 0 ? ", " : "", size_law_rows[i].name);
        used += n > 0 ? (size_t)n : 0;
    }
}

/* scale times z, the least double of z's sign where the product would be 0 (a scale of
 * 5e-324): which side of its location a draw falls decides its floor. */
static double scaled(double scale, double z)
{
    double product = scale * z;
    return product == 0 && z != 0 ? copysign(DBL_TRUE_MIN, z) : product;
}

double size_law_excess(enum size_law law, const double p[3], double q, double *at)
{
    *at = law == SIZE_LAW_EXPONENTIAL ? 0 : p[0];
    switch (law) {
    case SIZE_LAW_NORMAL: /* its ends at q 0 and 1, where the approximation gives NaN */
        return q <= 0 ? -INFINITY : q >= 1 ? INFINITY : scaled(p[1], normal_quantile(q));
    case SIZE_LAW_EXPONENTIAL:
        return scaled(p[0], -log1p(-q));
    case SIZE_LAW_GEV: /* the largest of many: location, scale, shape */
        return scaled(p[1], power_excess(log(-log(q)), p[2]));
    case SIZE_LAW_GPARETO: /* the excess over a threshold: location, scale, shape */
        return scaled(p[1], power_excess(log1p(-q), p[2]));
    case SIZE_LAW_UNIFORM:
        break;
    }
    *at = 0;
    return q;
}

double size_law_quantile(enum size_law law, const double p[3], double q)
{
    double at;
    double excess = size_law_excess(law, p, q, &at);
    return at + excess;
}

/* log (1 + shape z)^(-1 / shape), for 1 + shape z > 0, as -log1p(shape z) / shape: stable at
 * tiny shapes as power_excess is; -z at a negligible shape; the logarithms apart where shape z
 * passes the largest double (a shape of 1e308). */
static double log_tail(double z, double shape)
{
    if (fabs(shape) < SHAPE_NEGLIGIBLE) {
        return -z;
    }
    double t = shape * z;
    return -(isinf(t) ? log(fabs(shape)) + log(fabs(z)) : log1p(t)) / shape;
}

/* Whether x, at z scales from the location, lies beyond the end of a law of the shape: where
 * 1 + shape z is not above 0. */
static bool past_end(double z, double shape)
{
    return fabs(shape) >= SHAPE_NEGLIGIBLE && !(shape * z > -1);
}

double size_law_cdf(enum size_law law, const double p[3], double x)
{
    double z = (x - p[0]) / p[1];
    switch (law) {
    case SIZE_LAW_NORMAL:
        return 0.5 * erfc(-z / sqrt(2));
    case SIZE_LAW_EXPONENTIAL:
        return x <= 0 ? 0 : -expm1(-x / p[0]);
    case SIZE_LAW_GEV:
        if (past_end(z, p[2])) {
            return p[2] > 0 ? 0 : 1;
        }
        return exp(-exp(log_tail(z, p[2])));
    case SIZE_LAW_GPARETO:
        if (z <= 0) {
            return 0;
        }
        return past_end(z, p[2]) ? 1 : -expm1(log_tail(z, p[2]));
    case SIZE_LAW_UNIFORM:
        break;
    }
    return x;
}

uint32_t size_dist_max(const struct size_dist *d)
{
    uint32_t max = 0;
    for (uint32_t i = 0; i < d->n; i++) {
        max = d->r[i].max > max ? d->r[i].max : max;
    }
    return max;
}

/* ---- a weighted list of ranges ---- */

#define PICK_BITS 53  /* top bits of u that choose the range */
#define PLACE_BITS 11 /* low bits of u that only place the size inside it */
__extension__ typedef unsigned __int128 u128;

void size_dist_fixed(struct size_dist *d, uint32_t size)
{
    memset(d, 0, sizeof(*d));
    d->n = 1;
    d->r[0] = (struct size_range){.min = size, .max = size, .prop = 1.0, .cumul = 1.0};
}

/* A law's size at quantile q: floored to whole bytes, clamped to the range. The location's
 * whole part and the rest are floored apart: a deviation below the location's precision still
 * takes a draw under a whole location (normal:100,1e-300: 99 half the time, as the law has it). */
static uint32_t law_size(const struct size_range *r, double q)
{
    double at;
    double excess = size_law_excess(r->law, r->p, q, &at);
    double whole = floor(at);
    double x = whole + floor((at - whole) + excess);
    return !(x > (double)r->min) ? r->min : x >= (double)r->max ? r->max : (uint32_t)x;
}

#define MEAN_STRATA 4096 /* quantiles a law's mean is taken over */

double size_dist_mean(const struct size_dist *d)
{
    double mean = 0.0, below = 0.0;
    for (uint32_t i = 0; i < d->n; i++) {
        const struct size_range *r = &d->r[i];
        double share = r->cumul - below, in = ((double)r->min + (double)r->max) / 2.0;
        if (r->law != SIZE_LAW_UNIFORM) {
            in = 0;
            for (int k = 0; k < MEAN_STRATA; k++) {
                in += law_size(r, (k + 0.5) / MEAN_STRATA) / (double)MEAN_STRATA;
            }
        }
        mean += share * in;
        below = r->cumul;
    }
    return mean;
}

/* The first value of u >> PLACE_BITS that a cumulative share c leaves to the next range. */
static uint64_t pick_bound(double c)
{
    return (uint64_t)ceil(c * (double)(1ull << PICK_BITS));
}

/*
 * The range: the first whose cumul is above the top 53 bits of u read as a fraction.
 * Inside it, those bits less the range's first value, with the 11 low bits below them,
 * are uniform over the count of u that choose this range; scaled to the range's width
 * they give each size to within width / count (below 2^-20 for shares over 2^-12).
 */
uint32_t size_dist_sample(const struct size_dist *d, uint64_t u)
{
    if (d->n == 0) {
        return 0;
    }
    uint64_t pick = u >> PLACE_BITS;
    uint32_t i = 0;
    while (i + 1 < d->n && pick >= pick_bound(d->r[i].cumul)) {
        i++;
    }
    const struct size_range *r = &d->r[i];
    uint64_t first = i == 0 ? 0 : pick_bound(d->r[i - 1].cumul);
    uint64_t end = i + 1 == d->n ? 1ull << PICK_BITS : pick_bound(r->cumul);
    u128 count = (u128)(end - first) << PLACE_BITS;
    u128 place = ((u128)(pick - first) << PLACE_BITS) | (u & ((1u << PLACE_BITS) - 1));
    if (r->law != SIZE_LAW_UNIFORM) { /* the law's quantile at the middle of u's place */
        return law_size(r, ((double)place + 0.5) / (double)count);
    }
    uint64_t width = (uint64_t)r->max - r->min + 1;
    return r->min + (uint32_t)(place * width / count);
}
