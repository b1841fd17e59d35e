/* The results document written as CSV: a row per period and type, or per sweep step. */
#include "slap/output/results_csv.h"
#include "slap/output/intervals.h"

#include <stdio.h>

#include "results_figures.h"

/* The percentiles CSV rows always carry, whatever --percentiles says. */
static const double csv_percentiles[] = {50.0, 90.0, 99.0, 99.9};

/* The latency columns, without the end of the line. */
static void csv_figures(FILE *out, const struct hist *h)
{
    fprintf(out, "%.3f,%.3f,%.3f,%.3f", h->count ? us(h->min_ns) : 0.0, us(h->max_ns),
            hist_mean_us(h), hist_stddev_us(h));
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(csv_percentiles); i++) {
        fprintf(out, ",%.3f", us(hist_percentile_ns(h, csv_percentiles[i])));
    }
}

/* -d above 1: keys a second at the end of the row, for get (cmd_get) and the total (every
 * operation's keys, as the run line); empty for the other types. */
static void csv_keys(FILE *out, const struct results_doc *d, const struct results_period *p, int t)
{
    if (d->desc.division <= 1) {
        return;
    }
    if (t == OP_GET || t == STATS_TYPES) {
        uint64_t keys = t == OP_GET ? p->counters.cmd_get : stats_counters_ops(&p->counters);
        fprintf(out, ",%.1f", per_second((double)keys, p->seconds));
    } else {
        fputc(',', out);
    }
}

/* --ramp: the period's target rate at the end of the total's row (the rate the ramp asked of
 * every request); empty for the other types. */
static void csv_target(FILE *out, const struct results_doc *d, const struct results_period *p,
                       int t)
{
    if (!results_has_targets(d)) {
        return;
    }
    if (t == STATS_TYPES) {
        fprintf(out, ",%.1f", results_period_target(d, p));
    } else {
        fputc(',', out);
    }
}

/* -P: the P99 of the type's latency parts at the end of the row, slap late to send and held
 * by the server (each its own P99); empty where the period does not keep them (read back
 * from a results file, or merged). h is free to use. */
static void csv_parts(FILE *out, const struct results_doc *d, const struct results_period *p, int t,
                      struct hist *h)
{
    if (!(d->desc.tps > 0)) {
        return;
    }
    const struct results_sparse *parts[2] = {p->late, p->held};
    for (int k = 0; k < 2; k++) {
        results_sparse_to_hist(parts[k], t, h);
        if (h->count > 0) {
            fprintf(out, ",%.3f", us(hist_percentile_ns(h, 99.0)));
        } else {
            fputc(',', out);
        }
    }
}

static void csv_header(FILE *out, const struct results_doc *d)
{
    fputs("elapsed_s,type,ops,tps,net_mib_s,misses,errors,min_us,max_us,avg_us,std_us,p50_us,"
          "p90_us,p99_us,p99.9_us",
          out);
    fputs(d->desc.division > 1 ? ",keys_per_s" : "", out);
    fputs(results_has_targets(d) ? ",target_rate" : "", out);
    fputs(d->desc.tps > 0 ? ",late_to_send_p99_us,held_by_server_p99_us\n" : "\n", out);
}

void results_csv_period(FILE *out, const struct results_doc *d, const struct results_period *p)
{
    struct hist *h = d->scratch;
    uint32_t types = results_doc_types(d);
    for (int t = 0; t <= STATS_TYPES; t++) {
        if (!shown(types, t)) {
            continue;
        }
        results_sparse_to_hist(p->lat, t, h);
        fprintf(out, "%.3f,%s,%llu,%.1f,%.3f,%llu,", p->elapsed_s, stats_type_name(t),
                (unsigned long long)h->count, per_second((double)h->count, p->seconds),
                per_second((double)type_net_bytes(p->net_bytes, t) / MIB, p->seconds),
                (unsigned long long)type_misses(p->misses, &p->counters, t));
        if (t == STATS_TYPES) {
            fprintf(out, "%llu", (unsigned long long)stats_errors(&p->counters));
        }
        fputc(',', out);
        csv_figures(out, h);
        csv_keys(out, d, p, t);
        csv_target(out, d, p, t);
        csv_parts(out, d, p, t, h);
        fputc('\n', out);
    }
}

/* A step's figures: its percentiles empty where not estimable (the table's "-"), then each
 * one's 95% interval, low and high, empty where not estimable. */
static void csv_step_figures(FILE *out, const struct intervals *iv, const struct hist *h)
{
    enum { N = SLAP_ARRAY_SIZE(csv_percentiles) };
    struct ci_result r[N];
    struct intervals_view v;
    intervals_view_open(&v, iv, intervals_types(INTERVALS_LAT), h);
    for (size_t i = 0; i < N; i++) {
        intervals_view_ci(&v, csv_percentiles[i], &r[i]);
    }
    intervals_view_close(&v);
    fprintf(out, "%.3f,%.3f,%.3f,%.3f", h->count ? us(h->min_ns) : 0.0, us(h->max_ns),
            hist_mean_us(h), hist_stddev_us(h));
    for (size_t i = 0; i < N; i++) {
        if (r[i].estimable) {
            fprintf(out, ",%.3f", us(hist_percentile_ns(h, csv_percentiles[i])));
        } else {
            fputc(',', out);
        }
    }
    for (size_t i = 0; i < N; i++) {
        if (r[i].estimable) {
            fprintf(out, ",%.3f,%.3f", us(r[i].low_ns), us(r[i].high_ns));
        } else {
            fputs(",,", out);
        }
    }
}

static void csv_steps(FILE *out, const struct results_doc *d)
{
    struct hist *h = d->scratch;
    const struct results_step *steps = d->steps.items;
    fputs("target_tps,achieved_tps,seconds,ops,errors,min_us,max_us,avg_us,std_us,p50_us,"
          "p90_us,p99_us,p99.9_us,p50_low_us,p50_high_us,p90_low_us,p90_high_us,p99_low_us,"
          "p99_high_us,p99.9_low_us,p99.9_high_us\n",
          out);
    for (size_t i = 0; i < d->steps.n; i++) {
        const struct results_step *s = &steps[i];
        uint64_t ops = stats_counters_ops(&s->counters);
        results_sparse_to_hist(s->lat, STATS_TYPES, h);
        fprintf(out, "%.0f,%.1f,%.3f,%llu,%llu,", s->target_tps,
                per_second((double)stats_counters_requests(&s->counters), s->seconds), s->seconds,
                (unsigned long long)ops, (unsigned long long)stats_errors(&s->counters));
        csv_step_figures(out, s->intervals, h);
        fputc('\n', out);
    }
}

void results_csv_begin(FILE *out, const struct results_doc *d)
{
    if (d->sweep) {
        csv_steps(out, d);
    } else {
        csv_header(out, d);
    }
}

void results_write_csv(FILE *out, const struct results_doc *d)
{
    const struct results_period *periods = d->periods.items;
    results_csv_begin(out, d);
    for (size_t i = 0; !d->sweep && i < d->periods.n; i++) {
        results_csv_period(out, d, &periods[i]);
    }
}
