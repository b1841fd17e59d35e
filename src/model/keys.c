/* A key's layout: made and read here only (keys.h). */
#include "slap/model/keys.h"

#include <string.h>

#include "slap/base/rng.h"

#define FILLER "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
#define FILLER_LEN (sizeof(FILLER) - 1)
/* The filler five times: an owner's filler is one run of it, from (HEAD + owner) % 62. */
static const char filler_run[] = FILLER FILLER FILLER FILLER FILLER;
_Static_assert(FILLER_LEN - 1 + KEY_LAYOUT_SIZE_MAX - KEY_LAYOUT_HEAD <= sizeof(filler_run) - 1,
               "every owner's filler is one run of filler_run");

static const char hex_digits[] = "0123456789abcdef";
static const char shared_owner[] = "shared";
_Static_assert(sizeof(shared_owner) - 1 == KEY_LAYOUT_OWNER_DIGITS, "shared fills the owner");

enum {
    MARK_WINDOW = '.',
    MARK_SHARED = '-',
    MARK_COUNTER = '#',
};

void key_layout_init(struct key_layout *k, const struct size_dist *sizes, uint32_t longest,
                     bool shared, uint64_t base)
{
    memset(k, 0, sizeof(*k));
    k->sizes = *sizes;
    k->fixed = sizes->n == 1 && sizes->r[0].min == sizes->r[0].max;
    k->size = size_dist_max(sizes);
    k->size = longest > k->size ? longest : k->size;
    k->shared = shared;
    k->base = shared ? base : 0;
}

static const char *owner_filler(const struct key_layout *k, uint32_t owner)
{
    return filler_run + (KEY_LAYOUT_HEAD + (k->shared ? 0 : owner)) % FILLER_LEN;
}

void key_layout_first(const struct key_layout *k, uint32_t owner, char *key)
{
    if (k->shared) { /* a name of the number alone: the same for every client and run */
        memcpy(key + KEY_LAYOUT_OWNER_AT, shared_owner, KEY_LAYOUT_OWNER_DIGITS);
        key[KEY_LAYOUT_MARK_AT] = MARK_SHARED;
    } else {
        uint32_t v = owner;
        for (int i = KEY_LAYOUT_OWNER_DIGITS - 1; i >= 0; i--) {
            key[KEY_LAYOUT_OWNER_AT + i] = hex_digits[v & 0xf];
            v >>= 4;
        }
        key[KEY_LAYOUT_MARK_AT] = MARK_WINDOW;
    }
    key_layout_slot(k, key, 0);
    if (k->size > KEY_LAYOUT_HEAD) {
        memcpy(key + KEY_LAYOUT_HEAD, owner_filler(k, owner), k->size - KEY_LAYOUT_HEAD);
    }
}

uint32_t key_layout_len_drawn(const struct key_layout *k, uint32_t owner, uint64_t slot)
{
    /* shared: by the key's number, so that every run with other bounds names it alike */
    return size_dist_sample(&k->sizes, rng_mix(k->shared ? 0 : owner, k->base + slot, 0x6b6579));
}

uint32_t key_layout_encode(const struct key_layout *k, const struct key_name *name, char *out)
{
    key_layout_first(k, name->owner, out);
    if (name->kind == KEY_COUNTER) {
        key_layout_counter(k, out, (uint32_t)name->slot, out);
    } else {
        key_layout_slot(k, out, name->slot);
    }
    return key_layout_len(k, name->owner, name->slot);
}

/* The number eight bytes (as they lie in memory) are as hex digits, read loosely: any byte
 * gives some digit, so the caller checks that key_layout_hex8 of it gives the bytes back. */
static uint32_t hex8_loose(uint64_t x)
{
#if KEY_LAYOUT_LITTLE_ENDIAN
    x = __builtin_bswap64(x); /* the most significant digit to the top byte */
#endif
    x = (x & 0x0f0f0f0f0f0f0f0fULL) + ((x >> 6) & 0x0101010101010101ULL) * 9; /* 'a': 1 + 9 */
    x = (x | x >> 4) & 0x00ff00ff00ff00ffULL;
    x = (x | x >> 8) & 0x0000ffff0000ffffULL;
    return (uint32_t)(x | x >> 16);
}

/* The eight hex digits at text, if that is what they are. */
static bool read_hex8(uint64_t bytes, uint64_t *value)
{
    *value = hex8_loose(bytes);
    return key_layout_hex8((uint32_t)*value) == bytes;
}

bool key_layout_decode(const struct key_layout *k, const char *key, size_t len,
                       struct key_name *name)
{
    uint64_t owner = 0, number, head, digits;
    if (len < KEY_LAYOUT_SIZE_MIN || len > k->size || len > KEY_LAYOUT_SIZE_MAX) {
        return false;
    }
    _Static_assert(KEY_LAYOUT_OWNER_AT == 0 && KEY_LAYOUT_OWNER_DIGITS == 6,
                   "the owner is the first six of eight bytes");
    memcpy(&head, key, sizeof(head));
#if KEY_LAYOUT_LITTLE_ENDIAN
    uint64_t owner_digits = head << 16 | 0x3030; /* "00" and the six digits */
#else
    uint64_t owner_digits = head >> 16 | 0x3030ULL << 48;
#endif
    if (k->shared ? memcmp(key + KEY_LAYOUT_OWNER_AT, shared_owner, KEY_LAYOUT_OWNER_DIGITS) != 0
                  : !read_hex8(owner_digits, &owner)) {
        return false;
    }
    memcpy(&digits, key + KEY_LAYOUT_NUMBER_AT, sizeof(digits));
    if (!read_hex8(digits, &number)) {
        return false;
    }
    char mark = key[KEY_LAYOUT_MARK_AT];
    if (mark == MARK_COUNTER) {
        name->kind = KEY_COUNTER;
        name->slot = number;
    } else if (mark == (k->shared ? MARK_SHARED : MARK_WINDOW) && number >= k->base) {
        name->kind = KEY_WINDOW;
        name->slot = number - k->base;
    } else {
        return false;
    }
    name->owner = (uint32_t)owner;
    return len == key_layout_len(k, name->owner, name->slot) &&
           memcmp(key + KEY_LAYOUT_HEAD, owner_filler(k, name->owner), len - KEY_LAYOUT_HEAD) == 0;
}
