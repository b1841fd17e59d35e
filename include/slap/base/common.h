/* Shared vocabulary of every module: status codes, the clock. */
#ifndef SLAP_COMMON_H
#define SLAP_COMMON_H

#include <stdint.h>
#include <sys/time.h>
#include <time.h>

/* One status vocabulary for every function that can fail or wait. */
enum slap_status {
    SLAP_ERROR = -1, /* failed; the caller reports or gives up */
    SLAP_OK = 0,     /* done */
    SLAP_AGAIN = 1,  /* need more bytes, or the operation would block */
};

/* Every command's exit status, slap's and its subcommands' (README: "Exit status"). */
enum slap_exit {
    SLAP_EXIT_OK = 0,     /* done: the run succeeded, the files merged, no threshold crossed */
    SLAP_EXIT_FAILED = 1, /* the run or an output failed, or a --fail-if threshold was crossed */
    SLAP_EXIT_USAGE = 2,  /* bad usage, or an input that cannot be used */
};

#define SLAP_NS_PER_US 1000ULL
#define SLAP_NS_PER_MS 1000000ULL
#define SLAP_NS_PER_SEC 1000000000ULL

#define SLAP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Monotonic time in nanoseconds (vDSO, no system call). */
static inline uint64_t slap_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * SLAP_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* A duration in nanoseconds as the struct timeval libevent takes. */
static inline struct timeval slap_ns_to_timeval(uint64_t ns)
{
    struct timeval tv = {.tv_sec = (time_t)(ns / SLAP_NS_PER_SEC),
                         .tv_usec = (suseconds_t)(ns % SLAP_NS_PER_SEC / SLAP_NS_PER_US)};
    return tv;
}

#endif
