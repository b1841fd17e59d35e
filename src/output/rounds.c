/* --rounds in the text report: a line per round, then each figure's spread over the rounds. */
#include "slap/output/rounds.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "slap/base/confidence.h"

#define ROUNDS_LEVEL 0.95
#define ROUNDS_WHOLE_SLACK 0.001 /* a round this much short of --time is still whole */

/* A round's latency of every type. */
static void round_hist(const struct results_period *p, struct hist *h)
{
    hist_reset(h);
    for (int t = 0; t < STATS_TYPES; t++) {
        results_sparse_add(&p->lat[t], h);
    }
}

static double round_tps(const struct results_period *p)
{
    return p->seconds > 0 ? (double)stats_counters_ops(&p->counters) / p->seconds : 0.0;
}

/*
 * Why a round cannot stand beside the others, into why (empty: it can): cut short of --time
 * (a signal, or the run ended early), no answers, or a server that stalled (stopped
 * answering for good, or requests left unanswered) or closed connections during it.
 */
bool rounds_flawed(const struct run_desc *desc, const struct results_period *p, char *why,
                   size_t cap)
{
    double want = (double)desc->run_time_ns / 1e9;
    const struct slap_counters *c = &p->counters;
    why[0] = '\0';
    if (want > 0 && p->seconds < want * (1 - ROUNDS_WHOLE_SLACK)) {
        snprintf(why, cap, "cut short: %.2f s of %g s", p->seconds, want);
    } else if (stats_counters_ops(c) == 0) {
        snprintf(why, cap, "no answers");
    } else if (p->stalled_s > 0) {
        snprintf(why, cap, "the server stopped answering %.2f s in", p->stalled_s);
    } else if (c->unanswered > 0) {
        snprintf(why, cap, "%llu unanswered", (unsigned long long)c->unanswered);
    } else if (c->conn_closed > 0) {
        snprintf(why, cap, "%llu connection%s lost", (unsigned long long)c->conn_closed,
                 c->conn_closed == 1 ? "" : "s");
    }
    return why[0] != '\0';
}

/* "round 2: 41234 ops/s, p50 95.2 us, p99 310.0 us"; a round without answers has no
 * percentiles, and a flawed one says why it is left out of the figures over the rounds. */
static void round_line(FILE *out, const struct run_desc *desc, size_t i,
                       const struct results_period *p, struct hist *h)
{
    char why[96];
    round_hist(p, h);
    fprintf(out, "round %zu: %.0f ops/s", i + 1, round_tps(p));
    for (uint32_t k = 0; k < desc->npercentiles && stats_counters_ops(&p->counters) > 0; k++) {
        fprintf(out, ", p%g %.1f us", desc->percentiles[k],
                (double)hist_percentile_ns(h, desc->percentiles[k]) / 1000.0);
    }
    if (rounds_flawed(desc, p, why, sizeof(why))) {
        fprintf(out, " (%s: left out below)", why);
    }
    fputc('\n', out);
}

/* "rounds p99: mean 300.1 us, min-max 290.0-310.0 us, 95% interval [295.2, 305.0] us"; the
 * interval kept within [least, most]: what can be (a rate is not below 0), or what was
 * seen (a latency between the rounds' fastest and slowest request). Fewer than two rounds
 * have no spread. */
static void spread_line(FILE *out, const char *name, const char *unit, const double *v, size_t n,
                        double least, double most)
{
    if (n < 2) {
        fprintf(out, "rounds %s: %zu round%s to judge, no spread\n", name, n, n == 1 ? "" : "s");
        return;
    }
    double mean, low, high, lo = v[0], hi = v[0];
    for (size_t i = 1; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    ci_mean(v, n, ROUNDS_LEVEL, &mean, &low, &high, NULL);
    low = low < least ? least : low;
    high = high > most ? most : high;
    fprintf(out, "rounds %s: mean %.1f %s, min-max %.1f-%.1f %s, 95%% interval [%.1f, %.1f] %s\n",
            name, mean, unit, lo, hi, unit, low, high, unit);
}

/* The spread of each percentile over the rounds without a flaw. */
static void spread_percentiles(FILE *out, const struct results_doc *d, struct hist *h, double *v,
                               double fastest, double slowest)
{
    const struct results_period *rounds = d->rounds.items;
    for (uint32_t k = 0; k < d->desc.npercentiles; k++) {
        char name[32], why[96];
        size_t m = 0;
        for (size_t i = 0; i < d->rounds.n; i++) {
            round_hist(&rounds[i], h);
            if (!rounds_flawed(&d->desc, &rounds[i], why, sizeof(why))) {
                v[m++] = (double)hist_percentile_ns(h, d->desc.percentiles[k]) / 1000.0;
            }
        }
        snprintf(name, sizeof(name), "p%g", d->desc.percentiles[k]);
        spread_line(out, name, "us", v, m, fastest, slowest);
    }
}

void report_rounds(FILE *out, const struct results_doc *d)
{
    const struct results_period *rounds = d->rounds.items;
    size_t n = d->rounds.n, m = 0;
    struct hist *h = malloc(sizeof(*h));
    double *v = calloc(n > 0 ? n : 1, sizeof(*v));
    if (n > 0 && h != NULL && v != NULL) {
        fprintf(out, "rounds: %zu, back to back on the same connections\n", n);
        double fastest = INFINITY, slowest = 0;
        char why[96];
        for (size_t i = 0; i < n; i++) {
            round_line(out, &d->desc, i, &rounds[i], h);
            if (rounds_flawed(&d->desc, &rounds[i], why, sizeof(why))) {
                continue;
            }
            v[m++] = round_tps(&rounds[i]);
            if (h->count > 0) {
                fastest = fmin(fastest, (double)h->min_ns / 1000.0);
                slowest = fmax(slowest, (double)h->max_ns / 1000.0);
            }
        }
        spread_line(out, "tps", "ops/s", v, m, 0.0, INFINITY);
        spread_percentiles(out, d, h, v, fastest, slowest);
    }
    free(h);
    free(v);
}
