/* What limited a run, in words and in the report's lines. */
#ifndef SLAP_LIMITS_WORDS_H
#define SLAP_LIMITS_WORDS_H

#include <stddef.h>
#include <stdio.h>

#include "slap/judge/limits.h"

/* The verdict's words (why it is what it is, what to do) from l's figures, as limits_judge
 * left them, into buf (len bytes, LIMITS_WHY_MAX enough). */
void limits_say(const struct limits *l, char *buf, size_t len);
/* l->read_why when it holds words (a results file's), else limits_say's into buf. */
const char *limits_why(const struct limits *l, char *buf, size_t len);
/* The report's lines: client_cpu_*, client_busy, client_cpu_wait, server_cpu_s, limited_by. */
void limits_print(FILE *out, const struct limits *l);

#endif
