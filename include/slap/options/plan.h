/* The plans each layer runs by, made once from the command line's options. */
#ifndef SLAP_CLI_PLAN_H
#define SLAP_CLI_PLAN_H

#include <stddef.h>

#include "slap/engine/run.h"
#include "slap/model/workload.h"
#include "slap/net/tls.h"
#include "slap/options/options.h"

/* --share I/N: this host's part of a rate, or of a count (the first n mod N parts take one
 * more, so that the N hosts' parts add up to it); the whole without --share. Inline: the
 * outputs' description (plan_output.c) uses them without the rest of the plan. */
static inline double plan_share_rate(const struct slap_options *o, double rate)
{
    return o->share_count > 0 ? rate / o->share_count : rate;
}

static inline uint64_t plan_share_count(const struct slap_options *o, uint64_t n)
{
    if (o->share_count == 0) {
        return n;
    }
    return n / o->share_count + (o->share_index <= n % o->share_count ? 1 : 0);
}

/* --ramp: this host's part of it (both rates shared as -P is); duration_ns 0 without one. */
static inline struct ramp plan_share_ramp(const struct slap_options *o)
{
    return o->share_count > 0 ? ramp_share(&o->ramp, o->share_count) : o->ramp;
}

/* The open loop's target rate: -P's part, or over a ramp the mean of its part over -t (what
 * the run's verdict on the rate met and the report's target_tps compare with). */
static inline double plan_share_target(const struct slap_options *o)
{
    if (o->ramp.duration_ns == 0 || o->run_time_ns == 0) {
        return plan_share_rate(o, o->tps);
    }
    struct ramp r = plan_share_ramp(o);
    long double seconds = (long double)o->run_time_ns / (long double)SLAP_NS_PER_SEC;
    return (double)(ramp_count(&r, seconds) / seconds);
}

/* A setting a plan (or the run's description) takes as the option holds it: the plan's field
 * and the option's, of one type. */
struct plan_copy {
    size_t to;   /* the field's offset in the plan */
    size_t from; /* and in struct slap_options */
    size_t size;
};

/* The offset of field name of struct of, a compile error unless the field is of type. */
#define PLAN_FIELD(of, name, type) _Generic(((of *)0)->name, type : offsetof(of, name))
/* The row of a plan's field to, taken from the options' field from, both of type. */
#define PLAN_COPY(plan, to, from, type)                                                            \
    {                                                                                              \
        PLAN_FIELD(plan, to, type), PLAN_FIELD(struct slap_options, from, type), sizeof(type)      \
    }

/* Each of the n rows' fields of o into the plan. */
void plan_copy(void *plan, const struct slap_options *o, const struct plan_copy *rows, size_t n);

/* The workload: keys, values, the mix, the windows. */

void plan_workload(struct workload_plan *p, const struct slap_options *o);
/* The TLS context's files and checks. */
void plan_tls(struct tls_settings *p, const struct slap_options *o);
/* Without -S: periods of a tenth of a second, enough for batch means in a short run. */
#define PLAN_FINE_PERIOD_NS (SLAP_NS_PER_SEC / 10)

/* The periods a run is planned with. */
enum plan_periods {
    PLAN_PERIODS_ASKED, /* -S's, or none */
    PLAN_PERIODS_FINE,  /* -S's, or else PLAN_FINE_PERIOD_NS: the outputs keep them */
};

/* The whole run: the workload, TLS, the engine's settings, the servers, the periods and the
 * rest. */
void plan_run(struct run_plan *p, const struct slap_options *o, enum plan_periods periods);
/* One step of a sweep or a search: a timed open-loop run of o's workload at rate, its options
 * in *step (which the plan points into: keep it while the plan lives), with periods of
 * stat_freq_ns, or PLAN_FINE_PERIOD_NS when that is 0. Only the first step
 * waits for --start_at, flushes (--flush) and preloads: the later ones find the windows it
 * stored. */
void plan_step(struct run_plan *p, struct slap_options *step, const struct slap_options *o,
               double rate, uint64_t run_time_ns, uint64_t stat_freq_ns, bool first);

#endif
