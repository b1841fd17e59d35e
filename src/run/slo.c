/* slap search's pure parts: a step's verdict on an objective, and the choice of the next rate. */
#include "slap/run/slo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum slo_verdict slo_judge(const struct ci_result *ci, uint64_t limit_ns)
{
    if (!ci->estimable) {
        /* too few requests for an interval: only an estimate far beyond the limit decides */
        return ci->requests > 0 && ci->value_ns > 2 * limit_ns ? SLO_BROKEN : SLO_UNDECIDED;
    }
    if (ci->high_ns < limit_ns) {
        return SLO_HELD;
    }
    return ci->low_ns > limit_ns ? SLO_BROKEN : SLO_UNDECIDED;
}

void search_start(struct search_state *s, double start, double min_rate, double max_rate,
                  unsigned max_steps, double resolution)
{
    memset(s, 0, sizeof(*s));
    s->min_rate = min_rate;
    s->max_rate = max_rate;
    s->rate = fmax(min_rate, fmin(start, max_rate));
    s->max_steps = max_steps;
    s->resolution = resolution;
}

/* The next rate, or DONE when there is none to learn from. */
static enum search_next next_rate(struct search_state *s)
{
    if (s->broken == 0) { /* ramp up */
        if (s->held >= s->max_rate) {
            return SEARCH_DONE;
        }
        s->rate = fmin(s->held * 2, s->max_rate);
        return SEARCH_TRY;
    }
    if (s->held == 0) { /* ramp down */
        if (s->broken <= s->min_rate) {
            return SEARCH_DONE;
        }
        s->rate = fmax(s->broken / 2, s->min_rate);
        return SEARCH_TRY;
    }
    if (s->broken - s->held <= s->resolution * s->held) {
        return SEARCH_DONE;
    }
    s->rate = floor((s->held + s->broken) / 2);
    return s->rate > s->held && s->rate < s->broken ? SEARCH_TRY : SEARCH_DONE;
}

/* Each rate's latest verdict kept (a rate measured again replaces its verdict). */
static void remember(struct search_state *s, double rate, bool held)
{
    for (size_t i = 0; i < s->n; i++) {
        if (s->rates[i] == rate) {
            s->held_at[i] = held;
            return;
        }
    }
    if (s->n < SEARCH_HISTORY) {
        s->rates[s->n] = rate;
        s->held_at[s->n++] = held;
    }
}

/* Held and broken from every rate's latest verdict: the lowest broken, and the highest held
 * below it (a lower rate broken where a higher one held: noise; trust the broken). */
static void settle(struct search_state *s)
{
    s->broken = 0;
    s->held = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (!s->held_at[i] && (s->broken == 0 || s->rates[i] < s->broken)) {
            s->broken = s->rates[i];
        }
    }
    for (size_t i = 0; i < s->n; i++) {
        if (s->held_at[i] && s->rates[i] > s->held && (s->broken == 0 || s->rates[i] < s->broken)) {
            s->held = s->rates[i];
        }
    }
}

enum search_next search_record(struct search_state *s, double rate, bool held)
{
    s->steps++;
    remember(s, rate, held);
    settle(s);
    enum search_next next = next_rate(s);
    return next == SEARCH_TRY && s->steps >= s->max_steps ? SEARCH_EXHAUSTED : next;
}

enum search_next search_continue(struct search_state *s, unsigned extra_steps)
{
    s->max_steps = s->steps + extra_steps;
    enum search_next next = next_rate(s);
    return next == SEARCH_TRY && extra_steps == 0 ? SEARCH_EXHAUSTED : next;
}
