/* --sweep: one timed open-loop run per rate, a table row each, one document for them all. */
#include "slap/run/sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/quote.h"
#include "slap/engine/run.h"
#include "slap/options/plan.h"
#include "slap/output/intervals.h"
#include "slap/output/report.h"
#include "slap/output/results.h"
#include "slap/run/exit_status.h"
#include "slap/run/outputs.h"
#include "slap/run/signals.h"

/* A sweep's document: the steps, the first step's server stats before and the last's after. */
struct sweep_doc {
    struct outputs outs;
    struct server_stats_pair *pairs;
    uint64_t start_wall_ns;
    double seconds;
};

/* The step into the document, its intervals and what limited it (when judged) handed over. */
static void sweep_keep(struct sweep_doc *sd, const struct run_result *res,
                       const struct report_step *row, bool first, struct intervals **iv,
                       struct limits *limits)
{
    if (!sd->outs.want_doc) {
        return;
    }
    if (results_add_step(&sd->outs.doc, row->target, row->seconds, res->global) == SLAP_OK) {
        struct results_step *kept =
            &((struct results_step *)sd->outs.doc.steps.items)[sd->outs.doc.steps.n - 1];
        kept->intervals = *iv; /* the step's own periods, handed over */
        *iv = NULL;
        snprintf(kept->limited_by, sizeof(kept->limited_by), "%s", row->limited_by);
        kept->interrupted = row->interrupted;
        kept->has_limits = row->limited_by[0] != '\0';
        if (kept->has_limits) {
            kept->limits = *limits;
            memset(limits, 0, sizeof(*limits));
        }
    }
    stats_merge(sd->outs.doc.global, res->global);
    sd->seconds += row->seconds;
    if (first) {
        sd->start_wall_ns = res->measure_wall_ns;
        sd->pairs = res->server_stats == NULL ? NULL : calloc(res->nservers, sizeof(*sd->pairs));
    }
    for (uint32_t i = 0; sd->pairs != NULL && i < res->nservers; i++) {
        const struct server_stats_pair *p = &res->server_stats[i];
        if (first || !p->ok) {
            sd->pairs[i] = *p;
        } else if (sd->pairs[i].ok) {
            sd->pairs[i].after = p->after;
        }
    }
}

/* The sweep's files, once every step ran (or one failed); res is the last step's. */
static int sweep_save(struct sweep_doc *sd, const struct slap_options *opts,
                      const struct run_result *res, int status)
{
    struct results_doc *d = &sd->outs.doc;
    if (!sd->outs.want_doc) {
        return status;
    }
    d->sweep = true;
    snprintf(d->label, sizeof(d->label), "%s", opts->label);
    d->start_ms = sd->start_wall_ns / SLAP_NS_PER_MS;
    d->seconds = sd->seconds;
    d->end_ms = d->start_ms + (uint64_t)(sd->seconds * 1000.0 + 0.5);
    results_add_this_run(d);
    d->exit_status = status;
    d->signal = res->signal;
    outputs_servers(d, res, sd->pairs);
    return outputs_save(&sd->outs, opts) != SLAP_EXIT_OK ? SLAP_EXIT_FAILED : status;
}

static void sweep_free(struct sweep_doc *sd)
{
    free(sd->pairs);
    outputs_free(&sd->outs);
}

/*
 * One step of a sweep: a timed open-loop run at rate. Only the first flushes (--flush) and
 * preloads: the later ones find the windows it stored. SLAP_ERROR with err when it cannot run.
 */
static enum slap_status sweep_step(struct run **run, struct slap_options *step,
                                   const struct slap_options *opts, double rate, bool first,
                                   FILE *out, struct intervals *iv, char *err, size_t err_len)
{
    struct run_sinks sinks = {.ctx = iv, .fine = outputs_fine, .events = outputs_events(out)};
    struct run_plan plan;
    plan_step(&plan, step, opts, rate, opts->step_time_ns, 0, first);
    if (run_init(run, &plan, out, err, err_len) != SLAP_OK ||
        run_want(*run, &sinks, true, true, false) != SLAP_OK) {
        return SLAP_ERROR;
    }
    return run_execute(*run, err, err_len);
}

/* What a step's messages on standard error begin with: "slap: step 40000 ops/s". */
static void step_who(char *who, size_t len, double rate)
{
    snprintf(who, len, "slap: step %.0f ops/s", rate);
}

/*
 * A step that measured something: its row (the table's column names before the first row),
 * its place in the document; the status so far, failed when its verdict is.
 */
static int sweep_row(struct sweep_doc *sd, const struct run *r, const struct run_result *res,
                     const struct slap_options *opts, double rate, bool first, bool *columns,
                     int status, struct intervals **iv)
{
    FILE *out = outputs_stream(opts);
    struct limits limits = {.seconds = 0};
    struct report_step row = {
        .target = plan_share_rate(opts, rate), /* this host's part of the step's rate */
        .stats = res->global,
        .seconds = run_seconds(r),
        .intervals = *iv};
    row.limited_by = run_limits(r, &limits) == SLAP_OK ? limits_verdict_name(limits.verdict) : "";
    /* a signal cut it short; one after its measured part (in the drain) left it whole */
    row.interrupted = res->signal != 0 &&
                      row.seconds * (double)SLAP_NS_PER_SEC + 1e6 < (double)opts->step_time_ns;
    if (!opts->quiet) {
        if (!*columns) {
            report_sweep_columns(out, &sd->outs.doc.desc);
            *columns = true;
        }
        if (report_sweep_row(out, &sd->outs.doc.desc, &row) != SLAP_OK) {
            fprintf(stderr, "slap: out of memory: the row of %.0f ops/s could not be written\n",
                    rate);
            status = SLAP_EXIT_FAILED;
        }
    }
    sweep_keep(sd, res, &row, first, iv, &limits);
    limits_free(&limits);
    char who[64];
    step_who(who, sizeof(who), rate);
    int verdict = exit_verdict(r, opts, res->signal, who);
    bool errors_fail = exit_max_errors(opts, res->global, verdict, who) != SLAP_EXIT_OK;
    return errors_fail ? SLAP_EXIT_FAILED : status;
}

/* --sweep: one open-loop run per rate, one table row each; a signal ends it with its report. */
int sweep_run(const struct slap_options *opts)
{
    struct sweep_doc sd = {.pairs = NULL};
    int status = outputs_open(&sd.outs, opts);
    FILE *out = outputs_stream(opts);
    bool columns = false;
    if (status != SLAP_EXIT_OK) {
        sweep_free(&sd);
        return status;
    }
    if (!opts->quiet) {
        report_sweep_header(out, &sd.outs.doc.desc);
    }
    for (double rate = opts->sweep_start; rate <= opts->sweep_end + 0.5; rate += opts->sweep_step) {
        struct slap_options step;
        struct run *run = NULL;
        struct run_result res;
        char err[512] = "";
        bool first = rate == opts->sweep_start;
        struct intervals *iv = malloc(sizeof(*iv));
        if (iv == NULL || intervals_init(iv) != SLAP_OK) {
            free(iv);
            fprintf(stderr, "slap: out of memory\n");
            status = SLAP_EXIT_FAILED;
            break;
        }
        enum slap_status st = sweep_step(&run, &step, opts, rate, first, out, iv, err, sizeof(err));
        run_result(run, &res);
        int sig = res.signal;
        if (st == SLAP_OK && (sig == 0 || run_seconds(run) > 0)) {
            status = sweep_row(&sd, run, &res, &step, rate, first, &columns, status, &iv);
        } else if (st == SLAP_OK) {
            char who[64];
            step_who(who, sizeof(who), rate);
            exit_verdict(run, &step, sig, who); /* interrupted before the step's measured part */
        } else if (sig == 0) {
            quote_line(stderr, "slap: ", err[0] != '\0' ? err : "out of memory");
            status = SLAP_EXIT_FAILED;
        }
        bool last = st != SLAP_OK || sig != 0 || rate + opts->sweep_step > opts->sweep_end + 0.5;
        if (last && !opts->quiet) {
            report_preload_evictions(
                out, server_stats_preload_evictions(sd.pairs, sd.pairs != NULL ? res.nservers : 0));
        }
        report_interrupted(out, sig);
        if (last) {
            status = sweep_save(&sd, opts, &res, status);
            sig = sig != 0 ? sig : signals_take_pending(); /* while writing the files */
        }
        if (iv != NULL) {
            intervals_free(iv);
            free(iv);
        }
        run_free(run);
        if (sig != 0) {
            sweep_free(&sd);
            signals_die_of(sig);
        }
        if (last) {
            break;
        }
    }
    sweep_free(&sd);
    return status;
}
