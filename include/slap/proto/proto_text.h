/* The state the ASCII and meta parsers share: a line at a time, a value's data in between. */
#ifndef SLAP_PROTO_TEXT_H
#define SLAP_PROTO_TEXT_H

#include <stdint.h>

#include "slap/proto/proto_util.h"

/* The longest line the text parsers accept before calling the stream garbage. */
#define PROTO_ASCII_MAX_LINE 2048

/* A text parser's state, carried between reads: a value's data may span many reads. */
struct text_parser {
    int state;                  /* internal: a line or a value's data comes next */
    uint64_t data_left;         /* data bytes (plus CRLF) of the current value still to come */
    struct proto_response resp; /* values so far in this response, and the hook */
};

/* Ready for a new stream, with no hook (set p->resp.hook afterwards to check values). */
void proto_text_parser_reset(struct text_parser *p);

#endif
