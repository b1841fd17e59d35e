/* Unit tests of the rank intervals: exact critical ranks, and their false-alarm rate measured. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <math.h>
#include <stdlib.h>

#include "slap/base/ranks.h"
#include "slap/base/rng.h"

#define TRIALS 4000

static int ascending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The k-th smallest (1-based) of the Walsh averages of d, by brute force. */
static double walsh_kth(const double *d, size_t n, size_t k)
{
    double all[64 * 65 / 2];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = i; j < n; j++) {
            all[m++] = (d[i] + d[j]) / 2.0;
        }
    }
    qsort(all, m, sizeof(all[0]), ascending);
    return all[k - 1];
}

/* Ten pairs at 95%: 25 of the 1024 sign patterns have a rank sum of 8 or less, 33 of 9 or
 * less, so the interval runs from the 9th Walsh average to the 9th from the top, at
 * 1 - 50/1024 (Wilcoxon's table: critical value 8). */
static void paired_ten_at_the_table(void **state)
{
    (void)state;
    double d[10] = {-3.1, 0.4, 2.2, 5.0, -1.7, 7.3, 1.1, 3.8, 4.6, 0.9};
    struct rank_shift r;
    assert_int_equal(rank_paired(d, 10, 0.95, &r), SLAP_OK);
    assert_true(r.estimable);
    assert_true(r.low == walsh_kth(d, 10, 9));
    assert_true(r.high == walsh_kth(d, 10, 55 - 8));
    assert_true(fabs(r.achieved - (1.0 - 50.0 / 1024.0)) < 1e-12);
    assert_true(r.estimate == (walsh_kth(d, 10, 28) + walsh_kth(d, 10, 28)) / 2.0);
    assert_true(r.significant == (r.low > 0 || r.high < 0));
}

/* Five pairs cannot reach 95% (the most extreme pattern alone is 1/32 a side); six can, with
 * the whole range of the averages (1 - 2/64). */
static void paired_needs_six(void **state)
{
    (void)state;
    double d[6] = {1, 2, 3, 4, 5, 6};
    struct rank_shift r;
    assert_int_equal(rank_paired(d, 5, 0.95, &r), SLAP_OK);
    assert_false(r.estimable);
    assert_int_equal(r.needed, 6);
    assert_int_equal(rank_needed(true, 0.95), 6);
    assert_int_equal(rank_paired(d, 6, 0.95, &r), SLAP_OK);
    assert_true(r.estimable);
    assert_true(r.low == 1.0 && r.high == 6.0);
    assert_true(r.significant); /* six positive differences: 1 chance in 32 */
    assert_true(fabs(r.achieved - (1.0 - 2.0 / 64.0)) < 1e-12);
    /* 98.75% (four thresholds' share of 5%) needs eight: 2^-8 <= 0.00625 < 2^-7 */
    assert_int_equal(rank_needed(true, 0.9875), 8);
}

/* Five against five at 95%: 4 of the 252 orderings give U <= 2, 7 give U <= 3 (the table's
 * critical U is 2), so the interval runs from the 3rd smallest difference to the 3rd
 * largest. */
static void two_sample_five_at_the_table(void **state)
{
    (void)state;
    double a[5] = {10.0, 12.5, 9.1, 11.0, 10.4}, b[5] = {12.2, 13.9, 11.6, 14.8, 12.9};
    double diffs[25];
    struct rank_shift r;
    for (int i = 0; i < 5; i++) {
        for (int j = 0; j < 5; j++) {
            diffs[i * 5 + j] = b[j] - a[i];
        }
    }
    qsort(diffs, 25, sizeof(diffs[0]), ascending);
    assert_int_equal(rank_two_sample(a, 5, b, 5, 0.95, &r), SLAP_OK);
    assert_true(r.estimable);
    assert_true(r.low == diffs[2]);
    assert_true(r.high == diffs[22]);
    assert_true(r.estimate == diffs[12]);
    assert_true(fabs(r.achieved - (1.0 - 8.0 / 252.0)) < 1e-12);
    assert_true(r.significant);
}

/* Three a side cannot reach 95% (1/20 for the most extreme ordering); four can (1/70). */
static void two_sample_needs_four(void **state)
{
    (void)state;
    double a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
    struct rank_shift r;
    assert_int_equal(rank_two_sample(a, 3, b, 3, 0.95, &r), SLAP_OK);
    assert_false(r.estimable);
    assert_int_equal(r.needed, 4);
    assert_int_equal(rank_two_sample(a, 4, b, 4, 0.95, &r), SLAP_OK);
    assert_true(r.estimable);
    assert_true(r.low == 1.0 && r.high == 7.0);
    assert_true(fabs(r.achieved - (1.0 - 2.0 / 70.0)) < 1e-12);
    /* 98.75%: C(10, 5) = 252 >= 160 is the first of C(2n, n) to reach 1/0.00625 */
    assert_int_equal(rank_needed(false, 0.9875), 5);
    /* uneven sides: 2 against 8 gives 45 orderings, 1/45 <= 0.025 */
    double eight[8] = {5, 6, 7, 8, 9, 10, 11, 12};
    assert_int_equal(rank_two_sample(a, 2, eight, 8, 0.95, &r), SLAP_OK);
    assert_true(r.estimable);
}

/* A uniform draw in (0, 1). */
static double uniform(struct rng *g)
{
    return ((double)(rng_next(g) >> 11) + 0.5) / 9007199254740992.0;
}

/* A host's noise as runs see it: mostly small, sometimes a run several times slower (a
 * neighbour), skewed to the slow side, plus a drift that moves with time. */
static double noisy_run(struct rng *g, double when)
{
    double slow = uniform(g) < 0.15 ? -log(uniform(g)) * 3.0 : 0.0;
    return 100.0 * (1.0 + 0.03 * when) * exp(0.1 * (uniform(g) - 0.5)) + 40.0 * slow;
}

/* Identical sides, each pair's order a coin, the host drifting and jumping: the paired
 * interval leaves 0 out at most 5% of the time (measured over TRIALS; the bound allows three
 * binomial deviations), and a real 20% slowdown is found most of the time. */
static void paired_false_alarms_at_most_five_percent(void **state)
{
    (void)state;
    struct rng g = {.state = 42};
    int alarms = 0, found = 0;
    for (int t = 0; t < TRIALS; t++) {
        double same[10], slower[10];
        for (int i = 0; i < 10; i++) {
            double first = noisy_run(&g, 2.0 * i), second = noisy_run(&g, 2.0 * i + 1);
            bool b_first = rng_below(&g, 2) == 1;
            same[i] = b_first ? first - second : second - first;
            double x = noisy_run(&g, 2.0 * i) * 1.2, y = noisy_run(&g, 2.0 * i + 1);
            double xb = noisy_run(&g, 2.0 * i + 1) * 1.2, yb = noisy_run(&g, 2.0 * i);
            slower[i] = b_first ? x - y : xb - yb;
        }
        struct rank_shift r;
        assert_int_equal(rank_paired(same, 10, 0.95, &r), SLAP_OK);
        alarms += r.significant;
        assert_int_equal(rank_paired(slower, 10, 0.95, &r), SLAP_OK);
        found += r.significant && r.low > 0;
    }
    double rate = (double)alarms / TRIALS;
    print_message("paired: %d alarms, %d found in %d\n", alarms, found, TRIALS);
    assert_true(rate <= 0.05 + 3 * sqrt(0.05 * 0.95 / TRIALS));
    assert_true(found > TRIALS / 3);
}

/* Identical sides of five runs each, taken in pairs of slots whose order is a coin (A B, B A,
 * ...): the same bound; a 20% slowdown found. */
static void two_sample_false_alarms_at_most_five_percent(void **state)
{
    (void)state;
    struct rng g = {.state = 7};
    int alarms = 0, found = 0;
    for (int t = 0; t < TRIALS; t++) {
        double a[5], b[5], slow[5];
        for (int i = 0; i < 5; i++) {
            double at = 2.0 * i + (double)rng_below(&g, 2);
            a[i] = noisy_run(&g, at);
            b[i] = noisy_run(&g, 4.0 * i + 1 - at);
            slow[i] = noisy_run(&g, 4.0 * i + 1 - at) * 1.2;
        }
        struct rank_shift r;
        assert_int_equal(rank_two_sample(a, 5, b, 5, 0.95, &r), SLAP_OK);
        alarms += r.significant;
        assert_int_equal(rank_two_sample(a, 5, slow, 5, 0.95, &r), SLAP_OK);
        found += r.significant && r.low > 0;
    }
    double rate = (double)alarms / TRIALS;
    print_message("two samples: %d alarms, %d found in %d\n", alarms, found, TRIALS);
    assert_true(rate <= 0.05 + 3 * sqrt(0.05 * 0.95 / TRIALS));
    assert_true(found > TRIALS / 4);
}

/* A normal draw (Box-Muller). */
static double normal(struct rng *g)
{
    return sqrt(-2.0 * log(uniform(g))) * cos(2.0 * 3.14159265358979323846 * uniform(g));
}

/* One replicate's difference of identical sides: normal, or the skewed runs of a host. */
static double null_difference(struct rng *g, bool skewed)
{
    return skewed ? noisy_run(g, 0.0) - noisy_run(g, 0.0) : normal(g);
}

/*
 * The shift rank_detectable names is found about 2 times in 3 or more: a first comparison of
 * identical sides (n pairs, or n a side) gives s, then a second whose true shift is s is
 * judged; over 1500 repeats each, at 6, 10 and 20 pairs and 4 and 8 a side, the share found
 * was 0.81 to 0.88 with normal noise and 0.67 to 0.75 with a host's skewed noise (a round
 * several times slower now and then, which one comparison's width often misses). The
 * replicates rank_needed_for names for a shift half as large find it as often (0.87 to 0.96).
 */
static double found_share(struct rng *g, size_t n, bool skewed, bool needed_for, bool paired)
{
    enum { REPEATS = 1500 };
    double a[RANKS_MAX], d[RANKS_MAX];
    int found = 0, judged = 0;
    for (int t = 0; t < REPEATS; t++) {
        for (size_t i = 0; i < n; i++) {
            d[i] = null_difference(g, skewed);
            a[i] = null_difference(g, skewed);
        }
        struct rank_shift first, second;
        assert_int_equal(paired ? rank_paired(d, n, 0.95, &first)
                                : rank_two_sample(a, n, d, n, 0.95, &first),
                         SLAP_OK);
        double s = rank_detectable(&first);
        size_t m = n;
        if (needed_for) { /* a shift half as large needs about four times the replicates */
            m = rank_needed_for(&first, n, s / 2.0, paired, 0.95);
            assert_true(m >= 3 * n && m <= 5 * n + 1);
            s /= 2.0;
        }
        if (s <= 0.0 || m > RANKS_MAX) {
            continue;
        }
        for (size_t i = 0; i < m; i++) {
            d[i] = null_difference(g, skewed) + s;
            a[i] = null_difference(g, skewed);
        }
        assert_int_equal(paired ? rank_paired(d, m, 0.95, &second)
                                : rank_two_sample(a, m, d, m, 0.95, &second),
                         SLAP_OK);
        found += second.significant && second.low > 0;
        judged++;
    }
    return judged > 0 ? (double)found / judged : 0.0;
}

static void detectable_found_two_times_in_three(void **state)
{
    (void)state;
    struct rng g = {.state = 11};
    static const struct {
        size_t n;
        bool paired;
    } sizes[] = {{6, true}, {10, true}, {20, true}, {4, false}, {8, false}};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        for (int skewed = 0; skewed < 2; skewed++) {
            double share = found_share(&g, sizes[k].n, skewed, false, sizes[k].paired);
            double more = found_share(&g, sizes[k].n, skewed, true, sizes[k].paired);
            print_message("%zu %s, %s noise: the detectable shift found %.3f, a half one with "
                          "the replicates named %.3f\n",
                          sizes[k].n, sizes[k].paired ? "pairs" : "a side",
                          skewed ? "skewed" : "normal", share, more);
            assert_true(share >= 0.64 && share <= 0.97);
            assert_true(more >= 0.64 && more <= 0.97);
        }
    }
    struct rank_shift none = {0};
    assert_true(rank_detectable(&none) == 0.0);
    assert_int_equal(rank_needed_for(&none, 10, 1.0, true, 0.95), 0);
}

static void refuses_too_many(void **state)
{
    (void)state;
    static double many[RANKS_MAX + 1];
    struct rank_shift r;
    assert_int_equal(rank_paired(many, RANKS_MAX + 1, 0.95, &r), SLAP_ERROR);
    assert_int_equal(rank_two_sample(many, RANKS_MAX + 1, many, 4, 0.95, &r), SLAP_ERROR);
    assert_int_equal(rank_paired(many, 0, 0.95, &r), SLAP_OK);
    assert_false(r.estimable);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(paired_ten_at_the_table),
        cmocka_unit_test(paired_needs_six),
        cmocka_unit_test(two_sample_five_at_the_table),
        cmocka_unit_test(two_sample_needs_four),
        cmocka_unit_test(paired_false_alarms_at_most_five_percent),
        cmocka_unit_test(two_sample_false_alarms_at_most_five_percent),
        cmocka_unit_test(detectable_found_two_times_in_three),
        cmocka_unit_test(refuses_too_many),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
