/* Reading Twitter's cache traces (plain or zstd, a file or stdin) as a stream of timed requests. */
#include "slap/model/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "slap/base/quote.h"
#include "slap/base/rng.h"

/*
 * The reader, from the bytes up:
 *
 *   fd ──> raw (the file's bytes) ──zstd?──> text ──lines──> parse ──> held second ──> trace_next
 *
 * A second's requests are held until the first request of a later second (or the end, or
 * TRACE_SECOND_MAX of them) shows how many there are; then they are handed out spread evenly
 * across their second. The line after them waits in `pending`. A malformed line stops the
 * reading, but the requests held before it are still handed out: the error comes after them.
 */

#define TRACE_LINE_MAX 1024  /* longer lines are malformed (a well-formed one is under 340) */
#define TEXT_BUF_SIZE 65536  /* decompressed text, lines are cut from it in place */
#define PLAIN_RAW_SIZE 65536 /* read size of a plain trace */
#define SNIFF_BYTES 4        /* enough to tell zstd's magic */
#define HELD_INITIAL 1024    /* requests of a second held, doubled as needed */
#define QUOTE_MAX 40         /* bytes of a trace shown in a message */
#define QUOTE_BUF (QUOTE_MAX * 4 + 4)
#define WHY_LEN 200                     /* what is wrong with a line, without FILE:LINE */
#define NAME_BYTES 120                  /* bytes of a file name shown in messages, the rest cut */
#define NAME_SHOWN (NAME_BYTES * 4 + 8) /* room for them quoted, each as \xNN at worst */
#define FIELDS 7
#define KEY_HASH_SEED_HI 0x74726163655f6869ULL /* two halves of a 128-bit key hash */
#define KEY_HASH_SEED_LO 0x74726163655f6c6fULL
#define TIMESTAMP_MAX (UINT64_MAX / SLAP_NS_PER_SEC - 1) /* so that offsets fit in 64 bits */

static const unsigned char zstd_magic[SNIFF_BYTES] = {0x28, 0xb5, 0x2f, 0xfd};
static const unsigned char skippable_magic[SNIFF_BYTES - 1] = {0x2a, 0x4d, 0x18}; /* after 0x5? */

/* What next_line found. */
enum line_status {
    LINE_OK,       /* a line (its newline and a trailing CR left out) */
    LINE_TOO_LONG, /* a line longer than TRACE_LINE_MAX, skipped up to its newline */
    LINE_END,      /* no more lines */
    LINE_FAILED,   /* the file could not be read or decompressed: t->failure says why */
};

struct trace_reader {
    struct trace_options opts;
    char name[NAME_SHOWN]; /* the file as messages name it ("stdin" for "-") */
    int fd;
    bool owns_fd;       /* false for stdin, which stays open */
    ZSTD_DStream *zstd; /* NULL for a plain trace */
    size_t zstd_hint;   /* ZSTD_decompressStream's last answer: 0 at a frame's end */
    unsigned char *raw; /* bytes read from fd, not yet used */
    size_t raw_cap, raw_pos, raw_len;
    bool raw_eof;
    char *text; /* text not yet cut into lines: [text_pos, text_len) */
    size_t text_pos, text_len;
    bool text_eof;
    uint64_t line_no;           /* lines read so far */
    uint64_t last_second;       /* timestamp of the latest well-formed line */
    bool seen_request;          /* a well-formed line has been read */
    struct trace_request *held; /* the requests of one second (or part of it) */
    bool *held_hashed;          /* whether each one's key had to be hashed */
    uint32_t held_cap, held_n, held_pos;
    uint64_t held_second;
    struct trace_request pending; /* the first request after those held */
    bool pending_hashed;
    uint64_t pending_second;
    bool has_pending;
    bool ended;  /* no more lines */
    bool failed; /* a malformed line (without skip_bad) or a read error */
    char failure[WHY_LEN + NAME_SHOWN + 32];
    struct trace_counts counts;
};

/* ---- messages ---- */

/* The first QUOTE_MAX bytes of text, printable ASCII as is and any other byte as \xHH. */
static const char *quote(const char *text, size_t len, char buf[QUOTE_BUF])
{
    static const char hex[] = "0123456789abcdef";
    size_t shown = len < QUOTE_MAX ? len : QUOTE_MAX;
    size_t out = 0;
    for (size_t i = 0; i < shown; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch >= 0x20 && ch < 0x7f && ch != '\\') {
            buf[out++] = (char)ch;
        } else {
            buf[out++] = '\\';
            buf[out++] = 'x';
            buf[out++] = hex[ch >> 4];
            buf[out++] = hex[ch & 0xf];
        }
    }
    strcpy(buf + out, len > shown ? "..." : "");
    return buf;
}

/* ---- keys ---- */

/* What every protocol takes in a key: graphic ASCII (no space, control or non-ASCII byte). */
static bool key_is_plain(const char *key, size_t len)
{
    if (len == 0 || len > TRACE_KEY_MAX) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)key[i];
        if (ch <= 0x20 || ch >= 0x7f) {
            return false;
        }
    }
    return true;
}

static size_t write_hex64(char *out, uint64_t v)
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) {
        out[i] = hex[(v >> (60 - 4 * i)) & 0xf];
    }
    return 16;
}

uint32_t trace_key(const char *key, size_t key_len, uint32_t key_size, char *out, bool *hashed)
{
    size_t len;
    *hashed = !key_is_plain(key, key_len);
    if (!*hashed) {
        memcpy(out, key, key_len);
        len = key_len;
    } else {
        out[0] = 'h';
        len = 1;
        len += write_hex64(out + len, rng_hash_bytes(key, key_len, KEY_HASH_SEED_HI));
        len += write_hex64(out + len, rng_hash_bytes(key, key_len, KEY_HASH_SEED_LO));
    }
    size_t padded = key_size < TRACE_KEY_MAX ? key_size : TRACE_KEY_MAX;
    if (len < padded) {
        memset(out + len, '_', padded - len);
        len = padded;
    }
    return (uint32_t)len;
}

/* ---- one line ---- */

/* A line cut at its commas: the key is whatever lies between the first and the last five. */
struct trace_fields {
    const char *at[FIELDS];
    size_t len[FIELDS];
};

static const char *const field_names[FIELDS] = {
    "timestamp", "key", "key size", "value size", "client id", "operation", "TTL",
};

/* Cut the line; false (err says how many fields there are) with fewer than seven. */
static bool split_fields(const char *line, size_t len, struct trace_fields *f, char *err,
                         size_t err_len)
{
    const char *first = memchr(line, ',', len);
    size_t key_at = first != NULL ? (size_t)(first - line) + 1 : len;
    size_t end = len;
    int field = FIELDS - 1;
    for (size_t i = len; i > key_at && field >= 2; i--) {
        if (line[i - 1] == ',') {
            f->at[field] = line + i;
            f->len[field] = end - i;
            end = i - 1;
            field--;
        }
    }
    if (first == NULL || field >= 2) {
        int found = first == NULL ? 1 : 2 + (FIELDS - 1 - field);
        snprintf(err, err_len,
                 "%d field%s, not 7 (timestamp,key,key size,value size,client id,operation,TTL)",
                 found, found == 1 ? "" : "s");
        return false;
    }
    f->at[0] = line;
    f->len[0] = key_at - 1;
    f->at[1] = line + key_at;
    f->len[1] = end - key_at;
    return true;
}

/* A whole number of at most max, digits only; false with err saying what is wrong. */
static bool parse_whole(const struct trace_fields *f, int field, uint64_t max, uint64_t *value,
                        char *err, size_t err_len)
{
    const char *text = f->at[field];
    size_t len = f->len[field];
    char shown[QUOTE_BUF];
    uint64_t v = 0;
    if (len == 0) {
        snprintf(err, err_len, "the %s is empty", field_names[field]);
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9') {
            snprintf(err, err_len, "%s '%s' is not a whole number", field_names[field],
                     quote(text, len, shown));
            return false;
        }
        unsigned digit = (unsigned)(text[i] - '0');
        if (v > (max - digit) / 10) {
            snprintf(err, err_len, "%s '%s' is too large (at most %llu)", field_names[field],
                     quote(text, len, shown), (unsigned long long)max);
            return false;
        }
        v = v * 10 + digit;
    }
    *value = v;
    return true;
}

/* The eleven operations of the format (gat and touch are slap's, not the traces'). */
static enum op_type parse_op(const char *text, size_t len)
{
    enum op_type op = op_by_name(text, len);
    return op == OP_GAT || op == OP_TOUCH ? OP_COUNT : op;
}

/* The five numbers and the operation; false with err saying what is wrong. */
static bool parse_numbers(const struct trace_fields *f, struct trace_request *r, uint64_t *second,
                          uint64_t *key_size, char *err, size_t err_len)
{
    uint64_t value_size, ttl;
    char shown[QUOTE_BUF];
    if (!parse_whole(f, 0, TIMESTAMP_MAX, second, err, err_len) ||
        !parse_whole(f, 2, UINT64_MAX, key_size, err, err_len) ||
        !parse_whole(f, 3, UINT32_MAX, &value_size, err, err_len) ||
        !parse_whole(f, 4, UINT64_MAX, &r->client, err, err_len)) {
        return false;
    }
    r->op = parse_op(f->at[5], f->len[5]);
    if (r->op == OP_COUNT) {
        snprintf(err, err_len,
                 "unknown operation '%s' (get, gets, set, add, replace, cas, "
                 "append, prepend, delete, incr or decr)",
                 quote(f->at[5], f->len[5], shown));
        return false;
    }
    if (!parse_whole(f, 6, UINT32_MAX, &ttl, err, err_len)) {
        return false;
    }
    r->ttl = (uint32_t)ttl;
    r->value_size = op_class(r->op) == OP_CLASS_STORAGE ? (uint32_t)value_size : 0;
    return true;
}

/* The whole line; *hashed says whether the key had to be replaced by its hash. */
static bool parse_request(const char *line, size_t len, struct trace_request *r, uint64_t *second,
                          bool *hashed, char *err, size_t err_len)
{
    struct trace_fields f;
    uint64_t key_size;
    if (!split_fields(line, len, &f, err, err_len) ||
        !parse_numbers(&f, r, second, &key_size, err, err_len)) {
        return false;
    }
    if (key_size == 0 || key_size > TRACE_KEY_MAX) {
        snprintf(err, err_len, "key size %llu is not 1 to %d bytes (memcached's longest key)",
                 (unsigned long long)key_size, TRACE_KEY_MAX);
        return false;
    }
    if (f.len[1] == 0 || f.len[1] > TRACE_KEY_MAX) {
        snprintf(err, err_len, "the key is %zu bytes long, not 1 to %d (memcached's longest key)",
                 f.len[1], TRACE_KEY_MAX);
        return false;
    }
    r->key_len = trace_key(f.at[1], f.len[1], (uint32_t)key_size, r->key, hashed);
    return true;
}

uint64_t trace_due_ns(uint64_t start_ns, uint64_t offset_ns, double speed)
{
    const double two_to_64 = 18446744073709551616.0;
    double scaled = (double)offset_ns / speed;
    if (!(scaled < two_to_64)) {
        return UINT64_MAX; /* also NaN: no speed makes sense of it */
    }
    uint64_t after = (uint64_t)scaled;
    return after < UINT64_MAX - start_ns ? start_ns + after : UINT64_MAX;
}

enum slap_status trace_parse_line(const char *line, size_t len, struct trace_request *r,
                                  uint64_t *second, char *err, size_t err_len)
{
    bool hashed;
    return parse_request(line, len, r, second, &hashed, err, err_len) ? SLAP_OK : SLAP_ERROR;
}

/* ---- bytes: the file, decompressed if need be ---- */

static void fail(struct trace_reader *t, const char *what, const char *detail)
{
    snprintf(t->failure, sizeof(t->failure), "%s: %s%s%s", t->name, what,
             detail != NULL ? ": " : "", detail != NULL ? detail : "");
    t->failed = true;
}

/* Up to cap bytes of the file: > 0 read, 0 at its end, -1 on an error (t->failure). */
static ssize_t read_fd(struct trace_reader *t, void *dst, size_t cap)
{
    for (;;) {
        ssize_t n = read(t->fd, dst, cap);
        if (n >= 0) {
            return n;
        }
        if (errno != EINTR) {
            fail(t, "cannot read", strerror(errno));
            return -1;
        }
    }
}

/* Top up raw from the file: false on a read error; raw_eof at its end. */
static bool fill_raw(struct trace_reader *t)
{
    if (t->raw_pos == t->raw_len) {
        t->raw_pos = t->raw_len = 0;
    }
    ssize_t n = read_fd(t, t->raw + t->raw_len, t->raw_cap - t->raw_len);
    if (n < 0) {
        return false;
    }
    t->raw_eof = n == 0;
    t->raw_len += (size_t)n;
    return true;
}

/* Text of a plain trace: what the sniffing read first, then the file itself. */
static ssize_t read_plain(struct trace_reader *t, char *dst, size_t cap)
{
    if (t->raw_pos < t->raw_len) {
        size_t n = t->raw_len - t->raw_pos < cap ? t->raw_len - t->raw_pos : cap;
        memcpy(dst, t->raw + t->raw_pos, n);
        t->raw_pos += n;
        return (ssize_t)n;
    }
    return read_fd(t, dst, cap);
}

/* Text of a zstd trace (any number of frames): > 0 bytes, 0 at the end, -1 on an error. */
static ssize_t read_zstd(struct trace_reader *t, char *dst, size_t cap)
{
    for (;;) {
        ZSTD_inBuffer in = {t->raw, t->raw_len, t->raw_pos};
        ZSTD_outBuffer out = {dst, cap, 0};
        if (in.pos < in.size || t->zstd_hint != 0) {
            size_t hint = ZSTD_decompressStream(t->zstd, &out, &in);
            if (ZSTD_isError(hint)) {
                fail(t, "cannot decompress", ZSTD_getErrorName(hint));
                return -1;
            }
            t->raw_pos = in.pos;
            t->zstd_hint = hint;
            if (out.pos > 0) {
                return (ssize_t)out.pos;
            }
        }
        if (t->raw_pos < t->raw_len) {
            continue;
        }
        if (t->raw_eof) {
            if (t->zstd_hint != 0) {
                fail(t, "the zstd stream is cut short", NULL);
                return -1;
            }
            return 0;
        }
        if (!fill_raw(t)) {
            return -1;
        }
    }
}

static ssize_t read_text(struct trace_reader *t, char *dst, size_t cap)
{
    return t->zstd != NULL ? read_zstd(t, dst, cap) : read_plain(t, dst, cap);
}

/* ---- lines ---- */

/* Drop the rest of an overlong line, up to and with its newline. */
static enum line_status skip_long_line(struct trace_reader *t)
{
    for (;;) {
        char *start = t->text + t->text_pos;
        char *nl = memchr(start, '\n', t->text_len - t->text_pos);
        if (nl != NULL) {
            t->text_pos = (size_t)(nl + 1 - t->text);
            return LINE_TOO_LONG;
        }
        t->text_pos = t->text_len = 0;
        ssize_t n = t->text_eof ? 0 : read_text(t, t->text, TEXT_BUF_SIZE);
        if (n < 0) {
            return LINE_FAILED;
        }
        if (n == 0) {
            t->text_eof = true;
            return LINE_TOO_LONG;
        }
        t->text_len = (size_t)n;
    }
}

/* Move the partial line to the front and read more text after it. */
static enum line_status refill_text(struct trace_reader *t)
{
    size_t avail = t->text_len - t->text_pos;
    memmove(t->text, t->text + t->text_pos, avail);
    t->text_pos = 0;
    t->text_len = avail;
    ssize_t n = read_text(t, t->text + avail, TEXT_BUF_SIZE - avail);
    if (n < 0) {
        return LINE_FAILED;
    }
    t->text_eof = n == 0;
    t->text_len += (size_t)n;
    return LINE_OK;
}

static enum line_status next_line(struct trace_reader *t, const char **line, size_t *len)
{
    for (;;) {
        char *start = t->text + t->text_pos;
        size_t avail = t->text_len - t->text_pos;
        char *nl = memchr(start, '\n', avail);
        if (nl != NULL || (t->text_eof && avail > 0 && avail <= TRACE_LINE_MAX)) {
            *len = nl != NULL ? (size_t)(nl - start) : avail;
            t->text_pos += *len + (nl != NULL);
            *line = start;
            *len -= *len > 0 && start[*len - 1] == '\r';
            return *len > TRACE_LINE_MAX ? LINE_TOO_LONG : LINE_OK;
        }
        if (avail > TRACE_LINE_MAX) {
            return skip_long_line(t);
        }
        if (t->text_eof) {
            return LINE_END;
        }
        if (refill_text(t) == LINE_FAILED) {
            return LINE_FAILED;
        }
    }
}

/* ---- seconds ---- */

/* The next well-formed request: SLAP_OK, SLAP_AGAIN at the end, SLAP_ERROR (t->failed). */
static enum slap_status read_request(struct trace_reader *t, struct trace_request *r,
                                     uint64_t *second, bool *hashed)
{
    char why[WHY_LEN];
    for (;;) {
        const char *line = NULL;
        size_t len = 0;
        enum line_status ls = next_line(t, &line, &len);
        if (ls == LINE_END || ls == LINE_FAILED) {
            t->ended = ls == LINE_END;
            return ls == LINE_END ? SLAP_AGAIN : SLAP_ERROR;
        }
        t->line_no++;
        bool ok = false;
        if (ls == LINE_TOO_LONG) {
            snprintf(why, sizeof(why), "a line longer than %d bytes", TRACE_LINE_MAX);
        } else if (parse_request(line, len, r, second, hashed, why, sizeof(why))) {
            ok = !t->seen_request || *second >= t->last_second;
            if (!ok) {
                snprintf(why, sizeof(why), "timestamp %llu is before the previous request's %llu",
                         (unsigned long long)*second, (unsigned long long)t->last_second);
            }
        }
        if (ok) {
            t->seen_request = true;
            t->last_second = *second;
            r->line = t->line_no;
            return SLAP_OK;
        }
        if (!t->opts.skip_bad) {
            snprintf(t->failure, sizeof(t->failure), "%s:%llu: %s", t->name,
                     (unsigned long long)t->line_no, why);
            t->failed = true;
            return SLAP_ERROR;
        }
        t->counts.skipped++;
    }
}

/* Room for one more held request: false (t->failed) when memory runs out. */
static bool hold_room(struct trace_reader *t)
{
    if (t->held_n < t->held_cap) {
        return true;
    }
    uint32_t cap = t->held_cap == 0 ? HELD_INITIAL : t->held_cap * 2;
    struct trace_request *held = realloc(t->held, cap * sizeof(*held));
    if (held != NULL) {
        t->held = held;
    }
    bool *hashed = held != NULL ? realloc(t->held_hashed, cap * sizeof(*hashed)) : NULL;
    if (hashed == NULL) {
        fail(t, "out of memory holding the requests of one second", NULL);
        return false;
    }
    t->held_hashed = hashed;
    t->held_cap = cap;
    return true;
}

static bool hold(struct trace_reader *t, const struct trace_request *r, bool hashed,
                 uint64_t second)
{
    if (!hold_room(t)) {
        return false;
    }
    t->held[t->held_n] = *r;
    t->held_hashed[t->held_n] = hashed;
    t->held_second = second;
    t->held_n++;
    return true;
}

/* Hold the next second's requests (or its next TRACE_SECOND_MAX), up to a malformed line. */
static void fill_second(struct trace_reader *t)
{
    t->held_n = t->held_pos = 0;
    if (t->has_pending) {
        t->has_pending = false;
        if (!hold(t, &t->pending, t->pending_hashed, t->pending_second)) {
            return;
        }
    }
    while (!t->ended && !t->failed) {
        if (read_request(t, &t->pending, &t->pending_second, &t->pending_hashed) != SLAP_OK) {
            return;
        }
        if (t->held_n > 0 &&
            (t->pending_second != t->held_second || t->held_n == TRACE_SECOND_MAX)) {
            t->has_pending = true;
            return;
        }
        if (!hold(t, &t->pending, t->pending_hashed, t->pending_second)) {
            return;
        }
    }
}

/* The next held request, at its place in its second, with its value capped. */
static void hand_out(struct trace_reader *t, struct trace_request *r)
{
    struct trace_counts *c = &t->counts;
    uint32_t i = t->held_pos++;
    *r = t->held[i];
    if (c->requests == 0) {
        c->first_line = r->line;
        c->first_second = t->held_second;
    }
    r->offset_ns = (t->held_second - c->first_second) * SLAP_NS_PER_SEC +
                   (uint64_t)i * SLAP_NS_PER_SEC / t->held_n;
    if (t->opts.value_max != 0 && r->value_size > t->opts.value_max) {
        r->value_size = t->opts.value_max;
        c->values_cut++;
    }
    c->keys_hashed += t->held_hashed[i];
    c->requests++;
    c->last_line = r->line;
    c->last_second = t->held_second;
}

enum slap_status trace_next(struct trace_reader *t, struct trace_request *r, char *err,
                            size_t err_len)
{
    if (t->opts.limit != 0 && t->counts.requests >= t->opts.limit) {
        return SLAP_AGAIN;
    }
    if (t->held_pos == t->held_n) {
        fill_second(t);
    }
    if (t->held_pos < t->held_n) {
        hand_out(t, r);
        return SLAP_OK;
    }
    if (t->failed) {
        snprintf(err, err_len, "%s", t->failure);
        return SLAP_ERROR;
    }
    return SLAP_AGAIN;
}

const struct trace_counts *trace_counts(const struct trace_reader *t)
{
    return &t->counts;
}

/* ---- opening and closing ---- */

/* Refuse what is clearly not a text trace: other compressors' files, binary data. */
static bool check_plain(struct trace_reader *t)
{
    static const struct {
        const char *magic;
        size_t len;
        const char *what;
    } others[] = {
        {"\x1f\x8b", 2, "gzip"},
        {"\xfd"
         "7zXZ",
         5, "xz"},
        {"BZh", 3, "bzip2"},
        {"\x04\x22\x4d\x18", 4, "lz4"},
    };
    char what[64];
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(others); i++) {
        if (t->raw_len >= others[i].len && memcmp(t->raw, others[i].magic, others[i].len) == 0) {
            snprintf(what, sizeof(what), "%s-compressed: decompress it, or compress it with zstd",
                     others[i].what);
            fail(t, "is not a trace: it is", what);
            return false;
        }
    }
    if (memchr(t->raw, '\0', t->raw_len) != NULL) {
        fail(t, "is neither plain text nor zstd-compressed", "it begins with binary data");
        return false;
    }
    return true;
}

/* Read the first bytes and choose plain text or zstd by them (a zstd frame, or a skippable
 * frame, which zstd streams may begin with). */
static bool sniff(struct trace_reader *t)
{
    while (t->raw_len < SNIFF_BYTES && !t->raw_eof) {
        if (!fill_raw(t)) {
            return false;
        }
    }
    bool zstd = t->raw_len >= SNIFF_BYTES &&
                (memcmp(t->raw, zstd_magic, SNIFF_BYTES) == 0 ||
                 ((t->raw[0] & 0xf0) == 0x50 && memcmp(t->raw + 1, skippable_magic, 3) == 0));
    if (!zstd) {
        return check_plain(t);
    }
    t->zstd = ZSTD_createDStream();
    if (t->zstd == NULL || ZSTD_isError(ZSTD_initDStream(t->zstd))) {
        fail(t, "cannot start decompressing", NULL);
        return false;
    }
    return true;
}

/* Name the file in messages: its path quoted by quote.h's rule, cut after NAME_BYTES bytes. */
static void set_name(struct trace_reader *t, const char *path)
{
    char *at = t->name;
    if (strcmp(path, "-") == 0) {
        snprintf(t->name, sizeof(t->name), "stdin");
        return;
    }
    quote_put(&at, t->name + sizeof(t->name), path, strlen(path), NAME_BYTES, '\'');
    *at = '\0';
}

static bool open_fd(struct trace_reader *t, const char *path)
{
    if (strcmp(path, "-") == 0) {
        t->fd = STDIN_FILENO;
        return true;
    }
    t->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (t->fd < 0) {
        fail(t, "cannot open", strerror(errno));
        return false;
    }
    t->owns_fd = true;
    return true;
}

enum slap_status trace_open(struct trace_reader **out, const struct trace_options *o, char *err,
                            size_t err_len)
{
    struct trace_reader *t = calloc(1, sizeof(*t));
    *out = NULL;
    if (t == NULL) {
        snprintf(err, err_len, "out of memory opening the trace");
        return SLAP_ERROR;
    }
    t->opts = *o;
    t->fd = -1;
    set_name(t, o->path);
    t->raw_cap = ZSTD_DStreamInSize() > PLAIN_RAW_SIZE ? ZSTD_DStreamInSize() : PLAIN_RAW_SIZE;
    t->raw = malloc(t->raw_cap);
    t->text = malloc(TEXT_BUF_SIZE);
    if (t->raw == NULL || t->text == NULL) {
        fail(t, "out of memory", NULL);
        goto fail;
    }
    if (!open_fd(t, o->path) || !sniff(t)) {
        goto fail;
    }
    *out = t;
    return SLAP_OK;
fail:
    snprintf(err, err_len, "%s", t->failure);
    trace_close(t);
    return SLAP_ERROR;
}

void trace_close(struct trace_reader *t)
{
    if (t == NULL) {
        return;
    }
    if (t->owns_fd) {
        close(t->fd);
    }
    ZSTD_freeDStream(t->zstd);
    free(t->raw);
    free(t->text);
    free(t->held);
    free(t->held_hashed);
    free(t);
}
