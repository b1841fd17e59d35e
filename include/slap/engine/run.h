/* A run: the plan, the worker threads, the main thread's wait, periods and signals. */
#ifndef SLAP_RUN_H
#define SLAP_RUN_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "slap/base/common.h"
#include "slap/base/hostcpu.h"
#include "slap/engine/limits.h"
#include "slap/engine/replay.h"
#include "slap/net/server_stats.h"
#include "slap/net/servers.h"
#include "slap/net/tls.h"
#include "slap/model/stats.h"
#include "slap/engine/watch.h"
#include "slap/engine/worker.h"
#include "slap/model/workload.h"

struct tls_ctx;

/* The longest tick when run_sinks.fine is set: a tenth of a second, so that a run of a few
 * seconds has periods enough to judge, whatever -S. */
#define RUN_FINE_TICK_NS (SLAP_NS_PER_SEC / 10)

/* Where the run's periods and samples go: the caller connects them to the outputs (tables,
 * the results document, the samples file); the run itself formats and writes none of them.
 * A NULL callback: not wanted. */
struct run_sinks {
    void *ctx;
    /* One period collected (period_no from 1, period_s long); global holds the run so far,
     * this period included. */
    void (*period)(void *ctx, const struct slap_stats *period, const struct slap_stats *global,
                   uint64_t period_no, double period_s);
    /* The answers after the last period, the measured part having lasted elapsed_s. */
    void (*rest)(void *ctx, const struct slap_stats *rest, double elapsed_s);
    /* Asked after each period: true ends the measured part there (as -t would). */
    bool (*enough)(void *ctx);
    /* --samples: write what a worker's ring holds, times from origin_ns; how many it wrote.
     * Called by a thread of the run's own (never the one that collects the periods), so a
     * slow writer costs samples (dropped, counted), never a period. */
    uint64_t (*samples)(void *ctx, struct sample_ring *ring, uint64_t origin_ns);
    /* The run so far (global), elapsed_s into the measured part: at least once a second while
     * it lasts (each period; a period longer than a second is collected in ticks of a second
     * or less, whose sum it is). Setting it asks for periods of 1 s when there are none. */
    void (*tick)(void *ctx, const struct slap_stats *global, double elapsed_s);
    /* Each tick's own statistics, tick_s long: the periods cut into ticks of at most
     * RUN_FINE_TICK_NS, for what judges the run (intervals, steadiness) finer than -S. Last
     * (rest true), the answers after the last tick, tick_s being the measured time they span
     * (0 when the run ended on a tick). Setting it asks for periods of 1 s when there are
     * none. */
    void (*fine)(void *ctx, const struct slap_stats *tick, double tick_s, bool rest);
    /* The main thread has nothing to do for up to ns: the callback may use that time (serve
     * --metrics) and must return by then. NULL: the main thread sleeps. */
    void (*wait)(void *ctx, uint64_t ns);
};

/* What the run is to be: made once from the command line (the cli's plan.c). */
struct run_plan {
    const char *servers;       /* the servers, as -s gives them */
    const char *stats_servers; /* --stats_servers: more servers whose stats judge the run */
    const char *proxy_stats;   /* --proxy_stats: twemproxy's stats port */
    enum server_distribution distribution;
    enum server_hash hash;
    uint32_t threads;          /* -T: workers */
    bool flush;                /* --flush: flush_all every server before the run */
    bool tls;                  /* --tls, made of tls_settings */
    struct tls_settings tls_settings;
    struct workload_plan workload;
    struct trace_options trace; /* --trace: path NULL when there is none */
    enum trace_spread trace_spread;
    /* What the workers and their lanes read: run_init sets its pointers (workload, servers,
     * rings, shape, tls) and what the codec tells; run_want its period_ns. */
    struct engine_config engine;
    uint64_t stat_freq_ns;     /* -S: periods of this length; 0: none asked */
    uint64_t start_at_ns;      /* --start_at: the measured start, ns since the epoch; 0: none */
    const char *label;         /* --label: names the run in the verdict's rows */
    bool quiet;                /* -q: no "preload:" line */
};

struct run {
    struct run_plan plan;      /* as run_init was given it */
    struct server_list servers;
    struct workload workload;
    struct tls_ctx *tls;       /* --tls, else NULL */
    uint32_t nworkers;
    struct worker *workers;
    FILE *out;                 /* the report: stdout */
    struct engine_config engine; /* what the workers and their lanes read: the plan's, completed */
    struct worker_gate gate;     /* the go (its start_ns: the run's start), and the stop */

    int signal;                /* the signal that interrupted the run, or 0 */
    bool out_watched;          /* out is a pipe or a socket: its reader may go away */
    bool output_gone;          /* and it did: the run stopped early */

    struct stats_shape shape;  /* the histograms every statistics of the run keeps */
    struct slap_stats global;  /* everything, collected */
    struct slap_stats period;  /* -S: one period's, collected from the workers */
    struct slap_stats tick;    /* one tick's: a period's, or a part of one (sinks.tick) */
    uint64_t tick_ns;          /* the workers publish every tick_ns: period_ns, or a part */
    uint64_t ticks_per_period; /* of it when sinks.tick or sinks.fine want finer ones */
    uint64_t ticks_collected;  /* by the main thread, in time order */
    uint64_t end_ns;           /* end of the measured part: the latest of the workers' */
    struct worker_stall *stalls; /* per server: sockets that held unanswered requests at the end */
    uint32_t blocked_lanes;    /* lanes that still awaited an answer when the run gave up */
    struct replay replay;      /* --trace: the reader of the trace */
    struct trace_progress trace_sent; /* and what the workers sent of it */
    uint64_t flush_ns;         /* --flush: how long flush_all took (in run_init) */
    bool silent_preload;       /* the caller reports the preload itself: no "preload:" line */

    /* Results as data: set by the caller after run_init, before run_execute. */
    uint64_t period_ns;        /* -S, or 1 s when periods are kept or shown; 0: no periods */
    bool progress;             /* the live line on standard error (a terminal, no -S) */
    struct run_sinks sinks;    /* where periods and samples go */
    struct server_stats_pair *server_stats; /* per server, read around the run; NULL: not read */
    struct watch watch; /* read with them: proxies' CPU (/proc), backends, twemproxy's stats */
    double *fill_evictions;    /* per server, its evictions before the preload or warm-up (< 0:
                                  not read); NULL when there is neither, or no stats are read */
    uint64_t samples_written;  /* the samples thread's, read once it was joined */
    uint64_t samples_dropped;
    pthread_t samples_thread;  /* --samples: drains the workers' rings into sinks.samples */
    bool samples_running;
    atomic_bool samples_stop;  /* the workers are joined: drain once more, then end */
    uint64_t start_wall_ns;    /* the wall clock (epoch ns) at start_ns */

    /* slap's own CPU (getrusage RUSAGE_SELF) over the measured part: the reading at its start,
     * then (cpu_measured) what it used up to the end of the last worker's loop. */
    bool cpu_started;
    bool cpu_measured;
    struct hostcpu_sample host_before; /* every CPU of the host, at the start and the end */
    struct hostcpu_sample host_after;
    double cpus_allowed; /* CPUs slap may use (affinity, cgroup quota) */
    double cpu_user_s;
    double cpu_sys_s;
};

/* The signals that stop a run with its report: SIGINT, SIGTERM, SIGHUP. */
void run_stop_signals(sigset_t *set);

/*
 * Plan the run: resolve servers, build the workload and workers. err gets one line.
 * run_free is called after a failed run_init too.
 */
enum slap_status run_init(struct run *r, const struct run_plan *p, FILE *out, char *err,
                          size_t err_len);
/* Start, wait (printing -S tables), collect. SLAP_ERROR with err filled if set-up failed. */
enum slap_status run_execute(struct run *r, char *err, size_t err_len);
void run_free(struct run *r);

/*
 * After run_init: periods and samples go to sinks (NULL: nowhere), periods of 1 s at least
 * when keep_periods; read the servers' stats around the run, show the progress line. Sets
 * period_ns.
 */
enum slap_status run_want(struct run *r, const struct run_sinks *sinks, bool keep_periods,
                          bool server_stats, bool progress);

/* When the measured part starts (after any warm-up), and its length in seconds: up to the
 * common end (-t), the stop (a signal), or the last answer (-x); 0 if it never began. */
uint64_t run_measure_start(const struct run *r);
double run_seconds(const struct run *r);
/* The preload: sets answered, and how long the slowest thread took. */
void run_preload(const struct run *r, uint64_t *sets, uint64_t *ns);
/*
 * What limited the run, as far as it is known: slap's CPU and its threads', each server's CPU
 * (when server stats were read), the run's shape, judged. SLAP_ERROR when nothing was
 * measured (or out of memory): l is then empty. limits_free releases it either way.
 */
enum slap_status run_limits(const struct run *r, struct limits *l);
/* Did every lane still await an answer when the run gave up waiting? */
bool run_all_blocked(const struct run *r);
/* Say on err how many requests went unanswered, and which servers' sockets held them; each
 * line begins with who ("slap", or "slap: step 40000 ops/s" in a sweep). */
void run_describe_stalls(const struct run *r, FILE *err, const char *who);
/* -R: says, per server, how many connections were lost and still not open again when the run
 * ended (the server never answered again on them); returns how many in all. */
uint32_t run_describe_down(const struct run *r, FILE *err, const char *who);

#endif
