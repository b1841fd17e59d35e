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

#define LIST_COLUMNS 79 /* --help's width */

/* Where to cut line (n bytes) to fit width: its last " [" (before an option of a usage
 * line) within it; 0 when it fits or has none. */
static size_t cut_at(const char *line, size_t n, size_t width)
{
    size_t cut = 0;
    for (size_t k = 1; n > width && k + 1 < n && k <= width; k++) {
        cut = line[k] == ' ' && line[k + 1] == '[' ? k : cut;
    }
    return cut;
}

/* text's lines, each after indent; a line too wide goes on under its second word. */
static void print_lines(FILE *out, const char *indent, const char *text)
{
    while (*text != '\0') {
        size_t n = strcspn(text, "\n");
        size_t under = strlen(indent) + strcspn(text, " \n");
        const char *lead = indent;
        const char *line = text;
        size_t left = n, cut, width = LIST_COLUMNS - strlen(indent);
        while ((cut = cut_at(line, left, width)) > 0) {
            fprintf(out, "%s%.*s\n%*s", lead, (int)cut, line, (int)under, "");
            lead = "";
            line += cut;
            left -= cut;
            width = LIST_COLUMNS - under;
        }
        fprintf(out, "%s%.*s\n", lead, (int)left, line);
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
