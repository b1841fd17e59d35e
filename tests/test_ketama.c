/* Unit tests of the ketama continuum: its shape, its point names, and placements that
 * tests/integration/ketama_ref.py (Python's hashlib, no code shared with slap) computed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <string.h>

#include "slap/net/ketama.h"

/* Two servers on memcached's default port (named by host alone) and one on another port. */
static const char *const three[] = {"127.0.0.2", "127.0.0.3", "127.0.0.1:22122"};

static void test_shape(void **state)
{
    (void)state;
    struct ketama k;
    unsigned per_server[3] = {0};
    assert_int_equal(ketama_init(&k, three, 3), SLAP_OK);
    assert_int_equal(k.npoints, 3 * KETAMA_POINTS_PER_SERVER);
    for (uint32_t i = 0; i < k.npoints; i++) {
        assert_true(k.points[i].server < 3);
        per_server[k.points[i].server]++;
        if (i > 0) {
            assert_true(k.points[i - 1].value <= k.points[i].value);
        }
    }
    for (int s = 0; s < 3; s++) {
        assert_int_equal(per_server[s], KETAMA_POINTS_PER_SERVER);
    }
    /* ketama_ref.continuum(three): the lowest two points and the highest. */
    assert_int_equal(k.points[0].value, 14175132u);
    assert_int_equal(k.points[0].server, 1);
    assert_int_equal(k.points[1].value, 27331540u);
    assert_int_equal(k.points[k.npoints - 1].value, 4288166037u);
    assert_int_equal(k.points[k.npoints - 1].server, 0);
    ketama_free(&k);
    assert_null(k.points);
}

/* hashlib.md5(b"127.0.0.2-0"): its four little-endian words. */
static void test_md5_points(void **state)
{
    (void)state;
    static const uint32_t want[4] = {3935527704u, 3483846859u, 4288166037u, 362506072u};
    for (unsigned a = 0; a < 4; a++) {
        assert_int_equal(ketama_md5_point("127.0.0.2-0", 11, a), want[a]);
    }
}

/* A hash goes to the first point at or after it; past the last point, round to the first. */
static void test_pick_edges(void **state)
{
    (void)state;
    struct ketama k;
    assert_int_equal(ketama_init(&k, three, 3), SLAP_OK);
    assert_int_equal(ketama_pick(&k, 0), 1);
    assert_int_equal(ketama_pick(&k, 14175132u), 1);   /* on the first point */
    assert_int_equal(ketama_pick(&k, 4288166037u), 0); /* on the last point */
    assert_int_equal(ketama_pick(&k, 4288166038u), 1); /* past it: the first */
    assert_int_equal(ketama_pick(&k, UINT32_MAX), 1);
    for (uint32_t i = 1; i < k.npoints; i++) { /* just past a point: the next one */
        if (k.points[i - 1].value < k.points[i].value) {
            assert_int_equal(ketama_pick(&k, k.points[i - 1].value + 1), k.points[i].server);
        }
    }
    ketama_free(&k);
}

/* Keys hashed by ketama_ref.key_hash (md5 and fnv1a_64) and placed by ketama_ref.pick. */
static void test_known_placements(void **state)
{
    (void)state;
    static const struct {
        uint32_t hash;
        uint32_t server;
    } known[] = {
        {3675831724u, 1}, /* md5("foo") */
        {421377335u, 2},  /* md5("bar") */
        {965610402u, 0},  /* md5("000000.00000000abc") */
        {3141252702u, 1}, /* md5("hello world") */
        {1807264755u, 0}, /* md5("zzz") */
        {4275688823u, 0}, /* fnv1a_64("foo") */
        {2522049719u, 2}, /* fnv1a_64("000000.00000000abc") */
        {37540583u, 1},   /* fnv1a_64("hello world") */
    };
    struct ketama k;
    assert_int_equal(ketama_init(&k, three, 3), SLAP_OK);
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        assert_int_equal(ketama_pick(&k, known[i].hash), known[i].server);
    }
    ketama_free(&k);
}

static void test_point_names(void **state)
{
    (void)state;
    char name[KETAMA_NAME_MAX];
    assert_int_equal(ketama_point_name(name, sizeof(name), "127.0.0.2", 11211), 9);
    assert_string_equal(name, "127.0.0.2");
    ketama_point_name(name, sizeof(name), "127.0.0.1", 22122);
    assert_string_equal(name, "127.0.0.1:22122");
    ketama_point_name(name, sizeof(name), "/run/mc.sock", 0);
    assert_string_equal(name, "/run/mc.sock");
    assert_int_equal(ketama_point_name(name, 5, "127.0.0.1", 22122), 4); /* cut to fit */
    assert_string_equal(name, "127.");
}

static void test_no_servers(void **state)
{
    (void)state;
    struct ketama k;
    assert_int_equal(ketama_init(&k, three, 0), SLAP_ERROR);
    ketama_free(&k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape),       cmocka_unit_test(test_md5_points),
        cmocka_unit_test(test_pick_edges),  cmocka_unit_test(test_known_placements),
        cmocka_unit_test(test_point_names), cmocka_unit_test(test_no_servers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
