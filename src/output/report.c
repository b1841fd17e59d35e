/* The text report in memaslap's layout, with slap's additions appended. */
#include "slap/output/report.h"
#include "slap/output/limits_words.h"

#include <math.h>
#include <signal.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/base/quote.h"

/* The order of tables and blocks: memaslap's Get, Set and Total, then the other types. */
#define REPORT_TOTAL (-1)
#define REPORT_PARTS 4        /* the latency, then its parts: send, held, net */
#define REPORT_PARTS_TAIL 5.0 /* a percentile is shown when this many requests lie above it */
static const int type_order[] = {OP_GET,   OP_SET,    REPORT_TOTAL, OP_GETS,   OP_GAT,
                                 OP_TOUCH, OP_ADD,    OP_REPLACE,   OP_APPEND, OP_PREPEND,
                                 OP_CAS,   OP_DELETE, OP_INCR,      OP_DECR};
_Static_assert(SLAP_ARRAY_SIZE(type_order) == OP_COUNT + 1, "every type has its place");

static const char *type_title(int type)
{
    return type == REPORT_TOTAL ? "Total" : op_title((enum op_type)type);
}

#define MIB (1024.0 * 1024.0)

static long long us_round(uint64_t ns)
{
    return (long long)((ns + SLAP_NS_PER_US / 2) / SLAP_NS_PER_US);
}

static void print_size(FILE *out, uint64_t n)
{
    if (n % 1024 == 0) {
        fprintf(out, "%lluk", (unsigned long long)(n / 1024));
    } else {
        fprintf(out, "%llu", (unsigned long long)n);
    }
}

/* Seconds as memaslap prints them: a whole number when whole, else up to 3 decimals. */
static void print_seconds_width(FILE *out, uint64_t ns, int width)
{
    char text[32];
    if (ns % SLAP_NS_PER_SEC == 0) {
        snprintf(text, sizeof(text), "%llu", (unsigned long long)(ns / SLAP_NS_PER_SEC));
    } else {
        snprintf(text, sizeof(text), "%.3f", (double)ns / (double)SLAP_NS_PER_SEC);
        char *end = text + strlen(text) - 1;
        while (*end == '0') {
            *end-- = '\0';
        }
        if (*end == '.') {
            *end = '\0'; /* 1.0004 shows as 1, not "1." */
        }
    }
    fprintf(out, "%-*s", width, text);
}

/* Does the mix have more than memaslap's gets and sets? */
static bool mix_beyond_get_set(const struct run_desc *desc)
{
    for (int op = 0; op < OP_COUNT; op++) {
        if (op != OP_GET && op != OP_SET && desc->mix[op] > 0) {
            return true;
        }
    }
    return false;
}

/* "mix: get=0.70 set=0.20 delete=0.10" when the mix has more than gets and sets. */
static void print_mix(FILE *out, const struct run_desc *desc)
{
    if (!mix_beyond_get_set(desc)) {
        return;
    }
    fputs("mix:", out);
    for (int op = 0; op < OP_COUNT; op++) {
        if (desc->mix[op] > 0) {
            fprintf(out, " %s=%.2f", op_name((enum op_type)op), desc->mix[op]);
        }
    }
    fputc('\n', out);
}

/* Are the key or value sizes other than memaslap's 64 and 1024 (a trace brings its own)? */
static bool sizes_beyond_memaslap(const struct run_desc *desc, const char *key, const char *value)
{
    return desc->trace == NULL && (strcmp(key, "64") != 0 || strcmp(value, "1024") != 0);
}

/* "key size: 64" and "value size: 100-200:1" as --key_size and --value_size take them. */
static void print_sizes(FILE *out, const struct run_desc *desc)
{
    if (desc->key_sizes == NULL || desc->value_sizes == NULL ||
        !sizes_beyond_memaslap(desc, desc->key_sizes, desc->value_sizes)) {
        return;
    }
    fprintf(out, "key size: %.1023s\nvalue size: %.1023s\n", desc->key_sizes, desc->value_sizes);
}

void report_header(FILE *out, const struct run_desc *desc)
{
    fprintf(out, "servers: %s\n", desc->servers);
    fprintf(out, "threads count: %u\n", desc->threads);
    fprintf(out, "concurrency: %u\n", desc->concurrency);
    if (desc->execute_number > 0) {
        fprintf(out, "execute number: %llu\n", (unsigned long long)desc->execute_number);
    } else if (desc->run_time_ns == 0) {
        fprintf(out, "run time: the whole trace\n");
    } else {
        fprintf(out, "run time: ");
        print_seconds_width(out, desc->run_time_ns, 0);
        fprintf(out, "s\n");
    }
    fprintf(out, "windows size: ");
    print_size(out, desc->win_size);
    fprintf(out, "\nset proportion: set_prop=%.2f\n", desc->mix[OP_SET]);
    fprintf(out, "get proportion: get_prop=%.2f\n", desc->mix[OP_GET]);
    print_mix(out, desc);
    if (desc->tps > 0) {
        char arrivals[64];
        arrival_text(arrivals, sizeof(arrivals), desc->arrival, desc->arrival_shape);
        if (desc->ramp.duration_ns > 0) {
            fprintf(out, "target rate: a ramp from %.0f to %.0f ops/s over ", desc->ramp.from,
                    desc->ramp.to);
            print_seconds_width(out, desc->ramp.duration_ns, 0);
            fprintf(out, "s (%.0f ops/s on average), %s arrivals\n", desc->tps, arrivals);
        } else {
            fprintf(out, "target rate: %.0f ops/s, %s arrivals\n", desc->tps, arrivals);
        }
    }
    if (desc->probe) {
        fprintf(out, "probe: a latency probe (its requests are not part of the load)\n");
    }
    if (desc->share_count > 0 && desc->share_index > 0) {
        fprintf(out, "share: %u/%u%s (this host's part of -P and -x)\n", desc->share_index,
                desc->share_count, desc->share_keys ? ", keys of its own" : "");
    } else if (desc->share_count > 0) {
        fprintf(out, "share: some of %u parts (a merge that lacks parts)\n", desc->share_count);
    }
    if (desc->pipeline > 1) {
        fprintf(out, "pipeline: %u\n", desc->pipeline);
    }
    if (desc->trace != NULL) {
        fputs("trace: ", out);
        quote_controls(out, desc->trace); /* a path: never its raw bytes */
        if (desc->trace_speed > 0) {
            fprintf(out, " at %g times its speed\n", desc->trace_speed);
        } else {
            fprintf(out, " as fast as it goes\n");
        }
    }
    if (desc->warmup_ns > 0) {
        fprintf(out, "warmup: ");
        print_seconds_width(out, desc->warmup_ns, 0);
        fprintf(out, "s\n");
    }
    print_sizes(out, desc);
    fflush(out);
}

/* Does the run keep a separate uncorrected view, and which one do tables show? */
static bool open_loop(const struct run_desc *desc)
{
    return desc->tps > 0;
}

static struct hist *const *main_view(const struct run_desc *desc, const struct slap_stats *s)
{
    return open_loop(desc) && desc->latency == LATENCY_UNCORRECTED ? s->raw : s->lat;
}

/* Every type of a view together, into total (a histogram already set up: emptied here). */
static void merge_view(struct hist *const *view, struct hist *total)
{
    hist_clear(total);
    for (int t = 0; t < STATS_TYPES; t++) {
        if (view[t] != NULL) {
            hist_merge(total, view[t]);
        }
    }
}

/* The histogram, byte count and misses of one type, or of all (REPORT_TOTAL: merged into
 * scratch, emptied first); a type without a histogram reads as scratch emptied. */
static const struct hist *type_view(const struct run_desc *desc, const struct slap_stats *s,
                                    int type, struct hist *scratch, uint64_t *bytes,
                                    uint64_t *misses)
{
    struct hist *const *view = main_view(desc, s);
    if (type == REPORT_TOTAL) {
        merge_view(view, scratch);
        *bytes = 0;
        for (int t = 0; t < STATS_TYPES; t++) {
            *bytes += s->net_bytes[t];
        }
        *misses = s->counters.get_misses; /* memaslap's: the keys gets did not find */
        return scratch;
    }
    *bytes = s->net_bytes[type];
    *misses = s->misses[type];
    if (view[type] != NULL) {
        return view[type];
    }
    hist_clear(scratch);
    return scratch;
}

/* Has the run recorded a request of type (REPORT_TOTAL: of any)? */
static bool has_events(const struct slap_stats *s, int type)
{
    if (type != REPORT_TOTAL) {
        return s->lat[type] != NULL && s->lat[type]->count > 0;
    }
    for (int t = 0; t < STATS_TYPES; t++) {
        if (has_events(s, t)) {
            return true;
        }
    }
    return false;
}

/* A rate; 0 when no time was measured (an interrupted warm-up), never a division by zero. */
static double per_second(double amount, double seconds)
{
    return seconds > 0 ? amount / seconds : 0.0;
}

/* "P99.9" for 99.9 */
static void percentile_name(char *name, size_t size, double pct, const char *suffix)
{
    snprintf(name, size, "P%g%s", pct, suffix);
}

/* Does the table of type show keys a second: Get and Total, when a get asks for several keys? */
static bool shows_keys(const struct run_desc *desc, int type)
{
    return desc->division > 1 && (type == OP_GET || type == REPORT_TOTAL);
}

/* Keys asked for: Get's are cmd_get (the keys of get and gets); Total's are every operation's
 * keys, as the Run time line counts them. */
static uint64_t type_keys(const struct slap_stats *s, int type)
{
    return type == REPORT_TOTAL ? stats_ops(s) : s->counters.cmd_get;
}

/* A table row; keys < 0: no Keys/s column. */
static void print_row(FILE *out, const struct run_desc *desc, const char *label, uint64_t time_ns,
                      const struct hist *h, uint64_t bytes, uint64_t misses, double keys)
{
    double secs = (double)time_ns / (double)SLAP_NS_PER_SEC;
    fprintf(out, "%-8s ", label);
    print_seconds_width(out, time_ns, 8);
    fprintf(out, " %-12llu %-12lld %-10.1f %-10lld %-8lld %-10lld %-10lld %-10.2f %-10.2f",
            (unsigned long long)h->count, (long long)llround((double)h->count / secs),
            (double)bytes / MIB / secs, (long long)misses, h->count ? us_round(h->min_ns) : 0LL,
            us_round(h->max_ns), (long long)llround(hist_mean_us(h)), hist_stddev_us(h),
            hist_geomean_us(h));
    for (uint32_t i = 0; i < desc->npercentiles; i++) {
        fprintf(out, i + 1 < desc->npercentiles || keys >= 0 ? " %-10lld" : " %lld",
                us_round(hist_percentile_ns(h, desc->percentiles[i])));
    }
    if (keys >= 0) {
        fprintf(out, " %.0f", per_second(keys, secs));
    }
    fputc('\n', out);
}

/* scratch: a histogram for the Total rows (37 KiB: not for the stack). */
static void print_table(FILE *out, const struct run_desc *desc, int type,
                        const struct slap_stats *period, const struct slap_stats *global,
                        uint64_t elapsed_ns, struct hist *scratch)
{
    uint64_t bytes, misses;

    fprintf(out, "%s Statistics\n", type_title(type));
    fprintf(out, "%-8s %-8s %-12s %-12s %-10s %-10s %-8s %-10s %-10s %-10s %-10s", "Type",
            "Time(s)", "Ops", "TPS(ops/s)", "Net(M/s)", "Get_miss", "Min(us)", "Max(us)", "Avg(us)",
            "Std_dev", "Geo_dist");
    bool keys = shows_keys(desc, type);
    for (uint32_t i = 0; i < desc->npercentiles; i++) {
        char name[32];
        percentile_name(name, sizeof(name), desc->percentiles[i], "(us)");
        fprintf(out, i + 1 < desc->npercentiles || keys ? " %-10s" : " %s", name);
    }
    fputs(keys ? " Keys/s\n" : "\n", out);
    const struct hist *h = type_view(desc, period, type, scratch, &bytes, &misses);
    print_row(out, desc, "Period", desc->stat_freq_ns, h, bytes, misses,
              keys ? (double)type_keys(period, type) : -1.0);
    h = type_view(desc, global, type, scratch, &bytes, &misses);
    print_row(out, desc, "Global", elapsed_ns, h, bytes, misses,
              keys ? (double)type_keys(global, type) : -1.0);
    fputc('\n', out);
}

enum slap_status report_period(FILE *out, const struct run_desc *desc,
                               const struct slap_stats *period, const struct slap_stats *global,
                               uint64_t period_no, bool terminal)
{
    struct hist *scratch;
    if (hist_slab_alloc(&scratch, 1) != SLAP_OK) {
        return SLAP_ERROR;
    }
    if (terminal) {
        fputs("\033[1;1H\033[2J", out);
    }
    fputc('\n', out);
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(type_order); i++) {
        if (has_events(global, type_order[i])) {
            print_table(out, desc, type_order[i], period, global, desc->stat_freq_ns * period_no,
                        scratch);
        }
    }
    fflush(out);
    hist_slab_free(scratch, 1);
    return SLAP_OK;
}

static void print_log2(FILE *out, const struct hist *h)
{
    int last = 0;
    for (int i = 0; i < HIST_LOG2_BUCKETS; i++) {
        if (h->log2_us[i] != 0) {
            last = i;
        }
    }
    int first = 0; /* the first row of four with a count, as memaslap */
    for (int i = 0; i <= last; i += 4) {
        if (h->log2_us[i] || h->log2_us[i + 1] || h->log2_us[i + 2] || h->log2_us[i + 3]) {
            first = i;
            break;
        }
    }
    fprintf(out, "   Log2 Dist:");
    for (int i = first; i <= last; i++) {
        if (i % 4 == 0) {
            fprintf(out, "\n      %2d:", i);
        }
        fprintf(out, "   %6llu", (unsigned long long)h->log2_us[i]);
    }
    fputc('\n', out);
}

/* How a report's blocks get their intervals: the run's periods (NULL: none), and the method of
 * the first interval given, which the report names once. */
struct block_ci {
    const struct report_confidence *conf;
    bool named;
    struct ci_result first;
};

/* "  [118, 130]" after a percentile, with the method when it is not the one the report names. */
static void print_interval(FILE *out, struct block_ci *bc, const struct ci_result *r)
{
    if (!bc->named) {
        bc->first = *r;
        bc->named = true;
    }
    fprintf(out, "  [%lld, %lld]", us_round(r->low_ns), us_round(r->high_ns));
    if (r->method != bc->first.method) {
        fprintf(out, " (%s)", ci_method_name(r->method));
    } else if (r->batches != bc->first.batches) {
        fprintf(out, " (%u batches)", r->batches);
    }
}

/* "not estimable (1000 requests; about 500000 needed)" */
static void print_not_estimable(FILE *out, const struct ci_result *r)
{
    fprintf(out, " not estimable (%llu requests; ", (unsigned long long)r->requests);
    if (r->needed == CI_NEEDED_NEVER) {
        fputs("no run has enough)", out);
    } else {
        fprintf(out, "about %llu needed)", (unsigned long long)r->needed);
    }
}

static void print_percentiles(FILE *out, const struct run_desc *desc, const struct hist *h,
                              intervals_mask mask, struct block_ci *bc)
{
    struct intervals_view v;
    intervals_view_open(&v, bc->conf != NULL ? bc->conf->intervals : NULL, mask, h);
    for (uint32_t i = 0; i < desc->npercentiles; i++) {
        char label[32];
        struct ci_result r;
        intervals_view_ci(&v, desc->percentiles[i], &r);
        percentile_name(label, sizeof(label), desc->percentiles[i], ":");
        if (!r.estimable) {
            fprintf(out, "   %s", label);
            print_not_estimable(out, &r);
        } else {
            fprintf(out, "   %-6s%8lld", label,
                    us_round(hist_percentile_ns(h, desc->percentiles[i])));
            print_interval(out, bc, &r);
        }
        fputc('\n', out);
    }
    intervals_view_close(&v);
}

static void print_block(FILE *out, const struct run_desc *desc, const char *name,
                        const struct hist *h, intervals_mask mask, struct block_ci *bc)
{
    if (h->count == 0) {
        return;
    }
    fprintf(out, "%s Statistics (%llu events)\n", name, (unsigned long long)h->count);
    fprintf(out, "   Min:  %8lld\n", us_round(h->min_ns));
    fprintf(out, "   Max:  %8lld\n", us_round(h->max_ns));
    fprintf(out, "   Avg:  %8lld\n", (long long)llround(hist_mean_us(h)));
    fprintf(out, "   Geo:  %8.2f\n", hist_geomean_us(h));
    if (h->count > 1) {
        fprintf(out, "   Std:  %8.2f\n", hist_stddev_us(h));
    }
    print_log2(out, h);
    print_percentiles(out, desc, h, mask, bc);
    fputc('\n', out);
}

/* Get, Set and Total blocks of one view, then those of the other types; prefix names the
 * view ("" for the main one), series its first series (INTERVALS_LAT or INTERVALS_RAW); the
 * Total is merged into total (a histogram set up, emptied here). */
static void print_blocks(FILE *out, const struct run_desc *desc, struct hist *const *view,
                         const char *prefix, int series, struct block_ci *bc, struct hist *total)
{
    char name[64];
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(type_order); i++) {
        int type = type_order[i];
        snprintf(name, sizeof(name), "%s%s", prefix, type_title(type));
        if (type == REPORT_TOTAL) {
            merge_view(view, total);
            print_block(out, desc, name, total, intervals_types(series), bc);
        } else if (view[type] != NULL) {
            print_block(out, desc, name, view[type], INTERVALS_BIT(series + type), bc);
        }
    }
}

/* The series of the main view. */
static int main_series(const struct run_desc *desc)
{
    return open_loop(desc) && desc->latency == LATENCY_UNCORRECTED ? INTERVALS_RAW : INTERVALS_LAT;
}

intervals_mask report_main_total(const struct run_desc *desc, const struct slap_stats *s,
                                 struct hist *total)
{
    hist_reset(total); /* whatever it held, or nothing set up */
    merge_view(main_view(desc, s), total);
    return intervals_types(main_series(desc));
}

/* The intervals' method, the steady line and the precision line. */
static void print_confidence(FILE *out, const struct block_ci *bc)
{
    char method[160];
    if (bc->named) {
        intervals_describe(&bc->first, method, sizeof(method));
        fprintf(out, "percentile intervals: %s\n", method);
    }
    const struct report_confidence *c = bc->conf;
    if (c == NULL) {
        return;
    }
    struct steady_verdict v;
    intervals_steady(c->intervals, &v);
    fprintf(out, "steady: %s (%s)\n", steady_state_name(v.state), v.why);
    if (c->precision != NULL && c->precision[0] != '\0') {
        fprintf(out, "precision: %s\n", c->precision);
    }
}

/* Open loop: the rate asked for, the rate achieved, and how late sends went. */
static void print_schedule(FILE *out, const struct run_desc *desc, const struct slap_stats *s,
                           double secs)
{
    const struct hist *lag = s->lag;
    fprintf(out, "target_tps: %.0f\n", desc->tps);
    fprintf(out, "achieved_tps: %.0f\n", per_second((double)stats_requests(s), secs));
    fprintf(out, "send_lag_avg_us: %lld\n", (long long)llround(hist_mean_us(lag)));
    fprintf(out, "send_lag_p99_us: %lld\n", us_round(hist_percentile_ns(lag, 99.0)));
    fprintf(out, "send_lag_max_us: %lld\n", us_round(lag->max_ns));
}

/* A part's value at pct in the table, "-" where the part is not known. */
static void print_part(FILE *out, const struct hist *h, double pct)
{
    if (h == NULL || h->count == 0) {
        fprintf(out, " %10s", "-");
    } else {
        fprintf(out, " %10lld", us_round(hist_percentile_ns(h, pct)));
    }
}

/* One type's rows (or the total's: own, slap late to read, is kept over every type only). */
static void print_parts_rows(FILE *out, const char *name, struct hist *const parts[REPORT_PARTS],
                             const struct hist *own)
{
    static const double pcts[] = {50.0, 90.0, 99.0, 99.9};
    static const char *const titles[] = {"P50", "P90", "P99", "P99.9"};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(pcts); i++) {
        /* as the tables: a percentile of too few requests is not shown */
        if ((double)parts[0]->count * (100.0 - pcts[i]) / 100.0 < REPORT_PARTS_TAIL) {
            break;
        }
        fprintf(out, "   %-8s %-6s", name, titles[i]);
        for (int p = 0; p < REPORT_PARTS; p++) {
            print_part(out, parts[p], pcts[i]);
        }
        print_part(out, own, pcts[i]);
        fputc('\n', out);
    }
}

/*
 * Open loop: each type's latency taken apart, each part at its own percentile (a sum of the
 * parts' P99s is not the P99): slap late to send, the server holding the request (its lane
 * full, its socket closed or blocked), network and server (sent to answer), slap late to read
 * (kernel stamps only).
 */
static enum slap_status print_parts(FILE *out, const struct slap_stats *s)
{
    struct hist *totals;
    struct hist *const *by_part[REPORT_PARTS] = {s->lat, s->late, s->held, s->raw};
    if (hist_slab_alloc(&totals, REPORT_PARTS) != SLAP_OK) {
        return SLAP_ERROR;
    }
    for (int p = 0; p < REPORT_PARTS; p++) {
        stats_total_of(by_part[p], &totals[p]);
    }
    if (totals[1].count == 0) { /* a file from before the parts, or nothing answered */
        hist_slab_free(totals, REPORT_PARTS);
        return SLAP_OK;
    }
    fprintf(out, "Latency parts (us, each part at its own percentile; slap's own: Send, Read)\n");
    fprintf(out, "   %-8s %-6s %10s %10s %10s %10s %10s\n", "Type", "", "Latency", "Send", "Held",
            "Net", "Read");
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(type_order); i++) {
        int type = type_order[i];
        struct hist *parts[REPORT_PARTS];
        for (int p = 0; p < REPORT_PARTS; p++) {
            if (type == REPORT_TOTAL) {
                parts[p] = &totals[p];
            } else {
                parts[p] = by_part[p][type];
            }
        }
        if (parts[0] != NULL && parts[0]->count > 0 && parts[1] != NULL) {
            print_parts_rows(out, type_title(type), parts, type == REPORT_TOTAL ? s->own : NULL);
        }
    }
    hist_slab_free(totals, REPORT_PARTS);
    return SLAP_OK;
}

void report_own_delay(FILE *out, const struct hist *own)
{
    if (own == NULL || own->count == 0) {
        return; /* no kernel stamps: --timestamps=read, or none came */
    }
    fprintf(out,
            "own_delay: p50 %lld us, p99 %lld us, max %lld us (kernel arrival to slap's read)\n",
            us_round(hist_percentile_ns(own, 50.0)), us_round(hist_percentile_ns(own, 99.0)),
            us_round(own->max_ns));
}

void report_connect_time(FILE *out, const struct hist *connect)
{
    if (connect == NULL || connect->count == 0) {
        return;
    }
    fprintf(out, "connect: %llu, p50 %lld us, p99 %lld us, max %lld us (opened to ready)\n",
            (unsigned long long)connect->count, us_round(hist_percentile_ns(connect, 50.0)),
            us_round(hist_percentile_ns(connect, 99.0)), us_round(connect->max_ns));
}

/* --trace: the lines replayed, the trace's own rate against the rate achieved, the misses. */
static void print_trace(FILE *out, const struct run_desc *desc, const struct report_trace *rt,
                        const struct slap_stats *s, double secs)
{
    const struct slap_counters *c = &s->counters;
    const struct trace_counts *t = rt->counts;
    const struct trace_progress *sent = rt->sent;
    fprintf(out, "trace_lines: %llu-%llu\n", (unsigned long long)sent->min_line,
            (unsigned long long)sent->max_line);
    fprintf(out, "trace_requests: %llu\n", (unsigned long long)sent->sent);
    if (t->skipped > 0) {
        fprintf(out, "trace_skipped: %llu\n", (unsigned long long)t->skipped);
    }
    if (t->keys_hashed > 0) {
        fprintf(out, "trace_keys_hashed: %llu\n", (unsigned long long)t->keys_hashed);
    }
    if (t->values_cut > 0) {
        fprintf(out, "trace_values_cut: %llu\n", (unsigned long long)t->values_cut);
    }
    fprintf(out, "trace_tps: %.0f\n", trace_progress_rate(sent));
    if (desc->trace_speed > 0) {
        fprintf(out, "target_tps: %.0f\n", trace_progress_rate(sent) * desc->trace_speed);
    }
    fprintf(out, "achieved_tps: %.0f\n", per_second((double)stats_requests(s), secs));
    fprintf(out, "miss_ratio: %.4f\n",
            c->cmd_get > 0 ? (double)c->get_misses / (double)c->cmd_get : 0.0);
}

void report_preload_evictions(FILE *out, double evictions)
{
    if (evictions > 0) {
        fprintf(out,
                "preload_evictions: %.0f (evicted by the servers during the preload or warm-up: "
                "the data does not fit in their memory, and gets of evicted keys miss)\n",
                evictions);
    }
}

enum slap_status report_final(FILE *out, const struct run_desc *desc,
                              const struct slap_stats *global, double seconds, int signal,
                              const struct report_trace *trace, const struct limits *limits,
                              double preload_evictions, const struct report_confidence *conf)
{
    double secs = seconds;
    struct block_ci bc = {.conf = conf, .named = false};
    struct hist *total;
    if (hist_slab_alloc(&total, 1) != SLAP_OK) {
        return SLAP_ERROR;
    }
    print_blocks(out, desc, main_view(desc, global), "", main_series(desc), &bc, total);
    if (open_loop(desc) && desc->latency == LATENCY_BOTH) {
        print_blocks(out, desc, global->raw, "Uncorrected_", INTERVALS_RAW, &bc, total);
    }
    hist_slab_free(total, 1);
    if (global->gets[STATS_HIT]->count > 0 && global->gets[STATS_MISS]->count > 0) {
        print_block(out, desc, "Get_hit", global->gets[STATS_HIT], INTERVALS_BIT(INTERVALS_HIT),
                    &bc);
        print_block(out, desc, "Get_miss", global->gets[STATS_MISS], INTERVALS_BIT(INTERVALS_MISS),
                    &bc);
    }
    const struct slap_counters *c = &global->counters;
    stats_print_memaslap(out, c, desc->verify > 0, desc->exp_verify > 0,
                         desc->udp || desc->facebook);
    stats_print_added(out, c, mix_beyond_get_set(desc), desc->verify > 0);
    if (desc->division > 1) {
        fprintf(out, "keys_per_sec: %.0f\n", per_second((double)c->cmd_get, secs));
    }
    if (open_loop(desc)) {
        print_schedule(out, desc, global, secs);
        if (print_parts(out, global) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    if (trace != NULL) {
        print_trace(out, desc, trace, global, secs);
    }
    report_own_delay(out, global->own);
    report_connect_time(out, global->connect);
    print_confidence(out, &bc);
    if (limits != NULL) {
        limits_print(out, limits);
    }
    report_preload_evictions(out, preload_evictions);
    fputc('\n', out);
    report_run_line(out, global, seconds, signal);
    return SLAP_OK;
}

void report_run_line(FILE *out, const struct slap_stats *global, double seconds, int signal)
{
    const struct slap_counters *c = &global->counters;
    double secs = seconds;
    uint64_t ops = stats_ops(global);
    /* A run that measured nothing has no rates: bytes sent to no answer over no time are none */
    double bytes = ops > 0 ? (double)(c->written_bytes + c->read_bytes) : 0.0;
    fprintf(out, "Run time: %.1fs Ops: %llu TPS: %.0f Net_rate: %.1fM/s\n", seconds,
            (unsigned long long)ops, per_second((double)ops, secs), per_second(bytes / MIB, secs));
    report_interrupted(out, signal);
}

void report_interrupted(FILE *out, int signal)
{
    if (signal > 0) {
        fprintf(out, "interrupted: %s\n",
                signal == SIGINT   ? "SIGINT"
                : signal == SIGHUP ? "SIGHUP"
                                   : "SIGTERM");
    }
    fflush(out);
}

void report_sweep_header(FILE *out, const struct run_desc *desc)
{
    struct run_desc first = *desc;
    first.run_time_ns = desc->step_time_ns;
    first.tps = 0;
    report_header(out, &first);
    char arrivals[64];
    arrival_text(arrivals, sizeof(arrivals), desc->arrival, desc->arrival_shape);
    fprintf(out, "sweep: %.0f to %.0f ops/s by %.0f, %s arrivals\n", desc->sweep_start,
            desc->sweep_end, desc->sweep_step, arrivals);
    fflush(out);
}

void report_sweep_columns(FILE *out, const struct run_desc *desc)
{
    fprintf(out, "\n%-14s %-15s", "Target(ops/s)", "Achieved(ops/s)");
    for (uint32_t i = 0; i < desc->npercentiles; i++) {
        char name[32];
        percentile_name(name, sizeof(name), desc->percentiles[i], "(us)");
        fprintf(out, " %-10s", name);
    }
    fprintf(out, " %-10s %-10s %-10s %-10s", "Max(us)", "Limited_by", "Late99(us)", "Held99(us)");
    for (uint32_t i = 0; i < desc->npercentiles; i++) {
        char name[32];
        percentile_name(name, sizeof(name), desc->percentiles[i], "_95%(us)");
        fprintf(out, " %-17s", name);
    }
    fputc('\n', out);
    fflush(out);
}

/* A step's percentiles' intervals, each of desc->percentiles into r. */
static void step_intervals(const struct run_desc *desc, const struct report_step *step,
                           const struct hist *total, struct ci_result *r)
{
    struct intervals_view v;
    intervals_view_open(&v, step->intervals, intervals_types(INTERVALS_LAT), total);
    for (uint32_t i = 0; i < desc->npercentiles; i++) {
        intervals_view_ci(&v, desc->percentiles[i], &r[i]);
    }
    intervals_view_close(&v);
}

/* An interval's cell: "[118,130]", or "needs_5000" (or "never") when not estimable. */
static void print_step_interval(FILE *out, const struct ci_result *r)
{
    char cell[48];
    if (r->estimable) {
        snprintf(cell, sizeof(cell), "[%lld,%lld]", us_round(r->low_ns), us_round(r->high_ns));
    } else if (r->needed != CI_NEEDED_NEVER) {
        snprintf(cell, sizeof(cell), "needs_%llu", (unsigned long long)r->needed);
    } else {
        snprintf(cell, sizeof(cell), "never");
    }
    fprintf(out, " %-17s", cell);
}

enum slap_status report_sweep_row(FILE *out, const struct run_desc *desc,
                                  const struct report_step *step)
{
    struct hist *total;
    if (hist_slab_alloc(&total, 1) != SLAP_OK) {
        return SLAP_ERROR;
    }
    const struct slap_stats *s = step->stats;
    stats_total_hist(s, total);
    /* requests, as the target: a multi-get of -d keys is one */
    double achieved = step->seconds > 0 ? (double)stats_requests(s) / step->seconds : 0.0;
    const char *limited_by =
        step->limited_by != NULL && step->limited_by[0] != '\0' ? step->limited_by : "-";
    struct ci_result r[RUN_DESC_MAX_PERCENTILES];
    step_intervals(desc, step, total, r);
    fprintf(out, "%-14.0f %-15.0f", step->target, achieved);
    for (uint32_t i = 0; i < desc->npercentiles; i++) {
        if (r[i].estimable) {
            fprintf(out, " %-10lld", us_round(hist_percentile_ns(total, desc->percentiles[i])));
        } else {
            fprintf(out, " %-10s", "-"); /* never a number it cannot back */
        }
    }
    fprintf(out, " %-10lld %-10s", us_round(total->max_ns), limited_by);
    struct hist *const *parts[2] = {s->late, s->held}; /* each part's own P99 */
    for (int k = 0; k < 2; k++) {
        stats_total_of(parts[k], total);
        if (total->count > 0) {
            fprintf(out, " %-10lld", us_round(hist_percentile_ns(total, 99.0)));
        } else {
            fprintf(out, " %-10s", "-"); /* not kept: a step read back from a file */
        }
    }
    for (uint32_t i = 0; i < desc->npercentiles; i++) {
        print_step_interval(out, &r[i]);
    }
    if (step->interrupted) {
        fprintf(out, " interrupted after %.2fs of ", step->seconds);
        print_seconds_width(out, desc->step_time_ns, 0);
        fputs("s", out);
    }
    fputc('\n', out);
    fflush(out);
    hist_slab_free(total, 1);
    return SLAP_OK;
}
