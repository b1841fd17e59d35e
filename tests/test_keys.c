/* Unit tests of the key layout: the bytes of a key, and decode as encode's exact inverse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/model/cfgfile.h"
#include "slap/model/keys.h"

#define KEY_CLIENTS 50
#define KEY_SLOTS 2000
#define FIRST_RANGE 1000u

/* Fail naming the byte when bytes[0, len) holds anything outside 0x21..0x7e. */
static void assert_printable(const char *bytes, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)bytes[i];
        if (ch < 0x21 || ch > 0x7e) {
            fail_msg("byte %zu is 0x%02x, not printable", i, ch);
        }
    }
}

/* A layout of the key sizes text ("64", "16-250"); shared: a range from base. */
static void make_layout(struct key_layout *k, const char *sizes, bool shared, uint64_t base)
{
    struct size_dist d;
    char err[128];
    assert_int_equal(
        size_dist_parse(sizes, KEY_LAYOUT_SIZE_MIN, KEY_LAYOUT_SIZE_MAX, &d, err, sizeof(err)),
        SLAP_OK);
    key_layout_init(k, &d, 0, shared, base);
}

static bool same_name(const struct key_name *a, const struct key_name *b)
{
    return a->kind == b->kind && a->owner == b->owner && a->slot == b->slot;
}

/* The layout as documented: owner's six digits, '.', the slot's eight, the owner's filler. */
static void test_key_bytes(void **state)
{
    (void)state;
    struct key_layout k;
    make_layout(&k, "64", false, 0);
    char key[KEY_LAYOUT_SIZE_MAX + 1];
    memset(key, 0, sizeof(key)); /* a NUL past the size shows any overrun */

    key_layout_first(&k, 0x1a2b, key);
    assert_printable(key, 64);
    assert_int_equal(key[64], '\0');
    assert_memory_equal(key, "001a2b.00000000", KEY_LAYOUT_HEAD);
    /* owner 0's filler starts 15 letters in; 0x1a2b's 0x1a2b further, modulo 62 */
    char zero[KEY_LAYOUT_SIZE_MAX + 1] = {0};
    key_layout_first(&k, 0, zero);
    assert_memory_equal(zero, "000000.00000000pqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abc",
                        64);
    assert_memory_equal(key + KEY_LAYOUT_HEAD, zero + KEY_LAYOUT_HEAD + 0x1a2b % 62, 20);

    char filler[64];
    memcpy(filler, key + KEY_LAYOUT_HEAD, 64 - KEY_LAYOUT_HEAD);
    key_layout_slot(&k, key, 0xdeadbeef);
    assert_memory_equal(key, "001a2b.deadbeef", KEY_LAYOUT_HEAD);
    assert_memory_equal(key + KEY_LAYOUT_HEAD, filler, 64 - KEY_LAYOUT_HEAD);
    assert_int_equal(key[64], '\0');

    char counter[KEY_LAYOUT_SIZE_MAX + 1] = {0};
    key_layout_counter(&k, key, 7, counter);
    assert_memory_equal(counter, "001a2b#00000007", KEY_LAYOUT_HEAD);
    assert_memory_equal(counter + KEY_LAYOUT_HEAD, filler, 64 - KEY_LAYOUT_HEAD);

    make_layout(&k, "20", true, FIRST_RANGE);
    key_layout_first(&k, 0x1a2b, key); /* shared: the owner is left out */
    key_layout_slot(&k, key, 7);
    assert_memory_equal(key, "shared-000003efpqrst", 20);
    key_layout_counter(&k, key, 2, counter);
    assert_memory_equal(counter, "shared#00000002pqrst", 20);
}

static void test_key_minimum_size(void **state)
{
    (void)state;
    struct key_layout k;
    make_layout(&k, "16", false, 0);
    char key[KEY_LAYOUT_SIZE_MIN + 8];
    memset(key, 0, sizeof(key));
    key_layout_first(&k, 0xabcdef, key);
    key_layout_slot(&k, key, 0x01234567);
    assert_printable(key, KEY_LAYOUT_SIZE_MIN);
    assert_memory_equal(key, "abcdef.01234567", KEY_LAYOUT_HEAD);
    for (size_t i = KEY_LAYOUT_SIZE_MIN; i < sizeof(key); i++) {
        assert_int_equal(key[i], '\0');
    }
}

static int compare_keys(const void *a, const void *b)
{
    return memcmp(a, b, KEY_LAYOUT_SIZE_MIN);
}

/* Every (client, slot) pair has a key of its own, at the least size where filler cannot help. */
static void test_keys_distinct(void **state)
{
    (void)state;
    struct key_layout k;
    make_layout(&k, "16", false, 0);
    size_t total = (size_t)KEY_CLIENTS * KEY_SLOTS;
    char *keys = malloc(total * KEY_LAYOUT_SIZE_MIN);
    assert_non_null(keys);

    char key[KEY_LAYOUT_SIZE_MIN];
    for (uint32_t client = 0; client < KEY_CLIENTS; client++) {
        key_layout_first(&k, client, key);
        for (uint64_t slot = 0; slot < KEY_SLOTS; slot++) {
            key_layout_slot(&k, key, slot);
            assert_printable(key, sizeof(key));
            memcpy(keys + ((size_t)client * KEY_SLOTS + slot) * KEY_LAYOUT_SIZE_MIN, key,
                   sizeof(key));
        }
    }
    qsort(keys, total, KEY_LAYOUT_SIZE_MIN, compare_keys);
    for (size_t i = 1; i < total; i++) {
        if (compare_keys(keys + (i - 1) * KEY_LAYOUT_SIZE_MIN, keys + i * KEY_LAYOUT_SIZE_MIN) ==
            0) {
            fail_msg("duplicate key %.16s", keys + i * KEY_LAYOUT_SIZE_MIN);
        }
    }
    free(keys);
}

/* The number's digits are its low 32 bits as %08x, whatever the value. */
static void test_number_digits(void **state)
{
    (void)state;
    static const uint64_t fixed[] = {
        0, 1, 9, 10, 15, 16, 0x9abcdef0, 0xffffffff, 0x100000005ULL, UINT64_MAX};
    char key[KEY_LAYOUT_HEAD + 1] = "000000.--------";
    char want[16];
    uint64_t x = 0x2545f4914f6cdd1dULL;
    for (size_t i = 0; i < 100000; i++) {
        uint64_t n =
            i < SLAP_ARRAY_SIZE(fixed) ? fixed[i] : (x ^= x << 13, x ^= x >> 7, x ^= x << 17);
        key_layout_put_number(key, n);
        snprintf(want, sizeof(want), "000000.%08x", (unsigned)(uint32_t)n);
        if (memcmp(key, want, KEY_LAYOUT_HEAD + 1) != 0) {
            fail_msg("number %#llx: key %s, expected %s", (unsigned long long)n, key, want);
        }
    }
}

/* The layouts the round trips walk: the least size, the most, both ends of a range. */
static const char *const size_texts[] = {
    "16", "17", "64", "249", "250", "16-250", "16-17:0.5,249-250:0.5"};
static const uint32_t owners[] = {
    0, 1, 61, 62, 0x1a2b, KEY_LAYOUT_OWNERS - 2, KEY_LAYOUT_OWNERS - 1};
static const uint64_t slots[] = {0, 1, 15, 16, 0x10000, 0xfffffffe, 0xffffffff};

/* Encode name, check its bytes and length, decode it back, and check the request path's
 * way (the first key rewritten, copied, made a counter) gives the same bytes. */
static void round_trip(const struct key_layout *k, const struct key_name *name)
{
    char key[KEY_LAYOUT_SIZE_MAX + 1], first[KEY_LAYOUT_SIZE_MAX + 1],
        fast[KEY_LAYOUT_SIZE_MAX + 1];
    memset(key, 0, sizeof(key));
    uint32_t len = key_layout_encode(k, name, key);
    assert_true(len >= KEY_LAYOUT_SIZE_MIN && len <= k->size);
    assert_int_equal(len, key_layout_len(k, name->owner, name->slot));
    assert_printable(key, k->size);
    assert_int_equal(key[k->size], '\0');

    struct key_name back = {KEY_COUNTER, 12345, 12345};
    if (!key_layout_decode(k, key, len, &back) || !same_name(&back, name)) {
        fail_msg("%.*s (%u bytes): owner %#x slot %#llx kind %d did not come back", (int)len, key,
                 len, name->owner, (unsigned long long)name->slot, name->kind);
    }

    key_layout_first(k, name->owner, first);
    if (name->kind == KEY_COUNTER) {
        key_layout_counter(k, first, (uint32_t)name->slot, fast);
    } else {
        key_layout_copy_slot(k, first, name->slot, fast);
    }
    assert_memory_equal(fast, key, k->size);
}

static void test_round_trip(void **state)
{
    (void)state;
    struct key_layout k;
    for (size_t s = 0; s < SLAP_ARRAY_SIZE(size_texts); s++) {
        make_layout(&k, size_texts[s], false, 0);
        for (size_t o = 0; o < SLAP_ARRAY_SIZE(owners); o++) {
            for (size_t i = 0; i < SLAP_ARRAY_SIZE(slots); i++) {
                for (int kind = KEY_WINDOW; kind <= KEY_COUNTER; kind++) {
                    round_trip(&k, &(struct key_name){(enum key_kind)kind, owners[o], slots[i]});
                }
            }
        }
        /* shared: owner 0, slots up to the most the digits name from the range's first */
        make_layout(&k, size_texts[s], true, FIRST_RANGE);
        for (size_t i = 0; i < SLAP_ARRAY_SIZE(slots); i++) {
            uint64_t slot = slots[i] > KEY_LAYOUT_NUMBER_MAX - FIRST_RANGE
                                ? KEY_LAYOUT_NUMBER_MAX - FIRST_RANGE
                                : slots[i];
            round_trip(&k, &(struct key_name){KEY_WINDOW, 0, slot});
            round_trip(&k, &(struct key_name){KEY_COUNTER, 0, slots[i]});
        }
    }
}

/* Variable sizes: every length of the range is some key's, and a key keeps its length. */
static void test_lengths_drawn(void **state)
{
    (void)state;
    struct key_layout k;
    make_layout(&k, "16-32", false, 0);
    assert_false(k.fixed);
    assert_int_equal(k.size, 32);
    uint32_t seen = 0;
    for (uint64_t slot = 0; slot < 2000; slot++) {
        uint32_t len = key_layout_len(&k, 7, slot);
        assert_true(len >= 16 && len <= 32);
        assert_int_equal(len, key_layout_len(&k, 7, slot));
        seen |= 1u << (len - 16);
    }
    assert_int_equal(seen, (1u << 17) - 1);
    make_layout(&k, "40", false, 0);
    assert_true(k.fixed);
    assert_int_equal(key_layout_len(&k, 7, 123), 40);
    struct size_dist d;
    size_dist_fixed(&d, 40);
    key_layout_init(&k, &d, KEY_LAYOUT_SIZE_MAX, false, 0); /* a trace's: buffers of the most */
    assert_int_equal(k.size, KEY_LAYOUT_SIZE_MAX);
}

/* A key with any one byte changed, or any other length, does not decode to its name: decode
 * fails, or names another key whose bytes are exactly the changed ones. */
static void changed_keys_refused(const struct key_layout *k, const struct key_name *name)
{
    char key[KEY_LAYOUT_SIZE_MAX + 1], other[KEY_LAYOUT_SIZE_MAX + 1];
    uint32_t len = key_layout_encode(k, name, key);
    struct key_name got;
    for (uint32_t at = 0; at < len; at++) {
        char was = key[at];
        for (int byte = 0; byte < 256; byte++) {
            if ((char)byte == was) {
                continue;
            }
            key[at] = (char)byte;
            if (key_layout_decode(k, key, len, &got)) {
                if (same_name(&got, name)) {
                    fail_msg("byte %u changed to 0x%02x still decodes as the key", at, byte);
                }
                uint32_t other_len = key_layout_encode(k, &got, other);
                if (other_len != len || memcmp(other, key, len) != 0) {
                    fail_msg("byte %u changed to 0x%02x decodes as a key of other bytes", at, byte);
                }
            }
        }
        key[at] = was;
    }
    for (uint32_t shorter = 0; shorter < len; shorter++) {
        if (key_layout_decode(k, key, shorter, &got)) {
            fail_msg("%u bytes of a %u-byte key decode", shorter, len);
        }
    }
    if (len < k->size) {
        key_layout_first(k, name->owner, other); /* the filler goes on to the longest key */
        memcpy(other, key, len);
        assert_false(key_layout_decode(k, other, len + 1, &got));
    }
}

static void test_decode_refuses_other_layouts(void **state)
{
    (void)state;
    struct key_layout k;
    static const char *const sizes[] = {"16", "64", "250", "16-250"};
    for (size_t s = 0; s < SLAP_ARRAY_SIZE(sizes); s++) {
        make_layout(&k, sizes[s], false, 0);
        changed_keys_refused(&k, &(struct key_name){KEY_WINDOW, 0x12ab, 0xfeed});
        changed_keys_refused(&k, &(struct key_name){KEY_WINDOW, 0, 0});
        changed_keys_refused(&k, &(struct key_name){KEY_WINDOW, KEY_LAYOUT_OWNERS - 1, 0xffffffff});
        changed_keys_refused(&k, &(struct key_name){KEY_COUNTER, 3, 5});
        make_layout(&k, sizes[s], true, FIRST_RANGE);
        changed_keys_refused(&k, &(struct key_name){KEY_WINDOW, 0, 7});
        changed_keys_refused(&k, &(struct key_name){KEY_COUNTER, 0, 7});
    }
}

/* A key of one layout is not one of another: shared or not, another range, other sizes. */
static void test_decode_by_its_layout(void **state)
{
    (void)state;
    struct key_layout own, shared, other_range, longer;
    make_layout(&own, "64", false, 0);
    make_layout(&shared, "64", true, FIRST_RANGE);
    make_layout(&other_range, "64", true, FIRST_RANGE + 10);
    make_layout(&longer, "65", false, 0);
    char key[KEY_LAYOUT_SIZE_MAX + 1];
    struct key_name got;

    uint32_t len = key_layout_encode(&own, &(struct key_name){KEY_WINDOW, 0, 5}, key);
    assert_false(key_layout_decode(&shared, key, len, &got));
    assert_false(key_layout_decode(&longer, key, len, &got));
    assert_true(key_layout_decode(&own, key, len, &got));

    len = key_layout_encode(&shared, &(struct key_name){KEY_WINDOW, 0, 5}, key);
    assert_false(key_layout_decode(&own, key, len, &got));
    assert_false(key_layout_decode(&other_range, key, len, &got)); /* 1005 is below its first */
    assert_true(key_layout_decode(&shared, key, len, &got));
    assert_int_equal(got.slot, 5);

    /* an owner past six digits: its digits say 0, its filler is not 0's */
    len = key_layout_encode(&own, &(struct key_name){KEY_WINDOW, KEY_LAYOUT_OWNERS, 5}, key);
    assert_false(key_layout_decode(&own, key, len, &got));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_bytes),
        cmocka_unit_test(test_key_minimum_size),
        cmocka_unit_test(test_keys_distinct),
        cmocka_unit_test(test_number_digits),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_lengths_drawn),
        cmocka_unit_test(test_decode_refuses_other_layouts),
        cmocka_unit_test(test_decode_by_its_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
