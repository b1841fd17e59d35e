/* Unit tests of the open-loop schedule: exact uniform times, lane staggering, Poisson gaps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/model/schedule.h"
#include "slap/model/sizelaw.h"

#define START_NS 123456789ULL
#define MS 1000000ULL
#define MERGED_COUNT 10000
#define DRIFT_COUNT 1000000ULL
#define POISSON_GAPS 200000

/* n / d rounded to the nearest integer (halves up), exact for n < 2^63. */
static uint64_t div_round(uint64_t n, uint64_t d)
{
    return (2 * n + d) / (2 * d);
}

static void test_uniform_one_lane_exact(void **state)
{
    (void)state;
    struct schedule s;
    schedule_init(&s, ARRIVAL_UNIFORM, 0, 1000.0, 1, 0, START_NS, 1);
    for (uint64_t k = 0; k < 1000; k++) {
        assert_int_equal(schedule_peek(&s), START_NS + k * MS);
        schedule_advance(&s);
    }
}

static void test_uniform_lanes_staggered(void **state)
{
    (void)state;
    for (uint32_t lane = 0; lane < 4; lane++) {
        struct schedule s;
        schedule_init(&s, ARRIVAL_UNIFORM, 0, 1000.0, 4, lane, START_NS, 1);
        for (uint64_t k = 0; k < 100; k++) {
            assert_int_equal(schedule_peek(&s), START_NS + lane * MS + k * 4 * MS);
            schedule_advance(&s);
        }
    }
}

/* The lane whose next time is earliest (the lowest index on a tie). */
static size_t earliest_lane(const struct schedule *lanes, size_t count)
{
    size_t best = 0;
    for (size_t i = 1; i < count; i++) {
        if (schedule_peek(&lanes[i]) < schedule_peek(&lanes[best])) {
            best = i;
        }
    }
    return best;
}

static void test_uniform_lanes_merge_evenly(void **state)
{
    (void)state;
    struct schedule lanes[4];
    for (uint32_t i = 0; i < 4; i++) {
        schedule_init(&lanes[i], ARRIVAL_UNIFORM, 0, 1000.0, 4, i, START_NS, 1);
    }
    uint64_t previous = 0;
    for (size_t n = 0; n < MERGED_COUNT; n++) {
        size_t lane = earliest_lane(lanes, 4);
        uint64_t now = schedule_peek(&lanes[lane]);
        assert_int_equal(lane, n % 4);
        if (n == 0) {
            assert_int_equal(now, START_NS);
        } else {
            assert_int_equal(now - previous, MS);
        }
        previous = now;
        schedule_advance(&lanes[lane]);
    }
}

/* 3/s over 7 lanes: gaps of 7e9/3 ns never divide; time k is the formula, not a sum. */
static void test_uniform_no_drift(void **state)
{
    (void)state;
    for (uint32_t lane = 0; lane < 7; lane++) {
        struct schedule s;
        schedule_init(&s, ARRIVAL_UNIFORM, 0, 3.0, 7, lane, START_NS, 1);
        uint64_t first = START_NS + div_round(lane * SLAP_NS_PER_SEC, 3);
        for (uint64_t k = 0; k <= DRIFT_COUNT; k++) {
            uint64_t want = first + div_round(k * 7 * SLAP_NS_PER_SEC, 3);
            if (schedule_peek(&s) != want) {
                fail_msg("lane %u request %llu: %llu, expected %llu", lane, (unsigned long long)k,
                         (unsigned long long)schedule_peek(&s), (unsigned long long)want);
            }
            schedule_advance(&s);
        }
    }
}

/* Far along (k near 1e9 and 1e12) the time still comes from k exactly. */
static void test_uniform_large_k(void **state)
{
    (void)state;
    struct schedule s;
    schedule_init(&s, ARRIVAL_UNIFORM, 0, 3.0, 1, 0, START_NS, 1);
    s.k = 999999999;
    schedule_advance(&s);
    assert_int_equal(schedule_peek(&s), START_NS + div_round(1000000000ULL * SLAP_NS_PER_SEC, 3));

    schedule_init(&s, ARRIVAL_UNIFORM, 0, 1e6, 1, 0, START_NS, 1);
    s.k = 999999999999ULL;
    schedule_advance(&s);
    assert_int_equal(schedule_peek(&s), START_NS + 1000000000000000ULL);

    schedule_init(&s, ARRIVAL_UNIFORM, 0, 0.001, 1, 0, START_NS, 1);
    s.k = 999999999999ULL;
    schedule_advance(&s);
    assert_int_equal(schedule_peek(&s), UINT64_MAX); /* saturates, never wraps */
}

/* The times the spec defines, replayed with the same generator: -ln(U) * 1e9 / lane_rate. */
static void test_poisson_follows_formula(void **state)
{
    (void)state;
    struct schedule s;
    struct rng r = {.state = 42};
    double offset = 0.0;
    schedule_init(&s, ARRIVAL_POISSON, 0, 1000.0, 4, 3, START_NS, 42);
    for (int i = 0; i < 1000; i++) {
        double unit = (double)((rng_next(&r) >> 11) + 1) / 9007199254740992.0;
        offset += -log(unit) * 1e9 / 250.0;
        assert_int_equal(schedule_peek(&s), START_NS + (uint64_t)llround(offset));
        schedule_advance(&s);
    }
}

/* 1000/s over 4 lanes: a lane's gaps are exponential with mean 4 ms. */
static void test_poisson_mean_and_variance(void **state)
{
    (void)state;
    struct schedule s;
    schedule_init(&s, ARRIVAL_POISSON, 0, 1000.0, 4, 0, START_NS, 7);
    double want_mean = 4.0 * MS;
    uint64_t previous = START_NS;
    long double sum = 0.0L, sumsq = 0.0L;
    for (int i = 0; i < POISSON_GAPS; i++) {
        uint64_t now = schedule_peek(&s);
        assert_true(now >= previous);
        double gap = (double)(now - previous);
        sum += gap;
        sumsq += (long double)gap * gap;
        previous = now;
        schedule_advance(&s);
    }
    double mean = (double)(sum / POISSON_GAPS);
    double variance = (double)((sumsq - sum * sum / POISSON_GAPS) / (POISSON_GAPS - 1));
    if (fabs(mean - want_mean) > 0.01 * want_mean) {
        fail_msg("mean gap %.1f ns, expected %.1f", mean, want_mean);
    }
    if (fabs(variance - mean * mean) > 0.03 * mean * mean) {
        fail_msg("variance %.4g, expected mean^2 = %.4g", variance, mean * mean);
    }
}

static void test_poisson_seeded(void **state)
{
    (void)state;
    struct schedule a, b, other;
    schedule_init(&a, ARRIVAL_POISSON, 0, 5000.0, 2, 0, START_NS, 99);
    schedule_init(&b, ARRIVAL_POISSON, 0, 5000.0, 2, 1, START_NS, 99); /* lane ignored */
    schedule_init(&other, ARRIVAL_POISSON, 0, 5000.0, 2, 0, START_NS, 100);
    int differences = 0;
    for (int i = 0; i < 10000; i++) {
        assert_int_equal(schedule_peek(&a), schedule_peek(&b));
        differences += schedule_peek(&a) != schedule_peek(&other);
        schedule_advance(&a);
        schedule_advance(&b);
        schedule_advance(&other);
    }
    assert_true(differences > 9000);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The laws of gaps by shape: 1000/s over 4 lanes, a lane's gaps have mean 4 ms (within 1%) and
 * follow the law of mean 1 scaled by it: Kolmogorov-Smirnov's distance over 200000 gaps under
 * 1.95 / sqrt(n), the 0.1% critical value. */
static void test_gap_laws(void **state)
{
    (void)state;
    const struct {
        enum arrival arrival;
        double shape;
        enum size_law law;
        double p[3]; /* the law of mean 1 */
    } cases[] = {
        {ARRIVAL_NORMAL, 0.2, SIZE_LAW_NORMAL, {1, 0.2, 0}},
        {ARRIVAL_GEV, 0.3, SIZE_LAW_GEV, {0, 0, 0.3}},
        {ARRIVAL_GPARETO, 0, SIZE_LAW_GPARETO, {0, 1, 0}},
        {ARRIVAL_GPARETO,
         ARRIVAL_ETC_SHAPE,
         SIZE_LAW_GPARETO,
         {0, 1 - ARRIVAL_ETC_SHAPE, ARRIVAL_ETC_SHAPE}},
    };
    static double gaps[POISSON_GAPS];
    for (size_t c = 0; c < SLAP_ARRAY_SIZE(cases); c++) {
        double p[3] = {cases[c].p[0], cases[c].p[1], cases[c].p[2]};
        if (cases[c].law == SIZE_LAW_GEV) { /* from 0, mean 1: scale shape / Gamma(1 - shape) */
            p[1] = p[2] / tgamma(1 - p[2]);
            p[0] = p[1] / p[2];
        }
        struct schedule s;
        schedule_init(&s, cases[c].arrival, cases[c].shape, 1000.0, 4, 0, START_NS, 11 + c);
        uint64_t previous = START_NS;
        double sum = 0;
        for (int i = 0; i < POISSON_GAPS; i++) {
            uint64_t now = schedule_peek(&s);
            assert_true(now >= previous);
            gaps[i] = (double)(now - previous) / (4.0 * MS);
            sum += gaps[i];
            previous = now;
            schedule_advance(&s);
        }
        double mean = sum / POISSON_GAPS;
        if (fabs(mean - 1) > 0.01) {
            fail_msg("law %zu: mean gap %.4f of 4 ms", c, mean);
        }
        qsort(gaps, POISSON_GAPS, sizeof(gaps[0]), by_value);
        double worst = 0;
        for (int i = 0; i < POISSON_GAPS; i++) {
            double f = size_law_cdf(cases[c].law, p, gaps[i]);
            double lo = fabs(f - (double)i / POISSON_GAPS), hi = fabs(f - (i + 1.0) / POISSON_GAPS);
            worst = fmax(worst, fmax(lo, hi));
        }
        if (worst > 1.95 / sqrt(POISSON_GAPS)) {
            fail_msg("law %zu: gaps %.4f from the law's distribution", c, worst);
        }
    }
}

/* ---- every arrival law at the ends of its shapes ---- */

#define LAW_RATE 1000.0        /* requests per second: a mean gap of 1 ms */
#define LAW_Z 5.0              /* deviations of the mean a draw may stray by, with a fixed seed */
#define LAW_PRECISION 0.01     /* the rate a law must hold to within this share */
#define LAW_GAPS_MIN 100000    /* gaps drawn at least */
#define LAW_GAPS_MAX (1 << 24) /* and at most: a law that needs more cannot hold the rate */
#define LAW_STEPS (1 << 14)    /* steps of the integrals over each half of the quantiles */

/* E[(gap - center)^power] of the law as a schedule draws it, in mean gaps: its quantile
 * integrated over q from 2^-53 to 1 - 2^-53 (the draws' range), in steps even in log q below
 * 1/2 and in log (1 - q) above, so the tails of a heavy law count as they should. */
static double gap_moment(enum arrival arrival, double shape, double center, int power)
{
    double from = log(0x1p-53), to = log(0.5), step = (to - from) / LAW_STEPS, sum = 0;
    for (int i = 0; i < LAW_STEPS; i++) {
        double u = exp(from + (i + 0.5) * step);
        sum += (pow(arrival_gap_quantile(arrival, shape, u) - center, power) +
                pow(arrival_gap_quantile(arrival, shape, 1 - u) - center, power)) *
               u * step;
    }
    return sum;
}

/* n gaps of a schedule at LAW_RATE on one lane (over a ramp when r is given) from its first
 * time: every time finite and none before the last, no gap above the law's largest; their
 * mean in mean gaps. */
static double law_mean_gap(enum arrival arrival, double shape, const struct ramp *r, int n,
                           const char *name)
{
    struct schedule s;
    if (r != NULL) {
        schedule_init_ramp(&s, arrival, shape, r, 1, 0, START_NS, 17);
    } else {
        schedule_init(&s, arrival, shape, LAW_RATE, 1, 0, START_NS, 17);
    }
    double largest = arrival_gap_quantile(arrival, shape, 1 - 0x1p-53) * 1e9 / LAW_RATE;
    uint64_t first = schedule_peek(&s), previous = first;
    for (int i = 0; i < n; i++) {
        schedule_advance(&s);
        uint64_t now = schedule_peek(&s);
        if (now < previous || now == UINT64_MAX ||
            (r == NULL && (double)(now - previous) > largest * (1 + 1e-9) + 1)) {
            fail_msg("%s: gap %d from %llu to %llu ns", name, i, (unsigned long long)previous,
                     (unsigned long long)now);
        }
        previous = now;
    }
    double from = (double)(first - START_NS) / 1e9, to = (double)(previous - START_NS) / 1e9;
    if (r != NULL) { /* the ramp's count due between the first time and the last, against n */
        return (double)(ramp_count(r, to) - ramp_count(r, from)) / n;
    }
    return (to - from) * LAW_RATE / n;
}

/* Each row of arrival_laws at the ends of its shapes (the nearest double inside an open end)
 * and midway: the law as drawn has mean 1, and a schedule's gaps keep -P's rate, alone and
 * over a ramp, within LAW_Z deviations of the mean of the gaps drawn. Their number is what
 * holds the rate to LAW_PRECISION by the law's variance as drawn; a law that needs more than
 * LAW_GAPS_MAX (a shape of 0.55, whose variance is infinite but for the draws' range) fails. */
static void test_arrival_laws_hold_at_their_ends(void **state)
{
    (void)state;
    const struct ramp ramp = {LAW_RATE / 2, LAW_RATE, 10 * SLAP_NS_PER_SEC};
    for (size_t i = 0; i < arrival_law_count; i++) {
        const struct arrival_law *law = &arrival_laws[i];
        double lo = law->lo_in ? law->lo : nextafter(law->lo, law->hi);
        double hi = law->hi_in ? law->hi : nextafter(law->hi, law->lo);
        double shapes[] = {lo, (lo + hi) / 2, hi};
        for (size_t k = 0; k < (law->shaped ? SLAP_ARRAY_SIZE(shapes) : 1); k++) {
            double shape = law->shaped ? shapes[k] : law->shape;
            char name[64];
            snprintf(name, sizeof(name), "%s:%.17g", law->name, shape);
            double mean = gap_moment(law->arrival, shape, 0, 1);
            double deviation = sqrt(gap_moment(law->arrival, shape, mean, 2));
            if (fabs(mean - 1) > 1e-3) {
                fail_msg("%s: the gaps as drawn have a mean of %.6f", name, mean);
            }
            double needed = ceil(pow(LAW_Z * deviation / LAW_PRECISION, 2));
            if (needed > LAW_GAPS_MAX) {
                fail_msg("%s: a deviation of %.4g: %.3g gaps to hold the rate", name, deviation,
                         needed);
            }
            int n = needed > LAW_GAPS_MIN ? (int)needed : LAW_GAPS_MIN;
            double bound = LAW_Z * deviation / sqrt(n) + 1e-6;
            double alone = law_mean_gap(law->arrival, shape, NULL, n, name);
            double ramped = law_mean_gap(law->arrival, shape, &ramp, n, name);
            if (!(fabs(alone - 1) <= bound) || !(fabs(ramped - 1) <= bound)) {
                fail_msg("%s: mean gap %.5f alone, %.5f over a ramp, of %d (bound %.5f)", name,
                         alone, ramped, n, bound);
            }
        }
    }
}

/* Every arrival has a row, the first of its arrival its name (as shown, and read back); a
 * shaped row says what its shape is called; the refusal's list names every row. */
static void test_every_arrival_named(void **state)
{
    (void)state;
    char names[256], shown[64], want[64];
    arrival_law_names(names, sizeof(names));
    for (int arrival = 0; arrival < ARRIVAL_KINDS; arrival++) {
        const char *name = arrival_name((enum arrival)arrival);
        size_t i = 0;
        while (i < arrival_law_count && arrival_laws[i].arrival != (enum arrival)arrival) {
            i++;
        }
        assert_true(i < arrival_law_count);
        assert_string_equal(name, arrival_laws[i].name);
        arrival_text(shown, sizeof(shown), (enum arrival)arrival, 0.25);
        snprintf(want, sizeof(want), "%s%s", name, arrival_laws[i].shaped ? ":0.25" : "");
        assert_string_equal(shown, want);
    }
    for (size_t i = 0; i < arrival_law_count; i++) {
        const struct arrival_law *law = &arrival_laws[i];
        char word[64];
        snprintf(word, sizeof(word), "%s%s%s", law->name, law->shaped ? ":" : "",
                 law->shaped ? law->shape_name : "");
        assert_true(!law->shaped || law->shape_name != NULL);
        if (strstr(names, word) == NULL) {
            fail_msg("the list of laws '%s' does not name %s", names, word);
        }
    }
}

/* The inverse of a * x modulo 2^64, a odd (Newton's iteration: each step doubles the bits). */
static uint64_t odd_inverse(uint64_t a)
{
    uint64_t x = a;
    for (int i = 0; i < 6; i++) {
        x *= 2 - a * x;
    }
    return x;
}

/* The seed whose generator's first number is out: splitmix64's steps undone. */
static uint64_t seed_giving(uint64_t out)
{
    uint64_t z = out ^ (out >> 31) ^ (out >> 62);
    z *= odd_inverse(0x94d049bb133111ebULL);
    z = z ^ (z >> 27) ^ (z >> 54);
    z *= odd_inverse(0xbf58476d1ce4e5b9ULL);
    z = z ^ (z >> 30) ^ (z >> 60);
    return z - 0x9e3779b97f4a7c15ULL;
}

/* The highest number the generator gives (all bits set), as a random law's first gap: a finite
 * gap no longer than the law's largest, not 2^53 - 1/2 over 2^53 rounded to 1 (an infinite gap:
 * a lane's next time UINT64_MAX, the lane silent for good); and the lowest. */
static void test_highest_draw_is_a_finite_gap(void **state)
{
    (void)state;
    struct rng check = {seed_giving(UINT64_MAX)};
    assert_true(rng_next(&check) == UINT64_MAX);
    for (size_t i = 0; i < arrival_law_count; i++) {
        const struct arrival_law *law = &arrival_laws[i];
        double shape = !law->shaped ? law->shape
                       : law->hi_in ? law->hi
                                    : nextafter(law->hi, law->lo);
        double largest = arrival_gap_quantile(law->arrival, shape, 1 - 0x1p-53) * 1e9 / LAW_RATE;
        for (int low = 0; low < 2; low++) {
            struct schedule s;
            schedule_init(&s, law->arrival, shape, LAW_RATE, 1, 0, START_NS,
                          seed_giving(low ? 0 : UINT64_MAX));
            uint64_t gap = schedule_peek(&s) - START_NS;
            if (schedule_peek(&s) == UINT64_MAX || (double)gap > largest * (1 + 1e-9) + 1) {
                fail_msg("%s:%g: the %s draw gives a gap of %llu ns (the law's largest %.0f)",
                         law->name, shape, low ? "lowest" : "highest", (unsigned long long)gap,
                         largest);
            }
        }
    }
}

static void check_peek_is_stable(enum arrival arrival)
{
    struct schedule s;
    schedule_init(&s, arrival, 0.15, 1000.0, 2, 1, START_NS, 5);
    for (int i = 0; i < 100; i++) {
        uint64_t next = schedule_peek(&s);
        assert_int_equal(schedule_peek(&s), next);
        assert_int_equal(schedule_peek(&s), next);
        schedule_advance(&s);
        assert_true(schedule_peek(&s) > next);
    }
}

static void test_peek_does_not_advance(void **state)
{
    (void)state;
    check_peek_is_stable(ARRIVAL_UNIFORM);
    check_peek_is_stable(ARRIVAL_POISSON);
}

/* Skipping to an end consumes exactly the times one-by-one advancing would, at odd rates and
 * lane staggers, and leaves the schedule where they would. */
static void test_uniform_skip_matches_advancing(void **state)
{
    (void)state;
    static const double rates[] = {1000.0, 3333.3, 1e6, 7e8};
    for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
        struct schedule a, b;
        schedule_init(&a, ARRIVAL_UNIFORM, 0, rates[i], 3, 2, START_NS, 1);
        schedule_init(&b, ARRIVAL_UNIFORM, 0, rates[i], 3, 2, START_NS, 1);
        uint64_t end = START_NS + 3 * MS + 7;
        uint64_t n = 0;
        while (schedule_peek(&a) < end) {
            schedule_advance(&a);
            n++;
        }
        assert_int_equal(schedule_skip(&b, end, UINT64_MAX), n);
        assert_int_equal(schedule_peek(&b), schedule_peek(&a));
        assert_int_equal(schedule_skip(&b, end, UINT64_MAX), 0);
    }
}

/* At most max are consumed; a skip of 1e9 per second over 30 s is one step (no loop). */
static void test_skip_bounded_and_large(void **state)
{
    (void)state;
    struct schedule s;
    schedule_init(&s, ARRIVAL_UNIFORM, 0, 1e9, 1, 0, START_NS, 1);
    assert_int_equal(schedule_skip(&s, START_NS + 1000, 10), 10);
    assert_int_equal(schedule_peek(&s), START_NS + 10);
    assert_int_equal(schedule_skip(&s, START_NS + 30 * 1000 * MS, UINT64_MAX),
                     30ULL * 1000000000ULL - 10);
    schedule_init(&s, ARRIVAL_POISSON, 0, 1e9, 1, 0, START_NS, 7);
    uint64_t n = schedule_skip(&s, START_NS + 30 * 1000 * MS, UINT64_MAX);
    assert_true(n > 29999000000ULL && n < 30001000000ULL);
    assert_true(schedule_peek(&s) >= START_NS + 30 * 1000 * MS);
}

/* The ramps the ramp tests run: rising, from nothing, falling, nearly flat, and to nothing
 * near (each 2 s, then TO held). */
static const struct ramp test_ramps[] = {
    {1000.0, 20000.0, 2000 * MS},     {0.0, 20000.0, 2000 * MS}, {20000.0, 1000.0, 2000 * MS},
    {5000.0, 5000.000001, 2000 * MS}, {20000.0, 1.0, 2000 * MS},
};
#define RAMP_LANES 3
#define RAMP_SECONDS 3.0 /* the 2 s ramp, then 1 s at TO */

/* ramp_time undoes ramp_count within a ns, in the ramp and after it, whatever its shape. */
static void test_ramp_time_inverts_count(void **state)
{
    (void)state;
    for (size_t r = 0; r < sizeof(test_ramps) / sizeof(test_ramps[0]); r++) {
        for (int i = 1; i <= 3000; i++) {
            long double t = (long double)i / 1000.0L;
            long double back = ramp_time(&test_ramps[r], ramp_count(&test_ramps[r], t));
            assert_true(fabsl(back - t) < 1e-9L);
        }
        assert_true(ramp_time(&test_ramps[r], 0.0L) == 0.0L);
    }
    struct ramp flat = {5000.0, 5000.0, 2000 * MS};
    assert_true(fabsl(ramp_count(&flat, 1.5L) - 7500.0L) < 1e-9L);
    assert_true(fabsl(ramp_time(&flat, 7500.0L) - 1.5L) < 1e-12L);
    assert_true(fabs(ramp_rate_between(&test_ramps[0], 0.5, 1.5) - 10500.0) < 1e-6);
}

/* Uniform over each ramp: every lane's times rise, and at every ms the count of a lane's
 * times at or before it is its share of L(t) within 1. */
static void test_ramp_uniform_counts(void **state)
{
    (void)state;
    size_t cap = 80000;
    uint64_t *times = malloc(cap * sizeof(*times));
    assert_non_null(times);
    for (size_t r = 0; r < sizeof(test_ramps) / sizeof(test_ramps[0]); r++) {
        for (uint32_t lane = 0; lane < RAMP_LANES; lane++) {
            struct schedule s;
            schedule_init_ramp(&s, ARRIVAL_UNIFORM, 0, &test_ramps[r], RAMP_LANES, lane, START_NS,
                               1);
            size_t n = 0;
            while (schedule_peek(&s) <= START_NS + (uint64_t)(RAMP_SECONDS * 1e9)) {
                assert_true(n < cap);
                times[n++] = schedule_peek(&s);
                assert_true(n == 1 || times[n - 1] > times[n - 2]);
                schedule_advance(&s);
            }
            size_t seen = 0;
            for (int ms = 1; ms <= (int)(RAMP_SECONDS * 1000); ms++) {
                while (seen < n && times[seen] <= START_NS + (uint64_t)ms * MS) {
                    seen++;
                }
                long double share = (ramp_count(&test_ramps[r], ms / 1000.0L) - lane) / RAMP_LANES;
                /* 1e-6: a time on the ms itself may round either way */
                assert_true(fabsl((long double)seen - share) <= 1.0L + 1e-6L);
            }
        }
    }
    free(times);
}

/* Poisson over each ramp: the count of the lanes' times in each 0.1 s is the ramp's within 5
 * standard deviations (a Poisson count's: the root of its mean), and each lane's times rise. */
static void test_ramp_poisson_counts(void **state)
{
    (void)state;
    for (size_t r = 0; r < sizeof(test_ramps) / sizeof(test_ramps[0]); r++) {
        uint64_t slices[30] = {0};
        for (uint32_t lane = 0; lane < RAMP_LANES; lane++) {
            struct schedule s;
            schedule_init_ramp(&s, ARRIVAL_POISSON, 0, &test_ramps[r], RAMP_LANES, lane, START_NS,
                               1000 + lane);
            uint64_t last = 0;
            while (schedule_peek(&s) < START_NS + (uint64_t)(RAMP_SECONDS * 1e9)) {
                assert_true(schedule_peek(&s) >= last);
                last = schedule_peek(&s);
                slices[(last - START_NS) / (100 * MS)]++;
                schedule_advance(&s);
            }
        }
        for (int i = 0; i < 30; i++) {
            long double mean =
                ramp_count(&test_ramps[r], (i + 1) / 10.0L) - ramp_count(&test_ramps[r], i / 10.0L);
            assert_true(fabsl((long double)slices[i] - mean) <= 5.0L * sqrtl(mean) + 1.0L);
        }
    }
}

/* Over a ramp, skipping to an end consumes exactly what advancing would (uniform), and a
 * random law's skip lands past the end with about the ramp's count. */
static void test_ramp_skip(void **state)
{
    (void)state;
    for (size_t r = 0; r < sizeof(test_ramps) / sizeof(test_ramps[0]); r++) {
        struct schedule a, b;
        schedule_init_ramp(&a, ARRIVAL_UNIFORM, 0, &test_ramps[r], 3, 2, START_NS, 1);
        schedule_init_ramp(&b, ARRIVAL_UNIFORM, 0, &test_ramps[r], 3, 2, START_NS, 1);
        uint64_t end = START_NS + 2500 * MS + 7;
        uint64_t n = 0;
        while (schedule_peek(&a) < end) {
            schedule_advance(&a);
            n++;
        }
        assert_int_equal(schedule_skip(&b, end, UINT64_MAX), n);
        assert_int_equal(schedule_peek(&b), schedule_peek(&a));
        assert_int_equal(schedule_skip(&b, end, UINT64_MAX), 0);
        schedule_init_ramp(&b, ARRIVAL_POISSON, 0, &test_ramps[r], 1, 0, START_NS, 5);
        uint64_t m = schedule_skip(&b, end, UINT64_MAX);
        long double due = ramp_count(&test_ramps[r], 2.5L);
        assert_true(fabsl((long double)m - due) <= 2.0L);
        assert_true(schedule_peek(&b) >= end);
    }
}

/* --control: times before the change keep the old rate, times from it follow the new one from
 * the change's time, and a lane behind its schedule still sends the old times first. */
static void test_retarget_keeps_times_before_change(void **state)
{
    (void)state;
    struct schedule s;
    schedule_init(&s, ARRIVAL_UNIFORM, 0.0, 1000.0, 1, 0, START_NS, 1); /* every 1 ms */
    uint64_t at = START_NS + 10 * MS + MS / 2;                          /* between 10 and 11 */
    schedule_retarget(&s, at, 4000.0);                                  /* every 250 us */
    for (uint64_t k = 0; k <= 10; k++) {                                /* still behind: old */
        assert_int_equal(schedule_peek(&s), START_NS + k * MS);
        schedule_advance(&s);
    }
    for (uint64_t k = 0; k < 8; k++) {
        assert_int_equal(schedule_peek(&s), at + k * (MS / 4));
        schedule_advance(&s);
    }
}

/* A change at a time the lane has not reached switches at once; lanes stagger from it. */
static void test_retarget_staggers_lanes(void **state)
{
    (void)state;
    struct schedule a, b;
    schedule_init(&a, ARRIVAL_UNIFORM, 0.0, 100.0, 2, 0, START_NS, 1);
    schedule_init(&b, ARRIVAL_UNIFORM, 0.0, 100.0, 2, 1, START_NS, 2);
    uint64_t at = START_NS + 5 * MS; /* after lane 0's first time (0 ms), before lane 1's (5) */
    assert_int_equal(schedule_peek(&a), START_NS);
    schedule_advance(&a);
    schedule_retarget(&a, at, 2000.0);
    schedule_retarget(&b, at, 2000.0);
    assert_int_equal(schedule_peek(&a), at);
    assert_int_equal(schedule_peek(&b), at + MS / 2);
    schedule_advance(&a);
    assert_int_equal(schedule_peek(&a), at + MS);
}

/* Paused (rate 0): nothing is intended, skipping finds nothing, until a rate is set again. */
static void test_retarget_pause_and_resume(void **state)
{
    (void)state;
    struct schedule s;
    schedule_init(&s, ARRIVAL_POISSON, 0.0, 1000.0, 1, 0, START_NS, 7);
    schedule_retarget(&s, START_NS, 0.0);
    assert_int_equal(schedule_peek(&s), UINT64_MAX);
    schedule_advance(&s);
    assert_int_equal(schedule_peek(&s), UINT64_MAX);
    assert_int_equal(schedule_skip(&s, START_NS + 1000 * MS, 1000), 0);
    uint64_t resume = START_NS + 2000 * MS;
    schedule_retarget(&s, resume, 1000.0);
    assert_true(schedule_peek(&s) >= resume);
    assert_true(schedule_peek(&s) < resume + 100 * MS);
}

/* Skipping across a pending change counts the old rate's times up to it, the new rate's after. */
static void test_retarget_skip_across_change(void **state)
{
    (void)state;
    struct schedule s;
    schedule_init(&s, ARRIVAL_UNIFORM, 0.0, 1000.0, 1, 0, START_NS, 1);
    schedule_retarget(&s, START_NS + 100 * MS, 10000.0);
    /* 100 old times (0..99 ms), then 100 ms at 10,000/s: 1000 more */
    assert_int_equal(schedule_skip(&s, START_NS + 200 * MS, UINT64_MAX), 1100);
    assert_int_equal(schedule_peek(&s), START_NS + 200 * MS);
    /* a ramp replaced by a constant rate */
    struct ramp r = {.from = 0.0, .to = 2000.0, .duration_ns = 1000 * MS};
    schedule_init_ramp(&s, ARRIVAL_UNIFORM, 0.0, &r, 1, 0, START_NS, 1);
    schedule_retarget(&s, START_NS, 500.0);
    assert_int_equal(schedule_skip(&s, START_NS + 1000 * MS, UINT64_MAX), 500);
}

/* The target of a run changed by --control: the plan's count up to the first change, each
 * change's rate after it, a pause's nothing; a stop changes nothing; the rate at a point. */
static void test_rate_plan_between(void **state)
{
    (void)state;
    const struct ramp none = {0};
    const struct rate_change c[] = {{.at_s = 2, .action = RATE_SET, .tps = 6000},
                                    {.at_s = 4, .action = RATE_PAUSE, .tps = 0},
                                    {.at_s = 5, .action = RATE_RESUME, .tps = 6000},
                                    {.at_s = 7, .action = RATE_STOP, .tps = 0}};
    size_t n = SLAP_ARRAY_SIZE(c);
    assert_true(fabs(rate_plan_between(&none, 2000, c, n, 0, 1) - 2000) < 1e-6);
    assert_true(fabs(rate_plan_between(&none, 2000, c, n, 1, 3) - 4000) < 1e-6);
    assert_true(fabs(rate_plan_between(&none, 2000, c, n, 3.5, 4.5) - 3000) < 1e-6);
    assert_true(fabs(rate_plan_between(&none, 2000, c, n, 4, 5)) < 1e-6);
    assert_true(fabs(rate_plan_between(&none, 2000, c, n, 6, 8) - 6000) < 1e-6);
    assert_true(fabs(rate_plan_between(&none, 2000, c, n, 4.5, 4.5)) < 1e-6);
    assert_true(fabs(rate_plan_between(&none, 2000, c, 0, 6, 8) - 2000) < 1e-6);
    /* a ramp from 0 to 1000 over 10 s, cut at 5 s (at 500/s) by a rate of 100 */
    const struct ramp r = {.from = 0, .to = 1000, .duration_ns = 10 * SLAP_NS_PER_SEC};
    const struct rate_change cut = {.at_s = 5, .action = RATE_SET, .tps = 100};
    assert_true(fabs(rate_plan_between(&r, 500, &cut, 1, 0, 5) - 250) < 1e-6);
    assert_true(fabs(rate_plan_between(&r, 500, &cut, 1, 5, 10) - 100) < 1e-6);
    /* a change during --warmup counts from the measured start */
    const struct rate_change early = {.at_s = -1, .action = RATE_SET, .tps = 300};
    assert_true(fabs(rate_plan_between(&none, 2000, &early, 1, 0, 1) - 300) < 1e-6);
    enum rate_action a;
    for (int i = 0; i < RATE_ACTIONS; i++) {
        assert_true(rate_action_parse(rate_action_name((enum rate_action)i), &a));
        assert_int_equal(a, i);
    }
    assert_false(rate_action_parse("rates", &a));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_arrival_named),
        cmocka_unit_test(test_uniform_one_lane_exact),
        cmocka_unit_test(test_uniform_lanes_staggered),
        cmocka_unit_test(test_uniform_lanes_merge_evenly),
        cmocka_unit_test(test_uniform_no_drift),
        cmocka_unit_test(test_uniform_large_k),
        cmocka_unit_test(test_poisson_follows_formula),
        cmocka_unit_test(test_poisson_mean_and_variance),
        cmocka_unit_test(test_poisson_seeded),
        cmocka_unit_test(test_gap_laws),
        cmocka_unit_test(test_arrival_laws_hold_at_their_ends),
        cmocka_unit_test(test_highest_draw_is_a_finite_gap),
        cmocka_unit_test(test_peek_does_not_advance),
        cmocka_unit_test(test_uniform_skip_matches_advancing),
        cmocka_unit_test(test_skip_bounded_and_large),
        cmocka_unit_test(test_ramp_time_inverts_count),
        cmocka_unit_test(test_ramp_uniform_counts),
        cmocka_unit_test(test_ramp_poisson_counts),
        cmocka_unit_test(test_ramp_skip),
        cmocka_unit_test(test_retarget_keeps_times_before_change),
        cmocka_unit_test(test_retarget_staggers_lanes),
        cmocka_unit_test(test_retarget_pause_and_resume),
        cmocka_unit_test(test_retarget_skip_across_change),
        cmocka_unit_test(test_rate_plan_between),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
