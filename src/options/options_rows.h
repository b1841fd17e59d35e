/*
 * slap's option rows by name, for its table (options.c) and the checks across its options
 * once all are read (options_check.c). Internal to those two files.
 */
#ifndef SLAP_OPTIONS_ROWS_H
#define SLAP_OPTIONS_ROWS_H

#include <stdbool.h>

#include "options_table.h"

/* The rows of slap's table, in memaslap's --help order, then slap's own. */
enum option_id {
    ROW_SERVERS,
    ROW_THREADS,
    ROW_CONCURRENCY,
    ROW_CONN_SOCK,
    ROW_EXECUTE_NUMBER,
    ROW_TIME,
    ROW_CFG_CMD,
    ROW_WIN_SIZE,
    ROW_FIXED_SIZE,
    ROW_VERIFY,
    ROW_DIVISION,
    ROW_STAT_FREQ,
    ROW_EXP_VERIFY,
    ROW_OVERWRITE,
    ROW_RECONNECT,
    ROW_RECONNECT_EVERY,
    ROW_RECONNECT_RATE,
    ROW_UDP,
    ROW_FACEBOOK,
    ROW_BINARY,
    ROW_TPS,
    ROW_REP_WRITE,
    ROW_VERBOSE,
    ROW_KEY_SIZE,
    ROW_VALUE_SIZE,
    ROW_RATIO,
    ROW_MIX,
    ROW_EXP_TIME,
    ROW_DISTRIBUTION,
    ROW_HASH,
    ROW_KEY_DIST,
    ROW_KEY_PATTERN,
    ROW_KEY_MIN,
    ROW_KEY_MAX,
    ROW_YCSB,
    ROW_PROTOCOL,
    ROW_TLS,
    ROW_TLS_CA,
    ROW_TLS_CERT,
    ROW_TLS_KEY,
    ROW_TLS_SKIP_VERIFY,
    ROW_TLS_VERSION,
    ROW_AUTH,
    ROW_TIMEOUT,
    ROW_UDP_TIMEOUT,
    ROW_FLUSH,
    ROW_PRELOAD,
    ROW_ARRIVAL,
    ROW_PIPELINE,
    ROW_LATENCY,
    ROW_TIMESTAMPS,
    ROW_PRIORITY,
    ROW_WARMUP,
    ROW_PERCENTILES,
    ROW_PRECISION,
    ROW_HDR_OUT,
    ROW_SWEEP,
    ROW_STEP_TIME,
    ROW_RAMP,
    ROW_ROUNDS,
    ROW_JSON,
    ROW_LABEL,
    ROW_CSV,
    ROW_SVG,
    ROW_HLOG,
    ROW_SAMPLES,
    ROW_SAMPLE_RATE,
    ROW_START_AT,
    ROW_SHARE,
    ROW_PROBE,
    ROW_MAX_ERRORS,
    ROW_QUIET,
    ROW_TRACE,
    ROW_TRACE_SPEED,
    ROW_TRACE_LIMIT,
    ROW_TRACE_SKIP_BAD,
    ROW_TRACE_SPREAD,
    ROW_TRACE_VALUE_MAX,
    ROW_STATS_SERVERS,
    ROW_PROXY_STATS,
    ROW_METRICS,
    ROW_PUSH,
    ROW_CONTROL,
    ROW_STORE,
    ROW_HELP,
    ROW_VERSION,
    ROW_COUNT
};

/* Did the command line set the option of row id (whatever the value)? */
static inline bool was_given(const struct parse_state *st, enum option_id id)
{
    return st->given[id];
}

/* What needs every option: checks across them, the -F file, UDP's limits, the server list. */
enum options_outcome options_finish(const struct parse_state *st);

#endif
