/* Unit tests of a run's events in words: every kind's text, written by hand from the lines the
 * engine printed itself before it told events, and the unanswered requests' lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/hist.h"
#include "slap/run/run_events.h"

/* What run_event_print writes of e. */
static char *printed(const struct run_event *e)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    run_event_print(f, e);
    assert_int_equal(fclose(f), 0);
    return text;
}

static void expect(const struct run_event *e, const char *want)
{
    char *got = printed(e);
    assert_string_equal(got, want);
    free(got);
}

/* One event of every kind and its text: a kind added without its line here fails. */
struct event_sample {
    struct run_event event;
    const char *text;
};

static const char detail[] = "out of memory storing object";

static const struct event_sample samples[RUN_EVENT_KINDS] = {
    [RUN_EVENT_PROGRESS] = {{.kind = RUN_EVENT_PROGRESS,
                             .progress = {.elapsed_s = 3,
                                          .left_s = 7,
                                          .ops_per_s = 41234.4,
                                          .p99_us = 812.6,
                                          .errors = 2}},
                            "\r\033[Kslap: 3s elapsed, 7s left, 41234 ops/s, p99 813 us, 2 errors"},
    [RUN_EVENT_PROGRESS_END] = {{.kind = RUN_EVENT_PROGRESS_END}, "\r\033[K"},
    [RUN_EVENT_PRELOAD] = {{.kind = RUN_EVENT_PRELOAD, .preload = {.sets = 500, .seconds = 0.26}},
                           "preload: 500 sets in 0.3s\n"},
    [RUN_EVENT_FILL_EVICTIONS] =
        {{.kind = RUN_EVENT_FILL_EVICTIONS,
          .fill_evictions = {.server = "mc:11211", .evictions = 1234, .fill = RUN_FILL_BOTH}},
         "slap: mc:11211 evicted 1234 items during the preload and warm-up: the data does not fit "
         "in its memory, and gets of evicted keys miss (use a smaller -w, fewer clients or "
         "smaller values, or give the server more memory)\n"},
    [RUN_EVENT_START_LATE] = {{.kind = RUN_EVENT_START_LATE, .start_late = {.late_s = 0.0456}},
                              "slap: --start_at: ready 0.046 s after the start time; starting "
                              "now\n"},
    [RUN_EVENT_WARN] = {{.kind = RUN_EVENT_WARN,
                         .warn = {.server = "mc:11211",
                                  .what = "SERVER_ERROR",
                                  .detail = detail,
                                  .detail_len = sizeof(detail) - 1}},
                        "slap: mc:11211: SERVER_ERROR: out of memory storing object\n"},
    [RUN_EVENT_REALTIME_REFUSED] = {{.kind = RUN_EVENT_REALTIME_REFUSED,
                                     .realtime_refused = {.error = EPERM}},
                                    "slap: --priority=realtime: a worker thread stays at its "
                                    "ordinary priority: Operation not permitted\n"},
    [RUN_EVENT_VERIFY_FAILED] =
        {{.kind = RUN_EVENT_VERIFY_FAILED,
          .verify_failed = {.server = "mc:11211", .client = 3, .slot = 17, .first_diff = 40}},
         "slap: verify failed: mc:11211: client 3 slot 17: value differs "
         "from byte 40\n"},
};

static void test_every_kind_has_its_text(void **state)
{
    (void)state;
    for (int k = 0; k < RUN_EVENT_KINDS; k++) {
        if (samples[k].text == NULL) {
            fail_msg("event kind %d has no sample in test_run_events", k);
        }
        assert_int_equal(samples[k].event.kind, k);
        expect(&samples[k].event, samples[k].text);
    }
}

/* The forms of a kind the table shows one of. */
static void test_other_forms(void **state)
{
    (void)state;
    expect(&(struct run_event){.kind = RUN_EVENT_PROGRESS,
                               .progress = {.done = 5000,
                                            .total = 20000,
                                            .elapsed_s = 1,
                                            .ops_per_s = 5000,
                                            .p99_us = 90,
                                            .errors = 0}},
           "\r\033[Kslap: 5000/20000 requests, 5000 ops/s, p99 90 us, 0 errors");
    expect(&(struct run_event){.kind = RUN_EVENT_WARN,
                               .warn = {.server = "mc:11211", .what = "connection lost"}},
           "slap: mc:11211: connection lost\n");
    expect(&(struct run_event){.kind = RUN_EVENT_FILL_EVICTIONS,
                               .fill_evictions = {.server = "mc:1",
                                                  .evictions = 7,
                                                  .fill = RUN_FILL_INITIAL_LOAD,
                                                  .memslap_face = true}},
           "slap: mc:1 evicted 7 items during the initial load: the data does not fit in its "
           "memory, and gets of evicted keys miss (use a smaller --execute-number, or give the "
           "server more memory)\n");
    const char *fills[] = {[RUN_FILL_PRELOAD] = "preload", [RUN_FILL_WARMUP] = "warm-up"};
    for (enum run_fill f = RUN_FILL_PRELOAD; f <= RUN_FILL_WARMUP; f++) {
        char want[300];
        snprintf(want, sizeof(want),
                 "slap: mc:1 evicted 7 items during the %s: the data does not fit in its "
                 "memory, and gets of evicted keys miss (use a smaller -w, fewer clients or "
                 "smaller values, or give the server more memory)\n",
                 fills[f]);
        expect(&(struct run_event){.kind = RUN_EVENT_FILL_EVICTIONS,
                                   .fill_evictions = {.server = "mc:1", .evictions = 7, .fill = f}},
               want);
    }
}

/* A server's bytes: printable ASCII as it is, the rest '?', cut after RUN_EVENT_DETAIL_SHOWN. */
static void test_warn_detail_made_safe(void **state)
{
    (void)state;
    expect(
        &(struct run_event){
            .kind = RUN_EVENT_WARN,
            .warn = {.server = "s", .what = "ERROR", .detail = "a\033[2J\r\377b", .detail_len = 8}},
        "slap: s: ERROR: a?[2J??b\n");
    char lng[RUN_EVENT_DETAIL_SHOWN + 1];
    memset(lng, 'x', sizeof(lng));
    char want[RUN_EVENT_DETAIL_SHOWN + 32];
    snprintf(want, sizeof(want), "slap: s: ERROR: %.*s...\n", RUN_EVENT_DETAIL_SHOWN, lng);
    expect(
        &(struct run_event){
            .kind = RUN_EVENT_WARN,
            .warn = {.server = "s", .what = "ERROR", .detail = lng, .detail_len = sizeof(lng)}},
        want);
    snprintf(want, sizeof(want), "slap: s: ERROR: %.*s\n", RUN_EVENT_DETAIL_SHOWN, lng);
    expect(&(struct run_event){.kind = RUN_EVENT_WARN,
                               .warn = {.server = "s",
                                        .what = "ERROR",
                                        .detail = lng,
                                        .detail_len = RUN_EVENT_DETAIL_SHOWN}},
           want);
}

/* Two servers, the second's sockets stalled and lost: the lines a run's end says of them. */
static void test_stalls_and_down(void **state)
{
    (void)state;
    struct hist lag = {.max_ns = 2500000};
    struct slap_stats global = {.counters = {.unanswered = 12, .unsent = 9, .client_lag = 4},
                                .lag = &lag};
    struct server servers[2] = {{.name = "a:1"}, {.name = "b:2"}};
    struct worker_stall stalls[2] = {{.conns = 0},
                                     {.conns = 3, .since_ns = 3500000000ULL, .down = 2}};
    struct run_result res = {.global = &global,
                             .nservers = 2,
                             .servers = servers,
                             .stalls = stalls,
                             .conns_per_server = 8,
                             .measure_start_ns = 1000000000ULL};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    run_stalls_print(f, &res, "slap");
    assert_int_equal(run_down_print(f, &res, "slap: step 100 ops/s"), 2);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(
        text,
        "slap: 12 requests unanswered at the end of the run (9 of them never sent, 5 due while "
        "their connection awaited the server): in no latency, which holds the requests "
        "answered\n"
        "slap: client lag: 4 of the requests never sent fell due while their socket was free: "
        "slap fell behind its own schedule (send lag up to 2.5 ms); they count against slap, "
        "not against the server\n"
        "slap: b:2: 3 of 8 connections stopped answering, the first 2.500s into the run\n"
        "slap: step 100 ops/s: b:2: 2 of 8 connections were lost and not open again when the "
        "run ended: the server did not answer again (-R kept trying)\n");
    free(text);

    global.counters = (struct slap_counters){.unanswered = 1, .unsent = 1};
    stalls[1] = (struct worker_stall){.conns = 0};
    f = open_memstream(&text, &len);
    assert_non_null(f);
    run_stalls_print(f, &res, "slap");
    assert_int_equal(run_down_print(f, &res, "slap"), 0);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(text, "slap: 1 request unanswered at the end of the run (1 of them never "
                              "sent, 1 due while their connection awaited the server): in no "
                              "latency, which holds the requests answered\n");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind_has_its_text),
        cmocka_unit_test(test_other_forms),
        cmocka_unit_test(test_warn_detail_made_safe),
        cmocka_unit_test(test_stalls_and_down),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
