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
#include "slap/engine/replay.h"
#include "slap/engine/run_event.h"
#include "slap/engine/watch.h"
#include "slap/engine/worker.h"
#include "slap/judge/limits.h"
#include "slap/model/stats.h"
#include "slap/model/workload.h"
#include "slap/net/auth.h"
#include "slap/net/server_stats.h"
#include "slap/net/servers.h"
#include "slap/net/tls.h"

struct tls_ctx;

/* The longest tick when run_sinks.fine is set: a tenth of a second, so that a run of a few
 * seconds has periods enough to judge, whatever -S. */
#define RUN_FINE_TICK_NS (SLAP_NS_PER_SEC / 10)

/* Where the run's periods, samples and events go: the caller connects them to the outputs
 * (tables, the results document, the samples file, its messages); the run itself formats and
 * writes none of them. A NULL callback: not wanted. */
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
    /* What the run tells as it goes (run_event.h: the progress line, the preload's line, notes
     * for standard error), with a context of its own: called from the main thread and from the
     * workers', so it must be thread-safe. tell NULL: said nowhere. */
    struct run_event_sink events;
};

/* What the run is to be: made once from the command line (the cli's plan.c). */
struct run_plan {
    const char *servers;       /* the servers, as -s gives them */
    const char *stats_servers; /* --stats_servers: more servers whose stats judge the run */
    const char *proxy_stats;   /* --proxy_stats: twemproxy's stats port */
    enum server_distribution distribution;
    enum server_hash hash;
    uint32_t threads; /* -T: workers */
    bool flush;       /* --flush: flush_all every server before the run */
    bool tls;         /* --tls, made of tls_settings */
    struct tls_settings tls_settings;
    struct conn_auth auth; /* --auth: what each connection presents (kind AUTH_NONE: none) */
    struct workload_plan workload;
    struct trace_options trace; /* --trace: path NULL when there is none */
    enum trace_spread trace_spread;
    /* What the workers and their lanes read: run_init sets its pointers (workload, servers,
     * rings, shape, tls), what the codec tells, and its period_ns from period_ns below. */
    struct engine_config engine;
    /* The periods, collected from the workers and handed to run_sinks: -S, or shorter ones
     * the outputs keep for a short run's intervals; 0: none (periods of 1 s all the same when
     * run_want asks for kept periods, ticks or the progress line). */
    uint64_t period_ns;
    uint64_t start_at_ns; /* --start_at: the measured start, ns since the epoch; 0: none */
    const char *label;    /* --label: names the run in the verdict's rows */
    bool quiet;           /* -q: no PRELOAD event */
    bool silent_preload;  /* the caller reports the preload itself: no PRELOAD event */
};

/* A run, opaque to its caller: made by run_init, read through the functions below. */
struct run;

/* What the caller reads of a run: run_result fills it, once run_execute returned (or run_init
 * failed: then nothing ran). Its pointers are the run's, valid until run_free. */
struct run_result {
    int signal;                      /* the signal that interrupted the run, or 0 */
    const struct slap_stats *global; /* everything, collected; NULL when run_init failed */
    uint64_t start_ns;               /* the go (slap_now_ns); 0 if never given */
    uint64_t end_ns;                 /* end of the measured part: the latest of the workers' */
    uint64_t measure_wall_ns;        /* the wall clock (epoch ns) where the measured part
                                        began: the go plus any warm-up */
    uint64_t flush_ns;               /* --flush: how long flush_all took */
    uint64_t period_ns;              /* the periods' length; 0: none */
    uint32_t nservers;
    const struct server *servers;                 /* nservers of them */
    const struct server_stats_pair *server_stats; /* per server, around the run; NULL: not read */
    const struct worker_stall *stalls;       /* per server: sockets that held unanswered requests */
    uint32_t conns_per_server;               /* the sockets of the run to each server */
    uint64_t measure_start_ns;               /* run_measure_start: stalls' since_ns count from it */
    const struct trace_counts *trace_counts; /* --trace: what the reader read */
    const struct trace_progress *trace_sent; /* and what the workers sent of it */
    const char *trace_error;                 /* why the reader stopped early, or "" */
    uint64_t samples_written;                /* --samples */
    uint64_t samples_dropped;
    const struct rate_change *changes; /* --control: the changes made, in time order */
    uint32_t nchanges;
};

/* The signals that stop a run with its report: SIGINT, SIGTERM, SIGHUP. */
void run_stop_signals(sigset_t *set);

/*
 * Plan the run: resolve servers, build the workload and workers. err gets one line. *rp is
 * the run even when run_init fails (NULL only when there was no memory for it): run_free it
 * either way. out is the report's stream, never written: a run whose report goes to a pipe or
 * socket stops when its reader goes away.
 */
enum slap_status run_init(struct run **rp, const struct run_plan *p, FILE *out, char *err,
                          size_t err_len);
/* Start, wait (printing -S tables), collect. SLAP_ERROR with err filled if set-up failed. */
enum slap_status run_execute(struct run *r, char *err, size_t err_len);
/* NULL is fine. */
void run_free(struct run *r);
/* What the run did, for its caller's report (NULL, a run that could not be made: nothing). */
void run_result(const struct run *r, struct run_result *res);

/*
 * After run_init, before run_execute: periods, samples and events go to sinks (NULL: nowhere),
 * periods of 1 s at least when keep_periods and the plan has none; read the servers' stats
 * around the run, tell the progress line (PROGRESS events).
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

/* --control: the most changes a run takes (WORKER_CONTROL_MAX), a stop included. */
#define RUN_CONTROL_MAX WORKER_CONTROL_MAX

/*
 * --control, from the main thread while the run waits (its sinks.wait): set the target rate
 * (RATE_SET, tps > 0, open loop only), pause, resume, or stop the run as a signal would (its
 * report and outputs whole). The change holds from now, each lane's times before now staying
 * due, so latency still counts from each request's intended time. Changes are kept for the
 * results (run_result's changes).
 */
enum rate_outcome run_control(struct run *r, enum rate_action action, double tps, char *err,
                              size_t err_len);
void run_control_state(const struct run *r, struct rate_state *st);

#endif
