/* Counters and latency histograms of a run: reset, merge, print, look up. */
#include "slap/stats.h"

#include <string.h>

void stats_reset(struct slap_stats *s)
{
    memset(&s->counters, 0, sizeof(s->counters));
    for (int t = 0; t < STATS_TYPES; t++) {
        hist_reset(&s->lat[t]);
        hist_reset(&s->raw[t]);
    }
    for (int o = 0; o < STATS_OUTCOMES; o++) {
        hist_reset(&s->gets[o]);
    }
    hist_reset(&s->lag);
}

void stats_merge(struct slap_stats *dst, const struct slap_stats *src)
{
#define SLAP_COUNTER_ADD(name, show, meaning) dst->counters.name += src->counters.name;
    SLAP_COUNTERS(SLAP_COUNTER_ADD)
#undef SLAP_COUNTER_ADD
    for (int t = 0; t < STATS_TYPES; t++) {
        hist_merge(&dst->lat[t], &src->lat[t]);
        hist_merge(&dst->raw[t], &src->raw[t]);
    }
    for (int o = 0; o < STATS_OUTCOMES; o++) {
        hist_merge(&dst->gets[o], &src->gets[o]);
    }
    hist_merge(&dst->lag, &src->lag);
}

static void merge_types(const struct hist *by_type, struct hist *total)
{
    hist_reset(total);
    for (int t = 0; t < STATS_TYPES; t++) {
        hist_merge(total, &by_type[t]);
    }
}

void stats_total_hist(const struct slap_stats *s, struct hist *total)
{
    merge_types(s->lat, total);
}

void stats_total_raw(const struct slap_stats *s, struct hist *total)
{
    merge_types(s->raw, total);
}

uint64_t stats_ops(const struct slap_stats *s)
{
    return s->counters.cmd_get + s->counters.cmd_set;
}

void stats_print_counters(FILE *out, const struct slap_counters *c, enum counter_show show)
{
#define SLAP_COUNTER_PRINT(name, how, meaning)                                                     \
    if (how == show && (show != COUNTER_NONZERO || c->name != 0)) {                                \
        fprintf(out, "%s: %llu\n", #name, (unsigned long long)c->name);                            \
    }
    SLAP_COUNTERS(SLAP_COUNTER_PRINT)
#undef SLAP_COUNTER_PRINT
}

void stats_print_memaslap(FILE *out, const struct slap_counters *c, bool verify, bool expire,
                          bool udp)
{
#define SLAP_COUNTER_MEMASLAP(name, how, meaning)                                                  \
    if (how == COUNTER_ALWAYS || (how == COUNTER_VERIFY && verify) ||                              \
        (how == COUNTER_EXPIRE && expire) || (how == COUNTER_UDP && udp)) {                        \
        fprintf(out, "%s: %llu\n", #name, (unsigned long long)c->name);                            \
    }
    SLAP_COUNTERS(SLAP_COUNTER_MEMASLAP)
#undef SLAP_COUNTER_MEMASLAP
}

const uint64_t *stats_counter_by_name(const struct slap_counters *c, const char *name)
{
#define SLAP_COUNTER_FIND(field, show, meaning)                                                    \
    if (strcmp(name, #field) == 0) {                                                               \
        return &c->field;                                                                          \
    }
    SLAP_COUNTERS(SLAP_COUNTER_FIND)
#undef SLAP_COUNTER_FIND
    return NULL;
}
