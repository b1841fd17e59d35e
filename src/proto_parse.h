/* Private to the codecs: the steps of a parse loop and the response a parser gathers. */
#ifndef SLAP_PROTO_PARSE_H
#define SLAP_PROTO_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "slap/common.h"
#include "slap/proto_ascii.h" /* struct proto_result, enum proto_reply */
#include "slap/proto_util.h"

/* What one step of a parse loop decided: the public SLAP_* codes, plus "keep going". */
enum proto_step {
    STEP_ERROR = SLAP_ERROR, /* the bytes are not a response */
    STEP_DONE = SLAP_OK,     /* a response is complete and *res filled */
    STEP_AGAIN = SLAP_AGAIN, /* the bytes ran out first */
    STEP_NEXT,               /* a line or a part of a packet was consumed; the response goes on */
};

/* Ready for the next response: nothing counted, no value being checked (the hook stays). */
static inline void proto_response_clear(struct proto_response *r)
{
    r->hits = 0;
    r->value_bytes = 0;
    r->cas = 0;
    r->check.expect = NULL;
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
