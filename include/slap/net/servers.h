/* The server list: parsed and mapped key to server by libmemcached, resolved once. */
#ifndef SLAP_SERVERS_H
#define SLAP_SERVERS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "slap/base/common.h"
#include "slap/net/ketama.h"

#define SERVER_NAME_MAX 300
#define SERVERS_HOST_MAX 253 /* a DNS name's longest */
#define SERVERS_PATH_MAX 107 /* a unix socket path's longest (sun_path less its NUL) */

/* --distribution: how keys map to servers. */
enum server_distribution {
    DISTRIBUTION_MODULA = 0, /* libmemcached's default: the key's hash modulo the count */
    DISTRIBUTION_KETAMA = 1, /* libketama's continuum, as twemproxy and libmemcached's weighted
                                mode place keys (ketama.c) */
    DISTRIBUTION_KETAMA_LIBMEMCACHED = 2, /* libmemcached's own, unweighted continuum */
};

/* --hash: libmemcached's key hash functions */
enum server_hash {
    HASH_DEFAULT = 0,
    HASH_MD5,
    HASH_CRC,
    HASH_FNV1_64,
    HASH_FNV1A_64,
    HASH_FNV1_32,
    HASH_FNV1A_32,
    HASH_HSIEH,
    HASH_MURMUR,
    HASH_JENKINS,
    HASH_MURMUR3,
};

struct server {
    char name[SERVER_NAME_MAX];   /* "host:port", for messages */
    char host[SERVER_NAME_MAX];   /* the host alone (no brackets), for TLS verification */
    struct sockaddr_storage addr; /* resolved once before the run */
    socklen_t addr_len;
};

struct server_list {
    uint32_t count;
    struct server *items;
    void *memc;           /* memcached_st holding the list: the reference key-to-server mapping */
    struct ketama ketama; /* --distribution=ketama: the continuum (npoints 0 otherwise) */
    int key_hash;         /* --distribution=ketama: the memcached_hash_t of keys */
};

/* What a server list holds, as servers_check_list reads it. */
struct servers_shape {
    uint32_t count;        /* entries */
    uint32_t unix_sockets; /* of them, paths */
};

/*
 * Check the syntax of "ENTRY[,ENTRY...]" without resolving anything: each entry is
 * host[:port], [ipv6][:port] or /path/of/a/unix/socket, with a port from 1 to 65535 and
 * nothing after it, no entry empty. SLAP_ERROR with "'ENTRY': what is wrong" in err.
 */
enum slap_status servers_check_list(const char *text, struct servers_shape *shape, char *err,
                                    size_t err_len);

/*
 * Parse "host[:port][,host[:port]...]" with libmemcached and resolve every
 * host. On failure returns SLAP_ERROR with a one-line reason in err.
 */
enum slap_status servers_open(struct server_list *list, const char *text, char *err,
                              size_t err_len);
/* --distribution and --hash (ketama: --hash default means md5, as libketama hashes keys). */
enum slap_status servers_configure(struct server_list *list, enum server_distribution distribution,
                                   enum server_hash hash, char *err, size_t err_len);
/* flush_all on every server (libmemcached's admin call); SLAP_ERROR with err if one failed:
 * the first server that could not be reached, or that refused flush_all (a proxy). */
enum slap_status servers_flush(struct server_list *list, char *err, size_t err_len);
void servers_close(struct server_list *list);

/* The index of the server a key belongs to, by the configured distribution and hash. */
uint32_t servers_pick(const struct server_list *list, const char *key, size_t key_len);

#endif
