/* Unit tests of the trace reader: parsing, keys, spreading, zstd, stdin, limits, bad lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "slap/base/common.h"
#include "slap/model/trace.h"

#define ERR_LEN 512
#define PATH_LEN 64
#define NS SLAP_NS_PER_SEC
#define MANY_LINES 50000 /* lines of the streaming test: many buffers' worth */

/* ---- helpers ---- */

/* A temporary file holding len bytes of data; its name in path. */
static void write_temp(char path[PATH_LEN], const void *data, size_t len)
{
    snprintf(path, PATH_LEN, "/tmp/slap-test-trace-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    assert_int_equal(close(fd), 0);
}

/* text compressed with zstd as `frames` frames, written to a temporary file. */
static void write_zstd(char path[PATH_LEN], const char *text, size_t len, int frames, size_t cut)
{
    size_t bound = ZSTD_compressBound(len) * (size_t)frames + 64, out = 0;
    char *z = malloc(bound);
    assert_non_null(z);
    for (int i = 0; i < frames; i++) {
        size_t from = len * (size_t)i / (size_t)frames, to = len * (size_t)(i + 1) / (size_t)frames;
        size_t n = ZSTD_compress(z + out, bound - out, text + from, to - from, 3);
        assert_false(ZSTD_isError(n));
        out += n;
    }
    write_temp(path, z, out - cut);
    free(z);
}

static struct trace_reader *open_ok(const char *path, bool skip_bad, uint64_t limit,
                                    uint32_t value_max)
{
    struct trace_options o = {
        .path = path, .skip_bad = skip_bad, .limit = limit, .value_max = value_max};
    struct trace_reader *t = NULL;
    char err[ERR_LEN] = "";
    if (trace_open(&t, &o, err, sizeof(err)) != SLAP_OK) {
        fail_msg("trace_open(%s): %s", path, err);
    }
    return t;
}

/* Open text as a plain trace file. */
static struct trace_reader *open_text(char path[PATH_LEN], const char *text, bool skip_bad)
{
    write_temp(path, text, strlen(text));
    return open_ok(path, skip_bad, 0, 0);
}

/* The next request, which must be there. */
static struct trace_request next_ok(struct trace_reader *t)
{
    struct trace_request r;
    char err[ERR_LEN] = "";
    enum slap_status st = trace_next(t, &r, err, sizeof(err));
    if (st != SLAP_OK) {
        fail_msg("trace_next: %d %s", st, err);
    }
    return r;
}

/* The end of the trace, or an error whose message must contain want. */
static void next_fails(struct trace_reader *t, const char *want)
{
    struct trace_request r;
    char err[ERR_LEN] = "";
    enum slap_status st = trace_next(t, &r, err, sizeof(err));
    if (want == NULL) {
        assert_int_equal(st, SLAP_AGAIN);
        return;
    }
    assert_int_equal(st, SLAP_ERROR);
    if (strstr(err, want) == NULL) {
        fail_msg("message '%s' lacks '%s'", err, want);
    }
}

static struct trace_request parse_ok(const char *line, uint64_t *second)
{
    struct trace_request r;
    char err[ERR_LEN] = "";
    memset(&r, 0xa5, sizeof(r));
    if (trace_parse_line(line, strlen(line), &r, second, err, sizeof(err)) != SLAP_OK) {
        fail_msg("refused '%s': %s", line, err);
    }
    return r;
}

static void assert_key(const struct trace_request *r, const char *want)
{
    assert_int_equal(r->key_len, strlen(want));
    assert_memory_equal(r->key, want, r->key_len);
}

/* ---- parsing ---- */

static void test_parse_fields(void **state)
{
    (void)state;
    uint64_t second;
    struct trace_request r = parse_ok("1573,user:42,7,100,5,set,3600", &second);
    assert_int_equal(second, 1573);
    assert_key(&r, "user:42");
    assert_int_equal(r.value_size, 100);
    assert_int_equal(r.client, 5);
    assert_int_equal(r.op, OP_SET);
    assert_int_equal(r.ttl, 3600);

    r = parse_ok("0,k,1,4294967295,18446744073709551615,prepend,4294967295", &second);
    assert_int_equal(second, 0);
    assert_int_equal(r.value_size, UINT32_MAX);
    assert_int_equal(r.client, UINT64_MAX);
    assert_int_equal(r.op, OP_PREPEND);
    assert_int_equal(r.ttl, UINT32_MAX);

    r = parse_ok("18446744072,k,1,007,0,get,0", &second); /* the largest timestamp */
    assert_int_equal(second, 18446744072ull);
    assert_int_equal(r.value_size, 0); /* a get carries no value */
}

static void test_parse_every_op(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        enum op_type op;
        bool carries_value;
    } ops[] = {
        {"get", OP_GET, false},      {"gets", OP_GETS, false},      {"set", OP_SET, true},
        {"add", OP_ADD, true},       {"replace", OP_REPLACE, true}, {"cas", OP_CAS, true},
        {"append", OP_APPEND, true}, {"prepend", OP_PREPEND, true}, {"delete", OP_DELETE, false},
        {"incr", OP_INCR, false},    {"decr", OP_DECR, false},
    };
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(ops); i++) {
        char line[64];
        uint64_t second;
        snprintf(line, sizeof(line), "3,key,3,77,1,%s,0", ops[i].name);
        struct trace_request r = parse_ok(line, &second);
        assert_int_equal(r.op, ops[i].op);
        assert_int_equal(r.value_size, ops[i].carries_value ? 77 : 0);
    }
}

static void test_parse_commas_in_key(void **state)
{
    (void)state;
    uint64_t second;
    struct trace_request r = parse_ok("9,a,b,,c,6,10,2,get,0", &second);
    assert_int_equal(second, 9);
    assert_key(&r, "a,b,,c");
    assert_int_equal(r.client, 2);
    r = parse_ok("9,,,2,10,2,get,0", &second); /* the key is a comma */
    assert_key(&r, ",_");
}

static void test_parse_errors(void **state)
{
    (void)state;
    char long_key[400], long_size[400], x300[301];
    memset(x300, 'x', 300);
    x300[300] = '\0';
    snprintf(long_key, sizeof(long_key), "1,%s,30,1,1,get,0", x300);
    snprintf(long_size, sizeof(long_size), "1,%s,300,1,1,get,0", x300);
    const struct {
        const char *line;
        const char *want;
    } cases[] = {
        {"", "1 field, not 7"},
        {"1573", "1 field, not 7"},
        {"1,k", "2 fields, not 7"},
        {"1,k,3,4,5,get", "6 fields, not 7"},
        {"x,k,1,1,1,get,0", "timestamp 'x' is not a whole number"},
        {"-1,k,1,1,1,get,0", "timestamp '-1' is not a whole number"},
        {" 1,k,1,1,1,get,0", "timestamp ' 1' is not a whole number"},
        {"18446744073,k,1,1,1,get,0", "timestamp '18446744073' is too large (at most 18446744072)"},
        {",k,1,1,1,get,0", "the timestamp is empty"},
        {"1,k,,1,1,get,0", "the key size is empty"},
        {"1,k,1.5,1,1,get,0", "key size '1.5' is not a whole number"},
        {"1,k,1,1e3,1,get,0", "value size '1e3' is not a whole number"},
        {"1,k,1,4294967296,1,get,0", "value size '4294967296' is too large (at most 4294967295)"},
        {"1,k,1,1,18446744073709551616,get,0", "client id '18446744073709551616' is too large"},
        {"1,k,1,1,+1,get,0", "client id '+1' is not a whole number"},
        {"1,k,1,1,1,GET,0", "unknown operation 'GET'"},
        {"1,k,1,1,1,gat,0", "unknown operation 'gat'"},
        {"1,k,1,1,1,touch,0", "unknown operation 'touch'"},
        {"1,k,1,1,1,,0", "unknown operation ''"},
        {"1,k,1,1,1,get,", "the TTL is empty"},
        {"1,k,1,1,1,get,4294967296", "TTL '4294967296' is too large (at most 4294967295)"},
        {"1,k,1,1,1,get,0 ", "TTL '0 ' is not a whole number"},
        {"1,k,0,1,1,get,0", "key size 0 is not 1 to 250 bytes"},
        {long_size, "key size 300 is not 1 to 250 bytes"},
        {"1,k,300,1,1,get,0", "key size 300 is not 1 to 250 bytes"},
        {long_key, "the key is 300 bytes long, not 1 to 250"},
        {"1,,5,1,1,get,0", "the key is 0 bytes long, not 1 to 250"},
    };
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(cases); i++) {
        struct trace_request r;
        uint64_t second;
        char err[ERR_LEN] = "";
        enum slap_status st =
            trace_parse_line(cases[i].line, strlen(cases[i].line), &r, &second, err, sizeof(err));
        if (st != SLAP_ERROR || strstr(err, cases[i].want) == NULL) {
            fail_msg("'%s': status %d, message '%s', wanted '%s'", cases[i].line, st, err,
                     cases[i].want);
        }
    }
}

/* A message shows a trace's bytes only as printable text: others escaped, and cut. */
static void test_parse_error_quotes_safely(void **state)
{
    (void)state;
    const char line[] = "1,k,1,1,1,g\x1b[2J\xff\\,0";
    char err[ERR_LEN] = "";
    struct trace_request r;
    uint64_t second;
    assert_int_equal(trace_parse_line(line, sizeof(line) - 1, &r, &second, err, sizeof(err)),
                     SLAP_ERROR);
    assert_non_null(strstr(err, "unknown operation 'g\\x1b[2J\\xff\\x5c'"));
    for (const char *p = err; *p != '\0'; p++) {
        assert_true(*p >= 0x20 && *p < 0x7f);
    }
    char op[200];
    memset(op, 'z', sizeof(op));
    snprintf(op + 150, 50, ",0");
    char longer[260];
    snprintf(longer, sizeof(longer), "1,k,1,1,1,%s", op);
    assert_int_equal(trace_parse_line(longer, strlen(longer), &r, &second, err, sizeof(err)),
                     SLAP_ERROR);
    assert_non_null(strstr(err, "'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz...'"));
}

/* ---- keys ---- */

static void assert_hashed_form(const char *out, uint32_t len)
{
    assert_true(len >= 33);
    assert_int_equal(out[0], 'h');
    for (int i = 1; i < 33; i++) {
        assert_non_null(strchr("0123456789abcdef", out[i]));
    }
    for (uint32_t i = 33; i < len; i++) {
        assert_int_equal(out[i], '_');
    }
}

static void test_key_plain_and_padded(void **state)
{
    (void)state;
    char out[TRACE_KEY_MAX];
    bool hashed = true;
    assert_int_equal(trace_key("abc", 3, 10, out, &hashed), 10);
    assert_false(hashed);
    assert_memory_equal(out, "abc_______", 10);
    assert_int_equal(trace_key("abcdef", 6, 3, out, &hashed), 6); /* longer than its size: kept */
    assert_memory_equal(out, "abcdef", 6);
    assert_int_equal(trace_key("~!{}", 4, 4, out, &hashed), 4);
    assert_false(hashed);
    assert_int_equal(trace_key("a", 1, 1000, out, &hashed), TRACE_KEY_MAX); /* padded to 250 */
    assert_int_equal(out[TRACE_KEY_MAX - 1], '_');
    char longest[TRACE_KEY_MAX];
    memset(longest, 'q', sizeof(longest));
    assert_int_equal(trace_key(longest, TRACE_KEY_MAX, 1, out, &hashed), TRACE_KEY_MAX);
    assert_false(hashed);
}

static void test_key_hashed(void **state)
{
    (void)state;
    static const struct {
        const char *key;
        size_t len;
    } refused[] = {
        {"a b", 3},   {"a\tb", 3}, {"a\nb", 3},        {"a\rb", 3}, {"a\0b", 3},
        {"a\x7f", 2}, {"\x80", 1}, {"caf\xc3\xa9", 5}, {"", 0},
    };
    char out[TRACE_KEY_MAX], again[TRACE_KEY_MAX];
    bool hashed = false;
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(refused); i++) {
        uint32_t len = trace_key(refused[i].key, refused[i].len, 3, out, &hashed);
        assert_true(hashed);
        assert_int_equal(len, 33);
        assert_hashed_form(out, len);
        assert_int_equal(trace_key(refused[i].key, refused[i].len, 3, again, &hashed), len);
        assert_memory_equal(out, again, len); /* the same key, the same replacement */
    }
    trace_key("a b", 3, 40, out, &hashed);
    trace_key("a c", 3, 40, again, &hashed);
    assert_hashed_form(out, 40);
    assert_memory_not_equal(out, again, 33);
    char too_long[TRACE_KEY_MAX + 1];
    memset(too_long, 'q', sizeof(too_long));
    assert_int_equal(trace_key(too_long, sizeof(too_long), 250, out, &hashed), TRACE_KEY_MAX);
    assert_true(hashed);
    assert_hashed_form(out, TRACE_KEY_MAX);
}

static void test_parse_hashes_refused_keys(void **state)
{
    (void)state;
    uint64_t second;
    struct trace_request r = parse_ok("1,a key,40,1,1,get,0", &second);
    assert_int_equal(r.key_len, 40);
    assert_hashed_form(r.key, r.key_len);
}

/* ---- reading ---- */

static void test_spread_within_seconds(void **state)
{
    (void)state;
    char path[PATH_LEN];
    struct trace_reader *t = open_text(path,
                                       "10,a,1,1,1,get,0\n10,b,1,1,1,get,0\n10,c,1,1,1,get,0\n"
                                       "11,d,1,1,1,get,0\n"
                                       "13,e,1,1,1,get,0\n13,f,1,1,1,get,0\n",
                                       false);
    static const uint64_t want[] = {0, NS / 3, 2 * NS / 3, NS, 3 * NS, 3 * NS + NS / 2};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(want); i++) {
        struct trace_request r = next_ok(t);
        assert_int_equal(r.offset_ns, want[i]);
        assert_int_equal(r.line, i + 1);
        assert_int_equal(r.key[0], 'a' + (int)i);
    }
    next_fails(t, NULL);
    next_fails(t, NULL);
    const struct trace_counts *c = trace_counts(t);
    assert_int_equal(c->requests, 6);
    assert_int_equal(c->first_line, 1);
    assert_int_equal(c->last_line, 6);
    assert_int_equal(c->first_second, 10);
    assert_int_equal(c->last_second, 13);
    assert_int_equal(c->skipped, 0);
    trace_close(t);
    unlink(path);
}

/* A second of more than TRACE_SECOND_MAX requests comes in parts, each spread over it. */
static void test_second_larger_than_held(void **state)
{
    (void)state;
    const uint32_t extra = 4, n = TRACE_SECOND_MAX + extra;
    const char line[] = "5,k,1,1,1,get,0\n";
    size_t len = sizeof(line) - 1;
    char *text = malloc((size_t)n * len + 32);
    assert_non_null(text);
    for (uint32_t i = 0; i < n; i++) {
        memcpy(text + (size_t)i * len, line, len);
    }
    strcpy(text + (size_t)n * len, "6,k,1,1,1,get,0\n");
    char path[PATH_LEN];
    write_temp(path, text, strlen(text));
    free(text);
    struct trace_reader *t = open_ok(path, false, 0, 0);
    for (uint32_t i = 0; i < TRACE_SECOND_MAX; i++) {
        struct trace_request r = next_ok(t);
        if (r.offset_ns != (uint64_t)i * NS / TRACE_SECOND_MAX || r.line != i + 1) {
            fail_msg("request %u: offset %llu, line %llu", i, (unsigned long long)r.offset_ns,
                     (unsigned long long)r.line);
        }
    }
    for (uint32_t i = 0; i < extra; i++) { /* the second part, spread over the same second */
        struct trace_request r = next_ok(t);
        assert_int_equal(r.offset_ns, (uint64_t)i * NS / extra);
        assert_int_equal(r.line, TRACE_SECOND_MAX + i + 1);
    }
    assert_int_equal(next_ok(t).offset_ns, NS);
    next_fails(t, NULL);
    trace_close(t);
    unlink(path);
}

/* The same requests as a plain file gives: every field, offsets and counts. */
static void assert_same_requests(const char *plain_path, const char *other_path)
{
    struct trace_reader *a = open_ok(plain_path, false, 0, 0);
    struct trace_reader *b = open_ok(other_path, false, 0, 0);
    uint64_t n = 0;
    for (;; n++) {
        struct trace_request ra, rb;
        char err[ERR_LEN] = "";
        enum slap_status sa = trace_next(a, &ra, err, sizeof(err));
        enum slap_status sb = trace_next(b, &rb, err, sizeof(err));
        assert_int_equal(sa, sb);
        if (sa != SLAP_OK) {
            break;
        }
        assert_int_equal(ra.offset_ns, rb.offset_ns);
        assert_int_equal(ra.line, rb.line);
        assert_int_equal(ra.op, rb.op);
        assert_int_equal(ra.value_size, rb.value_size);
        assert_int_equal(ra.client, rb.client);
        assert_int_equal(ra.ttl, rb.ttl);
        assert_int_equal(ra.key_len, rb.key_len);
        assert_memory_equal(ra.key, rb.key, ra.key_len);
    }
    assert_int_equal(n, MANY_LINES);
    assert_int_equal(trace_counts(b)->requests, MANY_LINES);
    trace_close(a);
    trace_close(b);
}

/* MANY_LINES lines of varied lengths, so lines straddle every buffer boundary. */
static char *many_lines(size_t *len)
{
    char *text = malloc((size_t)MANY_LINES * 200);
    assert_non_null(text);
    *len = 0;
    for (unsigned i = 0; i < MANY_LINES; i++) {
        unsigned key_len = 6 + i * 7919 % 120;
        *len += (size_t)sprintf(text + *len, "%u,%0*u,%u,%u,%u,%s,%u\n", i / 1000, key_len, i,
                                key_len, i % 5000, i % 13, i % 3 ? "get" : "set", i % 100);
    }
    return text;
}

static void test_zstd_and_plain(void **state)
{
    (void)state;
    size_t len;
    char *text = many_lines(&len);
    char plain[PATH_LEN], one[PATH_LEN], three[PATH_LEN];
    write_temp(plain, text, len);
    write_zstd(one, text, len, 1, 0);
    write_zstd(three, text, len, 3, 0);
    assert_same_requests(plain, one);
    assert_same_requests(plain, three); /* concatenated frames, as zstd -c a b writes */
    char skip[PATH_LEN]; /* a skippable frame first (magic 0x184d2a5?, 4 bytes of payload) */
    write_zstd(skip, text, len, 1, 0);
    FILE *f = fopen(skip, "rb");
    assert_non_null(f);
    char *z = malloc(len + 12);
    assert_non_null(z);
    memcpy(z, "\x53\x2a\x4d\x18\x04\x00\x00\x00skip", 12);
    size_t zlen = 12 + fread(z + 12, 1, len, f);
    fclose(f);
    unlink(skip);
    write_temp(skip, z, zlen);
    free(z);
    assert_same_requests(plain, skip);
    unlink(skip);

    struct trace_reader *t = open_ok(plain, false, 0, 0); /* spot checks of the parse */
    for (unsigned i = 0; i < MANY_LINES; i++) {
        struct trace_request r = next_ok(t);
        unsigned key_len = 6 + i * 7919 % 120;
        char key[160];
        snprintf(key, sizeof(key), "%0*u", key_len, i);
        assert_int_equal(r.key_len, key_len);
        assert_memory_equal(r.key, key, key_len);
        assert_int_equal(r.client, i % 13);
    }
    trace_close(t);
    free(text);
    unlink(plain);
    unlink(one);
    unlink(three);
}

static void test_zstd_damaged(void **state)
{
    (void)state;
    size_t len;
    char *text = many_lines(&len);
    char cut[PATH_LEN];
    write_zstd(cut, text, len, 1, 100);
    struct trace_reader *t = open_ok(cut, false, 0, 0);
    struct trace_request r;
    char err[ERR_LEN] = "";
    enum slap_status st;
    uint64_t n = 0;
    while ((st = trace_next(t, &r, err, sizeof(err))) == SLAP_OK) {
        n++;
    }
    assert_int_equal(st, SLAP_ERROR);
    assert_true(n < MANY_LINES);
    assert_non_null(strstr(err, cut));
    assert_non_null(strstr(err, "the zstd stream is cut short"));
    trace_close(t);
    unlink(cut);

    char garbage[PATH_LEN];
    const char bad[] = "\x28\xb5\x2f\xfd this is no frame";
    write_temp(garbage, bad, sizeof(bad) - 1);
    t = open_ok(garbage, false, 0, 0);
    next_fails(t, "cannot decompress");
    trace_close(t);
    unlink(garbage);
    free(text);
}

static void test_stdin(void **state)
{
    (void)state;
    char path[PATH_LEN];
    const char text[] = "1,a,1,5,1,set,0\n1,b,1,5,1,get,0\n2,c,1,5,1,bad,0\n";
    write_temp(path, text, sizeof(text) - 1);
    int saved = dup(STDIN_FILENO), fd = open(path, O_RDONLY);
    assert_true(saved >= 0 && fd >= 0);
    assert_int_equal(dup2(fd, STDIN_FILENO), STDIN_FILENO);
    close(fd);
    struct trace_reader *t = open_ok("-", false, 0, 0);
    struct trace_request r = next_ok(t);
    assert_int_equal(r.op, OP_SET);
    assert_int_equal(next_ok(t).offset_ns, NS / 2);
    next_fails(t, "stdin:3: unknown operation 'bad'");
    trace_close(t);
    assert_true(fcntl(STDIN_FILENO, F_GETFD) != -1); /* stdin is not closed with the trace */
    assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
    close(saved);
    unlink(path);
}

static void test_limit(void **state)
{
    (void)state;
    char path[PATH_LEN];
    const char text[] = "1,a,1,1,1,get,0\n1,b,1,1,1,get,0\n1,c,1,1,1,get,0\n2,d,1,1,1,get,0\n";
    write_temp(path, text, sizeof(text) - 1);
    struct trace_reader *t = open_ok(path, false, 2, 0);
    assert_int_equal(next_ok(t).offset_ns, 0);
    assert_int_equal(next_ok(t).offset_ns, NS / 3); /* still spread over its whole second */
    next_fails(t, NULL);
    next_fails(t, NULL);
    const struct trace_counts *c = trace_counts(t);
    assert_int_equal(c->requests, 2);
    assert_int_equal(c->first_line, 1);
    assert_int_equal(c->last_line, 2);
    trace_close(t);
    unlink(path);
}

static void test_bad_line_named(void **state)
{
    (void)state;
    char path[PATH_LEN];
    struct trace_reader *t = open_text(
        path, "1,a,1,1,1,get,0\n1,b,1,1,1,get,0\n1,c,1,x,1,get,0\n1,d,1,1,1,get,0\n", false);
    char want[PATH_LEN + 64];
    next_ok(t); /* the requests before the bad line are still handed out */
    next_ok(t);
    snprintf(want, sizeof(want), "'%s':3: value size 'x' is not a whole number", path);
    next_fails(t, want);
    next_fails(t, want); /* and it stays stopped */
    trace_close(t);
    unlink(path);
}

static void test_skip_bad(void **state)
{
    (void)state;
    char path[PATH_LEN], long_line[2100];
    memset(long_line, '7', 2000);
    strcpy(long_line + 2000, ",k,1,1,1,get,0\n");
    char text[4096];
    snprintf(text, sizeof(text),
             "1,a,1,1,1,get,0\n"
             "1,b,1,1,1\n"         /* 2: fields missing */
             "%s"                  /* 3: too long */
             "1,c,1,1,1,fetch,0\n" /* 4: unknown op */
             "0,d,1,1,1,get,0\n"   /* 5: backwards */
             "\n"                  /* 6: empty */
             "2,e,1,1,1,get,0\n",
             long_line);
    struct trace_reader *t = open_text(path, text, true);
    assert_int_equal(next_ok(t).line, 1);
    struct trace_request r = next_ok(t);
    assert_int_equal(r.line, 7);
    assert_int_equal(r.offset_ns, NS);
    next_fails(t, NULL);
    assert_int_equal(trace_counts(t)->skipped, 5);
    trace_close(t);
    unlink(path);

    t = open_text(path, text, false);
    next_ok(t);
    char want[PATH_LEN + 32];
    snprintf(want, sizeof(want), "'%s':2: 5 fields, not 7", path);
    next_fails(t, want);
    trace_close(t);
    unlink(path);
}

static void test_backwards_and_long_lines_named(void **state)
{
    (void)state;
    char path[PATH_LEN];
    struct trace_reader *t =
        open_text(path, "9,a,1,1,1,get,0\n9,b,1,1,1,get,0\n5,c,1,1,1,get,0\n", false);
    next_ok(t);
    next_ok(t);
    next_fails(t, ":3: timestamp 5 is before the previous request's 9");
    trace_close(t);
    unlink(path);

    char text[3000];
    memset(text, 'k', 2500);
    strcpy(text + 2500, "\n1,a,1,1,1,get,0\n");
    t = open_text(path, text, false);
    next_fails(t, ":1: a line longer than 1024 bytes");
    trace_close(t);
    unlink(path);
    text[2500] = '\0'; /* no newline: the last line of the file */
    t = open_text(path, text, false);
    next_fails(t, ":1: a line longer than 1024 bytes");
    trace_close(t);
    unlink(path);
}

static void test_line_ends(void **state)
{
    (void)state;
    char path[PATH_LEN];
    struct trace_reader *t = open_text(path, "1,a,1,1,1,get,0\r\n1,b,1,1,1,get,7", false);
    struct trace_request r = next_ok(t);
    assert_int_equal(r.ttl, 0);
    r = next_ok(t); /* the last line has no newline */
    assert_int_equal(r.ttl, 7);
    next_fails(t, NULL);
    trace_close(t);
    unlink(path);

    t = open_text(path, "", false); /* an empty trace: no requests, no error */
    next_fails(t, NULL);
    assert_int_equal(trace_counts(t)->requests, 0);
    assert_int_equal(trace_counts(t)->first_line, 0);
    trace_close(t);
    unlink(path);
}

static void test_value_cap_and_hashed_counts(void **state)
{
    (void)state;
    char path[PATH_LEN];
    const char text[] = "1,a,1,5000,1,set,0\n1,b,1,5000,1,get,0\n1,c,1,1000,1,append,0\n"
                        "1,d e,5,10,1,set,0\n";
    write_temp(path, text, sizeof(text) - 1);
    struct trace_reader *t = open_ok(path, false, 0, 1000);
    assert_int_equal(next_ok(t).value_size, 1000);
    assert_int_equal(next_ok(t).value_size, 0);
    assert_int_equal(next_ok(t).value_size, 1000);
    assert_int_equal(next_ok(t).key_len, 33);
    const struct trace_counts *c = trace_counts(t);
    assert_int_equal(c->values_cut, 1);
    assert_int_equal(c->keys_hashed, 1);
    trace_close(t);
    t = open_ok(path, false, 0, 0); /* value_max 0: no cap */
    assert_int_equal(next_ok(t).value_size, 5000);
    trace_close(t);
    unlink(path);
}

static void expect_open_error(const char *path, const char *want)
{
    struct trace_options o = {.path = path};
    struct trace_reader *t = (struct trace_reader *)(uintptr_t)1; /* must be set to NULL */
    char err[ERR_LEN] = "";
    assert_int_equal(trace_open(&t, &o, err, sizeof(err)), SLAP_ERROR);
    assert_null(t);
    trace_close(t);
    if (strstr(err, want) == NULL || strstr(err, path) == NULL) {
        fail_msg("'%s' lacks '%s' or the file's name", err, want);
    }
}

static void test_open_errors(void **state)
{
    (void)state;
    expect_open_error("/nonexistent/trace.csv", "cannot open: No such file or directory");
    expect_open_error("/tmp", "cannot read: Is a directory");
    char path[PATH_LEN];
    write_temp(path, "\x1f\x8b\x08\x00rest", 8);
    expect_open_error(path, "gzip-compressed");
    unlink(path);
    write_temp(path, "0,a\0b", 5);
    expect_open_error(path, "neither plain text nor zstd-compressed");
    unlink(path);
}

/* A due time past 64 bits of nanoseconds is never, not a wrap to now. */
static void test_due_saturates(void **state)
{
    (void)state;
    const uint64_t start = 5 * SLAP_NS_PER_SEC;
    const uint64_t last_offset = 18446744072ULL * SLAP_NS_PER_SEC; /* 0 to the last timestamp */
    assert_int_equal(trace_due_ns(start, 0, 1.0), start);
    assert_int_equal(trace_due_ns(start, 3 * SLAP_NS_PER_SEC, 2.0), start + 1500000000ULL);
    assert_int_equal(trace_due_ns(start, last_offset, 1.0), UINT64_MAX);
    assert_int_equal(trace_due_ns(0, UINT64_MAX, 1.0), UINT64_MAX);
    assert_int_equal(trace_due_ns(start, 1000000000ULL * SLAP_NS_PER_SEC, 0.001), UINT64_MAX);
    assert_true(trace_due_ns(start, 1000000000ULL * SLAP_NS_PER_SEC, 1.0) ==
                start + 1000000000ULL * SLAP_NS_PER_SEC); /* a long gap that fits */
    assert_int_equal(trace_due_ns(UINT64_MAX - 10, 1000, 1.0), UINT64_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_fields),
        cmocka_unit_test(test_parse_every_op),
        cmocka_unit_test(test_parse_commas_in_key),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_error_quotes_safely),
        cmocka_unit_test(test_key_plain_and_padded),
        cmocka_unit_test(test_key_hashed),
        cmocka_unit_test(test_parse_hashes_refused_keys),
        cmocka_unit_test(test_spread_within_seconds),
        cmocka_unit_test(test_second_larger_than_held),
        cmocka_unit_test(test_zstd_and_plain),
        cmocka_unit_test(test_zstd_damaged),
        cmocka_unit_test(test_stdin),
        cmocka_unit_test(test_limit),
        cmocka_unit_test(test_bad_line_named),
        cmocka_unit_test(test_skip_bad),
        cmocka_unit_test(test_backwards_and_long_lines_named),
        cmocka_unit_test(test_line_ends),
        cmocka_unit_test(test_value_cap_and_hashed_counts),
        cmocka_unit_test(test_open_errors),
        cmocka_unit_test(test_due_saturates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
