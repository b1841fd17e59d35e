/*
 * slap compare --live: two or more targets measured now, in rounds interleaved so that the
 * host's drift falls on every side alike. Each round measures every side once, in an order
 * drawn at random; a side's round is the run `slap OPTIONS` would make (connections opened,
 * the measured -t, closed). Side i's difference from the first is then judged on the rounds
 * paired by their place (output/compare.h, COMPARE_PAIRED): when the sides do not differ,
 * the coin that ordered each pair makes every difference's sign a fair coin, whatever the
 * host did, so "significant" holds at the rate it says.
 *
 *   slap compare --live [--rounds N] [--seed N] [SLAP OPTIONS] NAME=TARGET NAME=TARGET ...
 *
 * TARGET is a server list, slap options, or a server list followed by options; the options
 * before the sides are every side's.
 */
#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slap/base/quote.h"
#include "slap/base/ranks.h"
#include "slap/base/rng.h"
#include "slap/base/units.h"
#include "slap/engine/run.h"
#include "slap/judge/limits.h"
#include "slap/net/servers.h"
#include "slap/options/options.h"
#include "slap/options/plan.h"
#include "slap/options/plan_output.h"
#include "slap/output/report.h"
#include "slap/run/compare_live.h"
#include "slap/run/exit_status.h"
#include "slap/run/outputs.h"
#include "slap/run/run_events.h"
#include "slap/run/signals.h"
#include "slap/store/store.h"

#define DEFAULT_ROUNDS 10
#define DEFAULT_ROUND_TIME "2s"
#define SIDE_NAME_MAX 32
#define MAX_WORDS 64  /* a side's own options */
#define FIRST_GIVEN 3 /* a side's argv: "slap", "--time", DEFAULT_ROUND_TIME, then as given */

struct live_side {
    char name[SIDE_NAME_MAX];
    const char *target; /* after NAME= */
    char *copy;         /* target split into words (owned) */
    char **argv;        /* "slap", the common options, the side's (owned array) */
    int argc;
    struct slap_options opts;
    struct results_doc *rounds; /* one document per round measured (owned) */
    const struct results_doc **ptrs;
    unsigned verdicts[LIMITS_VERDICTS]; /* rounds by limited_by */
    unsigned starved;                   /* rounds where slap's threads were short of CPU */
    unsigned late;                      /* rounds whose P99 tail was mostly slap late to send */
    double late_p99_s, late_send_p99_s; /* the latest such round's P99 and slap's part */
    bool parts;                         /* the last round kept its parts (open loop) */
    double parts_late_s, parts_held_s;  /* their P99s: slap late to send, held */
};

struct live {
    struct compare_args args;
    unsigned rounds;
    uint64_t seed;
    bool quiet;
    char **common; /* slap's options for every side (pointers into argv) */
    int ncommon;
    struct live_side sides[COMPARE_MAX_RUNS];
    size_t nsides;
    unsigned done;      /* rounds every side completed */
    int failed;         /* the side whose round failed (no signal), -1: none */
    struct hist *total; /* a round's histogram, every type together, for its line */
};

/* "NAME=..." with NAME a letter, then letters, digits, '_', '-' or '.'. */
static bool is_side(const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (eq == NULL || !isalpha((unsigned char)arg[0]) || eq - arg >= SIDE_NAME_MAX) {
        return false;
    }
    for (const char *c = arg; c < eq; c++) {
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-' && *c != '.') {
            return false;
        }
    }
    return true;
}

static bool parse_count(const char *v, uint64_t *out, uint64_t max)
{
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    if (v[0] == '\0' || *end != '\0' || v[0] == '-' || n > max) {
        return false;
    }
    *out = n;
    return true;
}

/* compare's own options (read by compare_main), the sides, and the rest of the words as every
 * side's slap options. */
static int parse_live(const struct compare_cli *c, char **words, int n, struct live *lv)
{
    uint64_t count;
    lv->args = c->args;
    lv->quiet = c->quiet;
    lv->rounds = DEFAULT_ROUNDS;
    lv->seed = (uint64_t)time(NULL);
    if (c->rounds != NULL) {
        if (!parse_count(c->rounds, &count, RANKS_MAX) || count < 2) {
            return compare_usage("--rounds needs 2 to 256 rounds:", c->rounds);
        }
        lv->rounds = (unsigned)count;
    }
    if (c->seed != NULL && !parse_count(c->seed, &lv->seed, UINT64_MAX)) {
        return compare_usage("--seed needs a whole number:", c->seed);
    }
    lv->common = calloc((size_t)n + 1, sizeof(*lv->common));
    if (lv->common == NULL) {
        return compare_usage("out of memory", NULL);
    }
    for (int i = 0; i < n; i++) {
        if (words[i][0] != '-' && is_side(words[i])) {
            if (lv->nsides == COMPARE_MAX_RUNS) {
                return compare_usage("too many sides", NULL);
            }
            struct live_side *s = &lv->sides[lv->nsides++];
            size_t len = (size_t)(strchr(words[i], '=') - words[i]);
            snprintf(s->name, sizeof(s->name), "%.*s", (int)len, words[i]);
            s->target = words[i] + len + 1;
        } else {
            lv->common[lv->ncommon++] = words[i];
        }
    }
    if (lv->nsides < 2) {
        return compare_usage("--live needs two sides or more, as NAME=TARGET "
                             "(A=127.0.0.1:11211 B=127.0.0.1:22122)",
                             NULL);
    }
    for (size_t i = 0; i < lv->nsides; i++) {
        for (size_t j = 0; j < i; j++) {
            if (strcmp(lv->sides[i].name, lv->sides[j].name) == 0) {
                return compare_usage("two sides have one name:", lv->sides[i].name);
            }
        }
    }
    return SLAP_EXIT_OK;
}

/* The side's target split at blanks (quotes keep blanks), after the common options: a first
 * word that is no option is the server list. */
static int side_argv(struct live *lv, struct live_side *s)
{
    s->copy = strdup(s->target);
    s->argv = calloc((size_t)lv->ncommon + MAX_WORDS + 5, sizeof(*s->argv));
    if (s->copy == NULL || s->argv == NULL) {
        return compare_usage("out of memory", NULL);
    }
    s->argv[s->argc++] = "slap";
    s->argv[s->argc++] = "--time";
    s->argv[s->argc++] = DEFAULT_ROUND_TIME;
    for (int i = 0; i < lv->ncommon; i++) {
        s->argv[s->argc++] = lv->common[i];
    }
    int words = 0;
    for (char *c = s->copy; *c != '\0';) {
        while (isspace((unsigned char)*c)) {
            c++;
        }
        if (*c == '\0') {
            break;
        }
        if (words == MAX_WORDS) {
            return compare_usage("too many words in side", s->name);
        }
        char quote = (*c == '\'' || *c == '"') ? *c++ : '\0';
        char *word = c;
        while (*c != '\0' && (quote ? *c != quote : !isspace((unsigned char)*c))) {
            c++;
        }
        if (quote && *c != quote) {
            return compare_usage("an unclosed quote in side", s->name);
        }
        if (*c != '\0') {
            *c++ = '\0';
        }
        if (words == 0 && word[0] != '-') {
            s->argv[s->argc++] = "--servers";
        }
        s->argv[s->argc++] = word;
        words++;
    }
    return SLAP_EXIT_OK;
}

/* What a round of --live cannot be: more than one timed run, or one writing its own files. */
static const char *refused(const struct slap_options *o)
{
    if (o->sweep_step > 0) {
        return "--sweep";
    }
    if (o->cfg_groups) { /* it ran 127.0.0.1:11211's default load instead */
        return "-F with groups (a side is one workload: give each group's options as a side)";
    }
    if (o->ramp.duration_ns > 0) {
        return "--ramp (the rounds are compared at one rate: give -P)";
    }
    if (o->stat_freq_ns > 0) {
        return "-S (a round prints no tables)";
    }
    for (size_t i = 0; i < options_table_size(); i++) { /* every output's row */
        char value[8];
        if (options_table_writes_file(i) &&
            options_value(o, i, value, sizeof(value)) != OPTION_VALUE_NONE) {
            return "--json, --csv, --svg, --hlog, --samples or --hdr_out of a round (compare "
                   "--json writes the table)";
        }
    }
    if (o->metrics != NULL || o->push != NULL || o->control != NULL) {
        return "--metrics, --push or --control";
    }
    if (o->precision_pct > 0) {
        return "--precision (every round lasts -t)";
    }
    if (o->start_at_ns > 0) {
        return "--start_at";
    }
    return NULL;
}

/* Every side's options parsed as slap would; the rounds' documents allocated. */
/* The side's servers resolved now, not in its first round: a name that does not resolve (an
 * option glued to the list with a comma, 'h1,h2,--distribution=ketama') is refused before any
 * round runs. */
static int resolve_side(const struct live_side *s)
{
    struct server_list list = {0};
    char err[512] = "";
    if (servers_open(&list, s->opts.servers, err, sizeof(err)) == SLAP_OK) {
        servers_close(&list);
        return SLAP_EXIT_OK;
    }
    const char *glued = strstr(s->opts.servers, ",-");
    fprintf(stderr, "slap compare: side %s: ", s->name);
    quote_controls(stderr, err);
    fprintf(stderr, "%s\n",
            glued != NULL ? " (an option after a comma is taken for a server: "
                            "separate options from the list with a space)"
                          : "");
    return SLAP_EXIT_USAGE;
}

static int prepare_sides(struct live *lv)
{
    for (size_t i = 0; i < lv->nsides; i++) {
        struct live_side *s = &lv->sides[i];
        if (side_argv(lv, s) != SLAP_EXIT_OK) {
            return SLAP_EXIT_USAGE;
        }
        enum options_outcome o = options_parse(&s->opts, s->argc, s->argv, stdout, stderr);
        if (o != OPTIONS_RUN) {
            fprintf(stderr, "slap compare: side %s: its options (above) are not a run\n", s->name);
            return SLAP_EXIT_USAGE;
        }
        const char *what = refused(&s->opts);
        if (what != NULL) {
            fprintf(stderr, "slap compare: side %s: --live cannot take %s\n", s->name, what);
            return SLAP_EXIT_USAGE;
        }
        if (resolve_side(s) != SLAP_EXIT_OK) {
            return SLAP_EXIT_USAGE;
        }
        s->rounds = calloc(lv->rounds, sizeof(*s->rounds));
        s->ptrs = calloc(lv->rounds, sizeof(*s->ptrs));
        if (s->rounds == NULL || s->ptrs == NULL) {
            return compare_usage("out of memory", NULL);
        }
    }
    if (hist_slab_alloc(&lv->total, 1) != SLAP_OK) {
        return compare_usage("out of memory", NULL);
    }
    return SLAP_EXIT_OK;
}

/* Does every side list th's figure (tps always)? */
static bool every_side_lists(const struct live *lv, const struct compare_threshold *th)
{
    for (size_t i = 0; i < lv->nsides && !th->tps; i++) {
        const struct slap_options *o = &lv->sides[i].opts;
        bool found = false;
        for (uint32_t p = 0; p < o->npercentiles && !found; p++) {
            found = o->percentiles[p] == th->pct;
        }
        if (!found) {
            return false;
        }
    }
    return true;
}

/* --fail-if is judged at the gate's level, on figures every side lists: refuse before a
 * minute of rounds that cannot. */
static int check_gate(const struct live *lv)
{
    if (lv->args.nth == 0) {
        return SLAP_EXIT_OK;
    }
    for (size_t k = 0; k < lv->args.nth; k++) {
        if (!every_side_lists(lv, &lv->args.th[k])) {
            fprintf(stderr,
                    "slap compare: --fail-if: %s is not a figure of every side (add it "
                    "to --percentiles)\n",
                    lv->args.th[k].figure);
            return SLAP_EXIT_USAGE;
        }
    }
    double level = compare_gate_level(lv->nsides, lv->args.nth);
    size_t needed = rank_needed(true, level);
    if (lv->rounds < needed) {
        fprintf(stderr,
                "slap compare: --fail-if: %zu threshold%s judged at %.4g%% need %zu "
                "rounds a side at least, not %u (--rounds)\n",
                lv->args.nth, lv->args.nth == 1 ? "" : "s", level * 100.0, needed, lv->rounds);
        return SLAP_EXIT_USAGE;
    }
    return SLAP_EXIT_OK;
}

/* The round's figures into its document. */
static enum slap_status keep_round(struct live_side *s, const struct run *run,
                                   const struct run_result *res, struct results_doc *d)
{
    struct limits limits = {.seconds = 0};
    if (results_doc_init(d) != SLAP_OK || plan_output_describe(&d->desc, &s->opts) != SLAP_OK) {
        return SLAP_ERROR;
    }
    snprintf(d->label, sizeof(d->label), "%s", s->name);
    d->seconds = run_seconds(run);
    d->start_ms = res->measure_wall_ns / SLAP_NS_PER_MS;
    d->end_ms = d->start_ms + (uint64_t)(d->seconds * 1000.0 + 0.5);
    stats_merge(d->global, res->global);
    s->parts = false;
    if (run_limits(run, &limits) == SLAP_OK) {
        s->parts = limits.target_tps > 0 && limits.latency_p99_s > 0;
        s->parts_late_s = limits.slap_late_p99_s;
        s->parts_held_s = limits.held_p99_s;
        s->verdicts[limits.verdict < LIMITS_VERDICTS ? limits.verdict : LIMITS_UNKNOWN]++;
        s->starved += limits_slap_short(&limits);
        if (limits.target_tps > 0 && limits.slap_tail_share >= LIMITS_SLAP_TAIL) {
            s->late++;
            s->late_p99_s = limits.latency_p99_s;
            s->late_send_p99_s = limits.slap_late_p99_s;
        }
    }
    limits_free(&limits);
    return SLAP_OK;
}

/* One round of side s into round k's document; SLAP_ERROR when it measured nothing; *sig the
 * signal that cut it short. */
static enum slap_status live_round(struct live_side *s, unsigned k, int *sig)
{
    struct run *run = NULL;
    struct run_result res;
    struct run_plan plan;
    char err[512] = "";
    enum slap_status st;
    plan_run(&plan, &s->opts, PLAN_PERIODS_ASKED);
    plan.engine.time_caps_count = true; /* a side's -x 1g ran for hours: -t bounds every round */
    struct run_sinks sinks = {.events = outputs_events(stderr)};
    st = run_init(&run, &plan, stderr, err, sizeof(err));
    st = st == SLAP_OK ? run_want(run, &sinks, false, true, false) : st;
    st = st == SLAP_OK ? run_execute(run, err, sizeof(err)) : st;
    run_result(run, &res);
    *sig = res.signal;
    if (res.signal == 0 && st == SLAP_OK && stats_ops(res.global) == 0) {
        snprintf(err, sizeof(err), "no request succeeded%s",
                 exit_nothing_cause(&res.global->counters, &s->opts));
        st = SLAP_ERROR;
    }
    char who[SIDE_NAME_MAX + 48];
    snprintf(who, sizeof(who), "slap compare: side %s, round %u", s->name, k + 1);
    if (res.signal == 0 && st != SLAP_OK) {
        fprintf(stderr, "%s: %s\n", who, err[0] != '\0' ? err : "out of memory");
    } else if (res.signal == 0 && res.global->counters.unanswered > 0) {
        run_stalls_print(stderr, &res, who);
    }
    if (res.signal == 0 && st == SLAP_OK && keep_round(s, run, &res, &s->rounds[k]) != SLAP_OK) {
        fprintf(stderr, "slap compare: out of memory\n");
        st = SLAP_ERROR;
    }
    run_free(run);
    return st;
}

/* "20105 ops/s, p99 812 us": a round's figures for its line, its histogram merged in total;
 * an open loop's adds its parts' own P99: "p99 812 us (p99 of slap late to send 610 us, of
 * held 0 us)". */
static void round_text(const struct live_side *s, const struct results_doc *d, struct hist *total,
                       char *buf, size_t len)
{
    report_main_total(&d->desc, d->global, total);
    double seconds = d->seconds > 0 ? d->seconds : 1.0;
    int n = snprintf(buf, len, "%.0f ops/s, p99 %.0f us",
                     (double)stats_counters_ops(&d->global->counters) / seconds,
                     (double)hist_percentile_ns(total, 99.0) / 1000.0);
    if (s->parts && n > 0 && (size_t)n < len) {
        snprintf(buf + n, len - (size_t)n, " (p99 of slap late to send %.0f us, of held %.0f us)",
                 s->parts_late_s * 1e6, s->parts_held_s * 1e6);
    }
}

/* Round k: every side once, in an order drawn from g. 0, a signal's number, or -1 (a side
 * failed: lv->failed names it). The round's line is printed whole once its sides are done, so
 * that a side's message on standard error never lands inside it. */
static int live_block(struct live *lv, unsigned k, struct rng *g)
{
    size_t order[COMPARE_MAX_RUNS];
    char line[COMPARE_MAX_RUNS * 200];
    size_t used = 0;
    for (size_t i = 0; i < lv->nsides; i++) {
        order[i] = i;
    }
    for (size_t i = lv->nsides; i > 1; i--) { /* Fisher-Yates */
        size_t j = (size_t)rng_below(g, i), tmp = order[i - 1];
        order[i - 1] = order[j];
        order[j] = tmp;
    }
    int n0 = snprintf(line, sizeof(line), "round %u/%u:", k + 1, lv->rounds);
    used = n0 > 0 ? (size_t)n0 : 0;
    for (size_t n = 0; n < lv->nsides; n++) {
        struct live_side *s = &lv->sides[order[n]];
        int sig = 0;
        if (live_round(s, k, &sig) != SLAP_OK || sig != 0) {
            if (sig == 0) {
                lv->failed = (int)order[n];
            }
            if (!lv->quiet) {
                printf("%s%s %s %s\n", line, n > 0 ? ", then" : "", s->name,
                       sig != 0 ? "interrupted" : "failed");
                fflush(stdout);
            }
            return sig != 0 ? sig : -1;
        }
        s->ptrs[k] = &s->rounds[k];
        char figures[160];
        round_text(s, &s->rounds[k], lv->total, figures, sizeof(figures));
        int w = snprintf(line + used, sizeof(line) - used, "%s %s %s", n > 0 ? ", then" : "",
                         s->name, figures);
        used += w > 0 && (size_t)w < sizeof(line) - used ? (size_t)w : 0;
    }
    if (!lv->quiet) {
        printf("%s\n", line);
        fflush(stdout);
    }
    return 0;
}

/* The rounds' shape, then each side's options as given (the default length left out). */
/* A side's round: "2s", or "10000 requests" (-x). */
static void round_length(const struct live_side *s, char *buf, size_t len)
{
    if (s->opts.execute_number > 0) {
        snprintf(buf, len, "%llu requests, or %.3gs if that comes first",
                 (unsigned long long)s->opts.execute_number,
                 (double)s->opts.run_time_ns / (double)SLAP_NS_PER_SEC);
    } else {
        snprintf(buf, len, "%.3gs", (double)s->opts.run_time_ns / (double)SLAP_NS_PER_SEC);
    }
}

static void print_header(const struct live *lv)
{
    char first[96], other[96];
    bool same = true;
    round_length(&lv->sides[0], first, sizeof(first));
    for (size_t i = 1; i < lv->nsides && same; i++) {
        round_length(&lv->sides[i], other, sizeof(other));
        same = strcmp(first, other) == 0;
    }
    if (same) {
        printf("compare --live: %u rounds of %s of each side", lv->rounds, first);
    } else { /* each side's line says its own */
        printf("compare --live: %u rounds of each side (their lengths differ: below)", lv->rounds);
    }
    printf(", the sides' order in each round drawn at random (--seed %llu)\n",
           (unsigned long long)lv->seed);
    for (size_t i = 0; i < lv->nsides; i++) {
        const struct live_side *s = &lv->sides[i];
        printf("%s:", s->name);
        for (int w = FIRST_GIVEN; w < s->argc; w++) {
            fputc(' ', stdout);
            quote_controls(stdout, s->argv[w]); /* the user's words */
        }
        if (!same) {
            round_length(s, other, sizeof(other));
            printf(" (a round: %s)", other);
        }
        printf("\n");
    }
    fflush(stdout);
}

/* How slap's own CPU fared in each side's rounds, when it was short of it in some. */
static void print_starved(const struct live *lv)
{
    for (size_t i = 0; i < lv->nsides; i++) {
        const struct live_side *s = &lv->sides[i];
        if (s->starved == 0) {
            continue;
        }
        printf("note: in %u of %s's %u rounds slap itself was short of CPU (its threads "
               "saturated or waiting for one): those latencies include slap's own wait (limited_by",
               s->starved, s->name, lv->done);
        for (int v = 0; v < LIMITS_VERDICTS; v++) {
            if (s->verdicts[v] > 0) {
                printf(" %s %u", limits_verdict_name((enum limits_verdict)v), s->verdicts[v]);
            }
        }
        printf(")\n");
    }
}

/* The rounds whose tail was slap's own lateness, not the server's, side by side. */
static void print_late(const struct live *lv)
{
    for (size_t i = 0; i < lv->nsides; i++) {
        const struct live_side *s = &lv->sides[i];
        if (s->late == 0) {
            continue;
        }
        printf("note: in %u of %s's %u rounds the P99 tail was mostly slap late to send (the "
               "latest: P99 %.2f ms, slap late to send %.2f ms at its own P99): those tails are "
               "slap's, not the server's; give slap CPUs of its own, then compare again\n",
               s->late, s->name, lv->done, s->late_p99_s * 1e3, s->late_send_p99_s * 1e3);
    }
}

/* The rounds done so far compared; the exit status. */
static int live_conclude(struct live *lv)
{
    struct compare_side sides[COMPARE_MAX_RUNS];
    char err[COMPARE_DIFFERS_MAX + 128];
    char(*names)[SIDE_NAME_MAX + 8] = calloc(lv->nsides, sizeof(*names));
    struct compare_table *t = malloc(sizeof(*t));
    int status = SLAP_EXIT_OK;
    if (names == NULL || t == NULL) {
        free(names);
        free(t);
        return compare_usage("out of memory", NULL);
    }
    for (size_t i = 0; i < lv->nsides; i++) {
        snprintf(names[i], sizeof(names[i]), "%s", lv->sides[i].name);
        sides[i] = (struct compare_side){names[i], lv->sides[i].ptrs, lv->done};
    }
    if (!lv->quiet) {
        printf("\n");
    }
    if (compare_build(t, sides, lv->nsides, true, compare_gate_level(lv->nsides, lv->args.nth), err,
                      sizeof(err)) != SLAP_OK) {
        quote_line(stderr, "slap compare: cannot compare: ", err);
        status = SLAP_EXIT_USAGE;
    } else {
        status = compare_conclude(&lv->args, t);
        print_starved(lv);
        print_late(lv);
        fflush(stdout);
    }
    free(t);
    free(names);
    return status;
}

static void live_free(struct live *lv)
{
    for (size_t i = 0; i < lv->nsides; i++) {
        struct live_side *s = &lv->sides[i];
        for (unsigned k = 0; s->rounds != NULL && k < lv->rounds; k++) {
            results_doc_free(&s->rounds[k]);
        }
        free(s->rounds);
        free(s->ptrs);
        free(s->argv);
        free(s->copy);
    }
    free(lv->common);
    hist_slab_free(lv->total, 1);
}

/* --store (or SLAP_STORE): every round done of every side kept, a run each, as "compare". */
static int live_store(const struct live *lv)
{
    int status = SLAP_EXIT_OK;
    for (size_t i = 0; i < lv->nsides; i++) {
        const struct live_side *s = &lv->sides[i];
        const char *store = store_location(s->opts.store);
        for (unsigned k = 0; store != NULL && k < lv->done; k++) {
            struct results_sink_input in = {&s->rounds[k], NULL, NULL, NULL};
            if (store_save(store, &in, "compare", stderr, "slap compare") != SLAP_OK) {
                status = SLAP_EXIT_FAILED;
                break; /* said once a side */
            }
        }
    }
    return status;
}

/* The rounds, then the table; a signal ends them with the table of the rounds done. */
static int live_run(struct live *lv)
{
    struct rng g = {.state = lv->seed};
    int status = SLAP_EXIT_OK, sig = 0;
    if (!lv->quiet) {
        print_header(lv);
    }
    lv->failed = -1;
    for (unsigned k = 0; k < lv->rounds; k++) {
        int got = live_block(lv, k, &g);
        if (got != 0) {
            sig = got > 0 ? got : 0;
            break;
        }
        lv->done++;
    }
    if (lv->done > 0) { /* what was measured is kept: the table of the rounds done */
        status = live_conclude(lv);
        status =
            live_store(lv) != SLAP_EXIT_OK && status == SLAP_EXIT_OK ? SLAP_EXIT_FAILED : status;
    }
    if (lv->failed >= 0) {
        printf("stopped: side %s failed in round %u of %u (its message above)%s\n",
               lv->sides[lv->failed].name, lv->done + 1, lv->rounds,
               lv->done > 0 ? ": the table holds the rounds every side completed" : "");
        fflush(stdout);
        status = SLAP_EXIT_FAILED;
    }
    if (sig != 0) {
        printf("interrupted: %s after %u of %u rounds\n",
               sig == SIGINT    ? "SIGINT"
               : sig == SIGTERM ? "SIGTERM"
                                : "SIGHUP",
               lv->done, lv->rounds);
        fflush(stdout);
        live_free(lv);
        signals_die_of(sig);
    }
    return status;
}

/* The comparison's state is the command's own: made here, freed here (or left to the signal
 * that ends the process in live_run). */
int compare_live_main(const struct compare_cli *c, char **words, int nwords)
{
    struct live *lv = calloc(1, sizeof(*lv));
    sigset_t set;
    if (lv == NULL) {
        fprintf(stderr, "slap compare: out of memory\n");
        return SLAP_EXIT_FAILED;
    }
    int status = parse_live(c, words, nwords, lv);
    status = status == SLAP_EXIT_OK ? prepare_sides(lv) : status;
    status = status == SLAP_EXIT_OK ? check_gate(lv) : status;
    if (status == SLAP_EXIT_OK) {
        run_stop_signals(&set); /* the workers inherit them blocked; a run waits for them */
        pthread_sigmask(SIG_BLOCK, &set, NULL);
        signal(SIGPIPE, SIG_IGN);
        status = live_run(lv);
    }
    live_free(lv);
    free(lv);
    return status;
}
