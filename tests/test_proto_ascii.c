/* Unit tests of the ASCII protocol: each reply, streams split every way, garbage, encoders. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <stdio.h>
#include <string.h>

#include "proto_stream.h"
#include "slap/base/common.h"
#include "slap/proto/proto_ascii.h"

#define MAX_RESPONSES 64

/* Kept static: the parser and the results of a run take a few kilobytes. */
static struct stream_result results[MAX_RESPONSES];
static struct proto_stream drv = {.kind = PROTO_ASCII, .responses = results, .room = MAX_RESPONSES};

/* Feed bytes to a fresh parser in chunks of at most chunk bytes, the first one first bytes long. */
static void driver_run(const struct proto_value_hook *hook, const char *bytes, size_t len,
                       size_t first, size_t chunk)
{
    drv.hook = hook;
    assert_null(proto_stream_run(&drv, bytes, len, first, chunk)); /* it says what broke */
}

/* ---- single replies ---- */

struct single_case {
    const char *input;
    enum proto_reply reply;
    uint32_t hits;
    uint64_t value_bytes;
    const char *msg; /* NULL: res.msg must be NULL */
};

static const struct single_case single_cases[] = {
    {"STORED\r\n", PROTO_REPLY_STORED, 0, 0, NULL},
    {"NOT_STORED\r\n", PROTO_REPLY_NOT_STORED, 0, 0, NULL},
    {"EXISTS\r\n", PROTO_REPLY_EXISTS, 0, 0, NULL},
    {"NOT_FOUND\r\n", PROTO_REPLY_NOT_FOUND, 0, 0, NULL},
    {"ERROR\r\n", PROTO_REPLY_ERROR, 0, 0, NULL},
    {"CLIENT_ERROR bad data chunk\r\n", PROTO_REPLY_CLIENT_ERROR, 0, 0, "bad data chunk"},
    {"SERVER_ERROR out of memory\r\n", PROTO_REPLY_SERVER_ERROR, 0, 0, "out of memory"},
    {"SERVER_ERROR\r\n", PROTO_REPLY_SERVER_ERROR, 0, 0, NULL},
    {"END\r\n", PROTO_REPLY_VALUES, 0, 0, NULL},
    {"VALUE foo 0 3\r\nbar\r\nEND\r\n", PROTO_REPLY_VALUES, 1, 3, NULL},
    {"VALUE foo 4294967295 3 18446744073709551615\r\nbar\r\nEND\r\n", PROTO_REPLY_VALUES, 1, 3,
     NULL},
    {"VALUE a 1 2\r\nxy\r\nVALUE b 2 0\r\n\r\nEND\r\n", PROTO_REPLY_VALUES, 2, 2, NULL},
    {"VALUE a 0 3\r\nabc\r\nSERVER_ERROR out of memory\r\n", PROTO_REPLY_SERVER_ERROR, 1, 3,
     "out of memory"},
};

static void test_single_replies(void **state)
{
    (void)state;
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(single_cases); i++) {
        const struct single_case *c = &single_cases[i];
        struct text_parser p;
        struct proto_result res;
        size_t len = strlen(c->input), used = 0;
        proto_text_parser_reset(&p);
        assert_int_equal(proto_ascii_parse(&p, c->input, len, &used, &res), SLAP_OK);
        assert_int_equal(used, len);
        assert_int_equal(res.reply, c->reply);
        assert_int_equal(res.hits, c->hits);
        assert_int_equal(res.value_bytes, c->value_bytes);
        if (c->msg == NULL) {
            assert_null(res.msg);
            assert_int_equal(res.msg_len, 0);
        } else {
            assert_ptr_equal(res.msg, c->input + (strstr(c->input, c->msg) - c->input));
            assert_int_equal(res.msg_len, strlen(c->msg));
        }
        assert_int_equal(p.resp.hits, 0); /* per-response state reset */
        assert_int_equal(p.resp.value_bytes, 0);
        assert_int_equal(p.data_left, 0);
    }
}

/* A partial line is not consumed; data is consumed as it comes; a second response waits. */
static void test_partial_input(void **state)
{
    (void)state;
    struct text_parser p;
    struct proto_result res;
    size_t used = 99;
    proto_text_parser_reset(&p);
    assert_int_equal(proto_ascii_parse(&p, "STORED\r", 7, &used, &res), SLAP_AGAIN);
    assert_int_equal(used, 0);
    assert_int_equal(proto_ascii_parse(&p, "", 0, &used, &res), SLAP_AGAIN);
    assert_int_equal(used, 0);
    assert_int_equal(proto_ascii_parse(&p, "VALUE k 0 5\r\nab", 15, &used, &res), SLAP_AGAIN);
    assert_int_equal(used, 15);
    assert_int_equal(p.data_left, 3 + 2);
    assert_int_equal(proto_ascii_parse(&p, "cde\r", 4, &used, &res), SLAP_AGAIN);
    assert_int_equal(used, 4);
    assert_int_equal(proto_ascii_parse(&p, "\nEN", 3, &used, &res), SLAP_AGAIN);
    assert_int_equal(used, 1);
    assert_int_equal(proto_ascii_parse(&p, "END\r\nSTORED\r\n", 13, &used, &res), SLAP_OK);
    assert_int_equal(used, 5);
    assert_int_equal(res.reply, PROTO_REPLY_VALUES);
    assert_int_equal(res.hits, 1);
    assert_int_equal(res.value_bytes, 5);
}

/* A value of exactly 1 GiB is accepted (its data is still to come); one byte more is not. */
static void test_value_size_limit(void **state)
{
    (void)state;
    struct text_parser p;
    struct proto_result res;
    size_t used = 0;
    const char *max = "VALUE k 0 1073741824\r\n";
    const char *over = "VALUE k 0 1073741825\r\n";
    proto_text_parser_reset(&p);
    assert_int_equal(proto_ascii_parse(&p, max, strlen(max), &used, &res), SLAP_AGAIN);
    assert_int_equal(used, strlen(max));
    assert_int_equal(p.data_left, (1ULL << 30) + 2);
    proto_text_parser_reset(&p);
    assert_int_equal(proto_ascii_parse(&p, over, strlen(over), &used, &res), SLAP_ERROR);
}

/* The request known, a VALUE must be of a key it asked, in its order (misses left out). */
static void test_values_of_keys_asked(void **state)
{
    (void)state;
    static const struct stream_request get_abc = {"get a b c\r\n", 11};
    static const struct stream_request gat_ab = {"gat 60 a b\r\n", 12};
    static const struct {
        const char *req, *reply;
        enum proto_fault fault;
    } refused[] = {
        {"get k\r\n", "VALUE nosuchkey 0 3\r\nabc\r\nEND\r\n", PROTO_FAULT_KEY},
        {"gets k\r\n", "VALUE kk 0 3 7\r\nabc\r\nEND\r\n", PROTO_FAULT_KEY},
        {"get a b c\r\n", "VALUE c 0 1\r\nx\r\nVALUE a 0 1\r\nx\r\nEND\r\n", PROTO_FAULT_KEY},
        {"get a b c\r\n", "VALUE a 0 1\r\nx\r\nVALUE a 0 1\r\nx\r\nEND\r\n", PROTO_FAULT_KEY},
        {"get a b c\r\n", "VALUE b 0 1\r\nx\r\nVALUE z 0 1\r\nx\r\nEND\r\n", PROTO_FAULT_KEY},
        {"gat 60 a b\r\n", "VALUE 60 0 1\r\nx\r\nEND\r\n", PROTO_FAULT_KEY},
        /* a VALUE cannot answer a storage command or any other: refused before its END */
        {"set a 0 0 1\r\n", "VALUE a 0 1\r\nx\r\n", PROTO_FAULT_REPLY},
        {"delete a\r\n", "VALUE a 0 1\r\n", PROTO_FAULT_REPLY},
        {"get a\r\n", "VALUE a 0 1073741825\r\n", PROTO_FAULT_TOO_LARGE},
    };
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(refused); i++) {
        assert_true(proto_stream_refuses(&drv, refused[i].req, strlen(refused[i].req),
                                         refused[i].reply, strlen(refused[i].reply),
                                         refused[i].fault, refused[i].reply));
    }
    /* in order, misses left out; a key asked twice may come twice */
    const char *ok = "VALUE a 0 1\r\nx\r\nVALUE c 0 2\r\nxy\r\nEND\r\n";
    struct stream_want two = {PROTO_REPLY_VALUES, 2, 3, NULL};
    drv.asked = &get_abc;
    drv.n_asked = 1;
    for (size_t chunk = 1; chunk <= strlen(ok); chunk++) {
        driver_run(NULL, ok, strlen(ok), chunk, chunk);
        assert_true(proto_stream_expect(&drv, &two, 1, "in order, chunk", chunk));
    }
    const char *gat = "VALUE a 0 1\r\nx\r\nVALUE b 0 2\r\nxy\r\nEND\r\n";
    drv.asked = &gat_ab;
    driver_run(NULL, gat, strlen(gat), 7, 7);
    assert_true(proto_stream_expect(&drv, &two, 1, "gat", 0));
    static const struct stream_request twice = {"get a a\r\n", 9};
    const char *both = "VALUE a 0 1\r\nx\r\nVALUE a 0 2\r\nxy\r\nEND\r\n";
    drv.asked = &twice;
    driver_run(NULL, both, strlen(both), 5, 5);
    assert_true(proto_stream_expect(&drv, &two, 1, "twice", 0));
    /* no request known: only the bytes are judged, as before */
    drv.asked = NULL;
    drv.n_asked = 0;
    const char *foreign = "VALUE nosuchkey 0 2\r\nxy\r\nEND\r\n";
    struct stream_want one = {PROTO_REPLY_VALUES, 1, 2, NULL};
    driver_run(NULL, foreign, strlen(foreign), 3, 3);
    assert_true(proto_stream_expect(&drv, &one, 1, "no request", 0));
}

/* With the request known, the usual lines are read in one pass (fast_line); whatever that pass
 * does not take (a miss before a key, a cas, a bound passed) the line loop judges, the same way
 * at every split. */
static void test_values_read_in_one_pass(void **state)
{
    (void)state;
    static const struct stream_request get3 = {"get alpha beta gamma\r\n", 22};
    const char *ok = "VALUE alpha 0 5\r\nhello\r\nVALUE gamma 4294967295 3\r\nxyz\r\nEND\r\n"
                     "STORED\r\nEND\r\n";
    struct stream_want want[] = {
        {PROTO_REPLY_VALUES, 2, 8, NULL},
        {PROTO_REPLY_STORED, 0, 0, NULL},
        {PROTO_REPLY_VALUES, 0, 0, NULL},
    };
    drv.asked = &get3;
    drv.n_asked = 1;
    for (size_t split = 0; split <= strlen(ok); split++) {
        driver_run(NULL, ok, strlen(ok), split, strlen(ok));
        assert_true(
            proto_stream_expect(&drv, want, SLAP_ARRAY_SIZE(want), "one pass, split", split));
    }
    /* a value's size in 1 to 12 digits (leading zeros: up to 7 read at once, more one by one,
     * past 10 by the loop), each split at every third byte */
    static const char data[] = "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnop";
    for (unsigned size = 1; size < sizeof(data); size += 7) {
        for (int width = 1; width <= 12; width++) {
            char reply[160];
            int n = snprintf(reply, sizeof(reply), "VALUE alpha 0 %0*u\r\n%.*s\r\nEND\r\n", width,
                             size, (int)size, data);
            struct stream_want one = {PROTO_REPLY_VALUES, 1, size, NULL};
            for (int split = 0; split <= n; split += 3) {
                driver_run(NULL, reply, (size_t)n, (size_t)split, (size_t)n);
                assert_true(proto_stream_expect(&drv, &one, 1, reply, (size_t)split));
            }
        }
    }
    /* every digit's weight: sizes of 3 to 7 digits, split inside and after the header */
    static const unsigned sizes[] = {123, 4567, 98765, 654321, 1234567};
    static char big[1234567 + 64];
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(sizes); i++) {
        int head = snprintf(big, sizeof(big), "VALUE alpha 0 %u\r\n", sizes[i]);
        memset(big + head, 'v', sizes[i]);
        memcpy(big + head + sizes[i], "\r\nEND\r\n", 7);
        size_t n = (size_t)head + sizes[i] + 7;
        struct stream_want one = {PROTO_REPLY_VALUES, 1, sizes[i], NULL};
        size_t splits[] = {0, (size_t)head - 4, (size_t)head, n};
        for (size_t k = 0; k < SLAP_ARRAY_SIZE(splits); k++) {
            driver_run(NULL, big, n, splits[k], n);
            assert_true(proto_stream_expect(&drv, &one, 1, "a large size, split", splits[k]));
        }
    }
    drv.asked = NULL;
    drv.n_asked = 0;
    static const struct {
        const char *reply;
        enum proto_fault fault;
    } refused[] = {
        {"VALUE alpha 4294967296 1\r\nx\r\nEND\r\n", PROTO_FAULT_GARBAGE}, /* flags > u32 */
        {"VALUE alpha 0 1073741825\r\n", PROTO_FAULT_TOO_LARGE},
        {"VALUE alpha 0 01234567890\r\n", PROTO_FAULT_TOO_LARGE}, /* 11 digits */
        {"VALUE alpha 0 1\r\nx\r\nSTORED\r\n", PROTO_FAULT_GARBAGE},
        {"VALUE alpha 0 1 \r\nx\r\nEND\r\n", PROTO_FAULT_GARBAGE},
        {"VALUE alpha  0 1\r\nx\r\nEND\r\n", PROTO_FAULT_GARBAGE},
        {"VALUE alpha 0 1\n\r\nx\r\nEND\r\n", PROTO_FAULT_GARBAGE},
    };
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(refused); i++) {
        assert_true(proto_stream_refuses(&drv, get3.bytes, get3.len, refused[i].reply,
                                         strlen(refused[i].reply), refused[i].fault,
                                         refused[i].reply));
    }
}

/* What a refusal says: what came back against what was asked, the server's bytes escaped. */
static void test_fault_described(void **state)
{
    (void)state;
    struct text_parser p;
    struct proto_result res;
    size_t used = 0;
    char text[PROTO_FAULT_DETAIL];
    const char *req = "get k\r\n";
    const char *reply = "VALUE no\x1b\"such 0 3\r\n";
    proto_text_parser_reset(&p);
    p.resp.req = req;
    p.resp.req_len = strlen(req);
    assert_int_equal(proto_ascii_parse(&p, reply, strlen(reply), &used, &res), SLAP_ERROR);
    assert_int_equal(res.fault, PROTO_FAULT_KEY);
    proto_fault_describe(text, sizeof(text), &res);
    assert_string_equal(text, "\"no\\x1b\\x22such\" came back; the request's next key was \"k\"");
    assert_string_equal(proto_fault_name(res.fault), "a value for a key not asked");
}

/* A line of PROTO_ASCII_MAX_LINE bytes with its CRLF parses; a longer one is garbage. */
static void test_line_limit(void **state)
{
    (void)state;
    static char line[PROTO_ASCII_MAX_LINE + 2];
    struct text_parser p;
    struct proto_result res;
    size_t used = 0;
    memset(line, 'm', sizeof(line));
    memcpy(line, "SERVER_ERROR ", 13);
    memcpy(line + PROTO_ASCII_MAX_LINE - 2, "\r\n", 2);
    proto_text_parser_reset(&p);
    assert_int_equal(proto_ascii_parse(&p, line, PROTO_ASCII_MAX_LINE, &used, &res), SLAP_OK);
    assert_int_equal(used, PROTO_ASCII_MAX_LINE);
    assert_int_equal(res.msg_len, PROTO_ASCII_MAX_LINE - 15);

    memset(line + PROTO_ASCII_MAX_LINE - 2, 'm', 2);
    assert_int_equal(proto_ascii_parse(&p, line, PROTO_ASCII_MAX_LINE, &used, &res), SLAP_AGAIN);
    assert_int_equal(used, 0);
    memcpy(line + PROTO_ASCII_MAX_LINE - 1, "\r\n", 2); /* one byte too long */
    assert_int_equal(proto_ascii_parse(&p, line, PROTO_ASCII_MAX_LINE + 1, &used, &res),
                     SLAP_ERROR);
}

/* ---- a stream of many responses, split every way ---- */

static const char stream[] = "STORED\r\n"
                             "VALUE alpha 0 5\r\nhello\r\n"
                             "VALUE empty 7 0\r\n\r\n"
                             "VALUE gamma 42 11 12345\r\nhello world\r\n"
                             "END\r\n"
                             "END\r\n"
                             "SERVER_ERROR out of memory storing object\r\n"
                             "NOT_STORED\r\n"
                             "VALUE tricky 1 12\r\nx\r\nEND\r\nyyyy\r\n"
                             "END\r\n"
                             "VALUE a 0 3\r\nabc\r\nSERVER_ERROR out of memory\r\n"
                             "EXISTS\r\n"
                             "NOT_FOUND\r\n"
                             "ERROR\r\n"
                             "CLIENT_ERROR bad data chunk\r\n"
                             "VALUE big 3 40\r\n0123456789012345678901234567890123456789\r\n"
                             "END\r\n";

static const struct stream_want stream_want[] = {
    {PROTO_REPLY_STORED, 0, 0, NULL},
    {PROTO_REPLY_VALUES, 3, 16, NULL},
    {PROTO_REPLY_VALUES, 0, 0, NULL},
    {PROTO_REPLY_SERVER_ERROR, 0, 0, "out of memory storing object"},
    {PROTO_REPLY_NOT_STORED, 0, 0, NULL},
    {PROTO_REPLY_VALUES, 1, 12, NULL},
    {PROTO_REPLY_SERVER_ERROR, 1, 3, "out of memory"},
    {PROTO_REPLY_EXISTS, 0, 0, NULL},
    {PROTO_REPLY_NOT_FOUND, 0, 0, NULL},
    {PROTO_REPLY_ERROR, 0, 0, NULL},
    {PROTO_REPLY_CLIENT_ERROR, 0, 0, "bad data chunk"},
    {PROTO_REPLY_VALUES, 1, 40, NULL},
};

static void assert_stream_done(const char *how, size_t where)
{
    assert_true(proto_stream_expect(&drv, stream_want, SLAP_ARRAY_SIZE(stream_want), how, where));
    if (drv.parser.text.resp.hits != 0 || drv.parser.text.data_left != 0) {
        fail_msg("%s %zu: the parser is not back at the start", how, where);
    }
}

static void test_stream_all_at_once(void **state)
{
    (void)state;
    driver_run(NULL, stream, sizeof(stream) - 1, sizeof(stream) - 1, 1);
    assert_stream_done("all at once", 0);
}

static void test_stream_split_everywhere(void **state)
{
    (void)state;
    size_t len = sizeof(stream) - 1;
    for (size_t split = 0; split <= len; split++) {
        driver_run(NULL, stream, len, split, len);
        assert_stream_done("split at", split);
    }
}

static void test_stream_byte_at_a_time(void **state)
{
    (void)state;
    driver_run(NULL, stream, sizeof(stream) - 1, 1, 1);
    assert_stream_done("byte at a time", 1);
}

/* ---- garbage ---- */

static const char *const garbage[] = {
    "HELLO\r\n",
    "VALUE k 0 abc\r\n",
    "VALUE k 0 5\r\nabcdeXY",
    "VALUE k 0 5\r\nabcde\rX",
    "VALUE k 0 99999999999999999999\r\n",
    "VALUE k 4294967296 5\r\n",
    "VALUE k 0\r\n",
    "VALUE k\r\n",
    "VALUE  0 5\r\n",
    "VALUE k 0 -5\r\n",
    "VALUE k 0 5 \r\n",
    "VALUE k 0 5 12x\r\n",
    "VALUE k 0 5 99999999999999999999\r\n",
    "VALUE k 0 1\r\na\r\nSTORED\r\n",
    "STORED\n",
    "\r\n",
    "END \r\n",
    "stored\r\n",
    "SERVER_ERRORx\r\n",
    "STORED\r\nBOGUS\r\n",
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
        assert_garbage(garbage[i], strlen(garbage[i]), garbage[i]);
    }
}

static void test_long_line_without_crlf(void **state)
{
    (void)state;
    static char line[3000];
    memset(line, 'a', sizeof(line));
    assert_garbage(line, sizeof(line), "3000-byte line");
    memcpy(line, "VALUE ", 6); /* a huge key is no better */
    assert_garbage(line, sizeof(line), "3000-byte VALUE line");
}

/* ---- encoders ---- */

/* Encode into exactly cap bytes of a guarded buffer; nothing past cap may change. */
static size_t encode_guarded(char *buf, size_t buf_size, size_t cap, int set)
{
    memset(buf, '#', buf_size);
    size_t n =
        set ? proto_ascii_encode_set_header(buf, cap, "user:42", 7, 4294967295u, 3600, 123456789)
            : proto_ascii_encode_get(buf, cap, "user:42", 7);
    for (size_t i = cap; i < buf_size; i++) {
        assert_int_equal(buf[i], '#');
    }
    return n;
}

static void test_encode_get(void **state)
{
    (void)state;
    char buf[64];
    const char *want = "get user:42\r\n";
    size_t len = strlen(want);
    assert_int_equal(encode_guarded(buf, sizeof(buf), len, 0), len);
    assert_memory_equal(buf, want, len);
    assert_int_equal(encode_guarded(buf, sizeof(buf), len - 1, 0), 0);
    assert_int_equal(encode_guarded(buf, sizeof(buf), 0, 0), 0);
}

static void test_encode_set_header(void **state)
{
    (void)state;
    char buf[64];
    const char *want = "set user:42 4294967295 3600 123456789\r\n";
    size_t len = strlen(want);
    assert_int_equal(encode_guarded(buf, sizeof(buf), len, 1), len);
    assert_memory_equal(buf, want, len);
    assert_int_equal(encode_guarded(buf, sizeof(buf), len - 1, 1), 0);

    assert_int_equal(proto_ascii_encode_set_header(buf, sizeof(buf), "k", 1, 0, 0, 0), 13);
    assert_memory_equal(buf, "set k 0 0 0\r\n", 13);
    assert_int_equal(proto_ascii_encode_set_header(buf, sizeof(buf), "k", 1, 10, 9, 100), 16);
    assert_memory_equal(buf, "set k 10 9 100\r\n", 16);
    /* the plain set (flags and expiry 0) is written by a path of its own: its room too */
    assert_int_equal(proto_ascii_encode_set_header(buf, 16, "k", 1, 0, 0, 1024), 16);
    assert_memory_equal(buf, "set k 0 0 1024\r\n", 16);
    assert_int_equal(proto_ascii_encode_set_header(buf, 15, "k", 1, 0, 0, 1024), 0);
}

/* A key longer than the buffer must not wrap the size arithmetic. */
static void test_encode_huge_key(void **state)
{
    (void)state;
    char buf[16];
    assert_int_equal(proto_ascii_encode_get(buf, sizeof(buf), "k", SIZE_MAX - 2), 0);
    assert_int_equal(proto_ascii_encode_set_header(buf, sizeof(buf), "k", SIZE_MAX - 2, 0, 0, 0),
                     0);
}

/* ---- value hook: checked values, split at every byte ------------------------------------ */

struct hook_log {
    int begins;       /* VALUE headers seen */
    int equal;        /* checked values that matched */
    int differ;       /* checked values that did not */
    uint64_t diff_at; /* first differing byte of the last that did not */
};

/* Keys "good" and "long" expect "hello"; "skip" is not checked. */
static const char *hook_begin(void *ctx, const char *key, size_t key_len, uint64_t bytes,
                              uint64_t *expect_len)
{
    struct hook_log *log = ctx;
    (void)bytes;
    log->begins++;
    if (key_len == 4 && (memcmp(key, "good", 4) == 0 || memcmp(key, "long", 4) == 0)) {
        *expect_len = 5;
        return "hello";
    }
    return NULL;
}

static void hook_end(void *ctx, int equal, uint64_t first_diff)
{
    struct hook_log *log = ctx;
    if (equal) {
        log->equal++;
    } else {
        log->differ++;
        log->diff_at = first_diff;
    }
}

static void test_value_hook_every_split(void **state)
{
    (void)state;
    static const char hooked[] = "VALUE good 0 5\r\nhello\r\nVALUE skip 0 3\r\nabc\r\n"
                                 "VALUE good 0 5\r\nhelLo\r\nVALUE long 0 6\r\nhello!\r\nEND\r\n";
    size_t len = sizeof(hooked) - 1;
    for (size_t split = 0; split <= len; split++) {
        struct hook_log log = {0};
        struct proto_value_hook hook = {hook_begin, hook_end, &log};
        driver_run(&hook, hooked, len, split, len);
        assert_int_equal(drv.n_responses, 1);
        assert_int_equal(drv.responses[0].hits, 4);
        assert_int_equal(log.begins, 4);
        assert_int_equal(log.equal, 1);
        assert_int_equal(log.differ, 2);
        assert_int_equal(log.diff_at, 5); /* "hello!" is one byte longer than expected */
    }
}

static void test_value_hook_first_diff(void **state)
{
    (void)state;
    static const char hooked[] = "VALUE good 0 5\r\nhelLo\r\nEND\r\n";
    struct hook_log log = {0};
    struct proto_value_hook hook = {hook_begin, hook_end, &log};
    struct text_parser p;
    struct proto_result res;
    size_t used;
    proto_text_parser_reset(&p);
    p.resp.hook = &hook;
    assert_int_equal(proto_ascii_parse(&p, hooked, sizeof(hooked) - 1, &used, &res), SLAP_OK);
    assert_int_equal(log.differ, 1);
    assert_int_equal(log.diff_at, 3);
    /* a reset drops the hook: nothing is checked any more */
    proto_text_parser_reset(&p);
    assert_int_equal(proto_ascii_parse(&p, hooked, sizeof(hooked) - 1, &used, &res), SLAP_OK);
    assert_int_equal(log.begins, 1);
}

static void test_encode_multiget(void **state)
{
    (void)state;
    static const char keys[] = "k1\0\0k22\0k333";
    static const uint32_t lens[] = {2, 3, 4};
    char out[64];
    size_t n = proto_ascii_encode_multiget(out, sizeof(out), keys, 4, lens, 3);
    assert_int_equal(n, strlen("get k1 k22 k333\r\n"));
    assert_memory_equal(out, "get k1 k22 k333\r\n", n);
    assert_int_equal(proto_ascii_encode_multiget(out, n - 1, keys, 4, lens, 3), 0);
    assert_int_equal(proto_ascii_encode_multiget(out, n, keys, 4, lens, 3), n);
    assert_int_equal(proto_ascii_encode_multiget(out, sizeof(out), keys, 4, lens, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_replies),
        cmocka_unit_test(test_partial_input),
        cmocka_unit_test(test_value_size_limit),
        cmocka_unit_test(test_values_of_keys_asked),
        cmocka_unit_test(test_fault_described),
        cmocka_unit_test(test_line_limit),
        cmocka_unit_test(test_stream_all_at_once),
        cmocka_unit_test(test_values_read_in_one_pass),
        cmocka_unit_test(test_stream_split_everywhere),
        cmocka_unit_test(test_stream_byte_at_a_time),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_long_line_without_crlf),
        cmocka_unit_test(test_encode_get),
        cmocka_unit_test(test_encode_set_header),
        cmocka_unit_test(test_encode_huge_key),
        cmocka_unit_test(test_value_hook_every_split),
        cmocka_unit_test(test_value_hook_first_diff),
        cmocka_unit_test(test_encode_multiget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
