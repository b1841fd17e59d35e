/* The codec table: one entry per protocol, so sockets and clients need not know which. */
#ifndef SLAP_PROTO_H
#define SLAP_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slap/base/common.h"
#include "slap/proto/proto_ascii.h"
#include "slap/proto/proto_binary.h"
#include "slap/proto/proto_meta.h"

/* The protocols: a new one is a row here and its row in proto.c's codecs table (a static
 * assert counts the rows; test_proto checks that every row is filled). */
enum proto_kind {
    PROTO_ASCII = 0,
    PROTO_BINARY = 1,
    PROTO_META = 2,
    PROTO_KINDS /* how many */
};

/* Any protocol's parser state; a socket holds one. */
union proto_parser {
    struct text_parser text; /* ASCII and meta */
    struct binary_parser binary;
};

/* How a connection in a protocol authenticates (--auth), before its first request. */
enum proto_auth {
    PROTO_AUTH_UNSET,      /* a codec row that says none: test_every_codec_filled refuses it */
    PROTO_AUTH_SASL_PLAIN, /* SASL PLAIN, in binary frames */
    PROTO_AUTH_ASCII,      /* memcached's text authentication: "set" of "USER PASSWORD" */
};

struct codec {
    const char *name;
    /* get, gets or gat (to exptime) of n keys: key i at keys + i * stride, lens[i] bytes */
    size_t (*encode_retrieve)(char *out, size_t cap, enum op_type op, const char *keys,
                              size_t stride, const uint32_t *lens, uint32_t n, uint32_t exptime);
    /* the header of a storage command (set, add, replace, append, prepend, cas): the value
     * follows, then "\r\n" when set_crlf */
    size_t (*encode_store)(char *out, size_t cap, enum op_type op, const char *key, size_t key_len,
                           uint32_t flags, uint32_t exptime, size_t value_len, uint64_t cas);
    /* delete; incr or decr by arg; touch to exptime arg */
    size_t (*encode_command)(char *out, size_t cap, enum op_type op, const char *key,
                             size_t key_len, uint64_t arg);
    bool set_crlf; /* a storage command's data is followed by "\r\n" */
    /* The longest requests, from the encoders: a retrieval of n keys of up to k bytes is at
     * most n * (k + get_per_key) + get_fixed bytes; any other request's header k + set_fixed
     * (numbers at their widest: a value length of 32 bits, a cas token of 64). */
    uint32_t get_per_key, get_fixed, set_fixed;
    /* Reset for a new stream, with hook (or NULL) checking values. */
    void (*reset)(union proto_parser *p, const struct proto_value_hook *hook);
    /* The request the next bytes answer, as this codec encoded it (req_len bytes; for a
     * storage command its header without the value), or NULL when none is known: called
     * before every parse call, with the same request until its response is complete. */
    void (*asked)(union proto_parser *p, const char *req, size_t req_len);
    enum slap_status (*parse)(union proto_parser *p, const char *buf, size_t len, size_t *consumed,
                              struct proto_result *res);
    /* The latest Unix time memcached takes as an expiry in this protocol: ascii's and meta's
     * numbers are read as 32-bit signed (a larger one expires the item at once), binary's
     * field is 32-bit unsigned. */
    uint32_t exptime_max;
    /* Answers in meta's words (HD for a done delete, incr or touch; EN for a touch's miss),
     * and a server that counts a gat's misses as get misses. */
    bool meta_replies;
    /* A server spoken to in this protocol answers a text "stats" (a binary-only one would
     * not: asking it would cost the reader's whole timeout). */
    bool text_stats;
    enum proto_auth auth; /* how --auth speaks in it */
};

/* memcached reads an expiry time up to 30 days as seconds from now, a larger one as a Unix
 * time. */
#define CODEC_TTL_RELATIVE_MAX (30u * 24 * 3600)

/* The expiry time to send for a TTL of ttl_s seconds (0: none) at Unix time now_s: the TTL
 * itself up to 30 days, else the Unix time ttl_s from now, at most c->exptime_max. */
uint32_t codec_exptime(const struct codec *c, uint64_t ttl_s, uint64_t now_s);
/* The longest TTL c can carry at Unix time now_s (never less than 30 days). */
uint64_t codec_ttl_max(const struct codec *c, uint64_t now_s);

const struct codec *codec_get(enum proto_kind kind);
/* The longest get of n keys of up to key_max bytes, in bytes. */
size_t codec_get_bytes(const struct codec *c, uint32_t n, uint32_t key_max);
/* The longest set header (command line, or binary header, extras and key): data follows it. */
size_t codec_set_header_bytes(const struct codec *c, uint32_t key_max);
/* Room for any request header of a run: the larger of the two. */
size_t codec_header_room(const struct codec *c, uint32_t n, uint32_t key_max);

/* Room for proto_fault_describe's text. */
#define PROTO_FAULT_DETAIL 256

/* A fault's kind in a few words ("a value for a key not asked"): the same pointer for the
 * same kind, so that a report can say each kind once. */
const char *proto_fault_name(enum proto_fault fault);
/* What a parse's SLAP_ERROR result says came back against what was asked, in printable ASCII
 * (a server's bytes quoted, anything else in them escaped as \xNN), into out (cap bytes);
 * its length. */
size_t proto_fault_describe(char *out, size_t cap, const struct proto_result *res);

#endif
