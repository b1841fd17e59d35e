/*
 * What limited a run: slap's own CPU, the servers' CPU, and the verdict drawn from them.
 * The rules, in order (README "What limited the run" has them as a table):
 *
 *   slap's threads waited for a CPU ≥ LIMITS_STARVED of the run ─────> client (both if a
 *                                               server was saturated too): the host's CPU
 *   -P: the P99 tail mostly slap late to send (≥ LIMITS_SLAP_TAIL) ─> client (both if a
 *                                               server was saturated or starved too)
 *   -P: requests fell due while their socket was free, never sent ───> client (the schedule)
 *   the -P target met (or a trace's times), neither side saturated ─> rate
 *   slap saturated and a server too ─────────────────────────────────> both
 *   a server's threads ≥ LIMITS_SATURATED ───────────────────────────> server
 *   slap saturated (a thread's busy + wait, or its CPUs) ────────────> client
 *   neither, but a server's load unknown ────────────────────────────> unknown
 *   neither, requests in flight ≥ LIMITS_OCCUPIED of possible ───────> latency (raise -c)
 *   neither, fewer in flight ────────────────────────────────────────> client (its turnaround)
 *
 * Requests in flight come from Little's law: requests per second × mean latency, against
 * what slap may have in flight (-c × -n × --pipeline). "Busy" is always a share of time on a
 * CPU; the time a thread waited for one is named as such.
 *
 * Borderline: each rule compares a figure with a line. A figure within its band of its line
 * (LIMITS_BAND_*: about two standard deviations of its spread over identical runs) is moved
 * to the line's other side and the rules applied again; if the verdict changes, it stays the
 * same word, and its words begin with the other verdict and the figure ("borderline with
 * both: slap's threads waited for a CPU 9.6% of the run, near the 10% line; ...").
 */
#include "slap/engine/limits.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum slap_status limits_init(struct limits *l, uint32_t nservers)
{
    memset(l, 0, sizeof(*l));
    l->verdict = LIMITS_UNKNOWN;
    if (nservers == 0) {
        return SLAP_OK;
    }
    l->servers = calloc(nservers, sizeof(*l->servers));
    l->nservers = l->servers != NULL ? nservers : 0;
    return l->servers != NULL ? SLAP_OK : SLAP_ERROR;
}

void limits_free(struct limits *l)
{
    free(l->servers);
    l->servers = NULL;
    l->nservers = 0;
}

void limits_server_from_stats(struct limits_server *s, const char *name, const char *label,
                              const struct server_stats_pair *p, uint32_t host_cpus)
{
    memset(s, 0, sizeof(*s));
    snprintf(s->name, sizeof(s->name), "%s", name);
    snprintf(s->label, sizeof(s->label), "%s", label != NULL ? label : "");
    s->local = host_cpus > 0;
    if (!p->ok || p->after_ns <= p->before_ns) {
        snprintf(s->note, sizeof(s->note), "%s", p->ok ? "stats not read" : p->note);
        return;
    }
    s->known = true;
    s->cpu_s = (p->after.rusage_user - p->before.rusage_user) +
               (p->after.rusage_system - p->before.rusage_system);
    s->cpu_s = s->cpu_s > 0 ? s->cpu_s : 0;
    s->threads = p->after.threads;
    s->seconds = (double)(p->after_ns - p->before_ns) / (double)SLAP_NS_PER_SEC;
    double cpus = s->threads > 0 ? s->threads : 1;
    if (host_cpus > 0 && cpus > host_cpus) {
        cpus = host_cpus; /* four threads on two CPUs are saturated at two CPUs' worth */
    }
    s->busy = s->cpu_s / (s->seconds * cpus);
}

void limits_server_from_proc(struct limits_server *s, const char *name, const char *label,
                             int pid, double cpu_s, double busiest, uint32_t threads,
                             double seconds)
{
    struct limits_server from = {0};
    memcpy(from.note, s->note, sizeof(from.note)); /* the line still says why */
    *s = from;
    snprintf(s->name, sizeof(s->name), "%s", name);
    snprintf(s->label, sizeof(s->label), "%s", label != NULL ? label : "");
    s->known = true;
    s->local = true;
    s->pid = pid;
    s->from_proc = true;
    s->cpu_s = cpu_s;
    s->threads = threads;
    s->seconds = seconds;
    s->busy = busiest; /* a proxy's event loop is one thread: the busiest one is the limit */
}

#define VERDICT_FITS(id, word)                                                                     \
    _Static_assert(sizeof(word) <= LIMITS_VERDICT_WORD_MAX, "verdict " word " is too long");
LIMITS_VERDICT_ROWS(VERDICT_FITS)
#undef VERDICT_FITS

bool limits_slap_short(const struct limits *l)
{
    return l->client.demand_max >= LIMITS_SATURATED ||
           (l->client.wait_known && l->client.wait_max >= LIMITS_STARVED);
}

const char *limits_verdict_name(enum limits_verdict v)
{
#define VERDICT_WORD(id, word) [id] = word,
    static const char *const names[] = {LIMITS_VERDICT_ROWS(VERDICT_WORD)};
#undef VERDICT_WORD
    return (size_t)v < SLAP_ARRAY_SIZE(names) ? names[v] : "unknown";
}

/* A share in whole percent, rounded down: 84% never reads as the 85% of saturation. A share
 * no int holds (a server's figures past belief) is INT_MAX, not a conversion's overflow. */
static int pct(double share)
{
    return share > 0 ? (share * 100.0 < INT_MAX ? (int)(share * 100.0) : INT_MAX) : 0;
}

/* The known server whose threads were the busiest, or NULL; how many are unknown. */
static const struct limits_server *busiest_server(const struct limits *l, uint32_t *unknown)
{
    const struct limits_server *best = NULL;
    *unknown = 0;
    for (uint32_t i = 0; i < l->nservers; i++) {
        const struct limits_server *s = &l->servers[i];
        if (!s->known) {
            (*unknown)++;
        } else if (best == NULL || s->busy > best->busy) {
            best = s;
        }
    }
    return best;
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

static bool starved(const struct limits *l)
{
    return l->client.wait_known && l->client.wait_max >= LIMITS_STARVED;
}

/* The server on slap's host whose threads waited longest for a CPU, at LIMITS_STARVED or more:
 * the host's CPU limited it. NULL when none did. */
static const struct limits_server *starved_server(const struct limits *l)
{
    const struct limits_server *worst = NULL;
    for (uint32_t i = 0; i < l->nservers; i++) {
        const struct limits_server *s = &l->servers[i];
        if (s->wait_known && s->wait_max >= LIMITS_STARVED &&
            (worst == NULL || s->wait_max > worst->wait_max)) {
            worst = s;
        }
    }
    return worst;
}

static bool client_saturated(const struct limits *l)
{
    return l->client.demand_max >= LIMITS_SATURATED ||
           (l->client.cpus > 0 && l->client.cpu_share >= LIMITS_SATURATED);
}

/* Appends printf-style words to the verdict's. */
static void say(struct limits *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct limits *l, const char *fmt, ...)
{
    size_t used = strlen(l->why);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->why + used, sizeof(l->why) - used, fmt, ap);
    va_end(ap);
}

/* "slap's busiest thread was on a CPU 18% of the run and waited for one 62%" */
static void say_client_as(struct limits *l, const char *who)
{
    const struct limits_client *c = &l->client;
    say(l, "%s busiest thread was on a CPU %d%% of the run", who, pct(c->busy_max));
    if (c->wait_known) {
        say(l, " and waited for one %d%%", pct(c->wait_max));
    }
    if (c->cpus > 0) {
        say(l, ", the process used %d%% of the %.4g CPU%s it may use", pct(c->cpu_share), c->cpus,
            c->cpus == 1 ? "" : "s");
    }
}

static void say_client(struct limits *l)
{
    say_client_as(l, "slap's");
}

/* "10.0.0.1:11211's threads were busy 97% of the run", or a proxy's busiest thread. */
static void say_server(struct limits *l, const struct limits_server *s)
{
    if (s->from_proc) {
        say(l, "%s's busiest thread was busy %d%% of the run (pid %d, from /proc: it answers no "
               "stats)",
            s->name, pct(s->busy), s->pid);
    } else {
        say(l, "%s's threads were busy %d%% of the run%s", s->name, pct(s->busy),
            s->backend ? " (a backend)" : "");
    }
}

/* "the servers (busiest 10.0.0.1:11211 12%)" or "the servers (load unknown)" */
static void say_servers(struct limits *l, const struct limits_server *busiest)
{
    if (busiest == NULL) {
        say(l, "the servers (load unknown)");
    } else {
        say(l, "the servers (busiest %s %d%%)", busiest->name, pct(busiest->busy));
    }
}

/* The host's CPUs, when they were near saturation, and who shares them. */
static void say_host(struct limits *l)
{
    const struct limits_server *local = first_local(l);
    if (!l->host.known || l->host.busy < LIMITS_SATURATED) {
        return;
    }
    say(l, "; this host's %u CPU%s were %d%% busy", l->host.cpus, l->host.cpus == 1 ? "" : "s",
        pct(l->host.busy));
    if (local != NULL) {
        say(l, ", shared by slap and %s", local->name);
    }
}

static bool slap_tail(const struct limits *l)
{
    return l->target_tps > 0 && l->slap_tail_share >= LIMITS_SLAP_TAIL;
}

/* A time for the words: "45.2 ms", "440 us". */
static void say_time(struct limits *l, double seconds)
{
    if (seconds >= 1e-3) {
        say(l, "%.1f ms", seconds * 1e3);
    } else {
        say(l, "%.0f us", seconds * 1e6);
    }
}

/* "P99 45.2 ms: slap late to send 27.6 ms, held by the server 0 us, network and server
 * 440 us (each part's own P99)" */
static void say_parts(struct limits *l)
{
    say(l, "P99 ");
    say_time(l, l->latency_p99_s);
    say(l, ": slap late to send ");
    say_time(l, l->slap_late_p99_s);
    say(l, ", held by the server ");
    say_time(l, l->held_p99_s);
    say(l, ", network and server ");
    say_time(l, l->net_p99_s);
    say(l, " (each part's own P99)");
}

/* The host's steal time, when a hypervisor took enough of its CPUs to matter. */
static void say_steal(struct limits *l)
{
    if (l->host.known && l->host.steal >= LIMITS_STEAL) {
        say(l, "; the hypervisor took %d%% of this host's CPU time (steal): slap's threads were "
               "stopped without waiting on this host's run queue",
            pct(l->host.steal));
    }
}

static void why_starved(struct limits *l, const struct limits_server *busiest, bool server,
                        uint32_t unknown)
{
    const struct limits_client *c = &l->client;
    say(l, "slap's threads waited for a CPU up to %d%% of the run (busiest thread on a CPU %d%%): "
           "the load host's CPU limited the run, so the figures measure slap's share of it",
        pct(c->wait_max), pct(c->busy_max));
    if (server) {
        say(l, ", and ");
        say_server(l, busiest);
        say(l, " too");
    }
    const struct limits_server *other = starved_server(l);
    if (other != NULL) {
        say(l, ", and %s's threads waited for one up to %d%% too", other->name,
            pct(other->wait_max));
    }
    say_host(l);
    say(l, "; give slap CPUs of its own (stop other load, lift a CPU quota, pin the server "
           "apart with taskset)");
    if (c->cpus > 0 && l->threads > 1 && l->threads > c->cpus + 0.5) {
        say(l, ", and use no more threads (-T %u) than the %.4g CPU%s slap may use", l->threads,
            c->cpus, c->cpus == 1 ? "" : "s");
    }
    say(l, ", then run again");
    if (l->client_lag > 0) {
        say(l, "; slap could not keep the -P schedule: %llu requests fell due while their socket "
               "was free and were never sent, sends were up to %.1f ms late (P99)",
            (unsigned long long)l->client_lag, l->send_lag_p99_s * 1e3);
    }
    if (slap_tail(l)) {
        say(l, "; %d%% of the requests at or above the P99 were mostly slap's own lateness (",
            pct(l->slap_tail_share));
        say_parts(l);
        say(l, ")");
    }
    if (unknown > 0 && !server) {
        say(l, "; the load of %s is unknown (no stats): this verdict is about the client only",
            first_unknown(l));
    }
}

/* A server on slap's host waited for a CPU: the host's CPU limited it, not its own work. */
static void why_server_starved(struct limits *l, const struct limits_server *s)
{
    say(l, "%s's threads waited for a CPU up to %d%% of the run (pid %d; ", s->name,
        pct(s->wait_max), s->pid);
    say_client(l);
    say(l, "): the load host's CPU limited the server, so the figures measure its share of it");
    say_host(l);
    say(l, "; give the server CPUs of its own (stop other load, pin slap apart with taskset), "
           "then run again");
}

/* The tail was slap's lateness: the words say how much, why it may be, and what to do. */
static void why_slap_tail(struct limits *l, const struct limits_server *busiest, bool server)
{
    say(l, "slap was late to send: %d%% of the requests at or above the P99 were mostly slap's "
           "own lateness (",
        pct(l->slap_tail_share));
    say_parts(l);
    say(l, "), so the tail measures slap, not the server; ");
    say_client(l);
    if (server) {
        say(l, ", and ");
        say_server(l, busiest);
        say(l, " too");
    }
    say_steal(l);
    say_host(l);
    say(l, "; run slap on CPUs of its own (fewer threads than CPUs, -T now %u; taskset to pin it "
           "apart from the server and other work), on a host with less other work",
        l->threads);
    if (!l->own_known) {
        say(l, ", and --timestamps=kernel to keep its late reads out of the latencies");
    }
    if (l->client_lag > 0) {
        say(l, "; %llu requests fell due while their socket was free and were never sent",
            (unsigned long long)l->client_lag);
    }
}

static void why_late(struct limits *l)
{
    say(l, "slap could not keep the -P schedule: %llu requests fell due while their socket was "
           "free and were never sent, sends were up to %.1f ms late (P99): the figures measure "
           "slap's lag; ",
        (unsigned long long)l->client_lag, l->send_lag_p99_s * 1e3);
    say_client(l);
    say(l, "; give it more CPU or raise -T (now %u)", l->threads);
}

/* What the open loop's target is called in the verdict's words. */
static const char *target_name(const struct limits *l)
{
    return l->ramped ? "--ramp's mean target" : "-P target";
}

static void why_rate(struct limits *l, const struct limits_server *busiest, uint32_t unknown)
{
    if (l->target_tps > 0) {
        say(l, "the %s of %.0f ops/s was met (%.0f achieved): the rate set the load; ",
            target_name(l), l->target_tps, l->achieved_tps);
        say_client(l);
        say(l, "; ");
        say_servers(l, busiest);
        say(l, "%s", unknown > 0 ? ", some servers' load unknown" : "");
        if (starved(l)) {
            say(l, "; but slap's threads waited for a CPU up to %d%% of the run: the latencies "
                   "include that wait (the load host's CPU); give slap CPUs of its own for "
                   "the server's own figures",
                pct(l->client.wait_max));
        }
        return;
    }
    say(l, "the trace's own times set the rate: neither slap (");
    say_client_as(l, "its");
    say(l, ") nor ");
    say_servers(l, busiest);
    say(l, " were near saturation");
}

static void why_client(struct limits *l, uint32_t unknown)
{
    say_client(l);
    say(l, ": the figures measure slap, not the server; raise -T (now %u) if slap has idle "
           "CPUs, or run slap on more hosts",
        l->threads);
    if (unknown > 0) {
        say(l, "; the load of some servers is unknown (no stats): this verdict is about the "
               "client only");
    }
}

/* Little's law: whether more requests in flight would have raised the rate. */
static bool occupied(const struct limits *l)
{
    return l->in_flight_max == 0 || l->in_flight_mean >= LIMITS_OCCUPIED * l->in_flight_max;
}

static void why_neither(struct limits *l, const struct limits_server *busiest)
{
    say(l, "neither slap (");
    say_client_as(l, "its");
    say(l, ") nor ");
    say_servers(l, busiest);
    say(l, " were near saturation, ");
    if (!occupied(l)) {
        say(l, "yet slap kept only %.1f of its %u possible requests in flight on average (rate "
               "x latency): its own time between an answer and the next request limited the "
               "run, not the clients' number; raise -T, or run slap on more hosts",
            l->in_flight_mean, l->in_flight_max);
        return;
    }
    if (l->target_tps > 0) {
        say(l, "and the %s of %.0f ops/s was not met (%.0f achieved): ", target_name(l),
            l->target_tps, l->achieved_tps);
    }
    say(l, "%.1f of the %u possible requests were in flight on average (rate x latency): too "
           "few clients (-c %u) for the latency, each waits for its answers; raise -c",
        l->in_flight_mean, l->in_flight_max, l->concurrency);
}

/*
 * The lines the verdict compares figures with. decide() makes every comparison through
 * crossed(), so that the borderline search can take one of them on its line's other side: the
 * same as moving that figure across its line, and deciding again.
 */
enum limits_line {
    LINE_CLIENT_WAIT,   /* slap's threads' CPU wait, LIMITS_STARVED */
    LINE_SERVER_WAIT,   /* a server's threads' CPU wait, LIMITS_STARVED */
    LINE_CLIENT_DEMAND, /* slap's busiest thread's busy + wait, LIMITS_SATURATED */
    LINE_CLIENT_SHARE,  /* slap's share of the CPUs it may use, LIMITS_SATURATED */
    LINE_SERVER_BUSY,   /* a server's busy share, LIMITS_SATURATED */
    LINE_RATE_MET,      /* -P: achieved / target, LIMITS_RATE_MET */
    LINE_LATE,          /* -P: the P99 send lag, LIMITS_LATE_NS */
    LINE_CLIENT_LAG,    /* -P: requests never sent though their socket was free, none */
    LINE_SLAP_TAIL,     /* -P: the P99 tail's share mostly slap late to send, LIMITS_SLAP_TAIL */
    LINE_OCCUPIED,      /* requests in flight / possible, LIMITS_OCCUPIED */
    LIMITS_LINES,
};

/* The comparisons decide() takes the other way: one (line LIMITS_LINES: none), or every one
 * of the lines in the mask lines (a server's: of the servers in the mask servers, the first
 * 64), for figures that decide only together (slap's demand and its CPU share). */
struct crossing {
    enum limits_line line;
    uint32_t server;
    unsigned lines;
    uint64_t servers;
};

static const struct crossing no_crossing = {LIMITS_LINES, 0, 0, 0};

static bool per_server(enum limits_line line)
{
    return line == LINE_SERVER_WAIT || line == LINE_SERVER_BUSY;
}

/* at (a figure at or past its line), or not at for a comparison x moves across. */
static bool crossed(const struct crossing *x, enum limits_line line, uint32_t server, bool at)
{
    bool one = x->line == line && x->server == server;
    bool joint = (x->lines & (1u << line)) != 0 &&
                 (!per_server(line) || (server < 64 && ((x->servers >> server) & 1u) != 0));
    return one || joint ? !at : at;
}

/* Some known server's busy share at LIMITS_SATURATED or more (the busiest's, unmoved). */
static bool any_server_saturated(const struct limits *l, const struct crossing *x)
{
    bool any = false;
    for (uint32_t i = 0; i < l->nservers; i++) {
        const struct limits_server *s = &l->servers[i];
        any = any || (s->known && crossed(x, LINE_SERVER_BUSY, i, s->busy >= LIMITS_SATURATED));
    }
    return any;
}

/* Some server on slap's host waited for a CPU LIMITS_STARVED of the run or more. */
static bool any_server_starved(const struct limits *l, const struct crossing *x)
{
    bool any = false;
    for (uint32_t i = 0; i < l->nservers; i++) {
        const struct limits_server *s = &l->servers[i];
        any = any ||
              (s->wait_known && crossed(x, LINE_SERVER_WAIT, i, s->wait_max >= LIMITS_STARVED));
    }
    return any;
}

/* The verdict, with x's comparison taken the other way (no_crossing: as the figures are). */
static enum limits_verdict decide(const struct limits *l, uint32_t unknown,
                                  const struct crossing *x)
{
    const struct limits_client *c = &l->client;
    bool client =
        crossed(x, LINE_CLIENT_DEMAND, 0, c->demand_max >= LIMITS_SATURATED) ||
        (c->cpus > 0 && crossed(x, LINE_CLIENT_SHARE, 0, c->cpu_share >= LIMITS_SATURATED));
    bool server = any_server_saturated(l, x);
    bool rate_met =
        l->target_tps > 0 &&
        crossed(x, LINE_RATE_MET, 0, l->achieved_tps >= LIMITS_RATE_MET * l->target_tps);
    bool lag = crossed(x, LINE_CLIENT_LAG, 0, l->client_lag > 0);
    bool late = crossed(x, LINE_LATE, 0, l->send_lag_p99_s * 1e9 >= LIMITS_LATE_NS);
    bool starved_client =
        c->wait_known && crossed(x, LINE_CLIENT_WAIT, 0, c->wait_max >= LIMITS_STARVED);
    bool starved_servers = any_server_starved(l, x);
    bool slap_tail = l->target_tps > 0 &&
                     crossed(x, LINE_SLAP_TAIL, 0, l->slap_tail_share >= LIMITS_SLAP_TAIL);
    bool occupied_enough =
        l->in_flight_max == 0 ||
        crossed(x, LINE_OCCUPIED, 0, l->in_flight_mean >= LIMITS_OCCUPIED * l->in_flight_max);
    if (starved_client && !(rate_met && !lag && !late)) {
        return server || starved_servers ? LIMITS_BOTH : LIMITS_CLIENT;
    }
    if (slap_tail) { /* what the tail measured was slap's lateness, whatever else was busy */
        return server || starved_servers ? LIMITS_BOTH : LIMITS_CLIENT;
    }
    if (starved_servers) {
        return client ? LIMITS_BOTH : LIMITS_SERVER;
    }
    if (lag && !server) {
        return LIMITS_CLIENT;
    }
    if ((rate_met && !client) || (l->paced_by_trace && !client && !server)) {
        return LIMITS_RATE;
    }
    if (client && server) {
        return LIMITS_BOTH;
    }
    if (server || client) {
        return server ? LIMITS_SERVER : LIMITS_CLIENT;
    }
    if (unknown > 0) {
        return LIMITS_UNKNOWN;
    }
    return occupied_enough ? LIMITS_LATENCY : LIMITS_CLIENT;
}

/* ---- borderline: a deciding figure near its line --------------------------------------- */

/* A share as a percentage rounded down to a tenth: 9.96% reads 9.9%, on the line's near side. */
static double pct_tenth(double share)
{
    return share > 0 ? (double)(long long)(share * 1000.0) / 10.0 : 0;
}

/* One line: the figure it judges (false when not known), its words, its band. */
struct line_row {
    const char *figure; /* as --json names it; per server: "servers[%u]." and this */
    bool per_server;
    double line;
    double band;
    bool (*read)(const struct limits *l, uint32_t server, double *figure);
    void (*say)(struct limits *l, uint32_t server, double figure);
};

static bool read_client_wait(const struct limits *l, uint32_t server, double *figure)
{
    (void)server;
    *figure = l->client.wait_max;
    return l->client.wait_known;
}

static bool read_server_wait(const struct limits *l, uint32_t server, double *figure)
{
    *figure = l->servers[server].wait_max;
    return l->servers[server].wait_known;
}

static bool read_client_demand(const struct limits *l, uint32_t server, double *figure)
{
    (void)server;
    *figure = l->client.demand_max;
    return true;
}

static bool read_client_share(const struct limits *l, uint32_t server, double *figure)
{
    (void)server;
    *figure = l->client.cpu_share;
    return l->client.cpus > 0;
}

static bool read_server_busy(const struct limits *l, uint32_t server, double *figure)
{
    *figure = l->servers[server].busy;
    return l->servers[server].known;
}

static bool read_rate_met(const struct limits *l, uint32_t server, double *figure)
{
    (void)server;
    *figure = l->target_tps > 0 ? l->achieved_tps / l->target_tps : 0;
    return l->target_tps > 0;
}

static bool read_late(const struct limits *l, uint32_t server, double *figure)
{
    (void)server;
    *figure = l->send_lag_p99_s;
    return l->target_tps > 0;
}

/* The share of the requests due that slap held: near only when some were (none is where a
 * run that kept up sits, and one request more is no measure of nearness). */
static bool read_client_lag(const struct limits *l, uint32_t server, double *figure)
{
    double due = l->achieved_tps * l->seconds + (double)l->client_lag;
    (void)server;
    *figure = due > 0 ? (double)l->client_lag / due : 0;
    return l->client_lag > 0;
}

static bool read_slap_tail(const struct limits *l, uint32_t server, double *figure)
{
    (void)server;
    *figure = l->slap_tail_share;
    return l->target_tps > 0;
}

static bool read_occupied(const struct limits *l, uint32_t server, double *figure)
{
    (void)server;
    *figure = l->in_flight_max > 0 ? l->in_flight_mean / l->in_flight_max : 0;
    return l->in_flight_max > 0;
}

static void say_client_wait(struct limits *l, uint32_t server, double figure)
{
    (void)server;
    say(l, "slap's threads waited for a CPU %.1f%% of the run, near the %.0f%% line",
        pct_tenth(figure), LIMITS_STARVED * 100);
}

static void say_server_wait(struct limits *l, uint32_t server, double figure)
{
    say(l, "%s's threads waited for a CPU %.1f%% of the run, near the %.0f%% line",
        l->servers[server].name, pct_tenth(figure), LIMITS_STARVED * 100);
}

static void say_client_demand(struct limits *l, uint32_t server, double figure)
{
    (void)server;
    say(l,
        "slap's busiest thread was on a CPU or waiting for one %.1f%% of the run, near the "
        "%.0f%% line",
        pct_tenth(figure), LIMITS_SATURATED * 100);
}

static void say_client_share(struct limits *l, uint32_t server, double figure)
{
    (void)server;
    say(l, "slap used %.1f%% of the %.4g CPU%s it may use, near the %.0f%% line", pct_tenth(figure),
        l->client.cpus, l->client.cpus == 1 ? "" : "s", LIMITS_SATURATED * 100);
}

static void say_server_busy(struct limits *l, uint32_t server, double figure)
{
    say(l, "%s's %s busy %.1f%% of the run, near the %.0f%% line", l->servers[server].name,
        l->servers[server].from_proc ? "busiest thread was" : "threads were", pct_tenth(figure),
        LIMITS_SATURATED * 100);
}

static void say_rate_met(struct limits *l, uint32_t server, double figure)
{
    (void)server;
    say(l, "%.1f%% of the %s was achieved, near the %.0f%% line", pct_tenth(figure),
        target_name(l), LIMITS_RATE_MET * 100);
}

static void say_late(struct limits *l, uint32_t server, double figure)
{
    (void)server;
    say(l, "sends were up to %.2f ms late (P99), near the %.0f ms line", figure * 1e3,
        LIMITS_LATE_NS / 1e6);
}

static void say_client_lag(struct limits *l, uint32_t server, double figure)
{
    (void)server;
    say(l,
        "%llu request%s (%.2f%% of those due) fell due while %s socket was free and %s never "
        "sent, near the line of none",
        (unsigned long long)l->client_lag, l->client_lag == 1 ? "" : "s", figure * 100,
        l->client_lag == 1 ? "its" : "their", l->client_lag == 1 ? "was" : "were");
}

static void say_slap_tail(struct limits *l, uint32_t server, double figure)
{
    (void)server;
    say(l, "%.1f%% of the requests at or above the P99 were mostly slap late to send, near the "
           "%.0f%% line",
        pct_tenth(figure), LIMITS_SLAP_TAIL * 100);
}

static void say_occupied(struct limits *l, uint32_t server, double figure)
{
    (void)server;
    say(l, "%.1f%% of the possible requests were in flight, near the %.0f%% line",
        pct_tenth(figure), LIMITS_OCCUPIED * 100);
}

static const struct line_row line_rows[] = {
    [LINE_CLIENT_WAIT] = {"client.cpu_wait_max", false, LIMITS_STARVED, LIMITS_BAND_WAIT,
                          read_client_wait, say_client_wait},
    [LINE_SERVER_WAIT] = {"cpu_wait_max", true, LIMITS_STARVED, LIMITS_BAND_WAIT, read_server_wait,
                          say_server_wait},
    [LINE_CLIENT_DEMAND] = {"client.demand_max", false, LIMITS_SATURATED, LIMITS_BAND_BUSY,
                            read_client_demand, say_client_demand},
    [LINE_CLIENT_SHARE] = {"client.cpu_share", false, LIMITS_SATURATED, LIMITS_BAND_BUSY,
                           read_client_share, say_client_share},
    [LINE_SERVER_BUSY] = {"busy", true, LIMITS_SATURATED, LIMITS_BAND_BUSY, read_server_busy,
                          say_server_busy},
    [LINE_RATE_MET] = {"achieved_share", false, LIMITS_RATE_MET, LIMITS_BAND_RATE, read_rate_met,
                       say_rate_met},
    [LINE_LATE] = {"send_lag_p99_s", false, LIMITS_LATE_NS / 1e9, LIMITS_BAND_LATE, read_late,
                   say_late},
    [LINE_CLIENT_LAG] = {"client_lag_share", false, 0, LIMITS_BAND_LAG, read_client_lag,
                         say_client_lag},
    [LINE_SLAP_TAIL] = {"slap_tail_share", false, LIMITS_SLAP_TAIL, LIMITS_BAND_SLAP_TAIL,
                        read_slap_tail, say_slap_tail},
    [LINE_OCCUPIED] = {"in_flight_share", false, LIMITS_OCCUPIED, LIMITS_BAND_OCCUPIED,
                       read_occupied, say_occupied},
};
_Static_assert(SLAP_ARRAY_SIZE(line_rows) == LIMITS_LINES, "a row for every line");

/* Keep line's figure as b's when it is nearer its line (in bands) than nearest so far. */
static void keep_nearest(struct limits_borderline *b, double *nearest, const struct line_row *row,
                         uint32_t server, double figure, enum limits_verdict with)
{
    double off = fabs(figure - row->line) / row->band;
    if (off >= *nearest) {
        return;
    }
    *nearest = off;
    b->near = true;
    b->with = with;
    b->value = figure;
    b->line = row->line;
    b->band = row->band;
    if (row->per_server) {
        snprintf(b->figure, sizeof(b->figure), "servers[%u].%s", server, row->figure);
    } else {
        snprintf(b->figure, sizeof(b->figure), "%s", row->figure);
    }
}

/*
 * No figure alone within its band changes the verdict: all of them moved across their lines at
 * once may (slap's demand and CPU share both near 0.85 decide "slap saturated" together). If
 * so, the nearest of them is named.
 */
static void find_joint(struct limits *l, uint32_t unknown, enum limits_line *line,
                       uint32_t *server)
{
    struct crossing x = {LIMITS_LINES, 0, 0, 0};
    int near = 0;
    for (int id = 0; id < LIMITS_LINES; id++) {
        const struct line_row *row = &line_rows[id];
        uint32_t n = row->per_server ? l->nservers : 1;
        for (uint32_t i = 0; i < n && (!row->per_server || i < 64); i++) {
            double figure;
            if (row->read(l, i, &figure) && fabs(figure - row->line) < row->band) {
                x.lines |= 1u << id;
                x.servers |= row->per_server ? (uint64_t)1 << i : 0;
                near++;
            }
        }
    }
    enum limits_verdict other = near > 1 ? decide(l, unknown, &x) : l->verdict;
    /* only the figures the change needs: each left out in turn when the rest still change it
     * (a send lag near its line beside a saturated slap changes nothing by itself) */
    for (int id = 0; other != l->verdict && id < LIMITS_LINES; id++) {
        struct crossing without = x;
        without.lines &= ~(1u << id);
        if ((x.lines & (1u << id)) != 0 && decide(l, unknown, &without) == other) {
            x = without;
        }
    }
    double nearest = 1.0;
    for (int id = 0; other != l->verdict && id < LIMITS_LINES; id++) {
        const struct line_row *row = &line_rows[id];
        uint32_t n = row->per_server ? l->nservers : 1;
        for (uint32_t i = 0; (x.lines & (1u << id)) != 0 && i < n; i++) {
            double figure;
            double before = nearest;
            if (row->read(l, i, &figure)) {
                keep_nearest(&l->borderline, &nearest, row, i, figure, other);
            }
            if (nearest < before) {
                *line = (enum limits_line)id;
                *server = i;
            }
        }
    }
}

/*
 * Every figure within its band of its line, moved across it: the nearest (in bands) whose move
 * changes the verdict makes it borderline; else all of them moved together (find_joint).
 * Which row and server it was: *line, *server.
 */
static void find_borderline(struct limits *l, uint32_t unknown, enum limits_line *line,
                            uint32_t *server)
{
    struct limits_borderline *b = &l->borderline;
    double nearest = 1.0; /* within the band: less than one band away */
    memset(b, 0, sizeof(*b));
    *line = LIMITS_LINES;
    for (int id = 0; id < LIMITS_LINES; id++) {
        const struct line_row *row = &line_rows[id];
        uint32_t n = row->per_server ? l->nservers : 1;
        for (uint32_t i = 0; i < n; i++) {
            double figure;
            if (!row->read(l, i, &figure) || fabs(figure - row->line) >= row->band * nearest) {
                continue;
            }
            struct crossing x = {(enum limits_line)id, i, 0, 0};
            enum limits_verdict other = decide(l, unknown, &x);
            if (other != l->verdict) {
                keep_nearest(b, &nearest, row, i, figure, other);
                *line = (enum limits_line)id;
                *server = i;
            }
        }
    }
    if (!b->near) {
        find_joint(l, unknown, line, server);
    }
}

/* What the proxy said of its backends, when it reported trouble. */
static void say_proxy(struct limits *l)
{
    const struct proxy_stats *d = &l->proxy.delta;
    double trouble = d->server_err + d->server_timedout + d->server_eof + d->server_ejects +
                     d->forward_error;
    if (!l->proxy.known || trouble <= 0) {
        return;
    }
    say(l, "; the proxy %s reported backend errors (%.0f), time-outs (%.0f), closes (%.0f), "
           "ejections (%.0f) and forward errors (%.0f)",
        l->proxy.name, d->server_err, d->server_timedout, d->server_eof, d->server_ejects,
        d->forward_error);
}

static void judge_words(struct limits *l, uint32_t unknown);

void limits_judge(struct limits *l)
{
    uint32_t unknown, server = 0;
    enum limits_line line;
    busiest_server(l, &unknown);
    l->why[0] = '\0';
    l->borderline = (struct limits_borderline){0};
    if (l->stopped || l->stalled > 0 || l->down > 0 ||
        ((double)l->silent > LIMITS_UNANSWERED * (double)l->due && l->silent > 0)) {
        l->verdict = LIMITS_UNKNOWN; /* nothing about the load, nor about slap, to judge */
        say(l, "the server left %llu of the %llu requests due unanswered",
            (unsigned long long)l->silent, (unsigned long long)l->due);
        if (l->stopped) {
            say(l, ", every connection awaiting it at the end");
        } else if (l->stalled > 0) {
            say(l, ", %u connection%s awaiting it at the end", l->stalled,
                l->stalled == 1 ? "" : "s");
        } else if (l->down > 0) {
            say(l, ", %u connections lost and not open again at the end", l->down);
        }
        say(l, ": it stopped answering, so the run measured no limit of the load, and none "
               "of slap");
        return;
    }
    l->verdict = decide(l, unknown, &no_crossing);
    find_borderline(l, unknown, &line, &server);
    if (l->borderline.near) {
        say(l, "borderline with %s: ", limits_verdict_name(l->borderline.with));
        line_rows[line].say(l, server, l->borderline.value);
        say(l, "; ");
    }
    judge_words(l, unknown);
    say_proxy(l);
    if (l->target_tps > 0 && l->latency_p99_s > 0 && !slap_tail(l)) {
        say(l, "; ");
        say_parts(l);
    }
    if (l->own_known) { /* measured, not inferred: what the load host added to each latency */
        say(l, "; slap's own delay (kernel arrival to its read, left out of the latencies) was "
               "%.0f%% of the mean latency to its read, p99 %.0f us",
            l->own_share * 100, l->own_p99_s * 1e6);
    }
}

static void judge_words(struct limits *l, uint32_t unknown)
{
    const struct limits_server *busiest = busiest_server(l, &unknown);
    bool server = busiest != NULL && busiest->busy >= LIMITS_SATURATED;
    if (starved(l) && l->verdict != LIMITS_RATE) {
        why_starved(l, busiest, server, unknown);
        return;
    }
    if (slap_tail(l) && (l->verdict == LIMITS_CLIENT || l->verdict == LIMITS_BOTH)) {
        why_slap_tail(l, busiest, server);
        return;
    }
    if (starved_server(l) != NULL) {
        why_server_starved(l, starved_server(l));
        return;
    }
    switch (l->verdict) {
    case LIMITS_BOTH:
        say_client(l);
        say(l, ", and ");
        say_server(l, busiest);
        say(l, ": both sides near saturation, the figures measure the pair");
        say_host(l);
        break;
    case LIMITS_SERVER:
        say_server(l, busiest);
        say(l, " (");
        say_client(l);
        say(l, "): the figures measure %s", busiest->from_proc ? "that server, a proxy's limit"
                                           : busiest->backend ? "that backend, behind a proxy"
                                                              : "the server");
        break;
    case LIMITS_CLIENT:
        if (l->client_lag > 0) {
            why_late(l);
        } else if (client_saturated(l)) {
            why_client(l, unknown);
        } else {
            why_neither(l, busiest);
        }
        break;
    case LIMITS_RATE:
        why_rate(l, busiest, unknown);
        break;
    case LIMITS_UNKNOWN:
        say_client(l);
        say(l, ", so slap was not the limit; the load of %s is unknown (no stats): this verdict "
               "is about the client only",
            first_unknown(l));
        break;
    case LIMITS_LATENCY:
        why_neither(l, busiest);
        break;
    }
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
    fprintf(out, "proxy_stats: %s requests %.0f responses %.0f server_err %.0f server_timedout "
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
    fprintf(out, "limited_by: %s (%s)\n", limits_verdict_name(l->verdict), l->why);
}

bool limits_verdict_parse(const char *name, enum limits_verdict *v)
{
    for (int i = 0; name != NULL && i < LIMITS_VERDICTS; i++) {
        if (strcmp(name, limits_verdict_name((enum limits_verdict)i)) == 0) {
            *v = (enum limits_verdict)i;
            return true;
        }
    }
    return false;
}

/* Two hosts' threads as one slap's: CPU and threads added, shares averaged by threads. */
static void add_client(struct limits_client *into, const struct limits_client *from)
{
    uint32_t threads = into->threads + from->threads;
    double weight = threads > 0 ? 1.0 / threads : 0;
    into->cpu_user_s += from->cpu_user_s;
    into->cpu_sys_s += from->cpu_sys_s;
    into->busy_mean = (into->busy_mean * into->threads + from->busy_mean * from->threads) * weight;
    into->wait_mean = (into->wait_mean * into->threads + from->wait_mean * from->threads) * weight;
    into->busy_max = from->busy_max > into->busy_max ? from->busy_max : into->busy_max;
    into->wait_max = from->wait_max > into->wait_max ? from->wait_max : into->wait_max;
    into->demand_max = from->demand_max > into->demand_max ? from->demand_max : into->demand_max;
    into->wait_known = into->wait_known && from->wait_known;
    into->threads = threads;
    if (from->cpu_share > into->cpu_share) { /* the host nearest its CPUs' limit */
        into->cpu_share = from->cpu_share;
        into->cpus = from->cpus;
    }
}

enum slap_status limits_add(struct limits *into, const struct limits *from, bool first)
{
    struct limits_server *servers =
        realloc(into->servers, (into->nservers + from->nservers + 1) * sizeof(*servers));
    if (servers == NULL) {
        return SLAP_ERROR;
    }
    into->servers = servers;
    memcpy(servers + into->nservers, from->servers, from->nservers * sizeof(*servers));
    into->nservers += from->nservers;
    if (first) {
        into->client = from->client;
        into->host = from->host;
        into->proxy = from->proxy; /* the first host's reading: each read the same proxy */
    } else {
        add_client(&into->client, &from->client);
        into->host.known = into->host.known && from->host.known;
        if (from->host.busy > into->host.busy) { /* the busiest host */
            into->host.busy = from->host.busy;
            into->host.cpus = from->host.cpus;
        }
    }
    into->in_flight_max += from->in_flight_max;
    into->in_flight_mean += from->in_flight_mean;
    into->client_lag += from->client_lag;
    into->latency_p99_s = fmax(into->latency_p99_s, from->latency_p99_s);
    into->slap_late_p99_s = fmax(into->slap_late_p99_s, from->slap_late_p99_s);
    into->held_p99_s = fmax(into->held_p99_s, from->held_p99_s);
    into->net_p99_s = fmax(into->net_p99_s, from->net_p99_s);
    into->slap_tail_share = fmax(into->slap_tail_share, from->slap_tail_share);
    into->host.steal = fmax(into->host.steal, from->host.steal);
    if (from->send_lag_p99_s > into->send_lag_p99_s) {
        into->send_lag_p99_s = from->send_lag_p99_s;
    }
    into->own_known = (first || into->own_known) && from->own_known; /* the host with most */
    if (from->own_known && (first || from->own_share > into->own_share)) {
        into->own_share = from->own_share;
        into->own_p99_s = from->own_p99_s;
    }
    return SLAP_OK;
}
