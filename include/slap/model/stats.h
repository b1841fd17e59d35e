/* Counters and latency histograms of a run: one X-macro list, merged by addition. */
#ifndef SLAP_STATS_H
#define SLAP_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "slap/base/common.h"
#include "slap/base/hist.h"
#include "slap/model/ops.h"

/* How a counter appears in the text report. */
enum counter_show {
    COUNTER_ALWAYS,  /* memaslap's lines, always printed in this order */
    COUNTER_NONZERO, /* slap's additions, printed after memaslap's when not zero */
    COUNTER_HIDDEN,  /* used for derived figures only */
    COUNTER_VERIFY,  /* memaslap's lines with -v, after get_misses */
    COUNTER_EXPIRE,  /* memaslap's lines with -e, after those */
    COUNTER_UDP,     /* memaslap's lines with -U or -a, after object_bytes */
    COUNTER_MIX,     /* slap's, printed when not zero and the mix has more than get and set */
    COUNTER_CHECKED, /* slap's, printed with -v after memaslap's lines, zero included */
};

/*
 * X(name, show, since, meaning). Request counters count answered requests, so that
 * they equal what the server counted once every sent request is answered. since: the results
 * schema (RESULTS_SCHEMA, output/results.h) whose files first hold the counter: a file of an
 * older schema may lack it, and is read with it not known. A new counter takes the schema
 * version the next format change will have (RESULTS_SCHEMA + 1 until it is released).
 */
#define SLAP_COUNTERS(X)                                                                           \
    X(cmd_get, COUNTER_ALWAYS, 1, "keys asked for by answered gets (get, gets)")                   \
    X(cmd_set, COUNTER_ALWAYS, 1, "answered storage commands (set, add, replace, append, ...)")    \
    X(get_misses, COUNTER_ALWAYS, 1, "keys not found by answered gets")                            \
    X(verify_misses, COUNTER_VERIFY, 1, "checked gets that found no value where one was stored")   \
    X(verify_failed, COUNTER_VERIFY, 1, "checked gets whose value differed from the one stored")   \
    X(verify_checked, COUNTER_CHECKED, 2,                                                          \
      "gets checked: a value compared, or a miss of a stored one")                                 \
    X(expired_get, COUNTER_EXPIRE, 1, "gets that found a value past its expiry time")              \
    X(unexpired_unget, COUNTER_EXPIRE, 1, "gets that found no value before its expiry time")       \
    X(written_bytes, COUNTER_ALWAYS, 1, "bytes written to servers")                                \
    X(read_bytes, COUNTER_ALWAYS, 1, "bytes read from servers")                                    \
    X(object_bytes, COUNTER_ALWAYS, 1, "key + value bytes of answered sets")                       \
    X(packet_disorder, COUNTER_UDP, 1, "UDP datagrams that came before one with a lower sequence") \
    X(packet_drop, COUNTER_UDP, 1, "UDP datagrams missing when their answer timed out")            \
    X(udp_timeout, COUNTER_UDP, 1, "UDP requests whose answer did not come in --udp_timeout")      \
    X(not_stored, COUNTER_NONZERO, 1, "storage commands answered NOT_STORED")                      \
    X(server_error, COUNTER_NONZERO, 1, "SERVER_ERROR replies")                                    \
    X(client_error, COUNTER_NONZERO, 1, "CLIENT_ERROR replies")                                    \
    X(error_reply, COUNTER_NONZERO, 1, "ERROR replies")                                            \
    X(protocol_error, COUNTER_NONZERO, 1, "responses that were not memcached's protocol")          \
    X(conn_closed, COUNTER_NONZERO, 1, "connections closed by the server or the network")          \
    X(conn_refused, COUNTER_NONZERO, 1, "of those, closed before their first answer (refused)")    \
    X(reconnects, COUNTER_NONZERO, 1, "connections opened again after a close (-R)")               \
    X(clients_stopped, COUNTER_NONZERO, 1, "clients stopped by a lost connection (no -R)")         \
    X(unanswered, COUNTER_NONZERO, 1, "requests due but never answered (lost, abandoned, unsent)") \
    X(unsent, COUNTER_NONZERO, 1, "of those, due requests that never left (a stalled socket)")     \
    X(client_lag, COUNTER_NONZERO, 2, "of those, due while their socket was free: slap lagged")    \
    X(stored, COUNTER_MIX, 2, "storage commands answered STORED")                                  \
    X(exists, COUNTER_NONZERO, 2, "storage commands answered EXISTS (cas: changed since gets)")    \
    X(not_found, COUNTER_NONZERO, 2, "commands answered NOT_FOUND")                                \
    X(deleted, COUNTER_NONZERO, 2, "deletes answered DELETED")                                     \
    X(touched, COUNTER_NONZERO, 2, "touches answered TOUCHED")                                     \
    X(cmd_touch, COUNTER_NONZERO, 2, "keys touched by answered touch and gat (the server's)")      \
    X(touch_hits, COUNTER_NONZERO, 2, "of those, keys found")                                      \
    X(touch_misses, COUNTER_NONZERO, 2, "of those, keys not found")                                \
    X(delete_hits, COUNTER_NONZERO, 2, "deletes of a key that was there")                          \
    X(delete_misses, COUNTER_NONZERO, 2, "deletes of a key that was not")                          \
    X(incr_hits, COUNTER_NONZERO, 2, "increments of a key that was there")                         \
    X(incr_misses, COUNTER_NONZERO, 2, "increments of a key that was not")                         \
    X(decr_hits, COUNTER_NONZERO, 2, "decrements of a key that was there")                         \
    X(decr_misses, COUNTER_NONZERO, 2, "decrements of a key that was not")                         \
    X(cas_hits, COUNTER_NONZERO, 2, "cas answered STORED")                                         \
    X(cas_misses, COUNTER_NONZERO, 2, "cas of a key that was not there")                           \
    X(cas_badval, COUNTER_NONZERO, 2, "cas of a key changed since its gets")                       \
    X(slap_late, COUNTER_NONZERO, 3,                                                               \
      "answered requests whose latency was mostly slap late to send")                              \
    X(requests_sent, COUNTER_HIDDEN, 1, "requests handed to the kernel")

struct slap_counters {
#define SLAP_COUNTER_FIELD(name, show, since, meaning) uint64_t name;
    SLAP_COUNTERS(SLAP_COUNTER_FIELD)
#undef SLAP_COUNTER_FIELD
};

/* An open loop's answered request counts as slap_late when slap was late to send it by this
 * much or more and that was more than half of its latency (LIMITS_LATE_NS's 1 ms: the schedule
 * slipped). */
#define STATS_SLAP_LATE_NS 1000000ULL

/* Request types with a latency histogram of their own: every operation (ops.h). */
enum stats_type {
    STATS_GET = OP_GET,
    STATS_SET = OP_SET,
    STATS_TYPES = OP_COUNT,
};

/* Gets by outcome. */
enum stats_outcome {
    STATS_HIT = 0,
    STATS_MISS = 1,
    STATS_OUTCOMES = 2,
};

/* The histograms a run keeps: one per type in its mix, and uncorrected ones in an open loop. */
struct stats_shape {
    uint32_t types; /* op_bit() of each type that may be sent */
    bool open_loop; /* -P: raw histograms too */
};

/*
 * A histogram is large (37 KiB): a run keeps only those of the types its mix sends. A type
 * outside the shape has NULL histograms, and requests of it are never recorded.
 */
struct slap_stats {
    struct slap_counters counters;
    struct hist *lat[STATS_TYPES];     /* latency per type from the intended send time */
    struct hist *raw[STATS_TYPES];     /* open loop: from the actual send (uncorrected): the
                                          network and the server */
    struct hist *held[STATS_TYPES];    /* open loop: the wait before the send while the server
                                          held the request (its lane full, its socket closed
                                          or taking no bytes) */
    struct hist *late[STATS_TYPES];    /* open loop: the rest of that wait: slap late to send */
    uint64_t net_bytes[STATS_TYPES];   /* bytes written and read for each type */
    uint64_t misses[STATS_TYPES];      /* keys each type did not find (the tables' Get_miss) */
    struct hist *gets[STATS_OUTCOMES]; /* latency of gets that hit, that missed */
    struct hist *lag;                  /* open loop: actual send minus intended send */
    struct hist *slap_tail;            /* open loop: latency of the slap_late requests */
    struct hist *own;                  /* --timestamps=kernel: slap's read of an answer
                                          minus its kernel arrival stamp (its own delay) */
    struct hist *connect;              /* connections made while measuring (reopened by
                                          --reconnect_every or -R): connect to ready */
    struct hist *slab;                 /* all of the above (hist_slab_alloc) */
    size_t nslab;                      /* how many */
};

/* Every type, corrected and uncorrected: what a results document read back may hold. */
extern const struct stats_shape stats_shape_all;

/* Empty statistics of that shape. stats_free is safe after a failure. Statistics zeroed and
 * never made have no histograms (every pointer NULL): reset and merge take only their counters. */
enum slap_status stats_init(struct slap_stats *s, const struct stats_shape *shape);
void stats_free(struct slap_stats *s);
void stats_reset(struct slap_stats *s);
/* Add src into dst, which has the same shape. */
void stats_merge(struct slap_stats *dst, const struct slap_stats *src);
/* Latency of every type together (the "Total" tables), from lat or raw. */
void stats_total_hist(const struct slap_stats *s, struct hist *total);
void stats_total_raw(const struct slap_stats *s, struct hist *total);
/* The same of any per-type array (held, late): the types' histograms that exist, merged. */
void stats_total_of(struct hist *const *by_type, struct hist *total);
/* Requests answered, memaslap's "Ops": cmd_get + cmd_set (keys of multi-gets, copies of
 * -p sets), plus touches, deletes, increments and decrements. */
uint64_t stats_ops(const struct slap_stats *s);
/* The same from counters alone (a period's or a step's in results). */
uint64_t stats_counters_ops(const struct slap_counters *c);
/* Requests answered, whatever the answer (error lines too); a multi-get counts once. */
uint64_t stats_requests(const struct slap_stats *s);
/* The same from counters alone: the rate a -P target (requests per second) is compared with. */
uint64_t stats_counters_requests(const struct slap_counters *c);
/* Print "name: value" lines for counters of the given visibility (COUNTER_NONZERO and
 * COUNTER_MIX: only those that are not zero). */
void stats_print_counters(FILE *out, const struct slap_counters *c, enum counter_show show);
/* slap's counter lines after memaslap's, those not zero: COUNTER_NONZERO ones, and with mix
 * (the mix has more than gets and sets) COUNTER_MIX ones too, in the list's order. */
void stats_print_added(FILE *out, const struct slap_counters *c, bool mix, bool verify);
/* memaslap's counter lines in its order: the -v and -e ones only when asked for. */
void stats_print_memaslap(FILE *out, const struct slap_counters *c, bool verify, bool expire,
                          bool udp);
/* Look a counter up by name (for tests and machine-readable output); NULL if unknown. */
const uint64_t *stats_counter_by_name(const struct slap_counters *c, const char *name);

/* "Get", "Set", ... for a stats type (the tables' titles); "Total" for STATS_TYPES; NULL beyond. */
const char *stats_type_title(int type);
/* The same in lower case, as results files name them ("get", ..., "total"). */
const char *stats_type_name(int type);

/* Errors in --max_errors' sense: error replies, protocol errors and unanswered requests. */
uint64_t stats_errors(const struct slap_counters *c);

#endif
