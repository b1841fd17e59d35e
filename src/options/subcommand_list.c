/* The subcommands as `slap --help` lists them, from their rows (subcommand_list.h). */
#include "slap/options/subcommand_list.h"

#include <string.h>

#include "slap/base/common.h"

const struct subcommand_doc subcommand_docs[SUBCOMMANDS] = {
#define SUBCOMMAND_DOC(id, name_, main, usage_, summary_)                                          \
    [SUBCOMMAND_##id] = {.name = name_, .usage = usage_, .summary = summary_},
    SLAP_SUBCOMMANDS(SUBCOMMAND_DOC)
#undef SUBCOMMAND_DOC
};

_Static_assert(SLAP_ARRAY_SIZE(subcommand_docs) == SUBCOMMANDS, "a row for every subcommand");

/* text's lines, each after indent. */
static void print_lines(FILE *out, const char *indent, const char *text)
{
    while (*text != '\0') {
        size_t n = strcspn(text, "\n");
        fprintf(out, "%s%.*s\n", indent, (int)n, text);
        text += n + (text[n] == '\n');
    }
}

void subcommand_list_print(FILE *out)
{
    fputs("\nOther commands (each with its own --help):\n", out);
    for (size_t i = 0; i < SUBCOMMANDS; i++) {
        print_lines(out, "  slap ", subcommand_docs[i].usage);
        print_lines(out, "      ", subcommand_docs[i].summary);
    }
}
