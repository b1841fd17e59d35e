/* What clients send: keys, values, the set/get mix and each client's key window. */
#ifndef SLAP_WORKLOAD_H
#define SLAP_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/base/rng.h"
#include "slap/model/cfgfile.h"
#include "slap/model/keydist.h"
#include "slap/model/keys.h"
#include "slap/model/ops.h"

#define WORKLOAD_PPM 1000000u

#define WORKLOAD_POOL_SLACK 4096u /* values start at one of this many offsets of the pool */

/* What the workload is made of, as the command line asked. */
struct workload_plan {
    uint32_t key_size;              /* bytes of every key, when key_sizes is empty */
    uint32_t value_size;            /* bytes of every value, when value_sizes is empty */
    struct size_dist key_sizes;     /* n == 0: every key is key_size bytes */
    struct size_dist value_sizes;   /* n == 0: every value is value_size bytes */
    uint64_t win_size;              /* -w keys per client window */
    double mix[OP_COUNT];           /* share of each operation, summing to 1 */
    double overwrite;               /* -o share of sets that overwrite a key already set */
    double verify;                  /* -v share of gets whose value is checked */
    double exp_verify;              /* -e share of sets with an expiry time */
    uint64_t exp_time_ns;           /* --exp_time */
    uint32_t division;              /* -d keys per multi-get */
    uint32_t rep_write;             /* -p: sets go to the first N servers; 0: the key's server */
    struct key_dist key_pop;        /* --key_dist: the law of the commands on a stored key */
    struct key_pattern key_pattern; /* --key_pattern: laws per command, over the defaults */
    uint64_t key_min;               /* --key_min, --key_max: this host's keys are key_min .. */
    uint64_t key_count;             /* key_min + key_count - 1, shared by every client; 0: each
                                       client has its window of win_size keys */
    bool trace;                     /* --trace: keys and values come from the trace, */
    uint32_t trace_value_max;       /* values of up to this many bytes */
};

/* Read-only after workload_init: shared by every thread. */
struct workload {
    struct key_layout keys; /* how keys are made, read, and how long they are */
    uint32_t value_size;    /* bytes of the longest value */
    struct size_dist value_sizes;
    bool fixed_values; /* every value is value (below), value_size bytes */
    uint64_t win_size; /* keys in each client's window (bounds: in the range) */
    bool bounds;       /* --key_min/--key_max: one range of keys for every client, named
                          by number alone (keys.shared; slot s is key keys.base + s) */
    struct key_dist key_law[OP_COUNT]; /* each op's law (KEY_DIST_SEQUENTIAL: the walk) */
    uint32_t walk_ops;                 /* set, add when they walk (the ops that fill a window) */
    uint32_t mix_ppm[OP_COUNT];        /* share of each operation, parts per million */
    uint32_t mix_ops;                  /* the ops with a share: op_bit() of each */
    enum op_type mix_default;          /* the op sent when no other is due: get, else the largest */
    uint8_t mix_others[OP_COUNT];      /* the ops with a share but mix_default, in op order */
    uint32_t mix_nothers;              /* how many */
    uint32_t overwrite_ppm;            /* share of sets that rewrite a key already set */
    uint32_t verify_ppm;               /* share of gets whose value is checked */
    uint32_t expire_ppm;               /* share of sets with an expiry time */
    uint32_t exp_time_s;               /* that expiry time */
    uint32_t division;                 /* keys per get */
    bool track_slots;                  /* versions and expiry are kept per slot (-v, -e, -o) */
    char *value;                       /* value_size printable bytes followed by "\r\n" */
    char *pool;                        /* value_size + WORKLOAD_POOL_SLACK printable bytes */
};

/* What a client knows of one key of its window, when -v, -e or -o need it. */
struct slot_state {
    uint32_t version;        /* sets issued for the key */
    uint32_t stored_version; /* the version the server holds (last STORED) */
    uint32_t stored_ms;      /* when it was stored, ms since the run began */
    uint32_t expire_ms;      /* when it expires, or 0 */
    uint16_t pending;        /* sets in flight */
    bool ambiguous;          /* sets crossed each other: which one the server kept is unknown */
};

enum slap_status workload_init(struct workload *w, const struct workload_plan *p);
/* The ops the run may send: those of the mix, and gets for a cas without a token. */
uint32_t workload_ops(const struct workload *w);
/* --trace: value bytes of that size: a decimal number when it is short enough to be one
 * (20 bytes or less, so that a trace's incr and decr find numbers), else printable bytes. */
const char *workload_trace_value(const struct workload *w, uint32_t size);
/* Does the run need its windows filled first? No command of its mix walks the window to store
 * new keys (no set or add, or they draw by a law); never with bounds (a key never set is a
 * miss). */
bool workload_needs_fill(const struct workload *w);
void workload_free(struct workload *w);

/* A version of a slot's value: its length and bytes (in the pool, no "\r\n" after it). */
uint32_t workload_value_len(const struct workload *w, uint32_t client_id, uint64_t slot,
                            uint32_t version);
const char *workload_value(const struct workload *w, uint32_t client_id, uint64_t slot,
                           uint32_t version);

/* A client's window: sets walk it in order; gets pick a slot already set. */
struct key_window {
    uint64_t next_set;          /* slot the next set writes */
    uint64_t filled;            /* slots [0, filled) hold a value written by this run
                                   (bounds: the whole range, whoever wrote it) */
    uint64_t walk[OP_COUNT];    /* the place of each other op that walks (KEY_DIST_SEQUENTIAL) */
    uint32_t mix_acc[OP_COUNT]; /* deterministic mix: an op each time its sum reaches PPM */
};

void window_init(struct key_window *win, const struct workload *w);
/* Bounds: the client's walks begin at slot start (clients spread over the range), and every
 * key of the range may be read (one never set is a miss). */
void window_start(struct key_window *win, const struct workload *w, uint64_t start);
/*
 * The next operation by the mix, deterministic: every op but the default one adds its
 * share to a sum of its own at each step and is sent when that sum reaches a million;
 * otherwise the default op (get) is. With sets and gets alone this is memaslap's order
 * (0.1/0.9 gives one set, then nine gets); each op starts one step short of being due,
 * so the first operations are one of each.
 */
enum op_type window_next_op(struct key_window *win, const struct workload *w);
/*
 * A multi-get of n keys stands for n gets in the mix, as in memaslap (with
 * 0.1/0.9 and -d 10, one set for nine keys read): account for the other n - 1.
 */
void window_more_gets(struct key_window *win, const struct workload *w, uint32_t n);
/* Slot for the next set, advancing the walk. */
uint64_t window_take_set_slot(struct key_window *win, const struct workload *w);
/* A set of the walk was stored: one more slot may be read. */
void window_set_done(struct key_window *win, const struct workload *w);
/* --key_dist=latest: the slot set rank sets ago (0: the latest), of the slots set so far. */
uint64_t window_latest_slot(const struct key_window *win, const struct workload *w, uint64_t rank);
/* A slot already set, uniformly; only when window_can_get. */
uint64_t window_pick_get_slot(const struct key_window *win, struct rng *r);

static inline bool window_can_get(const struct key_window *win)
{
    return win->filled > 0;
}

/* The walk of op (not set's or add's) over n keys: its next slot, from where it is. */
static inline uint64_t window_walk(struct key_window *win, enum op_type op, uint64_t n)
{
    uint64_t slot = win->walk[op] < n ? win->walk[op] : 0;
    win->walk[op] = slot + 1;
    return slot;
}

/*
 * The slot op acts on among n (the keys stored, the window, or counters): a draw by the op's
 * law, its walk, or (latest) the slot stored that many sets ago.
 */
static inline uint64_t window_pick(struct key_window *win, const struct workload *w,
                                   enum op_type op, uint64_t n, struct rng *r)
{
    const struct key_dist *d = &w->key_law[op];
    if (d->kind == KEY_DIST_SEQUENTIAL) {
        return window_walk(win, op, n);
    }
    uint64_t pick = key_dist_pick(d, n, r);
    return d->kind == KEY_DIST_LATEST ? window_latest_slot(win, w, pick) : pick;
}

#endif
