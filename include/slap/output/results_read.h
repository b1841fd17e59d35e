/* A results document read back: whole, or a period at a time. */
#ifndef SLAP_RESULTS_READ_H
#define SLAP_RESULTS_READ_H

#include <stddef.h>
#include <stdio.h>

#include "slap/base/json.h"
#include "slap/output/results.h"
#include "slap/output/run_desc.h"

/*
 * How a document's "config" object becomes its description (the cli reads it as its options
 * would be read from a command line): config into out (empty on entry), or SLAP_ERROR with err
 * saying why it does not read back.
 */
typedef enum slap_status (*results_config_reader)(const struct json_value *config,
                                                  struct run_desc *out, char *err, size_t err_len);

/* Read a document written by results_write_json, its "config" by read_config; err says what is
 * wrong and where. Either way d is then initialised: results_doc_free releases it. */
enum slap_status results_read(const char *path, results_config_reader read_config,
                              struct results_doc *d, char *err, size_t err_len);
enum slap_status results_parse(const char *text, size_t len, results_config_reader read_config,
                               struct results_doc *d, char *err, size_t err_len);

/* A results file read a period at a time. */
struct results_stream;
/* Open path to read into d (initialised here, whatever the outcome), naming it name in
 * messages, its "config" read by read_config. SLAP_ERROR with err ("cannot read 'NAME': why");
 * otherwise results_stream_close must follow. */
enum slap_status results_stream_open(const char *path, const char *name,
                                     results_config_reader read_config, struct results_doc *d,
                                     struct results_stream **out, char *err, size_t err_len);
/* The next period into *p (the stream's: valid until the next call, not kept in d): SLAP_OK.
 * SLAP_AGAIN when there is none left: the rest of the document has been read into d. SLAP_ERROR
 * with err ("PATH: what is wrong and where"), and no more. */
enum slap_status results_stream_next(struct results_stream *rs, const struct results_period **p,
                                     char *err, size_t err_len);
void results_stream_close(struct results_stream *rs);

#endif
