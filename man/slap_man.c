/*
 * slap_man SRCDIR OUTDIR: the man pages, made at build time from the rows. For slap and for
 * each subcommand row (subcommand_list.h) it reads the page's prose, SRCDIR/slap.1.in or
 * SRCDIR/slap-NAME.1.in, and writes OUTDIR/slap.1 or OUTDIR/slap-NAME.1 with its markers
 * filled: @VERSION@ anywhere; a line `.\" @NAME@` the page's name and the row's summary; a
 * line `.\" @SYNOPSIS@` the row's usage; a line `.\" @OPTIONS@` an entry per option row, in
 * the rows' order: `.TP`, a head line made from the row (its names, its value's name), and
 * the option's text from SRCDIR/options.roff, where each text follows a line
 * `.\" @option PAGE --name`. Nothing is written unless every row has a text, every text names
 * a row of its page, every subcommand row has its prose and every prose file is a page's:
 * else each problem is said, as FILE:LINE: what, and the exit status is 1.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/version.h"
#include "slap/commands/compare_args.h"
#include "slap/commands/subcommands.h"
#include "slap/options/optdoc.h"
#include "slap/options/subcommand_list.h"
#include "slap/run/search.h"

#define PAGES (1 + SUBCOMMANDS) /* slap's, then one per subcommand row */
#define PAGE_NAME_MAX 64
#define TEXTS_MAX 512
#define SEGS_MAX 32
#define SEG_MAX 256
#define MARKER_OPTION ".\\\" @option "

/* A file read whole, cut into lines (the newlines replaced by NULs). */
struct lines {
    char *data;
    char **line;
    size_t count;
};

/* One option's text in options.roff: its page, its key and its lines. */
struct text {
    char page[PAGE_NAME_MAX]; /* "slap", "merge", ... as the marker says */
    char key[OPTDOC_NAME_MAX];
    size_t first, count; /* its lines after the marker, blank ones at the end left out */
    size_t marker;       /* the marker's line, from 1 */
    bool used;
};

struct page {
    char name[PAGE_NAME_MAX];         /* "slap", "slap-merge" */
    const char *key;                  /* the texts' PAGE: "slap", "merge" */
    const struct subcommand_doc *row; /* NULL: slap's own page */
    struct optdoc docs[OPTDOC_MAX];   /* the option rows it documents */
    size_t ndocs;
    const struct text *texts[OPTDOC_MAX]; /* each row's text */
    struct lines prose;
};

static int problems;

/* snprintf's, cut short at size (the names and paths here are short). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
format(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, size, fmt, ap);
    va_end(ap);
}

/* src after dst's text, cut short at size. */
static void append(char *dst, size_t size, const char *src)
{
    size_t at = strlen(dst);
    format(dst + at, size - at, "%s", src);
}

/* "slap_man: FILE:LINE: what" (line 0: no line). */
static void problem(const char *path, size_t line, const char *what, const char *name)
{
    if (line > 0) {
        fprintf(stderr, "slap_man: %s:%zu: %s%s\n", path, line, what, name);
    } else {
        fprintf(stderr, "slap_man: %s: %s%s\n", path, what, name);
    }
    problems++;
}

static void lines_free(struct lines *l)
{
    free(l->line);
    free(l->data);
    *l = (struct lines){0};
}

static bool read_lines(const char *path, struct lines *l)
{
    FILE *f = fopen(path, "r");
    *l = (struct lines){0};
    if (f == NULL) {
        return false;
    }
    size_t size = 0, cap = 0;
    char buf[65536];
    for (size_t n; (n = fread(buf, 1, sizeof(buf), f)) > 0;) {
        if (size + n + 1 > cap) {
            cap = 2 * (size + n + 1);
            char *grown = realloc(l->data, cap);
            if (grown == NULL) {
                fclose(f);
                return false;
            }
            l->data = grown;
        }
        memcpy(l->data + size, buf, n);
        size += n;
    }
    fclose(f);
    if (l->data == NULL && (l->data = malloc(1)) == NULL) {
        return false;
    }
    l->data[size] = '\0';
    size_t lines = 1;
    for (size_t i = 0; i < size; i++) {
        lines += l->data[i] == '\n';
    }
    if ((l->line = calloc(lines, sizeof(*l->line))) == NULL) {
        return false;
    }
    for (char *p = l->data; *p != '\0';) {
        l->line[l->count++] = p;
        char *nl = strchr(p, '\n');
        if (nl == NULL) {
            break;
        }
        *nl = '\0';
        p = nl + 1;
    }
    return true;
}

/* ---- the rows of each page ------------------------------------------------------------ */

/* A subcommand's options, from its rows; -Wswitch finds a new row without its case. */
static size_t subcommand_options(enum subcommand_id id, struct optdoc *out, size_t max)
{
    switch (id) {
    case SUBCOMMAND_MERGE:
        return merge_docs(out, max);
    case SUBCOMMAND_PLOT:
        return plot_docs(out, max);
    case SUBCOMMAND_SEARCH:
        return search_docs(out, max);
    case SUBCOMMAND_COMPARE:
        return compare_docs(out, max);
    case SUBCOMMAND_TRACE_STATS:
        return tracestats_docs(out, max);
    case SUBCOMMAND_HISTORY:
        return history_docs(out, max);
    case SUBCOMMAND_MEMSLAP:
        return memslap_docs(out, max);
    case SUBCOMMANDS:
        break;
    }
    return 0;
}

static void pages_from_rows(struct page *pages)
{
    format(pages[0].name, PAGE_NAME_MAX, "slap");
    pages[0].key = "slap";
    pages[0].ndocs = options_docs(pages[0].docs, OPTDOC_MAX);
    for (size_t i = 0; i < SUBCOMMANDS; i++) {
        struct page *p = &pages[1 + i];
        p->row = &subcommand_docs[i];
        p->key = p->row->name;
        format(p->name, PAGE_NAME_MAX, "slap-%s", p->row->name);
        p->ndocs = subcommand_options((enum subcommand_id)i, p->docs, OPTDOC_MAX);
    }
}

/* ---- the texts ------------------------------------------------------------------------ */

static size_t read_texts(const char *path, const struct lines *l, struct text *texts)
{
    size_t n = 0;
    for (size_t i = 0; i < l->count; i++) {
        const char *line = l->line[i];
        if (strncmp(line, MARKER_OPTION, strlen(MARKER_OPTION)) == 0) {
            if (n == TEXTS_MAX) {
                problem(path, i + 1, "too many texts", "");
                return n;
            }
            struct text *t = &texts[n++];
            *t = (struct text){.first = i + 1, .marker = i + 1};
            if (sscanf(line + strlen(MARKER_OPTION), "%63s %39s", t->page, t->key) != 2) {
                problem(path, i + 1, "a marker is .\\\" @option PAGE --name: ", line);
            }
        } else if (n > 0) {
            struct text *t = &texts[n - 1];
            if (line[strspn(line, " \t")] != '\0') {
                t->count = i + 1 - t->first;
            }
        } else if (strncmp(line, ".\\\"", 3) != 0 && line[0] != '\0') {
            problem(path, i + 1, "before the first .\\\" @option, only comments: ", line);
        }
    }
    return n;
}

/* Each row of each page its text; each text a row's. */
static void match_texts(const char *path, struct page *pages, struct text *texts, size_t ntexts)
{
    for (size_t t = 0; t < ntexts; t++) {
        struct text *x = &texts[t];
        struct page *page = NULL;
        for (size_t p = 0; p < PAGES && page == NULL; p++) {
            page = strcmp(pages[p].key, x->page) == 0 ? &pages[p] : NULL;
        }
        char what[160];
        if (page == NULL) {
            problem(path, x->marker, "a text of no page (slap or a subcommand): ", x->page);
            continue;
        }
        size_t d = 0;
        while (d < page->ndocs && strcmp(optdoc_key(&page->docs[d]), x->key) != 0) {
            d++;
        }
        if (d == page->ndocs) {
            format(what, sizeof(what), "a text names no option of %s's rows: ", page->name);
            problem(path, x->marker, what, x->key);
        } else if (page->texts[d] != NULL) {
            format(what, sizeof(what), "a second text of %s's ", page->name);
            problem(path, x->marker, what, x->key);
        } else if (x->count == 0) {
            problem(path, x->marker, "an empty text: ", x->key);
        } else {
            page->texts[d] = x;
            x->used = true;
        }
    }
    for (size_t p = 0; p < PAGES; p++) {
        for (size_t d = 0; d < pages[p].ndocs; d++) {
            if (pages[p].texts[d] == NULL) {
                char what[160];
                format(what, sizeof(what), "no text (.\\\" @option %s %s) for %s's option ",
                       pages[p].key, optdoc_key(&pages[p].docs[d]), pages[p].name);
                problem(path, 0, what, optdoc_key(&pages[p].docs[d]));
            }
        }
    }
}

/* ---- the prose ------------------------------------------------------------------------ */

static size_t marker_count(const struct lines *l, const char *marker)
{
    size_t n = 0;
    for (size_t i = 0; i < l->count; i++) {
        n += strcmp(l->line[i], marker) == 0;
    }
    return n;
}

static void read_prose(const char *srcdir, struct page *pages)
{
    char path[4096];
    for (size_t p = 0; p < PAGES; p++) {
        format(path, sizeof(path), "%s/%s.1.in", srcdir, pages[p].name);
        if (!read_lines(path, &pages[p].prose)) {
            problem(path, 0, "cannot be read: every page needs its prose, here ", pages[p].name);
            continue;
        }
        const char *markers[] = {".\\\" @OPTIONS@", ".\\\" @NAME@", ".\\\" @SYNOPSIS@"};
        for (size_t m = 0; m < (pages[p].row != NULL ? 3u : 1u); m++) {
            if (marker_count(&pages[p].prose, markers[m]) != 1) {
                problem(path, 0, "needs one line ", markers[m]);
            }
        }
    }
    DIR *dir = opendir(srcdir); /* a prose file of no page is a page left behind */
    for (struct dirent *e; dir != NULL && (e = readdir(dir)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 5, ".1.in") != 0) {
            continue;
        }
        bool known = false;
        for (size_t p = 0; p < PAGES && !known; p++) {
            known = strlen(pages[p].name) == n - 5 && strncmp(pages[p].name, e->d_name, n - 5) == 0;
        }
        if (!known) {
            format(path, sizeof(path), "%s/%s", srcdir, e->d_name);
            problem(path, 0, "the prose of no page (slap, or a subcommand row)", "");
        }
    }
    if (dir != NULL) {
        closedir(dir);
    }
}

/* ---- roff ----------------------------------------------------------------------------- */

enum font { FONT_B, FONT_I, FONT_R };

struct segs {
    enum font font[SEGS_MAX];
    char text[SEGS_MAX][SEG_MAX];
    size_t n;
};

/* text[0..len) escaped for roff, added in font (to the last piece when it is in that font). */
static void seg_add(struct segs *v, enum font font, const char *text, size_t len, bool lower)
{
    if (v->n == 0 || v->font[v->n - 1] != font) {
        if (v->n == SEGS_MAX) {
            return;
        }
        v->font[v->n] = font;
        v->text[v->n++][0] = '\0';
    }
    char *out = v->text[v->n - 1];
    size_t at = strlen(out);
    for (size_t i = 0; i < len && at + 5 < SEG_MAX; i++) {
        const char *esc = text[i] == '-'    ? "\\-"
                          : text[i] == '\\' ? "\\e"
                          : text[i] == '"'  ? "\\(dq"
                                            : NULL;
        if (esc != NULL) {
            at += (size_t)snprintf(out + at, SEG_MAX - at, "%s", esc);
        } else {
            out[at++] = lower ? (char)tolower((unsigned char)text[i]) : text[i];
            out[at] = '\0';
        }
    }
}

/*
 * A value's name or a usage word as a man page sets it: the names to fill in italic (LIST as
 * list; a letter, N, as it is), the words to type in bold (-o, keys, .json, =, :), and the
 * signs of the syntax ([, ], |, ...) in roman.
 */
static void seg_syntax(struct segs *v, const char *text)
{
    for (const char *p = text; *p != '\0';) {
        size_t n = 1;
        if (strncmp(p, "...", 3) == 0 || strchr("[]|", *p) != NULL) {
            n = *p == '.' ? 3 : 1;
            seg_add(v, FONT_R, p, n, false);
        } else if (isupper((unsigned char)*p)) {
            while (isupper((unsigned char)p[n]) || isdigit((unsigned char)p[n]) || p[n] == '_') {
                n++;
            }
            seg_add(v, FONT_I, p, n, n > 1);
        } else if (islower((unsigned char)*p) || isdigit((unsigned char)*p)) {
            while (islower((unsigned char)p[n]) || isdigit((unsigned char)p[n]) || p[n] == '_') {
                n++;
            }
            seg_add(v, FONT_B, p, n, false);
        } else {
            seg_add(v, FONT_B, p, 1, false);
        }
        p += n;
    }
}

static void put_arg(FILE *out, const char *arg)
{
    bool quote = strchr(arg, ' ') != NULL;
    fprintf(out, " %s%s%s", quote ? "\"" : "", arg, quote ? "\"" : "");
}

/*
 * The pieces as one macro line: .B or .I for one font, the alternating macros for two (.BR,
 * .BI, ...), roman pieces set inside the others (\fR...\fP) when there are three.
 */
static void put_segs(FILE *out, struct segs *v)
{
    bool italic = false;
    for (size_t i = 0; i < v->n; i++) {
        italic = italic || v->font[i] == FONT_I;
    }
    if (italic) { /* roman folded into its neighbours */
        struct segs folded = {.n = 0};
        char prefix[SEG_MAX] = "";
        for (size_t i = 0; i < v->n; i++) {
            char piece[SEG_MAX];
            if (v->font[i] == FONT_R) {
                format(piece, sizeof(piece), "\\fR%s\\fP", v->text[i]);
                if (folded.n == 0) {
                    format(prefix, sizeof(prefix), "%s", piece);
                } else {
                    char *last = folded.text[folded.n - 1];
                    append(last, SEG_MAX, piece);
                }
                continue;
            }
            if (folded.n > 0 && folded.font[folded.n - 1] == v->font[i]) {
                char *last = folded.text[folded.n - 1];
                append(last, SEG_MAX, v->text[i]);
                continue;
            }
            folded.font[folded.n] = v->font[i];
            format(folded.text[folded.n++], SEG_MAX, "%s%s", prefix, v->text[i]);
            prefix[0] = '\0';
        }
        *v = folded;
    }
    const char letter[] = {[FONT_B] = 'B', [FONT_I] = 'I', [FONT_R] = 'R'};
    if (v->n == 1 && v->font[0] == FONT_R) {
        fprintf(out, "\\&%s\n", v->text[0]);
        return;
    }
    if (v->n == 1) {
        fprintf(out, ".%c", letter[v->font[0]]);
    } else {
        fprintf(out, ".%c%c", letter[v->font[0]], letter[v->font[1]]);
    }
    for (size_t i = 0; i < v->n; i++) {
        put_arg(out, v->text[i]);
    }
    fputc('\n', out);
}

/* An option's head: its names, then its value's name ("-s, --servers=list"). */
static void put_head(FILE *out, const struct optdoc *d)
{
    struct segs v = {.n = 0};
    const char *last = "";
    for (size_t k = 0; k < OPTDOC_NAMES; k++) {
        if (d->name[k][0] == '\0') {
            continue;
        }
        if (v.n > 0) {
            seg_add(&v, FONT_R, ", ", 2, false);
        }
        seg_add(&v, FONT_B, d->name[k], strlen(d->name[k]), false);
        last = d->name[k];
    }
    if (d->arg != NULL) {
        bool long_name = strncmp(last, "--", 2) == 0;
        seg_add(&v, long_name ? FONT_B : FONT_R, long_name ? "=" : " ", 1, false);
        seg_syntax(&v, d->arg);
    }
    put_segs(out, &v);
}

/* Words of prose (a row's summary) on one line, a newline a space. */
static void put_prose(FILE *out, const char *text)
{
    for (const char *p = text; *p != '\0'; p++) {
        fputs(*p == '\n' ? " " : *p == '\\' ? "\\e" : (char[]){*p, '\0'}, out);
    }
}

static void put_name(FILE *out, const struct page *p)
{
    for (const char *c = p->name; *c != '\0'; c++) {
        fputs(*c == '-' ? "\\-" : (char[]){*c, '\0'}, out);
    }
    fputs(" \\- ", out);
    put_prose(out, p->row->summary);
    fputc('\n', out);
}

/* Each form of the row's usage: .SY slap, the subcommand in bold, then each word. */
static void put_synopsis(FILE *out, const struct page *p)
{
    char form[512];
    for (const char *u = p->row->usage; *u != '\0';) {
        size_t n = strcspn(u, "\n");
        format(form, sizeof(form), "%.*s", (int)n, u);
        u += n + (u[n] == '\n');
        fputs(".SY slap\n", out);
        bool first = true;
        for (char *save = NULL, *word = strtok_r(form, " ", &save); word != NULL;
             word = strtok_r(NULL, " ", &save), first = false) {
            struct segs v = {.n = 0};
            if (first) {
                seg_add(&v, FONT_B, word, strlen(word), false);
            } else {
                seg_syntax(&v, word);
            }
            put_segs(out, &v);
        }
        fputs(".YS\n", out);
    }
}

static void put_options(FILE *out, const struct page *p, const struct lines *texts)
{
    for (size_t d = 0; d < p->ndocs; d++) {
        fputs(".TP\n", out);
        put_head(out, &p->docs[d]);
        for (size_t i = 0; i < p->texts[d]->count; i++) {
            fprintf(out, "%s\n", texts->line[p->texts[d]->first + i]);
        }
    }
}

/* A line of prose with @VERSION@ filled in. */
static void put_line(FILE *out, const char *line)
{
    for (const char *at; (at = strstr(line, "@VERSION@")) != NULL; line = at + 9) {
        fprintf(out, "%.*s%s", (int)(at - line), line, SLAP_VERSION);
    }
    fprintf(out, "%s\n", line);
}

static bool write_page(const char *outdir, const struct page *p, const struct lines *texts)
{
    char path[4096], tmp[4200];
    format(path, sizeof(path), "%s/%s.1", outdir, p->name);
    format(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *out = fopen(tmp, "w");
    if (out == NULL) {
        perror(tmp);
        return false;
    }
    fprintf(out,
            ".\\\" Made by slap_man from man/%s.1.in, man/options.roff and the option rows:"
            " edit those.\n",
            p->name);
    for (size_t i = 0; i < p->prose.count; i++) {
        const char *line = p->prose.line[i];
        if (strcmp(line, ".\\\" @OPTIONS@") == 0) {
            put_options(out, p, texts);
        } else if (strcmp(line, ".\\\" @NAME@") == 0) {
            put_name(out, p);
        } else if (strcmp(line, ".\\\" @SYNOPSIS@") == 0) {
            put_synopsis(out, p);
        } else {
            put_line(out, line);
        }
    }
    bool ok = !ferror(out);
    ok = fclose(out) == 0 && ok && rename(tmp, path) == 0;
    if (!ok) {
        perror(path);
    }
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: slap_man SRCDIR OUTDIR\n");
        return 2;
    }
    static struct page pages[PAGES];
    static struct text texts[TEXTS_MAX];
    char path[4096];
    pages_from_rows(pages);
    format(path, sizeof(path), "%s/options.roff", argv[1]);
    struct lines roff;
    if (!read_lines(path, &roff)) {
        perror(path);
        return 1;
    }
    size_t ntexts = read_texts(path, &roff, texts);
    match_texts(path, pages, texts, ntexts);
    read_prose(argv[1], pages);
    int status = 0;
    if (problems > 0) {
        fprintf(stderr, "slap_man: %d problem%s: no page written\n", problems,
                problems > 1 ? "s" : "");
        status = 1;
    }
    for (size_t p = 0; p < PAGES && status == 0; p++) {
        status = write_page(argv[2], &pages[p], &roff) ? 0 : 1;
    }
    lines_free(&roff);
    for (size_t p = 0; p < PAGES; p++) {
        lines_free(&pages[p].prose);
    }
    return status;
}
