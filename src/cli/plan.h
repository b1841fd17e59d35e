/* The plans each layer runs by, made once from the command line's options. */
#ifndef SLAP_CLI_PLAN_H
#define SLAP_CLI_PLAN_H

#include "slap/cli/options.h"
#include "slap/engine/run.h"
#include "slap/model/workload.h"
#include "slap/net/tls.h"

/* The workload: keys, values, the mix, the windows. */
void plan_workload(struct workload_plan *p, const struct slap_options *o);
/* The TLS context's files and checks. */
void plan_tls(struct tls_settings *p, const struct slap_options *o);
/* The whole run: the workload, TLS, the engine's settings, the servers and the rest. */
void plan_run(struct run_plan *p, const struct slap_options *o);

#endif
