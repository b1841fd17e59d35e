/*
 * What limited a run, in words: the verdict's why (the report's limited_by line, the JSON's
 * "why") made from the figures and what limits_judge found, and the report's lines of figures.
 */
#include "slap/output/limits_words.h"

#include <limits.h>
#include <stdarg.h>
#include <string.h>

/* Where the words go: appended to buf, len bytes in all. */
struct words {
    const struct limits *l;
    char *buf;
    size_t len;
};

/* A share in whole percent, rounded down: 84% never reads as the 85% of saturation. A share
 * no int holds (a server's figures past belief) is INT_MAX, not a conversion's overflow. */
static int pct(double share)
{
    return share > 0 ? (share * 100.0 < INT_MAX ? (int)(share * 100.0) : INT_MAX) : 0;
}

/* The first server whose load is unknown (for the words). */
static const char *first_unknown(const struct limits *l)
{
    for (uint32_t i = 0; i < l->nservers; i++) {
        if (!l->servers[i].known) {
            return l->servers[i].name;
        }
    }
    return "a server";
}

/* The first server on slap's host, or NULL. */
static const struct limits_server *first_local(const struct limits *l)
{
    for (uint32_t i = 0; i < l->nservers; i++) {
        if (l->servers[i].local) {
            return &l->servers[i];
        }
    }
    return NULL;
}

/* Appends printf-style words to the verdict's. */
static void say(struct words *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct words *w, const char *fmt, ...)
{
    size_t used = strlen(w->buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->buf + used, w->len - used, fmt, ap);
    va_end(ap);
}

/* "slap's busiest thread was on a CPU 18% of the run and waited for one 62%" */
static void say_client_as(struct words *w, const char *who)
{
    const struct limits *l = w->l;
    const struct limits_client *c = &l->client;
    say(w, "%s busiest thread was on a CPU %d%% of the run", who, pct(c->busy_max));
    if (c->wait_known) {
        say(w, " and waited for one %d%%", pct(c->wait_max));
    }
    if (c->cpus > 0) {
        say(w, ", the process used %d%% of the %.4g CPU%s it may use", pct(c->cpu_share), c->cpus,
            c->cpus == 1 ? "" : "s");
    }
}

static void say_client(struct words *w)
{
    say_client_as(w, "slap's");
}

/* "10.0.0.1:11211's threads were busy 97% of the run", or a proxy's busiest thread. */
static void say_server(struct words *w, const struct limits_server *s)
{
    if (s->from_proc) {
        say(w,
            "%s's busiest thread was busy %d%% of the run (pid %d, from /proc: it answers no "
            "stats)",
            s->name, pct(s->busy), s->pid);
    } else {
        say(w, "%s's threads were busy %d%% of the run%s", s->name, pct(s->busy),
            s->backend ? " (a backend)" : "");
    }
}

/* "the servers (busiest 10.0.0.1:11211 12%)" or "the servers (load unknown)" */
static void say_servers(struct words *w, const struct limits_server *busiest)
{
    if (busiest == NULL) {
        say(w, "the servers (load unknown)");
    } else {
        say(w, "the servers (busiest %s %d%%)", busiest->name, pct(busiest->busy));
    }
}

/* The host's CPUs, when they were near saturation, and who shares them. */
static void say_host(struct words *w)
{
    const struct limits *l = w->l;
    const struct limits_server *local = first_local(l);
    if (!l->host.known || l->host.busy < LIMITS_SATURATED) {
        return;
    }
    say(w, "; this host's %u CPU%s were %d%% busy", l->host.cpus, l->host.cpus == 1 ? "" : "s",
        pct(l->host.busy));
    if (local != NULL) {
        say(w, ", shared by slap and %s", local->name);
    }
}

/* A time for the words: "45.2 ms", "440 us". */
static void say_time(struct words *w, double seconds)
{
    if (seconds >= 1e-3) {
        say(w, "%.1f ms", seconds * 1e3);
    } else {
        say(w, "%.0f us", seconds * 1e6);
    }
}

/* "P99 45.2 ms: slap late to send 27.6 ms, held by the server 0 us, network and server
 * 440 us (each part's own P99)" */
static void say_parts(struct words *w)
{
    const struct limits *l = w->l;
    say(w, "P99 ");
    say_time(w, l->latency_p99_s);
    say(w, ": slap late to send ");
    say_time(w, l->slap_late_p99_s);
    say(w, ", held by the server ");
    say_time(w, l->held_p99_s);
    say(w, ", network and server ");
    say_time(w, l->net_p99_s);
    say(w, " (each part's own P99)");
}

/* The host's steal time, when a hypervisor took enough of its CPUs to matter. */
static void say_steal(struct words *w)
{
    const struct limits *l = w->l;
    if (l->host.known && l->host.steal >= LIMITS_STEAL) {
        say(w,
            "; the hypervisor took %d%% of this host's CPU time (steal): slap's threads were "
            "stopped without waiting on this host's run queue",
            pct(l->host.steal));
    }
}

static void why_starved(struct words *w, const struct limits_server *busiest, bool server,
                        uint32_t unknown)
{
    const struct limits *l = w->l;
    const struct limits_client *c = &l->client;
    say(w,
        "slap's threads waited for a CPU up to %d%% of the run (busiest thread on a CPU %d%%): "
        "the load host's CPU limited the run, so the figures measure slap's share of it",
        pct(c->wait_max), pct(c->busy_max));
    if (server) {
        say(w, ", and ");
        say_server(w, busiest);
        say(w, " too");
    }
    const struct limits_server *other = limits_starved_server(l);
    if (other != NULL) {
        say(w, ", and %s's threads waited for one up to %d%% too", other->name,
            pct(other->wait_max));
    }
    say_host(w);
    say(w, "; give slap CPUs of its own (stop other load, lift a CPU quota, pin the server "
           "apart with taskset)");
    if (c->cpus > 0 && l->threads > 1 && l->threads > c->cpus + 0.5) {
        say(w, ", and use no more threads (-T %u) than the %.4g CPU%s slap may use", l->threads,
            c->cpus, c->cpus == 1 ? "" : "s");
    }
    say(w, ", then run again");
    if (l->client_lag > 0) {
        say(w,
            "; slap could not keep the -P schedule: %llu requests fell due while their socket "
            "was free and were never sent, sends were up to %.1f ms late (P99)",
            (unsigned long long)l->client_lag, l->send_lag_p99_s * 1e3);
    }
    if (limits_slap_tail(l)) {
        say(w, "; %d%% of the requests at or above the P99 were mostly slap's own lateness (",
            pct(l->slap_tail_share));
        say_parts(w);
        say(w, ")");
    }
    if (unknown > 0 && !server) {
        say(w, "; the load of %s is unknown (no stats): this verdict is about the client only",
            first_unknown(l));
    }
}

/* A server on slap's host waited for a CPU: the host's CPU limited it, not its own work. */
static void why_server_starved(struct words *w, const struct limits_server *s)
{
    say(w, "%s's threads waited for a CPU up to %d%% of the run (pid %d; ", s->name,
        pct(s->wait_max), s->pid);
    say_client(w);
    say(w, "): the load host's CPU limited the server, so the figures measure its share of it");
    say_host(w);
    say(w, "; give the server CPUs of its own (stop other load, pin slap apart with taskset), "
           "then run again");
}

/* The tail was slap's lateness: the words say how much, why it may be, and what to do. */
static void why_slap_tail(struct words *w, const struct limits_server *busiest, bool server)
{
    const struct limits *l = w->l;
    say(w,
        "slap was late to send: %d%% of the requests at or above the P99 were mostly slap's "
        "own lateness (",
        pct(l->slap_tail_share));
    say_parts(w);
    say(w, "), so the tail measures slap, not the server; ");
    say_client(w);
    if (server) {
        say(w, ", and ");
        say_server(w, busiest);
        say(w, " too");
    }
    say_steal(w);
    say_host(w);
    say(w,
        "; run slap on CPUs of its own (fewer threads than CPUs, -T now %u; taskset to pin it "
        "apart from the server and other work), on a host with less other work",
        l->threads);
    if (!l->own_known) {
        say(w, ", and --timestamps=kernel to keep its late reads out of the latencies");
    }
    if (l->client_lag > 0) {
        say(w, "; %llu requests fell due while their socket was free and were never sent",
            (unsigned long long)l->client_lag);
    }
}

static void why_late(struct words *w)
{
    const struct limits *l = w->l;
    say(w,
        "slap could not keep the -P schedule: %llu requests fell due while their socket was "
        "free and were never sent, sends were up to %.1f ms late (P99): the figures measure "
        "slap's lag; ",
        (unsigned long long)l->client_lag, l->send_lag_p99_s * 1e3);
    say_client(w);
    say(w, "; give it more CPU or raise -T (now %u)", l->threads);
}

/* What the open loop's target is called in the verdict's words. */
static const char *target_name(const struct limits *l)
{
    return l->ramped ? "--ramp's mean target" : "-P target";
}

static void why_rate(struct words *w, const struct limits_server *busiest, uint32_t unknown)
{
    const struct limits *l = w->l;
    if (l->target_tps > 0) {
        say(w, "the %s of %.0f ops/s was met (%.0f achieved): the rate set the load; ",
            target_name(l), l->target_tps, l->achieved_tps);
        say_client(w);
        say(w, "; ");
        say_servers(w, busiest);
        say(w, "%s", unknown > 0 ? ", some servers' load unknown" : "");
        if (limits_starved(l)) {
            say(w,
                "; but slap's threads waited for a CPU up to %d%% of the run: the latencies "
                "include that wait (the load host's CPU); give slap CPUs of its own for "
                "the server's own figures",
                pct(l->client.wait_max));
        }
        return;
    }
    say(w, "the trace's own times set the rate: neither slap (");
    say_client_as(w, "its");
    say(w, ") nor ");
    say_servers(w, busiest);
    say(w, " were near saturation");
}

static void why_client(struct words *w, uint32_t unknown)
{
    const struct limits *l = w->l;
    say_client(w);
    say(w,
        ": the figures measure slap, not the server; raise -T (now %u) if slap has idle "
        "CPUs, or run slap on more hosts",
        l->threads);
    if (unknown > 0) {
        say(w, "; the load of some servers is unknown (no stats): this verdict is about the "
               "client only");
    }
}

static void why_neither(struct words *w, const struct limits_server *busiest)
{
    const struct limits *l = w->l;
    say(w, "neither slap (");
    say_client_as(w, "its");
    say(w, ") nor ");
    say_servers(w, busiest);
    say(w, " were near saturation, ");
    if (!limits_occupied(l)) {
        say(w,
            "yet slap kept only %.1f of its %u possible requests in flight on average (rate "
            "x latency): its own time between an answer and the next request limited the "
            "run, not the clients' number; raise -T, or run slap on more hosts",
            l->in_flight_mean, l->in_flight_max);
        return;
    }
    if (l->target_tps > 0) {
        say(w, "and the %s of %.0f ops/s was not met (%.0f achieved): ", target_name(l),
            l->target_tps, l->achieved_tps);
    }
    say(w,
        "%.1f of the %u possible requests were in flight on average (rate x latency): too "
        "few clients (-c %u) for the latency, each waits for its answers; raise -c",
        l->in_flight_mean, l->in_flight_max, l->concurrency);
}

/* A share as a percentage rounded down to a tenth: 9.96% reads 9.9%, on the line's near side. */
static double pct_tenth(double share)
{
    return share > 0 ? (double)(long long)(share * 1000.0) / 10.0 : 0;
}

static void say_client_wait(struct words *w, uint32_t server, double figure)
{
    (void)server;
    say(w, "slap's threads waited for a CPU %.1f%% of the run, near the %.0f%% line",
        pct_tenth(figure), LIMITS_STARVED * 100);
}

static void say_server_wait(struct words *w, uint32_t server, double figure)
{
    const struct limits *l = w->l;
    say(w, "%s's threads waited for a CPU %.1f%% of the run, near the %.0f%% line",
        l->servers[server].name, pct_tenth(figure), LIMITS_STARVED * 100);
}

static void say_client_demand(struct words *w, uint32_t server, double figure)
{
    (void)server;
    say(w,
        "slap's busiest thread was on a CPU or waiting for one %.1f%% of the run, near the "
        "%.0f%% line",
        pct_tenth(figure), LIMITS_SATURATED * 100);
}

static void say_client_share(struct words *w, uint32_t server, double figure)
{
    const struct limits *l = w->l;
    (void)server;
    say(w, "slap used %.1f%% of the %.4g CPU%s it may use, near the %.0f%% line", pct_tenth(figure),
        l->client.cpus, l->client.cpus == 1 ? "" : "s", LIMITS_SATURATED * 100);
}

static void say_server_busy(struct words *w, uint32_t server, double figure)
{
    const struct limits *l = w->l;
    say(w, "%s's %s busy %.1f%% of the run, near the %.0f%% line", l->servers[server].name,
        l->servers[server].from_proc ? "busiest thread was" : "threads were", pct_tenth(figure),
        LIMITS_SATURATED * 100);
}

static void say_rate_met(struct words *w, uint32_t server, double figure)
{
    const struct limits *l = w->l;
    (void)server;
    say(w, "%.1f%% of the %s was achieved, near the %.0f%% line", pct_tenth(figure), target_name(l),
        LIMITS_RATE_MET * 100);
}

static void say_late(struct words *w, uint32_t server, double figure)
{
    (void)server;
    say(w, "sends were up to %.2f ms late (P99), near the %.0f ms line", figure * 1e3,
        LIMITS_LATE_NS / 1e6);
}

static void say_client_lag(struct words *w, uint32_t server, double figure)
{
    const struct limits *l = w->l;
    (void)server;
    say(w,
        "%llu request%s (%.2f%% of those due) fell due while %s socket was free and %s never "
        "sent, near the line of none",
        (unsigned long long)l->client_lag, l->client_lag == 1 ? "" : "s", figure * 100,
        l->client_lag == 1 ? "its" : "their", l->client_lag == 1 ? "was" : "were");
}

static void say_slap_tail(struct words *w, uint32_t server, double figure)
{
    (void)server;
    say(w,
        "%.1f%% of the requests at or above the P99 were mostly slap late to send, near the "
        "%.0f%% line",
        pct_tenth(figure), LIMITS_SLAP_TAIL * 100);
}

static void say_occupied(struct words *w, uint32_t server, double figure)
{
    (void)server;
    say(w, "%.1f%% of the possible requests were in flight, near the %.0f%% line",
        pct_tenth(figure), LIMITS_OCCUPIED * 100);
}

/* What the proxy said of its backends, when it reported trouble. */
/* The figure near its line, in words: a case for every line (-Wswitch: no default hides one). */
static void say_line(struct words *w, enum limits_line line, uint32_t server, double figure)
{
    switch (line) {
    case LIMITS_LINE_CLIENT_WAIT:
        say_client_wait(w, server, figure);
        break;
    case LIMITS_LINE_SERVER_WAIT:
        say_server_wait(w, server, figure);
        break;
    case LIMITS_LINE_CLIENT_DEMAND:
        say_client_demand(w, server, figure);
        break;
    case LIMITS_LINE_CLIENT_SHARE:
        say_client_share(w, server, figure);
        break;
    case LIMITS_LINE_SERVER_BUSY:
        say_server_busy(w, server, figure);
        break;
    case LIMITS_LINE_RATE_MET:
        say_rate_met(w, server, figure);
        break;
    case LIMITS_LINE_LATE:
        say_late(w, server, figure);
        break;
    case LIMITS_LINE_CLIENT_LAG:
        say_client_lag(w, server, figure);
        break;
    case LIMITS_LINE_SLAP_TAIL:
        say_slap_tail(w, server, figure);
        break;
    case LIMITS_LINE_OCCUPIED:
        say_occupied(w, server, figure);
        break;
    case LIMITS_LINES:
        break;
    }
}

static void say_proxy(struct words *w)
{
    const struct limits *l = w->l;
    const struct proxy_stats *d = &l->proxy.delta;
    double trouble =
        d->server_err + d->server_timedout + d->server_eof + d->server_ejects + d->forward_error;
    if (!l->proxy.known || trouble <= 0) {
        return;
    }
    say(w,
        "; the proxy %s reported backend errors (%.0f), time-outs (%.0f), closes (%.0f), "
        "ejections (%.0f) and forward errors (%.0f)",
        l->proxy.name, d->server_err, d->server_timedout, d->server_eof, d->server_ejects,
        d->forward_error);
}

static void judge_words(struct words *w, uint32_t unknown)
{
    const struct limits *l = w->l;
    const struct limits_server *busiest = limits_busiest_server(l, &unknown);
    bool server = busiest != NULL && busiest->busy >= LIMITS_SATURATED;
    if (limits_starved(l) && l->verdict != LIMITS_RATE) {
        why_starved(w, busiest, server, unknown);
        return;
    }
    if (limits_slap_tail(l) && (l->verdict == LIMITS_CLIENT || l->verdict == LIMITS_BOTH)) {
        why_slap_tail(w, busiest, server);
        return;
    }
    if (limits_starved_server(l) != NULL) {
        why_server_starved(w, limits_starved_server(l));
        return;
    }
    switch (l->verdict) {
    case LIMITS_BOTH:
        say_client(w);
        say(w, ", and ");
        say_server(w, busiest);
        say(w, ": both sides near saturation, the figures measure the pair");
        say_host(w);
        break;
    case LIMITS_SERVER:
        say_server(w, busiest);
        say(w, " (");
        say_client(w);
        say(w, "): the figures measure %s",
            busiest->from_proc ? "that server, a proxy's limit"
            : busiest->backend ? "that backend, behind a proxy"
                               : "the server");
        break;
    case LIMITS_CLIENT:
        if (l->client_lag > 0) {
            why_late(w);
        } else if (limits_client_saturated(l)) {
            why_client(w, unknown);
        } else {
            why_neither(w, busiest);
        }
        break;
    case LIMITS_RATE:
        why_rate(w, busiest, unknown);
        break;
    case LIMITS_UNKNOWN:
        say_client(w);
        say(w,
            ", so slap was not the limit; the load of %s is unknown (no stats): this verdict "
            "is about the client only",
            first_unknown(l));
        break;
    case LIMITS_LATENCY:
        why_neither(w, busiest);
        break;
    }
}

void limits_say(const struct limits *l, char *buf, size_t len)
{
    struct words words = {l, buf, len};
    struct words *w = &words;
    uint32_t unknown;
    if (len == 0) {
        return;
    }
    buf[0] = '\0';
    limits_busiest_server(l, &unknown);
    if (limits_unanswered(l)) {
        say(w, "the server left %llu of the %llu requests due unanswered",
            (unsigned long long)l->silent, (unsigned long long)l->due);
        if (l->stopped) {
            say(w, ", every connection awaiting it at the end");
        } else if (l->stalled > 0) {
            say(w, ", %u connection%s awaiting it at the end", l->stalled,
                l->stalled == 1 ? "" : "s");
        } else if (l->down > 0) {
            say(w, ", %u connections lost and not open again at the end", l->down);
        }
        say(w, ": it stopped answering, so the run measured no limit of the load, and none "
               "of slap");
        return;
    }
    if (l->borderline.near && l->borderline.which != LIMITS_LINES) {
        say(w, "borderline with %s: ", limits_verdict_name(l->borderline.with));
        say_line(w, l->borderline.which, l->borderline.server, l->borderline.value);
        say(w, "; ");
    }
    judge_words(w, unknown);
    say_proxy(w);
    if (l->target_tps > 0 && l->latency_p99_s > 0 && !limits_slap_tail(l)) {
        say(w, "; ");
        say_parts(w);
    }
    if (l->own_known) { /* measured, not inferred: what the load host added to each latency */
        say(w,
            "; slap's own delay (kernel arrival to its read, left out of the latencies) was "
            "%.0f%% of the mean latency to its read, p99 %.0f us",
            l->own_share * 100, l->own_p99_s * 1e6);
    }
}

const char *limits_why(const struct limits *l, char *buf, size_t len)
{
    if (l->read_why[0] != '\0') { /* read back from a results file: its own words */
        return l->read_why;
    }
    limits_say(l, buf, len);
    return buf;
}

static void print_server(FILE *out, const struct limits_server *s, bool show_label)
{
    char by[LIMITS_LABEL_MAX + 16] = "";
    if (show_label && s->label[0] != '\0') {
        snprintf(by, sizeof(by), ", read by %s", s->label);
    }
    if (s->backend) {
        snprintf(by + strlen(by), sizeof(by) - strlen(by), ", a backend");
    }
    if (!s->known) {
        fprintf(out, "server_cpu_unknown: %s (%s%s)\n", s->name, s->note, by);
    } else if (s->from_proc) {
        fprintf(out,
                "server_cpu_s: %s %.2f (%.0f threads, busiest thread busy %.2f; pid %d, from "
                "/proc%s%s%s)\n",
                s->name, s->cpu_s, s->threads, s->busy, s->pid, s->note[0] != '\0' ? "; " : "",
                s->note, by);
    } else if (s->threads > 0) {
        fprintf(out, "server_cpu_s: %s %.2f (%.0f threads, busy %.2f%s)\n", s->name, s->cpu_s,
                s->threads, s->busy, by);
    } else {
        fprintf(out, "server_cpu_s: %s %.2f (threads unknown, busy %.2f of one CPU%s)\n", s->name,
                s->cpu_s, s->busy, by);
    }
}

static void print_proxy(FILE *out, const struct limits_proxy *p)
{
    const struct proxy_stats *d = &p->delta;
    if (p->name[0] == '\0') {
        return;
    }
    if (!p->known) {
        fprintf(out, "proxy_stats_unknown: %s (%s)\n", p->name, p->note);
        return;
    }
    fprintf(out,
            "proxy_stats: %s requests %.0f responses %.0f server_err %.0f server_timedout "
            "%.0f server_eof %.0f server_ejects %.0f forward_error %.0f client_err %.0f "
            "in_queue %.0f out_queue %.0f%s%s%s\n",
            p->name, d->requests, d->responses, d->server_err, d->server_timedout, d->server_eof,
            d->server_ejects, d->forward_error, d->client_err, d->in_queue, d->out_queue,
            p->partial ? " (" : "", p->partial ? p->note : "", p->partial ? ")" : "");
}

void limits_print(FILE *out, const struct limits *l)
{
    const struct limits_client *c = &l->client;
    bool labels = false;
    for (uint32_t i = 1; i < l->nservers; i++) {
        labels = labels || strcmp(l->servers[i].label, l->servers[0].label) != 0;
    }
    fprintf(out, "client_cpu_user_s: %.2f\n", c->cpu_user_s);
    fprintf(out, "client_cpu_sys_s: %.2f\n", c->cpu_sys_s);
    fprintf(out, "client_busy: %.2f (busiest thread %.2f, %u thread%s)\n", c->busy_mean,
            c->busy_max, c->threads, c->threads == 1 ? "" : "s");
    if (c->wait_known) {
        fprintf(out, "client_cpu_wait: %.2f (thread max %.2f)\n", c->wait_mean, c->wait_max);
    }
    if (c->cpus > 0) {
        fprintf(out, "client_cpus: %.4g (used %.2f of them)\n", c->cpus, c->cpu_share);
    }
    if (l->host.known) {
        fprintf(out, "host_cpu_busy: %.2f (%u CPU%s, every process)\n", l->host.busy, l->host.cpus,
                l->host.cpus == 1 ? "" : "s");
    }
    for (uint32_t i = 0; i < l->nservers; i++) {
        print_server(out, &l->servers[i], labels);
        if (l->servers[i].wait_known) {
            fprintf(out, "server_cpu_wait: %s %.2f (thread max; pid %d)\n", l->servers[i].name,
                    l->servers[i].wait_max, l->servers[i].pid);
        }
    }
    print_proxy(out, &l->proxy);
    if (l->in_flight_max > 0) {
        fprintf(out, "in_flight: %.1f (of %u possible: requests per second x mean latency)\n",
                l->in_flight_mean, l->in_flight_max);
    }
    char why[LIMITS_WHY_MAX];
    fprintf(out, "limited_by: %s (%s)\n", limits_verdict_name(l->verdict),
            limits_why(l, why, sizeof(why)));
}
