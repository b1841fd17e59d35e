/* --metrics and --push: the run's figures served over HTTP while it runs, and pushed. */
#ifndef SLAP_LIVE_H
#define SLAP_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slap/base/common.h"
#include "slap/judge/limits.h"
#include "slap/model/schedule.h"
#include "slap/model/stats.h"
#include "slap/output/run_desc.h"

#define LIVE_MAX_CONNS 16     /* scrapers served at once; more wait in the kernel's queue */
#define LIVE_MAX_HEADERS 8192 /* bytes of a request's line and headers */
#define LIVE_IDLE_S 2         /* a connection silent this long is closed */
#define LIVE_LIFETIME_S 3     /* and none lives longer (a slow sender, a slow reader) */
#define LIVE_PUSH_TIMEOUT_NS (5ULL * SLAP_NS_PER_SEC)   /* the final push */
#define LIVE_PERIOD_TIMEOUT_NS (1ULL * SLAP_NS_PER_SEC) /* a -S period's */

struct live;

/* --control's highest rate: -P's (options_types.h asserts they agree). */
#define LIVE_CONTROL_MAX_TPS 1e9

/* --control: where it listens, and how it reaches the run (the caller's, from the main thread
 * while the run waits in live_wait). */
struct live_control {
    const char *where; /* [ADDR:]PORT, as --metrics takes it; NULL: no control */
    void *ctx;
    enum rate_outcome (*apply)(void *ctx, enum rate_action action, double tps, char *err,
                               size_t err_len);
    void (*state)(void *ctx, struct rate_state *st);
};

/* What live_open needs: the options' part, and the run's description. */
struct live_setup {
    const char *metrics;         /* --metrics [ADDR:]PORT, or NULL */
    const char *push;            /* --push URL, or NULL */
    bool push_periods;           /* -S: push each period too */
    const char *label;           /* --label */
    const struct run_desc *desc; /* its workload, for slap_run_info */
    double target_tps;           /* -P */
    struct live_control control; /* --control */
};

/*
 * NULL when text is one --metrics takes: PORT, :PORT or ADDR:PORT, ADDR a numeric IPv4
 * address, [IPv6] or localhost; else what is wrong with it. Without ADDR: 127.0.0.1. The
 * address and port (0: a free one) go to addr and port when they are not NULL.
 */
const char *live_metrics_problem(const char *text, char *addr, size_t addr_len, uint16_t *port);

/*
 * Listen for --metrics (saying on standard error where) and resolve nothing yet for --push.
 * *lv is NULL when neither is asked. SLAP_ERROR with err when the address cannot be bound.
 */
enum slap_status live_open(struct live **lv, const struct live_setup *s, char *err, size_t err_len);
/* The run so far (global stays valid until the next call or live_finish): what the next
 * scrape reads. */
void live_tick(struct live *lv, const struct slap_stats *global, double elapsed_s);
/* A -S period ended: push the run so far (with push_periods). */
void live_period(struct live *lv);
/* Serve --metrics and --control for up to ns (or sleep when there is nothing to serve). */
void live_wait(struct live *lv, uint64_t ns);
/* Does it serve anything while the run waits? */
bool live_serves(const struct live *lv);
/*
 * The run is over: its final figures, with the verdict (limits NULL: not judged), are pushed.
 * A failed push is said on standard error, naming the URL: SLAP_ERROR then.
 */
enum slap_status live_finish(struct live *lv, const struct slap_stats *global, double seconds,
                             const struct limits *limits);
void live_close(struct live *lv);

#endif
