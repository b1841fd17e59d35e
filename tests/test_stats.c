/* Unit tests of the run statistics: reset, merge, the Total histogram, lookup and printing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "slap/base/common.h"
#include "slap/base/hist.h"
#include "slap/model/stats.h"

#include "resident.h"

/* Every counter's name, from the one list. */
static const char *const counter_names[] = {
#define COUNTER_NAME(name, show, since, meaning) #name,
    SLAP_COUNTERS(COUNTER_NAME)
#undef COUNTER_NAME
};
#define COUNTER_COUNT SLAP_ARRAY_SIZE(counter_names)

/* A writable counter by name (stats_counter_by_name hands back a const pointer). */
static uint64_t *counter(struct slap_stats *s, const char *name)
{
    const uint64_t *found = stats_counter_by_name(&s->counters, name);
    if (found == NULL) {
        fail_msg("no counter named %s", name);
    }
    return (uint64_t *)(uintptr_t)found;
}

/* Statistics of a get/set run, plus deletes: never on the stack (they are large). */
static struct slap_stats *new_stats(void)
{
    struct slap_stats *s = malloc(sizeof(*s));
    struct stats_shape shape = {.types = op_bit(OP_GET) | op_bit(OP_SET) | op_bit(OP_DELETE)};
    assert_non_null(s);
    memset(s, 0xa5, sizeof(*s)); /* garbage that stats_init must clear */
    assert_int_equal(stats_init(s, &shape), SLAP_OK);
    return s;
}

static void free_stats(struct slap_stats *s)
{
    stats_free(s);
    free(s);
}

/* Everything written to out by print, as a NUL-terminated string the caller frees. */
static char *capture_counters(const struct slap_counters *c, enum counter_show show)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    stats_print_counters(out, c, show);
    assert_int_equal(fclose(out), 0);
    return text;
}

/* Statistics of every type (a results document's, 37 KB a histogram) take memory where they
 * are written: gets recorded, reset and merged leave a page or two a histogram resident, not
 * the whole slab (1 MB). */
static void test_idle_types_cost_no_memory(void **state)
{
    (void)state;
    struct slap_stats *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
    assert_true(a != NULL && b != NULL);
    assert_int_equal(stats_init(a, &stats_shape_all), SLAP_OK);
    assert_int_equal(stats_init(b, &stats_shape_all), SLAP_OK);
    for (uint64_t i = 0; i < 1000; i++) {
        hist_record(a->lat[OP_GET], 100000 + i * 100);
        hist_record(a->raw[OP_GET], 90000 + i * 100);
    }
    stats_merge(b, a);
    stats_reset(a);
    stats_reset(b);
    size_t bytes = a->nslab * sizeof(struct hist);
    size_t page = (size_t)sysconf(_SC_PAGESIZE), bound = a->nslab + 8;
    size_t in_a = resident_pages(a->slab, bytes), in_b = resident_pages(b->slab, bytes);
    if (in_a > bound || in_b > bound) {
        fail_msg("%zu and %zu pages resident of %zu (bound %zu)", in_a, in_b,
                 (bytes + page - 1) / page, bound);
    }
    free_stats(a);
    free_stats(b);
}

static void test_reset(void **state)
{
    (void)state;
    struct slap_stats *s = new_stats();
    for (size_t i = 0; i < COUNTER_COUNT; i++) {
        assert_int_equal(*counter(s, counter_names[i]), 0);
    }
    for (int t = 0; t < STATS_TYPES; t++) {
        if (t != OP_GET && t != OP_SET && t != OP_DELETE) {
            assert_null(s->lat[t]); /* not in the shape: no histogram at all */
            assert_null(s->raw[t]);
            continue;
        }
        assert_null(s->raw[t]); /* closed loop */
        assert_int_equal(s->lat[t]->count, 0);
        assert_int_equal(s->lat[t]->min_ns, UINT64_MAX);
        assert_int_equal(s->lat[t]->max_ns, 0);
        assert_int_equal(s->lat[t]->log2_us[10], 0);
        assert_int_equal(s->lat[t]->buckets[hist_bucket_index(1000000)], 0);
    }
    free_stats(s);
}

/* Each name reaches its own field: the ones checked by hand, and no two names alike. */
static void test_counter_by_name(void **state)
{
    (void)state;
    struct slap_stats *s = new_stats();
    assert_ptr_equal(stats_counter_by_name(&s->counters, "cmd_get"), &s->counters.cmd_get);
    assert_ptr_equal(stats_counter_by_name(&s->counters, "cmd_set"), &s->counters.cmd_set);
    assert_ptr_equal(stats_counter_by_name(&s->counters, "get_misses"), &s->counters.get_misses);
    assert_ptr_equal(stats_counter_by_name(&s->counters, "unanswered"), &s->counters.unanswered);
    assert_ptr_equal(stats_counter_by_name(&s->counters, "delete_hits"), &s->counters.delete_hits);
    for (size_t i = 0; i < COUNTER_COUNT; i++) {
        for (size_t j = i + 1; j < COUNTER_COUNT; j++) {
            assert_ptr_not_equal(counter(s, counter_names[i]), counter(s, counter_names[j]));
        }
    }
    assert_int_equal(COUNTER_COUNT * sizeof(uint64_t), sizeof(struct slap_counters));
    assert_null(stats_counter_by_name(&s->counters, "no_such_counter"));
    assert_null(stats_counter_by_name(&s->counters, ""));
    assert_null(stats_counter_by_name(&s->counters, "cmd_ge"));
    assert_null(stats_counter_by_name(&s->counters, "cmd_gets"));
    free_stats(s);
}

static void test_merge_counters(void **state)
{
    (void)state;
    struct slap_stats *a = new_stats();
    struct slap_stats *b = new_stats();
    for (size_t i = 0; i < COUNTER_COUNT; i++) {
        *counter(a, counter_names[i]) = 1000 * (i + 1);
        *counter(b, counter_names[i]) = 7 * (i + 1) + (1ULL << 40);
    }
    stats_merge(a, b);
    for (size_t i = 0; i < COUNTER_COUNT; i++) {
        uint64_t want = 1000 * (i + 1) + 7 * (i + 1) + (1ULL << 40);
        if (*counter(a, counter_names[i]) != want) {
            fail_msg("%s is %llu after merge, expected %llu", counter_names[i],
                     (unsigned long long)*counter(a, counter_names[i]), (unsigned long long)want);
        }
        assert_int_equal(*counter(b, counter_names[i]), 7 * (i + 1) + (1ULL << 40));
    }
    free_stats(a);
    free_stats(b);
}

static void test_merge_histograms(void **state)
{
    (void)state;
    struct slap_stats *a = new_stats();
    struct slap_stats *b = new_stats();
    hist_record(a->lat[STATS_GET], 3000);
    hist_record(a->lat[STATS_GET], 5000);
    hist_record(b->lat[STATS_GET], 1000);
    hist_record(b->lat[STATS_SET], 9000000);
    stats_merge(a, b);
    assert_int_equal(a->lat[STATS_GET]->count, 3);
    assert_int_equal(a->lat[STATS_GET]->min_ns, 1000);
    assert_int_equal(a->lat[STATS_GET]->max_ns, 5000);
    assert_int_equal(a->lat[STATS_SET]->count, 1);
    assert_int_equal(a->lat[STATS_SET]->min_ns, 9000000);
    assert_int_equal(a->lat[STATS_SET]->max_ns, 9000000);
    free_stats(a);
    free_stats(b);
}

static void test_total_hist(void **state)
{
    (void)state;
    struct slap_stats *s = new_stats();
    struct hist *total = malloc(sizeof(*total));
    assert_non_null(total);
    /* gets 20, 40, 700 us; sets 10, 300 us */
    hist_record(s->lat[STATS_GET], 20000);
    hist_record(s->lat[STATS_GET], 40000);
    hist_record(s->lat[STATS_GET], 700000);
    hist_record(s->lat[STATS_SET], 10000);
    hist_record(s->lat[STATS_SET], 300000);
    memset(total, 0x5a, sizeof(*total)); /* stats_total_hist must not merge into garbage */

    stats_total_hist(s, total);
    assert_int_equal(total->count, 5);
    assert_int_equal(total->min_ns, 10000);
    assert_int_equal(total->max_ns, 700000);
    assert_true(total->sum_us == 20.0 + 40.0 + 700.0 + 10.0 + 300.0);
    /* memaslap's log2 slots: 10 -> 4, 20 -> 5, 40 -> 6, 300 -> 9, 700 -> 10 */
    assert_int_equal(total->log2_us[4], 1);
    assert_int_equal(total->log2_us[5], 1);
    assert_int_equal(total->log2_us[6], 1);
    assert_int_equal(total->log2_us[9], 1);
    assert_int_equal(total->log2_us[10], 1);
    assert_int_equal(total->buckets[hist_bucket_index(10000)], 1);
    assert_int_equal(total->buckets[hist_bucket_index(700000)], 1);
    assert_int_equal(s->lat[STATS_GET]->count, 3); /* the sources are left alone */
    assert_int_equal(s->lat[STATS_SET]->count, 2);

    stats_reset(s);
    stats_total_hist(s, total);
    assert_int_equal(total->count, 0);
    assert_int_equal(total->min_ns, UINT64_MAX);
    assert_int_equal(total->max_ns, 0);
    free(total);
    free_stats(s);
}

static void test_ops(void **state)
{
    (void)state;
    struct slap_stats *s = new_stats();
    assert_int_equal(stats_ops(s), 0);
    s->counters.cmd_get = 900;
    s->counters.cmd_set = 101;
    s->counters.get_misses = 50;
    s->counters.not_stored = 7;
    assert_int_equal(stats_ops(s), 1001);
    s->counters.cmd_touch = 3; /* and the other commands answered */
    s->counters.delete_hits = 10;
    s->counters.delete_misses = 20;
    s->counters.incr_misses = 400;
    s->counters.decr_hits = 5000;
    s->counters.stored = 60000; /* an outcome of cmd_set, not more */
    assert_int_equal(stats_ops(s), 6434);
    free_stats(s);
}

static void test_print_always(void **state)
{
    (void)state;
    struct slap_stats *s = new_stats();
    s->counters.cmd_get = 9;
    s->counters.cmd_set = 1;
    s->counters.get_misses = 2;
    s->counters.written_bytes = 123456789012ULL;
    s->counters.read_bytes = 5;
    s->counters.object_bytes = 0;
    s->counters.reconnects = 4;    /* not one of memaslap's */
    s->counters.requests_sent = 8; /* hidden */
    char *text = capture_counters(&s->counters, COUNTER_ALWAYS);
    assert_string_equal(text, "cmd_get: 9\n"
                              "cmd_set: 1\n"
                              "get_misses: 2\n"
                              "written_bytes: 123456789012\n"
                              "read_bytes: 5\n"
                              "object_bytes: 0\n");
    free(text);

    stats_reset(s);
    text = capture_counters(&s->counters, COUNTER_ALWAYS);
    assert_string_equal(text, "cmd_get: 0\n"
                              "cmd_set: 0\n"
                              "get_misses: 0\n"
                              "written_bytes: 0\n"
                              "read_bytes: 0\n"
                              "object_bytes: 0\n");
    free(text);
    free_stats(s);
}

static void test_print_nonzero(void **state)
{
    (void)state;
    struct slap_stats *s = new_stats();
    char *text = capture_counters(&s->counters, COUNTER_NONZERO);
    assert_string_equal(text, "");
    free(text);

    s->counters.cmd_get = 9; /* always-shown, hidden and mix counters stay out */
    s->counters.requests_sent = 8;
    s->counters.stored = 8;
    s->counters.not_stored = 3;
    s->counters.reconnects = 1;
    s->counters.unanswered = 18446744073709551615ULL;
    text = capture_counters(&s->counters, COUNTER_NONZERO);
    assert_string_equal(text, "not_stored: 3\n"
                              "reconnects: 1\n"
                              "unanswered: 18446744073709551615\n");
    free(text);
    free_stats(s);
}

/* slap's added lines in list order; the mix's (stored) only when the mix goes beyond get/set;
 * with -v, verify_checked even when zero (a -v that checked nothing must say so). */
/* Each type's name is its title in lower case ("total" for the total), the same pointer on
 * every call (a constant, not a table filled on first use), NULL out of range. */
static void test_type_names(void **state)
{
    (void)state;
    for (int t = 0; t <= STATS_TYPES; t++) {
        const char *name = stats_type_name(t), *title = stats_type_title(t);
        assert_non_null(name);
        assert_int_equal(strlen(name), strlen(title));
        for (size_t i = 0; title[i] != '\0'; i++) {
            char lower =
                title[i] >= 'A' && title[i] <= 'Z' ? (char)(title[i] - 'A' + 'a') : title[i];
            assert_int_equal(name[i], lower);
        }
        assert_ptr_equal(name, stats_type_name(t));
    }
    assert_string_equal(stats_type_name(STATS_TYPES), "total");
    assert_null(stats_type_name(-1));
    assert_null(stats_type_name(STATS_TYPES + 1));
}

static void test_print_added(void **state)
{
    (void)state;
    struct slap_stats *s = new_stats();
    s->counters.cmd_get = 9;
    s->counters.not_stored = 3;
    s->counters.stored = 8;
    s->counters.deleted = 2;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    stats_print_added(out, &s->counters, false, false);
    fputs("--\n", out);
    stats_print_added(out, &s->counters, true, false);
    fputs("--\n", out);
    stats_print_added(out, &s->counters, false, true);
    assert_int_equal(fclose(out), 0);
    assert_string_equal(text, "not_stored: 3\n"
                              "deleted: 2\n"
                              "--\n"
                              "not_stored: 3\n"
                              "stored: 8\n"
                              "deleted: 2\n"
                              "--\n"
                              "verify_checked: 0\n"
                              "not_stored: 3\n"
                              "deleted: 2\n");
    free(text);
    free_stats(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reset),          cmocka_unit_test(test_counter_by_name),
        cmocka_unit_test(test_merge_counters), cmocka_unit_test(test_merge_histograms),
        cmocka_unit_test(test_total_hist),     cmocka_unit_test(test_ops),
        cmocka_unit_test(test_print_always),   cmocka_unit_test(test_print_nonzero),
        cmocka_unit_test(test_print_added),    cmocka_unit_test(test_idle_types_cost_no_memory),
        cmocka_unit_test(test_type_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
