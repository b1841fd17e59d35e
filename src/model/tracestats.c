/* A trace's rate, operation mix, sizes, distinct keys and skew, gathered in bounded memory
 * (the command, slap trace-stats, and its report are commands/tracestats_cmd.c and
 * commands/tracestats_report.c). */
#include "slap/model/tracestats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/hist.h"
#include "slap/base/rng.h"

#define TIME_BUCKETS_MAX (1u << 20) /* seconds (or wider buckets) of the rate table */
#define TIME_BUCKETS_INITIAL 4096
#define TABLE_SLOTS_INITIAL 65536
#define TABLE_LOAD_NUM 3 /* at most 3/4 of the slots used */
#define TABLE_LOAD_DEN 4
#define HLL_BITS 14
#define HLL_REGISTERS (1u << HLL_BITS)
#define KEY_HASH_SEED 0x6b6579735f736c61ULL
#define ZIPF_RANK_STEP 1.1 /* ranks of the fit: each about 10% beyond the one before */

/* Counts of the keys seen, by 64-bit fingerprint (0 marks a free slot), open addressing. */
struct key_table {
    uint64_t *fingerprint;
    uint32_t *count;  /* saturates at UINT32_MAX */
    size_t slots;     /* a power of two */
    size_t max_slots; /* where it stops growing */
    uint64_t used;
    uint64_t limit; /* keys it may hold */
    bool full;      /* a key did not fit: the count of keys is the estimate's */
};

struct tracestats {
    uint64_t requests;
    uint64_t ops[OP_COUNT];
    uint64_t key_sizes[TRACE_KEY_MAX + 1];
    struct hist value_sizes; /* of storage commands */
    uint64_t *time_buckets;  /* requests per bucket of bucket_width seconds from first_second */
    size_t time_cap;
    uint64_t bucket_width;
    uint64_t first_second, last_second;
    uint64_t current_second, current_count; /* the peak second, exactly */
    uint64_t peak_second, peak_count;
    struct key_table keys;
    uint8_t hll[HLL_REGISTERS];
};

/* ---- rate over time ---- */

/* Halve the number of time buckets: each new bucket is two old ones. */
static void fold_time(struct tracestats *s)
{
    for (size_t i = 0; i < s->time_cap / 2; i++) {
        s->time_buckets[i] = s->time_buckets[2 * i] + s->time_buckets[2 * i + 1];
    }
    memset(s->time_buckets + s->time_cap / 2, 0, s->time_cap / 2 * sizeof(uint64_t));
    s->bucket_width *= 2;
}

/* Room for the bucket of second; false (and nothing changed) if memory runs out. */
static bool time_room(struct tracestats *s, uint64_t second)
{
    while ((second - s->first_second) / s->bucket_width >= TIME_BUCKETS_MAX) {
        fold_time(s);
    }
    size_t index = (size_t)((second - s->first_second) / s->bucket_width);
    if (index < s->time_cap) {
        return true;
    }
    size_t cap = s->time_cap;
    while (cap <= index) {
        cap *= 2;
    }
    uint64_t *grown = realloc(s->time_buckets, cap * sizeof(uint64_t));
    if (grown == NULL) {
        return false;
    }
    memset(grown + s->time_cap, 0, (cap - s->time_cap) * sizeof(uint64_t));
    s->time_buckets = grown;
    s->time_cap = cap;
    return true;
}

static void add_time(struct tracestats *s, uint64_t second)
{
    if (s->requests == 0) {
        s->first_second = s->current_second = s->peak_second = second;
    }
    if (second != s->current_second) {
        s->current_second = second;
        s->current_count = 0;
    }
    if (++s->current_count > s->peak_count) {
        s->peak_count = s->current_count;
        s->peak_second = second;
    }
    s->last_second = second;
    while (!time_room(s, second)) {
        fold_time(s); /* no memory to grow: coarser buckets instead */
    }
    s->time_buckets[(second - s->first_second) / s->bucket_width]++;
}

/* ---- distinct keys ---- */

static bool table_alloc(struct key_table *k, size_t slots)
{
    k->fingerprint = calloc(slots, sizeof(uint64_t));
    k->count = calloc(slots, sizeof(uint32_t));
    k->slots = slots;
    return k->fingerprint != NULL && k->count != NULL;
}

/* The slot of fp: where it is, or the free slot where it would go. */
static size_t table_slot(const struct key_table *k, uint64_t fp)
{
    size_t i = (size_t)fp & (k->slots - 1);
    while (k->fingerprint[i] != 0 && k->fingerprint[i] != fp) {
        i = (i + 1) & (k->slots - 1);
    }
    return i;
}

/* Twice the slots, every key moved; false (the table unchanged) if memory runs out. */
static bool table_grow(struct key_table *k)
{
    struct key_table bigger = *k;
    if (!table_alloc(&bigger, k->slots * 2)) {
        free(bigger.fingerprint);
        free(bigger.count);
        return false;
    }
    for (size_t i = 0; i < k->slots; i++) {
        if (k->fingerprint[i] != 0) {
            size_t at = table_slot(&bigger, k->fingerprint[i]);
            bigger.fingerprint[at] = k->fingerprint[i];
            bigger.count[at] = k->count[i];
        }
    }
    free(k->fingerprint);
    free(k->count);
    *k = bigger;
    return true;
}

static bool table_has_room(struct key_table *k)
{
    if (k->used >= k->limit) {
        return false;
    }
    if ((k->used + 1) * TABLE_LOAD_DEN <= k->slots * TABLE_LOAD_NUM) {
        return true;
    }
    return k->slots < k->max_slots && table_grow(k);
}

static void table_add(struct key_table *k, uint64_t fp)
{
    fp = fp != 0 ? fp : 1;
    size_t at = table_slot(k, fp);
    if (k->fingerprint[at] == 0) {
        if (!table_has_room(k)) {
            k->full = true;
            return;
        }
        at = table_slot(k, fp); /* the table may have grown */
        k->fingerprint[at] = fp;
        k->used++;
    }
    k->count[at] += k->count[at] < UINT32_MAX;
}

static void hll_add(uint8_t *hll, uint64_t hash)
{
    size_t index = (size_t)(hash >> (64 - HLL_BITS));
    uint64_t rest = hash << HLL_BITS;
    uint8_t rank = rest == 0 ? 64 - HLL_BITS + 1 : (uint8_t)(__builtin_clzll(rest) + 1);
    if (rank > hll[index]) {
        hll[index] = rank;
    }
}

/* HyperLogLog's estimate, with linear counting for small numbers. */
static double hll_estimate(const uint8_t *hll)
{
    double m = HLL_REGISTERS, sum = 0.0;
    unsigned zeros = 0;
    for (size_t i = 0; i < HLL_REGISTERS; i++) {
        sum += ldexp(1.0, -hll[i]);
        zeros += hll[i] == 0;
    }
    double estimate = 0.7213 / (1.0 + 1.079 / m) * m * m / sum;
    if (estimate <= 2.5 * m && zeros > 0) {
        estimate = m * log(m / zeros);
    }
    return estimate;
}

uint64_t tracestats_distinct(const struct tracestats *s, bool *exact)
{
    *exact = !s->keys.full;
    return *exact ? s->keys.used : (uint64_t)llround(hll_estimate(s->hll));
}

/* ---- Zipf ---- */

static int by_count_down(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x < y) - (x > y);
}

/* The counts of at least TRACESTATS_ZIPF_MIN_COUNT, most first; NULL if memory runs out. */
static uint32_t *frequent_counts(const struct key_table *k, size_t *n)
{
    *n = 0;
    for (size_t i = 0; i < k->slots; i++) {
        *n += k->count[i] >= TRACESTATS_ZIPF_MIN_COUNT;
    }
    uint32_t *counts = malloc((*n > 0 ? *n : 1) * sizeof(uint32_t));
    if (counts == NULL) {
        return NULL;
    }
    size_t at = 0;
    for (size_t i = 0; i < k->slots; i++) {
        if (k->count[i] >= TRACESTATS_ZIPF_MIN_COUNT) {
            counts[at++] = k->count[i];
        }
    }
    qsort(counts, *n, sizeof(uint32_t), by_count_down);
    return counts;
}

/* -slope of log(count) against log(rank), at log-spaced ranks 1..n. */
static double fit_slope(const uint32_t *counts, size_t n)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, points = 0;
    for (size_t rank = 1; rank <= n;) {
        double x = log((double)rank), y = log((double)counts[rank - 1]);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        points++;
        size_t next = (size_t)((double)rank * ZIPF_RANK_STEP);
        rank = next > rank ? next : rank + 1;
    }
    double spread = points * sxx - sx * sx;
    return spread > 0 ? -(points * sxy - sx * sy) / spread : 0.0;
}

bool tracestats_zipf(const struct tracestats *s, double *exponent, uint64_t *keys)
{
    size_t n;
    uint32_t *counts = frequent_counts(&s->keys, &n);
    *keys = n;
    bool ok = counts != NULL && n >= TRACESTATS_ZIPF_MIN_KEYS;
    if (ok) {
        *exponent = fit_slope(counts, n);
    }
    free(counts);
    return ok;
}

/* ---- gathering ---- */

enum slap_status tracestats_init(struct tracestats **out, uint64_t exact_keys)
{
    struct tracestats *s = calloc(1, sizeof(*s));
    *out = NULL;
    if (s == NULL) {
        return SLAP_ERROR;
    }
    hist_reset(&s->value_sizes);
    s->bucket_width = 1;
    s->time_cap = TIME_BUCKETS_INITIAL;
    s->time_buckets = calloc(s->time_cap, sizeof(uint64_t));
    s->keys.limit = exact_keys;
    s->keys.max_slots = TABLE_SLOTS_INITIAL;
    while (s->keys.max_slots * TABLE_LOAD_NUM < exact_keys * TABLE_LOAD_DEN) {
        s->keys.max_slots *= 2;
    }
    if (s->time_buckets == NULL || !table_alloc(&s->keys, TABLE_SLOTS_INITIAL)) {
        tracestats_free(s);
        return SLAP_ERROR;
    }
    *out = s;
    return SLAP_OK;
}

void tracestats_add(struct tracestats *s, const struct trace_request *r, uint64_t second)
{
    add_time(s, second);
    s->requests++;
    s->ops[r->op]++;
    s->key_sizes[r->key_len]++;
    if (op_class(r->op) == OP_CLASS_STORAGE) {
        hist_record(&s->value_sizes, r->value_size);
    }
    uint64_t hash = rng_hash_bytes(r->key, r->key_len, KEY_HASH_SEED);
    table_add(&s->keys, hash);
    hll_add(s->hll, hash);
}

void tracestats_free(struct tracestats *s)
{
    if (s == NULL) {
        return;
    }
    free(s->time_buckets);
    free(s->keys.fingerprint);
    free(s->keys.count);
    free(s);
}

/* ---- the figures, for a report ---- */

void tracestats_summary(const struct tracestats *s, struct tracestats_summary *out)
{
    *out = (struct tracestats_summary){.requests = s->requests,
                                       .first_second = s->first_second,
                                       .last_second = s->last_second,
                                       .peak_second = s->peak_second,
                                       .peak_count = s->peak_count,
                                       .exact_keys = s->keys.limit};
    memcpy(out->ops, s->ops, sizeof(out->ops));
}

size_t tracestats_rates(const struct tracestats *s, struct tracestats_rate_row *rows)
{
    if (s->requests == 0) {
        return 0;
    }
    uint64_t span = s->last_second - s->first_second + 1;
    uint64_t n = span < TRACESTATS_RATE_ROWS ? span : TRACESTATS_RATE_ROWS;
    size_t bucket = 0;
    for (uint64_t row = 0; row < n; row++) {
        uint64_t from = row * span / n, to = (row + 1) * span / n; /* [from, to) */
        uint64_t requests = 0;
        for (; bucket < s->time_cap && bucket * s->bucket_width < to; bucket++) {
            requests += s->time_buckets[bucket];
        }
        rows[row] = (struct tracestats_rate_row){
            .first_second = s->first_second + from, .seconds = to - from, .requests = requests};
    }
    return (size_t)n;
}

/* The key size at percentile pct: the least size with ceil(pct% of n) sizes at or below. */
static uint64_t key_size_percentile(const struct tracestats *s, double pct)
{
    uint64_t rank = (uint64_t)ceil(pct / 100.0 * (double)s->requests), below = 0;
    for (uint32_t size = 0; size <= TRACE_KEY_MAX; size++) {
        below += s->key_sizes[size];
        if (below >= rank && below > 0) {
            return size;
        }
    }
    return TRACE_KEY_MAX;
}

void tracestats_key_sizes(const struct tracestats *s, struct tracestats_sizes *out)
{
    *out = (struct tracestats_sizes){.count = s->requests,
                                     .p50 = key_size_percentile(s, 50),
                                     .p90 = key_size_percentile(s, 90),
                                     .p99 = key_size_percentile(s, 99),
                                     .max = key_size_percentile(s, 100)};
}

bool tracestats_value_sizes(const struct tracestats *s, struct tracestats_sizes *out)
{
    const struct hist *v = &s->value_sizes;
    *out = (struct tracestats_sizes){.count = v->count};
    if (v->count == 0) {
        return false;
    }
    out->p50 = hist_percentile_ns(v, 50);
    out->p90 = hist_percentile_ns(v, 90);
    out->p99 = hist_percentile_ns(v, 99);
    out->max = v->max_ns;
    return true;
}
