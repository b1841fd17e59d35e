/* Unit tests of the codec table: the request sizes it promises match what the encoders write,
 * for every operation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "slap/proto/proto.h"
#include "slap/proto/proto_util.h"

#define KEY_MAX 250
#define NKEYS 7
#define ROOM 8192
#define VALUE_WIDEST 4000000000u /* ten digits, and a body of 32 bits in binary */

/* The longest non-retrieval request of any op with the longest key and every number at its
 * widest: never above the bound, and the widest reaches it. */
/* Every protocol has its codec row whole, under a name of its own (a row left out of the
 * middle of the table would be all zeros). */
static void test_every_codec_filled(void **state)
{
    (void)state;
    for (int k = 0; k < PROTO_KINDS; k++) {
        const struct codec *c = codec_get((enum proto_kind)k);
        assert_non_null(c->name);
        assert_non_null(c->encode_retrieve);
        assert_non_null(c->encode_store);
        assert_non_null(c->encode_command);
        assert_non_null(c->reset);
        assert_non_null(c->asked);
        assert_non_null(c->parse);
        assert_true(c->exptime_max > 0 && c->get_fixed > 0);
        assert_int_not_equal(c->auth, PROTO_AUTH_UNSET);
        for (int j = 0; j < k; j++) {
            assert_string_not_equal(c->name, codec_get((enum proto_kind)j)->name);
        }
    }
}

static void test_other_requests_bound(void **state)
{
    (void)state;
    static char key[KEY_MAX], out[ROOM];
    memset(key, 'k', sizeof(key));
    for (int k = 0; k < PROTO_KINDS; k++) { /* every codec of the table */
        const struct codec *c = codec_get((enum proto_kind)k);
        size_t bound = codec_set_header_bytes(c, KEY_MAX), longest = 0;
        for (int op = 0; op < OP_COUNT; op++) {
            size_t n;
            if (op_class((enum op_type)op) == OP_CLASS_STORAGE) {
                n = c->encode_store(out, sizeof(out), (enum op_type)op, key, KEY_MAX, UINT32_MAX,
                                    UINT32_MAX, VALUE_WIDEST, UINT64_MAX);
            } else if (op_class((enum op_type)op) == OP_CLASS_OTHER) {
                uint64_t arg = op == OP_TOUCH ? UINT32_MAX : UINT64_MAX;
                n = c->encode_command(out, sizeof(out), (enum op_type)op, key, KEY_MAX, arg);
            } else {
                continue;
            }
            assert_true(n > 0);
            assert_true(n <= bound);
            longest = n > longest ? n : longest;
        }
        assert_int_equal(longest, bound); /* tight, not just large */
    }
}

/* Retrievals of one and of several keys never pass codec_get_bytes; gat of several reaches it. */
static void test_get_bounds(void **state)
{
    (void)state;
    static char keys[NKEYS * KEY_MAX], out[ROOM];
    uint32_t lens[NKEYS];
    memset(keys, 'k', sizeof(keys));
    for (size_t k = 0; k < NKEYS; k++) {
        lens[k] = KEY_MAX;
    }
    static const enum op_type gets[] = {OP_GET, OP_GETS, OP_GAT};
    for (int k = 0; k < PROTO_KINDS; k++) { /* every codec of the table */
        const struct codec *c = codec_get((enum proto_kind)k);
        for (size_t g = 0; g < 3; g++) {
            size_t one =
                c->encode_retrieve(out, sizeof(out), gets[g], keys, 0, lens, 1, UINT32_MAX);
            assert_true(one > 0 && one <= codec_get_bytes(c, 1, KEY_MAX));
            size_t many = c->encode_retrieve(out, sizeof(out), gets[g], keys, KEY_MAX, lens, NKEYS,
                                             UINT32_MAX);
            assert_true(many > 0 && many <= codec_get_bytes(c, NKEYS, KEY_MAX));
            if (gets[g] == OP_GAT) {
                assert_int_equal(many, codec_get_bytes(c, NKEYS, KEY_MAX));
            }
            assert_true(codec_header_room(c, NKEYS, KEY_MAX) >= many);
        }
        assert_true(codec_header_room(c, 1, KEY_MAX) >= codec_set_header_bytes(c, KEY_MAX));
    }
}

/* A request that does not fit its room is refused whole, never cut. */
static void test_room_refused(void **state)
{
    (void)state;
    static char out[ROOM];
    uint32_t len = 3;
    for (int k = 0; k < PROTO_KINDS; k++) { /* every codec of the table */
        const struct codec *c = codec_get((enum proto_kind)k);
        size_t full = c->encode_store(out, sizeof(out), OP_CAS, "key", 3, 1, 2, 3, 4);
        assert_int_equal(c->encode_store(out, full - 1, OP_CAS, "key", 3, 1, 2, 3, 4), 0);
        full = c->encode_command(out, sizeof(out), OP_INCR, "key", 3, 7);
        assert_int_equal(c->encode_command(out, full - 1, OP_INCR, "key", 3, 7), 0);
        full = c->encode_retrieve(out, sizeof(out), OP_GAT, "key", 0, &len, 1, 9);
        assert_int_equal(c->encode_retrieve(out, full - 1, OP_GAT, "key", 0, &len, 1, 9), 0);
        /* and an op of the wrong kind is no request */
        assert_int_equal(c->encode_store(out, sizeof(out), OP_DELETE, "key", 3, 1, 2, 3, 4), 0);
        assert_int_equal(c->encode_command(out, sizeof(out), OP_SET, "key", 3, 7), 0);
    }
}

/* proto_parse_decimal against strtoull: digit strings of 1 to 25 digits (leading zeros too),
 * bounds at and around the value, and what follows the digits left alone. */
static void test_parse_decimal(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        uint64_t max;
        int rc;
        uint64_t value;
    } fixed[] = {
        {"18446744073709551615 ", UINT64_MAX, SLAP_OK, UINT64_MAX},
        {"18446744073709551616", UINT64_MAX, SLAP_ERROR, 0},
        {"99999999999999999999", UINT64_MAX, SLAP_ERROR, 0},
        {"9999999999999999999", UINT64_MAX, SLAP_OK, 9999999999999999999ULL},
        {"0000000000000000000000042x", 42, SLAP_OK, 42},
        {"0000000000000000000000042", 41, SLAP_ERROR, 0},
        {"4294967295", UINT32_MAX, SLAP_OK, UINT32_MAX},
        {"4294967296", UINT32_MAX, SLAP_ERROR, 0},
        {"9", 0, SLAP_ERROR, 0},
        {"0", 0, SLAP_OK, 0},
        {"", UINT64_MAX, SLAP_ERROR, 0},
        {" 1", UINT64_MAX, SLAP_ERROR, 0},
    };
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
        const char *cur = fixed[i].text, *end = cur + strlen(cur);
        uint64_t value = 0;
        int rc = proto_parse_decimal(&cur, end, fixed[i].max, &value);
        if (rc != fixed[i].rc || (rc == SLAP_OK && value != fixed[i].value)) {
            fail_msg("\"%s\" (max %llu): rc %d value %llu", fixed[i].text,
                     (unsigned long long)fixed[i].max, rc, (unsigned long long)value);
        }
        size_t digits = strspn(fixed[i].text, "0123456789");
        assert_ptr_equal(cur, fixed[i].text + (rc == SLAP_OK ? digits : 0));
    }
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int k = 0; k < 200000; k++) {
        char text[32];
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t n = 1 + (size_t)(x % 25);
        for (size_t j = 0; j < n; j++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            text[j] = (char)('0' + (j < n / 3 && (x & 1) ? 0 : x % 10));
        }
        memcpy(text + n, " 7", 3);
        errno = 0;
        unsigned long long want = strtoull(text, NULL, 10);
        bool fits = errno != ERANGE;
        uint64_t max = (x >> 8) % 3 == 0 ? UINT64_MAX : (x >> 8) % 3 == 1 ? want : want - 1;
        const char *cur = text;
        uint64_t value = 0;
        int rc = proto_parse_decimal(&cur, text + n + 2, max, &value);
        int want_rc = fits && want <= max ? SLAP_OK : SLAP_ERROR;
        if (rc != want_rc || (rc == SLAP_OK && (value != want || cur != text + n))) {
            fail_msg("\"%s\" (max %llu): rc %d value %llu, expected rc %d value %llu", text,
                     (unsigned long long)max, rc, (unsigned long long)value, want_rc, want);
        }
    }
}

/* memcached's expiry rule: up to 30 days seconds from now, above a Unix time, within the
 * protocol's field. */
static void test_exptime(void **state)
{
    (void)state;
    const struct codec *ascii = codec_get(PROTO_ASCII), *binary = codec_get(PROTO_BINARY);
    const uint64_t now = 1700000000;
    assert_int_equal(codec_exptime(ascii, 0, now), 0);
    assert_int_equal(codec_exptime(ascii, 60, now), 60);
    assert_int_equal(codec_exptime(ascii, CODEC_TTL_RELATIVE_MAX, now), CODEC_TTL_RELATIVE_MAX);
    assert_int_equal(codec_exptime(ascii, 31 * 86400, now), now + 31 * 86400); /* --exp_time 31d */
    assert_int_equal(codec_exptime(ascii, 1000000000, now), INT32_MAX); /* past 2038: the last */
    assert_int_equal(codec_exptime(codec_get(PROTO_META), 1000000000, now), INT32_MAX);
    assert_int_equal(codec_exptime(binary, 1000000000, now), now + 1000000000);
    assert_int_equal(codec_exptime(binary, UINT64_MAX, now), UINT32_MAX);
    assert_int_equal(codec_ttl_max(ascii, now), INT32_MAX - now);
    assert_int_equal(codec_ttl_max(binary, now), UINT32_MAX - now);
    assert_int_equal(codec_ttl_max(ascii, (uint64_t)INT32_MAX + 5), CODEC_TTL_RELATIVE_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_codec_filled), cmocka_unit_test(test_other_requests_bound),
        cmocka_unit_test(test_get_bounds),         cmocka_unit_test(test_room_refused),
        cmocka_unit_test(test_parse_decimal),      cmocka_unit_test(test_exptime),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
