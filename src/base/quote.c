/* Bytes from outside made printable for messages: quoted, anything unprintable as \xNN. */
#include "slap/base/quote.h"

#include <string.h>

/* Text appended at *at, cut at end - 1 (where the NUL goes). */
static void put_text(char **at, char *end, const char *text, size_t len)
{
    size_t room = end > *at ? (size_t)(end - *at) - 1 : 0;
    size_t n = len < room ? len : room;
    memcpy(*at, text, n);
    *at += n;
}

void quote_put(char **at, char *end, const char *bytes, size_t len, size_t max, char mark)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = len < max ? len : max;
    put_text(at, end, &mark, 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)bytes[i];
        char esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
        if (c >= 0x20 && c < 0x7f && c != (unsigned char)mark && c != '\\') {
            put_text(at, end, (const char *)&bytes[i], 1);
        } else {
            put_text(at, end, esc, 4);
        }
    }
    put_text(at, end, &mark, 1);
    if (len > n) {
        put_text(at, end, "...", 3);
    }
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
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++) {
        if (*p < 0x20 || *p == 0x7f) {
            fprintf(out, "\\x%02x", *p);
        } else {
            fputc(*p, out);
        }
    }
}
