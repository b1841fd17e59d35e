/* slap: options, plan, run, report, exit status. Orchestration only. */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slap/output/hist_hgrm.h"
#include "live.h"
#include "memslap.h"
#include "plan.h"
#include "signals.h"
#include "plan_output.h"
#include "slap/cli/options.h"
#include "slap/base/outfile.h"
#include "slap/base/quote.h"
#include "slap/output/report.h"
#include "slap/output/results.h"
#include "slap/output/rounds.h"
#include "slap/output/intervals.h"
#include "slap/output/sinks.h"
#include "slap/engine/run.h"
#include "slap/model/samples.h"
#include "subcommands.h"

/* More unanswered requests than this share of all due ones fail the run. */
#define UNANSWERED_TOLERANCE 0.01

/* No request succeeded: say so, with the likeliest cause the counters show. */
static void explain_nothing(const struct run *r, const char *who)
{
    const struct slap_counters *c = &r->global.counters;
    const struct lane_params *lp = &r->engine.lane;
    const char *why = "";
    if ((lp->udp || lp->facebook) && (c->conn_refused > 0 || c->udp_timeout > 0)) {
        why = lp->udp ? ": nothing answered over UDP; is the server started with UDP on its port "
                        "(memcached -U PORT; -U 0 turns it off)?"
                      : ": nothing answered the multi-gets over UDP; is the server started with "
                        "UDP on its port (memcached -U PORT)?";
    } else if (c->conn_refused > 0 && c->conn_refused >= c->conn_closed) {
        why = ": the server closed every connection before its first answer";
    } else if (c->conn_closed > 0) {
        why = ": the connections were lost";
    } else if (c->unanswered > 0) {
        why = ": the server did not answer";
    } else if (c->protocol_error > 0 || c->error_reply + c->server_error + c->client_error > 0) {
        why = ": every answer was an error";
    }
    fprintf(stderr, "%s: no request succeeded, so nothing was measured (no rates, no verdict)%s\n",
            who, why);
}

/* What the counters say of the run, on standard error, each line begun with who ("slap", or
 * "slap: step 40000 ops/s" in a sweep); its exit status. */
static int verdict(const struct run *r, const char *who)
{
    const struct slap_counters *c = &r->global.counters;
    uint32_t clients = r->engine.lane.concurrency;
    uint64_t ops = stats_ops(&r->global);
    if (r->signal != 0 && run_seconds(r) == 0.0) {
        fprintf(stderr, "%s: interrupted before the measured run began: nothing was measured\n",
                who);
        return SLAP_EXIT_FAILED;
    }
    if (c->unanswered > 0) {
        run_describe_stalls(r, stderr, who);
    }
    if (ops == 0) {
        explain_nothing(r, who);
        return SLAP_EXIT_FAILED;
    }
    if (run_all_blocked(r)) {
        fprintf(stderr,
                "%s: every connection stopped answering: the run measured a server "
                "that no longer answered\n",
                who);
        return SLAP_EXIT_FAILED;
    }
    uint64_t silent = c->unanswered - c->client_lag; /* the servers', not slap's lag */
    if ((double)silent > UNANSWERED_TOLERANCE * (double)(ops + c->unanswered)) {
        fprintf(stderr,
                "%s: %llu of %llu requests went unanswered by the server%s, more than "
                "%.0f%%\n",
                who, (unsigned long long)silent, (unsigned long long)(ops + c->unanswered),
                silent == 1 ? "" : "s", UNANSWERED_TOLERANCE * 100);
        return SLAP_EXIT_FAILED;
    }
    if (c->stored == 0 && c->not_stored > 0) {
        fprintf(stderr,
                "%s: every set was answered NOT_STORED (%llu): the server stored none; the "
                "gets still asked for their keys, as the mix says\n",
                who, (unsigned long long)c->not_stored);
    }
    if (run_describe_down(r, stderr, who) > 0) {
        return SLAP_EXIT_FAILED;
    }
    if (c->conn_refused > 0) {
        fprintf(stderr,
                "%s: %llu connection%s closed before %s first answer: the server "
                "refused %s\n",
                who, (unsigned long long)c->conn_refused, c->conn_refused == 1 ? " was" : "s were",
                c->conn_refused == 1 ? "its" : "their", c->conn_refused == 1 ? "it" : "them");
    }
    if (c->clients_stopped > 0) {
        fprintf(stderr, "%s: %llu of %u %s stopped early after losing a connection%s\n", who,
                (unsigned long long)c->clients_stopped, clients,
                r->engine.memslap_face ? "threads" : "clients",
                r->engine.memslap_face ? "" : " (-R reconnects)");
        return SLAP_EXIT_FAILED;
    }
    return SLAP_EXIT_OK;
}

/* --hdr-out: the whole run's latency, all types together, as .hgrm text. */
static int write_hdr(const struct slap_options *o, const struct slap_stats *global)
{
    static struct hist total;
    struct outfile of;
    char err[512];
    if (outfile_open(&of, o->hdr_out, err, sizeof(err)) != SLAP_OK) {
        fprintf(stderr, "slap: --hdr-out: %s\n", err);
        return SLAP_EXIT_FAILED;
    }
    if (o->tps > 0 && o->latency == LATENCY_UNCORRECTED) {
        stats_total_raw(global, &total);
    } else {
        stats_total_hist(global, &total);
    }
    hist_hgrm_write(of.f, &total, HIST_HGRM_UNIT_NS); /* a failure shows when it is closed */
    if (outfile_close(&of, err, sizeof(err)) != SLAP_OK) {
        fprintf(stderr, "slap: --hdr-out: %s\n", err);
        return SLAP_EXIT_FAILED;
    }
    return SLAP_EXIT_OK;
}

/* Was everything written to standard output so far? If not, say why on standard error. */
static bool output_ok(void)
{
    if (fflush(stdout) == 0 && !ferror(stdout)) {
        return true;
    }
    fprintf(stderr, "slap: cannot write to standard output: %s\n",
            strerror(errno != 0 ? errno : EIO));
    return false;
}

/* --max_errors: more errors than allowed fail a run that otherwise passed. Without it, any
 * verification failure does (-v: the server handed back a value that was never stored). */
static int check_max_errors(const struct slap_options *o, const struct slap_stats *s, int status,
                            const char *who)
{
    uint64_t errors = stats_errors(&s->counters);
    uint64_t requests = results_requests(s);
    uint64_t failed = s->counters.verify_failed;
    if (o->max_errors == UINT64_MAX && o->max_errors_pct < 0 && failed > 0) {
        fprintf(stderr,
                "%s: %llu checked get%s found a value other than the one stored "
                "(verify_failed): the run fails (--max_errors sets how many errors it "
                "may have)\n",
                who, (unsigned long long)failed, failed == 1 ? "" : "s");
        return SLAP_EXIT_FAILED;
    }
    bool over_count = o->max_errors != UINT64_MAX && errors > o->max_errors;
    bool over_share = o->max_errors_pct >= 0 &&
                      (double)errors * 100.0 > o->max_errors_pct * (double)requests;
    if (!over_count && !over_share) {
        return status;
    }
    fprintf(stderr, "%s: %llu errors in %llu requests, more than --max_errors allows\n", who,
            (unsigned long long)errors, (unsigned long long)requests);
    return SLAP_EXIT_FAILED;
}

/* The text report's stream: standard error when the JSON takes standard output. */
static FILE *report_stream(const struct slap_options *o)
{
    return o->json_out != NULL && strcmp(o->json_out, "-") == 0 ? stderr : stdout;
}

/* The live progress line: only on a terminal, only without -S tables or -q. */
static bool progress_wanted(const struct slap_options *o)
{
    return isatty(STDERR_FILENO) == 1 && o->stat_freq_ns == 0 && !o->quiet;
}

/* What a run writes besides the text report: its document, the samples file. */
struct outputs {
    struct results_doc doc;      /* its desc: the run's, for the report too */
    bool want_doc;               /* --json, --csv or --svg */
    struct outfile samples;      /* --samples, written during the run */
    bool samples_failed;         /* it could not be opened or written: the run is failed */
    const char *samples_picture; /* the samples file for --svg's scatter, when it can be read */
};

static int outputs_open(struct outputs *outs, const struct slap_options *o)
{
    char err[512];
    const char *paths[RESULTS_SINKS];
    memset(outs, 0, sizeof(*outs));
    plan_output_paths(o, paths);
    outs->want_doc = results_sinks_wanted(paths);
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

/* The samples file, whole (or as far as it went, where it is not a regular file). */
static int outputs_close_samples(struct outputs *outs, const struct slap_options *o)
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
        fprintf(stderr, "slap: --samples: %s\n", err);
        outs->samples_failed = true;
        return SLAP_EXIT_FAILED;
    }
    outs->samples_picture = whole ? o->samples_out : NULL;
    return SLAP_EXIT_OK;
}

static void outputs_free(struct outputs *outs)
{
    outfile_discard(&outs->samples);
    results_doc_free(&outs->doc);
}

/* --json, --csv, --svg: each written whole; a failure says why and fails the run. */
static int outputs_save(const struct outputs *outs, const struct slap_options *o)
{
    const char *paths[RESULTS_SINKS];
    struct results_sink_input in = {&outs->doc, NULL, NULL, outs->samples_picture};
    plan_output_paths(o, paths);
    return results_sinks_save(paths, &in, stderr, "slap") != SLAP_OK ? SLAP_EXIT_FAILED
                                                                      : SLAP_EXIT_OK;
}

/* The servers' own stats (or why there are none) into the document. */
static void doc_servers(struct results_doc *d, const struct run *r,
                        const struct server_stats_pair *pairs)
{
    for (uint32_t i = 0; i < r->servers.count; i++) {
        struct server_stats_pair none = {.ok = false, .note = "not read"};
        results_add_server(d, r->servers.items[i].name, d->label,
                           pairs != NULL ? &pairs[i] : &none);
    }
}

/* The run's figures into the document (its periods are there already); it takes over what
 * limited the run (limits is left empty). */
static void doc_from_run(struct results_doc *d, const struct run *r,
                         const struct slap_options *o, int status, struct limits *limits)
{
    snprintf(d->label, sizeof(d->label), "%s", o->label);
    d->seconds = run_seconds(r);
    d->start_ms = (r->start_wall_ns + o->warmup_ns) / SLAP_NS_PER_MS;
    d->end_ms = d->start_ms + (uint64_t)(d->seconds * 1000.0 + 0.5);
    results_add_this_run(d);
    d->signal = r->signal;
    d->exit_status = status;
    d->period_s = (double)r->period_ns / (double)SLAP_NS_PER_SEC;
    stats_reset(d->global);
    stats_merge(d->global, &r->global);
    d->trace.present = o->trace != NULL;
    d->trace.counts = r->replay.counts;
    d->trace.sent = r->trace_sent;
    d->samples_written = r->samples_written;
    d->samples_dropped = r->samples_dropped;
    doc_servers(d, r, r->server_stats);
    limits_free(&d->limits);
    d->limits = *limits;
    d->has_limits = limits->seconds > 0;
    memset(limits, 0, sizeof(*limits));
}

/* Without -S: engine periods of a tenth of a second, ten to a document's period. */
#define FINE_PERIOD_NS (SLAP_NS_PER_SEC / 10)
#define FINE_PER_PERIOD 10

/* --precision: the target, and whether (and when) it was reached. */
struct precision {
    double pct;   /* the percentile; 0: no target */
    double width; /* the relative half-width asked */
    bool reached;
    double at_s;  /* when */
    double got;   /* the half-width then */
};

/* Is the target reached by the run so far? Only an interval by batch means counts. The
 * latency is the one the report shows (corrected, or --latency uncorrected). */
static void precision_check(struct precision *pr, const struct run_desc *desc,
                            const struct intervals *iv, const struct slap_stats *global,
                            double elapsed_s)
{
    static struct hist total; /* main thread only */
    struct ci_result r;
    if (pr->pct <= 0 || pr->reached) {
        return;
    }
    intervals_mask mask = report_main_total(desc, global, &total);
    intervals_ci(iv, mask, &total, pr->pct, &r);
    double got = ci_relative_halfwidth(&r);
    if (r.method == CI_BATCH_MEANS && got <= pr->width) {
        pr->reached = true;
        pr->at_s = elapsed_s;
        pr->got = got;
    }
}

/* "p99 within 4.1% after 23 s" (0.6 s when it was: the time as measured), or what was reached
 * when -t or -x ended the run first. */
static void precision_outcome(const struct run *r, const struct slap_options *o,
                              const struct precision *pr, struct results_doc *d)
{
    static struct hist total; /* main thread only */
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
    intervals_mask mask = report_main_total(&d->desc, &r->global, &total);
    intervals_ci(d->intervals, mask, &total, pr->pct, &ci);
    int n = o->execute_number > 0
                ? snprintf(buf, len, "p%g not reached within -x %llu", pr->pct,
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

/* Without -S, periods of FINE_PERIOD_NS: enough of them for batch means in a short run. */
static void fine_periods(struct run *r, const struct slap_options *o)
{
    if (o->stat_freq_ns == 0) {
        r->period_ns = FINE_PERIOD_NS;
        r->engine.period_ns = FINE_PERIOD_NS;
    }
}

/* The report, on the report stream: everything, or with -q only the Run time line. */
static void report(FILE *out, const struct run *r, const struct slap_options *o,
                   const struct results_doc *doc, const struct limits *limits)
{
    const struct run_desc *desc = &doc->desc;
    struct report_trace trace = {&r->replay.counts, &r->trace_sent};
    struct report_confidence conf = {doc->intervals, doc->precision};
    if (o->quiet) {
        report_run_line(out, &r->global, run_seconds(r), r->signal);
    } else {
        report_final(out, desc, &r->global, run_seconds(r), r->signal,
                     o->trace != NULL ? &trace : NULL, limits,
                     server_stats_preload_evictions(
                         r->server_stats, r->server_stats != NULL ? r->servers.count : 0),
                     &conf);
        report_rounds(out, doc);
    }
}

/* --rounds: the round in which a server stopped answering for good (the drain gave up on its
 * connections) learns when, so that the report leaves it out as a stalled round. */
static void mark_stalled_round(const struct run *r, const struct slap_options *o,
                               struct results_doc *doc)
{
    struct results_period *rounds = doc->rounds.items;
    double round_s = (double)o->run_time_ns / (double)SLAP_NS_PER_SEC;
    uint64_t start = run_measure_start(r);
    for (uint32_t i = 0; i < r->servers.count && round_s > 0; i++) {
        const struct worker_stall *st = &r->stalls[i];
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

/* Everything after the run: report, verdict, files, then --push; the exit status (a failed
 * push leaves it as it is). */
static int conclude(const struct run *r, const struct slap_options *o, struct outputs *outs,
                    FILE *out, const struct precision *pr, struct live *live)
{
    struct limits limits;
    bool judged = run_limits(r, &limits) == SLAP_OK && stats_ops(&r->global) > 0;
    if (!judged) {
        limits.seconds = 0; /* nothing measured: no verdict, in the report or the document */
    }
    precision_outcome(r, o, pr, &outs->doc);
    mark_stalled_round(r, o, &outs->doc);
    report(out, r, o, &outs->doc, judged ? &limits : NULL);
    int status = verdict(r, "slap");
    if (r->replay.error[0] != '\0') {
        fprintf(stderr, "slap: --trace: %s\n", r->replay.error);
        status = SLAP_EXIT_FAILED;
    }
    status = check_max_errors(o, &r->global, status, "slap");
    if (o->hdr_out != NULL && write_hdr(o, &r->global) != SLAP_EXIT_OK) {
        status = SLAP_EXIT_FAILED;
    }
    if (r->samples_dropped > 0) {
        bool failed = outs->samples.f != NULL && ferror(outs->samples.f);
        fprintf(stderr, "slap: --samples: %llu samples were dropped %s\n",
                (unsigned long long)r->samples_dropped,
                failed ? "(the file stopped taking them)"
                       : "(the file could not keep up): use a smaller --sample_rate");
    }
    if (outputs_close_samples(outs, o) != SLAP_EXIT_OK) {
        status = SLAP_EXIT_FAILED;
    }
    if (outs->want_doc) {
        doc_from_run(&outs->doc, r, o, status, &limits); /* the limits move into the document */
        status = outputs_save(outs, o) != SLAP_EXIT_OK ? SLAP_EXIT_FAILED : status;
    }
    const struct limits *final = outs->want_doc ? &outs->doc.limits : &limits;
    live_finish(live, &r->global, run_seconds(r), judged ? final : NULL);
    limits_free(&limits);
    return status;
}

/* Where a run's periods and samples go: the -S tables, the document's periods, the file. */
struct run_outputs {
    const struct slap_options *o;
    const struct run_desc *desc; /* the run's, for the -S tables */
    FILE *out;                /* the report */
    struct results_doc *doc;  /* NULL: periods not kept */
    struct intervals *intervals; /* the periods kept for the intervals (always) */
    FILE *samples;            /* --samples, else NULL */
    struct results_doc *rounds; /* --rounds: where the rounds are kept (NULL: one round) */
    /* Without -S the engine's periods are fine (FINE_PERIOD_NS), for the intervals of a short
     * run; the document's periods are FINE_PER_PERIOD of them, summed here. */
    struct slap_stats group;
    uint32_t grouped;
    double grouped_s;
    struct precision precision; /* --precision */
    struct live *live;          /* --metrics, --push; NULL: neither */
};

/* --rounds: the round period period_no falls in (the last takes any beyond). */
static size_t round_of(const struct slap_options *o, uint64_t period_no, double period_s)
{
    double per_round = (double)o->run_time_ns / (double)SLAP_NS_PER_SEC / period_s;
    size_t round = (size_t)((double)(period_no - 1) / per_round + 1e-9);
    return round < o->rounds ? round : o->rounds - 1;
}

/* The document's period: one engine period (-S), or FINE_PER_PERIOD of them. */
static void keep_period(struct run_outputs *ro, const struct slap_stats *period,
                        uint64_t period_no, double period_s)
{
    if (ro->o->stat_freq_ns > 0) {
        results_add_period(ro->doc, period_s * (double)period_no, period_s, period);
        return;
    }
    stats_merge(&ro->group, period);
    ro->grouped++;
    ro->grouped_s += period_s;
    if (ro->grouped == FINE_PER_PERIOD) {
        results_add_period(ro->doc, period_s * (double)period_no, ro->grouped_s, &ro->group);
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
        report_period(ro->out, ro->desc, period, global, period_no, isatty(fileno(ro->out)) == 1);
    }
    precision_check(&ro->precision, ro->desc, ro->intervals, global,
                    period_s * (double)period_no);
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

/* The intervals (ctx) and the steady line read ticks of at most a tenth of a second, whatever
 * -S: a tick each, the answers after the last tick in the last. */
static void intervals_fine(void *ctx, const struct slap_stats *tick, double tick_s, bool rest)
{
    if (rest) {
        intervals_extend(ctx, tick, tick_s);
    } else {
        intervals_add_stats(ctx, tick, tick_s);
    }
}

static void sink_fine(void *ctx, const struct slap_stats *tick, double tick_s, bool rest)
{
    intervals_fine(((struct run_outputs *)ctx)->intervals, tick, tick_s, rest);
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
                              .wait = live_serves(ro->live) ? sink_wait : NULL};
}

/* --metrics and --push, when asked: listening (its address said) before the run starts. */
static enum slap_status open_live(struct live **live, const struct slap_options *o,
                                  const struct run_desc *desc)
{
    char err[512];
    struct live_setup setup = {.metrics = o->metrics,
                               .push = o->push,
                               .push_periods = o->stat_freq_ns > 0,
                               .label = o->label,
                               .desc = desc,
                               .target_tps = o->tps};
    if (live_open(live, &setup, err, sizeof(err)) != SLAP_OK) {
        fprintf(stderr, "slap: %s\n", err);
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

/* One measured run: header, run, report. Dies of the signal that interrupted it. */
static int run_once(const struct slap_options *opts)
{
    struct run run;
    struct run_plan plan;
    struct outputs outs;
    char err[512] = "";
    int status = outputs_open(&outs, opts);
    FILE *out = report_stream(opts);
    struct run_outputs ro = {.o = opts,
                             .desc = &outs.doc.desc,
                             .out = out,
                             .doc = outs.want_doc ? &outs.doc : NULL,
                             .intervals = outs.doc.intervals,
                             .samples = outs.samples.f,
                             .rounds = opts->rounds > 1 ? &outs.doc : NULL,
                             .precision = {.pct = opts->precision_pct,
                                           .width = opts->precision_width}};
    memset(&run, 0, sizeof(run));
    if (outs.samples_failed && signals_stop_pending()) {
        outputs_free(&outs); /* stopped while waiting for --samples' reader: nothing to report */
        signals_die_of(signals_take_pending());
    }
    if (status != SLAP_EXIT_OK || stats_init(&ro.group, &stats_shape_all) != SLAP_OK ||
        open_live(&ro.live, opts, &outs.doc.desc) != SLAP_OK) {
        stats_free(&ro.group);
        outputs_free(&outs);
        return status != SLAP_EXIT_OK ? status : SLAP_EXIT_FAILED;
    }
    struct run_sinks sinks = run_sinks_of(&ro);
    status = SLAP_EXIT_FAILED;
    plan_run(&plan, opts);
    if (run_init(&run, &plan, out, err, sizeof(err)) != 0 ||
        run_want(&run, &sinks, true, true, progress_wanted(opts)) != SLAP_OK) {
        fprintf(stderr, "slap: %s\n", err[0] != '\0' ? err : "out of memory");
        goto out;
    }
    fine_periods(&run, opts);
    if (!opts->quiet) {
        report_header(out, &outs.doc.desc);
    }
    if (!output_ok()) {
        goto out; /* nowhere to put the report: do not load the servers for nothing */
    }
    if (run_execute(&run, err, sizeof(err)) != 0 && run.signal == 0) {
        fprintf(stderr, "slap: %s\n", err);
        goto out;
    }
    if (run.signal == 0) {
        run.signal = signals_take_pending(); /* after the run: the report says so too */
    }
    status = conclude(&run, opts, &outs, out, &ro.precision, ro.live);
    if (!output_ok()) {
        status = SLAP_EXIT_FAILED;
    }
    if (run.signal == 0) {
        run.signal = signals_take_pending(); /* while writing the outputs: they gave up */
    }
    if (run.signal != 0) {
        run_free(&run);
        stats_free(&ro.group);
        outputs_free(&outs);
        live_close(ro.live);
        signals_die_of(run.signal);
    }
out:
    run_free(&run);
    stats_free(&ro.group);
    outputs_free(&outs);
    live_close(ro.live);
    return status;
}

/* A sweep's document: the steps, the first step's server stats before and the last's after. */
struct sweep_doc {
    struct outputs outs;
    struct server_stats_pair *pairs;
    uint64_t start_wall_ns;
    double seconds;
};

/* The step into the document, its intervals and what limited it (when judged) handed over. */
static void sweep_keep(struct sweep_doc *sd, const struct run *r, const struct report_step *row,
                       bool first, struct intervals **iv, struct limits *limits)
{
    if (!sd->outs.want_doc) {
        return;
    }
    if (results_add_step(&sd->outs.doc, row->target, row->seconds, &r->global) == SLAP_OK) {
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
    stats_merge(sd->outs.doc.global, &r->global);
    sd->seconds += row->seconds;
    if (first) {
        sd->start_wall_ns = r->start_wall_ns + r->engine.warmup_ns;
        sd->pairs = r->server_stats == NULL ? NULL : calloc(r->servers.count, sizeof(*sd->pairs));
    }
    for (uint32_t i = 0; sd->pairs != NULL && i < r->servers.count; i++) {
        const struct server_stats_pair *p = &r->server_stats[i];
        if (first || !p->ok) {
            sd->pairs[i] = *p;
        } else if (sd->pairs[i].ok) {
            sd->pairs[i].after = p->after;
        }
    }
}

/* The sweep's files, once every step ran (or one failed); r is the last step's run. */
static int sweep_save(struct sweep_doc *sd, const struct slap_options *opts, const struct run *r,
                      int status)
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
    d->signal = r->signal;
    doc_servers(d, r, sd->pairs);
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
static enum slap_status sweep_step(struct run *run, struct slap_options *step,
                                   const struct slap_options *opts, double rate, bool first,
                                   FILE *out, struct intervals *iv, char *err, size_t err_len)
{
    struct run_sinks sinks = {.ctx = iv, .fine = intervals_fine};
    struct run_plan plan;
    plan_step(&plan, step, opts, rate, opts->step_time_ns, 0, first);
    memset(run, 0, sizeof(*run));
    if (run_init(run, &plan, out, err, err_len) != SLAP_OK ||
        run_want(run, &sinks, true, true, false) != SLAP_OK) {
        return SLAP_ERROR;
    }
    fine_periods(run, step);
    return run_execute(run, err, err_len);
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
static int sweep_row(struct sweep_doc *sd, const struct run *r, const struct slap_options *opts,
                     double rate, bool first, bool *columns, int status, struct intervals **iv)
{
    FILE *out = r->out;
    struct limits limits = {.seconds = 0};
    struct report_step row = {
        .target = rate, .stats = &r->global, .seconds = run_seconds(r), .intervals = *iv};
    row.limited_by = run_limits(r, &limits) == SLAP_OK ? limits_verdict_name(limits.verdict) : "";
    /* a signal cut it short; one after its measured part (in the drain) left it whole */
    row.interrupted =
        r->signal != 0 && row.seconds * (double)SLAP_NS_PER_SEC + 1e6 < (double)opts->step_time_ns;
    if (!opts->quiet) {
        if (!*columns) {
            report_sweep_columns(out, &sd->outs.doc.desc);
            *columns = true;
        }
        report_sweep_row(out, &sd->outs.doc.desc, &row);
    }
    sweep_keep(sd, r, &row, first, iv, &limits);
    limits_free(&limits);
    char who[64];
    step_who(who, sizeof(who), rate);
    bool errors_fail = check_max_errors(opts, &r->global, verdict(r, who), who) != SLAP_EXIT_OK;
    return errors_fail ? SLAP_EXIT_FAILED : status;
}

/* --sweep: one open-loop run per rate, one table row each; a signal ends it with its report. */
static int run_sweep(const struct slap_options *opts)
{
    struct sweep_doc sd = {.pairs = NULL};
    int status = outputs_open(&sd.outs, opts);
    FILE *out = report_stream(opts);
    bool columns = false;
    if (status != SLAP_EXIT_OK) {
        sweep_free(&sd);
        return status;
    }
    if (!opts->quiet) {
        report_sweep_header(out, &sd.outs.doc.desc);
    }
    for (double rate = opts->sweep_start; rate <= opts->sweep_end + 0.5;
         rate += opts->sweep_step) {
        struct slap_options step;
        struct run run;
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
        int sig = run.signal;
        if (st == SLAP_OK && (sig == 0 || run_seconds(&run) > 0)) {
            status = sweep_row(&sd, &run, &step, rate, first, &columns, status, &iv);
        } else if (st == SLAP_OK) {
            char who[64];
            step_who(who, sizeof(who), rate);
            verdict(&run, who); /* interrupted before the step's measured part: it says so */
        } else if (sig == 0) {
            fprintf(stderr, "slap: %s\n", err[0] != '\0' ? err : "out of memory");
            status = SLAP_EXIT_FAILED;
        }
        bool last = st != SLAP_OK || sig != 0 || rate + opts->sweep_step > opts->sweep_end + 0.5;
        if (last && !opts->quiet) {
            report_preload_evictions(out, server_stats_preload_evictions(
                                              sd.pairs, sd.pairs != NULL ? run.servers.count : 0));
        }
        report_interrupted(out, sig);
        if (last) {
            status = sweep_save(&sd, opts, &run, status);
            sig = sig != 0 ? sig : signals_take_pending(); /* while writing the files */
        }
        if (iv != NULL) {
            intervals_free(iv);
            free(iv);
        }
        run_free(&run);
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

/* Seconds between two clock readings (0 when they are out of order). */
static double seconds_between(uint64_t from_ns, uint64_t to_ns)
{
    return to_ns > from_ns ? (double)(to_ns - from_ns) / (double)SLAP_NS_PER_SEC : 0.0;
}

/* Where a memslap run's time went: planning, flush, load, connecting, the test, all of it. */
static void memslap_timing(const struct run *run, uint64_t begin_ns, uint64_t planned_ns,
                           struct memslap_times *t)
{
    uint64_t load_ns;
    run_preload(run, &t->loaded, &load_ns);
    t->servers = run->servers.count;
    t->flush = seconds_between(0, run->flush_ns);
    t->generate = seconds_between(begin_ns, planned_ns) - t->flush;
    t->load = seconds_between(0, load_ns);
    t->start = seconds_between(planned_ns, run->gate.start_ns) - t->load;
    t->start = t->start > 0 ? t->start : 0;
    t->test = run_seconds(run);
    t->total =
        seconds_between(begin_ns, run->end_ns > run->gate.start_ns ? run->end_ns : slap_now_ns());
}

/* memslap's face: one run over the same engine, memslap's report, slap's verdict. */
static int run_memslap(const struct slap_options *opts, const struct memslap_args *args)
{
    struct run run;
    struct run_plan plan;
    struct memslap_times times;
    char err[512] = "";
    int status = SLAP_EXIT_FAILED;
    uint64_t begin_ns = slap_now_ns();

    plan_run(&plan, opts);
    if (run_init(&run, &plan, stdout, err, sizeof(err)) != 0) {
        fprintf(stderr, "slap: %s\n", err);
        goto out;
    }
    run.silent_preload = true;
    uint64_t planned_ns = slap_now_ns();
    if (run_execute(&run, err, sizeof(err)) != 0 && run.signal == 0) {
        fprintf(stderr, "slap: %s\n", err);
        goto out;
    }
    memslap_timing(&run, begin_ns, planned_ns, &times);
    if (!args->quiet) {
        memslap_report(stdout, args, &times, &run.global);
    }
    status = verdict(&run, "slap");
    if (!output_ok()) {
        status = SLAP_EXIT_FAILED;
    }
    if (run.signal != 0) {
        run_free(&run);
        signals_die_of(run.signal);
    }
out:
    run_free(&run);
    return status;
}

/* slap memslap ARGS, or slap run as memslap or memcslap: memslap's options and report. */
/* The exit status of a command line that asked for no run: --help or --version (0, or 1 when
 * standard output failed), or a usage error (2). */
static int parse_exit(enum options_outcome outcome)
{
    if (outcome == OPTIONS_USAGE) {
        return SLAP_EXIT_USAGE;
    }
    return output_ok() ? SLAP_EXIT_OK : SLAP_EXIT_FAILED;
}

static int memslap_main(int argc, char **argv, int first)
{
    struct slap_options opts;
    struct memslap_args args;
    const char *base = strrchr(argv[0], '/');
    const char *program = first > 0 ? "slap memslap" : (base != NULL ? base + 1 : argv[0]);
    enum options_outcome outcome =
        memslap_parse(&args, &opts, program, argc - first, argv + first, stdout, stderr);
    if (outcome != OPTIONS_RUN) {
        return parse_exit(outcome);
    }
    signals_block();
    return run_memslap(&opts, &args);
}

/*
 * Standard streams that are closed would be taken by the first sockets opened, and the
 * report written into a server: stdin and stderr get /dev/null; a closed stdout is refused.
 */
static bool standard_streams(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) {
            continue;
        }
        if (fd == STDOUT_FILENO) {
            fprintf(stderr, "slap: standard output is closed: the report would be lost\n");
            return false;
        }
        int null = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
        if (null >= 0 && null != fd) {
            dup2(null, fd);
            close(null);
        }
    }
    return true;
}

int main(int argc, char **argv)
{
    struct slap_options opts;

    int memslap_first;

    if (!standard_streams()) {
        return SLAP_EXIT_FAILED;
    }
    if (memslap_invoked(argc, argv, &memslap_first)) {
        return memslap_main(argc, argv, memslap_first);
    }
    if (argc > 1 && subcommand_find(argv[1]) != NULL) {
        return subcommand_find(argv[1])(argc - 1, argv + 1);
    }
    enum options_outcome outcome = options_parse(&opts, argc, argv, stdout, stderr);
    if (outcome != OPTIONS_RUN) {
        return parse_exit(outcome);
    }
    signals_block();
    return opts.sweep_step > 0 ? run_sweep(&opts) : run_once(&opts);
}
