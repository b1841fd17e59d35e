/* A results file read a piece at a time: its head and each period's text. */
#ifndef SLAP_RESULTS_SPLIT_H
#define SLAP_RESULTS_SPLIT_H

#include <stddef.h>
#include <stdio.h>

#include "slap/common.h"

/* One element of the top-level "periods" array: its text (NUL-terminated), its index and the
 * line of the file it starts on. Anything but SLAP_OK stops the reading. */
typedef enum slap_status (*results_split_each)(void *arg, const char *text, size_t len,
                                               size_t index, size_t line);

/*
 * Read in to its end: every element of the top-level object's "periods" array handed to each,
 * in order, and the rest of the text into *head (allocated), where "periods" is an empty array
 * (line breaks kept, so json_parse's lines are the file's). Not a validator: what is not the
 * shape looked for is left in the head for json_parse to refuse. A piece (the head, or one
 * period) is at most JSON_MAX_INPUT bytes. SLAP_ERROR when each stops, memory runs out or a
 * read fails (err says which of the last two).
 */
enum slap_status results_split(FILE *in, char **head, size_t *head_len, results_split_each each,
                               void *arg, char *err, size_t err_len);

#endif
