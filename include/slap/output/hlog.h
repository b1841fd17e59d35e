/* HdrHistogram's interval log (format 1.3) of a results document, for its log readers. */
#ifndef SLAP_HLOG_H
#define SLAP_HLOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "slap/base/common.h"
#include "slap/base/hist.h"
#include "slap/output/period.h"
#include "slap/output/results.h"

/*
 * slap's buckets are those of an HdrHistogram of lowest discernible value 1 and 2 significant
 * digits (256 sub-buckets: unit 1 below 256, then 128 per power of two), so bucket i is the
 * HdrHistogram's counts index i and the counts are written as they are, in nanoseconds. The
 * highest trackable value, 2^42 - 1, gives HdrHistogram HIST_BUCKETS counts and covers
 * HIST_MAX_NS.
 */
#define HLOG_LOWEST_NS 1
#define HLOG_SIGNIFICANT_DIGITS 2
#define HLOG_HIGHEST_NS ((1ULL << 42) - 1)
/* Interval_Max is written in milliseconds (HdrHistogram's default unit ratio, 1e6). */
#define HLOG_MAX_UNIT_NS 1e6

/* The V2 encoding's cookies, with the word-size bit HdrHistogram's writers set. */
#define HLOG_COOKIE 0x1c849313u
#define HLOG_COMPRESSED_COOKIE 0x1c849314u
#define HLOG_HEADER_BYTES 40 /* cookie, length, offset, digits, lowest, highest, ratio */
/* The most a histogram's counts take: every bucket a 9-byte varint. */
#define HLOG_PAYLOAD_MAX ((size_t)HIST_BUCKETS * 9)

/* h's counts up to its highest non-empty bucket (one count when h is empty) as V2's ZigZag
 * LEB128 varints, a run of empty buckets as minus its length, into out (HLOG_PAYLOAD_MAX
 * bytes): the bytes written. */
size_t hlog_counts_encode(const struct hist *h, uint8_t *out);

/* h in V2's compressed encoding (the compressed cookie, the deflated length, then zlib's
 * deflate of the 40-byte header and the counts), as base64 with padding: *text (malloc'd,
 * NUL-terminated; free it). SLAP_ERROR when memory ran out or zlib failed. */
enum slap_status hlog_histogram_base64(const struct hist *h, char **text);

/* The log's header: the format's version, StartTime and BaseTime (start_ms, ms since the
 * epoch), a comment saying what slap wrote, and the legend. */
void hlog_header(FILE *out, uint64_t start_ms);

/* One interval line: "Tag=TAG," first unless tag is NULL, its start (seconds after BaseTime),
 * length, max in milliseconds and h encoded. SLAP_ERROR when out of memory. */
enum slap_status hlog_interval(FILE *out, const char *tag, double start_s, double length_s,
                               const struct hist *h);

/* A period's lines: every type together untagged, then one Tag=TYPE line per request type
 * with values (the CSV's names of types); d's scratch histogram is worked in. */
enum slap_status hlog_period(FILE *out, const struct results_doc *d,
                             const struct results_period *p);

/* A sweep's steps, each an interval after the one before. */
enum slap_status hlog_steps(FILE *out, const struct results_doc *d);

#endif
