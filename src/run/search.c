/*
 * slap search --slo 'p99<1ms': open-loop steps at rates chosen as it goes (slo.c: a ramp,
 * then bisection), each judged by the 95% interval of the objective's percentile from the
 * step's own periods; the highest rate held is the capacity. The steps are a sweep's: each
 * a timed open-loop run, kept as the JSON's steps and drawn as the SVG's curve.
 */
#include "slap/run/search.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/quote.h"
#include "slap/base/units.h"
#include "slap/engine/run.h"
#include "slap/options/options.h"
#include "slap/options/plan.h"
#include "slap/options/plan_output.h"
#include "slap/options/subargs.h"
#include "slap/output/limits_words.h"
#include "slap/output/report.h"
#include "slap/output/report_search.h"
#include "slap/output/results.h"
#include "slap/output/sinks.h"
#include "slap/run/outputs.h"
#include "slap/run/signals.h"
#include "slap/run/slo.h"
#include "slap/store/store.h"

#define DEFAULT_START 1000.0
#define DEFAULT_MAX_RATE 10e6
#define DEFAULT_MAX_STEPS 12
#define DEFAULT_STEP_NS (5 * SLAP_NS_PER_SEC)
#define LENGTHEN 4          /* an undecided step goes on up to this many times its length */
#define PERIODS_PER_STEP 20 /* the interval's batches come from periods this long */
#define PERIOD_MIN_NS (20 * SLAP_NS_PER_MS)
#define RESOLUTION 0.05 /* bisection stops within 5% */
/* the lowest rate a search tries; --start and --max_rate below it
 * are refused */
#define MIN_RATE 10.0
#define STEP_MIN_NS (PERIODS_PER_STEP * PERIOD_MIN_NS) /* the shortest --step_time: 400 ms */
/* the capacity measured again at most this often before the search
 * says its answer is not stable */
#define CONFIRM_ROUNDS 3
#define CONFIRM_EXTRA 4 /* steps a search may take again after a confirmation overturned it */

/* What search's own options say; the rest is slap's. */
struct search_args {
    struct objective slo[SLO_MAX];
    size_t nslo;
    double start, max_rate;
    unsigned max_steps;
    uint64_t step_ns;
    enum arrival arrival; /* --arrival, which slap's options take only with -P or --sweep */
};

/* The periods of one rate (every run at it), each all types together. */
struct search_periods {
    struct hist **items;
    size_t n, cap;
};

/* What one rate showed, over every run at it. */
struct rate_result {
    double target, achieved;
    struct ci_result ci[SLO_MAX];
    enum slo_verdict verdict;
    enum limits_verdict limit;
    bool judged;    /* limit is known */
    bool slap_busy; /* slap's threads near saturation or waiting for a CPU */
    bool slap_late; /* the P99 tail mostly slap late to send (limits' slap_tail_share) */
    uint64_t late_p99_ns, held_p99_ns; /* the P99 of each latency part over the rate's runs */
    char limited_by[LIMITS_VERDICT_WORD_MAX];
    char why[LIMITS_WHY_MAX];
};

/* The search under way: options, outputs, the rate being measured. */
struct search {
    struct slap_options opts;
    struct search_args args;
    FILE *out;
    struct results_doc doc;
    bool want_doc;
    struct search_periods periods;
    struct slap_stats *acc;          /* the rate's requests over all its runs */
    double seconds;                  /* measured at the rate */
    struct server_stats_pair *pairs; /* the first run's before, the last's after */
    char (*names)[SERVER_NAME_MAX];  /* the servers' */
    uint32_t nservers;
    uint64_t start_wall_ns;
    double total_seconds;
    bool begun;     /* a run measured something */
    char **rest;    /* slap's own options, as options_parse read them */
    double ceiling; /* the lowest rate where slap was starved twice, above one held; 0: none */
    char client_why[LIMITS_WHY_MAX + 32];
    struct limits limits;    /* the rate's last run's, for its step in the document (owned) */
    struct rate_result step; /* the step being measured (search_narrow's, then confirm's) */
    struct rate_result best; /* the capacity's latest measurement, for its interval */
};

static int search_usage(const char *problem)
{
    const struct subargs_spec spec = {.name = "search"};
    return subargs_usage(&spec, problem, NULL);
}

/* A rate ("2500", "10k") into *rate; false when it is not one. */
static bool parse_rate(const char *text, double *rate)
{
    uint64_t v;
    if (units_parse_size(text, strlen(text), 1000, &v) != UNITS_OK || v == 0) {
        return false;
    }
    *rate = (double)v;
    return true;
}

/* ---- search's own options: each row's take ------------------------------------------- */

static int take_slo(void *args, const char *v)
{
    struct search_args *a = args;
    char err[256];
    if (a->nslo > 0) {
        return search_usage("--slo is given once, every objective in it, as "
                            "--slo 'p99<1ms,p50<200us'");
    }
    return objective_parse(v, a->slo, &a->nslo, err, sizeof(err)) ? SLAP_EXIT_OK
                                                                  : search_usage(err);
}

static int take_step_time(void *args, const char *v)
{
    struct search_args *a = args;
    bool ok = units_parse_duration(v, strlen(v), &a->step_ns) == UNITS_OK && a->step_ns > 0;
    return !ok ? search_usage("--step_time needs a duration, as 1s or 500ms")
           : a->step_ns < STEP_MIN_NS
               ? search_usage("--step_time is at least 400ms: a step's interval reads 20 "
                              "periods of 20 ms or more, and slap's CPU shares a shorter "
                              "step cannot measure")
               : SLAP_EXIT_OK;
}

static int take_start(void *args, const char *v)
{
    struct search_args *a = args;
    return !parse_rate(v, &a->start) ? search_usage("--start needs a rate, as 1000 or 5k")
           : a->start < MIN_RATE     ? search_usage("--start is at least 10 ops/s")
                                     : SLAP_EXIT_OK;
}

static int take_max_rate(void *args, const char *v)
{
    struct search_args *a = args;
    return !parse_rate(v, &a->max_rate) ? search_usage("--max_rate needs a rate, as 100k")
           : a->max_rate < MIN_RATE     ? search_usage("--max_rate is at least 10 ops/s")
                                        : SLAP_EXIT_OK;
}

/* A search's arrivals are uniform or poisson by their names (arrival_laws' rows). */
static int take_arrival(void *args, const char *v)
{
    struct search_args *a = args;
    const enum arrival taken[] = {ARRIVAL_UNIFORM, ARRIVAL_POISSON};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(taken); i++) {
        if (strcmp(v, arrival_name(taken[i])) == 0) {
            a->arrival = taken[i];
            return SLAP_EXIT_OK;
        }
    }
    a->arrival = ARRIVAL_UNIFORM;
    char problem[64];
    snprintf(problem, sizeof(problem), "--arrival is %s or %s", arrival_name(taken[0]),
             arrival_name(taken[1]));
    return search_usage(problem);
}

static int take_max_steps(void *args, const char *v)
{
    struct search_args *a = args;
    char *end;
    long n = strtol(v, &end, 10);
    a->max_steps = (unsigned)n;
    return *end == '\0' && n >= 1 && n <= 100 ? SLAP_EXIT_OK
                                              : search_usage("--max_steps needs 1 to 100");
}

static const struct subarg search_rows[] = {
    {.name = "--slo",
     .value = "OBJECTIVE",
     .kind = SUBARG_CALL,
     .take = take_slo,
     .help = "'p99<1ms'; several comma-separated, 'p50<200us,p99.9<5ms'\n"
             "(given once, every objective in it)\n"
             "(any percentile, a limit in us, ms or s)"},
    {.name = "--step_time",
     .value = "DURATION",
     .kind = SUBARG_CALL,
     .take = take_step_time,
     .help = "length of each step (default 5s, at least 400ms)"},
    {.name = "--start",
     .value = "RATE",
     .kind = SUBARG_CALL,
     .take = take_start,
     .help = "the first rate, ops/s (default 1000, at least 10; 10k allowed)"},
    {.name = "--max_rate",
     .value = "RATE",
     .kind = SUBARG_CALL,
     .take = take_max_rate,
     .help = "never beyond this rate (default 10M, at least 10)"},
    {.name = "--max_steps",
     .value = "N",
     .kind = SUBARG_CALL,
     .take = take_max_steps,
     .help = "at most N steps (default 12)"},
    {.name = "--arrival",
     .value = "KIND",
     .kind = SUBARG_CALL,
     .take = take_arrival,
     .help = "uniform or poisson: how a step spaces its requests (default uniform)"},
};

static const struct subargs_spec search_spec = {
    .name = "search",
    .intro =
        "Usage: slap search --slo OBJECTIVE [SEARCH OPTIONS] [SLAP OPTIONS]\n"
        "The highest open-loop rate at which a latency objective holds with 95% confidence.\n"
        "Each step is an open-loop run at one rate; the percentile's 95% interval, from the\n"
        "step's periods, decides: held when its upper bound is below the limit, broken when\n"
        "its lower bound is above it (or the rate was not achieved). An undecided step runs\n"
        "on, up to 4 times --step_time. The rates double from --start until one breaks, then\n"
        "bisection narrows to 5%. The capacity found is measured again, with the rate broken\n"
        "above it: the same verdicts confirm it; a changed one sends the search on (at most 3\n"
        "times, then no capacity is confirmed). A step where slap itself held the load back\n"
        "(limited_by client or both: its threads busy or waiting for a CPU, or, the objective\n"
        "not held, its P99 tail mostly slap late to send) is 'starved': not the server's\n"
        "answer; measured once more, starved again, its rate is slap's ceiling: the search\n"
        "narrows below it, and the capacity is at least the rate held there.\n"
        "\n",
    .outro = "\n"
             "The server, thread and client options are slap's (-s, -T, -c, ...; see\n"
             "slap --help); --json, --csv, --svg and --hlog write the steps as a\n"
             "--sweep's.\n"
             "Example:\n"
             "  slap search --slo 'p99<1ms' -s 127.0.0.1:11211 -T 2 -c 32 --step_time 2s\n",
    .rows = search_rows,
    .count = SLAP_ARRAY_SIZE(search_rows),
    .slap_options = true,
};

size_t search_docs(struct optdoc *out, size_t max)
{
    return subargs_docs(&search_spec, out, max);
}

/* What slap's options may not say in a search: the rate, the length, per-period tables. */
static int check_slap_options(const struct slap_options *o)
{
    if (o->tps > 0 || o->sweep_step > 0 || o->ramp.duration_ns > 0) {
        return search_usage("the search chooses the rates: --tps, --sweep and --ramp cannot be "
                            "given (--start sets the first rate)");
    }
    if (o->execute_number > 0 || o->stat_freq_ns > 0 || o->hdr_out != NULL ||
        o->samples_out != NULL || o->trace != NULL) {
        return search_usage("-x, -S, --hdr-out, --samples and --trace cannot be used with a "
                            "search (a step is a timed open-loop run)");
    }
    if (o->cfg_groups) { /* it searched 127.0.0.1:11211's default load instead */
        return search_usage("-F with groups cannot be searched: a search steps one workload "
                            "(give a group's options to slap search)");
    }
    if (o->rounds > 1) {
        return search_usage("--rounds cannot be used with a search: each step is one run of "
                            "--step_time, and the capacity found is measured again to confirm "
                            "it");
    }
    if (o->metrics != NULL || o->push != NULL || o->control != NULL) {
        return search_usage("--metrics, --push and --control are for one run: they cannot be "
                            "used with a search");
    }
    return SLAP_EXIT_OK;
}

/* The command line: search's options taken out, the rest parsed as slap's into s->opts; -1
 * after the help. */
static int parse(int argc, char **argv, struct search *s)
{
    char **rest = s->rest = calloc((size_t)argc + 1, sizeof(*rest));
    int nrest = 0;
    bool run;
    struct search_args *a = &s->args;
    *a = (struct search_args){.start = DEFAULT_START,
                              .max_rate = DEFAULT_MAX_RATE,
                              .max_steps = DEFAULT_MAX_STEPS,
                              .step_ns = DEFAULT_STEP_NS,
                              .arrival = ARRIVAL_UNIFORM};
    if (rest == NULL) {
        return SLAP_EXIT_FAILED;
    }
    rest[0] = "slap";
    int status = subargs_parse(&search_spec, argc, argv, a, rest + 1, &nrest, &run);
    nrest++;
    if (!run) {
        return status == SLAP_EXIT_OK ? -1 : status;
    }
    if (status == SLAP_EXIT_OK && a->nslo == 0) {
        status = search_usage("--slo names the objective, as --slo 'p99<1ms'");
    }
    if (status == SLAP_EXIT_OK && a->start > a->max_rate) {
        status = search_usage("--start is above --max_rate");
    }
    if (status == SLAP_EXIT_OK) {
        /* every step an open loop: --priority=realtime is fine */
        enum options_outcome o = options_parse_open_steps(&s->opts, nrest, rest, stdout, stderr);
        status = o == OPTIONS_RUN    ? check_slap_options(&s->opts)
                 : o == OPTIONS_EXIT ? -1
                                     : SLAP_EXIT_USAGE;
    }
    s->opts.step_time_ns = a->step_ns;
    s->opts.arrival = a->arrival;
    return status;
}

/* ---- one rate: its runs, their periods ------------------------------------------------ */

static void periods_clear(struct search_periods *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->items[i]);
    }
    p->n = 0;
}

static void periods_add(struct search_periods *p, const struct slap_stats *period)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        struct hist **items = realloc(p->items, cap * sizeof(*items));
        if (items == NULL) {
            return; /* out of memory: the interval is read from the periods kept */
        }
        p->items = items;
        p->cap = cap;
    }
    struct hist *h = malloc(sizeof(*h));
    if (h != NULL) {
        stats_total_hist(period, h);
        p->items[p->n++] = h;
    }
}

static void sink_period(void *ctx, const struct slap_stats *period, const struct slap_stats *global,
                        uint64_t period_no, double period_s)
{
    (void)global;
    (void)period_no;
    (void)period_s;
    periods_add(ctx, period);
}

/* The answers after the last period: a short period of their own. */
static void sink_rest(void *ctx, const struct slap_stats *rest, double elapsed_s)
{
    (void)elapsed_s;
    if (stats_ops(rest) > 0) {
        periods_add(ctx, rest);
    }
}

/* One timed open-loop run at rate; only the search's first flushes (--flush) and preloads. */
static enum slap_status run_at(struct search *s, struct run **run, double rate, char *err,
                               size_t err_len)
{
    struct slap_options step;
    struct run_plan plan;
    struct run_sinks sinks = {.ctx = &s->periods,
                              .period = sink_period,
                              .rest = sink_rest,
                              .events = outputs_events(s->out)};
    bool first = !s->begun;
    uint64_t period = s->args.step_ns / PERIODS_PER_STEP;
    plan_step(&plan, &step, &s->opts, rate, s->args.step_ns,
              period > PERIOD_MIN_NS ? period : PERIOD_MIN_NS, first);
    if (run_init(run, &plan, s->out, err, err_len) != SLAP_OK ||
        run_want(*run, &sinks, false, true, false) != SLAP_OK) {
        return SLAP_ERROR;
    }
    return run_execute(*run, err, err_len);
}

/* The servers' stats around the whole search: the first run's before, the last's after. */
static void keep_server_stats(struct search *s, const struct run_result *res)
{
    bool first = !s->begun;
    if (first) {
        s->start_wall_ns = res->measure_wall_ns;
        s->pairs = res->server_stats == NULL ? NULL : calloc(res->nservers, sizeof(*s->pairs));
        s->names = calloc(res->nservers, sizeof(*s->names));
        s->nservers = s->names != NULL ? res->nservers : 0;
        for (uint32_t i = 0; i < s->nservers; i++) {
            snprintf(s->names[i], sizeof(s->names[i]), "%s", res->servers[i].name);
        }
    }
    for (uint32_t i = 0; s->pairs != NULL && i < res->nservers; i++) {
        const struct server_stats_pair *p = &res->server_stats[i];
        if (first || !p->ok) {
            s->pairs[i] = *p;
        } else if (s->pairs[i].ok) {
            s->pairs[i].after = p->after;
        }
    }
}

/* The objectives against the rate's periods: held only when every one holds. */
static void judge_rate(struct search *s, struct rate_result *res)
{
    bool undecided = false, broken = false;
    for (size_t i = 0; i < s->args.nslo; i++) {
        ci_percentile((const struct hist *const *)s->periods.items, s->periods.n,
                      s->args.slo[i].pct, 0.95, &res->ci[i]);
        enum slo_verdict v = slo_judge(&res->ci[i], s->args.slo[i].limit_ns);
        broken = broken || v == SLO_BROKEN;
        undecided = undecided || v == SLO_UNDECIDED;
    }
    /* a rate the server could not take is broken whatever its latency: more than 5% short,
     * and more than poisson arrivals' chance (3 deviations) would leave it */
    double due = res->target * s->seconds, short_by = due - res->achieved * s->seconds;
    broken = broken || short_by > fmax((1 - LIMITS_RATE_MET) * due, 3 * sqrt(due));
    res->verdict = broken ? SLO_BROKEN : undecided ? SLO_UNDECIDED : SLO_HELD;
}

/* The P99 of each latency part (slap late to send, held by the server) of acc into res; 0
 * when memory runs out (the row then shows 0, the step is still judged). */
static void parts_p99(const struct slap_stats *acc, struct rate_result *res)
{
    struct hist *h = NULL;
    res->late_p99_ns = res->held_p99_ns = 0;
    if (hist_slab_alloc(&h, 1) != SLAP_OK) {
        return;
    }
    stats_total_of(acc->late, h);
    res->late_p99_ns = hist_percentile_ns(h, 99.0);
    stats_total_of(acc->held, h);
    res->held_p99_ns = hist_percentile_ns(h, 99.0);
    hist_slab_free(h, 1);
}

/* One run at the rate, added to what the rate showed; SLAP_EXIT_FAILED when nothing was measured,
 * or the signal's number (negative) when one interrupted it. */
static int measure_once(struct search *s, struct rate_result *res)
{
    struct run *run = NULL;
    struct run_result rr;
    char err[512] = "";
    enum slap_status st = run_at(s, &run, res->target, err, sizeof(err));
    int status = SLAP_EXIT_OK;
    run_result(run, &rr);
    if (rr.signal != 0) {
        status = -rr.signal;
    } else if (st != SLAP_OK) {
        quote_line(stderr, "slap search: ", err[0] != '\0' ? err : "out of memory");
        status = SLAP_EXIT_FAILED;
    } else if (stats_ops(rr.global) == 0) {
        fprintf(stderr, "slap search: no request succeeded at %.0f ops/s\n", res->target);
        status = SLAP_EXIT_FAILED;
    }
    if (status == SLAP_EXIT_OK) {
        struct limits limits = {.seconds = 0};
        keep_server_stats(s, &rr);
        s->begun = true;
        stats_merge(s->acc, rr.global);
        parts_p99(s->acc, res);
        s->seconds += run_seconds(run);
        res->achieved = s->seconds > 0 ? (double)stats_requests(s->acc) / s->seconds : 0;
        res->judged = run_limits(run, &limits) == SLAP_OK;
        res->limit = res->judged ? limits.verdict : LIMITS_UNKNOWN;
        res->slap_busy = limits_slap_short(&limits);
        res->slap_late = res->judged && limits.slap_tail_share >= LIMITS_SLAP_TAIL;
        snprintf(res->limited_by, sizeof(res->limited_by), "%s",
                 res->judged ? limits_verdict_name(limits.verdict) : "");
        res->why[0] = '\0';
        if (res->judged) {
            limits_say(&limits, res->why, sizeof(res->why));
        }
        limits_free(&s->limits);
        s->limits = limits; /* keep_step hands it to the step */
    }
    run_free(run);
    return status;
}

/*
 * slap itself held this step back: its verdict is client or both, and its threads were near
 * saturation or waiting for a CPU, or the step's P99 tail was mostly slap late to send (a late
 * wake-up on a crowded run queue, a hypervisor's steal, a stopped process: no CPU-wait share
 * shows those) and the objective did not hold. What the step measured is then slap's own
 * delay as much as the server's, so it is never taken as the server's answer. (A step that
 * held despite slap's lateness held: the server did at least that well. Sends late because
 * the server held their sockets are the server's: the step is the server's.)
 */
static bool starved(const struct rate_result *res)
{
    return res->judged && (res->limit == LIMITS_CLIENT || res->limit == LIMITS_BOTH) &&
           (res->slap_busy || (res->slap_late && res->verdict != SLO_HELD));
}

/* Every run at one rate: lengthened while undecided, up to LENGTHEN times a step. */
static int measure_rate(struct search *s, double rate, struct rate_result *res)
{
    memset(res, 0, sizeof(*res));
    res->target = rate;
    periods_clear(&s->periods);
    stats_reset(s->acc);
    s->seconds = 0;
    for (unsigned k = 0; k < LENGTHEN; k++) {
        int status = measure_once(s, res);
        if (status != SLAP_EXIT_OK) {
            return status;
        }
        judge_rate(s, res);
        if (res->verdict != SLO_UNDECIDED || starved(res)) {
            break;
        }
    }
    return SLAP_EXIT_OK;
}

/* ---- the search ----------------------------------------------------------------------- */

/* The Objective column: held, broken, undecided, or starved (slap short of CPU: not the
 * server's answer). */
static const char *verdict_word(const struct rate_result *res)
{
    if (starved(res)) {
        return "starved";
    }
    return res->verdict == SLO_HELD ? "held" : res->verdict == SLO_BROKEN ? "broken" : "undecided";
}

/* The objectives for the output layer, pointing into a. */
struct objectives_view {
    double pct[SLO_MAX];
    uint64_t limit_ns[SLO_MAX];
    char text[SLO_MAX * 34];
    struct search_objectives view;
};

static void objectives_of(const struct search_args *a, struct objectives_view *o)
{
    o->text[0] = '\0';
    for (size_t i = 0; i < a->nslo; i++) {
        o->pct[i] = a->slo[i].pct;
        o->limit_ns[i] = a->slo[i].limit_ns;
        snprintf(o->text + strlen(o->text), sizeof(o->text) - strlen(o->text), "%s%s",
                 i > 0 ? "," : "", a->slo[i].text);
    }
    o->view = (struct search_objectives){a->nslo, o->pct, o->limit_ns, o->text};
}

/* The rate's step into the document, as a sweep keeps its steps. */
static void keep_step(struct search *s, const struct rate_result *res)
{
    if (!s->want_doc || results_add_step(&s->doc, res->target, s->seconds, s->acc) != SLAP_OK) {
        return;
    }
    struct results_step *kept = &((struct results_step *)s->doc.steps.items)[s->doc.steps.n - 1];
    snprintf(kept->limited_by, sizeof(kept->limited_by), "%s", res->limited_by);
    snprintf(kept->slo, sizeof(kept->slo), "%s", verdict_word(res));
    kept->has_limits = res->judged;
    if (res->judged) {
        kept->limits = s->limits;
        memset(&s->limits, 0, sizeof(s->limits));
    }
    stats_merge(s->doc.global, s->acc);
    s->total_seconds += s->seconds;
}

static int by_target(const void *a, const void *b)
{
    double x = ((const struct results_step *)a)->target_tps;
    double y = ((const struct results_step *)b)->target_tps;
    return (x > y) - (x < y);
}

/* The document's config: a sweep from the lowest rate tried to the highest (its steps say
 * which rates), so that slap merge and slap plot read it back as one. */
static void describe_as_sweep(struct search *s)
{
    const struct results_step *steps = s->doc.steps.items;
    struct run_desc desc;
    if (s->doc.steps.n == 0) {
        return;
    }
    s->opts.sweep_start = steps[0].target_tps;
    s->opts.sweep_end = steps[s->doc.steps.n - 1].target_tps;
    s->opts.sweep_step =
        s->opts.sweep_end > s->opts.sweep_start ? s->opts.sweep_end - s->opts.sweep_start : 1;
    if (plan_output_describe(&desc, &s->opts) == SLAP_OK) {
        run_desc_free(&s->doc.desc);
        s->doc.desc = desc;
    }
}

/* --json, --csv, --svg: the steps by rate, as a sweep's document. */
static int save_doc(struct search *s, int status)
{
    struct results_doc *d = &s->doc;
    const char *paths[RESULTS_SINKS];
    if (!s->want_doc) {
        return status;
    }
    qsort(d->steps.items, d->steps.n, sizeof(struct results_step), by_target);
    d->sweep = true;
    describe_as_sweep(s);
    snprintf(d->label, sizeof(d->label), "%s", s->opts.label);
    d->start_ms = s->start_wall_ns / SLAP_NS_PER_MS;
    d->seconds = s->total_seconds;
    d->end_ms = d->start_ms + (uint64_t)(s->total_seconds * 1000.0 + 0.5);
    results_add_this_run(d);
    d->exit_status = status;
    for (uint32_t i = 0; i < s->nservers; i++) {
        struct server_stats_pair none = {.ok = false, .note = "not read"};
        results_add_server(d, s->names[i], d->label, s->pairs != NULL ? &s->pairs[i] : &none);
    }
    plan_output_paths(&s->opts, paths);
    struct results_sink_input in = {d, NULL, NULL, NULL};
    const char *store = store_location(s->opts.store);
    if (results_sinks_save(paths, &in, stderr, "slap search") != SLAP_OK) {
        status = SLAP_EXIT_FAILED;
    }
    if (store != NULL && store_save(store, &in, "search", stderr, "slap search") != SLAP_OK) {
        status = SLAP_EXIT_FAILED;
    }
    return status;
}

/* One step at rate: measured (once more when slap was short of CPU), its row printed and
 * kept. SLAP_EXIT_OK, or a signal's number (negative) or SLAP_EXIT_FAILED. */
static int step_at(struct search *s, const struct search_objectives *slo, double rate,
                   struct rate_result *res)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        int status = measure_rate(s, rate, res);
        if (status != SLAP_EXIT_OK) {
            return status;
        }
        keep_step(s, res);
        struct report_search_step row = {rate,
                                         res->achieved,
                                         s->seconds,
                                         res->ci,
                                         verdict_word(res),
                                         res->limited_by,
                                         res->late_p99_ns,
                                         res->held_p99_ns};
        if (!s->opts.quiet) {
            report_search_row(s->out, slo, &row);
        }
        if (!starved(res)) {
            break;
        }
    }
    return SLAP_EXIT_OK;
}

/* The search ends at rate, where slap was short of CPU twice: why, for its last lines. */
static bool stop_starved(struct search *s, struct report_search_end *end, double rate,
                         const struct rate_result *res)
{
    end->client_limit = rate;
    snprintf(s->client_why, sizeof(s->client_why), "limited_by %s: %s", res->limited_by, res->why);
    end->client_why = s->client_why;
    return true;
}

/* A rate where slap was starved twice above one the server held: nothing at or above it is
 * the server's answer (the lowest such rate kept, with why). */
static void note_ceiling(struct search *s, double rate, const struct rate_result *res)
{
    if (s->ceiling <= 0 || rate < s->ceiling) {
        s->ceiling = rate;
        snprintf(s->client_why, sizeof(s->client_why), "limited_by %s: %s", res->limited_by,
                 res->why);
    }
}

/* The search proper: steps until it narrows (or its budget ends, or slap is starved).
 * *stop is set when a step was starved twice. */
static int search_narrow(struct search *s, const struct search_objectives *slo,
                         struct search_state *st, enum search_next *next,
                         struct report_search_end *end, bool *stop)
{
    struct rate_result *res = &s->step;
    while (*next == SEARCH_TRY) {
        double rate = st->rate;
        int status = step_at(s, slo, rate, res);
        if (status != SLAP_EXIT_OK) {
            return status;
        }
        end->lowest_tried = fmin(end->lowest_tried, rate);
        if (starved(res) && st->held <= 0) {
            *stop = stop_starved(s, end, rate, res); /* nothing the server's held below it */
            return SLAP_EXIT_OK;
        }
        if (starved(res)) { /* slap's ceiling: the search narrows below it */
            note_ceiling(s, rate, res);
            *next = search_record(st, rate, false);
            continue;
        }
        *next = search_record(st, rate, res->verdict == SLO_HELD);
        if (res->verdict == SLO_HELD && st->held == rate) {
            s->best = *res;
        }
    }
    return SLAP_EXIT_OK;
}

/*
 * The capacity measured again, and the rate broken just above it: the same verdicts confirm
 * it. A verdict overturned (noise larger than the search's resolution) sends the search on
 * from what every rate said last, as does a step where slap was starved (its rate becomes
 * slap's ceiling). *confirmed when both held to their verdicts.
 */
static int confirm(struct search *s, const struct search_objectives *slo, struct search_state *st,
                   bool *confirmed)
{
    struct rate_result *res = &s->step;
    double held = st->held, broken = st->broken;
    /* above it: a rate the server broke, measured again; slap's ceiling is not the server's */
    double rates[2] = {held, broken != s->ceiling ? broken : 0};
    if (!s->opts.quiet) {
        if (rates[1] > 0) {
            fprintf(s->out, "confirming: %.0f ops/s again, and %.0f ops/s above it\n", held,
                    broken);
        } else {
            fprintf(s->out, "confirming: %.0f ops/s again\n", held);
        }
    }
    for (int i = 0; i < 2 && rates[i] > 0; i++) {
        int status = step_at(s, slo, rates[i], res);
        if (status != SLAP_EXIT_OK) {
            return status;
        }
        if (starved(res)) { /* not confirmed: slap's ceiling is now at or below it */
            note_ceiling(s, rates[i], res);
            (void)search_record(st, rates[i], false);
            break;
        }
        (void)search_record(st, rates[i], res->verdict == SLO_HELD);
        if (rates[i] == held && res->verdict == SLO_HELD) {
            s->best = *res; /* the capacity's figures: its latest measurement */
        }
        if (st->held != held) {
            break; /* the capacity did not hold again: no use measuring above it */
        }
    }
    *confirmed = st->held == held && st->broken == broken;
    return SLAP_EXIT_OK;
}

/* The steps, one row each, until the search ends, then its confirmation; its end into *end.
 * A signal's number (negative) or SLAP_EXIT_FAILED when a step could not run. */
static int search_steps(struct search *s, const struct search_objectives *slo,
                        struct report_search_end *end)
{
    struct search_state st;
    enum search_next next = SEARCH_TRY;
    bool stop = false, confirmed = false;
    unsigned rounds = 0;
    search_start(&st, s->args.start, MIN_RATE, s->args.max_rate, s->args.max_steps, RESOLUTION);
    end->lowest_tried = st.rate;
    end->max_rate = s->args.max_rate;
    for (;;) {
        int status = search_narrow(s, slo, &st, &next, end, &stop);
        if (status == SLAP_EXIT_OK && !stop && st.held > 0 && rounds < CONFIRM_ROUNDS) {
            rounds++;
            status = confirm(s, slo, &st, &confirmed);
        }
        if (status != SLAP_EXIT_OK) {
            return status;
        }
        if (stop || confirmed || st.held <= 0 || rounds == CONFIRM_ROUNDS) {
            break;
        }
        next = search_continue(&st, CONFIRM_EXTRA);
    }
    if (!stop && s->ceiling > 0 && st.broken == s->ceiling) {
        end->client_limit = s->ceiling; /* nothing above the capacity was the server's */
        end->client_why = s->client_why;
    }
    end->capacity = st.held;
    end->ci = st.held > 0 ? s->best.ci : NULL;
    end->lowest_broken = st.broken;
    end->exhausted = next == SEARCH_EXHAUSTED;
    end->confirmed = confirmed;
    end->confirmations = rounds;
    return SLAP_EXIT_OK;
}

/* The search, its report and files; the exit status. */
static int search_run(struct search *s)
{
    struct objectives_view ov;
    struct report_search_end end = {0};
    const char *paths[RESULTS_SINKS];
    objectives_of(&s->args, &ov);
    plan_output_paths(&s->opts, paths);
    s->want_doc = results_sinks_wanted(paths) || store_location(s->opts.store) != NULL;
    if (results_doc_init(&s->doc) != SLAP_OK ||
        plan_output_describe(&s->doc.desc, &s->opts) != SLAP_OK) {
        fprintf(stderr, "slap search: out of memory\n");
        return SLAP_EXIT_FAILED;
    }
    if (!s->opts.quiet) { /* -q: the capacity lines only */
        report_search_header(s->out, &s->doc.desc, &ov.view, s->args.start, s->args.max_rate,
                             s->args.max_steps, LENGTHEN * s->args.step_ns);
        report_search_columns(s->out, &ov.view);
    }
    end.alone = s->opts.quiet;
    int status = search_steps(s, &ov.view, &end);
    if (status < 0) {
        report_interrupted(s->out, -status);
        s->doc.signal = -status;
        save_doc(s, SLAP_EXIT_FAILED);
        signals_die_of(-status);
    }
    if (status == SLAP_EXIT_OK) {
        report_search_end(s->out, &ov.view, &end);
        s->doc.search = (struct results_search){.present = true,
                                                .capacity_tps = end.capacity,
                                                .lowest_broken = end.lowest_broken,
                                                .exhausted = end.exhausted,
                                                .client_limit = end.client_limit,
                                                .confirmed = end.confirmed};
        snprintf(s->doc.search.objectives, sizeof(s->doc.search.objectives), "%s", ov.view.text);
    }
    return save_doc(s, status);
}

static void search_free(struct search *s)
{
    periods_clear(&s->periods);
    free(s->periods.items);
    if (s->acc != NULL) {
        stats_free(s->acc);
        free(s->acc);
    }
    results_doc_free(&s->doc);
    limits_free(&s->limits);
    free(s->pairs);
    free(s->names);
    free(s->rest);
    free(s);
}

/* The search's state is the command's own: made here, freed here (or left to the signal that
 * ends the process in search_run). */
int search_main(int argc, char **argv)
{
    struct search *s = calloc(1, sizeof(*s));
    sigset_t set;
    if (s == NULL) {
        fprintf(stderr, "slap search: out of memory\n");
        return SLAP_EXIT_FAILED;
    }
    int status = parse(argc, argv, s);
    if (status != SLAP_EXIT_OK) {
        search_free(s);
        return status < 0 ? SLAP_EXIT_OK : status;
    }
    s->out = s->opts.json_out != NULL && strcmp(s->opts.json_out, "-") == 0 ? stderr : stdout;
    s->acc = malloc(sizeof(*s->acc));
    if (s->acc == NULL || stats_init(s->acc, &stats_shape_all) != SLAP_OK) {
        fprintf(stderr, "slap search: out of memory\n");
        search_free(s);
        return SLAP_EXIT_FAILED;
    }
    run_stop_signals(&set); /* the workers inherit them blocked; the run waits for them */
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    status = search_run(s);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        status = SLAP_EXIT_FAILED;
    }
    search_free(s);
    return status;
}
