/* What a run (or a sweep) writes besides the text report: its results document (--json, --csv,
 * --svg, --hlog) and the samples file (--samples). */
#ifndef SLAP_CLI_OUTPUTS_H
#define SLAP_CLI_OUTPUTS_H

#include <stdbool.h>
#include <stdio.h>

#include "slap/base/outfile.h"
#include "slap/engine/run.h"
#include "slap/options/options.h"
#include "slap/output/intervals.h"
#include "slap/output/results.h"

/* What a run writes besides the text report: its document, the samples file. */
struct outputs {
    struct results_doc doc;      /* its desc: the run's, for the report too */
    bool want_doc;               /* a sink's file (--json, --csv, ...) or --store */
    struct outfile samples;      /* --samples, written during the run */
    bool samples_failed;         /* it could not be opened or written: the run is failed */
    const char *samples_picture; /* the samples file for --svg's scatter, when it can be read */
};

/* The document described from o; the samples file opened, its header written (one that cannot
 * be opened is said, and fails the run at the end: the run goes on). The exit status so far. */
int outputs_open(struct outputs *outs, const struct slap_options *o);
/* The samples file, whole (or as far as it went, where it is not a regular file). */
int outputs_close_samples(struct outputs *outs, const struct slap_options *o);
void outputs_free(struct outputs *outs);
/* --json, --csv, --svg, --hlog: each written whole; a failure says why and fails the run. */
int outputs_save(const struct outputs *outs, const struct slap_options *o);
/* The servers' own stats (pairs, one per server of the run; NULL: none read, or why there are
 * none) into the document. */
void outputs_servers(struct results_doc *d, const struct run_result *res,
                     const struct server_stats_pair *pairs);
/* The text report's stream: standard error when the JSON takes standard output. */
FILE *outputs_stream(const struct slap_options *o);
/* A run_sinks.fine: the intervals (ctx) and the steady line read ticks of at most a tenth of a
 * second, whatever -S: a tick each, the answers after the last tick in the last. */
void outputs_fine(void *ctx, const struct slap_stats *tick, double tick_s, bool rest);
/* Where a run's events go (run_sinks.events): the preload's line to report (the report's
 * stream), the rest to standard error. Called from any of the run's threads: each line is one
 * fprintf, so lines told at once never mix. */
struct run_event_sink outputs_events(FILE *report);

#endif
