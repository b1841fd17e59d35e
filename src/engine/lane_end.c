/*
 * What a lane leaves when the run ends: requests queued or awaited that will never be answered,
 * and (open loop, --trace) requests that fell due but never left, counted as unanswered (no
 * latency: none was answered); of those never sent, the ones slap was late with, as its lag.
 */
#include "lane.h"

#define LANE_UNSENT_EXACT 256 /* unsent requests a lane counts one by one; the rest in bulk */

/*
 * A request of type op, meant to go at intended_ns, will never be answered: it counts as
 * unanswered (and unsent when sent_ns is 0: it never left), and its sample says how long it
 * had waited by at_ns. It is no latency: no answer came, so no histogram holds it; the
 * counters name it beside the percentiles of the requests answered.
 */
void lane_count_unanswered(struct lane_env *env, uint8_t op, uint64_t intended_ns, uint64_t sent_ns,
                           uint64_t at_ns)
{
    struct slap_stats *s = &env->cur;
    uint64_t waited = at_ns > intended_ns ? at_ns - intended_ns : 0;
    s->counters.unanswered++;
    s->counters.unsent += sent_ns == 0;
    samples_put(&env->samples, &(struct sample){intended_ns, sent_ns, waited, op,
                                                sent_ns == 0 ? SAMPLE_UNSENT : SAMPLE_UNANSWERED});
}

/* Requests 0 .. n - 1 of c will not be answered: count the measured ones, then forget them. */
uint32_t lane_forget(struct lane *l, struct conn *c, uint32_t n, uint64_t at_ns)
{
    struct lane_env *env = lane_env_of(l);
    for (uint32_t i = 0; i < n; i++) {
        const struct request *r = conn_at(c, i);
        if (r->measured) {
            lane_count_unanswered(env, r->op, r->intended_ns, r->sent_ns, at_ns);
        }
    }
    uint32_t dropped = n == c->count ? conn_drop_all(c) : conn_drop_sent(c);
    l->in_flight -= dropped;
    return dropped;
}

void lane_give_up(struct lane *l, uint64_t end_ns)
{
    for (uint32_t s = 0; s < l->nconns; s++) {
        lane_forget(l, &l->conns[s], l->conns[s].count, end_ns);
    }
    lane_check_done(l);
}

/*
 * Of a lane's requests due by end_ns and never sent, those due from held_from_ns on waited
 * for the server; the others are slap's lag. lag counts them as they come, oldest first.
 */
struct lane_lag {
    uint64_t held_from_ns; /* known once the first unsent request is */
    uint64_t unsent;
    uint64_t lag;
};

/*
 * The old rule, for a lane whose fullness may be slap's (its thread starved of CPU, or the
 * lane not full now): its oldest request still unanswered had waited at least half as long
 * as the first unsent one had been due (a request sent late, just before the end, by a slap
 * short of CPU, is not that).
 */
static bool lane_waited_long(const struct lane *l, uint64_t first_due_ns, uint64_t end_ns)
{
    uint64_t due_for = end_ns > first_due_ns ? end_ns - first_due_ns : 0;
    for (uint32_t s = 0; s < l->nconns; s++) {
        uint64_t since;
        if (conn_waiting_since(&l->conns[s], &since) &&
            (since <= first_due_ns || (end_ns > since && end_ns - since >= due_for / 2))) {
            return true;
        }
    }
    return false;
}

/* Whether an answer the lane awaits is already in one of its sockets, unread. */
static bool lane_answer_unread(const struct lane *l)
{
    for (uint32_t s = 0; s < l->nconns; s++) {
        if (conn_answer_unread(&l->conns[s])) {
            return true;
        }
    }
    return false;
}

/*
 * From when the lane's unsent requests waited for the server (0: all did, UINT64_MAX: none).
 * A socket not open (lost, reconnecting) holds them all. A lane full at the end, each answer
 * followed at once by the next due request, held those due since it filled: they could not
 * go before the server answered; those due before, while the lane had room, are slap's lag.
 * A loop that ran the end late (stopped: SIGSTOP, a debugger, a frozen cgroup) with the
 * answer in the socket, unread, held them itself: lag too (when the answer came is not known;
 * those due between the lane's filling and the answer, at most one answer's latency, are
 * counted as slap's with the rest).
 * A thread starved of CPU may itself have left the answers unread: then the old rule.
 */
static uint64_t lane_held_from(const struct lane *l, uint64_t first_due_ns, uint64_t end_ns)
{
    for (uint32_t s = 0; s < l->nconns; s++) {
        if (l->conns[s].state != CONN_READY) {
            return 0;
        }
    }
    if (!lane_env_of(l)->cpu_starved && l->held_since_ns != 0) {
        if (lane_env_of(l)->stalled && lane_answer_unread(l)) {
            return UINT64_MAX; /* the server had answered; slap, stopped, had not read it */
        }
        return l->held_since_ns;
    }
    return lane_waited_long(l, first_due_ns, end_ns) ? 0 : UINT64_MAX;
}

/* One more request of the lane, due at due_ns, was never sent. */
static void lane_lag_add(const struct lane *l, struct lane_lag *g, uint64_t due_ns, uint64_t end_ns)
{
    if (g->unsent++ == 0) {
        g->held_from_ns = lane_held_from(l, due_ns, end_ns);
    }
    g->lag += due_ns < g->held_from_ns;
}

/* --trace: the lane's requests of the trace that were due by end_ns but never left. */
static void lane_count_unsent_trace(struct lane *l, uint64_t from_ns, uint64_t end_ns,
                                    struct lane_lag *g)
{
    const struct lane_params *p = lane_env_of(l)->params;
    const struct trace_request *t;
    while (p->trace_speed > 0 && (t = replay_ring_peek(l->ring)) != NULL) {
        uint64_t due = trace_due_ns(lane_env_of(l)->start_ns, t->offset_ns, p->trace_speed);
        if (due >= end_ns) {
            break;
        }
        if (due >= from_ns) {
            lane_count_unanswered(lane_env_of(l), (uint8_t)t->op, due, 0, end_ns);
            lane_lag_add(l, g, due, end_ns);
        }
        replay_ring_pop(l->ring);
    }
}

/* The n unsent requests after the first LANE_UNSENT_EXACT, in one step: counted (no latency:
 * none was answered), their samples as dropped (none is kept). */
static void lane_count_unsent_bulk(struct lane *l, uint64_t n)
{
    struct lane_env *env = lane_env_of(l);
    struct slap_stats *s = &env->cur;
    s->counters.unanswered += n;
    s->counters.unsent += n;
    if (env->samples.slots != NULL) {
        double share = env->samples.threshold == UINT64_MAX
                           ? 1.0
                           : (double)env->samples.threshold / 18446744073709551616.0;
        atomic_fetch_add_explicit(&env->samples.dropped, (uint64_t)((double)n * share + 0.5),
                                  memory_order_relaxed);
    }
}

/* n more, due evenly from first_due_ns to end_ns: those due before the lane was held are lag. */
static void lane_lag_bulk(const struct lane *l, struct lane_lag *g, uint64_t n,
                          uint64_t first_due_ns, uint64_t end_ns)
{
    if (g->unsent == 0) {
        g->held_from_ns = lane_held_from(l, first_due_ns, end_ns);
    }
    g->unsent += n;
    if (g->held_from_ns <= first_due_ns) {
        return;
    }
    if (g->held_from_ns >= end_ns) {
        g->lag += n;
        return;
    }
    g->lag += (uint64_t)((double)n * (double)(g->held_from_ns - first_due_ns) /
                         (double)(end_ns - first_due_ns));
}

/* Unsent requests of a lane are counted as unanswered; those slap was late with as lag. The
 * first LANE_UNSENT_EXACT one by one, the rest (a rate far past what was sent) in one step. */
void lane_count_unsent(struct lane *l, uint64_t from_ns, uint64_t end_ns)
{
    struct client *c = l->client;
    struct lane_lag g = {0};
    if (l->ring != NULL) {
        lane_count_unsent_trace(l, from_ns, end_ns, &g);
    } else if (c->env->params->tps > 0) {
        schedule_skip(&l->sched, from_ns < end_ns ? from_ns : end_ns,
                      UINT64_MAX); /* not measured */
        while (c->quota > 0 && schedule_peek(&l->sched) < end_ns && g.unsent < LANE_UNSENT_EXACT) {
            uint64_t due = schedule_peek(&l->sched);
            schedule_advance(&l->sched);
            enum op_type key_op;
            enum op_type op = client_next_op(c, &key_op);
            lane_count_unanswered(c->env, (uint8_t)op, due, 0, end_ns);
            c->quota -= c->quota != UINT64_MAX;
            lane_lag_add(l, &g, due, end_ns);
        }
        uint64_t bulk_from = schedule_peek(&l->sched);
        uint64_t bulk = c->quota > 0 ? schedule_skip(&l->sched, end_ns, c->quota) : 0;
        if (bulk > 0) {
            lane_count_unsent_bulk(l, bulk);
            c->quota -= c->quota != UINT64_MAX ? bulk : 0;
            lane_lag_bulk(l, &g, bulk, bulk_from, end_ns);
        }
    }
    c->env->cur.counters.client_lag += g.lag;
}

void lane_stop(struct lane *l, uint64_t end_ns)
{
    if (l->timer_armed) {
        event_del(l->timer);
        l->timer_armed = false;
    }
    for (uint32_t s = 0; s < l->nconns; s++) {
        struct conn *c = &l->conns[s];
        conn_retry_cancel(c);
        if (c->state != CONN_READY) {
            lane_forget(l, c, c->count, end_ns); /* queued behind a reconnect: never answered */
        }
    }
    lane_check_done(l);
}
