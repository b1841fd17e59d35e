/* The results reader's generic pieces: where it is, what is wrong, numbers in range, an object
 * checked or read by its table (results_fields.c). */
#include "results_reader.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void reader_bad(struct reader *r, const char *key, const char *what)
{
    if (!r->failed) {
        snprintf(r->err, r->err_len, "%s%s%s: %s", r->where, r->where[0] ? " " : "", key, what);
        r->failed = true;
    }
}

/* Say what is being read: text after what was said, until reader_where_pop(r, the length
 * returned). */
size_t reader_where_push(struct reader *r, const char *text)
{
    size_t len = strlen(r->where);
    snprintf(r->where + len, sizeof(r->where) - len, "%s%s", len > 0 ? " " : "", text);
    return len;
}

void reader_where_pop(struct reader *r, size_t len)
{
    r->where[len] = '\0';
}

/* obj (an object; else nothing to check) against its table for the file's version, named label
 * in messages (NULL: what is being read already says). variant: its RF_WHEN fields are due. */
void reader_check(struct reader *r, const struct results_object *o, const struct json_value *obj,
                  const char *label, bool variant)
{
    const char *name, *why;
    if (r->failed || obj == NULL || obj->type != JSON_OBJECT) {
        return;
    }
    if (!results_fields_check(o, obj, r->schema, variant, &name, &why)) {
        size_t where = label != NULL ? reader_where_push(r, label) : strlen(r->where);
        reader_bad(r, name, why);
        reader_where_pop(r, where);
    }
}

/* o's fields, the table-driven ones read into base (results_fields_read), named label. */
void reader_fields(struct reader *r, const struct results_object *o, const struct json_value *obj,
                   void *base, const char *label)
{
    const char *name, *why;
    if (r->failed) {
        return;
    }
    if (obj == NULL || obj->type != JSON_OBJECT) {
        reader_bad(r, label, "missing, or not an object");
        return;
    }
    size_t where = reader_where_push(r, label);
    if (!results_fields_read(o, obj, base, r->schema, false, &name, &why)) {
        reader_bad(r, name, why);
    }
    reader_where_pop(r, where);
}

/* A whole number up to max. */
uint64_t reader_u64_max(struct reader *r, const struct json_value *obj, const char *key,
                        uint64_t max)
{
    uint64_t value = 0;
    if (!json_to_u64(json_get(obj, key), &value)) {
        reader_bad(r, key, "missing, or not a whole number");
    } else if (value > max) {
        char why[64];
        snprintf(why, sizeof(why), "%llu is above %llu", (unsigned long long)value,
                 (unsigned long long)max);
        reader_bad(r, key, why);
        value = 0;
    }
    return value;
}

/* A count, bytes or nanoseconds: a whole number up to RESULTS_COUNT_MAX. */
uint64_t reader_u64(struct reader *r, const struct json_value *obj, const char *key)
{
    return reader_u64_max(r, obj, key, RESULTS_COUNT_MAX);
}

/* A number from 0 to max (a sum: the finite numbers). */
double reader_double_max(struct reader *r, const struct json_value *obj, const char *key,
                         double max)
{
    double value = 0.0;
    if (!json_to_double(json_get(obj, key), &value)) {
        reader_bad(r, key, "missing, or not a finite number");
    } else if (!(value >= 0.0 && value <= max)) {
        reader_bad(r, key, max == RESULTS_COUNT_MAX ? "not a number from 0 to 2^53" : "negative");
        value = 0.0;
    }
    return value;
}

/* Seconds, shares, rates, servers' figures: from 0 to 2^53. */
double reader_double(struct reader *r, const struct json_value *obj, const char *key)
{
    return reader_double_max(r, obj, key, (double)RESULTS_COUNT_MAX);
}

const struct json_value *reader_typed(struct reader *r, const struct json_value *obj,
                                      const char *key, enum json_type type)
{
    const struct json_value *v = json_get(obj, key);
    if (v == NULL || v->type != type) {
        reader_bad(r, key,
                   type == JSON_ARRAY ? "missing, or not an array" : "missing, or not an object");
        return NULL;
    }
    return v;
}

/* A share that may be null (not known): its value, and whether it was known. */
double reader_share(struct reader *r, const struct json_value *obj, const char *key, bool *known)
{
    const struct json_value *v = json_get(obj, key);
    *known = v != NULL && v->type != JSON_NULL;
    return *known ? reader_double(r, obj, key) : 0.0;
}

/* A label shown in text reports: results_label_problem's rule, the one --label follows. */
bool reader_printable(const char *s)
{
    return results_label_problem(s) == NULL;
}

/* A rate or null (0). */
double reader_rate_or_null(struct reader *r, const struct json_value *obj, const char *key)
{
    const struct json_value *v = json_get(obj, key);
    return v != NULL && v->type == JSON_NULL ? 0.0 : reader_double(r, obj, key);
}
