/*
 * The run as data: building the document. Writing it is results_json.c's and results_csv.c's,
 * reading documents back results_read.c's, merging them results_merge.c's.
 */
#include "slap/output/results.h"
#include "slap/output/intervals.h"

#include <ctype.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slap/base/json.h"
#include "slap/base/quote.h"
#include "slap/base/version.h"
#include "slap/output/report.h"

/* ---- the document --------------------------------------------------------------------- */

const char *results_label_problem(const char *label)
{
    size_t n = strlen(label);
    if (!quote_as_is(label, n)) { /* reports show it as it is */
        return "the name holds a control character or a byte of no UTF-8 character";
    }
    if (n == 0) {
        return "the name is empty";
    }
    return n < RESULTS_LABEL_MAX ? NULL : "the name is longer than 255 bytes";
}

enum slap_status results_doc_init(struct results_doc *d)
{
    memset(d, 0, sizeof(*d));
    d->global = malloc(sizeof(*d->global));
    if (d->global == NULL || stats_init(d->global, &stats_shape_all) != SLAP_OK) {
        free(d->global);
        d->global = NULL;
        return SLAP_ERROR;
    }
    d->intervals = malloc(sizeof(*d->intervals));
    if (d->intervals == NULL || intervals_init(d->intervals) != SLAP_OK ||
        hist_slab_alloc(&d->scratch, RESULTS_SCRATCH) != SLAP_OK) {
        results_doc_free(d);
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

uint32_t results_doc_types(const struct results_doc *d)
{
    uint32_t types = op_bit(OP_GET) | op_bit(OP_SET);
    for (int t = 0; t < STATS_TYPES; t++) {
        const struct hist *h = d->global->lat[t];
        types |= h != NULL && h->count > 0 ? op_bit((enum op_type)t) : 0;
    }
    return types;
}

/* Every histogram a period owns, freed. */
static void period_free_hists(struct results_period *p)
{
    for (int t = 0; t < STATS_TYPES; t++) {
        results_sparse_free(&p->lat[t]);
        results_sparse_free(&p->late[t]);
        results_sparse_free(&p->held[t]);
    }
}

void results_doc_free(struct results_doc *d)
{
    struct results_step *steps = d->steps.items;
    results_drop_periods(d);
    for (size_t i = 0; i < d->steps.n; i++) {
        for (int t = 0; t < STATS_TYPES; t++) {
            results_sparse_free(&steps[i].lat[t]);
        }
        if (steps[i].intervals != NULL) {
            intervals_free(steps[i].intervals);
            free(steps[i].intervals);
        }
        limits_free(&steps[i].limits);
    }
    if (d->intervals != NULL) {
        intervals_free(d->intervals);
        free(d->intervals);
    }
    struct results_period *rounds = d->rounds.items;
    for (size_t i = 0; i < d->rounds.n; i++) {
        period_free_hists(&rounds[i]);
    }
    free(d->periods.items);
    free(d->rounds.items);
    free(d->steps.items);
    free(d->servers.items);
    free(d->runs.items);
    free(d->probes.items);
    free(d->changes.items);
    limits_free(&d->limits);
    run_desc_free(&d->desc);
    free(d->source);
    if (d->global != NULL) {
        stats_free(d->global);
    }
    free(d->global);
    hist_slab_free(d->scratch, RESULTS_SCRATCH);
    memset(d, 0, sizeof(*d));
}

/* Room for one more item of size bytes in list; NULL when out of memory or full. */
static void *list_add(struct results_list *list, size_t size)
{
    if (list->n == RESULTS_MAX_ITEMS) {
        return NULL;
    }
    if (list->n == list->cap) {
        size_t cap = list->cap == 0 ? 16 : list->cap * 2;
        void *items = realloc(list->items, cap * size);
        if (items == NULL) {
            return NULL;
        }
        list->items = items;
        list->cap = cap;
    }
    void *item = (char *)list->items + list->n * size;
    memset(item, 0, size);
    list->n++;
    return item;
}

/* The per-type histograms hs (s->lat, late or held), sparse, into out[] (a type s does not
 * keep: empty); everything freed on failure. */
static enum slap_status sparse_of(struct hist *const *hs, struct results_sparse *out)
{
    for (int t = 0; t < STATS_TYPES; t++) {
        if (hs[t] == NULL) {
            memset(&out[t], 0, sizeof(out[t])); /* no events */
        } else if (results_sparse_from_hist(hs[t], &out[t]) != SLAP_OK) {
            while (t-- > 0) {
                results_sparse_free(&out[t]);
            }
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

static enum slap_status sparse_types(const struct slap_stats *s, struct results_sparse *lat)
{
    return sparse_of(s->lat, lat);
}

/* Append a period made from s to list. */
static enum slap_status list_add_period(struct results_list *list, double elapsed_s, double seconds,
                                        const struct slap_stats *s)
{
    struct results_period *p = list_add(list, sizeof(*p));
    if (p == NULL) {
        return SLAP_ERROR;
    }
    p->elapsed_s = elapsed_s;
    p->seconds = seconds;
    p->counters = s->counters;
    memcpy(p->net_bytes, s->net_bytes, sizeof(p->net_bytes));
    memcpy(p->misses, s->misses, sizeof(p->misses));
    if (sparse_types(s, p->lat) != SLAP_OK) {
        list->n--;
        return SLAP_ERROR;
    }
    if (sparse_of(s->late, p->late) != SLAP_OK || sparse_of(s->held, p->held) != SLAP_OK) {
        period_free_hists(p);
        list->n--;
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

double results_period_target(const struct results_doc *d, const struct results_period *p)
{
    if (!results_has_targets(d)) {
        return 0.0;
    }
    double from = p->elapsed_s > p->seconds ? p->elapsed_s - p->seconds : 0.0;
    return rate_plan_between(&d->desc.ramp, d->desc.tps, d->changes.items, d->changes.n, from,
                             p->elapsed_s);
}

enum slap_status results_add_period(struct results_doc *d, double elapsed_s, double seconds,
                                    const struct slap_stats *s)
{
    return list_add_period(&d->periods, elapsed_s, seconds, s);
}

enum slap_status results_move_period(struct results_doc *d, struct results_period *p)
{
    struct results_period *to = list_add(&d->periods, sizeof(*to));
    if (to == NULL) {
        return SLAP_ERROR;
    }
    *to = *p;
    memset(p->lat, 0, sizeof(p->lat)); /* now to's */
    memset(p->late, 0, sizeof(p->late));
    memset(p->held, 0, sizeof(p->held));
    return SLAP_OK;
}

void results_drop_periods(struct results_doc *d)
{
    struct results_period *periods = d->periods.items;
    for (size_t i = 0; i < d->periods.n; i++) {
        period_free_hists(&periods[i]);
    }
    d->periods.n = 0;
}

/* Add s into p: counters, bytes, misses and histograms (summed in h). */
static enum slap_status period_extend(struct results_period *p, const struct slap_stats *s,
                                      struct hist *h)
{
#define SLAP_COUNTER_ADD(name, show, since, meaning) p->counters.name += s->counters.name;
    SLAP_COUNTERS(SLAP_COUNTER_ADD)
#undef SLAP_COUNTER_ADD
    for (int t = 0; t < STATS_TYPES; t++) {
        p->net_bytes[t] += s->net_bytes[t];
        p->misses[t] += s->misses[t];
        if (results_sparse_sum(&p->lat[t], NULL, s->lat[t], h) != SLAP_OK ||
            results_sparse_sum(&p->late[t], NULL, s->late[t], h) != SLAP_OK ||
            results_sparse_sum(&p->held[t], NULL, s->held[t], h) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

/* p added into into: its end p's, its length the sum; p is left as it was (summed in h). */
static enum slap_status period_fold(struct results_period *into, const struct results_period *p,
                                    struct hist *h)
{
#define SLAP_COUNTER_FOLD(name, show, since, meaning) into->counters.name += p->counters.name;
    SLAP_COUNTERS(SLAP_COUNTER_FOLD)
#undef SLAP_COUNTER_FOLD
    into->elapsed_s = p->elapsed_s;
    into->seconds += p->seconds;
    for (int t = 0; t < STATS_TYPES; t++) {
        into->net_bytes[t] += p->net_bytes[t];
        into->misses[t] += p->misses[t];
        if (results_sparse_sum(&into->lat[t], &p->lat[t], NULL, h) != SLAP_OK ||
            results_sparse_sum(&into->late[t], &p->late[t], NULL, h) != SLAP_OK ||
            results_sparse_sum(&into->held[t], &p->held[t], NULL, h) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

enum slap_status results_fold_into_last(struct results_doc *d, const struct results_period *p)
{
    if (d->periods.n == 0) {
        return SLAP_ERROR;
    }
    return period_fold(&((struct results_period *)d->periods.items)[d->periods.n - 1], p,
                       d->scratch);
}

enum slap_status results_halve_periods(struct results_doc *d)
{
    struct results_period *items = d->periods.items;
    size_t kept = 0;
    for (size_t i = 0; i < d->periods.n; i += 2) {
        if (i + 1 < d->periods.n) {
            if (period_fold(&items[i], &items[i + 1], d->scratch) != SLAP_OK) {
                return SLAP_ERROR;
            }
            period_free_hists(&items[i + 1]);
        }
        items[kept++] = items[i];
    }
    d->periods.n = kept;
    return SLAP_OK;
}

enum slap_status results_extend_last_period(struct results_doc *d, const struct slap_stats *s)
{
    if (d->periods.n == 0) {
        return results_add_period(d, 0.0, 0.0, s);
    }
    return period_extend(&((struct results_period *)d->periods.items)[d->periods.n - 1], s,
                         d->scratch);
}

enum slap_status results_add_to_round(struct results_doc *d, size_t index, double elapsed_s,
                                      double seconds, const struct slap_stats *s)
{
    if (index == d->rounds.n) {
        return list_add_period(&d->rounds, elapsed_s, seconds, s);
    }
    if (index > d->rounds.n) {
        return SLAP_ERROR;
    }
    struct results_period *r = &((struct results_period *)d->rounds.items)[index];
    r->elapsed_s = elapsed_s > r->elapsed_s ? elapsed_s : r->elapsed_s;
    r->seconds += seconds;
    return period_extend(r, s, d->scratch);
}

enum slap_status results_add_step(struct results_doc *d, double target_tps, double seconds,
                                  const struct slap_stats *s)
{
    struct results_step *step = list_add(&d->steps, sizeof(*step));
    if (step == NULL) {
        return SLAP_ERROR;
    }
    step->target_tps = target_tps;
    step->seconds = seconds;
    step->counters = s->counters;
    memcpy(step->net_bytes, s->net_bytes, sizeof(step->net_bytes));
    memcpy(step->misses, s->misses, sizeof(step->misses));
    if (sparse_types(s, step->lat) != SLAP_OK) {
        d->steps.n--;
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

enum slap_status results_add_server(struct results_doc *d, const char *name, const char *label,
                                    const struct server_stats_pair *pair)
{
    struct results_server *srv = list_add(&d->servers, sizeof(*srv));
    if (srv == NULL) {
        return SLAP_ERROR;
    }
    snprintf(srv->name, sizeof(srv->name), "%s", name);
    snprintf(srv->label, sizeof(srv->label), "%s", label);
    srv->stats = *pair;
    return SLAP_OK;
}

enum slap_status results_add_run(struct results_doc *d, const struct results_run_id *id)
{
    struct results_run_id *run = list_add(&d->runs, sizeof(*run));
    if (run == NULL) {
        return SLAP_ERROR;
    }
    *run = *id;
    return SLAP_OK;
}

enum slap_status results_keep_probe(struct results_doc *d, const struct results_probe *p)
{
    struct results_probe *kept = list_add(&d->probes, sizeof(*kept));
    if (kept == NULL) {
        return SLAP_ERROR;
    }
    *kept = *p;
    return SLAP_OK;
}

enum slap_status results_keep_change(struct results_doc *d, const struct rate_change *c)
{
    struct rate_change *kept = list_add(&d->changes, sizeof(*kept));
    if (kept == NULL) {
        return SLAP_ERROR;
    }
    *kept = *c;
    return SLAP_OK;
}

enum slap_status results_add_probe(struct results_doc *d, const struct results_doc *probe)
{
    struct hist *total;
    struct results_probe p;
    if (hist_slab_alloc(&total, 1) != SLAP_OK) {
        return SLAP_ERROR;
    }
    stats_total_hist(probe->global, total);
    snprintf(p.label, sizeof(p.label), "%s", probe->label);
    p.requests = results_requests(probe->global);
    p.tps = probe->seconds > 0 ? (double)p.requests / probe->seconds : 0.0;
    p.p50_us = (double)hist_percentile_ns(total, 50) / 1e3;
    p.p99_us = (double)hist_percentile_ns(total, 99) / 1e3;
    p.p999_us = (double)hist_percentile_ns(total, 99.9) / 1e3;
    p.max_us = (double)total->max_ns / 1e3;
    hist_slab_free(total, 1);
    return results_keep_probe(d, &p);
}

enum slap_status results_add_this_run(struct results_doc *d)
{
    struct results_run_id id = {.pid = (uint64_t)getpid(), .start_ms = d->start_ms};
    if (gethostname(id.host, sizeof(id.host) - 1) != 0 || results_label_problem(id.host) != NULL) {
        snprintf(id.host, sizeof(id.host), "%s", d->label);
    }
    return results_add_run(d, &id);
}

void results_run_figures(const struct results_doc *d, struct results_run_id *id)
{
    snprintf(id->label, sizeof(id->label), "%s", d->label);
    id->requests = stats_ops(d->global); /* as the run line's Ops */
    id->tps = d->seconds > 0 ? (double)id->requests / d->seconds : 0.0;
    id->errors = stats_errors(&d->global->counters);
    snprintf(id->limited_by, sizeof(id->limited_by), "%s",
             d->has_limits ? limits_verdict_name(d->limits.verdict) : "");
}

enum slap_status results_run_latency(const struct results_doc *d, struct results_run_id *id)
{
    struct hist *total;
    if (hist_slab_alloc(&total, 1) != SLAP_OK) {
        return SLAP_ERROR;
    }
    stats_total_hist(d->global, total);
    id->has_latency = true;
    id->p50_us = (double)hist_percentile_ns(total, 50) / 1e3;
    id->p90_us = (double)hist_percentile_ns(total, 90) / 1e3;
    id->p99_us = (double)hist_percentile_ns(total, 99) / 1e3;
    id->p999_us = (double)hist_percentile_ns(total, 99.9) / 1e3;
    id->max_us = (double)total->max_ns / 1e3;
    hist_slab_free(total, 1);
    return SLAP_OK;
}

uint64_t results_requests(const struct slap_stats *s)
{
    const struct slap_counters *c = &s->counters;
    uint64_t events = 0;
    for (int t = 0; t < STATS_TYPES; t++) {
        events += s->lat[t] != NULL ? s->lat[t]->count : 0;
    }
    return events + c->server_error + c->client_error + c->error_reply;
}
