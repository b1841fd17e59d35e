/* One measured run of the command line's options (no --sweep). */
#ifndef SLAP_CLI_RUN_ONE_H
#define SLAP_CLI_RUN_ONE_H

#include "slap/cli/options.h"

/* Header, run, report, files; the exit status. A signal that interrupted the run: its report,
 * then slap dies of it. */
int run_one(const struct slap_options *o);

#endif
