/* twemproxy's own stats (its stats port, JSON): its errors and queues, and its backends.
 *
 * twemproxy keeps three copies of its counters. Its event loop counts into the current one;
 * at the end of a turn of the loop that counted something, when its stats thread has taken
 * the last hand-over, the current copy becomes the shadow and counting starts afresh. The
 * stats thread adds the shadow into the sum it reports only when it wakes: once per stats
 * interval (nutcracker -i, 30 s by default) or at a read of its stats port. So a read reports
 * the counters as of the hand-over before it, which under load is the first turn after the
 * previous read or interval: a read after a run without one in between held the run's first
 * request or so. A read, a turn of the loop (proxy_stats_turn), and a read again give the
 * counters up to that turn.
 */
#include "slap/net/proxy_stats.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "slap/base/json.h"
#include "slap/net/server_stats.h"

#define PROXY_STATS_ANSWER_MAX (1024u * 1024u)

/* A number member of obj into *sum, added; absent members add nothing. */
static void add_member(const struct json_value *obj, const char *name, double *sum)
{
    double v;
    if (json_to_double(json_get(obj, name), &v) && v >= 0) {
        *sum += v;
    }
}

static void add_backend(struct proxy_stats *out, const char *name, const struct json_value *srv)
{
#define PROXY_STATS_ADD(field) add_member(srv, #field, &out->field);
    PROXY_STATS_FIELDS(PROXY_STATS_ADD)
#undef PROXY_STATS_ADD
    bool printable = strlen(name) < SERVER_NAME_MAX;
    for (const char *c = name; printable && *c != '\0'; c++) {
        printable = *c > 0x20 && *c < 0x7f && *c != ',';
    }
    if (printable && out->nbackends < PROXY_STATS_BACKENDS) {
        snprintf(out->backends[out->nbackends++], SERVER_NAME_MAX, "%s", name);
    }
}

static void add_pool(struct proxy_stats *out, const struct json_value *pool)
{
    add_member(pool, "client_err", &out->client_err);
    add_member(pool, "server_ejects", &out->server_ejects);
    add_member(pool, "forward_error", &out->forward_error);
    for (size_t i = 0; i < pool->n; i++) {
        const struct json_value *v = pool->items[i];
        if (v->type == JSON_OBJECT && json_get(v, "server_connections") != NULL) {
            add_backend(out, pool->keys[i], v);
        }
    }
}

enum slap_status proxy_stats_parse(const char *text, size_t len, struct proxy_stats *out, char *why,
                                   size_t why_len)
{
    struct json_value *root = NULL;
    char err[128];
    memset(out, 0, sizeof(*out));
    if (json_parse(text, len, &root, err, sizeof(err)) != SLAP_OK) {
        snprintf(why, why_len, "its stats are not JSON (%s)", err);
        return SLAP_ERROR;
    }
    uint32_t pools = 0;
    for (size_t i = 0; root->type == JSON_OBJECT && i < root->n; i++) {
        const struct json_value *v = root->items[i];
        if (v->type == JSON_OBJECT && json_get(v, "client_connections") != NULL) {
            add_pool(out, v);
            pools++;
        }
    }
    json_free(root);
    if (pools == 0) {
        snprintf(why, why_len, "its stats name no pool: not twemproxy's stats port");
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

enum slap_status proxy_stats_read(const struct server *srv, uint64_t timeout_ns,
                                  struct proxy_stats *out, char *why, size_t why_len)
{
    uint64_t deadline = slap_now_ns() + timeout_ns;
    char *buf = malloc(PROXY_STATS_ANSWER_MAX);
    enum slap_status st = SLAP_ERROR;
    size_t used = 0;
    int fd = buf != NULL ? server_stats_connect(srv, deadline, why, why_len) : -1;
    if (buf == NULL) {
        snprintf(why, why_len, "out of memory");
    }
    while (fd >= 0) { /* twemproxy writes its document and closes */
        if (!server_stats_wait(fd, POLLIN, deadline)) {
            snprintf(why, why_len, "no stats in time");
            break;
        }
        ssize_t n = recv(fd, buf + used, PROXY_STATS_ANSWER_MAX - used, 0);
        if (n == 0) {
            st = proxy_stats_parse(buf, used, out, why, why_len);
            break;
        }
        if ((n < 0 && errno != EAGAIN && errno != EINTR) ||
            used + (size_t)(n > 0 ? n : 0) == PROXY_STATS_ANSWER_MAX) {
            snprintf(why, why_len, n < 0 ? "cannot read its stats" : "its stats are too long");
            break;
        }
        used += n > 0 ? (size_t)n : 0;
    }
    if (fd >= 0) {
        close(fd);
    }
    free(buf);
    return st;
}

enum slap_status proxy_stats_turn(const struct server *srv, uint64_t deadline_ns, char *why,
                                  size_t why_len)
{
    static const char quit[] = "quit\r\n";
    char sink[512];
    enum slap_status st = SLAP_ERROR;
    int fd = server_stats_connect(srv, deadline_ns, why, why_len);
    if (fd >= 0 && send(fd, quit, sizeof(quit) - 1, MSG_NOSIGNAL) != (ssize_t)sizeof(quit) - 1) {
        snprintf(why, why_len, "cannot send quit: %s", strerror(errno));
        close(fd);
        fd = -1;
    }
    while (fd >= 0) { /* read until the close: the loop took the connection and the quit */
        if (!server_stats_wait(fd, POLLIN, deadline_ns)) {
            snprintf(why, why_len, "it did not close the connection after quit in time");
            break;
        }
        ssize_t n = recv(fd, sink, sizeof(sink), 0);
        if (n == 0 || (n < 0 && errno == ECONNRESET)) {
            st = SLAP_OK;
            break;
        }
        if (n < 0 && errno != EAGAIN && errno != EINTR) {
            snprintf(why, why_len, "cannot read after quit: %s", strerror(errno));
            break;
        }
    }
    if (fd >= 0) {
        close(fd);
    }
    return st;
}

double proxy_stats_answers(const struct proxy_stats *p)
{
    return p->responses + p->server_err + p->server_timedout + p->server_eof + p->forward_error;
}

double proxy_stats_coverage(const struct proxy_stats *delta, uint64_t answered)
{
    double counted = proxy_stats_answers(delta);
    if (answered == 0 || counted >= (double)answered) {
        return 1.0;
    }
    return counted > 0 ? counted / (double)answered : 0.0;
}

bool proxy_stats_backend_list(const struct proxy_stats *p, char *out, size_t out_len)
{
    size_t used = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < p->nbackends; i++) {
        int n = snprintf(out + used, out_len - used, "%s%s", i > 0 ? "," : "", p->backends[i]);
        if (n < 0 || (size_t)n >= out_len - used) {
            return false;
        }
        used += (size_t)n;
    }
    return p->nbackends > 0;
}
