/* A run's events and its unanswered requests in words: what the engine tells, formatted. */
#ifndef SLAP_RUN_EVENTS_H
#define SLAP_RUN_EVENTS_H

#include <stdint.h>
#include <stdio.h>

#include "slap/engine/run.h"
#include "slap/engine/run_event.h"

/* A server's message is shown up to this many bytes, then "...". */
#define RUN_EVENT_DETAIL_SHOWN 200

/* e in words on f: a line (or the progress line's update) with one fprintf, so that lines
 * told by several threads at once never mix. */
void run_event_print(FILE *f, const struct run_event *e);

/* How many requests went unanswered, and which servers' sockets held them (res of a run that
 * left some); each line begins with who ("slap", or "slap: step 40000 ops/s" in a sweep). */
void run_stalls_print(FILE *f, const struct run_result *res, const char *who);
/* -R: per server, the connections lost and still not open again when the run ended (the
 * server never answered again on them); returns how many in all. */
uint32_t run_down_print(FILE *f, const struct run_result *res, const char *who);

#endif
