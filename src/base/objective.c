/* A latency objective, 'p99<1ms': a percentile under a limit, as slap search takes it. */
#include "slap/base/objective.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
static bool parse_one(const char *text, size_t len, struct objective *o, char *err, size_t err_len)
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

bool objective_parse(const char *text, struct objective *out, size_t *n, char *err, size_t err_len)
{
    *n = 0;
    if (text == NULL || text[0] == '\0') {
        snprintf(err, err_len, "--slo needs an objective, as 'p99<1ms'");
        return false;
    }
    for (const char *p = text;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        if (*n == OBJECTIVES_MAX) {
            snprintf(err, err_len, "at most %d objectives", OBJECTIVES_MAX);
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
