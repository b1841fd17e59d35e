/* libFuzzer target: a server's answer to slap's own `stats`, in text and in binary, read as the
 * bytes come (server_stats_parse, server_stats_parse_binary): in bounds, and its promises kept. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/net/server_stats.h"

#define WHY_LEN 256
#define TOKEN_LEN_MAX 80 /* longest entry of text_tokens, and more */
#define PACKET_MAX 160   /* longest packet packet() makes: header, extras, key and value */
#define STATS_NUMBER_MAX 18446744073709551616.0 /* 2^64: memcached's counters are 64 bits */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The figures' names and a few others a server says. */
static const char *const stat_names[] = {
    "cmd_get",       "cmd_set",
    "get_hits",      "get_misses",
    "evictions",     "bytes_read",
    "bytes_written", "curr_connections",
    "rusage_user",   "rusage_system",
    "threads",       "version",
    "pid",           "",
    "cmd_get ",
};
/* Values: numbers at and past their limits, and words that are none. */
static const char *const stat_values[] = {
    "0",
    "1",
    "12345",
    "0.123456",
    "-1",
    "1e308",
    "nan",
    "inf",
    "-0",
    "1.6.21",
    "",
    "0x10",
    " 1",
    "1 ",
    "1x",
    "1e-320",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999",
    "1.5e19",
    "1.9e19",
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
};
/* Pieces of text answers: a byte below the table's size picks one (see render). */
static const char *const text_tokens[] = {
    "STAT ",
    " ",
    "\r\n",
    "\n",
    "END",
    "END\r\n",
    "ERROR\r\n",
    "STORED\r\n",
    "cmd_get",
    "cmd_set",
    "get_hits",
    "get_misses",
    "evictions",
    "bytes_read",
    "bytes_written",
    "curr_connections",
    "rusage_user",
    "rusage_system",
    "threads",
    "0",
    "1",
    "0.5",
    "-1",
    "nan",
    "inf",
    "1e308",
    "18446744073709551616",
    "\r",
    "\t",
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
};

static void check(int ok)
{
    if (!ok) {
        __builtin_trap();
    }
}

/* A reason: one line of printable ASCII, NUL-terminated inside why. */
static void check_why(const char *why)
{
    size_t len = strnlen(why, WHY_LEN);
    check(len > 0 && len < WHY_LEN);
    for (size_t i = 0; i < len; i++) {
        check(why[i] >= 0x20 && why[i] < 0x7f);
    }
}

/* Every figure kept is a count or a time a server can hold. */
static void check_figures(const struct server_stats *s)
{
#define FUZZ_CHECK_FIGURE(field)                                                                   \
    check(isfinite(s->field) && s->field >= 0 && s->field <= STATS_NUMBER_MAX);
    SERVER_STATS_FIELDS(FUZZ_CHECK_FIGURE)
#undef FUZZ_CHECK_FIGURE
    check(isfinite(s->threads) && s->threads >= 0 && s->threads <= STATS_NUMBER_MAX);
}

typedef enum slap_status (*stats_parser)(const char *, size_t, struct server_stats *, char *,
                                         size_t);

/* The answer as it came, whole and cut at `cut`: what the first bytes decided (an answer or a
 * refusal) the whole decides the same way, as the reader re-parses what has come so far (a
 * refusal's words may differ: it quotes the bytes that came). */
static void fuzz_answer(stats_parser parse, const char *answer, size_t len, size_t cut)
{
    struct server_stats whole, part;
    char why_whole[WHY_LEN] = "", why_part[WHY_LEN] = "";
    char *text = malloc(len > 0 ? len : 1); /* exact size: reads past len are caught */
    check(text != NULL);
    memcpy(text, answer, len);
    enum slap_status st = parse(text, len, &whole, why_whole, sizeof(why_whole));
    if (st == SLAP_OK) {
        check_figures(&whole);
    } else if (st == SLAP_ERROR) {
        check_why(why_whole);
    } else {
        check(st == SLAP_AGAIN);
    }
    cut = len > 0 ? cut % len : 0;
    enum slap_status st_part = parse(text, cut, &part, why_part, sizeof(why_part));
    if (st_part != SLAP_AGAIN) {
        check(st_part == st);
        check(st != SLAP_OK || memcmp(&part, &whole, sizeof(part)) == 0);
    }
    free(text);
}

/* The input read as tokens: a byte below the table's size picks a token, others stand as is. */
static size_t render(const uint8_t *data, size_t size, char *out)
{
    size_t len = 0;
    for (size_t i = 0; i < size; i++) {
        if (data[i] < SLAP_ARRAY_SIZE(text_tokens)) {
            size_t n = strlen(text_tokens[data[i]]);
            memcpy(out + len, text_tokens[data[i]], n);
            len += n;
        } else {
            out[len++] = (char)data[i];
        }
    }
    return len;
}

/* Every figure said once, well: what a server's answer begins with. */
static size_t text_preamble(char *out)
{
    size_t len = 0;
    for (size_t i = 0; i < 10; i++) {
        len += (size_t)sprintf(out + len, "STAT %s %zu\r\n", stat_names[i], i);
    }
    return len;
}

static void put_be(unsigned char *p, uint32_t v, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++) {
        p[i] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
    }
}

/* One binary answer packet from 4 bytes of spec at d: the magic, opcode and status mostly
 * right, a name and a value from the tables, extras of 0 to 3 bytes, a body length mostly
 * true. Its length. */
static size_t packet(const uint8_t *d, unsigned char *out)
{
    static const unsigned char opcodes[] = {0x10, 0x10, 0x10, 0x21, 0x10, 0x21, 0x00, 0x0a};
    const char *name = stat_names[d[1] % SLAP_ARRAY_SIZE(stat_names)];
    const char *value = stat_values[d[2] % SLAP_ARRAY_SIZE(stat_values)];
    size_t key = strlen(name), extras = d[0] >> 6, vlen = strlen(value);
    uint32_t body = (uint32_t)(extras + key + vlen);
    memset(out, 0, 24 + extras);
    out[0] = (d[0] & 0x38) == 0x38 ? 0x80 : 0x81;
    out[1] = opcodes[d[0] & 7];
    put_be(out + 2, (uint32_t)key, 2);
    out[4] = (unsigned char)extras;
    put_be(out + 6, (d[3] & 0xe0) == 0xe0 ? d[3] & 0x1f : 0, 2);
    body = (d[3] & 0x18) == 0x18 ? body + (d[3] & 7) - 4 : body;      /* a little off */
    body = (d[3] & 0x1f) == 0x1f ? 0xffffffffu - (d[2] & 0xf) : body; /* far off */
    put_be(out + 8, body, 4);
    memcpy(out + 24 + extras, name, key);
    memcpy(out + 24 + extras + key, value, vlen);
    return 24 + extras + key + vlen;
}

/* The input read as binary packets (4 bytes each, see packet), then the end packet when the
 * last byte says so; with every figure sent well first when the first byte says so. */
static size_t render_binary(const uint8_t *data, size_t size, char *out)
{
    static const uint8_t good[4] = {0, 0, 1, 0};
    size_t len = 0;
    for (size_t i = 0; size > 0 && (data[0] & 1) && i < 10; i++) {
        uint8_t spec[4] = {good[0], (uint8_t)i, good[2], good[3]};
        len += packet(spec, (unsigned char *)out + len);
    }
    for (size_t i = 1; i + 4 <= size; i += 4) {
        len += packet(data + i, (unsigned char *)out + len);
    }
    if (size > 0 && (data[size - 1] & 1)) {
        static const uint8_t end[4] = {0, 13, 10, 0}; /* no key, no value */
        len += packet(end, (unsigned char *)out + len);
    }
    return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t cut = size > 1 ? (size_t)data[size - 1] << 8 | data[size - 2] : 0;
    fuzz_answer(server_stats_parse, (const char *)data, size, cut);
    fuzz_answer(server_stats_parse_binary, (const char *)data, size, cut);

    char *text = malloc(size * TOKEN_LEN_MAX + 512);
    check(text != NULL);
    size_t len = size > 0 && (data[0] & 1) ? text_preamble(text) : 0;
    len += render(data, size, text + len);
    fuzz_answer(server_stats_parse, text, len, cut);
    free(text);

    char *packets = malloc((size / 4 + 12) * PACKET_MAX);
    check(packets != NULL);
    len = render_binary(data, size, packets);
    fuzz_answer(server_stats_parse_binary, packets, len, cut);
    free(packets);
    return 0;
}
