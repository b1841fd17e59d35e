/* One measured run of the command line's options (no --sweep). */
#ifndef SLAP_CLI_RUN_ONE_H
#define SLAP_CLI_RUN_ONE_H

#include <stdint.h>

#include "slap/options/options.h"

/* Header, run, report, files; the exit status. A signal that interrupted the run: its report,
 * then slap dies of it. */
int run_one(const struct slap_options *o);

/* The length of the periods run_one's document keeps for these options: -S's, else 0.1 s in
 * a timed run of 30 s or less, else 1 s (a groups run hands it to every group, so that a
 * group's own -x keeps the periods of the others). */
uint64_t run_one_period_ns(const struct slap_options *o);

#endif
