/* What the outputs are told of a run: its description from the options, once; a results
 * file's "config" read back as options; the files the options ask for. Internal to the cli. */
#ifndef SLAP_PLAN_OUTPUT_H
#define SLAP_PLAN_OUTPUT_H

#include <stddef.h>

#include "slap/base/common.h"
#include "slap/base/json.h"
#include "slap/options/options.h"
#include "slap/output/results_read.h"
#include "slap/output/run_desc.h"
#include "slap/output/sinks.h"

/* The outputs' description of the run o sets, into d (which owns nothing yet). SLAP_ERROR when
 * out of memory (d is then empty). */
enum slap_status plan_output_describe(struct run_desc *d, const struct slap_options *o);

/* A results file's "config" object read as slap would read those options from a command line
 * (only settings given and replayed), described into out: a results_config_reader. */
enum slap_status plan_output_read_config(const struct json_value *config, struct run_desc *out,
                                         char *err, size_t err_len);

/* A results file's configuration replayed as options (its texts point into argv). */
struct plan_replay {
    struct slap_options opts;
    char **argv; /* the command line replayed (owned) */
    int argc;
};
/* config replayed into r (initialised either way: plan_output_replay_free releases it);
 * SLAP_ERROR with err saying why it does not read back. */
enum slap_status plan_output_replay(const struct json_value *config, struct plan_replay *r,
                                    char *err, size_t err_len);
void plan_output_replay_free(struct plan_replay *r);

/* The file each sink is to write (--csv, --svg, --json), NULL for none. */
void plan_output_paths(const struct slap_options *o, const char *paths[RESULTS_SINKS]);

#endif
