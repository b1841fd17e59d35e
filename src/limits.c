/*
 * What limited a run: slap's own CPU, the servers' CPU, and the verdict drawn from them.
 *
 *   the -P target met (or a trace's times) ──────────────> rate
 *   slap's busiest thread ≥ LIMITS_SATURATED and a server's ≥ it ──> both
 *   a server's threads ≥ LIMITS_SATURATED ────────────────> server
 *   slap's busiest thread ≥ LIMITS_SATURATED ─────────────> client
 *   neither, but a server's load unknown ─────────────────> unknown (about the client only)
 *   neither ──────────────────────────────────────────────> latency (too few clients)
 *
 * slap's saturation is the busiest thread's CPU time plus its time waiting for a CPU (a
 * thread that always had work, whether it got a CPU or not, never waited on the network).
 */
#include "slap/limits.h"

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
                              const struct server_stats_pair *p)
{
    memset(s, 0, sizeof(*s));
    snprintf(s->name, sizeof(s->name), "%s", name);
    snprintf(s->label, sizeof(s->label), "%s", label != NULL ? label : "");
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
    s->busy = s->cpu_s / (s->seconds * (s->threads > 0 ? s->threads : 1));
}

const char *limits_verdict_name(enum limits_verdict v)
{
    static const char *const names[] = {"server", "client", "both", "rate", "latency", "unknown"};
    return (size_t)v < SLAP_ARRAY_SIZE(names) ? names[v] : "unknown";
}

/* A share in whole percent, rounded down: 84% never reads as the 85% of saturation. */
static int pct(double share)
{
    return share > 0 ? (int)(share * 100.0) : 0;
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

/* "the servers (busiest 12%)" or "the servers (load unknown)": for the verdicts' words. */
static void servers_words(char *out, size_t len, const struct limits_server *busiest)
{
    if (busiest == NULL) {
        snprintf(out, len, "the servers (load unknown)");
    } else {
        snprintf(out, len, "the servers (busiest %s %d%%)", busiest->name, pct(busiest->busy));
    }
}

static void why_client(struct limits *l, uint32_t unknown)
{
    const struct limits_client *c = &l->client;
    const char *only = unknown > 0 ? "; the load of some servers is unknown (no stats): this "
                                     "verdict is about the client only"
                                   : "";
    if (c->wait_known && c->wait_max >= LIMITS_STARVED) {
        snprintf(l->why, sizeof(l->why),
                 "slap's busiest thread ran %d%% and waited for a CPU %d%% of the run: the "
                 "figures measure slap, not the server; slap is short of CPU (other processes "
                 "or a CPU quota): give it more CPU, then raise -T (now %u)%s",
                 pct(c->busy_max), pct(c->wait_max), l->threads, only);
        return;
    }
    snprintf(l->why, sizeof(l->why),
             "slap's busiest thread was busy %d%% of the run: the figures measure slap, not the "
             "server; raise -T (now %u) if slap has idle CPUs, or run slap on more hosts%s",
             pct(c->demand_max), l->threads, only);
}

static void why_neither(struct limits *l, const struct limits_server *busiest, uint32_t unknown)
{
    char servers[SERVER_NAME_MAX + 64];
    int client = pct(l->client.demand_max);
    servers_words(servers, sizeof(servers), busiest);
    if (l->verdict == LIMITS_UNKNOWN) {
        snprintf(l->why, sizeof(l->why),
                 "slap's busiest thread was busy %d%%, so slap was not the limit; the load of %s "
                 "is unknown (no stats): this verdict is about the client only",
                 client, first_unknown(l));
    } else if (l->verdict == LIMITS_RATE && l->target_tps > 0) {
        snprintf(l->why, sizeof(l->why),
                 "the -P target of %.0f ops/s was met (%.0f achieved): the rate set the load; "
                 "slap's busiest thread was busy %d%%, %s%s",
                 l->target_tps, l->achieved_tps, client, servers,
                 unknown > 0 ? ", some servers' load unknown" : "");
    } else if (l->verdict == LIMITS_RATE) {
        snprintf(l->why, sizeof(l->why),
                 "the trace's own times set the rate: neither slap (busiest thread %d%%) nor %s "
                 "were near saturation",
                 client, servers);
    } else if (l->target_tps > 0) {
        snprintf(l->why, sizeof(l->why),
                 "the -P target of %.0f ops/s was not met (%.0f achieved) though neither slap "
                 "(busiest thread %d%%) nor %s were near saturation: too few clients (-c %u) "
                 "for the latency; raise -c",
                 l->target_tps, l->achieved_tps, client, servers, l->concurrency);
    } else {
        snprintf(l->why, sizeof(l->why),
                 "neither slap (busiest thread %d%%) nor %s were near saturation: too few "
                 "clients (-c %u) for the latency, each waits for its answers; raise -c",
                 client, servers, l->concurrency);
    }
    size_t used = strlen(l->why);
    if (l->verdict != LIMITS_RATE && l->client.wait_known && l->client.wait_max >= LIMITS_STARVED) {
        snprintf(l->why + used, sizeof(l->why) - used,
                 "; but slap's threads waited for a CPU up to %d%% of the run (other processes "
                 "took it): the figures are uncertain, run again on a quieter machine",
                 pct(l->client.wait_max));
    }
}

static enum limits_verdict decide(const struct limits *l, const struct limits_server *busiest,
                                  uint32_t unknown)
{
    bool client = l->client.demand_max >= LIMITS_SATURATED;
    bool server = busiest != NULL && busiest->busy >= LIMITS_SATURATED;
    bool rate_met = l->target_tps > 0 && l->achieved_tps >= LIMITS_RATE_MET * l->target_tps;
    if (rate_met || (l->paced_by_trace && !client && !server)) {
        return LIMITS_RATE;
    }
    if (client && server) {
        return LIMITS_BOTH;
    }
    if (server || client) {
        return server ? LIMITS_SERVER : LIMITS_CLIENT;
    }
    return unknown > 0 ? LIMITS_UNKNOWN : LIMITS_LATENCY;
}

void limits_judge(struct limits *l)
{
    uint32_t unknown;
    const struct limits_server *busiest = busiest_server(l, &unknown);
    l->verdict = decide(l, busiest, unknown);
    switch (l->verdict) {
    case LIMITS_BOTH:
        snprintf(l->why, sizeof(l->why),
                 "slap's busiest thread was busy %d%% and %s's threads %d%% of the run: both "
                 "sides near saturation, the figures measure the pair",
                 pct(l->client.demand_max), busiest->name, pct(busiest->busy));
        break;
    case LIMITS_SERVER:
        snprintf(l->why, sizeof(l->why),
                 "%s's threads were busy %d%% of the run (slap's busiest thread %d%%): the "
                 "figures measure the server",
                 busiest->name, pct(busiest->busy), pct(l->client.demand_max));
        break;
    case LIMITS_CLIENT:
        why_client(l, unknown);
        break;
    default:
        why_neither(l, busiest, unknown);
        break;
    }
}

static void print_server(FILE *out, const struct limits_server *s, bool show_label)
{
    char by[LIMITS_LABEL_MAX + 16] = "";
    if (show_label && s->label[0] != '\0') {
        snprintf(by, sizeof(by), ", read by %s", s->label);
    }
    if (!s->known) {
        fprintf(out, "server_cpu_unknown: %s (%s%s)\n", s->name, s->note, by);
    } else if (s->threads > 0) {
        fprintf(out, "server_cpu_s: %s %.2f (%.0f threads, busy %.2f%s)\n", s->name, s->cpu_s,
                s->threads, s->busy, by);
    } else {
        fprintf(out, "server_cpu_s: %s %.2f (threads unknown, busy %.2f of one CPU%s)\n", s->name,
                s->cpu_s, s->busy, by);
    }
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
    for (uint32_t i = 0; i < l->nservers; i++) {
        print_server(out, &l->servers[i], labels);
    }
    fprintf(out, "limited_by: %s (%s)\n", limits_verdict_name(l->verdict), l->why);
}

bool limits_verdict_parse(const char *name, enum limits_verdict *v)
{
    for (int i = LIMITS_SERVER; name != NULL && i <= LIMITS_UNKNOWN; i++) {
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
    } else {
        add_client(&into->client, &from->client);
    }
    return SLAP_OK;
}
