/* memslap's face run: one run over the same engine, memslap's report and timings, slap's
 * verdict. */
#include "slap/run/memslap_run.h"

#include <stdio.h>
#include <string.h>

#include "slap/base/quote.h"
#include "slap/engine/run.h"
#include "slap/options/memslap.h"
#include "slap/options/plan.h"
#include "slap/run/exit_status.h"
#include "slap/run/outputs.h"
#include "slap/run/signals.h"

/* Seconds between two clock readings (0 when they are out of order). */
static double seconds_between(uint64_t from_ns, uint64_t to_ns)
{
    return to_ns > from_ns ? (double)(to_ns - from_ns) / (double)SLAP_NS_PER_SEC : 0.0;
}

/* Where a memslap run's time went: planning, flush, load, connecting, the test, all of it. */
static void memslap_timing(const struct run *run, const struct run_result *res, uint64_t begin_ns,
                           uint64_t planned_ns, struct memslap_times *t)
{
    uint64_t load_ns;
    run_preload(run, &t->loaded, &load_ns);
    t->servers = res->nservers;
    t->flush = seconds_between(0, res->flush_ns);
    t->generate = seconds_between(begin_ns, planned_ns) - t->flush;
    t->load = seconds_between(0, load_ns);
    t->start = seconds_between(planned_ns, res->start_ns) - t->load;
    t->start = t->start > 0 ? t->start : 0;
    t->test = run_seconds(run);
    t->total = seconds_between(begin_ns, res->end_ns > res->start_ns ? res->end_ns : slap_now_ns());
}

/* memslap's face: one run over the same engine, memslap's report, slap's verdict. */
static int run_memslap(const struct slap_options *opts, const struct memslap_args *args)
{
    struct run *run = NULL;
    struct run_result res;
    struct run_plan plan;
    struct memslap_times times;
    char err[512] = "";
    int status = SLAP_EXIT_FAILED;
    uint64_t begin_ns = slap_now_ns();

    plan_run(&plan, opts, PLAN_PERIODS_ASKED);
    plan.silent_preload = true; /* memslap's report times the load itself */
    struct run_sinks sinks = {.events = outputs_events(stdout)};
    if (run_init(&run, &plan, stdout, err, sizeof(err)) != 0 ||
        run_want(run, &sinks, false, false, false) != SLAP_OK) {
        quote_line(stderr, "slap: ", err);
        goto out;
    }
    uint64_t planned_ns = slap_now_ns();
    enum slap_status st = run_execute(run, err, sizeof(err));
    run_result(run, &res);
    if (st != SLAP_OK && res.signal == 0) {
        quote_line(stderr, "slap: ", err);
        goto out;
    }
    memslap_timing(run, &res, begin_ns, planned_ns, &times);
    bool reported = args->quiet || memslap_report(stdout, args, &times, res.global) == SLAP_OK;
    status = exit_verdict(run, opts, res.signal, "slap");
    if (!reported) {
        fprintf(stderr, "slap: out of memory: the report could not be written\n");
    }
    if (!reported || !exit_output_ok()) {
        status = SLAP_EXIT_FAILED;
    }
    if (res.signal != 0) {
        run_free(run);
        signals_die_of(res.signal);
    }
out:
    run_free(run);
    return status;
}

/* slap memslap ARGS, or slap run as memslap or memcslap: memslap's options and report. */
int memslap_main(int argc, char **argv, int first)
{
    struct slap_options opts;
    struct memslap_args args;
    const char *base = strrchr(argv[0], '/');
    const char *program = first > 0 ? "slap memslap" : (base != NULL ? base + 1 : argv[0]);
    enum options_outcome outcome =
        memslap_parse(&args, &opts, program, argc - first, argv + first, stdout, stderr);
    if (outcome != OPTIONS_RUN) {
        return exit_no_run(outcome);
    }
    signals_block();
    return run_memslap(&opts, &args);
}
