/* libFuzzer target: the meta parser stays in bounds and chunked input agrees with one read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slap/common.h"
#include "slap/proto_meta.h"

/* One parse result, with the message as an offset into the whole input. */
struct fuzz_event {
    int status;
    enum proto_reply reply;
    uint32_t hits;
    uint64_t value_bytes;
    size_t msg_off; /* SIZE_MAX: no message */
    size_t msg_len;
};

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

/* Parse the bytes the caller would hold, copied to a buffer of exactly that size. */
static int parse_exact(struct text_parser *p, const uint8_t *bytes, size_t len, size_t start,
                       size_t *used, struct fuzz_event *ev)
{
    char *copy = malloc(len > 0 ? len : 1);
    struct proto_result res;
    check(copy != NULL);
    memcpy(copy, bytes, len);
    *used = SIZE_MAX;
    int rc = proto_meta_parse(p, copy, len, used, &res);
    check(*used <= len);
    memset(ev, 0, sizeof(*ev));
    ev->status = rc;
    ev->msg_off = SIZE_MAX;
    if (rc == SLAP_OK) {
        check(*used > 0);
        ev->reply = res.reply;
        ev->hits = res.hits;
        ev->value_bytes = res.value_bytes;
        if (res.msg != NULL) {
            check(res.msg >= copy && res.msg_len <= (size_t)(copy + *used - res.msg));
            ev->msg_off = start + (size_t)(res.msg - copy);
            ev->msg_len = res.msg_len;
        }
    }
    free(copy);
    return rc;
}

/* Feed input in chunks of chunk bytes as conn.c does; record every result; return their count. */
static size_t run(const uint8_t *input, size_t size, size_t chunk, struct fuzz_event *events,
                  size_t cap, struct hook_trace *trace)
{
    struct text_parser p;
    struct proto_value_hook hook = {hook_begin, hook_end, trace};
    size_t start = 0, n = 0;
    size_t offered = chunk < size ? chunk : size;
    proto_text_parser_reset(&p);
    p.resp.hook = &hook;
    for (;;) {
        size_t used;
        check(n < cap);
        int rc = parse_exact(&p, input + start, offered - start, start, &used, &events[n]);
        start += used;
        if (rc == SLAP_OK) {
            n++;
            continue;
        }
        if (rc == SLAP_ERROR || offered == size) {
            n++; /* the final ERROR or AGAIN */
            break;
        }
        check(offered - start <= PROTO_ASCII_MAX_LINE); /* what the caller can carry */
        offered = size - offered < chunk ? size : offered + chunk;
    }
    return n;
}

static int same_event(const struct fuzz_event *a, const struct fuzz_event *b)
{
    return a->status == b->status && a->reply == b->reply && a->hits == b->hits &&
           a->value_bytes == b->value_bytes && a->msg_off == b->msg_off && a->msg_len == b->msg_len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    size_t chunk = 1 + (size_t)data[0];
    const uint8_t *input = data + 1;
    size_t len = size - 1;
    /* every complete response takes at least 4 bytes ("MN\r\n"), plus the final result */
    size_t cap = len / 4 + 2;
    struct fuzz_event *chunked = calloc(cap, sizeof(*chunked));
    struct fuzz_event *whole = calloc(cap, sizeof(*whole));
    struct hook_trace chunked_trace = {0, 0, 0}, whole_trace = {0, 0, 0};
    check(chunked != NULL && whole != NULL);
    size_t n_chunked = run(input, len, chunk, chunked, cap, &chunked_trace);
    size_t n_whole = run(input, len, len > 0 ? len : 1, whole, cap, &whole_trace);
    check(n_chunked == n_whole);
    for (size_t i = 0; i < n_whole; i++) {
        check(same_event(&chunked[i], &whole[i]));
    }
    /* a value cut short by the end of input or an error is begun but not ended */
    check(chunked_trace.begins == whole_trace.begins && chunked_trace.ends == whole_trace.ends);
    check(chunked_trace.digest == whole_trace.digest);
    free(chunked);
    free(whole);
    return 0;
}
