/* slap search: the highest open-loop rate at which a latency objective holds. */
#ifndef SLAP_SEARCH_H
#define SLAP_SEARCH_H

/* slap search ARGS (argv[0] is "search"): the exit status, 0, 1 or 2. */
int search_main(int argc, char **argv);

#endif
