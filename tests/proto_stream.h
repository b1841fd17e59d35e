/* Test helper: a byte stream fed to a codec's parser in chunks as conn.c does, and what it said. */
#ifndef SLAP_TESTS_PROTO_STREAM_H
#define SLAP_TESTS_PROTO_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slap/base/common.h"
#include "slap/proto/proto.h"

/* One thing the parser said: a complete response, or how a run ended. */
struct stream_result {
    enum slap_status status; /* SLAP_OK for a response; SLAP_AGAIN or SLAP_ERROR for the end */
    enum proto_reply reply;  /* this and the rest: a response's */
    uint32_t hits;
    uint64_t value_bytes;
    size_t msg_off; /* msg as an offset into the whole stream; SIZE_MAX: no msg */
    size_t msg_len;
    uint64_t trace;         /* *trace after the parse call that said it; 0 without a trace */
    enum proto_fault fault; /* SLAP_ERROR: why */
};

/* A request a response answers, as its codec encoded it. */
struct stream_request {
    const char *bytes;
    size_t len;
};

/* A response a test expects. */
struct stream_want {
    enum proto_reply reply;
    uint32_t hits;
    uint64_t value_bytes;
    const char *msg; /* NULL: no msg */
};

/*
 * A stream through one codec's parser. The caller keeps nothing but the unconsumed bytes
 * between calls, as conn.c does, and each call sees a fresh buffer of exactly those bytes,
 * so a read past them shows under AddressSanitizer. A run checks the parser's promises:
 * it consumes no more than it is given, something for every response, its msg lies in
 * the bytes a response consumed, and it never leaves more than PROTO_ASCII_MAX_LINE bytes
 * for the caller to carry. The caller sets kind, responses and room (hook and trace if it
 * wants them), for instance
 *   static struct stream_result results[64];
 *   static struct proto_stream s = {.kind = PROTO_META, .responses = results, .room = 64};
 */
struct proto_stream {
    enum proto_kind kind;                /* the codec */
    struct stream_result *responses;     /* room for a run's complete responses, in order */
    size_t room;                         /* entries there: a run with more breaks a promise */
    const struct proto_value_hook *hook; /* NULL, or the check of values */
    const uint64_t *trace;               /* NULL, or a digest the hook keeps */
    const struct stream_request *asked;  /* NULL, or what response i answers, i < n_asked */
    size_t n_asked;                      /* (past them, no request is known) */
    union proto_parser parser;           /* the last run's parser as the run left it */
    const char *input;                   /* its bytes */
    size_t len;                          /* their count */
    size_t consumed;                     /* of them, what the parser used up */
    size_t n_responses;                  /* its complete responses */
    struct stream_result end;            /* how it ended: SLAP_AGAIN or SLAP_ERROR */
};

/*
 * Each check below says on stderr what went wrong, if anything did, so that a test or a
 * fuzz target need only stop.
 */

/*
 * Reset the parser (with s->hook), then feed it input: a first chunk of first bytes, then
 * chunk bytes at a time (chunk >= 1), parsing after each until it says SLAP_AGAIN; a
 * SLAP_ERROR ends the run. NULL, or the promise the parser broke.
 */
const char *proto_stream_run(struct proto_stream *s, const char *input, size_t len, size_t first,
                             size_t chunk);

/* The last run said exactly want (n_want responses) and used every byte; how and where name
 * the run in what is said otherwise. */
bool proto_stream_expect(const struct proto_stream *s, const struct stream_want *want,
                         size_t n_want, const char *how, size_t where);

/* Garbage: the parser keeps its promises and ends in SLAP_ERROR, whether the bytes come at
 * once, one by one or seven at a time; name names them in what is said otherwise. */
bool proto_stream_rejects(struct proto_stream *s, const char *bytes, size_t len, const char *name);

/* An answer to req (req_len bytes, as its codec encoded it) that cannot be one: the parser
 * ends in SLAP_ERROR saying fault, at once or in chunks; name names it otherwise. */
bool proto_stream_refuses(struct proto_stream *s, const char *req, size_t req_len,
                          const char *bytes, size_t len, enum proto_fault fault, const char *name);

/*
 * Run input through chunked in chunks of chunk bytes and through whole in one piece: NULL if
 * the parser kept its promises in both and said the same, else what went wrong.
 */
const char *proto_stream_agree(struct proto_stream *chunked, struct proto_stream *whole,
                               const char *input, size_t len, size_t chunk);

#endif
