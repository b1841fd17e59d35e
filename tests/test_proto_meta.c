/* Unit tests of the meta protocol: each reply, streams split every way, the hook, garbage,
 * encoders. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <string.h>

#include "proto_stream.h"
#include "slap/base/common.h"
#include "slap/proto/proto_meta.h"

#define MAX_RESPONSES 64

/* Kept static: the parser and the results of a run take a few kilobytes. */
static struct stream_result results[MAX_RESPONSES];
static struct proto_stream drv = {.kind = PROTO_META, .responses = results, .room = MAX_RESPONSES};

/* Feed bytes to a fresh parser in chunks of at most chunk bytes, the first one first bytes long. */
static void driver_run(const struct proto_value_hook *hook, const char *bytes, size_t len,
                       size_t first, size_t chunk)
{
    drv.hook = hook;
    assert_null(proto_stream_run(&drv, bytes, len, first, chunk)); /* it says what broke */
}

/* The run said exactly want, used every byte, and left the parser at the start. */
static void assert_outcomes(const struct stream_want *want, size_t n_want, const char *how,
                            size_t where)
{
    assert_true(proto_stream_expect(&drv, want, n_want, how, where)); /* it says how not */
    if (drv.parser.text.resp.hits != 0 || drv.parser.text.data_left != 0) {
        fail_msg("%s %zu: the parser is not back at the start", how, where);
    }
}

/* ---- single replies ---- */

struct single_case {
    const char *input;
    enum proto_reply reply;
    uint32_t hits;
    uint64_t value_bytes;
    const char *msg; /* NULL: res.msg must be NULL */
};

/* The replies marked "1.6.18" are byte for byte what memcached 1.6.18 sent. */
static const struct single_case single_cases[] = {
    {"HD\r\n", PROTO_REPLY_STORED, 0, 0, NULL},
    {"HD c6\r\n", PROTO_REPLY_STORED, 0, 0, NULL}, /* 1.6.18: ms with the c flag */
    {"NS\r\n", PROTO_REPLY_NOT_STORED, 0, 0, NULL},
    {"EX\r\n", PROTO_REPLY_EXISTS, 0, 0, NULL},
    {"NF\r\n", PROTO_REPLY_NOT_FOUND, 0, 0, NULL},
    {"EN\r\n", PROTO_REPLY_VALUES, 0, 0, NULL},
    {"EN kmissing O123\r\n", PROTO_REPLY_VALUES, 0, 0, NULL}, /* 1.6.18: mg missing v k O123 */
    {"MN\r\n", PROTO_REPLY_VALUES, 0, 0, NULL},
    {"ERROR\r\n", PROTO_REPLY_ERROR, 0, 0, NULL},
    {"CLIENT_ERROR bad command line format\r\n", PROTO_REPLY_CLIENT_ERROR, 0, 0,
     "bad command line format"},
    {"SERVER_ERROR object too large for cache\r\n", PROTO_REPLY_SERVER_ERROR, 0, 0,
     "object too large for cache"},
    {"SERVER_ERROR\r\n", PROTO_REPLY_SERVER_ERROR, 0, 0, NULL},
    {"CLIENT_ERROR\r\n", PROTO_REPLY_CLIENT_ERROR, 0, 0, NULL},
    {"VA 5 kfoo\r\nhello\r\nMN\r\n", PROTO_REPLY_VALUES, 1, 5, NULL}, /* 1.6.18 */
    {"VA 5 kfoo f4294967295 t3597 s5 c2\r\nhello\r\nMN\r\n", PROTO_REPLY_VALUES, 1, 5,
     NULL}, /* 1.6.18: mg foo v k f t s c q */
    {"VA 3 kfoo O123\r\nabc\r\nMN\r\n", PROTO_REPLY_VALUES, 1, 3, NULL}, /* 1.6.18 */
    {"VA 5\r\nhello\r\nMN\r\n", PROTO_REPLY_VALUES, 1, 5, NULL},         /* no k flag asked */
    {"VA 0 kempty\r\n\r\nMN\r\n", PROTO_REPLY_VALUES, 1, 0, NULL},       /* 1.6.18 */
    {"VA 2 ka\r\nxy\r\nVA 0 kb\r\n\r\nMN\r\n", PROTO_REPLY_VALUES, 2, 2, NULL},
    {"VA 3 kfoo\r\nabc\r\nSERVER_ERROR out of memory\r\n", PROTO_REPLY_SERVER_ERROR, 1, 3,
     "out of memory"},
    {"VA 3 kfoo\r\nabc\r\nCLIENT_ERROR bad command line format\r\n", PROTO_REPLY_CLIENT_ERROR, 1, 3,
     "bad command line format"},
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
        if (proto_meta_parse(&p, c->input, len, &used, &res) != SLAP_OK) {
            fail_msg("'%s' was not parsed", c->input);
        }
        assert_int_equal(used, len);
        assert_int_equal(res.reply, c->reply);
        assert_int_equal(res.hits, c->hits);
        assert_int_equal(res.value_bytes, c->value_bytes);
        if (c->msg == NULL) {
            assert_null(res.msg);
            assert_int_equal(res.msg_len, 0);
        } else {
            assert_ptr_equal(res.msg, strstr(c->input, c->msg));
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
    assert_int_equal(proto_meta_parse(&p, "HD\r", 3, &used, &res), SLAP_AGAIN);
    assert_int_equal(used, 0);
    assert_int_equal(proto_meta_parse(&p, "", 0, &used, &res), SLAP_AGAIN);
    assert_int_equal(used, 0);
    assert_int_equal(proto_meta_parse(&p, "VA 5 kfoo\r\nab", 13, &used, &res), SLAP_AGAIN);
    assert_int_equal(used, 13);
    assert_int_equal(p.data_left, 3 + 2);
    assert_int_equal(proto_meta_parse(&p, "cde\r", 4, &used, &res), SLAP_AGAIN);
    assert_int_equal(used, 4);
    assert_int_equal(proto_meta_parse(&p, "\nM", 2, &used, &res), SLAP_AGAIN);
    assert_int_equal(used, 1);
    assert_int_equal(proto_meta_parse(&p, "MN\r\nHD\r\n", 8, &used, &res), SLAP_OK);
    assert_int_equal(used, 4);
    assert_int_equal(res.reply, PROTO_REPLY_VALUES);
    assert_int_equal(res.hits, 1);
    assert_int_equal(res.value_bytes, 5);
    assert_int_equal(proto_meta_parse(&p, "HD\r\n", 4, &used, &res), SLAP_OK);
    assert_int_equal(res.reply, PROTO_REPLY_STORED);
    assert_int_equal(res.hits, 0);
}

/* A value of exactly 1 GiB is accepted (its data is still to come); one byte more is not. */
static void test_value_size_limit(void **state)
{
    (void)state;
    struct text_parser p;
    struct proto_result res;
    size_t used = 0;
    const char *max = "VA 1073741824 kk\r\n";
    const char *over = "VA 1073741825 kk\r\n";
    proto_text_parser_reset(&p);
    assert_int_equal(proto_meta_parse(&p, max, strlen(max), &used, &res), SLAP_AGAIN);
    assert_int_equal(used, strlen(max));
    assert_int_equal(p.data_left, (1ULL << 30) + 2);
    proto_text_parser_reset(&p);
    assert_int_equal(proto_meta_parse(&p, over, strlen(over), &used, &res), SLAP_ERROR);
}

/* Every reply code against every kind of request slap sends: what cannot answer it is
 * refused at once (a VA to an ms is not waited on for an MN that never comes). */
static void test_reply_codes_by_request(void **state)
{
    (void)state;
    static const char *const requests[] = {
        "mg foo v k q\r\nmn\r\n", /* get */
        "mg foo T60\r\n",         /* touch */
        "ms foo 1 T0 F0\r\n",     /* set, add, cas ... */
        "md foo\r\n",             /* delete */
        "ma foo MD\r\n",          /* incr, decr */
    };
    static const char *const replies[] = {
        "HD\r\n", "NS\r\n", "EX\r\n", "NF\r\n", "EN\r\n", "VA 1 kfoo\r\nx\r\nMN\r\n", "MN\r\n"};
    /* answers[request] has bit i set when replies[i] answers it */
    static const unsigned answers[] = {0x60, 0x11, 0x0f, 0x09, 0x09};
    for (size_t q = 0; q < SLAP_ARRAY_SIZE(requests); q++) {
        for (size_t i = 0; i < SLAP_ARRAY_SIZE(replies); i++) {
            const struct stream_request asked = {requests[q], strlen(requests[q])};
            if (!(answers[q] & (1u << i))) {
                assert_true(proto_stream_refuses(&drv, asked.bytes, asked.len, replies[i],
                                                 strlen(replies[i]), PROTO_FAULT_REPLY,
                                                 replies[i]));
                continue;
            }
            drv.asked = &asked;
            drv.n_asked = 1;
            driver_run(NULL, replies[i], strlen(replies[i]), 1, 1);
            drv.asked = NULL;
            drv.n_asked = 0;
            if (drv.n_responses != 1 || drv.end.status != SLAP_AGAIN) {
                fail_msg("%s should answer %s", replies[i], requests[q]);
            }
        }
    }
}

/* The request known, a VA must carry (k flag) the key of one of its mg lines, in order. */
static void test_values_of_keys_asked(void **state)
{
    (void)state;
    const char *req = "mg a v k q\r\nmg b v k q\r\nmg c v k q\r\nmn\r\n";
    static const char *const refused[] = {
        "VA 1 knosuchkey\r\nx\r\nMN\r\n",         /* not asked */
        "VA 1 kc\r\nx\r\nVA 1 ka\r\nx\r\nMN\r\n", /* out of order */
        "VA 1 ka\r\nx\r\nVA 1 ka\r\nx\r\nMN\r\n", /* twice */
        "VA 1\r\nx\r\nMN\r\n",                    /* no key */
    };
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(refused); i++) {
        assert_true(proto_stream_refuses(&drv, req, strlen(req), refused[i], strlen(refused[i]),
                                         PROTO_FAULT_KEY, refused[i]));
    }
    const char *over = "VA 1073741825 ka\r\n";
    assert_true(proto_stream_refuses(&drv, req, strlen(req), over, strlen(over),
                                     PROTO_FAULT_TOO_LARGE, over));
    const struct stream_request asked = {req, strlen(req)};
    const char *ok = "VA 1 ka\r\nx\r\nVA 2 kc f0\r\nxy\r\nMN\r\n";
    struct stream_want two = {PROTO_REPLY_VALUES, 2, 3, NULL};
    drv.asked = &asked;
    drv.n_asked = 1;
    for (size_t chunk = 1; chunk <= strlen(ok); chunk++) {
        driver_run(NULL, ok, strlen(ok), chunk, chunk);
        assert_outcomes(&two, 1, "in order, chunk", chunk);
    }
    drv.asked = NULL;
    drv.n_asked = 0;
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
    assert_int_equal(proto_meta_parse(&p, line, PROTO_ASCII_MAX_LINE, &used, &res), SLAP_OK);
    assert_int_equal(used, PROTO_ASCII_MAX_LINE);
    assert_int_equal(res.msg_len, PROTO_ASCII_MAX_LINE - 15);

    memset(line + PROTO_ASCII_MAX_LINE - 2, 'm', 2);
    assert_int_equal(proto_meta_parse(&p, line, PROTO_ASCII_MAX_LINE, &used, &res), SLAP_AGAIN);
    assert_int_equal(used, 0);
    memcpy(line + PROTO_ASCII_MAX_LINE - 1, "\r\n", 2); /* one byte too long */
    assert_int_equal(proto_meta_parse(&p, line, PROTO_ASCII_MAX_LINE + 1, &used, &res), SLAP_ERROR);
}

/* ---- a stream of many responses, split every way ---- */

static const char stream[] = "HD\r\n"
                             "VA 5 kalpha\r\nhello\r\n"
                             "VA 11 kgamma f42\r\nhello world\r\n"
                             "MN\r\n"
                             "MN\r\n"
                             "EN\r\n"
                             "NS\r\n"
                             "EX\r\n"
                             "NF\r\n"
                             "SERVER_ERROR object too large for cache\r\n"
                             "CLIENT_ERROR bad data chunk\r\n"
                             "ERROR\r\n"
                             "VA 0 kempty\r\n\r\n"
                             "MN\r\n"
                             "VA 6 ktricky\r\n\r\nMN\r\n\r\n"
                             "MN\r\n"
                             "VA 8 kd\r\nx\r\nMN\r\nx\r\n"
                             "MN\r\n"
                             "HD c6\r\n"
                             "VA 40 t-1 kbig s40\r\n0123456789012345678901234567890123456789\r\n"
                             "VA 3 kfoo O123\r\nabc\r\n"
                             "SERVER_ERROR out of memory\r\n"
                             "EN kmissing O123\r\n";

static const struct stream_want stream_want[] = {
    {PROTO_REPLY_STORED, 0, 0, NULL},
    {PROTO_REPLY_VALUES, 2, 16, NULL},
    {PROTO_REPLY_VALUES, 0, 0, NULL},
    {PROTO_REPLY_VALUES, 0, 0, NULL},
    {PROTO_REPLY_NOT_STORED, 0, 0, NULL},
    {PROTO_REPLY_EXISTS, 0, 0, NULL},
    {PROTO_REPLY_NOT_FOUND, 0, 0, NULL},
    {PROTO_REPLY_SERVER_ERROR, 0, 0, "object too large for cache"},
    {PROTO_REPLY_CLIENT_ERROR, 0, 0, "bad data chunk"},
    {PROTO_REPLY_ERROR, 0, 0, NULL},
    {PROTO_REPLY_VALUES, 1, 0, NULL},
    {PROTO_REPLY_VALUES, 1, 6, NULL},
    {PROTO_REPLY_VALUES, 1, 8, NULL},
    {PROTO_REPLY_STORED, 0, 0, NULL},
    {PROTO_REPLY_SERVER_ERROR, 2, 43, "out of memory"},
    {PROTO_REPLY_VALUES, 0, 0, NULL},
};

static void test_stream_all_at_once(void **state)
{
    (void)state;
    size_t len = sizeof(stream) - 1;
    driver_run(NULL, stream, len, len, 1);
    assert_outcomes(stream_want, SLAP_ARRAY_SIZE(stream_want), "all at once", 0);
}

static void test_stream_split_everywhere(void **state)
{
    (void)state;
    size_t len = sizeof(stream) - 1;
    for (size_t split = 0; split <= len; split++) {
        driver_run(NULL, stream, len, split, len);
        assert_outcomes(stream_want, SLAP_ARRAY_SIZE(stream_want), "split at", split);
    }
}

static void test_stream_byte_at_a_time(void **state)
{
    (void)state;
    driver_run(NULL, stream, sizeof(stream) - 1, 1, 1);
    assert_outcomes(stream_want, SLAP_ARRAY_SIZE(stream_want), "byte at a time", 1);
}

/* ---- value hook: checked values, split at every byte ---- */

#define HOOK_LOG_CAP 256

struct hook_log {
    int begins;              /* VA headers seen */
    int equal;               /* checked values that matched */
    int differ;              /* checked values that did not */
    uint64_t diffs[8];       /* first differing byte of each that did not */
    char keys[HOOK_LOG_CAP]; /* the keys begin saw, each followed by ',' ("-" for none) */
    size_t keys_len;
    uint64_t bytes_total; /* the bytes argument of every begin, summed */
};

static void log_key(struct hook_log *log, const char *key, size_t key_len)
{
    if (key == NULL) {
        assert_int_equal(key_len, 0);
        key = "-";
        key_len = 1;
    }
    assert_true(log->keys_len + key_len + 1 < HOOK_LOG_CAP);
    memcpy(log->keys + log->keys_len, key, key_len);
    log->keys_len += key_len;
    log->keys[log->keys_len++] = ',';
    log->keys[log->keys_len] = '\0';
}

/* Keys "good" and "long" expect "hello", "crlf" expects "\r\nMN\r\n"; others are not checked. */
static const char *hook_begin(void *ctx, const char *key, size_t key_len, uint64_t bytes,
                              uint64_t *expect_len)
{
    struct hook_log *log = ctx;
    log->begins++;
    log->bytes_total += bytes;
    log_key(log, key, key_len);
    if (key_len == 4 && (memcmp(key, "good", 4) == 0 || memcmp(key, "long", 4) == 0)) {
        *expect_len = 5;
        return "hello";
    }
    if (key_len == 4 && memcmp(key, "crlf", 4) == 0) {
        *expect_len = 6;
        return "\r\nMN\r\n";
    }
    return NULL;
}

static void hook_end(void *ctx, int equal, uint64_t first_diff)
{
    struct hook_log *log = ctx;
    if (equal) {
        assert_int_equal(first_diff, UINT64_MAX);
        log->equal++;
    } else {
        assert_true((size_t)log->differ < SLAP_ARRAY_SIZE(log->diffs));
        log->diffs[log->differ++] = first_diff;
    }
}

static const char hooked[] = "VA 5 kgood\r\nhello\r\n"
                             "VA 3 f0 kskip\r\nabc\r\n"
                             "VA 5 s5 kgood t-1\r\nhelLo\r\n"
                             "VA 6 klong kgood\r\nhello!\r\n" /* the first k flag names the key */
                             "VA 2\r\nhi\r\n"
                             "VA 6 kcrlf\r\n\r\nMN\r\n\r\n"
                             "MN\r\n"
                             "VA 4 kgood\r\nhell\r\n"
                             "MN\r\n"
                             "HD\r\n";

static const struct stream_want hooked_want[] = {
    {PROTO_REPLY_VALUES, 6, 27, NULL},
    {PROTO_REPLY_VALUES, 1, 4, NULL},
    {PROTO_REPLY_STORED, 0, 0, NULL},
};

static void assert_hooked(const struct hook_log *log, const char *how, size_t where)
{
    assert_outcomes(hooked_want, SLAP_ARRAY_SIZE(hooked_want), how, where);
    if (log->begins != 7 || log->equal != 2 || log->differ != 3 || log->diffs[0] != 3 ||
        log->diffs[1] != 5 || log->diffs[2] != 4 || log->bytes_total != 31 ||
        strcmp(log->keys, "good,skip,good,long,-,crlf,good,") != 0) {
        fail_msg("%s %zu: begins %d equal %d differ %d keys '%s'", how, where, log->begins,
                 log->equal, log->differ, log->keys);
    }
}

static void test_value_hook_every_split(void **state)
{
    (void)state;
    size_t len = sizeof(hooked) - 1;
    for (size_t split = 0; split <= len; split++) {
        struct hook_log log = {0};
        struct proto_value_hook hook = {hook_begin, hook_end, &log};
        driver_run(&hook, hooked, len, split, len);
        assert_hooked(&log, "hook split at", split);
    }
    struct hook_log log = {0};
    struct proto_value_hook hook = {hook_begin, hook_end, &log};
    driver_run(&hook, hooked, len, 1, 1);
    assert_hooked(&log, "hook byte at a time", 1);
}

/* A reset drops the hook: nothing is checked any more. */
static void test_value_hook_reset(void **state)
{
    (void)state;
    static const char one[] = "VA 5 kgood\r\nhelLo\r\nMN\r\n";
    struct hook_log log = {0};
    struct proto_value_hook hook = {hook_begin, hook_end, &log};
    struct text_parser p;
    struct proto_result res;
    size_t used;
    proto_text_parser_reset(&p);
    p.resp.hook = &hook;
    assert_int_equal(proto_meta_parse(&p, one, sizeof(one) - 1, &used, &res), SLAP_OK);
    assert_int_equal(log.differ, 1);
    assert_int_equal(log.diffs[0], 3);
    proto_text_parser_reset(&p);
    assert_null(p.resp.hook);
    assert_int_equal(proto_meta_parse(&p, one, sizeof(one) - 1, &used, &res), SLAP_OK);
    assert_int_equal(log.begins, 1);
}

/* ---- garbage ---- */

static const char *const garbage[] = {
    "HELLO\r\n", /* unknown */
    "VA\r\n",    /* VA without a length */
    "VA \r\n",
    "VA kfoo\r\n",
    "VA5\r\n",
    "VA abc kfoo\r\n", /* bad length */
    "VA -5\r\n",
    "VA 5x\r\n",
    "VA 99999999999999999999\r\n",
    "VA 1073741825 kfoo\r\n",
    "VA 5 \r\n", /* malformed flags */
    "VA 5  kfoo\r\n",
    "VA 5 k\r\n",
    "VA 5 1foo\r\n",
    "VA 5 kfoo \r\n",
    "VA 5 kfoo\r\nhelloXY", /* no CRLF after the data */
    "VA 5 kfoo\r\nhello\rX",
    "VA 1 kfoo\r\na\r\nHD\r\n", /* a set's reply inside a get's */
    "VA 1 kfoo\r\na\r\nEN\r\n",
    "VA 1 kfoo\r\na\r\nERROR\r\n",
    "VA 1 kfoo\r\na\r\nVALUE k 0 1\r\n",
    "HD\n",
    "\r\n",
    "hd\r\n",
    "H\r\n",
    "HDX\r\n",
    "HD \r\n",
    "EN 1\r\n",
    "MN \r\n",
    "MN kfoo\r\n",
    "MNX\r\n",
    "ERRORx\r\n",
    "SERVER_ERRORx\r\n",
    "VALUE k 0 5\r\nhello\r\nEND\r\n", /* the ASCII protocol's replies */
    "STORED\r\n",
    "END\r\n",
    "HD\r\nBOGUS\r\n",
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
    memcpy(line, "VA 5 k", 6); /* a huge key is no better */
    assert_garbage(line, sizeof(line), "3000-byte VA line");
}

/* ---- encoders ---- */

enum encoder { ENC_GET, ENC_MULTIGET, ENC_SET };

static const char multi_keys[] = "k1\0\0k22\0k333";
static const uint32_t multi_lens[] = {2, 3, 4};

/* Encode into exactly cap bytes of a guarded buffer; nothing past cap may change. */
static size_t encode_guarded(char *buf, size_t buf_size, size_t cap, enum encoder which)
{
    size_t n = 0;
    memset(buf, '#', buf_size);
    switch (which) {
    case ENC_GET:
        n = proto_meta_encode_get(buf, cap, "user:42", 7);
        break;
    case ENC_MULTIGET:
        n = proto_meta_encode_multiget(buf, cap, multi_keys, 4, multi_lens, 3);
        break;
    case ENC_SET:
        n = proto_meta_encode_set_header(buf, cap, "user:42", 7, 4294967295u, 3600, 123456789);
        break;
    }
    for (size_t i = cap; i < buf_size; i++) {
        assert_int_equal(buf[i], '#');
    }
    return n;
}

/* Exactly want at cap == its length, 0 at one byte less and at 0. */
static void assert_encodes(enum encoder which, const char *want)
{
    char buf[128];
    size_t len = strlen(want);
    assert_int_equal(encode_guarded(buf, sizeof(buf), len, which), len);
    assert_memory_equal(buf, want, len);
    assert_int_equal(encode_guarded(buf, sizeof(buf), len - 1, which), 0);
    assert_int_equal(encode_guarded(buf, sizeof(buf), 0, which), 0);
    assert_int_equal(encode_guarded(buf, sizeof(buf), sizeof(buf), which), len);
}

static void test_encode_get(void **state)
{
    (void)state;
    assert_encodes(ENC_GET, "mg user:42 v k q\r\nmn\r\n");
}

static void test_encode_multiget(void **state)
{
    (void)state;
    char out[64];
    assert_encodes(ENC_MULTIGET, "mg k1 v k q\r\nmg k22 v k q\r\nmg k333 v k q\r\nmn\r\n");
    assert_int_equal(proto_meta_encode_multiget(out, sizeof(out), multi_keys, 4, multi_lens, 1),
                     strlen("mg k1 v k q\r\nmn\r\n"));
    assert_memory_equal(out, "mg k1 v k q\r\nmn\r\n", strlen("mg k1 v k q\r\nmn\r\n"));
    assert_int_equal(proto_meta_encode_multiget(out, sizeof(out), multi_keys, 4, multi_lens, 0), 0);
}

static void test_encode_set_header(void **state)
{
    (void)state;
    char buf[64];
    assert_encodes(ENC_SET, "ms user:42 123456789 T3600 F4294967295\r\n");
    assert_int_equal(proto_meta_encode_set_header(buf, sizeof(buf), "k", 1, 0, 0, 0), 14);
    assert_memory_equal(buf, "ms k 0 T0 F0\r\n", 14);
    assert_int_equal(proto_meta_encode_set_header(buf, sizeof(buf), "k", 1, 10, 9, 100), 17);
    assert_memory_equal(buf, "ms k 100 T9 F10\r\n", 17);
}

/* A key longer than the buffer must not wrap the size arithmetic. */
static void test_encode_huge_key(void **state)
{
    (void)state;
    char buf[16];
    static const uint32_t huge[] = {UINT32_MAX, UINT32_MAX};
    assert_int_equal(proto_meta_encode_get(buf, sizeof(buf), "k", SIZE_MAX - 2), 0);
    assert_int_equal(proto_meta_encode_set_header(buf, sizeof(buf), "k", SIZE_MAX - 2, 0, 0, 0), 0);
    assert_int_equal(proto_meta_encode_multiget(buf, sizeof(buf), "k", 0, huge, 2), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_replies),
        cmocka_unit_test(test_partial_input),
        cmocka_unit_test(test_value_size_limit),
        cmocka_unit_test(test_reply_codes_by_request),
        cmocka_unit_test(test_values_of_keys_asked),
        cmocka_unit_test(test_line_limit),
        cmocka_unit_test(test_stream_all_at_once),
        cmocka_unit_test(test_stream_split_everywhere),
        cmocka_unit_test(test_stream_byte_at_a_time),
        cmocka_unit_test(test_value_hook_every_split),
        cmocka_unit_test(test_value_hook_reset),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_long_line_without_crlf),
        cmocka_unit_test(test_encode_get),
        cmocka_unit_test(test_encode_multiget),
        cmocka_unit_test(test_encode_set_header),
        cmocka_unit_test(test_encode_huge_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
