/* The figures the JSON and CSV writers both derive from a document (private to output). */
#ifndef SLAP_RESULTS_FIGURES_H
#define SLAP_RESULTS_FIGURES_H

#include <stdbool.h>
#include <stdint.h>

#include "slap/base/common.h"
#include "slap/model/ops.h"
#include "slap/model/stats.h"

#define MIB (1024.0 * 1024.0)

static inline double per_second(double amount, double seconds)
{
    return seconds > 0 ? amount / seconds : 0.0;
}

static inline double us(uint64_t ns)
{
    return (double)ns / (double)SLAP_NS_PER_US;
}

/* Bytes of one type, or (STATS_TYPES) of all. */
static inline uint64_t type_net_bytes(const uint64_t *net_bytes, int type)
{
    uint64_t sum = 0;
    for (int t = 0; t < STATS_TYPES; t++) {
        sum += type == STATS_TYPES || type == t ? net_bytes[t] : 0;
    }
    return sum;
}

/* Keys one type did not find; for the total, memaslap's get_misses (as the report's). */
static inline uint64_t type_misses(const uint64_t *misses, const struct slap_counters *c, int type)
{
    return type == STATS_TYPES ? c->get_misses : misses[type];
}

/* Whether results show type t (STATS_TYPES: the total, always). */
static inline bool shown(uint32_t types, int t)
{
    return t == STATS_TYPES || (types & op_bit((enum op_type)t)) != 0;
}

#endif
