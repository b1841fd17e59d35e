/* HdrHistogram's interval log (format 1.3): slap's buckets in HdrHistogram's V2 encoding. */
#include "slap/output/hlog.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "slap/base/version.h"
#include "slap/model/stats.h"

/* v as ZigZag LEB128-64b9B: 7 bits a byte, low first, the ninth byte whole. */
static size_t put_varint(uint8_t *out, int64_t v)
{
    uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    size_t n = 0;
    while (n < 8 && (u >> 7) != 0) {
        out[n++] = (uint8_t)((u & 0x7f) | 0x80);
        u >>= 7;
    }
    out[n++] = (uint8_t)u;
    return n;
}

size_t hlog_counts_encode(const struct hist *h, uint8_t *out)
{
    size_t n = 0;
    if (h->count == 0) {
        return put_varint(out, 0);
    }
    size_t last = hist_bucket_index(h->max_ns);
    size_t i = 0;
    while (i <= last) {
        size_t zeros = 0;
        while (i + zeros <= last && h->buckets[i + zeros] == 0) {
            zeros++;
        }
        if (zeros > 1) {
            n += put_varint(out + n, -(int64_t)zeros);
            i += zeros;
        } else {
            n += put_varint(out + n, (int64_t)h->buckets[i]);
            i++;
        }
    }
    return n;
}

static void put_be32(uint8_t *out, uint32_t v)
{
    for (int k = 0; k < 4; k++) {
        out[k] = (uint8_t)(v >> (24 - 8 * k));
    }
}

static void put_be64(uint8_t *out, uint64_t v)
{
    put_be32(out, (uint32_t)(v >> 32));
    put_be32(out + 4, (uint32_t)v);
}

/* The uncompressed V2 encoding of h into out (HLOG_HEADER_BYTES + HLOG_PAYLOAD_MAX): its
 * length. */
static size_t encode_v2(const struct hist *h, uint8_t *out)
{
    size_t payload = hlog_counts_encode(h, out + HLOG_HEADER_BYTES);
    double ratio = 1.0; /* integer to double conversion ratio */
    uint64_t ratio_bits;
    memcpy(&ratio_bits, &ratio, sizeof(ratio_bits));
    put_be32(out, HLOG_COOKIE);
    put_be32(out + 4, (uint32_t)payload);
    put_be32(out + 8, 0); /* normalizing index offset */
    put_be32(out + 12, HLOG_SIGNIFICANT_DIGITS);
    put_be64(out + 16, HLOG_LOWEST_NS);
    put_be64(out + 24, HLOG_HIGHEST_NS);
    put_be64(out + 32, ratio_bits);
    return HLOG_HEADER_BYTES + payload;
}

/* bytes as base64 with padding into text (4 * ceil(len / 3) + 1 bytes). */
static void base64(const uint8_t *bytes, size_t len, char *text)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = 0;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t group = (uint32_t)bytes[i] << 16;
        group |= i + 1 < len ? (uint32_t)bytes[i + 1] << 8 : 0;
        group |= i + 2 < len ? bytes[i + 2] : 0;
        text[n++] = digits[(group >> 18) & 63];
        text[n++] = digits[(group >> 12) & 63];
        text[n++] = i + 1 < len ? digits[(group >> 6) & 63] : '=';
        text[n++] = i + 2 < len ? digits[group & 63] : '=';
    }
    text[n] = '\0';
}

enum slap_status hlog_histogram_base64(const struct hist *h, char **text)
{
    enum slap_status st = SLAP_ERROR;
    uLong plain_cap = HLOG_HEADER_BYTES + HLOG_PAYLOAD_MAX;
    uLongf packed_len = compressBound(plain_cap);
    uint8_t *plain = malloc(plain_cap);
    uint8_t *packed = malloc(8 + packed_len);
    *text = NULL;
    if (plain == NULL || packed == NULL) {
        goto out;
    }
    size_t plain_len = encode_v2(h, plain);
    if (compress(packed + 8, &packed_len, plain, plain_len) != Z_OK) {
        goto out;
    }
    put_be32(packed, HLOG_COMPRESSED_COOKIE);
    put_be32(packed + 4, (uint32_t)packed_len);
    *text = malloc(4 * ((8 + packed_len + 2) / 3) + 1);
    if (*text == NULL) {
        goto out;
    }
    base64(packed, 8 + packed_len, *text);
    st = SLAP_OK;
out:
    free(plain);
    free(packed);
    return st;
}

void hlog_header(FILE *out, uint64_t start_ms)
{
    double start_s = (double)start_ms / 1000.0;
    time_t t = (time_t)(start_ms / 1000);
    struct tm tm;
    char date[64] = "";
    if (gmtime_r(&t, &tm) == NULL ||
        strftime(date, sizeof(date), "%a %b %d %H:%M:%S UTC %Y", &tm) == 0) {
        date[0] = '\0';
    }
    fputs("#[Histogram log format version 1.3]\n", out);
    fprintf(out, "#[StartTime: %.3f (seconds since epoch), %s]\n", start_s, date);
    fprintf(out, "#[BaseTime: %.3f (seconds since epoch)]\n", start_s);
    fprintf(out,
            "#[Written by slap %s: latency from the intended send time, values in nanoseconds, "
            "Interval_Max in milliseconds]\n",
            SLAP_VERSION);
    fputs("\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
          "\"Interval_Compressed_Histogram\"\n",
          out);
}

enum slap_status hlog_interval(FILE *out, const char *tag, double start_s, double length_s,
                               const struct hist *h)
{
    char *text;
    if (hlog_histogram_base64(h, &text) != SLAP_OK) {
        return SLAP_ERROR;
    }
    if (tag != NULL) {
        fprintf(out, "Tag=%s,", tag);
    }
    fprintf(out, "%.3f,%.3f,%.3f,%s\n", start_s, length_s, (double)h->max_ns / HLOG_MAX_UNIT_NS,
            text);
    free(text);
    return SLAP_OK;
}

/* The lines of one interval: the sum of lat's types untagged, then each type with values. */
static enum slap_status write_lines(FILE *out, const struct results_doc *d,
                                    const struct results_sparse *lat, double start_s,
                                    double length_s)
{
    struct hist *h = d->scratch;
    results_sparse_to_hist(lat, STATS_TYPES, h);
    if (hlog_interval(out, NULL, start_s, length_s, h) != SLAP_OK) {
        return SLAP_ERROR;
    }
    for (int t = 0; t < STATS_TYPES; t++) {
        if (lat[t].count == 0) {
            continue;
        }
        results_sparse_to_hist(lat, t, h);
        if (hlog_interval(out, stats_type_name(t), start_s, length_s, h) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

enum slap_status hlog_period(FILE *out, const struct results_doc *d, const struct results_period *p)
{
    double start_s = p->elapsed_s - p->seconds;
    return write_lines(out, d, p->lat, start_s > 0 ? start_s : 0.0, p->seconds);
}

enum slap_status hlog_steps(FILE *out, const struct results_doc *d)
{
    const struct results_step *steps = d->steps.items;
    double start_s = 0;
    for (size_t i = 0; i < d->steps.n; i++) {
        if (write_lines(out, d, steps[i].lat, start_s, steps[i].seconds) != SLAP_OK) {
            return SLAP_ERROR;
        }
        start_s += steps[i].seconds;
    }
    return SLAP_OK;
}
