/* slap's special option rows: how each reads its value (a handler) and says it back (a show),
 * side by side; the rows that name them are in options.c. */
#include "options_special.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slap/base/common.h"
#include "slap/base/quote.h"
#include "slap/base/units.h"
#include "slap/model/keys.h"
#include "slap/store/store.h"

/* The list is kept as given (it points into argv); servers.c reads its syntax. */
enum options_outcome options_apply_servers(struct parse_state *st, const char *arg)
{
    if (arg[0] == '\0') {
        return options_usage_error(st, "--servers: the list is empty");
    }
    st->o->servers = arg;
    return OPTIONS_RUN;
}

/* -B: an alias of --protocol=binary. */
enum options_outcome options_apply_binary(struct parse_state *st, const char *arg)
{
    (void)arg;
    st->o->protocol = PROTO_BINARY;
    return OPTIONS_RUN;
}

/* --key_size, --value_size: a size list (cfgfile.c reads it) within [lo, hi]. */
static enum options_outcome parse_sizes(const struct parse_state *st, const char *arg, uint32_t lo,
                                        uint32_t hi, struct size_dist *d)
{
    char why[256];
    if (size_dist_parse(arg, lo, hi, d, why, sizeof(why)) != SLAP_OK) {
        return options_usage_error(st, "--%s: %s", st->row->long_name, why);
    }
    return OPTIONS_RUN;
}

enum options_outcome options_apply_key_size(struct parse_state *st, const char *arg)
{
    return parse_sizes(st, arg, KEY_LAYOUT_SIZE_MIN, KEY_LAYOUT_SIZE_MAX, &st->o->key_sizes);
}

enum options_outcome options_apply_value_size(struct parse_state *st, const char *arg)
{
    return parse_sizes(st, arg, 1, SLAP_MAX_VALUE_SIZE, &st->o->value_sizes);
}

enum options_outcome options_apply_ratio(struct parse_state *st, const char *arg)
{
    char *end = NULL;
    double set = options_is_digit(arg[0]) ? strtod(arg, &end) : -1.0;
    double get = -1.0;
    if (end != NULL && *end == ':' && options_is_digit(end[1])) {
        get = strtod(end + 1, &end);
    }
    if (set < 0.0 || get < 0.0 || *end != '\0' || !(set + get > 0.0) || !isfinite(set + get)) {
        return options_usage_error(st,
                                   "--ratio: '%s' is not SET:GET (two shares, not both 0, "
                                   "whose sum a number can hold)",
                                   arg);
    }
    memset(st->o->mix, 0, sizeof(st->o->mix));
    st->o->mix[OP_SET] = set / (set + get);
    st->o->mix[OP_GET] = 1.0 - st->o->mix[OP_SET];
    return OPTIONS_RUN;
}

/* One "OP=SHARE" of --mix into mix (shares as given); a usage error naming what is wrong. */
static enum options_outcome mix_part(struct parse_state *st, const char *part, size_t len,
                                     double *mix, uint32_t *seen)
{
    const char *eq = memchr(part, '=', len);
    size_t name_len = eq != NULL ? (size_t)(eq - part) : len;
    enum op_type op = op_by_name(part, name_len);
    double share;
    if (op == OP_COUNT) {
        return options_usage_error(st,
                                   "--mix: '%.*s' is not an operation (get, gets, gat, touch, "
                                   "set, add, replace, append, prepend, cas, delete, incr, decr)",
                                   (int)name_len, part);
    }
    if (eq == NULL || units_parse_share(eq + 1, len - name_len - 1, &share) != UNITS_OK) {
        return options_usage_error(st, "--mix: '%.*s' is not OP=SHARE with a share of 0 or more",
                                   (int)len, part);
    }
    if (*seen & op_bit(op)) {
        return options_usage_error(st, "--mix: %s is given twice", op_name(op));
    }
    *seen |= op_bit(op);
    mix[op] = share;
    return OPTIONS_RUN;
}

enum options_outcome options_apply_mix(struct parse_state *st, const char *arg)
{
    double mix[OP_COUNT] = {0}, sum = 0.0;
    uint32_t seen = 0;
    for (const char *p = arg;; p++) {
        size_t len = strcspn(p, ",");
        enum options_outcome outcome = mix_part(st, p, len, mix, &seen);
        if (outcome != OPTIONS_RUN) {
            return outcome;
        }
        p += len;
        if (*p == '\0') {
            break;
        }
    }
    for (int op = 0; op < OP_COUNT; op++) {
        sum += mix[op];
    }
    if (!(sum > 0.0)) {
        return options_usage_error(st, "--mix: '%s': the shares add up to 0", arg);
    }
    if (!isfinite(sum)) {
        return options_usage_error(st,
                                   "--mix: '%s': the shares add up to more than a number can "
                                   "hold",
                                   arg);
    }
    for (int op = 0; op < OP_COUNT; op++) {
        st->o->mix[op] = mix[op] / sum;
    }
    return OPTIONS_RUN;
}

enum options_outcome options_apply_exp_time(struct parse_state *st, const char *arg)
{
    enum options_outcome outcome = options_parse_duration(st, arg, &st->o->exp_time_ns);
    if (outcome == OPTIONS_RUN && st->o->exp_time_ns % SLAP_NS_PER_SEC != 0) {
        return options_usage_error(st, "--exp_time: '%s' is not whole seconds", arg);
    }
    return outcome;
}

enum options_outcome options_apply_key_dist(struct parse_state *st, const char *arg)
{
    char why[256];
    if (key_dist_parse(arg, &st->o->key_pop, why, sizeof(why)) != SLAP_OK) {
        return options_usage_error(st, "--key_dist: %s", why);
    }
    return OPTIONS_RUN;
}

enum options_outcome options_apply_key_pattern(struct parse_state *st, const char *arg)
{
    char why[256];
    if (key_pattern_parse(arg, &st->o->key_pattern, why, sizeof(why)) != SLAP_OK) {
        return options_usage_error(st, "--key_pattern: %s", why);
    }
    return OPTIONS_RUN;
}

/* Two names, and the default (negotiate) that no name stands for. */
enum options_outcome options_apply_tls_version(struct parse_state *st, const char *arg)
{
    static const char *const names[] = {"1.2", "1.3", NULL};
    unsigned which;
    if (!options_find_choice(names, arg, &which)) {
        return options_choice_error(st, arg, names);
    }
    st->o->tls_version = which == 0 ? TLS_VERSION_1_2 : TLS_VERSION_1_3;
    return OPTIONS_RUN;
}

/* --ycsb: one of YCSB's core workloads, checked here and applied by options_check. */
enum options_outcome options_apply_ycsb(struct parse_state *st, const char *arg)
{
    if (strcmp(arg, "e") == 0) {
        return options_usage_error(st, "--ycsb: workload e scans ranges of keys, which "
                                       "memcached cannot: a, b, c, d or f");
    }
    if (strlen(arg) != 1 || strchr("abcdf", arg[0]) == NULL) {
        return options_usage_error(st,
                                   "--ycsb: '%s' is none of YCSB's core workloads a, b, c, "
                                   "d and f",
                                   arg);
    }
    st->o->ycsb = arg;
    return OPTIONS_RUN;
}

/* The shape of a shaped --arrival row, "NAME:SHAPE": refused naming the law, the range and why
 * not beyond it. */
static enum options_outcome arrival_shape(struct parse_state *st, const char *arg,
                                          const struct arrival_law *law, double *shape)
{
    const char *text = arg + strlen(law->name);
    char *end = NULL;
    double value = *text == ':' ? strtod(text + 1, &end) : NAN;
    if (end == NULL || end == text + 1 || *end != '\0' || !isfinite(value)) {
        return options_usage_error(st,
                                   "--arrival: '%s': %s:SHAPE takes a shape, a number %s "
                                   "%g and %s %g",
                                   arg, law->name, law->lo_in ? "from" : "above", law->lo,
                                   law->hi_in ? "up to" : "below", law->hi);
    }
    bool low = value < law->lo || (value == law->lo && !law->lo_in);
    bool high = value > law->hi || (value == law->hi && !law->hi_in);
    if (high && st->reading_back && value < law->hi_before) { /* an older slap's run */
        high = false;
    }
    if (low || high) {
        return options_usage_error(st,
                                   "--arrival: '%s': %s:SHAPE takes a shape %s %g and %s %g "
                                   "(%s)",
                                   arg, law->name, law->lo_in ? "from" : "above", law->lo,
                                   law->hi_in ? "up to" : "below", law->hi,
                                   low ? law->why_lo : law->why_hi);
    }
    *shape = value;
    return OPTIONS_RUN;
}

/* --arrival: a row of arrival_laws by its name, with its shape when it takes one. */
enum options_outcome options_apply_arrival(struct parse_state *st, const char *arg)
{
    struct slap_options *o = st->o;
    size_t name_len = strcspn(arg, ":");
    for (size_t i = 0; i < arrival_law_count; i++) {
        const struct arrival_law *law = &arrival_laws[i];
        if (strlen(law->name) != name_len || strncmp(arg, law->name, name_len) != 0 ||
            (!law->shaped && arg[name_len] != '\0')) {
            continue;
        }
        double shape = law->shape;
        enum options_outcome outcome =
            law->shaped ? arrival_shape(st, arg, law, &shape) : OPTIONS_RUN;
        if (outcome != OPTIONS_RUN) {
            return outcome;
        }
        o->arrival = law->arrival;
        o->arrival_shape = shape;
        return OPTIONS_RUN;
    }
    char names[160];
    arrival_law_names(names, sizeof(names));
    return options_usage_error(st, "--arrival: '%s' is no law of arrivals: %s", arg, names);
}

/* One percentile of a list: a number in (0, 100]. */
static bool scan_percentile(const char *text, size_t length, double *value)
{
    char copy[32];
    char *end = NULL;
    if (length == 0 || length >= sizeof(copy) || !options_is_digit(text[0])) {
        return false;
    }
    memcpy(copy, text, length);
    copy[length] = '\0';
    *value = strtod(copy, &end);
    return *end == '\0' && *value > 0.0 && *value <= 100.0;
}

enum options_outcome options_apply_percentiles(struct parse_state *st, const char *arg)
{
    struct slap_options *o = st->o;
    uint32_t count = 0;
    for (const char *p = arg;; p++) {
        size_t length = strcspn(p, ",");
        double value;
        if (!scan_percentile(p, length, &value)) {
            return options_usage_error(
                st, "--percentiles: '%.*s' is not a number above 0 and up to 100", (int)length, p);
        }
        if (count == SLAP_MAX_PERCENTILES || (count > 0 && value <= o->percentiles[count - 1])) {
            return options_usage_error(st, "--percentiles: give at most %d, in increasing order",
                                       SLAP_MAX_PERCENTILES);
        }
        o->percentiles[count++] = value;
        p += length;
        if (*p == '\0') {
            break;
        }
    }
    o->npercentiles = count;
    return OPTIONS_RUN;
}

enum options_outcome options_apply_precision(struct parse_state *st, const char *arg)
{
    const char *eq = strchr(arg, '=');
    char *end;
    double pct;
    if (arg[0] != 'p' || eq == NULL || !scan_percentile(arg + 1, (size_t)(eq - arg - 1), &pct) ||
        pct >= 100.0) {
        return options_usage_error(st,
                                   "--precision: '%s': give pP=W%%, P a percentile above 0 and "
                                   "below 100 (e.g. p99=5%%)",
                                   arg);
    }
    double width = strtod(eq + 1, &end);
    if (end == eq + 1 || strcmp(end, "%") != 0 || !(width > 0.0) || !(width < 100.0)) {
        return options_usage_error(st,
                                   "--precision: '%s': the width is a share above 0%% and "
                                   "below 100%% (e.g. p99=5%%)",
                                   arg);
    }
    st->o->precision_pct = pct;
    st->o->precision_width = width / 100.0;
    return OPTIONS_RUN;
}

enum option_value options_show_precision(const struct slap_options *o, char *buf, size_t len)
{
    if (o->precision_pct <= 0) {
        return OPTION_VALUE_NONE;
    }
    snprintf(buf, len, "p%g=%g%%", o->precision_pct, o->precision_width * 100.0);
    return OPTION_VALUE_TEXT;
}

enum options_outcome options_apply_sweep(struct parse_state *st, const char *arg)
{
    uint64_t rates[3];
    const char *p = arg;
    for (int i = 0; i < 3; i++) {
        size_t length = strcspn(p, ":");
        char part[32];
        if (length == 0 || length >= sizeof(part) || (i < 2) != (p[length] == ':')) {
            return options_usage_error(st, "--sweep: '%s' is not START:END:STEP", arg);
        }
        memcpy(part, p, length);
        part[length] = '\0';
        if (units_parse_size(part, length, 1000, &rates[i]) != UNITS_OK || rates[i] == 0 ||
            rates[i] > (uint64_t)SLAP_MAX_TPS) {
            return options_usage_error(st, "--sweep: '%s' is not a rate from 1 to 1g", part);
        }
        p += length + 1;
    }
    if (rates[1] < rates[0] || (rates[1] - rates[0]) / rates[2] >= 1000) {
        return options_usage_error(st,
                                   "--sweep: END must be at least START, and 1000 steps at most");
    }
    st->o->sweep_start = (double)rates[0];
    st->o->sweep_end = (double)rates[1];
    st->o->sweep_step = (double)rates[2];
    return OPTIONS_RUN;
}

/* One rate of --ramp, len bytes at text: 0 to 1g, k=1000. */
static bool ramp_rate(const char *text, size_t len, double *rate)
{
    uint64_t value;
    if (len == 0 || units_parse_size(text, len, 1000, &value) != UNITS_OK ||
        value > (uint64_t)SLAP_MAX_TPS) {
        return false;
    }
    *rate = (double)value;
    return true;
}

enum options_outcome options_apply_ramp(struct parse_state *st, const char *arg)
{
    const char *colon = strchr(arg, ':');
    const char *slash = colon != NULL ? strchr(colon, '/') : NULL;
    struct ramp r;
    if (slash == NULL) {
        return options_usage_error(st, "--ramp: '%s' is not FROM:TO/DURATION", arg);
    }
    if (!ramp_rate(arg, (size_t)(colon - arg), &r.from) ||
        !ramp_rate(colon + 1, (size_t)(slash - colon - 1), &r.to) || r.to == 0) {
        return options_usage_error(st,
                                   "--ramp: '%s': FROM is a rate from 0 to 1g and TO one "
                                   "from 1 to 1g (k=1000)",
                                   arg);
    }
    enum units_status duration = units_parse_duration(slash + 1, strlen(slash + 1), &r.duration_ns);
    if (duration == UNITS_BAD_UNIT || duration == UNITS_TOO_LARGE) { /* 1us, 1000000d */
        return options_usage_error(st, "--ramp: '%s': DURATION %s", arg,
                                   duration == UNITS_TOO_LARGE
                                       ? "is too large"
                                       : "has an unknown unit (use ms, s, m, h or d)");
    }
    if (duration != UNITS_OK || r.duration_ns == 0) {
        return options_usage_error(st, "--ramp: '%s': DURATION is a time above 0 (30s, 30m)", arg);
    }
    st->o->ramp = r;
    return OPTIONS_RUN;
}

/* Start-at instants this far in the past are still taken (clocks of hosts differ a little). */
#define START_AT_SLACK_NS SLAP_NS_PER_SEC

static uint64_t wall_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * SLAP_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

enum options_outcome options_apply_start_at(struct parse_state *st, const char *arg)
{
    uint64_t at;
    if (units_parse_time(arg, strlen(arg), &at) != UNITS_OK) {
        return options_usage_error(st,
                                   "--start_at: '%s' is neither epoch seconds nor an RFC 3339 "
                                   "time such as 2026-01-01T12:00:00Z",
                                   arg);
    }
    uint64_t now = wall_clock_ns();
    if (at + START_AT_SLACK_NS < now) {
        return options_usage_error(st, "--start_at: '%s' is %.1f s in the past (this host's clock)",
                                   arg, (double)(now - at) / (double)SLAP_NS_PER_SEC);
    }
    st->o->start_at_ns = at;
    return OPTIONS_RUN;
}

/* The index an engine gives each of its processes, counted from 0: Kubernetes' Indexed Jobs,
 * then Slurm's srun. */
static const char *const share_index_variables[] = {"JOB_COMPLETION_INDEX", "SLURM_PROCID"};

/* A whole number of at most 9 digits, the whole text; false otherwise. */
static bool small_number(const char *text, size_t len, uint32_t *out)
{
    uint32_t v = 0;
    if (len == 0 || len > 9) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9') {
            return false;
        }
        v = v * 10 + (uint32_t)(text[i] - '0');
    }
    *out = v;
    return true;
}

/* --share auto/N: the engine's own index, plus 1. */
static enum options_outcome share_index_from_engine(struct parse_state *st, uint32_t *index)
{
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(share_index_variables); i++) {
        const char *name = share_index_variables[i];
        const char *value = getenv(name);
        uint32_t v;
        if (value == NULL) {
            continue;
        }
        if (!small_number(value, strlen(value), &v)) {
            char shown[QUOTE_PATH_BUF];
            return options_usage_error(st, "--share auto: %s is %s, not an index", name,
                                       quote_name(shown, value));
        }
        *index = v + 1;
        return OPTIONS_RUN;
    }
    return options_usage_error(st, "--share auto: neither JOB_COMPLETION_INDEX (a Kubernetes "
                                   "Indexed Job) nor SLURM_PROCID (srun) is set: give the "
                                   "index, --share I/N");
}

enum options_outcome options_apply_share(struct parse_state *st, const char *arg)
{
    const char *slash = strchr(arg, '/');
    const char *comma = strchr(arg, ',');
    const char *end = comma != NULL ? comma : arg + strlen(arg);
    uint32_t index = 0;
    uint32_t count;
    if (slash == NULL || slash > end ||
        !small_number(slash + 1, (size_t)(end - slash - 1), &count) ||
        (comma != NULL && strcmp(comma, ",keys") != 0)) {
        return options_usage_error(st,
                                   "--share: '%s' is not I/N or I/N,keys (e.g. 2/4: the "
                                   "second of four hosts)",
                                   arg);
    }
    if (count < 1 || count > SLAP_MAX_SHARES) {
        return options_usage_error(st, "--share: %s: N is 1 to %d hosts", arg, SLAP_MAX_SHARES);
    }
    if ((size_t)(slash - arg) == 4 && strncmp(arg, "auto", 4) == 0) {
        enum options_outcome outcome = share_index_from_engine(st, &index);
        if (outcome != OPTIONS_RUN) {
            return outcome;
        }
    } else if (!small_number(arg, (size_t)(slash - arg), &index)) {
        return options_usage_error(st, "--share: '%s': I is a number from 1 to N, or auto", arg);
    }
    if (index < 1 || index > count) {
        return options_usage_error(st, "--share: %s: this host's part is %u, outside 1 to %u%s",
                                   arg, index, count,
                                   index == 0 ? " (parts count from 1; auto adds 1 to an "
                                                "engine's index)"
                                              : "");
    }
    st->o->share_index = index;
    st->o->share_count = count;
    st->o->share_keys = comma != NULL;
    return OPTIONS_RUN;
}

enum options_outcome options_apply_max_errors(struct parse_state *st, const char *arg)
{
    size_t len = strlen(arg);
    if (len > 1 && arg[len - 1] == '%') {
        char *end = NULL;
        double pct = options_is_digit(arg[0]) ? strtod(arg, &end) : -1.0;
        if (end != arg + len - 1 || !(pct >= 0.0 && pct <= 100.0)) {
            return options_usage_error(st, "--max_errors: '%s' is not a share from 0%% to 100%%",
                                       arg);
        }
        st->o->max_errors_pct = pct;
        st->o->max_errors = UINT64_MAX;
        return OPTIONS_RUN;
    }
    uint64_t count;
    enum units_status status = units_parse_size(arg, len, 1000, &count);
    if (status != UNITS_OK || count == UINT64_MAX) {
        return options_usage_error(st, "--max_errors: '%s' is neither a count (k=1000) nor P%%",
                                   arg);
    }
    st->o->max_errors = count;
    st->o->max_errors_pct = -1.0;
    return OPTIONS_RUN;
}

enum options_outcome options_apply_trace_speed(struct parse_state *st, const char *arg)
{
    double speed;
    if (strcmp(arg, "max") == 0) {
        st->o->trace_speed = 0.0;
        return OPTIONS_RUN;
    }
    if (units_parse_share(arg, strlen(arg), &speed) != UNITS_OK || !(speed > 0.0) || speed > 1e6) {
        return options_usage_error(st,
                                   "--trace_speed: '%s' is neither max nor a number above 0 "
                                   "(up to 1000000)",
                                   arg);
    }
    st->o->trace_speed = speed;
    return OPTIONS_RUN;
}

enum option_value options_seconds_value(uint64_t ns, char *buf, size_t len)
{
    if (ns == 0) {
        return OPTION_VALUE_NONE;
    }
    snprintf(buf, len, "%llu.%09llu", (unsigned long long)(ns / SLAP_NS_PER_SEC),
             (unsigned long long)(ns % SLAP_NS_PER_SEC));
    char *end = buf + strlen(buf) - 1;
    while (*end == '0') {
        *end-- = '\0';
    }
    if (*end == '.') {
        *end = '\0';
    }
    return OPTION_VALUE_NUMBER;
}

/* A size list as --key_size reads it: "64", "16-32", "4-100:0.3,1024-2048:0.7". */
static enum option_value sizes_value(const struct size_dist *d, uint32_t fixed, char *buf,
                                     size_t len)
{
    size_t used = 0;
    if (d->n == 0) {
        snprintf(buf, len, "%" PRIu32, fixed);
        return OPTION_VALUE_TEXT;
    }
    if (d->name[0] != '\0') { /* a law or a preset, as it was given */
        snprintf(buf, len, "%s", d->name);
        return OPTION_VALUE_TEXT;
    }
    buf[0] = '\0';
    for (uint32_t i = 0; i < d->n && used < len; i++) {
        const struct size_range *r = &d->r[i];
        char prop[32];
        units_shortest(prop, sizeof(prop), r->prop);
        int n = r->min == r->max && d->n == 1
                    ? snprintf(buf + used, len - used, "%" PRIu32, r->min)
                    : snprintf(buf + used, len - used, "%s%" PRIu32 "-%" PRIu32 ":%s",
                               i > 0 ? "," : "", r->min, r->max, prop);
        used += n > 0 ? (size_t)n : 0;
    }
    return OPTION_VALUE_TEXT;
}

enum option_value options_text_value(const char *text, char *buf, size_t len)
{
    if (text == NULL) {
        return OPTION_VALUE_NONE;
    }
    snprintf(buf, len, "%s", text);
    return OPTION_VALUE_TEXT;
}

enum option_value options_show_percentiles(const struct slap_options *o, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < o->npercentiles && used < len; i++) {
        int n = snprintf(buf + used, len - used, "%s%g", i > 0 ? "," : "", o->percentiles[i]);
        used += n > 0 ? (size_t)n : 0;
    }
    return OPTION_VALUE_TEXT;
}

/* Does the mix send more than gets and sets? */
static bool mix_beyond_get_set(const struct slap_options *o)
{
    for (int op = 0; op < OP_COUNT; op++) {
        if (op != OP_GET && op != OP_SET && o->mix[op] > 0.0) {
            return true;
        }
    }
    return false;
}

/* SET:GET, as --ratio takes it. */
enum option_value options_show_ratio(const struct slap_options *o, char *buf, size_t len)
{
    char set[32], get[32];
    if (o->trace != NULL || mix_beyond_get_set(o)) {
        return OPTION_VALUE_NONE;
    }
    units_shortest(set, sizeof(set), o->mix[OP_SET]);
    units_shortest(get, sizeof(get), o->mix[OP_GET]);
    snprintf(buf, len, "%s:%s", set, get);
    return OPTION_VALUE_TEXT;
}

/* op=share,..., as --mix takes it. */
enum option_value options_show_mix(const struct slap_options *o, char *buf, size_t len)
{
    size_t used = 0;
    if (o->trace != NULL || !mix_beyond_get_set(o)) {
        return OPTION_VALUE_NONE;
    }
    buf[0] = '\0';
    for (int op = 0; op < OP_COUNT && used < len; op++) {
        if (o->mix[op] > 0.0) {
            char share[32];
            units_shortest(share, sizeof(share), o->mix[op]);
            int n = snprintf(buf + used, len - used, "%s%s=%s", used > 0 ? "," : "",
                             op_name((enum op_type)op), share);
            used += n > 0 ? (size_t)n : 0;
        }
    }
    return OPTION_VALUE_TEXT;
}

enum option_value options_show_servers(const struct slap_options *o, char *buf, size_t len)
{
    return options_text_value(o->servers, buf, len);
}

enum option_value options_show_binary(const struct slap_options *o, char *buf, size_t len)
{
    snprintf(buf, len, "%s", o->protocol == PROTO_BINARY ? "true" : "false");
    return OPTION_VALUE_BOOL;
}

enum option_value options_show_key_size(const struct slap_options *o, char *buf, size_t len)
{
    return sizes_value(&o->key_sizes, o->key_size, buf, len);
}

enum option_value options_show_value_size(const struct slap_options *o, char *buf, size_t len)
{
    return sizes_value(&o->value_sizes, o->value_size, buf, len);
}

enum option_value options_show_trace_speed(const struct slap_options *o, char *buf, size_t len)
{
    if (o->trace_speed == 0.0) {
        snprintf(buf, len, "max");
        return OPTION_VALUE_TEXT;
    }
    units_shortest(buf, len, o->trace_speed);
    return OPTION_VALUE_NUMBER;
}

enum option_value options_show_exp_time(const struct slap_options *o, char *buf, size_t len)
{
    return options_seconds_value(o->exp_time_ns, buf, len);
}

enum option_value options_show_key_dist(const struct slap_options *o, char *buf, size_t len)
{
    key_dist_format(&o->key_pop, buf, len);
    return OPTION_VALUE_TEXT;
}

enum option_value options_show_key_pattern(const struct slap_options *o, char *buf, size_t len)
{
    if (o->key_pattern.n == 0) {
        return OPTION_VALUE_NONE;
    }
    key_pattern_format(&o->key_pattern, buf, len);
    return OPTION_VALUE_TEXT;
}

static enum option_value key_bound_value(const struct slap_options *o, uint64_t key, char *buf,
                                         size_t len)
{
    if (!o->key_bounds) {
        return OPTION_VALUE_NONE;
    }
    snprintf(buf, len, "%llu", (unsigned long long)key);
    return OPTION_VALUE_NUMBER;
}

enum option_value options_show_key_min(const struct slap_options *o, char *buf, size_t len)
{
    return key_bound_value(o, o->key_min, buf, len);
}

enum option_value options_show_key_max(const struct slap_options *o, char *buf, size_t len)
{
    return key_bound_value(o, o->key_max, buf, len);
}

enum option_value options_show_ycsb(const struct slap_options *o, char *buf, size_t len)
{
    return options_text_value(o->ycsb, buf, len);
}

enum option_value options_show_arrival(const struct slap_options *o, char *buf, size_t len)
{
    arrival_text(buf, len, o->arrival, o->arrival_shape);
    return OPTION_VALUE_TEXT;
}

enum option_value options_show_tls_version(const struct slap_options *o, char *buf, size_t len)
{
    return o->tls_version == TLS_VERSION_ANY
               ? OPTION_VALUE_NONE
               : options_text_value(o->tls_version == TLS_VERSION_1_2 ? "1.2" : "1.3", buf, len);
}

enum option_value options_show_sweep(const struct slap_options *o, char *buf, size_t len)
{
    if (o->sweep_step == 0) {
        return OPTION_VALUE_NONE;
    }
    snprintf(buf, len, "%.0f:%.0f:%.0f", o->sweep_start, o->sweep_end, o->sweep_step);
    return OPTION_VALUE_TEXT;
}

enum option_value options_show_ramp(const struct slap_options *o, char *buf, size_t len)
{
    char seconds[40];
    if (o->ramp.duration_ns == 0) {
        return OPTION_VALUE_NONE;
    }
    options_seconds_value(o->ramp.duration_ns, seconds, sizeof(seconds));
    snprintf(buf, len, "%.0f:%.0f/%ss", o->ramp.from, o->ramp.to, seconds);
    return OPTION_VALUE_TEXT;
}

enum option_value options_show_start_at(const struct slap_options *o, char *buf, size_t len)
{
    return options_seconds_value(o->start_at_ns, buf, len);
}

enum option_value options_show_share(const struct slap_options *o, char *buf, size_t len)
{
    if (o->share_count == 0) {
        return OPTION_VALUE_NONE;
    }
    snprintf(buf, len, "%u/%u%s", o->share_index, o->share_count, o->share_keys ? ",keys" : "");
    return OPTION_VALUE_TEXT;
}

enum option_value options_show_max_errors(const struct slap_options *o, char *buf, size_t len)
{
    if (o->max_errors_pct >= 0) {
        snprintf(buf, len, "%g%%", o->max_errors_pct);
    } else if (o->max_errors != UINT64_MAX) {
        snprintf(buf, len, "%llu", (unsigned long long)o->max_errors);
    } else {
        return OPTION_VALUE_NONE;
    }
    return OPTION_VALUE_TEXT;
}

enum option_value options_show_fixed_size(const struct slap_options *o, char *buf, size_t len)
{
    const struct size_dist *d = &o->value_sizes;
    if (d->n == 0) {
        snprintf(buf, len, "%" PRIu32, o->value_size);
    } else if (d->n == 1 && d->r[0].min == d->r[0].max) {
        snprintf(buf, len, "%" PRIu32, d->r[0].min);
    } else {
        return OPTION_VALUE_NONE;
    }
    return OPTION_VALUE_NUMBER;
}

enum option_value options_show_store(const struct slap_options *o, char *buf, size_t len)
{
    char hidden[STORE_LOCATION_SHOWN];
    if (o->store == NULL) {
        return options_text_value(NULL, buf, len);
    }
    store_location_redacted(hidden, sizeof(hidden), o->store);
    return options_text_value(hidden, buf, len);
}
