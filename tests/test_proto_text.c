/* Unit tests of what the ASCII and meta parsers share: the error lines, ERROR's place, reset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <string.h>

#include "proto_stream.h"
#include "slap/base/common.h"
#include "slap/proto/proto.h"
#include "slap/proto/proto_text.h"

#define MAX_RESPONSES 16
#define STREAM_CAP 256

/* Each text protocol, with a get's answer of one value "a" and its end line. */
static const struct {
    enum proto_kind kind;
    const char *one_value; /* a value block */
    const char *end;       /* the line that ends a get */
} protocols[] = {
    {PROTO_ASCII, "VALUE k 0 1\r\na\r\n", "END\r\n"},
    {PROTO_META, "VA 1 kk\r\na\r\n", "MN\r\n"},
};

static struct stream_result results[MAX_RESPONSES];

/* The lines both protocols share, alone and after a value block. */
static const struct stream_want shared_want[] = {
    {PROTO_REPLY_ERROR, 0, 0, NULL},
    {PROTO_REPLY_ERROR, 0, 0, "Too many open connections"},
    {PROTO_REPLY_CLIENT_ERROR, 0, 0, NULL},
    {PROTO_REPLY_SERVER_ERROR, 0, 0, "out of memory"},
    {PROTO_REPLY_CLIENT_ERROR, 0, 0, "bad data chunk"},
    {PROTO_REPLY_SERVER_ERROR, 1, 1, "object too large for cache"},
    {PROTO_REPLY_CLIENT_ERROR, 1, 1, NULL},
    {PROTO_REPLY_VALUES, 1, 1, NULL},
};

/* Write the shared lines' stream for protocol i into out; return its length. */
static size_t put_shared_stream(char *out, size_t i)
{
    const char *parts[] = {"ERROR\r\n",
                           "ERROR Too many open connections\r\n",
                           "CLIENT_ERROR\r\n",
                           "SERVER_ERROR out of memory\r\n",
                           "CLIENT_ERROR bad data chunk\r\n",
                           protocols[i].one_value,
                           "SERVER_ERROR object too large for cache\r\n",
                           protocols[i].one_value,
                           "CLIENT_ERROR\r\n",
                           protocols[i].one_value,
                           protocols[i].end};
    size_t len = 0;
    for (size_t p = 0; p < SLAP_ARRAY_SIZE(parts); p++) {
        assert_true(len + strlen(parts[p]) <= STREAM_CAP);
        memcpy(out + len, parts[p], strlen(parts[p]));
        len += strlen(parts[p]);
    }
    return len;
}

/* Both protocols read ERROR, CLIENT_ERROR and SERVER_ERROR alike, however the bytes come. */
static void test_shared_lines(void **state)
{
    (void)state;
    static char bytes[STREAM_CAP];
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(protocols); i++) {
        struct proto_stream s = {
            .kind = protocols[i].kind, .responses = results, .room = MAX_RESPONSES};
        size_t len = put_shared_stream(bytes, i);
        for (size_t split = 0; split <= len; split++) {
            assert_null(proto_stream_run(&s, bytes, len, split, len));
            assert_true(proto_stream_expect(&s, shared_want, SLAP_ARRAY_SIZE(shared_want),
                                            codec_get(protocols[i].kind)->name, split));
        }
    }
}

/* ERROR stands alone; the error lines must be the whole word or the word, a space, a message. */
static void test_shared_garbage(void **state)
{
    (void)state;
    static const char *const lines[] = {"ERRORS\r\n", "ERROR \r\n", "CLIENT_ERRORx\r\n",
                                        "SERVER_ERROR_\r\n", "SERVER_ERRO\r\n"};
    char bytes[STREAM_CAP];
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(protocols); i++) {
        struct proto_stream s = {
            .kind = protocols[i].kind, .responses = results, .room = MAX_RESPONSES};
        size_t len = strlen(protocols[i].one_value);
        memcpy(bytes, protocols[i].one_value, len);
        memcpy(bytes + len, "ERROR\r\n", 7);
        assert_true(proto_stream_rejects(&s, bytes, len + 7, "ERROR after a value"));
        for (size_t l = 0; l < SLAP_ARRAY_SIZE(lines); l++) {
            assert_true(proto_stream_rejects(&s, lines[l], strlen(lines[l]), lines[l]));
        }
    }
}

/* A hook that checks nothing. */
static const char *check_nothing(void *ctx, const char *key, size_t key_len, uint64_t bytes,
                                 uint64_t *expect_len)
{
    (void)ctx, (void)key, (void)key_len, (void)bytes, (void)expect_len;
    return NULL;
}

/* A reset forgets a value half read, the response's tally and the hook. */
static void test_reset(void **state)
{
    (void)state;
    static const struct proto_value_hook hook = {check_nothing, NULL, NULL};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(protocols); i++) {
        const struct codec *c = codec_get(protocols[i].kind);
        const char *value = protocols[i].one_value;
        union proto_parser p;
        struct proto_result res;
        size_t used;
        c->reset(&p, &hook);
        assert_ptr_equal(p.text.resp.hook, &hook);
        assert_int_equal(c->parse(&p, value, strlen(value) - 2, &used, &res), SLAP_AGAIN);
        assert_int_equal(p.text.resp.hits, 1);
        assert_int_equal(p.text.data_left, 2);
        proto_text_parser_reset(&p.text);
        assert_null(p.text.resp.hook);
        assert_int_equal(p.text.resp.hits, 0);
        assert_int_equal(p.text.resp.value_bytes, 0);
        assert_int_equal(p.text.data_left, 0);
        assert_int_equal(c->parse(&p, "\r\n", 2, &used, &res), SLAP_ERROR); /* no data expected */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_lines),
        cmocka_unit_test(test_shared_garbage),
        cmocka_unit_test(test_reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
