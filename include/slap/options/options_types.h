/* The options' values and what their parsing says: struct slap_options and its enums, apart
 * from the functions of options.h so that the table's handlers (options_special.c) can take
 * them without the parser that calls them. */
#ifndef SLAP_OPTIONS_TYPES_H
#define SLAP_OPTIONS_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "slap/engine/replay.h"
#include "slap/engine/worker.h" /* enum worker_priority */
#include "slap/model/cfgfile.h"
#include "slap/model/keydist.h"
#include "slap/model/ops.h"
#include "slap/model/schedule.h"
#include "slap/model/workload.h"
#include "slap/net/auth.h"
#include "slap/net/conn.h" /* enum timestamps */
#include "slap/net/servers.h"
#include "slap/net/tls.h"
#include "slap/output/run_desc.h" /* enum latency_view */
#include "slap/proto/proto.h"

#define SLAP_DEFAULT_SERVER "127.0.0.1:11211"
#define SLAP_MAX_THREADS 1024
#define SLAP_MAX_CONCURRENCY 1000000
#define SLAP_MAX_SHARES 4096 /* --share I/N: N at most */
#define SLAP_MAX_CONNS_PER_CLIENT 1024
#define SLAP_MAX_VALUE_SIZE (1024u * 1024u)
#define SLAP_MAX_WIN_SIZE (1ULL << 32)
#define SLAP_MAX_PERCENTILES 16
#define SLAP_MAX_PIPELINE 1024
#define SLAP_MAX_ROUNDS 1000 /* --rounds */
#define SLAP_MAX_TPS 1e9
#define SLAP_HOST_LABEL_MAX 256 /* the host name that labels a run without --label */

struct slap_options {
    const char *servers;       /* -s as given, else $MEMCACHED_SERVERS, else the default */
    uint32_t threads;          /* -T, default 1 */
    uint32_t concurrency;      /* -c, default 16; need not be a multiple of -T */
    uint32_t conns_per_client; /* -n, default 1 */
    uint64_t execute_number;   /* -x total operations across all clients; 0 = timed run */
    uint64_t run_time_ns;      /* -t, default 600 s (ignored when -x is given) */
    uint64_t win_size;         /* -w keys per client window, default 10k = 10240 */
    uint32_t key_size;         /* bytes, default 64 */
    uint32_t value_size;       /* -X, default 1024 */
    uint64_t stat_freq_ns;     /* -S, 0 = no periodic tables */
    bool reconnect;            /* -R */
    double mix[OP_COUNT];      /* share of each operation, summing to 1: set 0.1, get 0.9 */
    /* Open loop and latency (closed loop when tps is 0). */
    double tps;                    /* -P target operations per second, all threads together */
    enum arrival arrival;          /* --arrival: uniform by default */
    double arrival_shape;          /* --arrival's law's shape (normal, gev, gpareto) */
    const char *ycsb;              /* --ycsb: a YCSB core workload's letter, or NULL */
    uint32_t pipeline;             /* --pipeline: requests in flight per connection, default 1 */
    enum latency_view latency;     /* --latency */
    enum timestamps stamps;        /* --timestamps: read (default) or kernel */
    enum worker_priority priority; /* --priority: normal (default) or realtime */
    bool open_steps;               /* parsed for a command whose runs are all open loops at rates
                                      of its own (slap search: options_parse_open_steps) */
    uint64_t warmup_ns;            /* --warmup: load before the measured run, 0 = none */
    double precision_pct;          /* --precision P=W%: the percentile P (0: no target) */
    double precision_width;        /* and W, the relative half-width asked (0.05 for 5%) */
    uint32_t npercentiles;         /* --percentiles */
    double percentiles[SLAP_MAX_PERCENTILES];
    const char *hdr_out; /* --hdr-out FILE, or NULL */
    double sweep_start;  /* --sweep START:END:STEP; sweep_step 0 = no sweep */
    double sweep_end;
    double sweep_step;
    struct ramp ramp;      /* --ramp FROM:TO/DURATION; duration_ns 0 = no ramp */
    uint32_t rounds;       /* --rounds: measured rounds, default 1 */
    uint64_t step_time_ns; /* --step-time, default 5 s */
    /* Trace replay (--trace): the trace gives keys, values, the mix and the times. */
    const char *trace;              /* --trace FILE or "-", or NULL */
    double trace_speed;             /* --trace-speed: 2 = twice as fast; 0 = max (closed loop) */
    uint64_t trace_limit;           /* --trace-limit: at most this many requests; 0 = all */
    bool trace_skip_bad;            /* --trace-skip-bad */
    enum trace_spread trace_spread; /* --trace-spread */
    uint32_t trace_value_max;  /* --trace-value-max: larger trace values are sent at this size */
    const char *stats_servers; /* --stats_servers: more servers whose stats judge the run */
    const char *proxy_stats;   /* --proxy_stats: twemproxy's stats port */
    /* Workload shape. */
    const char *cfg_file;         /* -F, read when the options are complete */
    bool cfg_groups;              /* and it holds groups (groups.c runs them); no option sets it */
    struct size_dist key_sizes;   /* n == 0: every key is key_size bytes */
    struct size_dist value_sizes; /* n == 0: every value is value_size bytes */
    uint32_t division;            /* -d keys per multi-get, default 1 */
    double verify;                /* -v share of gets whose value is checked */
    bool verbose;                 /* -b details of verification failures */
    double exp_verify;            /* -e share of sets with an expiry time */
    uint64_t exp_time_ns;         /* --exp_time, default 60 s */
    double overwrite;             /* -o share of sets that overwrite a key already set */
    uint32_t rep_write;           /* -p sets go to the first N servers; 0 = the key's server */
    enum server_distribution distribution; /* --distribution */
    enum server_hash hash;                 /* --hash */
    struct key_dist key_pop;               /* --key_dist: which keys gets read */
    struct key_pattern key_pattern;        /* --key_pattern: the law of each command's keys */
    uint64_t key_min;                      /* --key_min, default 0 */
    uint64_t key_max;                      /* --key_max, default 10m */
    bool key_bounds;                       /* either given: one range of keys for every client */
    bool flush;                            /* --flush: flush_all every server before the run */
    bool preload;                          /* --preload: set every window key before the run */
    /* Protocol and transport. */
    enum proto_kind protocol;     /* -B, --protocol: ASCII by default */
    bool tls;                     /* --tls */
    const char *tls_ca;           /* --tls_ca FILE: trusted CAs (default: the system's) */
    const char *tls_cert;         /* --tls_cert FILE: client certificate */
    const char *tls_key;          /* --tls_key FILE: its key */
    bool tls_skip_verify;         /* --tls_skip_verify */
    enum tls_version tls_version; /* --tls_version */
    const char *auth;             /* --auth SOURCE: a file of USER:PASSWORD, or env */
    struct conn_auth auth_creds;  /* what --auth read (options_check); kind AUTH_NONE: none */
    bool udp;                     /* -U: every request over UDP */
    uint64_t reconnect_every;     /* --reconnect_every N: a connection reopened every N answers */
    double reconnect_rate;        /* --reconnect_rate R: connections reopened per second, all of
                                     them together; 0: never */
    bool facebook;                /* -a: sets over TCP, gets over UDP */
    uint64_t udp_timeout_ns;      /* --udp_timeout, default 200 ms */
    uint64_t timeout_ns;          /* --timeout: a TCP answer later than this fails its socket */
    /* Set by the memslap face only (memslap.c); no option of slap's own sets them. */
    bool shared_keys;     /* every client reads and writes client 0's keys, as memslap's
                             threads share one key set; client 0 alone preloads them */
    bool multiget_window; /* a get asks for every key of the window in order (memslap's
                             mget); division is then the window's size */
    bool memslap_face;    /* messages speak of memslap's options, not slap's */
    /* Set by --sweep for its steps after the first; no option sets it. */
    bool windows_stored; /* the first step preloaded the windows and they stay in the
                            servers: nothing is preloaded again */

    /* Results as data (results.c, plot.c) and life in scripts. */
    const char *json_out;    /* --json FILE, "-" for standard output; NULL = none */
    const char *label;       /* --label: names the run in results; default the host name */
    const char *csv_out;     /* --csv FILE: a row per period and type (per step: --sweep) */
    const char *svg_out;     /* --svg FILE: the run's pictures */
    const char *hlog_out;    /* --hlog FILE: HdrHistogram's interval log of the periods */
    const char *samples_out; /* --samples FILE: every (or a --sample_rate share of) request */
    double sample_rate;      /* --sample_rate: share of requests sampled, default 1 */
    uint64_t start_at_ns;    /* --start_at: the measured start, ns since the epoch; 0 = none */
    uint32_t share_index;    /* --share I/N: this host's part, 1 to N; 0 = the whole load */
    uint32_t share_count;    /* N: the hosts that make the load together */
    bool share_keys;         /* --share I/N,keys: this host's clients have keys of their own */
    bool probe;              /* --probe: a latency probe beside load hosts (1 thread, 2
                                clients, -P 100 unless given); merge keeps it apart */
    uint64_t max_errors;     /* --max_errors N: more errors fail the run; UINT64_MAX = none */
    double max_errors_pct;   /* --max_errors P%: a share of the requests; < 0 = none */
    bool quiet;              /* -q: only errors and the Run time line */
    const char *metrics;     /* --metrics [ADDR:]PORT: /metrics served during the run; NULL */
    const char *control;     /* --control [ADDR:]PORT: the run changed while it goes on; NULL */
    const char *push;        /* --push URL: the Pushgateway the figures go to; NULL = none */
    const char *store;       /* --store LOCATION: the results store the run is kept in; NULL */
    /* Owned by the options: the default label (the host name, or "slap"), which label points
     * to when --label is not given. A copy of the options points its label at its own. */
    char host_label[SLAP_HOST_LABEL_MAX];
};

/* What options_value says of an option's effective value. */
enum option_value {
    OPTION_VALUE_SKIP,   /* not a setting (--help, --version): leave it out */
    OPTION_VALUE_NONE,   /* not set: no value (null) */
    OPTION_VALUE_BOOL,   /* "true" or "false" */
    OPTION_VALUE_NUMBER, /* a number (durations in seconds) */
    OPTION_VALUE_TEXT,   /* a string */
};

#define SLAP_MAX_DIVISION 512

/* What the caller should do after options_parse. */
enum options_outcome {
    OPTIONS_RUN = 0,   /* options are valid: run */
    OPTIONS_EXIT = 1,  /* --help or --version was printed: exit 0 */
    OPTIONS_USAGE = 2, /* a one-line error and a --help hint were printed: exit 2 */
};

/* Each option options_parse_seen read well, in argv's order: its row (options_table_long_name's
 * index) and its value as given (NULL for a flag). */
typedef void (*options_seen)(void *arg, size_t row, const char *value);

#endif
