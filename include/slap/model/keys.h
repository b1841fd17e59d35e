/* A key's layout: the one place that knows where a key's parts are and how long it is. */
#ifndef SLAP_KEYS_H
#define SLAP_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "slap/model/sizelaw.h"

/*
 * A key is printable and names its owner, its kind and its number:
 *   iiiiii M nnnnnnnn filler...
 * six lowercase hex digits of the owner (a client's key id), or "shared" when every client
 * reads one range of keys (--key_min, --key_max; the owner is then 0); the mark: '.' a window's
 * key, '-' a key of the shared range, '#' a counter (incr, decr); eight lowercase hex digits of
 * the number: a window slot plus the range's first number (base), or a counter's index; then
 * the filler, the owner's own run of letters and digits, to the key's length.
 * The length is the layout's law: key_layout_len(owner, slot).
 * The positions below are the layout's alone: every other file makes and reads keys through
 * the functions here.
 */
enum {
    KEY_LAYOUT_OWNER_AT = 0,
    KEY_LAYOUT_OWNER_DIGITS = 6,
    KEY_LAYOUT_MARK_AT = 6,
    KEY_LAYOUT_NUMBER_AT = 7,
    KEY_LAYOUT_NUMBER_DIGITS = 8,
    KEY_LAYOUT_HEAD = 15, /* owner, mark and number; the filler starts here */
};

/* A key's bytes: its head and a byte of filler at least, memcached's limit at most. */
#define KEY_LAYOUT_SIZE_MIN (KEY_LAYOUT_HEAD + 1)
#define KEY_LAYOUT_SIZE_MAX 250
#define KEY_LAYOUT_OWNERS (1ULL << (4 * KEY_LAYOUT_OWNER_DIGITS)) /* owners six digits name */
#define KEY_LAYOUT_NUMBER_MAX 0xffffffffULL /* the most eight hex digits name (--key_max) */

enum key_kind {
    KEY_WINDOW,  /* a slot of a client's window, or of the shared range */
    KEY_COUNTER, /* a client's counter: incr and decr */
};

/* What a key names. */
struct key_name {
    enum key_kind kind;
    uint32_t owner; /* a client's key id; 0 when shared */
    uint64_t slot;  /* a window's slot (the number less base), or a counter's index */
};

/* Read-only after key_layout_init: shared by every thread. */
struct key_layout {
    uint32_t size;          /* bytes of the longest key: buffers hold this many a key */
    struct size_dist sizes; /* the lengths keys are drawn from */
    bool fixed;             /* every key is size bytes */
    bool shared;            /* one range for every client: "shared" in place of an owner */
    uint64_t base;          /* shared: the number of slot 0; 0 otherwise */
};

/* sizes' longest key, or longest when larger (a trace's keys); shared: the range from base. */
void key_layout_init(struct key_layout *k, const struct size_dist *sizes, uint32_t longest,
                     bool shared, uint64_t base);

/* The whole window key of owner's slot 0, size bytes (its filler to the longest key). The
 * keys of other slots and the counters are then this one with a few bytes rewritten. */
void key_layout_first(const struct key_layout *k, uint32_t owner, char *key);

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define KEY_LAYOUT_LITTLE_ENDIAN 1
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define KEY_LAYOUT_LITTLE_ENDIAN 0
#else
#error "keys.h needs to know the byte order"
#endif

/* The eight lowercase hex digits of v, most significant first, as they lie in memory: every
 * nibble to a byte of its own, then digits and letters all at once (SWAR). */
static inline uint64_t key_layout_hex8(uint32_t v)
{
    uint64_t x = v;
    x = (x | x << 16) & 0x0000ffff0000ffffULL;
    x = (x | x << 8) & 0x00ff00ff00ff00ffULL;
    x = (x | x << 4) & 0x0f0f0f0f0f0f0f0fULL; /* byte i: nibble i, the least significant first */
    uint64_t letters = ((x + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
    x += 0x3030303030303030ULL + letters * ('a' - '0' - 10);
#if KEY_LAYOUT_LITTLE_ENDIAN
    x = __builtin_bswap64(x); /* the most significant digit to the lowest address */
#endif
    return x;
}

/* A key's number: the eight digits of its low 32 bits. */
static inline void key_layout_put_number(char *key, uint64_t number)
{
    uint64_t x = key_layout_hex8((uint32_t)number);
    _Static_assert(KEY_LAYOUT_NUMBER_DIGITS == sizeof(x), "one digit a byte of x");
    memcpy(key + KEY_LAYOUT_NUMBER_AT, &x, sizeof(x));
}

/* A window key (from key_layout_first) made slot's: eight byte stores. */
static inline void key_layout_slot(const struct key_layout *k, char *key, uint64_t slot)
{
    key_layout_put_number(key, k->base + slot);
}

/* The window key of slot, of the owner of window key from, into out. */
static inline void key_layout_copy_slot(const struct key_layout *k, const char *from, uint64_t slot,
                                        char *out)
{
    memcpy(out, from, k->size);
    key_layout_slot(k, out, slot);
}

/* Counter i of the owner of window key from, into out (its number is i: no base). */
static inline void key_layout_counter(const struct key_layout *k, const char *from, uint32_t i,
                                      char *out)
{
    memcpy(out, from, k->size);
    key_layout_put_number(out, i);
    out[KEY_LAYOUT_MARK_AT] = '#';
}

/* key_layout_len of a length drawn from sizes by (owner, base + slot). */
uint32_t key_layout_len_drawn(const struct key_layout *k, uint32_t owner, uint64_t slot);

/* The length of owner's key of slot (counter i's: that of slot i). Fixed: inline, a multi-get
 * asks it -d times a request. */
static inline uint32_t key_layout_len(const struct key_layout *k, uint32_t owner, uint64_t slot)
{
    return k->fixed ? k->size : key_layout_len_drawn(k, owner, slot);
}

/* A whole key of name, into out (k->size bytes of room); returns its length. Not for the
 * request path, which rewrites a key_layout_first key. */
uint32_t key_layout_encode(const struct key_layout *k, const struct key_name *name, char *out);

/* What key[0, len) names, when it is exactly the key key_layout_encode makes of that name (its
 * length too); else false. */
bool key_layout_decode(const struct key_layout *k, const char *key, size_t len,
                       struct key_name *name);

#endif
