/* A local server process's CPU from /proc, for servers that do not answer `stats` (proxies). */
#ifndef SLAP_PROCSTAT_H
#define SLAP_PROCSTAT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#define PROCSTAT_MAX_THREADS 64

/* CPU time of each thread of a process, in clock ticks, at one instant. */
struct procstat_sample {
    bool ok;
    uint32_t nthreads;
    pid_t tid[PROCSTAT_MAX_THREADS];
    uint64_t ticks[PROCSTAT_MAX_THREADS];   /* utime + stime */
    uint64_t wait_ns[PROCSTAT_MAX_THREADS]; /* time runnable, waiting for a CPU (schedstat) */
    bool wait_known;                        /* schedstat was readable for every thread */
    uint64_t total;                         /* the whole process's, all threads */
};

/*
 * The process of this host that listens on addr (TCP, or a unix socket path): its socket in
 * /proc/net/{tcp,tcp6,unix}, then the process holding it. False when there is none, or it is
 * not visible (another user's process, without root).
 */
bool procstat_find_listener(const struct sockaddr *addr, pid_t *pid);
/* The CPU time of pid's threads now; ok false when the process is gone or unreadable. */
struct procstat_sample procstat_read(pid_t pid);
/* Between two readings of one process, over seconds. */
struct procstat_delta {
    double cpu_s;   /* the whole process's CPU seconds */
    double busiest; /* the largest share of the seconds one thread was on a CPU */
    bool wait_known;
    double wait_max; /* the largest share one thread waited for a CPU */
};

/* The delta of two readings (threads present in both); false when either is not ok. */
bool procstat_busy(const struct procstat_sample *before, const struct procstat_sample *after,
                   double seconds, struct procstat_delta *d);

#endif
