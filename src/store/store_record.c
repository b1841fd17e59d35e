/* A results document's series, identity and figures, as the store indexes them. */
#include "store_record.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "slap/base/hist.h"
#include "slap/base/rng.h"
#include "slap/base/steady.h"
#include "slap/model/ops.h"
#include "slap/output/intervals.h"

/* a, then b, after what buf holds, with sep between when it holds something. */
static void append(char *buf, size_t len, const char *sep, const char *a, const char *b)
{
    size_t used = strlen(buf);
    if (used + 1 < len) {
        snprintf(buf + used, len - used, "%s%s%s", used > 0 ? sep : "", a, b);
    }
}

/* The settings slap merge checks, "--win_size=10240 --division=1 ...": those set (a setting
 * not set is the same in every run that leaves it so). */
static void workload_of(const struct results_doc *d, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < d->desc.config.n; i++) {
        const struct run_config_entry *e = &d->desc.config.entries[i];
        if ((e->flags & RUN_CONFIG_WORKLOAD) && e->value[0] != '\0') {
            char name[64];
            snprintf(name, sizeof(name), "--%s=", e->name);
            append(buf, len, " ", name, e->value);
        }
    }
}

static void servers_of(const struct results_doc *d, char *buf, size_t len)
{
    buf[0] = '\0';
    if (d->desc.servers != NULL) {
        snprintf(buf, len, "%s", d->desc.servers);
        return;
    }
    const struct results_server *s = d->servers.items;
    for (size_t i = 0; i < d->servers.n; i++) {
        append(buf, len, ",", s[i].name, "");
    }
}

static void ident_of(const struct results_doc *d, struct record *r)
{
    const struct results_run_id *runs = d->runs.items;
    r->ident[0] = '\0';
    for (size_t i = 0; i < d->runs.n; i++) {
        char one[RESULTS_LABEL_MAX + 48];
        snprintf(one, sizeof(one), "%s/%llu/%llu", runs[i].host, (unsigned long long)runs[i].pid,
                 (unsigned long long)runs[i].start_ms);
        append(r->ident, sizeof(r->ident), " ", one, "");
    }
    if (d->runs.n == 0) { /* a document that names no run: its label and start */
        snprintf(r->ident, sizeof(r->ident), "%s//%llu", d->label, (unsigned long long)d->start_ms);
    }
    if (d->runs.n == 1) {
        snprintf(r->host, sizeof(r->host), "%s", runs[0].host);
    } else {
        snprintf(r->host, sizeof(r->host), "%zu hosts", d->runs.n);
    }
}

static void add(struct record *r, const char *name, double value, double low, double high)
{
    if (r->nfigures < RECORD_FIGURES_MAX && isfinite(value)) {
        struct record_figure *f = &r->figures[r->nfigures++];
        snprintf(f->name, sizeof(f->name), "%s", name);
        f->value = value;
        f->low = low;
        f->high = high;
    }
}

static const double percentiles[] = {50, 90, 99, 99.9};
static const char *const percentile_names[] = {"p50", "p90", "p99", "p99.9"};

/* prefix ("" or "get.") tps and percentiles of h over seconds, their intervals from mask. */
static void latency_figures(const struct results_doc *d, struct record *r, const char *prefix,
                            const struct hist *h, intervals_mask mask)
{
    char name[HISTORY_FIGURE_MAX];
    snprintf(name, sizeof(name), "%stps", prefix);
    add(r, name, d->seconds > 0 ? (double)h->count / d->seconds : NAN, NAN, NAN);
    if (h->count == 0) {
        return;
    }
    for (size_t i = 0; i < sizeof(percentiles) / sizeof(percentiles[0]); i++) {
        struct ci_result ci;
        intervals_ci(d->intervals, mask, h, percentiles[i], &ci);
        snprintf(name, sizeof(name), "%s%s", prefix, percentile_names[i]);
        double value = (double)hist_percentile_ns(h, percentiles[i]) / 1e3;
        if (ci.estimable) { /* as the JSON: a percentile too few requests hold is not known */
            add(r, name, value, (double)ci.low_ns / 1e3, (double)ci.high_ns / 1e3);
        }
    }
}

static enum slap_status figures_of(const struct results_doc *d, struct record *r)
{
    struct results_run_id id;
    struct hist *total;
    if (hist_slab_alloc(&total, 1) != SLAP_OK) {
        return SLAP_ERROR;
    }
    stats_total_hist(d->global, total);
    results_run_figures(d, &id);
    latency_figures(d, r, "", total, intervals_types(INTERVALS_LAT));
    r->figures[0].value = id.tps; /* the run line's: every request, not only those timed */
    add(r, "errors", (double)id.errors, NAN, NAN);
    hist_slab_free(total, 1);
    if (d->search.present && d->search.capacity_tps > 0) {
        add(r, "capacity", d->search.capacity_tps, NAN, NAN);
    }
    uint32_t types = results_doc_types(d);
    for (int t = 0; t < STATS_TYPES; t++) {
        if ((types & op_bit((enum op_type)t)) && d->global->lat[t] != NULL &&
            d->global->lat[t]->count > 0) {
            char prefix[HISTORY_FIGURE_MAX];
            snprintf(prefix, sizeof(prefix), "%s.", op_name((enum op_type)t));
            latency_figures(d, r, prefix, d->global->lat[t], INTERVALS_BIT(INTERVALS_LAT + t));
        }
    }
    return SLAP_OK;
}

enum slap_status record_of(const struct results_doc *d, const char *kind, struct record *r)
{
    memset(r, 0, sizeof(*r));
    servers_of(d, r->servers, sizeof(r->servers));
    workload_of(d, r->workload, sizeof(r->workload));
    ident_of(d, r);
    char parts[32] = "";
    if (d->runs.n > 1) {
        snprintf(parts, sizeof(parts), " of %zu", d->runs.n);
    }
    snprintf(r->key, sizeof(r->key), "%s%s\n%s\n%s\n%s", kind, parts, d->label, r->servers,
             r->workload);
    snprintf(r->id, sizeof(r->id), "%012llx",
             (unsigned long long)(rng_hash_bytes(r->key, strlen(r->key), 0x5e71e5) >> 16));
    snprintf(r->limited_by, sizeof(r->limited_by), "%s",
             d->has_limits ? limits_verdict_name(d->limits.verdict) : "");
    struct steady_verdict v;
    intervals_steady(d->intervals, &v);
    r->steady = v.state == STEADY_UNKNOWN ? -1 : v.state == STEADY_YES;
    return figures_of(d, r);
}
