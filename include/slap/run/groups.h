/* A run of a -F file's groups: several workloads at once, each a slap of its own, reported per
 * group and in total (groups.c). */
#ifndef SLAP_CLI_GROUPS_H
#define SLAP_CLI_GROUPS_H

#include <stdbool.h>

#include "slap/options/options.h"

/*
 * When o's -F file holds groups: check every group (exit 2 naming the file, line and group),
 * run them together and report them; true, with the exit status: the worst of the groups' and
 * the report's (a group that wrote no results counts 1). A stop signal is handed to the
 * groups, the report printed, and the run then dies of it. false: no groups, run as ever.
 */
bool groups_run(const struct slap_options *o, int argc, char **argv, int *exit_status);

#endif
