/* --sweep: one timed open-loop run per rate. */
#ifndef SLAP_CLI_SWEEP_H
#define SLAP_CLI_SWEEP_H

#include "slap/options/options.h"

/* From --sweep's start to its end by its step, a run of --step_time each, one table row each;
 * the exit status. A signal ends it with its report, then slap dies of it. */
int sweep_run(const struct slap_options *o);

#endif
