/* Bytes from outside made printable for messages: one rule, the rest as \xNN. */
#include "slap/base/quote.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Text appended at *at, cut at end - 1 (where the NUL goes). */
static void put_text(char **at, char *end, const char *text, size_t len)
{
    size_t room = end > *at ? (size_t)(end - *at) - 1 : 0;
    size_t n = len < room ? len : room;
    memcpy(*at, text, n);
    *at += n;
}

/* A character that changes how text around it shows without showing itself: a C1 control
 * (the 8-bit CSI among them), a zero-width or bidirectional mark, an isolate, a line or
 * paragraph separator, a byte order mark, an interlinear annotation, a tag. */
static bool invisible(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x200b && cp <= 0x200f) ||
           (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) || cp == 0xfeff ||
           (cp >= 0xfff9 && cp <= 0xfffb) || (cp >= 0xe0000 && cp <= 0xe007f);
}

/* The length of the well-formed UTF-8 sequence of 2 to 4 bytes at p (n bytes left) and its
 * code point, or 0: a stray continuation byte, a lead byte alone or cut short, an overlong
 * form, a surrogate, beyond U+10FFFF. */
static size_t utf8_sequence(const unsigned char *p, size_t n, uint32_t *cp)
{
    size_t len = p[0] >= 0xc2 && p[0] <= 0xdf   ? 2
                 : p[0] >= 0xe0 && p[0] <= 0xef ? 3
                 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4
                                                : 0;
    if (len == 0 || len > n) {
        return 0;
    }
    /* the second byte's range, narrower after the leads of overlongs, surrogates, > U+10FFFF */
    unsigned char lo = p[0] == 0xe0 ? 0xa0 : p[0] == 0xf0 ? 0x90 : 0x80;
    unsigned char hi = p[0] == 0xed ? 0x9f : p[0] == 0xf4 ? 0x8f : 0xbf;
    if (p[1] < lo || p[1] > hi) {
        return 0;
    }
    *cp = p[0] & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80) {
            return 0;
        }
        *cp = (*cp << 6) | (p[i] & 0x3f);
    }
    return len;
}

/* The rule every message follows: how many bytes at p (n > 0 left) are shown as they are,
 * one character; 0 when the byte at p is shown as \xNN. Printable ASCII and well-formed UTF-8
 * of a visible character are kept; a control byte (newlines too), DEL, a byte of no
 * well-formed sequence and an invisible character (invisible()) are not. */
static size_t shown_as_is(const unsigned char *p, size_t n)
{
    uint32_t cp = 0;
    if (p[0] < 0x80) {
        return p[0] >= 0x20 && p[0] < 0x7f ? 1 : 0;
    }
    size_t len = utf8_sequence(p, n, &cp);
    return len > 0 && !invisible(cp) ? len : 0;
}

bool quote_as_is(const char *bytes, size_t len)
{
    const unsigned char *p = (const unsigned char *)bytes;
    for (size_t i = 0, kept; i < len; i += kept) {
        kept = shown_as_is(p + i, len - i);
        if (kept == 0) {
            return false;
        }
    }
    return true;
}

static void put_escape(char **at, char *end, unsigned char c)
{
    static const char hex[] = "0123456789abcdef";
    char esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
    put_text(at, end, esc, 4);
}

/* n bytes by the rule at *at; with a mark, the mark and '\\' as \xNN too. */
static void put_shown(char **at, char *end, const unsigned char *p, size_t n, int mark)
{
    for (size_t i = 0; i < n;) {
        bool escaped = mark != 0 && (p[i] == (unsigned char)mark || p[i] == '\\');
        size_t kept = escaped ? 0 : shown_as_is(p + i, n - i);
        if (kept > 0 && (size_t)(end - *at) > kept) {
            put_text(at, end, (const char *)p + i, kept);
            i += kept;
        } else if (kept > 0) {
            break; /* no room for the whole character: none of it */
        } else {
            put_escape(at, end, p[i++]);
        }
    }
}

void quote_put(char **at, char *end, const char *bytes, size_t len, size_t max, char mark)
{
    size_t n = len < max ? len : max;
    put_text(at, end, &mark, 1);
    put_shown(at, end, (const unsigned char *)bytes, n, (unsigned char)mark);
    put_text(at, end, &mark, 1);
    if (len > n) {
        put_text(at, end, "...", 3);
    }
}

const char *quote_text(char buf[QUOTE_PATH_BUF], const char *text)
{
    char *at = buf;
    size_t len = strlen(text);
    size_t n = len < QUOTE_PATH_MAX ? len : QUOTE_PATH_MAX;
    put_shown(&at, buf + QUOTE_PATH_BUF, (const unsigned char *)text, n, 0);
    if (len > n) {
        put_text(&at, buf + QUOTE_PATH_BUF, "...", 3);
    }
    *at = '\0';
    return buf;
}

const char *quote_name(char buf[QUOTE_PATH_BUF], const char *name)
{
    char *at = buf;
    quote_put(&at, buf + QUOTE_PATH_BUF, name, strlen(name), QUOTE_PATH_MAX, '\'');
    *at = '\0';
    return buf;
}

void quote_controls(FILE *out, const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t n = strlen(text);
    for (size_t i = 0; i < n;) {
        size_t kept = shown_as_is(p + i, n - i);
        if (kept > 0) {
            fwrite(p + i, 1, kept, out);
            i += kept;
        } else {
            fprintf(out, "\\x%02x", p[i++]);
        }
    }
}

void quote_line(FILE *out, const char *prefix, const char *text)
{
    fputs(prefix, out);
    quote_controls(out, text);
    fputc('\n', out);
}
