/* Key popularity inside a window: which of n keys a command acts on (uniform, zipf, gaussian,
 * latest, or the walk), and --key_pattern's law per command. */
#ifndef SLAP_KEYDIST_H
#define SLAP_KEYDIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slap/base/common.h"
#include "slap/base/rng.h"
#include "slap/model/ops.h"

enum key_dist_kind {
    KEY_DIST_UNIFORM = 0,    /* every key alike (memaslap) */
    KEY_DIST_ZIPF = 1,       /* rank r (0-based) drawn with weight 1 / (r + 1)^s */
    KEY_DIST_GAUSSIAN = 2,   /* normal around n / 2, standard deviation n / 6, cut to [0, n) */
    KEY_DIST_LATEST = 3,     /* zipf over recency: rank 0 the key set last (YCSB's "latest");
                                key_dist_pick gives the rank, window_latest_slot the key */
    KEY_DIST_SEQUENTIAL = 4, /* no draw: the keys in order, a walk (--key_pattern only; the
                                caller keeps the walk's place) */
};
#define KEY_DIST_KINDS (KEY_DIST_SEQUENTIAL + 1)

/* The laws by name, one row per kind: what --key_dist and --key_pattern read, what the header
 * shows and what messages list. */
struct key_dist_row {
    const char *name;
    enum key_dist_kind kind;
    bool exponent;     /* takes NAME:S (zipf's exponent) */
    bool pattern_only; /* --key_pattern's alone (sequential) */
};
extern const struct key_dist_row key_dist_rows[];
extern const size_t key_dist_row_count;
/* The name of a kind ("zipf"), "?" for none. */
const char *key_dist_name(enum key_dist_kind kind);
/* The --key_dist laws as messages list them, "uniform, zipf, zipf:S with 0 < S <= 10, ...",
 * into buf. */
void key_dist_names(char *buf, size_t len);

struct key_dist {
    enum key_dist_kind kind;
    double s; /* zipf exponent, > 0 (default 0.99); unused otherwise */
};

/* A row's name, NAME:S when it takes an exponent (not a pattern_only row's); SLAP_ERROR with
 * one line in err otherwise. */
enum slap_status key_dist_parse(const char *text, struct key_dist *d, char *err, size_t err_len);
/* key_dist_pick for any kind; the inline part below takes the uniform draws itself. */
uint64_t key_dist_pick_shaped(const struct key_dist *d, uint64_t n, struct rng *r);

/*
 * A key index in [0, n), n >= 1, from the thread's generator. No allocation and
 * no table: n may change from call to call (a window filling up), so zipf uses
 * rejection-inversion sampling (O(1) expected per draw). Inline for the uniform
 * draw: a multi-get picks -d keys a request.
 */
static inline uint64_t key_dist_pick(const struct key_dist *d, uint64_t n, struct rng *r)
{
    return d->kind == KEY_DIST_UNIFORM && n > 1 ? rng_below(r, n) : key_dist_pick_shaped(d, n, r);
}

/*
 * --key_pattern OP:LAW[,OP:LAW...] as given: OP a command of --mix, or write (set, add, replace,
 * append, prepend, cas), read (get, gets, gat, touch) or all; LAW sequential or a --key_dist law.
 * Arrays of one type each (no padding inside a field: plans are compared field by field).
 */
#define KEY_PATTERN_MAX 16
struct key_pattern {
    double s[KEY_PATTERN_MAX];      /* zipf, latest: the exponent */
    uint32_t ops[KEY_PATTERN_MAX];  /* the op_bit()s each item names */
    uint32_t kind[KEY_PATTERN_MAX]; /* its law: enum key_dist_kind */
    uint32_t n;                     /* items; 0: no --key_pattern */
};

#define KEY_PATTERN_WRITE_OPS OP_STORAGE_OPS
#define KEY_PATTERN_READ_OPS (OP_RETRIEVAL_OPS | (1u << OP_TOUCH))

/* SLAP_ERROR with one line in err when text is not OP:LAW[,OP:LAW...]. */
enum slap_status key_pattern_parse(const char *text, struct key_pattern *p, char *err,
                                   size_t err_len);
/* The pattern as it reads back ("set:uniform,get:zipf:0.99"); the bytes it needed. */
size_t key_pattern_format(const struct key_pattern *p, char *buf, size_t len);
/*
 * The law of each op: set and add walk, incr and decr draw uniformly among their counters,
 * every other op (those on a stored key) takes stored (--key_dist); then the pattern's items,
 * each over the ones before.
 */
void key_pattern_resolve(const struct key_pattern *p, const struct key_dist *stored,
                         struct key_dist laws[OP_COUNT]);
/* "uniform", "zipf:0.99", "sequential", ... into buf. */
void key_dist_format(const struct key_dist *d, char *buf, size_t len);

#endif
