/* --control: the run's rate changed, paused, resumed or stopped while it goes on. */
#include "run_state.h"
#include "slap/engine/run.h"

#include <stdio.h>

#include "slap/base/common.h"
#include "slap/engine/worker.h"

static double elapsed_s(const struct run *r)
{
    uint64_t now = slap_now_ns();
    uint64_t start = run_measure_start(r);
    return now >= start ? (double)(now - start) / (double)SLAP_NS_PER_SEC
                        : -(double)(start - now) / (double)SLAP_NS_PER_SEC;
}

/* The target rate now: the last one set, else the plan's (a ramp's at this moment). */
static double rate_now(const struct run *r)
{
    if (r->control_tps > 0) {
        return r->control_tps;
    }
    const struct engine_config *e = &r->engine;
    if (e->ramp.duration_ns > 0) {
        double t = elapsed_s(r);
        return ramp_rate_between(&e->ramp, t, t);
    }
    return e->lane.tps;
}

void run_control_state(const struct run *r, struct rate_state *st)
{
    bool open_loop = r->engine.lane.tps > 0;
    *st = (struct rate_state){
        .open_loop = open_loop,
        .running = r->control_open && !atomic_load(&r->gate.stop),
        .paused = r->control_paused,
        .stopped = r->control_stopped || atomic_load(&r->gate.stop),
        .tps = open_loop && !r->control_paused ? rate_now(r) : 0.0,
        .elapsed_s = r->control_open ? elapsed_s(r) : 0.0,
        .changes = r->ncontrol,
    };
}

/* Why action cannot be taken now, or NULL. */
static const char *conflict(const struct run *r, enum rate_action action)
{
    if (!r->control_open) {
        return "the run is not going on";
    }
    if (r->control_stopped || atomic_load(&r->gate.stop)) {
        return "the run is stopping";
    }
    switch (action) {
    case RATE_SET:
        if (r->engine.lane.tps <= 0) {
            return "a closed-loop run has no rate to set: start slap with -P (or --ramp)";
        }
        return r->control_paused ? "paused: resume first" : NULL;
    case RATE_PAUSE:
        return r->control_paused ? "already paused" : NULL;
    case RATE_RESUME:
        return r->control_paused ? NULL : "not paused";
    case RATE_STOP:
        return NULL;
    }
    return "no such action";
}

enum rate_outcome run_control(struct run *r, enum rate_action action, double tps, char *err,
                              size_t err_len)
{
    const char *why = conflict(r, action);
    if (why != NULL) {
        snprintf(err, err_len, "%s", why);
        return RATE_CONFLICT;
    }
    struct worker_control *ctl = &r->gate.control;
    uint32_t n = (uint32_t)atomic_load(&ctl->n);
    if (n >= WORKER_CONTROL_MAX || r->ncontrol >= WORKER_CONTROL_MAX) {
        snprintf(err, err_len, "this run has taken its %d changes", WORKER_CONTROL_MAX);
        return RATE_FULL;
    }
    uint64_t now = slap_now_ns();
    bool open_loop = r->engine.lane.tps > 0;
    double before = rate_now(r);
    struct rate_change *log = &r->control_log[r->ncontrol];
    *log = (struct rate_change){.at_s = elapsed_s(r), .action = action};
    if (action == RATE_STOP) {
        r->ncontrol++;
        r->control_stopped = true;
        run_ask_stop(r);
        return RATE_DONE;
    }
    if (action == RATE_SET) {
        r->control_tps = tps;
    }
    r->control_paused = action == RATE_PAUSE;
    double rate = r->control_paused || !open_loop ? 0.0 : r->control_tps;
    if (action == RATE_PAUSE && open_loop) {
        r->control_tps = before; /* what a resume comes back to (a ramp's rate at the pause) */
    }
    log->tps = rate;
    r->ncontrol++;
    ctl->changes[n] =
        (struct worker_control_change){.at_ns = now, .tps = rate, .paused = r->control_paused};
    atomic_store_explicit(&ctl->n, n + 1, memory_order_release);
    for (uint32_t t = 0; t < r->nworkers; t++) {
        worker_notify(&r->workers[t]);
    }
    return RATE_DONE;
}
