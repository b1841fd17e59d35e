/* Unit tests of the workload: key lengths and ranges in it, the value, the set/get mix, the
 * key window and rng_below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/model/workload.h"

#define MIX_OPS 1000
#define PICK_WINDOW 16
#define PICK_COUNT 160000

/* Fail naming the byte when key[0, len) holds anything outside 0x21..0x7e. */
static void assert_printable(const char *bytes, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)bytes[i];
        if (ch < 0x21 || ch > 0x7e) {
            fail_msg("byte %zu is 0x%02x, not printable", i, ch);
        }
    }
}

/* The workload slap's defaults ask for: 64-byte keys, 1024-byte values, windows of 10k keys,
 * 10% sets and 90% gets, a key a get, a 60 s expiry time. */
static void default_plan(struct workload_plan *p)
{
    *p = (struct workload_plan){.key_size = 64,
                                .value_size = 1024,
                                .win_size = 10 * 1024,
                                .mix = {[OP_SET] = 0.1, [OP_GET] = 0.9},
                                .exp_time_ns = 60 * SLAP_NS_PER_SEC,
                                .division = 1};
}

/* A workload from the defaults with the given sizes and set share; value allocated. */
static void make_workload(struct workload *w, uint32_t key_size, uint32_t value_size,
                          double set_prop, uint64_t win_size)
{
    struct workload_plan o;
    default_plan(&o);
    o.key_size = key_size;
    o.value_size = value_size;
    o.mix[OP_SET] = set_prop;
    o.mix[OP_GET] = 1.0 - set_prop;
    o.win_size = win_size;
    assert_int_equal(workload_init(w, &o), SLAP_OK);
}

static void test_value(void **state)
{
    (void)state;
    static const uint32_t sizes[] = {1, 100, 1024, 1024 * 1024};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(sizes); i++) {
        struct workload w;
        make_workload(&w, 64, sizes[i], 0.1, 1024);
        assert_int_equal(w.value_size, sizes[i]);
        assert_non_null(w.value);
        assert_printable(w.value, sizes[i]);
        assert_memory_equal(w.value + sizes[i], "\r\n", 2);
        workload_free(&w);
        assert_null(w.value);
    }
}

static void test_set_ppm(void **state)
{
    (void)state;
    struct workload w;
    make_workload(&w, 64, 10, 0.1, 1024);
    assert_int_equal(w.mix_ppm[OP_SET], 100000);
    assert_int_equal(w.keys.size, 64);
    assert_int_equal(w.win_size, 1024);
    workload_free(&w);

    make_workload(&w, 64, 10, 0.25, 1024);
    assert_int_equal(w.mix_ppm[OP_SET], 250000);
    workload_free(&w);
}

/* --key_dist=latest: rank 0 is the slot stored last, rank r the one r sets before it, on the
 * window's first pass (slots 0 .. filled - 1) and after it has wrapped. */
static void test_latest_slot(void **state)
{
    (void)state;
    struct workload w;
    struct key_window win;
    make_workload(&w, 64, 10, 0.1, 1024);
    window_init(&win, &w);
    for (int i = 0; i < 4; i++) { /* slots 0..3 set and stored */
        window_take_set_slot(&win, &w);
        window_set_done(&win, &w);
    }
    assert_int_equal(window_latest_slot(&win, &w, 0), 3);
    assert_int_equal(window_latest_slot(&win, &w, 3), 0);
    for (uint64_t i = 4; i < w.win_size + 2; i++) { /* the walk wraps: slots 0 and 1 again */
        window_take_set_slot(&win, &w);
        window_set_done(&win, &w);
    }
    assert_int_equal(window_latest_slot(&win, &w, 0), 1);
    assert_int_equal(window_latest_slot(&win, &w, 1), 0);
    assert_int_equal(window_latest_slot(&win, &w, 2), w.win_size - 1);
    assert_int_equal(window_latest_slot(&win, &w, w.win_size - 1), 2);
    workload_free(&w);
}

/* Count the sets among MIX_OPS operations of a fresh window. */
static unsigned count_sets(double set_prop, enum op_type *ops)
{
    struct workload w;
    struct key_window win;
    make_workload(&w, 64, 10, set_prop, 1024);
    window_init(&win, &w);
    unsigned sets = 0;
    for (size_t i = 0; i < MIX_OPS; i++) {
        ops[i] = window_next_op(&win, &w);
        sets += ops[i] == OP_SET;
    }
    workload_free(&w);
    return sets;
}

static void test_mix_one_in_ten(void **state)
{
    (void)state;
    enum op_type ops[MIX_OPS];
    assert_int_equal(count_sets(0.1, ops), MIX_OPS / 10);
    for (size_t i = 0; i < MIX_OPS; i++) {
        enum op_type want = i % 10 == 0 ? OP_SET : OP_GET;
        if (ops[i] != want) {
            fail_msg("operation %zu is %s, expected %s", i, ops[i] == OP_SET ? "set" : "get",
                     want == OP_SET ? "set" : "get");
        }
    }
}

static void test_mix_quarter(void **state)
{
    (void)state;
    enum op_type ops[MIX_OPS];
    assert_int_equal(count_sets(0.25, ops), 250);
    assert_int_equal(ops[0], OP_SET);
}

static void test_mix_no_sets(void **state)
{
    (void)state;
    enum op_type ops[MIX_OPS];
    unsigned sets = count_sets(0.0, ops);
    for (size_t i = 0; i < MIX_OPS; i++) {
        if (ops[i] == OP_SET) {
            fail_msg("set_prop 0: operation %zu of %d is a set (%u sets in all)", i, MIX_OPS, sets);
        }
    }
    assert_int_equal(sets, 0);
}

static void test_mix_all_sets(void **state)
{
    (void)state;
    enum op_type ops[MIX_OPS];
    assert_int_equal(count_sets(1.0, ops), MIX_OPS);
}

static void test_window_set_walk(void **state)
{
    (void)state;
    struct workload w;
    struct key_window win;
    make_workload(&w, 64, 10, 0.1, 5);
    window_init(&win, &w);
    for (uint64_t round = 0; round < 3; round++) {
        for (uint64_t slot = 0; slot < 5; slot++) {
            assert_int_equal(window_take_set_slot(&win, &w), slot);
        }
    }
    workload_free(&w);
}

static void test_window_filled(void **state)
{
    (void)state;
    struct workload w;
    struct key_window win;
    make_workload(&w, 64, 10, 0.1, 4);
    window_init(&win, &w);
    assert_false(window_can_get(&win));
    assert_int_equal(win.filled, 0);

    window_set_done(&win, &w);
    assert_true(window_can_get(&win));
    assert_int_equal(win.filled, 1);
    for (int i = 0; i < 10; i++) {
        window_set_done(&win, &w);
    }
    assert_int_equal(win.filled, 4);
    workload_free(&w);
}

/* Gets pick only slots already set, and those uniformly. */
static void test_window_pick(void **state)
{
    (void)state;
    struct workload w;
    struct key_window win;
    struct rng r = {.state = 12345};
    make_workload(&w, 64, 10, 0.1, PICK_WINDOW);
    window_init(&win, &w);

    for (uint64_t filled = 1; filled <= 3; filled++) {
        window_set_done(&win, &w);
        for (int i = 0; i < 1000; i++) {
            assert_true(window_pick_get_slot(&win, &r) < filled);
        }
    }
    for (int i = 0; i < PICK_WINDOW; i++) {
        window_set_done(&win, &w);
    }
    assert_int_equal(win.filled, PICK_WINDOW);

    unsigned hits[PICK_WINDOW] = {0};
    for (int i = 0; i < PICK_COUNT; i++) {
        uint64_t slot = window_pick_get_slot(&win, &r);
        assert_true(slot < PICK_WINDOW);
        hits[slot]++;
    }
    const unsigned mean = PICK_COUNT / PICK_WINDOW;
    for (int i = 0; i < PICK_WINDOW; i++) {
        if (hits[i] < mean - mean / 5 || hits[i] > mean + mean / 5) {
            fail_msg("slot %d picked %u times, mean %u", i, hits[i], mean);
        }
    }
    workload_free(&w);
}

static void test_rng_below(void **state)
{
    (void)state;
    static const uint64_t bounds[] = {1, 2, 3, 1000, UINT64_MAX / 3};
    struct rng r = {.state = 42};
    for (size_t b = 0; b < SLAP_ARRAY_SIZE(bounds); b++) {
        uint64_t n = bounds[b];
        uint64_t largest = 0;
        for (int i = 0; i < 100000; i++) {
            uint64_t v = rng_below(&r, n);
            if (v >= n) {
                fail_msg("rng_below(%llu) gave %llu", (unsigned long long)n, (unsigned long long)v);
            }
            largest = v > largest ? v : largest;
        }
        /* The top of the range is reached too (for large n: its upper half). */
        assert_true(n < 1000000 ? largest == n - 1 : largest > n / 2);
    }
}

/* ---- keys and values derived from client, slot and version ------------------------------- */

static void test_sizes_by_slot_and_version(void **state)
{
    (void)state;
    struct workload_plan o;
    struct workload w;
    char err[128];
    default_plan(&o);
    assert_int_equal(size_dist_parse("16-32", 16, 250, &o.key_sizes, err, sizeof(err)), SLAP_OK);
    assert_int_equal(
        size_dist_parse("10-20:0.5,100-200:0.5", 1, 1 << 20, &o.value_sizes, err, sizeof(err)),
        SLAP_OK);
    assert_int_equal(workload_init(&w, &o), SLAP_OK);
    assert_int_equal(w.keys.size, 32);
    assert_int_equal(w.value_size, 200);
    unsigned seen_small = 0, seen_large = 0, key_lens = 0;
    for (uint64_t slot = 0; slot < 2000; slot++) {
        uint32_t k = key_layout_len(&w.keys, 7, slot);
        assert_true(k >= 16 && k <= 32);
        assert_int_equal(k, key_layout_len(&w.keys, 7, slot)); /* a slot keeps its key size */
        key_lens |= 1u << (k - 16);
        uint32_t v = workload_value_len(&w, 7, slot, 3);
        assert_true((v >= 10 && v <= 20) || (v >= 100 && v <= 200));
        assert_int_equal(v, workload_value_len(&w, 7, slot, 3));
        seen_small += v <= 20;
        seen_large += v >= 100;
        const char *a = workload_value(&w, 7, slot, 3);
        assert_ptr_equal(a, workload_value(&w, 7, slot, 3));
        assert_true(a >= w.pool && a + v <= w.pool + w.value_size + WORKLOAD_POOL_SLACK);
    }
    assert_int_equal(key_lens, (1u << 17) - 1); /* every key size from 16 to 32 */
    assert_true(seen_small > 800 && seen_large > 800);
    /* another version of a slot's value starts elsewhere, so a stale value is noticed */
    unsigned moved = 0;
    for (uint64_t slot = 0; slot < 100; slot++) {
        moved += workload_value(&w, 1, slot, 1) != workload_value(&w, 1, slot, 2);
    }
    assert_true(moved >= 95);
    workload_free(&w);
}

static void test_multiget_mix(void **state)
{
    (void)state;
    struct workload w;
    struct key_window win;
    make_workload(&w, 64, 100, 0.1, 1000);
    w.division = 10;
    window_init(&win, &w);
    unsigned sets = 0, keys = 0;
    for (int i = 0; i < 10000; i++) {
        if (window_next_op(&win, &w) == OP_SET) {
            sets++;
        } else {
            keys += 10;
            window_more_gets(&win, &w, 9);
        }
    }
    /* memaslap's -d: one set for every nine keys read */
    assert_true(keys >= sets * 9 - 10 && keys <= sets * 9 + 10);
    workload_free(&w);
}

/* The mix rule as documented, over every op: what window_next_op must equal. */
static enum op_type reference_next_op(uint32_t *acc, const struct workload *w)
{
    enum op_type due = w->mix_default;
    for (int op = 0; op < OP_COUNT; op++) {
        if (op != (int)w->mix_default && w->mix_ppm[op] > 0) {
            acc[op] += w->mix_ppm[op];
            if (due == w->mix_default && acc[op] >= WORKLOAD_PPM) {
                acc[op] -= WORKLOAD_PPM;
                due = (enum op_type)op;
            }
        }
    }
    return due;
}

/* A mix of five ops, multi-gets of 3 keys: the same sequence as the rule's. */
static void test_mix_many_ops(void **state)
{
    (void)state;
    struct workload_plan o;
    struct workload w;
    struct key_window win;
    default_plan(&o);
    o.mix[OP_GET] = 0.4;
    o.mix[OP_SET] = 0.15;
    o.mix[OP_DELETE] = 0.2;
    o.mix[OP_INCR] = 0.05;
    o.mix[OP_TOUCH] = 0.2;
    assert_int_equal(workload_init(&w, &o), SLAP_OK);
    window_init(&win, &w);
    uint32_t acc[OP_COUNT];
    memcpy(acc, win.mix_acc, sizeof(acc));
    unsigned seen[OP_COUNT] = {0};
    for (int i = 0; i < 20000; i++) {
        enum op_type got = window_next_op(&win, &w), want = reference_next_op(acc, &w);
        if (got != want) {
            fail_msg("step %d: %s, expected %s", i, op_name(got), op_name(want));
        }
        seen[got]++;
        if (got == OP_GET) {
            window_more_gets(&win, &w, 2);
            for (int op = 0; op < OP_COUNT; op++) {
                acc[op] += op == (int)w.mix_default ? 0 : w.mix_ppm[op] * 2;
            }
        }
    }
    assert_true(seen[OP_SET] > 0 && seen[OP_DELETE] > 0 && seen[OP_INCR] > 0 && seen[OP_TOUCH] > 0);
    assert_int_equal(seen[OP_ADD] + seen[OP_CAS] + seen[OP_DECR], 0);
    workload_free(&w);
}

/* A workload of a set/get mix with --key_pattern text (and bounds when key_count > 0). */
static void make_patterned(struct workload *w, const char *pattern, uint64_t win_size,
                           uint64_t key_min, uint64_t key_count)
{
    struct workload_plan o;
    char err[256] = "";
    default_plan(&o);
    o.win_size = win_size;
    o.key_min = key_min;
    o.key_count = key_count;
    o.key_pop = (struct key_dist){KEY_DIST_UNIFORM, 0.99};
    if (pattern != NULL &&
        key_pattern_parse(pattern, &o.key_pattern, err, sizeof(err)) != SLAP_OK) {
        fail_msg("%s: %s", pattern, err);
    }
    assert_int_equal(workload_init(w, &o), SLAP_OK);
}

/* set:zipf draws its slot over the whole window by zipf (rank 0 about 1 / H(n, s) of the draws,
 * each rank above the next), gets take the pattern's own law; by default sets walk. */
#define LAW_WINDOW 64
#define LAW_PICKS 200000
static void test_pick_by_law(void **state)
{
    (void)state;
    struct workload w;
    struct key_window win;
    struct rng r = {.state = 777};
    uint32_t hits[LAW_WINDOW] = {0};
    make_patterned(&w, "set:zipf:1,get:sequential", LAW_WINDOW, 0, 0);
    assert_int_equal(w.walk_ops & op_bit(OP_SET), 0);
    assert_true(workload_needs_fill(&w)); /* nothing walks the window: it is filled first */
    window_init(&win, &w);
    for (int i = 0; i < LAW_PICKS; i++) {
        uint64_t slot = window_pick(&win, &w, OP_SET, w.win_size, &r);
        assert_true(slot < LAW_WINDOW);
        hits[slot]++;
    }
    double harmonic = 0.0;
    for (int k = 1; k <= LAW_WINDOW; k++) {
        harmonic += 1.0 / k;
    }
    double share0 = (double)hits[0] / LAW_PICKS;
    if (share0 < 0.97 / harmonic || share0 > 1.03 / harmonic) {
        fail_msg("rank 0 drawn %.4f of the time, zipf:1 says %.4f", share0, 1.0 / harmonic);
    }
    for (int k = 0; k + 1 < 8; k++) {
        assert_true(hits[k] > hits[k + 1]);
    }
    for (uint64_t i = 0; i < 3 * 5; i++) { /* get:sequential walks the 5 keys stored */
        assert_int_equal(window_pick(&win, &w, OP_GET, 5, &r), i % 5);
    }
    workload_free(&w);
    make_patterned(&w, NULL, LAW_WINDOW, 0, 0); /* the defaults: set and add walk */
    assert_int_equal(w.walk_ops, op_bit(OP_SET) | op_bit(OP_ADD));
    assert_int_equal(w.key_law[OP_INCR].kind, KEY_DIST_UNIFORM);
    assert_false(workload_needs_fill(&w));
    workload_free(&w);
}

/* Bounds: every client's keys are the range's, named by number alone (two clients write the
 * same bytes for a number), walks begin where window_start says and stay in the range; no
 * fill first (a key never set is a miss). */
static void test_bounds(void **state)
{
    (void)state;
    struct workload w;
    struct key_window win;
    struct rng r = {.state = 99};
    char a[64], b[64];
    make_patterned(&w, "get:zipf,delete:sequential", 0, 1000, 50);
    assert_true(w.bounds);
    assert_int_equal(w.win_size, 50);
    assert_true(w.keys.shared);
    assert_int_equal(w.keys.base, 1000);
    assert_false(workload_needs_fill(&w));
    assert_false(w.track_slots);
    key_layout_first(&w.keys, 3, a);
    key_layout_first(&w.keys, 9, b);
    key_layout_slot(&w.keys, a, 7);
    key_layout_slot(&w.keys, b, 7);
    assert_memory_equal(a, b, w.keys.size);
    assert_memory_equal(a, "shared-000003ef", 15);
    window_init(&win, &w);
    window_start(&win, &w, 40);
    assert_true(window_can_get(&win));
    assert_int_equal(win.filled, 50);
    for (uint64_t i = 0; i < 60; i++) {
        assert_int_equal(window_take_set_slot(&win, &w), (40 + i) % 50);
        assert_int_equal(window_pick(&win, &w, OP_DELETE, win.filled, &r), (40 + i) % 50);
        assert_true(window_pick(&win, &w, OP_GET, win.filled, &r) < 50);
    }
    workload_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes_by_slot_and_version),
        cmocka_unit_test(test_multiget_mix),
        cmocka_unit_test(test_value),
        cmocka_unit_test(test_set_ppm),
        cmocka_unit_test(test_mix_one_in_ten),
        cmocka_unit_test(test_mix_quarter),
        cmocka_unit_test(test_mix_no_sets),
        cmocka_unit_test(test_mix_all_sets),
        cmocka_unit_test(test_window_set_walk),
        cmocka_unit_test(test_window_filled),
        cmocka_unit_test(test_window_pick),
        cmocka_unit_test(test_rng_below),
        cmocka_unit_test(test_mix_many_ops),
        cmocka_unit_test(test_latest_slot),
        cmocka_unit_test(test_pick_by_law),
        cmocka_unit_test(test_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
