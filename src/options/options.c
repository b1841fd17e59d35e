/* Command-line options: slap's table of rows (how each option is read and shown, its --help
 * text), the defaults, and the effective values for results files. The table machinery is in
 * options_parse.c, the special rows' handlers and shows in options_special.c, the checks across
 * options, once all are read, in options_check.c. */
#include "slap/options/options.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/base/units.h"
#include "slap/base/version.h"
#include "slap/model/keys.h"
#include "slap/net/servers.h"

#include "options_rows.h"
#include "options_special.h"
#include "options_table.h"
#include "slap/options/optdoc.h"
#include "slap/options/subcommand_list.h"

#define OPTIONS_TARGET struct slap_options /* what slap's rows fill */

/* -h and -V print and stop the parse: the caller exits 0. */
static enum options_outcome apply_help(struct parse_state *st, const char *arg);
static enum options_outcome apply_version(struct parse_state *st, const char *arg);

/* The names of each CHOICE row, indexed by the enum they stand for. */
static const char *const protocol_names[] = {
    [PROTO_ASCII] = "ascii", [PROTO_BINARY] = "binary", [PROTO_META] = "meta", NULL};
_Static_assert(SLAP_ARRAY_SIZE(protocol_names) == PROTO_KINDS + 1, "a name for every protocol");
static const char *const distribution_names[] = {[DISTRIBUTION_MODULA] = "modula",
                                                 [DISTRIBUTION_KETAMA] = "ketama",
                                                 [DISTRIBUTION_KETAMA_LIBMEMCACHED] =
                                                     "ketama-libmemcached",
                                                 NULL};
const char *const options_hash_names[] = {
    [HASH_DEFAULT] = "default",   [HASH_MD5] = "md5",           [HASH_CRC] = "crc",
    [HASH_FNV1_64] = "fnv1_64",   [HASH_FNV1A_64] = "fnv1a_64", [HASH_FNV1_32] = "fnv1_32",
    [HASH_FNV1A_32] = "fnv1a_32", [HASH_HSIEH] = "hsieh",       [HASH_MURMUR] = "murmur",
    [HASH_JENKINS] = "jenkins",   [HASH_MURMUR3] = "murmur3",   NULL};
static const char *const trace_spread_names[] = {
    [TRACE_SPREAD_CLIENT] = "client", [TRACE_SPREAD_ROUND_ROBIN] = "round-robin", NULL};
static const char *const latency_names[] = {[LATENCY_BOTH] = "both",
                                            [LATENCY_CORRECTED] = "corrected",
                                            [LATENCY_UNCORRECTED] = "uncorrected",
                                            NULL};
static const char *const timestamps_names[] = {
    [TIMESTAMPS_READ] = "read", [TIMESTAMPS_KERNEL] = "kernel", NULL};
static const char *const priority_names[] = {
    [PRIORITY_NORMAL] = "normal", [PRIORITY_REALTIME] = "realtime", NULL};

/* memaslap's options, in the order of its --help, then slap's own. */
static const struct option_row option_rows[] = {
    [ROW_SERVERS] = {'s', "servers", "LIST",
                     "Servers to load, as host[:port] separated by commas (port 11211 if "
                     "omitted). Default: $MEMCACHED_SERVERS, else " SLAP_DEFAULT_SERVER ".",
                     SPECIAL(options_apply_servers, options_show_servers)},
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
                            COUNT64(execute_number, 1, UINT64_MAX, 1000), WORKLOAD, NOT_WITH_RAMP},
    [ROW_TIME] = {'t', "time", "DURATION",
                  "Run length: a number with ms, s, m, h or d (seconds if bare), e.g. 10s or "
                  "1.5m. Default 600s.",
                  DURATION(run_time_ns), RUN_ONLY},
    [ROW_CFG_CMD] = {'F', "cfg_cmd", "FILE",
                     "Key and value sizes and the set/get mix from a memaslap config file "
                     "(sections key, value, cmd); or several workloads at once from a file of "
                     "'group NAME' sections, each its options.",
                     STRING(cfg_file), NOT_REPLAYED, GROUP_OWN_FILE, READS_FILE},
    [ROW_WIN_SIZE] = {'w', "win_size", "SIZE",
                      "Keys in each client's window (k=1024, m, g). Default 10k.",
                      COUNT64(win_size, 1, SLAP_MAX_WIN_SIZE, 1024), WORKLOAD},
    [ROW_FIXED_SIZE] = {'X', "fixed_size", "BYTES",
                        "Value length in bytes, 1 to 1m (k=1024). Default 1024.",
                        COUNT32(value_size, 1, SLAP_MAX_VALUE_SIZE, 1024),
                        SHOW(options_show_fixed_size)},
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
                       DURATION(stat_freq_ns), RUN_KEPT},
    [ROW_EXP_VERIFY] = {'e', "exp_verify", "FRACTION",
                        "Share of sets with an expiry time (--exp_time); later gets check that "
                        "they expired.",
                        FRACTION(exp_verify), WORKLOAD},
    [ROW_OVERWRITE] = {'o', "overwrite", "FRACTION",
                       "Share of sets that overwrite a key already set.", FRACTION(overwrite),
                       WORKLOAD},
    [ROW_RECONNECT_EVERY] = {0, "reconnect_every", "N",
                             "Close each connection after N answers and open it again (between "
                             "requests: needs --pipeline 1, TCP); the time to reconnect is "
                             "reported as connect.",
                             COUNT64(reconnect_every, 1, UINT64_MAX, 1000), WORKLOAD},
    [ROW_RECONNECT_RATE] = {0, "reconnect_rate", "RATE",
                            "Close and reopen RATE connections per second in all (k=1000), each "
                            "connection in turn at its own times, between requests (needs "
                            "--pipeline 1, TCP); the time to reconnect is reported as connect.",
                            RATE(reconnect_rate, 1, (uint64_t)SLAP_MAX_TPS, 1000), WORKLOAD},
    [ROW_RECONNECT] = {'R', "reconnect", NULL, "Reopen connections that the server closes.",
                       FLAG(reconnect)},
    [ROW_UDP] = {'U', "udp", NULL,
                 "Send every request over UDP (the server's UDP port must equal its TCP port); "
                 "each request must fit one datagram.",
                 FLAG(udp), WORKLOAD},
    [ROW_FACEBOOK] = {'a', "facebook", NULL, "Sets over TCP, gets and multi-gets over UDP.",
                      FLAG(facebook), WORKLOAD},
    [ROW_BINARY] = {'B', "binary", NULL, "Use the binary protocol (same as --protocol=binary).",
                    SPECIAL(options_apply_binary, options_show_binary), NOT_REPLAYED},
    [ROW_TPS] = {'P', "tps", "RATE",
                 "Open loop: send RATE operations per second in all (k=1000, m, g), each at its "
                 "own intended time; latency counts from that time, so queueing shows.",
                 RATE(tps, 1, (uint64_t)SLAP_MAX_TPS, 1000), NOT_WITH_RAMP},
    [ROW_REP_WRITE] = {'p', "rep_write", "N",
                       "Every set goes to each of the first N servers; gets read from one of "
                       "them.",
                       COUNT32(rep_write, 1, UINT16_MAX, 0), WORKLOAD},
    [ROW_VERBOSE] = {'b', "verbose", NULL, "Print details of verification failures (the first 10).",
                     FLAG(verbose)},
    [ROW_KEY_SIZE] = {0, "key_size", "SIZES",
                      "Key sizes: N, MIN-MAX, a weighted list such as 16-32:0.5,64-128:0.5, a "
                      "law (normal:MEAN,SD, exponential:MEAN, gev:LOC,SCALE,SHAPE, "
                      "gpareto:LOC,SCALE,SHAPE, uniform:MIN,MAX, fixed:N) or etc (Facebook's "
                      "ETC pool), 16 to 250. Default 64.",
                      SPECIAL(options_apply_key_size, options_show_key_size), WORKLOAD},
    [ROW_VALUE_SIZE] = {0, "value_size", "SIZES",
                        "Value sizes, same forms (1 to 1m, k=1024), e.g. the Olio mix "
                        "4-100:0.3,1024-2048:0.5,5120-20480:0.2, or etc. Default 1024.",
                        SPECIAL(options_apply_value_size, options_show_value_size), WORKLOAD},
    [ROW_RATIO] = {0, "ratio", "SET:GET", "The set/get mix, e.g. 1:9 (the default) or 0:1.",
                   SPECIAL(options_apply_ratio, options_show_ratio), WORKLOAD},
    [ROW_MIX] = {0, "mix", "OP=SHARE,...",
                 "The operations and their shares, e.g. get=70,set=20,delete=5,incr=5. OPs: "
                 "get, gets, gat, touch, set, add, replace, append, prepend, cas, delete, incr, "
                 "decr.",
                 SPECIAL(options_apply_mix, options_show_mix), WORKLOAD},
    [ROW_EXP_TIME] = {0, "exp_time", "DURATION",
                      "Expiry time of -e sets, whole seconds; above 30 days sent as the Unix "
                      "time that far ahead (ascii, meta: up to 2038). Default 60s.",
                      SPECIAL(options_apply_exp_time, options_show_exp_time), SECONDS, WORKLOAD},
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
                      "Which stored keys gets and the other commands on a stored key read: "
                      "uniform (default), zipf[:S] (S default 0.99), latest[:S] or gaussian.",
                      SPECIAL(options_apply_key_dist, options_show_key_dist), WORKLOAD},
    [ROW_KEY_PATTERN] = {0, "key_pattern", "OP:LAW,...",
                         "The keys each command takes, later items over earlier ones: OP a "
                         "command of --mix, write (set, add, replace, append, prepend, cas), "
                         "read (get, gets, gat, touch) or all; LAW sequential (in order, as sets "
                         "walk by default) or a --key_dist law. E.g. set:uniform,get:zipf.",
                         SPECIAL(options_apply_key_pattern, options_show_key_pattern), WORKLOAD},
    [ROW_KEY_MIN] = {0, "key_min", "N",
                     "With or without --key_max: every client takes keys N (default 0) to "
                     "--key_max, one range named by number alone, shared by clients and runs "
                     "(not with -w, -v, -o, -e).",
                     COUNT64(key_min, 0, KEY_LAYOUT_NUMBER_MAX, 1000), SHOW(options_show_key_min),
                     WORKLOAD},
    [ROW_KEY_MAX] = {0, "key_max", "N",
                     "The last key of that range (k=1000, up to 4294967295; default 10m); a get "
                     "of a key never set is a miss.",
                     COUNT64(key_max, 0, KEY_LAYOUT_NUMBER_MAX, 1000), SHOW(options_show_key_max),
                     WORKLOAD},
    [ROW_YCSB] = {0, "ycsb", "WORKLOAD",
                  "One of YCSB's core workloads: a (50% reads, 50% updates), b (95/5), c "
                  "(reads), d (95% reads of the latest keys, 5% inserts) or f (reads and "
                  "read-modify-writes: gets, then cas), zipfian keys, 1000-byte values, 23-byte "
                  "keys; --mix, --ratio, --key_dist and the sizes given override it.",
                  SPECIAL(options_apply_ycsb, options_show_ycsb), NOT_REPLAYED},
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
                         SPECIAL(options_apply_tls_version, options_show_tls_version)},
    [ROW_AUTH] = {0, "auth", "SOURCE",
                  "Authenticate every connection before its first request: SASL PLAIN with "
                  "the binary protocol (memcached -S), memcached's ASCII authentication with "
                  "ascii and meta (-Y). SOURCE: a file whose first line is USER:PASSWORD, or "
                  "env (SLAP_AUTH_USER, SLAP_AUTH_PASSWORD); never the command line.",
                  STRING(auth), NOT_REPLAYED, READS_FILE},
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
                     "Open-loop arrivals: uniform (evenly spaced, default), poisson (random "
                     "exponential gaps, same mean; also exponential), or random gaps of a law "
                     "by its shape, the mean -P's: normal:CV (above 0, up to 0.33), gev:SHAPE "
                     "(above 0, below 0.5), gpareto:SHAPE (0 to below 0.5: from 0.5 the gaps' "
                     "variance is infinite and the rate strays), etc (Facebook's ETC pool: "
                     "gpareto:0.154971).",
                     SPECIAL(options_apply_arrival, options_show_arrival), WORKLOAD},
    [ROW_PIPELINE] = {0, "pipeline", "N",
                      "Requests in flight per connection, 1 to 1024. Default 1 (one request, "
                      "then its answer).",
                      COUNT32(pipeline, 1, SLAP_MAX_PIPELINE, 0), WORKLOAD},
    [ROW_LATENCY] = {0, "latency", "VIEW",
                     "Open loop: corrected (from the intended send), uncorrected (from the "
                     "actual send) or both (corrected, plus uncorrected final blocks). Default "
                     "both.",
                     CHOICE(latency, enum latency_view, latency_names), WORKLOAD},
    [ROW_TIMESTAMPS] = {0, "timestamps", "WHEN",
                        "Where an answer's latency ends: read (slap's read of it, default) or "
                        "kernel (the kernel's arrival stamp, TCP, UDP and TLS; slap's own delay "
                        "between the two is reported as own_delay).",
                        CHOICE(stamps, enum timestamps, timestamps_names)},
    [ROW_PRIORITY] = {0, "priority", "WHICH",
                      "Open loop: normal (default) or realtime, the worker threads at the lowest "
                      "SCHED_FIFO priority, so that a due request's wake-up preempts other "
                      "processes on its CPU (root or CAP_SYS_NICE).",
                      CHOICE(priority, enum worker_priority, priority_names), NOT_REPLAYED},
    [ROW_WARMUP] = {0, "warmup", "DURATION",
                    "Run the load this long first, then reset every statistic; the report "
                    "covers only what follows.",
                    DURATION(warmup_ns), RUN_ONLY, NOT_WITH_RAMP},
    [ROW_PERCENTILES] = {0, "percentiles", "LIST",
                         "Percentiles shown in tables and blocks, e.g. 50,90,99,99.9,99.99. "
                         "Default 50,90,99,99.9.",
                         SPECIAL(options_apply_percentiles, options_show_percentiles), RUN_ONLY},
    [ROW_PRECISION] = {0, "precision", "pP=W%",
                       "Run until the 95% interval of percentile P is within W% of it (e.g. "
                       "p99=5%), or until -t or -x ends the run; the report says which.",
                       SPECIAL(options_apply_precision, options_show_precision), RUN_ONLY,
                       NOT_WITH_RAMP},
    [ROW_HDR_OUT] = {0, "hdr_out", "FILE",
                     "Write the run's latency histogram (all types; the view --latency shows) "
                     "as HdrHistogram percentile text (.hgrm, milliseconds) to FILE.",
                     OUTPUT_FILE(hdr_out), NOT_REPLAYED, NO_GROUPS, TO_STDOUT},
    [ROW_SWEEP] = {0, "sweep", "START:END:STEP",
                   "One open-loop run per rate from START to END by STEP (k=1000), printing "
                   "target and achieved rate, p50, p90, p99, p99.9 and max for each.",
                   SPECIAL(options_apply_sweep, options_show_sweep), WORKLOAD, NO_GROUPS,
                   NOT_WITH_RAMP},
    [ROW_STEP_TIME] = {0, "step_time", "DURATION", "Length of each --sweep step. Default 5s.",
                       DURATION(step_time_ns), WORKLOAD, NO_GROUPS},
    [ROW_RAMP] = {0, "ramp", "FROM:TO/DURATION",
                  "Open loop at a rate going linearly from FROM to TO (k=1000; FROM may be 0, "
                  "TO below FROM falls) over DURATION, then TO; the run lasts DURATION unless -t "
                  "says otherwise. Each period's target and achieved rate in every output.",
                  SPECIAL(options_apply_ramp, options_show_ramp), WORKLOAD},
    [ROW_ROUNDS] = {0, "rounds", "N",
                    "Measure N rounds of --time each, back to back on the same connections "
                    "(no warm-up between them); report each round and their spread. Default 1.",
                    COUNT32(rounds, 1, SLAP_MAX_ROUNDS, 0), NO_GROUPS, NOT_WITH_RAMP},
    [ROW_JSON] = {0, "json", "FILE",
                  "Write the run's results as one JSON document to FILE (- for standard output, "
                  "the text report then goes to standard error), replacing it whole.",
                  OUTPUT_FILE(json_out), NOT_REPLAYED, RUN_KEPT, TO_STDOUT},
    [ROW_LABEL] = {0, "label", "NAME", "Name of the run in results files. Default: the host name.",
                   STRING(label), RUN_KEPT},
    [ROW_CSV] = {0, "csv", "FILE",
                 "Write a CSV row per period and type (per step with --sweep) to FILE.",
                 OUTPUT_FILE(csv_out), NOT_REPLAYED, RUN_KEPT},
    [ROW_SVG] = {0, "svg", "FILE",
                 "Draw the run (throughput and latency over time; latency against rate with "
                 "--sweep; the samples with --samples) as an SVG picture in FILE.",
                 OUTPUT_FILE(svg_out), NOT_REPLAYED, RUN_KEPT},
    [ROW_HLOG] = {0, "hlog", "FILE",
                  "Write the latency of each period (-S, else the run's own) as an HdrHistogram "
                  "interval log to FILE: all types together, then a Tag= line per type.",
                  OUTPUT_FILE(hlog_out), NOT_REPLAYED, RUN_KEPT},
    [ROW_SAMPLES] = {0, "samples", "FILE",
                     "Write every request's intended and actual send time, latency, type and "
                     "outcome to FILE as CSV, streamed.",
                     OUTPUT_FILE(samples_out), NOT_REPLAYED, NO_GROUPS},
    [ROW_SAMPLE_RATE] = {0, "sample_rate", "FRACTION",
                         "Share of requests that --samples writes. Default 1 (all).",
                         FRACTION(sample_rate), NOT_REPLAYED, NO_GROUPS},
    [ROW_START_AT] = {0, "start_at", "TIME",
                      "Connect, then start measuring at TIME: epoch seconds or RFC 3339 (e.g. "
                      "2026-01-01T12:00:00Z), so that several hosts start together.",
                      SPECIAL(options_apply_start_at, options_show_start_at), NOT_REPLAYED,
                      RUN_KEPT},
    [ROW_SHARE] = {0, "share", "I/N[,keys]",
                   "This host's part of a load that N hosts make together: 1/N of -P (and of "
                   "each --sweep rate) and of -x; with ,keys, keys no other host uses. I from 1 "
                   "to N, or auto: Kubernetes' JOB_COMPLETION_INDEX or Slurm's SLURM_PROCID, "
                   "plus 1.",
                   SPECIAL(options_apply_share, options_show_share), NO_GROUPS},
    [ROW_PROBE] = {0, "probe", NULL,
                   "A latency probe to run beside load hosts: a low fixed rate (-P 100 unless "
                   "given) from 1 thread and 2 clients (unless -T, -c); slap merge shows its "
                   "latency apart and adds none of its requests to the load's.",
                   FLAG(probe), NO_GROUPS, NOT_WITH_RAMP},
    [ROW_MAX_ERRORS] = {0, "max_errors", "N|P%",
                        "A run with more errors (error replies, protocol errors, requests the "
                        "server left unanswered, values that fail -v) than N, or than P% of its "
                        "requests, exits 1. Without it, any -v failure does.",
                        SPECIAL(options_apply_max_errors, options_show_max_errors)},
    [ROW_QUIET] = {'q', "quiet", NULL, "Print only errors and the final Run time line.",
                   FLAG(quiet), RUN_KEPT},
    [ROW_TRACE] = {0, "trace", "FILE",
                   "Replay a production trace in Twitter's cache-trace format (plain or zstd; - "
                   "for stdin): its keys, value sizes, TTLs and operations, at its own times.",
                   STRING(trace), WORKLOAD, READS_FILE, NOT_WITH_RAMP},
    [ROW_TRACE_SPEED] = {0, "trace_speed", "X",
                         "Replay X times as fast as the trace's times (2: twice as fast), or max: "
                         "as fast as the answers come (closed loop). Default 1.",
                         SPECIAL(options_apply_trace_speed, options_show_trace_speed), WORKLOAD},
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
                     STRING(metrics), NOT_REPLAYED, RUN_KEPT},
    [ROW_PUSH] = {0, "push", "URL",
                  "Push the final figures (and each -S period's) to the Prometheus Pushgateway "
                  "at URL (http://HOST:PORT), job slap, instance the --label. A failed push is "
                  "said and changes nothing else.",
                  STRING(push), NOT_REPLAYED, RUN_ONLY},
    [ROW_CONTROL] = {0, "control", "[ADDR:]PORT",
                     "Let a person or a script change the run while it goes on, over HTTP at "
                     "ADDR:PORT (as --metrics takes it; 127.0.0.1 by default): POST "
                     "/rate?to=RATE sets the open-loop rate, /pause, /resume, /stop; GET / "
                     "gives the state. Each change is in the periods and the results.",
                     STRING(control), NOT_REPLAYED, RUN_ONLY},
    [ROW_STORE] = {0, "store", "LOCATION",
                   "Keep the run in the results store at LOCATION (an SQLite file, made when "
                   "missing, or a postgresql:// URL) for slap history. Default: $SLAP_STORE. A "
                   "store that cannot be written is said and fails the run (exit 1); the report "
                   "and the other outputs are written all the same.",
                   STRING(store), SHOW(options_show_store), NOT_REPLAYED, RUN_KEPT},
    [ROW_HELP] = {'h', "help", NULL, "Print this help and exit.", ACTION(apply_help), RUN_ONLY},
    [ROW_VERSION] = {'V', "version", NULL, "Print the version and exit.", ACTION(apply_version),
                     RUN_ONLY},
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
        .key_max = 10000000, /* memtier's --key-maximum */
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

enum options_outcome options_parse(struct slap_options *o, int argc, char **argv, FILE *out,
                                   FILE *err)
{
    return options_parse_seen(o, argc, argv, out, err, NULL, NULL);
}

/* The options from the defaults; open_steps: a command whose runs are all open loops. */
static enum options_outcome parse_from_defaults(struct slap_options *o, int argc, char **argv,
                                                FILE *out, FILE *err, options_seen seen,
                                                void *seen_arg, bool open_steps, bool reading_back)
{
    struct parse_state st = {.o = o,
                             .target = o,
                             .table = &slap_table,
                             .out = out,
                             .err = err,
                             .seen = seen,
                             .seen_arg = seen_arg,
                             .reading_back = reading_back};
    options_defaults(o);
    o->open_steps = open_steps;
    enum options_outcome outcome = options_table_parse(&st, "slap", argc, argv);
    return outcome == OPTIONS_RUN ? options_finish(&st) : outcome;
}

enum options_outcome options_parse_seen(struct slap_options *o, int argc, char **argv, FILE *out,
                                        FILE *err, options_seen seen, void *seen_arg)
{
    return parse_from_defaults(o, argc, argv, out, err, seen, seen_arg, false, false);
}

enum options_outcome options_parse_open_steps(struct slap_options *o, int argc, char **argv,
                                              FILE *out, FILE *err)
{
    return parse_from_defaults(o, argc, argv, out, err, NULL, NULL, true, false);
}

enum options_outcome options_parse_read_back(struct slap_options *o, int argc, char **argv,
                                             FILE *out, FILE *err)
{
    return parse_from_defaults(o, argc, argv, out, err, NULL, NULL, false, true);
}

void options_print_help(FILE *out)
{
    options_table_print_help(&slap_table, out);
    subcommand_list_print(out);
    fputs(help_examples, out);
}

size_t options_docs(struct optdoc *out, size_t max)
{
    return options_table_docs(&slap_table, out, max);
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

const char *options_table_help(size_t i)
{
    return i < ROW_COUNT ? option_rows[i].help : NULL;
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

bool options_table_writes_file(size_t i)
{
    return i < ROW_COUNT && option_rows[i].kind == OPT_OUTPUT_FILE;
}

bool options_table_reads_file(size_t i)
{
    return i < ROW_COUNT && (option_rows[i].reads_file || option_rows[i].kind == OPT_READABLE_FILE);
}

unsigned options_table_groups(size_t i)
{
    return i < ROW_COUNT ? option_rows[i].groups : 0;
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
        return options_seconds_value(*(const uint64_t *)field, buf, len);
    case OPT_STRING:
    case OPT_OUTPUT_FILE:
    case OPT_READABLE_FILE:
        return options_text_value(*(const char *const *)field, buf, len);
    case OPT_CHOICE: {
        unsigned index;
        memcpy(&index, field, sizeof(index));
        return options_text_value(row->choices[index], buf, len);
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
