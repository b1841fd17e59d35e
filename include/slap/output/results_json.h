/* A results document written as JSON, whole or a period at a time. */
#ifndef SLAP_RESULTS_JSON_H
#define SLAP_RESULTS_JSON_H

#include <stddef.h>
#include <stdio.h>

#include "slap/base/json.h"
#include "slap/output/results.h"

/* The document as JSON. */
void results_write_json(FILE *out, const struct results_doc *d);

/*
 * The same, a period at a time, for periods not held in the document: results_json_begin
 * writes what comes before the periods, results_json_period each period in turn,
 * results_json_end the rest. d is the document as results_write_json would take it, without its
 * periods; it must outlive the writing.
 */
struct results_json_stream {
    struct json_writer w;
    const struct results_doc *d;
};
void results_json_begin(struct results_json_stream *js, FILE *out, const struct results_doc *d);
void results_json_period(struct results_json_stream *js, const struct results_period *p);
void results_json_end(struct results_json_stream *js);

#endif
