/* --rounds in the text report: a line per round and the rounds' spread. */
#ifndef SLAP_ROUNDS_H
#define SLAP_ROUNDS_H

#include <stdio.h>

#include "slap/output/results.h"

/* Each of d's rounds (tps, then d->desc's percentiles), then for each figure the rounds'
 * mean, min-max and 95% interval (ci_mean, rounds as batches), a latency's kept within the
 * rounds' fastest and slowest request. Nothing without rounds. */
void report_rounds(FILE *out, const struct results_doc *d);

#endif
