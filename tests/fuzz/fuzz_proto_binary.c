/* libFuzzer target: the binary parser stays in bounds and chunked input agrees with one read. */
#include <stdint.h>
#include <stdlib.h>

#include "proto_stream.h"
#include "slap/base/common.h"
#include "slap/proto/proto.h"

#define PATTERN_LEN 256

/* What the value hook saw so far; the same whether the input came whole or in chunks. */
struct hook_tally {
    uint32_t begins, ends;
    uint64_t digest;     /* of every begin and end, in order */
    uint64_t bytes;      /* size of the value being checked */
    uint64_t expect_len; /* and its expected size */
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t pattern[PATTERN_LEN]; /* expected data: byte i is i */

static void check(int ok)
{
    if (!ok) {
        __builtin_trap();
    }
}

/* Keys of a length divisible by 3 are not checked; others expect a prefix of the pattern. */
static const char *tally_begin(void *ctx, const char *key, size_t key_len, uint64_t bytes,
                               uint64_t *expect_len)
{
    struct hook_tally *t = ctx;
    check(key != NULL && key_len <= PROTO_BINARY_MAX_KEY);
    t->begins++;
    t->digest = t->digest * 31 + key_len * 7 + bytes;
    for (size_t i = 0; i < key_len; i++) {
        t->digest = t->digest * 31 + (uint8_t)key[i];
    }
    if (key_len % 3 == 0) {
        return NULL;
    }
    t->bytes = bytes;
    t->expect_len = key_len % 3 == 1 && bytes <= PATTERN_LEN ? bytes : (key_len * 7) % PATTERN_LEN;
    *expect_len = t->expect_len;
    return (const char *)pattern;
}

static void tally_end(void *ctx, int equal, uint64_t first_diff)
{
    struct hook_tally *t = ctx;
    uint64_t shorter = t->bytes < t->expect_len ? t->bytes : t->expect_len;
    check(equal ? first_diff == UINT64_MAX && t->bytes == t->expect_len : first_diff <= shorter);
    t->ends++;
    t->digest = t->digest * 31 + (equal ? 1 : first_diff + 2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct hook_tally chunked_tally = {0}, whole_tally = {0};
    struct proto_value_hook chunked_hook = {tally_begin, tally_end, &chunked_tally};
    struct proto_value_hook whole_hook = {tally_begin, tally_end, &whole_tally};
    if (size == 0) {
        return 0;
    }
    for (size_t i = 0; i < PATTERN_LEN; i++) {
        pattern[i] = (uint8_t)i;
    }
    size_t chunk = 1 + (size_t)data[0];
    size_t len = size - 1;
    /* every complete response takes at least one 24-byte header: room for what can come */
    size_t room = len / PROTO_BINARY_HEADER + 1;
    struct stream_result *results = calloc(2 * room, sizeof(*results));
    /* each result records the tally's digest: the hook saw the same, chunked or whole */
    struct proto_stream chunked = {.kind = PROTO_BINARY,
                                   .responses = results,
                                   .room = room,
                                   .hook = &chunked_hook,
                                   .trace = &chunked_tally.digest};
    struct proto_stream whole = {.kind = PROTO_BINARY,
                                 .responses = results + room,
                                 .room = room,
                                 .hook = &whole_hook,
                                 .trace = &whole_tally.digest};
    check(results != NULL);
    /* the helper says on stderr what went wrong */
    check(proto_stream_agree(&chunked, &whole, (const char *)data + 1, len, chunk) == NULL);
    check(chunked_tally.begins == whole_tally.begins && chunked_tally.ends == whole_tally.ends);
    free(results);
    return 0;
}
