/* What slap reads beside the servers' own stats to judge a run: the CPU of local servers that
 * answer no stats (proxies, from /proc), the backends behind a proxy, and twemproxy's stats. */
#include "slap/engine/watch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/hostcpu.h"
#include "slap/engine/limits_measure.h"

#define BACKEND_LIST_MAX (PROXY_STATS_BACKENDS * SERVER_NAME_MAX)

enum slap_status watch_init(struct watch *w, const char *stats_servers, const char *proxy_stats,
                            uint32_t nservers, char *err, size_t err_len)
{
    char why[512];
    memset(w, 0, sizeof(*w));
    w->nservers = nservers;
    w->procs = calloc(nservers > 0 ? nservers : 1, sizeof(*w->procs));
    if (w->procs == NULL) {
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    if (stats_servers != NULL &&
        servers_open(&w->backends, stats_servers, why, sizeof(why)) != SLAP_OK) {
        snprintf(err, err_len, "--stats_servers: %s", why);
        return SLAP_ERROR;
    }
    if (proxy_stats != NULL && servers_open(&w->proxy, proxy_stats, why, sizeof(why)) != SLAP_OK) {
        snprintf(err, err_len, "--proxy_stats: %s", why);
        return SLAP_ERROR;
    }
    w->backend_stats =
        calloc(w->backends.count > 0 ? w->backends.count : 1, sizeof(*w->backend_stats));
    if (w->backend_stats == NULL) {
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

void watch_free(struct watch *w)
{
    free(w->procs);
    free(w->backend_stats);
    servers_close(&w->backends);
    servers_close(&w->proxy);
    memset(w, 0, sizeof(*w));
}

uint32_t watch_extra(const struct watch *w)
{
    return w->backends.count;
}

/* A name the proxy gives a backend is an address slap can read stats from: host:port. */
static bool address_like(const char *name)
{
    const char *colon = strrchr(name, ':');
    return colon != NULL && colon != name && colon[1] != '\0' &&
           strspn(colon + 1, "0123456789") == strlen(colon + 1);
}

/* The proxy's backends as the backends to read, when none were given. */
static void adopt_backends(struct watch *w)
{
    char list[BACKEND_LIST_MAX], why[512];
    struct proxy_stats usable = w->proxy_before;
    usable.nbackends = 0;
    for (uint32_t i = 0; i < w->proxy_before.nbackends; i++) {
        if (address_like(w->proxy_before.backends[i])) {
            memcpy(usable.backends[usable.nbackends++], w->proxy_before.backends[i],
                   SERVER_NAME_MAX);
        }
    }
    if (w->backends.count > 0 || !proxy_stats_backend_list(&usable, list, sizeof(list)) ||
        servers_open(&w->backends, list, why, sizeof(why)) != SLAP_OK) {
        return;
    }
    free(w->backend_stats);
    w->backend_stats = calloc(w->backends.count, sizeof(*w->backend_stats));
    if (w->backend_stats == NULL) {
        servers_close(&w->backends);
    }
}

/* Turn the proxy's event loop through each -s server whose stats were not read (a proxy's
 * client port: a memcached answers stats), all within one stats time-out. */
static bool turn_proxy(const struct server_list *servers, const struct server_stats_pair *pairs)
{
    uint64_t deadline = slap_now_ns() + SERVER_STATS_TIMEOUT_NS;
    bool turned = false;
    char why[SERVER_STATS_NOTE_MAX];
    for (uint32_t i = 0; pairs != NULL && i < servers->count; i++) {
        if (!pairs[i].ok &&
            proxy_stats_turn(&servers->items[i], deadline, why, sizeof(why)) == SLAP_OK) {
            turned = true;
        }
    }
    return turned;
}

/* The proxy's stats: read, its event loop turned, read again, so that they hold its counters
 * up to now and not as of its last stats interval (see net/proxy_stats.c). */
static void read_proxy(struct watch *w, const struct server_list *servers,
                       const struct server_stats_pair *pairs, bool after)
{
    char why[SERVER_STATS_NOTE_MAX - 40];
    struct proxy_stats *into = after ? &w->proxy_after : &w->proxy_before;
    if (w->proxy.count == 0 || (after && !w->proxy_ok)) {
        return;
    }
    bool read = proxy_stats_read(&w->proxy.items[0], SERVER_STATS_TIMEOUT_NS, into, why,
                                 sizeof(why)) == SLAP_OK;
    if (read && turn_proxy(servers, pairs)) {
        read = proxy_stats_read(&w->proxy.items[0], SERVER_STATS_TIMEOUT_NS, into, why,
                                sizeof(why)) == SLAP_OK;
    }
    if (!read) {
        w->proxy_ok = false;
        snprintf(w->proxy_note, sizeof(w->proxy_note), "not read %s the run: %s",
                 after ? "after" : "before", why);
        return;
    }
    w->proxy_ok = true;
    if (!after) {
        adopt_backends(w);
    }
}

static void read_backends(struct watch *w, bool after)
{
    for (uint32_t i = 0; i < w->backends.count; i++) {
        struct server_stats_pair *p = &w->backend_stats[i];
        char why[SERVER_STATS_NOTE_MAX - 40];
        if ((after && !p->ok) ||
            server_stats_read(&w->backends.items[i], SERVER_STATS_TIMEOUT_NS, NULL, false,
                              after ? &p->after : &p->before, why, sizeof(why)) == SLAP_OK) {
            *(after ? &p->after_ns : &p->before_ns) = slap_now_ns();
            p->ok = p->ok || !after;
            continue;
        }
        p->ok = false;
        snprintf(p->note, sizeof(p->note), "stats not read %s the run: %s",
                 after ? "after" : "before", why);
    }
}

/* The -s servers that run on this host: their processes (CPU for those that answer no stats,
 * and for all how long their threads waited for a CPU). */
static void read_procs(struct watch *w, const struct server_list *servers, bool after)
{
    for (uint32_t i = 0; i < w->nservers && i < servers->count; i++) {
        struct watch_proc *p = &w->procs[i];
        const struct sockaddr *addr = (const struct sockaddr *)&servers->items[i].addr;
        if (!after && (!hostcpu_address_local(addr) || !procstat_find_listener(addr, &p->pid))) {
            p->pid = 0;
        }
        if (p->pid > 0) {
            *(after ? &p->after : &p->before) = procstat_read(p->pid);
            *(after ? &p->after_ns : &p->before_ns) = slap_now_ns();
        }
    }
}

void watch_read(struct watch *w, const struct server_list *servers,
                const struct server_stats_pair *pairs, bool after)
{
    w->direct = 0;
    for (uint32_t i = 0; pairs != NULL && i < servers->count; i++) {
        w->direct += pairs[i].ok;
    }
    read_proxy(w, servers, pairs, after);
    read_backends(w, after);
    read_procs(w, servers, after);
}

/* The proxy's figures against slap's answered requests: none of them counted, the figures are
 * not the run's; fewer, when all of slap's load went through proxies, they are partial. */
static void proxy_coverage(const struct watch *w, uint64_t answered, struct limits_proxy *p)
{
    double share = proxy_stats_coverage(&p->delta, answered);
    if (share <= 0) {
        p->known = false;
        snprintf(p->note, sizeof(p->note),
                 "its figures count no answer to the run's %llu requests: its stats are older "
                 "than the run (twemproxy adds them up once per stats interval, nutcracker -i), "
                 "or slap's load did not go through it",
                 (unsigned long long)answered);
    } else if (share < 1 && w->direct == 0) {
        p->partial = true;
        snprintf(p->note, sizeof(p->note),
                 "partial: they count %.0f answers to the %llu requests slap had answered "
                 "(%.1f%%): its stats cover part of the run (nutcracker -i), or part of slap's "
                 "load went through other servers",
                 proxy_stats_answers(&p->delta), (unsigned long long)answered, share * 100);
    }
}

static void proxy_limits(const struct watch *w, uint64_t answered, struct limits_proxy *p)
{
    if (w->proxy.count == 0) {
        return;
    }
    snprintf(p->name, sizeof(p->name), "%s", w->proxy.items[0].name);
    p->known = w->proxy_ok;
    p->partial = false;
    snprintf(p->note, sizeof(p->note), "%s", w->proxy_note);
    if (!p->known) {
        return;
    }
#define PROXY_STATS_SUB(field)                                                                     \
    p->delta.field = w->proxy_after.field - w->proxy_before.field;                                 \
    p->delta.field = p->delta.field > 0 ? p->delta.field : 0;
    PROXY_STATS_FIELDS(PROXY_STATS_SUB)
#undef PROXY_STATS_SUB
    p->delta.in_queue = w->proxy_after.in_queue; /* queues are levels: the one at the end */
    p->delta.out_queue = w->proxy_after.out_queue;
    proxy_coverage(w, answered, p);
}

void watch_limits(const struct watch *w, const struct server_list *servers, const char *label,
                  uint32_t host_cpus, uint64_t answered, struct limits *l)
{
    for (uint32_t i = 0; i < w->nservers && i < l->nservers && i < servers->count; i++) {
        const struct watch_proc *p = &w->procs[i];
        struct limits_server *s = &l->servers[i];
        struct procstat_delta d;
        double seconds = (double)(p->after_ns - p->before_ns) / 1e9;
        if (p->pid <= 0 || p->after_ns <= p->before_ns ||
            !procstat_busy(&p->before, &p->after, seconds, &d)) {
            continue;
        }
        if (!s->known) {
            limits_server_from_proc(s, servers->items[i].name, label, (int)p->pid, d.cpu_s,
                                    d.busiest, p->after.nthreads, seconds);
        }
        s->pid = (int)p->pid;
        s->wait_known = d.wait_known;
        s->wait_max = d.wait_max;
    }
    for (uint32_t b = 0; b < w->backends.count && w->nservers + b < l->nservers; b++) {
        const struct server *srv = &w->backends.items[b];
        bool local = hostcpu_address_local((const struct sockaddr *)&srv->addr);
        struct limits_server *s = &l->servers[w->nservers + b];
        limits_server_from_stats(s, srv->name, label, &w->backend_stats[b], local ? host_cpus : 0);
        s->backend = true;
    }
    proxy_limits(w, answered, &l->proxy);
}
