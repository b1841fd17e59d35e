/* The groups of a -F file: "group NAME" sections, each the words of a command line. */
#include "slap/model/cfggroups.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "slap/base/quote.h"
#include "slap/model/cfgfile.h"

#define GROUP_WORDS_MAX 256            /* words of one group */
#define SHOWN_MAX 40                   /* bytes of a bad word shown in a message */
#define SHOWN_BUF (SHOWN_MAX * 4 + 8)  /* and room for it quoted: \xNN a byte, marks, "..." */
#define BYTE_ORDER_MARK "\xef\xbb\xbf" /* UTF-8's, from a Windows editor: skipped, as cfgfile.c */

#if defined(__GNUC__)
#define GROUPS_PRINTF(fmt, first) __attribute__((format(printf, fmt, first)))
#else
#define GROUPS_PRINTF(fmt, first)
#endif

/* One line's words (at most a few are looked at by name; all are kept by the caller). */
struct line_words {
    const char *text[GROUP_WORDS_MAX];
    size_t len[GROUP_WORDS_MAX];
    size_t count;
};

/* What the parse carries from one line to the next. */
struct groups_parser {
    const char *name; /* the file, for messages */
    size_t line_no;
    struct cfg_groups *g;
    char *err;
    size_t err_len;
};

GROUPS_PRINTF(3, 4)
static enum slap_status groups_fail(struct groups_parser *p, size_t line, const char *fmt, ...)
{
    char shown[QUOTE_PATH_BUF];
    int used = snprintf(p->err, p->err_len, "%s:%zu: ", quote_name(shown, p->name), line);
    if (used >= 0 && (size_t)used < p->err_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err + used, p->err_len - (size_t)used, fmt, ap);
        va_end(ap);
    }
    return SLAP_ERROR;
}

static bool blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* The words of a line, up to a word that starts with '#'; false when there are too many (the
 * first GROUP_WORDS_MAX kept). */
static bool split_words(const char *line, size_t len, struct line_words *w)
{
    size_t i = 0;
    w->count = 0;
    while (i < len) {
        while (i < len && blank(line[i])) {
            i++;
        }
        if (i == len || line[i] == '#') {
            break;
        }
        size_t start = i;
        while (i < len && !blank(line[i])) {
            i++;
        }
        if (w->count == GROUP_WORDS_MAX) {
            return false;
        }
        w->text[w->count] = line + start;
        w->len[w->count++] = i - start;
    }
    return true;
}

static bool word_is(const struct line_words *w, size_t i, const char *what)
{
    return w->len[i] == strlen(what) && strncasecmp(w->text[i], what, w->len[i]) == 0;
}

/* key, value or cmd alone on its line (a colon after it allowed): memaslap's sections. */
static bool memaslap_section(const struct line_words *w)
{
    static const char *const names[] = {"key", "value", "cmd", "key:", "value:", "cmd:"};
    for (size_t i = 0; w->count == 1 && i < SLAP_ARRAY_SIZE(names); i++) {
        if (word_is(w, 0, names[i])) {
            return true;
        }
    }
    return false;
}

static bool name_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '.' || ch == '_' || ch == '-';
}

/* A bad name as the message shows it: quoted, an unprintable byte as \xNN, cut short. */
static const char *shown_name(const char *name, size_t len, char buf[SHOWN_BUF])
{
    char *at = buf;
    quote_put(&at, buf + SHOWN_BUF, name, len, SHOWN_MAX, '\'');
    *at = '\0';
    return buf;
}

/* "group NAME": a new group, its name checked. */
static enum slap_status open_group(struct groups_parser *p, const struct line_words *w)
{
    struct cfg_groups *g = p->g;
    if (w->count != 2) {
        return groups_fail(p, p->line_no, "a group's line is 'group NAME', one name");
    }
    const char *name = w->text[1];
    size_t len = w->len[1];
    char shown[SHOWN_BUF];
    for (size_t i = 0; i < len; i++) {
        if (!name_char(name[i])) {
            return groups_fail(p, p->line_no,
                               "group %s: a name holds letters, digits, '.', '_' and '-'",
                               shown_name(name, len, shown));
        }
    }
    if (len >= CFG_GROUP_NAME) {
        return groups_fail(p, p->line_no, "group '%.*s...': a name is at most %d bytes", SHOWN_MAX,
                           name, CFG_GROUP_NAME - 1);
    }
    for (size_t i = 0; i < g->n; i++) {
        if (strlen(g->items[i].name) == len && memcmp(g->items[i].name, name, len) == 0) {
            return groups_fail(p, p->line_no, "group %.*s is named twice (first at line %zu)",
                               (int)len, name, g->items[i].line);
        }
    }
    if (g->n > 0 && g->items[g->n - 1].nwords == 0) {
        return groups_fail(p, g->items[g->n - 1].line, "group %s holds no options",
                           g->items[g->n - 1].name);
    }
    if (g->n == CFG_GROUPS_MAX) {
        return groups_fail(p, p->line_no, "more than %d groups", CFG_GROUPS_MAX);
    }
    struct cfg_group *grp = &g->items[g->n++];
    memcpy(grp->name, name, len);
    grp->name[len] = '\0';
    grp->line = p->line_no;
    return SLAP_OK;
}

/* A line's words added to the open group. */
static enum slap_status add_words(struct groups_parser *p, const struct line_words *w)
{
    struct cfg_group *grp = &p->g->items[p->g->n - 1];
    if (grp->nwords + w->count > GROUP_WORDS_MAX) {
        return groups_fail(p, p->line_no, "group %s holds more than %d words", grp->name,
                           GROUP_WORDS_MAX);
    }
    struct cfg_word *words = realloc(grp->words, (grp->nwords + w->count) * sizeof(*words));
    if (words == NULL) {
        return groups_fail(p, p->line_no, "out of memory");
    }
    grp->words = words;
    for (size_t i = 0; i < w->count; i++) {
        char *text = malloc(w->len[i] + 1);
        if (text == NULL) {
            return groups_fail(p, p->line_no, "out of memory");
        }
        memcpy(text, w->text[i], w->len[i]);
        text[w->len[i]] = '\0';
        words[grp->nwords++] = (struct cfg_word){text, p->line_no};
    }
    return SLAP_OK;
}

/* One line; first_group: the line of the file's first "group" (0: none). */
static enum slap_status groups_line(struct groups_parser *p, const char *line, size_t len,
                                    size_t first_group)
{
    struct line_words w;
    if (memchr(line, '\0', len) != NULL) { /* a word would end there, unseen */
        return groups_fail(p, p->line_no, "a NUL byte: a file of groups is text");
    }
    if (!split_words(line, len, &w)) {
        return groups_fail(p, p->line_no, "more than %d words on a line", GROUP_WORDS_MAX);
    }
    if (w.count == 0) {
        return SLAP_OK;
    }
    if (word_is(&w, 0, "group")) {
        return open_group(p, &w);
    }
    if (p->g->n == 0 || memaslap_section(&w)) {
        return groups_fail(p, p->line_no,
                           "a file of groups (line %zu) holds only groups: key, value and cmd go "
                           "in a file of their own, given to a group with -F",
                           first_group);
    }
    return add_words(p, &w);
}

/* The line of the first "group NAME" header; 0 when there is none. */
static size_t first_group_line(const char *text, size_t len)
{
    size_t start = 0, line = 0;
    while (start < len) {
        const char *newline = memchr(text + start, '\n', len - start);
        size_t end = newline != NULL ? (size_t)(newline - text) : len;
        struct line_words w;
        line++;
        split_words(text + start, end - start, &w); /* too many words: its first still count */
        if (w.count > 0 && word_is(&w, 0, "group")) {
            return line;
        }
        start = end + 1;
    }
    return 0;
}

enum slap_status cfggroups_parse(const char *text, size_t len, const char *name,
                                 struct cfg_groups *g, char *err, size_t err_len)
{
    struct groups_parser p = {
        .name = name != NULL ? name : "config", .g = g, .err = err, .err_len = err_len};
    memset(g, 0, sizeof(*g));
    size_t bom = sizeof(BYTE_ORDER_MARK) - 1;
    if (len >= bom && memcmp(text, BYTE_ORDER_MARK, bom) == 0) {
        text += bom;
        len -= bom;
    }
    size_t first = first_group_line(text, len), start = 0;
    while (first > 0 && start < len) {
        const char *newline = memchr(text + start, '\n', len - start);
        size_t end = newline != NULL ? (size_t)(newline - text) : len;
        p.line_no++;
        if (groups_line(&p, text + start, end - start, first) != SLAP_OK) {
            cfggroups_free(g);
            return SLAP_ERROR;
        }
        start = end + 1;
    }
    if (g->n > 0 && g->items[g->n - 1].nwords == 0) {
        groups_fail(&p, g->items[g->n - 1].line, "group %s holds no options",
                    g->items[g->n - 1].name);
        cfggroups_free(g);
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

enum slap_status cfggroups_load(const char *path, struct cfg_groups *g, char *err, size_t err_len)
{
    char *text;
    size_t len;
    memset(g, 0, sizeof(*g));
    if (cfgfile_read(path, &text, &len, err, err_len) != SLAP_OK) {
        return SLAP_ERROR;
    }
    enum slap_status rc = cfggroups_parse(text, len, path, g, err, err_len);
    free(text);
    return rc;
}

void cfggroups_free(struct cfg_groups *g)
{
    for (size_t i = 0; i < g->n; i++) {
        for (size_t k = 0; k < g->items[i].nwords; k++) {
            free(g->items[i].words[k].text);
        }
        free(g->items[i].words);
    }
    memset(g, 0, sizeof(*g));
}
