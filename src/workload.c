/* What clients send: keys, values, the set/get mix and each client's key window. */
#include "slap/workload.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "slap/common.h"

static const char hex_digits[] = "0123456789abcdef";
static const char filler[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

int workload_init(struct workload *w, const struct slap_options *o)
{
    memset(w, 0, sizeof(*w));
    w->key_size = o->key_size;
    w->value_size = o->value_size;
    w->win_size = o->win_size;
    w->set_ppm = (uint32_t)lround(o->set_prop * WORKLOAD_PPM);
    w->value = malloc((size_t)w->value_size + 2);
    if (w->value == NULL) {
        return SLAP_ERROR;
    }
    struct rng r = {.state = 0x736c6170}; /* fixed: runs send the same bytes */
    for (uint32_t i = 0; i < w->value_size; i++) {
        w->value[i] = filler[rng_below(&r, sizeof(filler) - 1)];
    }
    memcpy(w->value + w->value_size, "\r\n", 2);
    return SLAP_OK;
}

void workload_free(struct workload *w)
{
    free(w->value);
    w->value = NULL;
}

static void put_hex(char *out, uint64_t v, int digits)
{
    for (int i = digits - 1; i >= 0; i--) {
        out[i] = hex_digits[v & 0xf];
        v >>= 4;
    }
}

void workload_key_init(const struct workload *w, uint32_t client_id, char *key)
{
    put_hex(key, client_id, 6);
    key[6] = '.';
    put_hex(key + 7, 0, 8);
    for (uint32_t i = WORKLOAD_KEY_ID_LEN; i < w->key_size; i++) {
        key[i] = filler[(i + client_id) % (sizeof(filler) - 1)];
    }
}

void workload_key_slot(char *key, uint64_t slot)
{
    put_hex(key + 7, slot, 8);
}

void window_init(struct key_window *win, const struct workload *w)
{
    memset(win, 0, sizeof(*win));
    /* Start one step short of a set, so the first operation is a set. */
    win->mix_acc = w->set_ppm == 0 ? 0 : WORKLOAD_PPM - w->set_ppm;
}

enum op_type window_next_op(struct key_window *win, const struct workload *w)
{
    win->mix_acc += w->set_ppm;
    if (win->mix_acc >= WORKLOAD_PPM) {
        win->mix_acc -= WORKLOAD_PPM;
        return OP_SET;
    }
    return OP_GET;
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

uint64_t window_pick_get_slot(const struct key_window *win, struct rng *r)
{
    return rng_below(r, win->filled);
}
