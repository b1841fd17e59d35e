/* memcached binary protocol: request encoders and a streaming, allocation-free response parser. */
#include "slap/proto/proto_binary.h"

#include <stdbool.h>
#include <string.h>

#include "proto_parse.h"
#include "slap/base/common.h"
#include "slap/proto/proto_util.h"

/*
 * Parser states (struct binary_parser.state), one response packet at a time:
 *
 *                  +--GET* with status 0 (a hit)--> BIN_PREFIX --extras, key--> BIN_DATA --+
 *   BIN_HEADER ----+--error status, short body----> BIN_MESSAGE (kept until whole)         |
 *    ^   24 bytes  +--anything else---------------> BIN_REST (skipped as it comes)         |
 *    |                                                                                     |
 *    +---- the body of a quiet packet (GETQ/GETKQ) ended: the multi-get goes on <----------+
 *
 * The end of any other packet's body completes the response, and the parser is back in
 * BIN_HEADER. Packet header, extras and key are copied or skipped as they arrive, so every
 * byte is consumed, with one exception: the body of an error packet (at most BIN_MAX_MESSAGE
 * bytes) is left unconsumed until it is whole in the buffer, which is then handed back as msg;
 * the caller carries the partial body like the ASCII parser's partial line. Longer error
 * bodies stream past and give no msg.
 *
 * A multi-get is open from its first quiet hit until NOOP; in it only GETQ, GETKQ and NOOP
 * packets may come (anything else is SLAP_ERROR, as STORED after a VALUE is in ASCII). An
 * error status on a quiet get completes the multi-get as that error (hits so far included);
 * the NOOP that follows then finds no multi-get open. A NOOP always completes a
 * PROTO_REPLY_VALUES with the quiet hits so far, so that stray NOOP is one more response,
 * VALUES with 0 hits (as is a multi-get where every key missed): a caller pairing responses
 * with requests gets one response more than it sent requests. A quiet miss (status 1 on
 * GETQ/GETKQ, which memcached does not send) is skipped.
 */
enum binary_state {
    BIN_HEADER = 0, /* before or inside a packet header: header_have bytes of it so far */
    BIN_PREFIX,     /* a hit's extras (skip_left to skip), then its key (key_have of key_len) */
    BIN_DATA,       /* a hit's value: body_left bytes to come */
    BIN_MESSAGE,    /* an error's body: body_left bytes, consumed only once all are here */
    BIN_REST,       /* any other body: body_left bytes to skip */
};

enum binary_magic {
    BIN_MAGIC_REQUEST = 0x80,
    BIN_MAGIC_RESPONSE = 0x81,
};

enum binary_opcode {
    BIN_OP_GET = 0x00,
    BIN_OP_SET = 0x01,
    BIN_OP_ADD = 0x02,
    BIN_OP_REPLACE = 0x03,
    BIN_OP_DELETE = 0x04,
    BIN_OP_INCREMENT = 0x05,
    BIN_OP_DECREMENT = 0x06,
    BIN_OP_GETQ = 0x09,
    BIN_OP_NOOP = 0x0a,
    BIN_OP_GETK = 0x0c,
    BIN_OP_GETKQ = 0x0d,
    BIN_OP_APPEND = 0x0e,
    BIN_OP_PREPEND = 0x0f,
    BIN_OP_TOUCH = 0x1c,
    BIN_OP_GAT = 0x1d,
    BIN_OP_GATQ = 0x1e,
    BIN_OP_GATK = 0x23,
    BIN_OP_GATKQ = 0x24,
};

/* The statuses the parser tells apart; 3 (too large), 0x82 (out of memory) and any other are
 * SERVER_ERROR. */
enum binary_status {
    BIN_STATUS_OK = 0x00,
    BIN_STATUS_KEY_ENOENT = 0x01,
    BIN_STATUS_KEY_EEXISTS = 0x02,
    BIN_STATUS_EINVAL = 0x04,
    BIN_STATUS_NOT_STORED = 0x05,
    BIN_STATUS_NON_NUMERIC = 0x06, /* incr or decr of a value that is not a number */
    BIN_STATUS_UNKNOWN_COMMAND = 0x81,
};

/* Byte offsets of the header fields. */
enum binary_header_field {
    BIN_OFF_MAGIC = 0,
    BIN_OFF_OPCODE = 1,
    BIN_OFF_KEY_LEN = 2, /* u16 */
    BIN_OFF_EXTRAS_LEN = 4,
    BIN_OFF_STATUS = 6,   /* u16; vbucket in a request */
    BIN_OFF_BODY_LEN = 8, /* u32: extras + key + value */
    BIN_OFF_OPAQUE = 12,  /* u32: echoed by the server */
    BIN_OFF_CAS = 16,     /* u64 */
};

#define BIN_GET_EXTRAS 4          /* a hit's extras: the flags */
#define BIN_SET_EXTRAS 8          /* flags, exptime */
#define BIN_TOUCH_EXTRAS 4        /* exptime (touch, gat) */
#define BIN_ARITH_EXTRAS 20       /* delta, initial value, exptime (incr, decr) */
#define BIN_NO_CREATE 0xffffffffu /* incr, decr: a missing key is NOT_FOUND, not created */
/* The longest error body kept whole for msg: what the caller carries between reads. */
#define BIN_MAX_MESSAGE PROTO_ASCII_MAX_LINE

static uint32_t get_u16(const uint8_t *b)
{
    return (uint32_t)b[0] << 8 | (uint32_t)b[1];
}

static uint32_t get_u32(const uint8_t *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | (uint32_t)b[3];
}

static uint64_t get_u64(const uint8_t *b)
{
    return (uint64_t)get_u32(b) << 32 | get_u32(b + 4);
}

/* Fields of the current packet, from the header kept in the parser. */
static uint8_t packet_opcode(const struct binary_parser *p)
{
    return p->header[BIN_OFF_OPCODE];
}

static uint32_t packet_status(const struct binary_parser *p)
{
    return get_u16(p->header + BIN_OFF_STATUS);
}

/* Extras plus key: the part of the body before the value or the message. */
static uint32_t packet_prefix_len(const struct binary_parser *p)
{
    return p->header[BIN_OFF_EXTRAS_LEN] + get_u16(p->header + BIN_OFF_KEY_LEN);
}

static int opcode_quiet(uint8_t opcode)
{
    return opcode == BIN_OP_GETQ || opcode == BIN_OP_GETKQ || opcode == BIN_OP_GATQ ||
           opcode == BIN_OP_GATKQ;
}

static int opcode_get(uint8_t opcode)
{
    return opcode == BIN_OP_GET || opcode == BIN_OP_GETK || opcode == BIN_OP_GAT ||
           opcode == BIN_OP_GATK || opcode_quiet(opcode);
}

static int opcode_store(uint8_t opcode)
{
    return opcode == BIN_OP_SET || opcode == BIN_OP_ADD || opcode == BIN_OP_REPLACE ||
           opcode == BIN_OP_APPEND || opcode == BIN_OP_PREPEND;
}

/* An opcode's name, for saying which reply came to which request. */
static const char *opcode_name(uint8_t opcode)
{
    static const char *const names[] = {[BIN_OP_GET] = "GET",
                                        [BIN_OP_SET] = "SET",
                                        [BIN_OP_ADD] = "ADD",
                                        [BIN_OP_REPLACE] = "REPLACE",
                                        [BIN_OP_DELETE] = "DELETE",
                                        [BIN_OP_INCREMENT] = "INCREMENT",
                                        [BIN_OP_DECREMENT] = "DECREMENT",
                                        [BIN_OP_GETQ] = "GETQ",
                                        [BIN_OP_NOOP] = "NOOP",
                                        [BIN_OP_GETK] = "GETK",
                                        [BIN_OP_GETKQ] = "GETKQ",
                                        [BIN_OP_APPEND] = "APPEND",
                                        [BIN_OP_PREPEND] = "PREPEND",
                                        [BIN_OP_TOUCH] = "TOUCH",
                                        [BIN_OP_GAT] = "GAT",
                                        [BIN_OP_GATQ] = "GATQ",
                                        [BIN_OP_GATK] = "GATK",
                                        [BIN_OP_GATKQ] = "GATKQ"};
    return opcode < SLAP_ARRAY_SIZE(names) && names[opcode] != NULL ? names[opcode] : "opcode";
}

/* Does a hit of this opcode carry its key? */
static int opcode_keyed(uint8_t opcode)
{
    return opcode == BIN_OP_GETK || opcode == BIN_OP_GETKQ || opcode == BIN_OP_GATK ||
           opcode == BIN_OP_GATKQ;
}

static int opcode_known(uint8_t opcode)
{
    return opcode_get(opcode) || opcode_store(opcode) || opcode == BIN_OP_NOOP ||
           opcode == BIN_OP_DELETE || opcode == BIN_OP_INCREMENT || opcode == BIN_OP_DECREMENT ||
           opcode == BIN_OP_TOUCH;
}

/* What a storage command's status says; PROTO_REPLY_ERROR for one it cannot say. */
static enum proto_reply store_reply(uint32_t status)
{
    switch (status) {
    case BIN_STATUS_OK:
        return PROTO_REPLY_STORED;
    case BIN_STATUS_KEY_ENOENT:
        return PROTO_REPLY_NOT_FOUND;
    case BIN_STATUS_KEY_EEXISTS:
        return PROTO_REPLY_EXISTS;
    case BIN_STATUS_NOT_STORED:
        return PROTO_REPLY_NOT_STORED;
    default:
        return PROTO_REPLY_ERROR;
    }
}

/* What delete, incr, decr and touch say when they worked. */
static enum proto_reply done_reply(uint8_t opcode)
{
    return opcode == BIN_OP_DELETE  ? PROTO_REPLY_DELETED
           : opcode == BIN_OP_TOUCH ? PROTO_REPLY_TOUCHED
                                    : PROTO_REPLY_NUMBER;
}

/* What a packet that is not a hit says; PROTO_REPLY_VALUES for a miss or a NOOP. */
static enum proto_reply packet_reply(uint8_t opcode, uint32_t status)
{
    if (opcode_store(opcode) && store_reply(status) != PROTO_REPLY_ERROR) {
        return store_reply(status);
    }
    if ((opcode == BIN_OP_NOOP && status == BIN_STATUS_OK) ||
        (opcode_get(opcode) && status == BIN_STATUS_KEY_ENOENT)) {
        return PROTO_REPLY_VALUES;
    }
    if (!opcode_get(opcode) && !opcode_store(opcode) && opcode != BIN_OP_NOOP) {
        if (status == BIN_STATUS_OK) {
            return done_reply(opcode);
        }
        if (status == BIN_STATUS_KEY_ENOENT) {
            return PROTO_REPLY_NOT_FOUND;
        }
    }
    switch (status) {
    case BIN_STATUS_NON_NUMERIC:
    case BIN_STATUS_EINVAL:
        return PROTO_REPLY_CLIENT_ERROR;
    case BIN_STATUS_UNKNOWN_COMMAND:
        return PROTO_REPLY_ERROR;
    default:
        return PROTO_REPLY_SERVER_ERROR;
    }
}

static int reply_is_error(enum proto_reply reply)
{
    return reply == PROTO_REPLY_ERROR || reply == PROTO_REPLY_CLIENT_ERROR ||
           reply == PROTO_REPLY_SERVER_ERROR;
}

void proto_binary_parser_reset(struct binary_parser *p)
{
    p->state = BIN_HEADER;
    p->header_have = 0;
    p->body_left = 0;
    p->skip_left = 0;
    p->key_len = 0;
    p->key_have = 0;
    p->asked_at = 0;
    p->quiet_error = 0;
    proto_response_clear(&p->resp);
    p->resp.hook = NULL;
    p->resp.req = NULL;
    p->resp.req_len = 0;
}

/*
 * The packet's body has been consumed: its response is complete, or a multi-get goes on
 * (after a quiet hit; with the request known, after a quiet get's error too, which its NOOP
 * then reports).
 */
static enum proto_step end_packet(struct binary_parser *p, struct proto_result *res,
                                  enum proto_reply reply, const char *msg, size_t msg_len)
{
    int quiet = opcode_quiet(packet_opcode(p));
    p->state = BIN_HEADER;
    p->header_have = 0;
    if (quiet && reply_is_error(reply) && p->resp.req != NULL) {
        p->quiet_error = p->quiet_error != 0 ? p->quiet_error : (int)reply + 1;
        return STEP_NEXT;
    }
    if (quiet && reply == PROTO_REPLY_VALUES) {
        return STEP_NEXT;
    }
    if (p->quiet_error != 0 && reply == PROTO_REPLY_VALUES) {
        reply = (enum proto_reply)(p->quiet_error - 1);
    }
    p->quiet_error = 0;
    return proto_response_finish(&p->resp, res, reply, msg, msg_len);
}

/* The request's packet at offset at: its header, or NULL past the request's end. */
static const uint8_t *request_packet(const struct proto_response *r, size_t at)
{
    return r->req_len >= PROTO_BINARY_HEADER && at <= r->req_len - PROTO_BINARY_HEADER
               ? (const uint8_t *)r->req + at
               : NULL;
}

static size_t packet_end(const uint8_t *pkt, size_t at)
{
    return at + PROTO_BINARY_HEADER + get_u32(pkt + BIN_OFF_BODY_LEN);
}

/*
 * With the request known: the packet whose header is whole must answer the request's first
 * packet still due with its opaque, passing over only quiet gets, and have that packet's
 * opcode. STEP_NEXT (the packet is taken, p->asked_at is where) or STEP_ERROR.
 */
static enum proto_step match_request(struct binary_parser *p, struct proto_result *res)
{
    struct proto_response *r = &p->resp;
    uint32_t opaque = get_u32(p->header + BIN_OFF_OPAQUE);
    const uint8_t *due = request_packet(r, r->req_at);
    for (size_t at = r->req_at; request_packet(r, at) != NULL;) {
        const uint8_t *pkt = request_packet(r, at);
        if (get_u32(pkt + BIN_OFF_OPAQUE) == opaque) {
            if (pkt[BIN_OFF_OPCODE] != packet_opcode(p)) {
                const char *got = opcode_name(packet_opcode(p));
                const char *asked = opcode_name(pkt[BIN_OFF_OPCODE]);
                return proto_fault(res, PROTO_FAULT_REPLY, got, strlen(got), asked, strlen(asked));
            }
            p->asked_at = at;
            r->req_at = packet_end(pkt, at);
            return STEP_NEXT;
        }
        if (!opcode_quiet(pkt[BIN_OFF_OPCODE])) {
            break; /* a packet that is not quiet is always answered before later ones */
        }
        at = packet_end(pkt, at);
    }
    res->got_number = opaque;
    res->asked_number = due != NULL ? get_u32(due + BIN_OFF_OPAQUE) : 0;
    return proto_fault(res, PROTO_FAULT_OPAQUE, NULL, 0, NULL, 0);
}

/* A hit's key is whole: with the request known, it must be the key its packet asked. */
static enum proto_step check_key(struct binary_parser *p, struct proto_result *res)
{
    const struct proto_response *r = &p->resp;
    if (r->req == NULL || !opcode_keyed(packet_opcode(p))) {
        return STEP_NEXT;
    }
    const uint8_t *pkt = request_packet(r, p->asked_at);
    const char *asked = (const char *)pkt + PROTO_BINARY_HEADER + pkt[BIN_OFF_EXTRAS_LEN];
    size_t asked_len = get_u16(pkt + BIN_OFF_KEY_LEN);
    if (asked_len == p->key_len && memcmp(asked, p->key, asked_len) == 0) {
        return STEP_NEXT;
    }
    return proto_fault(res, PROTO_FAULT_KEY, p->key, p->key_len, asked, asked_len);
}

/* The header is whole: check that it adds up and choose how to read the body. */
static enum proto_step on_header(struct binary_parser *p, struct proto_result *res)
{
    uint8_t opcode = packet_opcode(p);
    uint32_t status = packet_status(p);
    uint32_t key_len = get_u16(p->header + BIN_OFF_KEY_LEN);
    uint32_t body_len = get_u32(p->header + BIN_OFF_BODY_LEN);
    if (key_len > PROTO_BINARY_MAX_KEY || packet_prefix_len(p) > body_len) {
        return STEP_ERROR;
    }
    if (proto_value_size(res, body_len - packet_prefix_len(p)) == STEP_ERROR) {
        return STEP_ERROR;
    }
    if (p->resp.hits > 0 && !opcode_quiet(opcode) && opcode != BIN_OP_NOOP) {
        return STEP_ERROR; /* only quiet gets and NOOP inside a multi-get */
    }
    if (p->resp.req != NULL && match_request(p, res) == STEP_ERROR) {
        return STEP_ERROR;
    }
    p->body_left = body_len;
    if (opcode_get(opcode) && status == BIN_STATUS_OK) {
        if (p->header[BIN_OFF_EXTRAS_LEN] != BIN_GET_EXTRAS) {
            return STEP_ERROR;
        }
        p->skip_left = BIN_GET_EXTRAS;
        p->resp.cas = get_u64(p->header + BIN_OFF_CAS);
        p->key_len = key_len;
        p->key_have = 0;
        p->state = BIN_PREFIX;
    } else if (reply_is_error(packet_reply(opcode, status)) && body_len <= BIN_MAX_MESSAGE) {
        p->state = BIN_MESSAGE;
    } else {
        p->state = BIN_REST;
    }
    return STEP_NEXT;
}

/* Copy as much of the packet header as buf holds; reject a bad magic or opcode at once. */
static enum proto_step consume_header(struct binary_parser *p, const char *buf, size_t len,
                                      size_t *pos, struct proto_result *res)
{
    if (*pos == len) {
        return STEP_AGAIN;
    }
    size_t avail = len - *pos;
    size_t take = PROTO_BINARY_HEADER - p->header_have;
    if (avail < take) {
        take = avail;
    }
    memcpy(p->header + p->header_have, buf + *pos, take);
    p->header_have += (uint32_t)take;
    *pos += take;
    if (p->header_have > BIN_OFF_MAGIC && p->header[BIN_OFF_MAGIC] != BIN_MAGIC_RESPONSE) {
        return STEP_ERROR;
    }
    if (p->header_have > BIN_OFF_OPCODE && !opcode_known(p->header[BIN_OFF_OPCODE])) {
        return STEP_ERROR;
    }
    if (p->header_have < PROTO_BINARY_HEADER) {
        return STEP_AGAIN;
    }
    return on_header(p, res);
}

/* Skip a hit's extras and keep its key; once both are in, start checking its data. */
static enum proto_step consume_prefix(struct binary_parser *p, const char *buf, size_t len,
                                      size_t *pos, struct proto_result *res)
{
    size_t avail = len - *pos;
    size_t skip = avail < p->skip_left ? avail : p->skip_left;
    p->skip_left -= (uint32_t)skip;
    *pos += skip;
    avail -= skip;
    size_t take = p->key_len - p->key_have;
    if (avail < take) {
        take = avail;
    }
    memcpy(p->key + p->key_have, buf + *pos, take);
    p->key_have += (uint32_t)take;
    *pos += take;
    p->body_left -= skip + take;
    if (p->skip_left > 0 || p->key_have < p->key_len) {
        return STEP_AGAIN;
    }
    if (check_key(p, res) == STEP_ERROR) {
        return STEP_ERROR;
    }
    proto_response_value(&p->resp, p->key, p->key_len, p->body_left);
    p->state = BIN_DATA;
    return STEP_NEXT;
}

/* Take as much of a hit's data as buf holds. */
static enum proto_step consume_data(struct binary_parser *p, const char *buf, size_t len,
                                    size_t *pos, struct proto_result *res)
{
    size_t avail = len - *pos;
    size_t take = (uint64_t)avail < p->body_left ? avail : (size_t)p->body_left;
    proto_check_data(&p->resp.check, buf + *pos, take);
    *pos += take;
    p->body_left -= take;
    if (p->body_left > 0) {
        return STEP_AGAIN;
    }
    proto_check_end(&p->resp.check, p->resp.hook);
    return end_packet(p, res, PROTO_REPLY_VALUES, NULL, 0);
}

/* An error's body, once all of it is in buf: its text (after any extras and key) is msg. */
static enum proto_step consume_message(struct binary_parser *p, const char *buf, size_t len,
                                       size_t *pos, struct proto_result *res)
{
    if ((uint64_t)(len - *pos) < p->body_left) {
        return STEP_AGAIN; /* not consumed: the caller keeps it and calls again with more */
    }
    const char *body = buf + *pos;
    size_t prefix = packet_prefix_len(p);
    size_t msg_len = (size_t)p->body_left - prefix;
    *pos += (size_t)p->body_left;
    p->body_left = 0;
    return end_packet(p, res, packet_reply(packet_opcode(p), packet_status(p)),
                      msg_len > 0 ? body + prefix : NULL, msg_len);
}

/* Skip as much of any other body as buf holds. */
static enum proto_step consume_rest(struct binary_parser *p, size_t len, size_t *pos,
                                    struct proto_result *res)
{
    size_t avail = len - *pos;
    size_t skip = (uint64_t)avail < p->body_left ? avail : (size_t)p->body_left;
    *pos += skip;
    p->body_left -= skip;
    if (p->body_left > 0) {
        return STEP_AGAIN;
    }
    return end_packet(p, res, packet_reply(packet_opcode(p), packet_status(p)), NULL, 0);
}

static enum proto_step consume_step(struct binary_parser *p, const char *buf, size_t len,
                                    size_t *pos, struct proto_result *res)
{
    switch (p->state) {
    case BIN_HEADER:
        return consume_header(p, buf, len, pos, res);
    case BIN_PREFIX:
        return consume_prefix(p, buf, len, pos, res);
    case BIN_DATA:
        return consume_data(p, buf, len, pos, res);
    case BIN_MESSAGE:
        return consume_message(p, buf, len, pos, res);
    case BIN_REST:
        return consume_rest(p, len, pos, res);
    default:
        return STEP_ERROR;
    }
}

enum slap_status proto_binary_parse(struct binary_parser *p, const char *buf, size_t len,
                                    size_t *consumed, struct proto_result *res)
{
    size_t pos = 0;
    enum proto_step step;
    proto_fault_clear(res);
    do {
        step = consume_step(p, buf, len, &pos, res);
    } while (step == STEP_NEXT);
    *consumed = pos;
    return (enum slap_status)step;
}

/* ---- encoders ---- */

static void put_u16(unsigned char *b, uint32_t v)
{
    b[0] = (unsigned char)(v >> 8);
    b[1] = (unsigned char)v;
}

static void put_u32(unsigned char *b, uint32_t v)
{
    b[0] = (unsigned char)(v >> 24);
    b[1] = (unsigned char)(v >> 16);
    b[2] = (unsigned char)(v >> 8);
    b[3] = (unsigned char)v;
}

static void put_u64(unsigned char *b, uint64_t v)
{
    put_u32(b, (uint32_t)(v >> 32));
    put_u32(b + 4, (uint32_t)v);
}

/* A request header: magic, opcode, lengths, opaque, cas; data type and vbucket 0. */
static char *put_header(char *out, uint8_t opcode, size_t key_len, uint8_t extras_len,
                        uint32_t body_len, uint32_t opaque, uint64_t cas)
{
    unsigned char *h = (unsigned char *)out;
    memset(h, 0, PROTO_BINARY_HEADER);
    h[BIN_OFF_MAGIC] = BIN_MAGIC_REQUEST;
    h[BIN_OFF_OPCODE] = opcode;
    put_u16(h + BIN_OFF_KEY_LEN, (uint32_t)key_len);
    h[BIN_OFF_EXTRAS_LEN] = extras_len;
    put_u32(h + BIN_OFF_BODY_LEN, body_len);
    put_u32(h + BIN_OFF_OPAQUE, opaque);
    put_u64(h + BIN_OFF_CAS, cas);
    return out + PROTO_BINARY_HEADER;
}

/* Header, extras (up to BIN_ARITH_EXTRAS bytes) and key of a request; value_len more bytes
 * follow in the body. NULL when it does not fit in room or its lengths cannot be said. */
static char *put_request(char *out, size_t room, uint8_t opcode, const unsigned char *extras,
                         uint8_t extras_len, const char *key, size_t key_len, size_t value_len,
                         uint32_t opaque, uint64_t cas)
{
    size_t need = PROTO_BINARY_HEADER + extras_len + key_len;
    if (key_len > UINT16_MAX || room < need || value_len > UINT32_MAX - extras_len - key_len) {
        return NULL;
    }
    char *end = put_header(out, opcode, key_len, extras_len,
                           (uint32_t)(extras_len + key_len + value_len), opaque, cas);
    if (extras_len > 0) {
        end = proto_put_bytes(end, (const char *)extras, extras_len);
    }
    return key_len > 0 ? proto_put_bytes(end, key, key_len) : end;
}

/* GETK (GATK) of one key; GETKQ (GATKQ) of each of several, then a NOOP, their opaques 0, 1,
 * ... in order. gets is a get: the binary protocol always answers with the cas token. */
size_t proto_binary_encode_retrieve(char *out, size_t cap, enum op_type op, const char *keys,
                                    size_t stride, const uint32_t *lens, uint32_t n,
                                    uint32_t exptime)
{
    unsigned char extras[BIN_TOUCH_EXTRAS];
    uint8_t extras_len = op == OP_GAT ? BIN_TOUCH_EXTRAS : 0;
    uint8_t opcode = op == OP_GAT ? (n == 1 ? BIN_OP_GATK : BIN_OP_GATKQ)
                                  : (n == 1 ? BIN_OP_GETK : BIN_OP_GETKQ);
    char *end = out;
    put_u32(extras, exptime);
    for (uint32_t i = 0; i < n && end != NULL; i++) {
        end = put_request(end, cap - (size_t)(end - out), opcode, extras, extras_len,
                          keys + (size_t)i * stride, lens[i], 0, i, 0);
    }
    if (n > 1 && end != NULL) {
        end = put_request(end, cap - (size_t)(end - out), BIN_OP_NOOP, NULL, 0, NULL, 0, 0, n, 0);
    }
    return n > 0 && end != NULL ? (size_t)(end - out) : 0;
}

/* SET (and cas: SET with its token), ADD, REPLACE with flags and exptime; APPEND and PREPEND
 * with none: header, extras and key; the caller sends value_len value bytes after. */
size_t proto_binary_encode_store(char *out, size_t cap, enum op_type op, const char *key,
                                 size_t key_len, uint32_t flags, uint32_t exptime, size_t value_len,
                                 uint64_t cas)
{
    static const uint8_t opcodes[OP_COUNT] = {
        [OP_SET] = BIN_OP_SET,         [OP_CAS] = BIN_OP_SET,       [OP_ADD] = BIN_OP_ADD,
        [OP_REPLACE] = BIN_OP_REPLACE, [OP_APPEND] = BIN_OP_APPEND, [OP_PREPEND] = BIN_OP_PREPEND};
    unsigned char extras[BIN_SET_EXTRAS];
    bool plain = op == OP_APPEND || op == OP_PREPEND;
    if (op_class(op) != OP_CLASS_STORAGE) {
        return 0;
    }
    put_u32(extras, flags);
    put_u32(extras + 4, exptime);
    char *end = put_request(out, cap, opcodes[op], extras, plain ? 0 : BIN_SET_EXTRAS, key, key_len,
                            value_len, 0, op == OP_CAS ? cas : 0);
    return end != NULL ? (size_t)(end - out) : 0;
}

/* DELETE; INCREMENT and DECREMENT by arg, of a key that must exist; TOUCH to exptime arg. */
size_t proto_binary_encode_command(char *out, size_t cap, enum op_type op, const char *key,
                                   size_t key_len, uint64_t arg)
{
    unsigned char extras[BIN_ARITH_EXTRAS] = {0};
    uint8_t extras_len = 0, opcode = BIN_OP_DELETE;
    if (op_is_arithmetic(op)) {
        opcode = op == OP_INCR ? BIN_OP_INCREMENT : BIN_OP_DECREMENT;
        put_u64(extras, arg);
        put_u32(extras + 16, BIN_NO_CREATE);
        extras_len = BIN_ARITH_EXTRAS;
    } else if (op == OP_TOUCH) {
        opcode = BIN_OP_TOUCH;
        put_u32(extras, (uint32_t)arg);
        extras_len = BIN_TOUCH_EXTRAS;
    } else if (op != OP_DELETE) {
        return 0;
    }
    char *end = put_request(out, cap, opcode, extras, extras_len, key, key_len, 0, 0, 0);
    return end != NULL ? (size_t)(end - out) : 0;
}

size_t proto_binary_encode_get(char *out, size_t cap, const char *key, size_t key_len)
{
    uint32_t len = (uint32_t)key_len;
    return key_len > UINT16_MAX
               ? 0
               : proto_binary_encode_retrieve(out, cap, OP_GET, key, 0, &len, 1, 0);
}

size_t proto_binary_encode_multiget(char *out, size_t cap, const char *keys, size_t stride,
                                    const uint32_t *lens, uint32_t n)
{
    return proto_binary_encode_retrieve(out, cap, OP_GET, keys, stride, lens, n, 0);
}

size_t proto_binary_encode_set_header(char *out, size_t cap, const char *key, size_t key_len,
                                      uint32_t flags, uint32_t exptime, size_t value_len)
{
    return proto_binary_encode_store(out, cap, OP_SET, key, key_len, flags, exptime, value_len, 0);
}
