/* The server list: parsed and mapped key to server by libmemcached, resolved once. */
#include "slap/servers.h"

#include <libmemcached-1.0/memcached.h>
#include <netdb.h>
#include <stdbool.h>
#include <sys/un.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/common.h"

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
        snprintf(err, err_len, "unix socket path too long: '%s'", path);
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

/* An entry of the list with two colons or more outside brackets: an unbracketed IPv6 address. */
static bool bare_ipv6(const char *text)
{
    for (const char *entry = text; *entry != '\0';) {
        size_t len = strcspn(entry, ",");
        int colons = 0;
        for (size_t i = 0; i < len && entry[0] != '['; i++) {
            colons += entry[i] == ':';
        }
        if (colons >= 2) {
            return true;
        }
        entry += len + (entry[len] == ',');
    }
    return false;
}

enum slap_status servers_open(struct server_list *list, const char *text, char *err, size_t err_len)
{
    memset(list, 0, sizeof(*list));
    if (bare_ipv6(text)) {
        snprintf(err, err_len, "write IPv6 servers in brackets, e.g. [::1]:11211 ('%s')", text);
        return SLAP_ERROR;
    }
    memcached_server_list_st parsed = memcached_servers_parse(text);
    if (parsed == NULL || memcached_server_list_count(parsed) == 0) {
        snprintf(err, err_len, "cannot parse server list '%s'", text);
        goto error;
    }
    memcached_st *memc = memcached_create(NULL);
    list->memc = memc;
    if (memc == NULL || memcached_server_push(memc, parsed) != MEMCACHED_SUCCESS) {
        snprintf(err, err_len, "cannot use server list '%s'", text);
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

enum slap_status servers_configure(struct server_list *list, enum server_distribution distribution,
                                   enum server_hash hash, char *err, size_t err_len)
{
    memcached_st *memc = list->memc;
    uint64_t dist = distribution == DISTRIBUTION_KETAMA ? MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA
                                                        : MEMCACHED_DISTRIBUTION_MODULA;
    if (memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_DISTRIBUTION, dist) !=
        MEMCACHED_SUCCESS) {
        snprintf(err, err_len, "libmemcached refused the distribution");
        return SLAP_ERROR;
    }
    if ((size_t)hash >= SLAP_ARRAY_SIZE(hash_kinds) ||
        memcached_behavior_set(memc, MEMCACHED_BEHAVIOR_HASH, hash_kinds[hash]) !=
            MEMCACHED_SUCCESS) {
        snprintf(err, err_len, "--hash: this libmemcached does not provide that hash");
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

enum slap_status servers_flush(struct server_list *list, char *err, size_t err_len)
{
    memcached_return_t rc = memcached_flush(list->memc, 0);
    if (rc != MEMCACHED_SUCCESS) {
        snprintf(err, err_len, "--flush: flush_all failed: %s",
                 memcached_strerror(list->memc, rc));
        return SLAP_ERROR;
    }
    memcached_quit(list->memc); /* close the admin connections before the run */
    return SLAP_OK;
}
