/* HdrHistogram's percentile distribution text (.hgrm) from a slap histogram, for its plotters. */
#ifndef SLAP_HIST_HGRM_H
#define SLAP_HIST_HGRM_H

#include <stdio.h>

#include "slap/base/common.h"
#include "slap/base/hist.h"

/* Output unit of the .hgrm files slap writes: milliseconds. */
#define HIST_HGRM_UNIT_NS 1e6

/*
 * Write h as HdrHistogram's "percentile distribution" (what its
 * outputPercentileDistribution prints and HistogramLogAnalyzer/plotFiles read):
 * a header, one line per reporting point (value, percentile as a fraction,
 * cumulative count, 1/(1-percentile)), a last line at percentile 1, and a
 * footer with mean, deviation, max, total count and the bucket layout.
 * Values are divided by unit_ns (> 0) and printed with 3 decimals. Reporting
 * points follow HdrHistogram's percentile iteration, 5 ticks per half distance.
 * An empty histogram gives the header and the footer only.
 * SLAP_OK, or SLAP_ERROR if writing to out failed.
 */
enum slap_status hist_hgrm_write(FILE *out, const struct hist *h, double unit_ns);

#endif
