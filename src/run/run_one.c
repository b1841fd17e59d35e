/* One measured run: header, run, report, files, exit status (and --precision, --hdr_out, the
 * -S tables, --rounds' rounds and --metrics on the way). */
#include "slap/run/run_one.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slap/base/outfile.h"
#include "slap/base/quote.h"
#include "slap/engine/run.h"
#include "slap/export/live.h"
#include "slap/model/samples.h"
#include "slap/options/plan.h"
#include "slap/output/hist_hgrm.h"
#include "slap/output/intervals.h"
#include "slap/output/report.h"
#include "slap/output/report_ramp.h"
#include "slap/output/results.h"
#include "slap/output/rounds.h"
#include "slap/run/exit_status.h"
#include "slap/run/outputs.h"
#include "slap/run/signals.h"

/* --hdr-out: the whole run's latency, all types together, as .hgrm text. */
static int write_hdr(const struct slap_options *o, const struct slap_stats *global)
{
    struct hist *total = NULL;
    struct outfile of;
    char err[512];
    if (hist_slab_alloc(&total, 1) != SLAP_OK) {
        fprintf(stderr, "slap: --hdr-out: out of memory\n");
        return SLAP_EXIT_FAILED;
    }
    if (outfile_open(&of, o->hdr_out, err, sizeof(err)) != SLAP_OK) {
        quote_line(stderr, "slap: --hdr-out: ", err);
        hist_slab_free(total, 1);
        return SLAP_EXIT_FAILED;
    }
    if (o->tps > 0 && o->latency == LATENCY_UNCORRECTED) {
        stats_total_raw(global, total);
    } else {
        stats_total_hist(global, total);
    }
    hist_hgrm_write(of.f, total, HIST_HGRM_UNIT_NS); /* a failure shows when it is closed */
    hist_slab_free(total, 1);
    if (outfile_close(&of, err, sizeof(err)) != SLAP_OK) {
        quote_line(stderr, "slap: --hdr-out: ", err);
        return SLAP_EXIT_FAILED;
    }
    return SLAP_EXIT_OK;
}

/* The live progress line: only on a terminal, only without -S tables or -q. */
static bool progress_wanted(const struct slap_options *o)
{
    return isatty(STDERR_FILENO) == 1 && o->stat_freq_ns == 0 && !o->quiet;
}

/* Without -S: ten of the engine's periods (PLAN_FINE_PERIOD_NS) to a document's period, or
 * each one, in a run of SHORT_RUN_NS or less: a merge of short runs (many hosts' files) then
 * has periods enough to judge steadiness and the intervals as each run did (30 and more). */
#define FINE_PER_PERIOD 10
#define SHORT_RUN_NS (30 * SLAP_NS_PER_SEC)

/* The engine's periods to a document's period: 1 with -S (they are -S's). */
static uint32_t fine_per_period(const struct slap_options *o)
{
    uint64_t length = o->run_time_ns * (o->rounds > 1 ? o->rounds : 1);
    bool short_run = o->execute_number == 0 && length > 0 && length <= SHORT_RUN_NS;
    return o->stat_freq_ns > 0 || short_run ? 1 : FINE_PER_PERIOD;
}

uint64_t run_one_period_ns(const struct slap_options *o)
{
    return (o->stat_freq_ns > 0 ? o->stat_freq_ns : PLAN_FINE_PERIOD_NS) * fine_per_period(o);
}

/* The run's figures into the document (its periods are there already); it takes over what
 * limited the run (limits is left empty). */
static void doc_from_run(struct results_doc *d, const struct run *r, const struct run_result *res,
                         const struct slap_options *o, int status, struct limits *limits)
{
    snprintf(d->label, sizeof(d->label), "%s", o->label);
    d->seconds = run_seconds(r);
    d->start_ms = res->measure_wall_ns / SLAP_NS_PER_MS;
    d->end_ms = d->start_ms + (uint64_t)(d->seconds * 1000.0 + 0.5);
    if (results_add_this_run(d) == SLAP_OK) {
        struct results_run_id *runs = d->runs.items;
        runs[d->runs.n - 1].start_at_ms = o->start_at_ns / SLAP_NS_PER_MS;
    }
    d->signal = res->signal;
    d->exit_status = status;
    d->period_s = (double)(res->period_ns * fine_per_period(o)) / (double)SLAP_NS_PER_SEC;
    stats_reset(d->global);
    stats_merge(d->global, res->global);
    d->trace.present = o->trace != NULL;
    d->trace.counts = *res->trace_counts;
    d->trace.sent = *res->trace_sent;
    d->samples_written = res->samples_written;
    d->samples_dropped = res->samples_dropped;
    outputs_servers(d, res, res->server_stats);
    limits_free(&d->limits);
    d->limits = *limits;
    d->has_limits = limits->seconds > 0;
    memset(limits, 0, sizeof(*limits));
}

/* --precision: the target, and whether (and when) it was reached. */
struct precision {
    double pct;   /* the percentile; 0: no target */
    double width; /* the relative half-width asked */
    bool reached;
    double at_s;        /* when */
    double got;         /* the half-width then */
    struct hist *total; /* scratch (one histogram) for the run's total latency, with a target */
};

/* Is the target reached by the run so far? Only an interval by batch means counts. The
 * latency is the one the report shows (corrected, or --latency uncorrected). */
static void precision_check(struct precision *pr, const struct run_desc *desc,
                            const struct intervals *iv, const struct slap_stats *global,
                            double elapsed_s)
{
    struct ci_result r;
    if (pr->pct <= 0 || pr->reached) {
        return;
    }
    intervals_mask mask = report_main_total(desc, global, pr->total);
    intervals_ci(iv, mask, pr->total, pr->pct, &r);
    double got = ci_relative_halfwidth(&r);
    if (r.method == CI_BATCH_MEANS && got <= pr->width) {
        pr->reached = true;
        pr->at_s = elapsed_s;
        pr->got = got;
    }
}

/* "p99 within 4.1% after 23 s" (0.6 s when it was: the time as measured), or what was reached
 * when -t or -x ended the run first. */
static void precision_outcome(const struct run_result *res, const struct slap_options *o,
                              const struct precision *pr, struct results_doc *d)
{
    struct ci_result ci;
    char *buf = d->precision;
    size_t len = sizeof(d->precision);
    if (pr->pct <= 0) {
        return;
    }
    if (pr->reached) {
        snprintf(buf, len, "p%g within %.1f%% after %g s", pr->pct, pr->got * 100.0, pr->at_s);
        return;
    }
    intervals_mask mask = report_main_total(&d->desc, res->global, pr->total);
    intervals_ci(d->intervals, mask, pr->total, pr->pct, &ci);
    int n = o->execute_number > 0 ? snprintf(buf, len, "p%g not reached within -x %llu", pr->pct,
                                             (unsigned long long)o->execute_number)
                                  : snprintf(buf, len, "p%g not reached within -t %g s", pr->pct,
                                             (double)o->run_time_ns / (double)SLAP_NS_PER_SEC);
    size_t used = n > 0 && (size_t)n < len ? (size_t)n : len - 1;
    if (ci.estimable) {
        snprintf(buf + used, len - used, ": %.1f%%", ci_relative_halfwidth(&ci) * 100.0);
    } else {
        snprintf(buf + used, len - used, ": not estimable (%llu requests; about %llu needed)",
                 (unsigned long long)ci.requests, (unsigned long long)ci.needed);
    }
}

/* The report, on the report stream: everything, or with -q only the Run time line.
 * SLAP_ERROR (said on standard error) when memory for it ran out. */
static enum slap_status report(FILE *out, const struct run *r, const struct run_result *res,
                               const struct slap_options *o, const struct results_doc *doc,
                               const struct limits *limits)
{
    const struct run_desc *desc = &doc->desc;
    struct report_trace trace = {res->trace_counts, res->trace_sent};
    struct report_confidence conf = {doc->intervals, doc->precision};
    if (o->quiet) {
        report_run_line(out, res->global, run_seconds(r), res->signal);
        return SLAP_OK;
    }
    if (report_final(out, desc, res->global, run_seconds(r), res->signal,
                     o->trace != NULL ? &trace : NULL, limits,
                     server_stats_preload_evictions(res->server_stats,
                                                    res->server_stats != NULL ? res->nservers : 0),
                     &conf) != SLAP_OK) {
        fprintf(stderr, "slap: out of memory: the report could not be written\n");
        return SLAP_ERROR;
    }
    report_rounds(out, doc);
    if (report_ramp(out, doc, o->stat_freq_ns > 0) != SLAP_OK) {
        fprintf(stderr, "slap: out of memory: the --ramp table could not be written\n");
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

/* --rounds: the round in which a server stopped answering for good (the drain gave up on its
 * connections) learns when, so that the report leaves it out as a stalled round. */
static void mark_stalled_round(const struct run *r, const struct run_result *res,
                               const struct slap_options *o, struct results_doc *doc)
{
    struct results_period *rounds = doc->rounds.items;
    double round_s = (double)o->run_time_ns / (double)SLAP_NS_PER_SEC;
    uint64_t start = run_measure_start(r);
    for (uint32_t i = 0; i < res->nservers && round_s > 0; i++) {
        const struct worker_stall *st = &res->stalls[i];
        if (st->conns == 0 || st->since_ns < start) {
            continue;
        }
        double at = (double)(st->since_ns - start) / (double)SLAP_NS_PER_SEC;
        size_t k = (size_t)(at / round_s);
        double into = fmax(at - (double)k * round_s, 1e-9);
        if (k < doc->rounds.n && (rounds[k].stalled_s == 0 || into < rounds[k].stalled_s)) {
            rounds[k].stalled_s = into;
        }
    }
}

/* Everything after the run (res: what it did, its signal the one that interrupted it): report,
 * verdict, files, then --push; the exit status (a failed push leaves it as it is). */
static int conclude(const struct run *r, const struct run_result *res, const struct slap_options *o,
                    struct outputs *outs, FILE *out, const struct precision *pr, struct live *live)
{
    struct limits limits;
    bool judged = run_limits(r, &limits) == SLAP_OK && stats_ops(res->global) > 0;
    if (!judged) {
        limits.seconds = 0; /* nothing measured: no verdict, in the report or the document */
    }
    precision_outcome(res, o, pr, &outs->doc);
    mark_stalled_round(r, res, o, &outs->doc);
    bool reported = report(out, r, res, o, &outs->doc, judged ? &limits : NULL) == SLAP_OK;
    int status = exit_verdict(r, o, res->signal, "slap");
    status = reported ? status : SLAP_EXIT_FAILED;
    if (res->trace_error[0] != '\0') {
        quote_line(stderr, "slap: --trace: ", res->trace_error);
        status = SLAP_EXIT_FAILED;
    }
    status = exit_max_errors(o, res->global, status, "slap");
    if (o->hdr_out != NULL && write_hdr(o, res->global) != SLAP_EXIT_OK) {
        status = SLAP_EXIT_FAILED;
    }
    if (res->samples_dropped > 0) {
        bool failed = outs->samples.f != NULL && ferror(outs->samples.f);
        fprintf(stderr, "slap: --samples: %llu samples were dropped %s\n",
                (unsigned long long)res->samples_dropped,
                failed ? "(the file stopped taking them)"
                       : "(the file could not keep up): use a smaller --sample_rate");
    }
    if (outputs_close_samples(outs, o) != SLAP_EXIT_OK) {
        status = SLAP_EXIT_FAILED;
    }
    if (outs->want_doc) {
        doc_from_run(&outs->doc, r, res, o, status, &limits); /* the limits move into it */
        status = outputs_save(outs, o) != SLAP_EXIT_OK ? SLAP_EXIT_FAILED : status;
    }
    const struct limits *final = outs->want_doc ? &outs->doc.limits : &limits;
    live_finish(live, res->global, run_seconds(r), judged ? final : NULL);
    limits_free(&limits);
    return status;
}

/* Where a run's periods and samples go: the -S tables, the document's periods, the file. */
struct run_outputs {
    const struct slap_options *o;
    const struct run_desc *desc; /* the run's, for the -S tables */
    FILE *out;                   /* the report */
    struct results_doc *doc;     /* NULL: periods not kept */
    struct intervals *intervals; /* the periods kept for the intervals (always) */
    FILE *samples;               /* --samples, else NULL */
    struct results_doc *rounds;  /* --rounds: where the rounds are kept (NULL: one round) */
    /* Without -S the engine's periods are fine (PLAN_FINE_PERIOD_NS), for the intervals of a
     * short run; the document's periods are fine_per_period() of them, summed here. */
    struct slap_stats group;
    uint32_t grouped;
    double grouped_s;
    struct precision precision; /* --precision */
    struct live *live;          /* --metrics, --push, --control; NULL: none */
    struct run *run;            /* --control: the run it changes, once made */
    struct results_doc *kept;   /* --control: the document its changes go to, as they come */
};

/* --rounds: the round period period_no falls in (the last takes any beyond). */
static size_t round_of(const struct slap_options *o, uint64_t period_no, double period_s)
{
    double per_round = (double)o->run_time_ns / (double)SLAP_NS_PER_SEC / period_s;
    size_t round = (size_t)((double)(period_no - 1) / per_round + 1e-9);
    return round < o->rounds ? round : o->rounds - 1;
}

/* The document's period: fine_per_period of the engine's. Its end to the microsecond, so that
 * the third of 0.1 s periods ends at 0.3, not 0.30000000000000004. */
static void keep_period(struct run_outputs *ro, const struct slap_stats *period, uint64_t period_no,
                        double period_s)
{
    double elapsed_s = (double)llround(period_s * (double)period_no * 1e6) / 1e6;
    if (fine_per_period(ro->o) == 1) {
        results_add_period(ro->doc, elapsed_s, period_s, period);
        return;
    }
    stats_merge(&ro->group, period);
    ro->grouped++;
    ro->grouped_s += period_s;
    if (ro->grouped == fine_per_period(ro->o)) {
        results_add_period(ro->doc, elapsed_s, ro->grouped_s, &ro->group);
        stats_reset(&ro->group);
        ro->grouped = 0;
        ro->grouped_s = 0;
    }
}

static void sink_period(void *ctx, const struct slap_stats *period, const struct slap_stats *global,
                        uint64_t period_no, double period_s)
{
    struct run_outputs *ro = ctx;
    if (ro->o->stat_freq_ns > 0) {
        if (report_period(ro->out, ro->desc, period, global, period_no,
                          isatty(fileno(ro->out)) == 1) != SLAP_OK) {
            fprintf(stderr, "slap: out of memory: period %llu's table could not be written\n",
                    (unsigned long long)period_no);
        }
    }
    precision_check(&ro->precision, ro->desc, ro->intervals, global, period_s * (double)period_no);
    if (ro->doc != NULL) {
        keep_period(ro, period, period_no, period_s);
    }
    if (ro->rounds != NULL) {
        results_add_to_round(ro->rounds, round_of(ro->o, period_no, period_s),
                             period_s * (double)period_no, period_s, period);
    }
    if (ro->o->stat_freq_ns > 0) {
        live_period(ro->live); /* --push with -S: each period */
    }
}

static void sink_fine(void *ctx, const struct slap_stats *tick, double tick_s, bool rest)
{
    outputs_fine(((struct run_outputs *)ctx)->intervals, tick, tick_s, rest);
}

static void sink_tick(void *ctx, const struct slap_stats *global, double elapsed_s)
{
    live_tick(((struct run_outputs *)ctx)->live, global, elapsed_s);
}

static void sink_wait(void *ctx, uint64_t ns)
{
    live_wait(((struct run_outputs *)ctx)->live, ns);
}

static bool sink_enough(void *ctx)
{
    return ((struct run_outputs *)ctx)->precision.reached;
}

/* The answers that came after the last period: a last period of their own, or the last's. */
static void sink_rest(void *ctx, const struct slap_stats *rest, double elapsed_s)
{
    struct run_outputs *ro = ctx;
    struct results_doc *d = ro->doc;
    if (ro->rounds != NULL && ro->rounds->rounds.n > 0) {
        size_t last = ro->rounds->rounds.n - 1;
        results_add_to_round(ro->rounds, last, elapsed_s, 0.0, rest);
    }
    if (d == NULL) {
        return;
    }
    if (ro->grouped > 0) {
        stats_merge(&ro->group, rest); /* the fine periods not yet in the document, with it */
        rest = &ro->group;
    }
    const struct results_period *periods = d->periods.items;
    double last = d->periods.n > 0 ? periods[d->periods.n - 1].elapsed_s : 0.0;
    if (d->periods.n == 0 || elapsed_s > last + 0.001) {
        results_add_period(d, elapsed_s, elapsed_s - last, rest);
    } else {
        results_extend_last_period(d, rest);
    }
}

/* The samples thread's: what a ring holds, into the file; once the file failed (a reader that
 * stalled past its bound), what is drained is lost, and counted as dropped, not written. */
static uint64_t sink_samples(void *ctx, struct sample_ring *ring, uint64_t origin_ns)
{
    FILE *f = ((struct run_outputs *)ctx)->samples;
    uint64_t n = samples_drain(ring, f, origin_ns);
    if (!ferror(f)) {
        return n;
    }
    atomic_fetch_add_explicit(&ring->dropped, n, memory_order_relaxed);
    return 0;
}

/* The run's periods and samples, connected to the outputs that want them. */
static struct run_sinks run_sinks_of(struct run_outputs *ro)
{
    return (struct run_sinks){.ctx = ro,
                              .period = sink_period,
                              .rest = sink_rest,
                              .fine = sink_fine,
                              .enough = ro->precision.pct > 0 ? sink_enough : NULL,
                              .samples = ro->samples != NULL ? sink_samples : NULL,
                              .tick = ro->live != NULL ? sink_tick : NULL,
                              .wait = live_serves(ro->live) ? sink_wait : NULL,
                              .events = outputs_events(ro->out)};
}

/* --control: a change asked over HTTP, made to the run and kept in its document at once (the
 * periods' target rates, written as they come, read it). */
static enum rate_outcome control_apply(void *ctx, enum rate_action action, double tps, char *err,
                                       size_t err_len)
{
    struct run_outputs *ro = ctx;
    if (ro->run == NULL) {
        snprintf(err, err_len, "the run is not going on");
        return RATE_CONFLICT;
    }
    enum rate_outcome done = run_control(ro->run, action, tps, err, err_len);
    struct run_result res;
    run_result(ro->run, &res);
    if (done == RATE_DONE && res.nchanges > 0 &&
        results_keep_change(ro->kept, &res.changes[res.nchanges - 1]) != SLAP_OK) {
        snprintf(err, err_len, "out of memory: the change was made but is not kept");
    }
    return done;
}

static void control_state(void *ctx, struct rate_state *st)
{
    const struct run_outputs *ro = ctx;
    if (ro->run == NULL) {
        *st = (struct rate_state){0};
        return;
    }
    run_control_state(ro->run, st);
}

/* --metrics, --push and --control, when asked: listening (its address said) before the run
 * starts. */
static enum slap_status open_live(struct run_outputs *ro, const struct slap_options *o,
                                  const struct run_desc *desc)
{
    char err[512];
    struct live_setup setup = {
        .metrics = o->metrics,
        .push = o->push,
        .push_periods = o->stat_freq_ns > 0,
        .label = o->label,
        .desc = desc,
        .target_tps = o->ramp.duration_ns > 0 ? desc->tps : o->tps,
        .control = {
            .where = o->control, .ctx = ro, .apply = control_apply, .state = control_state}};
    struct live **live = &ro->live;
    if (live_open(live, &setup, err, sizeof(err)) != SLAP_OK) {
        quote_line(stderr, "slap: ", err);
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

/* What run_one holds until it returns (or dies of a signal). */
static void run_one_free(struct run *run, struct run_outputs *ro, struct outputs *outs)
{
    run_free(run);
    stats_free(&ro->group);
    hist_slab_free(ro->precision.total, 1);
    outputs_free(outs);
    live_close(ro->live);
}

int run_one(const struct slap_options *opts)
{
    struct run *run = NULL;
    struct run_result res;
    struct run_plan plan;
    struct outputs outs;
    char err[512] = "";
    int status = outputs_open(&outs, opts);
    FILE *out = outputs_stream(opts);
    struct run_outputs ro = {
        .o = opts,
        .desc = &outs.doc.desc,
        .out = out,
        /* --ramp: its table reads the periods */
        .doc =
            outs.want_doc || opts->ramp.duration_ns > 0 || opts->control != NULL ? &outs.doc : NULL,
        .intervals = outs.doc.intervals,
        .samples = outs.samples.f,
        .rounds = opts->rounds > 1 ? &outs.doc : NULL,
        .precision = {.pct = opts->precision_pct, .width = opts->precision_width},
        .kept = &outs.doc};
    if (outs.samples_failed && signals_stop_pending()) {
        outputs_free(&outs); /* stopped while waiting for --samples' reader: nothing to report */
        signals_die_of(signals_take_pending());
    }
    if (status != SLAP_EXIT_OK || stats_init(&ro.group, &stats_shape_all) != SLAP_OK ||
        (ro.precision.pct > 0 && hist_slab_alloc(&ro.precision.total, 1) != SLAP_OK) ||
        open_live(&ro, opts, &outs.doc.desc) != SLAP_OK) {
        stats_free(&ro.group);
        hist_slab_free(ro.precision.total, 1);
        outputs_free(&outs);
        return status != SLAP_EXIT_OK ? status : SLAP_EXIT_FAILED;
    }
    struct run_sinks sinks = run_sinks_of(&ro);
    status = SLAP_EXIT_FAILED;
    plan_run(&plan, opts, PLAN_PERIODS_FINE);
    if (run_init(&run, &plan, out, err, sizeof(err)) != 0 ||
        run_want(run, &sinks, true, true, progress_wanted(opts)) != SLAP_OK) {
        quote_line(stderr, "slap: ", err[0] != '\0' ? err : "out of memory");
        goto out;
    }
    if (!opts->quiet) {
        report_header(out, &outs.doc.desc);
    }
    if (!exit_output_ok()) {
        goto out; /* nowhere to put the report: do not load the servers for nothing */
    }
    ro.run = run;
    enum slap_status st = run_execute(run, err, sizeof(err));
    ro.run = NULL;
    run_result(run, &res);
    if (st != SLAP_OK && res.signal == 0) {
        quote_line(stderr, "slap: ", err);
        goto out;
    }
    if (res.signal == 0) {
        res.signal = signals_take_pending(); /* after the run: the report says so too */
    }
    status = conclude(run, &res, opts, &outs, out, &ro.precision, ro.live);
    if (!exit_output_ok()) {
        status = SLAP_EXIT_FAILED;
    }
    if (res.signal == 0) {
        res.signal = signals_take_pending(); /* while writing the outputs: they gave up */
    }
    if (res.signal != 0) {
        run_one_free(run, &ro, &outs);
        signals_die_of(res.signal);
    }
out:
    run_one_free(run, &ro, &outs);
    return status;
}
