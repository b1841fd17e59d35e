/* JSON for slap's own results files: a writer, and a strict, bounded reader into a tree. */
#include "slap/base/json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing -------------------------------------------------------------------------- */

void json_writer_init(struct json_writer *w, FILE *out)
{
    memset(w, 0, sizeof(*w));
    w->out = out;
    w->first[0] = true;
}

/* The length of the valid UTF-8 sequence at p (1 to 4), or 0 when the bytes there are none
 * (a stray continuation, an overlong form, a surrogate, past U+10FFFF, cut short). */
static int utf8_length(const unsigned char *p)
{
    unsigned char c = p[0];
    if (c < 0x80) {
        return 1;
    }
    int n = c >= 0xc2 && c <= 0xdf   ? 2
            : c >= 0xe0 && c <= 0xef ? 3
            : c >= 0xf0 && c <= 0xf4 ? 4
                                     : 0;
    unsigned char lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
    unsigned char hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
    if (n > 1 && (p[1] < lo || p[1] > hi)) {
        return 0;
    }
    for (int i = 2; i < n; i++) {
        if (p[i] < 0x80 || p[i] > 0xbf) {
            return 0;
        }
    }
    return n;
}

/* A JSON string: always valid UTF-8, so that every reader takes the file. A byte that begins
 * no valid sequence (text from outside, or cut mid-character) is written as \u00XX, its value
 * kept in sight. */
static void write_escaped(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        int n = utf8_length(p);
        if (*p == '"' || *p == '\\') {
            fprintf(out, "\\%c", *p);
        } else if (*p < 0x20 || *p == 0x7f || n == 0) {
            fprintf(out, "\\u%04x", *p);
        } else {
            fwrite(p, 1, (size_t)n, out);
            p += n - 1;
        }
    }
    fputc('"', out);
}

/* The separator, the indent and the key before a value at the current depth. */
static void member_start(struct json_writer *w, const char *key)
{
    if (!w->first[w->depth]) {
        fputc(',', w->out);
    }
    w->first[w->depth] = false;
    if (w->depth > 0 && !w->compact[w->depth]) {
        fprintf(w->out, "\n%*s", 2 * w->depth, "");
    }
    if (key != NULL) {
        write_escaped(w->out, key);
        fputs(w->compact[w->depth] ? ":" : ": ", w->out);
    }
}

static void open_container(struct json_writer *w, const char *key, char bracket, bool compact)
{
    member_start(w, key);
    fputc(bracket, w->out);
    if (w->depth < JSON_MAX_DEPTH) {
        w->depth++;
    }
    w->closer[w->depth] = bracket == '{' ? '}' : ']';
    w->first[w->depth] = true;
    w->compact[w->depth] = compact || w->compact[w->depth - 1];
}

void json_open_object(struct json_writer *w, const char *key)
{
    open_container(w, key, '{', false);
}

void json_open_array(struct json_writer *w, const char *key, bool compact)
{
    open_container(w, key, '[', compact);
}

void json_close(struct json_writer *w)
{
    bool empty = w->first[w->depth];
    bool compact = w->compact[w->depth];
    if (w->depth > 0) {
        w->depth--;
    }
    if (!empty && !compact) {
        fprintf(w->out, "\n%*s", 2 * w->depth, "");
    }
    fputc(w->closer[w->depth + 1], w->out);
    if (w->depth == 0) {
        fputc('\n', w->out);
    }
}

void json_string(struct json_writer *w, const char *key, const char *value)
{
    if (value == NULL) {
        json_null(w, key);
        return;
    }
    member_start(w, key);
    write_escaped(w->out, value);
}

void json_u64(struct json_writer *w, const char *key, uint64_t value)
{
    member_start(w, key);
    fprintf(w->out, "%llu", (unsigned long long)value);
}

void json_double(struct json_writer *w, const char *key, double value)
{
    if (!isfinite(value)) {
        json_null(w, key);
        return;
    }
    char text[40];
    for (int precision = 15; precision <= 17; precision++) {
        snprintf(text, sizeof(text), "%.*g", precision, value);
        if (strtod(text, NULL) == value) {
            break;
        }
    }
    json_raw(w, key, text);
}

void json_bool(struct json_writer *w, const char *key, bool value)
{
    json_raw(w, key, value ? "true" : "false");
}

void json_null(struct json_writer *w, const char *key)
{
    json_raw(w, key, "null");
}

void json_raw(struct json_writer *w, const char *key, const char *text)
{
    member_start(w, key);
    fputs(text, w->out);
}

/* ---- reading -------------------------------------------------------------------------- */

struct json_reader {
    const char *text;
    size_t len;
    size_t pos;
    char *err;
    size_t err_len;
    bool failed;
};

/* Record the first problem, with its line and column. */
static struct json_value *parse_error(struct json_reader *r, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static struct json_value *parse_error(struct json_reader *r, const char *format, ...)
{
    if (r->failed) {
        return NULL;
    }
    size_t line = 1, column = 1;
    for (size_t i = 0; i < r->pos && i < r->len; i++) {
        line += r->text[i] == '\n';
        column = r->text[i] == '\n' ? 1 : column + 1;
    }
    int n = snprintf(r->err, r->err_len, "line %zu, column %zu: ", line, column);
    va_list args;
    va_start(args, format);
    if (n > 0 && (size_t)n < r->err_len) {
        vsnprintf(r->err + n, r->err_len - (size_t)n, format, args);
    }
    va_end(args);
    r->failed = true;
    return NULL;
}

static void skip_space(struct json_reader *r)
{
    while (r->pos < r->len && strchr(" \t\r\n", r->text[r->pos]) != NULL && r->text[r->pos]) {
        r->pos++;
    }
}

static int peek(const struct json_reader *r)
{
    return r->pos < r->len ? (unsigned char)r->text[r->pos] : -1;
}

static struct json_value *new_value(struct json_reader *r, enum json_type type)
{
    struct json_value *v = calloc(1, sizeof(*v));
    if (v == NULL) {
        return parse_error(r, "out of memory");
    }
    v->type = type;
    return v;
}

/* A literal: true, false, null. */
static struct json_value *parse_literal(struct json_reader *r)
{
    static const struct {
        const char *word;
        enum json_type type;
    } literals[] = {{"true", JSON_TRUE}, {"false", JSON_FALSE}, {"null", JSON_NULL}};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(literals); i++) {
        size_t n = strlen(literals[i].word);
        if (r->len - r->pos >= n && memcmp(r->text + r->pos, literals[i].word, n) == 0) {
            r->pos += n;
            return new_value(r, literals[i].type);
        }
    }
    return parse_error(r, "unexpected character");
}

static bool take_digits(struct json_reader *r)
{
    size_t start = r->pos;
    while (peek(r) >= '0' && peek(r) <= '9') {
        r->pos++;
    }
    return r->pos > start;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, kept as text. */
static struct json_value *parse_number(struct json_reader *r)
{
    size_t start = r->pos;
    if (peek(r) == '-') {
        r->pos++;
    }
    if (peek(r) == '0') {
        r->pos++;
    } else if (!take_digits(r)) {
        return parse_error(r, "a number needs digits");
    }
    if (peek(r) == '.') {
        r->pos++;
        if (!take_digits(r)) {
            return parse_error(r, "a number needs digits after its point");
        }
    }
    if (peek(r) == 'e' || peek(r) == 'E') {
        r->pos++;
        if (peek(r) == '+' || peek(r) == '-') {
            r->pos++;
        }
        if (!take_digits(r)) {
            return parse_error(r, "a number needs digits in its exponent");
        }
    }
    struct json_value *v = new_value(r, JSON_NUMBER);
    if (v == NULL || (v->text = strndup(r->text + start, r->pos - start)) == NULL) {
        free(v);
        return parse_error(r, "out of memory");
    }
    v->len = r->pos - start;
    return v;
}

static int hex_value(int c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Four hex digits after "\u". */
static bool read_hex4(struct json_reader *r, unsigned *code)
{
    *code = 0;
    for (int i = 0; i < 4; i++) {
        int h = hex_value(peek(r));
        if (h < 0) {
            return false;
        }
        *code = *code * 16 + (unsigned)h;
        r->pos++;
    }
    return true;
}

/* The code point of "\uXXXX" (a surrogate pair joined) as UTF-8 into out; its length, 0 if bad. */
static size_t unicode_escape(struct json_reader *r, char *out)
{
    unsigned code, low;
    if (!read_hex4(r, &code) || (code >= 0xdc00 && code <= 0xdfff)) {
        return 0;
    }
    if (code >= 0xd800 && code <= 0xdbff) {
        if (r->len - r->pos < 2 || r->text[r->pos] != '\\' || r->text[r->pos + 1] != 'u') {
            return 0;
        }
        r->pos += 2;
        if (!read_hex4(r, &low) || low < 0xdc00 || low > 0xdfff) {
            return 0;
        }
        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
    }
    if (code < 0x80) {
        out[0] = (char)code;
        return 1;
    }
    if (code < 0x800) {
        out[0] = (char)(0xc0 | code >> 6);
        out[1] = (char)(0x80 | (code & 0x3f));
        return 2;
    }
    if (code < 0x10000) {
        out[0] = (char)(0xe0 | code >> 12);
        out[1] = (char)(0x80 | ((code >> 6) & 0x3f));
        out[2] = (char)(0x80 | (code & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | code >> 18);
    out[1] = (char)(0x80 | ((code >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((code >> 6) & 0x3f));
    out[3] = (char)(0x80 | (code & 0x3f));
    return 4;
}

/* One escape after the backslash, decoded into out; its length, 0 if bad. */
static size_t escape(struct json_reader *r, char *out)
{
    static const char from[] = "\"\\/bfnrt";
    static const char to[] = "\"\\/\b\f\n\r\t";
    int c = peek(r);
    r->pos++;
    if (c == 'u') {
        return unicode_escape(r, out);
    }
    const char *at = c > 0 ? strchr(from, c) : NULL;
    if (at == NULL) {
        return 0;
    }
    out[0] = to[at - from];
    return 1;
}

/* Where the string starting at start ends (its closing quote), or len: escapes skipped. */
static size_t string_end(const struct json_reader *r, size_t start)
{
    size_t i = start;
    while (i < r->len && r->text[i] != '"') {
        i += r->text[i] == '\\' ? 2 : 1;
    }
    return i < r->len ? i : r->len;
}

/* A string after its opening quote, decoded into a buffer of its own (never longer). */
static char *parse_string_text(struct json_reader *r, size_t *out_len)
{
    size_t end = string_end(r, r->pos);
    char *buf = malloc(end - r->pos + 1);
    size_t used = 0;
    if (buf == NULL) {
        parse_error(r, "out of memory");
        return NULL;
    }
    while (r->pos < end) {
        int c = peek(r);
        if (c < 0x20) {
            break;
        }
        r->pos++;
        if (c != '\\') {
            buf[used++] = (char)c;
            continue;
        }
        size_t n = escape(r, buf + used);
        if (n == 0 || r->pos > end) {
            free(buf);
            parse_error(r, "bad escape in a string");
            return NULL;
        }
        used += n;
    }
    if (r->pos == end && end < r->len) {
        r->pos++; /* the closing quote */
        buf[used] = '\0';
        *out_len = used;
        return buf;
    }
    free(buf);
    parse_error(r, "%s",
                r->pos >= r->len ? "a string is not closed" : "a control character in a string");
    return NULL;
}

static struct json_value *parse_value(struct json_reader *r, int depth);

static struct json_value *parse_string(struct json_reader *r)
{
    r->pos++; /* the quote */
    size_t len = 0;
    char *text = parse_string_text(r, &len);
    if (text == NULL) {
        return NULL;
    }
    struct json_value *v = new_value(r, JSON_STRING);
    if (v == NULL) {
        free(text);
        return NULL;
    }
    v->text = text;
    v->len = len;
    return v;
}

/* Room for one more element (and key, and where the key ended) in container v. */
static bool grow(struct json_reader *r, struct json_value *v, size_t *cap)
{
    if (v->n < *cap) {
        return true;
    }
    size_t next = *cap == 0 ? 8 : *cap * 2;
    struct json_value **items = realloc(v->items, next * sizeof(*items));
    if (items != NULL) {
        v->items = items;
    }
    if (items != NULL && v->type == JSON_OBJECT) {
        char **keys = realloc(v->keys, next * sizeof(*keys));
        size_t *ends = keys != NULL ? realloc(v->order, next * sizeof(*ends)) : NULL;
        v->keys = keys != NULL ? keys : v->keys;
        v->order = ends != NULL ? ends : v->order;
        items = ends != NULL ? items : NULL;
    }
    if (items == NULL) {
        parse_error(r, "out of memory");
        return false;
    }
    *cap = next;
    return true;
}

/* After an element: ',' goes on, the closer ends; true when the container is done. */
static bool next_or_close(struct json_reader *r, char closer, bool *done)
{
    skip_space(r);
    if (peek(r) == ',') {
        r->pos++;
        skip_space(r);
        *done = false;
        return true;
    }
    if (peek(r) == closer) {
        r->pos++;
        *done = true;
        return true;
    }
    parse_error(r, "expected ',' or '%c'", closer);
    return false;
}

static struct json_value *parse_array(struct json_reader *r, int depth)
{
    struct json_value *v = new_value(r, JSON_ARRAY);
    size_t cap = 0;
    bool done = false;
    r->pos++;
    skip_space(r);
    if (v != NULL && peek(r) == ']') {
        r->pos++;
        return v;
    }
    while (v != NULL && !done) {
        if (!grow(r, v, &cap) || (v->items[v->n] = parse_value(r, depth + 1)) == NULL) {
            break;
        }
        v->n++;
        if (!next_or_close(r, ']', &done)) {
            break;
        }
    }
    if (!done) {
        json_free(v);
        return NULL;
    }
    return v;
}

/* Member indexes a and b of an object (whose keys are names) by name, then by index. */
static int by_name(const void *a, const void *b, void *names)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int c = strcmp(((char *const *)names)[i], ((char *const *)names)[j]);
    return c != 0 ? c : (i > j) - (i < j);
}

/* The members of object v sorted by name into v->order, which held where each name ended
 * while they were read. A name given twice is refused where its second instance ended (the
 * first such member in the document, as a scan of the names before each would find). */
static bool index_members(struct json_reader *r, struct json_value *v)
{
    size_t *ends = v->order, twice = SIZE_MAX;
    size_t *order = malloc((v->n > 0 ? v->n : 1) * sizeof(*order));
    if (order == NULL) {
        parse_error(r, "out of memory");
        return false;
    }
    for (size_t i = 0; i < v->n; i++) {
        order[i] = i;
    }
    qsort_r(order, v->n, sizeof(*order), by_name, v->keys);
    for (size_t i = 1; i < v->n; i++) {
        if (order[i] < twice && strcmp(v->keys[order[i - 1]], v->keys[order[i]]) == 0) {
            twice = order[i];
        }
    }
    v->order = order;
    if (twice != SIZE_MAX) {
        r->pos = ends[twice];
        parse_error(r, "member name '%.40s' is repeated", v->keys[twice]);
    }
    free(ends);
    return twice == SIZE_MAX;
}

/* "key": value, into member v->n of object v. */
static bool parse_member(struct json_reader *r, struct json_value *v, int depth)
{
    size_t len;
    if (peek(r) != '"') {
        parse_error(r, "expected a member name in quotes");
        return false;
    }
    r->pos++;
    char *key = parse_string_text(r, &len);
    if (key == NULL) {
        return false;
    }
    if (strlen(key) != len) {
        parse_error(r, "member name '%.40s' holds a NUL", key);
        free(key);
        return false;
    }
    v->order[v->n] = r->pos; /* where the name ended, should it be given twice */
    skip_space(r);
    if (peek(r) != ':') {
        free(key);
        parse_error(r, "expected ':' after a member name");
        return false;
    }
    r->pos++;
    skip_space(r);
    struct json_value *value = parse_value(r, depth + 1);
    if (value == NULL) {
        free(key);
        return false;
    }
    v->keys[v->n] = key;
    v->items[v->n++] = value;
    return true;
}

static struct json_value *parse_object(struct json_reader *r, int depth)
{
    struct json_value *v = new_value(r, JSON_OBJECT);
    size_t cap = 0;
    bool done = false;
    r->pos++;
    skip_space(r);
    if (v != NULL && peek(r) == '}') {
        r->pos++;
        return v;
    }
    while (v != NULL && !done) {
        if (!grow(r, v, &cap) || !parse_member(r, v, depth) || !next_or_close(r, '}', &done)) {
            break;
        }
    }
    if (!done || !index_members(r, v)) {
        json_free(v);
        return NULL;
    }
    return v;
}

static struct json_value *parse_value(struct json_reader *r, int depth)
{
    if (depth > JSON_MAX_DEPTH) {
        return parse_error(r, "nested deeper than %d", JSON_MAX_DEPTH);
    }
    skip_space(r);
    int c = peek(r);
    if (c == '{') {
        return parse_object(r, depth);
    }
    if (c == '[') {
        return parse_array(r, depth);
    }
    if (c == '"') {
        return parse_string(r);
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        return parse_number(r);
    }
    if (c < 0) {
        return parse_error(r, "the text ends where a value should be");
    }
    return parse_literal(r);
}

enum slap_status json_parse(const char *text, size_t len, struct json_value **root, char *err,
                            size_t err_len)
{
    struct json_reader r = {.text = text, .len = len, .err = err, .err_len = err_len};
    *root = NULL;
    if (len > JSON_MAX_INPUT) {
        snprintf(err, err_len, "more than %u bytes", JSON_MAX_INPUT);
        return SLAP_ERROR;
    }
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) { /* an editor's, on Windows */
        snprintf(err, err_len,
                 "line 1, column 1: a UTF-8 byte order mark (EF BB BF) begins "
                 "the text, which JSON does not take: save the file without it");
        return SLAP_ERROR;
    }
    struct json_value *v = parse_value(&r, 0);
    if (v != NULL) {
        skip_space(&r);
        if (r.pos != r.len) {
            parse_error(&r, "something follows the document");
            json_free(v);
            v = NULL;
        }
    }
    *root = v;
    return v != NULL ? SLAP_OK : SLAP_ERROR;
}

void json_free(struct json_value *v)
{
    if (v == NULL) {
        return;
    }
    for (size_t i = 0; i < v->n; i++) {
        json_free(v->items[i]);
        if (v->keys != NULL) {
            free(v->keys[i]);
        }
    }
    free(v->items);
    free(v->keys);
    free(v->order);
    free(v->text);
    free(v);
}

const struct json_value *json_get(const struct json_value *v, const char *key)
{
    if (v == NULL || v->type != JSON_OBJECT) {
        return NULL;
    }
    size_t lo = 0, hi = v->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(v->keys[v->order[mid]], key);
        if (c == 0) {
            return v->items[v->order[mid]];
        }
        lo = c < 0 ? mid + 1 : lo;
        hi = c < 0 ? hi : mid;
    }
    return NULL;
}

bool json_to_u64(const struct json_value *v, uint64_t *out)
{
    if (v == NULL || v->type != JSON_NUMBER || v->len == 0 || v->len > 20 ||
        strspn(v->text, "0123456789") != v->len) {
        return false;
    }
    errno = 0;
    unsigned long long value = strtoull(v->text, NULL, 10);
    if (errno == ERANGE) {
        return false;
    }
    *out = value;
    return true;
}

bool json_to_double(const struct json_value *v, double *out)
{
    if (v == NULL || v->type != JSON_NUMBER) {
        return false;
    }
    *out = strtod(v->text, NULL);
    return isfinite(*out);
}

const char *json_to_string(const struct json_value *v)
{
    /* "\u0000" decodes to a NUL: no caller could take such a string whole */
    return v != NULL && v->type == JSON_STRING && strlen(v->text) == v->len ? v->text : NULL;
}
