/* HdrHistogram's percentile distribution text (.hgrm): header, percentile lines, footer. */
#include "slap/output/hist_hgrm.h"

#include <math.h>

#include "slap/base/common.h"

/* Reporting points per halving of the distance to 100%, as HdrHistogram's default. */
#define HGRM_TICKS_PER_HALF_DISTANCE 5.0

/* HdrHistogram's bucket layout for ours: 256 values at unit 1, then 128 per power of two. */
#define HGRM_BUCKET_COUNT ((int)(HIST_BUCKETS / HIST_SUB_COUNT) - 1)
#define HGRM_SUB_BUCKET_COUNT ((int)HIST_SUB_COUNT * 2)

static void write_header(FILE *out)
{
    fprintf(out, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount",
            "1/(1-Percentile)");
}

/*
 * The next reporting point after pct (0..100): 5 ticks per half distance, so the
 * step halves each time the distance to 100% does. 100 when it can no longer grow.
 */
static double next_percentile(double pct)
{
    double half_distance = exp2(floor(log2(100.0 / (100.0 - pct))) + 1.0);
    double next = pct + 100.0 / (HGRM_TICKS_PER_HALF_DISTANCE * half_distance);
    return next > pct && next < 100.0 ? next : 100.0;
}

/* The value reported for a bucket: its highest value, but never above what was recorded. */
static double bucket_report_value(const struct hist *h, size_t index, double unit_ns)
{
    uint64_t high = hist_bucket_high(index);
    return (double)(high < h->max_ns ? high : h->max_ns) / unit_ns;
}

static void write_point(FILE *out, double value, double pct, uint64_t cumulative)
{
    double fraction = pct / 100.0;
    fprintf(out, "%12.3f %2.12f %10llu %14.2f\n", value, fraction, (unsigned long long)cumulative,
            1.0 / (1.0 - fraction));
}

/*
 * Walk the buckets; at each bucket with counts, report every pending percentile
 * its cumulative count reaches (several may share a bucket). The bucket that
 * completes the count reports once, then the last line at percentile 1 follows.
 */
static void write_percentiles(FILE *out, const struct hist *h, double unit_ns)
{
    double pct = 0.0;
    uint64_t cumulative = 0;
    size_t last = 0;
    for (size_t i = 0; i < HIST_BUCKETS && cumulative < h->count; i++) {
        if (h->buckets[i] == 0) {
            continue;
        }
        cumulative += h->buckets[i];
        last = i;
        double reached = 100.0 * (double)cumulative / (double)h->count;
        while (pct < 100.0 && pct <= reached) {
            write_point(out, bucket_report_value(h, i, unit_ns), pct, cumulative);
            if (cumulative >= h->count) {
                break;
            }
            pct = next_percentile(pct);
        }
    }
    fprintf(out, "%12.3f %2.12f %10llu\n", bucket_report_value(h, last, unit_ns), 1.0,
            (unsigned long long)h->count);
}

static void write_footer(FILE *out, const struct hist *h, double unit_ns)
{
    double us_to_unit = (double)SLAP_NS_PER_US / unit_ns;
    fprintf(out, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n", hist_mean_us(h) * us_to_unit,
            hist_stddev_us(h) * us_to_unit);
    fprintf(out, "#[Max     = %12.3f, Total count    = %12llu]\n", (double)h->max_ns / unit_ns,
            (unsigned long long)h->count);
    fprintf(out, "#[Buckets = %12d, SubBuckets     = %12d]\n", HGRM_BUCKET_COUNT,
            HGRM_SUB_BUCKET_COUNT);
}

enum slap_status hist_hgrm_write(FILE *out, const struct hist *h, double unit_ns)
{
    write_header(out);
    if (h->count > 0) {
        write_percentiles(out, h, unit_ns);
    }
    write_footer(out, h, unit_ns);
    if (fflush(out) != 0 || ferror(out)) {
        return SLAP_ERROR;
    }
    return SLAP_OK;
}
