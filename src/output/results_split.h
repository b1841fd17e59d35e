/* A results file read a piece at a time: each period's text, then its head. */
#ifndef SLAP_RESULTS_SPLIT_H
#define SLAP_RESULTS_SPLIT_H

#include <stddef.h>
#include <stdio.h>

#include "slap/base/common.h"

/* One element of the top-level "periods" array: its text (NUL-terminated), its index and the
 * line of the file it starts on. */
struct results_split_piece {
    const char *text;
    size_t len;
    size_t index;
    size_t line;
};

struct results_split;

/* A splitter reading in (not owned); results_split_close releases it. SLAP_ERROR when out of
 * memory. */
enum slap_status results_split_open(FILE *in, struct results_split **out);
void results_split_close(struct results_split *sp);

/*
 * The next element of the top-level object's "periods" array into *piece (its text valid until
 * the next call): SLAP_OK. SLAP_AGAIN when there is none left: the file was read to its end
 * and results_split_head has the rest of its text, where "periods" is an empty array (line
 * breaks kept, so json_parse's lines are the file's). Not a validator: what is not the shape
 * looked for is left in the head for json_parse to refuse. A piece (the head, or one period)
 * is at most JSON_MAX_INPUT bytes. SLAP_ERROR when memory runs out or a read fails (err says
 * which).
 */
enum slap_status results_split_next(struct results_split *sp, struct results_split_piece *piece,
                                    char *err, size_t err_len);

/* The top-level "schema" member's number when it has been read (slap writes it first, so
 * before the periods); 0 when not, or when it is no whole number of up to 4 digits. */
unsigned results_split_schema(const struct results_split *sp);

/* The head, once results_split_next said SLAP_AGAIN (owned by the splitter). */
const char *results_split_head(const struct results_split *sp, size_t *len);

#endif
