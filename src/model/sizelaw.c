/* Named laws of sizes: quantile and distribution functions (sizelaw.h). */
#include "slap/model/sizelaw.h"

#include <math.h>

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
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                               2.445134137142996e+00, 3.754408661907416e+00};
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

double size_law_quantile(enum size_law law, const double p[3], double q)
{
    switch (law) {
    case SIZE_LAW_NORMAL:
        return p[0] + p[1] * normal_quantile(q);
    case SIZE_LAW_EXPONENTIAL:
        return -p[0] * log1p(-q);
    case SIZE_LAW_GEV: { /* the largest of many: location, scale, shape */
        double y = -log(q);
        return p[2] == 0 ? p[0] - p[1] * log(y) : p[0] + p[1] * (pow(y, -p[2]) - 1) / p[2];
    }
    case SIZE_LAW_GPARETO: /* the excess over a threshold: location, scale, shape */
        return p[2] == 0 ? p[0] - p[1] * log1p(-q)
                         : p[0] + p[1] * (pow(1 - q, -p[2]) - 1) / p[2];
    case SIZE_LAW_UNIFORM:
        break;
    }
    return q;
}

double size_law_cdf(enum size_law law, const double p[3], double x)
{
    switch (law) {
    case SIZE_LAW_NORMAL:
        return 0.5 * erfc(-(x - p[0]) / (p[1] * sqrt(2)));
    case SIZE_LAW_EXPONENTIAL:
        return x <= 0 ? 0 : -expm1(-x / p[0]);
    case SIZE_LAW_GEV: {
        double z = (x - p[0]) / p[1];
        if (p[2] == 0) {
            return exp(-exp(-z));
        }
        double t = 1 + p[2] * z;
        if (t <= 0) {
            return p[2] > 0 ? 0 : 1;
        }
        return exp(-pow(t, -1 / p[2]));
    }
    case SIZE_LAW_GPARETO: {
        double z = (x - p[0]) / p[1];
        if (z <= 0) {
            return 0;
        }
        if (p[2] == 0) {
            return -expm1(-z);
        }
        double t = 1 + p[2] * z;
        return t <= 0 ? 1 : 1 - pow(t, -1 / p[2]);
    }
    case SIZE_LAW_UNIFORM:
        break;
    }
    return x;
}
