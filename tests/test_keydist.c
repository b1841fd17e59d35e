/* Unit tests of key popularity: range, uniform, zipf and gaussian shapes, determinism, parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/model/keydist.h"
#include "slap/model/workload.h"

#define SEED 0x6b657964697374ULL /* fixed: every run draws the same picks */
#define RANGE_PICKS 20000
#define UNIFORM_BUCKETS 100
#define UNIFORM_PICKS 500000
#define ZIPF_N 1000
#define ZIPF_PICKS 1000000
#define ZIPF_TOP_RANKS 10
#define ZIPF_TAIL_FROM 500
#define SMALL_PICKS 400000
#define ZIPF_CELL_MIN 50.0    /* expected picks in each chi-square cell */
#define CHI_SQUARE_Z 3.719    /* one-sided 99.99% normal quantile */
#define DIRECT_TERMS 100000.0 /* zipf weights summed one by one before Euler-Maclaurin */
#define GAUSSIAN_N 600
#define GAUSSIAN_PICKS 1000000
#define CYCLE_PICKS 200000
#define SEQUENCE_PICKS 10000

static const uint64_t range_windows[] = {1, 2, 3, 7, 1000, 1000000, (1ULL << 32) - 1, 1ULL << 32};

/* Every kind, with zipf at the exponents that exercise its edges. */
static const struct key_dist all_dists[] = {
    {KEY_DIST_UNIFORM, 0.0}, {KEY_DIST_ZIPF, 0.99}, {KEY_DIST_ZIPF, 1.0}, {KEY_DIST_ZIPF, 2.0},
    {KEY_DIST_ZIPF, 1e-3},   {KEY_DIST_ZIPF, 10.0}, {KEY_DIST_ZIPF, 0.5}, {KEY_DIST_GAUSSIAN, 0.0},
};

/* Integral of x^-s from a to b. */
static double weight_integral(double a, double b, double s)
{
    if (s == 1.0) {
        return log(b / a);
    }
    return (pow(b, 1.0 - s) - pow(a, 1.0 - s)) / (1.0 - s);
}

/* Sum of k^-s for k in [first, last]: term by term, then Euler-Maclaurin for the rest. */
static double weight_sum(double first, double last, double s)
{
    double sum = 0.0;
    double k = first;
    for (; k <= last && k < first + DIRECT_TERMS; k++) {
        sum += pow(k, -s);
    }
    if (k > last) {
        return sum;
    }
    double slope_k = -s * pow(k, -s - 1.0);
    double slope_last = -s * pow(last, -s - 1.0);
    return sum + weight_integral(k, last, s) + (pow(k, -s) + pow(last, -s)) / 2.0 +
           (slope_last - slope_k) / 12.0;
}

/* Exact probability of rank in [first, last] among n ranks. */
static double zipf_share(uint64_t first, uint64_t last, uint64_t n, double s)
{
    return weight_sum((double)first + 1.0, (double)last + 1.0, s) / weight_sum(1.0, (double)n, s);
}

/* Fail when an observed share is off the exact one by more than both tolerances. */
static void assert_share_close(const char *what, uint64_t index, double observed, double exact,
                               double relative, double absolute)
{
    double diff = fabs(observed - exact);
    if (diff > relative * exact && diff > absolute) {
        fail_msg("%s %llu: observed %.6f, exact %.6f", what, (unsigned long long)index, observed,
                 exact);
    }
}

/* Chi-square at df degrees of freedom that a fair sample exceeds with probability 1e-4. */
static double chi_square_limit(int df)
{
    double a = 2.0 / (9.0 * df);
    double root = 1.0 - a + CHI_SQUARE_Z * sqrt(a);
    return df * root * root * root; /* Wilson-Hilferty */
}

/* A pick, failing the test (not overrunning a histogram) when it is not below n. */
static uint64_t pick_below(const struct key_dist *d, uint64_t n, struct rng *r)
{
    uint64_t pick = key_dist_pick(d, n, r);
    if (pick >= n) {
        fail_msg("kind %d s %g n %llu: pick %llu", (int)d->kind, d->s, (unsigned long long)n,
                 (unsigned long long)pick);
    }
    return pick;
}

static void test_pick_below_n(void **state)
{
    (void)state;
    for (size_t d = 0; d < SLAP_ARRAY_SIZE(all_dists); d++) {
        for (size_t w = 0; w < SLAP_ARRAY_SIZE(range_windows); w++) {
            struct rng r = {.state = SEED + w};
            uint64_t n = range_windows[w];
            for (int i = 0; i < RANGE_PICKS; i++) {
                pick_below(&all_dists[d], n, &r);
            }
        }
    }
}

static void test_uniform_buckets(void **state)
{
    (void)state;
    const struct key_dist d = {KEY_DIST_UNIFORM, 0.0};
    struct rng r = {.state = SEED};
    uint32_t counts[UNIFORM_BUCKETS] = {0};
    for (int i = 0; i < UNIFORM_PICKS; i++) {
        counts[pick_below(&d, UNIFORM_BUCKETS, &r)]++;
    }
    double mean = (double)UNIFORM_PICKS / UNIFORM_BUCKETS;
    double chi_square = 0.0;
    for (int b = 0; b < UNIFORM_BUCKETS; b++) {
        assert_share_close("bucket", (uint64_t)b, counts[b], mean, 0.05, 0.0);
        chi_square += (counts[b] - mean) * (counts[b] - mean) / mean;
    }
    assert_true(chi_square < chi_square_limit(UNIFORM_BUCKETS - 1));
}

/* Chi-square of the rank counts against the exact shares, ranks merged into cells. */
static void assert_zipf_chi_square(const uint32_t *counts, double s)
{
    double chi_square = 0.0;
    double expected = 0.0;
    double observed = 0.0;
    int cells = 0;
    for (uint64_t k = 0; k < ZIPF_N; k++) {
        expected += zipf_share(k, k, ZIPF_N, s) * ZIPF_PICKS;
        observed += counts[k];
        if (expected >= ZIPF_CELL_MIN || k == ZIPF_N - 1) {
            chi_square += (observed - expected) * (observed - expected) / expected;
            cells++;
            expected = 0.0;
            observed = 0.0;
        }
    }
    if (chi_square > chi_square_limit(cells - 1)) {
        fail_msg("s %.2f: chi-square %.1f over %d cells", s, chi_square, cells);
    }
}

static void check_zipf(double s)
{
    const struct key_dist d = {KEY_DIST_ZIPF, s};
    struct rng r = {.state = SEED};
    static uint32_t counts[ZIPF_N];
    memset(counts, 0, sizeof(counts));
    for (int i = 0; i < ZIPF_PICKS; i++) {
        counts[pick_below(&d, ZIPF_N, &r)]++;
    }
    for (uint64_t k = 0; k < ZIPF_TOP_RANKS; k++) {
        double exact = zipf_share(k, k, ZIPF_N, s);
        assert_share_close("rank", k, (double)counts[k] / ZIPF_PICKS, exact, 0.03, 0.002);
    }
    uint64_t tail = 0;
    for (uint64_t k = ZIPF_TAIL_FROM; k < ZIPF_N; k++) {
        tail += counts[k];
    }
    double exact_tail = zipf_share(ZIPF_TAIL_FROM, ZIPF_N - 1, ZIPF_N, s);
    double tail_sd = sqrt(exact_tail * (1.0 - exact_tail) / ZIPF_PICKS);
    assert_share_close("tail from rank", ZIPF_TAIL_FROM, (double)tail / ZIPF_PICKS, exact_tail,
                       0.03, 5.0 * tail_sd);
    assert_zipf_chi_square(counts, s);
}

static void test_zipf_default_exponent(void **state)
{
    (void)state;
    check_zipf(0.99);
}

static void test_zipf_exponent_one(void **state)
{
    (void)state;
    check_zipf(1.0);
}

static void test_zipf_exponent_two(void **state)
{
    (void)state;
    check_zipf(2.0);
}

/* Small windows, where a misplaced half key would show: every rank within 5 sd of exact. */
static void test_zipf_small_windows(void **state)
{
    (void)state;
    static const uint64_t windows[] = {2, 3, 5};
    static const double exponents[] = {0.5, 0.99, 1.0, 3.0};
    for (size_t w = 0; w < SLAP_ARRAY_SIZE(windows); w++) {
        for (size_t e = 0; e < SLAP_ARRAY_SIZE(exponents); e++) {
            const struct key_dist d = {KEY_DIST_ZIPF, exponents[e]};
            struct rng r = {.state = SEED};
            uint32_t counts[5] = {0};
            for (int i = 0; i < SMALL_PICKS; i++) {
                counts[pick_below(&d, windows[w], &r)]++;
            }
            for (uint64_t k = 0; k < windows[w]; k++) {
                double exact = zipf_share(k, k, windows[w], exponents[e]);
                double sd = sqrt(exact * (1.0 - exact) / SMALL_PICKS);
                assert_share_close("rank", k, (double)counts[k] / SMALL_PICKS, exact, 0.0, 5 * sd);
            }
        }
    }
}

/* n = 2^32: the head and the upper half of the ranks against the exact shares. */
static void check_zipf_huge_window(double s)
{
    const uint64_t n = 1ULL << 32;
    const struct key_dist d = {KEY_DIST_ZIPF, s};
    struct rng r = {.state = SEED};
    uint32_t head[ZIPF_TOP_RANKS] = {0};
    uint32_t upper_half = 0;
    for (int i = 0; i < ZIPF_PICKS; i++) {
        uint64_t pick = pick_below(&d, n, &r);
        if (pick < ZIPF_TOP_RANKS) {
            head[pick]++;
        }
        upper_half += pick >= n / 2;
    }
    for (uint64_t k = 0; k < ZIPF_TOP_RANKS; k++) {
        double exact = zipf_share(k, k, n, s);
        assert_share_close("rank", k, (double)head[k] / ZIPF_PICKS, exact, 0.03, 0.002);
    }
    double exact_upper = zipf_share(n / 2, n - 1, n, s);
    double upper_sd = sqrt(exact_upper * (1.0 - exact_upper) / ZIPF_PICKS);
    assert_share_close("upper half from", n / 2, (double)upper_half / ZIPF_PICKS, exact_upper, 0.03,
                       5.0 * upper_sd);
}

static void test_zipf_huge_window(void **state)
{
    (void)state;
    check_zipf_huge_window(0.99);
    check_zipf_huge_window(0.5);
}

static void test_same_seed_same_sequence(void **state)
{
    (void)state;
    for (size_t d = 0; d < SLAP_ARRAY_SIZE(all_dists); d++) {
        struct rng first = {.state = SEED};
        struct rng again = {.state = SEED};
        struct rng other = {.state = SEED + 1};
        int differ = 0;
        for (uint64_t i = 0; i < SEQUENCE_PICKS; i++) {
            uint64_t n = 2 + i % 5000;
            uint64_t pick = key_dist_pick(&all_dists[d], n, &first);
            assert_int_equal(pick, key_dist_pick(&all_dists[d], n, &again));
            differ += pick != key_dist_pick(&all_dists[d], n, &other);
        }
        assert_true(differ > 0);
    }
}

static void test_changing_n_stays_in_range(void **state)
{
    (void)state;
    for (size_t d = 0; d < SLAP_ARRAY_SIZE(all_dists); d++) {
        struct rng r = {.state = SEED};
        for (uint64_t i = 0; i < CYCLE_PICKS; i++) {
            pick_below(&all_dists[d], 1 + i % 100, &r);
        }
    }
}

/* n alternating between 10 and 1000: each sees its own share of rank 0, nothing carried over. */
static void test_changing_n_keeps_shape(void **state)
{
    (void)state;
    const struct key_dist d = {KEY_DIST_ZIPF, 0.99};
    const uint64_t windows[2] = {10, ZIPF_N};
    uint32_t rank0[2] = {0, 0};
    struct rng r = {.state = SEED};
    for (int i = 0; i < ZIPF_PICKS; i++) {
        rank0[i % 2] += pick_below(&d, windows[i % 2], &r) == 0;
    }
    for (int w = 0; w < 2; w++) {
        double exact = zipf_share(0, 0, windows[w], 0.99);
        assert_share_close("rank 0 for n", windows[w], rank0[w] / (ZIPF_PICKS / 2.0), exact, 0.03,
                           0.002);
    }
}

static void test_gaussian_shape(void **state)
{
    (void)state;
    const struct key_dist d = {KEY_DIST_GAUSSIAN, 0.0};
    struct rng r = {.state = SEED};
    static uint32_t counts[GAUSSIAN_N];
    memset(counts, 0, sizeof(counts));
    double sum = 0.0;
    double sum_squares = 0.0;
    for (int i = 0; i < GAUSSIAN_PICKS; i++) {
        uint64_t pick = pick_below(&d, GAUSSIAN_N, &r);
        counts[pick]++;
        sum += (double)pick;
        sum_squares += (double)pick * (double)pick;
    }
    double mean = sum / GAUSSIAN_PICKS;
    double sd = sqrt(sum_squares / GAUSSIAN_PICKS - mean * mean);
    assert_true(fabs(mean - 300.0) < 3.0);
    assert_true(fabs(sd - 100.0) < 2.0);
    /* 3 sd out the density is about 44 picks a key; clamping would pile ~1350 on each edge */
    assert_true(counts[0] > 0 && counts[0] < 150);
    assert_true(counts[GAUSSIAN_N - 1] > 0 && counts[GAUSSIAN_N - 1] < 150);
}

static void test_gaussian_small_windows(void **state)
{
    (void)state;
    const struct key_dist d = {KEY_DIST_GAUSSIAN, 0.0};
    struct rng r = {.state = SEED};
    for (int i = 0; i < RANGE_PICKS; i++) {
        assert_int_equal(key_dist_pick(&d, 1, &r), 0);
    }
    uint32_t ones = 0;
    for (int i = 0; i < UNIFORM_PICKS; i++) {
        ones += (uint32_t)pick_below(&d, 2, &r);
    }
    assert_share_close("n 2, key", 1, (double)ones / UNIFORM_PICKS, 0.5, 0.01, 0.0);
}

static void test_parse_good(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        enum key_dist_kind kind;
        double s;
    } cases[] = {
        {"uniform", KEY_DIST_UNIFORM, 0.0},   {"gaussian", KEY_DIST_GAUSSIAN, 0.0},
        {"zipf", KEY_DIST_ZIPF, 0.99},        {"zipf:0.99", KEY_DIST_ZIPF, 0.99},
        {"zipf:1", KEY_DIST_ZIPF, 1.0},       {"zipf:1.0", KEY_DIST_ZIPF, 1.0},
        {"zipf:2", KEY_DIST_ZIPF, 2.0},       {"zipf:.5", KEY_DIST_ZIPF, 0.5},
        {"zipf:10", KEY_DIST_ZIPF, 10.0},     {"zipf:1e-3", KEY_DIST_ZIPF, 0.001},
        {"zipf:0.01", KEY_DIST_ZIPF, 0.01},   {"latest", KEY_DIST_LATEST, 0.99},
        {"latest:1.2", KEY_DIST_LATEST, 1.2},
    };
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(cases); i++) {
        struct key_dist d = {KEY_DIST_GAUSSIAN, -1.0};
        char err[256] = "";
        if (key_dist_parse(cases[i].text, &d, err, sizeof(err)) != SLAP_OK) {
            fail_msg("'%s' rejected: %s", cases[i].text, err);
        }
        assert_int_equal(d.kind, cases[i].kind);
        if (cases[i].kind == KEY_DIST_ZIPF || cases[i].kind == KEY_DIST_LATEST) {
            assert_true(d.s == cases[i].s);
        }
    }
}

static void test_parse_bad(void **state)
{
    (void)state;
    static const char *const cases[] = {
        "",         "Uniform",  "uniform:1", "gauss",    "gaussian:2", "zipf:",     "zipf:0",
        "zipf:0.0", "zipf:-1",  "zipf:10.5", "zipf:11",  "zipf:1e9",   "zipf:abc",  "zipf:1x",
        "zipf: 1",  "zipf:1 ",  "zipf:nan",  "zipf:inf", "zipf:0x1p0", "zipf:1..2", "zipf1",
        "zipf::1",  " uniform", "zipfian",   "latest:",  "latest:0",   "latest:11", "latests",
    };
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(cases); i++) {
        struct key_dist d = {KEY_DIST_GAUSSIAN, -1.0};
        char err[256] = "";
        if (key_dist_parse(cases[i], &d, err, sizeof(err)) != SLAP_ERROR) {
            fail_msg("'%s' accepted", cases[i]);
        }
        char quoted[64];
        snprintf(quoted, sizeof(quoted), "'%s'", cases[i]);
        assert_non_null(strstr(err, quoted));
        assert_non_null(strstr(err, "uniform, zipf, zipf:S"));
        assert_null(strchr(err, '\n'));
        assert_int_equal(d.kind, KEY_DIST_GAUSSIAN); /* untouched on error */
        assert_true(d.s == -1.0);
    }
}

/* Whether text names name as a word of its own: not inside a longer name ("zipf" of
 * "zipfian"); a ':' or '[' may follow it. */
static bool names_word(const char *text, const char *name)
{
    size_t len = strlen(name);
    for (const char *at = strstr(text, name); at != NULL; at = strstr(at + 1, name)) {
        bool before = at == text || !(at[-1] >= 'a' && at[-1] <= 'z');
        bool after = !(at[len] >= 'a' && at[len] <= 'z') && at[len] != '_';
        if (before && after) {
            return true;
        }
    }
    return false;
}

/* Every kind has one row; every row reads by its name (NAME:S too when it takes an exponent),
 * shows as it reads, and is named where a bad law is refused; --key_pattern's own rows are
 * --key_pattern's alone. */
static void test_every_row_by_name(void **state)
{
    (void)state;
    for (int kind = 0; kind < KEY_DIST_KINDS; kind++) {
        size_t rows = 0;
        for (size_t i = 0; i < key_dist_row_count; i++) {
            rows += key_dist_rows[i].kind == (enum key_dist_kind)kind;
        }
        assert_int_equal(rows, 1);
    }
    char refused[256] = "", refused_pattern[256] = "";
    struct key_dist d;
    struct key_pattern p;
    assert_int_equal(key_dist_parse("no-such-law", &d, refused, sizeof(refused)), SLAP_ERROR);
    assert_int_equal(
        key_pattern_parse("all:no-such-law", &p, refused_pattern, sizeof(refused_pattern)),
        SLAP_ERROR);
    for (size_t i = 0; i < key_dist_row_count; i++) {
        const struct key_dist_row *row = &key_dist_rows[i];
        char text[64], shown[64], err[256] = "";
        assert_string_equal(key_dist_name(row->kind), row->name);
        if (!names_word(refused_pattern, row->name)) {
            fail_msg("--key_pattern's message does not name %s: %s", row->name, refused_pattern);
        }
        snprintf(text, sizeof(text), "all:%s", row->name);
        if (key_pattern_parse(text, &p, err, sizeof(err)) != SLAP_OK || p.kind[0] != row->kind) {
            fail_msg("%s: %s", text, err);
        }
        if (row->pattern_only) {
            assert_int_equal(key_dist_parse(row->name, &d, err, sizeof(err)), SLAP_ERROR);
            continue;
        }
        if (!names_word(refused, row->name)) {
            fail_msg("--key_dist's message does not name %s: %s", row->name, refused);
        }
        if (key_dist_parse(row->name, &d, err, sizeof(err)) != SLAP_OK || d.kind != row->kind) {
            fail_msg("%s: %s", row->name, err);
        }
        snprintf(text, sizeof(text), "%s:2", row->name);
        assert_int_equal(key_dist_parse(text, &d, err, sizeof(err)),
                         row->exponent ? SLAP_OK : SLAP_ERROR);
        key_dist_format(&d, shown, sizeof(shown));
        assert_string_equal(shown, row->exponent ? text : row->name);
    }
}

static void test_parse_error_fits_small_buffer(void **state)
{
    (void)state;
    struct key_dist d;
    char err[16];
    memset(err, 'x', sizeof(err));
    assert_int_equal(key_dist_parse("zipf:999", &d, err, 8), SLAP_ERROR);
    assert_int_equal(strlen(err), 7);
    assert_int_equal(err[8], 'x');
}

/* --key_pattern: the defaults (set and add walk, incr and decr uniform, the rest --key_dist),
 * groups, later items over earlier ones, and the text reads back to the same pattern. */
static void test_pattern_resolve(void **state)
{
    (void)state;
    struct key_pattern p;
    struct key_dist laws[OP_COUNT];
    const struct key_dist zipf = {KEY_DIST_ZIPF, 0.8};
    char err[256] = "", text[256];
    key_pattern_resolve(&(struct key_pattern){.n = 0}, &zipf, laws);
    for (int op = 0; op < OP_COUNT; op++) {
        enum key_dist_kind want = op == OP_SET || op == OP_ADD     ? KEY_DIST_SEQUENTIAL
                                  : op == OP_INCR || op == OP_DECR ? KEY_DIST_UNIFORM
                                                                   : KEY_DIST_ZIPF;
        assert_int_equal(laws[op].kind, want);
    }
    assert_true(laws[OP_DELETE].s == 0.8 && laws[OP_CAS].s == 0.8);
    if (key_pattern_parse("all:gaussian,write:uniform,read:sequential,get:zipf:1.5,add:latest:2",
                          &p, err, sizeof(err)) != SLAP_OK) {
        fail_msg("rejected: %s", err);
    }
    key_pattern_resolve(&p, &zipf, laws);
    assert_int_equal(laws[OP_GET].kind, KEY_DIST_ZIPF);
    assert_true(laws[OP_GET].s == 1.5);
    assert_int_equal(laws[OP_GETS].kind, KEY_DIST_SEQUENTIAL);
    assert_int_equal(laws[OP_TOUCH].kind, KEY_DIST_SEQUENTIAL);
    assert_int_equal(laws[OP_SET].kind, KEY_DIST_UNIFORM);
    assert_int_equal(laws[OP_CAS].kind, KEY_DIST_UNIFORM);
    assert_int_equal(laws[OP_ADD].kind, KEY_DIST_LATEST);
    assert_true(laws[OP_ADD].s == 2.0);
    assert_int_equal(laws[OP_DELETE].kind, KEY_DIST_GAUSSIAN);
    assert_int_equal(laws[OP_INCR].kind, KEY_DIST_GAUSSIAN);
    key_pattern_format(&p, text, sizeof(text));
    assert_string_equal(text,
                        "all:gaussian,write:uniform,read:sequential,get:zipf:1.5,add:latest:2");
}

static void test_pattern_parse_bad(void **state)
{
    (void)state;
    static const char *const cases[] = {
        "", "set", "set:", "sets:uniform", "set:zipf:0", "set:walk", "get:uniform,", ",get:uniform",
        "read:zipf:11", "write=uniform", "a:b,c:d", "set:sequential:1",
        "set:uniform,get:zipf,gets:zipf,gat:zipf,touch:zipf,"
        "add:zipf,replace:zipf,append:zipf,prepend:zipf,"
        "cas:zipf,delete:zipf,incr:zipf,decr:zipf,all:zipf,"
        "read:zipf,write:zipf,set:zipf",
        /* a law past 63 bytes: once cut there and read as zipf:0.99...9 */
        "get:zipf:0.999999999999999999999999999999999999999999999999999999999999garbage"};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(cases); i++) {
        struct key_pattern p = {.n = 7};
        char err[256] = "";
        if (key_pattern_parse(cases[i], &p, err, sizeof(err)) != SLAP_ERROR) {
            fail_msg("'%s' accepted", cases[i]);
        }
        assert_true(err[0] != '\0');
        assert_null(strchr(err, '\n'));
        assert_int_equal(p.n, 7); /* untouched on error */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pick_below_n),
        cmocka_unit_test(test_uniform_buckets),
        cmocka_unit_test(test_zipf_default_exponent),
        cmocka_unit_test(test_zipf_exponent_one),
        cmocka_unit_test(test_zipf_exponent_two),
        cmocka_unit_test(test_zipf_small_windows),
        cmocka_unit_test(test_zipf_huge_window),
        cmocka_unit_test(test_same_seed_same_sequence),
        cmocka_unit_test(test_changing_n_stays_in_range),
        cmocka_unit_test(test_changing_n_keeps_shape),
        cmocka_unit_test(test_gaussian_shape),
        cmocka_unit_test(test_gaussian_small_windows),
        cmocka_unit_test(test_parse_good),
        cmocka_unit_test(test_parse_bad),
        cmocka_unit_test(test_every_row_by_name),
        cmocka_unit_test(test_parse_error_fits_small_buffer),
        cmocka_unit_test(test_pattern_resolve),
        cmocka_unit_test(test_pattern_parse_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
