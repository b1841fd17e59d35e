/* A worker thread: its event_base, its clients, timers, and the period mailbox. */
#ifndef SLAP_WORKER_H
#define SLAP_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "slap/client.h"
#include "slap/samples.h"
#include "slap/stats.h"
#include "slap/workload.h"

struct run;

#define WORKER_ERROR_MAX 512
#define WORKER_TLS_OUT (16u * 1024u) /* one TLS record of requests at a time */

/* Where a worker is in its run; the transitions are drawn atop worker.c. */
enum worker_phase {
    WORKER_CONNECTING, /* opening every socket */
    WORKER_PRELOADING, /* --preload: setting every window key once, unmeasured */
    WORKER_READY,      /* set up: waiting for the main thread's go */
    WORKER_WARMING,    /* --warmup: load that is not counted */
    WORKER_MEASURING,  /* the run proper: statistics count */
    WORKER_STOPPING,   /* no new requests; waiting for the answers */
    WORKER_DONE,       /* the loop is over */
    WORKER_FAILED,     /* set-up failed: error says why */
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
};

struct worker {
    uint32_t index;
    struct run *run;
    pthread_t thread;
    struct event_base *base;     /* EVENT_BASE_FLAG_NOLOCK: this thread only */

    enum worker_phase phase;

    uint32_t nclients;
    size_t nlanes;               /* lanes of all clients */
    size_t nconns;               /* sockets of all lanes */
    struct client *clients;
    struct lane *lanes;          /* all lanes of all clients, one allocation */
    struct conn *conns;          /* all sockets, one allocation */
    struct request *requests;    /* the rings of all sockets */
    char *hdrs;                  /* request headers of all rings */
    char *keys;                  /* keys of all clients */
    char *rbuf;                  /* read buffer shared by every socket of the thread */
    char *tls_out;               /* --tls: requests gathered for SSL_write */
    char *ubuf;                  /* UDP: a carried partial line and the next message */
    struct conn_env conn_env;    /* what every socket of the thread is given */
    struct multiget_scratch multiget; /* the multi-get being put together */
    struct rng rng;

    struct slap_stats cur;       /* statistics since the last publish, owned by the thread */
    struct sample_ring samples;  /* --samples: drained by the main thread */
    struct slap_counters uncounted; /* answers to unmeasured requests (warm-up, preload) */
    uint32_t active_lanes;       /* lanes not done */
    uint32_t connecting;         /* connects not yet finished during set-up */
    uint64_t last_answer_ns;     /* of a measured request */
    struct worker_stall *stalls; /* per server, filled when the drain gives up */
    uint32_t blocked_lanes;      /* lanes that still awaited an answer then */
    uint64_t preload_sets;       /* sets answered during the preload */
    uint64_t preload_ns;         /* how long it took */
    uint32_t verbose_left;       /* -b: failure details still to print */
    uint64_t verify_slot;        /* the slot of the value being checked */
    uint32_t hdr_cap;            /* bytes of each request header buffer */
    const struct codec *codec;   /* the protocol spoken */
    uint64_t run_start_ns;       /* for slot times in ms */
    uint64_t next_timeout_check; /* --timeout: when to look at the sockets again */
    char error[WORKER_ERROR_MAX]; /* why set-up failed */

    struct event *end_timer;     /* end of a timed run */
    struct event *tick_timer;    /* -S period: publish statistics */
    struct event *watch_timer;   /* notices a stop asked by the main thread */
    struct event *drain_timer;   /* bound on waiting for answers after the stop */
    struct event *warmup_timer;  /* end of --warmup */
    int notify_fd;               /* --trace: an eventfd the trace reader wakes the thread by */
    struct trace_progress trace_sent; /* --trace: the measured requests sent */
    struct event *notify_event;

    /* Mailbox read by the main thread: the only shared, locked state, touched once a period. */
    pthread_mutex_t box_lock;
    struct slap_stats box;       /* published, not yet collected */
    atomic_uint_fast64_t ticks;  /* periods published */
    atomic_bool done;            /* the thread's loop is over; box holds everything */
    uint64_t end_ns;             /* end of the measured part: the common end, the stop, or
                                    (every lane done early) the last answer */

    /* The thread's CPU over the measured part: read when it begins and when it ends. */
    enum worker_cpu_state cpu_state;
    uint64_t cpu_ns;  /* CLOCK_THREAD_CPUTIME_ID: at the start, then the difference */
    uint64_t wait_ns; /* time runnable but waiting for a CPU (schedstat), likewise */
    bool wait_known;  /* /proc/thread-self/schedstat was read both times */
};

/*
 * Allocate the worker's clients (ids first_client .. first_client + nclients - 1).
 * worker_free is called after a failed worker_init too (once w->run is set).
 */
enum slap_status worker_init(struct worker *w, struct run *run, uint32_t index,
                             uint32_t first_client, uint32_t nclients);
void worker_free(struct worker *w);
enum slap_status worker_spawn(struct worker *w);

/* Move what the worker has published into dst (main thread, once a period). */
void worker_collect(struct worker *w, struct slap_stats *dst);

/* From client.c: the lane has nothing more to send nor to wait for. */
void worker_lane_idle(struct worker *w);
/* --trace, from the reader's thread: requests came for a lane of w that had none. */
void worker_notify(struct worker *w);
/* From client.c, during set-up: one socket's connect ended (why is NULL when it succeeded). */
void worker_setup_connected(struct worker *w, const struct conn *c, const char *why);
/* Report a problem to stderr once per kind and server (never per request). */
void worker_warn(struct worker *w, const char *what, uint32_t server, const char *detail,
                 size_t detail_len);

#endif
