/* libFuzzer target: the binary parser stays in bounds and chunked input agrees with one read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slap/common.h"
#include "slap/proto_binary.h"

#define PATTERN_LEN 256

/* What the value hook saw so far; the same whether the input came whole or in chunks. */
struct hook_tally {
    uint32_t begins, ends;
    uint64_t digest;     /* of every begin and end, in order */
    uint64_t bytes;      /* size of the value being checked */
    uint64_t expect_len; /* and its expected size */
};

/* One parse result, with the message as an offset into the whole input. */
struct fuzz_event {
    int status;
    enum proto_reply reply;
    uint32_t hits;
    uint64_t value_bytes;
    size_t msg_off; /* SIZE_MAX: no message */
    size_t msg_len;
    struct hook_tally tally;
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

/* Parse the bytes the caller would hold, copied to a buffer of exactly that size. */
static int parse_exact(struct binary_parser *p, const uint8_t *bytes, size_t len, size_t start,
                       size_t *used, struct fuzz_event *ev)
{
    char *copy = malloc(len > 0 ? len : 1);
    struct proto_result res;
    check(copy != NULL);
    memcpy(copy, bytes, len);
    *used = SIZE_MAX;
    int rc = proto_binary_parse(p, copy, len, used, &res);
    check(*used <= len);
    memset(ev, 0, sizeof(*ev));
    ev->status = rc;
    ev->msg_off = SIZE_MAX;
    ev->tally = *(const struct hook_tally *)p->resp.hook->ctx;
    if (rc == SLAP_OK) {
        check(*used > 0);
        ev->reply = res.reply;
        ev->hits = res.hits;
        ev->value_bytes = res.value_bytes;
        if (res.msg != NULL) {
            check(res.msg >= copy && res.msg <= copy + *used);
            check(res.msg_len <= (size_t)(copy + *used - res.msg));
            ev->msg_off = start + (size_t)(res.msg - copy);
            ev->msg_len = res.msg_len;
        }
    }
    free(copy);
    return rc;
}

/* Feed input in chunks of chunk bytes as conn.c does; record every result; return their count. */
static size_t run(const uint8_t *input, size_t size, size_t chunk, struct fuzz_event *events,
                  size_t cap)
{
    struct binary_parser p;
    struct hook_tally tally = {0};
    struct proto_value_hook hook = {tally_begin, tally_end, &tally};
    size_t start = 0, n = 0;
    size_t offered = chunk < size ? chunk : size;
    proto_binary_parser_reset(&p);
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
           a->value_bytes == b->value_bytes && a->msg_off == b->msg_off &&
           a->msg_len == b->msg_len && a->tally.begins == b->tally.begins &&
           a->tally.ends == b->tally.ends && a->tally.digest == b->tally.digest;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    for (size_t i = 0; i < PATTERN_LEN; i++) {
        pattern[i] = (uint8_t)i;
    }
    size_t chunk = 1 + (size_t)data[0];
    const uint8_t *input = data + 1;
    size_t len = size - 1;
    /* every complete response takes at least one 24-byte header, plus the final result */
    size_t cap = len / PROTO_BINARY_HEADER + 2;
    struct fuzz_event *chunked = calloc(cap, sizeof(*chunked));
    struct fuzz_event *whole = calloc(cap, sizeof(*whole));
    check(chunked != NULL && whole != NULL);
    size_t n_chunked = run(input, len, chunk, chunked, cap);
    size_t n_whole = run(input, len, len > 0 ? len : 1, whole, cap);
    check(n_chunked == n_whole);
    for (size_t i = 0; i < n_whole; i++) {
        check(same_event(&chunked[i], &whole[i]));
    }
    free(chunked);
    free(whole);
    return 0;
}
