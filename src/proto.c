/* The codec table: one entry per protocol, so sockets and clients need not know which. */
#include "slap/proto.h"

static void text_reset(union proto_parser *p, const struct proto_value_hook *hook)
{
    proto_text_parser_reset(&p->text);
    p->text.resp.hook = hook;
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
                     proto_ascii_encode_command, true, 1, 16, 60, text_reset, ascii_parse,
                     INT32_MAX},
    /* GATKQ: a 24-byte header, 4 bytes of extras and the key each, then a NOOP; INCREMENT:
     * header, 20 bytes of extras, key */
    [PROTO_BINARY] = {"binary", proto_binary_encode_retrieve, proto_binary_encode_store,
                      proto_binary_encode_command, false, 28, 24, 44, binary_reset, binary_parse,
                      UINT32_MAX},
    /* "mg <key> v k T<u32> q\r\n" each + "mn\r\n"; "ms <key> <u32> T<u32> F<u32> C<u64>\r\n" */
    [PROTO_META] = {"meta", proto_meta_encode_retrieve, proto_meta_encode_store,
                    proto_meta_encode_command, true, 23, 4, 62, text_reset, meta_parse, INT32_MAX},
};

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
