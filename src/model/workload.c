/* What clients send: keys, values, the set/get mix and each client's key window. */
#include "slap/model/workload.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/model/trace.h"

static const char filler[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

static uint32_t ppm(double share)
{
    return (uint32_t)lround(share * WORKLOAD_PPM);
}

static void fill_printable(char *out, size_t n, uint64_t seed)
{
    struct rng r = {.state = seed}; /* fixed: runs send the same bytes */
    for (size_t i = 0; i < n; i++) {
        out[i] = filler[rng_below(&r, sizeof(filler) - 1)];
    }
}

static bool dist_is_fixed(const struct size_dist *d)
{
    return d->n == 1 && d->r[0].min == d->r[0].max;
}

/* The mix's shares in parts per million (summing to a million), and its default op. */
static void workload_mix(struct workload *w, const double *mix)
{
    uint32_t total = 0;
    w->mix_default = OP_COUNT;
    for (int op = 0; op < OP_COUNT; op++) {
        w->mix_ppm[op] = ppm(mix[op]);
        total += w->mix_ppm[op];
        w->mix_ops |= w->mix_ppm[op] > 0 ? op_bit((enum op_type)op) : 0;
        if (w->mix_ppm[op] > 0 &&
            (w->mix_default == OP_COUNT || w->mix_ppm[op] > w->mix_ppm[w->mix_default])) {
            w->mix_default = (enum op_type)op;
        }
    }
    if (w->mix_ppm[OP_GET] > 0) {
        w->mix_default = OP_GET; /* memaslap's: a get unless something else is due */
    }
    if (w->mix_default < OP_COUNT && total != WORKLOAD_PPM) {
        w->mix_ppm[w->mix_default] += WORKLOAD_PPM - total; /* rounding */
    }
    for (int op = 0; op < OP_COUNT; op++) {
        if (op != (int)w->mix_default && w->mix_ppm[op] > 0) {
            w->mix_others[w->mix_nothers++] = (uint8_t)op;
        }
    }
}

enum slap_status workload_init(struct workload *w, const struct workload_plan *p)
{
    memset(w, 0, sizeof(*w));
    struct size_dist key_sizes = p->key_sizes;
    w->value_sizes = p->value_sizes;
    if (key_sizes.n == 0) {
        size_dist_fixed(&key_sizes, p->key_size);
    }
    if (w->value_sizes.n == 0) {
        size_dist_fixed(&w->value_sizes, p->value_size);
    }
    w->value_size = size_dist_max(&w->value_sizes);
    if (p->trace) { /* the trace's values, up to their bound */
        w->value_size = p->trace_value_max;
    }
    /* a trace's keys are its own (trace.c), up to TRACE_KEY_MAX: buffers hold the longest */
    key_layout_init(&w->keys, &key_sizes, p->trace ? TRACE_KEY_MAX : 0, p->key_count > 0,
                    p->key_min);
    w->win_size = p->win_size;
    w->bounds = p->key_count > 0;
    if (w->bounds) {
        w->win_size = p->key_count;
    }
    key_pattern_resolve(&p->key_pattern, &p->key_pop, w->key_law);
    for (int op = OP_SET; op <= OP_ADD; op += OP_ADD - OP_SET) {
        w->walk_ops |= w->key_law[op].kind == KEY_DIST_SEQUENTIAL ? op_bit((enum op_type)op) : 0;
    }
    workload_mix(w, p->mix);
    w->overwrite_ppm = ppm(p->overwrite);
    w->verify_ppm = ppm(p->verify);
    w->expire_ppm = ppm(p->exp_verify);
    w->exp_time_s = (uint32_t)(p->exp_time_ns / 1000000000ULL);
    w->division = p->division;
    w->track_slots = !w->bounds && (p->verify > 0 || p->exp_verify > 0 || p->overwrite > 0 ||
                                    p->rep_write > 0); /* bounds: no version is one client's */
    w->fixed_values = dist_is_fixed(&w->value_sizes) && !w->track_slots;
    w->value = malloc((size_t)w->value_size + 2);
    w->pool = malloc((size_t)w->value_size + WORKLOAD_POOL_SLACK);
    if (w->value == NULL || w->pool == NULL) {
        return SLAP_ERROR;
    }
    fill_printable(w->value, w->value_size, 0x736c6170);
    memcpy(w->value + w->value_size, "\r\n", 2);
    fill_printable(w->pool, (size_t)w->value_size + WORKLOAD_POOL_SLACK, 0x706f6f6c);
    return SLAP_OK;
}

uint32_t workload_ops(const struct workload *w)
{
    uint32_t ops = w->mix_ops | op_bit(OP_SET); /* a get with nothing to read is a set */
    if (w->mix_ops & op_bit(OP_CAS)) {
        ops |= op_bit(OP_GETS);
    }
    return ops;
}

#define WORKLOAD_NUMBER_MAX 20 /* digits of the longest value incr takes */

const char *workload_trace_value(const struct workload *w, uint32_t size)
{
    static const char number[] = "10000000000000000000"; /* 1e19: fits in 64 bits */
    return size <= WORKLOAD_NUMBER_MAX ? number : w->pool;
}

bool workload_needs_fill(const struct workload *w)
{
    return !w->bounds && (w->mix_ops & w->walk_ops) == 0;
}

void workload_free(struct workload *w)
{
    free(w->value);
    free(w->pool);
    w->value = NULL;
    w->pool = NULL;
}

uint32_t workload_value_len(const struct workload *w, uint32_t client_id, uint64_t slot,
                            uint32_t version)
{
    if (dist_is_fixed(&w->value_sizes)) {
        return w->value_size;
    }
    return size_dist_sample(&w->value_sizes,
                            rng_mix(client_id, slot, 0x76616c0000000000ULL ^ version));
}

const char *workload_value(const struct workload *w, uint32_t client_id, uint64_t slot,
                           uint32_t version)
{
    uint64_t offset =
        rng_mix(client_id, slot, 0x6f66660000000000ULL ^ version) % WORKLOAD_POOL_SLACK;
    return w->pool + offset;
}

void window_start(struct key_window *win, const struct workload *w, uint64_t start)
{
    win->next_set = start;
    win->filled = w->win_size;
    for (int op = 0; op < OP_COUNT; op++) {
        win->walk[op] = start;
    }
}

void window_init(struct key_window *win, const struct workload *w)
{
    memset(win, 0, sizeof(*win));
    for (int op = 0; op < OP_COUNT; op++) {
        /* One step short of due, so that each op comes early (a set first, as memaslap). */
        uint32_t share = w->mix_ppm[op];
        win->mix_acc[op] = share == 0 || op == (int)w->mix_default ? 0 : WORKLOAD_PPM - share;
    }
}

enum op_type window_next_op(struct key_window *win, const struct workload *w)
{
    enum op_type due = w->mix_default;
    for (uint32_t i = 0; i < w->mix_nothers; i++) {
        unsigned op = w->mix_others[i];
        win->mix_acc[op] += w->mix_ppm[op];
        if (due == w->mix_default && win->mix_acc[op] >= WORKLOAD_PPM) {
            win->mix_acc[op] -= WORKLOAD_PPM; /* one op a step: others stay due for the next */
            due = (enum op_type)op;
        }
    }
    return due;
}

void window_more_gets(struct key_window *win, const struct workload *w, uint32_t n)
{
    for (uint32_t i = 0; i < w->mix_nothers; i++) { /* the others: the default has no sum */
        win->mix_acc[w->mix_others[i]] += w->mix_ppm[w->mix_others[i]] * n;
    }
}

uint64_t window_take_set_slot(struct key_window *win, const struct workload *w)
{
    uint64_t slot = win->next_set;
    win->next_set = slot + 1 == w->win_size ? 0 : slot + 1;
    return slot;
}

void window_set_done(struct key_window *win, const struct workload *w)
{
    if (win->filled < w->win_size) {
        win->filled++;
    }
}

uint64_t window_latest_slot(const struct key_window *win, const struct workload *w, uint64_t rank)
{
    if (win->filled < w->win_size) { /* the walk's first pass: slots 0 .. filled - 1 */
        return win->filled - 1 - rank;
    }
    uint64_t newest = win->next_set == 0 ? w->win_size - 1 : win->next_set - 1;
    return (newest + w->win_size - rank % w->win_size) % w->win_size;
}

uint64_t window_pick_get_slot(const struct key_window *win, struct rng *r)
{
    return rng_below(r, win->filled);
}
