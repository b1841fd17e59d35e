/* What limited a run: slap's own CPU, the servers' CPU, and the verdict drawn from them. */
#ifndef SLAP_LIMITS_H
#define SLAP_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "slap/server_stats.h"
#include "slap/servers.h"

#define LIMITS_SATURATED 0.85 /* a busy share at or above this is "near saturation" */
#define LIMITS_STARVED 0.20   /* slap's thread waited for a CPU this share of the run, or more */
#define LIMITS_RATE_MET 0.95  /* -P: achieved / target at or above this: the rate set the load */
#define LIMITS_WHY_MAX 1024
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
    double busy; /* cpu_s / (seconds × threads); cpu_s / seconds without threads */
    char note[SERVER_STATS_NOTE_MAX]; /* when not known: why */
};

enum limits_verdict {
    LIMITS_SERVER,  /* a server's threads near saturation */
    LIMITS_CLIENT,  /* slap's threads near saturation: the figures measure slap */
    LIMITS_BOTH,    /* both near saturation */
    LIMITS_RATE,    /* open loop: the target rate (or the trace's times) set the load */
    LIMITS_LATENCY, /* neither busy: too few clients for the latency */
    LIMITS_UNKNOWN, /* slap not busy, the servers' load unknown */
};

struct limits {
    /* The run's shape, for the verdict and its words. */
    double seconds;    /* measured */
    double target_tps; /* -P; 0 in closed loop */
    double achieved_tps;
    bool paced_by_trace; /* --trace at its own times */
    uint32_t concurrency;
    uint32_t threads; /* -T */
    /* The figures. */
    struct limits_client client;
    uint32_t nservers;
    struct limits_server *servers; /* owned */
    /* The verdict, from limits_judge. */
    enum limits_verdict verdict;
    char why[LIMITS_WHY_MAX];
};

/* Room for n servers (zeroed); limits_free releases it. SLAP_ERROR when out of memory. */
enum slap_status limits_init(struct limits *l, uint32_t nservers);
void limits_free(struct limits *l);
/* A server's figures from its stats pair, over the run. */
void limits_server_from_stats(struct limits_server *s, const char *name, const char *label,
                              const struct server_stats_pair *p);
/* The verdict and its words from the figures: a pure function of l's fields. */
void limits_judge(struct limits *l);
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
/* The report's lines: client_cpu_*, client_busy, client_cpu_wait, server_cpu_s, limited_by. */
void limits_print(FILE *out, const struct limits *l);

#endif
