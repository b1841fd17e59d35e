/* The runs test_limits and test_limits_words judge: one made idle, then a figure set. */
#ifndef SLAP_TEST_LIMITS_FIXTURE_H
#define SLAP_TEST_LIMITS_FIXTURE_H

#include <stdio.h>

#include "slap/judge/limits.h"

/* A closed-loop run of 10 s, 16 clients on 2 threads, with nservers servers (all known, idle)
 * and an idle slap: each test sets the figures that matter to it. */
static inline void make(struct limits *l, uint32_t nservers)
{
    assert_int_equal(limits_init(l, nservers), SLAP_OK);
    l->seconds = 10;
    l->concurrency = 16;
    l->threads = 2;
    l->achieved_tps = 50000;
    l->in_flight_max = 16;
    l->in_flight_mean = 15.5; /* every client waiting for its answer */
    l->client.threads = 2;
    l->client.wait_known = true;
    l->client.busy_mean = l->client.busy_max = l->client.demand_max = 0.10;
    for (uint32_t i = 0; i < nservers; i++) {
        snprintf(l->servers[i].name, sizeof(l->servers[i].name), "10.0.0.%u:11211", i + 1);
        l->servers[i].known = true;
        l->servers[i].threads = 4;
        l->servers[i].seconds = 10;
        l->servers[i].busy = 0.10;
        l->servers[i].cpu_s = 4;
    }
}

static inline void client_busy(struct limits *l, double busy, double wait)
{
    l->client.busy_max = l->client.busy_mean = busy;
    l->client.wait_max = l->client.wait_mean = wait;
    l->client.demand_max = busy + wait;
}

/* One line of the rules: a run whose verdict turns on one figure, set by set. */
struct line_case {
    const char *figure; /* the borderline's name for it */
    double line, band;
    enum limits_verdict below, above; /* the verdict with the figure under its line, and on it */
    enum limits_line which;           /* the line */
    void (*set)(struct limits *l, double figure);
};

/* slap's wait beside a saturated server: server below the line, both on it. */
static inline void set_client_wait(struct limits *l, double v)
{
    l->servers[0].busy = 0.97;
    client_busy(l, 0.20, v);
}

/* A server on slap's host waiting for a CPU, neither side busy. */
static inline void set_server_wait(struct limits *l, double v)
{
    l->servers[0].local = true;
    l->servers[0].pid = 42;
    l->servers[0].wait_known = true;
    l->servers[0].wait_max = v;
}

static inline void set_client_demand(struct limits *l, double v)
{
    client_busy(l, v, 0);
}

static inline void set_client_share(struct limits *l, double v)
{
    l->client.cpus = 1;
    l->client.cpu_share = v;
}

static inline void set_server_busy(struct limits *l, double v)
{
    l->servers[0].busy = v;
}

/* -P 10000 achieving a share v of it, every client waiting for its answers. */
static inline void set_rate_met(struct limits *l, double v)
{
    l->target_tps = 10000;
    l->achieved_tps = v * l->target_tps;
}

/* -P met while slap waited for a CPU: rate while its sends were on time, client once late. */
static inline void set_late(struct limits *l, double v)
{
    l->target_tps = 10000;
    l->achieved_tps = 10000;
    client_busy(l, 0.05, 0.30);
    l->send_lag_p99_s = v;
}

/* Little's law: v of the possible requests in flight, neither side busy. */
static inline void set_occupied(struct limits *l, double v)
{
    l->in_flight_mean = v * l->in_flight_max;
}

/* -P met, P99 tail a share v of it mostly slap late to send: client from LIMITS_SLAP_TAIL on. */
static inline void set_slap_tail(struct limits *l, double v)
{
    l->target_tps = 10000;
    l->achieved_tps = 10000;
    l->latency_p99_s = 0.002;
    l->slap_tail_share = v;
}

static const struct line_case line_cases[] = {
    {"client.cpu_wait_max", LIMITS_STARVED, LIMITS_BAND_WAIT, LIMITS_SERVER, LIMITS_BOTH,
     LIMITS_LINE_CLIENT_WAIT, set_client_wait},
    {"servers[0].cpu_wait_max", LIMITS_STARVED, LIMITS_BAND_WAIT, LIMITS_LATENCY, LIMITS_SERVER,
     LIMITS_LINE_SERVER_WAIT, set_server_wait},
    {"client.demand_max", LIMITS_SATURATED, LIMITS_BAND_BUSY, LIMITS_LATENCY, LIMITS_CLIENT,
     LIMITS_LINE_CLIENT_DEMAND, set_client_demand},
    {"client.cpu_share", LIMITS_SATURATED, LIMITS_BAND_BUSY, LIMITS_LATENCY, LIMITS_CLIENT,
     LIMITS_LINE_CLIENT_SHARE, set_client_share},
    {"servers[0].busy", LIMITS_SATURATED, LIMITS_BAND_BUSY, LIMITS_LATENCY, LIMITS_SERVER,
     LIMITS_LINE_SERVER_BUSY, set_server_busy},
    {"achieved_share", LIMITS_RATE_MET, LIMITS_BAND_RATE, LIMITS_LATENCY, LIMITS_RATE,
     LIMITS_LINE_RATE_MET, set_rate_met},
    {"send_lag_p99_s", LIMITS_LATE_NS / 1e9, LIMITS_BAND_LATE, LIMITS_RATE, LIMITS_CLIENT,
     LIMITS_LINE_LATE, set_late},
    {"in_flight_share", LIMITS_OCCUPIED, LIMITS_BAND_OCCUPIED, LIMITS_CLIENT, LIMITS_LATENCY,
     LIMITS_LINE_OCCUPIED, set_occupied},
    {"slap_tail_share", LIMITS_SLAP_TAIL, LIMITS_BAND_SLAP_TAIL, LIMITS_RATE, LIMITS_CLIENT,
     LIMITS_LINE_SLAP_TAIL, set_slap_tail},
};

/* The lines judged apart from line_cases, each by the test named (a line at 0 has no side
 * below it for line_cases' walk). */
static const struct {
    enum limits_line which;
    const char *test;
} lines_apart[] = {
    {LIMITS_LINE_CLIENT_LAG, "test_limits_words' test_borderline_client_lag"},
};

#endif
