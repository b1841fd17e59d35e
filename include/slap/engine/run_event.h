/* What a run tells as it goes, for its caller to show: the engine formats none of it
 * (output/run_events.c does, the command line picks the stream). */
#ifndef SLAP_RUN_EVENT_H
#define SLAP_RUN_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The kinds, one row each, with the thread that tells it: the run's main thread, or any
 * worker's (several at once). A new kind: its row here, its data in struct run_event, its
 * text in run_event_print's switch (which has no default: -Wswitch names the kind left out)
 * and its line in test_run_events.
 */
#define RUN_EVENT_ROWS(X)                                                                          \
    X(PROGRESS)         /* main: the live line, about once a second */                             \
    X(PROGRESS_END)     /* main: the run is over, the live line goes */                            \
    X(PRELOAD)          /* main: the preload's sets and time, a line of the report */              \
    X(FILL_EVICTIONS)   /* main: a server evicted items while the preload or warm-up filled it */  \
    X(START_LATE)       /* main: everyone was ready only after --start_at's time */                \
    X(WARN)             /* worker: a server's problem, once per kind and server */                 \
    X(REALTIME_REFUSED) /* worker: --priority=realtime was refused to its thread */                \
    X(VERIFY_FAILED)    /* worker: -v -b: a value that differs from what was set */

enum run_event_kind {
#define RUN_EVENT_ENUM(name) RUN_EVENT_##name,
    RUN_EVENT_ROWS(RUN_EVENT_ENUM)
#undef RUN_EVENT_ENUM
        RUN_EVENT_KINDS
};

/* What loaded the servers before the measured part (FILL_EVICTIONS). */
enum run_fill {
    RUN_FILL_NONE,
    RUN_FILL_PRELOAD,
    RUN_FILL_WARMUP,
    RUN_FILL_BOTH,         /* a preload, then a warm-up */
    RUN_FILL_INITIAL_LOAD, /* memslap's words for the preload */
};

/* One event: its kind, and the data of that kind (strings are the run's, valid during the
 * call only; detail is the server's own bytes, not terminated). */
struct run_event {
    enum run_event_kind kind;
    union {
        struct {
            uint64_t done;  /* -x: requests answered so far, of total */
            uint64_t total; /* 0: a timed run, said by elapsed_s and left_s */
            double elapsed_s;
            double left_s;
            double ops_per_s; /* since the last line */
            double p99_us;    /* likewise */
            uint64_t errors;  /* the run's so far */
        } progress;
        struct {
            uint64_t sets;
            double seconds; /* the slowest thread's */
        } preload;
        struct {
            const char *server;
            double evictions;
            enum run_fill fill;
            bool memslap_face; /* the advice in memslap's options */
        } fill_evictions;
        struct {
            double late_s; /* after the start time */
        } start_late;
        struct {
            const char *server;
            const char *what;   /* the kind of problem, a constant */
            const char *detail; /* NULL or detail_len == 0: none */
            size_t detail_len;
        } warn;
        struct {
            int error; /* pthread_setschedparam's */
        } realtime_refused;
        struct {
            const char *server;
            uint32_t client;
            uint64_t slot;
            uint64_t first_diff; /* the first byte that differs */
        } verify_failed;
    };
};

/* Where a run's events go: tell(ctx, e) on the thread that tells it (see RUN_EVENT_ROWS), so
 * it must be thread-safe. tell NULL: nowhere. */
struct run_event_sink {
    void (*tell)(void *ctx, const struct run_event *e);
    void *ctx;
};

static inline void run_event_tell(const struct run_event_sink *s, const struct run_event *e)
{
    if (s->tell != NULL) {
        s->tell(s->ctx, e);
    }
}

#endif
