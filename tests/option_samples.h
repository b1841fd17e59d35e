/*
 * A sample value of every option of slap's table, other than its default, shared by the tests
 * that go through every row (test_options: each row shows what it reads; test_plan: each
 * reaches a plan). Include after cmocka.h; each test has its own copy.
 */
#ifndef SLAP_TEST_OPTION_SAMPLES_H
#define SLAP_TEST_OPTION_SAMPLES_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slap/base/common.h"

/* A -F file with key 16-32, value 100-200 and one set in four, at path (a mkstemp template);
 * and the environment --auth env reads. */
static void write_cfg_file(char *path)
{
    setenv("SLAP_AUTH_USER", "sample-user", 1);
    setenv("SLAP_AUTH_PASSWORD", "sample-password", 1);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static const char cfg[] = "key\n16 32 1\nvalue\n100 200 1\ncmd\n0 0.25\n1 0.75\n";
    assert_int_equal(write(fd, cfg, sizeof(cfg) - 1), (ssize_t)(sizeof(cfg) - 1));
    close(fd);
}

#define SAMPLE_WITH_MAX 6 /* other words an option's sample needs */

/* A readable file for the samples that need one (-F, --tls_ca, --tls_cert, --tls_key). */
static char sample_file[] = "/tmp/slap-test-samples-XXXXXX";

/* An option's sample: a value other than its default, and what else it needs to be taken. */
struct option_sample {
    const char *name;                      /* the long name */
    const char *value;                     /* NULL for a flag */
    const char *with[SAMPLE_WITH_MAX + 1]; /* other words of the command line, NULL-ended */
    bool action;                           /* --help, --version: not settings, never shown */
    unsigned reaches;                      /* REACH_ flags: where a run takes the setting */
    const char *unshown; /* a workload setting the report's header does not show: why */
};

/* Where an option's setting goes: what test_plan's test_rows_reach_a_plan finds it changes,
 * exactly. A setting that goes nowhere is a copy missed in plan.c or plan_output.c. */
#define REACH_PLAN 1u /* the run's plan: plan_run (plan.c) */
#define REACH_DESC                                                                                 \
    2u                /* the outputs' description of the run, its figures and texts (not its       \
                         config, which records every option): plan_output_describe */
#define REACH_SINK 4u /* a file the outputs write: plan_output_paths */
#define REACH_CLI                                                                                  \
    8u                   /* none of them, by design: the command line itself reads it (the sample  \
                            says where) */
#define REACH_HEADER 16u /* the report's header (report_header), memaslap's lines and slap's */

/* A sample's option and value, and the other words it needs, as the rows' macros go. */
#define SAMPLE(option, text) .name = (option), .value = (text)
#define WITH(...) .with = {__VA_ARGS__}
#define REACHES(flags) .reaches = (flags)
/* A workload setting (options_table_workload) that the header does not show, and why. */
#define UNSHOWN(why) .unshown = (why)
#define NOT_MEMASLAPS                                                                              \
    "memaslap's header has no line for it and slap's adds none: the config records it"

/* One for every row: a new option without one fails test_options' test_rows_round_trip (it
 * must show as other than its default and read back) and test_plan's test_rows_reach_a_plan
 * (it must change what a run is planned or described with, or be listed there as reaching
 * neither). */
static const struct option_sample samples[] = {
    {SAMPLE("servers", "h1:1,h2:2"), REACHES(REACH_PLAN | REACH_DESC | REACH_HEADER)},
    {SAMPLE("threads", "3"), REACHES(REACH_PLAN | REACH_DESC | REACH_HEADER)},
    {SAMPLE("concurrency", "40"), REACHES(REACH_PLAN | REACH_DESC | REACH_HEADER)},
    {SAMPLE("conn_sock", "3"), REACHES(REACH_PLAN)},
    {SAMPLE("execute_number", "5k"), REACHES(REACH_PLAN | REACH_DESC | REACH_HEADER)},
    {SAMPLE("time", "1.5m"), REACHES(REACH_PLAN | REACH_DESC | REACH_HEADER)},
    {SAMPLE("cfg_cmd", sample_file), REACHES(REACH_PLAN | REACH_DESC | REACH_HEADER)},
    {SAMPLE("win_size", "2k"), REACHES(REACH_PLAN | REACH_DESC | REACH_HEADER)},
    {SAMPLE("fixed_size", "100"), REACHES(REACH_PLAN | REACH_DESC | REACH_HEADER)},
    {SAMPLE("verify", "0.5"), REACHES(REACH_PLAN | REACH_DESC), UNSHOWN(NOT_MEMASLAPS)},
    {SAMPLE("division", "4"), REACHES(REACH_PLAN | REACH_DESC), UNSHOWN(NOT_MEMASLAPS)},
    {SAMPLE("stat_freq", "2s"), REACHES(REACH_PLAN | REACH_DESC)},
    {SAMPLE("exp_verify", "0.25"), REACHES(REACH_PLAN | REACH_DESC), UNSHOWN(NOT_MEMASLAPS)},
    {SAMPLE("overwrite", "0.75"), REACHES(REACH_PLAN), UNSHOWN(NOT_MEMASLAPS)},
    {SAMPLE("reconnect", NULL), REACHES(REACH_PLAN)},
    {SAMPLE("reconnect_every", "100"), REACHES(REACH_PLAN), UNSHOWN(NOT_MEMASLAPS)},
    {SAMPLE("reconnect_rate", "2k"), REACHES(REACH_PLAN), UNSHOWN(NOT_MEMASLAPS)},
    {SAMPLE("udp", NULL), REACHES(REACH_PLAN | REACH_DESC), UNSHOWN(NOT_MEMASLAPS)},
    {SAMPLE("facebook", NULL), REACHES(REACH_PLAN | REACH_DESC), UNSHOWN(NOT_MEMASLAPS)},
    {SAMPLE("binary", NULL), REACHES(REACH_PLAN)},
    {SAMPLE("tps", "50k"), REACHES(REACH_PLAN | REACH_DESC | REACH_HEADER)},
    {SAMPLE("rep_write", "2"), WITH("-s", "h1,h2"), REACHES(REACH_PLAN), UNSHOWN(NOT_MEMASLAPS)},
    {SAMPLE("verbose", NULL), REACHES(REACH_PLAN)},
    {SAMPLE("key_size", "16-32"), REACHES(REACH_PLAN | REACH_DESC | REACH_HEADER)},
    {SAMPLE("value_size", "4-100:0.3,1024-2048:0.7"),
     REACHES(REACH_PLAN | REACH_DESC | REACH_HEADER)},
    {SAMPLE("ratio", "1:3"), REACHES(REACH_PLAN | REACH_DESC | REACH_HEADER)},
    {SAMPLE("mix", "get=50,delete=25,incr=25"), REACHES(REACH_PLAN | REACH_DESC | REACH_HEADER)},
    {SAMPLE("exp_time", "2m"), REACHES(REACH_PLAN), UNSHOWN(NOT_MEMASLAPS)},
    {SAMPLE("distribution", "ketama"), REACHES(REACH_PLAN)},
    {SAMPLE("hash", "murmur3"), REACHES(REACH_PLAN)},
    {SAMPLE("key_dist", "zipf:0.8"), REACHES(REACH_PLAN), UNSHOWN(NOT_MEMASLAPS)},
    {SAMPLE("key_pattern", "set:uniform,read:zipf:1.5,delete:sequential"), REACHES(REACH_PLAN),
     UNSHOWN(NOT_MEMASLAPS)},
    {SAMPLE("key_min", "5"), REACHES(REACH_PLAN), UNSHOWN(NOT_MEMASLAPS)},
    {SAMPLE("key_max", "1k"), REACHES(REACH_PLAN), UNSHOWN(NOT_MEMASLAPS)},
    {SAMPLE("ycsb", "b"), REACHES(REACH_PLAN | REACH_DESC | REACH_HEADER)},
    {SAMPLE("protocol", "meta"), REACHES(REACH_PLAN), UNSHOWN(NOT_MEMASLAPS)},
    {SAMPLE("tls", NULL), REACHES(REACH_PLAN), UNSHOWN(NOT_MEMASLAPS)},
    {SAMPLE("tls_ca", sample_file), WITH("--tls"), REACHES(REACH_PLAN)},
    /* the two go together: each given first as /dev/null, so that its other words alone are
     * taken (test_plan compares what the sample changes against them) */
    {SAMPLE("tls_cert", sample_file),
     WITH("--tls", "--tls_key", sample_file, "--tls_cert", "/dev/null"), REACHES(REACH_PLAN)},
    {SAMPLE("tls_key", sample_file),
     WITH("--tls", "--tls_cert", sample_file, "--tls_key", "/dev/null"), REACHES(REACH_PLAN)},
    {SAMPLE("tls_skip_verify", NULL), WITH("--tls"), REACHES(REACH_PLAN)},
    {SAMPLE("tls_version", "1.3"), WITH("--tls"), REACHES(REACH_PLAN)},
    {SAMPLE("auth", "env"), REACHES(REACH_PLAN)},
    {SAMPLE("timeout", "250ms"), REACHES(REACH_PLAN)},
    {SAMPLE("udp_timeout", "1s"), REACHES(REACH_PLAN)},
    {SAMPLE("flush", NULL), REACHES(REACH_PLAN)},
    {SAMPLE("preload", NULL), REACHES(REACH_PLAN)},
    {SAMPLE("arrival", "poisson"), WITH("--tps", "1k"),
     REACHES(REACH_PLAN | REACH_DESC | REACH_HEADER)},
    {SAMPLE("pipeline", "8"), REACHES(REACH_PLAN | REACH_DESC | REACH_HEADER)},
    {SAMPLE("latency", "corrected"), REACHES(REACH_DESC), UNSHOWN(NOT_MEMASLAPS)},
    {SAMPLE("timestamps", "kernel"), REACHES(REACH_PLAN)},
    /* the check tries SCHED_FIFO: the suite runs as root */
    {SAMPLE("priority", "realtime"), WITH("--tps", "1k"), REACHES(REACH_PLAN)},
    {SAMPLE("warmup", "3s"), REACHES(REACH_PLAN | REACH_DESC | REACH_HEADER)},
    {SAMPLE("percentiles", "50,99.99"), REACHES(REACH_DESC)},
    /* run_one.c: the run goes on until the percentile is that precise */
    {SAMPLE("precision", "p99=5%"), REACHES(REACH_CLI)},
    /* run_one.c writes it from the run's merged histograms */
    {SAMPLE("hdr_out", "out.hgrm"), REACHES(REACH_CLI)},
    {SAMPLE("sweep", "1k:5k:1k"), REACHES(REACH_DESC),
     UNSHOWN("a sweep heads its table of steps instead (report_sweep_header)")},
    {SAMPLE("step_time", "2s"), WITH("--sweep", "1k:2k:1k"), REACHES(REACH_DESC),
     UNSHOWN("a sweep heads its table of steps instead (report_sweep_header)")},
    {SAMPLE("ramp", "1k:20k/30m"), REACHES(REACH_PLAN | REACH_DESC | REACH_HEADER)},
    {SAMPLE("rounds", "3"), WITH("--time", "2s"), REACHES(REACH_PLAN)},
    {SAMPLE("json", "out.json"), REACHES(REACH_SINK)},
    {SAMPLE("label", "box-1"), REACHES(REACH_PLAN)},
    {SAMPLE("csv", "out.csv"), REACHES(REACH_SINK)},
    {SAMPLE("svg", "out.svg"), REACHES(REACH_SINK)},
    {SAMPLE("hlog", "out.hlog"), REACHES(REACH_SINK)},
    {SAMPLE("samples", "out.samples"), REACHES(REACH_PLAN)},
    {SAMPLE("sample_rate", "0.5"), WITH("--samples", "out.samples"), REACHES(REACH_PLAN)},
    {SAMPLE("start_at", "4102444800"), REACHES(REACH_PLAN)}, /* 2100-01-01 */
    {SAMPLE("share", "2/4,keys"), REACHES(REACH_PLAN | REACH_DESC | REACH_HEADER)},
    {SAMPLE("probe", NULL), WITH("--threads", "1", "--concurrency", "2", "--tps", "100"),
     REACHES(REACH_DESC | REACH_HEADER)},
    /* exit_status.c: the verdict on the run's counters */
    {SAMPLE("max_errors", "2.5%"), REACHES(REACH_CLI)},
    {SAMPLE("quiet", NULL), REACHES(REACH_PLAN)},
    {SAMPLE("trace", "cluster.zst"), REACHES(REACH_PLAN | REACH_DESC | REACH_HEADER)},
    {SAMPLE("trace_speed", "2"), WITH("--trace", "cluster.zst"),
     REACHES(REACH_PLAN | REACH_DESC | REACH_HEADER)},
    {SAMPLE("trace_limit", "10k"), WITH("--trace", "cluster.zst"), REACHES(REACH_PLAN),
     UNSHOWN(NOT_MEMASLAPS)},
    {SAMPLE("trace_skip_bad", NULL), WITH("--trace", "cluster.zst"), REACHES(REACH_PLAN)},
    {SAMPLE("trace_spread", "round-robin"), WITH("--trace", "cluster.zst"), REACHES(REACH_PLAN),
     UNSHOWN(NOT_MEMASLAPS)},
    {SAMPLE("trace_value_max", "100k"), WITH("--trace", "cluster.zst"), REACHES(REACH_PLAN)},
    {SAMPLE("stats_servers", "h3:1,h4:2"), REACHES(REACH_PLAN)},
    {SAMPLE("proxy_stats", "h5:22222"), REACHES(REACH_PLAN)},
    /* live.c serves the periods */
    {SAMPLE("metrics", "127.0.0.1:9100"), REACHES(REACH_CLI)},
    /* live.c and push.c send the periods */
    {SAMPLE("push", "http://127.0.0.1:9091/pg"), REACHES(REACH_CLI)},
    /* the workers take the changes of rate: an eventfd each */
    {SAMPLE("control", "127.0.0.1:9101"), REACHES(REACH_PLAN)},
    /* run/ keeps the finished document in the store */
    {SAMPLE("store", "runs.db"), REACHES(REACH_CLI)},
    {.name = "help", .action = true},
    {.name = "version", .action = true},
};

static const struct option_sample *sample_of(const char *name)
{
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(samples); i++) {
        if (strcmp(samples[i].name, name) == 0) {
            return &samples[i];
        }
    }
    return NULL;
}

#endif
