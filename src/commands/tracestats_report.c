/* slap trace-stats' report: the rate over time, the operations, the sizes, the distinct keys
 * and the Zipf exponent, from model/tracestats' figures. */
#include "slap/commands/tracestats_report.h"

#include <stdbool.h>
#include <stdint.h>

#include "slap/base/quote.h"

static void print_rates(FILE *f, const struct tracestats *s, const struct tracestats_summary *sum)
{
    struct tracestats_rate_row rows[TRACESTATS_RATE_ROWS];
    uint64_t span = sum->last_second - sum->first_second + 1;
    size_t n = tracestats_rates(s, rows);
    fprintf(f, "rate: mean %.1f/s, peak %llu/s at second %llu\n", (double)sum->requests / span,
            (unsigned long long)sum->peak_count, (unsigned long long)sum->peak_second);
    fprintf(f, "\nRate over time\n%-24s %-12s %s\n", "Seconds", "Requests", "Rate(/s)");
    for (size_t i = 0; i < n; i++) {
        const struct tracestats_rate_row *r = &rows[i];
        char seconds[48];
        int len = snprintf(seconds, sizeof(seconds), "%llu", (unsigned long long)r->first_second);
        if (r->seconds > 1) {
            snprintf(seconds + len, sizeof(seconds) - (size_t)len, "-%llu",
                     (unsigned long long)(r->first_second + r->seconds - 1));
        }
        fprintf(f, "%-24s %-12llu %.1f\n", seconds, (unsigned long long)r->requests,
                (double)r->requests / (double)r->seconds);
    }
}

static void print_ops(FILE *f, const struct tracestats_summary *sum)
{
    fprintf(f, "\nOperations\n%-10s %-12s %s\n", "Op", "Requests", "Share");
    for (int op = 0; op < OP_COUNT; op++) {
        if (sum->ops[op] > 0) {
            fprintf(f, "%-10s %-12llu %.2f%%\n", op_name((enum op_type)op),
                    (unsigned long long)sum->ops[op], 100.0 * (double)sum->ops[op] / sum->requests);
        }
    }
}

static void print_size_row(FILE *f, const char *what, const struct tracestats_sizes *z)
{
    fprintf(f, "%-16s %-12llu %-10llu %-10llu %-10llu %llu\n", what, (unsigned long long)z->count,
            (unsigned long long)z->p50, (unsigned long long)z->p90, (unsigned long long)z->p99,
            (unsigned long long)z->max);
}

static void print_sizes(FILE *f, const struct tracestats *s)
{
    struct tracestats_sizes sizes;
    fprintf(f, "\n%-16s %-12s %-10s %-10s %-10s %s\n", "Sizes(bytes)", "Count", "P50", "P90", "P99",
            "Max");
    tracestats_key_sizes(s, &sizes);
    print_size_row(f, "key", &sizes);
    if (tracestats_value_sizes(s, &sizes)) {
        print_size_row(f, "value(writes)", &sizes);
    }
}

static void print_keys(FILE *f, const struct tracestats *s, const struct tracestats_summary *sum)
{
    bool exact;
    uint64_t distinct = tracestats_distinct(s, &exact), fitted;
    double exponent;
    fputc('\n', f);
    if (exact) {
        fprintf(f, "distinct keys: %llu (exact)\n", (unsigned long long)distinct);
    } else {
        fprintf(f,
                "distinct keys: %llu (estimate: HyperLogLog, standard error 0.8%%; more than "
                "the %llu keys --exact-keys counts exactly)\n",
                (unsigned long long)distinct, (unsigned long long)sum->exact_keys);
    }
    if (tracestats_zipf(s, &exponent, &fitted)) {
        fprintf(f,
                "zipf exponent: %.2f (least squares of log(count) on log(rank), over the %llu "
                "keys read %d times or more%s)\n",
                exponent, (unsigned long long)fitted, TRACESTATS_ZIPF_MIN_COUNT,
                exact ? "" : " among those counted exactly");
    } else {
        fprintf(f,
                "zipf exponent: not estimated (%llu keys read %d times or more, fewer than %d)\n",
                (unsigned long long)fitted, TRACESTATS_ZIPF_MIN_COUNT, TRACESTATS_ZIPF_MIN_KEYS);
    }
}

void tracestats_report(FILE *f, const struct tracestats *s, const struct trace_counts *c,
                       const char *name)
{
    struct tracestats_summary sum;
    fputs("trace: ", f);
    quote_controls(f, name); /* a name is shown, never its raw bytes */
    fprintf(f, "\nrequests: %llu", (unsigned long long)c->requests);
    if (c->requests > 0) {
        fprintf(f, " (lines %llu to %llu)", (unsigned long long)c->first_line,
                (unsigned long long)c->last_line);
    }
    fprintf(f, "\nskipped: %llu malformed lines\n", (unsigned long long)c->skipped);
    if (c->keys_hashed > 0) {
        fprintf(f, "keys_hashed: %llu (keys memcached refuses as they are, sent as their hash)\n",
                (unsigned long long)c->keys_hashed);
    }
    tracestats_summary(s, &sum);
    if (sum.requests == 0) {
        return;
    }
    fprintf(f, "seconds: %llu to %llu (%llu s)\n", (unsigned long long)sum.first_second,
            (unsigned long long)sum.last_second,
            (unsigned long long)(sum.last_second - sum.first_second + 1));
    print_rates(f, s, &sum);
    print_ops(f, &sum);
    print_sizes(f, s);
    print_keys(f, s, &sum);
}
