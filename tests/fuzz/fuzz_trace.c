/* libFuzzer target: trace lines, trace keys and the reader stay in bounds and keep their promises.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "slap/base/common.h"
#include "slap/model/trace.h"

#define ERR_LEN 256
#define TOKEN_LEN_MAX 20 /* longest entry of fuzz_tokens */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Pieces of trace lines around their limits: a byte picks one (see render). */
static const char *const fuzz_tokens[] = {
    ",",          "\n",         "\r\n",        "get",         "gets",
    "set",        "add",        "cas",         "delete",      "incr",
    "gat",        "0",          "1",           "250",         "251",
    "4294967295", "4294967296", "18446744072", "18446744073", "18446744073709551616",
    " ",          "\t",         "1,k,1,1,1,",  ",get,0\n",    "\x28\xb5\x2f\xfd",
};

static void check(int ok)
{
    if (!ok) {
        __builtin_trap();
    }
}

/* A message: one line of printable ASCII, NUL-terminated inside err. */
static void check_message(const char *err)
{
    size_t len = strnlen(err, ERR_LEN);
    check(len > 0 && len < ERR_LEN);
    for (size_t i = 0; i < len; i++) {
        check(err[i] >= 0x20 && err[i] < 0x7f);
    }
}

/* A key memcached takes in every protocol: 1 to 250 graphic ASCII bytes. */
static void check_key(const char *key, uint32_t len)
{
    check(len >= 1 && len <= TRACE_KEY_MAX);
    for (uint32_t i = 0; i < len; i++) {
        check(key[i] > 0x20 && key[i] < 0x7f);
    }
}

static void check_request(const struct trace_request *r)
{
    check_key(r->key, r->key_len);
    check(r->op < OP_COUNT && r->op != OP_GAT && r->op != OP_TOUCH);
    check(op_class(r->op) == OP_CLASS_STORAGE || r->value_size == 0);
}

static void fuzz_line(const uint8_t *data, size_t size)
{
    struct trace_request r, again;
    uint64_t second = 0, second_again = 0;
    char err[ERR_LEN] = "";
    char *line = malloc(size > 0 ? size : 1); /* an exact-size copy: reads past it are caught */
    check(line != NULL);
    memcpy(line, data, size);
    if (trace_parse_line(line, size, &r, &second, err, sizeof(err)) == SLAP_OK) {
        check_request(&r);
        check(second <= UINT64_MAX / SLAP_NS_PER_SEC);
        check(trace_parse_line(line, size, &again, &second_again, err, sizeof(err)) == SLAP_OK);
        check(again.key_len == r.key_len && memcmp(again.key, r.key, r.key_len) == 0);
        check(second_again == second);
    } else {
        check_message(err);
    }
    free(line);
}

static void fuzz_key(const uint8_t *data, size_t size)
{
    char out[TRACE_KEY_MAX];
    bool hashed = false;
    uint32_t key_size = size > 0 ? (uint32_t)data[0] * 2 : 0;
    const char *key = size > 0 ? (const char *)data + 1 : "";
    size_t key_len = size > 0 ? size - 1 : 0;
    uint32_t len = trace_key(key, key_len, key_size, out, &hashed);
    check_key(out, len);
    check(len >= (key_size < TRACE_KEY_MAX ? key_size : TRACE_KEY_MAX));
    check(hashed || (len >= key_len && memcmp(out, key, key_len) == 0));
    check(!hashed || (len >= 33 && out[0] == 'h'));
}

/* The input as a whole trace file (a memfd), read to its end. */
static void fuzz_reader(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz_trace", MFD_CLOEXEC);
    check(fd >= 0);
    check(write(fd, data, size) == (ssize_t)size);
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    struct trace_options o = {.path = path,
                              .skip_bad = size > 0 && (data[0] & 1),
                              .limit = size > 1 ? data[1] % 8 : 0,
                              .value_max = 100};
    struct trace_reader *t = NULL;
    char err[ERR_LEN] = "";
    if (trace_open(&t, &o, err, sizeof(err)) == SLAP_OK) {
        struct trace_request r;
        uint64_t n = 0, line = 0, offset = 0;
        enum slap_status st;
        while ((st = trace_next(t, &r, err, sizeof(err))) == SLAP_OK) {
            check_request(&r);
            check(r.line > line && r.offset_ns >= offset && r.value_size <= 100);
            line = r.line;
            offset = r.offset_ns;
            n++;
        }
        const struct trace_counts *c = trace_counts(t);
        check(c->requests == n && (o.limit == 0 || n <= o.limit));
        check(n == 0 || (c->first_line <= c->last_line && c->last_line == line));
        if (st == SLAP_ERROR) {
            check_message(err);
        }
    } else {
        check_message(err);
    }
    trace_close(t);
    close(fd);
}

/* The input read as tokens: a byte below the table's size picks a token, others stand as is. */
static size_t render(const uint8_t *data, size_t size, char *out)
{
    size_t len = 0;
    for (size_t i = 0; i < size; i++) {
        if (data[i] < SLAP_ARRAY_SIZE(fuzz_tokens)) {
            size_t n = strlen(fuzz_tokens[data[i]]);
            memcpy(out + len, fuzz_tokens[data[i]], n);
            len += n;
        } else {
            out[len++] = (char)data[i];
        }
    }
    return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_line(data, size);
    fuzz_key(data, size);
    char *text = malloc(size * TOKEN_LEN_MAX + 1);
    check(text != NULL);
    size_t len = render(data, size, text);
    fuzz_line((const uint8_t *)text, len);
    fuzz_reader((const uint8_t *)text, len);
    free(text);
    return 0;
}
