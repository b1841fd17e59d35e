/* A worker thread: its event_base, its clients, timers, and the period mailbox. */
#ifndef SLAP_WORKER_H
#define SLAP_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "slap/engine/client.h"
#include "slap/model/samples.h"
#include "slap/model/schedule.h"
#include "slap/model/stats.h"
#include "slap/model/workload.h"

struct tls_ctx;
struct conn_auth;

#define WORKER_ERROR_MAX 512
#define WORKER_TLS_OUT (16u * 1024u) /* one TLS record of requests at a time */
#define WORKER_CONNECT_TIMEOUT_NS (5ULL * 1000000000ULL)
#define WORKER_DRAIN_TIMEOUT_NS (2ULL * 1000000000ULL)
/* A loop that runs the run's end this late was stopped or starved, not waiting on a server
 * (a loop iteration takes microseconds; a busy host's scheduler delays it milliseconds). */
#define WORKER_STALL_NS (100ULL * 1000000ULL)
#define WORKER_RECONNECT_MIN_NS (10ULL * 1000000ULL)
#define WORKER_RECONNECT_MAX_NS (1000ULL * 1000000ULL)
#define WORKER_MAX_WARNINGS 32 /* kinds of problem (per server) a run tells (WARN events) */

/* What a worker reads of its run: settled when the run is planned (period_ns by run_want,
 * before the threads start), read-only after. The worker never reads the command line. */
/* --priority: how the worker threads are scheduled. */
enum worker_priority {
    PRIORITY_NORMAL = 0,   /* the process's own (SCHED_OTHER, its nice level) */
    PRIORITY_REALTIME = 1, /* SCHED_FIFO at the lowest real-time priority: a due request's
                              wake-up preempts every ordinary process on the CPU */
};

struct engine_config {
    struct lane_params lane;         /* what every lane reads */
    const struct stats_shape *shape; /* the histograms every statistics of the run keeps */
    struct tls_ctx *tls;             /* --tls, else NULL */
    const struct conn_auth *auth;    /* --auth: the run's credentials, else NULL */
    enum timestamps timestamps;      /* --timestamps: where an answer's latency ends */
    enum proto_kind protocol;
    enum arrival arrival;          /* open loop: the schedule's spacing */
    double arrival_shape;          /* and its law's shape (schedule.h) */
    struct ramp ramp;              /* --ramp (this host's part): the schedule's rate; duration_ns 0:
                                      lane.tps throughout */
    uint64_t run_time_ns;          /* -t: the measured part's length; 0 with -x or a trace */
    bool time_caps_count;          /* -x ends at run_time_ns too, if that comes first (a round of
                                      compare --live: never longer than -t) */
    uint64_t warmup_ns;            /* --warmup: load before the measured part */
    uint64_t timeout_ns;           /* --timeout: a socket's oldest request waits no longer */
    uint64_t udp_timeout_ns;       /* --udp_timeout */
    uint64_t period_ns;            /* publish every period_ns; 0: at the end only */
    double sample_rate;            /* --samples: the share of requests kept */
    bool samples;                  /* --samples */
    bool memslap_face;             /* messages in memslap's words */
    enum worker_priority priority; /* --priority */
    bool control;                  /* --control: the rate may change while the run goes on */
};

enum gate_go {
    GATE_WAIT = 0,  /* workers are connecting */
    GATE_GO = 1,    /* the run starts at start_ns */
    GATE_ABORT = 2, /* set-up failed or interrupted: workers clean up */
};

/* A problem a worker has told (a WARN event): its kind (the warning's text, a constant) and where.
 */
struct worker_warned {
    const char *what;
    uint32_t server;
};

/* --control: the changes of the run's rate so far, written by the main thread alone (each
 * entry before n counts it, release), read by the workers from where they last stopped. */
#define WORKER_CONTROL_MAX 1024
struct worker_control_change {
    uint64_t at_ns; /* slap_now_ns: the new rate holds from then */
    double tps;     /* the target rate from then, all lanes together; 0: paused */
    bool paused;    /* closed loop: no new requests from then */
};
struct worker_control {
    struct worker_control_change changes[WORKER_CONTROL_MAX];
    atomic_uint_fast32_t n;
};

/* Where the run's thread and its workers meet: the set-up hand-shake, the stop, and the
 * problems already shown (each kind once per server and run: a later run, a sweep's next step
 * or a search's next probe, shows them again). Zeroed with the run. */
struct worker_gate {
    pthread_mutex_t lock; /* the hand-shake, and warned (taken only on a problem) */
    pthread_cond_t cond;
    uint32_t ready; /* workers done with set-up */
    enum gate_go go;
    uint64_t start_ns;            /* the go; the measured part starts warmup_ns later */
    atomic_bool stop;             /* main thread: no new requests (signal) */
    atomic_uint_fast64_t stop_ns; /* when it was asked: the measured part ends there */
    struct worker_warned warned[WORKER_MAX_WARNINGS]; /* shown by any worker of the run */
    size_t nwarned;
    struct worker_control control; /* --control */
};

/* The period hand-off: the worker publishes what it counted, the main thread collects it.
 * The only shared, locked state of a worker, touched once a period. */
struct worker_mailbox {
    pthread_mutex_t lock;
    struct slap_stats box;      /* published, not yet collected */
    atomic_uint_fast64_t ticks; /* periods published */
};

/* Where the measuring of a thread's own CPU is. */
enum worker_cpu_state {
    WORKER_CPU_NONE,     /* the measured part has not begun */
    WORKER_CPU_STARTED,  /* cpu_ns and wait_ns hold the readings at its start */
    WORKER_CPU_MEASURED, /* they hold what the measured part used */
};

/* Sockets of one server that still held unanswered requests when the run gave up on them. */
struct worker_stall {
    uint32_t conns;
    uint64_t since_ns; /* the oldest of those requests was sent then */
    uint32_t down;     /* -R: connections lost and still not open again at the end */
};

struct worker {
    uint32_t index;
    const struct engine_config *cfg;
    struct worker_gate *gate;
    pthread_t thread;
    struct event_base *base; /* EVENT_BASE_FLAG_NOLOCK: this thread only */

    struct lane_env env; /* what its lanes share: the phase, statistics, scratch */

    uint32_t nclients;
    size_t nlanes; /* lanes of all clients */
    size_t nconns; /* sockets of all lanes */
    struct client *clients;
    struct lane *lanes;          /* all lanes of all clients, one allocation */
    struct conn *conns;          /* all sockets, one allocation */
    struct request *requests;    /* the rings of all sockets */
    struct lane_reopen *reopens; /* --reconnect_rate: each socket's next reopen, else NULL */
    char *hdrs;                  /* request headers of all rings */
    char *keys;                  /* keys of all clients */
    char *rbuf;                  /* read buffer shared by every socket of the thread */
    char *tls_out;               /* --tls: requests gathered for SSL_write */
    char *ubuf;                  /* UDP: a carried partial line and the next message */
    struct udp_endpoints *udp;   /* UDP: the thread's sockets, one per server (or more) */
    struct conn_env conn_env;    /* what every socket of the thread is given */
    struct conn_clock clock;     /* --timestamps=kernel: its stamps' conversion (conn_env's) */

    uint32_t active_lanes;        /* lanes not done */
    uint32_t connecting;          /* connects not yet finished during set-up */
    struct worker_stall *stalls;  /* per server, filled when the drain gives up */
    uint32_t blocked_lanes;       /* lanes that still awaited an answer then */
    uint64_t preload_ns;          /* how long the preload took */
    uint64_t next_timeout_check;  /* --timeout: when to look at the sockets again */
    char error[WORKER_ERROR_MAX]; /* why set-up failed */

    struct event *end_timer;    /* end of a timed run */
    struct event *tick_timer;   /* -S period: publish statistics */
    struct event *watch_timer;  /* notices a stop asked by the main thread */
    struct event *drain_timer;  /* bound on waiting for answers after the stop */
    struct event *warmup_timer; /* end of --warmup */
    int notify_fd;              /* --trace, --control: an eventfd the trace reader or the main
                                   thread (a change of rate) wakes the thread by */
    uint32_t control_seen;      /* --control: the changes applied to the lanes */
    struct event *notify_event;

    struct worker_mailbox mailbox; /* read by the main thread */
    atomic_bool done;              /* the thread's loop is over; the mailbox holds everything */

    /* The thread's CPU over the measured part: read when it begins and when it ends. */
    enum worker_cpu_state cpu_state;
    uint64_t cpu_ns;        /* CLOCK_THREAD_CPUTIME_ID: at the start, then the difference */
    uint64_t wait_ns;       /* time runnable but waiting for a CPU (schedstat), likewise */
    uint64_t cpu_window_ns; /* when the readings were taken at the start, then how long after
                               it the end's were: the time they cover */
    bool wait_known;        /* /proc/thread-self/schedstat was read both times */
};

/*
 * Allocate the worker's clients (ids first_client .. first_client + nclients - 1) of a run
 * configured by cfg and started through gate. worker_free is called after a failed
 * worker_init too (once w->cfg is set).
 */
enum slap_status worker_init(struct worker *w, const struct engine_config *cfg,
                             struct worker_gate *gate, uint32_t index, uint32_t first_client,
                             uint32_t nclients);
void worker_free(struct worker *w);
enum slap_status worker_spawn(struct worker *w);

/* Move what the worker has published into dst (main thread, once a period). */
void worker_collect(struct worker *w, struct slap_stats *dst);

/* --trace, from the reader's thread: requests came for a lane of w that had none; --control,
 * from the main thread: the rate changed. */
void worker_notify(struct worker *w);

/* When the measured part starts: the go, after any warm-up. */
static inline uint64_t worker_measure_start(const struct worker_gate *g,
                                            const struct engine_config *cfg)
{
    return g->start_ns + cfg->warmup_ns;
}

/* The mailbox of a thread whose statistics have this shape. worker_mailbox_free is safe
 * after a failure. */
enum slap_status worker_mailbox_init(struct worker_mailbox *m, const struct stats_shape *shape);
void worker_mailbox_free(struct worker_mailbox *m);
/* The worker's side: move cur into the box (cur starts again from nothing). */
void worker_mailbox_publish(struct worker_mailbox *m, struct slap_stats *cur);
/* The main thread's side: move what the box holds into dst. */
void worker_mailbox_collect(struct worker_mailbox *m, struct slap_stats *dst);

#endif
