/* The ketama continuum as libketama, twemproxy and libmemcached's weighted mode build it. */
#include "slap/net/ketama.h"

#include <openssl/evp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KETAMA_DEFAULT_PORT 11211 /* left out of point names, as libmemcached and twemproxy do */
#define MD5_BYTES 16

/* The MD5 digest of text; false only if OpenSSL fails. */
static bool md5_digest(const char *text, size_t len, unsigned char digest[MD5_BYTES])
{
    unsigned int digest_len = 0;
    return EVP_Digest(text, len, digest, &digest_len, EVP_md5(), NULL) == 1 &&
           digest_len == MD5_BYTES;
}

static uint32_t point_of(const unsigned char digest[MD5_BYTES], unsigned alignment)
{
    const unsigned char *d = digest + (size_t)alignment * 4;
    return (uint32_t)d[3] << 24 | (uint32_t)d[2] << 16 | (uint32_t)d[1] << 8 | (uint32_t)d[0];
}

uint32_t ketama_md5_point(const char *text, size_t len, unsigned alignment)
{
    unsigned char digest[MD5_BYTES];
    if (alignment >= KETAMA_POINTS_PER_DIGEST || !md5_digest(text, len, digest)) {
        return 0;
    }
    return point_of(digest, alignment);
}

size_t ketama_point_name(char *out, size_t size, const char *host, unsigned port)
{
    int n = host[0] == '/' || port == KETAMA_DEFAULT_PORT
                ? snprintf(out, size, "%s", host)
                : snprintf(out, size, "%s:%u", host, port);
    if (n <= 0 || size == 0) {
        return 0;
    }
    return (size_t)n < size ? (size_t)n : size - 1;
}

static int compare_points(const void *a, const void *b)
{
    const struct ketama_point *x = a, *y = b;
    if (x->value != y->value) {
        return x->value < y->value ? -1 : 1;
    }
    return x->server < y->server ? -1 : (x->server > y->server ? 1 : 0);
}

/* The 160 points of server index, made from its name, appended to the continuum. */
static enum slap_status add_server(struct ketama *k, const char *name, uint32_t index)
{
    char text[KETAMA_NAME_MAX];
    for (unsigned n = 0; n < KETAMA_POINTS_PER_SERVER / KETAMA_POINTS_PER_DIGEST; n++) {
        unsigned char digest[MD5_BYTES];
        int len = snprintf(text, sizeof(text), "%s-%u", name, n);
        if (len <= 0 || (size_t)len >= sizeof(text) || !md5_digest(text, (size_t)len, digest)) {
            return SLAP_ERROR;
        }
        for (unsigned a = 0; a < KETAMA_POINTS_PER_DIGEST; a++) {
            k->points[k->npoints++] = (struct ketama_point){point_of(digest, a), index};
        }
    }
    return SLAP_OK;
}

enum slap_status ketama_init(struct ketama *k, const char *const *names, uint32_t count)
{
    memset(k, 0, sizeof(*k));
    if (count == 0) {
        return SLAP_ERROR;
    }
    k->points = calloc((size_t)count * KETAMA_POINTS_PER_SERVER, sizeof(*k->points));
    if (k->points == NULL) {
        return SLAP_ERROR;
    }
    for (uint32_t i = 0; i < count; i++) {
        if (add_server(k, names[i], i) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    qsort(k->points, k->npoints, sizeof(*k->points), compare_points);
    return SLAP_OK;
}

void ketama_free(struct ketama *k)
{
    free(k->points);
    memset(k, 0, sizeof(*k));
}

uint32_t ketama_pick(const struct ketama *k, uint32_t hash)
{
    uint32_t left = 0, right = k->npoints;
    while (left < right) {
        uint32_t middle = left + (right - left) / 2;
        if (k->points[middle].value < hash) {
            left = middle + 1;
        } else {
            right = middle;
        }
    }
    return k->points[right == k->npoints ? 0 : right].server;
}
