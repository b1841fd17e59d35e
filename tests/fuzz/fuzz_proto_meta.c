/* libFuzzer target: the meta parser stays in bounds and chunked input agrees with one read. */
#include <stdint.h>
#include <stdlib.h>

#include "proto_stream.h"
#include "slap/base/common.h"
#include "slap/proto/proto.h"

/* What the value hook saw, the same however the input is chunked. */
struct hook_trace {
    uint64_t digest; /* every begin and end call, with the key bytes, folded in order */
    uint32_t begins, ends;
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
    if (!ok) {
        __builtin_trap();
    }
}

static uint64_t fold(uint64_t digest, uint64_t v)
{
    return (digest ^ v) * 0x100000001b3ULL;
}

/* Check every other value against a fixed pattern; record the key and size begin was given. */
static const char *hook_begin(void *ctx, const char *key, size_t key_len, uint64_t bytes,
                              uint64_t *expect_len)
{
    static const char pattern[] = "hello world, hello meta";
    struct hook_trace *t = ctx;
    check(key != NULL || key_len == 0);
    t->digest = fold(fold(fold(t->digest, key != NULL), key_len), bytes);
    for (size_t i = 0; i < key_len; i++) {
        t->digest = fold(t->digest, (unsigned char)key[i]);
    }
    if (t->begins++ % 2 == 1) {
        return NULL;
    }
    *expect_len = bytes % sizeof(pattern);
    return pattern;
}

static void hook_end(void *ctx, int equal, uint64_t first_diff)
{
    struct hook_trace *t = ctx;
    check(equal == (first_diff == UINT64_MAX));
    t->ends++;
    t->digest = fold(fold(t->digest, (uint64_t)equal), first_diff);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct hook_trace chunked_trace = {0, 0, 0}, whole_trace = {0, 0, 0};
    struct proto_value_hook chunked_hook = {hook_begin, hook_end, &chunked_trace};
    struct proto_value_hook whole_hook = {hook_begin, hook_end, &whole_trace};
    if (size == 0) {
        return 0;
    }
    size_t chunk = 1 + (size_t)data[0];
    size_t len = size - 1;
    /* every complete response takes at least 4 bytes ("MN\r\n"): room for what can come */
    size_t room = len / 4 + 1;
    struct stream_result *results = calloc(2 * room, sizeof(*results));
    struct proto_stream chunked = {.kind = PROTO_META,
                                   .responses = results,
                                   .room = room,
                                   .hook = &chunked_hook,
                                   .trace = &chunked_trace.digest};
    struct proto_stream whole = {.kind = PROTO_META,
                                 .responses = results + room,
                                 .room = room,
                                 .hook = &whole_hook,
                                 .trace = &whole_trace.digest};
    check(results != NULL);
    /* the helper says on stderr what went wrong */
    check(proto_stream_agree(&chunked, &whole, (const char *)data + 1, len, chunk) == NULL);
    /* a value cut short by the end of input or an error is begun but not ended */
    check(chunked_trace.begins == whole_trace.begins && chunked_trace.ends == whole_trace.ends);
    check(chunked_trace.digest == whole_trace.digest);
    free(results);
    return 0;
}
