/* --ramp in the text report: a table of the run's periods by target rate. */
#ifndef SLAP_REPORT_RAMP_H
#define SLAP_REPORT_RAMP_H

#include <stdio.h>

#include "slap/output/results.h"

/*
 * After the report of a --ramp run: a row per period of d (with -S, each of its periods;
 * without, the document's periods joined into rows of at most REPORT_RAMP_ROWS for the run),
 * --sweep's columns: its start (s), the ramp's target and the achieved rate (requests a
 * second), d->desc's percentiles and the max (us, corrected). Nothing without a ramp or
 * periods. SLAP_ERROR, nothing written, when memory ran out.
 */
enum slap_status report_ramp(FILE *out, const struct results_doc *d, bool each_period);

#define REPORT_RAMP_ROWS 20

#endif
