/* Unit tests of what limited a run in words: the verdict's why from the figures, the report's
 * lines, merged hosts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/output/limits_words.h"

#include "limits_fixture.h"

/* The verdict, and its words as a report has them (kept in read_why, the field a file's words
 * are read into, for the checks below). */
static void judged(struct limits *l)
{
    limits_judge(l);
    limits_say(l, l->read_why, sizeof(l->read_why));
}

static void judge(struct limits *l, enum limits_verdict want, const char *words)
{
    judged(l);
    assert_string_equal(limits_verdict_name(l->verdict), limits_verdict_name(want));
    if (strstr(l->read_why, words) == NULL) {
        fail_msg("'%s' not in the words: %s", words, l->read_why);
    }
    limits_free(l);
}

static void test_server_bound(void **state)
{
    struct limits l;
    (void)state;
    make(&l, 2);
    l.servers[1].busy = 0.97;
    judge(&l, LIMITS_SERVER, "10.0.0.2:11211's threads were busy 97% of the run");
}

/* A server that stopped answering leaves no verdict, whatever slap's CPU said (a starved
 * slap was called the limit of a run whose server had died): above 1% of the requests due
 * sent and never answered, every connection awaiting it at the end, or (-R) connections lost
 * and not open again. 1% itself still gets the verdict the figures give (and requests never
 * sent behind a slow server's full lanes are not counted as silent). */
static void test_server_stopped_no_verdict(void **state)
{
    struct limits l;
    (void)state;
    make(&l, 1);
    client_busy(&l, 0.60, 0.20); /* starved: the client, had the server answered */
    l.due = 10000;
    l.silent = 101;
    judge(&l, LIMITS_UNKNOWN,
          "the server left 101 of the 10000 requests due unanswered: it "
          "stopped answering");
    make(&l, 1);
    client_busy(&l, 0.60, 0.20);
    l.due = 10000;
    l.silent = 2;
    l.stopped = true;
    judge(&l, LIMITS_UNKNOWN, "every connection awaiting it at the end");
    make(&l, 1);
    client_busy(&l, 0.60, 0.20);
    l.due = 10000;
    l.down = 3; /* -R: lost, not open again */
    judge(&l, LIMITS_UNKNOWN, "3 connections lost and not open again at the end");
    make(&l, 1);
    client_busy(&l, 0.60, 0.20);
    l.due = 10000;
    l.silent = 100; /* 1%: within */
    judge(&l, LIMITS_CLIENT, "waited for a CPU");
}

/* --timestamps=kernel: the words say what share of the latency slap's own delay was; the
 * verdict is the one its rules give, stamps or not. */
static void test_own_delay_words(void **state)
{
    struct limits l;
    (void)state;
    make(&l, 2);
    l.servers[1].busy = 0.97;
    l.own_known = true;
    l.own_share = 0.25;
    l.own_p99_s = 41e-6;
    judge(&l, LIMITS_SERVER,
          "; slap's own delay (kernel arrival to its read, left out of the latencies) was 25% of "
          "the mean latency to its read, p99 41 us");
    make(&l, 2);
    l.servers[1].busy = 0.97;
    judge(&l, LIMITS_SERVER, "busy 97%");
    assert_null(strstr(l.read_why, "own delay"));
}

static void test_server_threshold_exact(void **state)
{
    struct limits l;
    (void)state;
    make(&l, 1);
    l.servers[0].busy = LIMITS_SATURATED;
    judge(&l, LIMITS_SERVER, "busy 85%");
    make(&l, 1);
    l.servers[0].busy = LIMITS_SATURATED - 0.001;
    judge(&l, LIMITS_LATENCY, "busiest 10.0.0.1:11211 84%");
}

static void test_client_bound_cpu(void **state)
{
    struct limits l;
    (void)state;
    make(&l, 1);
    client_busy(&l, 0.95, 0.02);
    judge(&l, LIMITS_CLIENT, "the figures measure slap, not the server; raise -T (now 2)");
}

static void test_client_bound_starved(void **state)
{
    struct limits l;
    (void)state;
    make(&l, 1);
    client_busy(&l, 0.20, 0.79); /* a CPU quota: runnable, throttled */
    judge(&l, LIMITS_CLIENT,
          "waited for a CPU up to 79% of the run (busiest thread on a CPU 20%)"
          ": the load host's CPU limited the run");
    make(&l, 1);
    client_busy(&l, 0.20, 0.79);
    l.client.wait_known = false; /* no schedstat: the wait is not counted */
    l.client.demand_max = 0.20;
    judge(&l, LIMITS_LATENCY, "too few clients (-c 16)");
}

/* A CPU hog beside slap (the busy host): little busy, much waiting, whatever -c is. */
static void test_starved_not_latency(void **state)
{
    struct limits l;
    (void)state;
    for (uint32_t clients = 16; clients <= 1024; clients *= 4) {
        make(&l, 1);
        l.concurrency = l.in_flight_max = clients;
        l.in_flight_mean = clients * 0.9;
        l.threads = 4;
        client_busy(&l, 0.18, 0.62);
        l.client.cpus = 1;
        l.servers[0].busy = 0.74;
        judge(&l, LIMITS_CLIENT, "the load host's CPU limited the run");
        make(&l, 1);
        l.threads = 4;
        client_busy(&l, 0.18, 0.62);
        l.client.cpus = 1;
        judged(&l);
        assert_null(strstr(l.read_why, "raise -c"));
        assert_non_null(strstr(l.read_why, "use no more threads (-T 4) than the 1 CPU slap"));
        limits_free(&l);
    }
    make(&l, 1); /* the threshold: a tenth of the run */
    client_busy(&l, 0.30, LIMITS_STARVED);
    judge(&l, LIMITS_CLIENT, "waited for a CPU up to 10%");
    make(&l, 1);
    client_busy(&l, 0.30, LIMITS_STARVED - 0.001);
    judge(&l, LIMITS_LATENCY, "raise -c");
    make(&l, 1); /* starved beside a saturated server: both, the host's CPUs named */
    client_busy(&l, 0.45, 0.50);
    l.servers[0].busy = 0.90;
    l.servers[0].local = true;
    l.host.known = true;
    l.host.cpus = 2;
    l.host.busy = 0.97;
    judge(&l, LIMITS_BOTH, "this host's 2 CPUs were 97% busy, shared by slap and 10.0.0.1:11211");
}

static void test_both(void **state)
{
    struct limits l;
    (void)state;
    make(&l, 1);
    client_busy(&l, 0.90, 0.05);
    l.servers[0].busy = 0.92;
    judge(&l, LIMITS_BOTH,
          "on a CPU 90% of the run and waited for one 5%, and 10.0.0.1:11211's "
          "threads were busy 92% of the run: both sides");
    make(&l, 1); /* the process at its CPUs' limit, no one thread */
    client_busy(&l, 0.45, 0.05);
    l.client.cpus = 1;
    l.client.cpu_share = 0.95;
    l.servers[0].busy = 0.92;
    judge(&l, LIMITS_BOTH, "the process used 95% of the 1 CPU it may use");
}

static void test_neither_latency(void **state)
{
    struct limits l;
    (void)state;
    make(&l, 1);
    l.concurrency = l.in_flight_max = 1;
    l.in_flight_mean = 0.98;
    judge(&l, LIMITS_LATENCY, "too few clients (-c 1) for the latency");
    make(&l, 1); /* 64 clients x 16 pipelined: 1024 possible, few of them in flight */
    l.concurrency = 64;
    l.in_flight_max = 1024;
    l.in_flight_mean = 200;
    judge(&l, LIMITS_CLIENT, "kept only 200.0 of its 1024 possible requests in flight");
    make(&l, 1);
    l.concurrency = 64;
    l.in_flight_max = 1024;
    l.in_flight_mean = 1000;
    judge(&l, LIMITS_LATENCY, "1000.0 of the 1024 possible requests were in flight");
}

/* -P met and sent on time by a slap that waited for its CPU: the rate set the load, and the
 * words say the latencies include the wait; sent late, the host's CPU limited the run. */
static void test_open_loop_met_while_starved(void **state)
{
    struct limits l;
    (void)state;
    make(&l, 1);
    l.target_tps = 1500;
    l.achieved_tps = 1500;
    client_busy(&l, 0.05, 0.30);
    l.send_lag_p99_s = 0.0002;
    judge(&l, LIMITS_RATE, "the latencies include that wait");
    make(&l, 1);
    l.target_tps = 1500;
    l.achieved_tps = 1500;
    client_busy(&l, 0.05, 0.30);
    l.send_lag_p99_s = LIMITS_LATE_NS / 1e9;
    judge(&l, LIMITS_CLIENT, "the load host's CPU limited the run");
}

/* -P: requests due while their socket was free and never sent are slap's lag, not a met rate. */
static void test_open_loop_client_lag(void **state)
{
    struct limits l;
    (void)state;
    make(&l, 1);
    l.target_tps = 5000;
    l.achieved_tps = 4920;
    l.client_lag = 160;
    l.send_lag_p99_s = 0.084;
    judge(&l, LIMITS_CLIENT,
          "slap could not keep the -P schedule: 160 requests fell due while "
          "their socket was free and were never sent, sends were up to 84.0 ms");
}

static void test_open_loop_at_target(void **state)
{
    struct limits l;
    (void)state;
    make(&l, 1);
    l.target_tps = 50000;
    l.achieved_tps = 49990;
    judge(&l, LIMITS_RATE, "the -P target of 50000 ops/s was met");
    make(&l, 1); /* met, even with a busy server: the rate set the load */
    l.target_tps = 50000;
    l.achieved_tps = LIMITS_RATE_MET * 50000;
    l.servers[0].busy = 0.9;
    judge(&l, LIMITS_RATE, "busiest 10.0.0.1:11211 90%");
    make(&l, 1); /* a ramp's target is its mean over the run, and said so */
    l.target_tps = 50000;
    l.achieved_tps = 49990;
    l.ramped = true;
    judge(&l, LIMITS_RATE, "the --ramp's mean target of 50000 ops/s was met");
}

static void test_open_loop_short_of_target(void **state)
{
    struct limits l;
    (void)state;
    make(&l, 1);
    l.target_tps = 100000;
    l.achieved_tps = 50000;
    judge(&l, LIMITS_LATENCY, "target of 100000 ops/s was not met (50000 achieved)");
    make(&l, 1);
    l.target_tps = 100000;
    l.achieved_tps = 50000;
    l.servers[0].busy = 0.99;
    judge(&l, LIMITS_SERVER, "10.0.0.1:11211's threads were busy 99%");
}

static void test_trace_times(void **state)
{
    struct limits l;
    (void)state;
    make(&l, 1);
    l.paced_by_trace = true;
    judge(&l, LIMITS_RATE, "the trace's own times set the rate");
}

static void test_no_server_stats(void **state)
{
    struct limits l;
    (void)state;
    make(&l, 1);
    l.servers[0].known = false;
    snprintf(l.servers[0].note, sizeof(l.servers[0].note), "it did not answer stats");
    judge(&l, LIMITS_UNKNOWN, "this verdict is about the client only");
    make(&l, 1);
    l.servers[0].known = false;
    client_busy(&l, 0.99, 0);
    judge(&l, LIMITS_CLIENT, "this verdict is about the client only");
    make(&l, 0); /* no server was asked (none to ask) */
    judge(&l, LIMITS_LATENCY, "the servers (load unknown)");
}

/* A share past belief (a server's rusage of 2^64 s over a second) is said as INT_MAX percent,
 * never as a converted overflow (INT_MIN on x86: 'busy -2147483648%'). */
static void test_share_past_belief(void **state)
{
    struct limits l;
    (void)state;
    make(&l, 1);
    l.servers[0].busy = 18446744073709551616.0;
    judged(&l);
    if (strstr(l.read_why, "busy 2147483647% of the run") == NULL) {
        fail_msg("not said as INT_MAX percent: %s", l.read_why);
    }
    limits_free(&l);
}

/* The report's lines, name first, for scripts. */
static void test_print(void **state)
{
    struct limits l;
    char text[4096] = "";
    FILE *f = fmemopen(text, sizeof(text) - 1, "w");
    (void)state;
    assert_non_null(f);
    make(&l, 2);
    l.client.cpu_user_s = 1.234;
    l.client.cpu_sys_s = 4.561;
    client_busy(&l, 0.97, 0.01);
    l.client.busy_mean = 0.92;
    l.client.wait_mean = 0.005;
    l.servers[0].cpu_s = 5.87;
    l.servers[0].busy = 0.36;
    l.servers[1].known = false;
    snprintf(l.servers[1].note, sizeof(l.servers[1].note), "no answer to stats in time");
    judged(&l);
    limits_print(f, &l);
    fclose(f);
    assert_string_equal(text, "client_cpu_user_s: 1.23\n"
                              "client_cpu_sys_s: 4.56\n"
                              "client_busy: 0.92 (busiest thread 0.97, 2 threads)\n"
                              "client_cpu_wait: 0.01 (thread max 0.01)\n"
                              "server_cpu_s: 10.0.0.1:11211 5.87 (4 threads, busy 0.36)\n"
                              "server_cpu_unknown: 10.0.0.2:11211 (no answer to stats in time)\n"
                              "in_flight: 15.5 (of 16 possible: requests per second x mean "
                              "latency)\n"
                              "limited_by: client (slap's busiest thread was on a CPU 97% of the "
                              "run and waited for one 1%: "
                              "the figures measure slap, not the server; raise -T (now 2) if slap "
                              "has idle CPUs, or run slap on more hosts; the load of some servers "
                              "is unknown (no stats): this verdict is about the client only)\n");
    limits_free(&l);
}

/* Two hosts as one: CPU and threads summed, the busiest thread of either, servers listed. */
static void test_merge_hosts(void **state)
{
    struct limits a, b, m;
    (void)state;
    make(&a, 1);
    make(&b, 1);
    client_busy(&a, 0.40, 0.0);
    client_busy(&b, 0.90, 0.0);
    b.client.threads = 6;
    a.client.cpu_user_s = 1;
    b.client.cpu_user_s = 2;
    assert_int_equal(limits_init(&m, 0), SLAP_OK);
    assert_int_equal(limits_add(&m, &a, true), SLAP_OK);
    assert_int_equal(limits_add(&m, &b, false), SLAP_OK);
    assert_int_equal(m.client.threads, 8);
    assert_float_equal(m.client.cpu_user_s, 3, 1e-9);
    assert_float_equal(m.client.busy_mean, (0.40 * 2 + 0.90 * 6) / 8, 1e-9);
    assert_float_equal(m.client.demand_max, 0.90, 1e-9);
    assert_int_equal(m.nservers, 2);
    m.concurrency = 32;
    m.threads = 8;
    m.seconds = 10;
    judge(&m, LIMITS_CLIENT, "raise -T (now 8)");
    limits_free(&a);
    limits_free(&b);
}

static void test_verdict_names(void **state)
{
    enum limits_verdict v;
    (void)state;
    for (int i = 0; i < LIMITS_VERDICTS; i++) { /* each its own name, read back as itself */
        const char *name = limits_verdict_name((enum limits_verdict)i);
        assert_true(i == LIMITS_UNKNOWN || strcmp(name, "unknown") != 0);
        assert_true(limits_verdict_parse(name, &v));
        assert_int_equal(v, i);
    }
    assert_false(limits_verdict_parse("mixed", &v));
    assert_false(limits_verdict_parse(NULL, &v));
}

/* ---- borderline ------------------------------------------------------------------------ */

/* The run of c with its figure at v, judged: its verdict and borderline checked. */
static void judge_at(const struct line_case *c, double v, enum limits_verdict want, bool near)
{
    struct limits l;
    make(&l, 1);
    c->set(&l, v);
    judged(&l);
    if (l.verdict != want || l.borderline.near != near) {
        fail_msg("%s at %g: %s%s, wanted %s%s: %s", c->figure, v, limits_verdict_name(l.verdict),
                 l.borderline.near ? " (borderline)" : "", limits_verdict_name(want),
                 near ? " (borderline)" : "", l.read_why);
    }
    if (near) {
        enum limits_verdict other = want == c->below ? c->above : c->below;
        char begins[64];
        snprintf(begins, sizeof(begins), "borderline with %s: ", limits_verdict_name(other));
        assert_int_equal(l.borderline.with, other);
        assert_string_equal(l.borderline.figure, c->figure);
        assert_float_equal(l.borderline.value, v, 1e-12);
        assert_float_equal(l.borderline.line, c->line, 1e-12);
        assert_float_equal(l.borderline.band, c->band, 1e-12);
        assert_memory_equal(l.read_why, begins, strlen(begins));
    } else {
        assert_null(strstr(l.read_why, "borderline"));
    }
    limits_free(&l);
}

/* Each line: just under it and just on it (within its band) borderline with the verdict of the
 * other side; two bands away on either side not; the word is the rules' either way. */
static void test_borderline_each_line(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(line_cases) / sizeof(line_cases[0]); i++) {
        const struct line_case *c = &line_cases[i];
        /* a band wider than its line (the send lag's) has no far side below: none is < 0 */
        double under = c->line - 0.5 * c->band > 0 ? c->line - 0.5 * c->band : 0.5 * c->line;
        judge_at(c, under, c->below, true);
        judge_at(c, c->line + 0.5 * c->band, c->above, true);
        judge_at(c, c->line - 0.99 * (c->band < c->line ? c->band : c->line), c->below, true);
        judge_at(c, c->line, c->above, true);
        if (c->line - 2 * c->band >= 0) {
            judge_at(c, c->line - 2 * c->band, c->below, false);
        }
        judge_at(c, c->line + 2 * c->band, c->above, false);
    }
}

/* A figure near its line that decides nothing is no borderline: a server's busy share near
 * saturation while it waits for a CPU (server either way); slap's wait near the line while it
 * is saturated beside a starved server (both either way); nothing near a line. */
static void test_borderline_only_when_deciding(void **state)
{
    struct limits l;
    (void)state;
    make(&l, 1);
    set_server_wait(&l, 0.50);
    l.servers[0].busy = LIMITS_SATURATED - 0.01;
    judged(&l);
    assert_int_equal(l.verdict, LIMITS_SERVER);
    assert_false(l.borderline.near);
    limits_free(&l);
    make(&l, 1); /* slap saturated beside a starved server: both, whichever side slap's wait */
    set_server_wait(&l, 0.50);
    client_busy(&l, 0.88, LIMITS_STARVED + 0.01);
    judged(&l);
    assert_int_equal(l.verdict, LIMITS_BOTH);
    assert_false(l.borderline.near);
    limits_free(&l);
    make(&l, 1); /* nothing near a line */
    judged(&l);
    assert_int_equal(l.verdict, LIMITS_LATENCY);
    assert_false(l.borderline.near);
    assert_null(strstr(l.read_why, "borderline"));
    limits_free(&l);
}

/* Two figures that decide only together (slap saturated: its busiest thread's demand, or its
 * share of its CPUs), both within their band: moving either alone leaves slap saturated, both
 * together make the met -P target the verdict. Borderline with rate, the nearer named. */
static void test_borderline_together(void **state)
{
    struct limits l;
    (void)state;
    make(&l, 1);
    l.target_tps = 50000;
    client_busy(&l, LIMITS_SATURATED + 0.01, 0);
    l.client.cpus = 1;
    l.client.cpu_share = LIMITS_SATURATED + 0.02;
    judged(&l);
    assert_int_equal(l.verdict, LIMITS_CLIENT);
    assert_true(l.borderline.near);
    assert_int_equal(l.borderline.with, LIMITS_RATE);
    assert_string_equal(l.borderline.figure, "client.demand_max");
    assert_non_null(strstr(l.read_why, "borderline with rate: "));
    limits_free(&l);
    make(&l, 1); /* a send lag nearer its line decides nothing here: not the one named */
    l.target_tps = 50000;
    client_busy(&l, LIMITS_SATURATED + 0.03, 0);
    l.client.cpus = 1;
    l.client.cpu_share = LIMITS_SATURATED + 0.04;
    l.send_lag_p99_s = 0.0009;
    judged(&l);
    assert_int_equal(l.verdict, LIMITS_CLIENT);
    assert_true(l.borderline.near);
    assert_int_equal(l.borderline.with, LIMITS_RATE);
    assert_string_equal(l.borderline.figure, "client.demand_max");
    limits_free(&l);
    make(&l, 1); /* the share far past its line: slap saturated whatever its demand */
    l.target_tps = 50000;
    client_busy(&l, LIMITS_SATURATED + 0.01, 0);
    l.client.cpus = 1;
    l.client.cpu_share = 0.99;
    judged(&l);
    assert_int_equal(l.verdict, LIMITS_CLIENT);
    assert_false(l.borderline.near);
    limits_free(&l);
}

/* -P: a few requests held by slap (client) are near the line of none; many, or none, are not. */
static void test_borderline_client_lag(void **state)
{
    struct limits l;
    (void)state;
    make(&l, 1);
    l.target_tps = 50000;
    l.achieved_tps = 50000;
    l.client_lag = 100; /* of 500000 due */
    judged(&l);
    assert_int_equal(l.verdict, LIMITS_CLIENT);
    assert_true(l.borderline.near);
    assert_int_equal(l.borderline.with, LIMITS_RATE);
    assert_string_equal(l.borderline.figure, "client_lag_share");
    assert_non_null(strstr(l.read_why,
                           "borderline with rate: 100 requests (0.02% of those due) fell "
                           "due while their socket was free and were never sent, near "
                           "the line of none; "));
    limits_free(&l);
    make(&l, 1);
    l.target_tps = 50000;
    l.achieved_tps = 50000;
    l.client_lag = (uint64_t)(2 * LIMITS_BAND_LAG * 500000);
    judged(&l);
    assert_int_equal(l.verdict, LIMITS_CLIENT);
    assert_false(l.borderline.near);
    limits_free(&l);
    make(&l, 1);
    l.target_tps = 50000;
    l.achieved_tps = 50000;
    judged(&l);
    assert_int_equal(l.verdict, LIMITS_RATE);
    assert_false(l.borderline.near);
    limits_free(&l);
}

/* The words: the other verdict, the figure and its line first, then the verdict's own. */
static void test_borderline_words(void **state)
{
    struct limits l;
    (void)state;
    make(&l, 1);
    set_client_wait(&l, 0.096);
    l.servers[0].busy = 0.93;
    judged(&l);
    assert_int_equal(l.verdict, LIMITS_SERVER);
    const char *want = "borderline with both: slap's threads waited for a CPU 9.6% of the run, "
                       "near the 10% line; 10.0.0.1:11211's threads were busy 93% of the run";
    if (strncmp(l.read_why, want, strlen(want)) != 0) {
        fail_msg("the words: %s", l.read_why);
    }
    limits_free(&l);
}

/* Two servers: the figure nearest its line (in bands) is the one named. */
static void test_borderline_nearest(void **state)
{
    struct limits l;
    (void)state;
    make(&l, 2);
    l.servers[0].busy = LIMITS_SATURATED + 0.6 * LIMITS_BAND_BUSY;
    l.servers[1].busy = LIMITS_SATURATED - 0.2 * LIMITS_BAND_BUSY;
    judged(&l);
    assert_int_equal(l.verdict, LIMITS_SERVER);
    /* server 1 under the line decides nothing (server 0 is saturated); server 0 does */
    assert_true(l.borderline.near);
    assert_string_equal(l.borderline.figure, "servers[0].busy");
    assert_int_equal(l.borderline.with, LIMITS_LATENCY);
    limits_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_server_bound),
        cmocka_unit_test(test_server_stopped_no_verdict),
        cmocka_unit_test(test_own_delay_words),
        cmocka_unit_test(test_server_threshold_exact),
        cmocka_unit_test(test_client_bound_cpu),
        cmocka_unit_test(test_client_bound_starved),
        cmocka_unit_test(test_starved_not_latency),
        cmocka_unit_test(test_open_loop_client_lag),
        cmocka_unit_test(test_open_loop_met_while_starved),
        cmocka_unit_test(test_both),
        cmocka_unit_test(test_neither_latency),
        cmocka_unit_test(test_open_loop_at_target),
        cmocka_unit_test(test_open_loop_short_of_target),
        cmocka_unit_test(test_trace_times),
        cmocka_unit_test(test_no_server_stats),
        cmocka_unit_test(test_share_past_belief),
        cmocka_unit_test(test_print),
        cmocka_unit_test(test_merge_hosts),
        cmocka_unit_test(test_verdict_names),
        cmocka_unit_test(test_borderline_each_line),
        cmocka_unit_test(test_borderline_only_when_deciding),
        cmocka_unit_test(test_borderline_together),
        cmocka_unit_test(test_borderline_client_lag),
        cmocka_unit_test(test_borderline_words),
        cmocka_unit_test(test_borderline_nearest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
