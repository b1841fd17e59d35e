/* The codec table: one entry per protocol, so sockets and clients need not know which. */
#include "slap/proto.h"

static void ascii_reset(union proto_parser *p, const struct proto_value_hook *hook)
{
    proto_ascii_parser_reset(&p->ascii);
    p->ascii.hook = hook;
}

static int ascii_parse(union proto_parser *p, const char *buf, size_t len, size_t *consumed,
                       struct proto_result *res)
{
    return proto_ascii_parse(&p->ascii, buf, len, consumed, res);
}

static void binary_reset(union proto_parser *p, const struct proto_value_hook *hook)
{
    proto_binary_parser_reset(&p->binary);
    p->binary.hook = hook;
}

static int binary_parse(union proto_parser *p, const char *buf, size_t len, size_t *consumed,
                        struct proto_result *res)
{
    return proto_binary_parse(&p->binary, buf, len, consumed, res);
}

static void meta_reset(union proto_parser *p, const struct proto_value_hook *hook)
{
    proto_meta_parser_reset(&p->meta);
    p->meta.hook = hook;
}

static int meta_parse(union proto_parser *p, const char *buf, size_t len, size_t *consumed,
                      struct proto_result *res)
{
    return proto_meta_parse(&p->meta, buf, len, consumed, res);
}

static const struct codec codecs[] = {
    [PROTO_ASCII] = {"ascii", proto_ascii_encode_get, proto_ascii_encode_multiget,
                     proto_ascii_encode_set_header, true, ascii_reset, ascii_parse},
    [PROTO_BINARY] = {"binary", proto_binary_encode_get, proto_binary_encode_multiget,
                      proto_binary_encode_set_header, false, binary_reset, binary_parse},
    [PROTO_META] = {"meta", proto_meta_encode_get, proto_meta_encode_multiget,
                    proto_meta_encode_set_header, true, meta_reset, meta_parse},
};

const struct codec *codec_get(enum proto_kind kind)
{
    return &codecs[kind];
}

size_t codec_get_room(uint32_t n, uint32_t key_max)
{
    /* binary: a 24-byte header per key and a NOOP; meta: "mg <key> v k q\r\n", "mn\r\n" */
    return (size_t)n * (key_max + 32) + 32;
}
