/* libFuzzer target: the ASCII parser stays in bounds and chunked input agrees with one read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slap/common.h"
#include "slap/proto_ascii.h"

/* One parse result, with the message as an offset into the whole input. */
struct fuzz_event {
    int status;
    enum proto_reply reply;
    uint32_t hits;
    uint64_t value_bytes;
    size_t msg_off; /* SIZE_MAX: no message */
    size_t msg_len;
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
    if (!ok) {
        __builtin_trap();
    }
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
    int rc = proto_ascii_parse(p, copy, len, used, &res);
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
                  size_t cap)
{
    struct text_parser p;
    size_t start = 0, n = 0;
    size_t offered = chunk < size ? chunk : size;
    proto_text_parser_reset(&p);
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
    /* every complete response takes at least 5 bytes ("END\r\n"), plus the final result */
    size_t cap = len / 5 + 2;
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
