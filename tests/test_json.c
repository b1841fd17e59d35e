/* Unit tests of json: the writer's output, the strict reader's tree and what it refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/base/json.h"

static struct json_value *parse_ok(const char *text)
{
    struct json_value *v = NULL;
    char err[256] = "";
    if (json_parse(text, strlen(text), &v, err, sizeof(err)) != SLAP_OK) {
        fail_msg("'%s' did not parse: %s", text, err);
    }
    return v;
}

static void test_reads_a_document(void **state)
{
    (void)state;
    struct json_value *v = parse_ok(" {\"a\": [1, -2.5e3, true, false, null],\n"
                                    "  \"b\": {\"c\": \"x\\\"y\\\\z\\n\\u00e9\\ud83d\\ude00\"},"
                                    "  \"big\": 18446744073709551615, \"e\": {}, \"f\": []} ");
    assert_int_equal(v->type, JSON_OBJECT);
    assert_int_equal(v->n, 5);
    const struct json_value *a = json_get(v, "a");
    assert_int_equal(a->type, JSON_ARRAY);
    assert_int_equal(a->n, 5);
    double d = 0;
    uint64_t u = 0;
    assert_true(json_to_u64(a->items[0], &u));
    assert_int_equal(u, 1);
    assert_false(json_to_u64(a->items[1], &u)); /* negative, fraction: not a count */
    assert_true(json_to_double(a->items[1], &d));
    assert_true(d == -2500.0);
    assert_int_equal(a->items[2]->type, JSON_TRUE);
    assert_int_equal(a->items[3]->type, JSON_FALSE);
    assert_int_equal(a->items[4]->type, JSON_NULL);
    assert_string_equal(json_to_string(json_get(json_get(v, "b"), "c")),
                        "x\"y\\z\n\xc3\xa9\xf0\x9f\x98\x80");
    assert_true(json_to_u64(json_get(v, "big"), &u));
    assert_true(u == UINT64_MAX);
    assert_int_equal(json_get(v, "e")->n, 0);
    assert_int_equal(json_get(v, "f")->type, JSON_ARRAY);
    assert_null(json_get(v, "missing"));
    assert_null(json_get(a, "a")); /* not an object */
    json_free(v);
}

/* A string holding a NUL reads as no string: no caller could take it whole (a label "a\u0000b"
 * would be read as "a"). */
static void test_string_with_nul(void **state)
{
    (void)state;
    struct json_value *v = NULL;
    char err[128];
    const char *text = "{\"s\": \"a\\u0000b\", \"t\": \"ab\"}";
    assert_int_equal(json_parse(text, strlen(text), &v, err, sizeof(err)), SLAP_OK);
    assert_int_equal(json_get(v, "s")->type, JSON_STRING);
    assert_int_equal(json_get(v, "s")->len, 3);
    assert_null(json_to_string(json_get(v, "s")));
    assert_string_equal(json_to_string(json_get(v, "t")), "ab");
    json_free(v);
}

static void test_refuses(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",        "   ",        "{",           "}",           "[1,]",
        "[1 2]",   "{\"a\":1,}", "{\"a\" 1}",   "{a:1}",       "{\"a\":1,\"a\":2}",
        "01",      "1.",         ".5",          "1e",          "-",
        "+1",      "tru",        "nul",         "\"abc",       "\"a\tb\"",
        "\"\\x\"", "\"\\u12\"",  "\"\\ud800\"", "\"\\udc00\"", "[1] [2]",
        "NaN",     "Infinity",   "{\"a\":1}x",  "\"\\",        "[\"\\ud83d\\u0041\"]",
    };
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(bad); i++) {
        struct json_value *v = (struct json_value *)1;
        char err[256] = "";
        if (json_parse(bad[i], strlen(bad[i]), &v, err, sizeof(err)) != SLAP_ERROR) {
            fail_msg("'%s' was accepted", bad[i]);
        }
        assert_null(v);
        assert_non_null(strstr(err, "line 1, column "));
    }
}

/* A UTF-8 byte order mark before a document is named, not "unexpected character". */
static void test_byte_order_mark_named(void **state)
{
    (void)state;
    static const char text[] = "\xef\xbb\xbf{\"a\": 1}";
    struct json_value *v = (struct json_value *)1;
    char err[256] = "";
    assert_int_equal(json_parse(text, sizeof(text) - 1, &v, err, sizeof(err)), SLAP_ERROR);
    assert_null(v);
    assert_non_null(strstr(err, "a UTF-8 byte order mark (EF BB BF) begins the text"));
}

static void test_depth_bounded(void **state)
{
    (void)state;
    char text[2 * (JSON_MAX_DEPTH + 2) + 1];
    for (int depth = JSON_MAX_DEPTH; depth <= JSON_MAX_DEPTH + 1; depth++) {
        memset(text, '[', (size_t)depth + 1);
        memset(text + depth + 1, ']', (size_t)depth + 1);
        text[2 * depth + 2] = '\0';
        struct json_value *v = NULL;
        char err[256];
        enum slap_status st = json_parse(text, strlen(text), &v, err, sizeof(err));
        assert_int_equal(st, depth <= JSON_MAX_DEPTH ? SLAP_OK : SLAP_ERROR);
        json_free(v);
    }
}

static void test_error_position(void **state)
{
    (void)state;
    struct json_value *v = NULL;
    char err[256];
    const char *text = "{\n  \"a\": 1,\n  \"b\": ?\n}";
    assert_int_equal(json_parse(text, strlen(text), &v, err, sizeof(err)), SLAP_ERROR);
    assert_non_null(strstr(err, "line 3, column 8"));
}

/* Every member of a large object is found by name, the members kept in the document's order
 * (they are sorted aside, for json_get's binary search and to find a name given twice). */
static void test_members_found_by_name(void **state)
{
    (void)state;
    enum { MEMBERS = 3000 };
    size_t cap = MEMBERS * 24 + 8, used = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    used += (size_t)snprintf(text + used, cap - used, "{");
    for (unsigned i = 0; i < MEMBERS; i++) { /* names out of order: m(7919 i mod MEMBERS) */
        used += (size_t)snprintf(text + used, cap - used, "%s\"m%u\": %u", i ? ", " : "",
                                 i * 7919 % MEMBERS, i);
    }
    snprintf(text + used, cap - used, "}");
    struct json_value *v = parse_ok(text);
    assert_int_equal(v->n, MEMBERS);
    for (unsigned i = 0; i < MEMBERS; i++) {
        char name[16];
        uint64_t at = MEMBERS;
        snprintf(name, sizeof(name), "m%u", i * 7919 % MEMBERS);
        assert_string_equal(v->keys[i], name);
        assert_true(json_to_u64(json_get(v, name), &at));
        assert_int_equal(at, i);
    }
    assert_null(json_get(v, "m"));
    assert_null(json_get(v, "m3000"));
    assert_null(json_get(v, ""));
    json_free(v);
    free(text);
}

/* A name given twice is refused where its second instance ends: the first member, in the
 * document, whose name an earlier member had ("b" here, not "a"), and an inner object's
 * before its own. */
static void test_repeated_name_where_given(void **state)
{
    (void)state;
    static const struct {
        const char *text, *where, *name;
    } cases[] = {
        {"{\"a\":1,\"b\":2,\"c\":3,\"b\":4,\"a\":5}", "line 1, column 23", "'b'"},
        {"{\n\"a\": 1,\n\"b\": 2,\n\"a\": 3\n}", "line 4, column 4", "'a'"},
        {"{\"a\":1,\"o\":{\"x\":1,\"x\":2},\"a\":2}", "line 1, column 22", "'x'"},
    };
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(cases); i++) {
        struct json_value *v = (struct json_value *)1;
        char err[256] = "";
        assert_int_equal(json_parse(cases[i].text, strlen(cases[i].text), &v, err, sizeof(err)),
                         SLAP_ERROR);
        assert_null(v);
        if (strstr(err, cases[i].where) == NULL || strstr(err, cases[i].name) == NULL ||
            strstr(err, "is repeated") == NULL) {
            fail_msg("'%s': %s", cases[i].text, err);
        }
    }
}

/* The writer's text reads back to the same values. */
static void test_writer_round_trip(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    struct json_writer w;
    json_writer_init(&w, out);
    json_open_object(&w, NULL);
    json_u64(&w, "n", UINT64_MAX);
    json_double(&w, "x", 0.1);
    json_double(&w, "third", 1.0 / 3.0);
    json_double(&w, "inf", 1.0 / 0.0);
    json_string(&w, "s", "quote\" back\\ tab\t \x01");
    json_open_array(&w, "pairs", true);
    for (int i = 0; i < 3; i++) {
        json_open_array(&w, NULL, true);
        json_u64(&w, NULL, (uint64_t)i);
        json_bool(&w, NULL, i % 2 == 0);
        json_close(&w);
    }
    json_close(&w);
    json_open_object(&w, "empty");
    json_close(&w);
    json_null(&w, "none");
    json_close(&w);
    fclose(out);
    assert_non_null(strstr(text, "\"pairs\": [[0,true],[1,false],[2,true]]"));
    struct json_value *v = parse_ok(text);
    uint64_t u;
    double d;
    assert_true(json_to_u64(json_get(v, "n"), &u) && u == UINT64_MAX);
    assert_true(json_to_double(json_get(v, "x"), &d) && d == 0.1);
    assert_true(json_to_double(json_get(v, "third"), &d) && d == 1.0 / 3.0);
    assert_int_equal(json_get(v, "inf")->type, JSON_NULL);
    assert_string_equal(json_to_string(json_get(v, "s")), "quote\" back\\ tab\t \x01");
    assert_int_equal(json_get(v, "pairs")->n, 3);
    assert_int_equal(json_get(v, "empty")->type, JSON_OBJECT);
    json_free(v);
    free(text);
}

/* Strings are written as valid UTF-8 whatever they hold: valid sequences as they are, a byte
 * that begins none (a stray continuation, a cut sequence, an overlong form, a surrogate) as
 * \u00XX; the document then reads back. */
static void test_writer_keeps_utf8_valid(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
         "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""},
        {"a\xe0\xa0", "\"a\\u00e0\\u00a0\""}, /* cut short at the end */
        {"\xa0"
         "b",
         "\"\\u00a0b\""},                                         /* a stray continuation */
        {"\xc0\xaf", "\"\\u00c0\\u00af\""},                       /* overlong '/' */
        {"\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\""},            /* a surrogate */
        {"\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\""}, /* past U+10FFFF */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *text = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&text, &len);
        struct json_writer w;
        json_writer_init(&w, out);
        json_string(&w, NULL, cases[i].in);
        fclose(out);
        assert_string_equal(text, cases[i].out);
        struct json_value *v = parse_ok(text);
        json_free(v);
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_a_document),
        cmocka_unit_test(test_refuses),
        cmocka_unit_test(test_byte_order_mark_named),
        cmocka_unit_test(test_depth_bounded),
        cmocka_unit_test(test_error_position),
        cmocka_unit_test(test_writer_round_trip),
        cmocka_unit_test(test_string_with_nul),
        cmocka_unit_test(test_writer_keeps_utf8_valid),
        cmocka_unit_test(test_members_found_by_name),
        cmocka_unit_test(test_repeated_name_where_given),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
