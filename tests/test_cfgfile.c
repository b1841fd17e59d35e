/* Unit tests of size distributions and the -F config file: parsing, errors, sampling, loading. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slap/base/common.h"
#include "slap/model/cfgfile.h"

#define ERR_LEN 256
#define SAMPLE_SEED 20240601u
#define SAMPLE_COUNT 200000
#define ENDPOINT_COUNT 2000000 /* enough that a size of the widest range shows up ~26 times */
#define SHARE_TOLERANCE 0.01
#define VALUE_MAX (1024u * 1024u)

/* The file memaslap writes to ~/.memaslap.cnf when -F is not given (no final newline). */
static const char memaslap_default[] = "key\n64 64 1\nvalue\n1024 1024 1\ncmd\n0 0.1\n1 0.9";

/*
 * The sample of memaslap's manual as its source gives it: a rule on top, two comments
 * wrapped onto uncommented lines, trailing blanks, a section header commented out
 * inside each section and a cmd TYPE written "1.0".
 */
static const char man_sample[] =
    "---------------------------------------------------------------------------\n"
    "#comments should start with '#'\n"
    "#key \n"
    "#start_len end_len proportion\n"
    "#\n"
    "#key length range from start_len to end_len\n"
    "#start_len must be equal to or greater than 16\n"
    "#end_len must be equal to or less than 250\n"
    "#start_len must be equal to or greater than end_len\n"
    "#memaslap will generate keys according to the key range\n"
    "#proportion: indicates keys generated from one range accounts for the total\n"
    "generated keys  \n"
    "#\n"
    "#example1: key range 16~100 accounts for 80%\n"
    "#          key range 101~200 accounts for 10%\n"
    "#          key range 201~250 accounts for 10%\n"
    "#          total should be 1 (0.8+0.1+0.1 = 1)\n"
    "#\n"
    "#          16 100 0.8  \n"
    "#          101 200 0.1\n"
    "#          201 249 0.1\n"
    "#\n"
    "#example2: all keys length are 128 bytes\n"
    "#\n"
    "#          128 128 1 \n"
    "key\n"
    "128 128 1  \n"
    "#value \n"
    "#start_len end_len proportion\n"
    "#\n"
    "#value length range from start_len to end_len\n"
    "#start_len must be equal to or greater than 1\n"
    "#end_len must be equal to or less than 1M\n"
    "#start_len must be equal to or greater than end_len\n"
    "#memaslap will generate values according to the value range\n"
    "#proportion: indicates values generated from one range accounts for the\n"
    "total generated values  \n"
    "#\n"
    "#example1: value range 1~1000 accounts for 80%\n"
    "#          value range 1001~10000 accounts for 10%\n"
    "#          value range 10001~100000 accounts for 10%\n"
    "#          total should be 1 (0.8+0.1+0.1 = 1)\n"
    "#\n"
    "#          1 1000 0.8  \n"
    "#          1001 10000 0.1\n"
    "#          10001 100000 0.1\n"
    "#\n"
    "#example2: all value length are 128 bytes\n"
    "#\n"
    "#          128 128 1 \n"
    "value\n"
    "2048 2048 1\n"
    "#cmd\n"
    "#cmd_type cmd_proportion\n"
    "#\n"
    "#currently memaslap only testss get and set command.\n"
    "#\n"
    "#cmd_type\n"
    "#set     0\n"
    "#get     1\n"
    "#\n"
    "#example: set command accounts for 50%\n"
    "#         get command accounts for 50%\n"
    "#         total should be 1 (0.5+0.5 = 1)\n"
    "#\n"
    "#         cmd\n"
    "#         0    0.5\n"
    "#         1    0.5\n"
    "cmd\n"
    "0    0.1\n"
    "1.0 0.9\n";

/* ---- helpers ---- */

/* splitmix64 over a counter: the fixed-seed generator of the sampling tests. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Parse text as file "t.cnf", failing the test with the message when it is refused. */
static struct cfg_file parse_ok(const char *text)
{
    struct cfg_file cfg;
    char err[ERR_LEN] = "";
    int rc = cfgfile_parse(text, strlen(text), "t.cnf", &cfg, err, sizeof(err));
    if (rc != SLAP_OK) {
        fail_msg("refused: %s\n--- file ---\n%s", err, text);
    }
    return cfg;
}

/* Range i of d is [min, max] with cumulative share cumul. */
static void assert_range(const struct size_dist *d, uint32_t i, uint32_t min, uint32_t max,
                         double cumul)
{
    assert_true(i < d->n);
    assert_int_equal(d->r[i].min, min);
    assert_int_equal(d->r[i].max, max);
    assert_float_equal(d->r[i].cumul, cumul, 1e-12);
}

/* Each line of text prefixed with indent and ended with "\r\n" instead of "\n". */
static char *reformat(const char *text, const char *indent)
{
    size_t lines = 1;
    for (const char *p = text; *p != '\0'; p++) {
        lines += *p == '\n';
    }
    char *out = malloc(strlen(text) + lines * (strlen(indent) + 1) + 1);
    char *w = out;
    assert_non_null(out);
    for (const char *p = text; *p != '\0'; p++) {
        if (p == text || p[-1] == '\n') {
            w += sprintf(w, "%s", indent);
        }
        if (*p == '\n') {
            *w++ = '\r';
        }
        *w++ = *p;
    }
    *w = '\0';
    return out;
}

/* ---- good files ---- */

static void test_memaslap_default_file(void **state)
{
    (void)state;
    struct cfg_file cfg = parse_ok(memaslap_default);
    assert_true(cfg.has_key && cfg.has_value && cfg.has_cmd);
    assert_int_equal(cfg.key.n, 1);
    assert_range(&cfg.key, 0, 64, 64, 1.0);
    assert_int_equal(cfg.value.n, 1);
    assert_range(&cfg.value, 0, 1024, 1024, 1.0);
    assert_float_equal(cfg.mix[OP_SET], 0.1, 1e-12);
    assert_float_equal(cfg.mix[OP_GET], 0.9, 1e-12);
}

/* The sample as printed: key 128, value 2048, one set in ten (memaslap reads "1.0 0.9" as 0). */
static void test_man_sample(void **state)
{
    (void)state;
    struct cfg_file cfg = parse_ok(man_sample);
    assert_true(cfg.has_key && cfg.has_value && cfg.has_cmd);
    assert_int_equal(cfg.key.n, 1);
    assert_range(&cfg.key, 0, 128, 128, 1.0);
    assert_int_equal(cfg.value.n, 1);
    assert_range(&cfg.value, 0, 2048, 2048, 1.0);
    assert_float_equal(cfg.mix[OP_SET], 0.1, 1e-12);
    assert_float_equal(cfg.mix[OP_GET], 0.9, 1e-12);
}

/* The same sample as the man page renders it (indented by a tab) and with CRLF endings. */
static void test_man_sample_indented_crlf(void **state)
{
    (void)state;
    char *text = reformat(man_sample, "\t  ");
    struct cfg_file cfg = parse_ok(text);
    assert_range(&cfg.key, 0, 128, 128, 1.0);
    assert_range(&cfg.value, 0, 2048, 2048, 1.0);
    assert_float_equal(cfg.mix[OP_GET], 0.9, 1e-12);
    free(text);
}

/* The examples inside the sample's comments, uncommented. */
static void test_man_comment_examples(void **state)
{
    (void)state;
    struct cfg_file cfg = parse_ok("key\n"
                                   "          16 100 0.8\n"
                                   "          101 200 0.1\n"
                                   "          201 249 0.1\n"
                                   "value\n"
                                   "          1 1000 0.8\n"
                                   "          1001 10000 0.1\n"
                                   "          10001 100000 0.1\n"
                                   "         cmd\n"
                                   "         0    0.5\n"
                                   "         1    0.5\n");
    assert_int_equal(cfg.key.n, 3);
    assert_range(&cfg.key, 0, 16, 100, 0.8);
    assert_range(&cfg.key, 1, 101, 200, 0.9);
    assert_range(&cfg.key, 2, 201, 249, 1.0);
    assert_int_equal(cfg.value.n, 3);
    assert_range(&cfg.value, 0, 1, 1000, 0.8);
    assert_range(&cfg.value, 2, 10001, 100000, 1.0);
    assert_float_equal(cfg.mix[OP_SET], 0.5, 1e-12);
    assert_float_equal(cfg.mix[OP_GET], 0.5, 1e-12);

    cfg = parse_ok("key\n128 128 1\nvalue\n128 128 1\n");
    assert_range(&cfg.key, 0, 128, 128, 1.0);
    assert_range(&cfg.value, 0, 128, 128, 1.0);
    assert_false(cfg.has_cmd);
}

/* memaslap takes the first cmd line as set whatever its TYPE says; slap reads the TYPE. */
static void test_cmd_by_type(void **state)
{
    (void)state;
    struct cfg_file cfg = parse_ok("cmd\n1 0.9\n0 0.1\n");
    assert_float_equal(cfg.mix[OP_SET], 0.1, 1e-12);
    assert_float_equal(cfg.mix[OP_GET], 0.9, 1e-12);
    assert_false(cfg.has_key);
    assert_false(cfg.has_value);

    cfg = parse_ok("cmd\n1 1\n");
    assert_true(cfg.has_cmd);
    assert_true(cfg.mix[OP_SET] == 0.0);
    assert_true(cfg.mix[OP_GET] == 1.0);

    cfg = parse_ok("cmd\n0 0.7\n");
    assert_true(cfg.mix[OP_SET] == 1.0);
    assert_true(cfg.mix[OP_GET] == 0.0);

    cfg = parse_ok("cmd\n0 0\n1 0.2\n");
    assert_true(cfg.mix[OP_SET] == 0.0 && cfg.mix[OP_GET] == 1.0);
}

/* Shares that do not add up to 1 are normalised; the given ones are kept in prop. */
static void test_shares_normalised(void **state)
{
    (void)state;
    struct cfg_file cfg = parse_ok("key\n16 16 2\n17 20 6\ncmd\n0 1\n1 3\n");
    assert_range(&cfg.key, 0, 16, 16, 0.25);
    assert_range(&cfg.key, 1, 17, 20, 1.0);
    assert_float_equal(cfg.key.r[0].prop, 2.0, 0.0);
    assert_float_equal(cfg.key.r[1].prop, 6.0, 0.0);
    assert_float_equal(cfg.mix[OP_SET], 0.25, 1e-12);
    assert_float_equal(cfg.mix[OP_GET], 0.75, 1e-12);

    cfg = parse_ok("value\n1 1 0.3\n2 2 0.3\n3 3 0.3\n"); /* adds up to 0.9 */
    assert_true(cfg.value.r[2].cumul == 1.0);
    assert_float_equal(cfg.value.r[0].cumul, 1.0 / 3.0, 1e-12);
}

/* Any order, sections after cmd kept (memaslap loses them), a missing section left out. */
static void test_sections_any_order(void **state)
{
    (void)state;
    struct cfg_file cfg = parse_ok("cmd\n0 0.5\n1 0.5\nvalue\n100 200 1\n");
    assert_true(cfg.has_cmd && cfg.has_value);
    assert_false(cfg.has_key);
    assert_range(&cfg.value, 0, 100, 200, 1.0);

    cfg = parse_ok("value\n1k 1m 1\nkey\n250 250 1\n");
    assert_range(&cfg.value, 0, 1024, VALUE_MAX, 1.0);
    assert_range(&cfg.key, 0, 250, 250, 1.0);
    assert_false(cfg.has_cmd);
}

/* Comments after values and headers, tabs, CRLF, headers with words, no final newline. */
static void test_layout(void **state)
{
    (void)state;
    struct cfg_file cfg = parse_ok("\xef\xbb\xbf# sizes in bytes\r\n"
                                   "\r\n"
                                   "key sizes   # the key section\r\n"
                                   "\t16\t32\t0.5\t# short keys\r\n"
                                   "   \t\r\n"
                                   "  64 64 0.5#long keys\r\n"
                                   "Value:\r\n"
                                   "1 2 1 \t \r\n"
                                   "cmd\t#mix\n"
                                   "0 .1\n"
                                   "1 9e-1");
    assert_int_equal(cfg.key.n, 2);
    assert_range(&cfg.key, 0, 16, 32, 0.5);
    assert_range(&cfg.key, 1, 64, 64, 1.0);
    assert_range(&cfg.value, 0, 1, 2, 1.0);
    assert_float_equal(cfg.mix[OP_SET], 0.1, 1e-12);

    /* words after a comment are the comment wrapped; a rule line says nothing */
    cfg = parse_ok("=====\nkey\n# the key sizes are the\nlengths of the keys\n20 20 1\n");
    assert_range(&cfg.key, 0, 20, 20, 1.0);
}

/* ---- bad files ---- */

struct bad_file {
    const char *text;
    const char *prefix; /* "'t.cnf':LINE: " */
    const char *word;   /* in the message */
};

static const struct bad_file bad_files[] = {
    {"64 64 1\n", "'t.cnf':1: ", "outside"},
    {"# sizes\n\n16 16 1\nkey\n16 16 1\n", "'t.cnf':3: ", "outside"},
    {"key\n64 64\n", "'t.cnf':2: ", "3 fields"},
    {"key\n64 64 1 1\n", "'t.cnf':2: ", "not 4"},
    {"key\n64 abc 1\n", "'t.cnf':2: ", "'abc'"},
    {"key\n64.5 65 1\n", "'t.cnf':2: ", "whole"},
    {"key\n64 64 x\n", "'t.cnf':2: ", "'x'"},
    {"key\n64 64 0\n", "'t.cnf':2: ", "above 0"},
    {"key\n64 64 -0.5\n", "'t.cnf':2: ", "above 0"},
    {"key\n64 64 nan\n", "'t.cnf':2: ", "'nan'"},
    {"key\n64 64 1e999\n", "'t.cnf':2: ", "'1e999'"},
    {"key\n64 64 0x1\n", "'t.cnf':2: ", "'0x1'"},
    {"key\n15 64 1\n", "'t.cnf':2: ", "16..250"},
    {"key\n64 251 1\n", "'t.cnf':2: ", "16..250"},
    {"key\n100 50 1\n", "'t.cnf':2: ", "larger"},
    {"value\n0 10 1\n", "'t.cnf':2: ", "1..1048576"},
    {"value\n1 1048577 1\n", "'t.cnf':2: ", "1..1048576"},
    {"value\n1 99999999999999999999999 1\n", "'t.cnf':2: ", "outside"},
    {"key\n16 18446744073709551616 1\n", "'t.cnf':2: ", "'18446744073709551616' is too large"},
    {"value\n17179869184g 1 1\n", "'t.cnf':2: ", "'17179869184g' is too large"},
    {"keys\n64 64 1\n", "'t.cnf':1: ", "section 'keys'"},
    {"key\n64 64 1\nhello world\n", "'t.cnf':3: ", "section 'hello'"},
    {"# a comment\nset 1\n", "'t.cnf':2: ", "section 'set'"},
    {"key 64 64 1\n", "'t.cnf':1: ", "below"},
    {"key\nvalue\n1 1 1\n", "'t.cnf':1: ", "empty"},
    {"key\n# nothing\n", "'t.cnf':1: ", "empty"},
    {"value\n1 1 1\nkey\n64 64 1\n\nvalue\n2 2 1\n", "'t.cnf':6: ", "repeated"},
    {"cmd\n2 0.5\n", "'t.cnf':2: ", "'2'"},
    {"cmd\n0.5 1\n", "'t.cnf':2: ", "is not 0 (set), 1 (get) or a command"},
    {"cmd\nfoo 1\n", "'t.cnf':2: ", "cmd type 'foo' is not 0 (set), 1 (get) or a command"},
    {"cmd\nget 1\n1 1\n", "'t.cnf':3: ", "cmd type get is given twice"},
    {"key\nget 1\n", "'t.cnf':2: ", "section 'get'"}, /* names are commands only in cmd */
    {"cmd\n0 0.5\n1 0.5\n0.0 0.5\n", "'t.cnf':4: ", "twice (first at line 2)"},
    {"cmd\n0 -1\n", "'t.cnf':2: ", "0 or more"},
    {"cmd\n0 0\n1 0\n", "'t.cnf':1: ", "add up"},
    {"cmd\n0\n", "'t.cnf':2: ", "2 fields"},
    {"key\n1e308 1 1\n", "'t.cnf':2: ", "whole"},
    {"value\n1 1 1e308\n2 2 1e308\n", "'t.cnf':1: ", "too much"},
    {"", "'t.cnf':1: ", "no key, value or cmd"},
    {"# only\n# comments\n", "'t.cnf':2: ", "no key"},
};

static void test_bad_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(bad_files); i++) {
        const struct bad_file *b = &bad_files[i];
        struct cfg_file cfg;
        char err[ERR_LEN] = "";
        int rc = cfgfile_parse(b->text, strlen(b->text), "t.cnf", &cfg, err, sizeof(err));
        if (rc != SLAP_ERROR || strncmp(err, b->prefix, strlen(b->prefix)) != 0 ||
            strstr(err, b->word) == NULL) {
            fail_msg("case %zu: rc %d, message '%s', want '%s...%s'\n--- file ---\n%s", i, rc, err,
                     b->prefix, b->word, b->text);
        }
    }
}

/* Bytes a text file should not hold still give a message, and the length is what counts. */
static void test_bad_bytes(void **state)
{
    (void)state;
    static const char nul_inside[] = "key\n64\0 64 1\n";
    struct cfg_file cfg;
    char err[ERR_LEN] = "";
    assert_int_equal(
        cfgfile_parse(nul_inside, sizeof(nul_inside) - 1, "t.cnf", &cfg, err, sizeof(err)),
        SLAP_ERROR);
    assert_string_equal(err, "'t.cnf':2: key size '64\\x00' is not a whole number of bytes");
    /* the text stops at len: what follows "1" is not read */
    assert_int_equal(cfgfile_parse("key\n64 64 1\nrubbish", 11, "t.cnf", &cfg, err, sizeof(err)),
                     SLAP_OK);
}

/* More than SIZE_DIST_MAX ranges in a section. */
static void test_too_many_ranges(void **state)
{
    (void)state;
    char text[2048] = "key\n";
    for (int i = 0; i <= SIZE_DIST_MAX; i++) {
        sprintf(text + strlen(text), "%d %d 1\n", 16 + i, 16 + i);
    }
    struct cfg_file cfg;
    char err[ERR_LEN] = "";
    assert_int_equal(cfgfile_parse(text, strlen(text), "t.cnf", &cfg, err, sizeof(err)),
                     SLAP_ERROR);
    assert_string_equal(err, "'t.cnf':66: more than 64 key ranges");
    text[strlen(text) - strlen("80 80 1\n")] = '\0'; /* exactly SIZE_DIST_MAX */
    cfg = parse_ok(text);
    assert_int_equal(cfg.key.n, SIZE_DIST_MAX);
    assert_true(cfg.key.r[SIZE_DIST_MAX - 1].cumul == 1.0);
}

/* ---- size_dist_parse ---- */

struct good_dist {
    const char *text;
    uint32_t n;
    uint32_t min[3], max[3];
    double cumul[3];
};

static const struct good_dist good_dists[] = {
    {"64", 1, {64}, {64}, {1.0}},
    {"4-100", 1, {4}, {100}, {1.0}},
    {"4-100:0.3,1024-2048:0.5,5120-20480:0.2",
     3,
     {4, 1024, 5120},
     {100, 2048, 20480},
     {0.3, 0.8, 1.0}},
    {"1k-2k:0.5,20k:0.5", 2, {1024, 20480}, {2048, 20480}, {0.5, 1.0}},
    {"64:0.5,128:0.5", 2, {64, 128}, {64, 128}, {0.5, 1.0}},
    {"16:1,32-33:3", 2, {16, 32}, {16, 33}, {0.25, 1.0}},
    {"1m", 1, {VALUE_MAX}, {VALUE_MAX}, {1.0}},
    {"1K-1M:2", 1, {1024}, {VALUE_MAX}, {1.0}},
    {" 4 - 100 : 1 , 200 : 3 ", 2, {4, 200}, {100, 200}, {0.25, 1.0}},
    {"1-1", 1, {1}, {1}, {1.0}},
};

static void test_size_dist_parse_good(void **state)
{
    (void)state;
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(good_dists); i++) {
        const struct good_dist *g = &good_dists[i];
        struct size_dist d;
        char err[ERR_LEN] = "";
        if (size_dist_parse(g->text, 1, VALUE_MAX, &d, err, sizeof(err)) != SLAP_OK) {
            fail_msg("'%s' refused: %s", g->text, err);
        }
        assert_int_equal(d.n, g->n);
        for (uint32_t r = 0; r < g->n; r++) {
            assert_range(&d, r, g->min[r], g->max[r], g->cumul[r]);
        }
        assert_true(d.r[d.n - 1].cumul == 1.0);
    }
}

struct bad_dist {
    const char *text;
    const char *word; /* in the message: the bad part, or what is wrong */
};

static const struct bad_dist bad_dists[] = {
    {"", "part 1"},
    {"  ", "empty"},
    {"100-4", "'100-4'"},
    {"0", "1..1024"},
    {"2000", "'2000'"},
    {"4-2k", "'4-2k'"},
    {"4-100:0", "'4-100:0'"},
    {"4-100:-1", "above 0"},
    {"4-100:abc", "'4-100:abc'"},
    {"4-100:nan", "above 0"},
    {"4-100:inf", "above 0"},
    {"4-100:", "'4-100:'"},
    {"4-100:0.5,", "part 2"},
    {",4", "part 1"},
    {"4:0.5,,8:0.5", "part 2"},
    {"a", "'a'"},
    {"4-", "'4-'"},
    {"-4", "'-4'"},
    {"4--100", "'4--100'"},
    {"4-100,200:1", "'4-100'"},
    {"1.5k", "'1.5k'"},
    {"99999999999", "'99999999999'"},
    {"5k", "'5k'"},
    {"4-100:0.5:1", "'4-100:0.5:1'"},
    {"4:1e308,8:1e308", "too much"},
};

static void test_size_dist_parse_bad(void **state)
{
    (void)state;
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(bad_dists); i++) {
        const struct bad_dist *b = &bad_dists[i];
        struct size_dist d;
        size_dist_fixed(&d, 77);
        char err[ERR_LEN] = "";
        int rc = size_dist_parse(b->text, 1, 1024, &d, err, sizeof(err));
        if (rc != SLAP_ERROR || strstr(err, b->word) == NULL) {
            fail_msg("'%s': rc %d, message '%s', want '%s'", b->text, rc, err, b->word);
        }
        assert_int_equal(d.n, 1); /* left alone */
        assert_int_equal(d.r[0].min, 77);
    }
}

static void test_size_dist_parse_too_many(void **state)
{
    (void)state;
    char text[1024] = "";
    for (int i = 0; i < SIZE_DIST_MAX; i++) {
        sprintf(text + strlen(text), "%s%d:1", i == 0 ? "" : ",", i + 1);
    }
    struct size_dist d;
    char err[ERR_LEN] = "";
    assert_int_equal(size_dist_parse(text, 1, 1024, &d, err, sizeof(err)), SLAP_OK);
    assert_int_equal(d.n, SIZE_DIST_MAX);
    strcat(text, ",99:1");
    assert_int_equal(size_dist_parse(text, 1, 1024, &d, err, sizeof(err)), SLAP_ERROR);
    assert_non_null(strstr(err, "more than 64"));
}

/* ---- sampling ---- */

/* Counts of 200000 samples by range: within 1% of the shares; every size inside its range. */
static void test_sample_shares(void **state)
{
    (void)state;
    static const double shares[3] = {0.3, 0.5, 0.2};
    struct size_dist d;
    char err[ERR_LEN];
    assert_int_equal(size_dist_parse("4-100:0.3,1024-2048:0.5,5120-20480:0.2", 1, VALUE_MAX, &d,
                                     err, sizeof(err)),
                     SLAP_OK);
    uint64_t rng = SAMPLE_SEED, hits[3] = {0};
    for (int s = 0; s < SAMPLE_COUNT; s++) {
        uint32_t size = size_dist_sample(&d, splitmix64(&rng));
        uint32_t r = 0;
        while (r < d.n && !(size >= d.r[r].min && size <= d.r[r].max)) {
            r++;
        }
        if (r == d.n) {
            fail_msg("sample %d: size %u is in no range", s, size);
        }
        hits[r]++;
    }
    for (int r = 0; r < 3; r++) {
        double got = (double)hits[r] / SAMPLE_COUNT;
        if (got < shares[r] - SHARE_TOLERANCE || got > shares[r] + SHARE_TOLERANCE) {
            fail_msg("range %d: share %.4f, want %.2f", r, got, shares[r]);
        }
    }
}

/* Both ends of every range come up; the extreme u give the extreme sizes. */
static void test_sample_endpoints(void **state)
{
    (void)state;
    struct size_dist d;
    char err[ERR_LEN];
    assert_int_equal(size_dist_parse("4-100:0.3,1024-2048:0.5,5120-20480:0.2", 1, VALUE_MAX, &d,
                                     err, sizeof(err)),
                     SLAP_OK);
    bool seen_min[3] = {false}, seen_max[3] = {false};
    uint64_t rng = SAMPLE_SEED;
    for (int s = 0; s < ENDPOINT_COUNT; s++) {
        uint32_t size = size_dist_sample(&d, splitmix64(&rng));
        for (uint32_t r = 0; r < d.n; r++) {
            seen_min[r] |= size == d.r[r].min;
            seen_max[r] |= size == d.r[r].max;
        }
    }
    for (int r = 0; r < 3; r++) {
        if (!seen_min[r] || !seen_max[r]) {
            fail_msg("range %d: min seen %d, max seen %d", r, seen_min[r], seen_max[r]);
        }
    }
    assert_int_equal(size_dist_sample(&d, 0), 4);
    assert_int_equal(size_dist_sample(&d, UINT64_MAX), 20480);
    assert_int_equal(size_dist_sample(&d, 1ull << 63), size_dist_sample(&d, 1ull << 63));
}

/* Sizes inside one range and across a boundary come up equally often. */
static void test_sample_uniform(void **state)
{
    (void)state;
    struct size_dist d;
    char err[ERR_LEN];
    assert_int_equal(size_dist_parse("1-2:0.5,3-4:0.5", 1, 10, &d, err, sizeof(err)), SLAP_OK);
    uint64_t rng = SAMPLE_SEED, hits[5] = {0};
    for (int s = 0; s < SAMPLE_COUNT; s++) {
        uint32_t size = size_dist_sample(&d, splitmix64(&rng));
        assert_in_range(size, 1, 4);
        hits[size]++;
    }
    for (int size = 1; size <= 4; size++) {
        double got = (double)hits[size] / SAMPLE_COUNT;
        if (got < 0.25 - SHARE_TOLERANCE || got > 0.25 + SHARE_TOLERANCE) {
            fail_msg("size %d: share %.4f, want 0.25", size, got);
        }
    }
}

static void test_sample_fixed(void **state)
{
    (void)state;
    struct size_dist parsed, fixed;
    char err[ERR_LEN];
    assert_int_equal(size_dist_parse("64", 1, 1024, &parsed, err, sizeof(err)), SLAP_OK);
    size_dist_fixed(&fixed, 64);
    uint64_t rng = SAMPLE_SEED;
    for (int s = 0; s < 10000; s++) {
        uint64_t u = splitmix64(&rng);
        assert_int_equal(size_dist_sample(&parsed, u), 64);
        assert_int_equal(size_dist_sample(&fixed, u), 64);
    }
    assert_int_equal(size_dist_sample(&fixed, 0), 64);
    assert_int_equal(size_dist_sample(&fixed, UINT64_MAX), 64);
    assert_int_equal(size_dist_max(&fixed), 64);
    assert_float_equal(size_dist_mean(&fixed), 64.0, 0.0);
}

/* The mean by the shares, the mean of samples close to it, the largest size. */
static void test_mean_and_max(void **state)
{
    (void)state;
    struct size_dist d;
    char err[ERR_LEN];
    assert_int_equal(size_dist_parse("4-100:0.3,1024-2048:0.5,5120-20480:0.2", 1, VALUE_MAX, &d,
                                     err, sizeof(err)),
                     SLAP_OK);
    double mean = 0.3 * 52.0 + 0.5 * 1536.0 + 0.2 * 12800.0;
    assert_float_equal(size_dist_mean(&d), mean, 1e-9);
    assert_int_equal(size_dist_max(&d), 20480);

    uint64_t rng = SAMPLE_SEED;
    double sum = 0.0;
    for (int s = 0; s < SAMPLE_COUNT; s++) {
        sum += size_dist_sample(&d, splitmix64(&rng));
    }
    assert_float_equal(sum / SAMPLE_COUNT, mean, mean * 0.01);

    assert_int_equal(size_dist_parse("16:1,32-33:3", 1, 100, &d, err, sizeof(err)), SLAP_OK);
    assert_float_equal(size_dist_mean(&d), 0.25 * 16.0 + 0.75 * 32.5, 1e-12);
}

/* ---- cfgfile_load ---- */

/* A file in /tmp holding text; its path in path. */
static void write_temp(char *path, size_t path_len, const char *text, size_t len)
{
    snprintf(path, path_len, "/tmp/test_cfgfile_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
}

static void test_load(void **state)
{
    (void)state;
    char path[64], err[ERR_LEN] = "", want[ERR_LEN];
    struct cfg_file cfg;
    write_temp(path, sizeof(path), memaslap_default, strlen(memaslap_default));
    assert_int_equal(cfgfile_load(path, &cfg, err, sizeof(err)), SLAP_OK);
    assert_float_equal(cfg.mix[OP_SET], 0.1, 1e-12);
    unlink(path);

    write_temp(path, sizeof(path), "key\n64 64 1\ncmd\n", 16);
    assert_int_equal(cfgfile_load(path, &cfg, err, sizeof(err)), SLAP_ERROR);
    snprintf(want, sizeof(want), "'%s':3: the cmd section is empty", path);
    assert_string_equal(err, want);
    unlink(path);

    assert_int_equal(cfgfile_load(path, &cfg, err, sizeof(err)), SLAP_ERROR);
    snprintf(want, sizeof(want), "cannot read '%s': No such file or directory", path);
    assert_string_equal(err, want);

    assert_int_equal(cfgfile_load("/tmp", &cfg, err, sizeof(err)), SLAP_ERROR);
    assert_string_equal(err, "cannot read '/tmp': Is a directory");
}

/* A size beyond 64 bits is an error naming the file, the line and the value, not a cap. */
static void test_load_size_too_large(void **state)
{
    (void)state;
    static const char text[] = "key\n64 64 1\nvalue\n1 99999999999999999999k 1\n";
    char path[64], err[ERR_LEN] = "", want[ERR_LEN];
    struct cfg_file cfg;
    write_temp(path, sizeof(path), text, strlen(text));
    assert_int_equal(cfgfile_load(path, &cfg, err, sizeof(err)), SLAP_ERROR);
    snprintf(want, sizeof(want),
             "'%s':4: value size '99999999999999999999k' is too large (outside 1..1048576)", path);
    assert_string_equal(err, want);
    unlink(path);
}

/* A file over 1 MiB is refused; one of exactly 1 MiB is read to its end. */
static void test_load_size_limit(void **state)
{
    (void)state;
    size_t limit = 1024 * 1024;
    char *text = malloc(limit + 1);
    char path[64], err[ERR_LEN] = "";
    struct cfg_file cfg;
    assert_non_null(text);
    memset(text, '\n', limit + 1);
    memcpy(text + limit - 12, "key\n64 64 1\n", 12);
    write_temp(path, sizeof(path), text, limit);
    assert_int_equal(cfgfile_load(path, &cfg, err, sizeof(err)), SLAP_OK);
    assert_true(cfg.has_key);
    unlink(path);

    write_temp(path, sizeof(path), text, limit + 1);
    assert_int_equal(cfgfile_load(path, &cfg, err, sizeof(err)), SLAP_ERROR);
    assert_non_null(strstr(err, "larger than"));
    unlink(path);
    free(text);
}

/* ---- laws by name: draws against the law's own distribution ---------------------------- */

#define LAW_DRAWS 200000

/* What a test's law is: one law on [min, max], or ETC's values (a table of sizes, then a
 * generalized Pareto law from 15 bytes). */
struct law_truth {
    enum size_law law;
    double p[3];
    uint32_t min, max;
    bool etc_values;
};

/* P(size <= k) of a law floored to whole bytes and clamped to [min, max]. */
static double law_at(enum size_law law, const double p[3], uint32_t min, uint32_t max, uint32_t k)
{
    return k < min ? 0 : k >= max ? 1 : size_law_cdf(law, p, (double)k + 1);
}

static double truth_at(const struct law_truth *t, uint32_t k)
{
    if (!t->etc_values) {
        return law_at(t->law, t->p, t->min, t->max, k);
    }
    /* Atikoglu et al. (SIGMETRICS 2012) through mutilate's fb_value: sizes 0 to 14 by these
     * shares (0 sent as 1), the rest generalized Pareto (15, 214.476, 0.348238) */
    static const double head[15] = {0.00536, 0.00047, 0.17820, 0.09239, 0.00018,
                                    0.02740, 0.00065, 0.00606, 0.00023, 0.00837,
                                    0.00837, 0.08989, 0.00092, 0.00326, 0.01980};
    static const double tail_p[3] = {15, 214.476, 0.348238};
    double below = 0, tail = 1;
    for (uint32_t size = 0; size < 15; size++) {
        below += (size < 1 ? 1 : size) <= k ? head[size] : 0;
        tail -= head[size];
    }
    return below + tail * law_at(SIZE_LAW_GPARETO, tail_p, 15, t->max, k);
}

/* Kolmogorov-Smirnov's distance between LAW_DRAWS draws of text's law (parsed within
 * [lo, hi]) and the truth, over every whole size. */
static double law_distance(const char *text, uint32_t lo, uint32_t hi, const struct law_truth *t)
{
    struct size_dist d;
    char err[ERR_LEN];
    if (size_dist_parse(text, lo, hi, &d, err, sizeof(err)) != SLAP_OK) {
        fail_msg("%s: %s", text, err);
    }
    uint32_t *hits = calloc((size_t)hi + 1, sizeof(*hits));
    assert_non_null(hits);
    uint64_t rng = SAMPLE_SEED;
    for (int s = 0; s < LAW_DRAWS; s++) {
        uint32_t size = size_dist_sample(&d, splitmix64(&rng));
        assert_in_range(size, lo, hi);
        hits[size]++;
    }
    double seen = 0, worst = 0;
    for (uint32_t k = 0; k <= hi; k++) {
        seen += hits[k];
        double gap = fabs(seen / LAW_DRAWS - truth_at(t, k));
        worst = gap > worst ? gap : worst;
    }
    free(hits);
    return worst;
}

/* Each law, and ETC's presets, against its distribution: the largest gap under 1.95 / sqrt(n),
 * Kolmogorov-Smirnov's critical value at 0.1% (for a law of whole sizes the test is stricter
 * than its level); and the laws' quantile and distribution functions inverse of each other. */
static void test_laws_draw_their_distributions(void **state)
{
    (void)state;
    const uint32_t vmax = 1024 * 1024;
    const struct {
        const char *text;
        uint32_t lo, hi;
        struct law_truth truth;
    } cases[] = {
        {"normal:100,20", 1, vmax, {SIZE_LAW_NORMAL, {100, 20, 0}, 1, vmax, false}},
        {"normal:20,10", 16, 250, {SIZE_LAW_NORMAL, {20, 10, 0}, 16, 250, false}},
        {"exponential:200", 1, vmax, {SIZE_LAW_EXPONENTIAL, {200, 0, 0}, 1, vmax, false}},
        {"gev:30.7984,8.20449,0.078688",
         16,
         250,
         {SIZE_LAW_GEV, {30.7984, 8.20449, 0.078688}, 16, 250, false}},
        {"gev:100,10,-0.2", 1, vmax, {SIZE_LAW_GEV, {100, 10, -0.2}, 1, vmax, false}},
        {"gev:100,10,0", 1, vmax, {SIZE_LAW_GEV, {100, 10, 0}, 1, vmax, false}},
        {"gpareto:15,214.476,0.348238",
         1,
         vmax,
         {SIZE_LAW_GPARETO, {15, 214.476, 0.348238}, 1, vmax, false}},
        {"gpareto:50,30,0", 1, vmax, {SIZE_LAW_GPARETO, {50, 30, 0}, 1, vmax, false}},
        {"gpareto:50,30,-0.25", 1, vmax, {SIZE_LAW_GPARETO, {50, 30, -0.25}, 1, vmax, false}},
        {"etc", 16, 250, {SIZE_LAW_GEV, {30.7984, 8.20449, 0.078688}, 16, 250, false}},
        {"etc", 1, vmax, {SIZE_LAW_UNIFORM, {0, 0, 0}, 1, vmax, true}},
    };
    double bound = 1.95 / sqrt(LAW_DRAWS);
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(cases); i++) {
        double gap = law_distance(cases[i].text, cases[i].lo, cases[i].hi, &cases[i].truth);
        if (!(gap < bound)) {
            fail_msg("%s in %u..%u: draws %.4f from the law's distribution (bound %.4f)",
                     cases[i].text, cases[i].lo, cases[i].hi, gap, bound);
        }
        const struct law_truth *t = &cases[i].truth;
        for (double q = 0.01; t->law != SIZE_LAW_UNIFORM && q < 1; q += 0.01) {
            double back = size_law_cdf(t->law, t->p, size_law_quantile(t->law, t->p, q));
            if (fabs(back - q) > 1e-9) {
                fail_msg("%s: the distribution at the %.2f-quantile is %.12f", cases[i].text, q,
                         back);
            }
        }
    }
}

/* ---- every law of sizes at the ends of its parameters ---------------------------------- */

#define EXTREME_DRAWS 100000
#define EXTREME_Z 5.0 /* deviations of the mean the draws' mean may stray by (a fixed seed) */

/* A law of sizes tried at one setting: its row, its parameters, the option's range. */
struct law_trial {
    const struct size_law_row *row;
    double p[3];
    uint32_t lo, hi;
};

/* P(size <= k) for the trial, k in [lo, hi]: a law's by its distribution function, floored and
 * clamped; uniform:MIN,MAX's and fixed:N's over their whole sizes. */
static double trial_at(const struct law_trial *t, uint32_t k)
{
    if (!t->row->sizes) {
        return law_at(t->row->law, t->p, t->lo, t->hi, k);
    }
    double min = t->p[0], max = t->row->params > 1 ? t->p[1] : t->p[0];
    return k < min ? 0 : k >= max ? 1 : (k - min + 1) / (max - min + 1);
}

/* The trial's text parsed, EXTREME_DRAWS drawn: every size in the range and between the
 * lowest draw's and the highest's; their mean within EXTREME_Z deviations (the law's own, as
 * floored and clamped) of the law's mean, and Kolmogorov-Smirnov's distance to the law under
 * 1.95 / sqrt(n). */
static void check_law_trial(const struct law_trial *t)
{
    char text[SIZE_DIST_NAME], err[ERR_LEN];
    int at = snprintf(text, sizeof(text), "%s", t->row->name);
    for (unsigned i = 0; i < t->row->params; i++) {
        at += snprintf(text + at, sizeof(text) - (size_t)at, "%s%.17g", i ? "," : ":", t->p[i]);
    }
    struct size_dist d;
    if (size_dist_parse(text, t->lo, t->hi, &d, err, sizeof(err)) != SLAP_OK) {
        fail_msg("%s in %u..%u refused: %s", text, t->lo, t->hi, err);
    }
    double *upto = calloc((size_t)t->hi + 1, sizeof(*upto)); /* P(size <= k) */
    uint32_t *hits = calloc((size_t)t->hi + 1, sizeof(*hits));
    assert_true(upto != NULL && hits != NULL);
    double mean = 0, variance = 0;
    for (uint32_t k = t->lo; k <= t->hi; k++) {
        upto[k] = trial_at(t, k);
        mean += k * (upto[k] - (k > t->lo ? upto[k - 1] : 0));
    }
    for (uint32_t k = t->lo; k <= t->hi; k++) {
        variance += (k - mean) * (k - mean) * (upto[k] - (k > t->lo ? upto[k - 1] : 0));
    }
    uint32_t least = size_dist_sample(&d, 0), most = size_dist_sample(&d, UINT64_MAX);
    uint64_t rng = SAMPLE_SEED;
    double sum = 0;
    for (int s = 0; s < EXTREME_DRAWS; s++) {
        uint32_t size = size_dist_sample(&d, splitmix64(&rng));
        if (size < least || size > most || size < t->lo || size > t->hi) {
            fail_msg("%s in %u..%u: drew %u, the lowest draw %u, the highest %u", text, t->lo,
                     t->hi, size, least, most);
        }
        hits[size]++;
        sum += size;
    }
    double seen = 0, worst = 0;
    for (uint32_t k = t->lo; k <= t->hi; k++) {
        seen += hits[k];
        worst = fmax(worst, fabs(seen / EXTREME_DRAWS - upto[k]));
    }
    free(hits);
    free(upto);
    double bound = EXTREME_Z * sqrt(variance / EXTREME_DRAWS) + 1e-9 * t->hi;
    if (!(fabs(sum / EXTREME_DRAWS - mean) <= bound) || !(worst < 1.95 / sqrt(EXTREME_DRAWS))) {
        fail_msg("%s in %u..%u: mean %.4f, the law's %.4f (bound %.4f); %.4f from its "
                 "distribution",
                 text, t->lo, t->hi, sum / EXTREME_DRAWS, mean, bound, worst);
    }
}

/* Each row of size_law_rows with each parameter in turn at the ends of what the parser takes
 * (the largest doubles, the least above 0, and around 0: a shape of 1e-20 moves a power by
 * less than its last digit), the others at 100, 20 and 0.1, in
 * the ranges of keys and of values; uniform:MIN,MAX and fixed:N at the ends of the range. */
static void test_laws_hold_at_their_ends(void **state)
{
    (void)state;
    static const double any[] = {-DBL_MAX, -1e9,  -1e-9, -1e-20, 0,      DBL_TRUE_MIN,
                                 1e-300,   1e-20, 1e-9,  1e9,    DBL_MAX};
    static const double base[3] = {100, 20, 0.1};
    const uint32_t ranges[2][2] = {{16, 250}, {1, VALUE_MAX}};
    for (size_t r = 0; r < size_law_row_count; r++) {
        const struct size_law_row *row = &size_law_rows[r];
        for (size_t g = 0; g < SLAP_ARRAY_SIZE(ranges); g++) {
            struct law_trial t = {row, {base[0], base[1], base[2]}, ranges[g][0], ranges[g][1]};
            if (row->sizes) { /* the least and the largest size at the range's ends */
                for (int ends = 0; ends < (row->params > 1 ? 3 : 2); ends++) {
                    t.p[0] = ends < 2 ? t.lo : t.hi;
                    t.p[1] = ends < 1 ? t.lo : t.hi;
                    check_law_trial(&t);
                }
                continue;
            }
            for (unsigned k = 0; k < row->params; k++) {
                for (size_t v = 0; v < SLAP_ARRAY_SIZE(any); v++) {
                    if (row->positive[k] && !(any[v] > 0)) {
                        continue;
                    }
                    memcpy(t.p, base, sizeof(t.p));
                    t.p[k] = any[v];
                    check_law_trial(&t);
                }
            }
        }
    }
}

/* A law's text refused naming what is wrong (an unknown one, every law and the preset); a good
 * one said back as given. */
static void test_laws_parse(void **state)
{
    (void)state;
    const struct {
        const char *text;
        const char *said;
    } bad[] = {
        {"normal:1", "normal takes 2 numbers"},
        {"normal:1,2,3", "normal takes 2 numbers"},
        {"normal:1;2", "normal takes 2 numbers"},
        {"normal:1:2", "normal takes 2 numbers"},
        {"normal:100,0", "the standard deviation must be above 0"},
        {"exponential:-5", "the mean must be above 0"},
        {"gev:1,0,0.1", "the scale must be above 0"},
        {"gpareto:1,2,nan", "gpareto takes 3 numbers"},
        {"uniform:10,5", "the least first"},
        {"uniform:1.5,5", "whole bytes"},
        {"fixed:2000", "whole bytes in 16..250"},
        {"lognormal:1,2", "is no law of sizes"},
        {"Etc", "is no law of sizes"},
    };
    char err[ERR_LEN];
    struct size_dist d;
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(bad); i++) {
        err[0] = '\0';
        if (size_dist_parse(bad[i].text, 16, 250, &d, err, sizeof(err)) != SLAP_ERROR ||
            strstr(err, bad[i].said) == NULL) {
            fail_msg("%s: '%s', not '%s'", bad[i].text, err, bad[i].said);
        }
    }
    assert_int_equal(size_dist_parse("lognormal:1,2", 16, 250, &d, err, sizeof(err)), SLAP_ERROR);
    for (size_t i = 0; i <= size_law_row_count; i++) { /* every row named, and the preset */
        char word[32];
        snprintf(word, sizeof(word), " %s%s",
                 i < size_law_row_count ? size_law_rows[i].name : SIZE_DIST_ETC,
                 i + 1 < size_law_row_count ? "," : "");
        if (strstr(err, word) == NULL) {
            fail_msg("'%s' does not name '%s'", err, word);
        }
    }
    assert_int_equal(size_dist_parse("gev:30,8,0.1", 16, 250, &d, err, sizeof(err)), SLAP_OK);
    assert_string_equal(d.name, "gev:30,8,0.1");
    assert_int_equal(size_dist_max(&d), 250);
    assert_int_equal(size_dist_parse("fixed:64", 16, 250, &d, err, sizeof(err)), SLAP_OK);
    assert_int_equal(size_dist_sample(&d, 12345), 64);
    assert_int_equal(size_dist_parse("16-32", 16, 250, &d, err, sizeof(err)), SLAP_OK);
    assert_string_equal(d.name, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memaslap_default_file),
        cmocka_unit_test(test_man_sample),
        cmocka_unit_test(test_man_sample_indented_crlf),
        cmocka_unit_test(test_man_comment_examples),
        cmocka_unit_test(test_cmd_by_type),
        cmocka_unit_test(test_shares_normalised),
        cmocka_unit_test(test_sections_any_order),
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_bad_bytes),
        cmocka_unit_test(test_too_many_ranges),
        cmocka_unit_test(test_size_dist_parse_good),
        cmocka_unit_test(test_size_dist_parse_bad),
        cmocka_unit_test(test_size_dist_parse_too_many),
        cmocka_unit_test(test_sample_shares),
        cmocka_unit_test(test_sample_endpoints),
        cmocka_unit_test(test_sample_uniform),
        cmocka_unit_test(test_sample_fixed),
        cmocka_unit_test(test_mean_and_max),
        cmocka_unit_test(test_laws_draw_their_distributions),
        cmocka_unit_test(test_laws_hold_at_their_ends),
        cmocka_unit_test(test_laws_parse),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_load_size_too_large),
        cmocka_unit_test(test_load_size_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
