/* Command-line options: one table drives getopt_long and --help, and says how each is read and
 * shown; the checks across options, once all are read, are in options_check.c. */
#include "slap/cli/options.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "slap/base/common.h"
#include "slap/base/quote.h"
#include "slap/net/servers.h"
#include "slap/base/units.h"
#include "slap/base/version.h"

#include "options_rows.h"
#include "options_table.h"
#include "subcommand_list.h"

#define OPTIONS_TARGET struct slap_options /* what slap's rows fill */

#define LONG_CODE_BASE 256   /* getopt code of row i's long spellings: LONG_CODE_BASE + i */
#define LONG_NAME_MAX 32     /* room for a long name and its NUL */
#define HELP_WIDTH 79        /* --help lines stay within this many columns */
#define HELP_GAP 2           /* spaces between the widest option column and its text */
#define CHOICES_TEXT_MAX 256 /* room for "a, b, c" listing a row's choices */

static enum options_outcome apply_servers(struct parse_state *st, const char *arg);
static enum options_outcome apply_binary(struct parse_state *st, const char *arg);
static enum options_outcome apply_key_size(struct parse_state *st, const char *arg);
static enum options_outcome apply_value_size(struct parse_state *st, const char *arg);
/* SET:GET, two shares not both 0, normalised into the mix. */
static enum options_outcome apply_ratio(struct parse_state *st, const char *arg);
/* OP=SHARE,...: any operations, shares normalised into the mix. */
static enum options_outcome apply_mix(struct parse_state *st, const char *arg);
/* A duration, in whole seconds as memcached's expiry times are. */
static enum options_outcome apply_exp_time(struct parse_state *st, const char *arg);
/* keydist.c reads the popularity's syntax. */
static enum options_outcome apply_key_dist(struct parse_state *st, const char *arg);
static enum options_outcome apply_tls_version(struct parse_state *st, const char *arg);
/* An increasing list of at most SLAP_MAX_PERCENTILES percentiles. */
static enum options_outcome apply_percentiles(struct parse_state *st, const char *arg);
/* START:END:STEP, three rates of k=1000, at most 1000 steps. */
static enum options_outcome apply_sweep(struct parse_state *st, const char *arg);
/* An instant: epoch seconds or RFC 3339, not more than a second past. */
static enum options_outcome apply_start_at(struct parse_state *st, const char *arg);
/* N (k=1000) errors, or P% of the requests. */
static enum options_outcome apply_max_errors(struct parse_state *st, const char *arg);
/* A positive number, or max (0: as fast as the answers come). */
static enum options_outcome apply_trace_speed(struct parse_state *st, const char *arg);
/* -h and -V print and stop the parse: the caller exits 0. */
static enum options_outcome apply_help(struct parse_state *st, const char *arg);
static enum options_outcome apply_version(struct parse_state *st, const char *arg);

/* How the special rows say their value back (option_show), each beside its handler's row. */
static enum option_value show_servers(const struct slap_options *o, char *buf, size_t len);
/* true when the protocol is binary, whether -B or --protocol set it. */
static enum option_value show_binary(const struct slap_options *o, char *buf, size_t len);
/* -X: the one value length used, or none when --value_size or -F gave several. */
static enum option_value show_fixed_size(const struct slap_options *o, char *buf, size_t len);
static enum option_value show_key_size(const struct slap_options *o, char *buf, size_t len);
static enum option_value show_value_size(const struct slap_options *o, char *buf, size_t len);
/* A mix of gets and sets alone; --mix says any other. */
static enum option_value show_ratio(const struct slap_options *o, char *buf, size_t len);
static enum option_value show_mix(const struct slap_options *o, char *buf, size_t len);
static enum option_value show_exp_time(const struct slap_options *o, char *buf, size_t len);
static enum option_value show_key_dist(const struct slap_options *o, char *buf, size_t len);
static enum option_value show_tls_version(const struct slap_options *o, char *buf, size_t len);
static enum option_value show_percentiles(const struct slap_options *o, char *buf, size_t len);
/* P=W%: run until percentile P's 95% interval is within W% of it. */
static enum options_outcome apply_precision(struct parse_state *st, const char *arg);
static enum option_value show_precision(const struct slap_options *o, char *buf, size_t len);
static enum option_value show_sweep(const struct slap_options *o, char *buf, size_t len);
static enum option_value show_start_at(const struct slap_options *o, char *buf, size_t len);
static enum option_value show_max_errors(const struct slap_options *o, char *buf, size_t len);
static enum option_value show_trace_speed(const struct slap_options *o, char *buf, size_t len);

/* The names of each CHOICE row, indexed by the enum they stand for. */
static const char *const protocol_names[] = {
    [PROTO_ASCII] = "ascii", [PROTO_BINARY] = "binary", [PROTO_META] = "meta", NULL};
_Static_assert(SLAP_ARRAY_SIZE(protocol_names) == PROTO_KINDS + 1, "a name for every protocol");
static const char *const distribution_names[] = {
    [DISTRIBUTION_MODULA] = "modula", [DISTRIBUTION_KETAMA] = "ketama",
    [DISTRIBUTION_KETAMA_LIBMEMCACHED] = "ketama-libmemcached", NULL};
const char *const options_hash_names[] = {
    [HASH_DEFAULT] = "default",   [HASH_MD5] = "md5",           [HASH_CRC] = "crc",
    [HASH_FNV1_64] = "fnv1_64",   [HASH_FNV1A_64] = "fnv1a_64", [HASH_FNV1_32] = "fnv1_32",
    [HASH_FNV1A_32] = "fnv1a_32", [HASH_HSIEH] = "hsieh",       [HASH_MURMUR] = "murmur",
    [HASH_JENKINS] = "jenkins",   [HASH_MURMUR3] = "murmur3",   NULL};
static const char *const arrival_names[] = {
    [ARRIVAL_UNIFORM] = "uniform", [ARRIVAL_POISSON] = "poisson", NULL};
static const char *const trace_spread_names[] = {
    [TRACE_SPREAD_CLIENT] = "client", [TRACE_SPREAD_ROUND_ROBIN] = "round-robin", NULL};
static const char *const latency_names[] = {[LATENCY_BOTH] = "both",
                                            [LATENCY_CORRECTED] = "corrected",
                                            [LATENCY_UNCORRECTED] = "uncorrected",
                                            NULL};

/* memaslap's options, in the order of its --help, then slap's own. */
static const struct option_row option_rows[] = {
    [ROW_SERVERS] = {'s', "servers", "LIST",
                     "Servers to load, as host[:port] separated by commas (port 11211 if "
                     "omitted). Default: $MEMCACHED_SERVERS, else " SLAP_DEFAULT_SERVER ".",
                     SPECIAL(apply_servers, show_servers)},
    [ROW_THREADS] = {'T', "threads", "N", "Worker threads, 1 to 1024. Default 1.",
                     COUNT32(threads, 1, SLAP_MAX_THREADS, 0)},
    [ROW_CONCURRENCY] = {'c', "concurrency", "N",
                         "Simulated clients, spread over the threads; at least --threads. "
                         "Default 16.",
                         COUNT32(concurrency, 1, SLAP_MAX_CONCURRENCY, 0)},
    [ROW_CONN_SOCK] = {'n', "conn_sock", "N",
                       "Connections per client, each a stream of requests of its own (one in "
                       "flight, or --pipeline). Default 1.",
                       COUNT32(conns_per_client, 1, SLAP_MAX_CONNS_PER_CLIENT, 0)},
    [ROW_EXECUTE_NUMBER] = {'x', "execute_number", "N",
                            "Run this many operations in total (k=1000, m, g) instead of a "
                            "timed run.",
                            COUNT64(execute_number, 1, UINT64_MAX, 1000), WORKLOAD},
    [ROW_TIME] = {'t', "time", "DURATION",
                  "Run length: a number with ms, s, m, h or d (seconds if bare), e.g. 10s or "
                  "1.5m. Default 600s.",
                  DURATION(run_time_ns)},
    [ROW_CFG_CMD] = {'F', "cfg_cmd", "FILE",
                     "Key and value sizes and the set/get mix from a memaslap config file "
                     "(sections key, value, cmd).",
                     STRING(cfg_file), NOT_REPLAYED},
    [ROW_WIN_SIZE] = {'w', "win_size", "SIZE",
                      "Keys in each client's window (k=1024, m, g). Default 10k.",
                      COUNT64(win_size, 1, SLAP_MAX_WIN_SIZE, 1024), WORKLOAD},
    [ROW_FIXED_SIZE] = {'X', "fixed_size", "BYTES",
                        "Value length in bytes, 1 to 1m (k=1024). Default 1024.",
                        COUNT32(value_size, 1, SLAP_MAX_VALUE_SIZE, 1024), SHOW(show_fixed_size)},
    [ROW_VERIFY] = {'v', "verify", "FRACTION",
                    "Share of gets whose value is checked against what was set (values derive "
                    "from key and version).",
                    FRACTION(verify), WORKLOAD},
    [ROW_DIVISION] = {'d', "division", "N",
                      "Keys per multi-get, 1 to 512. Default 1 (single gets).",
                      COUNT32(division, 1, SLAP_MAX_DIVISION, 0), WORKLOAD},
    [ROW_STAT_FREQ] = {'S', "stat_freq", "DURATION",
                       "Print statistics tables every DURATION (units as --time). Default: no "
                       "tables, only the final report.",
                       DURATION(stat_freq_ns)},
    [ROW_EXP_VERIFY] = {'e', "exp_verify", "FRACTION",
                        "Share of sets with an expiry time (--exp_time); later gets check that "
                        "they expired.",
                        FRACTION(exp_verify), WORKLOAD},
    [ROW_OVERWRITE] = {'o', "overwrite", "FRACTION",
                       "Share of sets that overwrite a key already set.", FRACTION(overwrite),
                       WORKLOAD},
    [ROW_RECONNECT] = {'R', "reconnect", NULL, "Reopen connections that the server closes.",
                       FLAG(reconnect)},
    [ROW_UDP] = {'U', "udp", NULL,
                 "Send every request over UDP (the server's UDP port must equal its TCP port); "
                 "each request must fit one datagram.",
                 FLAG(udp), WORKLOAD},
    [ROW_FACEBOOK] = {'a', "facebook", NULL, "Sets over TCP, gets and multi-gets over UDP.",
                      FLAG(facebook), WORKLOAD},
    [ROW_BINARY] = {'B', "binary", NULL, "Use the binary protocol (same as --protocol=binary).",
                    SPECIAL(apply_binary, show_binary), NOT_REPLAYED},
    [ROW_TPS] = {'P', "tps", "RATE",
                 "Open loop: send RATE operations per second in all (k=1000, m, g), each at its "
                 "own intended time; latency counts from that time, so queueing shows.",
                 RATE(tps, 1, (uint64_t)SLAP_MAX_TPS, 1000)},
    [ROW_REP_WRITE] = {'p', "rep_write", "N",
                       "Every set goes to each of the first N servers; gets read from one of "
                       "them.",
                       COUNT32(rep_write, 1, UINT16_MAX, 0), WORKLOAD},
    [ROW_VERBOSE] = {'b', "verbose", NULL, "Print details of verification failures (the first 10).",
                     FLAG(verbose)},
    [ROW_KEY_SIZE] = {0, "key_size", "SIZES",
                      "Key sizes: N, MIN-MAX, or a weighted list such as 16-32:0.5,64-128:0.5 "
                      "(16 to 250). Default 64.",
                      SPECIAL(apply_key_size, show_key_size), WORKLOAD},
    [ROW_VALUE_SIZE] = {0, "value_size", "SIZES",
                        "Value sizes, same forms (1 to 1m, k=1024), e.g. the Olio mix "
                        "4-100:0.3,1024-2048:0.5,5120-20480:0.2. Default 1024.",
                        SPECIAL(apply_value_size, show_value_size), WORKLOAD},
    [ROW_RATIO] = {0, "ratio", "SET:GET", "The set/get mix, e.g. 1:9 (the default) or 0:1.",
                   SPECIAL(apply_ratio, show_ratio), WORKLOAD},
    [ROW_MIX] = {0, "mix", "OP=SHARE,...",
                 "The operations and their shares, e.g. get=70,set=20,delete=5,incr=5. OPs: "
                 "get, gets, gat, touch, set, add, replace, append, prepend, cas, delete, incr, "
                 "decr.",
                 SPECIAL(apply_mix, show_mix), WORKLOAD},
    [ROW_EXP_TIME] = {0, "exp_time", "DURATION",
                      "Expiry time of -e sets, whole seconds; above 30 days sent as the Unix "
                      "time that far ahead (ascii, meta: up to 2038). Default 60s.",
                      SPECIAL(apply_exp_time, show_exp_time), SECONDS, WORKLOAD},
    [ROW_DISTRIBUTION] = {0, "distribution", "KIND",
                          "Key to server mapping: modula (libmemcached's default), ketama "
                          "(libketama's continuum, as twemproxy places keys; --hash default "
                          "is md5) or ketama-libmemcached (libmemcached's unweighted one).",
                          CHOICE(distribution, enum server_distribution, distribution_names)},
    [ROW_HASH] = {0, "hash", "NAME",
                  "libmemcached key hash: default, md5, crc, fnv1_64, fnv1a_64, fnv1_32, "
                  "fnv1a_32, hsieh, murmur, jenkins, murmur3.",
                  CHOICE(hash, enum server_hash, options_hash_names)},
    [ROW_KEY_DIST] = {0, "key_dist", "KIND",
                      "Which keys of the window gets read: uniform (default), zipf[:S] (S "
                      "default 0.99) or gaussian.",
                      SPECIAL(apply_key_dist, show_key_dist), WORKLOAD},
    [ROW_PROTOCOL] = {0, "protocol", "NAME",
                      "ascii (default), binary, or meta (mg/ms; gets sent quiet and closed by "
                      "mn).",
                      CHOICE(protocol, enum proto_kind, protocol_names), WORKLOAD},
    [ROW_TLS] = {0, "tls", NULL, "Speak TLS to every server (memcached -Z).", FLAG(tls), WORKLOAD},
    [ROW_TLS_CA] = {0, "tls_ca", "FILE",
                    "Trust the CA certificates in FILE (PEM) instead of the system's.",
                    READABLE_FILE(tls_ca), NOT_REPLAYED},
    [ROW_TLS_CERT] = {0, "tls_cert", "FILE",
                      "Client certificate (PEM), for servers that ask for one.",
                      READABLE_FILE(tls_cert), NOT_REPLAYED},
    [ROW_TLS_KEY] = {0, "tls_key", "FILE", "Private key of --tls_cert (PEM).",
                     READABLE_FILE(tls_key), NOT_REPLAYED},
    [ROW_TLS_SKIP_VERIFY] = {0, "tls_skip_verify", NULL,
                             "Do not verify the server's certificate (it is verified by "
                             "default).",
                             FLAG(tls_skip_verify)},
    [ROW_TLS_VERSION] = {0, "tls_version", "VERSION",
                         "Speak only TLS 1.2 or only 1.3. Default: negotiate.",
                         SPECIAL(apply_tls_version, show_tls_version)},
    [ROW_TIMEOUT] = {0, "timeout", "DURATION",
                     "A request whose answer has not come after DURATION fails its connection "
                     "(counted as unanswered; -R reconnects). Default 5s.",
                     DURATION(timeout_ns)},
    [ROW_UDP_TIMEOUT] = {0, "udp_timeout", "DURATION",
                         "How long a UDP request waits for its answer before it counts as "
                         "lost. Default 200ms.",
                         DURATION(udp_timeout_ns)},
    [ROW_FLUSH] = {0, "flush", NULL, "Send flush_all to every server before the run.", FLAG(flush)},
    [ROW_PRELOAD] = {0, "preload", NULL,
                     "Set every window key once before the run (reported apart, not measured).",
                     FLAG(preload)},
    [ROW_ARRIVAL] = {0, "arrival", "KIND",
                     "Open-loop arrivals: uniform (evenly spaced, default) or poisson (random "
                     "gaps, same mean).",
                     CHOICE(arrival, enum arrival, arrival_names), WORKLOAD},
    [ROW_PIPELINE] = {0, "pipeline", "N",
                      "Requests in flight per connection, 1 to 1024. Default 1 (one request, "
                      "then its answer).",
                      COUNT32(pipeline, 1, SLAP_MAX_PIPELINE, 0), WORKLOAD},
    [ROW_LATENCY] = {0, "latency", "VIEW",
                     "Open loop: corrected (from the intended send), uncorrected (from the "
                     "actual send) or both (corrected, plus uncorrected final blocks). Default "
                     "both.",
                     CHOICE(latency, enum latency_view, latency_names), WORKLOAD},
    [ROW_WARMUP] = {0, "warmup", "DURATION",
                    "Run the load this long first, then reset every statistic; the report "
                    "covers only what follows.",
                    DURATION(warmup_ns)},
    [ROW_PERCENTILES] = {0, "percentiles", "LIST",
                         "Percentiles shown in tables and blocks, e.g. 50,90,99,99.9,99.99. "
                         "Default 50,90,99,99.9.",
                         SPECIAL(apply_percentiles, show_percentiles)},
    [ROW_PRECISION] = {0, "precision", "pP=W%",
                       "Run until the 95% interval of percentile P is within W% of it (e.g. "
                       "p99=5%), or until -t or -x ends the run; the report says which.",
                       SPECIAL(apply_precision, show_precision)},
    [ROW_HDR_OUT] = {0, "hdr_out", "FILE",
                     "Write the run's latency histogram (all types; the view --latency shows) "
                     "as HdrHistogram percentile text (.hgrm, milliseconds) to FILE.",
                     OUTPUT_FILE(hdr_out), NOT_REPLAYED},
    [ROW_SWEEP] = {0, "sweep", "START:END:STEP",
                   "One open-loop run per rate from START to END by STEP (k=1000), printing "
                   "target and achieved rate, p50, p90, p99, p99.9 and max for each.",
                   SPECIAL(apply_sweep, show_sweep), WORKLOAD},
    [ROW_STEP_TIME] = {0, "step_time", "DURATION", "Length of each --sweep step. Default 5s.",
                       DURATION(step_time_ns), WORKLOAD},
    [ROW_ROUNDS] = {0, "rounds", "N",
                    "Measure N rounds of --time each, back to back on the same connections "
                    "(no warm-up between them); report each round and their spread. Default 1.",
                    COUNT32(rounds, 1, SLAP_MAX_ROUNDS, 0)},
    [ROW_JSON] = {0, "json", "FILE",
                  "Write the run's results as one JSON document to FILE (- for standard output, "
                  "the text report then goes to standard error), replacing it whole.",
                  OUTPUT_FILE(json_out), NOT_REPLAYED},
    [ROW_LABEL] = {0, "label", "NAME", "Name of the run in results files. Default: the host name.",
                   STRING(label)},
    [ROW_CSV] = {0, "csv", "FILE",
                 "Write a CSV row per period and type (per step with --sweep) to FILE.",
                 OUTPUT_FILE(csv_out), NOT_REPLAYED},
    [ROW_SVG] = {0, "svg", "FILE",
                 "Draw the run (throughput and latency over time; latency against rate with "
                 "--sweep; the samples with --samples) as an SVG picture in FILE.",
                 OUTPUT_FILE(svg_out), NOT_REPLAYED},
    [ROW_SAMPLES] = {0, "samples", "FILE",
                     "Write every request's intended and actual send time, latency, type and "
                     "outcome to FILE as CSV, streamed.",
                     OUTPUT_FILE(samples_out), NOT_REPLAYED},
    [ROW_SAMPLE_RATE] = {0, "sample_rate", "FRACTION",
                         "Share of requests that --samples writes. Default 1 (all).",
                         FRACTION(sample_rate), NOT_REPLAYED},
    [ROW_START_AT] = {0, "start_at", "TIME",
                      "Connect, then start measuring at TIME: epoch seconds or RFC 3339 (e.g. "
                      "2026-01-01T12:00:00Z), so that several hosts start together.",
                      SPECIAL(apply_start_at, show_start_at), NOT_REPLAYED},
    [ROW_MAX_ERRORS] = {0, "max_errors", "N|P%",
                        "A run with more errors (error replies, protocol errors, requests the "
                        "server left unanswered, values that fail -v) than N, or than P% of its "
                        "requests, exits 1. Without it, any -v failure does.",
                        SPECIAL(apply_max_errors, show_max_errors)},
    [ROW_QUIET] = {'q', "quiet", NULL, "Print only errors and the final Run time line.",
                   FLAG(quiet)},
    [ROW_TRACE] = {0, "trace", "FILE",
                   "Replay a production trace in Twitter's cache-trace format (plain or zstd; - "
                   "for stdin): its keys, value sizes, TTLs and operations, at its own times.",
                   STRING(trace), WORKLOAD},
    [ROW_TRACE_SPEED] = {0, "trace_speed", "X",
                         "Replay X times as fast as the trace's times (2: twice as fast), or max: "
                         "as fast as the answers come (closed loop). Default 1.",
                         SPECIAL(apply_trace_speed, show_trace_speed), WORKLOAD},
    [ROW_TRACE_LIMIT] = {0, "trace_limit", "N",
                         "Replay at most N requests of the trace (k=1000, m, g).",
                         COUNT64(trace_limit, 1, UINT64_MAX, 1000), WORKLOAD},
    [ROW_TRACE_SKIP_BAD] = {0, "trace_skip_bad", NULL,
                            "Skip (and count) malformed trace lines instead of stopping at the "
                            "first.",
                            FLAG(trace_skip_bad)},
    [ROW_TRACE_SPREAD] = {0, "trace_spread", "HOW",
                          "Which connection sends a trace request: client (of its client id, "
                          "in order; the default) or round-robin.",
                          CHOICE(trace_spread, enum trace_spread, trace_spread_names), WORKLOAD},
    [ROW_TRACE_VALUE_MAX] = {0, "trace_value_max", "BYTES",
                             "Send larger trace values at this size (k=1024). Default 1023k, "
                             "within memcached's default item size.",
                             COUNT32(trace_value_max, 1, 128 * SLAP_MAX_VALUE_SIZE, 1024)},
    [ROW_STATS_SERVERS] = {0, "stats_servers", "LIST",
                           "Also read these servers' stats for what limited the run, as "
                           "host[:port] separated by commas: the memcacheds behind a proxy.",
                           STRING(stats_servers)},
    [ROW_PROXY_STATS] = {0, "proxy_stats", "HOST:PORT",
                         "twemproxy's stats port (nutcracker -s): its errors and queues over the "
                         "run, and its backends' stats read as with --stats_servers.",
                         STRING(proxy_stats)},
    [ROW_METRICS] = {0, "metrics", "[ADDR:]PORT",
                     "Serve the run's figures at http://ADDR:PORT/metrics in Prometheus' text "
                     "format while it runs, updated every second. ADDR defaults to 127.0.0.1; "
                     "PORT 0 takes a free port; the address is said on standard error.",
                     STRING(metrics), NOT_REPLAYED},
    [ROW_PUSH] = {0, "push", "URL",
                  "Push the final figures (and each -S period's) to the Prometheus Pushgateway "
                  "at URL (http://HOST:PORT), job slap, instance the --label. A failed push is "
                  "said and changes nothing else.",
                  STRING(push), NOT_REPLAYED},
    [ROW_HELP] = {'h', "help", NULL, "Print this help and exit.", ACTION(apply_help)},
    [ROW_VERSION] = {'V', "version", NULL, "Print the version and exit.", ACTION(apply_version)},
};

_Static_assert(SLAP_ARRAY_SIZE(option_rows) == ROW_COUNT, "a row for every option_id");
_Static_assert(ROW_COUNT <= OPTIONS_MAX_ROWS, "OPTIONS_MAX_ROWS holds every row");

static const char help_intro[] =
    "Usage: slap [OPTIONS]\n"
    "       slap COMMAND [ARGUMENTS] (the commands are listed below)\n"
    "\n"
    "slap is a load generator for memcached. It takes memaslap's options and prints\n"
    "memaslap's report, so existing command lines and scripts keep working. Each\n"
    "client sets 10% and gets 90% of the time, with 64-byte keys.\n"
    "\n"
    "Options (long names work with hyphens too: --win-size is --win_size):\n";

static const char help_outro[] =
    "\n"
    "Exit status:\n"
    "  0  the run completed\n"
    "  1  the run failed (no server reachable, nothing succeeded, more errors than\n"
    "     --max_errors, a value that failed -v)\n"
    "  2  bad usage (an invalid option or value)\n"
    "On SIGINT, SIGTERM or SIGHUP, slap prints its report, then dies of that signal.\n";

static const char help_examples[] = /* after the subcommands' list (subcommand_list.c) */
    "\n"
    "Examples:\n"
    "  slap -s 127.0.0.1:11211 -t 10s\n"
    "  slap --servers=127.0.0.1:11211 -S 1s -T 2 -c 64 --win_size=1k -t 10s\n"
    "  slap -s host1,host2:11212 -x 100k\n"
    "  slap -s 127.0.0.1:11211 --trace cluster12.zst --trace_speed 2\n";

static const struct option_table slap_table = {option_rows, ROW_COUNT, help_intro, help_outro};

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* ---- errors --------------------------------------------------------------------------- */

static const char *usage_program = "slap"; /* the command the --help hint names */

SLAP_PRINTF(2, 0)
static enum options_outcome usage_error_v(FILE *err, const char *format, va_list args)
{
    fputs("slap: ", err);
    vfprintf(err, format, args);
    fprintf(err, "\nTry '%s --help' for more information.\n", usage_program);
    return OPTIONS_USAGE;
}

/* Print "slap: <message>" and the --help hint: the two lines of every usage error. */
SLAP_PRINTF(2, 3)
static enum options_outcome usage_error(FILE *err, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    enum options_outcome outcome = usage_error_v(err, format, args);
    va_end(args);
    return outcome;
}

enum options_outcome options_usage_error(FILE *err, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    enum options_outcome outcome = usage_error_v(err, format, args);
    va_end(args);
    return outcome;
}

/* units lists the accepted suffixes, for UNITS_BAD_UNIT. */
static enum options_outcome report_unit_error(const struct parse_state *st, const char *arg,
                                              enum units_status status, const char *units)
{
    const char *name = st->row->long_name;
    char after = arg[strspn(arg, "0123456789")];
    if (st->row->kind != OPT_DURATION && is_digit(arg[0]) && after != '\0' &&
        strchr(".eE", after) != NULL) {
        return usage_error(st->err, "--%s: '%s' is not a whole number (digits, then k, m or g)", name,
                           arg); /* 1e3, 2.5k: a count is whole digits and a suffix */
    }
    switch (status) {
    case UNITS_NEGATIVE:
        return usage_error(st->err, "--%s: '%s' must not be negative", name, arg);
    case UNITS_BAD_UNIT:
        return usage_error(st->err, "--%s: '%s' has an unknown unit (use %s)", name, arg, units);
    case UNITS_TOO_LARGE:
        return usage_error(st->err, "--%s: '%s' is too large", name, arg);
    case UNITS_OK:
    case UNITS_NOT_NUMBER:
    case UNITS_OUT_OF_RANGE:
    default:
        return usage_error(st->err, "--%s: '%s' is not a number", name, arg);
    }
}

/* ---- the kinds ------------------------------------------------------------------------ */

/* A count in [row->min, row->max], with suffixes when row->kunit is not 0, stored by kind. */
static enum options_outcome parse_count(const struct parse_state *st, const char *arg, void *field)
{
    const struct option_row *row = st->row;
    uint64_t count;
    enum units_status status = units_parse_size(arg, strlen(arg), row->kunit, &count);
    if (status != UNITS_OK) {
        return report_unit_error(st, arg, status, UNITS_SIZE_SUFFIXES);
    }
    if (count < row->min) {
        return usage_error(st->err, "--%s: must be at least %" PRIu64, row->long_name, row->min);
    }
    if (count > row->max) {
        return usage_error(st->err, "--%s: must be at most %" PRIu64, row->long_name, row->max);
    }
    if (row->kind == OPT_COUNT32) {
        *(uint32_t *)field = (uint32_t)count;
    } else if (row->kind == OPT_RATE) {
        *(double *)field = (double)count;
    } else {
        *(uint64_t *)field = count;
    }
    return OPTIONS_RUN;
}

/* A duration of the current option; it must be more than zero. */
static enum options_outcome parse_period(const struct parse_state *st, const char *arg,
                                         uint64_t *ns)
{
    uint64_t period;
    enum units_status status = units_parse_duration(arg, strlen(arg), &period);
    if (status != UNITS_OK) {
        return report_unit_error(st, arg, status, UNITS_DURATION_SUFFIXES);
    }
    if (period == 0) {
        return usage_error(st->err, "--%s: must be more than 0", st->row->long_name);
    }
    *ns = period;
    return OPTIONS_RUN;
}

/* A share in (0, 1], e.g. 0.05. */
static enum options_outcome parse_fraction(const struct parse_state *st, const char *arg,
                                           double *value)
{
    if (units_parse_fraction(arg, strlen(arg), value) != UNITS_OK) {
        return usage_error(st->err, "--%s: '%s' is not a fraction above 0 and up to 1",
                           st->row->long_name, arg);
    }
    return OPTIONS_RUN;
}

/* A file name for the current option: a file to write must have a name, one to read be there. */
static enum options_outcome parse_file(const struct parse_state *st, const char *arg,
                                       const char **field)
{
    if (st->row->kind == OPT_OUTPUT_FILE && arg[0] == '\0') {
        return usage_error(st->err, "--%s: the file name is empty", st->row->long_name);
    }
    if (st->row->kind == OPT_READABLE_FILE && access(arg, R_OK) != 0) {
        char shown[QUOTE_PATH_BUF];
        return usage_error(st->err, "--%s: cannot read %s: %s", st->row->long_name,
                           quote_name(shown, arg), strerror(errno));
    }
    *field = arg;
    return OPTIONS_RUN;
}

/* Where arg stands in names (NULL-terminated), into *index; false when it is not there. */
static bool find_choice(const char *const *names, const char *arg, unsigned *index)
{
    for (unsigned i = 0; names[i] != NULL; i++) {
        if (strcmp(arg, names[i]) == 0) {
            *index = i;
            return true;
        }
    }
    return false;
}

/* "--NAME: 'ARG' is not one of a, b, c", every name listed. */
static enum options_outcome choice_error(const struct parse_state *st, const char *arg,
                                         const char *const *names)
{
    char list[CHOICES_TEXT_MAX] = "";
    size_t used = 0;
    for (size_t i = 0; names[i] != NULL; i++) {
        int n = snprintf(list + used, sizeof(list) - used, "%s%s", i > 0 ? ", " : "", names[i]);
        used = n > 0 && used + (size_t)n < sizeof(list) ? used + (size_t)n : used;
    }
    return usage_error(st->err, "--%s: '%s' is not one of %s", st->row->long_name, arg, list);
}

/* One of the row's choices: its index goes to the enum field. */
static enum options_outcome parse_choice(const struct parse_state *st, const char *arg, void *field)
{
    unsigned index;
    if (!find_choice(st->row->choices, arg, &index)) {
        return choice_error(st, arg, st->row->choices);
    }
    memcpy(field, &index, sizeof(index)); /* the row's macro checked the enum's size */
    return OPTIONS_RUN;
}

/* The current row's value, read as its kind says, into its field. */
static enum options_outcome apply_row(struct parse_state *st, const char *arg)
{
    const struct option_row *row = st->row;
    void *field = (char *)st->target + row->field;
    switch (row->kind) {
    case OPT_FLAG:
        *(bool *)field = true;
        return OPTIONS_RUN;
    case OPT_COUNT32:
    case OPT_COUNT64:
    case OPT_RATE:
        return parse_count(st, arg, field);
    case OPT_DURATION:
        return parse_period(st, arg, field);
    case OPT_FRACTION:
        return parse_fraction(st, arg, field);
    case OPT_STRING:
        *(const char **)field = arg;
        return OPTIONS_RUN;
    case OPT_OUTPUT_FILE:
    case OPT_READABLE_FILE:
        return parse_file(st, arg, field);
    case OPT_CHOICE:
        return parse_choice(st, arg, field);
    case OPT_SPECIAL:
    case OPT_ACTION:
    default:
        return row->handle(st, arg);
    }
}

/* ---- the special cases ---------------------------------------------------------------- */

/* The list is kept as given (it points into argv); servers.c reads its syntax. */
static enum options_outcome apply_servers(struct parse_state *st, const char *arg)
{
    if (arg[0] == '\0') {
        return usage_error(st->err, "--servers: the list is empty");
    }
    st->o->servers = arg;
    return OPTIONS_RUN;
}

/* -B: an alias of --protocol=binary. */
static enum options_outcome apply_binary(struct parse_state *st, const char *arg)
{
    (void)arg;
    st->o->protocol = PROTO_BINARY;
    return OPTIONS_RUN;
}

/* --key_size, --value_size: a size list (cfgfile.c reads it) within [lo, hi]. */
static enum options_outcome parse_sizes(const struct parse_state *st, const char *arg, uint32_t lo,
                                        uint32_t hi, struct size_dist *d)
{
    char why[256];
    if (size_dist_parse(arg, lo, hi, d, why, sizeof(why)) != SLAP_OK) {
        return usage_error(st->err, "--%s: %s", st->row->long_name, why);
    }
    return OPTIONS_RUN;
}

static enum options_outcome apply_key_size(struct parse_state *st, const char *arg)
{
    return parse_sizes(st, arg, SLAP_MIN_KEY_SIZE, SLAP_MAX_KEY_SIZE, &st->o->key_sizes);
}

static enum options_outcome apply_value_size(struct parse_state *st, const char *arg)
{
    return parse_sizes(st, arg, 1, SLAP_MAX_VALUE_SIZE, &st->o->value_sizes);
}

static enum options_outcome apply_ratio(struct parse_state *st, const char *arg)
{
    char *end = NULL;
    double set = is_digit(arg[0]) ? strtod(arg, &end) : -1.0;
    double get = -1.0;
    if (end != NULL && *end == ':' && is_digit(end[1])) {
        get = strtod(end + 1, &end);
    }
    if (set < 0.0 || get < 0.0 || *end != '\0' || !(set + get > 0.0) || !isfinite(set + get)) {
        return usage_error(st->err, "--ratio: '%s' is not SET:GET (two shares, not both 0, "
                                    "whose sum a number can hold)", arg);
    }
    memset(st->o->mix, 0, sizeof(st->o->mix));
    st->o->mix[OP_SET] = set / (set + get);
    st->o->mix[OP_GET] = 1.0 - st->o->mix[OP_SET];
    return OPTIONS_RUN;
}

/* One "OP=SHARE" of --mix into mix (shares as given); a usage error naming what is wrong. */
static enum options_outcome mix_part(struct parse_state *st, const char *part, size_t len,
                                     double *mix, uint32_t *seen)
{
    const char *eq = memchr(part, '=', len);
    size_t name_len = eq != NULL ? (size_t)(eq - part) : len;
    enum op_type op = op_by_name(part, name_len);
    double share;
    if (op == OP_COUNT) {
        return usage_error(st->err, "--mix: '%.*s' is not an operation (get, gets, gat, touch, "
                           "set, add, replace, append, prepend, cas, delete, incr, decr)",
                           (int)name_len, part);
    }
    if (eq == NULL || units_parse_share(eq + 1, len - name_len - 1, &share) != UNITS_OK) {
        return usage_error(st->err, "--mix: '%.*s' is not OP=SHARE with a share of 0 or more",
                           (int)len, part);
    }
    if (*seen & op_bit(op)) {
        return usage_error(st->err, "--mix: %s is given twice", op_name(op));
    }
    *seen |= op_bit(op);
    mix[op] = share;
    return OPTIONS_RUN;
}

static enum options_outcome apply_mix(struct parse_state *st, const char *arg)
{
    double mix[OP_COUNT] = {0}, sum = 0.0;
    uint32_t seen = 0;
    for (const char *p = arg;; p++) {
        size_t len = strcspn(p, ",");
        enum options_outcome outcome = mix_part(st, p, len, mix, &seen);
        if (outcome != OPTIONS_RUN) {
            return outcome;
        }
        p += len;
        if (*p == '\0') {
            break;
        }
    }
    for (int op = 0; op < OP_COUNT; op++) {
        sum += mix[op];
    }
    if (!(sum > 0.0)) {
        return usage_error(st->err, "--mix: '%s': the shares add up to 0", arg);
    }
    if (!isfinite(sum)) {
        return usage_error(st->err, "--mix: '%s': the shares add up to more than a number can "
                           "hold", arg);
    }
    for (int op = 0; op < OP_COUNT; op++) {
        st->o->mix[op] = mix[op] / sum;
    }
    return OPTIONS_RUN;
}

static enum options_outcome apply_exp_time(struct parse_state *st, const char *arg)
{
    enum options_outcome outcome = parse_period(st, arg, &st->o->exp_time_ns);
    if (outcome == OPTIONS_RUN && st->o->exp_time_ns % SLAP_NS_PER_SEC != 0) {
        return usage_error(st->err, "--exp_time: '%s' is not whole seconds", arg);
    }
    return outcome;
}

static enum options_outcome apply_key_dist(struct parse_state *st, const char *arg)
{
    char why[256];
    if (key_dist_parse(arg, &st->o->key_pop, why, sizeof(why)) != SLAP_OK) {
        return usage_error(st->err, "--key_dist: %s", why);
    }
    return OPTIONS_RUN;
}

/* Two names, and the default (negotiate) that no name stands for. */
static enum options_outcome apply_tls_version(struct parse_state *st, const char *arg)
{
    static const char *const names[] = {"1.2", "1.3", NULL};
    unsigned which;
    if (!find_choice(names, arg, &which)) {
        return choice_error(st, arg, names);
    }
    st->o->tls_version = which == 0 ? TLS_VERSION_1_2 : TLS_VERSION_1_3;
    return OPTIONS_RUN;
}

/* One percentile of a list: a number in (0, 100]. */
static bool scan_percentile(const char *text, size_t length, double *value)
{
    char copy[32];
    char *end = NULL;
    if (length == 0 || length >= sizeof(copy) || !is_digit(text[0])) {
        return false;
    }
    memcpy(copy, text, length);
    copy[length] = '\0';
    *value = strtod(copy, &end);
    return *end == '\0' && *value > 0.0 && *value <= 100.0;
}

static enum options_outcome apply_percentiles(struct parse_state *st, const char *arg)
{
    struct slap_options *o = st->o;
    uint32_t count = 0;
    for (const char *p = arg;; p++) {
        size_t length = strcspn(p, ",");
        double value;
        if (!scan_percentile(p, length, &value)) {
            return usage_error(st->err,
                               "--percentiles: '%.*s' is not a number above 0 and up to 100",
                               (int)length, p);
        }
        if (count == SLAP_MAX_PERCENTILES || (count > 0 && value <= o->percentiles[count - 1])) {
            return usage_error(st->err, "--percentiles: give at most %d, in increasing order",
                               SLAP_MAX_PERCENTILES);
        }
        o->percentiles[count++] = value;
        p += length;
        if (*p == '\0') {
            break;
        }
    }
    o->npercentiles = count;
    return OPTIONS_RUN;
}

static enum options_outcome apply_precision(struct parse_state *st, const char *arg)
{
    const char *eq = strchr(arg, '=');
    char *end;
    double pct;
    if (arg[0] != 'p' || eq == NULL || !scan_percentile(arg + 1, (size_t)(eq - arg - 1), &pct) ||
        pct >= 100.0) {
        return usage_error(st->err, "--precision: '%s': give pP=W%%, P a percentile above 0 and "
                                    "below 100 (e.g. p99=5%%)", arg);
    }
    double width = strtod(eq + 1, &end);
    if (end == eq + 1 || strcmp(end, "%") != 0 || !(width > 0.0) || !(width < 100.0)) {
        return usage_error(st->err, "--precision: '%s': the width is a share above 0%% and "
                                    "below 100%% (e.g. p99=5%%)", arg);
    }
    st->o->precision_pct = pct;
    st->o->precision_width = width / 100.0;
    return OPTIONS_RUN;
}

static enum option_value show_precision(const struct slap_options *o, char *buf, size_t len)
{
    if (o->precision_pct <= 0) {
        return OPTION_VALUE_NONE;
    }
    snprintf(buf, len, "p%g=%g%%", o->precision_pct, o->precision_width * 100.0);
    return OPTION_VALUE_TEXT;
}

static enum options_outcome apply_sweep(struct parse_state *st, const char *arg)
{
    uint64_t rates[3];
    const char *p = arg;
    for (int i = 0; i < 3; i++) {
        size_t length = strcspn(p, ":");
        char part[32];
        if (length == 0 || length >= sizeof(part) || (i < 2) != (p[length] == ':')) {
            return usage_error(st->err, "--sweep: '%s' is not START:END:STEP", arg);
        }
        memcpy(part, p, length);
        part[length] = '\0';
        if (units_parse_size(part, length, 1000, &rates[i]) != UNITS_OK || rates[i] == 0 ||
            rates[i] > (uint64_t)SLAP_MAX_TPS) {
            return usage_error(st->err, "--sweep: '%s' is not a rate from 1 to 1g", part);
        }
        p += length + 1;
    }
    if (rates[1] < rates[0] || (rates[1] - rates[0]) / rates[2] >= 1000) {
        return usage_error(st->err, "--sweep: END must be at least START, and 1000 steps at most");
    }
    st->o->sweep_start = (double)rates[0];
    st->o->sweep_end = (double)rates[1];
    st->o->sweep_step = (double)rates[2];
    return OPTIONS_RUN;
}

/* Start-at instants this far in the past are still taken (clocks of hosts differ a little). */
#define START_AT_SLACK_NS SLAP_NS_PER_SEC

static uint64_t wall_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * SLAP_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

static enum options_outcome apply_start_at(struct parse_state *st, const char *arg)
{
    uint64_t at;
    if (units_parse_time(arg, strlen(arg), &at) != UNITS_OK) {
        return usage_error(st->err, "--start_at: '%s' is neither epoch seconds nor an RFC 3339 "
                                    "time such as 2026-01-01T12:00:00Z", arg);
    }
    uint64_t now = wall_clock_ns();
    if (at + START_AT_SLACK_NS < now) {
        return usage_error(st->err, "--start_at: '%s' is %.1f s in the past (this host's clock)",
                           arg, (double)(now - at) / (double)SLAP_NS_PER_SEC);
    }
    st->o->start_at_ns = at;
    return OPTIONS_RUN;
}

static enum options_outcome apply_max_errors(struct parse_state *st, const char *arg)
{
    size_t len = strlen(arg);
    if (len > 1 && arg[len - 1] == '%') {
        char *end = NULL;
        double pct = is_digit(arg[0]) ? strtod(arg, &end) : -1.0;
        if (end != arg + len - 1 || !(pct >= 0.0 && pct <= 100.0)) {
            return usage_error(st->err, "--max_errors: '%s' is not a share from 0%% to 100%%", arg);
        }
        st->o->max_errors_pct = pct;
        st->o->max_errors = UINT64_MAX;
        return OPTIONS_RUN;
    }
    uint64_t count;
    enum units_status status = units_parse_size(arg, len, 1000, &count);
    if (status != UNITS_OK || count == UINT64_MAX) {
        return usage_error(st->err, "--max_errors: '%s' is neither a count (k=1000) nor P%%", arg);
    }
    st->o->max_errors = count;
    st->o->max_errors_pct = -1.0;
    return OPTIONS_RUN;
}

static enum options_outcome apply_trace_speed(struct parse_state *st, const char *arg)
{
    double speed;
    if (strcmp(arg, "max") == 0) {
        st->o->trace_speed = 0.0;
        return OPTIONS_RUN;
    }
    if (units_parse_share(arg, strlen(arg), &speed) != UNITS_OK || !(speed > 0.0) ||
        speed > 1e6) {
        return usage_error(st->err, "--trace_speed: '%s' is neither max nor a number above 0 "
                           "(up to 1000000)", arg);
    }
    st->o->trace_speed = speed;
    return OPTIONS_RUN;
}

static enum options_outcome apply_help(struct parse_state *st, const char *arg)
{
    (void)arg;
    options_print_help(st->out); /* slap's rows, then its subcommands */
    return OPTIONS_EXIT;
}

static enum options_outcome apply_version(struct parse_state *st, const char *arg)
{
    (void)arg;
    fprintf(st->out, "slap %s\n", SLAP_VERSION);
    return OPTIONS_EXIT;
}

/* ---- getopt tables, built from a table's rows ----------------------------------------- */

static struct option getopt_longs[2 * OPTIONS_MAX_ROWS + 1];
static char getopt_shorts[1 + 2 * OPTIONS_MAX_ROWS + 1]; /* ':' first, then "x" or "x:" a row */
static char hyphen_names[OPTIONS_MAX_ROWS][LONG_NAME_MAX];

/* Write name with '-' for '_' into spelling; false when that changes nothing (or cannot fit). */
static bool hyphen_spelling(const char *name, char *spelling)
{
    size_t length = strlen(name);
    if (strchr(name, '_') == NULL || length >= LONG_NAME_MAX) {
        return false;
    }
    for (size_t i = 0; i <= length; i++) {
        spelling[i] = name[i] == '_' ? '-' : name[i];
    }
    return true;
}

static void build_getopt_tables(const struct option_table *t)
{
    size_t longs = 0, shorts = 0;
    getopt_shorts[shorts++] = ':'; /* report a missing value as ':', not '?' */
    for (size_t i = 0; i < t->count; i++) {
        const struct option_row *row = &t->rows[i];
        int has_arg = row->arg_name != NULL ? required_argument : no_argument;
        int code = LONG_CODE_BASE + (int)i;
        getopt_longs[longs++] = (struct option){row->long_name, has_arg, NULL, code};
        if (hyphen_spelling(row->long_name, hyphen_names[i])) {
            getopt_longs[longs++] = (struct option){hyphen_names[i], has_arg, NULL, code};
        }
        if (row->short_name != 0) {
            getopt_shorts[shorts++] = row->short_name;
            if (row->arg_name != NULL) {
                getopt_shorts[shorts++] = ':';
            }
        }
    }
    getopt_longs[longs] = (struct option){NULL, 0, NULL, 0};
    getopt_shorts[shorts] = '\0';
}

/* The row behind a getopt code (a letter or LONG_CODE_BASE + row), or NULL. */
static const struct option_row *row_for_code(const struct option_table *t, int code)
{
    if (code >= LONG_CODE_BASE && (size_t)(code - LONG_CODE_BASE) < t->count) {
        return &t->rows[code - LONG_CODE_BASE];
    }
    for (size_t i = 0; code > 0 && i < t->count; i++) {
        if (t->rows[i].short_name == code) {
            return &t->rows[i];
        }
    }
    return NULL;
}

/* Does typed (a long name as written, up to '=' or its end) begin name, '-' matching '_'? */
static bool long_prefix_of(const char *typed, size_t typed_length, const char *name)
{
    for (size_t i = 0; i < typed_length; i++) {
        char c = typed[i] == '-' ? '_' : typed[i];
        char n = name[i] == '-' ? '_' : name[i];
        if (n == '\0' || c != n) {
            return false;
        }
    }
    return true;
}

/* getopt rejected word as a long option: say whether it was ambiguous or unknown. */
static enum options_outcome unknown_long_option(const struct option_table *t, FILE *err,
                                                const char *word)
{
    const char *typed = word + 2;
    size_t typed_length = strcspn(typed, "=");
    char candidates[256] = "";
    size_t used = 0, matches = 0;
    for (size_t i = 0; i < t->count && typed_length > 0; i++) {
        if (long_prefix_of(typed, typed_length, t->rows[i].long_name)) {
            int n = snprintf(candidates + used, sizeof(candidates) - used, "%s--%s",
                             matches > 0 ? ", " : "", t->rows[i].long_name);
            used = n > 0 && used + (size_t)n < sizeof(candidates) ? used + (size_t)n : used;
            matches++;
        }
    }
    if (matches > 1) {
        return usage_error(err, "option '--%.*s' is ambiguous (%s)", (int)typed_length, typed,
                           candidates);
    }
    return usage_error(err, "unknown option '--%.*s'", (int)typed_length, typed);
}

/* getopt returned '?': an unknown option, or a value given to a flag. */
static enum options_outcome bad_option(const struct parse_state *st, char **argv)
{
    const struct option_row *row = row_for_code(st->table, optopt);
    if (row != NULL) {
        return usage_error(st->err, "--%s does not take a value", row->long_name);
    }
    if (optopt != 0) {
        return usage_error(st->err, "unknown option '-%c'", optopt);
    }
    const char *word = argv[optind - 1];
    if (strncmp(word, "--", 2) == 0) {
        return unknown_long_option(st->table, st->err, word);
    }
    return usage_error(st->err, "unknown option '%s'", word);
}

/* One result of getopt_long, applied and, when good, recorded as given. */
static enum options_outcome dispatch(struct parse_state *st, int code, char **argv)
{
    if (code == '?') {
        return bad_option(st, argv);
    }
    const struct option_row *row = row_for_code(st->table, code == ':' ? optopt : code);
    if (row == NULL) {
        return usage_error(st->err, "unknown option '%s'", argv[optind - 1]);
    }
    if (code == ':') {
        return usage_error(st->err, "--%s needs a value", row->long_name);
    }
    st->row = row;
    enum options_outcome outcome = apply_row(st, optarg);
    if (outcome == OPTIONS_RUN) {
        st->given[row - st->table->rows] = true;
    }
    return outcome;
}

/* ---- the API -------------------------------------------------------------------------- */

void options_defaults(struct slap_options *o)
{
    *o = (struct slap_options){
        .servers = SLAP_DEFAULT_SERVER,
        .threads = 1,
        .concurrency = 16,
        .conns_per_client = 1,
        .execute_number = 0,
        .run_time_ns = 600 * SLAP_NS_PER_SEC,
        .win_size = 10 * 1024,
        .key_size = 64,
        .value_size = 1024,
        .stat_freq_ns = 0,
        .reconnect = false,
        .mix = {[OP_SET] = 0.1, [OP_GET] = 0.9},
        .trace_speed = 1.0,
        .trace_value_max = SLAP_MAX_VALUE_SIZE - 1024,
        .pipeline = 1,
        .rounds = 1,
        .npercentiles = 4,
        .percentiles = {50.0, 90.0, 99.0, 99.9},
        .step_time_ns = 5 * SLAP_NS_PER_SEC,
        .division = 1,
        .exp_time_ns = 60 * SLAP_NS_PER_SEC,
        .key_pop = {.kind = KEY_DIST_UNIFORM, .s = 0.99},
        .arrival = ARRIVAL_UNIFORM,
        .latency = LATENCY_BOTH,
        .distribution = DISTRIBUTION_MODULA,
        .hash = HASH_DEFAULT,
        .protocol = PROTO_ASCII,
        .tls_version = TLS_VERSION_ANY,
        .udp_timeout_ns = 200 * SLAP_NS_PER_MS,
        .timeout_ns = 5 * SLAP_NS_PER_SEC,
        .sample_rate = 1.0,
        .max_errors = UINT64_MAX,
        .max_errors_pct = -1.0,
    };
}

enum options_outcome options_table_parse(struct parse_state *st, const char *program, int argc,
                                         char **argv)
{
    memset(st->given, 0, sizeof(st->given));
    st->row = NULL;
    usage_program = program;
    build_getopt_tables(st->table);
    opterr = 0; /* every message is ours */
    optind = 0; /* GNU: start over, so that tests can parse many times */
    int code;
    while ((code = getopt_long(argc, argv, getopt_shorts, getopt_longs, NULL)) != -1) {
        enum options_outcome outcome = dispatch(st, code, argv);
        if (outcome != OPTIONS_RUN) {
            return outcome;
        }
    }
    if (optind < argc) {
        return usage_error(st->err, "unexpected argument '%s'", argv[optind]);
    }
    return OPTIONS_RUN;
}

enum options_outcome options_parse(struct slap_options *o, int argc, char **argv, FILE *out,
                                   FILE *err)
{
    struct parse_state st = {.o = o, .target = o, .table = &slap_table, .out = out, .err = err};
    options_defaults(o);
    enum options_outcome outcome = options_table_parse(&st, "slap", argc, argv);
    return outcome == OPTIONS_RUN ? options_finish(&st) : outcome;
}

/* "  -s, --servers=LIST" into left; returns its length. */
static size_t help_left_column(const struct option_row *row, char *left, size_t size)
{
    char letter[8] = "    ";
    if (row->short_name != 0) {
        snprintf(letter, sizeof(letter), "-%c, ", row->short_name);
    }
    int n = snprintf(left, size, "  %s--%s%s%s", letter, row->long_name,
                     row->arg_name != NULL ? "=" : "", row->arg_name != NULL ? row->arg_name : "");
    return n > 0 ? (size_t)n : 0;
}

/* Write text from column `column` on, breaking between words to stay within HELP_WIDTH. */
static void print_wrapped(FILE *out, const char *text, size_t column)
{
    size_t at = column;
    bool line_start = true;
    while (*text != '\0') {
        size_t word = strcspn(text, " ");
        if (!line_start && at + 1 + word > HELP_WIDTH) {
            fprintf(out, "\n%*s", (int)column, "");
            at = column;
            line_start = true;
        }
        if (!line_start) {
            fputc(' ', out);
            at++;
        }
        fwrite(text, 1, word, out);
        at += word;
        line_start = false;
        text += word;
        text += strspn(text, " ");
    }
    fputc('\n', out);
}

void options_table_print_help(const struct option_table *t, FILE *out)
{
    char left[LONG_NAME_MAX + 32];
    size_t column = 0;
    for (size_t i = 0; i < t->count; i++) {
        size_t width = help_left_column(&t->rows[i], left, sizeof(left));
        column = width > column ? width : column;
    }
    column += HELP_GAP;
    fputs(t->help_intro, out);
    for (size_t i = 0; i < t->count; i++) {
        help_left_column(&t->rows[i], left, sizeof(left));
        fprintf(out, "%-*s", (int)column, left);
        print_wrapped(out, t->rows[i].help, column);
    }
    fputs(t->help_outro, out);
}

void options_print_help(FILE *out)
{
    options_table_print_help(&slap_table, out);
    subcommand_list_print(out);
    fputs(help_examples, out);
}

size_t options_table_size(void)
{
    return ROW_COUNT;
}

const char *options_table_long_name(size_t i)
{
    return i < ROW_COUNT ? option_rows[i].long_name : NULL;
}

int options_table_short(size_t i)
{
    return i < ROW_COUNT ? option_rows[i].short_name : 0;
}

/* ---- effective values, for results files ---------------------------------------------- */

bool options_table_is_duration(size_t i)
{
    return i < ROW_COUNT && option_rows[i].seconds;
}

bool options_table_replayed(size_t i)
{
    return i < ROW_COUNT && !option_rows[i].not_replayed;
}

bool options_table_workload(size_t i)
{
    return i < ROW_COUNT && option_rows[i].workload;
}

size_t options_table_find(const char *long_name)
{
    for (size_t i = 0; i < ROW_COUNT; i++) {
        if (strcmp(option_rows[i].long_name, long_name) == 0) {
            return i;
        }
    }
    return ROW_COUNT;
}

/* Seconds with up to nine decimals, trailing zeros dropped: "2", "0.2", "0.000001". */
static enum option_value seconds_value(uint64_t ns, char *buf, size_t len)
{
    if (ns == 0) {
        return OPTION_VALUE_NONE;
    }
    snprintf(buf, len, "%llu.%09llu", (unsigned long long)(ns / SLAP_NS_PER_SEC),
             (unsigned long long)(ns % SLAP_NS_PER_SEC));
    char *end = buf + strlen(buf) - 1;
    while (*end == '0') {
        *end-- = '\0';
    }
    if (*end == '.') {
        *end = '\0';
    }
    return OPTION_VALUE_NUMBER;
}

/* A size list as --key_size reads it: "64", "16-32", "4-100:0.3,1024-2048:0.7". */
static enum option_value sizes_value(const struct size_dist *d, uint32_t fixed, char *buf,
                                     size_t len)
{
    size_t used = 0;
    if (d->n == 0) {
        snprintf(buf, len, "%" PRIu32, fixed);
        return OPTION_VALUE_TEXT;
    }
    buf[0] = '\0';
    for (uint32_t i = 0; i < d->n && used < len; i++) {
        const struct size_range *r = &d->r[i];
        char prop[32];
        units_shortest(prop, sizeof(prop), r->prop);
        int n = r->min == r->max && d->n == 1
                    ? snprintf(buf + used, len - used, "%" PRIu32, r->min)
                    : snprintf(buf + used, len - used, "%s%" PRIu32 "-%" PRIu32 ":%s",
                               i > 0 ? "," : "", r->min, r->max, prop);
        used += n > 0 ? (size_t)n : 0;
    }
    return OPTION_VALUE_TEXT;
}

static enum option_value text_value(const char *text, char *buf, size_t len)
{
    if (text == NULL) {
        return OPTION_VALUE_NONE;
    }
    snprintf(buf, len, "%s", text);
    return OPTION_VALUE_TEXT;
}

static enum option_value show_percentiles(const struct slap_options *o, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < o->npercentiles && used < len; i++) {
        int n = snprintf(buf + used, len - used, "%s%g", i > 0 ? "," : "", o->percentiles[i]);
        used += n > 0 ? (size_t)n : 0;
    }
    return OPTION_VALUE_TEXT;
}

/* Does the mix send more than gets and sets? */
static bool mix_beyond_get_set(const struct slap_options *o)
{
    for (int op = 0; op < OP_COUNT; op++) {
        if (op != OP_GET && op != OP_SET && o->mix[op] > 0.0) {
            return true;
        }
    }
    return false;
}

/* SET:GET, as --ratio takes it. */
static enum option_value show_ratio(const struct slap_options *o, char *buf, size_t len)
{
    char set[32], get[32];
    if (o->trace != NULL || mix_beyond_get_set(o)) {
        return OPTION_VALUE_NONE;
    }
    units_shortest(set, sizeof(set), o->mix[OP_SET]);
    units_shortest(get, sizeof(get), o->mix[OP_GET]);
    snprintf(buf, len, "%s:%s", set, get);
    return OPTION_VALUE_TEXT;
}

/* op=share,..., as --mix takes it. */
static enum option_value show_mix(const struct slap_options *o, char *buf, size_t len)
{
    size_t used = 0;
    if (o->trace != NULL || !mix_beyond_get_set(o)) {
        return OPTION_VALUE_NONE;
    }
    buf[0] = '\0';
    for (int op = 0; op < OP_COUNT && used < len; op++) {
        if (o->mix[op] > 0.0) {
            char share[32];
            units_shortest(share, sizeof(share), o->mix[op]);
            int n = snprintf(buf + used, len - used, "%s%s=%s", used > 0 ? "," : "",
                             op_name((enum op_type)op), share);
            used += n > 0 ? (size_t)n : 0;
        }
    }
    return OPTION_VALUE_TEXT;
}

static enum option_value show_servers(const struct slap_options *o, char *buf, size_t len)
{
    return text_value(o->servers, buf, len);
}

static enum option_value show_binary(const struct slap_options *o, char *buf, size_t len)
{
    snprintf(buf, len, "%s", o->protocol == PROTO_BINARY ? "true" : "false");
    return OPTION_VALUE_BOOL;
}

static enum option_value show_key_size(const struct slap_options *o, char *buf, size_t len)
{
    return sizes_value(&o->key_sizes, o->key_size, buf, len);
}

static enum option_value show_value_size(const struct slap_options *o, char *buf, size_t len)
{
    return sizes_value(&o->value_sizes, o->value_size, buf, len);
}

static enum option_value show_trace_speed(const struct slap_options *o, char *buf, size_t len)
{
    if (o->trace_speed == 0.0) {
        snprintf(buf, len, "max");
        return OPTION_VALUE_TEXT;
    }
    units_shortest(buf, len, o->trace_speed);
    return OPTION_VALUE_NUMBER;
}

static enum option_value show_exp_time(const struct slap_options *o, char *buf, size_t len)
{
    return seconds_value(o->exp_time_ns, buf, len);
}

static enum option_value show_key_dist(const struct slap_options *o, char *buf, size_t len)
{
    static const char *const dist_names[] = {"uniform", "zipf", "gaussian"};
    if (o->key_pop.kind == KEY_DIST_ZIPF) {
        char s[32];
        units_shortest(s, sizeof(s), o->key_pop.s);
        snprintf(buf, len, "zipf:%s", s);
        return OPTION_VALUE_TEXT;
    }
    return text_value(dist_names[o->key_pop.kind], buf, len);
}

static enum option_value show_tls_version(const struct slap_options *o, char *buf, size_t len)
{
    return o->tls_version == TLS_VERSION_ANY
               ? OPTION_VALUE_NONE
               : text_value(o->tls_version == TLS_VERSION_1_2 ? "1.2" : "1.3", buf, len);
}

static enum option_value show_sweep(const struct slap_options *o, char *buf, size_t len)
{
    if (o->sweep_step == 0) {
        return OPTION_VALUE_NONE;
    }
    snprintf(buf, len, "%.0f:%.0f:%.0f", o->sweep_start, o->sweep_end, o->sweep_step);
    return OPTION_VALUE_TEXT;
}

static enum option_value show_start_at(const struct slap_options *o, char *buf, size_t len)
{
    return seconds_value(o->start_at_ns, buf, len);
}

static enum option_value show_max_errors(const struct slap_options *o, char *buf, size_t len)
{
    if (o->max_errors_pct >= 0) {
        snprintf(buf, len, "%g%%", o->max_errors_pct);
    } else if (o->max_errors != UINT64_MAX) {
        snprintf(buf, len, "%llu", (unsigned long long)o->max_errors);
    } else {
        return OPTION_VALUE_NONE;
    }
    return OPTION_VALUE_TEXT;
}

static enum option_value show_fixed_size(const struct slap_options *o, char *buf, size_t len)
{
    const struct size_dist *d = &o->value_sizes;
    if (d->n == 0) {
        snprintf(buf, len, "%" PRIu32, o->value_size);
    } else if (d->n == 1 && d->r[0].min == d->r[0].max) {
        snprintf(buf, len, "%" PRIu32, d->r[0].min);
    } else {
        return OPTION_VALUE_NONE;
    }
    return OPTION_VALUE_NUMBER;
}

/* A row shown as its kind says: the field's value, none when it is unset. */
static enum option_value kind_value(const struct option_row *row, const struct slap_options *o,
                                    char *buf, size_t len)
{
    const void *field = (const char *)o + row->field;
    uint64_t count = 0;
    switch (row->kind) {
    case OPT_FLAG:
        snprintf(buf, len, "%s", *(const bool *)field ? "true" : "false");
        return OPTION_VALUE_BOOL;
    case OPT_COUNT32:
    case OPT_COUNT64:
        count = row->kind == OPT_COUNT32 ? *(const uint32_t *)field : *(const uint64_t *)field;
        if (count == 0 && row->min > 0) {
            return OPTION_VALUE_NONE;
        }
        snprintf(buf, len, "%llu", (unsigned long long)count);
        return OPTION_VALUE_NUMBER;
    case OPT_RATE:
    case OPT_FRACTION:
        if (*(const double *)field == 0.0) {
            return OPTION_VALUE_NONE;
        }
        units_shortest(buf, len, *(const double *)field);
        return OPTION_VALUE_NUMBER;
    case OPT_DURATION:
        return seconds_value(*(const uint64_t *)field, buf, len);
    case OPT_STRING:
    case OPT_OUTPUT_FILE:
    case OPT_READABLE_FILE:
        return text_value(*(const char *const *)field, buf, len);
    case OPT_CHOICE: {
        unsigned index;
        memcpy(&index, field, sizeof(index));
        return text_value(row->choices[index], buf, len);
    }
    case OPT_SPECIAL: /* a special row without its show: the unit test walks every row */
    case OPT_ACTION:  /* --help, --version: not settings */
    default:
        return OPTION_VALUE_SKIP;
    }
}

enum option_value options_value(const struct slap_options *o, size_t i, char *buf, size_t len)
{
    if (i >= ROW_COUNT || len == 0) {
        return OPTION_VALUE_SKIP;
    }
    const struct option_row *row = &option_rows[i];
    return row->show != NULL ? row->show(o, buf, len) : kind_value(row, o, buf, len);
}
