/* memcached ASCII protocol: request encoders and a streaming, allocation-free response parser. */
#include "slap/proto/proto_ascii.h"

#include <stdbool.h>
#include <string.h>

#include "proto_text_parse.h"
#include "slap/base/common.h"
#include "slap/proto/proto_util.h"

/*
 * The parser is the text-line loop of proto_text_parse.h, where its state diagram is. This
 * file reads the ASCII protocol's own lines: "VALUE <key> <flags> <bytes>[ <cas>]" headers
 * (with the request known: only for a retrieval, and only of its keys in its order),
 * END, and the replies that stand alone (STORED, NOT_STORED, EXISTS, NOT_FOUND, DELETED,
 * TOUCHED, and the number incr and decr answer); the loop
 * reads the lines meta shares (ERROR, CLIENT_ERROR, SERVER_ERROR). The lines nearly every
 * response is made of (END, STORED, and a VALUE of the request's next key with slap's flags
 * 0) are first tried by fast_line in one pass, without looking for the line's end; a line it
 * does not take goes to on_line, which alone says what is wrong with one.
 */

#define ASCII_VALUE_PREFIX "VALUE "
#define ASCII_VALUE_PREFIX_LEN 6

/* Whole-line replies that can only start (and end) a response. */
static const struct {
    const char *text;
    size_t len;
    enum proto_reply reply;
} fixed_replies[] = {
    {"STORED", 6, PROTO_REPLY_STORED},   {"NOT_STORED", 10, PROTO_REPLY_NOT_STORED},
    {"EXISTS", 6, PROTO_REPLY_EXISTS},   {"NOT_FOUND", 9, PROTO_REPLY_NOT_FOUND},
    {"DELETED", 7, PROTO_REPLY_DELETED}, {"TOUCHED", 7, PROTO_REPLY_TOUCHED},
};

#define ASCII_NUMBER_MAX 20 /* digits of a 64-bit number: incr and decr answer one */

/* Does the request ask for values: "get ", "gets " or "gat "? */
static bool asks_values(const char *req, size_t len)
{
    return len > 4 && (memcmp(req, "get ", 4) == 0 || memcmp(req, "gat ", 4) == 0 ||
                       memcmp(req, "gets ", 5) == 0);
}

/* Where the request's first key begins: after "get ", "gets ", or "gat <exptime> ". */
static size_t first_key_at(const char *req, size_t len)
{
    size_t spaces = memcmp(req, "gat ", 4) == 0 ? 2 : 1;
    size_t at = 0;
    while (at < len && spaces > 0) {
        spaces -= req[at++] == ' ';
    }
    return at;
}

/* The request's key at at (its length), or 0 at the end of its keys. */
static size_t key_token_len(const char *req, size_t len, size_t at)
{
    size_t end = at;
    while (end < len && req[end] != ' ' && req[end] != '\r') {
        end++;
    }
    return end - at;
}

/* Is the request's key at at exactly key? The usual case, checked without walking the
 * request byte by byte: key holds no ' ' (it ends at the header's first), and a request's
 * keys hold no CR (every key slap sends is graphic ASCII), so equal bytes followed by a
 * separator are the whole token. */
static bool key_token_is(const char *req, size_t len, size_t at, const char *key, size_t key_len)
{
    size_t end = at + key_len;
    return end <= len && (end == len || req[end] == ' ' || req[end] == '\r') &&
           memcmp(req + at, key, key_len) == 0;
}

/* A value of key came back: it must be the request's next key not yet answered, or a later
 * one (memcached answers in the order asked and leaves misses out). */
static enum proto_step take_asked_key(struct proto_response *r, const char *key, size_t key_len,
                                      struct proto_result *res)
{
    size_t at = r->req_at > 0 ? r->req_at : first_key_at(r->req, r->req_len);
    if (key_token_is(r->req, r->req_len, at, key, key_len)) {
        at += key_len;
        r->req_at = at + (at < r->req_len && r->req[at] == ' ');
        return STEP_NEXT;
    }
    const char *next = r->req + at;
    size_t next_len = key_token_len(r->req, r->req_len, at);
    for (size_t n = next_len; n > 0; n = key_token_len(r->req, r->req_len, at)) {
        at += n;
        if (n == key_len && memcmp(r->req + at - n, key, n) == 0) {
            r->req_at = at + (at < r->req_len && r->req[at] == ' ');
            return STEP_NEXT;
        }
        at += at < r->req_len && r->req[at] == ' ';
    }
    return proto_fault(res, PROTO_FAULT_KEY, key, key_len, next_len > 0 ? next : NULL, next_len);
}

/* "VALUE <key> <flags> <bytes>[ <cas>]" (line without CRLF): start the value's data. */
static enum proto_step on_value_header(struct text_parser *p, const char *line, size_t line_len,
                                       struct proto_result *res)
{
    struct proto_response *r = &p->resp;
    const char *end = line + line_len;
    const char *key = line + ASCII_VALUE_PREFIX_LEN;
    const char *key_end = memchr(key, ' ', (size_t)(end - key));
    const char *cur;
    uint64_t flags, bytes, cas = 0;
    if (key_end == NULL || key_end == key) {
        return STEP_ERROR;
    }
    cur = key_end + 1;
    if (proto_parse_decimal(&cur, end, UINT32_MAX, &flags) != SLAP_OK || cur == end ||
        *cur++ != ' ') {
        return STEP_ERROR;
    }
    if (proto_parse_decimal(&cur, end, UINT64_MAX, &bytes) != SLAP_OK) {
        return STEP_ERROR;
    }
    if (cur != end && (*cur++ != ' ' ||
                       proto_parse_decimal(&cur, end, UINT64_MAX, &cas) != SLAP_OK || cur != end)) {
        return STEP_ERROR;
    }
    if (proto_value_size(res, bytes) == STEP_ERROR) {
        return STEP_ERROR;
    }
    /* a key of the request answered already (req_at set): it asks values */
    if (r->req != NULL && r->req_at == 0 && !asks_values(r->req, r->req_len)) {
        return proto_fault(res, PROTO_FAULT_REPLY, line, line_len, r->req,
                           proto_request_line_len(r));
    }
    if (r->req != NULL && take_asked_key(r, key, (size_t)(key_end - key), res) == STEP_ERROR) {
        return STEP_ERROR;
    }
    p->resp.cas = cas;
    return proto_text_value(p, key, (size_t)(key_end - key), bytes);
}

/* "<digits>": the value incr or decr left. */
static bool is_number_line(const char *line, size_t line_len)
{
    const char *cur = line;
    uint64_t value;
    return line_len > 0 && line_len <= ASCII_NUMBER_MAX &&
           proto_parse_decimal(&cur, line + line_len, UINT64_MAX, &value) == SLAP_OK &&
           cur == line + line_len;
}

/* Act on one complete line (CRLF stripped); STEP_ERROR for one that is not ASCII's own. */
static enum proto_step on_line(struct text_parser *p, const char *line, size_t line_len,
                               struct proto_result *res)
{
    if (line_len > ASCII_VALUE_PREFIX_LEN &&
        memcmp(line, ASCII_VALUE_PREFIX, ASCII_VALUE_PREFIX_LEN) == 0) {
        return on_value_header(p, line, line_len, res);
    }
    if (line_len == 3 && memcmp(line, "END", 3) == 0) {
        return proto_response_finish(&p->resp, res, PROTO_REPLY_VALUES, NULL, 0);
    }
    if (p->state != TEXT_START) {
        return STEP_ERROR; /* STORED and friends cannot follow a VALUE block */
    }
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(fixed_replies); i++) {
        if (line_len == fixed_replies[i].len &&
            memcmp(line, fixed_replies[i].text, line_len) == 0) {
            return proto_response_finish(&p->resp, res, fixed_replies[i].reply, NULL, 0);
        }
    }
    if (is_number_line(line, line_len)) {
        return proto_response_finish(&p->resp, res, PROTO_REPLY_NUMBER, NULL, 0);
    }
    return STEP_ERROR;
}

/*
 * The decimal digits that begin the 8 bytes at cur, all 8 read at once (SWAR): how many (1 to
 * 7) with their value in *out, or 0 (none, all 8 digits, or a big-endian host) for the caller
 * to read them one by one. Byte by byte, 4 digits and the byte after cost 40 instructions.
 */
static unsigned eight_digits(const char *cur, uint64_t *out)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t x;
    memcpy(&x, cur, sizeof(x)); /* the first byte is the lowest */
    x ^= 0x3030303030303030ULL; /* a digit's byte is now 0 to 9 */
    /* A byte is no digit if its high nibble is set, or adding 6 sets it (10 to 15). A carry out
     * of a byte only reaches bytes after it, past the first non-digit, which is all we use. */
    uint64_t other = (x | (x + 0x0606060606060606ULL)) & 0xf0f0f0f0f0f0f0f0ULL;
    unsigned n = other != 0 ? (unsigned)__builtin_ctzll(other) / 8 : 0;
    if (n == 0) {
        return 0;
    }
    x <<= 8 * (8 - n);     /* as 8 digits, leading zeros */
    x = x * 10 + (x >> 8); /* pairs: bytes 0, 2, 4, 6 */
    x = ((x & 0x000000ff000000ffULL) * (100 + (1000000ULL << 32)) +
         ((x >> 16) & 0x000000ff000000ffULL) * (1 + (10000ULL << 32))) >>
        32;
    *out = (uint32_t)x;
    return n;
#else
    (void)cur;
    (void)out;
    return 0;
#endif
}

/* "VALUE <key> 0 <bytes>\r\n" (the flags slap sets) under the request's next key, read in one
 * pass (the line's end is where the digits stop, at most 10); 0 for any other line. */
static size_t fast_value(struct text_parser *p, const char *line, size_t avail)
{
    struct proto_response *r = &p->resp;
    size_t window = avail < PROTO_ASCII_MAX_LINE ? avail : PROTO_ASCII_MAX_LINE;
    if (r->req == NULL || window <= ASCII_VALUE_PREFIX_LEN ||
        memcmp(line, ASCII_VALUE_PREFIX, ASCII_VALUE_PREFIX_LEN) != 0) {
        return 0;
    }
    size_t at = r->req_at;
    if (at == 0) { /* the response's first value: where "get " or "gets " ends (gat: on_line) */
        at = r->req_len > 4 && memcmp(r->req, "get ", 4) == 0    ? 4
             : r->req_len > 5 && memcmp(r->req, "gets ", 5) == 0 ? 5
                                                                 : 0;
        if (at == 0) {
            return 0;
        }
    }
    const char *key = line + ASCII_VALUE_PREFIX_LEN, *limit = line + window;
    const char *key_end = memchr(key, ' ', (size_t)(limit - key));
    if (key_end == NULL || key_end == key) {
        return 0;
    }
    size_t key_len = (size_t)(key_end - key);
    if (!key_token_is(r->req, r->req_len, at, key, key_len)) {
        return 0; /* a later key: a miss before it */
    }
    const char *cur = key_end + 1;
    if (limit - cur < 2 || cur[0] != '0' || cur[1] != ' ') {
        return 0; /* flags other than slap's 0 */
    }
    cur += 2;
    const char *digits = cur, *digits_end = limit - cur > 10 ? cur + 10 : limit;
    uint64_t bytes = 0;
    unsigned n = limit - cur >= 8 ? eight_digits(cur, &bytes) : 0;
    for (cur += n; n == 0 && cur < digits_end && (unsigned)(unsigned char)*cur - '0' <= 9; cur++) {
        bytes = bytes * 10 + (unsigned)(unsigned char)*cur - (unsigned)'0';
    }
    if (cur == digits || bytes > PROTO_MAX_VALUE_BYTES || limit - cur < 2 || cur[0] != '\r' ||
        cur[1] != '\n') {
        return 0; /* a cas, more digits, or no such line */
    }
    at += key_len;
    r->req_at = at + (at < r->req_len && r->req[at] == ' ');
    r->cas = 0;
    proto_text_value(p, key, key_len, bytes);
    return (size_t)(cur + 2 - line);
}

/* The usual lines without looking for their end first: a value's header, END, STORED. */
static size_t fast_line(struct text_parser *p, const char *line, size_t avail,
                        enum proto_step *step, struct proto_result *res)
{
    if (avail >= 5 && memcmp(line, "END\r\n", 5) == 0) {
        *step = proto_response_finish(&p->resp, res, PROTO_REPLY_VALUES, NULL, 0);
        return 5;
    }
    if (p->state == TEXT_START && avail >= 8 && memcmp(line, "STORED\r\n", 8) == 0) {
        *step = proto_response_finish(&p->resp, res, PROTO_REPLY_STORED, NULL, 0);
        return 8;
    }
    *step = STEP_NEXT;
    return fast_value(p, line, avail);
}

enum slap_status proto_ascii_parse(struct text_parser *p, const char *buf, size_t len,
                                   size_t *consumed, struct proto_result *res)
{
    return proto_text_parse(p, on_line, fast_line, buf, len, consumed, res);
}

/* The bytes of "<cmd>[ <exptime>] <key>... CRLF": measured first, so the keys are plain copies. */
static size_t retrieve_len(size_t cmd_len, enum op_type op, const uint32_t *lens, uint32_t n,
                           uint32_t exptime)
{
    size_t len = cmd_len + 2 + (op == OP_GAT ? 1 + proto_decimal_len(exptime) : 0);
    for (uint32_t i = 0; i < n; i++) {
        len += 1 + (size_t)lens[i];
    }
    return len;
}

size_t proto_ascii_encode_retrieve(char *out, size_t cap, enum op_type op, const char *keys,
                                   size_t stride, const uint32_t *lens, uint32_t n,
                                   uint32_t exptime)
{
    const char *cmd = op == OP_GAT ? "gat" : op == OP_GETS ? "gets" : "get";
    size_t cmd_len = op == OP_GETS ? 4 : 3;
    size_t len = retrieve_len(cmd_len, op, lens, n, exptime);
    if (n == 0 || len > cap) {
        return 0;
    }
    char *at = proto_put_bytes(out, cmd, cmd_len);
    if (op == OP_GAT) {
        *at++ = ' ';
        at = proto_put_decimal(at, exptime, proto_decimal_len(exptime));
    }
    for (uint32_t i = 0; i < n; i++) {
        *at++ = ' ';
        at = proto_put_bytes(at, keys + (size_t)i * stride, lens[i]);
    }
    memcpy(at, "\r\n", 2);
    return len;
}

/* The command word of op and the space after it: "set ", "delete ", ... */
static void proto_line_command(struct proto_line *l, enum op_type op)
{
    proto_line_text(l, op_name(op), op_name_len(op));
    proto_line_text(l, " ", 1);
}

/* "set <key> 0 0 <bytes>\r\n", the set slap sends most, measured first and written straight. */
static size_t encode_plain_set(char *out, size_t cap, const char *key, size_t key_len,
                               size_t value_len)
{
    size_t digits = proto_decimal_len(value_len);
    if (key_len > cap || 4 + 5 + digits + 2 > cap - key_len) {
        return 0; /* does not fit (compared so that a huge key_len cannot wrap the sum) */
    }
    size_t len = 4 + key_len + 5 + digits + 2;
    char *at = proto_put_bytes(out, "set ", 4);
    at = proto_put_bytes(at, key, key_len);
    at = proto_put_bytes(at, " 0 0 ", 5);
    at = proto_put_decimal(at, value_len, digits);
    memcpy(at, "\r\n", 2);
    return len;
}

size_t proto_ascii_encode_store(char *out, size_t cap, enum op_type op, const char *key,
                                size_t key_len, uint32_t flags, uint32_t exptime, size_t value_len,
                                uint64_t cas)
{
    if (op == OP_SET && flags == 0 && exptime == 0) {
        return encode_plain_set(out, cap, key, key_len, value_len);
    }
    struct proto_line l = proto_line_begin(out, cap);
    proto_line_command(&l, op);
    proto_line_text(&l, key, key_len);
    proto_line_number(&l, " ", flags);
    proto_line_number(&l, " ", exptime);
    proto_line_number(&l, " ", value_len);
    if (op == OP_CAS) {
        proto_line_number(&l, " ", cas);
    }
    return op_class(op) == OP_CLASS_STORAGE ? proto_line_end(&l) : 0;
}

size_t proto_ascii_encode_command(char *out, size_t cap, enum op_type op, const char *key,
                                  size_t key_len, uint64_t arg)
{
    struct proto_line l = proto_line_begin(out, cap);
    proto_line_command(&l, op);
    proto_line_text(&l, key, key_len);
    if (op != OP_DELETE) {
        proto_line_number(&l, " ", arg);
    }
    return op_class(op) == OP_CLASS_OTHER ? proto_line_end(&l) : 0;
}

size_t proto_ascii_encode_get(char *out, size_t cap, const char *key, size_t key_len)
{
    uint32_t len = (uint32_t)key_len;
    return key_len > UINT32_MAX ? 0
                                : proto_ascii_encode_retrieve(out, cap, OP_GET, key, 0, &len, 1, 0);
}

size_t proto_ascii_encode_set_header(char *out, size_t cap, const char *key, size_t key_len,
                                     uint32_t flags, uint32_t exptime, size_t value_len)
{
    return proto_ascii_encode_store(out, cap, OP_SET, key, key_len, flags, exptime, value_len, 0);
}

size_t proto_ascii_encode_multiget(char *out, size_t cap, const char *keys, size_t stride,
                                   const uint32_t *lens, uint32_t n)
{
    return proto_ascii_encode_retrieve(out, cap, OP_GET, keys, stride, lens, n, 0);
}
