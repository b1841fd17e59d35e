/* --rounds in the text report: a line per round and the rounds' spread. */
#ifndef SLAP_ROUNDS_H
#define SLAP_ROUNDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "slap/output/results.h"

/* Each of d's rounds (tps, then d->desc's percentiles), then for each figure the rounds'
 * mean, min-max and 95% interval (ci_mean, rounds as batches), a latency's kept within the
 * rounds' fastest and slowest request. Nothing without rounds. */
void report_rounds(FILE *out, const struct results_doc *d);

/* Why round p cannot stand beside the others, into why (false, why empty: it can): cut short
 * of desc's --time, no answers, a server that stopped answering in it, requests unanswered
 * or connections lost in it. The report and slap compare leave such a round out. */
bool rounds_flawed(const struct run_desc *desc, const struct results_period *p, char *why,
                   size_t cap);

#endif
