/* JSON for slap's own results files: a writer, and a strict, bounded reader into a tree. */
#ifndef SLAP_JSON_H
#define SLAP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "slap/base/common.h"

#define JSON_MAX_DEPTH 32           /* nesting the writer and the reader accept */
#define JSON_MAX_INPUT (256u << 20) /* bytes the reader accepts */

/* ---- writing -------------------------------------------------------------------------- */

/*
 * Objects open on their own lines, indented; arrays opened compact stay on one line.
 * Every value function takes the member's key, or NULL inside an array.
 */
struct json_writer {
    FILE *out;
    int depth;
    bool first[JSON_MAX_DEPTH + 1];   /* no member written yet at this depth */
    bool compact[JSON_MAX_DEPTH + 1]; /* this container stays on one line */
    char closer[JSON_MAX_DEPTH + 1];  /* '}' or ']': what closes the container at this depth */
};

void json_writer_init(struct json_writer *w, FILE *out);
void json_open_object(struct json_writer *w, const char *key);
void json_open_array(struct json_writer *w, const char *key, bool compact);
void json_close(struct json_writer *w);
void json_string(struct json_writer *w, const char *key, const char *value);
void json_u64(struct json_writer *w, const char *key, uint64_t value);
/* Shortest text that reads back to the same double; null when not finite. */
void json_double(struct json_writer *w, const char *key, double value);
void json_bool(struct json_writer *w, const char *key, bool value);
void json_null(struct json_writer *w, const char *key);
/* A value already written as JSON text (a number, true, false). */
void json_raw(struct json_writer *w, const char *key, const char *text);

/* ---- reading -------------------------------------------------------------------------- */

enum json_type {
    JSON_NULL,
    JSON_FALSE,
    JSON_TRUE,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT,
};

struct json_value {
    enum json_type type;
    char *text;                /* a number's text, or a string's bytes (NUL-terminated) */
    size_t len;                /* their length */
    size_t n;                  /* elements of an array, members of an object */
    struct json_value **items; /* the elements, or the members' values */
    char **keys;               /* the members' names (objects), in the document's order */
    size_t *order;             /* objects: the members' indexes sorted by name, for json_get */
};

/*
 * Parse exactly one JSON value filling text[0..len): RFC 8259's grammar, nothing after it
 * but white space, no duplicate member names, nesting up to JSON_MAX_DEPTH, at most
 * JSON_MAX_INPUT bytes. SLAP_ERROR with "line L, column C: problem" in err. Linear in the
 * text but for each object's members, sorted by name (n log n) to find a name given twice
 * and for json_get.
 */
enum slap_status json_parse(const char *text, size_t len, struct json_value **root, char *err,
                            size_t err_len);
void json_free(struct json_value *v);

/* The member key of object v; NULL when v is no object or has no such member. A binary search
 * of the members' names (log n). */
const struct json_value *json_get(const struct json_value *v, const char *key);
/* A number without sign, fraction or exponent that fits 64 bits. */
bool json_to_u64(const struct json_value *v, uint64_t *out);
/* Any number. */
bool json_to_double(const struct json_value *v, double *out);
/* A string's bytes, or NULL (not a string, or one holding a NUL, "\u0000"). */
const char *json_to_string(const struct json_value *v);

#endif
