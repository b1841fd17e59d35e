/* What a run holds: private to the engine (run.c); the command line knows a run through
 * run.h's functions and struct run_result. */
#ifndef SLAP_ENGINE_RUN_STATE_H
#define SLAP_ENGINE_RUN_STATE_H

#include "slap/engine/run.h"

/* The main thread's scratch histograms, in one slab owned by the run. */
enum run_scratch {
    RUN_SCRATCH_PROGRESS, /* the progress line: a period's total */
    RUN_SCRATCH_SECOND,   /* and the periods since its last line */
    RUN_SCRATCH_LIMITS,   /* run_limits: the run's total */
    RUN_SCRATCH_HISTS
};

struct run {
    struct run_plan plan; /* as run_init was given it */
    struct server_list servers;
    struct workload workload;
    struct tls_ctx *tls; /* --tls, else NULL */
    uint32_t nworkers;
    struct worker *workers;
    FILE *out;                   /* the report's stream: watched, never written */
    struct engine_config engine; /* what the workers and their lanes read: the plan's, completed */
    struct worker_gate gate;     /* the go (its start_ns: the run's start), and the stop */

    int signal;       /* the signal that interrupted the run, or 0 */
    bool out_watched; /* out is a pipe or a socket: its reader may go away */
    bool output_gone; /* and it did: the run stopped early */

    struct stats_shape shape;    /* the histograms every statistics of the run keeps */
    struct slap_stats global;    /* everything, collected */
    struct slap_stats period;    /* -S: one period's, collected from the workers */
    struct slap_stats tick;      /* one tick's: a period's, or a part of one (sinks.tick) */
    uint64_t tick_ns;            /* the workers publish every tick_ns: period_ns, or a part */
    uint64_t ticks_per_period;   /* of it when sinks.tick or sinks.fine want finer ones */
    uint64_t ticks_collected;    /* by the main thread, in time order */
    uint64_t end_ns;             /* end of the measured part: the latest of the workers' */
    struct worker_stall *stalls; /* per server: sockets that held unanswered requests at the end */
    uint32_t blocked_lanes;      /* lanes that still awaited an answer when the run gave up */
    struct replay replay;        /* --trace: the reader of the trace */
    struct trace_progress trace_sent; /* and what the workers sent of it */
    uint64_t flush_ns;                /* --flush: how long flush_all took (in run_init) */

    /* The plan's period_ns, or 1 s when run_want asks for periods and the plan has none. */
    uint64_t period_ns;
    /* Set by run_want. */
    bool progress;                          /* PROGRESS events: the live line (a terminal, no -S) */
    struct run_sinks sinks;                 /* where periods, samples and events go */
    struct server_stats_pair *server_stats; /* per server, read around the run; NULL: not read */
    struct watch watch;     /* read with them: proxies' CPU (/proc), backends, twemproxy's stats */
    double *fill_evictions; /* per server, its evictions before the preload or warm-up (< 0:
                               not read); NULL when there is neither, or no stats are read */
    uint64_t samples_written; /* the samples thread's, read once it was joined */
    uint64_t samples_dropped;
    pthread_t samples_thread; /* --samples: drains the workers' rings into sinks.samples */
    bool samples_running;
    atomic_bool samples_stop; /* the workers are joined: drain once more, then end */
    uint64_t start_wall_ns;   /* the wall clock (epoch ns) at start_ns */

    /* slap's own CPU (getrusage RUSAGE_SELF) over the measured part: the reading at its start,
     * then (cpu_measured) what it used up to the end of the last worker's loop. */
    bool cpu_started;
    bool cpu_measured;
    struct hostcpu_sample host_before; /* every CPU of the host, at the start and the end */
    struct hostcpu_sample host_after;
    double cpus_allowed; /* CPUs slap may use (affinity, cgroup quota) */
    double cpu_user_s;
    double cpu_sys_s;

    /* The main thread's: scratch histograms (RUN_SCRATCH_HISTS of them, one slab), and the
     * progress line's last line: the requests since, and its time into the run. */
    struct hist *scratch;
    uint64_t progress_ops;
    uint64_t progress_shown_ns;

    /* --control (main thread): the changes made, the rate now and whether it is paused. */
    struct rate_change control_log[WORKER_CONTROL_MAX];
    uint32_t ncontrol;
    double control_tps; /* the last rate set; 0: none yet (the plan's holds) */
    bool control_paused;
    bool control_stopped;
    bool control_open; /* the go was given and the workers are not yet joined */
};

/* Ask the workers to stop, as a stop signal does (the first ask's time ends the measured part). */
void run_ask_stop(struct run *r);

#endif
