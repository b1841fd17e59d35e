/* A run's events and its unanswered requests in words. */
#include "slap/run/run_events.h"

#include <string.h>

#include "slap/base/common.h"

/* A server's words made safe for a terminal: printable ASCII only (others become '?'), cut
 * at RUN_EVENT_DETAIL_SHOWN bytes. out has room for that and "...". */
static const char *printable(char *out, const char *in, size_t len)
{
    size_t n = len < RUN_EVENT_DETAIL_SHOWN ? len : RUN_EVENT_DETAIL_SHOWN;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)in[i];
        out[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    strcpy(out + n, len > n ? "..." : "");
    return out;
}

static const char *fill_name(enum run_fill fill)
{
    switch (fill) {
    case RUN_FILL_NONE:
        return "load";
    case RUN_FILL_PRELOAD:
        return "preload";
    case RUN_FILL_WARMUP:
        return "warm-up";
    case RUN_FILL_BOTH:
        return "preload and warm-up";
    case RUN_FILL_INITIAL_LOAD:
        return "initial load";
    }
    return "load";
}

static void print_progress(FILE *f, const struct run_event *e)
{
    if (e->progress.total > 0) {
        fprintf(f, "\r\033[Kslap: %llu/%llu requests, %.0f ops/s, p99 %.0f us, %llu errors",
                (unsigned long long)e->progress.done, (unsigned long long)e->progress.total,
                e->progress.ops_per_s, e->progress.p99_us, (unsigned long long)e->progress.errors);
    } else {
        fprintf(f, "\r\033[Kslap: %.0fs elapsed, %.0fs left, %.0f ops/s, p99 %.0f us, %llu errors",
                e->progress.elapsed_s, e->progress.left_s, e->progress.ops_per_s,
                e->progress.p99_us, (unsigned long long)e->progress.errors);
    }
    fflush(f);
}

void run_event_print(FILE *f, const struct run_event *e)
{
    char shown[RUN_EVENT_DETAIL_SHOWN + 4];
    switch (e->kind) { /* no default: a kind without its text fails to compile (-Wswitch) */
    case RUN_EVENT_PROGRESS:
        print_progress(f, e);
        return;
    case RUN_EVENT_PROGRESS_END:
        fputs("\r\033[K", f);
        fflush(f);
        return;
    case RUN_EVENT_PRELOAD:
        fprintf(f, "preload: %llu sets in %.1fs\n", (unsigned long long)e->preload.sets,
                e->preload.seconds);
        fflush(f);
        return;
    case RUN_EVENT_FILL_EVICTIONS:
        fprintf(f,
                "slap: %s evicted %.0f items during the %s: the data does not fit in its "
                "memory, and gets of evicted keys miss (use %s, or give the server more "
                "memory)\n",
                e->fill_evictions.server, e->fill_evictions.evictions,
                fill_name(e->fill_evictions.fill),
                e->fill_evictions.memslap_face ? "a smaller --execute-number"
                                               : "a smaller -w, fewer clients or smaller values");
        return;
    case RUN_EVENT_START_LATE:
        fprintf(f, "slap: --start_at: ready %.3f s after the start time; starting now\n",
                e->start_late.late_s);
        return;
    case RUN_EVENT_WARN:
        if (e->warn.detail == NULL || e->warn.detail_len == 0) {
            fprintf(f, "slap: %s: %s\n", e->warn.server, e->warn.what);
        } else {
            fprintf(f, "slap: %s: %s: %s\n", e->warn.server, e->warn.what,
                    printable(shown, e->warn.detail, e->warn.detail_len));
        }
        return;
    case RUN_EVENT_REALTIME_REFUSED:
        fprintf(f,
                "slap: --priority=realtime: a worker thread stays at its ordinary priority: "
                "%s\n",
                strerror(e->realtime_refused.error));
        return;
    case RUN_EVENT_VERIFY_FAILED:
        fprintf(f, "slap: verify failed: %s: client %u slot %llu: value differs from byte %llu\n",
                e->verify_failed.server, e->verify_failed.client,
                (unsigned long long)e->verify_failed.slot,
                (unsigned long long)e->verify_failed.first_diff);
        return;
    case RUN_EVENT_KINDS:
        return;
    }
}

void run_stalls_print(FILE *f, const struct run_result *res, const char *who)
{
    const struct slap_counters *c = &res->global->counters;
    fprintf(f, "%s: %llu request%s unanswered at the end of the run", who,
            (unsigned long long)c->unanswered, c->unanswered == 1 ? "" : "s");
    if (c->unsent > c->client_lag) {
        fprintf(f,
                " (%llu of them never sent, %llu due while their connection awaited the "
                "server)",
                (unsigned long long)c->unsent, (unsigned long long)(c->unsent - c->client_lag));
    } else if (c->unsent > 0) {
        fprintf(f, " (%llu of them never sent)", (unsigned long long)c->unsent);
    }
    fputs(": in no latency, which holds the requests answered\n", f);
    if (c->client_lag > 0) {
        fprintf(f,
                "%s: client lag: %llu of the requests never sent fell due while their socket "
                "was free: slap fell behind its own schedule (send lag up to %.1f ms); they "
                "count against slap, not against the server\n",
                who, (unsigned long long)c->client_lag, (double)res->global->lag->max_ns / 1e6);
    }
    for (uint32_t i = 0; res->stalls != NULL && i < res->nservers; i++) {
        const struct worker_stall *st = &res->stalls[i];
        if (st->conns == 0) {
            continue;
        }
        uint64_t start = res->measure_start_ns;
        double since =
            st->since_ns > start ? (double)(st->since_ns - start) / SLAP_NS_PER_SEC : 0.0;
        fprintf(f, "%s: %s: %u of %u connections stopped answering, the first %.3fs into the run\n",
                who, res->servers[i].name, st->conns, res->conns_per_server, since);
    }
}

uint32_t run_down_print(FILE *f, const struct run_result *res, const char *who)
{
    uint32_t down = 0;
    for (uint32_t i = 0; res->stalls != NULL && i < res->nservers; i++) {
        const struct worker_stall *st = &res->stalls[i];
        if (st->down > 0) {
            fprintf(f,
                    "%s: %s: %u of %u connections were lost and not open again when the run "
                    "ended: the server did not answer again (-R kept trying)\n",
                    who, res->servers[i].name, st->down, res->conns_per_server);
        }
        down += st->down;
    }
    return down;
}
