/*
 * Reads back, through libmemcached with the given distribution and hash, every key
 * slap wrote for clients 0..C-1 and slots 0..W-1 (fixed key size): an application
 * using libmemcached the same way must find each key on the server slap chose.
 * DISTRIBUTION is modula, ketama-libmemcached, or ketama: libmemcached's weighted
 * ketama (libketama's continuum; key hash md5 unless HASH names another).
 * Usage: lmc_check SERVERS DISTRIBUTION HASH CLIENTS WINDOW KEY_SIZES (as --key_size)
 * Prints "found N missing M" and exits 0 only if M is 0.
 */
#include <libmemcached-1.0/memcached.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/model/workload.h"
#include "slap/net/servers.h"

static const char *const hash_names[] = {"default",  "md5",     "crc",      "fnv1_64",
                                         "fnv1a_64", "fnv1_32", "fnv1a_32", "hsieh",
                                         "murmur",   "jenkins", "murmur3"};
static const memcached_hash_t hash_kinds[] = {
    MEMCACHED_HASH_DEFAULT,  MEMCACHED_HASH_MD5,      MEMCACHED_HASH_CRC,
    MEMCACHED_HASH_FNV1_64,  MEMCACHED_HASH_FNV1A_64, MEMCACHED_HASH_FNV1_32,
    MEMCACHED_HASH_FNV1A_32, MEMCACHED_HASH_HSIEH,    MEMCACHED_HASH_MURMUR,
    MEMCACHED_HASH_JENKINS,  MEMCACHED_HASH_MURMUR3};

static int hash_index(const char *name)
{
    for (size_t i = 0; i < sizeof(hash_names) / sizeof(hash_names[0]); i++) {
        if (strcmp(name, hash_names[i]) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* libmemcached as an application would set it up: slap's modes, or weighted ketama. */
static int configure(struct server_list *list, const char *dist, int hash, char *err, size_t len)
{
    if (hash < 0) {
        snprintf(err, len, "unknown hash");
        return -1;
    }
    if (strcmp(dist, "ketama") != 0) {
        int kind = strcmp(dist, "ketama-libmemcached") == 0 ? DISTRIBUTION_KETAMA_LIBMEMCACHED
                                                            : DISTRIBUTION_MODULA;
        return servers_configure(list, kind, hash, err, len) == SLAP_OK ? 0 : -1;
    }
    memcached_hash_t key_hash = hash == 0 ? MEMCACHED_HASH_MD5 : hash_kinds[hash];
    if (memcached_behavior_set(list->memc, MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED, 1) !=
            MEMCACHED_SUCCESS ||
        memcached_behavior_set(list->memc, MEMCACHED_BEHAVIOR_HASH, key_hash) !=
            MEMCACHED_SUCCESS) {
        snprintf(err, len, "libmemcached refused weighted ketama");
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: lmc_check SERVERS DISTRIBUTION HASH CLIENTS WINDOW KEY_SIZE\n");
        return 2;
    }
    /* slap's defaults; the key sizes and the window are what matter here */
    struct workload_plan o = {
        .key_size = 64, .value_size = 1024, .mix = {[OP_SET] = 0.1, [OP_GET] = 0.9}, .division = 1};
    char err[256];
    o.win_size = (uint64_t)atoll(argv[5]);
    if (size_dist_parse(argv[6], KEY_LAYOUT_SIZE_MIN, KEY_LAYOUT_SIZE_MAX, &o.key_sizes, err,
                        sizeof(err)) != 0) {
        fprintf(stderr, "lmc_check: %s\n", err);
        return 2;
    }
    struct server_list list;
    if (servers_open(&list, argv[1], err, sizeof(err)) != 0 ||
        configure(&list, argv[2], hash_index(argv[3]), err, sizeof(err)) != 0) {
        fprintf(stderr, "lmc_check: %s\n", err);
        return 2;
    }
    struct workload wl;
    workload_init(&wl, &o);
    char key[256];
    unsigned long found = 0, missing = 0;
    for (uint32_t c = 0; c < (uint32_t)atoi(argv[4]); c++) {
        for (uint64_t slot = 0; slot < o.win_size; slot++) {
            size_t len = 0;
            uint32_t flags = 0;
            memcached_return_t rc;
            uint32_t key_len =
                key_layout_encode(&wl.keys, &(struct key_name){KEY_WINDOW, c, slot}, key);
            char *value = memcached_get(list.memc, key, key_len, &len, &flags, &rc);
            if (value != NULL) {
                found++;
                free(value);
            } else {
                missing++;
            }
        }
    }
    printf("found %lu missing %lu\n", found, missing);
    workload_free(&wl);
    servers_close(&list);
    return missing == 0 && found > 0 ? 0 : 1;
}
