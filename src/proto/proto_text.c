/* The text parsers' reset, and the lines the ASCII and meta protocols share (errors). */
#include "slap/proto/proto_text.h"

#include <string.h>

#include "proto_text_parse.h"
#include "slap/base/common.h"
#include "slap/proto/proto_util.h"

#define TEXT_ERROR_PREFIX_LEN 12 /* strlen("CLIENT_ERROR") == strlen("SERVER_ERROR") */

void proto_text_parser_reset(struct text_parser *p)
{
    p->state = TEXT_START;
    p->data_left = 0;
    proto_response_clear(&p->resp);
    p->resp.hook = NULL;
    p->resp.req = NULL;
    p->resp.req_len = 0;
}

/* "WORD[ <msg>]", the word (prefix bytes) already matched: done. */
static enum proto_step on_error_line(struct text_parser *p, enum proto_reply reply, size_t prefix,
                                     const char *line, size_t line_len, struct proto_result *res)
{
    if (line_len == prefix) {
        return proto_response_finish(&p->resp, res, reply, NULL, 0);
    }
    if (line[prefix] != ' ') {
        return STEP_ERROR;
    }
    return proto_response_finish(&p->resp, res, reply, line + prefix + 1, line_len - prefix - 1);
}

enum proto_step proto_text_shared_line(struct text_parser *p, const char *line, size_t line_len,
                                       struct proto_result *res)
{
    if (line_len >= TEXT_ERROR_PREFIX_LEN) {
        if (memcmp(line, "SERVER_ERROR", TEXT_ERROR_PREFIX_LEN) == 0) {
            return on_error_line(p, PROTO_REPLY_SERVER_ERROR, TEXT_ERROR_PREFIX_LEN, line, line_len,
                                 res);
        }
        if (memcmp(line, "CLIENT_ERROR", TEXT_ERROR_PREFIX_LEN) == 0) {
            return on_error_line(p, PROTO_REPLY_CLIENT_ERROR, TEXT_ERROR_PREFIX_LEN, line, line_len,
                                 res);
        }
    }
    /* "ERROR", or memcached's "ERROR Too many open connections" before it closes */
    if (p->state == TEXT_START && line_len >= 5 && memcmp(line, "ERROR", 5) == 0 &&
        (line_len == 5 || line_len > 6)) {
        return on_error_line(p, PROTO_REPLY_ERROR, 5, line, line_len, res);
    }
    return STEP_ERROR;
}
