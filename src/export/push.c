/*
 * --push: the Pushgateway's URL and the run's group in it, and a small blocking HTTP/1.1
 * client that PUTs one body and reads the status line. Every step has a deadline: the
 * connect, the send and the answer share one timeout; nothing the server sends is printed
 * unless made printable first.
 */
#include "slap/export/push.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "slap/base/units.h"
#include "slap/base/version.h"

#define PUSH_ANSWER_MAX 4096 /* of the answer, what is read: the status line and a bit */
#define PUSH_SHOWN_MAX 160   /* of it, what a message shows */
#define PUSH_SLICE_MS 50     /* a wait looks for a stop this often */

static bool (*stop_check)(void);

void push_set_stop_check(bool (*check)(void))
{
    stop_check = check;
}

static bool stop_asked(void)
{
    return stop_check != NULL && stop_check();
}

/* The parts of http://HOST[:PORT][/PATH]; why is set when there is a problem. */
struct url_parts {
    char host[PUSH_HOST_MAX];
    char port[8];
    char authority[PUSH_HOST_MAX + 10];
    const char *path; /* into the URL: "" when there is none */
    const char *why;
};

static bool host_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '-';
}

/* A port of 1 to 65535 in digits. */
static bool port_ok(const char *s, size_t n)
{
    uint16_t port;
    return units_parse_port(s, n, &port) && port >= 1;
}

/* An IPv6 address, with a %zone or not (fe80::1%eth0): what connect can be given. */
static bool ipv6_ok(const char *host)
{
    char addr[PUSH_HOST_MAX];
    struct in6_addr bits;
    size_t len = strcspn(host, "%");
    snprintf(addr, sizeof(addr), "%.*s", (int)len, host);
    for (const char *z = host + len + (host[len] == '%'); host[len] == '%' && *z != '\0'; z++) {
        if (!host_char(*z) && *z != '_') {
            return false;
        }
    }
    return inet_pton(AF_INET6, addr, &bits) == 1 && (host[len] != '%' || host[len + 1] != '\0');
}

/* HOST or [V6], then :PORT or nothing, up to the path. */
static void parse_authority(struct url_parts *p, const char *a, size_t n)
{
    const char *colon;
    size_t host_len;
    p->why = NULL;
    if (n == 0 || n >= sizeof(p->authority)) {
        p->why = n == 0 ? "no host" : "the host is too long";
        return;
    }
    if (memchr(a, '@', n) != NULL) {
        p->why = "credentials (USER:PASSWORD@) are not supported in the URL";
        return;
    }
    memcpy(p->authority, a, n);
    p->authority[n] = '\0';
    if (a[0] == '[') {
        const char *close = memchr(a, ']', n);
        if (close == NULL || close == a + 1) {
            p->why = "an IPv6 address is written [ADDRESS]";
            return;
        }
        memcpy(p->host, a + 1, (size_t)(close - a - 1));
        p->host[close - a - 1] = '\0';
        if (!ipv6_ok(p->host)) {
            p->why = "the host in [ ] is not an IPv6 address";
            return;
        }
        colon = close + 1 < a + n ? close + 1 : NULL;
        if (colon != NULL && *colon != ':') {
            p->why = "only :PORT may follow the host";
            return;
        }
    } else {
        colon = memchr(a, ':', n);
        host_len = colon != NULL ? (size_t)(colon - a) : n;
        for (size_t i = 0; i < host_len; i++) {
            if (!host_char(a[i])) {
                p->why = "the host is not a name or an address";
                return;
            }
        }
        if (host_len == 0) {
            p->why = "no host";
            return;
        }
        memcpy(p->host, a, host_len);
        p->host[host_len] = '\0';
    }
    if (colon == NULL) {
        snprintf(p->port, sizeof(p->port), "80");
    } else if (!port_ok(colon + 1, (size_t)(a + n - colon - 1))) {
        p->why = "the port is not a number from 1 to 65535";
    } else {
        snprintf(p->port, sizeof(p->port), "%.*s", (int)(a + n - colon - 1), colon + 1);
    }
}

static void parse_url(const char *url, struct url_parts *p)
{
    static const char scheme[] = "http://";
    memset(p, 0, sizeof(*p));
    if (strlen(url) >= PUSH_URL_MAX) {
        p->why = "the URL is too long";
        return;
    }
    if (strncmp(url, "https://", 8) == 0) {
        p->why = "https is not supported: use http:// (or a local TLS proxy)";
        return;
    }
    if (strncmp(url, scheme, sizeof(scheme) - 1) != 0) {
        p->why = "the URL must start http://";
        return;
    }
    const char *a = url + sizeof(scheme) - 1;
    const char *slash = strchr(a, '/');
    parse_authority(p, a, slash != NULL ? (size_t)(slash - a) : strlen(a));
    p->path = slash != NULL ? slash : "";
    for (const char *c = p->path; p->why == NULL && *c != '\0'; c++) {
        if ((unsigned char)*c <= ' ' || (unsigned char)*c >= 0x7f || *c == '?' || *c == '#') {
            p->why = "the path holds a space, a control character, ? or #";
        }
    }
}

const char *push_url_redacted(const char *url, char *out, size_t len)
{
    const char *host = strstr(url, "://");
    host = host != NULL ? host + 3 : url;
    size_t authority = strcspn(host, "/");
    const char *at = memchr(host, '@', authority);
    if (at == NULL) {
        snprintf(out, len, "%s", url);
    } else {
        snprintf(out, len, "%.*s***%s", (int)(host - url), url, at);
    }
    return out;
}

const char *push_url_problem(const char *url)
{
    struct url_parts p;
    parse_url(url, &p);
    return p.why;
}

/* Characters a label may keep as they are in a path segment. */
static bool plain_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '-' || c == '_' || c == '~';
}

/* base64url without padding (RFC 4648 section 5), as the Pushgateway reads label@base64. */
static void base64url(const char *in, char *out, size_t out_len)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    size_t n = strlen(in), o = 0;
    for (size_t i = 0; i < n && o + 5 < out_len; i += 3) {
        uint32_t v = (uint32_t)(unsigned char)in[i] << 16;
        v |= i + 1 < n ? (uint32_t)(unsigned char)in[i + 1] << 8 : 0;
        v |= i + 2 < n ? (uint32_t)(unsigned char)in[i + 2] : 0;
        out[o++] = digits[(v >> 18) & 63];
        out[o++] = digits[(v >> 12) & 63];
        if (i + 1 < n) {
            out[o++] = digits[(v >> 6) & 63];
        }
        if (i + 2 < n) {
            out[o++] = digits[v & 63];
        }
    }
    out[o] = '\0';
}

/* The instance's path segments: instance/LABEL, or instance@base64/ENCODED. */
static void instance_segment(const char *label, char *out, size_t out_len)
{
    bool plain = strcmp(label, ".") != 0 && strcmp(label, "..") != 0 && label[0] != '\0';
    for (const char *c = label; plain && *c != '\0'; c++) {
        plain = plain_char(*c);
    }
    if (plain) {
        snprintf(out, out_len, "instance/%s", label);
        return;
    }
    char encoded[2 * PUSH_URL_MAX];
    base64url(label, encoded, sizeof(encoded));
    snprintf(out, out_len, "instance@base64/%s", encoded[0] != '\0' ? encoded : "=");
}

enum slap_status push_target_init(struct push_target *t, const char *url, const char *label)
{
    struct url_parts p;
    char instance[2 * PUSH_URL_MAX + 32];
    memset(t, 0, sizeof(*t));
    parse_url(url, &p);
    if (p.why != NULL) {
        return SLAP_ERROR;
    }
    snprintf(t->url, sizeof(t->url), "%s", url);
    snprintf(t->host, sizeof(t->host), "%s", p.host);
    snprintf(t->port, sizeof(t->port), "%s", p.port);
    snprintf(t->authority, sizeof(t->authority), "%s", p.authority);
    if (strncmp(p.path, "/metrics/job/", 13) == 0) {
        snprintf(t->path, sizeof(t->path), "%s", p.path);
        return SLAP_OK;
    }
    size_t prefix = strlen(p.path);
    while (prefix > 0 && p.path[prefix - 1] == '/') {
        prefix--;
    }
    instance_segment(label, instance, sizeof(instance));
    snprintf(t->path, sizeof(t->path), "%.*s/metrics/job/%s/%s", (int)prefix, p.path, PUSH_JOB,
             instance);
    return SLAP_OK;
}

/* How long is left until deadline, in ms for poll (at least 1 while any is left; 0: none). */
static int ms_left(uint64_t deadline)
{
    uint64_t now = slap_now_ns();
    if (now >= deadline) {
        return 0;
    }
    uint64_t ms = (deadline - now + SLAP_NS_PER_MS - 1) / SLAP_NS_PER_MS;
    return ms > 60000 ? 60000 : (int)ms;
}

/* Wait for events on fd until the deadline: true when they came; false with ETIMEDOUT, or
 * EINTR when a stop was asked meanwhile. */
static bool wait_fd(int fd, short events, uint64_t deadline)
{
    struct pollfd pfd = {.fd = fd, .events = events};
    for (int ms; (ms = ms_left(deadline)) > 0;) {
        if (stop_asked()) {
            errno = EINTR;
            return false;
        }
        int n = poll(&pfd, 1, ms < PUSH_SLICE_MS ? ms : PUSH_SLICE_MS);
        if (n > 0) {
            return true;
        }
        if (n < 0 && errno != EINTR) {
            return false;
        }
    }
    errno = ETIMEDOUT;
    return false;
}

/* A name being resolved by a thread of its own, so that a resolver that never answers costs
 * the push its deadline, not the run. Whoever of the two leaves last frees it. */
struct resolution {
    pthread_mutex_t lock;
    pthread_cond_t cond; /* on CLOCK_MONOTONIC */
    char host[PUSH_HOST_MAX];
    char port[8];
    struct addrinfo *list;
    int rc;
    bool done;      /* the resolver's answer is in */
    bool abandoned; /* the push went on without it: the thread frees everything */
};

static void resolution_free(struct resolution *res)
{
    if (res->rc == 0 && res->list != NULL) {
        freeaddrinfo(res->list);
    }
    pthread_cond_destroy(&res->cond);
    pthread_mutex_destroy(&res->lock);
    free(res);
}

static void *resolve_main(void *arg)
{
    struct resolution *res = arg;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *list = NULL;
    int rc = getaddrinfo(res->host, res->port, &hints, &list);
    pthread_mutex_lock(&res->lock);
    res->list = list;
    res->rc = rc;
    res->done = true;
    bool abandoned = res->abandoned;
    pthread_cond_signal(&res->cond);
    pthread_mutex_unlock(&res->lock);
    if (abandoned) {
        resolution_free(res);
    }
    return NULL;
}

/* A new resolution of t's host, its thread started; NULL when it could not be. */
static struct resolution *resolution_start(const struct push_target *t)
{
    struct resolution *res = calloc(1, sizeof(*res));
    pthread_condattr_t ca;
    pthread_attr_t attr;
    pthread_t thread;
    if (res == NULL) {
        return NULL;
    }
    snprintf(res->host, sizeof(res->host), "%s", t->host);
    snprintf(res->port, sizeof(res->port), "%s", t->port);
    pthread_mutex_init(&res->lock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&res->cond, &ca);
    pthread_condattr_destroy(&ca);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&thread, &attr, resolve_main, res);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        resolution_free(res);
        return NULL;
    }
    return res;
}

/* t's host resolved before the deadline (a stop ends the wait too): its addresses, or NULL
 * with err said. A numeric address needs no resolver. */
static struct addrinfo *resolve(const struct push_target *t, uint64_t deadline, char *err,
                                size_t err_len)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV};
    struct addrinfo *list = NULL;
    if (getaddrinfo(t->host, t->port, &hints, &list) == 0) {
        return list;
    }
    struct resolution *res = resolution_start(t);
    if (res == NULL) {
        snprintf(err, err_len, "cannot resolve %s: %s", t->host, strerror(errno));
        return NULL;
    }
    pthread_mutex_lock(&res->lock);
    bool stopped = false;
    while (!res->done && ms_left(deadline) > 0 && !(stopped = stop_asked())) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += PUSH_SLICE_MS * 1000000L;
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&res->cond, &res->lock, &until);
    }
    if (!res->done) {
        res->abandoned = true; /* the thread frees it when its resolver answers */
        pthread_mutex_unlock(&res->lock);
        snprintf(err, err_len, "cannot resolve %s: %s", t->host,
                 stopped ? "interrupted by a stop signal" : "no answer within the timeout");
        return NULL;
    }
    pthread_mutex_unlock(&res->lock);
    if (res->rc != 0) {
        snprintf(err, err_len, "cannot resolve %s: %s", t->host, gai_strerror(res->rc));
        resolution_free(res);
        return NULL;
    }
    list = res->list;
    res->list = NULL;
    resolution_free(res);
    return list;
}

/* A non-blocking socket connected to one of the host's addresses, or -1 with err said. */
static int connect_to(const struct push_target *t, uint64_t deadline, char *err, size_t err_len)
{
    struct addrinfo *list = resolve(t, deadline, err, err_len);
    if (list == NULL) {
        return -1;
    }
    int fd = -1, why = ETIMEDOUT;
    for (struct addrinfo *ai = list; ai != NULL && fd < 0 && ms_left(deadline) > 0;
         ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            why = errno;
            continue;
        }
        int soerr = 0;
        socklen_t len = sizeof(soerr);
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 &&
            (errno != EINPROGRESS || !wait_fd(fd, POLLOUT, deadline) ||
             getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0 || soerr != 0)) {
            why = soerr != 0 ? soerr : errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(list);
    if (fd < 0) {
        snprintf(err, err_len, "cannot connect to %s: %s", t->authority, strerror(why));
    }
    return fd;
}

/* Send all of buf before the deadline. */
static bool send_all(int fd, const char *buf, size_t len, uint64_t deadline)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n > 0) {
            buf += n;
            len -= (size_t)n;
        } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
            return false;
        } else if (n < 0 && errno == EAGAIN && !wait_fd(fd, POLLOUT, deadline)) {
            return false;
        }
    }
    return true;
}

/* Read the answer until it is closed, PUSH_ANSWER_MAX bytes came, or the deadline: how many
 * bytes (the status line needs no more). */
static size_t read_answer(int fd, char *buf, size_t cap, uint64_t deadline, bool *timed_out)
{
    size_t got = 0;
    *timed_out = false;
    while (got < cap) {
        if (!wait_fd(fd, POLLIN, deadline)) {
            *timed_out = true;
            break;
        }
        ssize_t n = recv(fd, buf + got, cap - got, 0);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            break;
        }
        got += n > 0 ? (size_t)n : 0;
        if (memmem(buf, got, "\r\n\r\n", 4) != NULL && got > 12) {
            /* headers are in; a short wait more for the start of the body */
            uint64_t soon = slap_now_ns() + 50 * SLAP_NS_PER_MS;
            deadline = soon < deadline ? soon : deadline;
        }
    }
    return got;
}

/* What a message may show of the server's bytes: printable ASCII, the rest as '?', line
 * breaks as " / ", at most PUSH_SHOWN_MAX characters. */
static void printable(const char *in, size_t len, char *out, size_t out_len)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 4 < out_len && o < PUSH_SHOWN_MAX; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c == '\r') {
            continue;
        }
        if (c == '\n') {
            o += (size_t)snprintf(out + o, out_len - o, " / ");
        } else {
            out[o++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
        }
    }
    while (o > 0 && (out[o - 1] == ' ' || out[o - 1] == '/')) {
        o--; /* a last line break, spaces */
    }
    out[o] = '\0';
}

/* The status of the answer: SLAP_OK when 2xx; else err says what came. */
static enum slap_status judge_answer(const char *buf, size_t got, char *err, size_t err_len)
{
    char shown[PUSH_SHOWN_MAX + 8];
    int status = 0;
    bool http = got >= 13 && (memcmp(buf, "HTTP/1.0 ", 9) == 0 || memcmp(buf, "HTTP/1.1 ", 9) == 0);
    for (int i = 9; http && i < 12; i++) {
        http = buf[i] >= '0' && buf[i] <= '9';
        status = status * 10 + (buf[i] - '0');
    }
    http = http && (buf[12] == ' ' || buf[12] == '\r' || buf[12] == '\n'); /* three digits */
    if (!http) {
        printable(buf, got, shown, sizeof(shown));
        snprintf(err, err_len, "not an HTTP answer: \"%s\"", shown);
        return SLAP_ERROR;
    }
    if (status >= 200 && status < 300) {
        return SLAP_OK;
    }
    const char *body = memmem(buf, got, "\r\n\r\n", 4);
    const char *eol = memchr(buf, '\n', got);
    size_t line = eol != NULL ? (size_t)(eol - buf) : got;
    char reason[PUSH_SHOWN_MAX + 8];
    printable(buf + 13, line > 13 ? line - 13 : 0, reason, sizeof(reason)); /* after "500 " */
    printable(body != NULL ? body + 4 : "", body != NULL ? (size_t)(buf + got - body - 4) : 0,
              shown, sizeof(shown));
    snprintf(err, err_len, "the server answered HTTP %d%s%s%s%s", status,
             reason[0] != '\0' ? " " : "", reason, shown[0] != '\0' ? ": " : "", shown);
    return SLAP_ERROR;
}

enum slap_status push_put(const struct push_target *t, const char *body, size_t len,
                          uint64_t timeout_ns, char *err, size_t err_len)
{
    uint64_t deadline = slap_now_ns() + timeout_ns;
    char head[sizeof(t->path) + 512];
    char answer[PUSH_ANSWER_MAX];
    bool timed_out;
    int fd = connect_to(t, deadline, err, err_len);
    if (fd < 0) {
        return SLAP_ERROR;
    }
    int n = snprintf(head, sizeof(head),
                     "PUT %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: slap/%s\r\n"
                     "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
                     "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                     t->path, t->authority, SLAP_VERSION, len);
    enum slap_status st = SLAP_ERROR;
    if (!send_all(fd, head, (size_t)n, deadline) || !send_all(fd, body, len, deadline)) {
        snprintf(err, err_len, "sending to %s failed: %s", t->authority,
                 errno == EINTR           ? "interrupted by a stop signal"
                 : ms_left(deadline) == 0 ? "no progress within the timeout"
                                          : strerror(errno));
        goto out;
    }
    size_t got = read_answer(fd, answer, sizeof(answer), deadline, &timed_out);
    if (got == 0) {
        snprintf(err, err_len, "%s %s", t->authority,
                 timed_out && errno == EINTR ? "had not answered when a stop signal came"
                 : timed_out                 ? "did not answer within the timeout"
                                             : "closed without an answer");
        goto out;
    }
    st = judge_answer(answer, got, err, err_len);
out:
    close(fd);
    return st;
}
