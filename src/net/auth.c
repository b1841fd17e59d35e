/* --auth's credentials, from a file or the environment (never the command line). */
#include "slap/net/auth.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slap/base/quote.h"

/* text (len bytes) into out as a field: not empty, no NUL, no line break, within room. */
static enum slap_status take_field(char *out, const char *text, size_t len, const char *what,
                                   const char *where, char *why, size_t why_len)
{
    if (len == 0 || len >= AUTH_FIELD_MAX || memchr(text, '\0', len) != NULL ||
        memchr(text, '\n', len) != NULL || memchr(text, '\r', len) != NULL) {
        snprintf(why, why_len, "%s: the %s %s", where, what,
                 len == 0                          ? "is empty"
                 : len >= AUTH_FIELD_MAX           ? "is longer than 255 bytes"
                 : memchr(text, '\0', len) != NULL ? "holds a NUL byte"
                                                   : "is not one line of text");
        return SLAP_ERROR;
    }
    memcpy(out, text, len);
    out[len] = '\0';
    return SLAP_OK;
}

static enum slap_status from_env(struct conn_auth *a, char *why, size_t why_len)
{
    const char *user = getenv("SLAP_AUTH_USER"), *password = getenv("SLAP_AUTH_PASSWORD");
    if (user == NULL || password == NULL) {
        snprintf(why, why_len, "--auth env: %s is not set",
                 user == NULL ? "SLAP_AUTH_USER" : "SLAP_AUTH_PASSWORD");
        return SLAP_ERROR;
    }
    if (take_field(a->user, user, strlen(user), "user name", "SLAP_AUTH_USER", why, why_len) !=
        SLAP_OK) {
        return SLAP_ERROR;
    }
    return take_field(a->password, password, strlen(password), "password", "SLAP_AUTH_PASSWORD",
                      why, why_len);
}

static enum slap_status from_file(struct conn_auth *a, const char *path, char *why, size_t why_len)
{
    char where[QUOTE_PATH_BUF], line[2 * AUTH_FIELD_MAX + 8];
    quote_name(where, path);
    /* not blocking: a FIFO with no writer, or a device, is refused, not waited on */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, why_len, "--auth %s: %s", where,
                 fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0) {
            close(fd);
        }
        return SLAP_ERROR;
    }
    ssize_t got = read(fd, line, sizeof(line) - 1);
    close(fd);
    if (got < 0) {
        snprintf(why, why_len, "--auth %s: %s", where, strerror(errno));
        return SLAP_ERROR;
    }
    size_t len = (size_t)got;
    line[len] = '\0';
    const char *newline = memchr(line, '\n', len); /* not strcspn: a NUL is no end of line */
    size_t end = newline != NULL ? (size_t)(newline - line) : len;
    if (end == len && len == sizeof(line) - 1) {
        snprintf(why, why_len,
                 "--auth %s: the first line is longer than a user name and a "
                 "password may be",
                 where);
        return SLAP_ERROR;
    }
    if (end > 0 && line[end - 1] == '\r') {
        end--;
    }
    const char *colon = memchr(line, ':', end);
    if (colon == NULL) {
        snprintf(why, why_len, "--auth %s: the first line is not USER:PASSWORD", where);
        return SLAP_ERROR;
    }
    char what[QUOTE_PATH_BUF + 16];
    snprintf(what, sizeof(what), "--auth %s", where);
    if (take_field(a->user, line, (size_t)(colon - line), "user name", what, why, why_len) !=
        SLAP_OK) {
        return SLAP_ERROR;
    }
    return take_field(a->password, colon + 1, (size_t)(line + end - colon - 1), "password", what,
                      why, why_len);
}

enum slap_status auth_read(struct conn_auth *a, const char *source, char *why, size_t why_len)
{
    enum slap_status st =
        strcmp(source, "env") == 0 ? from_env(a, why, why_len) : from_file(a, source, why, why_len);
    if (st == SLAP_OK && a->kind == AUTH_ASCII && strchr(a->user, ' ') != NULL) {
        snprintf(why, why_len,
                 "--auth: memcached's ASCII authentication takes no space in the "
                 "user name");
        return SLAP_ERROR;
    }
    return st;
}

static void put16(unsigned char *p, size_t v)
{
    p[0] = (unsigned char)(v >> 8);
    p[1] = (unsigned char)v;
}

static void put32(unsigned char *p, size_t v)
{
    put16(p, v >> 16);
    put16(p + 2, v & 0xffff);
}

size_t auth_request(const struct conn_auth *a, char *buf)
{
    size_t user = strlen(a->user), password = strlen(a->password);
    if (a->kind == AUTH_ASCII) { /* memcached -Y: a set whose data is "USER PASSWORD" */
        return (size_t)snprintf(buf, AUTH_REQUEST_MAX, "set slap-auth 0 0 %zu\r\n%s %s\r\n",
                                user + 1 + password, a->user, a->password);
    }
    /* binary SASL_AUTH (0x21): key the mechanism, value "\0USER\0PASSWORD" */
    static const char mech[] = "PLAIN";
    size_t key = sizeof(mech) - 1, value = 1 + user + 1 + password;
    unsigned char *h = (unsigned char *)buf;
    memset(h, 0, 24);
    h[0] = 0x80;
    h[1] = 0x21;
    put16(h + 2, key);
    put32(h + 8, key + value);
    char *at = buf + 24;
    memcpy(at, mech, key);
    at += key;
    *at++ = '\0';
    memcpy(at, a->user, user);
    at += user;
    *at++ = '\0';
    memcpy(at, a->password, password);
    return 24 + key + value;
}

/* The binary answer's body length (its header's bytes 8 to 11). */
static size_t binary_body(const unsigned char *h)
{
    return (size_t)h[8] << 24 | (size_t)h[9] << 16 | (size_t)h[10] << 8 | h[11];
}

/* Is the answer whole, or can no more come (the buffer full)? */
static bool answer_whole(enum auth_kind kind, const char *buf, size_t len, size_t cap)
{
    const unsigned char *h = (const unsigned char *)buf;
    if (len >= cap) {
        return true;
    }
    if (kind == AUTH_ASCII) {
        return memchr(buf, '\n', len) != NULL;
    }
    if (len > 0 && h[0] != 0x81) {
        return true; /* no binary answer: judged as it is */
    }
    return len >= 24 && (len >= 24 + binary_body(h) || 24 + binary_body(h) > cap);
}

enum auth_answer auth_answer_judge(enum auth_kind kind, const char *buf, size_t len, size_t cap,
                                   char *why, size_t why_len)
{
    const unsigned char *h = (const unsigned char *)buf;
    char said[AUTH_SHOWN * 4 + 8], *at = said;
    const char *text = buf;
    size_t shown = len;
    if (!answer_whole(kind, buf, len, cap)) {
        return AUTH_ANSWER_MORE;
    }
    const char *name = kind == AUTH_ASCII ? "ASCII" : "SASL PLAIN";
    if (kind == AUTH_ASCII) {
        const char *end = memchr(buf, '\n', len);
        if (end == NULL) { /* the buffer filled without an end of line */
            quote_put(&at, said + sizeof(said), buf, len, AUTH_SHOWN, '"');
            *at = '\0';
            snprintf(why, why_len,
                     "authentication (%s): the server's answer ran past %zu bytes "
                     "without an end of line: %s",
                     name, cap, said);
            return AUTH_ANSWER_REFUSED;
        }
        shown = (size_t)(end - buf) + 1;
        if (shown == 8 && memcmp(buf, "STORED\r\n", 8) == 0 && shown == len) {
            return AUTH_ANSWER_OK;
        }
        shown -= shown >= 2 && buf[shown - 2] == '\r' ? 2 : 1;
    } else if (len >= 24 && h[0] == 0x81) {
        size_t body = binary_body(h);
        unsigned status = (unsigned)h[6] << 8 | h[7];
        if (h[1] == 0x21 && status == 0 && len == 24 + body) {
            return AUTH_ANSWER_OK;
        }
        if (h[1] == 0x21) {
            text = buf + 24;
            shown = body < len - 24 ? body : len - 24;
        }
    }
    quote_put(&at, said + sizeof(said), text, shown, AUTH_SHOWN, '"');
    *at = '\0';
    snprintf(why, why_len, "authentication (%s) refused: the server said %s", name, said);
    return AUTH_ANSWER_REFUSED;
}
