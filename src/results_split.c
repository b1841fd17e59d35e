/* A results file read a piece at a time: its head (the text without the periods' elements) and
 * each period's text, so that no reader holds every period's text or tree at once. */
#include "results_split.h"

#include <stdlib.h>
#include <string.h>

#include "slap/json.h"

struct text {
    char *bytes;
    size_t len;
    size_t cap;
};

struct splitter {
    FILE *in;
    size_t line;       /* of the next byte, from 1 */
    struct text head;  /* the document without the periods' elements */
    struct text piece; /* one period's text */
    bool failed;       /* out of memory, or a piece larger than JSON_MAX_INPUT */
};

static void put(struct splitter *s, struct text *t, int c)
{
    if (t->len + 1 >= t->cap) {
        size_t cap = t->cap == 0 ? 4096 : t->cap * 2;
        char *bytes = cap <= (size_t)JSON_MAX_INPUT + 1 ? realloc(t->bytes, cap) : NULL;
        if (bytes == NULL) {
            s->failed = true;
            return;
        }
        t->bytes = bytes;
        t->cap = cap;
    }
    t->bytes[t->len++] = (char)c;
    t->bytes[t->len] = '\0';
}

static int take(struct splitter *s)
{
    int c = getc(s->in);
    s->line += c == '\n';
    return c;
}

/* The next byte that is not white space (left unread); the white space is copied into to. */
static int after_space(struct splitter *s, struct text *to)
{
    int c;
    while ((c = take(s)) == ' ' || c == '\t' || c == '\r' || c == '\n') {
        put(s, to, c);
    }
    ungetc(c, s->in);
    return c;
}

/* A scalar's bytes into to, up to the next delimiter (left unread). */
static void copy_scalar(struct splitter *s, struct text *to)
{
    int c;
    while (!s->failed && (c = getc(s->in)) != EOF) {
        if (strchr(",]} \t\r\n", c) != NULL) {
            ungetc(c, s->in);
            return;
        }
        put(s, to, c);
    }
}

/* One value's bytes into to: a string, a container (brackets counted, strings skipped) or a
 * scalar. json_parse judges the bytes later. */
static void copy_value(struct splitter *s, struct text *to)
{
    int depth = 0, c = getc(s->in);
    bool in_string = false;
    ungetc(c, s->in);
    if (c != '"' && c != '{' && c != '[') {
        copy_scalar(s, to);
        return;
    }
    do {
        if ((c = take(s)) == EOF) {
            return;
        }
        put(s, to, c);
        if (in_string && c == '\\') {
            if ((c = take(s)) != EOF) {
                put(s, to, c);
            }
        } else if (in_string || c == '"') {
            in_string = in_string ? c != '"' : true;
        } else {
            depth += c == '{' || c == '[' ? 1 : c == '}' || c == ']' ? -1 : 0;
        }
    } while (!s->failed && (in_string || depth > 0));
}

/* The rest of the file into the head as it is (json_parse says what is wrong with it). */
static void copy_rest(struct splitter *s)
{
    int c;
    while (!s->failed && (c = take(s)) != EOF) {
        put(s, &s->head, c);
    }
}

/* The elements of "periods" after its '[', each handed to each; the head keeps "[]" and the
 * elements' line breaks (its errors then say the file's lines). */
static enum slap_status split_periods(struct splitter *s, results_split_each each, void *arg)
{
    for (size_t index = 0; !s->failed; index++) {
        int c = after_space(s, &s->head);
        if (c == ']') {
            put(s, &s->head, take(s));
            return SLAP_OK;
        }
        size_t line = s->line;
        s->piece.len = 0;
        copy_value(s, &s->piece);
        if (s->failed || each(arg, s->piece.bytes != NULL ? s->piece.bytes : "", s->piece.len,
                              index, line) != SLAP_OK) {
            return SLAP_ERROR;
        }
        for (; line < s->line; line++) {
            put(s, &s->head, '\n');
        }
        c = after_space(s, &s->head);
        if (c == ',') {
            (void)take(s);
        } else if (c != ']') {
            copy_rest(s);
            return SLAP_OK;
        }
    }
    return SLAP_ERROR;
}

/* The top-level object's members, "periods" split off. */
static enum slap_status split_members(struct splitter *s, results_split_each each, void *arg)
{
    if (after_space(s, &s->head) != '{') {
        return SLAP_OK;
    }
    put(s, &s->head, take(s));
    while (!s->failed) {
        int c = after_space(s, &s->head);
        if (c == '}' || c != '"') {
            return SLAP_OK;
        }
        size_t key = s->head.len;
        copy_value(s, &s->head);
        bool periods = s->head.len - key == 9 && memcmp(s->head.bytes + key, "\"periods\"", 9) == 0;
        if (after_space(s, &s->head) != ':') {
            return SLAP_OK;
        }
        put(s, &s->head, take(s));
        if (after_space(s, &s->head) == '[' && periods) {
            put(s, &s->head, take(s));
            if (split_periods(s, each, arg) != SLAP_OK) {
                return SLAP_ERROR;
            }
        } else {
            copy_value(s, &s->head);
        }
        if (after_space(s, &s->head) != ',') {
            return SLAP_OK;
        }
        put(s, &s->head, take(s));
    }
    return SLAP_ERROR;
}

enum slap_status results_split(FILE *in, char **head, size_t *head_len, results_split_each each,
                               void *arg, char *err, size_t err_len)
{
    struct splitter s = {.in = in, .line = 1};
    enum slap_status st = split_members(&s, each, arg);
    if (st == SLAP_OK) {
        copy_rest(&s);
    }
    free(s.piece.bytes);
    if (s.failed || ferror(in)) {
        snprintf(err, err_len, "%s", ferror(in) ? "a read failed" : "out of memory, or too large");
        st = SLAP_ERROR;
    }
    if (st != SLAP_OK) {
        free(s.head.bytes);
        return SLAP_ERROR;
    }
    *head = s.head.bytes != NULL ? s.head.bytes : strdup("");
    *head_len = s.head.len;
    return *head != NULL ? SLAP_OK : SLAP_ERROR;
}
