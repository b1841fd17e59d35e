/* What the lane's files share (client.c sends, client_answer.c hears, lane_end.c counts what
 * was left at the end): the small functions of the request path, inline, and the calls between
 * them. Private to the engine. */
#ifndef SLAP_ENGINE_LANE_H
#define SLAP_ENGINE_LANE_H

#include "slap/engine/client.h"

static inline struct lane_env *lane_env_of(const struct lane *l)
{
    return l->client->env;
}

/* Tell the worker of a problem (it says each kind once per server). */
static inline void lane_warn(struct lane_env *env, const char *what, uint32_t server,
                             const char *detail, size_t detail_len)
{
    env->ops->warn(env->owner, what, server, detail, detail_len);
}

static inline uint32_t ms_since_start(const struct lane_env *env, uint64_t now_ns)
{
    return (uint32_t)((now_ns - env->run_start_ns) / SLAP_NS_PER_MS);
}

/* The one place that decides where the answer to r counts: the period's counters, or
 * (warm-up, preload) a set that is never reported. */
static inline struct slap_counters *answer_counters(struct lane_env *env, const struct request *r)
{
    return r->measured ? &env->cur.counters : &env->uncounted;
}

/* client.c: the next operation by the mix (and the -d keys a get stands for); *key_op the op
 * whose law picks its key. */
enum op_type client_next_op(struct client *c, enum op_type *key_op);
/* client.c: the lane has nothing left to do: tell the worker, once. */
void lane_check_done(struct lane *l);

/* lane_end.c: a request of type op, meant to go at intended_ns, will never be answered
 * (sent_ns 0: it never left); counted, with its latency up to at_ns. */
void lane_count_unanswered(struct lane_env *env, uint8_t op, uint64_t intended_ns, uint64_t sent_ns,
                           uint64_t at_ns);
/* lane_end.c: requests 0 .. n - 1 of c will not be answered: counted, then forgotten; how many
 * were dropped. */
uint32_t lane_forget(struct lane *l, struct conn *c, uint32_t n, uint64_t at_ns);

/* client_answer.c: -v's hooks on the values a get brings back (the codec's value_begin and
 * value_end, ctx the connection). */
const char *lane_value_begin(void *ctx, const char *key, size_t key_len, uint64_t bytes,
                             uint64_t *expect_len);
void lane_value_end(void *ctx, int equal, uint64_t first_diff);

#endif
