/* memcached meta protocol (mg/ms/mn): request encoders and a streaming, allocation-free parser. */
#include "slap/proto/proto_meta.h"

#include <stdbool.h>
#include <string.h>

#include "proto_text_parse.h"
#include "slap/base/common.h"
#include "slap/proto/proto_util.h"

/*
 * The parser is the text-line loop of proto_text_parse.h, where its state diagram is. This
 * file reads the meta protocol's own lines: "VA <bytes>[ <flag>...]" headers, MN, and the
 * status lines that stand alone (HD, NS, EX, NF, EN); the loop reads the lines ASCII shares
 * (ERROR, CLIENT_ERROR, SERVER_ERROR). A quiet get answers one VA block per hit and nothing
 * for a miss; the MN of the "mn" sent after it closes the response. With the request known
 * (p->resp.req), a code that cannot answer it (codes_answering) is an error at once, and a
 * VA must carry the key of one of its mg lines, in their order.
 */

#define META_CODE_LEN 2 /* "VA", "HD", "MN", ...: two letters */

/* The reply codes, as bits of what a request may be answered with. */
enum meta_code {
    META_HD = 1 << 0,
    META_NS = 1 << 1,
    META_EX = 1 << 2,
    META_NF = 1 << 3,
    META_EN = 1 << 4,
    META_VA = 1 << 5,
    META_MN = 1 << 6,
    META_ANY = 0x7f, /* the request is not known */
};

/* Status lines that can only start (and end) a response; any flags after the code are ignored. */
static const struct {
    char code[META_CODE_LEN + 1];
    enum proto_reply reply;
    enum meta_code bit;
} status_replies[] = {
    {"HD", PROTO_REPLY_STORED, META_HD}, {"NS", PROTO_REPLY_NOT_STORED, META_NS},
    {"EX", PROTO_REPLY_EXISTS, META_EX}, {"NF", PROTO_REPLY_NOT_FOUND, META_NF},
    {"EN", PROTO_REPLY_VALUES, META_EN},
};

/* Does "mg <key> <flag>..." (len bytes) have the v flag? */
static bool asks_value(const char *line, size_t len)
{
    const char *key_end = len > 3 ? memchr(line + 3, ' ', len - 3) : NULL;
    for (size_t i = key_end != NULL ? (size_t)(key_end - line) : len; i + 1 < len; i++) {
        if (line[i] == ' ' && line[i + 1] == 'v' && (i + 2 == len || line[i + 2] == ' ')) {
            return true;
        }
    }
    return false;
}

/*
 * The codes that can answer the request slap sent (error lines aside), by its first line:
 *   mg <key> v k ... q (gets, closed by mn)  VA, MN    (a quiet miss says nothing, not EN)
 *   mg <key> T<exptime> (touch)              HD, EN
 *   ms                                       HD, NS, EX, NF
 *   md, ma (no C, no N, no v flags sent)     HD, NF
 *   mn                                       MN
 */
static enum meta_code codes_answering(const struct proto_response *r)
{
    const char *req = r->req;
    size_t len = proto_request_line_len(r);
    if (req == NULL) {
        return META_ANY;
    }
    if (len < META_CODE_LEN || req[0] != 'm') {
        return 0;
    }
    switch (req[1]) {
    case 'g':
        return asks_value(req, len) ? META_VA | META_MN : META_HD | META_EN;
    case 's':
        return META_HD | META_NS | META_EX | META_NF;
    case 'd':
    case 'a':
        return META_HD | META_NF;
    case 'n':
        return META_MN;
    default:
        return 0;
    }
}

/* A line whose code cannot answer the request sent. */
static enum proto_step other_request(struct text_parser *p, const char *line, size_t line_len,
                                     struct proto_result *res)
{
    return proto_fault(res, PROTO_FAULT_REPLY, line, line_len, p->resp.req,
                       proto_request_line_len(&p->resp));
}

/* The k flag of a value came back: its key must be the key of the request's next mg line not
 * yet answered, or of a later one (misses are quiet). */
static enum proto_step take_asked_key(struct proto_response *r, const char *key, size_t key_len,
                                      struct proto_result *res)
{
    const char *req = r->req, *end = r->req + r->req_len;
    const char *line = req + r->req_at, *next = NULL;
    size_t next_len = 0;
    while (line + 3 < end && memcmp(line, "mg ", 3) == 0) {
        const char *k = line + 3;
        const char *k_end = k;
        while (k_end < end && *k_end != ' ' && *k_end != '\r') {
            k_end++;
        }
        const char *lf = memchr(k_end, '\n', (size_t)(end - k_end));
        line = lf != NULL ? lf + 1 : end;
        if (next == NULL) {
            next = k;
            next_len = (size_t)(k_end - k);
        }
        if (key != NULL && (size_t)(k_end - k) == key_len && memcmp(k, key, key_len) == 0) {
            r->req_at = (size_t)(line - req);
            return STEP_NEXT;
        }
    }
    return proto_fault(res, PROTO_FAULT_KEY, key, key_len, next, next_len);
}

/* Meta flags are single ASCII letters (not isalpha: that depends on the locale). */
static int is_flag_letter(char c)
{
    return (unsigned)((unsigned char)c | 0x20) - (unsigned)'a' < 26;
}

/* What a line's flags say: its key (k flag), its cas token (c flag). */
struct meta_flags {
    const char *key; /* NULL when there is no k flag */
    size_t key_len;
    uint64_t cas; /* 0 when there is no c flag */
};

/* The c flag's token: a number. */
static enum slap_status scan_cas(const char *token, const char *end, uint64_t *cas)
{
    const char *cur = token + 1;
    return proto_parse_decimal(&cur, end, UINT64_MAX, cas) == SLAP_OK && cur == end ? SLAP_OK
                                                                                    : SLAP_ERROR;
}

/*
 * The flags after a status code, cur..end: nothing, or " <flag>" repeated, each a
 * letter and its token (no empty tokens, no trailing space). The first k flag names
 * the key ("kfoo": key "foo"), a c flag gives the cas token.
 */
static enum slap_status scan_flags(const char *cur, const char *end, struct meta_flags *f)
{
    const char **key = &f->key;
    size_t *key_len = &f->key_len;
    *key = NULL;
    *key_len = 0;
    f->cas = 0;
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
        if (*cur == 'c' && scan_cas(cur, token_end, &f->cas) != SLAP_OK) {
            return SLAP_ERROR;
        }
        cur = token_end;
    }
    return SLAP_OK;
}

/* "VA <bytes>[ <flag>...]" (line without CRLF): start the value's data. */
static enum proto_step on_value_header(struct text_parser *p, const char *line, size_t line_len,
                                       struct proto_result *res)
{
    const char *end = line + line_len;
    const char *cur = line + META_CODE_LEN + 1;
    struct meta_flags flags;
    uint64_t bytes;
    if (line_len <= META_CODE_LEN + 1 || line[META_CODE_LEN] != ' ') {
        return STEP_ERROR;
    }
    if (proto_parse_decimal(&cur, end, UINT64_MAX, &bytes) != SLAP_OK ||
        scan_flags(cur, end, &flags) != SLAP_OK) {
        return STEP_ERROR;
    }
    if (proto_value_size(res, bytes) == STEP_ERROR) {
        return STEP_ERROR; /* over the limit, whatever the request */
    }
    if (!(codes_answering(&p->resp) & META_VA)) {
        return other_request(p, line, line_len, res);
    }
    if (p->resp.req != NULL &&
        take_asked_key(&p->resp, flags.key, flags.key_len, res) == STEP_ERROR) {
        return STEP_ERROR;
    }
    p->resp.cas = flags.cas;
    return proto_text_value(p, flags.key, flags.key_len, bytes);
}

/* "HD", "NS", "EX", "NF" or "EN", each possibly with flags: a whole response. */
static enum proto_step on_status_line(struct text_parser *p, const char *line, size_t line_len,
                                      struct proto_result *res)
{
    struct meta_flags flags;
    if (line_len < META_CODE_LEN ||
        scan_flags(line + META_CODE_LEN, line + line_len, &flags) != SLAP_OK) {
        return STEP_ERROR;
    }
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(status_replies); i++) {
        if (memcmp(line, status_replies[i].code, META_CODE_LEN) == 0) {
            if (!(codes_answering(&p->resp) & status_replies[i].bit)) {
                return other_request(p, line, line_len, res);
            }
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
        return on_value_header(p, line, line_len, res);
    }
    if (line_len == META_CODE_LEN && memcmp(line, "MN", META_CODE_LEN) == 0) {
        if (!(codes_answering(&p->resp) & META_MN)) {
            return other_request(p, line, line_len, res);
        }
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
    return proto_text_parse(p, on_line, NULL, buf, len, consumed, res);
}

/* A retrieval: "mg <key> v k[ c][ T<exptime>] q\r\n" for each key (quiet: a miss answers
 * nothing), then "mn\r\n", whose MN ends the answer. */
size_t proto_meta_encode_retrieve(char *out, size_t cap, enum op_type op, const char *keys,
                                  size_t stride, const uint32_t *lens, uint32_t n, uint32_t exptime)
{
    struct proto_line l = proto_line_begin(out, cap);
    for (uint32_t i = 0; i < n; i++) {
        proto_line_text(&l, "mg ", 3);
        proto_line_text(&l, keys + (size_t)i * stride, lens[i]);
        proto_line_text(&l, " v k", 4);
        if (op == OP_GETS) {
            proto_line_text(&l, " c", 2);
        }
        if (op == OP_GAT) {
            proto_line_number(&l, " T", exptime);
        }
        proto_line_text(&l, " q\r\n", 4);
    }
    proto_line_text(&l, "mn", 2);
    return n > 0 ? proto_line_end(&l) : 0;
}

/* "ms <key> <bytes> T<exptime> F<flags>[ C<cas>][ M<mode>]\r\n": the mode says which
 * storage command (E add, R replace, A append, P prepend; none for set and cas). */
size_t proto_meta_encode_store(char *out, size_t cap, enum op_type op, const char *key,
                               size_t key_len, uint32_t flags, uint32_t exptime, size_t value_len,
                               uint64_t cas)
{
    static const char modes[OP_COUNT] = {
        [OP_ADD] = 'E', [OP_REPLACE] = 'R', [OP_APPEND] = 'A', [OP_PREPEND] = 'P'};
    struct proto_line l = proto_line_begin(out, cap);
    proto_line_text(&l, "ms ", 3);
    proto_line_text(&l, key, key_len);
    proto_line_number(&l, " ", value_len);
    proto_line_number(&l, " T", exptime);
    proto_line_number(&l, " F", flags);
    if (op == OP_CAS) {
        proto_line_number(&l, " C", cas);
    }
    if (modes[op] != 0) {
        char mode[3] = {' ', 'M', modes[op]};
        proto_line_text(&l, mode, 3);
    }
    return op_class(op) == OP_CLASS_STORAGE ? proto_line_end(&l) : 0;
}

/* "md <key>" (delete), "ma <key>[ MD][ D<arg>]" (incr, decr by arg), "mg <key> T<arg>"
 * (touch): answered HD, or NF (EN for a touch) when the key is not there. */
size_t proto_meta_encode_command(char *out, size_t cap, enum op_type op, const char *key,
                                 size_t key_len, uint64_t arg)
{
    struct proto_line l = proto_line_begin(out, cap);
    const char *cmd = op == OP_DELETE ? "md " : op == OP_TOUCH ? "mg " : "ma ";
    proto_line_text(&l, cmd, 3);
    proto_line_text(&l, key, key_len);
    if (op == OP_DECR) {
        proto_line_text(&l, " MD", 3);
    }
    if (op_is_arithmetic(op) && arg != 1) {
        proto_line_number(&l, " D", arg);
    }
    if (op == OP_TOUCH) {
        proto_line_number(&l, " T", arg);
    }
    return op_class(op) == OP_CLASS_OTHER ? proto_line_end(&l) : 0;
}

size_t proto_meta_encode_get(char *out, size_t cap, const char *key, size_t key_len)
{
    uint32_t len = (uint32_t)key_len;
    return key_len > UINT32_MAX ? 0
                                : proto_meta_encode_retrieve(out, cap, OP_GET, key, 0, &len, 1, 0);
}

size_t proto_meta_encode_multiget(char *out, size_t cap, const char *keys, size_t stride,
                                  const uint32_t *lens, uint32_t n)
{
    return proto_meta_encode_retrieve(out, cap, OP_GET, keys, stride, lens, n, 0);
}

size_t proto_meta_encode_set_header(char *out, size_t cap, const char *key, size_t key_len,
                                    uint32_t flags, uint32_t exptime, size_t value_len)
{
    return proto_meta_encode_store(out, cap, OP_SET, key, key_len, flags, exptime, value_len, 0);
}
