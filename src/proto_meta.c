/* memcached meta protocol (mg/ms/mn): request encoders and a streaming, allocation-free parser. */
#include "slap/proto_meta.h"

#include <string.h>

#include "proto_text_parse.h"
#include "slap/common.h"
#include "slap/proto_util.h"

/*
 * The parser is the text-line loop of proto_text_parse.h, where its state diagram is. This
 * file reads the meta protocol's own lines: "VA <bytes>[ <flag>...]" headers, MN, and the
 * status lines that stand alone (HD, NS, EX, NF, EN); the loop reads the lines ASCII shares
 * (ERROR, CLIENT_ERROR, SERVER_ERROR). A quiet get answers one VA block per hit and nothing
 * for a miss; the MN of the "mn" sent after it closes the response.
 */

#define META_MAX_VALUE_BYTES (1ULL << 30) /* a VA larger than 1 GiB is garbage */
#define META_CODE_LEN 2                   /* "VA", "HD", "MN", ...: two letters */

/* Status lines that can only start (and end) a response; any flags after the code are ignored. */
static const struct {
    char code[META_CODE_LEN + 1];
    enum proto_reply reply;
} status_replies[] = {
    {"HD", PROTO_REPLY_STORED},    {"NS", PROTO_REPLY_NOT_STORED}, {"EX", PROTO_REPLY_EXISTS},
    {"NF", PROTO_REPLY_NOT_FOUND}, {"EN", PROTO_REPLY_VALUES},
};

/* Meta flags are single ASCII letters (not isalpha: that depends on the locale). */
static int is_flag_letter(char c)
{
    return (unsigned)((unsigned char)c | 0x20) - (unsigned)'a' < 26;
}

/*
 * The flags after a status code, cur..end: nothing, or " <flag>" repeated, each a
 * letter and its token (no empty tokens, no trailing space). The first k flag names
 * the key ("kfoo": key "foo"); *key is NULL when there is none.
 */
static enum slap_status scan_flags(const char *cur, const char *end, const char **key,
                                   size_t *key_len)
{
    *key = NULL;
    *key_len = 0;
    while (cur < end) {
        if (*cur++ != ' ' || cur == end || !is_flag_letter(*cur)) {
            return SLAP_ERROR;
        }
        const char *token_end = memchr(cur, ' ', (size_t)(end - cur));
        if (token_end == NULL) {
            token_end = end;
        }
        if (*cur == 'k') {
            if (token_end - cur < 2) {
                return SLAP_ERROR; /* a k flag without its key */
            }
            if (*key == NULL) {
                *key = cur + 1;
                *key_len = (size_t)(token_end - cur) - 1;
            }
        }
        cur = token_end;
    }
    return SLAP_OK;
}

/* "VA <bytes>[ <flag>...]" (line without CRLF): start the value's data. */
static enum proto_step on_value_header(struct text_parser *p, const char *line, size_t line_len)
{
    const char *end = line + line_len;
    const char *cur = line + META_CODE_LEN + 1;
    const char *key;
    size_t key_len;
    uint64_t bytes;
    if (line_len <= META_CODE_LEN + 1 || line[META_CODE_LEN] != ' ') {
        return STEP_ERROR;
    }
    if (proto_parse_decimal(&cur, end, META_MAX_VALUE_BYTES, &bytes) != SLAP_OK ||
        scan_flags(cur, end, &key, &key_len) != SLAP_OK) {
        return STEP_ERROR;
    }
    return proto_text_value(p, key, key_len, bytes);
}

/* "HD", "NS", "EX", "NF" or "EN", each possibly with flags: a whole response. */
static enum proto_step on_status_line(struct text_parser *p, const char *line, size_t line_len,
                                      struct proto_result *res)
{
    const char *key;
    size_t key_len;
    if (line_len < META_CODE_LEN ||
        scan_flags(line + META_CODE_LEN, line + line_len, &key, &key_len) != SLAP_OK) {
        return STEP_ERROR;
    }
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(status_replies); i++) {
        if (memcmp(line, status_replies[i].code, META_CODE_LEN) == 0) {
            return proto_response_finish(&p->resp, res, status_replies[i].reply, NULL, 0);
        }
    }
    return STEP_ERROR;
}

/* Act on one complete line (CRLF stripped); STEP_ERROR for one that is not meta's own. */
static enum proto_step on_line(struct text_parser *p, const char *line, size_t line_len,
                               struct proto_result *res)
{
    if (line_len >= META_CODE_LEN && memcmp(line, "VA", META_CODE_LEN) == 0) {
        return on_value_header(p, line, line_len);
    }
    if (line_len == META_CODE_LEN && memcmp(line, "MN", META_CODE_LEN) == 0) {
        return proto_response_finish(&p->resp, res, PROTO_REPLY_VALUES, NULL, 0);
    }
    if (p->state != TEXT_START) {
        return STEP_ERROR; /* HD and friends cannot follow a VA block */
    }
    return on_status_line(p, line, line_len, res);
}

enum slap_status proto_meta_parse(struct text_parser *p, const char *buf, size_t len,
                                  size_t *consumed, struct proto_result *res)
{
    return proto_text_parse(p, on_line, buf, len, consumed, res);
}

#define META_GET_HEAD "mg "
#define META_GET_HEAD_LEN 3
#define META_GET_TAIL " v k q\r\n" /* value, key, quiet: a miss answers nothing */
#define META_GET_TAIL_LEN 8
#define META_NOOP "mn\r\n"
#define META_NOOP_LEN 4

/* "mg <key> v k q\r\n" without a size check; return the end. */
static char *put_get(char *out, const char *key, size_t key_len)
{
    out = proto_put_bytes(out, META_GET_HEAD, META_GET_HEAD_LEN);
    out = proto_put_bytes(out, key, key_len);
    return proto_put_bytes(out, META_GET_TAIL, META_GET_TAIL_LEN);
}

size_t proto_meta_encode_get(char *out, size_t cap, const char *key, size_t key_len)
{
    const size_t fixed = META_GET_HEAD_LEN + META_GET_TAIL_LEN + META_NOOP_LEN;
    if (key_len > cap || cap - key_len < fixed) {
        return 0;
    }
    char *end = put_get(out, key, key_len);
    end = proto_put_bytes(end, META_NOOP, META_NOOP_LEN);
    return (size_t)(end - out);
}

size_t proto_meta_encode_multiget(char *out, size_t cap, const char *keys, size_t stride,
                                  const uint32_t *lens, uint32_t n)
{
    if (n == 0 || cap < META_NOOP_LEN) {
        return 0;
    }
    size_t need = META_NOOP_LEN;
    for (uint32_t i = 0; i < n; i++) {
        size_t line = META_GET_HEAD_LEN + (size_t)lens[i] + META_GET_TAIL_LEN;
        if (cap - need < line) {
            return 0; /* checked as it grows: no overflow however many keys */
        }
        need += line;
    }
    char *end = out;
    for (uint32_t i = 0; i < n; i++) {
        end = put_get(end, keys + (size_t)i * stride, lens[i]);
    }
    end = proto_put_bytes(end, META_NOOP, META_NOOP_LEN);
    return (size_t)(end - out);
}

size_t proto_meta_encode_set_header(char *out, size_t cap, const char *key, size_t key_len,
                                    uint32_t flags, uint32_t exptime, size_t value_len)
{
    const size_t fixed = 10; /* "ms " + " " + " T" + " F" + "\r\n" */
    size_t value_len_len = proto_decimal_len(value_len);
    size_t exptime_len = proto_decimal_len(exptime);
    size_t flags_len = proto_decimal_len(flags);
    if (key_len > cap || cap - key_len < fixed + value_len_len + exptime_len + flags_len) {
        return 0;
    }
    char *end = proto_put_bytes(out, "ms ", 3);
    end = proto_put_bytes(end, key, key_len);
    *end++ = ' ';
    end = proto_put_decimal(end, value_len, value_len_len);
    end = proto_put_bytes(end, " T", 2);
    end = proto_put_decimal(end, exptime, exptime_len);
    end = proto_put_bytes(end, " F", 2);
    end = proto_put_decimal(end, flags, flags_len);
    end = proto_put_bytes(end, "\r\n", 2);
    return (size_t)(end - out);
}
