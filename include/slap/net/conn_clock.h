/* A thread's conversion of the kernel's arrival stamps to slap's clock: what a connection
 * (conn.h) is given and the stamps' code (stamp.c) keeps, apart so neither includes the other. */
#ifndef SLAP_CONN_CLOCK_H
#define SLAP_CONN_CLOCK_H

#include <stdint.h>

/* A thread's conversion of the kernel's stamps (CLOCK_REALTIME) to slap's clock. */
struct conn_clock {
    uint64_t real_minus_mono_ns; /* CLOCK_REALTIME less CLOCK_MONOTONIC (mod 2^64) */
    uint64_t set_ns;             /* when it was read (slap's clock) */
};

#endif
