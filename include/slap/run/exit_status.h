/* A run's exit status: what its counters say (on standard error), the limits the options set
 * (--max_errors), standard output that failed, a command line that asked for no run. */
#ifndef SLAP_CLI_EXIT_STATUS_H
#define SLAP_CLI_EXIT_STATUS_H

#include <stdbool.h>

#include "slap/engine/run.h"
#include "slap/model/stats.h"
#include "slap/options/options.h"

/* What the counters of run r (made from options o) say of it, on standard error, each line
 * begun with who ("slap", or "slap: step 40000 ops/s" in a sweep); signal is the one that
 * interrupted it, or 0. Its exit status. */
int exit_verdict(const struct run *r, const struct slap_options *o, int signal, const char *who);
/* When no request of a run succeeded: the likeliest cause its counters c show, as the end of
 * a sentence (": nothing answered over UDP; is the server started with UDP on its port ...?"),
 * or "". */
const char *exit_nothing_cause(const struct slap_counters *c, const struct slap_options *o);
/* --max_errors: more errors than allowed fail a run that otherwise passed (status). Without
 * it, any verification failure does. */
int exit_max_errors(const struct slap_options *o, const struct slap_stats *s, int status,
                    const char *who);
/* Was everything written to standard output so far? If not, say why on standard error. */
bool exit_output_ok(void);
/* The exit status of a command line that asked for no run: --help or --version (0, or 1 when
 * standard output failed), or a usage error (2). */
int exit_no_run(enum options_outcome outcome);

#endif
