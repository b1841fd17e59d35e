/* Private to the codecs: the steps of a parse loop and the response a parser gathers. */
#ifndef SLAP_PROTO_PARSE_H
#define SLAP_PROTO_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/proto/proto_util.h"

/* What one step of a parse loop decided: the public SLAP_* codes, plus "keep going". */
enum proto_step {
    STEP_ERROR = SLAP_ERROR, /* the bytes are not a response */
    STEP_DONE = SLAP_OK,     /* a response is complete and *res filled */
    STEP_AGAIN = SLAP_AGAIN, /* the bytes ran out first */
    STEP_NEXT,               /* a line or a part of a packet was consumed; the response goes on */
};

/* Ready for the next response: nothing counted, no value being checked, none of the request
 * answered (the hook and the request stay: the caller names the next one). */
static inline void proto_response_clear(struct proto_response *r)
{
    r->hits = 0;
    r->value_bytes = 0;
    r->cas = 0;
    r->check.expect = NULL;
    r->req_at = 0;
}

/* A parse call begins: until a step knows better, an error is garbage. */
static inline void proto_fault_clear(struct proto_result *res)
{
    res->fault = PROTO_FAULT_GARBAGE;
    res->got = res->asked = NULL;
    res->got_len = res->asked_len = 0;
    res->got_number = res->asked_number = 0;
}

/* The bytes cannot answer the request: say why and what came back against what was asked. */
static inline enum proto_step proto_fault(struct proto_result *res, enum proto_fault fault,
                                          const char *got, size_t got_len, const char *asked,
                                          size_t asked_len)
{
    res->fault = fault;
    res->got = got;
    res->got_len = got_len;
    res->asked = asked;
    res->asked_len = asked_len;
    return STEP_ERROR;
}

/* A value of bytes data bytes was declared: over the limit is an error (STEP_ERROR), else
 * STEP_NEXT. */
static inline enum proto_step proto_value_size(struct proto_result *res, uint64_t bytes)
{
    if (bytes <= PROTO_MAX_VALUE_BYTES) {
        return STEP_NEXT;
    }
    res->got_number = bytes;
    res->asked_number = PROTO_MAX_VALUE_BYTES;
    return proto_fault(res, PROTO_FAULT_TOO_LARGE, NULL, 0, NULL, 0);
}

/* The request's first line (without its CRLF), for saying what a reply answered. */
static inline size_t proto_request_line_len(const struct proto_response *r)
{
    const char *cr = r->req != NULL ? memchr(r->req, '\r', r->req_len) : NULL;
    return cr != NULL ? (size_t)(cr - r->req) : r->req_len;
}

/* A value of `bytes` data bytes begins (key NULL if none is named): count it, ask the hook. */
static inline void proto_response_value(struct proto_response *r, const char *key, size_t key_len,
                                        uint64_t bytes)
{
    r->hits++;
    r->value_bytes += bytes;
    proto_check_begin(&r->check, r->hook, key, key_len, bytes);
}

/* The response is complete: fill *res, and clear r for the next one. */
static inline enum proto_step proto_response_finish(struct proto_response *r,
                                                    struct proto_result *res,
                                                    enum proto_reply reply, const char *msg,
                                                    size_t msg_len)
{
    res->reply = reply;
    res->hits = r->hits;
    res->value_bytes = r->value_bytes;
    res->cas = r->cas;
    res->msg = msg;
    res->msg_len = msg_len;
    proto_response_clear(r);
    return STEP_DONE;
}

#endif
