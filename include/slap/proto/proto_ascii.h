/* memcached ASCII protocol: request encoders and a streaming response parser. */
#ifndef SLAP_PROTO_ASCII_H
#define SLAP_PROTO_ASCII_H

#include <stddef.h>
#include <stdint.h>

#include "slap/model/ops.h"
#include "slap/proto/proto_text.h"
#include "slap/proto/proto_util.h"

/*
 * Consume bytes of buf[0..len) with p, a text parser (slap/proto_text.h, the meta
 * parser's too) that proto_text_parser_reset made ready for the stream. Returns
 *   SLAP_OK    a response is complete: *res is filled, *consumed counts the
 *              bytes used up to its end (the rest belongs to the next response);
 *   SLAP_AGAIN the bytes run out first: *consumed counts what was used (a
 *              partial line is not consumed; the caller keeps it and calls again
 *              with it followed by more bytes);
 *   SLAP_ERROR the bytes are not a memcached response (unknown line, bad VALUE
 *              header, missing CRLF after data, a line longer than
 *              PROTO_ASCII_MAX_LINE without CRLF, a value over PROTO_MAX_VALUE_BYTES),
 *              or not one that answers p->resp.req when that is set: a VALUE in answer
 *              to anything but get, gets or gat, or under a key the request did not ask
 *              for, or out of the request's order (memcached answers in the order asked,
 *              leaving out misses); res->fault and the fields after it say which.
 * Value data is consumed as it arrives and never needs to be buffered whole.
 */
enum slap_status proto_ascii_parse(struct text_parser *p, const char *buf, size_t len,
                                   size_t *consumed, struct proto_result *res);

/* Encoders write into out (cap bytes) and return the length, or 0 if it does not fit. */
size_t proto_ascii_encode_get(char *out, size_t cap, const char *key, size_t key_len);
/* "get <key1> <key2> ...\r\n": n keys, key i at keys + i * stride with length lens[i]. */
size_t proto_ascii_encode_multiget(char *out, size_t cap, const char *keys, size_t stride,
                                   const uint32_t *lens, uint32_t n);
/* "set <key> <flags> <exptime> <bytes>\r\n": the header only; the caller sends data + "\r\n". */
size_t proto_ascii_encode_set_header(char *out, size_t cap, const char *key, size_t key_len,
                                     uint32_t flags, uint32_t exptime, size_t value_len);
/* A retrieval of n keys: "get", "gets" or "gat <exptime>", then the keys. */
size_t proto_ascii_encode_retrieve(char *out, size_t cap, enum op_type op, const char *keys,
                                   size_t stride, const uint32_t *lens, uint32_t n,
                                   uint32_t exptime);
/* A storage command's line: set, add, replace, append, prepend ("<cmd> <key> <flags> <exptime>
 * <bytes>"), or cas (the same and "<cas>"); the caller sends data + "\r\n". */
size_t proto_ascii_encode_store(char *out, size_t cap, enum op_type op, const char *key,
                                size_t key_len, uint32_t flags, uint32_t exptime, size_t value_len,
                                uint64_t cas);
/* "delete <key>", "incr <key> <arg>", "decr <key> <arg>" or "touch <key> <arg>" (arg the
 * exptime). */
size_t proto_ascii_encode_command(char *out, size_t cap, enum op_type op, const char *key,
                                  size_t key_len, uint64_t arg);

#endif
