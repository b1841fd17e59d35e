/* The server list: parsed and mapped key to server by libmemcached, resolved once. */
#include "slap/net/servers.h"

#include <errno.h>
#include <libmemcached-1.0/memcached.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#include "slap/base/common.h"
#include "slap/base/quote.h"
#include "slap/base/units.h"

#define SERVERS_PROBE_NS (1ULL * SLAP_NS_PER_SEC) /* a connect after a failed flush_all */

static enum slap_status resolve(struct server *srv, const char *host, unsigned port, char *err,
                                size_t err_len)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    char service[16];

    char bare[SERVER_NAME_MAX];
    size_t len = strlen(host);
    if (len >= 2 && host[0] == '[' && host[len - 1] == ']' && len < sizeof(bare)) {
        memcpy(bare, host + 1, len - 2); /* [::1] -> ::1 */
        bare[len - 2] = '\0';
        host = bare;
    }
    snprintf(service, sizeof(service), "%u", port);
    int rc = getaddrinfo(host, service, &hints, &res);
    if (rc != 0) {
        snprintf(err, err_len, "cannot resolve server '%s': %s", srv->name, gai_strerror(rc));
        return SLAP_ERROR;
    }
    memcpy(&srv->addr, res->ai_addr, res->ai_addrlen);
    srv->addr_len = res->ai_addrlen;
    freeaddrinfo(res);
    return SLAP_OK;
}

/* A path, as memcached's -s: a unix socket. */
static enum slap_status unix_socket(struct server *srv, const char *path, char *err, size_t err_len)
{
    struct sockaddr_un *sun = (struct sockaddr_un *)&srv->addr;
    snprintf(srv->name, sizeof(srv->name), "%s", path);
    if (strlen(path) >= sizeof(sun->sun_path)) {
        char shown[QUOTE_PATH_BUF];
        snprintf(err, err_len, "unix socket path too long: %s", quote_name(shown, path));
        return SLAP_ERROR;
    }
    memset(sun, 0, sizeof(*sun));
    sun->sun_family = AF_UNIX;
    memcpy(sun->sun_path, path, strlen(path) + 1);
    srv->addr_len = (socklen_t)sizeof(*sun);
    return SLAP_OK;
}

static enum slap_status fill_servers(struct server_list *list, memcached_st *memc, char *err,
                                     size_t err_len)
{
    list->count = memcached_server_count(memc);
    list->items = calloc(list->count, sizeof(*list->items));
    if (list->items == NULL) {
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    for (uint32_t i = 0; i < list->count; i++) {
        const memcached_instance_st *inst = memcached_server_instance_by_position(memc, i);
        const char *host = memcached_server_name(inst);
        unsigned port = memcached_server_port(inst);
        struct server *srv = &list->items[i];

        if (host[0] == '/') {
            if (unix_socket(srv, host, err, err_len) != SLAP_OK) {
                return SLAP_ERROR;
            }
            continue;
        }
        snprintf(srv->name, sizeof(srv->name), "%s:%u", host, port);
        snprintf(srv->host, sizeof(srv->host), "%s", host);
        size_t hl = strlen(srv->host);
        if (hl >= 2 && srv->host[0] == '[' && srv->host[hl - 1] == ']') {
            memmove(srv->host, srv->host + 1, hl - 2);
            srv->host[hl - 2] = '\0';
        }
        if (host[0] == '\0' || port == 0) {
            snprintf(err, err_len, "bad server '%s'", srv->name);
            return SLAP_ERROR;
        }
        if (resolve(srv, host, port, err, err_len) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

/* ---- the list's syntax, checked before libmemcached sees it ---------------------------- */

#define ENTRY_SHOWN 60 /* bytes of a bad entry quoted in a message */

/* A bad entry: "'ENTRY': why", the entry quoted by quote.h's rule, cut short. */
static enum slap_status entry_error(const char *entry, size_t len, char *err, size_t err_len,
                                    const char *why)
{
    char shown[ENTRY_SHOWN * 4 + 8];
    char *at = shown;
    quote_put(&at, shown + sizeof(shown), entry, len, ENTRY_SHOWN, '\'');
    *at = '\0';
    snprintf(err, err_len, "%s: %s", shown, why);
    return SLAP_ERROR;
}

/* A port: 1 to 65535, digits only. */
static bool port_ok(const char *p, size_t len)
{
    uint16_t port;
    return units_parse_port(p, len, &port) && port >= 1;
}

/* A host name or address: something, no blanks or control bytes, at most a DNS name's length. */
static const char *host_problem(const char *h, size_t len)
{
    if (len == 0) {
        return "the host is empty";
    }
    if (len > SERVERS_HOST_MAX) {
        return "the host is longer than 253 bytes";
    }
    for (size_t i = 0; i < len; i++) {
        if ((unsigned char)h[i] <= ' ' || (unsigned char)h[i] >= 0x7f) {
            return "the host has a blank or a byte that is not printable";
        }
    }
    return NULL;
}

/* "[v6]" or "[v6]:port". */
static enum slap_status check_bracketed(const char *e, size_t len, char *err, size_t err_len)
{
    const char *close = memchr(e, ']', len);
    if (close == NULL) {
        return entry_error(e, len, err, err_len, "no ']' closes the IPv6 address");
    }
    const char *problem = host_problem(e + 1, (size_t)(close - e) - 1);
    size_t rest = len - (size_t)(close - e) - 1;
    if (problem != NULL) {
        return entry_error(e, len, err, err_len, problem);
    }
    if (rest > 0 && (close[1] != ':' || !port_ok(close + 2, rest - 1))) {
        return entry_error(e, len, err, err_len,
                           "after ']' only ':PORT' may follow, a port from 1 to 65535");
    }
    return SLAP_OK;
}

/* "host" or "host:port"; two colons or more outside brackets are an IPv6 address, unless a
 * dot comes before the first (an IPv4 address or a name, with something after its port). */
static enum slap_status check_host_port(const char *e, size_t len, char *err, size_t err_len)
{
    const char *colon = memchr(e, ':', len);
    size_t host_len = colon != NULL ? (size_t)(colon - e) : len;
    if (colon != NULL && memchr(colon + 1, ':', len - host_len - 1) != NULL) {
        if (memchr(e, '.', host_len) == NULL) {
            return entry_error(e, len, err, err_len,
                               "write an IPv6 address in brackets, e.g. [::1]:11211");
        }
        return entry_error(e, len, err, err_len, "nothing may follow the port");
    }
    const char *problem = host_problem(e, host_len);
    if (problem != NULL) {
        return entry_error(e, len, err, err_len, problem);
    }
    if (colon != NULL && !port_ok(colon + 1, len - host_len - 1)) {
        return entry_error(e, len, err, err_len, "the port is not a number from 1 to 65535");
    }
    return SLAP_OK;
}

static enum slap_status check_entry(const char *e, size_t len, struct servers_shape *shape,
                                    char *err, size_t err_len)
{
    if (len == 0) {
        snprintf(err, err_len, "entry %u is empty (two commas, or one at an end)",
                 shape->count + 1);
        return SLAP_ERROR;
    }
    shape->count++;
    if (e[0] == '/') {
        shape->unix_sockets++;
        if (!quote_as_is(e, len)) { /* its name is in every message and report, as a host's */
            return entry_error(e, len, err, err_len,
                               "a unix socket path has a control byte or a byte of no UTF-8 "
                               "character");
        }
        return len <= SERVERS_PATH_MAX
                   ? SLAP_OK
                   : entry_error(e, len, err, err_len, "a unix socket path is at most 107 bytes");
    }
    if (e[0] == '[') {
        return check_bracketed(e, len, err, err_len);
    }
    return check_host_port(e, len, err, err_len);
}

enum slap_status servers_check_list(const char *text, struct servers_shape *shape, char *err,
                                    size_t err_len)
{
    memset(shape, 0, sizeof(*shape));
    for (const char *entry = text;;) {
        size_t len = strcspn(entry, ",");
        if (check_entry(entry, len, shape, err, err_len) != SLAP_OK) {
            return SLAP_ERROR;
        }
        if (entry[len] == '\0') {
            return SLAP_OK;
        }
        entry += len + 1;
    }
}

enum slap_status servers_open(struct server_list *list, const char *text, char *err, size_t err_len)
{
    struct servers_shape shape;
    char shown[QUOTE_PATH_BUF];
    memset(list, 0, sizeof(*list));
    if (servers_check_list(text, &shape, err, err_len) != SLAP_OK) {
        return SLAP_ERROR; /* libmemcached's parser would guess, or overflow on long entries */
    }
    memcached_server_list_st parsed = memcached_servers_parse(text);
    if (parsed == NULL || memcached_server_list_count(parsed) == 0) {
        snprintf(err, err_len, "cannot parse server list %s", quote_name(shown, text));
        goto error;
    }
    memcached_st *memc = memcached_create(NULL);
    list->memc = memc;
    if (memc == NULL || memcached_server_push(memc, parsed) != MEMCACHED_SUCCESS) {
        snprintf(err, err_len, "cannot use server list %s", quote_name(shown, text));
        goto error;
    }
    memcached_server_list_free(parsed);
    parsed = NULL;
    if (fill_servers(list, memc, err, err_len) != SLAP_OK) {
        goto error;
    }
    return SLAP_OK;

error:
    if (parsed != NULL) {
        memcached_server_list_free(parsed);
    }
    servers_close(list);
    return SLAP_ERROR;
}

void servers_close(struct server_list *list)
{
    ketama_free(&list->ketama);
    if (list->memc != NULL) {
        memcached_free(list->memc);
    }
    free(list->items);
    memset(list, 0, sizeof(*list));
}

uint32_t servers_pick(const struct server_list *list, const char *key, size_t key_len)
{
    if (list->count <= 1) {
        return 0;
    }
    if (list->ketama.npoints > 0) {
        uint32_t hash =
            memcached_generate_hash_value(key, key_len, (memcached_hash_t)list->key_hash);
        return ketama_pick(&list->ketama, hash);
    }
    return memcached_generate_hash(list->memc, key, key_len);
}

static const memcached_hash_t hash_kinds[] = {
    [HASH_DEFAULT] = MEMCACHED_HASH_DEFAULT,   [HASH_MD5] = MEMCACHED_HASH_MD5,
    [HASH_CRC] = MEMCACHED_HASH_CRC,           [HASH_FNV1_64] = MEMCACHED_HASH_FNV1_64,
    [HASH_FNV1A_64] = MEMCACHED_HASH_FNV1A_64, [HASH_FNV1_32] = MEMCACHED_HASH_FNV1_32,
    [HASH_FNV1A_32] = MEMCACHED_HASH_FNV1A_32, [HASH_HSIEH] = MEMCACHED_HASH_HSIEH,
    [HASH_MURMUR] = MEMCACHED_HASH_MURMUR,     [HASH_JENKINS] = MEMCACHED_HASH_JENKINS,
    [HASH_MURMUR3] = MEMCACHED_HASH_MURMUR3,
};

/* slap's ketama: the continuum from each server's point name, keys hashed with --hash. */
static enum slap_status configure_ketama(struct server_list *list, enum server_hash hash, char *err,
                                         size_t err_len)
{
    char(*names)[KETAMA_NAME_MAX] = calloc(list->count, sizeof(*names));
    const char **pointers = calloc(list->count, sizeof(*pointers));
    enum slap_status status = SLAP_ERROR;
    if (names == NULL || pointers == NULL) {
        snprintf(err, err_len, "out of memory");
        goto out;
    }
    for (uint32_t i = 0; i < list->count; i++) {
        const memcached_instance_st *inst = memcached_server_instance_by_position(list->memc, i);
        ketama_point_name(names[i], sizeof(names[i]), memcached_server_name(inst),
                          memcached_server_port(inst));
        pointers[i] = names[i];
    }
    if (ketama_init(&list->ketama, pointers, list->count) != SLAP_OK) {
        snprintf(err, err_len, "--distribution=ketama: cannot build the continuum");
        goto out;
    }
    list->key_hash = (int)(hash == HASH_DEFAULT ? MEMCACHED_HASH_MD5 : hash_kinds[hash]);
    status = SLAP_OK;
out:
    free(names);
    free(pointers);
    return status;
}

enum slap_status servers_configure(struct server_list *list, enum server_distribution distribution,
                                   enum server_hash hash, char *err, size_t err_len)
{
    memcached_st *memc = list->memc;
    uint64_t dist = distribution == DISTRIBUTION_KETAMA_LIBMEMCACHED
                        ? MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA
                        : MEMCACHED_DISTRIBUTION_MODULA;
    if ((size_t)hash >= SLAP_ARRAY_SIZE(hash_kinds)) {
        snprintf(err, err_len, "--hash: this libmemcached does not provide that hash");
        return SLAP_ERROR;
    }
    if (distribution == DISTRIBUTION_KETAMA) {
        return configure_ketama(list, hash, err, err_len);
    }
    if (memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_DISTRIBUTION, dist) != MEMCACHED_SUCCESS) {
        snprintf(err, err_len, "libmemcached refused the distribution");
        return SLAP_ERROR;
    }
    if (memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_HASH, hash_kinds[hash]) !=
        MEMCACHED_SUCCESS) {
        snprintf(err, err_len, "--hash: this libmemcached does not provide that hash");
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

/* Can srv be connected to now (within SERVERS_PROBE_NS)? If not, why in why. */
static bool reachable(const struct server *srv, char *why, size_t why_len)
{
    int fd = socket(srv->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int error = 0;
    socklen_t error_len = sizeof(error);
    struct pollfd pfd = {.fd = fd, .events = POLLOUT};
    if (fd < 0) {
        error = errno;
    } else if (connect(fd, (const struct sockaddr *)&srv->addr, srv->addr_len) != 0 &&
               errno != EINPROGRESS) {
        error = errno;
    } else if (poll(&pfd, 1, (int)(SERVERS_PROBE_NS / SLAP_NS_PER_MS)) != 1) {
        error = ETIMEDOUT;
    } else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &error_len) != 0) {
        error = errno;
    }
    if (fd >= 0) {
        close(fd);
    }
    snprintf(why, why_len, "%s", strerror(error));
    return error == 0;
}

/*
 * Why flush_all failed, in slap's words: the first server libmemcached recorded an error
 * for, either out of reach or refusing the command (a proxy that does not pass it on, such
 * as twemproxy, closes the connection instead). false when no server has an error recorded.
 */
static bool flush_failure(const struct server_list *list, char *err, size_t err_len)
{
    for (uint32_t i = 0; i < list->count; i++) {
        const memcached_instance_st *inst = memcached_server_instance_by_position(list->memc, i);
        const struct server *srv = &list->items[i];
        char why[128];
        if (memcached_server_error_return(inst) == MEMCACHED_SUCCESS) {
            continue;
        }
        if (!reachable(srv, why, sizeof(why))) {
            snprintf(err, err_len, "--flush: cannot connect to %s: %s", srv->name, why);
        } else {
            snprintf(err, err_len,
                     "--flush: %s refused flush_all (proxies such as twemproxy do not pass it "
                     "on): flush the servers behind it directly, or leave out --flush",
                     srv->name);
        }
        return true;
    }
    return false;
}

enum slap_status servers_flush(struct server_list *list, char *err, size_t err_len)
{
    memcached_return_t rc = memcached_flush(list->memc, 0);
    if (rc != MEMCACHED_SUCCESS) {
        if (!flush_failure(list, err, err_len)) {
            snprintf(err, err_len, "--flush: flush_all failed: %s",
                     memcached_strerror(list->memc, rc));
        }
        return SLAP_ERROR;
    }
    memcached_quit(list->memc); /* close the admin connections before the run */
    return SLAP_OK;
}
