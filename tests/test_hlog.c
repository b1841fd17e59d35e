/* Unit tests of the HdrHistogram interval log: the bucket layout, the V2 encoding decoded back
 * (zlib's inflate, the varints, runs of zeros), an empty histogram, the header and the lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "slap/base/common.h"
#include "slap/base/hist.h"
#include "slap/base/version.h"
#include "slap/model/ops.h"
#include "slap/output/hlog.h"
#include "slap/output/period.h"
#include "slap/output/results.h"

/* ---- HdrHistogram's layout, from its definitions (lowest 1, 2 significant digits) -------- */

struct hdr_layout {
    unsigned unit_magnitude;            /* floor(log2(lowest)) */
    unsigned sub_bucket_half_magnitude; /* log2(sub-bucket count) - 1 */
    uint64_t sub_bucket_half_count;
    size_t counts_length; /* of the highest trackable value */
};

static struct hdr_layout hdr_layout(uint64_t lowest, int digits, uint64_t highest)
{
    struct hdr_layout l;
    uint64_t single_unit = 2;
    for (int i = 0; i < digits; i++) {
        single_unit *= 10; /* largest value with single unit resolution: 2 * 10^digits */
    }
    unsigned count_magnitude = (unsigned)ceil(log2((double)single_unit));
    l.unit_magnitude = (unsigned)floor(log2((double)lowest));
    l.sub_bucket_half_magnitude = (count_magnitude > 1 ? count_magnitude : 1) - 1;
    l.sub_bucket_half_count = 1ull << l.sub_bucket_half_magnitude;
    uint64_t sub_bucket_count = 2 * l.sub_bucket_half_count;
    /* buckets needed to cover highest */
    uint64_t smallest_untrackable = sub_bucket_count << l.unit_magnitude;
    size_t buckets = 1;
    while (smallest_untrackable <= highest) {
        if (smallest_untrackable > UINT64_MAX / 2) {
            buckets++;
            break;
        }
        smallest_untrackable <<= 1;
        buckets++;
    }
    l.counts_length = (buckets + 1) * (size_t)l.sub_bucket_half_count;
    return l;
}

/* HdrHistogram's lowest and highest equivalent values of counts index i. */
static void hdr_range(const struct hdr_layout *l, size_t i, uint64_t *low, uint64_t *high)
{
    long bucket = (long)(i >> l->sub_bucket_half_magnitude) - 1;
    uint64_t sub = (i & (l->sub_bucket_half_count - 1)) + l->sub_bucket_half_count;
    if (bucket < 0) {
        sub -= l->sub_bucket_half_count;
        bucket = 0;
    }
    *low = sub << ((unsigned)bucket + l->unit_magnitude);
    *high = *low + (1ull << ((unsigned)bucket + l->unit_magnitude)) - 1;
}

/* HdrHistogram's counts index of value v. */
static size_t hdr_index(const struct hdr_layout *l, uint64_t v)
{
    uint64_t mask = (2 * l->sub_bucket_half_count - 1) << l->unit_magnitude;
    int bucket = 64 - __builtin_clzll(v | mask) - (int)l->unit_magnitude -
                 (int)(l->sub_bucket_half_magnitude + 1);
    uint64_t sub = v >> ((unsigned)bucket + l->unit_magnitude);
    return ((size_t)(bucket + 1) << l->sub_bucket_half_magnitude) +
           (size_t)(sub - l->sub_bucket_half_count);
}

/* slap's bucket i is HdrHistogram's counts index i, and the declared highest value covers
 * slap's buckets exactly. */
static void test_bucket_layout_is_hdrhistograms(void **state)
{
    (void)state;
    struct hdr_layout l = hdr_layout(HLOG_LOWEST_NS, HLOG_SIGNIFICANT_DIGITS, HLOG_HIGHEST_NS);
    assert_int_equal(2 * l.sub_bucket_half_count, 256);
    assert_int_equal(l.counts_length, HIST_BUCKETS);
    assert_true(HIST_MAX_NS <= HLOG_HIGHEST_NS);
    for (size_t i = 0; i < HIST_BUCKETS; i++) {
        uint64_t low, high;
        hdr_range(&l, i, &low, &high);
        assert_int_equal(hist_bucket_low(i), low);
        assert_int_equal(hist_bucket_high(i), high);
        assert_int_equal(hdr_index(&l, low), i);
        assert_int_equal(hdr_index(&l, high), i);
    }
    for (uint64_t v = 1; v < HIST_MAX_NS; v = v * 3 + 1) {
        assert_int_equal(hist_bucket_index(v), hdr_index(&l, v));
    }
}

/* ---- the encoding read back, by a decoder of the test's own ------------------------------ */

struct decoded {
    uint32_t cookie, payload_len, offset, digits;
    uint64_t lowest, highest;
    double ratio;
    uint64_t counts[HIST_BUCKETS];
    size_t written; /* counts the payload gave, zeros of its runs included */
};

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const uint8_t *p)
{
    return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static size_t unbase64(const char *text, uint8_t *out)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = 0, len = strlen(text);
    assert_int_equal(len % 4, 0);
    for (size_t i = 0; i < len; i += 4) {
        uint32_t group = 0;
        int pad = 0;
        for (int k = 0; k < 4; k++) {
            const char *d = strchr(digits, text[i + k]);
            pad += text[i + k] == '=';
            assert_true(text[i + k] == '=' || (d != NULL && text[i + k] != '\0'));
            group = group << 6 | (text[i + k] == '=' ? 0u : (uint32_t)(d - digits));
        }
        out[n++] = (uint8_t)(group >> 16);
        if (pad < 2) {
            out[n++] = (uint8_t)(group >> 8);
        }
        if (pad < 1) {
            out[n++] = (uint8_t)group;
        }
    }
    return n;
}

/* One ZigZag LEB128-64b9B value at *p (advanced). */
static int64_t get_varint(const uint8_t **p)
{
    uint64_t u = 0;
    int k = 0;
    for (; k < 8; k++) {
        uint8_t b = *(*p)++;
        u |= (uint64_t)(b & 0x7f) << (7 * k);
        if ((b & 0x80) == 0) {
            return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
        }
    }
    u |= (uint64_t) * (*p)++ << 56;
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* The counts of a payload: a negative value is a run of that many zeros. */
static void decode_counts(const uint8_t *p, size_t len, struct decoded *d)
{
    const uint8_t *end = p + len;
    d->written = 0;
    memset(d->counts, 0, sizeof(d->counts));
    while (p < end) {
        int64_t v = get_varint(&p);
        if (v < 0) {
            d->written += (size_t)-v;
        } else {
            assert_true(d->written < HIST_BUCKETS);
            d->counts[d->written++] = (uint64_t)v;
        }
    }
    assert_true(p == end);
    assert_true(d->written <= HIST_BUCKETS);
}

/* text (base64 of the compressed form) inflated and decoded into d. */
static void decode(const char *text, struct decoded *d)
{
    size_t cap = strlen(text);
    uint8_t *packed = malloc(cap);
    uint8_t *plain = malloc(HLOG_HEADER_BYTES + HLOG_PAYLOAD_MAX);
    assert_non_null(packed);
    assert_non_null(plain);
    size_t n = unbase64(text, packed);
    assert_true(n >= 8);
    assert_int_equal(be32(packed), 0x1c849314u);
    assert_int_equal(be32(packed + 4), n - 8);
    uLongf plain_len = HLOG_HEADER_BYTES + HLOG_PAYLOAD_MAX;
    assert_int_equal(uncompress(plain, &plain_len, packed + 8, n - 8), Z_OK);
    assert_true(plain_len >= HLOG_HEADER_BYTES);
    d->cookie = be32(plain);
    d->payload_len = be32(plain + 4);
    d->offset = be32(plain + 8);
    d->digits = be32(plain + 12);
    d->lowest = be64(plain + 16);
    d->highest = be64(plain + 24);
    uint64_t bits = be64(plain + 32);
    memcpy(&d->ratio, &bits, sizeof(d->ratio));
    assert_int_equal(d->payload_len, plain_len - HLOG_HEADER_BYTES);
    decode_counts(plain + HLOG_HEADER_BYTES, d->payload_len, d);
    free(packed);
    free(plain);
}

static void encode_decode(const struct hist *h, struct decoded *d)
{
    char *text = NULL;
    assert_int_equal(hlog_histogram_base64(h, &text), SLAP_OK);
    decode(text, d);
    free(text);
}

static struct hist hist;
static struct decoded dec;

static void assert_counts_equal(const struct hist *h, const struct decoded *d)
{
    uint64_t total = 0;
    for (size_t i = 0; i < HIST_BUCKETS; i++) {
        assert_int_equal(d->counts[i], h->buckets[i]);
        total += d->counts[i];
    }
    assert_int_equal(total, h->count);
}

static void test_known_histogram_round_trips(void **state)
{
    (void)state;
    hist_reset(&hist);
    const uint64_t values[] = {1,    2,      255,     256,       257,         511,
                               1000, 123456, 1000000, 999999999, HIST_MAX_NS, HIST_MAX_NS * 2};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(values); i++) {
        hist_record_n(&hist, values[i], i * 1000 + 1);
    }
    hist_record_n(&hist, 70000, 1ull << 40); /* a count of six varint bytes */
    encode_decode(&hist, &dec);
    assert_int_equal(dec.cookie, 0x1c849313u);
    assert_int_equal(dec.offset, 0);
    assert_int_equal(dec.digits, 2);
    assert_int_equal(dec.lowest, 1);
    assert_int_equal(dec.highest, (1ull << 42) - 1);
    assert_true(dec.ratio == 1.0);
    /* up to HIST_MAX_NS's bucket, where values above it are kept */
    assert_int_equal(dec.written, hist_bucket_index(HIST_MAX_NS) + 1);
    assert_counts_equal(&hist, &dec);
}

/* Random counts at random places, up to a count that takes the ninth byte whole. */
static void test_random_histograms_round_trip(void **state)
{
    (void)state;
    srand(7);
    for (int round = 0; round < 50; round++) {
        hist_reset(&hist);
        int n = 1 + rand() % 300;
        for (int k = 0; k < n; k++) {
            uint64_t v = (uint64_t)rand() % (round % 2 ? 5000 : 200000000);
            hist_record_n(&hist, v, 1 + (uint64_t)rand() % (k % 3 ? 3 : 100000));
        }
        if (round == 49) {
            hist_record_n(&hist, 42, 1ull << 62); /* zigzag 2^63: the ninth byte whole */
        }
        encode_decode(&hist, &dec);
        assert_int_equal(dec.written, hist_bucket_index(hist.max_ns) + 1);
        assert_counts_equal(&hist, &dec);
    }
}

/* A run of empty buckets is minus its length, a lone empty bucket a 0. */
static void test_zero_runs(void **state)
{
    (void)state;
    uint8_t out[HLOG_PAYLOAD_MAX];
    hist_reset(&hist);
    hist_record(&hist, 5);
    hist_record_n(&hist, 7, 2);
    hist_record_n(&hist, 8, 64);
    /* 5 empty (-5: zigzag 9), 1 (2), one empty (0), 2 (4), 64 (128: two bytes) */
    const uint8_t want[] = {0x09, 0x02, 0x00, 0x04, 0x80, 0x01};
    size_t n = hlog_counts_encode(&hist, out);
    assert_int_equal(n, sizeof(want));
    assert_memory_equal(out, want, sizeof(want));
    hist_reset(&hist);
    hist_record(&hist, 300000); /* a single value far up: one run of zeros before it */
    n = hlog_counts_encode(&hist, out);
    const uint8_t *p = out;
    assert_int_equal(get_varint(&p), -(int64_t)hist_bucket_index(300000));
    assert_int_equal(get_varint(&p), 1);
    assert_true(p == out + n);
}

/* An empty histogram is one count of 0, as HdrHistogram writes it. */
static void test_empty_histogram(void **state)
{
    (void)state;
    uint8_t out[HLOG_PAYLOAD_MAX];
    hist_reset(&hist);
    assert_int_equal(hlog_counts_encode(&hist, out), 1);
    assert_int_equal(out[0], 0);
    encode_decode(&hist, &dec);
    assert_int_equal(dec.payload_len, 1);
    assert_int_equal(dec.written, 1);
    assert_counts_equal(&hist, &dec);
}

static char *memstream_text(FILE *out, char **text)
{
    assert_int_equal(fclose(out), 0);
    return *text;
}

static void test_header_lines(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    hlog_header(out, 1796477743871ull);
    char want[1024];
    snprintf(want, sizeof(want),
             "#[Histogram log format version 1.3]\n"
             "#[StartTime: 1796477743.871 (seconds since epoch), Sat Dec 05 13:35:43 UTC 2026]\n"
             "#[BaseTime: 1796477743.871 (seconds since epoch)]\n"
             "#[Written by slap %s: latency from the intended send time, values in "
             "nanoseconds, Interval_Max in milliseconds]\n"
             "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
             "\"Interval_Compressed_Histogram\"\n",
             SLAP_VERSION);
    assert_string_equal(memstream_text(out, &text), want);
    free(text);
}

/* A line's fields: tag (or ""), start, length, max and the histogram. */
static void check_line(const char *line, const char *tag, const char *times, const struct hist *h)
{
    char want[128];
    snprintf(want, sizeof(want), "%s%s%s%s,", *tag ? "Tag=" : "", tag, *tag ? "," : "", times);
    assert_memory_equal(line, want, strlen(want));
    char *text = strdup(line + strlen(want));
    assert_non_null(text);
    text[strcspn(text, "\n")] = '\0';
    decode(text, &dec);
    assert_counts_equal(h, &dec);
    free(text);
}

/* A period: every type together untagged, then each type with values under its name. */
static void test_period_lines(void **state)
{
    (void)state;
    struct results_doc d;
    assert_int_equal(results_doc_init(&d), SLAP_OK);
    struct results_period p;
    memset(&p, 0, sizeof(p));
    p.elapsed_s = 3.0;
    p.seconds = 1.0;
    static struct hist gets, sets, all;
    hist_reset(&gets);
    hist_reset(&sets);
    hist_reset(&all);
    hist_record_n(&gets, 61000, 10);
    hist_record(&gets, 8233000);
    hist_record_n(&sets, 70000, 5);
    hist_merge(&all, &gets);
    hist_merge(&all, &sets);
    assert_int_equal(results_sparse_from_hist(&gets, &p.lat[OP_GET]), SLAP_OK);
    assert_int_equal(results_sparse_from_hist(&sets, &p.lat[OP_SET]), SLAP_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    assert_int_equal(hlog_period(out, &d, &p), SLAP_OK);
    memstream_text(out, &text);
    char *lines[4] = {text, NULL, NULL, NULL};
    for (int k = 1; k < 4 && lines[k - 1] != NULL; k++) {
        char *nl = strchr(lines[k - 1], '\n');
        lines[k] = nl != NULL && nl[1] != '\0' ? nl + 1 : NULL;
    }
    assert_non_null(lines[2]);
    assert_null(lines[3]); /* no line for the types without values */
    check_line(lines[0], "", "2.000,1.000,8.233", &all);
    check_line(lines[1], "get", "2.000,1.000,8.233", &gets);
    check_line(lines[2], "set", "2.000,1.000,0.070", &sets);
    free(text);
    results_sparse_free(&p.lat[OP_GET]);
    results_sparse_free(&p.lat[OP_SET]);
    results_doc_free(&d);
}

/* A sweep's steps: each an interval starting where the one before ended. */
static void test_steps_one_after_another(void **state)
{
    (void)state;
    struct results_doc d;
    assert_int_equal(results_doc_init(&d), SLAP_OK);
    static struct results_step steps[2];
    memset(steps, 0, sizeof(steps));
    static struct hist gets;
    hist_reset(&gets);
    hist_record_n(&gets, 50000, 3);
    for (int k = 0; k < 2; k++) {
        steps[k].seconds = 2.5;
        assert_int_equal(results_sparse_from_hist(&gets, &steps[k].lat[OP_GET]), SLAP_OK);
    }
    d.steps.items = steps;
    d.steps.n = 2;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    assert_int_equal(hlog_steps(out, &d), SLAP_OK);
    memstream_text(out, &text);
    const char *second = strstr(text, "\n2.500,");
    assert_true(strncmp(text, "0.000,2.500,0.050,", 18) == 0);
    assert_non_null(strstr(text, "\nTag=get,0.000,2.500,0.050,"));
    assert_non_null(second);
    assert_non_null(strstr(second, "\nTag=get,2.500,2.500,0.050,"));
    free(text);
    for (int k = 0; k < 2; k++) {
        results_sparse_free(&steps[k].lat[OP_GET]);
    }
    d.steps.items = NULL; /* the test's, not the document's */
    d.steps.n = 0;
    results_doc_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bucket_layout_is_hdrhistograms),
        cmocka_unit_test(test_known_histogram_round_trips),
        cmocka_unit_test(test_random_histograms_round_trip),
        cmocka_unit_test(test_zero_runs),
        cmocka_unit_test(test_empty_histogram),
        cmocka_unit_test(test_header_lines),
        cmocka_unit_test(test_period_lines),
        cmocka_unit_test(test_steps_one_after_another),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
