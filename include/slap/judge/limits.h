/* What limited a run: the figures slap measured, the lines they are judged by, the verdict. */
#ifndef SLAP_LIMITS_H
#define SLAP_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slap/net/proxy_stats.h"
#include "slap/net/server_stats.h" /* SERVER_STATS_NOTE_MAX */
#include "slap/net/servers.h"

#define LIMITS_SATURATED 0.85 /* a busy share at or above this is "near saturation" */
/* slap's thread waited for a CPU this share of the run, or more:
 * the load host's CPU limited the run (10% of waiting cost 5% of
 * the rate, 24% cost 18%, measured with a hog beside slap) */
#define LIMITS_STARVED 0.10
#define LIMITS_RATE_MET 0.95 /* -P: achieved / target at or above this: the rate set the load */
/* requests in flight / possible at or above this: more clients
 * would raise the rate (Little's law) */
#define LIMITS_OCCUPIED 0.50
/* -P: a thread on a CPU or waiting for one this share of the
 * run, or more: a lane it saw full may have held answers it
 * had not read yet (5 ms server: 0.03 to 0.12 on a busy host;
 * a 5% CPU quota: 0.95 to 0.98) */
#define LIMITS_HELD_BY_CLIENT 0.50
#define LIMITS_LATE_NS 1000000 /* -P: a P99 send lag at or above 1 ms: the schedule slipped */
/* -P: of the answered requests at or above the P99, this share
 * or more were mostly slap late to send (stats.h's slap_late):
 * the tail is slap's, whatever its CPU-wait shares say */
#define LIMITS_SLAP_TAIL 0.50
#define LIMITS_STEAL 0.05 /* the host's steal share at or above this is named as a cause */
/*
 * How near its line a deciding figure may lie for the verdict to be borderline: moved to the
 * line's other side, the verdict would change. About two standard deviations of the figure's
 * spread over identical 2 s runs on a busy 2-CPU host, where it was measured near its line
 * (README "What limited the run" has the measurement, and says which were not). Shares are of
 * the run; the send lag is in seconds.
 */
#define LIMITS_BAND_WAIT 0.05     /* a thread's CPU wait, against LIMITS_STARVED */
#define LIMITS_BAND_BUSY 0.06     /* a busy share or slap's demand, against LIMITS_SATURATED */
#define LIMITS_BAND_RATE 0.03     /* achieved / target, against LIMITS_RATE_MET */
#define LIMITS_BAND_OCCUPIED 0.10 /* in flight / possible, against LIMITS_OCCUPIED */
#define LIMITS_BAND_LATE 0.004    /* the P99 send lag in seconds, against LIMITS_LATE_NS */
#define LIMITS_BAND_LAG 0.001     /* requests never sent / due, against none */
/* the tail's share that was slap's, against LIMITS_SLAP_TAIL:
 * not measured as the others were, a first guess */
#define LIMITS_BAND_SLAP_TAIL 0.15
#define LIMITS_WHY_MAX 1024
#define LIMITS_FIGURE_MAX 48
#define LIMITS_LABEL_MAX 256

/* slap's own CPU over the measured part. */
struct limits_client {
    double cpu_user_s; /* getrusage(RUSAGE_SELF): the whole process */
    double cpu_sys_s;
    uint32_t threads; /* worker threads measured */
    double busy_mean; /* a thread's CPU time / measured seconds, over the threads */
    double busy_max;  /* the busiest thread's */
    bool wait_known;  /* /proc/thread-self/schedstat was readable */
    double wait_mean; /* a thread's time runnable but waiting for a CPU / measured seconds */
    double wait_max;
    double demand_max; /* the largest busy + wait of a thread: how saturated slap was */
    double cpus;       /* CPUs slap may use (affinity, cgroup quota); 0: not known */
    double cpu_share;  /* (user + sys) / (seconds x cpus): the share of them slap used */
};

/* The load host's CPUs over the measured part (/proc/stat), all processes together. */
struct limits_host {
    bool known;
    uint32_t cpus; /* online */
    double busy;   /* the share of all CPUs' time that was busy */
    double steal;  /* of it, the share a hypervisor gave to others (steal); 0 if not known */
};

/* One server's CPU over the run, from its `stats` (rusage covers the whole process; memcached's
 * `threads` counts its worker threads only). */
struct limits_server {
    char name[SERVER_NAME_MAX];
    char label[LIMITS_LABEL_MAX]; /* the run that read it (merged documents) */
    bool known;                   /* stats were read before and after */
    double cpu_s;                 /* Δrusage_user + Δrusage_system */
    double threads;               /* 0: the server did not say */
    double seconds;               /* between the two reads */
    bool local;                   /* on slap's host: its threads share its CPUs */
    double busy; /* cpu_s / (seconds × threads); cpu_s / seconds without threads; on slap's
                    host the threads count at most the host's CPUs */
    char note[SERVER_STATS_NOTE_MAX]; /* why its stats were not read (known from /proc too) */
    bool backend;    /* not in -s: behind a proxy (--stats_servers, --proxy_stats) */
    int pid;         /* > 0: its process on slap's host, found in /proc */
    bool from_proc;  /* its CPU is that process's (it answers no stats) */
    bool wait_known; /* its threads' waits for a CPU were read (schedstat) */
    double wait_max; /* the largest share of the run one waited for a CPU */
};

#define LIMITS_PROXY_NOTE_MAX 320

/* twemproxy's own counters over the run (--proxy_stats), summed over pools and backends. */
struct limits_proxy {
    bool known;   /* read before and after, and they count some of the run */
    bool partial; /* known, but they count fewer answers than slap had */
    char name[SERVER_NAME_MAX];
    char note[LIMITS_PROXY_NOTE_MAX]; /* not known: why; partial: how much they count */
    struct proxy_stats delta;         /* after - before (queues: after) */
};

/*
 * The verdicts, a row each: its enum and its word (the report's limited_by, the JSON's, the
 * schema's enum, which test_results checks against these rows). A new verdict is a row here
 * and a case in limits.c's switch (-Wswitch: no default hides one).
 */
#define LIMITS_VERDICT_ROWS(X)                                                                     \
    X(LIMITS_SERVER, "server") /* a server's threads near saturation */                            \
    X(LIMITS_CLIENT, "client") /* slap near saturation, starved of CPU, or behind schedule */      \
    X(LIMITS_BOTH, "both")     /* both near saturation */                                          \
    X(LIMITS_RATE, "rate")     /* open loop: the target rate (or a trace's times) set the load */  \
    X(LIMITS_LATENCY, "latency") /* neither busy, every request in flight: too few clients */      \
    X(LIMITS_UNKNOWN, "unknown") /* slap not busy, the servers' load unknown */

enum limits_verdict {
#define LIMITS_VERDICT_ENUM(id, word) id,
    LIMITS_VERDICT_ROWS(LIMITS_VERDICT_ENUM)
#undef LIMITS_VERDICT_ENUM
};
#define LIMITS_VERDICT_ONE(id, word) +1
#define LIMITS_VERDICTS (0 LIMITS_VERDICT_ROWS(LIMITS_VERDICT_ONE)) /* how many */
/* A verdict's word with its NUL fits this (results' limited_by fields): limits.c asserts it. */
#define LIMITS_VERDICT_WORD_MAX 16

/*
 * The lines the verdict compares figures with. decide() makes every comparison through
 * crossed(), so that the borderline search can take one of them on its line's other side: the
 * same as moving that figure across its line, and deciding again.
 */
enum limits_line {
    LIMITS_LINE_CLIENT_WAIT,   /* slap's threads' CPU wait, LIMITS_STARVED */
    LIMITS_LINE_SERVER_WAIT,   /* a server's threads' CPU wait, LIMITS_STARVED */
    LIMITS_LINE_CLIENT_DEMAND, /* slap's busiest thread's busy + wait, LIMITS_SATURATED */
    LIMITS_LINE_CLIENT_SHARE,  /* slap's share of the CPUs it may use, LIMITS_SATURATED */
    LIMITS_LINE_SERVER_BUSY,   /* a server's busy share, LIMITS_SATURATED */
    LIMITS_LINE_RATE_MET,      /* -P: achieved / target, LIMITS_RATE_MET */
    LIMITS_LINE_LATE,          /* -P: the P99 send lag, LIMITS_LATE_NS */
    LIMITS_LINE_CLIENT_LAG,    /* -P: requests never sent though their socket was free, none */
    LIMITS_LINE_SLAP_TAIL, /* -P: the P99 tail's share mostly slap late to send, LIMITS_SLAP_TAIL */
    LIMITS_LINE_OCCUPIED,  /* requests in flight / possible, LIMITS_OCCUPIED */
    LIMITS_LINES,
};

/* A verdict that a deciding figure near its line could have turned (limits_judge finds it). */
struct limits_borderline {
    bool near;                      /* the verdict was borderline */
    enum limits_verdict with;       /* the verdict with the figure on its line's other side */
    char figure[LIMITS_FIGURE_MAX]; /* as --json names it: "client.cpu_wait_max",
                                       "servers[1].busy", "achieved_share" ... */
    double value;                   /* the figure, in the line's unit */
    double line;                    /* its line */
    double band;                    /* near: |value - line| < band */
    enum limits_line which;         /* which line (LIMITS_LINES: none, or read from a file) */
    uint32_t server;                /* of a server's line: which server */
};

/* More requests left unanswered by the server than this share of those due fail the run
 * (exit status 1) and leave it without a verdict: it measured a server that stopped
 * answering, not a limit of the load, nor of slap. */
#define LIMITS_UNANSWERED 0.01

struct limits {
    /* The run's shape, for the verdict and its words. */
    double seconds;    /* measured */
    double target_tps; /* -P; 0 in closed loop */
    double achieved_tps;
    bool ramped;         /* --ramp: target_tps is the ramp's mean over the run */
    bool paced_by_trace; /* --trace at its own times */
    uint32_t concurrency;
    uint32_t threads;       /* -T */
    uint32_t in_flight_max; /* requests slap may have in flight: -c x -n x --pipeline */
    double in_flight_mean;  /* it had on average: requests per second x mean latency */
    uint64_t client_lag;    /* -P: requests due while their socket was free, never sent */
    uint64_t due;           /* requests answered plus those never answered */
    uint64_t silent;        /* of them, sent and never answered (lost with their connection,
                               or awaited at the end): above LIMITS_UNANSWERED of due, the
                               server stopped answering and the run gets no verdict (those
                               never sent behind a slow server's full lanes are not this) */
    bool stopped;           /* every connection still awaited an answer at the end: the
                               server stopped answering (no verdict either) */
    uint32_t stalled;       /* connections that still awaited an answer when the run gave up
                               on them (the same: the requests behind them are the server's) */
    uint32_t down;          /* -R: connections lost and not open again at the end (the same) */
    double send_lag_p99_s;  /* -P: how late the sends were */
    double latency_p99_s;   /* -P: the P99 of every type's latency (from the intended time) */
    double slap_late_p99_s; /* -P: the P99 of slap late to send: the send lag less the time
                               the server held the request */
    double held_p99_s;      /* -P: the P99 of the time the server held requests before they
                               went (their lane full, their socket closed or blocked) */
    double net_p99_s;       /* -P: the P99 from the send to the answer (network and server) */
    double slap_tail_share; /* -P: of the answered requests at or above the P99, the share
                               that were mostly slap late to send (stats.h's slap_late) */
    bool own_known;         /* --timestamps=kernel: answers had arrival stamps */
    double own_share;       /* then slap's own delay's mean over the mean latency to its read
                               (the kernel-time latency's mean plus its own) */
    double own_p99_s;       /* and its p99 */
    /* The figures. */
    struct limits_client client;
    struct limits_host host;
    struct limits_proxy proxy;
    uint32_t nservers;
    struct limits_server *servers; /* owned */
    /* The verdict, from limits_judge. */
    enum limits_verdict verdict;
    struct limits_borderline borderline;
    /* The words a results file held for its verdict (read back), kept as they were; empty for a
     * run's own, whose words output makes from the figures (limits_why, limits_say). */
    char read_why[LIMITS_WHY_MAX];
};

/* Room for n servers (zeroed); limits_free releases it. SLAP_ERROR when out of memory. */
enum slap_status limits_init(struct limits *l, uint32_t nservers);
void limits_free(struct limits *l);
/* Was slap itself short of CPU (a thread near saturation, or waiting for a CPU past
 * LIMITS_STARVED)? Then a lane it saw full may have held answers it had not read yet. */
bool limits_slap_short(const struct limits *l);
/* The verdict and whether it was borderline, from the figures: a pure function of l's fields.
 * It empties l->read_why: output's limits_say words the verdict. */
void limits_judge(struct limits *l);
/* More left unanswered than LIMITS_UNANSWERED of those due, or connections stopped, stalled or
 * down at the end: the server stopped answering, and the verdict is unknown. */
bool limits_unanswered(const struct limits *l);
/* What the rules ask, for the verdict's words too: */
/* the known server whose threads were the busiest, or NULL; how many servers are unknown */
const struct limits_server *limits_busiest_server(const struct limits *l, uint32_t *unknown);
/* slap's threads waited for a CPU LIMITS_STARVED of the run or more */
bool limits_starved(const struct limits *l);
/* the server on slap's host that waited longest for a CPU, LIMITS_STARVED or more; or NULL */
const struct limits_server *limits_starved_server(const struct limits *l);
/* slap near saturation: a thread's busy + wait, or its share of its CPUs */
bool limits_client_saturated(const struct limits *l);
/* -P: the P99 tail mostly slap late to send */
bool limits_slap_tail(const struct limits *l);
/* requests in flight LIMITS_OCCUPIED of those possible or more (Little's law) */
bool limits_occupied(const struct limits *l);
/* "server", "client", "both", "rate", "latency", "unknown". */
const char *limits_verdict_name(enum limits_verdict v);
/* The verdict named name (as limits_verdict_name gives it); false when it is none. */
bool limits_verdict_parse(const char *name, enum limits_verdict *v);
/*
 * Merged documents: into gets from's servers appended and its client added (first: copied):
 * CPU and threads summed, shares averaged over the threads, maxima kept. The caller then sets
 * the merged shape and calls limits_judge. SLAP_ERROR when out of memory.
 */
enum slap_status limits_add(struct limits *into, const struct limits *from, bool first);
#endif
