/* A results file read a piece at a time: its head (the text without the periods' elements) and
 * each period's text, handed out one at a time, so that no reader holds every period's text or
 * tree at once (nor one file's while it reads another's). */
#include "results_split.h"

#include <stdlib.h>
#include <string.h>

#include "slap/base/json.h"

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
    int control;       /* a control byte found (never in JSON text): the read stopped; -1 */
    bool endless;      /* more than REST_MAX bytes after where the document's shape ended */
    unsigned schema;   /* the top-level "schema" member's number, once copied; 0: not seen */
};

#define REST_MAX 65536 /* bytes read past the end of the document's shape, for json_parse */

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

/* The next byte; EOF at the end, and at a control byte (a stream of NULs such as /dev/zero is
 * no results file: nothing more is read). */
static int take(struct splitter *s)
{
    int c = getc_unlocked(s->in); /* one thread reads the stream */
    if (c != EOF && c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
        s->control = c;
        s->failed = true;
        return EOF;
    }
    s->line += c == '\n';
    return c;
}

/* c taken back, to be taken again. */
static void untake(struct splitter *s, int c)
{
    if (c != EOF) {
        s->line -= c == '\n';
        ungetc(c, s->in);
    }
}

/* The next byte that is not white space (left unread); the white space is copied into to. */
static int after_space(struct splitter *s, struct text *to)
{
    int c;
    while ((c = take(s)) == ' ' || c == '\t' || c == '\r' || c == '\n') {
        put(s, to, c);
    }
    untake(s, c);
    return c;
}

/* A scalar's bytes into to, up to the next delimiter (left unread). */
static void copy_scalar(struct splitter *s, struct text *to)
{
    int c;
    while (!s->failed && (c = take(s)) != EOF) {
        if (strchr(",]} \t\r\n", c) != NULL) {
            untake(s, c);
            return;
        }
        put(s, to, c);
    }
}

/* One value's bytes into to: a string, a container (brackets counted, strings skipped) or a
 * scalar. json_parse judges the bytes later. */
static void copy_value(struct splitter *s, struct text *to)
{
    int depth = 0, c = take(s);
    bool in_string = false;
    untake(s, c);
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

/* The rest of the file into the head as it is (json_parse says what is wrong with it): after a
 * document, white space. More than REST_MAX bytes is no results file (`yes` is endless). */
static void copy_rest(struct splitter *s)
{
    int c;
    size_t copied = 0;
    while (!s->failed && (c = take(s)) != EOF) {
        if (copied++ == REST_MAX) {
            s->endless = true;
            s->failed = true;
            return;
        }
        put(s, &s->head, c);
    }
}

/* Where the splitter is in the document:
 *
 *   START -> MEMBER -> (a "periods" array) -> ELEMENT <-> AFTER_ELEMENT
 *              ^                                 | ']'
 *              +-------- AFTER_MEMBER <----------+
 *   anything not that shape, or the end of the object: the rest copied into the head, DONE.
 */
enum split_phase {
    SPLIT_START,
    SPLIT_MEMBER,
    SPLIT_ELEMENT,
    SPLIT_AFTER_ELEMENT,
    SPLIT_AFTER_MEMBER,
    SPLIT_DONE
};

struct results_split {
    struct splitter s;
    enum split_phase phase;
    size_t index;        /* of the period in the periods array */
    size_t element_line; /* where the period last handed out began */
};

enum slap_status results_split_open(FILE *in, struct results_split **out)
{
    *out = calloc(1, sizeof(**out));
    if (*out == NULL) {
        return SLAP_ERROR;
    }
    (*out)->s.in = in;
    (*out)->s.line = 1;
    (*out)->s.control = -1;
    return SLAP_OK;
}

void results_split_close(struct results_split *sp)
{
    if (sp != NULL) {
        free(sp->s.head.bytes);
        free(sp->s.piece.bytes);
    }
    free(sp);
}

/* text[0..len) as a whole number of up to 4 digits; 0 when it is not one. */
static unsigned small_number(const char *text, size_t len)
{
    unsigned n = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9' || len > 4) {
            return 0;
        }
        n = n * 10 + (unsigned)(text[i] - '0');
    }
    return n;
}

/* At a member's name: its value copied, or the periods array entered; the next phase. */
static enum split_phase split_member(struct splitter *s)
{
    int c = after_space(s, &s->head);
    if (c == '}' || c != '"') {
        return SPLIT_DONE;
    }
    size_t key = s->head.len;
    copy_value(s, &s->head);
    bool periods = s->head.len - key == 9 && memcmp(s->head.bytes + key, "\"periods\"", 9) == 0;
    bool schema = s->head.len - key == 8 && memcmp(s->head.bytes + key, "\"schema\"", 8) == 0;
    if (after_space(s, &s->head) != ':') {
        return SPLIT_DONE;
    }
    put(s, &s->head, take(s));
    if (after_space(s, &s->head) == '[' && periods) {
        put(s, &s->head, take(s));
        return SPLIT_ELEMENT;
    }
    size_t value = s->head.len;
    copy_value(s, &s->head);
    if (schema) {
        s->schema = small_number(s->head.bytes + value, s->head.len - value);
    }
    return SPLIT_AFTER_MEMBER;
}

/* After a period handed out: its line breaks kept in the head, then ',' or ']'. */
static enum split_phase split_after_element(struct results_split *sp)
{
    struct splitter *s = &sp->s;
    for (size_t line = sp->element_line; line < s->line; line++) {
        put(s, &s->head, '\n');
    }
    int c = after_space(s, &s->head);
    sp->index++;
    if (c == ',') {
        (void)take(s);
    } else if (c != ']') {
        return SPLIT_DONE;
    }
    return SPLIT_ELEMENT;
}

/* One step of the phases; SPLIT_ELEMENT's that found a period sets *found. */
static enum split_phase split_step(struct results_split *sp, bool *found)
{
    struct splitter *s = &sp->s;
    switch (sp->phase) {
    case SPLIT_START:
        if (after_space(s, &s->head) != '{') {
            return SPLIT_DONE;
        }
        put(s, &s->head, take(s));
        return SPLIT_MEMBER;
    case SPLIT_MEMBER:
        sp->index = 0;
        return split_member(s);
    case SPLIT_ELEMENT:
        if (after_space(s, &s->head) == ']') {
            put(s, &s->head, take(s));
            return SPLIT_AFTER_MEMBER;
        }
        sp->element_line = s->line;
        s->piece.len = 0;
        copy_value(s, &s->piece);
        *found = true;
        return SPLIT_AFTER_ELEMENT;
    case SPLIT_AFTER_ELEMENT:
        return split_after_element(sp);
    case SPLIT_AFTER_MEMBER:
        if (after_space(s, &s->head) != ',') {
            return SPLIT_DONE;
        }
        put(s, &s->head, take(s));
        return SPLIT_MEMBER;
    case SPLIT_DONE:
    default:
        return SPLIT_DONE;
    }
}

enum slap_status results_split_next(struct results_split *sp, struct results_split_piece *piece,
                                    char *err, size_t err_len)
{
    struct splitter *s = &sp->s;
    bool found = false;
    while (!s->failed && !found && sp->phase != SPLIT_DONE) {
        sp->phase = split_step(sp, &found);
    }
    if (!s->failed && !found) {
        copy_rest(s);
    }
    if (s->failed || ferror(s->in)) {
        if (s->control >= 0) {
            snprintf(err, err_len, "line %zu: a control byte (0x%02x): not JSON text", s->line,
                     s->control);
        } else if (s->endless) {
            snprintf(err, err_len,
                     "line %zu: more than %d bytes after the document's shape "
                     "ended: not a results document",
                     s->line, REST_MAX);
        } else {
            snprintf(err, err_len, "%s",
                     ferror(s->in) ? "a read failed" : "out of memory, or too large");
        }
        sp->phase = SPLIT_DONE;
        s->failed = true;
        return SLAP_ERROR;
    }
    if (!found) {
        return SLAP_AGAIN;
    }
    piece->text = s->piece.bytes != NULL ? s->piece.bytes : "";
    piece->len = s->piece.len;
    piece->index = sp->index;
    piece->line = sp->element_line;
    return SLAP_OK;
}

unsigned results_split_schema(const struct results_split *sp)
{
    return sp->s.schema;
}

const char *results_split_head(const struct results_split *sp, size_t *len)
{
    *len = sp->s.head.len;
    return sp->s.head.bytes != NULL ? sp->s.head.bytes : "";
}
