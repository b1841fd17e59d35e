/* memcached ASCII protocol: request encoders and a streaming, allocation-free response parser. */
#include "slap/proto_ascii.h"

#include <string.h>

#include "proto_text_parse.h"
#include "slap/common.h"
#include "slap/proto_util.h"

/*
 * The parser is the text-line loop of proto_text_parse.h, where its state diagram is. This
 * file reads the ASCII protocol's own lines: "VALUE <key> <flags> <bytes>[ <cas>]" headers,
 * END, and the replies that stand alone (STORED, NOT_STORED, EXISTS, NOT_FOUND); the loop
 * reads the lines meta shares (ERROR, CLIENT_ERROR, SERVER_ERROR).
 */

#define ASCII_MAX_VALUE_BYTES (1ULL << 30) /* a VALUE larger than 1 GiB is garbage */
#define ASCII_VALUE_PREFIX "VALUE "
#define ASCII_VALUE_PREFIX_LEN 6

/* Whole-line replies that can only start (and end) a response. */
static const struct {
    const char *text;
    size_t len;
    enum proto_reply reply;
} fixed_replies[] = {
    {"STORED", 6, PROTO_REPLY_STORED},
    {"NOT_STORED", 10, PROTO_REPLY_NOT_STORED},
    {"EXISTS", 6, PROTO_REPLY_EXISTS},
    {"NOT_FOUND", 9, PROTO_REPLY_NOT_FOUND},
};

/* "VALUE <key> <flags> <bytes>[ <cas>]" (line without CRLF): start the value's data. */
static enum proto_step on_value_header(struct text_parser *p, const char *line, size_t line_len)
{
    const char *end = line + line_len;
    const char *key = line + ASCII_VALUE_PREFIX_LEN;
    const char *key_end = memchr(key, ' ', (size_t)(end - key));
    const char *cur;
    uint64_t flags, bytes, cas;
    if (key_end == NULL || key_end == key) {
        return STEP_ERROR;
    }
    cur = key_end + 1;
    if (proto_parse_decimal(&cur, end, UINT32_MAX, &flags) != SLAP_OK || cur == end ||
        *cur++ != ' ') {
        return STEP_ERROR;
    }
    if (proto_parse_decimal(&cur, end, ASCII_MAX_VALUE_BYTES, &bytes) != SLAP_OK) {
        return STEP_ERROR;
    }
    if (cur != end && (*cur++ != ' ' ||
                       proto_parse_decimal(&cur, end, UINT64_MAX, &cas) != SLAP_OK || cur != end)) {
        return STEP_ERROR;
    }
    return proto_text_value(p, key, (size_t)(key_end - key), bytes);
}

/* Act on one complete line (CRLF stripped); STEP_ERROR for one that is not ASCII's own. */
static enum proto_step on_line(struct text_parser *p, const char *line, size_t line_len,
                               struct proto_result *res)
{
    if (line_len > ASCII_VALUE_PREFIX_LEN &&
        memcmp(line, ASCII_VALUE_PREFIX, ASCII_VALUE_PREFIX_LEN) == 0) {
        return on_value_header(p, line, line_len);
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
    return STEP_ERROR;
}

enum slap_status proto_ascii_parse(struct text_parser *p, const char *buf, size_t len,
                                   size_t *consumed, struct proto_result *res)
{
    return proto_text_parse(p, on_line, buf, len, consumed, res);
}

size_t proto_ascii_encode_get(char *out, size_t cap, const char *key, size_t key_len)
{
    const size_t fixed = 6; /* "get " + "\r\n" */
    if (key_len > cap || cap - key_len < fixed) {
        return 0;
    }
    char *end = proto_put_bytes(out, "get ", 4);
    end = proto_put_bytes(end, key, key_len);
    end = proto_put_bytes(end, "\r\n", 2);
    return (size_t)(end - out);
}

size_t proto_ascii_encode_set_header(char *out, size_t cap, const char *key, size_t key_len,
                                     uint32_t flags, uint32_t exptime, size_t value_len)
{
    const size_t fixed = 9; /* "set " + three spaces + "\r\n" */
    size_t flags_len = proto_decimal_len(flags);
    size_t exptime_len = proto_decimal_len(exptime);
    size_t value_len_len = proto_decimal_len(value_len);
    if (key_len > cap || cap - key_len < fixed + flags_len + exptime_len + value_len_len) {
        return 0;
    }
    char *end = proto_put_bytes(out, "set ", 4);
    end = proto_put_bytes(end, key, key_len);
    *end++ = ' ';
    end = proto_put_decimal(end, flags, flags_len);
    *end++ = ' ';
    end = proto_put_decimal(end, exptime, exptime_len);
    *end++ = ' ';
    end = proto_put_decimal(end, value_len, value_len_len);
    end = proto_put_bytes(end, "\r\n", 2);
    return (size_t)(end - out);
}

size_t proto_ascii_encode_multiget(char *out, size_t cap, const char *keys, size_t stride,
                                   const uint32_t *lens, uint32_t n)
{
    size_t need = 5; /* "get" + "\r\n" */
    for (uint32_t i = 0; i < n; i++) {
        need += 1 + (size_t)lens[i];
    }
    if (n == 0 || need > cap) {
        return 0;
    }
    char *end = proto_put_bytes(out, "get", 3);
    for (uint32_t i = 0; i < n; i++) {
        *end++ = ' ';
        end = proto_put_bytes(end, keys + (size_t)i * stride, lens[i]);
    }
    end = proto_put_bytes(end, "\r\n", 2);
    return (size_t)(end - out);
}
