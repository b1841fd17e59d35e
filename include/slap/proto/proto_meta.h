/* memcached meta protocol (mg/ms/mn): request encoders and a streaming response parser. */
#ifndef SLAP_PROTO_META_H
#define SLAP_PROTO_META_H

#include <stddef.h>
#include <stdint.h>

#include "slap/proto/proto_ascii.h" /* struct proto_result, enum proto_reply, struct text_parser */

/*
 * Gets are always sent quiet and closed by mn, single or multi:
 *   "mg <key> v k q\r\n" ... "mn\r\n"
 * so a hit answers "VA <len> k<key> ...\r\n<data>\r\n", a miss answers nothing,
 * and "MN\r\n" completes the response (PROTO_REPLY_VALUES with the hits). A
 * plain "EN\r\n" (a miss of a non-quiet mg) also completes one, with no hit.
 * Sets: "ms <key> <len> T<exptime> F<flags>\r\n<data>\r\n", answered
 *   HD (STORED), NS (NOT_STORED), EX (EXISTS), NF (NOT_FOUND).
 * ERROR, CLIENT_ERROR <msg>, SERVER_ERROR <msg> as in the ASCII protocol.
 * Anything else is SLAP_ERROR. Values stream past; the hook sees the key of
 * the k flag (NULL key, 0 length when the flag is absent).
 *
 * Same contract as proto_ascii_parse, with a text parser as well (a partial line
 * is left unconsumed, at most PROTO_ASCII_MAX_LINE bytes).
 */
enum slap_status proto_meta_parse(struct text_parser *p, const char *buf, size_t len,
                                  size_t *consumed, struct proto_result *res);

/* "mg <key> v k q\r\nmn\r\n" */
size_t proto_meta_encode_get(char *out, size_t cap, const char *key, size_t key_len);
/* "mg <key_i> v k q\r\n" for each key, then "mn\r\n". */
size_t proto_meta_encode_multiget(char *out, size_t cap, const char *keys, size_t stride,
                                  const uint32_t *lens, uint32_t n);
/* "ms <key> <len> T<exptime> F<flags>\r\n": the caller sends data + "\r\n". */
size_t proto_meta_encode_set_header(char *out, size_t cap, const char *key, size_t key_len,
                                    uint32_t flags, uint32_t exptime, size_t value_len);

/* Every command (see proto_meta.c): retrievals (get, gets, gat), storage commands, and
 * delete, incr, decr, touch. Each returns the length, or 0 if cap is too small. */
size_t proto_meta_encode_retrieve(char *out, size_t cap, enum op_type op, const char *keys,
                                  size_t stride, const uint32_t *lens, uint32_t n,
                                  uint32_t exptime);
size_t proto_meta_encode_store(char *out, size_t cap, enum op_type op, const char *key,
                               size_t key_len, uint32_t flags, uint32_t exptime, size_t value_len,
                               uint64_t cas);
size_t proto_meta_encode_command(char *out, size_t cap, enum op_type op, const char *key,
                                 size_t key_len, uint64_t arg);

#endif
