/* The results document's objects, one table of fields each: what the JSON writer emits, what
 * the reader requires of a file of each schema version, what the schema file must describe. */
#ifndef SLAP_RESULTS_FIELDS_H
#define SLAP_RESULTS_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include "slap/base/json.h"

/* A field's JSON type; where it lives, for the fields a table writes and reads itself. */
enum results_field_type {
    RF_COUNT,  /* a whole number up to RESULTS_COUNT_MAX */
    RF_NUMBER, /* any finite number */
    RF_TEXT,
    RF_BOOL,
    RF_OBJECT,
    RF_ARRAY,
};

/* How a table-driven field is stored at its offset (RF_STORE_NONE: hand code reads and writes
 * it, the table only lists it). */
enum results_field_store {
    RF_STORE_NONE,
    RF_STORE_U64,
    RF_STORE_U32,
    RF_STORE_DOUBLE,
    RF_STORE_CHARS, /* char[size] */
};

#define RF_NULL 0x1u /* may be null (not known) */
/* written in one variant of its object (a server whose stats were read:
 * * "note" null): required when the object's code says the variant holds */
#define RF_WHEN 0x2u
/* written in some documents only (--rounds, open loop, a verdict):
 * * never required by the check; the object's code reads it if there */
#define RF_SOMETIMES 0x4u
#define RF_MAP 0x8u /* an object whose every member (a request type) is an `of` object */

struct results_field {
    const char *name;
    enum results_field_type type;
    unsigned flags;
    unsigned since; /* the first schema version that holds it (RESULTS_SCHEMA's rules) */
    const char *of; /* RF_OBJECT, RF_ARRAY of objects: the table of its members, or NULL */
    enum results_field_store store;
    size_t offset; /* RF_STORE_*: where in the object's struct */
    size_t size;   /* RF_STORE_CHARS: the array's size */
};

/* One object of the document: its fields, and where the schema file describes it (a path of
 * member names from the schema's root, '/'-separated, as JSON pointer without the '#'). */
struct results_object {
    const char *name;
    const char *schema; /* "/properties/limits/properties/client" */
    const struct results_field *fields;
    size_t n;
};

/* Every object, in the order the document nests them (the counters are SLAP_COUNTERS'). */
extern const struct results_object *const results_objects[];
extern const size_t results_nobjects;

/* The table named name (results_objects'), or NULL. */
const struct results_object *results_object_find(const char *name);
/* The row of o named name, or NULL. */
const struct results_field *results_field_find(const struct results_object *o, const char *name);

/*
 * Check obj against o for a document of version schema: every field o holds present with its
 * type (null where RF_NULL), unless written only sometimes (RF_SOMETIMES), of the other variant
 * (RF_WHEN, and not variant) or younger than the file (since > schema). false with the first
 * field wrong in *name and why in *why.
 */
bool results_fields_check(const struct results_object *o, const struct json_value *obj,
                          unsigned schema, bool variant, const char **name, const char **why);
/* Is the field name of o one a document of version schema must hold (when written at all)? */
bool results_field_due(const struct results_object *o, const char *name, unsigned schema);

/* o's stored fields (RF_STORE_*) of base written into w, in the table's order. */
void results_fields_write(struct json_writer *w, const struct results_object *o, const void *base);
/* o's stored fields read from obj into base: false with the field in *name, why in *why (a
 * count above RESULTS_COUNT_MAX or a number out of 0..2^53, a text too long for its array). A
 * field absent and allowed to be (younger than the file) is left as it is. */
bool results_fields_read(const struct results_object *o, const struct json_value *obj, void *base,
                         unsigned schema, bool variant, const char **name, const char **why);

/* The object tables the code names. */
extern const struct results_object results_obj_top, results_obj_runs, results_obj_run_line,
    results_obj_keys, results_obj_summary, results_obj_type, results_obj_hist, results_obj_outcomes,
    results_obj_errors, results_obj_intervals, results_obj_period, results_obj_step,
    results_obj_round, results_obj_server_stats, results_obj_server, results_obj_limits,
    results_obj_client, results_obj_host, results_obj_in_flight, results_obj_proxy,
    results_obj_limits_server, results_obj_borderline, results_obj_search, results_obj_trace,
    results_obj_samples, results_obj_probes, results_obj_control;

#endif
