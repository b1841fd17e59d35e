/* slap's options once every one is read: checks across them, and what they fill in (the -F
 * file under the inline options, $MEMCACHED_SERVERS, the label). */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "slap/base/common.h"
#include "slap/base/outfile.h"
#include "slap/base/quote.h"
#include "slap/model/keys.h"
#include "slap/net/servers.h"
#include "slap/options/options.h"
#include "slap/output/results.h"
#include "slap/proto/proto.h"
#include "slap/proto/udp.h"

#include "options_rows.h"
#include "options_table.h"
#include "slap/export/live.h"
#include "slap/export/push.h"
#include "slap/store/store.h"

/* Open-loop options that need each other. */
static enum options_outcome check_open_loop(const struct parse_state *st)
{
    const struct slap_options *o = st->o;
    if (o->sweep_step > 0 && (o->hdr_out != NULL || o->stat_freq_ns > 0)) {
        return options_usage_error(st, "--sweep prints one row per step: it cannot be used with "
                                       "--hdr_out or --stat_freq");
    }
    if (o->sweep_step > 0 && (o->execute_number > 0 || o->tps > 0)) {
        return options_usage_error(st, "--sweep sets the rate of timed steps: it cannot be used "
                                       "with --tps or --execute_number");
    }
    if (o->precision_pct > 0 && o->sweep_step > 0) {
        return options_usage_error(st, "--precision cannot be used with --sweep (its steps "
                                       "last --step_time each)");
    }
    if (was_given(st, ROW_STEP_TIME) && o->sweep_step == 0) {
        return options_usage_error(st, "--step_time needs --sweep");
    }
    if (was_given(st, ROW_ARRIVAL) && o->tps == 0 && o->sweep_step == 0 &&
        o->ramp.duration_ns == 0) {
        return options_usage_error(st, "--arrival needs --tps, --sweep or --ramp (an open-loop "
                                       "run)");
    }
    return OPTIONS_RUN;
}

/* Whether this process may give its threads a real-time priority (SCHED_FIFO): tried on this
 * thread and undone (the workers take it when they start); false with the system's words. */
static bool realtime_permitted(char *why, size_t len)
{
    struct sched_param param = {.sched_priority = sched_get_priority_min(SCHED_FIFO)};
    struct sched_param was;
    int policy;
    int err = pthread_getschedparam(pthread_self(), &policy, &was);
    if (err == 0) {
        err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
    }
    if (err == 0) {
        (void)pthread_setschedparam(pthread_self(), policy, &was);
        return true;
    }
    snprintf(why, len, "%s", strerror(err));
    return false;
}

/* --priority=realtime: an open loop's (a closed loop never sleeps: a thread at a real-time
 * priority that never sleeps holds its CPU from every other process), and only where this
 * process may use it. */
static enum options_outcome check_priority(const struct parse_state *st)
{
    const struct slap_options *o = st->o;
    char why[128];
    if (o->priority != PRIORITY_REALTIME) {
        return OPTIONS_RUN;
    }
    if (o->tps <= 0 && o->sweep_step == 0 && o->ramp.duration_ns == 0 && !o->open_steps &&
        !(o->trace != NULL && o->trace_speed > 0)) {
        return options_usage_error(st, "--priority=realtime needs an open loop (--tps, --sweep, "
                                       "--ramp or a --trace at its times): a closed loop never "
                                       "sleeps, and a real-time thread that never sleeps holds "
                                       "its CPU from every other process");
    }
    if (!realtime_permitted(why, sizeof(why))) {
        return options_usage_error(st,
                                   "--priority=realtime: this process may not use "
                                   "SCHED_FIFO (%s): run as root, with CAP_SYS_NICE, or "
                                   "with an RLIMIT_RTPRIO above 0",
                                   why);
    }
    return OPTIONS_RUN;
}

/* Connection churn: --reconnect_every or --reconnect_rate (one of them), between requests of a
 * stream socket. */
static enum options_outcome check_churn(const struct parse_state *st)
{
    const struct slap_options *o = st->o;
    if (o->reconnect_every > 0 && o->reconnect_rate > 0) {
        return options_usage_error(st, "--reconnect_every and --reconnect_rate both say when a "
                                       "connection is reopened: give one of them");
    }
    const char *name = o->reconnect_every > 0  ? "--reconnect_every"
                       : o->reconnect_rate > 0 ? "--reconnect_rate"
                                               : NULL;
    if (name != NULL && (o->udp || o->facebook)) {
        return options_usage_error(st,
                                   "%s reopens TCP connections: it cannot be used with -U "
                                   "or -a",
                                   name);
    }
    if (name != NULL && o->pipeline > 1) {
        return options_usage_error(st,
                                   "%s closes a connection between requests: it needs "
                                   "--pipeline 1",
                                   name);
    }
    return OPTIONS_RUN;
}

/* --ramp: an open loop whose rate it sets itself, for its own length unless -t is given. */
static enum options_outcome check_ramp(const struct parse_state *st)
{
    struct slap_options *o = st->o;
    for (size_t i = 0; o->ramp.duration_ns > 0 && i < st->table->count; i++) {
        if (st->table->rows[i].not_with_ramp && was_given(st, (enum option_id)i)) {
            return options_usage_error(st,
                                       "--ramp sets the rate of one timed open-loop run: it "
                                       "cannot be used with --%s",
                                       st->table->rows[i].long_name);
        }
    }
    if (o->ramp.duration_ns > 0 && !was_given(st, ROW_TIME)) {
        o->run_time_ns = o->ramp.duration_ns;
    }
    return OPTIONS_RUN;
}

/* --rounds cuts one timed run into rounds of -t, each a whole number of periods. */
static enum options_outcome check_rounds(const struct parse_state *st)
{
    const struct slap_options *o = st->o;
    uint64_t period = o->stat_freq_ns > 0 ? o->stat_freq_ns : SLAP_NS_PER_SEC;
    if (o->rounds <= 1) {
        return OPTIONS_RUN;
    }
    if (o->sweep_step > 0 || o->trace != NULL || o->execute_number > 0) {
        return options_usage_error(st, "--rounds repeats a timed run: it cannot be used with "
                                       "--sweep, --trace or --execute_number");
    }
    if (o->run_time_ns == 0 || o->run_time_ns % period != 0) {
        return options_usage_error(st, "--rounds: --time must be a whole number of periods (of "
                                       "--stat_freq, else 1s) so that rounds end where periods do");
    }
    if (o->run_time_ns > UINT64_MAX / o->rounds) {
        return options_usage_error(st, "--rounds: --time times --rounds is too long");
    }
    if (o->precision_pct > 0) {
        return options_usage_error(st, "--precision cannot be used with --rounds (a run "
                                       "stopped early would lose its last rounds)");
    }
    return OPTIONS_RUN;
}

/* The TLS options that need --tls, or each other, or cannot go with it. */
static enum options_outcome check_tls(const struct parse_state *st)
{
    const struct slap_options *o = st->o;
    if (!o->tls && (o->tls_ca || o->tls_cert || o->tls_key || o->tls_skip_verify ||
                    o->tls_version != TLS_VERSION_ANY)) {
        return options_usage_error(st, "--tls_ca, --tls_cert, --tls_key, --tls_skip_verify and "
                                       "--tls_version need --tls");
    }
    if (o->tls && o->flush) {
        return options_usage_error(st, "--flush goes through libmemcached, which speaks no TLS: "
                                       "it cannot be used with --tls");
    }
    if ((o->tls_cert == NULL) != (o->tls_key == NULL)) {
        return options_usage_error(st, "--tls_cert and --tls_key go together");
    }
    return OPTIONS_RUN;
}

/* The credentials' kind a protocol's authentication takes (its codec row says which). */
static enum auth_kind auth_kind_of(enum proto_kind protocol)
{
    switch (codec_get(protocol)->auth) {
    case PROTO_AUTH_SASL_PLAIN:
        return AUTH_SASL_PLAIN;
    case PROTO_AUTH_ASCII:
        return AUTH_ASCII;
    case PROTO_AUTH_UNSET:
        break;
    }
    return AUTH_NONE;
}

/* --auth: its credentials read (exit 2 naming what was wrong), and the ways no connection of
 * slap's can authenticate refused. */
static enum options_outcome check_auth(const struct parse_state *st)
{
    struct slap_options *o = st->o;
    char why[512];
    o->auth_creds = (struct conn_auth){.kind = AUTH_NONE};
    if (o->auth == NULL) {
        return OPTIONS_RUN;
    }
    if (o->udp || o->facebook) {
        return options_usage_error(st, "--auth: memcached authenticates no UDP request (-U, "
                                       "-a): use TCP");
    }
    if (o->flush) {
        return options_usage_error(st, "--flush goes through libmemcached, which slap does not "
                                       "give the credentials: it cannot be used with --auth");
    }
    o->auth_creds.kind = auth_kind_of(o->protocol);
    if (auth_read(&o->auth_creds, o->auth, why, sizeof(why)) != SLAP_OK) {
        o->auth_creds = (struct conn_auth){.kind = AUTH_NONE};
        return options_usage_error(st, "%s", why);
    }
    return OPTIONS_RUN;
}

/* The options a replay takes from its trace, or that need one. */
static enum options_outcome check_trace(const struct parse_state *st)
{
    static const enum option_id from_trace[] = {
        ROW_TPS,        ROW_SWEEP,          ROW_MIX,       ROW_RATIO,
        ROW_CFG_CMD,    ROW_EXECUTE_NUMBER, ROW_DIVISION,  ROW_VERIFY,
        ROW_EXP_VERIFY, ROW_OVERWRITE,      ROW_REP_WRITE, ROW_PRELOAD,
        ROW_UDP,        ROW_FACEBOOK,       ROW_KEY_SIZE,  ROW_VALUE_SIZE,
        ROW_FIXED_SIZE, ROW_WIN_SIZE,       ROW_KEY_DIST,  ROW_KEY_PATTERN,
        ROW_KEY_MIN,    ROW_KEY_MAX};
    static const enum option_id need_trace[] = {ROW_TRACE_SPEED, ROW_TRACE_LIMIT,
                                                ROW_TRACE_SKIP_BAD, ROW_TRACE_SPREAD,
                                                ROW_TRACE_VALUE_MAX};
    for (size_t i = 0; st->o->trace != NULL && i < SLAP_ARRAY_SIZE(from_trace); i++) {
        if (was_given(st, from_trace[i])) {
            return options_usage_error(st,
                                       "--trace takes its keys, values, mix and times from the "
                                       "trace: it cannot be used with --%s",
                                       st->table->rows[from_trace[i]].long_name);
        }
    }
    for (size_t i = 0; st->o->trace == NULL && i < SLAP_ARRAY_SIZE(need_trace); i++) {
        if (was_given(st, need_trace[i])) {
            return options_usage_error(st, "--%s needs --trace",
                                       st->table->rows[need_trace[i]].long_name);
        }
    }
    if (st->o->trace != NULL && !was_given(st, ROW_TIME)) {
        st->o->run_time_ns = 0; /* no -t: the whole trace */
    }
    if (st->o->trace != NULL) {
        memset(st->o->mix, 0, sizeof(st->o->mix)); /* the trace's, not set/get proportions */
    }
    return OPTIONS_RUN;
}

/* --exp_time above 30 days goes as the Unix time that far ahead: it must fit the protocol's
 * field (ascii and meta: 2038-01-19; binary: 2106-02-07). */
static enum options_outcome check_exp_time(const struct parse_state *st)
{
    const struct slap_options *o = st->o;
    const struct codec *codec = codec_get(o->protocol);
    uint64_t ttl = o->exp_time_ns / SLAP_NS_PER_SEC;
    uint64_t now = (uint64_t)time(NULL);
    uint64_t most = codec_ttl_max(codec, now);
    if (ttl <= most) {
        return OPTIONS_RUN;
    }
    return options_usage_error(
        st,
        "--exp_time: %" PRIu64 " s is more than 30 days, which memcached reads as "
        "a Unix time: it would go as now + %" PRIu64 ", past the latest the %s "
        "protocol carries (%" PRIu32 "%s); give at most %" PRIu64 " s",
        ttl, ttl, codec->name, codec->exptime_max,
        codec->exptime_max == INT32_MAX ? ", 2038-01-19" : ", 2106-02-07", most);
}

/* --probe: a light open loop of its own, unless the command line says otherwise. */
#define PROBE_TPS 100.0
#define PROBE_CLIENTS 2

static enum options_outcome apply_probe(const struct parse_state *st)
{
    struct slap_options *o = st->o;
    if (!o->probe) {
        return OPTIONS_RUN;
    }
    if (o->share_count > 0 || o->sweep_step > 0 || o->trace != NULL || o->execute_number > 0) {
        return options_usage_error(st, "--probe measures latency beside a load at its own fixed "
                                       "rate for --time: it cannot be used with --share, "
                                       "--sweep, --trace or --execute_number");
    }
    o->threads = was_given(st, ROW_THREADS) ? o->threads : 1;
    o->concurrency = was_given(st, ROW_CONCURRENCY) ? o->concurrency : PROBE_CLIENTS;
    o->tps = was_given(st, ROW_TPS) ? o->tps : PROBE_TPS;
    return OPTIONS_RUN;
}

/* --share: a trace's times are its own, and key ids are six hex digits. */
static enum options_outcome check_share(const struct parse_state *st)
{
    const struct slap_options *o = st->o;
    if (o->share_count == 0) {
        return OPTIONS_RUN;
    }
    if (o->trace != NULL) {
        return options_usage_error(st, "--share splits -P and -x among hosts; a --trace replay "
                                       "sends the trace's own requests at its own times: it "
                                       "cannot be split");
    }
    if (o->share_keys && (uint64_t)o->share_count * o->concurrency > KEY_LAYOUT_OWNERS) {
        return options_usage_error(st,
                                   "--share %" PRIu32 "/%" PRIu32 ",keys: %" PRIu32
                                   " hosts of %" PRIu32 " clients each need more client ids "
                                   "than a key holds (%llu)",
                                   o->share_index, o->share_count, o->share_count, o->concurrency,
                                   (unsigned long long)KEY_LAYOUT_OWNERS);
    }
    return OPTIONS_RUN;
}

/* Checks across options that the inline values alone decide. */
static enum options_outcome check_combinations(const struct parse_state *st)
{
    const struct slap_options *o = st->o;
    if (check_ramp(st) != OPTIONS_RUN || apply_probe(st) != OPTIONS_RUN) {
        return OPTIONS_USAGE;
    }
    if (o->concurrency < o->threads) {
        return options_usage_error(
            st, "--concurrency (%" PRIu32 ") must be at least --threads (%" PRIu32 ")",
            o->concurrency, o->threads);
    }
    if (check_trace(st) != OPTIONS_RUN) {
        return OPTIONS_USAGE;
    }
    if (was_given(st, ROW_RATIO) && was_given(st, ROW_MIX)) {
        return options_usage_error(st, "--ratio and --mix both set the mix: give one");
    }
    if (check_exp_time(st) != OPTIONS_RUN) {
        return OPTIONS_USAGE;
    }
    enum options_outcome outcome = check_open_loop(st);
    outcome = outcome == OPTIONS_RUN ? check_priority(st) : outcome;
    outcome = outcome == OPTIONS_RUN ? check_churn(st) : outcome;
    outcome = outcome == OPTIONS_RUN ? check_rounds(st) : outcome;
    outcome = outcome == OPTIONS_RUN ? check_share(st) : outcome;
    outcome = outcome == OPTIONS_RUN ? check_tls(st) : outcome;
    return outcome == OPTIONS_RUN ? check_auth(st) : outcome;
}

/* --ycsb: YCSB's core workloads (Cooper et al., "Benchmarking Cloud Serving Systems with
 * YCSB", SoCC 2010; its workloads/workload[a-f] files): the mix of reads and updates (an
 * update a set, an insert a set of the window's walk, a read-modify-write a gets and a cas),
 * the request distribution, records of 10 fields of 100 bytes under keys "user" and 19
 * digits. Under -F's sections and the options given. */
static void apply_ycsb(const struct parse_state *st)
{
    static const struct {
        char name;
        double get, set, gets, cas;
        enum key_dist_kind keys;
    } presets[] = {{'a', 50, 50, 0, 0, KEY_DIST_ZIPF},
                   {'b', 95, 5, 0, 0, KEY_DIST_ZIPF},
                   {'c', 100, 0, 0, 0, KEY_DIST_ZIPF},
                   {'d', 95, 5, 0, 0, KEY_DIST_LATEST},
                   {'f', 1, 0, 1, 1, KEY_DIST_ZIPF}}; /* a read, and a read and a write */
    struct slap_options *o = st->o;
    for (size_t i = 0; o->ycsb != NULL && i < SLAP_ARRAY_SIZE(presets); i++) {
        if (presets[i].name != o->ycsb[0]) {
            continue;
        }
        if (!was_given(st, ROW_MIX) && !was_given(st, ROW_RATIO)) {
            double sum = presets[i].get + presets[i].set + presets[i].gets + presets[i].cas;
            memset(o->mix, 0, sizeof(o->mix));
            o->mix[OP_GET] = presets[i].get / sum;
            o->mix[OP_SET] = presets[i].set / sum;
            o->mix[OP_GETS] = presets[i].gets / sum;
            o->mix[OP_CAS] = presets[i].cas / sum;
        }
        if (!was_given(st, ROW_KEY_DIST)) {
            o->key_pop = (struct key_dist){.kind = presets[i].keys, .s = 0.99};
        }
        if (!was_given(st, ROW_KEY_SIZE)) {
            size_dist_fixed(&o->key_sizes, 23);
        }
        if (!was_given(st, ROW_VALUE_SIZE) && !was_given(st, ROW_FIXED_SIZE)) {
            size_dist_fixed(&o->value_sizes, 1000);
        }
    }
}

/* -F under the inline options: a section counts unless its option was given; -X over both. */
static enum options_outcome apply_cfg_file(const struct parse_state *st)
{
    struct slap_options *o = st->o;
    apply_ycsb(st);
    struct cfg_file cfg = {.has_key = false}; /* no -F: no sections */
    char why[512];
    if (o->cfg_file != NULL && cfgfile_load(o->cfg_file, &cfg, why, sizeof(why)) != SLAP_OK) {
        return options_usage_error(st, "--cfg_cmd: %s", why);
    }
    o->cfg_groups = cfg.has_groups;
    if (cfg.has_key && !was_given(st, ROW_KEY_SIZE)) {
        o->key_sizes = cfg.key;
    }
    if (cfg.has_value && !was_given(st, ROW_VALUE_SIZE)) {
        o->value_sizes = cfg.value;
    }
    if (cfg.has_cmd && !was_given(st, ROW_RATIO) && !was_given(st, ROW_MIX)) {
        memcpy(o->mix, cfg.mix, sizeof(o->mix));
    }
    if (was_given(st, ROW_FIXED_SIZE)) {
        size_dist_fixed(&o->value_sizes, o->value_size); /* -X wins, as in memaslap */
    }
    return OPTIONS_RUN;
}

/* --key_min, --key_max: one range for every client, which no window option, check of a
 * client's own versions, nor share among more hosts than keys goes with. */
static enum options_outcome check_key_bounds(const struct parse_state *st)
{
    struct slap_options *o = st->o;
    static const struct {
        enum option_id row;
        const char *why;
    } per_client[] = {
        {ROW_WIN_SIZE, "sizes each client's own window"},
        {ROW_VERIFY, "checks a value against what its own client set"},
        {ROW_OVERWRITE, "overwrites keys its own client set"},
        {ROW_EXP_VERIFY, "checks the expiry of what its own client set"},
    };
    o->key_bounds = was_given(st, ROW_KEY_MIN) || was_given(st, ROW_KEY_MAX);
    if (!o->key_bounds) {
        return OPTIONS_RUN;
    }
    const char *bound = was_given(st, ROW_KEY_MIN) ? "--key_min" : "--key_max";
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(per_client); i++) {
        if (was_given(st, per_client[i].row)) {
            return options_usage_error(st,
                                       "--%s %s: it cannot be used with %s (one range of keys "
                                       "shared by every client)",
                                       st->table->rows[per_client[i].row].long_name,
                                       per_client[i].why, bound);
        }
    }
    if (o->key_min > o->key_max) {
        return options_usage_error(st, "--key_min (%" PRIu64 ") is above --key_max (%" PRIu64 ")",
                                   o->key_min, o->key_max);
    }
    if (o->share_keys && o->key_max - o->key_min + 1 < o->share_count) {
        return options_usage_error(st,
                                   "--share %" PRIu32 "/%" PRIu32 ",keys gives each host a part "
                                   "of %s's range: its %" PRIu64 " keys are fewer than the hosts",
                                   o->share_index, o->share_count, bound,
                                   o->key_max - o->key_min + 1);
    }
    return OPTIONS_RUN;
}

/* --key_pattern (under --key_dist, -F and --ycsb): what a law cannot mean for a command. */
static enum options_outcome check_key_pattern(const struct parse_state *st)
{
    const struct slap_options *o = st->o;
    struct key_dist laws[OP_COUNT];
    key_pattern_resolve(&o->key_pattern, &o->key_pop, laws);
    const char *from = was_given(st, ROW_KEY_DIST) ? "--key_dist, --key_pattern" : "--key_pattern";
    for (int op = 0; op < OP_COUNT; op++) { /* first: all:latest is refused for set's sake */
        bool walks_counters = op == OP_SET || op == OP_ADD || op_is_arithmetic((enum op_type)op);
        if (laws[op].kind == KEY_DIST_LATEST && walks_counters) {
            return options_usage_error(st,
                                       "%s: %s:latest: latest ranks keys by when set's walk "
                                       "stored them; %s cannot take it",
                                       from, op_name((enum op_type)op), op_name((enum op_type)op));
        }
    }
    for (int op = 0; op < OP_COUNT; op++) {
        if (laws[op].kind == KEY_DIST_LATEST && laws[OP_SET].kind != KEY_DIST_SEQUENTIAL) {
            return options_usage_error(st,
                                       "%s: %s:latest ranks keys by when set's walk stored "
                                       "them: it cannot be used with --key_pattern set:%s "
                                       "(sets that do not walk)",
                                       from, op_name((enum op_type)op),
                                       key_dist_name(laws[OP_SET].kind));
        }
    }
    if (o->overwrite > 0 && laws[OP_SET].kind != KEY_DIST_SEQUENTIAL) {
        return options_usage_error(st, "--overwrite chooses the sets that rewrite a stored key: "
                                       "it cannot be used with --key_pattern set:LAW (every set "
                                       "draws its key)");
    }
    return OPTIONS_RUN;
}

/* No -s: $MEMCACHED_SERVERS when it is set, else the default stays. Set but empty, it is the
 * empty list that -s '' is (refused by check_servers, naming the variable), not the default. */
static void apply_servers_fallback(const struct parse_state *st)
{
    const char *env = getenv("MEMCACHED_SERVERS");
    if (!was_given(st, ROW_SERVERS) && env != NULL) {
        st->o->servers = env;
    }
}

/* Does the mix send values (set, add, replace, append, prepend, cas)? */
static bool carries_values(const struct slap_options *o)
{
    for (int op = 0; op < OP_COUNT; op++) {
        if (o->mix[op] > 0 && op_class((enum op_type)op) == OP_CLASS_STORAGE) {
            return true;
        }
    }
    return false;
}

/* -U, -a: what UDP cannot carry is refused here, not discovered during the run. */
static enum options_outcome check_udp(const struct parse_state *st)
{
    const struct slap_options *o = st->o;
    uint32_t key_max = o->key_sizes.n ? size_dist_max(&o->key_sizes) : o->key_size;
    uint32_t value_max = o->value_sizes.n ? size_dist_max(&o->value_sizes) : o->value_size;
    const struct codec *codec = codec_get(o->protocol);
    uint64_t get = codec_get_bytes(codec, o->division, key_max);
    uint64_t set_header = codec_set_header_bytes(codec, key_max);
    uint64_t set = set_header + value_max + (codec->set_crlf ? 2 : 0);
    if (o->udp && o->facebook) {
        return options_usage_error(st, "--udp and --facebook: choose one");
    }
    if (o->pipeline > 1 || o->tls) {
        return options_usage_error(st,
                                   "--%s sends one request at a time in clear: it cannot be "
                                   "used with --pipeline or --tls",
                                   o->udp ? "udp" : "facebook");
    }
    if (get > (UDP_MAX_REQUEST - UDP_HEADER)) {
        return options_usage_error(st,
                                   "--%s: a get of %u keys of up to %u bytes does not fit one "
                                   "datagram (%d bytes): use a smaller --division",
                                   o->udp ? "udp" : "facebook", o->division, key_max,
                                   (UDP_MAX_REQUEST - UDP_HEADER));
    }
    if (o->udp && carries_values(o) && set > (UDP_MAX_REQUEST - UDP_HEADER)) {
        return options_usage_error(
            st,
            "--udp: a set of a %u-byte value does not fit one datagram "
            "(%d bytes): use -X %d or less, or --facebook (sets over TCP)",
            value_max, (UDP_MAX_REQUEST - UDP_HEADER),
            (int)((UDP_MAX_REQUEST - UDP_HEADER) - set_header - (codec->set_crlf ? 2 : 0)));
    }
    return OPTIONS_RUN;
}

/* The server list's syntax (from -s or $MEMCACHED_SERVERS), and what -U, -a and -p need of it:
 * a mistyped list is refused here rather than read as some other server. */
static enum options_outcome check_servers(const struct parse_state *st)
{
    const struct slap_options *o = st->o;
    const char *from = was_given(st, ROW_SERVERS) ? "--servers" : "MEMCACHED_SERVERS";
    struct servers_shape shape;
    char why[512];
    if (o->servers[0] == '\0') {
        return options_usage_error(st, "%s: the list is empty", from);
    }
    if (servers_check_list(o->servers, &shape, why, sizeof(why)) != SLAP_OK) {
        return options_usage_error(st, "%s: %s", from, why);
    }
    if ((o->udp || o->facebook) && shape.unix_sockets > 0) {
        return options_usage_error(st, "--%s needs host:port servers, and %s lists a unix socket",
                                   o->udp ? "udp" : "facebook", from);
    }
    if (o->rep_write > shape.count) {
        return options_usage_error(st, "--rep_write %" PRIu32 ": only %" PRIu32 " server%s listed",
                                   o->rep_write, shape.count, shape.count == 1 ? " is" : "s are");
    }
    if (o->stats_servers != NULL &&
        servers_check_list(o->stats_servers, &shape, why, sizeof(why)) != SLAP_OK) {
        return options_usage_error(st, "--stats_servers: %s", why);
    }
    if (o->proxy_stats == NULL) {
        return OPTIONS_RUN;
    }
    if (servers_check_list(o->proxy_stats, &shape, why, sizeof(why)) != SLAP_OK) {
        return options_usage_error(st, "--proxy_stats: %s", why);
    }
    if (shape.count != 1 || shape.unix_sockets > 0) {
        return options_usage_error(st,
                                   "--proxy_stats: one host:port (twemproxy's stats port), not "
                                   "'%s'",
                                   o->proxy_stats);
    }
    return OPTIONS_RUN;
}

/* The value of an output row (OPT_OUTPUT_FILE: a const char * of the target), or NULL. */
static const char *output_of(const struct parse_state *st, const struct option_row *row)
{
    const char *value;
    memcpy(&value, (const char *)st->target + row->field, sizeof(value));
    return value;
}

/* Each output its own file: two naming one (the same name, ./x and x, a link and its file)
 * would leave only the last written. Every output row is one (a new output needs no list). */
static enum options_outcome check_distinct_outputs(const struct parse_state *st)
{
    const struct option_row *rows = st->table->rows;
    char a[QUOTE_PATH_BUF], b[QUOTE_PATH_BUF];
    for (size_t i = 0; i < st->table->count; i++) {
        const char *fi = rows[i].kind == OPT_OUTPUT_FILE ? output_of(st, &rows[i]) : NULL;
        for (size_t j = i + 1; fi != NULL && j < st->table->count; j++) {
            const char *fj = rows[j].kind == OPT_OUTPUT_FILE ? output_of(st, &rows[j]) : NULL;
            if (fj == NULL || !outfile_same(fi, fj)) {
                continue;
            }
            if (strcmp(fi, fj) == 0) {
                return options_usage_error(st,
                                           "--%s and --%s both name %s: give each output a "
                                           "file of its own",
                                           rows[i].long_name, rows[j].long_name, quote_name(a, fi));
            }
            return options_usage_error(st,
                                       "--%s %s and --%s %s are the same file: give each "
                                       "output a file of its own",
                                       rows[i].long_name, quote_name(a, fi), rows[j].long_name,
                                       quote_name(b, fj));
        }
    }
    return OPTIONS_RUN;
}

/* The results files: one name each, standard output only for the rows that take it (--json,
 * --hdr_out), sampling with --samples. */
static enum options_outcome check_results(const struct parse_state *st)
{
    const struct slap_options *o = st->o;
    const struct option_row *rows = st->table->rows;
    for (size_t i = 0; i < st->table->count; i++) {
        const char *file = rows[i].kind == OPT_OUTPUT_FILE ? output_of(st, &rows[i]) : NULL;
        if (file != NULL && strcmp(file, "-") == 0 && !rows[i].to_stdout) {
            return options_usage_error(st,
                                       "--%s: only --json and --hdr_out write to standard "
                                       "output (-)",
                                       rows[i].long_name);
        }
    }
    if (check_distinct_outputs(st) != OPTIONS_RUN) {
        return OPTIONS_USAGE;
    }
    if (was_given(st, ROW_SAMPLE_RATE) && o->samples_out == NULL) {
        return options_usage_error(st, "--sample_rate needs --samples");
    }
    if (o->samples_out != NULL && o->sweep_step > 0) {
        return options_usage_error(st, "--samples cannot be used with --sweep (a run of its own "
                                       "per step): sample one rate with --tps");
    }
    if (o->quiet && o->stat_freq_ns > 0) {
        return options_usage_error(st, "--quiet prints no tables: it cannot be used with "
                                       "--stat_freq");
    }
    const char *label_problem = o->label != NULL ? results_label_problem(o->label) : NULL;
    if (label_problem != NULL) {
        char shown[QUOTE_PATH_BUF];
        return options_usage_error(st, "--label %s: %s", quote_name(shown, o->label),
                                   label_problem);
    }
    return OPTIONS_RUN;
}

_Static_assert((uint64_t)SLAP_MAX_TPS == (uint64_t)LIVE_CONTROL_MAX_TPS,
               "--control's highest rate is -P's");

/* --metrics and --push: an address and a URL they take, for one run; --control likewise. */
static enum options_outcome check_live(const struct parse_state *st)
{
    const struct slap_options *o = st->o;
    const char *problem;
    char shown[QUOTE_PATH_BUF];
    if ((o->metrics != NULL || o->push != NULL) && o->sweep_step > 0) {
        return options_usage_error(st, "--metrics and --push show one run: they cannot be "
                                       "used with --sweep");
    }
    if (o->control != NULL) {
        const char *alone = o->sweep_step > 0  ? "--sweep"
                            : o->trace != NULL ? "--trace (its times are the trace's)"
                            : o->rounds > 1    ? "--rounds"
                            : o->cfg_groups    ? "a -F file's groups"
                                               : NULL;
        if (alone != NULL) {
            return options_usage_error(st, "--control changes one run: it cannot be used with %s",
                                       alone);
        }
        if ((problem = live_metrics_problem(o->control, NULL, 0, NULL)) != NULL) {
            return options_usage_error(st, "--control %s: %s", quote_name(shown, o->control),
                                       problem);
        }
    }
    if (o->metrics != NULL && (problem = live_metrics_problem(o->metrics, NULL, 0, NULL)) != NULL) {
        return options_usage_error(st, "--metrics %s: %s", quote_name(shown, o->metrics), problem);
    }
    if (o->push != NULL && (problem = push_url_problem(o->push)) != NULL) {
        char redacted[2048];
        push_url_redacted(o->push, redacted, sizeof(redacted));
        return options_usage_error(st, "--push %s: %s", quote_name(shown, redacted), problem);
    }
    if (o->store != NULL && (problem = store_location_problem(o->store)) != NULL) {
        char hidden[STORE_LOCATION_SHOWN];
        store_location_shown(hidden, sizeof(hidden), o->store);
        return options_usage_error(st, "--store %s: %s", hidden, problem);
    }
    return OPTIONS_RUN;
}

/* No --label: the host name, or "slap" when it has none, kept in the options' own array. */
static void apply_label_fallback(struct slap_options *o)
{
    char *host = o->host_label;
    if (o->label != NULL) {
        return;
    }
    memset(host, 0, sizeof(o->host_label));
    if (gethostname(host, sizeof(o->host_label) - 1) != 0 || results_label_problem(host) != NULL) {
        snprintf(host, sizeof(o->host_label), "slap");
    }
    o->label = host;
}

enum options_outcome options_finish(const struct parse_state *st)
{
    enum options_outcome outcome = check_combinations(st);
    if (outcome == OPTIONS_RUN) {
        outcome = check_results(st);
        outcome = outcome == OPTIONS_RUN ? check_live(st) : outcome;
        apply_label_fallback(st->o);
    }
    if (outcome == OPTIONS_RUN) {
        outcome = apply_cfg_file(st);
    }
    if (outcome == OPTIONS_RUN) { /* after the file and --ycsb: the final mix and --key_dist */
        outcome = check_key_bounds(st);
        outcome = outcome == OPTIONS_RUN ? check_key_pattern(st) : outcome;
    }
    if (outcome == OPTIONS_RUN && (st->o->udp || st->o->facebook)) {
        outcome = check_udp(st); /* after the file: it needs the final sizes */
    }
    if (outcome == OPTIONS_RUN) {
        apply_servers_fallback(st);
        outcome = check_servers(st);
    }
    return outcome;
}
