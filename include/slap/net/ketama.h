/* The ketama continuum as libketama, twemproxy and libmemcached's weighted mode build it. */
#ifndef SLAP_KETAMA_H
#define SLAP_KETAMA_H

#include <stddef.h>
#include <stdint.h>

#include "slap/base/common.h"

#define KETAMA_POINTS_PER_SERVER 160 /* every server weighs the same */
#define KETAMA_POINTS_PER_DIGEST 4   /* one MD5 digest gives four points */
#define KETAMA_NAME_MAX 320          /* "NAME-N" of a point */

/* One point of the circle: where it stands and whose it is. */
struct ketama_point {
    uint32_t value;  /* position on the circle */
    uint32_t server; /* index in the server list */
};

struct ketama {
    uint32_t npoints;
    struct ketama_point *points; /* sorted by value */
};

/*
 * Build the continuum of count servers, each named as the points' text wants it: "host" when
 * the port is 11211, else "host:port" (ketama_point_name). Every server gets 160 points, four
 * for each MD5 digest of "NAME-0" to "NAME-39". ketama_free is safe after a failure.
 */
enum slap_status ketama_init(struct ketama *k, const char *const *names, uint32_t count);
void ketama_free(struct ketama *k);

/* The server of a key whose hash is hash: the first point at or after it, round the circle. */
uint32_t ketama_pick(const struct ketama *k, uint32_t hash);

/*
 * The name a server's points are made from, as twemproxy and libmemcached write it: the host
 * alone for memcached's default port 11211, "host:port" otherwise, a unix socket's path as is.
 * Returns the length written (cut to fit size), or 0 when nothing fits.
 */
size_t ketama_point_name(char *out, size_t size, const char *host, unsigned port);

/* The alignment-th of the four points (0 to 3) of the MD5 digest of text: its bytes
 * 4a+3 .. 4a, most significant first (libketama's order). */
uint32_t ketama_md5_point(const char *text, size_t len, unsigned alignment);

#endif
