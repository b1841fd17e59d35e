/* What a run writes besides the text report: its results document and the samples file. */
#include "slap/run/outputs.h"

#include <stdio.h>
#include <string.h>

#include "slap/base/quote.h"
#include "slap/model/samples.h"
#include "slap/options/plan_output.h"
#include "slap/output/sinks.h"
#include "slap/run/run_events.h"
#include "slap/run/signals.h"
#include "slap/store/store.h"

FILE *outputs_stream(const struct slap_options *o)
{
    return o->json_out != NULL && strcmp(o->json_out, "-") == 0 ? stderr : stdout;
}

int outputs_open(struct outputs *outs, const struct slap_options *o)
{
    char err[512];
    const char *paths[RESULTS_SINKS];
    memset(outs, 0, sizeof(*outs));
    plan_output_paths(o, paths);
    outs->want_doc = results_sinks_wanted(paths) || store_location(o->store) != NULL;
    if (results_doc_init(&outs->doc) != SLAP_OK ||
        plan_output_describe(&outs->doc.desc, o) != SLAP_OK) {
        fprintf(stderr, "slap: out of memory\n");
        return SLAP_EXIT_FAILED;
    }
    if (o->samples_out == NULL) {
        return SLAP_EXIT_OK;
    }
    if (outfile_open(&outs->samples, o->samples_out, err, sizeof(err)) != SLAP_OK) {
        /* the run goes on: its report and other outputs are worth having; a stop ends it */
        fprintf(stderr, "slap: --samples: %s%s\n", err,
                signals_stop_pending() ? "" : " (the run goes on without samples)");
        outs->samples_failed = true;
        return SLAP_EXIT_OK;
    }
    samples_write_header(outs->samples.f);
    return SLAP_EXIT_OK;
}

int outputs_close_samples(struct outputs *outs, const struct slap_options *o)
{
    char err[512];
    if (outs->samples_failed) {
        char shown[QUOTE_PATH_BUF];
        fprintf(stderr, "slap: --samples: nothing was written to %s\n",
                quote_name(shown, o->samples_out));
        return SLAP_EXIT_FAILED;
    }
    if (outs->samples.f == NULL) {
        return SLAP_EXIT_OK;
    }
    bool whole = outfile_whole(&outs->samples);
    if (outfile_close(&outs->samples, err, sizeof(err)) != SLAP_OK) {
        quote_line(stderr, "slap: --samples: ", err);
        outs->samples_failed = true;
        return SLAP_EXIT_FAILED;
    }
    outs->samples_picture = whole ? o->samples_out : NULL;
    return SLAP_EXIT_OK;
}

void outputs_free(struct outputs *outs)
{
    outfile_discard(&outs->samples);
    results_doc_free(&outs->doc);
}

int outputs_save(const struct outputs *outs, const struct slap_options *o)
{
    const char *paths[RESULTS_SINKS];
    struct results_sink_input in = {&outs->doc, NULL, NULL, outs->samples_picture};
    const char *store = store_location(o->store);
    const char *kind = o->sweep_step > 0 ? "sweep" : o->rounds > 1 ? "rounds" : "run";
    plan_output_paths(o, paths);
    int status =
        results_sinks_save(paths, &in, stderr, "slap") != SLAP_OK ? SLAP_EXIT_FAILED : SLAP_EXIT_OK;
    if (store != NULL && store_save(store, &in, kind, stderr, "slap") != SLAP_OK) {
        status = SLAP_EXIT_FAILED;
    }
    return status;
}

void outputs_servers(struct results_doc *d, const struct run_result *res,
                     const struct server_stats_pair *pairs)
{
    for (uint32_t i = 0; i < res->nservers; i++) {
        struct server_stats_pair none = {.ok = false, .note = "not read"};
        results_add_server(d, res->servers[i].name, d->label, pairs != NULL ? &pairs[i] : &none);
    }
}

void outputs_fine(void *ctx, const struct slap_stats *tick, double tick_s, bool rest)
{
    if (rest) {
        intervals_extend(ctx, tick, tick_s);
    } else {
        intervals_add_stats(ctx, tick, tick_s);
    }
}

static void tell_event(void *report, const struct run_event *e)
{
    run_event_print(e->kind == RUN_EVENT_PRELOAD ? report : stderr, e);
}

struct run_event_sink outputs_events(FILE *report)
{
    return (struct run_event_sink){.tell = tell_event, .ctx = report};
}
