/*
 * The run in Prometheus' text exposition format (version 0.0.4): counters by request type and
 * outcome, rates, the latency histogram on slap's own bucket edges, slap's CPU and, once the
 * run is over, its verdict. Every series carries the run's label; slap_run_info carries the
 * workload. The text is made from statistics slap already collected; it does no I/O but out.
 */
#include "slap/output/metrics.h"

#include <inttypes.h>
#include <string.h>

#include "slap/base/hist.h"
#include "slap/base/version.h"

/* One label besides "label": its name and value (NULL name: none). */
struct metrics_label {
    const char *name;
    const char *value;
};

uint64_t metrics_bucket_le_ns(size_t i)
{
    unsigned octave = METRICS_OCTAVE_FIRST + (unsigned)(i / METRICS_PER_OCTAVE);
    uint64_t step = 1ULL << (octave - 3); /* 1/8 of the octave */
    return (1ULL << octave) + (uint64_t)(i % METRICS_PER_OCTAVE) * step - 1;
}

/* A label value or HELP text escaped as the format asks: \\, \n and (in values) \". */
static void put_escaped(FILE *out, const char *s, bool quote)
{
    for (; *s != '\0'; s++) {
        if (*s == '\\' || (quote && *s == '"')) {
            fputc('\\', out);
            fputc(*s, out);
        } else if (*s == '\n') {
            fputs("\\n", out);
        } else {
            fputc(*s, out);
        }
    }
}

static void family(FILE *out, const char *name, const char *type, const char *help)
{
    fprintf(out, "# HELP %s ", name);
    put_escaped(out, help, false);
    fprintf(out, "\n# TYPE %s %s\n", name, type);
}

/* name{label="...",extra="...",...} and a space: the sample's value follows. extra ends at
 * a label with no name (or is NULL). */
static void series(FILE *out, const struct metrics_input *in, const char *name,
                   const struct metrics_label *extra)
{
    fprintf(out, "%s{label=\"", name);
    put_escaped(out, in->label != NULL ? in->label : "", true);
    fputc('"', out);
    for (; extra != NULL && extra->name != NULL; extra++) {
        fprintf(out, ",%s=\"", extra->name);
        put_escaped(out, extra->value, true);
        fputc('"', out);
    }
    fputs("} ", out);
}

static void sample_count(FILE *out, const struct metrics_input *in, const char *name,
                         const struct metrics_label *extra, uint64_t value)
{
    series(out, in, name, extra);
    fprintf(out, "%" PRIu64 "\n", value);
}

static void sample_real(FILE *out, const struct metrics_input *in, const char *name,
                        const struct metrics_label *extra, double value)
{
    series(out, in, name, extra);
    fprintf(out, "%.17g\n", value);
}

/* A counter family of one series. */
static void counter(FILE *out, const struct metrics_input *in, const char *name, const char *help,
                    uint64_t value)
{
    family(out, name, "counter", help);
    sample_count(out, in, name, NULL, value);
}

static void gauge(FILE *out, const struct metrics_input *in, const char *name, const char *help,
                  double value)
{
    family(out, name, "gauge", help);
    sample_real(out, in, name, NULL, value);
}

/* Is c a character of a label name ([a-zA-Z_][a-zA-Z0-9_]*)? */
static bool name_char(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
}

static bool label_name_ok(const char *name)
{
    const char *taken[] = {"label", "version", "job", "instance"}; /* ours, and a push's */
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(taken); i++) {
        if (strcmp(name, taken[i]) == 0) {
            return false;
        }
    }
    if (name[0] == '\0' || strncmp(name, "__", 2) == 0) {
        return false;
    }
    for (size_t i = 0; name[i] != '\0'; i++) {
        if (!name_char(name[i], i == 0)) {
            return false;
        }
    }
    return true;
}

/* Settings slap_run_info shows besides the workload's (those slap merge compares): the shape
 * of the load. */
static bool shape_setting(const char *name)
{
    const char *names[] = {"servers", "threads", "concurrency", "conn_sock", "time", "tps"};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(names); i++) {
        if (strcmp(name, names[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* slap_run_info: the label, the version, and every workload and shape setting with a value. */
static void run_info(FILE *out, const struct metrics_input *in)
{
    family(out, "slap_run_info", "gauge",
           "The run: its label, slap's version and its workload settings as labels; 1.");
    fputs("slap_run_info{label=\"", out);
    put_escaped(out, in->label != NULL ? in->label : "", true);
    fprintf(out, "\",version=\"%s\"", SLAP_VERSION);
    for (size_t i = 0; in->desc != NULL && i < in->desc->config.n; i++) {
        const struct run_config_entry *e = &in->desc->config.entries[i];
        if (((e->flags & RUN_CONFIG_WORKLOAD) == 0 && !shape_setting(e->name)) ||
            e->kind == RUN_CONFIG_NULL || e->value == NULL || !label_name_ok(e->name)) {
            continue;
        }
        fprintf(out, ",%s=\"", e->name);
        put_escaped(out, e->value, true);
        fputc('"', out);
    }
    fputs("} 1\n", out);
}

/* Requests answered, of every type: those in the latency (an unanswered one is in none). */
static uint64_t requests_answered(const struct slap_stats *s)
{
    uint64_t n = 0;
    for (int t = 0; t < STATS_TYPES; t++) {
        n += s->lat[t] != NULL ? s->lat[t]->count : 0;
    }
    return n;
}

static void requests(FILE *out, const struct metrics_input *in)
{
    const struct slap_stats *s = in->stats;
    const struct slap_counters *c = &s->counters;
    family(out, "slap_requests_total", "counter",
           "Requests of each type answered (those never answered are "
           "slap_unanswered_requests_total, in no latency).");
    for (int t = 0; t < STATS_TYPES; t++) {
        if (s->lat[t] != NULL) {
            struct metrics_label type[] = {{"type", stats_type_name(t)}, {NULL, NULL}};
            sample_count(out, in, "slap_requests_total", type, s->lat[t]->count);
        }
    }
    counter(out, in, "slap_requests_sent_total", "Requests handed to the kernel.",
            c->requests_sent);
    uint64_t lost = c->unanswered > c->unsent ? c->unanswered - c->unsent : 0; /* sent */
    uint64_t resolved_sent = requests_answered(s) + lost;
    gauge(out, in, "slap_requests_in_flight", "Requests sent and not yet answered.",
          c->requests_sent > resolved_sent ? (double)(c->requests_sent - resolved_sent) : 0.0);
    counter(out, in, "slap_unanswered_requests_total",
            "Requests due but never answered (lost, abandoned at the end, or never sent).",
            c->unanswered);
    counter(out, in, "slap_unsent_requests_total",
            "Of the unanswered requests, those that never left (behind a stalled socket).",
            c->unsent);
    counter(out, in, "slap_client_lag_requests_total",
            "Of the unsent requests, those due while their socket was free: slap fell behind.",
            c->client_lag);
    counter(out, in, "slap_late_requests_total",
            "Answered requests whose latency was mostly slap late to send (1 ms or more).",
            c->slap_late);
}

/* Hits and misses per command family, as memcached's own stats name them. */
static void outcomes(FILE *out, const struct metrics_input *in)
{
    const struct slap_counters *c = &in->stats->counters;
    const char *names[] = {"get", "touch", "delete", "incr", "decr", "cas"};
    uint64_t hits[] = {c->cmd_get > c->get_misses ? c->cmd_get - c->get_misses : 0,
                       c->touch_hits,
                       c->delete_hits,
                       c->incr_hits,
                       c->decr_hits,
                       c->cas_hits};
    uint64_t misses[] = {c->get_misses,  c->touch_misses, c->delete_misses,
                         c->incr_misses, c->decr_misses,  c->cas_misses};
    family(out, "slap_hits_total", "counter",
           "Keys found, by command (get: keys of get and gets; touch: of touch and gat).");
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(names); i++) {
        sample_count(out, in, "slap_hits_total",
                     (struct metrics_label[]){{"command", names[i]}, {NULL, NULL}}, hits[i]);
    }
    family(out, "slap_misses_total", "counter", "Keys not found, by command.");
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(names); i++) {
        sample_count(out, in, "slap_misses_total",
                     (struct metrics_label[]){{"command", names[i]}, {NULL, NULL}}, misses[i]);
    }
    const char *replies[] = {"stored", "not_stored", "exists"};
    uint64_t stored[] = {c->stored, c->not_stored, c->exists};
    family(out, "slap_store_replies_total", "counter",
           "Storage commands by reply (exists: a cas whose key changed since its gets).");
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(replies); i++) {
        sample_count(out, in, "slap_store_replies_total",
                     (struct metrics_label[]){{"reply", replies[i]}, {NULL, NULL}}, stored[i]);
    }
}

static void errors(FILE *out, const struct metrics_input *in)
{
    const struct slap_counters *c = &in->stats->counters;
    const char *kinds[] = {"server_error", "client_error", "error",        "protocol",
                           "conn_closed",  "udp_timeout",  "verify_failed"};
    uint64_t values[] = {c->server_error, c->client_error, c->error_reply,  c->protocol_error,
                         c->conn_closed,  c->udp_timeout,  c->verify_failed};
    family(out, "slap_errors_total", "counter",
           "Errors by kind: SERVER_ERROR, CLIENT_ERROR and ERROR replies, answers that were not "
           "the protocol, connections closed by the server or the network, UDP answers that "
           "never came, values that failed -v.");
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(kinds); i++) {
        sample_count(out, in, "slap_errors_total",
                     (struct metrics_label[]){{"kind", kinds[i]}, {NULL, NULL}}, values[i]);
    }
    counter(out, in, "slap_reconnects_total", "Connections opened again after a close (-R).",
            c->reconnects);
}

static void traffic(FILE *out, const struct metrics_input *in)
{
    const struct slap_counters *c = &in->stats->counters;
    double answered = (double)requests_answered(in->stats);
    counter(out, in, "slap_sent_bytes_total", "Bytes written to the servers.", c->written_bytes);
    counter(out, in, "slap_received_bytes_total", "Bytes read from the servers.", c->read_bytes);
    gauge(out, in, "slap_elapsed_seconds", "Length of the measured part so far.", in->elapsed_s);
    gauge(out, in, "slap_target_requests_per_second",
          "The target rate (-P, --tps; --ramp: its mean over the run); 0 in a closed loop.",
          in->target_tps);
    gauge(out, in, "slap_achieved_requests_per_second",
          "Requests answered per second over the measured part so far.",
          in->elapsed_s > 0 ? answered / in->elapsed_s : 0.0);
    if (in->desc != NULL && in->desc->ramp.duration_ns > 0) {
        gauge(out, in, "slap_ramp_target_requests_per_second",
              "--ramp: the rate the ramp asks at this point of the measured part (at its end "
              "once the run is over).",
              ramp_rate_between(&in->desc->ramp, in->elapsed_s, in->elapsed_s));
    }
    if (in->control != NULL) {
        gauge(out, in, "slap_control_target_requests_per_second",
              "--control: the target rate now, as the control last set it (the plan's until "
              "then); 0 while paused or in a closed loop.",
              in->control->tps);
        gauge(out, in, "slap_control_paused", "--control: 1 while requests are paused.",
              in->control->paused ? 1.0 : 0.0);
        counter(out, in, "slap_control_changes_total",
                "--control: changes made to the run (rate, pause, resume, stop).",
                in->control->changes);
    }
}

/* A histogram family's samples (of one type, or of none): the cumulative count at each
 * bucket's edge, +Inf, sum and count. */
static void histogram(FILE *out, const struct metrics_input *in, const char *family_name,
                      const char *type, const struct hist *h)
{
    char le[32];
    char bucket[96];
    char sum[96];
    char count[96];
    snprintf(bucket, sizeof(bucket), "%s_bucket", family_name);
    snprintf(sum, sizeof(sum), "%s_sum", family_name);
    snprintf(count, sizeof(count), "%s_count", family_name);
    struct metrics_label typed[] = {{"type", type}, {"le", le}, {NULL, NULL}};
    struct metrics_label *labels = type != NULL ? typed : typed + 1;
    uint64_t cumulative = 0;
    size_t next = 0; /* slap's bucket to add next */
    for (size_t i = 0; i < METRICS_BUCKETS; i++) {
        size_t last = hist_bucket_index(metrics_bucket_le_ns(i));
        for (; next <= last && cumulative < h->count; next++) {
            cumulative += h->buckets[next];
        }
        snprintf(le, sizeof(le), "%.9g", (double)metrics_bucket_le_ns(i) / 1e9);
        sample_count(out, in, bucket, labels, cumulative);
    }
    snprintf(le, sizeof(le), "+Inf");
    sample_count(out, in, bucket, labels, h->count);
    typed[1].name = NULL;
    sample_real(out, in, sum, type != NULL ? typed : typed + 2, h->sum_us / 1e6);
    sample_count(out, in, count, type != NULL ? typed : typed + 2, h->count);
}

/* The series of a family of per-type histograms: the types that hold a value. */
static void typed_series(FILE *out, const struct metrics_input *in, struct hist *const *by_type,
                         const char *name)
{
    for (int t = 0; t < STATS_TYPES; t++) {
        const struct hist *h = by_type[t];
        if (h != NULL && h->count > 0) {
            histogram(out, in, name, stats_type_name(t), h);
        }
    }
}

/* Latency per type, from the intended send time in an open loop (as the report's tables):
 * the types measured so far. */
static void latency(FILE *out, const struct metrics_input *in)
{
    family(out, "slap_request_duration_seconds", "histogram",
           "Latency of each request type (an open loop's from its intended send time), on "
           "slap's own bucket edges; a type appears once one of its requests is measured.");
    typed_series(out, in, in->stats->lat, "slap_request_duration_seconds");
}

/* An open loop's parts of the latency per type (the report's Send and Held), each family said
 * once one of its histograms holds a value. */
static void typed_family(FILE *out, const struct metrics_input *in, struct hist *const *by_type,
                         const char *name, const char *help)
{
    for (int t = 0; t < STATS_TYPES; t++) {
        if (by_type[t] != NULL && by_type[t]->count > 0) {
            family(out, name, "histogram", help);
            typed_series(out, in, by_type, name);
            return;
        }
    }
}

static void latency_parts(FILE *out, const struct metrics_input *in)
{
    typed_family(out, in, in->stats->late, "slap_late_to_send_seconds",
                 "An open loop's slap late to send, per request type: the wait before a "
                 "request went less what the server held it (the report's Send).");
    typed_family(out, in, in->stats->held, "slap_held_by_server_seconds",
                 "An open loop's wait before a request went while the server held it: its lane "
                 "full of unanswered requests, its socket reconnecting or taking no bytes (the "
                 "report's Held).");
}

/* A histogram of one series, its family said once it holds a value (none before). */
static void lone_histogram(FILE *out, const struct metrics_input *in, const struct hist *h,
                           const char *name, const char *help)
{
    if (h == NULL || h->count == 0) {
        return;
    }
    family(out, name, "histogram", help);
    histogram(out, in, name, NULL, h);
}

/* --timestamps=kernel: slap's own delay; connections made while measuring. */
static void own_delay_and_connects(FILE *out, const struct metrics_input *in)
{
    lone_histogram(out, in, in->stats->own, "slap_own_delay_seconds",
                   "slap's own delay (--timestamps=kernel): from the kernel's arrival stamp of an "
                   "answer to slap's read of it, the time the load host added to each latency.");
    lone_histogram(out, in, in->stats->connect, "slap_connect_seconds",
                   "Connections slap made while measuring (--reconnect_every, -R): from the "
                   "connect to ready (TCP, a TLS handshake, --auth).");
}

static void cpu(FILE *out, const struct metrics_input *in)
{
    family(out, "slap_cpu_seconds_total", "counter", "CPU time slap's process used, by mode.");
    sample_real(out, in, "slap_cpu_seconds_total",
                (struct metrics_label[]){{"mode", "user"}, {NULL, NULL}}, in->cpu_user_s);
    sample_real(out, in, "slap_cpu_seconds_total",
                (struct metrics_label[]){{"mode", "system"}, {NULL, NULL}}, in->cpu_sys_s);
}

/* The verdict and slap's CPU over the run, once it is over and they are known. */
static void verdict(FILE *out, const struct metrics_input *in)
{
    const struct limits *l = in->limits;
    if (l == NULL || l->seconds <= 0) {
        return;
    }
    family(out, "slap_limited_by_info", "gauge",
           "What limited the run (the report's limited_by) as a label; 1.");
    sample_count(
        out, in, "slap_limited_by_info",
        (struct metrics_label[]){{"limited_by", limits_verdict_name(l->verdict)}, {NULL, NULL}}, 1);
    gauge(out, in, "slap_client_cpus", "CPUs slap may use (affinity, cgroup quota); 0: unknown.",
          l->client.cpus);
    gauge(out, in, "slap_client_cpu_ratio",
          "Share of the CPUs slap may use that it used over the run.", l->client.cpu_share);
    family(out, "slap_client_thread_busy_ratio", "gauge",
           "A worker thread's CPU time over the run's length: the mean and the busiest.");
    sample_real(out, in, "slap_client_thread_busy_ratio",
                (struct metrics_label[]){{"stat", "mean"}, {NULL, NULL}}, l->client.busy_mean);
    sample_real(out, in, "slap_client_thread_busy_ratio",
                (struct metrics_label[]){{"stat", "max"}, {NULL, NULL}}, l->client.busy_max);
    if (l->client.wait_known) {
        family(out, "slap_client_thread_wait_ratio", "gauge",
               "A worker thread's time runnable but waiting for a CPU over the run's length.");
        sample_real(out, in, "slap_client_thread_wait_ratio",
                    (struct metrics_label[]){{"stat", "mean"}, {NULL, NULL}}, l->client.wait_mean);
        sample_real(out, in, "slap_client_thread_wait_ratio",
                    (struct metrics_label[]){{"stat", "max"}, {NULL, NULL}}, l->client.wait_max);
    }
    gauge(out, in, "slap_requests_in_flight_mean",
          "Requests in flight on average over the run (Little's law), against the most slap "
          "may have: slap_requests_in_flight_max.",
          l->in_flight_mean);
    gauge(out, in, "slap_requests_in_flight_max",
          "Requests slap may have in flight: clients x connections x pipeline.",
          (double)l->in_flight_max);
}

/* When the measured part began and, once over, ended: a dashboard's marks of each run. */
static void run_times(FILE *out, const struct metrics_input *in)
{
    if (in->start_time_s > 0) {
        gauge(out, in, "slap_run_start_time_seconds",
              "Unix time the measured part of the run began (after --warmup).", in->start_time_s);
    }
    if (in->finished && in->end_time_s > 0) {
        gauge(out, in, "slap_run_end_time_seconds",
              "Unix time the measured part of the run ended (in the final figures only).",
              in->end_time_s);
    }
}

enum slap_status metrics_write(FILE *out, const struct metrics_input *in)
{
    run_info(out, in);
    gauge(out, in, "slap_run_finished", "1 once the run is over: these are its final figures.",
          in->finished ? 1.0 : 0.0);
    run_times(out, in);
    requests(out, in);
    outcomes(out, in);
    errors(out, in);
    traffic(out, in);
    latency(out, in);
    latency_parts(out, in);
    own_delay_and_connects(out, in);
    cpu(out, in);
    verdict(out, in);
    return fflush(out) == 0 && !ferror(out) ? SLAP_OK : SLAP_ERROR;
}
