/* What every codec shares: the response it gathers, checks of value data, decimal digits. */
#ifndef SLAP_PROTO_UTIL_H
#define SLAP_PROTO_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "slap/base/common.h"

/* The largest value any codec takes: a value declared larger is not waited for (1 GiB, as
 * memcached's item size limit can be at most). */
#define PROTO_MAX_VALUE_BYTES (1ULL << 30)

/* Why a parse said SLAP_ERROR. */
enum proto_fault {
    PROTO_FAULT_GARBAGE = 0, /* not a memcached response */
    PROTO_FAULT_KEY,         /* a value under a key the request did not ask (in its order) */
    PROTO_FAULT_OPAQUE,      /* binary: an opaque that no packet of the request still due has */
    PROTO_FAULT_REPLY,       /* a reply that cannot answer the request sent (VA to ms) */
    PROTO_FAULT_TOO_LARGE,   /* a value over PROTO_MAX_VALUE_BYTES */
};

/* What a complete response said (every codec answers with these). */
enum proto_reply {
    PROTO_REPLY_VALUES,       /* get / multi-get ended by END; hits = VALUE blocks seen */
    PROTO_REPLY_STORED,       /* STORED */
    PROTO_REPLY_NOT_STORED,   /* NOT_STORED */
    PROTO_REPLY_EXISTS,       /* EXISTS */
    PROTO_REPLY_NOT_FOUND,    /* NOT_FOUND */
    PROTO_REPLY_ERROR,        /* ERROR (unknown command) */
    PROTO_REPLY_CLIENT_ERROR, /* CLIENT_ERROR <message> */
    PROTO_REPLY_SERVER_ERROR, /* SERVER_ERROR <message> */
    PROTO_REPLY_DELETED,      /* DELETED */
    PROTO_REPLY_TOUCHED,      /* TOUCHED */
    PROTO_REPLY_NUMBER,       /* incr, decr: the new value */
};

struct proto_result {
    enum proto_reply reply;
    uint32_t hits;        /* VALUE blocks in a get response */
    uint64_t value_bytes; /* data bytes of those blocks (without the CRLF) */
    uint64_t cas;         /* the cas token of the last value (gets, gats), else 0 */
    const char *msg;      /* error text, points into the parsed buffer; NULL if none */
    size_t msg_len;
    /* SLAP_ERROR only: why, and what came back against what the request asked (a key, a
     * reply line or command; numbers for an opaque or a size). got and asked point into the
     * parsed buffer, the parser or the request, and last until the next parse call. */
    enum proto_fault fault;
    const char *got, *asked; /* NULL: none */
    size_t got_len, asked_len;
    uint64_t got_number, asked_number;
};

/*
 * Optional check of value data as it streams past (verification), without
 * buffering the value: begin names the bytes a value's data should equal,
 * end says whether it did.
 */
struct proto_value_hook {
    /* A value's header: the expected data and its length, or NULL not to check this one. */
    const char *(*begin)(void *ctx, const char *key, size_t key_len, uint64_t bytes,
                         uint64_t *expect_len);
    /* The data of a checked value ended: equal or not, and the first differing byte. */
    void (*end)(void *ctx, int equal, uint64_t first_diff);
    void *ctx;
};

/* The check of the value being parsed. */
struct proto_check {
    const char *expect; /* data the current value should equal, or NULL */
    uint64_t expect_len;
    uint64_t data_pos;   /* data bytes of the current value seen so far */
    uint64_t first_diff; /* first differing byte, or UINT64_MAX while equal */
};

/*
 * What a parser gathers over one response, and the hook its values are checked with. req is
 * the request the response answers, as its codec encoded it (set through the codec table's
 * asked before each parse call): with it, the parser refuses what cannot answer it (values
 * of keys it did not ask, replies of another command); without it (NULL) only the bytes
 * themselves are judged.
 */
struct proto_response {
    uint32_t hits;                       /* values so far in this response */
    uint64_t value_bytes;                /* their data bytes (without any CRLF) */
    uint64_t cas;                        /* the cas token of the last value, or 0 */
    const struct proto_value_hook *hook; /* the stream's; NULL: values are skipped unread */
    struct proto_check check;            /* of the current value */
    const char *req;                     /* the request answered, or NULL */
    size_t req_len;
    size_t req_at; /* where in req the keys (packets) not yet answered begin; 0: the first */
};

/* A value of `bytes` data bytes begins: ask the hook (if any) what it should be. */
void proto_check_begin(struct proto_check *c, const struct proto_value_hook *hook, const char *key,
                       size_t key_len, uint64_t bytes);
/* The next n bytes of its data. */
void proto_check_data(struct proto_check *c, const char *data, size_t n);
/* Its data ended: tell the hook. */
void proto_check_end(struct proto_check *c, const struct proto_value_hook *hook);

/*
 * The data of a text-protocol value and its CRLF (ASCII VALUE, meta VA): take what
 * buf[*pos..len) holds of the *data_left bytes still due, checking the data as it
 * passes. SLAP_OK when all came (the check is ended), SLAP_AGAIN for more,
 * SLAP_ERROR if the CRLF after the data is missing.
 */
enum slap_status proto_take_text_data(struct proto_check *c, const struct proto_value_hook *hook,
                                      uint64_t *data_left, const char *buf, size_t len,
                                      size_t *pos);

/* A request line being written into a buffer; fits turns false when it would overflow, and
 * the line is then refused (proto_line_end gives 0). */
struct proto_line {
    char *start, *at, *end;
    bool fits;
};

static inline struct proto_line proto_line_begin(char *out, size_t cap)
{
    struct proto_line l = {out, out, out + cap, true};
    return l;
}
/* n bytes (inline: a constant n becomes a store or two). */
static inline void proto_line_text(struct proto_line *l, const char *bytes, size_t n)
{
    if (!l->fits || (size_t)(l->end - l->at) < n) {
        l->fits = false;
        return;
    }
    memcpy(l->at, bytes, n);
    l->at += n;
}
/* "\r\n" and the line's length, or 0 if it did not fit. */
static inline size_t proto_line_end(struct proto_line *l)
{
    proto_line_text(l, "\r\n", 2);
    return l->fits ? (size_t)(l->at - l->start) : 0;
}

/* Decimal digits by hand (the encoders run per request; no printf family). Inline, as is
 * proto_line_number: a literal prefix's strlen and a small number's digits fold into a few
 * stores (a set's header cost 460 instructions with them called). */
static inline size_t proto_decimal_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

/* n = proto_decimal_len(v) */
static inline char *proto_put_decimal(char *out, uint64_t v, size_t n)
{
    for (size_t i = n; i > 0; i--) {
        out[i - 1] = (char)('0' + v % 10);
        v /= 10;
    }
    return out + n;
}

static inline char *proto_put_bytes(char *out, const char *bytes, size_t n)
{
    memcpy(out, bytes, n);
    return out + n;
}

/* prefix (" ", " T", ...) then v in decimal. */
static inline void proto_line_number(struct proto_line *l, const char *prefix, uint64_t v)
{
    size_t prefix_len = strlen(prefix), n = proto_decimal_len(v);
    if (!l->fits || (size_t)(l->end - l->at) < prefix_len + n) {
        l->fits = false;
        return;
    }
    l->at = proto_put_bytes(l->at, prefix, prefix_len);
    l->at = proto_put_decimal(l->at, v, n);
}
/* proto_parse_decimal's digits past the 19th, where a uint64_t may overflow: value holds the
 * first 19, c points at the 20th. */
enum slap_status proto_parse_decimal_long(const char **cur, const char *c, const char *end,
                                          uint64_t max, uint64_t value, uint64_t *out);

#define PROTO_DECIMAL_SAFE 19 /* digits that always fit in a uint64_t */

/* At least one digit at *cur, no larger than max: SLAP_OK and *cur advanced, or SLAP_ERROR.
 * Inline, and no overflow test per digit up to the 19th (answers carry short numbers). */
static inline enum slap_status proto_parse_decimal(const char **cur, const char *end, uint64_t max,
                                                   uint64_t *out)
{
    const char *c = *cur;
    const char *safe_end = end - c > PROTO_DECIMAL_SAFE ? c + PROTO_DECIMAL_SAFE : end;
    uint64_t value = 0;
    for (; c < safe_end; c++) {
        unsigned digit = (unsigned)(unsigned char)*c - (unsigned)'0';
        if (digit > 9) {
            break;
        }
        value = value * 10 + digit;
    }
    if (c == safe_end && c < end) {
        return proto_parse_decimal_long(cur, c, end, max, value, out);
    }
    if (c == *cur || value > max) {
        return SLAP_ERROR;
    }
    *cur = c;
    *out = value;
    return SLAP_OK;
}

#endif
