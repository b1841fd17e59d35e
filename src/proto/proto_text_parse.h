/* Private to the ASCII and meta codecs: the text-line parse loop they share, inlined into each. */
#ifndef SLAP_PROTO_TEXT_PARSE_H
#define SLAP_PROTO_TEXT_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "proto_parse.h"
#include "slap/base/common.h"
#include "slap/proto/proto_text.h"
#include "slap/proto/proto_util.h"

/*
 * Parser states (struct text_parser.state), for ASCII and meta alike:
 *
 *   TEXT_START --value header--> TEXT_DATA --data + CRLF--> TEXT_VALUES
 *        |                          ^                           |
 *        |                          +-------value header--------+
 *        +-- any other reply line: done           the end line / an error line: done
 *
 * Value headers are "VALUE ..." (ASCII) or "VA ..." (meta); the end line of a get is END or
 * MN. Each whole line goes to the protocol's on_line; a line it does not take may still be
 * one both protocols share (proto_text_shared_line): CLIENT_ERROR or SERVER_ERROR in any
 * state, ERROR in TEXT_START. A line that completes a response puts the parser back in
 * TEXT_START.
 *
 * The loop is inline so that each protocol's copy calls its on_line directly: a call through
 * a pointer for every line costs the ASCII parser a sixth more instructions per response.
 */
enum text_state {
    TEXT_START = 0, /* before the first line of a response */
    TEXT_VALUES,    /* after a value: another value header, the end line or an error line follows */
    TEXT_DATA,      /* inside a value: data_left bytes of data plus its CRLF to come */
};

/*
 * A protocol's reading of one whole line (CRLF stripped): STEP_NEXT after proto_text_value,
 * STEP_DONE after proto_response_finish, STEP_ERROR for a line it does not take (the loop
 * then tries the lines both protocols share).
 */
typedef enum proto_step (*text_line_fn)(struct text_parser *p, const char *line, size_t line_len,
                                        struct proto_result *res);

/* A value header was read: count the value, begin its check, take its data and CRLF next. */
static inline enum proto_step proto_text_value(struct text_parser *p, const char *key,
                                               size_t key_len, uint64_t bytes)
{
    proto_response_value(&p->resp, key, key_len, bytes);
    p->data_left = bytes + 2; /* the data, then its CRLF */
    p->state = TEXT_DATA;
    return STEP_NEXT;
}

/*
 * Optional, before the loop looks for a line's end: a protocol's reading of its usual lines
 * in one pass over buf[0..avail). Returns the bytes of a whole line it took (CRLF included),
 * with *step as on_line's; or 0 to leave the line to the loop, which judges it (a fast
 * reading never fails: it takes only lines that on_line would take the same way).
 */
typedef size_t (*text_fast_fn)(struct text_parser *p, const char *buf, size_t avail,
                               enum proto_step *step, struct proto_result *res);

/* A line the protocol did not take: one of the lines both protocols share, or garbage. */
enum proto_step proto_text_shared_line(struct text_parser *p, const char *line, size_t line_len,
                                       struct proto_result *res);

/*
 * Take the line starting at buf[*pos]. A line, CRLF included, may be at most
 * PROTO_ASCII_MAX_LINE bytes; a partial line is left unconsumed, so the caller
 * never has to keep more than PROTO_ASCII_MAX_LINE bytes.
 */
static inline enum proto_step proto_text_take_line(struct text_parser *p, text_line_fn on_line,
                                                   text_fast_fn fast, const char *buf, size_t len,
                                                   size_t *pos, struct proto_result *res)
{
    if (*pos == len) {
        return STEP_AGAIN;
    }
    const char *line = buf + *pos;
    size_t avail = len - *pos;
    enum proto_step step;
    size_t used = fast != NULL ? fast(p, line, avail, &step, res) : 0;
    if (used > 0) {
        p->state = step == STEP_DONE ? TEXT_START : p->state;
        *pos += used;
        return step;
    }
    size_t window = avail < PROTO_ASCII_MAX_LINE ? avail : PROTO_ASCII_MAX_LINE;
    const char *lf = memchr(line, '\n', window);
    if (lf == NULL) {
        return avail > PROTO_ASCII_MAX_LINE ? STEP_ERROR : STEP_AGAIN;
    }
    if (lf == line || lf[-1] != '\r') {
        return STEP_ERROR;
    }
    size_t line_len = (size_t)(lf - line) - 1;
    step = on_line(p, line, line_len, res);
    if (step == STEP_ERROR) {
        step = proto_text_shared_line(p, line, line_len, res);
    }
    if (step == STEP_ERROR) {
        return STEP_ERROR;
    }
    if (step == STEP_DONE) {
        p->state = TEXT_START;
    }
    *pos += line_len + 2;
    return step;
}

/* Take as much of the current value's data and trailing CRLF as buf holds. The usual case
 * inline: a value not being checked, whole in buf, its CRLF in place. */
static inline enum proto_step proto_text_take_data(struct text_parser *p, const char *buf,
                                                   size_t len, size_t *pos)
{
    uint64_t left = p->data_left;
    if (p->resp.check.expect == NULL && left >= 2 && left <= len - *pos) {
        const char *crlf = buf + *pos + left - 2;
        if (crlf[0] == '\r' && crlf[1] == '\n') {
            *pos += (size_t)left;
            p->data_left = 0;
            p->state = TEXT_VALUES;
            return STEP_NEXT;
        }
    }
    enum slap_status rc =
        proto_take_text_data(&p->resp.check, p->resp.hook, &p->data_left, buf, len, pos);
    if (rc != SLAP_OK) {
        return rc == SLAP_AGAIN ? STEP_AGAIN : STEP_ERROR;
    }
    p->state = TEXT_VALUES;
    return STEP_NEXT;
}

/* Lines to on_line, value data taken in between: the contract of proto_ascii_parse. */
static inline enum slap_status proto_text_parse(struct text_parser *p, text_line_fn on_line,
                                                text_fast_fn fast, const char *buf, size_t len,
                                                size_t *consumed, struct proto_result *res)
{
    size_t pos = 0;
    enum proto_step step;
    proto_fault_clear(res);
    do {
        if (p->state == TEXT_DATA) {
            step = proto_text_take_data(p, buf, len, &pos);
        } else {
            step = proto_text_take_line(p, on_line, fast, buf, len, &pos, res);
        }
    } while (step == STEP_NEXT);
    *consumed = pos;
    return (enum slap_status)step;
}

#endif
