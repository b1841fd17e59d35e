/* Unit tests of the codec table: the request sizes it promises match what the encoders write. */
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

static const enum proto_kind kinds[] = {PROTO_ASCII, PROTO_BINARY, PROTO_META};

/* The longest set header: the longest key and every number at its widest. */
static void test_set_header_bound(void **state)
{
    (void)state;
    static char key[KEY_MAX], out[ROOM];
    memset(key, 'k', sizeof(key));
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        const struct codec *c = codec_get(kinds[i]);
        size_t n = c->encode_set_header(out, sizeof(out), key, KEY_MAX, UINT32_MAX, UINT32_MAX,
                                        UINT32_MAX - KEY_MAX - 8);
        assert_true(n > 0);
        assert_true(n <= codec_set_header_bytes(c, KEY_MAX));
        assert_true(n + 2 > codec_set_header_bytes(c, KEY_MAX)); /* tight, not just large */
        assert_int_equal(c->encode_set_header(out, n - 1, key, KEY_MAX, UINT32_MAX, UINT32_MAX,
                                              UINT32_MAX - KEY_MAX - 8),
                         0);
    }
}

/* Gets of one and of several keys fill exactly what codec_get_bytes promises. */
static void test_get_bounds(void **state)
{
    (void)state;
    static char keys[NKEYS * KEY_MAX], out[ROOM];
    uint32_t lens[NKEYS];
    memset(keys, 'k', sizeof(keys));
    for (size_t k = 0; k < NKEYS; k++) {
        lens[k] = KEY_MAX;
    }
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        const struct codec *c = codec_get(kinds[i]);
        size_t one = c->encode_get(out, sizeof(out), keys, KEY_MAX);
        assert_true(one > 0 && one <= codec_get_bytes(c, 1, KEY_MAX));
        size_t many = c->encode_multiget(out, sizeof(out), keys, KEY_MAX, lens, NKEYS);
        assert_int_equal(many, codec_get_bytes(c, NKEYS, KEY_MAX));
        assert_true(codec_header_room(c, NKEYS, KEY_MAX) >= many);
        assert_true(codec_header_room(c, 1, KEY_MAX) >= codec_set_header_bytes(c, KEY_MAX));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_header_bound),
        cmocka_unit_test(test_get_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
