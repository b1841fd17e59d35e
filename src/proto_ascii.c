/* memcached ASCII protocol: request encoders and a streaming, allocation-free response parser. */
#include "slap/proto_ascii.h"

#include <string.h>

#include "slap/common.h"
#include "slap/proto_util.h"

/*
 * Parser states (struct ascii_parser.state):
 *
 *   ASCII_START --"VALUE ..."--> ASCII_DATA --data + CRLF--> ASCII_VALUES
 *        |                          ^                           |
 *        |                          +--------"VALUE ..."--------+
 *        +-- any other reply line: done          "END" / "SERVER_ERROR": done
 *
 * A response is complete on a reply line in ASCII_START, or on END or an error line in
 * ASCII_VALUES; then the parser returns to ASCII_START.
 */
enum ascii_state {
    ASCII_START = 0, /* before the first line of a response */
    ASCII_VALUES,    /* after a VALUE block: another VALUE, END or an error line follows */
    ASCII_DATA,      /* inside a value: data_left bytes of data plus its CRLF to come */
};

/* What one step of the parse loop decided; the public SLAP_* codes plus "keep going". */
enum ascii_step {
    STEP_ERROR = SLAP_ERROR,
    STEP_DONE = SLAP_OK,
    STEP_AGAIN = SLAP_AGAIN,
    STEP_NEXT, /* a line or a run of data was consumed; the response goes on */
};

#define ASCII_MAX_VALUE_BYTES (1ULL << 30) /* a VALUE larger than 1 GiB is garbage */
#define ASCII_VALUE_PREFIX "VALUE "
#define ASCII_VALUE_PREFIX_LEN 6
#define ASCII_ERROR_PREFIX_LEN 12 /* strlen("CLIENT_ERROR") == strlen("SERVER_ERROR") */

/* Whole-line replies that can only start (and end) a response. */
static const struct {
    const char *text;
    size_t len;
    enum proto_reply reply;
} fixed_replies[] = {
    {"STORED", 6, PROTO_REPLY_STORED}, {"NOT_STORED", 10, PROTO_REPLY_NOT_STORED},
    {"EXISTS", 6, PROTO_REPLY_EXISTS}, {"NOT_FOUND", 9, PROTO_REPLY_NOT_FOUND},
    {"ERROR", 5, PROTO_REPLY_ERROR},
};

/* Ready for the next response of the same stream. */
static void clear_response(struct ascii_parser *p)
{
    p->state = ASCII_START;
    p->data_left = 0;
    p->hits = 0;
    p->value_bytes = 0;
    p->check.expect = NULL;
}

void proto_ascii_parser_reset(struct ascii_parser *p)
{
    clear_response(p);
    p->hook = NULL;
}

/* Fill *res for a complete response and make the parser ready for the next one. */
static int finish(struct ascii_parser *p, struct proto_result *res, enum proto_reply reply,
                  const char *msg, size_t msg_len)
{
    res->reply = reply;
    res->hits = p->hits;
    res->value_bytes = p->value_bytes;
    res->msg = msg;
    res->msg_len = msg_len;
    clear_response(p);
    return STEP_DONE;
}

/* "VALUE <key> <flags> <bytes>[ <cas>]" (line without CRLF): start the value's data. */
static int on_value_header(struct ascii_parser *p, const char *line, size_t line_len)
{
    const char *end = line + line_len;
    const char *cur = line + ASCII_VALUE_PREFIX_LEN;
    const char *key_end = memchr(cur, ' ', (size_t)(end - cur));
    uint64_t flags, bytes, cas;
    if (key_end == NULL || key_end == cur) {
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
    p->hits++;
    p->value_bytes += bytes;
    proto_check_begin(&p->check, p->hook, line + ASCII_VALUE_PREFIX_LEN,
                (size_t)(key_end - (line + ASCII_VALUE_PREFIX_LEN)), bytes);
    p->data_left = bytes + 2; /* the data, then its CRLF */
    p->state = ASCII_DATA;
    return STEP_NEXT;
}

/* "CLIENT_ERROR[ <msg>]" or "SERVER_ERROR[ <msg>]", prefix already matched: done. */
static int on_error_line(struct ascii_parser *p, enum proto_reply reply, const char *line,
                         size_t line_len, struct proto_result *res)
{
    if (line_len == ASCII_ERROR_PREFIX_LEN) {
        return finish(p, res, reply, NULL, 0);
    }
    if (line[ASCII_ERROR_PREFIX_LEN] != ' ') {
        return STEP_ERROR;
    }
    return finish(p, res, reply, line + ASCII_ERROR_PREFIX_LEN + 1,
                  line_len - ASCII_ERROR_PREFIX_LEN - 1);
}

/* Act on one complete line (CRLF stripped). */
static int on_line(struct ascii_parser *p, const char *line, size_t line_len,
                   struct proto_result *res)
{
    if (line_len > ASCII_VALUE_PREFIX_LEN &&
        memcmp(line, ASCII_VALUE_PREFIX, ASCII_VALUE_PREFIX_LEN) == 0) {
        return on_value_header(p, line, line_len);
    }
    if (line_len == 3 && memcmp(line, "END", 3) == 0) {
        return finish(p, res, PROTO_REPLY_VALUES, NULL, 0);
    }
    if (line_len >= ASCII_ERROR_PREFIX_LEN) {
        if (memcmp(line, "SERVER_ERROR", ASCII_ERROR_PREFIX_LEN) == 0) {
            return on_error_line(p, PROTO_REPLY_SERVER_ERROR, line, line_len, res);
        }
        if (memcmp(line, "CLIENT_ERROR", ASCII_ERROR_PREFIX_LEN) == 0) {
            return on_error_line(p, PROTO_REPLY_CLIENT_ERROR, line, line_len, res);
        }
    }
    if (p->state != ASCII_START) {
        return STEP_ERROR; /* STORED and friends cannot follow a VALUE block */
    }
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(fixed_replies); i++) {
        if (line_len == fixed_replies[i].len &&
            memcmp(line, fixed_replies[i].text, line_len) == 0) {
            return finish(p, res, fixed_replies[i].reply, NULL, 0);
        }
    }
    return STEP_ERROR;
}

/*
 * Take the line starting at buf[*pos]. A line, CRLF included, may be at most
 * PROTO_ASCII_MAX_LINE bytes; a partial line is left unconsumed, so the caller
 * never has to keep more than PROTO_ASCII_MAX_LINE bytes.
 */
static int consume_line(struct ascii_parser *p, const char *buf, size_t len, size_t *pos,
                        struct proto_result *res)
{
    if (*pos == len) {
        return STEP_AGAIN;
    }
    const char *line = buf + *pos;
    size_t avail = len - *pos;
    size_t window = avail < PROTO_ASCII_MAX_LINE ? avail : PROTO_ASCII_MAX_LINE;
    const char *lf = memchr(line, '\n', window);
    if (lf == NULL) {
        return avail > PROTO_ASCII_MAX_LINE ? STEP_ERROR : STEP_AGAIN;
    }
    if (lf == line || lf[-1] != '\r') {
        return STEP_ERROR;
    }
    int step = on_line(p, line, (size_t)(lf - line) - 1, res);
    if (step != STEP_ERROR) {
        *pos += (size_t)(lf - line) + 1;
    }
    return step;
}

/* Take as much of the current value's data and trailing CRLF as buf holds. */
static int consume_data(struct ascii_parser *p, const char *buf, size_t len, size_t *pos)
{
    int rc = proto_take_text_data(&p->check, p->hook, &p->data_left, buf, len, pos);
    if (rc != SLAP_OK) {
        return rc == SLAP_AGAIN ? STEP_AGAIN : STEP_ERROR;
    }
    p->state = ASCII_VALUES;
    return STEP_NEXT;
}

enum slap_status proto_ascii_parse(struct ascii_parser *p, const char *buf, size_t len,
                                   size_t *consumed, struct proto_result *res)
{
    size_t pos = 0;
    int step;
    do {
        if (p->state == ASCII_DATA) {
            step = consume_data(p, buf, len, &pos);
        } else {
            step = consume_line(p, buf, len, &pos, res);
        }
    } while (step == STEP_NEXT);
    *consumed = pos;
    return step;
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
