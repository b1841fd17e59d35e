/* Counters and latency histograms of a run: reset, merge, print, look up. */
#include "slap/model/stats.h"

#include <stdlib.h>
#include <string.h>

const struct stats_shape stats_shape_all = {.types = (1u << OP_COUNT) - 1, .open_loop = true};

/* Emptied only where the histograms hold something (hist_clear): periods are emptied ten times
 * a second, and most of their histograms hold little or nothing. */
static void empty_stats(struct slap_stats *s)
{
    memset(&s->counters, 0, sizeof(s->counters));
    memset(s->net_bytes, 0, sizeof(s->net_bytes));
    memset(s->misses, 0, sizeof(s->misses));
    for (int t = 0; t < STATS_TYPES; t++) {
        if (s->lat[t] != NULL) {
            hist_clear(s->lat[t]);
        }
        if (s->raw[t] != NULL) {
            hist_clear(s->raw[t]);
            hist_clear(s->held[t]);
            hist_clear(s->late[t]);
        }
    }
    if (s->lag == NULL) {
        return; /* zeroed, never given histograms by stats_init */
    }
    for (int o = 0; o < STATS_OUTCOMES; o++) {
        hist_clear(s->gets[o]);
    }
    hist_clear(s->lag);
    hist_clear(s->slap_tail);
    hist_clear(s->own);
    hist_clear(s->connect);
}

enum slap_status stats_init(struct slap_stats *s, const struct stats_shape *shape)
{
    size_t n = STATS_OUTCOMES + 4; /* gets, lag, slap_tail, own and connect */
    memset(s, 0, sizeof(*s));
    for (int t = 0; t < STATS_TYPES; t++) {
        n += (shape->types & op_bit((enum op_type)t)) != 0 ? (shape->open_loop ? 4 : 1) : 0;
    }
    /* mapped, not reset: a type never sent, or little of it, costs no memory (every type of a
     * results document's statistics is there, and a closed loop has no lag) */
    if (hist_slab_alloc(&s->slab, n) != SLAP_OK) {
        return SLAP_ERROR;
    }
    s->nslab = n;
    struct hist *next = s->slab;
    for (int t = 0; t < STATS_TYPES; t++) {
        if ((shape->types & op_bit((enum op_type)t)) != 0) {
            s->lat[t] = next++;
            s->raw[t] = shape->open_loop ? next++ : NULL;
            s->held[t] = shape->open_loop ? next++ : NULL;
            s->late[t] = shape->open_loop ? next++ : NULL;
        }
    }
    for (int o = 0; o < STATS_OUTCOMES; o++) {
        s->gets[o] = next++;
    }
    s->lag = next++;
    s->slap_tail = next++;
    s->own = next++;
    s->connect = next;
    return SLAP_OK;
}

void stats_free(struct slap_stats *s)
{
    hist_slab_free(s->slab, s->nslab);
    s->slab = NULL;
    s->nslab = 0;
    memset(s->lat, 0, sizeof(s->lat));
    memset(s->raw, 0, sizeof(s->raw));
    memset(s->held, 0, sizeof(s->held));
    memset(s->late, 0, sizeof(s->late));
    memset(s->gets, 0, sizeof(s->gets));
    s->lag = NULL;
    s->slap_tail = NULL;
    s->own = NULL;
    s->connect = NULL;
}

void stats_reset(struct slap_stats *s)
{
    empty_stats(s);
}

void stats_merge(struct slap_stats *dst, const struct slap_stats *src)
{
#define SLAP_COUNTER_ADD(name, show, since, meaning) dst->counters.name += src->counters.name;
    SLAP_COUNTERS(SLAP_COUNTER_ADD)
#undef SLAP_COUNTER_ADD
    for (int t = 0; t < STATS_TYPES; t++) {
        dst->net_bytes[t] += src->net_bytes[t];
        dst->misses[t] += src->misses[t];
        if (dst->lat[t] != NULL && src->lat[t] != NULL) {
            hist_merge(dst->lat[t], src->lat[t]);
        }
        if (dst->raw[t] != NULL && src->raw[t] != NULL) {
            hist_merge(dst->raw[t], src->raw[t]);
            hist_merge(dst->held[t], src->held[t]);
            hist_merge(dst->late[t], src->late[t]);
        }
    }
    if (dst->lag == NULL || src->lag == NULL) {
        return; /* either zeroed, never given histograms by stats_init */
    }
    for (int o = 0; o < STATS_OUTCOMES; o++) {
        hist_merge(dst->gets[o], src->gets[o]);
    }
    hist_merge(dst->lag, src->lag);
    hist_merge(dst->slap_tail, src->slap_tail);
    hist_merge(dst->own, src->own);
    hist_merge(dst->connect, src->connect);
}

void stats_total_of(struct hist *const *by_type, struct hist *total)
{
    hist_reset(total);
    for (int t = 0; t < STATS_TYPES; t++) {
        if (by_type[t] != NULL) {
            hist_merge(total, by_type[t]);
        }
    }
}

void stats_total_hist(const struct slap_stats *s, struct hist *total)
{
    stats_total_of(s->lat, total);
}

void stats_total_raw(const struct slap_stats *s, struct hist *total)
{
    stats_total_of(s->raw, total);
}

uint64_t stats_ops(const struct slap_stats *s)
{
    return stats_counters_ops(&s->counters);
}

uint64_t stats_counters_ops(const struct slap_counters *c)
{
    return c->cmd_get + c->cmd_set + c->cmd_touch + c->delete_hits + c->delete_misses +
           c->incr_hits + c->incr_misses + c->decr_hits + c->decr_misses;
}

uint64_t stats_requests(const struct slap_stats *s)
{
    return stats_counters_requests(&s->counters);
}

uint64_t stats_counters_requests(const struct slap_counters *c)
{
    uint64_t lost = c->unanswered - c->unsent; /* sent, never answered */
    return c->requests_sent > lost ? c->requests_sent - lost : 0;
}

void stats_print_counters(FILE *out, const struct slap_counters *c, enum counter_show show)
{
#define SLAP_COUNTER_PRINT(name, how, since, meaning)                                              \
    if (how == show && ((show != COUNTER_NONZERO && show != COUNTER_MIX) || c->name != 0)) {       \
        fprintf(out, "%s: %llu\n", #name, (unsigned long long)c->name);                            \
    }
    SLAP_COUNTERS(SLAP_COUNTER_PRINT)
#undef SLAP_COUNTER_PRINT
}

void stats_print_added(FILE *out, const struct slap_counters *c, bool mix, bool verify)
{
#define SLAP_COUNTER_ADDED(name, how, since, meaning)                                              \
    if (((how == COUNTER_NONZERO || (how == COUNTER_MIX && mix)) && c->name != 0) ||               \
        (how == COUNTER_CHECKED && verify)) {                                                      \
        fprintf(out, "%s: %llu\n", #name, (unsigned long long)c->name);                            \
    }
    SLAP_COUNTERS(SLAP_COUNTER_ADDED)
#undef SLAP_COUNTER_ADDED
}

void stats_print_memaslap(FILE *out, const struct slap_counters *c, bool verify, bool expire,
                          bool udp)
{
#define SLAP_COUNTER_MEMASLAP(name, how, since, meaning)                                           \
    if (how == COUNTER_ALWAYS || (how == COUNTER_VERIFY && verify) ||                              \
        (how == COUNTER_EXPIRE && expire) || (how == COUNTER_UDP && udp)) {                        \
        fprintf(out, "%s: %llu\n", #name, (unsigned long long)c->name);                            \
    }
    SLAP_COUNTERS(SLAP_COUNTER_MEMASLAP)
#undef SLAP_COUNTER_MEMASLAP
}

const uint64_t *stats_counter_by_name(const struct slap_counters *c, const char *name)
{
#define SLAP_COUNTER_FIND(field, show, since, meaning)                                             \
    if (strcmp(name, #field) == 0) {                                                               \
        return &c->field;                                                                          \
    }
    SLAP_COUNTERS(SLAP_COUNTER_FIND)
#undef SLAP_COUNTER_FIND
    return NULL;
}

const char *stats_type_title(int type)
{
    return type >= 0 && type < STATS_TYPES ? op_title((enum op_type)type)
           : type == STATS_TYPES           ? "Total"
                                           : NULL;
}

const char *stats_type_name(int type)
{
    /* constant names, no table filled at run time (the samples and pusher threads ask too) */
    return type >= 0 && type < STATS_TYPES ? op_name((enum op_type)type)
           : type == STATS_TYPES           ? "total"
                                           : NULL;
}

uint64_t stats_errors(const struct slap_counters *c)
{
    /* unanswered less slap's own lag: requests it never sent in time are no server's error;
     * a value other than the one stored is one (-v), a miss is not (the cache may drop items) */
    return c->server_error + c->client_error + c->error_reply + c->protocol_error + c->unanswered -
           c->client_lag + c->verify_failed;
}
