/* A server's own `stats`, read over a connection of its own before and after a run. */
#include "slap/net/server_stats.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "slap/net/auth.h"

#define STATS_ANSWER_MAX (64u * 1024u) /* memcached's answer is about 4 KiB */
#define STATS_SHOWN 60                 /* bytes of a refusal shown in a note */
/* 2^64: the largest figure taken */
#define STATS_NUMBER_MAX 18446744073709551616.0

static const char stats_request[] = "stats\r\n";
/* The binary protocol's: a request header of opcode STAT, no key, no body. */
#define BINARY_HEADER 24
#define BINARY_REQUEST 0x80
#define BINARY_ANSWER 0x81
#define BINARY_STATS 0x10
#define BINARY_SASL_AUTH 0x21
static const unsigned char binary_stats_request[BINARY_HEADER] = {BINARY_REQUEST, BINARY_STATS};

/* The first line of a server's answer, printable ASCII only, cut short. */
static void printable_line(const char *text, size_t len, char *out, size_t out_len)
{
    size_t n = 0;
    for (size_t i = 0;
         i < len && text[i] != '\r' && text[i] != '\n' && n + 4 < out_len && n < STATS_SHOWN; i++) {
        unsigned char c = (unsigned char)text[i];
        out[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    out[n] = '\0';
}

/* A figure's value, all of it a number from 0 to 2^64 (memcached's counters are 64 bits, its
 * times seconds): strtod's "nan", "inf", "-1", "12x" and "1\0x" are none. value holds len
 * bytes and a NUL after them. */
static bool stats_number(const char *value, size_t len, double *number)
{
    char *end;
    double v = strtod(value, &end);
    if (end == value || end != value + len || !(v >= 0 && v <= STATS_NUMBER_MAX)) {
        return false;
    }
    *number = v + 0.0; /* -0 read as 0 */
    return true;
}

/* The value of a STAT line's field into out, when it is one of the fields kept; false, with
 * why, when it is one but its value is no number. */
static bool keep_field(struct server_stats *out, const char *name, size_t name_len,
                       const char *value, size_t value_len, uint32_t *seen, char *why,
                       size_t why_len)
{
    char shown[STATS_SHOWN + 8];
    uint32_t bit = 1;
    double *field = NULL;
#define SERVER_STATS_MATCH(name_of)                                                                \
    if (name_len == sizeof(#name_of) - 1 && memcmp(name, #name_of, name_len) == 0) {               \
        field = &out->name_of;                                                                     \
        *seen |= bit;                                                                              \
    }                                                                                              \
    bit <<= 1;
    SERVER_STATS_FIELDS(SERVER_STATS_MATCH)
#undef SERVER_STATS_MATCH
    if (name_len == sizeof("threads") - 1 && memcmp(name, "threads", name_len) == 0) {
        field = &out->threads; /* optional: not every server says it */
    }
    if (field != NULL && !stats_number(value, value_len, field)) {
        printable_line(value, value_len, shown, sizeof(shown));
        snprintf(why, why_len, "its stats' %.*s is not a number from 0 to 2^64 (it said '%s')",
                 (int)name_len, name, shown);
        return false;
    }
    return true;
}

static uint32_t all_fields(void)
{
    uint32_t all = 0, bit = 1;
#define SERVER_STATS_BIT(field)                                                                    \
    all |= bit;                                                                                    \
    bit <<= 1;
    SERVER_STATS_FIELDS(SERVER_STATS_BIT)
#undef SERVER_STATS_BIT
    return all;
}

/* A STAT line's verdict: one (kept or not), none (not a STAT line), or a bad figure. */
enum stat_line_kind { STAT_LINE, STAT_LINE_NOT, STAT_LINE_BAD };

/* "STAT name value" (value up to 63 bytes): the field is kept when it is one of ours. */
static enum stat_line_kind stat_line(const char *line, size_t len, struct server_stats *out,
                                     uint32_t *seen, char *why, size_t why_len)
{
    char value[64];
    if (len < 5 || memcmp(line, "STAT ", 5) != 0) {
        return STAT_LINE_NOT;
    }
    const char *name = line + 5;
    const char *space = memchr(name, ' ', len - 5);
    if (space == NULL) {
        return STAT_LINE_NOT;
    }
    size_t value_len = len - (size_t)(space + 1 - line);
    if (value_len >= sizeof(value)) {
        return STAT_LINE; /* a long value (a version string): not one of ours */
    }
    memcpy(value, space + 1, value_len);
    value[value_len] = '\0';
    return keep_field(out, name, (size_t)(space - name), value, value_len, seen, why, why_len)
               ? STAT_LINE
               : STAT_LINE_BAD;
}

enum slap_status server_stats_parse(const char *text, size_t len, struct server_stats *out,
                                    char *why, size_t why_len)
{
    char shown[STATS_SHOWN + 8];
    uint32_t seen = 0;
    size_t pos = 0;
    memset(out, 0, sizeof(*out));
    while (pos < len) {
        const char *eol = memchr(text + pos, '\n', len - pos);
        if (eol == NULL) {
            return SLAP_AGAIN;
        }
        size_t line_len = (size_t)(eol - (text + pos));
        line_len -= line_len > 0 && text[pos + line_len - 1] == '\r';
        if (line_len == 3 && memcmp(text + pos, "END", 3) == 0) {
            if (seen == all_fields()) {
                return SLAP_OK;
            }
            snprintf(why, why_len, "its stats lack cmd_get, bytes_read or another figure");
            return SLAP_ERROR;
        }
        enum stat_line_kind kind = stat_line(text + pos, line_len, out, &seen, why, why_len);
        if (kind == STAT_LINE_BAD) {
            return SLAP_ERROR;
        }
        if (kind == STAT_LINE_NOT) {
            printable_line(text + pos, len - pos, shown, sizeof(shown));
            snprintf(why, why_len, "it did not answer stats (it said '%s')", shown);
            return SLAP_ERROR;
        }
        pos = (size_t)(eol - text) + 1;
    }
    return SLAP_AGAIN;
}

/* A big-endian field of a binary header. */
static uint32_t be(const unsigned char *p, size_t bytes)
{
    uint32_t v = 0;
    for (size_t i = 0; i < bytes; i++) {
        v = v << 8 | p[i];
    }
    return v;
}

enum slap_status server_stats_parse_binary(const char *text, size_t len, struct server_stats *out,
                                           char *why, size_t why_len)
{
    char shown[STATS_SHOWN + 8];
    uint32_t seen = 0;
    size_t pos = 0;
    memset(out, 0, sizeof(*out));
    while (len - pos >= BINARY_HEADER) {
        const unsigned char *h = (const unsigned char *)text + pos;
        size_t key = be(h + 2, 2), extras = h[4], status = be(h + 6, 2), body = be(h + 8, 4);
        if (h[0] != BINARY_ANSWER || key + extras > body ||
            (h[1] != BINARY_STATS && h[1] != BINARY_SASL_AUTH)) {
            printable_line(text + pos, len - pos, shown, sizeof(shown));
            snprintf(why, why_len, "it did not answer stats in binary (it said '%s')", shown);
            return SLAP_ERROR;
        }
        if (len - pos - BINARY_HEADER < body) {
            return SLAP_AGAIN;
        }
        const char *k = text + pos + BINARY_HEADER + extras;
        if (status != 0) { /* its words: printable, cut short */
            printable_line(k + key, body - extras - key, shown, sizeof(shown));
            snprintf(why, why_len, "its %s was refused (status 0x%02zx: '%s')",
                     h[1] == BINARY_SASL_AUTH ? "SASL authentication" : "stats", status, shown);
            return SLAP_ERROR;
        }
        pos += BINARY_HEADER + body;
        if (h[1] == BINARY_SASL_AUTH) {
            continue; /* authenticated: the stats follow */
        }
        if (key == 0) { /* the end */
            if (seen == all_fields()) {
                return SLAP_OK;
            }
            snprintf(why, why_len, "its stats lack cmd_get, bytes_read or another figure");
            return SLAP_ERROR;
        }
        char value[64];
        size_t value_len = body - extras - key;
        if (value_len < sizeof(value)) { /* a long value (a version string): not one of ours */
            memcpy(value, k + key, value_len);
            value[value_len] = '\0';
            if (!keep_field(out, k, key, value, value_len, &seen, why, why_len)) {
                return SLAP_ERROR;
            }
        }
    }
    return SLAP_AGAIN;
}

/* Wait for events on fd until the deadline; false when it passed or poll failed. */
bool server_stats_wait(int fd, short events, uint64_t deadline_ns)
{
    uint64_t now = slap_now_ns();
    if (now >= deadline_ns) {
        return false;
    }
    struct pollfd p = {.fd = fd, .events = events};
    int ms = (int)((deadline_ns - now + SLAP_NS_PER_MS - 1) / SLAP_NS_PER_MS);
    return poll(&p, 1, ms) == 1;
}

/* A non-blocking connect to srv, finished before the deadline; -1 with why on failure. */
int server_stats_connect(const struct server *srv, uint64_t deadline_ns, char *why, size_t why_len)
{
    int fd = socket(srv->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int error = 0;
    socklen_t error_len = sizeof(error);
    if (fd < 0) {
        snprintf(why, why_len, "cannot open a socket: %s", strerror(errno));
        return -1;
    }
    if (connect(fd, (const struct sockaddr *)&srv->addr, srv->addr_len) != 0 &&
        errno != EINPROGRESS) {
        error = errno;
    } else if (!server_stats_wait(fd, POLLOUT, deadline_ns)) {
        error = ETIMEDOUT;
    } else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &error_len) != 0) {
        error = errno;
    }
    if (error != 0) {
        snprintf(why, why_len, "cannot connect for stats: %s", strerror(error));
        close(fd);
        return -1;
    }
    return fd;
}

/* With memcached's ASCII authentication, the answer begins with the authentication's: the
 * length of its line when it is STORED, 0 when it is not whole yet, -1 (why said) when it is a
 * refusal. */
static long authenticated(const char *buf, size_t used, char *why, size_t why_len)
{
    char shown[STATS_SHOWN + 8];
    const char *eol = memchr(buf, '\n', used);
    if (eol == NULL) {
        return 0;
    }
    if (eol - buf == 7 && memcmp(buf, "STORED\r", 7) == 0) {
        return 8;
    }
    printable_line(buf, used, shown, sizeof(shown));
    snprintf(why, why_len, "its ASCII authentication was refused (it said '%s')", shown);
    return -1;
}

/* Send the request (after the authentication's, with --auth) and read the answer into buf
 * until END, a refusal or the deadline. */
static enum slap_status exchange(int fd, uint64_t deadline_ns, const struct conn_auth *auth,
                                 bool binary, char *buf, struct server_stats *out, char *why,
                                 size_t why_len)
{
    size_t used = 0, request = 0;
    long skip = -1; /* bytes of the ASCII authentication's answer, once it is known */
    if (auth != NULL && auth->kind == (binary ? AUTH_SASL_PLAIN : AUTH_ASCII)) {
        request = auth_request(auth, buf);
    }
    if (binary || request == 0) {
        skip = 0; /* none, or a binary answer to SASL_AUTH: the parser's */
    }
    if (binary) {
        memcpy(buf + request, binary_stats_request, sizeof(binary_stats_request));
        request += sizeof(binary_stats_request);
    } else {
        memcpy(buf + request, stats_request, sizeof(stats_request) - 1);
        request += sizeof(stats_request) - 1;
    }
    if (send(fd, buf, request, MSG_NOSIGNAL) != (ssize_t)request) {
        snprintf(why, why_len, "cannot send stats: %s", strerror(errno));
        return SLAP_ERROR;
    }
    for (;;) {
        if (!server_stats_wait(fd, POLLIN, deadline_ns)) {
            snprintf(why, why_len, "no answer to stats in time");
            return SLAP_ERROR;
        }
        ssize_t n = recv(fd, buf + used, STATS_ANSWER_MAX - used, 0);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            snprintf(why, why_len, "it closed the connection instead of answering stats");
            return SLAP_ERROR;
        }
        used += n > 0 ? (size_t)n : 0;
        if (skip < 0 && (skip = authenticated(buf, used, why, why_len)) <= 0) {
            if (skip < 0) {
                return SLAP_ERROR;
            }
            if (used == STATS_ANSWER_MAX) {
                snprintf(why, why_len,
                         "its answer to the authentication ran past %u bytes "
                         "without an end of line",
                         STATS_ANSWER_MAX);
                return SLAP_ERROR;
            }
            skip = -1;
            continue;
        }
        enum slap_status st =
            binary ? server_stats_parse_binary(buf, used, out, why, why_len)
                   : server_stats_parse(buf + skip, used - (size_t)skip, out, why, why_len);
        if (st != SLAP_AGAIN) {
            return st;
        }
        if (used == STATS_ANSWER_MAX) {
            snprintf(why, why_len, "its answer to stats is too long");
            return SLAP_ERROR;
        }
    }
}

enum slap_status server_stats_read(const struct server *srv, uint64_t timeout_ns,
                                   const struct conn_auth *auth, bool binary,
                                   struct server_stats *out, char *why, size_t why_len)
{
    uint64_t deadline = slap_now_ns() + timeout_ns;
    char *buf = malloc(STATS_ANSWER_MAX);
    enum slap_status st = SLAP_ERROR;
    int fd = -1;
    if (buf == NULL) {
        snprintf(why, why_len, "out of memory");
        goto out;
    }
    fd = server_stats_connect(srv, deadline, why, why_len);
    if (fd >= 0) {
        st = exchange(fd, deadline, auth, binary, buf, out, why, why_len);
    }
out:
    if (fd >= 0) {
        close(fd);
    }
    free(buf);
    return st;
}

void server_stats_delta(const struct server_stats_pair *p, struct server_stats *delta)
{
#define SERVER_STATS_SUB(field) delta->field = p->after.field - p->before.field;
    SERVER_STATS_FIELDS(SERVER_STATS_SUB)
#undef SERVER_STATS_SUB
}

double server_stats_preload_evictions(const struct server_stats_pair *pairs, size_t n)
{
    double sum = 0;
    for (size_t i = 0; pairs != NULL && i < n; i++) {
        sum += pairs[i].ok && pairs[i].preload_known ? pairs[i].preload_evictions : 0;
    }
    return sum;
}
