/* slap search: the highest open-loop rate at which a latency objective holds. */
#ifndef SLAP_SEARCH_H
#define SLAP_SEARCH_H

#include <stddef.h>

/* slap search ARGS (argv[0] is "search"): the exit status, 0, 1 or 2. */
int search_main(int argc, char **argv);

struct optdoc;
/* Its own options as its man page shows them, from its rows: how many, at most max. */
size_t search_docs(struct optdoc *out, size_t max);

#endif
