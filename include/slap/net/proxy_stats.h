/* twemproxy's own stats (its stats port, JSON): its errors and queues, and its backends. */
#ifndef SLAP_PROXY_STATS_H
#define SLAP_PROXY_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slap/base/common.h"
#include "slap/net/servers.h"

#define PROXY_STATS_BACKENDS 64 /* backends kept by name */

/* X(name): the per-pool (pool) and per-backend (server) counters summed over all of them. */
#define PROXY_STATS_FIELDS(X)                                                                      \
    X(client_err)                                                                                  \
    X(server_ejects)                                                                               \
    X(forward_error)                                                                               \
    X(server_err)                                                                                  \
    X(server_timedout)                                                                             \
    X(server_eof)                                                                                  \
    X(requests)                                                                                    \
    X(responses)                                                                                   \
    X(in_queue)                                                                                    \
    X(out_queue)

struct proxy_stats {
#define PROXY_STATS_FIELD(name) double name;
    PROXY_STATS_FIELDS(PROXY_STATS_FIELD)
#undef PROXY_STATS_FIELD
    uint32_t nbackends;
    char backends[PROXY_STATS_BACKENDS][SERVER_NAME_MAX]; /* "host:port" as the proxy names them */
};

/*
 * Parse twemproxy's stats document: every pool (an object member holding client_connections)
 * and every backend in it (a member holding server_connections). SLAP_ERROR with a printable
 * why when it is not such a document.
 */
enum slap_status proxy_stats_parse(const char *text, size_t len, struct proxy_stats *out, char *why,
                                   size_t why_len);
/* Connect to the stats port, read the document to its end (at most timeout_ns), parse it. */
enum slap_status proxy_stats_read(const struct server *srv, uint64_t timeout_ns,
                                  struct proxy_stats *out, char *why, size_t why_len);
/*
 * Turn the proxy's event loop once: connect to srv (one of its client ports), send quit and
 * wait for the close, at most until deadline_ns. twemproxy hands its counters to its stats
 * thread only when its event loop turns after the last stats read, so a stats read before
 * this and one after it give the counters up to now (see proxy_stats.c). SLAP_ERROR with why
 * when srv did not close in time.
 */
enum slap_status proxy_stats_turn(const struct server *srv, uint64_t deadline_ns, char *why,
                                  size_t why_len);
/* The answers the proxy counted for its clients: its backends' responses and the errors it sent
 * in their place (a backend's error, time-out or close, a request it could not forward). */
double proxy_stats_answers(const struct proxy_stats *p);
/* The share of answered (slap's answered requests) that the proxy's counts over the run (a
 * delta) account for: from 0 to 1, 1 when it counted as many or more, or answered is 0. */
double proxy_stats_coverage(const struct proxy_stats *delta, uint64_t answered);
/* The backends' names as a -s style list ("a:1,b:2") into out; false when none or no room. */
bool proxy_stats_backend_list(const struct proxy_stats *p, char *out, size_t out_len);

#endif
