/* slap search's pure parts: the objective parser and the choice of the next rate. */
#include "slo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/units.h"

/* A duration with a unit required: us (µs), ms or s; false when it is not one. */
static bool parse_limit(const char *text, size_t len, uint64_t *ns)
{
    static const struct {
        const char *unit;
        double ns;
    } units[] = {{"us", 1e3}, {"\xc2\xb5s", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
        size_t ul = strlen(units[u].unit);
        char num[40];
        char *end;
        if (len <= ul || len - ul >= sizeof(num) ||
            strncmp(text + len - ul, units[u].unit, ul) != 0) {
            continue;
        }
        memcpy(num, text, len - ul);
        num[len - ul] = '\0';
        double v = strtod(num, &end);
        if (end == num || *end != '\0' || !(num[0] >= '0' && num[0] <= '9') || !isfinite(v) ||
            v <= 0 || v * units[u].ns >= 3.6e12) {
            return false;
        }
        *ns = (uint64_t)(v * units[u].ns + 0.5);
        return *ns > 0;
    }
    return false;
}

/* One 'pNN<DURATION' of len bytes into o. */
static bool parse_one(const char *text, size_t len, struct slo *o, char *err, size_t err_len)
{
    const char *lt = memchr(text, '<', len);
    char num[32];
    char *end;
    if (len == 0 || len >= sizeof(o->text) || text[0] != 'p' || lt == NULL ||
        (size_t)(lt - text) - 1 >= sizeof(num) || lt == text + 1) {
        snprintf(err, err_len, "'%.*s' is not an objective: write it as p99<1ms", (int)len, text);
        return false;
    }
    memcpy(num, text + 1, (size_t)(lt - text) - 1);
    num[lt - text - 1] = '\0';
    o->pct = strtod(num, &end);
    if (*end != '\0' || !(num[0] >= '0' && num[0] <= '9') || !(o->pct > 0 && o->pct < 100)) {
        snprintf(err, err_len,
                 "'%.*s': the percentile must be above 0 and below 100 (p50, p99, "
                 "p99.9)",
                 (int)len, text);
        return false;
    }
    size_t rest = len - (size_t)(lt - text) - 1;
    if (!parse_limit(lt + 1, rest, &o->limit_ns)) {
        snprintf(err, err_len,
                 "'%.*s': the limit must be a duration with a unit (us, ms, s), "
                 "as 1ms or 250us",
                 (int)len, text);
        return false;
    }
    snprintf(o->text, sizeof(o->text), "%.*s", (int)len, text);
    return true;
}

bool slo_parse(const char *text, struct slo *out, size_t *n, char *err, size_t err_len)
{
    *n = 0;
    if (text == NULL || text[0] == '\0') {
        snprintf(err, err_len, "--slo needs an objective, as 'p99<1ms'");
        return false;
    }
    for (const char *p = text;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        if (*n == SLO_MAX) {
            snprintf(err, err_len, "at most %d objectives", SLO_MAX);
            return false;
        }
        if (!parse_one(p, len, &out[*n], err, err_len)) {
            return false;
        }
        ++*n;
        if (comma == NULL) {
            return true;
        }
        p = comma + 1;
    }
}

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

enum search_next search_record(struct search_state *s, double rate, bool held)
{
    s->steps++;
    if (held && rate > s->held) {
        s->held = rate;
    } else if (!held && (s->broken == 0 || rate < s->broken)) {
        s->broken = rate;
    }
    if (s->broken != 0 && s->held >= s->broken) {
        s->held = 0; /* a lower rate broke what a higher one held: noise; trust the broken */
    }
    enum search_next next = next_rate(s);
    return next == SEARCH_TRY && s->steps >= s->max_steps ? SEARCH_EXHAUSTED : next;
}
