"""libketama's continuum in a few lines of Python (hashlib's MD5), to check slap's
placement against an implementation that shares no code with it."""
import bisect
import hashlib

POINTS_PER_SERVER = 160


def point_name(host, port):
    """twemproxy and libmemcached leave memcached's default port out of the points' text."""
    return host if port == 11211 else "%s:%d" % (host, port)


def continuum(names):
    """Sorted (value, server index): four points from each MD5 of "NAME-0" .. "NAME-39"."""
    points = []
    for index, name in enumerate(names):
        for n in range(POINTS_PER_SERVER // 4):
            digest = hashlib.md5(("%s-%d" % (name, n)).encode()).digest()
            for a in range(4):
                points.append((int.from_bytes(digest[4 * a:4 * a + 4], "little"), index))
    points.sort()
    return points


def key_hash(key, hash_name):
    data = key.encode() if isinstance(key, str) else key
    if hash_name == "md5":
        return int.from_bytes(hashlib.md5(data).digest()[:4], "little")
    if hash_name == "fnv1a_64":  # twemproxy's and libmemcached's: 64-bit FNV-1a kept to 32 bits
        h = 0xcbf29ce484222325 & 0xffffffff
        for byte in data:
            h = ((h ^ byte) * 0x100000001b3) & 0xffffffff
        return h
    raise ValueError("no reference for hash %s" % hash_name)


def pick(points, h):
    """The first point at or after h, round the circle."""
    i = bisect.bisect_left(points, (h, -1))
    return points[i % len(points)][1]
