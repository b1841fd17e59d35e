/* Production cache traces (Twitter's format): reading them as a stream of timed requests. */
#ifndef SLAP_TRACE_H
#define SLAP_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "slap/base/common.h"
#include "slap/model/ops.h"

/*
 * Twitter's cache traces (github.com/twitter/cache-trace, OSDI 2020): plain text, one request
 * a line, seven comma-separated fields:
 *
 *   timestamp,anonymized key,key size,value size,client id,operation,TTL
 *
 * timestamp in whole seconds; operation one of get, gets, set, add, replace, cas, append,
 * prepend, delete, incr, decr; TTL in seconds, 0 for a request that writes nothing. The key
 * may itself hold commas: the first field and the last five are the fixed ones. Files are
 * usually zstd-compressed.
 */

#define TRACE_KEY_MAX 250 /* memcached's longest key */

/* One request of a trace, ready to send. */
struct trace_request {
    uint64_t offset_ns; /* its intended time from the trace's first timestamp (unscaled): the
                           requests of one second are spread evenly across it */
    uint64_t line;      /* its line in the trace, from 1 */
    uint64_t client;    /* the trace's client id */
    enum op_type op;
    uint32_t ttl;        /* seconds; 0: none */
    uint32_t value_size; /* bytes of value a storage command carries (capped: see below) */
    uint32_t key_len;
    char key[TRACE_KEY_MAX]; /* a key memcached takes in every protocol (see trace_key) */
};

/* How to read a trace. */
struct trace_options {
    const char *path;   /* a file (plain or zstd-compressed: by its magic), or "-": stdin */
    bool skip_bad;      /* --trace-skip-bad: count malformed lines and go on, instead of
                           stopping at the first with an error naming it */
    uint64_t limit;     /* --trace-limit: at most this many requests; 0: all */
    uint32_t value_max; /* values larger than this are sent at this size (the server's item
                           size limit), and counted; 0: no limit */
};

/* What the reader has seen so far. */
struct trace_counts {
    uint64_t requests;    /* handed out */
    uint64_t skipped;     /* malformed lines skipped (skip_bad) */
    uint64_t values_cut;  /* values larger than value_max, sent at value_max */
    uint64_t keys_hashed; /* keys too long or with bytes a protocol refuses, replaced */
    uint64_t first_line;  /* the source line range handed out, from 1 (0, 0 if none) */
    uint64_t last_line;
    uint64_t first_second; /* the trace's own timestamps of the first and last requests */
    uint64_t last_second;
};

/* What a replay sent of a trace (measured requests), merged over the threads. */
struct trace_progress {
    uint64_t sent;               /* trace requests sent */
    uint64_t min_line, max_line; /* their source lines (0, 0 when none) */
    uint64_t min_ns, max_ns;     /* their offsets in the trace */
};

/* Add one request sent, or another thread's progress. */
void trace_progress_add(struct trace_progress *p, const struct trace_request *r);
void trace_progress_merge(struct trace_progress *into, const struct trace_progress *from);
/* The trace's own rate over what was sent, in requests per second of trace time: n requests
 * evenly spread over their span of offsets make n - 1 gaps. */
double trace_progress_rate(const struct trace_progress *p);

struct trace_reader;

/* Open a trace for reading. SLAP_ERROR with one line in err (naming the file) if it cannot
 * be read, or is neither plain text nor zstd. trace_close is safe after a failure. */
enum slap_status trace_open(struct trace_reader **out, const struct trace_options *o, char *err,
                            size_t err_len);
/*
 * The next request: SLAP_OK and *r filled; SLAP_AGAIN at the end of the trace (or of
 * limit); SLAP_ERROR with "FILE:LINE: what is wrong" in err for a malformed line (unless
 * skip_bad) or a read error. Memory stays bounded whatever the trace's size: at most one
 * second of the trace is held at a time (its requests must be counted before they are
 * spread across it), and never more than TRACE_SECOND_MAX requests of it.
 */
enum slap_status trace_next(struct trace_reader *t, struct trace_request *r, char *err,
                            size_t err_len);
const struct trace_counts *trace_counts(const struct trace_reader *t);
void trace_close(struct trace_reader *t);

/* A second of more requests than this is spread in parts of this many, one after another. */
#define TRACE_SECOND_MAX (1u << 18)

/*
 * The key to send for a trace key: the key itself when memcached takes it in every protocol
 * (1 to 250 bytes of printable ASCII without space, 0x21 to 0x7e: no space, control byte or
 * byte above 0x7e); else "h" and 32 hex digits of its hash, the same for the same
 * key. Either is then padded with '_' to the trace's key size, up to 250 bytes, so keys keep
 * the trace's sizes. Returns the length written to out (TRACE_KEY_MAX bytes of room), and
 * whether it had to be hashed.
 */
uint32_t trace_key(const char *key, size_t key_len, uint32_t key_size, char *out, bool *hashed);

/*
 * When a request of the trace falls due: start_ns + offset_ns / speed (speed above 0), or
 * UINT64_MAX, never, when that is past what 64 bits of nanoseconds hold (a timestamp near the
 * format's limit, a slow --trace_speed and a long gap): it is due after any run ends.
 */
uint64_t trace_due_ns(uint64_t start_ns, uint64_t offset_ns, double speed);

/*
 * Parse one line (without its newline) into *r, all but offset_ns and line. SLAP_ERROR with
 * what is wrong in err (without the FILE:LINE prefix). For tests and the fuzzer.
 */
enum slap_status trace_parse_line(const char *line, size_t len, struct trace_request *r,
                                  uint64_t *second, char *err, size_t err_len);

#endif
