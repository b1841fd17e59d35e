/* Key popularity inside a window: uniform, zipf (rejection-inversion) and gaussian picks; the
 * law of each command (--key_pattern). */
#include "slap/model/keydist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/base/units.h"

#define ZIPF_DEFAULT_S 0.99
#define ZIPF_MAX_S 10.0
#define GAUSSIAN_SDS_PER_WINDOW 6.0 /* standard deviation n / 6 */
#define TWO_PI 6.283185307179586
#define SERIES_CUTOFF 1e-8 /* below this |t|, log1p(t)/t and expm1(t)/t by their series */

const struct key_dist_row key_dist_rows[] = {
    {"uniform", KEY_DIST_UNIFORM, false, false},      {"zipf", KEY_DIST_ZIPF, true, false},
    {"latest", KEY_DIST_LATEST, true, false},         {"gaussian", KEY_DIST_GAUSSIAN, false, false},
    {"sequential", KEY_DIST_SEQUENTIAL, false, true},
};
const size_t key_dist_row_count = SLAP_ARRAY_SIZE(key_dist_rows);
_Static_assert(SLAP_ARRAY_SIZE(key_dist_rows) == KEY_DIST_KINDS, "a row for each key_dist_kind");

static const struct key_dist_row *kind_row(enum key_dist_kind kind)
{
    for (size_t i = 0; i < key_dist_row_count; i++) {
        if (key_dist_rows[i].kind == kind) {
            return &key_dist_rows[i];
        }
    }
    return NULL;
}

const char *key_dist_name(enum key_dist_kind kind)
{
    const struct key_dist_row *row = kind_row(kind);
    return row != NULL ? row->name : "?";
}

void key_dist_names(char *buf, size_t len)
{
    const char *items[2 * KEY_DIST_KINDS];
    char shaped[KEY_DIST_KINDS][48];
    size_t n = 0, used = 0;
    bool ranged = false; /* the first NAME:S says S's range */
    for (size_t i = 0; i < key_dist_row_count; i++) {
        const struct key_dist_row *row = &key_dist_rows[i];
        if (row->pattern_only) {
            continue;
        }
        items[n++] = row->name;
        if (row->exponent) {
            snprintf(shaped[i], sizeof(shaped[i]), ranged ? "%s:S" : "%s:S with 0 < S <= %g",
                     row->name, ZIPF_MAX_S);
            items[n++] = shaped[i];
            ranged = true;
        }
    }
    if (len > 0) {
        buf[0] = '\0';
    }
    for (size_t i = 0; i < n && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s",
                         i == 0       ? ""
                         : i + 1 == n ? ", or "
                                      : ", ",
                         items[i]);
        used += w > 0 ? (size_t)w : 0;
    }
}

/* Uniform in [0, 1) from the top 53 bits of the generator. */
static double unit_uniform(struct rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform in (0, 1]: safe to take the logarithm of. */
static double unit_uniform_nonzero(struct rng *r)
{
    return (double)((rng_next(r) >> 11) + 1) * 0x1.0p-53;
}

/*
 * Zipf by rejection-inversion (Hormann and Derflinger, "Rejection-inversion to
 * generate variates from monotone discrete distributions", 1996).
 *
 * With k = rank + 1 in [1, n] and weight h(k) = k^-s, the hat is h itself taken
 * as a continuous function, with integral H(x) = (x^(1-s) - 1) / (1-s) (log x
 * when s = 1). Each k owns the slice [H(k - 1/2), H(k + 1/2)) of the u axis;
 * because h is convex that slice is at least h(k) wide, and only its top h(k) is
 * accepted:
 *
 *     u:  H(3/2)-1      H(3/2)       H(5/2)              H(n+1/2)
 *           |<-- k = 1 -->|<-- k = 2 -->|  ...  |<-- k = n -->|
 *                         | rej |  h(2) |       | rej |  h(n) |
 *
 * The axis starts at H(3/2) - h(1), so rank 0 is never rejected. A uniform u is
 * mapped back by H^-1 and rounded to k; k is kept when u >= H(k + 1/2) - h(k),
 * so each k comes out with probability proportional to h(k). Nothing depends on
 * a table: n may change from call to call.
 */

/* log1p(t) / t, continuous through t = 0. */
static double log1p_over(double t)
{
    if (fabs(t) < SERIES_CUTOFF) {
        return 1.0 - t / 2.0 + t * t / 3.0;
    }
    return log1p(t) / t;
}

/* expm1(t) / t, continuous through t = 0. */
static double expm1_over(double t)
{
    if (fabs(t) < SERIES_CUTOFF) {
        return 1.0 + t / 2.0 + t * t / 6.0;
    }
    return expm1(t) / t;
}

/* H(x), the integral of t^-s from 1 to x, written so s = 1 needs no special case. */
static double zipf_hat_integral(double x, double s)
{
    double log_x = log(x);
    return expm1_over((1.0 - s) * log_x) * log_x;
}

/* The x with H(x) = y. */
static double zipf_hat_integral_inverse(double y, double s)
{
    double t = (1.0 - s) * y;
    if (t <= -1.0) {
        return INFINITY; /* y rounded up to H's limit (s > 1): past every rank */
    }
    return exp(log1p_over(t) * y);
}

/* x rounded to the nearest k in [1, n]; a NaN becomes 1. */
static double zipf_nearest_k(double x, double n_real)
{
    double k = floor(x + 0.5);
    if (!(k >= 1.0)) {
        return 1.0;
    }
    return k > n_real ? n_real : k;
}

static uint64_t zipf_pick(double s, uint64_t n, struct rng *r)
{
    double n_real = (double)n;
    double u_low = zipf_hat_integral(1.5, s) - 1.0;
    double u_high = zipf_hat_integral(n_real + 0.5, s);
    for (;;) {
        double u = u_low + unit_uniform(r) * (u_high - u_low);
        double k = zipf_nearest_k(zipf_hat_integral_inverse(u, s), n_real);
        if (k == 1.0 || u >= zipf_hat_integral(k + 0.5, s) - pow(k, -s)) {
            return (uint64_t)k - 1;
        }
    }
}

/*
 * Normal around n / 2 with standard deviation n / 6 by Box-Muller. A deviate
 * outside [0, n) is drawn again rather than clamped, so the edge keys are not
 * inflated; the pair's second deviate is tried before a new pair is drawn.
 */
static uint64_t gaussian_pick(uint64_t n, struct rng *r)
{
    double n_real = (double)n;
    double mean = n_real / 2.0;
    double sd = n_real / GAUSSIAN_SDS_PER_WINDOW;
    for (;;) {
        double radius = sd * sqrt(-2.0 * log(unit_uniform_nonzero(r)));
        double angle = TWO_PI * unit_uniform(r);
        double x = mean + radius * cos(angle);
        if (x >= 0.0 && x < n_real) {
            return (uint64_t)x;
        }
        x = mean + radius * sin(angle);
        if (x >= 0.0 && x < n_real) {
            return (uint64_t)x;
        }
    }
}

uint64_t key_dist_pick_shaped(const struct key_dist *d, uint64_t n, struct rng *r)
{
    if (n <= 1) {
        return 0;
    }
    switch (d->kind) {
    case KEY_DIST_ZIPF:
    case KEY_DIST_LATEST: /* a rank of recency: the caller finds its key */
        return zipf_pick(d->s, n, r);
    case KEY_DIST_GAUSSIAN:
        return gaussian_pick(n, r);
    case KEY_DIST_UNIFORM:
    case KEY_DIST_SEQUENTIAL: /* the caller walks; never asked to draw */
    default:
        return rng_below(r, n);
    }
}

/* The S of "zipf:S": a plain decimal number in (0, ZIPF_MAX_S]. */
static enum slap_status parse_zipf_exponent(const char *text, double *s)
{
    size_t len = strlen(text);
    if (len == 0 || strspn(text, "0123456789.eE+-") != len) {
        return SLAP_ERROR; /* also keeps out spaces, hex, "nan" and "inf" */
    }
    char *end;
    double value = strtod(text, &end);
    if (*end != '\0' || !(value > 0.0 && value <= ZIPF_MAX_S)) {
        return SLAP_ERROR;
    }
    *s = value;
    return SLAP_OK;
}

enum slap_status key_dist_parse(const char *text, struct key_dist *d, char *err, size_t err_len)
{
    for (size_t i = 0; i < key_dist_row_count; i++) {
        const struct key_dist_row *row = &key_dist_rows[i];
        size_t len = strlen(row->name);
        struct key_dist parsed = {.kind = row->kind, .s = ZIPF_DEFAULT_S};
        if (row->pattern_only || strncmp(text, row->name, len) != 0) {
            continue;
        }
        if (text[len] == '\0' || (row->exponent && text[len] == ':' &&
                                  parse_zipf_exponent(text + len + 1, &parsed.s) == SLAP_OK)) {
            *d = parsed;
            return SLAP_OK;
        }
    }
    char names[128];
    key_dist_names(names, sizeof(names));
    snprintf(err, err_len, "bad key distribution '%s': expected %s", text, names);
    return SLAP_ERROR;
}

/* ---- --key_pattern ---------------------------------------------------------------------- */

/* The ops an item's OP names (a command, write, read or all); 0 when it names none. */
static uint32_t pattern_ops(const char *name, size_t len)
{
    static const struct {
        const char *name;
        uint32_t ops;
    } groups[] = {{"write", KEY_PATTERN_WRITE_OPS},
                  {"read", KEY_PATTERN_READ_OPS},
                  {"all", (1u << OP_COUNT) - 1}};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(groups); i++) {
        if (strlen(groups[i].name) == len && memcmp(groups[i].name, name, len) == 0) {
            return groups[i].ops;
        }
    }
    enum op_type op = op_by_name(name, len);
    return op < OP_COUNT ? op_bit(op) : 0;
}

/* A law of --key_pattern's alone (sequential) by its name into *law; false when text is none. */
static bool pattern_only_law(const char *text, struct key_dist *law)
{
    for (size_t i = 0; i < key_dist_row_count; i++) {
        if (key_dist_rows[i].pattern_only && strcmp(text, key_dist_rows[i].name) == 0) {
            law->kind = key_dist_rows[i].kind;
            return true;
        }
    }
    return false;
}

/* One OP:LAW item of len bytes into item i of p. */
static enum slap_status pattern_item(const char *item, size_t len, struct key_pattern *p,
                                     uint32_t i, char *err, size_t err_len)
{
    const char *colon = memchr(item, ':', len);
    uint32_t ops = colon != NULL ? pattern_ops(item, (size_t)(colon - item)) : 0;
    char law_text[64];
    struct key_dist law = {.kind = KEY_DIST_UNIFORM, .s = ZIPF_DEFAULT_S};
    if (ops == 0) {
        snprintf(err, err_len, "'%.*s' is not OP:LAW (OP a command of --mix, write, read or all)",
                 (int)len, item);
        return SLAP_ERROR;
    }
    size_t law_len = len - (size_t)(colon + 1 - item);
    if (law_len < sizeof(law_text)) { /* a longer one is no law (cut, it might read as one) */
        memcpy(law_text, colon + 1, law_len);
        law_text[law_len] = '\0';
    }
    if (law_len >= sizeof(law_text) || (!pattern_only_law(law_text, &law) &&
                                        key_dist_parse(law_text, &law, err, err_len) != SLAP_OK)) {
        char names[128];
        key_dist_names(names, sizeof(names));
        snprintf(err, err_len, "'%.*s': the law is %s or %s", (int)len, item,
                 key_dist_name(KEY_DIST_SEQUENTIAL), names);
        return SLAP_ERROR;
    }
    p->ops[i] = ops;
    p->kind[i] = (uint32_t)law.kind;
    p->s[i] = law.s;
    return SLAP_OK;
}

enum slap_status key_pattern_parse(const char *text, struct key_pattern *p, char *err,
                                   size_t err_len)
{
    struct key_pattern parsed = {.n = 0};
    const char *item = text;
    for (;;) {
        const char *comma = strchr(item, ',');
        size_t len = comma != NULL ? (size_t)(comma - item) : strlen(item);
        if (parsed.n == KEY_PATTERN_MAX) {
            snprintf(err, err_len, "more than %d items", KEY_PATTERN_MAX);
            return SLAP_ERROR;
        }
        if (pattern_item(item, len, &parsed, parsed.n, err, err_len) != SLAP_OK) {
            return SLAP_ERROR;
        }
        parsed.n++;
        if (comma == NULL) {
            break;
        }
        item = comma + 1;
    }
    *p = parsed;
    return SLAP_OK;
}

void key_dist_format(const struct key_dist *d, char *buf, size_t len)
{
    const char *name = key_dist_name(d->kind);
    const struct key_dist_row *row = kind_row(d->kind);
    if (row != NULL && row->exponent) {
        char s[32];
        units_shortest(s, sizeof(s), d->s);
        snprintf(buf, len, "%s:%s", name, s);
    } else {
        snprintf(buf, len, "%s", name);
    }
}

/* An item's OP as it was named: a group when its ops are one, else the command. */
static const char *pattern_op_name(uint32_t ops)
{
    if (ops == KEY_PATTERN_WRITE_OPS) {
        return "write";
    }
    if (ops == KEY_PATTERN_READ_OPS) {
        return "read";
    }
    if (ops == (1u << OP_COUNT) - 1) {
        return "all";
    }
    for (int op = 0; op < OP_COUNT; op++) {
        if (ops == op_bit((enum op_type)op)) {
            return op_name((enum op_type)op);
        }
    }
    return "?";
}

size_t key_pattern_format(const struct key_pattern *p, char *buf, size_t len)
{
    size_t used = 0;
    for (uint32_t i = 0; i < p->n; i++) {
        char law[48];
        key_dist_format(&(struct key_dist){.kind = (enum key_dist_kind)p->kind[i], .s = p->s[i]},
                        law, sizeof(law));
        int n = snprintf(buf + (used < len ? used : len), used < len ? len - used : 0, "%s%s:%s",
                         i > 0 ? "," : "", pattern_op_name(p->ops[i]), law);
        used += n > 0 ? (size_t)n : 0;
    }
    if (p->n == 0 && len > 0) {
        buf[0] = '\0';
    }
    return used;
}

void key_pattern_resolve(const struct key_pattern *p, const struct key_dist *stored,
                         struct key_dist laws[OP_COUNT])
{
    for (int op = 0; op < OP_COUNT; op++) {
        laws[op] = *stored;
    }
    laws[OP_SET] = laws[OP_ADD] = (struct key_dist){.kind = KEY_DIST_SEQUENTIAL, .s = 0.0};
    laws[OP_INCR] = laws[OP_DECR] = (struct key_dist){.kind = KEY_DIST_UNIFORM, .s = 0.0};
    for (uint32_t i = 0; i < p->n && i < KEY_PATTERN_MAX; i++) {
        for (int op = 0; op < OP_COUNT; op++) {
            if (p->ops[i] & op_bit((enum op_type)op)) {
                laws[op] = (struct key_dist){.kind = (enum key_dist_kind)p->kind[i], .s = p->s[i]};
            }
        }
    }
}
