/*
 * Results documents merged: counters and histograms added exactly, periods and steps added by
 * position, servers and runs listed. slap merge reads its files a period at a time, twice:
 *
 *   results_merge_read    every file read whole, every period checked and summed with the
 *                         same period of the files before (kept: none), each file's head kept
 *   results_merge_heads   the heads merged (refusing what a sum would not mean)
 *   results_merge_periods the files read again in step, each merged period handed on
 *
 * so that what it holds is the heads' histograms and a period of each file, however long the
 * runs. results_merge does the same over documents held whole.
 */
#include "slap/output/results_merge.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/quote.h"
#include "slap/base/units.h"
#include "slap/output/results.h"
#include "slap/output/results_read.h"

#define MERGE_ERR_MAX 640 /* an input's error: its name and what is wrong */

#define SETTING_SHOWN 255 /* the bytes of a setting compared and shown */

/* The text of the setting named name in d's configuration, for comparing two documents. */
static const char *setting_text(const struct results_doc *d, const char *name)
{
    const struct run_config_entry *e = run_config_find(&d->desc.config, name);
    return e == NULL || e->kind == RUN_CONFIG_NULL ? "(none)" : e->value;
}

/* Do a and b differ in the workload setting e (a's)? Then err says how. */
static bool workload_differs(const struct results_doc *a, const struct results_doc *b,
                             const struct run_config_entry *e, char *err, size_t err_len)
{
    const char *va = setting_text(a, e->name), *vb = setting_text(b, e->name);
    if (strncmp(va, vb, SETTING_SHOWN) == 0) {
        return false;
    }
    char qa[QUOTE_PATH_BUF], qb[QUOTE_PATH_BUF];
    snprintf(err, err_len, "the workloads differ: --%s is %.255s in %s and %.255s in %s", e->name,
             va, quote_name(qa, a->label), vb, quote_name(qb, b->label));
    return true;
}

/* Is d a groups run's total (-F with groups)? Its runs[] entries, a group's each, keep their
 * latency; its mix is what the groups sent together. */
static bool groups_total(const struct results_doc *d)
{
    const struct results_run_id *runs = d->runs.items;
    for (size_t i = 0; i < d->runs.n; i++) {
        if (runs[i].has_latency) {
            return true;
        }
    }
    return false;
}

/* A group's name in a groups total: its label after the run's ("box/writer": writer). */
static const char *group_name(const struct results_run_id *id)
{
    const char *slash = strrchr(id->label, '/');
    return slash != NULL ? slash + 1 : id->label;
}

/* Two groups runs' totals (two hosts that ran one file of groups) hold the same groups, in one
 * order, or err says how they differ. */
static enum slap_status same_groups(const struct results_doc *a, const struct results_doc *b,
                                    char *err, size_t err_len)
{
    const struct results_run_id *ra = a->runs.items, *rb = b->runs.items;
    size_t i = 0, j = 0;
    for (;; i++, j++) {
        while (i < a->runs.n && !ra[i].has_latency) {
            i++;
        }
        while (j < b->runs.n && !rb[j].has_latency) {
            j++;
        }
        if (i == a->runs.n || j == b->runs.n) {
            break;
        }
        if (strcmp(group_name(&ra[i]), group_name(&rb[j])) != 0) {
            break;
        }
    }
    if (i == a->runs.n && j == b->runs.n) {
        return SLAP_OK;
    }
    char qa[QUOTE_PATH_BUF], qb[QUOTE_PATH_BUF];
    snprintf(err, err_len, "the workloads differ: %s and %s ran different groups (%s)",
             quote_name(qa, a->label), quote_name(qb, b->label),
             i < a->runs.n && j < b->runs.n ? "a group's name differs" : "one has more groups");
    return SLAP_ERROR;
}

enum slap_status results_same_workload(const struct results_doc *a, const struct results_doc *b,
                                       char *err, size_t err_len)
{
    /* groups runs' totals: the mix each sent is what its groups achieved, and differs from
     * host to host; the groups are compared instead (each group's settings lie in its file) */
    bool groups = groups_total(a) && groups_total(b);
    if (groups && same_groups(a, b, err, err_len) != SLAP_OK) {
        return SLAP_ERROR;
    }
    if (a->sweep != b->sweep) {
        char qa[QUOTE_PATH_BUF], qb[QUOTE_PATH_BUF];
        snprintf(err, err_len, "%s is a sweep and %s is not",
                 quote_name(qa, a->sweep ? a->label : b->label),
                 quote_name(qb, a->sweep ? b->label : a->label));
        return SLAP_ERROR;
    }
    for (size_t i = 0; i < a->desc.config.n; i++) {
        const struct run_config_entry *e = &a->desc.config.entries[i];
        /* the entries say which settings make the workload */
        bool achieved = groups && (strcmp(e->name, "mix") == 0 || strcmp(e->name, "ratio") == 0);
        if ((e->flags & RUN_CONFIG_WORKLOAD) && !achieved &&
            workload_differs(a, b, e, err, err_len)) {
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

size_t results_workload_diff(const struct results_doc *a, const struct results_doc *b, char *buf,
                             size_t len)
{
    size_t found = 0, used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < a->desc.config.n; i++) {
        const struct run_config_entry *e = &a->desc.config.entries[i];
        const char *va = setting_text(a, e->name), *vb = setting_text(b, e->name);
        if (!(e->flags & RUN_CONFIG_WORKLOAD) || strncmp(va, vb, SETTING_SHOWN) == 0) {
            continue;
        }
        char one[2 * SETTING_SHOWN + 64];
        int n = snprintf(one, sizeof(one), "%s--%s (%.255s in A, %.255s in B)",
                         found > 0 ? ", " : "", e->name, va, vb);
        found++;
        if (n < 0 || used + (size_t)n + 4 >= len) {
            snprintf(buf + used, len - used, "%s", used + 4 < len ? "..." : "");
            used = len;
            continue;
        }
        memcpy(buf + used, one, (size_t)n + 1);
        used += (size_t)n;
    }
    return found;
}

/* A document's name in messages: its file, else its label. */
static const char *doc_name(const struct results_doc *d)
{
    return d->source != NULL ? d->source : d->label;
}

/* Can b be added to a? If not, err names the setting that differs. */
static enum slap_status check_compatible(const struct results_merge_input *in_a,
                                         const struct results_merge_input *in_b, char *err,
                                         size_t err_len)
{
    const struct results_doc *a = in_a->doc, *b = in_b->doc;
    bool groups = in_a->group && in_b->group; /* one run's groups: each its own workload */
    if (!groups && results_same_workload(a, b, err, err_len) != SLAP_OK) {
        return SLAP_ERROR;
    }
    char qa[QUOTE_PATH_BUF], qb[QUOTE_PATH_BUF];
    if (!groups && (a->desc.tps > 0) != (b->desc.tps > 0)) {
        const struct results_doc *open = a->desc.tps > 0 ? a : b;
        snprintf(err, err_len,
                 "the loops differ: %s is open loop (--tps %.255s) and %s closed loop (no "
                 "--tps): their requests were sent differently",
                 quote_name(qa, doc_name(open)), setting_text(open, "tps"),
                 quote_name(qb, doc_name(open == a ? b : a)));
        return SLAP_ERROR;
    }
    if (a->desc.execute_number == 0 && a->desc.run_time_ns != b->desc.run_time_ns) {
        snprintf(err, err_len,
                 "the runs differ in length: --time is %.255ss in %s and %.255ss in %s",
                 setting_text(a, "time"), quote_name(qa, a->label), setting_text(b, "time"),
                 quote_name(qb, b->label));
        return SLAP_ERROR;
    }
    if (strncmp(setting_text(a, "rounds"), setting_text(b, "rounds"), SETTING_SHOWN) != 0) {
        snprintf(err, err_len,
                 "the runs differ in length: --rounds is %.255s in %s and %.255s in %s "
                 "(rounds of --time each are measured)",
                 setting_text(a, "rounds"), quote_name(qa, doc_name(a)), setting_text(b, "rounds"),
                 quote_name(qb, doc_name(b)));
        return SLAP_ERROR;
    }
    if (a->period_s != b->period_s && in_a->nperiods > 0 && in_b->nperiods > 0) {
        snprintf(err, err_len, "the periods differ: %gs in %s and %gs in %s", a->period_s,
                 quote_name(qa, a->label), b->period_s, quote_name(qb, b->label));
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

/* A period's or a step's figures, whichever it is. */
struct merge_part {
    double when; /* elapsed_s, or target_tps */
    double seconds;
    const struct slap_counters *counters;
    const struct results_sparse *lat;
    const uint64_t *net_bytes;
    const uint64_t *misses;
};

/* Would a + b pass RESULTS_COUNT_MAX? */
static bool count_overflows(uint64_t a, uint64_t b)
{
    uint64_t sum;
    return __builtin_add_overflow(a, b, &sum) || sum > RESULTS_COUNT_MAX;
}

/* The first counter whose sum would pass RESULTS_COUNT_MAX, or NULL. */
static const char *counters_overflow(const struct slap_counters *a, const struct slap_counters *b)
{
#define SLAP_COUNTER_OVERFLOW(name, show, since, meaning)                                          \
    if (count_overflows(a->name, b->name)) {                                                       \
        return #name;                                                                              \
    }
    SLAP_COUNTERS(SLAP_COUNTER_OVERFLOW)
#undef SLAP_COUNTER_OVERFLOW
    return NULL;
}

/* Type t's figure whose sum would pass RESULTS_COUNT_MAX ("get net_bytes") into name, or "". */
static void type_overflow(int t, const uint64_t bytes[2], const uint64_t misses[2],
                          const uint64_t counts[2], char *name, size_t len)
{
    const char *what = count_overflows(bytes[0], bytes[1])     ? "net_bytes"
                       : count_overflows(misses[0], misses[1]) ? "misses"
                       : count_overflows(counts[0], counts[1]) ? "hist count"
                                                               : NULL;
    snprintf(name, len, "%s%s%s", what != NULL ? stats_type_name(t) : "", what != NULL ? " " : "",
             what != NULL ? what : "");
}

/* The first figure of a period or step whose sum would pass RESULTS_COUNT_MAX into name; false
 * when there is none. */
static bool part_overflow(const struct merge_part *a, const struct merge_part *b, char *name,
                          size_t len)
{
    const char *counter = counters_overflow(a->counters, b->counters);
    if (counter != NULL) {
        snprintf(name, len, "%s", counter);
        return true;
    }
    for (int t = 0; t < STATS_TYPES; t++) {
        uint64_t bytes[2] = {a->net_bytes[t], b->net_bytes[t]};
        uint64_t misses[2] = {a->misses[t], b->misses[t]};
        uint64_t counts[2] = {a->lat[t].count, b->lat[t].count};
        type_overflow(t, bytes, misses, counts, name, len);
        if (name[0] != '\0') {
            return true;
        }
    }
    return false;
}

/* The first figure of the whole run whose sum would pass RESULTS_COUNT_MAX into name; false
 * when there is none. */
static bool stats_overflow(const struct slap_stats *a, const struct slap_stats *b, char *name,
                           size_t len)
{
    const char *counter = counters_overflow(&a->counters, &b->counters);
    if (counter != NULL) {
        snprintf(name, len, "%s", counter);
        return true;
    }
    for (int t = 0; t < STATS_TYPES; t++) {
        uint64_t bytes[2] = {a->net_bytes[t], b->net_bytes[t]};
        uint64_t misses[2] = {a->misses[t], b->misses[t]};
        uint64_t lat[2] = {a->lat[t] != NULL ? a->lat[t]->count : 0,
                           b->lat[t] != NULL ? b->lat[t]->count : 0};
        uint64_t raw[2] = {a->raw[t] != NULL ? a->raw[t]->count : 0,
                           b->raw[t] != NULL ? b->raw[t]->count : 0};
        uint64_t none[2] = {0, 0};
        type_overflow(t, bytes, misses, lat, name, len);
        if (name[0] == '\0') {
            type_overflow(t, none, none, raw, name, len);
        }
        if (name[0] != '\0') {
            return true;
        }
    }
    for (int o = 0; o < STATS_OUTCOMES; o++) {
        if (count_overflows(a->gets[o]->count, b->gets[o]->count)) {
            snprintf(name, len, "get_outcomes hist count");
            return true;
        }
    }
    if (count_overflows(a->lag->count, b->lag->count)) {
        snprintf(name, len, "send_lag hist count");
        return true;
    }
    return false;
}

/* "'file': its name ..." into err, for a figure whose sum passes RESULTS_COUNT_MAX. */
static void say_overflow(char *err, size_t err_len, const struct results_doc *d, const char *where,
                         const char *name)
{
    char shown[QUOTE_PATH_BUF];
    snprintf(err, err_len,
             "%s: %s%s%s added to the files before it is more than 2^53 (a corrupt number?)",
             quote_name(shown, doc_name(d)), where, where[0] != '\0' ? " " : "", name);
}

/* Add src's period (or step) i into dst's, appending when dst has fewer. scratch keeps every
 * type. SLAP_AGAIN with the figure named in overflow when a sum would pass RESULTS_COUNT_MAX. */
static enum slap_status merge_item(struct results_doc *dst, size_t i, const struct merge_part *src,
                                   bool step, struct slap_stats *scratch, char *overflow,
                                   size_t overflow_len)
{
    struct results_list *list = step ? &dst->steps : &dst->periods;
    stats_reset(scratch);
    if (i < list->n) {
        struct results_step *st = step ? &((struct results_step *)list->items)[i] : NULL;
        struct results_period *p = step ? NULL : &((struct results_period *)list->items)[i];
        struct results_sparse *have = step ? st->lat : p->lat;
        struct slap_counters *sum = step ? &st->counters : &p->counters;
        uint64_t *bytes = step ? st->net_bytes : p->net_bytes;
        uint64_t *misses = step ? st->misses : p->misses;
        struct merge_part now = {0, 0, sum, have, bytes, misses};
        if (part_overflow(&now, src, overflow, overflow_len)) {
            return SLAP_AGAIN;
        }
        if (step) {
            st->target_tps += src->when; /* the hosts together aimed at the sum */
        }
        for (int t = 0; t < STATS_TYPES; t++) {
            results_sparse_add(&have[t], scratch->lat[t]);
            results_sparse_add(&src->lat[t], scratch->lat[t]);
            results_sparse_free(&have[t]);
            if (results_sparse_from_hist(scratch->lat[t], &have[t]) != SLAP_OK) {
                return SLAP_ERROR;
            }
            bytes[t] += src->net_bytes[t];
            misses[t] += src->misses[t];
        }
#define SLAP_COUNTER_SUM(name, show, since, meaning) sum->name += src->counters->name;
        SLAP_COUNTERS(SLAP_COUNTER_SUM)
#undef SLAP_COUNTER_SUM
        return SLAP_OK;
    }
    scratch->counters = *src->counters;
    for (int t = 0; t < STATS_TYPES; t++) {
        results_sparse_add(&src->lat[t], scratch->lat[t]);
        scratch->net_bytes[t] = src->net_bytes[t];
        scratch->misses[t] = src->misses[t];
    }
    return step ? results_add_step(dst, src->when, src->seconds, scratch)
                : results_add_period(dst, src->when, src->seconds, scratch);
}

/* merge_item's outcome as merge_lists': err says what went wrong. */
static enum slap_status item_merged(enum slap_status st, const struct results_doc *src, bool step,
                                    size_t i, const char *overflow, char *err, size_t err_len)
{
    char where[32];
    if (st == SLAP_AGAIN) {
        snprintf(where, sizeof(where), "%s[%zu]", step ? "steps" : "periods", i);
        say_overflow(err, err_len, src, where, overflow);
        return SLAP_ERROR;
    }
    if (st != SLAP_OK) {
        snprintf(err, err_len, "out of memory");
    }
    return st;
}

/* Add src's steps, servers and runs into dst; refuse its periods when their sums with the inputs
 * before pass RESULTS_COUNT_MAX (found when they were read). */
static enum slap_status merge_lists(struct results_doc *dst, const struct results_merge_input *in,
                                    struct slap_stats *scratch, char *err, size_t err_len)
{
    const struct results_doc *src = in->doc;
    const struct results_step *steps = src->steps.items;
    const struct results_server *servers = src->servers.items;
    char overflow[64] = "";
    if (in->overflow_at != SIZE_MAX) {
        return item_merged(SLAP_AGAIN, src, false, in->overflow_at, in->overflow, err, err_len);
    }
    for (size_t i = 0; i < src->steps.n; i++) {
        const struct results_step *st = &steps[i];
        struct merge_part part = {st->target_tps, st->seconds,   &st->counters,
                                  st->lat,        st->net_bytes, st->misses};
        enum slap_status status =
            merge_item(dst, i, &part, true, scratch, overflow, sizeof(overflow));
        if (item_merged(status, src, true, i, overflow, err, err_len) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    for (size_t i = 0; i < src->servers.n; i++) {
        if (results_add_server(dst, servers[i].name, servers[i].label, &servers[i].stats) !=
            SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    for (size_t i = 0; i < src->runs.n; i++) {
        struct results_run_id id = ((const struct results_run_id *)src->runs.items)[i];
        if (src->runs.n == 1) {
            results_run_figures(src, &id); /* a host's run: its document's figures */
        }
        if (src->runs.n == 1 && in->group && results_run_latency(src, &id) != SLAP_OK) {
            return SLAP_ERROR;
        }
        if (results_add_run(dst, &id) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    dst->counters_unknown |= src->counters_unknown; /* a sum with an unknown is not known */
    return SLAP_OK;
}

/* A merged step's verdict: the hosts' when they agree, else "mixed"; cut short when any host's
 * step was. */
static void merge_step_verdicts(struct results_doc *dst, const struct results_doc *src, bool first)
{
    struct results_step *to = dst->steps.items;
    const struct results_step *from = src->steps.items;
    for (size_t i = 0; i < src->steps.n && i < dst->steps.n; i++) {
        to[i].interrupted = to[i].interrupted || from[i].interrupted;
        if (first || to[i].limited_by[0] == '\0') {
            snprintf(to[i].limited_by, sizeof(to[i].limited_by), "%s", from[i].limited_by);
        } else if (strcmp(to[i].limited_by, from[i].limited_by) != 0) {
            snprintf(to[i].limited_by, sizeof(to[i].limited_by), "mixed");
        }
    }
}

/* The merged run's (or step's) shape set on l, and l judged again: the hosts' rate and clients
 * together. */
static void judge_merged(struct limits *l, const struct results_doc *out, double seconds,
                         double target_tps, const struct slap_counters *c)
{
    l->seconds = seconds;
    l->target_tps = target_tps;
    l->achieved_tps = seconds > 0 ? (double)stats_counters_requests(c) / seconds : 0; /* as -P */
    l->paced_by_trace = out->desc.trace != NULL && out->desc.trace_speed > 0;
    l->ramped = out->desc.ramp.duration_ns > 0;
    l->concurrency = out->desc.concurrency;
    l->threads = out->desc.threads;
    l->due = stats_counters_ops(c) + c->unanswered;
    l->silent = c->unanswered > c->unsent ? c->unanswered - c->unsent : 0;
    limits_judge(l);
}

/*
 * What limited the hosts together: their slaps as one (CPU summed, the busiest thread of
 * all), every server each host read, judged again over the merged rate and clients. Only
 * when every document has its limits.
 */
static enum slap_status merge_limits(struct results_doc *out, const struct results_merge_input *in,
                                     size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!in[i].doc->has_limits) {
            limits_free(&out->limits);
            out->has_limits = false;
            return SLAP_OK;
        }
        if (limits_add(&out->limits, &in[i].doc->limits, i == 0) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    out->has_limits = n > 0 && !out->sweep;
    judge_merged(&out->limits, out, out->seconds, out->desc.tps, &out->global->counters);
    return SLAP_OK;
}

/*
 * A merged sweep's step k judged as a merged run is, from each host's step k that has its
 * limits; none when one of them lacks it (an older file): limited_by then stays the hosts'
 * word, or "mixed".
 */
static enum slap_status merge_step_limits(struct results_doc *out,
                                          const struct results_merge_input *in, size_t n, size_t k)
{
    struct results_step *step = &((struct results_step *)out->steps.items)[k];
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        const struct results_doc *d = in[i].doc;
        if (k >= d->steps.n) {
            continue; /* a host that ran fewer steps */
        }
        const struct results_step *from = &((const struct results_step *)d->steps.items)[k];
        if (!from->has_limits) {
            limits_free(&step->limits);
            step->has_limits = false;
            return SLAP_OK;
        }
        if (limits_add(&step->limits, &from->limits, first) != SLAP_OK) {
            return SLAP_ERROR;
        }
        first = false;
    }
    step->has_limits = !first;
    if (step->has_limits) {
        judge_merged(&step->limits, out, step->seconds, step->target_tps, &step->counters);
        snprintf(step->limited_by, sizeof(step->limited_by), "%s",
                 limits_verdict_name(step->limits.verdict));
    }
    return SLAP_OK;
}

/* The settings the hosts add up (threads, clients, rates) shown again in the configuration,
 * with the joined label. */
static enum slap_status show_sums(struct results_doc *dst)
{
    const struct run_desc *s = &dst->desc;
    struct run_config *c = &dst->desc.config;
    char threads[32], concurrency[32], tps[32], sweep[128];
    snprintf(threads, sizeof(threads), "%" PRIu32, s->threads);
    snprintf(concurrency, sizeof(concurrency), "%" PRIu32, s->concurrency);
    units_shortest(tps, sizeof(tps), s->tps);
    snprintf(sweep, sizeof(sweep), "%.0f:%.0f:%.0f", s->sweep_start, s->sweep_end, s->sweep_step);
    enum run_config_kind tps_kind = s->tps == 0.0 ? RUN_CONFIG_NULL : RUN_CONFIG_NUMBER;
    enum run_config_kind sweep_kind = s->sweep_step == 0 ? RUN_CONFIG_NULL : RUN_CONFIG_TEXT;
    if (run_config_set(c, "label", RUN_CONFIG_TEXT, dst->label) != SLAP_OK ||
        run_config_set(c, "threads", RUN_CONFIG_NUMBER, threads) != SLAP_OK ||
        run_config_set(c, "concurrency", RUN_CONFIG_NUMBER, concurrency) != SLAP_OK ||
        run_config_set(c, "tps", tps_kind, tps) != SLAP_OK) {
        return SLAP_ERROR;
    }
    return run_config_set(c, "sweep", sweep_kind, sweep);
}

/* The figures of the whole: the longest measured time, the earliest start, the worst exit. */
static enum slap_status merge_top(struct results_doc *dst, const struct results_doc *src,
                                  bool first)
{
    dst->start_ms = first || src->start_ms < dst->start_ms ? src->start_ms : dst->start_ms;
    dst->end_ms = src->end_ms > dst->end_ms ? src->end_ms : dst->end_ms;
    dst->seconds = src->seconds > dst->seconds ? src->seconds : dst->seconds;
    dst->signal = dst->signal != 0 ? dst->signal : src->signal;
    dst->exit_status = src->exit_status > dst->exit_status ? src->exit_status : dst->exit_status;
    dst->samples_written += src->samples_written;
    dst->samples_dropped += src->samples_dropped;
    dst->closed_part = (!first && dst->closed_part) || src->desc.tps == 0.0;
    if (first) {
        run_desc_free(&dst->desc);
        dst->sweep = src->sweep;
        dst->period_s = src->period_s;
        snprintf(dst->label, sizeof(dst->label), "%s", src->label);
        return run_desc_copy(&dst->desc, &src->desc);
    }
    if (groups_total(dst) && groups_total(src)) { /* the mix the hosts' groups sent together */
        double wa = (double)stats_ops(dst->global), wb = (double)stats_ops(src->global);
        double mix[OP_COUNT];
        for (int op = 0; op < OP_COUNT && wa + wb > 0; op++) {
            mix[op] = (wa * dst->desc.mix[op] + wb * src->desc.mix[op]) / (wa + wb);
        }
        if (wa + wb > 0 && run_desc_set_mix(&dst->desc, mix) != SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    size_t used = strlen(dst->label);
    snprintf(dst->label + used, sizeof(dst->label) - used, "+%s", src->label);
    dst->desc.threads += src->desc.threads;
    dst->desc.concurrency += src->desc.concurrency;
    /* the parts aimed at the sum; with a closed loop among them (groups) there is no target */
    dst->desc.tps = dst->closed_part ? 0.0 : dst->desc.tps + src->desc.tps;
    dst->desc.ramp.from += src->desc.ramp.from; /* the same ramp's parts: one length */
    dst->desc.ramp.to += src->desc.ramp.to;
    dst->desc.sweep_start += src->desc.sweep_start;
    dst->desc.sweep_end += src->desc.sweep_end;
    dst->desc.sweep_step += src->desc.sweep_step;
    return show_sums(dst);
}

/* ---- the periods, a period of every input at a time ---------------------------------- */

/* Where an input's periods come from: its file, read again, or its document's list. */
struct merge_source {
    struct results_merge_input *in;
    struct results_stream *stream; /* reading in->path; NULL: in->doc's periods */
    struct results_doc head;       /* the file's head, read again (the stream's) */
    size_t next;                   /* the index of the next period */
    bool done;
};

/* Open every input's source; SLAP_ERROR with err when a file cannot be opened (the first
 * read: its error is kept in errs[i] and it has no periods). */
static enum slap_status sources_open(struct merge_source *src, struct results_merge_input *in,
                                     size_t n, char (*errs)[MERGE_ERR_MAX], char *err,
                                     size_t err_len)
{
    for (size_t i = 0; i < n; i++) {
        src[i].in = &in[i];
        if (in[i].path == NULL) {
            continue;
        }
        struct results_doc *d = errs != NULL ? in[i].doc : &src[i].head;
        char *why = errs != NULL ? errs[i] : err;
        size_t why_len = errs != NULL ? MERGE_ERR_MAX : err_len;
        const char *at = in[i].open_path != NULL ? in[i].open_path : in[i].path;
        if (results_stream_open(at, in[i].path, in[i].read_config, d, &src[i].stream, why,
                                why_len) != SLAP_OK) {
            src[i].done = true;
            if (errs == NULL) {
                return SLAP_ERROR;
            }
        }
    }
    return SLAP_OK;
}

static void sources_close(struct merge_source *src, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        results_stream_close(src[i].stream);
        results_doc_free(&src[i].head);
    }
}

/* The source's next period into *p: SLAP_OK; SLAP_AGAIN when it has no more; SLAP_ERROR with
 * err. */
static enum slap_status source_next(struct merge_source *s, const struct results_period **p,
                                    char *err, size_t err_len)
{
    enum slap_status st = SLAP_AGAIN;
    if (s->done) {
        return SLAP_AGAIN;
    }
    if (s->stream != NULL) {
        st = results_stream_next(s->stream, p, err, err_len);
    } else if (s->next < s->in->doc->periods.n) {
        *p = &((const struct results_period *)s->in->doc->periods.items)[s->next];
        st = SLAP_OK;
    }
    s->next += st == SLAP_OK;
    s->done = st != SLAP_OK;
    return st;
}

/* What one walk over the inputs does: the first (checking) read, or a later one. */
struct merge_walk {
    struct merge_source *src;
    size_t n;
    bool first_read;        /* record each input's periods and overflows; errors per input */
    struct results_doc acc; /* the merged period being summed (its periods list only) */
    struct slap_stats *scratch;
    char (*errs)[MERGE_ERR_MAX]; /* first_read: each input's error, "" for none */
};

/* Input i's period at index (its next) added into the walk's merged period. */
static enum slap_status walk_add(struct merge_walk *w, size_t i, const struct results_period *p,
                                 size_t index, char *err, size_t err_len)
{
    struct results_merge_input *in = w->src[i].in;
    struct merge_part part = {p->elapsed_s, p->seconds,   &p->counters,
                              p->lat,       p->net_bytes, p->misses};
    char overflow[64] = "";
    enum slap_status st =
        merge_item(&w->acc, 0, &part, false, w->scratch, overflow, sizeof(overflow));
    if (st == SLAP_AGAIN && w->first_read) {
        if (in->overflow_at == SIZE_MAX) {
            in->overflow_at = index;
            snprintf(in->overflow, sizeof(in->overflow), "%s", overflow);
        }
        return SLAP_OK;
    }
    if (st == SLAP_AGAIN) {
        char shown[QUOTE_PATH_BUF];
        snprintf(err, err_len, "%s changed while it was merged", quote_name(shown, in->path));
        return SLAP_ERROR;
    }
    if (st != SLAP_OK) {
        snprintf(err, err_len, "out of memory");
    }
    return st;
}

/* Period index of every input that has one summed into w->acc: SLAP_OK; SLAP_AGAIN when none
 * had one; SLAP_ERROR with err (the first read: an input's error is kept, it reads no more). */
static enum slap_status walk_period(struct merge_walk *w, size_t index, char *err, size_t err_len)
{
    bool any = false;
    results_drop_periods(&w->acc);
    for (size_t i = 0; i < w->n; i++) {
        const struct results_period *p = NULL;
        char *why = w->first_read ? w->errs[i] : err;
        size_t why_len = w->first_read ? MERGE_ERR_MAX : err_len;
        enum slap_status st = source_next(&w->src[i], &p, why, why_len);
        if (st == SLAP_AGAIN && w->first_read) {
            w->src[i].in->nperiods = w->src[i].next;
        } else if (st == SLAP_ERROR && !w->first_read) {
            return SLAP_ERROR;
        } else if (st == SLAP_OK) {
            any = true;
            if (walk_add(w, i, p, index, err, err_len) != SLAP_OK) {
                return SLAP_ERROR;
            }
        }
    }
    return any ? SLAP_OK : SLAP_AGAIN;
}

/* Every merged period handed to each (NULL: none). */
static enum slap_status walk(struct merge_walk *w, results_merge_each each, void *arg, char *err,
                             size_t err_len)
{
    enum slap_status st;
    size_t index = 0;
    while ((st = walk_period(w, index, err, err_len)) == SLAP_OK) {
        struct results_period *merged = w->acc.periods.items;
        if (each != NULL && each(arg, merged) != SLAP_OK) {
            snprintf(err, err_len, "out of memory");
            return SLAP_ERROR;
        }
        index++;
    }
    for (size_t i = 0; st == SLAP_AGAIN && !w->first_read && i < w->n; i++) {
        if (w->src[i].next != w->src[i].in->nperiods) {
            char shown[QUOTE_PATH_BUF];
            snprintf(err, err_len, "%s changed while it was merged",
                     quote_name(shown, w->src[i].in->path));
            st = SLAP_ERROR;
        }
    }
    return st == SLAP_AGAIN ? SLAP_OK : SLAP_ERROR;
}

/* Read every input once more (or the first time), handing each merged period to each. */
static enum slap_status walk_inputs(struct results_merge_input *in, size_t n, bool first_read,
                                    results_merge_each each, void *arg, char *err, size_t err_len)
{
    struct merge_walk w = {.n = n, .first_read = first_read};
    enum slap_status st = SLAP_ERROR;
    w.src = calloc(n > 0 ? n : 1, sizeof(*w.src));
    w.errs = first_read ? calloc(n > 0 ? n : 1, sizeof(*w.errs)) : NULL;
    w.scratch = malloc(sizeof(*w.scratch));
    if (w.scratch != NULL && stats_init(w.scratch, &stats_shape_all) != SLAP_OK) {
        free(w.scratch);
        w.scratch = NULL;
    }
    if (w.src == NULL || w.scratch == NULL || (first_read && w.errs == NULL)) {
        snprintf(err, err_len, "out of memory");
    } else if (sources_open(w.src, in, n, w.errs, err, err_len) == SLAP_OK) {
        st = walk(&w, each, arg, err, err_len);
    }
    for (size_t i = 0; st == SLAP_OK && first_read && i < n; i++) {
        if (w.errs[i][0] != '\0') {
            snprintf(err, err_len, "%s", w.errs[i]);
            st = SLAP_ERROR;
        }
    }
    if (w.src != NULL) {
        sources_close(w.src, n);
    }
    results_doc_free(&w.acc);
    if (w.scratch != NULL) {
        stats_free(w.scratch);
    }
    free(w.scratch);
    free(w.errs);
    free(w.src);
    return st;
}

/* ---- the whole ------------------------------------------------------------------------ */

/* The inputs' documents (without their periods) merged into out, in order, refusing as a merge
 * of whole documents would. */
/*
 * --rounds: round k of every input added into the merged round k (the hosts ran their rounds
 * side by side, as their periods), as long as the longest host's. None when the inputs' counts
 * differ: slap compare then takes the merged periods.
 */
static enum slap_status merge_rounds(struct results_doc *out, const struct results_merge_input *in,
                                     size_t n, struct slap_stats *scratch)
{
    size_t rounds = in[0].doc->rounds.n;
    for (size_t i = 1; i < n; i++) {
        if (in[i].doc->rounds.n != rounds) {
            return SLAP_OK;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const struct results_period *items = in[i].doc->rounds.items;
        for (size_t k = 0; k < rounds; k++) {
            const struct results_period *p = &items[k];
            stats_reset(scratch);
            scratch->counters = p->counters;
            for (int t = 0; t < STATS_TYPES; t++) {
                results_sparse_add(&p->lat[t], scratch->lat[t]);
                scratch->net_bytes[t] = p->net_bytes[t];
                scratch->misses[t] = p->misses[t];
            }
            if (results_add_to_round(out, k, p->elapsed_s, i == 0 ? p->seconds : 0.0, scratch) !=
                SLAP_OK) {
                return SLAP_ERROR;
            }
            struct results_period *merged = &((struct results_period *)out->rounds.items)[k];
            merged->seconds = p->seconds > merged->seconds ? p->seconds : merged->seconds;
        }
    }
    return SLAP_OK;
}

static enum slap_status merge_heads(struct results_doc *out, struct results_merge_input *in,
                                    size_t n, struct slap_stats *scratch, char *err, size_t err_len)
{
    for (size_t i = 0; i < n; i++) {
        char overflow[64] = "";
        if (i > 0 && check_compatible(&in[0], &in[i], err, err_len) != SLAP_OK) {
            return SLAP_ERROR;
        }
        if (stats_overflow(out->global, in[i].doc->global, overflow, sizeof(overflow))) {
            say_overflow(err, err_len, in[i].doc, "", overflow);
            return SLAP_ERROR;
        }
        if (merge_top(out, in[i].doc, i == 0) != SLAP_OK) {
            snprintf(err, err_len, "out of memory");
            return SLAP_ERROR;
        }
        stats_merge(out->global, in[i].doc->global);
        if (merge_lists(out, &in[i], scratch, err, err_len) != SLAP_OK) {
            return SLAP_ERROR;
        }
        merge_step_verdicts(out, in[i].doc, i == 0);
    }
    if (merge_limits(out, in, n) != SLAP_OK || merge_rounds(out, in, n, scratch) != SLAP_OK) {
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    for (size_t k = 0; k < out->steps.n; k++) {
        if (merge_step_limits(out, in, n, k) != SLAP_OK) {
            snprintf(err, err_len, "out of memory");
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

enum slap_status results_merge_read(struct results_merge_input *in, size_t n, char *err,
                                    size_t err_len)
{
    for (size_t i = 0; i < n; i++) {
        in[i].doc = calloc(1, sizeof(*in[i].doc));
        in[i].overflow_at = SIZE_MAX;
        if (in[i].doc == NULL) {
            snprintf(err, err_len, "out of memory");
            return SLAP_ERROR;
        }
    }
    return walk_inputs(in, n, true, NULL, NULL, err, err_len);
}

enum slap_status results_merge_heads(struct results_doc *out, struct results_merge_input *in,
                                     size_t n, char *err, size_t err_len)
{
    struct slap_stats *scratch = malloc(sizeof(*scratch));
    enum slap_status st = results_doc_init(out);
    if (scratch != NULL && stats_init(scratch, &stats_shape_all) != SLAP_OK) {
        free(scratch);
        scratch = NULL;
    }
    err[0] = '\0';
    if (st == SLAP_OK && scratch != NULL) {
        st = merge_heads(out, in, n, scratch, err, err_len);
    }
    if ((st != SLAP_OK || scratch == NULL) && err[0] == '\0') {
        snprintf(err, err_len, "out of memory");
        st = SLAP_ERROR;
    }
    if (scratch != NULL) {
        stats_free(scratch);
    }
    free(scratch);
    return st;
}

enum slap_status results_merge_periods(struct results_merge_input *in, size_t n,
                                       results_merge_each each, void *arg, char *err,
                                       size_t err_len)
{
    return walk_inputs(in, n, false, each, arg, err, err_len);
}

void results_merge_inputs_free(struct results_merge_input *in, size_t n)
{
    for (size_t i = 0; in != NULL && i < n; i++) {
        if (in[i].path != NULL && in[i].doc != NULL) {
            results_doc_free(in[i].doc);
            free(in[i].doc);
        }
        in[i].doc = NULL;
    }
}

/* ---- a run given twice --------------------------------------------------------------- */

/* Run k of input i, among every input's runs. */
struct run_ref {
    const struct results_run_id *id;
    size_t input, k;
};

/* By run (pid, start, host), then where it is (input, then its place in the input's runs). */
static int by_run(const void *pa, const void *pb)
{
    const struct run_ref *a = pa, *b = pb;
    int c = (a->id->pid > b->id->pid) - (a->id->pid < b->id->pid);
    c = c != 0 ? c : (a->id->start_ms > b->id->start_ms) - (a->id->start_ms < b->id->start_ms);
    c = c != 0 ? c : strcmp(a->id->host, b->id->host);
    c = c != 0 ? c : (a->input > b->input) - (a->input < b->input);
    return c != 0 ? c : (a->k > b->k) - (a->k < b->k);
}

static bool same_run(const struct results_run_id *a, const struct results_run_id *b)
{
    return a->pid == b->pid && a->start_ms == b->start_ms && strcmp(a->host, b->host) == 0;
}

/* Is the pair (a, b) with a's run k before the one found? */
static bool pair_before(const struct results_shared_run *found, size_t a, size_t b, size_t k,
                        size_t found_k)
{
    if (!found->found || a != found->a) {
        return !found->found || a < found->a;
    }
    return b < found->b || (b == found->b && k < found_k);
}

/* Each run of the sorted refs[0..n) held by two inputs or more: its first two inputs (sorted by
 * input, the group's first ref is the lowest) as a pair, the earliest pair kept in *out. */
static void find_shared(const struct run_ref *refs, size_t n, struct results_shared_run *out)
{
    size_t found_k = 0;
    for (size_t start = 0, end; start < n; start = end) {
        size_t other = SIZE_MAX;
        for (end = start + 1; end < n && same_run(refs[start].id, refs[end].id); end++) {
            other = other == SIZE_MAX && refs[end].input != refs[start].input ? end : other;
        }
        if (other != SIZE_MAX &&
            pair_before(out, refs[start].input, refs[other].input, refs[start].k, found_k)) {
            *out = (struct results_shared_run){true, refs[start].input, refs[other].input,
                                               *refs[start].id};
            found_k = refs[start].k;
        }
    }
}

enum slap_status results_merge_shared_run(const struct results_merge_input *in, size_t n,
                                          struct results_shared_run *out)
{
    size_t total = 0, used = 0;
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < n; i++) {
        total += in[i].doc->runs.n;
    }
    struct run_ref *refs = malloc((total > 0 ? total : 1) * sizeof(*refs));
    if (refs == NULL) {
        return SLAP_ERROR;
    }
    for (size_t i = 0; i < n; i++) {
        const struct results_run_id *runs = in[i].doc->runs.items;
        for (size_t k = 0; k < in[i].doc->runs.n; k++) {
            refs[used++] = (struct run_ref){&runs[k], i, k};
        }
    }
    qsort(refs, total, sizeof(*refs), by_run);
    find_shared(refs, total, out);
    free(refs);
    return SLAP_OK;
}

/* A merged period kept in the document being merged (results_merge_each). */
static enum slap_status keep_period(void *arg, struct results_period *p)
{
    return results_move_period(arg, p);
}

enum slap_status results_merge(struct results_doc *out, struct results_doc *const *docs, size_t n,
                               char *err, size_t err_len)
{
    struct results_merge_input *in = calloc(n > 0 ? n : 1, sizeof(*in));
    struct results_doc periods = {.period_s = 0};
    enum slap_status st = SLAP_ERROR;
    err[0] = '\0';
    for (size_t i = 0; in != NULL && i < n; i++) {
        in[i] = (struct results_merge_input){
            .doc = docs[i], .nperiods = docs[i]->periods.n, .overflow_at = SIZE_MAX};
    }
    if (in == NULL) {
        snprintf(err, err_len, "out of memory");
        (void)results_doc_init(out);
    } else if (walk_inputs(in, n, true, keep_period, &periods, err, err_len) != SLAP_OK) {
        (void)results_doc_init(out);
    } else if ((st = results_merge_heads(out, in, n, err, err_len)) == SLAP_OK) {
        out->periods = periods.periods; /* handed over */
        periods.periods = (struct results_list){0};
    }
    results_doc_free(&periods);
    free(in);
    return st;
}
