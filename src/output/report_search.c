/* slap search's text: its header, one row per step, and the capacity line. */
#include "slap/output/report_search.h"

#include <string.h>

#include "slap/output/report.h"

/* A latency in whole microseconds, rounded. */
static long long us(uint64_t ns)
{
    return (long long)((ns + SLAP_NS_PER_US / 2) / SLAP_NS_PER_US);
}

/* The objectives' percentiles named as the table does: "p99", "p99.9". */
static void pct_name(char *buf, size_t len, double pct)
{
    snprintf(buf, len, "p%g", pct);
}

void report_search_header(FILE *out, const struct run_desc *desc,
                          const struct search_objectives *slo, double start, double max_rate,
                          unsigned max_steps, uint64_t max_step_ns)
{
    struct run_desc first = *desc;
    first.run_time_ns = desc->step_time_ns;
    first.tps = 0;
    report_header(out, &first);
    fprintf(out,
            "search: the highest rate where %s holds with 95%% confidence, from %.0f up to "
            "%.0f ops/s, at most %u steps of %.3gs (up to %.3gs when undecided), %s arrivals\n",
            slo->text, start, max_rate, max_steps,
            (double)desc->step_time_ns / (double)SLAP_NS_PER_SEC,
            (double)max_step_ns / (double)SLAP_NS_PER_SEC, arrival_name(desc->arrival));
    fflush(out);
}

void report_search_columns(FILE *out, const struct search_objectives *slo)
{
    fprintf(out, "\n%-14s %-15s", "Target(ops/s)", "Achieved(ops/s)");
    for (size_t i = 0; i < slo->n; i++) {
        char name[32], ci[48];
        pct_name(name, sizeof(name), slo->pct[i]);
        snprintf(ci, sizeof(ci), "%s_95%%CI(us)", name);
        strncat(name, "(us)", sizeof(name) - strlen(name) - 1);
        fprintf(out, " %-10s %-20s", name, ci);
    }
    fprintf(out, " %-12s %-12s %-8s %-10s %s\n", "Late99(us)", "Held99(us)", "Time(s)", "Objective",
            "Limited_by");
    fflush(out);
}

void report_search_row(FILE *out, const struct search_objectives *slo,
                       const struct report_search_step *step)
{
    fprintf(out, "%-14.0f %-15.0f", step->target, step->achieved);
    for (size_t i = 0; i < slo->n; i++) {
        const struct ci_result *ci = &step->ci[i];
        char interval[48];
        if (ci->estimable) {
            snprintf(interval, sizeof(interval), "[%lld, %lld]", us(ci->low_ns), us(ci->high_ns));
        } else if (ci->needed == CI_NEEDED_NEVER) {
            snprintf(interval, sizeof(interval), "not estimable");
        } else {
            snprintf(interval, sizeof(interval), "needs %llu reqs", (unsigned long long)ci->needed);
        }
        fprintf(out, " %-10lld %-20s", us(ci->value_ns), interval);
    }
    fprintf(out, " %-12lld %-12lld %-8.1f %-10s %s\n", us(step->late_p99_ns), us(step->held_p99_ns),
            step->seconds, step->verdict,
            step->limited_by != NULL && step->limited_by[0] != '\0' ? step->limited_by : "-");
    fflush(out);
}

/* "p99 812 µs, p99.9 1400 µs" of the capacity's step. */
static void print_values(FILE *out, const struct search_objectives *slo, const struct ci_result *ci)
{
    for (size_t i = 0; i < slo->n; i++) {
        char name[32];
        pct_name(name, sizeof(name), slo->pct[i]);
        fprintf(out, "%s%s %lld \xc2\xb5s", i > 0 ? ", " : "", name, us(ci[i].value_ns));
    }
}

/* Each objective's interval at the capacity: "p99 95% interval: [780, 850] µs". */
static void print_intervals(FILE *out, const struct search_objectives *slo,
                            const struct ci_result *ci)
{
    for (size_t i = 0; i < slo->n; i++) {
        char name[32];
        pct_name(name, sizeof(name), slo->pct[i]);
        fprintf(out, "%s 95%% interval: [%lld, %lld] \xc2\xb5s (%s, limit %lld \xc2\xb5s)\n", name,
                us(ci[i].low_ns), us(ci[i].high_ns), ci_method_name(ci[i].method),
                us(slo->limit_ns[i]));
    }
}

/* Why the search ended where it did, when it is not the plain bisection's end. */
static void print_stop(FILE *out, const struct report_search_end *end)
{
    if (end->client_limit > 0) {
        fprintf(out,
                "search: went no higher than %.0f ops/s, where slap itself held the load back "
                "(short of CPU, or late to send: measured twice), so that step measured slap's "
                "own delay as much as the server's: %s\n",
                end->client_limit, end->client_why != NULL ? end->client_why : "");
    } else if (end->exhausted) {
        fprintf(out, "search: stopped after its last step (--max_steps) before it narrowed "
                     "to 5%%");
        if (end->lowest_broken > 0 && end->capacity > 0) {
            fprintf(out, ": the capacity is between %.0f and %.0f ops/s", end->capacity,
                    end->lowest_broken);
        }
        fputc('\n', out);
    }
}

/* No capacity to print: why. */
static void print_none(FILE *out, const struct search_objectives *slo,
                       const struct report_search_end *end)
{
    if (end->client_limit > 0) {
        fprintf(out,
                "capacity: none found: slap itself held the load back (short of CPU, or late "
                "to send) at %.0f ops/s before %s held with confidence; the server was not "
                "judged: give slap CPUs of its own (see limited_by above)\n",
                end->client_limit, slo->text);
    } else {
        fprintf(out, "capacity: none found: %s did not hold with confidence even at %.0f ops/s\n",
                slo->text, end->lowest_tried);
    }
}

/* Measured again, the capacity or the rate above it changed its verdict every time. */
static void print_unconfirmed(FILE *out, const struct search_objectives *slo,
                              const struct report_search_end *end)
{
    fprintf(out,
            "capacity: none confirmed: measured again %u times, %s held and broke by turns "
            "near %.0f ops/s",
            end->confirmations, slo->text, end->capacity);
    if (end->lowest_broken > 0) {
        fprintf(out, " (last held %.0f, last broken %.0f)", end->capacity, end->lowest_broken);
    }
    fprintf(out, ": on this host the answer moves by more than the search's 5%%; give the "
                 "steps longer (--step_time) or the host less other work\n");
}

void report_search_end(FILE *out, const struct search_objectives *slo,
                       const struct report_search_end *end)
{
    if (!end->alone) {
        fputc('\n', out);
    }
    print_stop(out, end);
    if (end->capacity <= 0) {
        print_none(out, slo, end);
        fflush(out);
        return;
    }
    if (!end->confirmed && end->client_limit <= 0) {
        print_unconfirmed(out, slo, end);
        fflush(out);
        return;
    }
    fprintf(out, "capacity: %s%.0f ops/s (", end->client_limit > 0 ? "at least " : "",
            end->capacity);
    print_values(out, slo, end->ci);
    fprintf(out, " at that rate");
    if (end->confirmed && end->lowest_broken > 0 && end->client_limit <= 0) {
        fprintf(out, "; confirmed: it held again and %.0f ops/s did not", end->lowest_broken);
    } else if (end->confirmed) {
        fprintf(out, "; confirmed: it held again");
    }
    fprintf(out, ")\n");
    print_intervals(out, slo, end->ci);
    if (end->client_limit > 0) {
        fprintf(out, "search: the server's capacity is at least that: above it slap could not "
                     "measure the server alone\n");
    } else if (end->lowest_broken <= 0 && end->exhausted) {
        fprintf(out, "search: nothing broke %s up to that rate: the capacity is at least that\n",
                slo->text);
    } else if (end->lowest_broken <= 0) {
        fprintf(out,
                "search: %s held at the highest rate searched (%.0f ops/s, --max_rate): "
                "the capacity is at least that\n",
                slo->text, end->max_rate);
    }
    fflush(out);
}
