/* Which subcommand runs: the rows of subcommand_list.h, each to its main in the layers below
 * (slap compare's two forms chosen here, the files' below running, --live among the runs). */
#include "dispatch.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/commands/compare_args.h"
#include "slap/commands/subcommands.h"
#include "slap/options/subcommand_list.h"
#include "slap/run/compare_live.h"
#include "slap/run/search.h"

/* slap compare: of results files, or with --live of targets measured here. */
int compare_main(int argc, char **argv)
{
    bool live = false, run;
    int n = 0;
    for (int i = 1; i < argc; i++) {
        live = live || strcmp(argv[i], "--live") == 0;
    }
    struct compare_cli *c = calloc(1, sizeof(*c));
    char **words = calloc((size_t)argc + 1, sizeof(*words));
    if (c == NULL || words == NULL) {
        free(c);
        free(words);
        return compare_usage("out of memory", NULL);
    }
    int status = compare_parse(live, argc, argv, c, words, &n, &run);
    if (run) {
        status = live ? compare_live_main(c, words, n) : compare_files_main(c, words, n);
    }
    free(words);
    free(c);
    return status;
}

/* The dispatch, from the subcommands' rows (subcommand_list.h). */
static const struct subcommand {
    const char *name;
    subcommand_main main;
} subcommands[SUBCOMMANDS] = {
#define SUBCOMMAND_MAIN(id, name_, main_, usage, summary) [SUBCOMMAND_##id] = {name_, main_},
    SLAP_SUBCOMMANDS(SUBCOMMAND_MAIN)
#undef SUBCOMMAND_MAIN
};

_Static_assert(SLAP_ARRAY_SIZE(subcommands) == SUBCOMMANDS, "a main for every subcommand");

subcommand_main subcommand_find(const char *name)
{
    for (size_t i = 0; i < SUBCOMMANDS; i++) {
        if (strcmp(name, subcommands[i].name) == 0) {
            return subcommands[i].main;
        }
    }
    return NULL;
}
