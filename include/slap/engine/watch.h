/* What slap reads beside the servers' own stats to judge a run: the CPU of local servers that
 * answer no stats (proxies, from /proc), the backends behind a proxy, and twemproxy's stats. */
#ifndef SLAP_WATCH_H
#define SLAP_WATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "slap/base/procstat.h"
#include "slap/judge/limits.h"
#include "slap/net/proxy_stats.h"
#include "slap/net/server_stats.h"
#include "slap/net/servers.h"

/* One local server's process, read from /proc before and after the run. */
struct watch_proc {
    pid_t pid; /* 0: none found (not local, not visible, or it answered stats) */
    struct procstat_sample before;
    struct procstat_sample after;
    uint64_t before_ns;
    uint64_t after_ns;
};

struct watch {
    uint32_t nservers;           /* -s's */
    struct watch_proc *procs;    /* per -s server */
    struct server_list backends; /* --stats_servers, else the proxy's own list */
    struct server_stats_pair *backend_stats;
    uint32_t direct;          /* -s servers whose stats were read (memcacheds) */
    struct server_list proxy; /* --proxy_stats: one server, else none */
    bool proxy_ok;
    struct proxy_stats proxy_before;
    struct proxy_stats proxy_after;
    char proxy_note[SERVER_STATS_NOTE_MAX];
};

/* Resolve --stats_servers and --proxy_stats for nservers -s servers. SLAP_ERROR with err. */
enum slap_status watch_init(struct watch *w, const char *stats_servers, const char *proxy_stats,
                            uint32_t nservers, char *err, size_t err_len);
void watch_free(struct watch *w);
/*
 * Before (after == false) or after the run: the proxy's stats (read, its event loop turned
 * through the -s servers whose pairs were not read, read again; before: its backends become the
 * backends when none were given), the backends' stats, and the processes of the -s servers
 * whose stats were not read (pairs: theirs, NULL when none are read).
 */
void watch_read(struct watch *w, const struct server_list *servers,
                const struct server_stats_pair *pairs, bool after);
/* Into l (made with limits_init for nservers + w->backends.count): the -s servers that answered
 * no stats but were found in /proc, the backends, the proxy (its counts weighed against
 * answered, slap's answered requests). */
void watch_limits(const struct watch *w, const struct server_list *servers, const char *label,
                  uint32_t host_cpus, uint64_t answered, struct limits *l);
/* How many servers watch_limits adds after the -s ones. */
uint32_t watch_extra(const struct watch *w);

#endif
