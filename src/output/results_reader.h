/* The results reader's state and its generic pieces (results_reader.c), shared by the readers
 * of a document's parts (results_read.c, results_read_context.c). Private to output. */
#ifndef SLAP_RESULTS_READER_H
#define SLAP_RESULTS_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slap/base/json.h"
#include "slap/output/results.h"

#include "results_fields.h"

/* What an element of a list is: a period, a --sweep step or a --rounds round. */
enum item_kind { ITEM_PERIOD, ITEM_STEP, ITEM_ROUND, ITEM_KINDS };

/* What a list's elements add up to, for the rules across a document (check_whole). */
struct list_seen {
    size_t n;                     /* elements read */
    double last_elapsed;          /* the last one's end */
    uint64_t counts[STATS_TYPES]; /* their requests, per type */
};

struct reader {
    char *err;
    size_t err_len;
    bool failed;
    char where[64];  /* what is being read ("periods[3] get"), before the member's name */
    unsigned schema; /* the document's version: a field younger than it may be absent */
    struct list_seen seen[ITEM_KINDS];
};

void reader_bad(struct reader *r, const char *key, const char *what);
/* Say what is being read: text after what was said, until reader_where_pop(r, the length
 * returned). */
size_t reader_where_push(struct reader *r, const char *text);
void reader_where_pop(struct reader *r, size_t len);
/* obj (an object; else nothing to check) against its table for the file's version, named label
 * in messages (NULL: what is being read already says). variant: its RF_WHEN fields are due. */
void reader_check(struct reader *r, const struct results_object *o, const struct json_value *obj,
                  const char *label, bool variant);
/* o's fields, the table-driven ones read into base (results_fields_read), named label. */
void reader_fields(struct reader *r, const struct results_object *o, const struct json_value *obj,
                   void *base, const char *label);
/* A whole number up to max. */
uint64_t reader_u64_max(struct reader *r, const struct json_value *obj, const char *key,
                        uint64_t max);
/* A count, bytes or nanoseconds: a whole number up to RESULTS_COUNT_MAX. */
uint64_t reader_u64(struct reader *r, const struct json_value *obj, const char *key);
/* A number from 0 to max (a sum: the finite numbers). */
double reader_double_max(struct reader *r, const struct json_value *obj, const char *key,
                         double max);
/* Seconds, shares, rates, servers' figures: from 0 to 2^53. */
double reader_double(struct reader *r, const struct json_value *obj, const char *key);
const struct json_value *reader_typed(struct reader *r, const struct json_value *obj,
                                      const char *key, enum json_type type);
/* A share that may be null (not known): its value, and whether it was known. */
double reader_share(struct reader *r, const struct json_value *obj, const char *key, bool *known);
/* A label shown in text reports: results_label_problem's rule, the one --label follows. */
bool reader_printable(const char *s);
/* A rate or null (0). */
double reader_rate_or_null(struct reader *r, const struct json_value *obj, const char *key);

/* ---- the parts of a document beside its figures (results_read_context.c) ---------------- */

void reader_servers(struct reader *r, const struct json_value *list, struct results_doc *d);
/* "limits" (absent when the run measured nothing, and in a sweep): the figures and the
 * verdict. */
void reader_limits(struct reader *r, const struct json_value *obj, struct results_doc *d);
/* A sweep step's "limits" (absent in documents of older slaps): its verdict must be the step's
 * limited_by. */
void reader_step_limits(struct reader *r, const struct json_value *item, struct results_step *step);
/* "runs" (since 2; a file of schema 1 may have none: its label and start stand for its host
 * and run). */
void reader_runs(struct reader *r, const struct json_value *list, struct results_doc *d);
void reader_probes(struct reader *r, const struct json_value *list, struct results_doc *d);
/* --control's changes (absent without them). */
void reader_control(struct reader *r, const struct json_value *list, struct results_doc *d);
/* slap search's outcome (absent from other documents; "confirmed" since 2). */
void reader_search(struct reader *r, const struct json_value *v, struct results_doc *d);
/* --precision's outcome, as the report's line says it (absent without the option). */
void reader_precision(struct reader *r, const struct json_value *v, struct results_doc *d);

#endif
