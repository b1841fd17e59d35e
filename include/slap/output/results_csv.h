/* A results document written as CSV. */
#ifndef SLAP_RESULTS_CSV_H
#define SLAP_RESULTS_CSV_H

#include <stddef.h>
#include <stdio.h>

#include "slap/output/results.h"

/* The document as CSV: a row per period and type, or per step. */
void results_write_csv(FILE *out, const struct results_doc *d);
/* The CSV's header (and a sweep's every row), then each period's rows. */
void results_csv_begin(FILE *out, const struct results_doc *d);
void results_csv_period(FILE *out, const struct results_doc *d, const struct results_period *p);

#endif
