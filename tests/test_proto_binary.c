/* Unit tests of the binary protocol: each reply, streams split every way, hooks, garbage, encoders.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <string.h>

#include "proto_stream.h"
#include "slap/base/common.h"
#include "slap/proto/proto_binary.h"

#define MAX_PACKETS 3
#define STREAM_CAP 16384

enum {
    BIN_GET = 0x00,
    BIN_SET = 0x01,
    BIN_GETQ = 0x09,
    BIN_NOOP = 0x0a,
    BIN_GETK = 0x0c,
    BIN_GETKQ = 0x0d,
};

/* ---- response packets, built by hand ---- */

/* One response packet; a hit carries 4 bytes of extras (the flags). */
struct packet {
    uint8_t opcode;
    uint16_t status;
    uint8_t extras_len;
    const char *key;  /* NULL: none */
    const char *body; /* value or message text; NULL: body_len bytes of filler */
    size_t body_len;
};

#define HIT(op, key, value)                                                                        \
    {                                                                                              \
        (op), 0x00, 4, (key), (value), sizeof(value) - 1                                           \
    }
#define STATUS(op, status, key, text)                                                              \
    {                                                                                              \
        (op), (status), 0, (key), (text), sizeof(text) - 1                                         \
    }
#define FILLER(op, status, extras_len, key, n)                                                     \
    {                                                                                              \
        (op), (status), (extras_len), (key), NULL, (n)                                             \
    }
#define NOOP STATUS(BIN_NOOP, 0x00, NULL, "")

static char filler_byte(size_t i)
{
    return (char)('a' + i % 26);
}

static void put_be(unsigned char *out, uint64_t v, size_t n)
{
    for (size_t i = n; i > 0; i--) {
        out[i - 1] = (unsigned char)v;
        v >>= 8;
    }
}

/* Write pk at out (at least 24 + its body bytes); return its length. */
static size_t put_packet(char *out, const struct packet *pk)
{
    size_t key_len = pk->key != NULL ? strlen(pk->key) : 0;
    unsigned char *h = (unsigned char *)out;
    memset(h, 0, PROTO_BINARY_HEADER);
    h[0] = 0x81;
    h[1] = pk->opcode;
    put_be(h + 2, key_len, 2);
    h[4] = pk->extras_len;
    put_be(h + 6, pk->status, 2);
    put_be(h + 8, pk->extras_len + key_len + pk->body_len, 4);
    put_be(h + 12, 0xfeedf00d, 4);         /* opaque: ignored */
    put_be(h + 16, 0x0123456789abcdef, 8); /* cas: ignored */
    char *end = out + PROTO_BINARY_HEADER;
    for (size_t i = 0; i < pk->extras_len; i++) {
        *end++ = (char)(0xa0 + i); /* flags */
    }
    if (key_len > 0) {
        memcpy(end, pk->key, key_len);
        end += key_len;
    }
    for (size_t i = 0; i < pk->body_len; i++) {
        *end++ = pk->body != NULL ? pk->body[i] : filler_byte(i);
    }
    return (size_t)(end - out);
}

/* ---- the driver ---- */

#define MAX_RESPONSES 64

/* Kept static: the parser and the results of a run take a few kilobytes. */
static struct stream_result results[MAX_RESPONSES];
static struct proto_stream drv = {
    .kind = PROTO_BINARY, .responses = results, .room = MAX_RESPONSES};

/* Feed bytes to a fresh parser in chunks of at most chunk bytes, the first one first bytes long. */
static void driver_run(const struct proto_value_hook *hook, const char *bytes, size_t len,
                       size_t first, size_t chunk)
{
    drv.hook = hook;
    assert_null(proto_stream_run(&drv, bytes, len, first, chunk)); /* it says what broke */
}

/* ---- every reply kind: one response made of one or more packets ---- */

struct reply_case {
    struct packet packets[MAX_PACKETS];
    size_t n_packets;
    struct stream_want want;
};

static const struct reply_case reply_cases[] = {
    {{STATUS(BIN_SET, 0x00, NULL, "")}, 1, {PROTO_REPLY_STORED, 0, 0, NULL}},
    {{HIT(BIN_GETK, "alpha", "hello")}, 1, {PROTO_REPLY_VALUES, 1, 5, NULL}},
    {{STATUS(BIN_GETK, 0x01, "nokey", "")}, 1, {PROTO_REPLY_VALUES, 0, 0, NULL}},
    {{HIT(BIN_GETKQ, "k1", "abc"), HIT(BIN_GETKQ, "k2", "defg"), NOOP},
     3,
     {PROTO_REPLY_VALUES, 2, 7, NULL}},
    {{STATUS(BIN_SET, 0x02, NULL, "Data exists for key.")}, 1, {PROTO_REPLY_EXISTS, 0, 0, NULL}},
    {{HIT(BIN_GETK, "empty", "")}, 1, {PROTO_REPLY_VALUES, 1, 0, NULL}},
    {{FILLER(BIN_GETK, 0x00, 4, "big", 3000)}, 1, {PROTO_REPLY_VALUES, 1, 3000, NULL}},
    {{STATUS(BIN_SET, 0x82, NULL, "Out of memory")},
     1,
     {PROTO_REPLY_SERVER_ERROR, 0, 0, "Out of memory"}},
    {{STATUS(BIN_SET, 0x81, NULL, "Unknown command")},
     1,
     {PROTO_REPLY_ERROR, 0, 0, "Unknown command"}},
    {{STATUS(BIN_SET, 0x05, NULL, "Not stored.")}, 1, {PROTO_REPLY_NOT_STORED, 0, 0, NULL}},
    {{STATUS(BIN_SET, 0x01, NULL, "Not found")}, 1, {PROTO_REPLY_NOT_FOUND, 0, 0, NULL}},
    {{STATUS(BIN_SET, 0x04, NULL, "Invalid arguments")},
     1,
     {PROTO_REPLY_CLIENT_ERROR, 0, 0, "Invalid arguments"}},
    {{STATUS(BIN_SET, 0x03, NULL, "Too large.")},
     1,
     {PROTO_REPLY_SERVER_ERROR, 0, 0, "Too large."}},
    {{STATUS(BIN_GETK, 0x04, "kk", "bad key")}, /* the text follows the key */
     1,
     {PROTO_REPLY_CLIENT_ERROR, 0, 0, "bad key"}},
    {{HIT(BIN_GET, NULL, "xyz")}, 1, {PROTO_REPLY_VALUES, 1, 3, NULL}},
    {{STATUS(BIN_GET, 0x01, NULL, "Not found")}, 1, {PROTO_REPLY_VALUES, 0, 0, NULL}},
    {{HIT(BIN_GETQ, NULL, "q"), NOOP}, 2, {PROTO_REPLY_VALUES, 1, 1, NULL}},
    {{STATUS(BIN_GETKQ, 0x01, "gone", ""), HIT(BIN_GETKQ, "k4", "ab"), NOOP}, /* a quiet miss */
     3,
     {PROTO_REPLY_VALUES, 1, 2, NULL}},
    /* an error inside a multi-get ends it; the NOOP that follows is a response of its own */
    {{HIT(BIN_GETKQ, "k3", "abc"), STATUS(BIN_GETKQ, 0x82, NULL, "Out of memory")},
     2,
     {PROTO_REPLY_SERVER_ERROR, 1, 3, "Out of memory"}},
    {{NOOP}, 1, {PROTO_REPLY_VALUES, 0, 0, NULL}},
    /* an error body too long to carry streams past without a message; an empty one has none */
    {{FILLER(BIN_SET, 0x82, 0, NULL, 3000)}, 1, {PROTO_REPLY_SERVER_ERROR, 0, 0, NULL}},
    {{STATUS(BIN_SET, 0x82, NULL, "")}, 1, {PROTO_REPLY_SERVER_ERROR, 0, 0, NULL}},
    {{STATUS(BIN_NOOP, 0x81, NULL, "Unknown command")},
     1,
     {PROTO_REPLY_ERROR, 0, 0, "Unknown command"}},
};

static size_t put_case(char *out, const struct reply_case *c)
{
    size_t len = 0;
    for (size_t i = 0; i < c->n_packets; i++) {
        len += put_packet(out + len, &c->packets[i]);
    }
    return len;
}

static void test_single_replies(void **state)
{
    (void)state;
    static char buf[4096];
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(reply_cases); i++) {
        const struct reply_case *c = &reply_cases[i];
        struct binary_parser p;
        struct proto_result res;
        size_t len = put_case(buf, c), used = 0;
        proto_binary_parser_reset(&p);
        assert_int_equal(proto_binary_parse(&p, buf, len, &used, &res), SLAP_OK);
        assert_int_equal(used, len);
        assert_int_equal(res.reply, c->want.reply);
        assert_int_equal(res.hits, c->want.hits);
        assert_int_equal(res.value_bytes, c->want.value_bytes);
        if (c->want.msg == NULL) {
            assert_null(res.msg);
            assert_int_equal(res.msg_len, 0);
        } else { /* the end of the last packet, in place */
            assert_int_equal(res.msg_len, strlen(c->want.msg));
            assert_ptr_equal(res.msg, buf + len - res.msg_len);
            assert_memory_equal(res.msg, c->want.msg, res.msg_len);
        }
        assert_int_equal(p.resp.hits, 0); /* per-response state reset */
        assert_int_equal(p.resp.value_bytes, 0);
        assert_int_equal(p.body_left, 0);
        assert_int_equal(p.header_have, 0);
    }
}

/* Replies written byte by byte, so the builder above cannot share a mistake with the parser. */
static void test_replies_by_hand(void **state)
{
    (void)state;
    static const unsigned char stored[] = {
        0x81, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34,
    };
    static const unsigned char hit_then_exists[] = {
        0x81, 0x0c, 0x00, 0x03, 0x04, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x01, 0x0a, /* body 266 */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x01, /* */
        0x00, 0x00, 0x00, 0x2a, 'f',  'o',  'o',  [PROTO_BINARY_HEADER + 7 + 259] = 0x81,
        0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00,
        0x00, 0x00, 0x02, /* EXISTS, body 2 */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 'n',  'o',
    };
    struct binary_parser p;
    struct proto_result res;
    size_t used = 0;
    proto_binary_parser_reset(&p);
    assert_int_equal(proto_binary_parse(&p, (const char *)stored, sizeof(stored), &used, &res),
                     SLAP_OK);
    assert_int_equal(used, sizeof(stored));
    assert_int_equal(res.reply, PROTO_REPLY_STORED);

    const char *hit = (const char *)hit_then_exists;
    size_t hit_len = PROTO_BINARY_HEADER + 266;
    assert_int_equal(proto_binary_parse(&p, hit, sizeof(hit_then_exists), &used, &res), SLAP_OK);
    assert_int_equal(used, hit_len);
    assert_int_equal(res.reply, PROTO_REPLY_VALUES);
    assert_int_equal(res.hits, 1);
    assert_int_equal(res.value_bytes, 259);
    assert_int_equal(
        proto_binary_parse(&p, hit + used, sizeof(hit_then_exists) - used, &used, &res), SLAP_OK);
    assert_int_equal(used, PROTO_BINARY_HEADER + 2);
    assert_int_equal(res.reply, PROTO_REPLY_EXISTS);
}

/* Header, extras, key and data are consumed as they come; an error's short body waits whole. */
static void test_partial_input(void **state)
{
    (void)state;
    static const struct packet hit = HIT(BIN_GETK, "key", "value");
    static const struct packet oom = STATUS(BIN_SET, 0x82, NULL, "Out of memory");
    char buf[256];
    struct binary_parser p;
    struct proto_result res;
    size_t used = 99;
    size_t len = put_packet(buf, &hit);
    proto_binary_parser_reset(&p);
    assert_int_equal(proto_binary_parse(&p, buf, 10, &used, &res), SLAP_AGAIN);
    assert_int_equal(used, 10);
    assert_int_equal(proto_binary_parse(&p, "", 0, &used, &res), SLAP_AGAIN);
    assert_int_equal(used, 0);
    assert_int_equal(proto_binary_parse(&p, buf + 10, 14 + 4 + 2, &used, &res), SLAP_AGAIN);
    assert_int_equal(used, 20);
    assert_int_equal(p.key_have, 2);
    assert_int_equal(proto_binary_parse(&p, buf + 30, 3, &used, &res), SLAP_AGAIN);
    assert_int_equal(used, 3);
    assert_int_equal(p.body_left, 3);
    assert_int_equal(proto_binary_parse(&p, buf + 33, len - 33, &used, &res), SLAP_OK);
    assert_int_equal(used, len - 33);
    assert_int_equal(res.hits, 1);
    assert_int_equal(res.value_bytes, 5);

    len = put_packet(buf, &oom);
    len += put_packet(buf + len, &oom);
    assert_int_equal(proto_binary_parse(&p, buf, PROTO_BINARY_HEADER + 5, &used, &res), SLAP_AGAIN);
    assert_int_equal(used, PROTO_BINARY_HEADER); /* the body is left for the caller to keep */
    const char *body = buf + PROTO_BINARY_HEADER;
    assert_int_equal(proto_binary_parse(&p, body, len - PROTO_BINARY_HEADER, &used, &res), SLAP_OK);
    assert_int_equal(used, 13);
    assert_int_equal(res.reply, PROTO_REPLY_SERVER_ERROR);
    assert_ptr_equal(res.msg, body);
    assert_int_equal(res.msg_len, 13);
}

/* A value of 1 MiB + 1: its length needs all four bytes of the body length; it streams past. */
static void test_large_value(void **state)
{
    (void)state;
    static const unsigned char header[] = {
        0x81, 0x0c, 0x00, 0x01, 0x04, 0x00,
        0x00, 0x00, 0x00, 0x10, 0x00, 0x06, /* body 4+1+2^20+1 */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* */
        0x00, 0x00, 0x00, 0x00, 'k',
    };
    static char data[65536];
    const uint64_t value_len = (1u << 20) + 1;
    struct binary_parser p;
    struct proto_result res;
    size_t used;
    proto_binary_parser_reset(&p);
    assert_int_equal(proto_binary_parse(&p, (const char *)header, sizeof(header), &used, &res),
                     SLAP_AGAIN);
    assert_int_equal(used, sizeof(header));
    assert_int_equal(p.body_left, value_len);
    for (uint64_t left = value_len; left > 1; left -= sizeof(data)) {
        size_t n = left - 1 < sizeof(data) ? (size_t)(left - 1) : sizeof(data);
        assert_int_equal(proto_binary_parse(&p, data, n, &used, &res), SLAP_AGAIN);
        assert_int_equal(used, n);
    }
    assert_int_equal(proto_binary_parse(&p, data, sizeof(data), &used, &res), SLAP_OK);
    assert_int_equal(used, 1);
    assert_int_equal(res.hits, 1);
    assert_int_equal(res.value_bytes, value_len);
}

/* Response packets pks[0..n) at out, the opaque of packet i opaques[i]; their length. */
static size_t put_answer(char *out, const struct packet *pks, const uint32_t *opaques, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        size_t at = len;
        len += put_packet(out + at, &pks[i]);
        put_be((unsigned char *)out + at + 12, opaques[i], 4);
    }
    return len;
}

/* The request known, every packet must answer one of its packets still due: its opaque, its
 * opcode, a hit its key; a value over 1 GiB is refused before its body. */
static void test_answers_the_request(void **state)
{
    (void)state;
    static const char keys[] = "a\0b\0c";
    static const uint32_t lens[] = {1, 1, 1};
    char multi[256], single[64], set[64], reply[512];
    size_t multi_len = proto_binary_encode_multiget(multi, sizeof(multi), keys, 2, lens, 3);
    size_t single_len = proto_binary_encode_get(single, sizeof(single), "k", 1);
    size_t set_len = proto_binary_encode_set_header(set, sizeof(set), "k", 1, 0, 0, 3);
    const struct packet hit_a = HIT(BIN_GETKQ, "a", "x"), hit_c = HIT(BIN_GETKQ, "c", "y");
    const struct packet hit_z = HIT(BIN_GETKQ, "z", "x"), noop = NOOP;
    const struct packet hit_k = HIT(BIN_GETK, "k", "x"), hit_other = HIT(BIN_GETK, "no", "x");
    const struct packet stored = STATUS(BIN_SET, 0, NULL, "");
    const struct packet big = FILLER(BIN_GETK, 0, 4, "k", (size_t)(1ULL << 30) + 1);
    struct {
        const char *req;
        size_t req_len;
        struct packet pks[3];
        uint32_t opaques[3];
        size_t n;
        enum proto_fault fault; /* PROTO_FAULT_GARBAGE: accepted */
    } cases[] = {
        {multi, multi_len, {hit_a, hit_c, noop}, {0, 2, 3}, 3, PROTO_FAULT_GARBAGE},
        {multi, multi_len, {noop}, {3}, 1, PROTO_FAULT_GARBAGE},
        {multi, multi_len, {hit_z, noop}, {0, 3}, 2, PROTO_FAULT_KEY},              /* not asked */
        {multi, multi_len, {hit_c, hit_a, noop}, {2, 0, 3}, 3, PROTO_FAULT_OPAQUE}, /* order */
        {multi, multi_len, {hit_a, hit_a, noop}, {0, 0, 3}, 3, PROTO_FAULT_OPAQUE}, /* twice */
        {multi, multi_len, {hit_a, noop}, {0, 7}, 2, PROTO_FAULT_OPAQUE},
        {single, single_len, {hit_k}, {0}, 1, PROTO_FAULT_GARBAGE},
        {single, single_len, {hit_k}, {0xdeadbeef}, 1, PROTO_FAULT_OPAQUE},
        {single, single_len, {hit_other}, {0}, 1, PROTO_FAULT_KEY},
        {single, single_len, {stored}, {0}, 1, PROTO_FAULT_REPLY},
        {set, set_len, {stored}, {0}, 1, PROTO_FAULT_GARBAGE},
        {set, set_len, {hit_a, noop}, {0, 3}, 2, PROTO_FAULT_REPLY}, /* no longer waits */
    };
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(cases); i++) {
        size_t len = put_answer(reply, cases[i].pks, cases[i].opaques, cases[i].n);
        if (cases[i].fault != PROTO_FAULT_GARBAGE) {
            if (!proto_stream_refuses(&drv, cases[i].req, cases[i].req_len, reply, len,
                                      cases[i].fault, "binary answer")) {
                fail_msg("case %zu was not refused as it should be", i);
            }
            continue;
        }
        const struct stream_request asked = {cases[i].req, cases[i].req_len};
        drv.asked = &asked;
        drv.n_asked = 1;
        driver_run(NULL, reply, len, 1, 1);
        drv.asked = NULL;
        drv.n_asked = 0;
        if (drv.n_responses != 1 || drv.end.status != SLAP_AGAIN || drv.consumed != len) {
            fail_msg("case %zu should be one whole response", i);
        }
    }
    /* a body over the limit: refused from its header, request known or not */
    char header[PROTO_BINARY_HEADER + 5];
    struct binary_parser p;
    struct proto_result res;
    size_t used;
    unsigned char *h = (unsigned char *)header;
    memset(h, 0, sizeof(header));
    h[0] = 0x81;
    h[1] = big.opcode;
    put_be(h + 2, 1, 2);
    h[4] = big.extras_len;
    put_be(h + 8, 4 + 1 + big.body_len, 4);
    proto_binary_parser_reset(&p);
    assert_int_equal(proto_binary_parse(&p, header, PROTO_BINARY_HEADER, &used, &res), SLAP_ERROR);
    assert_int_equal(res.fault, PROTO_FAULT_TOO_LARGE);
    assert_int_equal(res.got_number, (1ULL << 30) + 1);
}

/* With the request known, an error on a quiet get keeps the multi-get open until its NOOP. */
static void test_quiet_error_until_noop(void **state)
{
    (void)state;
    static const char keys[] = "a\0b";
    static const uint32_t lens[] = {1, 1};
    char multi[128], reply[256];
    size_t multi_len = proto_binary_encode_multiget(multi, sizeof(multi), keys, 2, lens, 2);
    const struct packet pks[] = {STATUS(BIN_GETKQ, 0x82, NULL, "out of memory"),
                                 HIT(BIN_GETKQ, "b", "x"), NOOP};
    static const uint32_t opaques[] = {0, 1, 2};
    size_t len = put_answer(reply, pks, opaques, 3);
    const struct stream_request asked = {multi, multi_len};
    struct stream_want want = {PROTO_REPLY_SERVER_ERROR, 1, 1, NULL};
    drv.asked = &asked;
    drv.n_asked = 1;
    driver_run(NULL, reply, len, 5, 5);
    drv.asked = NULL;
    drv.n_asked = 0;
    assert_true(proto_stream_expect(&drv, &want, 1, "quiet error", 0));
}

/* A bad magic or opcode is rejected as soon as its byte arrives. */
static void test_early_rejection(void **state)
{
    (void)state;
    struct binary_parser p;
    struct proto_result res;
    size_t used;
    proto_binary_parser_reset(&p);
    assert_int_equal(proto_binary_parse(&p, "\x80", 1, &used, &res), SLAP_ERROR);
    proto_binary_parser_reset(&p);
    assert_int_equal(proto_binary_parse(&p, "\x81", 1, &used, &res), SLAP_AGAIN);
    assert_int_equal(proto_binary_parse(&p, "\x07", 1, &used, &res), SLAP_ERROR); /* QUIT */
}

/* ---- value hook ---- */

struct hook_log {
    int begins;        /* hits whose key was complete */
    int equal;         /* checked values that matched */
    int differ;        /* checked values that did not */
    uint64_t diffs[8]; /* first differing byte of each that did not */
    uint64_t bytes;    /* sum of the sizes begin was given */
    char keys[1024];   /* every key begun, each followed by ',' */
    size_t keys_len;
};

/* Keys "good", "long" and "short" expect "hello"; "k250..." expects "x"; others are not checked. */
static const char *hook_begin(void *ctx, const char *key, size_t key_len, uint64_t bytes,
                              uint64_t *expect_len)
{
    struct hook_log *log = ctx;
    log->begins++;
    log->bytes += bytes;
    assert_true(log->keys_len + key_len + 1 <= sizeof(log->keys));
    memcpy(log->keys + log->keys_len, key, key_len);
    log->keys_len += key_len;
    log->keys[log->keys_len++] = ',';
    if ((key_len == 4 && (memcmp(key, "good", 4) == 0 || memcmp(key, "long", 4) == 0)) ||
        (key_len == 5 && memcmp(key, "short", 5) == 0)) {
        *expect_len = 5;
        return "hello";
    }
    if (key_len == PROTO_BINARY_MAX_KEY) {
        *expect_len = 1;
        return "x";
    }
    return NULL;
}

static void hook_end(void *ctx, int equal, uint64_t first_diff)
{
    struct hook_log *log = ctx;
    if (equal) {
        log->equal++;
        return;
    }
    assert_true(log->differ < (int)SLAP_ARRAY_SIZE(log->diffs));
    log->diffs[log->differ++] = first_diff;
}

static const struct packet hooked_packets[] = {
    HIT(BIN_GETKQ, "good", "hello"), HIT(BIN_GETKQ, "skip", "abc"),
    HIT(BIN_GETKQ, "good", "helLo"), HIT(BIN_GETKQ, "long", "hello!"),
    HIT(BIN_GETKQ, "short", "hell"), NOOP,
    HIT(BIN_GETK, "good", "hello"),  HIT(BIN_GETK, "good", "Hello"),
};

static const struct stream_want hooked_want[] = {
    {PROTO_REPLY_VALUES, 5, 23, NULL},
    {PROTO_REPLY_VALUES, 1, 5, NULL},
    {PROTO_REPLY_VALUES, 1, 5, NULL},
};

static size_t put_hooked(char *out)
{
    size_t len = 0;
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(hooked_packets); i++) {
        len += put_packet(out + len, &hooked_packets[i]);
    }
    return len;
}

static void assert_hooked(const struct hook_log *log, const char *how, size_t where)
{
    assert_true(proto_stream_expect(&drv, hooked_want, SLAP_ARRAY_SIZE(hooked_want), how, where));
    static const char keys[] = "good,skip,good,long,short,good,good,";
    static const uint64_t diffs[] = {3, 5, 4, 0}; /* helLo, one byte long, one short, Hello */
    if (log->begins != 7 || log->equal != 2 || log->differ != 4 || log->bytes != 33 ||
        log->keys_len != sizeof(keys) - 1 || memcmp(log->keys, keys, log->keys_len) != 0 ||
        memcmp(log->diffs, diffs, sizeof(diffs)) != 0) {
        fail_msg("%s %zu: begins %d equal %d differ %d bytes %llu keys '%.*s'", how, where,
                 log->begins, log->equal, log->differ, (unsigned long long)log->bytes,
                 (int)log->keys_len, log->keys);
    }
}

static void test_value_hook_every_split(void **state)
{
    (void)state;
    static char bytes[1024];
    size_t len = put_hooked(bytes);
    for (size_t split = 0; split <= len; split++) {
        struct hook_log log = {0};
        struct proto_value_hook hook = {hook_begin, hook_end, &log};
        driver_run(&hook, bytes, len, split, len);
        assert_hooked(&log, "hook split at", split);
    }
    struct hook_log log = {0};
    struct proto_value_hook hook = {hook_begin, hook_end, &log};
    driver_run(&hook, bytes, len, 1, 1);
    assert_hooked(&log, "hook byte at a time", 1);
}

static void test_value_hook_first_diff(void **state)
{
    (void)state;
    static const struct packet wrong = HIT(BIN_GETK, "good", "Jello");
    char buf[64];
    struct hook_log log = {0};
    struct proto_value_hook hook = {hook_begin, hook_end, &log};
    struct binary_parser p;
    struct proto_result res;
    size_t used, len = put_packet(buf, &wrong);
    proto_binary_parser_reset(&p);
    p.resp.hook = &hook;
    assert_int_equal(proto_binary_parse(&p, buf, len, &used, &res), SLAP_OK);
    assert_int_equal(log.differ, 1);
    assert_int_equal(log.diffs[0], 0);
    /* a reset drops the hook: nothing is checked any more */
    proto_binary_parser_reset(&p);
    assert_int_equal(proto_binary_parse(&p, buf, len, &used, &res), SLAP_OK);
    assert_int_equal(log.begins, 1);
}

/* A key of PROTO_BINARY_MAX_KEY bytes reaches the hook whole; one byte more is garbage. */
static void test_key_limit(void **state)
{
    (void)state;
    static char key[PROTO_BINARY_MAX_KEY + 2];
    static char bytes[1024];
    memset(key, 'k', PROTO_BINARY_MAX_KEY);
    key[PROTO_BINARY_MAX_KEY] = '\0';
    struct packet hit = {BIN_GETK, 0x00, 4, key, "x", 1};
    size_t len = put_packet(bytes, &hit);
    for (size_t split = 0; split <= len; split++) {
        struct hook_log log = {0};
        struct proto_value_hook hook = {hook_begin, hook_end, &log};
        driver_run(&hook, bytes, len, split, len);
        assert_int_equal(drv.n_responses, 1);
        assert_int_equal(drv.responses[0].hits, 1);
        assert_int_equal(log.keys_len, PROTO_BINARY_MAX_KEY + 1);
        assert_memory_equal(log.keys, key, PROTO_BINARY_MAX_KEY);
        assert_int_equal(log.equal, 1);
    }
    key[PROTO_BINARY_MAX_KEY] = 'k';
    key[PROTO_BINARY_MAX_KEY + 1] = '\0';
    len = put_packet(bytes, &hit);
    driver_run(NULL, bytes, len, len, len);
    assert_int_equal(drv.end.status, SLAP_ERROR);
}

/* ---- a stream of many responses, split every way ---- */

static char stream[STREAM_CAP];
static size_t stream_len;
static struct stream_want stream_want[SLAP_ARRAY_SIZE(reply_cases)];

static void build_stream(void)
{
    stream_len = 0;
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(reply_cases); i++) {
        stream_len += put_case(stream + stream_len, &reply_cases[i]);
        stream_want[i] = reply_cases[i].want;
        assert_true(stream_len < STREAM_CAP - 4096);
    }
}

static void assert_stream_done(const char *how, size_t where)
{
    assert_true(proto_stream_expect(&drv, stream_want, SLAP_ARRAY_SIZE(stream_want), how, where));
    if (drv.parser.binary.resp.hits != 0 || drv.parser.binary.header_have != 0) {
        fail_msg("%s %zu: the parser is not back at the start", how, where);
    }
}

static void test_stream_all_at_once(void **state)
{
    (void)state;
    build_stream();
    driver_run(NULL, stream, stream_len, stream_len, 1);
    assert_stream_done("all at once", 0);
}

static void test_stream_split_everywhere(void **state)
{
    (void)state;
    build_stream();
    for (size_t split = 0; split <= stream_len; split++) {
        driver_run(NULL, stream, stream_len, split, stream_len);
        assert_stream_done("split at", split);
    }
}

static void test_stream_byte_at_a_time(void **state)
{
    (void)state;
    build_stream();
    driver_run(NULL, stream, stream_len, 1, 1);
    assert_stream_done("byte at a time", 1);
}

/* ---- garbage ---- */

struct garbage_case {
    const char *name;
    unsigned char header[PROTO_BINARY_HEADER];
};

static const struct garbage_case garbage[] = {
    {"request magic", {0x80, 0x01}},
    {"zero magic", {0x00, 0x01}},
    {"ASCII", {'S', 'T', 'O', 'R', 'E', 'D', '\r', '\n'}},
    {"GETK hit with extras 8", {0x81, 0x0c, 0x00, 0x01, 0x08, 0, 0, 0, 0, 0, 0, 0x0a}},
    {"GET hit without extras", {0x81, 0x00, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0x03}},
    {"GETK miss, body shorter than key", {0x81, 0x0c, 0x00, 0x05, 0x00, 0, 0x00, 0x01, 0, 0, 0, 4}},
    {"GETK hit, body shorter than key+extras", {0x81, 0x0c, 0x00, 0x05, 0x04, 0, 0, 0, 0, 0, 0, 8}},
    {"SET, body shorter than extras", {0x81, 0x01, 0x00, 0x00, 0x08, 0, 0, 0, 0, 0, 0, 0x07}},
    {"key of 251 bytes", {0x81, 0x0c, 0x00, 0xfb, 0x04, 0, 0, 0, 0, 0, 0x01, 0x03}},
    {"key of 65535 bytes", {0x81, 0x0c, 0xff, 0xff, 0x00, 0, 0, 0x01, 0xff, 0xff, 0xff, 0xff}},
    {"unknown opcode QUIT", {0x81, 0x07}},
    {"unknown opcode STAT", {0x81, 0x10}},
    {"unknown opcode 0xff with unknown command", {0x81, 0xff, 0, 0, 0, 0, 0x00, 0x81}},
};

/* The last result must be SLAP_ERROR, whether the bytes arrive at once or one by one. */
static void assert_garbage(const char *bytes, size_t len, const char *name)
{
    drv.hook = NULL;
    assert_true(proto_stream_rejects(&drv, bytes, len, name));
}

static void test_garbage(void **state)
{
    (void)state;
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(garbage); i++) {
        assert_garbage((const char *)garbage[i].header, PROTO_BINARY_HEADER, garbage[i].name);
    }
}

/* Inside a multi-get only quiet gets and NOOP may come; after a good response, garbage. */
static void test_garbage_after_packets(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        struct packet first, second;
    } cases[] = {
        {"GETK inside a multi-get", HIT(BIN_GETKQ, "a", "1"), HIT(BIN_GETK, "b", "2")},
        {"GETK miss inside a multi-get", HIT(BIN_GETKQ, "a", "1"), STATUS(BIN_GETK, 1, "b", "")},
        {"SET inside a multi-get", HIT(BIN_GETKQ, "a", "1"), STATUS(BIN_SET, 0, NULL, "")},
        {"SET error inside a multi-get", HIT(BIN_GETQ, NULL, "1"),
         STATUS(BIN_SET, 0x82, NULL, "x")},
    };
    char bytes[256];
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(cases); i++) {
        size_t len = put_packet(bytes, &cases[i].first);
        len += put_packet(bytes + len, &cases[i].second);
        assert_garbage(bytes, len, cases[i].name);
    }
    static const struct packet stored = STATUS(BIN_SET, 0, NULL, "");
    size_t len = put_packet(bytes, &stored);
    memcpy(bytes + len, garbage[0].header, PROTO_BINARY_HEADER);
    assert_garbage(bytes, len + PROTO_BINARY_HEADER, "STORED then a request");
    driver_run(NULL, bytes, len + PROTO_BINARY_HEADER, len + 1, 1);
    assert_int_equal(drv.n_responses, 1); /* then the request's header is garbage */
    assert_int_equal(drv.end.status, SLAP_ERROR);
    assert_int_equal(drv.responses[0].reply, PROTO_REPLY_STORED);
}

/* ---- encoders ---- */

/* Encode into exactly cap bytes of a guarded buffer; nothing past cap may change. */
static size_t encode_guarded(char *buf, size_t buf_size, size_t cap, int set)
{
    memset(buf, '#', buf_size);
    size_t n =
        set ? proto_binary_encode_set_header(buf, cap, "user:42", 7, 0xdeadbeef, 3600, 123456789)
            : proto_binary_encode_get(buf, cap, "user:42", 7);
    for (size_t i = cap; i < buf_size; i++) {
        assert_int_equal(buf[i], '#');
    }
    return n;
}

static void test_encode_get(void **state)
{
    (void)state;
    static const unsigned char want[] = {
        0x80, 0x0c, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, /* GETK, key 7 */
        0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, /* body 7, opaque */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* cas */
        'u',  's',  'e',  'r',  ':',  '4',  '2',
    };
    char buf[64];
    assert_int_equal(encode_guarded(buf, sizeof(buf), sizeof(want), 0), sizeof(want));
    assert_memory_equal(buf, want, sizeof(want));
    assert_int_equal(encode_guarded(buf, sizeof(buf), sizeof(want) - 1, 0), 0);
    assert_int_equal(encode_guarded(buf, sizeof(buf), 0, 0), 0);
}

static void test_encode_set_header(void **state)
{
    (void)state;
    static const unsigned char want[] = {
        0x80, 0x01, 0x00, 0x07, 0x08, 0x00, 0x00, 0x00, /* SET, key 7, extras 8 */
        0x07, 0x5b, 0xcd, 0x24, 0x00, 0x00, 0x00, 0x00, /* body 8 + 7 + 123456789, opaque */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* cas */
        0xde, 0xad, 0xbe, 0xef, 0x00, 0x00, 0x0e, 0x10, /* flags, exptime 3600 */
        'u',  's',  'e',  'r',  ':',  '4',  '2',
    };
    char buf[64];
    assert_int_equal(encode_guarded(buf, sizeof(buf), sizeof(want), 1), sizeof(want));
    assert_memory_equal(buf, want, sizeof(want));
    assert_int_equal(encode_guarded(buf, sizeof(buf), sizeof(want) - 1, 1), 0);

    /* the largest value whose body length still fits 32 bits, and one byte more */
    size_t max_value = (size_t)UINT32_MAX - 8 - 1;
    assert_int_equal(proto_binary_encode_set_header(buf, sizeof(buf), "k", 1, 0, 0, max_value), 33);
    assert_memory_equal(buf + 8, "\xff\xff\xff\xff", 4);
    assert_int_equal(proto_binary_encode_set_header(buf, sizeof(buf), "k", 1, 0, 0, max_value + 1),
                     0);
}

static void test_encode_multiget(void **state)
{
    (void)state;
    static const char keys[] = "k1\0\0k22\0k333";
    static const uint32_t lens[] = {2, 3, 4};
    static const unsigned char want[] = {
        0x80, 0x0d, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        'k',  '1', /* GETKQ k1, opaque 0 */
        0x80, 0x0d, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 0x03, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
        'k',  '2',  '2', /* GETKQ k22, opaque 1 */
        0x80, 0x0d, 0x00, 0x04, 0, 0, 0, 0, 0, 0, 0, 0x04, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0,
        'k',  '3',  '3',  '3', /* GETKQ k333, opaque 2 */
        0x80, 0x0a, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0x00, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0,
    }; /* NOOP, opaque 3 */
    char out[128];
    memset(out, '#', sizeof(out));
    size_t n = proto_binary_encode_multiget(out, sizeof(out), keys, 4, lens, 3);
    assert_int_equal(n, sizeof(want));
    assert_memory_equal(out, want, sizeof(want));
    assert_int_equal(out[n], '#');
    assert_int_equal(proto_binary_encode_multiget(out, n - 1, keys, 4, lens, 3), 0);
    assert_int_equal(proto_binary_encode_multiget(out, n, keys, 4, lens, 3), n);
    assert_int_equal(proto_binary_encode_multiget(out, sizeof(out), keys, 4, lens, 0), 0);
}

/* A key longer than the buffer must not wrap the size arithmetic; nor one past 16 bits. */
static void test_encode_huge_key(void **state)
{
    (void)state;
    static char big[UINT16_MAX + 64];
    static char big_key[UINT16_MAX + 1];
    static const uint32_t too_long[] = {UINT16_MAX + 1};
    char buf[16];
    assert_int_equal(proto_binary_encode_get(buf, sizeof(buf), "k", SIZE_MAX - 2), 0);
    assert_int_equal(proto_binary_encode_set_header(buf, sizeof(buf), "k", SIZE_MAX - 2, 0, 0, 0),
                     0);
    assert_int_equal(proto_binary_encode_get(big, sizeof(big), big_key, UINT16_MAX + 1), 0);
    assert_int_equal(
        proto_binary_encode_set_header(big, sizeof(big), big_key, UINT16_MAX + 1, 0, 0, 0), 0);
    assert_int_equal(proto_binary_encode_multiget(big, sizeof(big), big_key, 0, too_long, 1), 0);
    assert_int_equal(proto_binary_encode_get(big, sizeof(big), big_key, UINT16_MAX),
                     PROTO_BINARY_HEADER + UINT16_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_replies),
        cmocka_unit_test(test_replies_by_hand),
        cmocka_unit_test(test_partial_input),
        cmocka_unit_test(test_large_value),
        cmocka_unit_test(test_answers_the_request),
        cmocka_unit_test(test_quiet_error_until_noop),
        cmocka_unit_test(test_early_rejection),
        cmocka_unit_test(test_value_hook_every_split),
        cmocka_unit_test(test_value_hook_first_diff),
        cmocka_unit_test(test_key_limit),
        cmocka_unit_test(test_stream_all_at_once),
        cmocka_unit_test(test_stream_split_everywhere),
        cmocka_unit_test(test_stream_byte_at_a_time),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_garbage_after_packets),
        cmocka_unit_test(test_encode_get),
        cmocka_unit_test(test_encode_set_header),
        cmocka_unit_test(test_encode_multiget),
        cmocka_unit_test(test_encode_huge_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
