/* slap compare --live: the sides measured here in rounds (compare_live.c). */
#ifndef SLAP_CLI_COMPARE_LIVE_H
#define SLAP_CLI_COMPARE_LIVE_H

#include "slap/commands/compare_args.h"

/* words are the sides (NAME=TARGET) and slap's options for every side, in the order given. */
int compare_live_main(const struct compare_cli *c, char **words, int nwords);

#endif
