/* slap memslap ARGS, or slap run as memslap or memcslap: memslap's options, one run, its
 * report. */
#ifndef SLAP_CLI_MEMSLAP_RUN_H
#define SLAP_CLI_MEMSLAP_RUN_H

/* argv[first] is memslap's argv[0] (memslap_invoked says which); the exit status. */
int memslap_main(int argc, char **argv, int first);

#endif
