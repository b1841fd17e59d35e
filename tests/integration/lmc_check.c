/*
 * Reads back, through libmemcached with the given distribution and hash, every key
 * slap wrote for clients 0..C-1 and slots 0..W-1 (fixed key size): an application
 * using libmemcached the same way must find each key on the server slap chose.
 * Usage: lmc_check SERVERS DISTRIBUTION HASH CLIENTS WINDOW KEY_SIZES (as --key_size)
 * Prints "found N missing M" and exits 0 only if M is 0.
 */
#include <libmemcached-1.0/memcached.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/options.h"
#include "slap/servers.h"
#include "slap/workload.h"

static int hash_index(const char *name)
{
    static const char *const names[] = {"default", "md5",      "crc",   "fnv1_64",
                                        "fnv1a_64", "fnv1_32", "fnv1a_32", "hsieh",
                                        "murmur",  "jenkins",  "murmur3"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(name, names[i]) == 0) {
            return (int)i;
        }
    }
    return -1;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: lmc_check SERVERS DISTRIBUTION HASH CLIENTS WINDOW KEY_SIZE\n");
        return 2;
    }
    struct slap_options o;
    char err[256];
    options_defaults(&o);
    o.win_size = (uint64_t)atoll(argv[5]);
    if (size_dist_parse(argv[6], 16, 250, &o.key_sizes, err, sizeof(err)) != 0) {
        fprintf(stderr, "lmc_check: %s\n", err);
        return 2;
    }
    struct server_list list;
    int dist = strcmp(argv[2], "ketama") == 0 ? DISTRIBUTION_KETAMA : DISTRIBUTION_MODULA;
    if (servers_open(&list, argv[1], err, sizeof(err)) != 0 ||
        servers_configure(&list, dist, hash_index(argv[3]), err, sizeof(err)) != 0) {
        fprintf(stderr, "lmc_check: %s\n", err);
        return 2;
    }
    struct workload wl;
    workload_init(&wl, &o);
    char key[256];
    unsigned long found = 0, missing = 0;
    for (uint32_t c = 0; c < (uint32_t)atoi(argv[4]); c++) {
        workload_key_init(&wl, c, key);
        for (uint64_t slot = 0; slot < o.win_size; slot++) {
            size_t len = 0;
            uint32_t flags = 0;
            memcached_return_t rc;
            workload_key_slot(key, slot);
            char *value = memcached_get(list.memc, key, workload_key_len(&wl, c, slot), &len,
                                        &flags, &rc);
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
