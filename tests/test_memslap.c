/* Unit tests of memslap's face: who invokes it, its command line mapped onto slap's options,
 * and its report laid out byte for byte as memslap's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/options/memslap.h"

#define MAX_ARGS 16

/* One call of memslap_parse with everything it printed. */
struct ms_parse {
    enum options_outcome outcome;
    struct memslap_args a;
    struct slap_options o;
    char *out;
    char *err;
};

/* Parse "memslap" followed by the NULL-terminated args. */
static void parse(struct ms_parse *r, const char *const *args)
{
    char *argv[MAX_ARGS + 2] = {"memslap"};
    int argc = 1;
    for (; args[argc - 1] != NULL; argc++) {
        assert_true(argc <= MAX_ARGS);
        argv[argc] = (char *)args[argc - 1];
    }
    size_t out_size = 0, err_size = 0;
    FILE *out = open_memstream(&r->out, &out_size);
    FILE *err = open_memstream(&r->err, &err_size);
    assert_non_null(out);
    assert_non_null(err);
    r->outcome = memslap_parse(&r->a, &r->o, "memslap", argc, argv, out, err);
    fclose(out);
    fclose(err);
}

static void ms_free(struct ms_parse *r)
{
    free(r->out);
    free(r->err);
}

static void test_invoked(void **state)
{
    (void)state;
    int first = -1;
    char *by_link[] = {"/usr/local/bin/memcslap", "-c", "4"};
    char *by_name[] = {"memslap"};
    char *installed[] = {"slap-memslap"};
    char *by_word[] = {"./slap", "memslap", "-c", "4"};
    char *plain[] = {"slap", "-c", "4"};
    char *later[] = {"slap", "-c", "memslap"};
    assert_true(memslap_invoked(3, by_link, &first));
    assert_int_equal(first, 0);
    assert_true(memslap_invoked(1, by_name, &first));
    assert_true(memslap_invoked(1, installed, &first));
    assert_true(memslap_invoked(4, by_word, &first));
    assert_int_equal(first, 1);
    assert_false(memslap_invoked(3, plain, &first));
    assert_false(memslap_invoked(3, later, &first));
}

/* memslap's default: one thread sets 10000 keys, once each. */
static void test_defaults(void **state)
{
    (void)state;
    struct ms_parse r;
    unsetenv("MEMCACHED_SERVERS");
    parse(&r, (const char *const[]){NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_int_equal(r.a.test, MEMSLAP_SET);
    assert_string_equal(r.o.servers, SLAP_DEFAULT_SERVER);
    assert_int_equal(r.o.threads, 1);
    assert_int_equal(r.o.concurrency, 1);
    assert_int_equal(r.o.conns_per_client, 1);
    assert_int_equal(r.o.execute_number, 10000);
    assert_int_equal(r.o.win_size, 10000);
    assert_true(r.o.mix[OP_SET] == 1.0 && r.o.mix[OP_GET] == 0.0);
    assert_true(r.o.shared_keys);
    assert_false(r.o.multiget_window);
    assert_int_equal(r.o.protocol, PROTO_ASCII);
    assert_int_equal(size_dist_max(&r.o.key_sizes), 59);
    assert_int_equal(size_dist_max(&r.o.value_sizes), 4999);
    ms_free(&r);
}

/* The seed script's line: unique prefixes, per-thread counts, the ignored --initial-load. */
static void test_seed_line(void **state)
{
    (void)state;
    struct ms_parse r;
    parse(&r, (const char *const[]){"--server=127.0.0.1:23456", "--concurrency=8",
                                    "--execute-number=100000", "--initial-load=5000000", "--flush",
                                    "--binary", NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_string_equal(r.o.servers, "127.0.0.1:23456");
    assert_int_equal(r.o.threads, 8);
    assert_int_equal(r.o.concurrency, 8);
    assert_int_equal(r.o.execute_number, 800000); /* 100000 a thread */
    assert_int_equal(r.o.win_size, 100000);
    assert_int_equal(r.a.initial_load, 5000000);
    assert_true(r.o.flush);
    assert_int_equal(r.o.protocol, PROTO_BINARY);
    ms_free(&r);
}

static void test_get_and_mget(void **state)
{
    (void)state;
    struct ms_parse r;
    parse(&r, (const char *const[]){"-t", "get", "-c", "4", "-e", "500", "-H", "md5", NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_true(r.o.mix[OP_SET] == 0.0 && r.o.mix[OP_GET] == 1.0); /* the keys are loaded first */
    assert_int_equal(r.o.execute_number, 2000);
    assert_int_equal(r.o.division, 1);
    assert_int_equal(r.o.hash, HASH_MD5);
    ms_free(&r);
    parse(&r, (const char *const[]){"--test=mget", "-c", "4", "-e", "500", NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_int_equal(r.o.execute_number, 4); /* one multi-get a thread */
    assert_int_equal(r.o.division, 500);     /* of every key */
    assert_true(r.o.multiget_window);
    ms_free(&r);
}

/* A usage error: OPTIONS_USAGE, a message with want in it, and the --help hint. */
static void assert_refused(const char *const *args, const char *want)
{
    struct ms_parse r;
    parse(&r, args);
    assert_int_equal(r.outcome, OPTIONS_USAGE);
    if (strstr(r.err, want) == NULL || strstr(r.err, "Try 'memslap --help'") == NULL) {
        fail_msg("stderr %s lacks '%s'", r.err, want);
    }
    ms_free(&r);
}

static void test_refused(void **state)
{
    (void)state;
    assert_refused((const char *const[]){"--test=foo", NULL}, "'foo' is not one of get, mget, set");
    assert_refused((const char *const[]){"--noreply", NULL}, "--noreply");
    assert_refused((const char *const[]){"-U", "-t", "mget", NULL}, "does not fit one datagram");
    assert_refused((const char *const[]){"-t", "mget", "-e", "1000000", "-c", "64", NULL},
                   "MiB of request buffers");
    assert_refused((const char *const[]){"-e", "0", NULL}, "--execute-number: must be at least 1");
    assert_refused((const char *const[]){"-c", "0", NULL}, "--concurrency: must be at least 1");
    assert_refused((const char *const[]){"--time=3s", NULL}, "unknown option '--time'");
    assert_refused((const char *const[]){"-s", "host:99999", NULL}, "--servers: 'host:99999'");
    assert_refused((const char *const[]){"-s", "", NULL}, "--servers: the list is empty");
}

/* --noreply goes with get and mget (it would only change the load); MEMCACHED_SERVERS. */
static void test_accepted(void **state)
{
    (void)state;
    struct ms_parse r;
    setenv("MEMCACHED_SERVERS", "127.0.0.1:23457,127.0.0.1:23458", 1);
    parse(&r, (const char *const[]){"-R", "-t", "get", "-n", "-N", "-B", "-q", NULL});
    unsetenv("MEMCACHED_SERVERS");
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_string_equal(r.o.servers, "127.0.0.1:23457,127.0.0.1:23458");
    assert_true(r.a.quiet);
    ms_free(&r);
    parse(&r, (const char *const[]){"-U", "-e", "100", NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_true(r.o.udp);
    assert_true(size_dist_max(&r.o.value_sizes) < 1400); /* a set fits one datagram */
    assert_non_null(strstr(r.err, "--udp: values of 50 to"));
    ms_free(&r);
}

static void test_help_version(void **state)
{
    (void)state;
    struct ms_parse r;
    parse(&r, (const char *const[]){"--help", NULL});
    assert_int_equal(r.outcome, OPTIONS_EXIT);
    static const char *const listed[] = {"--servers",      "--concurrency",  "--execute-number",
                                         "--initial-load", "--test",         "--flush",
                                         "--binary",       "--udp",          "--noreply",
                                         "--hash",         "--non-blocking", "--tcp-nodelay",
                                         "--buffer",       "--verbose",      "--quiet",
                                         "--debug",        "--version",      "--help"};
    for (size_t i = 0; i < sizeof(listed) / sizeof(listed[0]); i++) {
        if (strstr(r.out, listed[i]) == NULL) {
            fail_msg("--help lacks %s", listed[i]);
        }
    }
    ms_free(&r);
    parse(&r, (const char *const[]){"-V", NULL});
    assert_int_equal(r.outcome, OPTIONS_EXIT);
    assert_non_null(strstr(r.out, "memslap"));
    ms_free(&r);
}

/* The report, fed the figures of memslap's own run in shared/reference/
 * memslap-c4-e10000-flush-binary.txt, prints that file's lines byte for byte. */
static void test_report_layout(void **state)
{
    (void)state;
    static const char memslap_said[] =
        "Time to flush             1 servers:                  0.000 seconds.\n"
        "Time to generate      10000 test keys:                0.021 seconds.\n"
        "Time to start             4 threads:                  0.000 seconds.\n"
        "--------------------------------------------------------------------\n"
        "Time to set           40000 keys by    4 threads:     0.487 seconds.\n"
        "--------------------------------------------------------------------\n"
        "Time total:                                           0.509 seconds.\n";
    struct memslap_args a = {.concurrency = 4,
                             .execute_number = 10000,
                             .test = MEMSLAP_SET,
                             .flush = true,
                             .binary = true};
    struct memslap_times t = {.flush = 0.0001,
                              .generate = 0.021,
                              .start = 0.0002,
                              .test = 0.487,
                              .total = 0.509,
                              .servers = 1};
    static struct slap_stats s;
    char *text = NULL;
    size_t len = 0;
    stats_reset(&s);
    s.counters.cmd_set = 40000;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    assert_int_equal(memslap_report(out, &a, &t, &s), SLAP_OK);
    fclose(out);
    assert_memory_equal(text, memslap_said, strlen(memslap_said)); /* then slap's additions */
    free(text);
}

/* get: the load's line, the count the server answered, misses after Time total:. */
static void test_report_get(void **state)
{
    (void)state;
    struct memslap_args a = {.concurrency = 2, .execute_number = 100, .test = MEMSLAP_GET};
    struct memslap_times t = {.generate = 0.001,
                              .load = 0.015,
                              .loaded = 100,
                              .start = 0.001,
                              .test = 123.4567,
                              .total = 123.5};
    static struct slap_stats s;
    char *text = NULL;
    size_t len = 0;
    stats_reset(&s);
    s.counters.cmd_get = 200;
    s.counters.get_misses = 3;
    s.counters.conn_closed = 1;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    assert_int_equal(memslap_report(out, &a, &t, &s), SLAP_OK);
    fclose(out);
    assert_string_equal(text,
                        "Time to generate        100 test keys:                0.001 seconds.\n"
                        "Time to set             100 keys:                     0.015 seconds.\n"
                        "Time to start             2 threads:                  0.001 seconds.\n"
                        "--------------------------------------------------------------------\n"
                        "Time to get             200 keys by    2 threads:   123.457 seconds.\n"
                        "--------------------------------------------------------------------\n"
                        "Time total:                                         123.500 seconds.\n"
                        "get_misses: 3\n"
                        "conn_closed: 1\n");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_invoked),      cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_seed_line),    cmocka_unit_test(test_get_and_mget),
        cmocka_unit_test(test_refused),      cmocka_unit_test(test_accepted),
        cmocka_unit_test(test_help_version), cmocka_unit_test(test_report_layout),
        cmocka_unit_test(test_report_get),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
