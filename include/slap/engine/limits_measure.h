/* A server's figures for the verdict, from what the run read of it. */
#ifndef SLAP_LIMITS_MEASURE_H
#define SLAP_LIMITS_MEASURE_H

#include <stdint.h>

#include "slap/judge/limits.h"
#include "slap/net/server_stats.h"

/* A server's figures from its stats pair, over the run; host_cpus caps the threads of a server
 * on slap's host (local), 0 when it is elsewhere. */
void limits_server_from_stats(struct limits_server *s, const char *name, const char *label,
                              const struct server_stats_pair *p, uint32_t host_cpus);
/* A server that answers no stats but runs on slap's host: its process's CPU (from /proc), its
 * busy share its busiest thread's. s->note, why its stats were not read, is kept. */
void limits_server_from_proc(struct limits_server *s, const char *name, const char *label, int pid,
                             double cpu_s, double busiest, uint32_t threads, double seconds);

#endif
