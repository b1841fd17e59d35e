/* Unit tests of the text report: golden text for the header, the final blocks and the -S tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/model/stats.h"
#include "slap/output/report.h"
#include "slap/output/results.h"
#include "slap/output/rounds.h"
#include "slap/output/run_desc.h"

#define MIB 1048576ULL

/*
 * Every golden string below was worked out by hand from memaslap's format rules:
 *   block:  "%s Statistics (%llu events)\n", "   Min:  %8lld\n", "   Max:  %8lld\n",
 *           "   Avg:  %8lld\n", "   Geo:  %8.2f\n", "   Std:  %8.2f\n" (events > 1),
 *           "   Log2 Dist:", per bucket "\n      %2d:" when i % 4 == 0 then "   %6llu",
 *           "\n", "   P50:  %8lld\n" ... "   P99.9:%8lld\n", "\n";
 *   log2 bucket i holds whole us in (2^(i-1), 2^i]; rows run from the first row of four
 *   with a count (searched up to last - 4, else row 0) to the last non-zero bucket.
 * Percentiles follow hist.h: the bucket where the count reaches ceil(p/100 * n), its
 * midpoint clamped to [min, max], rounded to whole us. The buckets used:
 *   100 us   -> [99840, 100351] ns, mid 100095 -> 100
 *   200 us   -> [199680, 200703] ns (2^17 row, width 2^10), mid 200191 -> 200
 *   300 us   -> [299008, 301055] ns (2^18 row, width 2^11), mid 300031 > max -> 300
 *   1000 us  -> [999424, 1003519] ns (2^19 row, width 2^12), mid 1001471 -> 1001
 *   3000 us  -> [2998272, 3014655] ns (2^21 row, width 2^14), mid 3006463 -> 3006
 *   5000 us  -> [4980736, 5013503] ns (2^22 row, width 2^15), mid 4997119 -> 4997
 *               (or 5000 when 5000 us is also the minimum: clamped)
 */

/* Gets of 1, 2, 3, 4, 5 ms: log2 buckets 10, 11, 12, 12, 13.
 * avg 3000, std sqrt(2.5) * 1000 = 1581.139; geo from the buckets' middles narrowed to
 * [min, max] (1001.760, 2002.944, 3006.464, 4005.888, 4990.368 us) = 2607.738, exactly
 * 120^(1/5) * 1000 = 2607.741 (0.1% off, within half a bucket);
 * P50 rank 3 (3000 us), P90/P99/P99.9 rank 5 (5000 us). */
static const char get_block[] = "Get Statistics (5 events)\n"
                                "   Min:      1000\n"
                                "   Max:      5000\n"
                                "   Avg:      3000\n"
                                "   Geo:   2607.74\n"
                                "   Std:   1581.14\n"
                                "   Log2 Dist:\n"
                                "       8:        0        0        1        1\n"
                                "      12:        2        1\n"
                                "   P50: not estimable (5 requests; about 100 needed)\n"
                                "   P90: not estimable (5 requests; about 500 needed)\n"
                                "   P99: not estimable (5 requests; about 5000 needed)\n"
                                "   P99.9: not estimable (5 requests; about 50000 needed)\n"
                                "\n";

/* Sets of 100, 200, 300 us: log2 buckets 7, 8, 9 (first row 4: row 8 is not below 9 - 4).
 * avg 200, std 100, geo from the buckets (100.176, 200.192, 299.504 us) = 181.776, exactly
 * 6e6^(1/3) = 181.712; P50 rank 2 (200 us), the others rank 3. */
static const char set_block[] = "Set Statistics (3 events)\n"
                                "   Min:       100\n"
                                "   Max:       300\n"
                                "   Avg:       200\n"
                                "   Geo:    181.78\n"
                                "   Std:    100.00\n"
                                "   Log2 Dist:\n"
                                "       4:        0        0        0        1\n"
                                "       8:        1        1\n"
                                "   P50: not estimable (3 requests; about 100 needed)\n"
                                "   P90: not estimable (3 requests; about 500 needed)\n"
                                "   P99: not estimable (3 requests; about 5000 needed)\n"
                                "   P99.9: not estimable (3 requests; about 50000 needed)\n"
                                "\n";

/* Both: 100, 200, 300, 1000, 2000, 3000, 4000, 5000 us. sum 15600, avg 1950;
 * geo from the buckets = 960.663, exactly (6e6 * 1.2e17)^(1/8) = 959.769; sum of squares 55140000,
 * so std = sqrt((55140000 - 15600^2 / 8) / 7) = sqrt(24720000 / 7) = 1879.210; P50 rank 4 (1000
 * us), the others rank 8 (5000 us). */
static const char total_block[] = "Total Statistics (8 events)\n"
                                  "   Min:       100\n"
                                  "   Max:      5000\n"
                                  "   Avg:      1950\n"
                                  "   Geo:    960.66\n"
                                  "   Std:   1879.21\n"
                                  "   Log2 Dist:\n"
                                  "       4:        0        0        0        1\n"
                                  "       8:        1        1        1        1\n"
                                  "      12:        2        1\n"
                                  "   P50: not estimable (8 requests; about 100 needed)\n"
                                  "   P90: not estimable (8 requests; about 500 needed)\n"
                                  "   P99: not estimable (8 requests; about 5000 needed)\n"
                                  "   P99.9: not estimable (8 requests; about 50000 needed)\n"
                                  "\n";

/* cmd_get 5 + cmd_set 3 = 8 ops in 2 s: TPS 4; (3 MiB + 2 MiB) / 2 s = 2.5M/s. */
static const char final_counters[] = "cmd_get: 5\n"
                                     "cmd_set: 3\n"
                                     "get_misses: 1\n"
                                     "written_bytes: 3145728\n"
                                     "read_bytes: 2097152\n"
                                     "object_bytes: 3264\n"
                                     "reconnects: 2\n"
                                     "\n"
                                     "Run time: 2.0s Ops: 8 TPS: 4 Net_rate: 2.5M/s\n";

static const char table_header[] =
    "Type     Time(s)  Ops          TPS(ops/s)   Net(M/s)   Get_miss   Min(us)  Max(us)    "
    "Avg(us)    Std_dev    Geo_dist   P50(us)    P90(us)    P99(us)    P99.9(us)\n";

/* -S 1s, period 3: the period holds get_block's five gets, 1.5 MiB of get traffic and 2 misses. */
static const char get_period_row[] = "Period   " /* %-8s and the separator */
                                     "1       "  /* Time(s) */
                                     " 5           "
                                     " 5           "
                                     " 1.5       "
                                     " 2         "
                                     " 1000    "
                                     " 5000      "
                                     " 3000      "
                                     " 1581.14   "
                                     " 2607.74   "
                                     " 3006      "
                                     " 4997      "
                                     " 4997      "
                                     " 4997\n";

/* Global, 3 s: the period twice. 10 gets, TPS round(10 / 3) = 3, 3 MiB / 3 s = 1.0, 4 misses;
 * std = sqrt(2 * (4 + 1 + 0 + 1 + 4) * 1e6 / 9) = 1490.712; P50 rank 5 (3000 us),
 * P90 rank 9 and P99, P99.9 rank 10 (5000 us). */
static const char get_global_row[] = "Global   "
                                     "3       "
                                     " 10          "
                                     " 3           "
                                     " 1.0       "
                                     " 4         "
                                     " 1000    "
                                     " 5000      "
                                     " 3000      "
                                     " 1490.71   "
                                     " 2607.74   "
                                     " 3006      "
                                     " 4997      "
                                     " 4997      "
                                     " 4997\n";

/* Sets of set_block in a 1 s period with 0.5 MiB of set traffic: no misses for sets. */
static const char set_period_row[] = "Period   "
                                     "1       "
                                     " 3           "
                                     " 3           "
                                     " 0.5       "
                                     " 0         "
                                     " 100     "
                                     " 300       "
                                     " 200       "
                                     " 100.00    "
                                     " 181.78    "
                                     " 200       "
                                     " 300       "
                                     " 300       "
                                     " 300\n";

/* Statistics of a get/set run (closed loop, or open with -P when open_loop). */
static struct slap_stats *new_stats_shaped(bool open_loop)
{
    struct slap_stats *s = malloc(sizeof(*s)); /* large: never on the stack */
    struct stats_shape shape = {.types = op_bit(OP_GET) | op_bit(OP_SET), .open_loop = open_loop};
    assert_non_null(s);
    assert_int_equal(stats_init(s, &shape), SLAP_OK);
    return s;
}

static struct slap_stats *new_stats(void)
{
    return new_stats_shaped(false);
}

static void free_stats(struct slap_stats *s)
{
    stats_free(s);
    free(s);
}

static void record_us(struct slap_stats *s, enum stats_type type, const unsigned *us, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        hist_record(s->lat[type], us[i] * SLAP_NS_PER_US);
    }
}

static void record_gets(struct slap_stats *s)
{
    static const unsigned gets[] = {1000, 2000, 3000, 4000, 5000};
    record_us(s, STATS_GET, gets, SLAP_ARRAY_SIZE(gets));
}

static void record_sets(struct slap_stats *s)
{
    static const unsigned sets[] = {300, 100, 200}; /* order does not matter */
    record_us(s, STATS_SET, sets, SLAP_ARRAY_SIZE(sets));
}

/* Text written by one report call: open a stream, the caller writes, then take the text. */
struct capture {
    FILE *out;
    char *text;
    size_t len;
};

static void capture_open(struct capture *c)
{
    c->text = NULL;
    c->len = 0;
    c->out = open_memstream(&c->text, &c->len);
    assert_non_null(c->out);
}

static char *capture_close(struct capture *c)
{
    assert_int_equal(fclose(c->out), 0);
    return c->text;
}

/* The texts of the descriptions below (never freed: nothing of them is allocated). */
static char default_servers[] = "127.0.0.1:11211";
static char two_servers[] = "a:1,b:2";
static char size_64[] = "64";
static char size_100[] = "100";
static char size_1024[] = "1024";
static char size_16_32[] = "16-32:1";

/* What slap's defaults describe. */
static void desc_defaults(struct run_desc *o)
{
    *o = (struct run_desc){
        .servers = default_servers,
        .threads = 1,
        .concurrency = 16,
        .run_time_ns = 600 * SLAP_NS_PER_SEC,
        .win_size = 10 * 1024,
        .mix = {[OP_SET] = 0.1, [OP_GET] = 0.9},
        .trace_speed = 1.0,
        .pipeline = 1,
        .npercentiles = 4,
        .percentiles = {50.0, 90.0, 99.0, 99.9},
        .step_time_ns = 5 * SLAP_NS_PER_SEC,
        .division = 1,
        .key_sizes = size_64,
        .value_sizes = size_1024,
    };
}

static char *header_text(const struct run_desc *o)
{
    struct capture c;
    capture_open(&c);
    report_header(c.out, o);
    return capture_close(&c);
}

static char *final_text(const struct slap_stats *s, double seconds, int signal)
{
    struct capture c;
    struct run_desc o;
    desc_defaults(&o);
    capture_open(&c);
    assert_int_equal(report_final(c.out, &o, s, seconds, signal, NULL, NULL, 0, NULL), SLAP_OK);
    return capture_close(&c);
}

static char *period_text(const struct run_desc *o, const struct slap_stats *period,
                         const struct slap_stats *global, uint64_t period_no, bool terminal)
{
    struct capture c;
    capture_open(&c);
    assert_int_equal(report_period(c.out, o, period, global, period_no, terminal), SLAP_OK);
    return capture_close(&c);
}

/* Concatenate strings, up to a NULL, into a buffer the caller frees. */
static char *concat(const char *first, ...)
{
    struct capture c;
    capture_open(&c);
    va_list ap;
    va_start(ap, first);
    for (const char *part = first; part != NULL; part = va_arg(ap, const char *)) {
        fputs(part, c.out);
    }
    va_end(ap);
    return capture_close(&c);
}

static void assert_header(const struct run_desc *o, const char *want)
{
    char *text = header_text(o);
    assert_string_equal(text, want);
    free(text);
}

static void test_header_defaults(void **state)
{
    (void)state;
    struct run_desc o;
    desc_defaults(&o);
    assert_header(&o, "servers: 127.0.0.1:11211\n"
                      "threads count: 1\n"
                      "concurrency: 16\n"
                      "run time: 600s\n"
                      "windows size: 10k\n"
                      "set proportion: set_prop=0.10\n"
                      "get proportion: get_prop=0.90\n");
}

static void test_header_variants(void **state)
{
    (void)state;
    struct run_desc o;
    desc_defaults(&o);
    o.execute_number = 10000;
    o.win_size = 1024;
    o.threads = 4;
    o.concurrency = 128;
    o.servers = two_servers;
    assert_header(&o, "servers: a:1,b:2\n"
                      "threads count: 4\n"
                      "concurrency: 128\n"
                      "execute number: 10000\n"
                      "windows size: 1k\n"
                      "set proportion: set_prop=0.10\n"
                      "get proportion: get_prop=0.90\n");

    desc_defaults(&o);
    o.win_size = 1500;
    o.run_time_ns = 60 * SLAP_NS_PER_SEC; /* one minute */
    o.mix[OP_SET] = 0.25;
    o.mix[OP_GET] = 0.75;
    assert_header(&o, "servers: 127.0.0.1:11211\n"
                      "threads count: 1\n"
                      "concurrency: 16\n"
                      "run time: 60s\n"
                      "windows size: 1500\n"
                      "set proportion: set_prop=0.25\n"
                      "get proportion: get_prop=0.75\n");

    desc_defaults(&o);
    o.run_time_ns = 1000400 * SLAP_NS_PER_US; /* 1.0004 s: shown to the millisecond */
    assert_header(&o, "servers: 127.0.0.1:11211\n"
                      "threads count: 1\n"
                      "concurrency: 16\n"
                      "run time: 1s\n"
                      "windows size: 10k\n"
                      "set proportion: set_prop=0.10\n"
                      "get proportion: get_prop=0.90\n");
    o.run_time_ns = 1500 * SLAP_NS_PER_MS;
    o.warmup_ns = 250 * SLAP_NS_PER_MS;
    assert_header(&o, "servers: 127.0.0.1:11211\n"
                      "threads count: 1\n"
                      "concurrency: 16\n"
                      "run time: 1.5s\n"
                      "windows size: 10k\n"
                      "set proportion: set_prop=0.10\n"
                      "get proportion: get_prop=0.90\n"
                      "warmup: 0.25s\n");
}

/* Sizes other than memaslap's: two lines after the others, as --key_size and --value_size
 * take them. */
static void test_header_sizes(void **state)
{
    (void)state;
    struct run_desc o;
    desc_defaults(&o);
    o.value_sizes = size_1024; /* -X 1024: memaslap's, no lines */
    assert_header(&o, "servers: 127.0.0.1:11211\n"
                      "threads count: 1\n"
                      "concurrency: 16\n"
                      "run time: 600s\n"
                      "windows size: 10k\n"
                      "set proportion: set_prop=0.10\n"
                      "get proportion: get_prop=0.90\n");
    o.value_sizes = size_100;
    o.pipeline = 4;
    assert_header(&o, "servers: 127.0.0.1:11211\n"
                      "threads count: 1\n"
                      "concurrency: 16\n"
                      "run time: 600s\n"
                      "windows size: 10k\n"
                      "set proportion: set_prop=0.10\n"
                      "get proportion: get_prop=0.90\n"
                      "pipeline: 4\n"
                      "key size: 64\n"
                      "value size: 100\n");
    o.pipeline = 1;
    o.value_sizes = size_1024;
    o.key_sizes = size_16_32;
    assert_header(&o, "servers: 127.0.0.1:11211\n"
                      "threads count: 1\n"
                      "concurrency: 16\n"
                      "run time: 600s\n"
                      "windows size: 10k\n"
                      "set proportion: set_prop=0.10\n"
                      "get proportion: get_prop=0.90\n"
                      "key size: 16-32:1\n"
                      "value size: 1024\n");
}

static struct slap_stats *final_stats(void)
{
    struct slap_stats *s = new_stats();
    record_gets(s);
    record_sets(s);
    s->counters.cmd_get = 5;
    s->counters.cmd_set = 3;
    s->counters.get_misses = 1;
    s->misses[STATS_GET] = 1;
    s->counters.written_bytes = 3 * MIB;
    s->counters.read_bytes = 2 * MIB;
    s->counters.object_bytes = 3 * (64 + 1024);
    s->counters.reconnects = 2;
    s->net_bytes[STATS_GET] = 12345; /* only in the tables */
    return s;
}

static void test_final_golden(void **state)
{
    (void)state;
    struct slap_stats *s = final_stats();
    char *want = concat(get_block, set_block, total_block, final_counters, NULL);
    char *text = final_text(s, 2.0, 0);
    assert_string_equal(text, want);
    free(text);
    free(want);

    want = concat(get_block, set_block, total_block, final_counters, "interrupted: SIGINT\n", NULL);
    text = final_text(s, 2.0, SIGINT);
    assert_string_equal(text, want);
    free(text);
    free(want);

    text = final_text(s, 2.0, SIGTERM);
    assert_non_null(strstr(text, "Net_rate: 2.5M/s\ninterrupted: SIGTERM\n"));
    free(text);
    text = final_text(s, 2.0, SIGHUP);
    assert_non_null(strstr(text, "Net_rate: 2.5M/s\ninterrupted: SIGHUP\n"));
    free(text);
    free_stats(s);
}

/* No measured time (a warm-up interrupted): no rate is computed from it. */
static void test_final_no_time(void **state)
{
    (void)state;
    struct slap_stats *s = final_stats();
    char *text = final_text(s, 0.0, SIGINT);
    assert_non_null(strstr(text, "\nRun time: 0.0s Ops: 8 TPS: 0 Net_rate: 0.0M/s\n"));
    free(text);
    free_stats(s);
}

/* One event: no Std line; every non-zero bucket is in the last row, the only row shown. */
static void test_final_single_event(void **state)
{
    (void)state;
    struct slap_stats *s = new_stats();
    hist_record(s->lat[STATS_GET], 5000 * SLAP_NS_PER_US);
    s->counters.cmd_get = 1;
    static const char block_body[] = " Statistics (1 events)\n"
                                     "   Min:      5000\n"
                                     "   Max:      5000\n"
                                     "   Avg:      5000\n"
                                     "   Geo:   5000.00\n"
                                     "   Log2 Dist:\n"
                                     "      12:        0        1\n"
                                     "   P50: not estimable (1 requests; about 100 needed)\n"
                                     "   P90: not estimable (1 requests; about 500 needed)\n"
                                     "   P99: not estimable (1 requests; about 5000 needed)\n"
                                     "   P99.9: not estimable (1 requests; about 50000 needed)\n"
                                     "\n";
    char *want = concat("Get", block_body, "Total", block_body,
                        "cmd_get: 1\n"
                        "cmd_set: 0\n"
                        "get_misses: 0\n"
                        "written_bytes: 0\n"
                        "read_bytes: 0\n"
                        "object_bytes: 0\n"
                        "\n"
                        "Run time: 0.5s Ops: 1 TPS: 2 Net_rate: 0.0M/s\n",
                        NULL);
    char *text = final_text(s, 0.5, 0);
    assert_string_equal(text, want);
    free(text);
    free(want);
    free_stats(s);
}

/* Below 2 us everything is bucket 0: a single row. */
static void test_final_log2_row_zero(void **state)
{
    (void)state;
    struct slap_stats *s = new_stats();
    hist_record(s->lat[STATS_SET], 1000); /* 1 us */
    hist_record(s->lat[STATS_SET], 400);  /* 0 us */
    char *text = final_text(s, 1.0, 0);
    assert_non_null(strstr(text, "Set Statistics (2 events)\n"
                                 "   Min:         0\n"
                                 "   Max:         1\n"));
    assert_non_null(strstr(text, "   Log2 Dist:\n"
                                 "       0:        2\n"
                                 "   P50: not estimable"));
    assert_null(strstr(text, "Get Statistics"));
    free(text);
    free_stats(s);
}

static void period_options(struct run_desc *o)
{
    desc_defaults(o);
    o->stat_freq_ns = SLAP_NS_PER_SEC;
}

/* The period of get_period_row and a global of that period twice. */
static void get_only_stats(struct slap_stats *period, struct slap_stats *global)
{
    record_gets(period);
    period->counters.cmd_get = 5;
    period->counters.get_misses = 2;
    period->misses[STATS_GET] = 2;
    period->net_bytes[STATS_GET] = 3 * MIB / 2;
    stats_merge(global, period);
    stats_merge(global, period);
}

static void test_period_golden(void **state)
{
    (void)state;
    struct run_desc o;
    period_options(&o);
    struct slap_stats *period = new_stats();
    struct slap_stats *global = new_stats();
    get_only_stats(period, global);
    /* No sets in global: no Set table; Total is then the Get table. */
    char *want =
        concat("\n", "Get Statistics\n", table_header, get_period_row, get_global_row, "\n",
               "Total Statistics\n", table_header, get_period_row, get_global_row, "\n", NULL);

    char *text = period_text(&o, period, global, 3, false);
    assert_string_equal(text, want);
    assert_null(strchr(text, '\033'));
    free(text);

    text = period_text(&o, period, global, 3, true);
    assert_memory_equal(text, "\033[1;1H\033[2J", 10);
    assert_string_equal(text + 10, want);
    free(text);

    free(want);
    free_stats(period);
    free_stats(global);
}

static void test_period_with_sets(void **state)
{
    (void)state;
    struct run_desc o;
    period_options(&o);
    struct slap_stats *period = new_stats();
    struct slap_stats *global = new_stats();
    record_gets(period);
    record_sets(period);
    period->counters.get_misses = 2;
    period->misses[STATS_GET] = 2;
    period->net_bytes[STATS_SET] = MIB / 2;
    stats_merge(global, period);

    char *text = period_text(&o, period, global, 1, false);
    const char *get_table = strstr(text, "Get Statistics\n");
    const char *set_table = strstr(text, "Set Statistics\n");
    const char *total_table = strstr(text, "Total Statistics\n");
    assert_non_null(get_table);
    assert_non_null(set_table);
    assert_non_null(total_table);
    assert_true(get_table < set_table && set_table < total_table);
    char *want = concat("Set Statistics\n", table_header, set_period_row, NULL);
    assert_memory_equal(set_table, want, strlen(want));
    free(want);
    free(text);

    /* Nothing anywhere: no table at all. */
    stats_reset(period);
    stats_reset(global);
    text = period_text(&o, period, global, 1, false);
    assert_string_equal(text, "\n");
    free(text);
    free_stats(period);
    free_stats(global);
}

/* --precision's latency is the report's: corrected, or uncorrected with -P and
 * --latency=uncorrected (closed loop: always the one latency). */
static void test_main_total_follows_latency(void **state)
{
    (void)state;
    static struct hist total;
    struct run_desc o;
    struct slap_stats *s = new_stats_shaped(true);
    desc_defaults(&o);
    hist_record(s->lat[OP_GET], 5000);
    hist_record(s->raw[OP_GET], 100);
    hist_record(s->raw[OP_SET], 200);
    assert_int_equal(report_main_total(&o, s, &total), intervals_types(INTERVALS_LAT));
    assert_int_equal(total.count, 1);
    o.tps = 1000;
    o.latency = LATENCY_UNCORRECTED;
    assert_int_equal(report_main_total(&o, s, &total), intervals_types(INTERVALS_RAW));
    assert_int_equal(total.count, 2);
    assert_int_equal(total.max_ns, 200);
    o.latency = LATENCY_BOTH;
    assert_int_equal(report_main_total(&o, s, &total), intervals_types(INTERVALS_LAT));
    assert_int_equal(total.count, 1);
    stats_free(s);
    free(s);
}

/* --rounds: two rounds far apart, every get 100 us in the first and 10 ms in the second. The
 * mean of their medians, 5050 us, has a t interval of +-62896 us (12.706 * 4950), which
 * printed [0.0, 67945.7] before; it is kept within the rounds' fastest request and their
 * slowest. The rate's stays at 0 or above. */
static void test_rounds_interval_within_seen(void **state)
{
    (void)state;
    static const unsigned fast[] = {100, 100, 100, 100}, slow[] = {10000, 10000, 10000, 10000};
    struct results_doc d;
    struct capture c;
    struct slap_stats *s = new_stats();
    assert_int_equal(results_doc_init(&d), SLAP_OK);
    d.desc.npercentiles = 1;
    d.desc.percentiles[0] = 50;
    for (size_t round = 0; round < 2; round++) {
        stats_reset(s);
        record_us(s, STATS_GET, round == 0 ? fast : slow, SLAP_ARRAY_SIZE(fast));
        s->counters.cmd_get = round == 0 ? 1000 : 10;
        assert_int_equal(results_add_to_round(&d, round, round + 1.0, 1.0, s), SLAP_OK);
    }
    capture_open(&c);
    report_rounds(c.out, &d);
    char *text = capture_close(&c);
    assert_non_null(strstr(text, "rounds p50: mean 5050.0 us, min-max 100.0-10000.0 us, 95% "
                                 "interval [100.0, 10000.0] us\n"));
    assert_non_null(strstr(text, "rounds tps: mean 505.0 ops/s, min-max 10.0-1000.0 ops/s, 95% "
                                 "interval [0.0, 6794.6] ops/s\n"));
    free(text);
    results_doc_free(&d);
    free_stats(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_defaults),
        cmocka_unit_test(test_header_variants),
        cmocka_unit_test(test_header_sizes),
        cmocka_unit_test(test_final_golden),
        cmocka_unit_test(test_final_single_event),
        cmocka_unit_test(test_final_log2_row_zero),
        cmocka_unit_test(test_period_golden),
        cmocka_unit_test(test_period_with_sets),
        cmocka_unit_test(test_final_no_time),
        cmocka_unit_test(test_main_total_follows_latency),
        cmocka_unit_test(test_rounds_interval_within_seen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
