/* A server's own `stats`, read over a connection of its own before and after a run. */
#ifndef SLAP_SERVER_STATS_H
#define SLAP_SERVER_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slap/base/common.h"
#include "slap/net/servers.h"

struct conn_auth;

#define SERVER_STATS_NOTE_MAX 160
#define SERVER_STATS_TIMEOUT_NS (2ULL * SLAP_NS_PER_SEC)

/* X(name): the figures of memcached's `stats` that a results file keeps (as numbers). */
#define SERVER_STATS_FIELDS(X)                                                                     \
    X(cmd_get)                                                                                     \
    X(cmd_set)                                                                                     \
    X(get_hits)                                                                                    \
    X(get_misses)                                                                                  \
    X(evictions)                                                                                   \
    X(bytes_read)                                                                                  \
    X(bytes_written)                                                                               \
    X(curr_connections)                                                                            \
    X(rusage_user)                                                                                 \
    X(rusage_system)

struct server_stats {
#define SERVER_STATS_FIELD(name) double name;
    SERVER_STATS_FIELDS(SERVER_STATS_FIELD)
#undef SERVER_STATS_FIELD
    double threads; /* memcached's worker threads; 0 when the server does not say (optional) */
};

/* One server's figures before and after the run, or why there are none. */
struct server_stats_pair {
    bool ok; /* both reads answered */
    struct server_stats before;
    struct server_stats after;
    uint64_t before_ns; /* slap_now_ns() when each answer came */
    uint64_t after_ns;
    bool preload_known;               /* evictions were read before the preload or warm-up too */
    double preload_evictions;         /* and these the server made during them, before `before` */
    char note[SERVER_STATS_NOTE_MAX]; /* when not ok: why (printable) */
};

/*
 * Send `stats` to srv over a new connection, waiting at most timeout_ns in all, and read the
 * fields. SLAP_ERROR with a printable reason in why (the server's first line, made safe) when
 * it cannot connect, closes, answers something else (a proxy that refuses `stats`) or
 * is missing a field. binary: in the binary protocol (a server started -B binary or -S speaks no
 * other). auth (or NULL): the connection authenticates first, in the same write, by SASL PLAIN
 * in binary or memcached's ASCII authentication (-Y) in text; a refusal is said in why.
 */
enum slap_status server_stats_read(const struct server *srv, uint64_t timeout_ns,
                                   const struct conn_auth *auth, bool binary,
                                   struct server_stats *out, char *why, size_t why_len);
/*
 * Parse a `stats` answer (text[0..len), up to and including END) into out. SLAP_AGAIN when
 * END has not come yet; SLAP_ERROR, with why, when it is not a stats answer.
 */
enum slap_status server_stats_parse(const char *text, size_t len, struct server_stats *out,
                                    char *why, size_t why_len);
/* The same for the binary protocol's answer (its packets up to the one without a key, after
 * a SASL_AUTH answer when the request authenticated first). */
enum slap_status server_stats_parse_binary(const char *text, size_t len, struct server_stats *out,
                                           char *why, size_t why_len);

/* A non-blocking connect to srv, finished before the deadline; -1 with why on failure. */
int server_stats_connect(const struct server *srv, uint64_t deadline_ns, char *why, size_t why_len);
/* Wait for events (poll's) on fd until the deadline; false when it passed or poll failed. */
bool server_stats_wait(int fd, short events, uint64_t deadline_ns);

/* The evictions of the preload or warm-up, summed over n servers' pairs where known. */
double server_stats_preload_evictions(const struct server_stats_pair *pairs, size_t n);

/* after - before, field by field. */
void server_stats_delta(const struct server_stats_pair *p, struct server_stats *delta);

#endif
