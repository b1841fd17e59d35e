/* memcached binary protocol: request encoders and a streaming response parser. */
#ifndef SLAP_PROTO_BINARY_H
#define SLAP_PROTO_BINARY_H

#include <stddef.h>
#include <stdint.h>

#include "slap/proto/proto_ascii.h" /* struct proto_result, enum proto_reply, struct proto_value_hook */

#define PROTO_BINARY_HEADER 24
#define PROTO_BINARY_MAX_KEY 250

/*
 * Streaming parser of response packets (magic 0x81). What completes a response:
 *   GET/GETK (0x00/0x0c): status 0 a hit, 1 (not found) a miss -> PROTO_REPLY_VALUES;
 *   GETQ/GETKQ (0x09/0x0d) hits are counted (quiet misses send nothing) until
 *   NOOP (0x0a) -> PROTO_REPLY_VALUES with the hits;
 *   SET (0x01): 0 STORED, 2 EXISTS, 5 NOT_STORED, 1 NOT_FOUND;
 *   any opcode: 4 (invalid arguments) CLIENT_ERROR, 0x81 (unknown command) ERROR,
 *   3 (too large), 0x82 (out of memory) and anything else SERVER_ERROR, with the
 *   body's text as msg when it is whole in this buffer.
 * A wrong magic, an unknown opcode, lengths that do not add up, or a value over
 * PROTO_MAX_VALUE_BYTES is SLAP_ERROR. With the request known (p->resp.req), every
 * packet must answer one of its packets still due: the first with the packet's opaque,
 * passing over only quiet gets (whose misses say nothing), with the same opcode, and a
 * hit with the key that packet asked; else SLAP_ERROR at once, res->fault saying which.
 * (The encoders give a request's packets opaques 0, 1, ... in order.) An error status on
 * a quiet get then leaves the multi-get open, and its NOOP completes it as that error.
 * Values stream past (never buffered); the key of a value response is kept so
 * the hook (if any) can be asked about it, then its data is checked.
 */
struct binary_parser {
    int state;                           /* internal: header, extras+key, data, rest of body */
    uint8_t header[PROTO_BINARY_HEADER]; /* the current packet's header */
    uint32_t header_have;                /* its bytes so far */
    uint64_t body_left;                  /* body bytes of the current packet still to come */
    uint32_t skip_left;                  /* extras still to skip */
    uint32_t key_len, key_have;          /* a hit's key: its length, its bytes so far */
    char key[PROTO_BINARY_MAX_KEY];      /* kept for the hook */
    size_t asked_at;                     /* the request's packet this one answers (its offset) */
    int quiet_error;                     /* a quiet get's error reply, plus 1; 0: none */
    struct proto_response resp;          /* values so far in this response, and the hook */
};

/* Ready for a new stream, with no hook (set p->resp.hook afterwards to check values). */
void proto_binary_parser_reset(struct binary_parser *p);
/* Same contract as proto_ascii_parse. */
enum slap_status proto_binary_parse(struct binary_parser *p, const char *buf, size_t len,
                                    size_t *consumed, struct proto_result *res);

/* GETK of one key (opaque 0). Encoders return the length, or 0 if cap is too small. */
size_t proto_binary_encode_get(char *out, size_t cap, const char *key, size_t key_len);
/* GETKQ for each key (key i at keys + i * stride, length lens[i], opaque i), then NOOP
 * (opaque n). */
size_t proto_binary_encode_multiget(char *out, size_t cap, const char *keys, size_t stride,
                                    const uint32_t *lens, uint32_t n);
/* SET header, extras (flags, exptime) and key; the caller sends value_len value bytes after. */
size_t proto_binary_encode_set_header(char *out, size_t cap, const char *key, size_t key_len,
                                      uint32_t flags, uint32_t exptime, size_t value_len);

/* Every command (see proto_binary.c): retrievals (get, gets, gat), storage commands, and
 * delete, incr, decr, touch. Each returns the length, or 0 if cap is too small. */
size_t proto_binary_encode_retrieve(char *out, size_t cap, enum op_type op, const char *keys,
                                    size_t stride, const uint32_t *lens, uint32_t n,
                                    uint32_t exptime);
size_t proto_binary_encode_store(char *out, size_t cap, enum op_type op, const char *key,
                                 size_t key_len, uint32_t flags, uint32_t exptime, size_t value_len,
                                 uint64_t cas);
size_t proto_binary_encode_command(char *out, size_t cap, enum op_type op, const char *key,
                                   size_t key_len, uint64_t arg);

#endif
