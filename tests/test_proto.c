/* Unit tests of the codec table: the request sizes it promises match what the encoders write,
 * for every operation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <string.h>

#include "slap/proto.h"

#define KEY_MAX 250
#define NKEYS 7
#define ROOM 8192
#define VALUE_WIDEST 4000000000u /* ten digits, and a body of 32 bits in binary */

static const enum proto_kind kinds[] = {PROTO_ASCII, PROTO_BINARY, PROTO_META};

/* The longest non-retrieval request of any op with the longest key and every number at its
 * widest: never above the bound, and the widest reaches it. */
static void test_other_requests_bound(void **state)
{
    (void)state;
    static char key[KEY_MAX], out[ROOM];
    memset(key, 'k', sizeof(key));
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        const struct codec *c = codec_get(kinds[i]);
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
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        const struct codec *c = codec_get(kinds[i]);
        for (size_t g = 0; g < 3; g++) {
            size_t one = c->encode_retrieve(out, sizeof(out), gets[g], keys, 0, lens, 1,
                                            UINT32_MAX);
            assert_true(one > 0 && one <= codec_get_bytes(c, 1, KEY_MAX));
            size_t many = c->encode_retrieve(out, sizeof(out), gets[g], keys, KEY_MAX, lens,
                                             NKEYS, UINT32_MAX);
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
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        const struct codec *c = codec_get(kinds[i]);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_other_requests_bound),
        cmocka_unit_test(test_get_bounds),
        cmocka_unit_test(test_room_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
