/* Counters and latency histograms of a run: one X-macro list, merged by addition. */
#ifndef SLAP_STATS_H
#define SLAP_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "slap/hist.h"

/* How a counter appears in the text report. */
enum counter_show {
    COUNTER_ALWAYS,  /* memaslap's lines, always printed in this order */
    COUNTER_NONZERO, /* slap's additions, printed after memaslap's when not zero */
    COUNTER_HIDDEN,  /* used for derived figures only */
    COUNTER_VERIFY,  /* memaslap's lines with -v, after get_misses */
    COUNTER_EXPIRE,  /* memaslap's lines with -e, after those */
    COUNTER_UDP,     /* memaslap's lines with -U or -a, after object_bytes */
};

/*
 * X(name, show, meaning). Request counters count answered requests, so that
 * they equal what the server counted once every sent request is answered.
 */
#define SLAP_COUNTERS(X)                                                                           \
    X(cmd_get, COUNTER_ALWAYS, "keys asked for by answered gets")                                  \
    X(cmd_set, COUNTER_ALWAYS, "answered sets")                                                    \
    X(get_misses, COUNTER_ALWAYS, "keys not found by answered gets")                               \
    X(verify_misses, COUNTER_VERIFY, "checked gets that found no value where one was stored")    \
    X(verify_failed, COUNTER_VERIFY, "checked gets whose value differed from the one stored")    \
    X(expired_get, COUNTER_EXPIRE, "gets that found a value past its expiry time")               \
    X(unexpired_unget, COUNTER_EXPIRE, "gets that found no value before its expiry time")        \
    X(written_bytes, COUNTER_ALWAYS, "bytes written to servers")                                   \
    X(read_bytes, COUNTER_ALWAYS, "bytes read from servers")                                       \
    X(object_bytes, COUNTER_ALWAYS, "key + value bytes of answered sets")                          \
    X(packet_disorder, COUNTER_UDP, "UDP datagrams that came before one with a lower sequence")   \
    X(packet_drop, COUNTER_UDP, "UDP datagrams missing when their answer timed out")            \
    X(udp_timeout, COUNTER_UDP, "UDP requests whose answer did not come in --udp_timeout")      \
    X(not_stored, COUNTER_NONZERO, "sets answered NOT_STORED, EXISTS or NOT_FOUND")                \
    X(server_error, COUNTER_NONZERO, "SERVER_ERROR replies")                                       \
    X(client_error, COUNTER_NONZERO, "CLIENT_ERROR replies")                                       \
    X(error_reply, COUNTER_NONZERO, "ERROR replies")                                               \
    X(protocol_error, COUNTER_NONZERO, "responses that were not memcached's protocol")             \
    X(conn_closed, COUNTER_NONZERO, "connections closed by the server or the network")            \
    X(conn_refused, COUNTER_NONZERO, "of those, closed before their first answer (refused)")      \
    X(reconnects, COUNTER_NONZERO, "connections opened again after a close (-R)")                  \
    X(clients_stopped, COUNTER_NONZERO, "clients stopped by a lost connection (no -R)")            \
    X(unanswered, COUNTER_NONZERO, "requests due but never answered (lost, abandoned, unsent)")    \
    X(unsent, COUNTER_NONZERO, "of those, requests due that never left (behind a stalled socket)") \
    X(requests_sent, COUNTER_HIDDEN, "requests handed to the kernel")                            \
    X(net_get_bytes, COUNTER_HIDDEN, "bytes written and read for gets")                            \
    X(net_set_bytes, COUNTER_HIDDEN, "bytes written and read for sets")

struct slap_counters {
#define SLAP_COUNTER_FIELD(name, show, meaning) uint64_t name;
    SLAP_COUNTERS(SLAP_COUNTER_FIELD)
#undef SLAP_COUNTER_FIELD
};

/* Request types with a latency histogram of their own. */
enum stats_type {
    STATS_GET = 0,
    STATS_SET = 1,
    STATS_TYPES = 2,
};

/* Gets by outcome. */
enum stats_outcome {
    STATS_HIT = 0,
    STATS_MISS = 1,
    STATS_OUTCOMES = 2,
};

struct slap_stats {
    struct slap_counters counters;
    struct hist lat[STATS_TYPES];       /* latency per type from the intended send time */
    struct hist raw[STATS_TYPES];       /* open loop: from the actual send (uncorrected) */
    struct hist gets[STATS_OUTCOMES];   /* latency of gets that hit, that missed */
    struct hist lag;                    /* open loop: actual send minus intended send */
};

void stats_reset(struct slap_stats *s);
void stats_merge(struct slap_stats *dst, const struct slap_stats *src);
/* Latency of every type together (the "Total" tables), from lat or raw. */
void stats_total_hist(const struct slap_stats *s, struct hist *total);
void stats_total_raw(const struct slap_stats *s, struct hist *total);
/* Requests answered: cmd_get + cmd_set, memaslap's "Ops". */
uint64_t stats_ops(const struct slap_stats *s);
/* Print "name: value" lines for counters of the given visibility. */
void stats_print_counters(FILE *out, const struct slap_counters *c, enum counter_show show);
/* memaslap's counter lines in its order: the -v and -e ones only when asked for. */
void stats_print_memaslap(FILE *out, const struct slap_counters *c, bool verify, bool expire,
                          bool udp);
/* Look a counter up by name (for tests and machine-readable output); NULL if unknown. */
const uint64_t *stats_counter_by_name(const struct slap_counters *c, const char *name);

#endif
