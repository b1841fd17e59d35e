/* The codec table: one entry per protocol, so sockets and clients need not know which. */
#include "slap/proto/proto.h"

#include <string.h>

#include "slap/base/quote.h"

static void text_reset(union proto_parser *p, const struct proto_value_hook *hook)
{
    proto_text_parser_reset(&p->text);
    p->text.resp.hook = hook;
}

static void text_asked(union proto_parser *p, const char *req, size_t req_len)
{
    p->text.resp.req = req;
    p->text.resp.req_len = req_len;
}

static enum slap_status ascii_parse(union proto_parser *p, const char *buf, size_t len,
                                    size_t *consumed, struct proto_result *res)
{
    return proto_ascii_parse(&p->text, buf, len, consumed, res);
}

static void binary_reset(union proto_parser *p, const struct proto_value_hook *hook)
{
    proto_binary_parser_reset(&p->binary);
    p->binary.resp.hook = hook;
}

static void binary_asked(union proto_parser *p, const char *req, size_t req_len)
{
    p->binary.resp.req = req;
    p->binary.resp.req_len = req_len;
}

static enum slap_status binary_parse(union proto_parser *p, const char *buf, size_t len,
                                     size_t *consumed, struct proto_result *res)
{
    return proto_binary_parse(&p->binary, buf, len, consumed, res);
}

static enum slap_status meta_parse(union proto_parser *p, const char *buf, size_t len,
                                   size_t *consumed, struct proto_result *res)
{
    return proto_meta_parse(&p->text, buf, len, consumed, res);
}

static const struct codec codecs[] = {
    /* "gat <u32>" + " <key>" each + "\r\n"; "cas <key> <u32> <u32> <u32> <u64>\r\n" */
    [PROTO_ASCII] = {"ascii", proto_ascii_encode_retrieve, proto_ascii_encode_store,
                     proto_ascii_encode_command, true, 1, 16, 60, text_reset, text_asked,
                     ascii_parse, INT32_MAX, false, true, PROTO_AUTH_ASCII},
    /* GATKQ: a 24-byte header, 4 bytes of extras and the key each, then a NOOP; INCREMENT:
     * header, 20 bytes of extras, key */
    [PROTO_BINARY] = {"binary", proto_binary_encode_retrieve, proto_binary_encode_store,
                      proto_binary_encode_command, false, 28, 24, 44, binary_reset, binary_asked,
                      binary_parse, UINT32_MAX, false, false, PROTO_AUTH_SASL_PLAIN},
    /* "mg <key> v k T<u32> q\r\n" each + "mn\r\n"; "ms <key> <u32> T<u32> F<u32> C<u64>\r\n" */
    [PROTO_META] = {"meta", proto_meta_encode_retrieve, proto_meta_encode_store,
                    proto_meta_encode_command, true, 23, 4, 62, text_reset, text_asked, meta_parse,
                    INT32_MAX, true, true, PROTO_AUTH_ASCII},
};
_Static_assert(SLAP_ARRAY_SIZE(codecs) == PROTO_KINDS, "a codecs row for every enum proto_kind");

const struct codec *codec_get(enum proto_kind kind)
{
    return &codecs[kind];
}

uint32_t codec_exptime(const struct codec *c, uint64_t ttl_s, uint64_t now_s)
{
    if (ttl_s <= CODEC_TTL_RELATIVE_MAX) {
        return (uint32_t)ttl_s;
    }
    uint64_t at = ttl_s > UINT64_MAX - now_s ? UINT64_MAX : now_s + ttl_s;
    return at > c->exptime_max ? c->exptime_max : (uint32_t)at;
}

uint64_t codec_ttl_max(const struct codec *c, uint64_t now_s)
{
    uint64_t ahead = c->exptime_max > now_s ? c->exptime_max - now_s : 0;
    return ahead > CODEC_TTL_RELATIVE_MAX ? ahead : CODEC_TTL_RELATIVE_MAX;
}

size_t codec_get_bytes(const struct codec *c, uint32_t n, uint32_t key_max)
{
    return (size_t)n * ((size_t)key_max + c->get_per_key) + c->get_fixed;
}

size_t codec_set_header_bytes(const struct codec *c, uint32_t key_max)
{
    return (size_t)key_max + c->set_fixed;
}

size_t codec_header_room(const struct codec *c, uint32_t n, uint32_t key_max)
{
    size_t get = codec_get_bytes(c, n, key_max);
    size_t set = codec_set_header_bytes(c, key_max);
    return get > set ? get : set;
}

const char *proto_fault_name(enum proto_fault fault)
{
    switch (fault) {
    case PROTO_FAULT_KEY:
        return "a value for a key not asked";
    case PROTO_FAULT_OPAQUE:
        return "a reply with a wrong opaque";
    case PROTO_FAULT_REPLY:
        return "a reply to another request";
    case PROTO_FAULT_TOO_LARGE:
        return "a value over 1 GiB";
    default:
        return "not a memcached response";
    }
}

#define PROTO_QUOTED_MAX 64 /* bytes of a key or line quoted; more is cut, with "..." */

/* Text appended at *at, cut at end - 1 (where the NUL goes). */
static void put_text(char **at, char *end, const char *text, size_t len)
{
    size_t room = (size_t)(end - *at) - 1;
    size_t n = len < room ? len : room;
    memcpy(*at, text, n);
    *at += n;
}

/* "bytes" with '"', '\\' and anything but printable ASCII escaped, cut at PROTO_QUOTED_MAX. */
static void put_quoted(char **at, char *end, const char *bytes, size_t len)
{
    quote_put(at, end, bytes, len, PROTO_QUOTED_MAX, '"');
}

static void put_number(char **at, char *end, uint64_t v)
{
    char digits[24];
    size_t n = proto_decimal_len(v);
    proto_put_decimal(digits, v, n);
    put_text(at, end, digits, n);
}

static void put_words(char **at, char *end, const char *words)
{
    put_text(at, end, words, strlen(words));
}

size_t proto_fault_describe(char *out, size_t cap, const struct proto_result *res)
{
    char *at = out, *end = out + cap;
    if (cap == 0) {
        return 0;
    }
    switch (res->fault) {
    case PROTO_FAULT_KEY:
        if (res->got != NULL) {
            put_quoted(&at, end, res->got, res->got_len);
        } else {
            put_words(&at, end, "a value without its key");
        }
        put_words(&at, end,
                  res->asked != NULL ? " came back; the request's next key was "
                                     : " came back; the request had no key left");
        if (res->asked != NULL) {
            put_quoted(&at, end, res->asked, res->asked_len);
        }
        break;
    case PROTO_FAULT_OPAQUE:
        put_words(&at, end, "opaque ");
        put_number(&at, end, res->got_number);
        put_words(&at, end, " came back; the request's next packet had opaque ");
        put_number(&at, end, res->asked_number);
        break;
    case PROTO_FAULT_REPLY:
        put_quoted(&at, end, res->got, res->got_len);
        put_words(&at, end, " in answer to ");
        put_quoted(&at, end, res->asked, res->asked_len);
        break;
    case PROTO_FAULT_TOO_LARGE:
        put_number(&at, end, res->got_number);
        put_words(&at, end, " bytes declared; the limit is ");
        put_number(&at, end, res->asked_number);
        break;
    default:
        put_words(&at, end, "bytes that are not a memcached response");
        break;
    }
    *at = '\0';
    return (size_t)(at - out);
}
