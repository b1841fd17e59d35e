/* Unit tests of option parsing: the option table, good and bad command lines, --help, and every
 * row's value shown as --json shows it and read back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slap/base/common.h"
#include "slap/base/json.h"
#include "slap/base/version.h"
#include "slap/model/cfgfile.h"
#include "slap/model/keydist.h"
#include "slap/model/schedule.h"
#include "slap/model/sizelaw.h"
#include "slap/options/options.h"
#include "slap/output/results.h"
#include "slap/output/results_json.h"

#include "option_samples.h"
#include "slap/options/plan_output.h"

#define MAX_ARGS 32
#define SEC SLAP_NS_PER_SEC

/* One call of options_parse with everything it printed. */
struct parse_result {
    enum options_outcome outcome;
    struct slap_options o;
    char *out;
    char *err;
};

/* Parse "slap" followed by the NULL-terminated args. */
static void parse(struct parse_result *r, const char *const *args)
{
    char *argv[MAX_ARGS + 2] = {"slap"};
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
    r->outcome = options_parse(&r->o, argc, argv, out, err);
    fclose(out);
    fclose(err);
}

static void parse_result_free(struct parse_result *r)
{
    free(r->out);
    free(r->err);
}

static size_t count_lines(const char *text)
{
    size_t lines = 0;
    for (; *text != '\0'; text++) {
        lines += *text == '\n';
    }
    return lines;
}

static void assert_same_options(const struct slap_options *a, const struct slap_options *b)
{
    assert_string_equal(a->servers, b->servers);
    assert_int_equal(a->threads, b->threads);
    assert_int_equal(a->concurrency, b->concurrency);
    assert_int_equal(a->conns_per_client, b->conns_per_client);
    assert_int_equal(a->execute_number, b->execute_number);
    assert_int_equal(a->run_time_ns, b->run_time_ns);
    assert_int_equal(a->win_size, b->win_size);
    assert_int_equal(a->key_size, b->key_size);
    assert_int_equal(a->value_size, b->value_size);
    assert_int_equal(a->stat_freq_ns, b->stat_freq_ns);
    assert_int_equal(a->reconnect, b->reconnect);
    assert_true(a->mix[OP_SET] == b->mix[OP_SET]);
    assert_true(a->mix[OP_GET] == b->mix[OP_GET]);
}

static int unset_servers_env(void **state)
{
    (void)state;
    unsetenv("MEMCACHED_SERVERS");
    return 0;
}

/* ---- the table ------------------------------------------------------------------------ */

static void test_table(void **state)
{
    (void)state;
    size_t rows = options_table_size();
    assert_int_equal(rows, 86);
    for (size_t i = 0; i < rows; i++) {
        const char *name = options_table_long_name(i);
        assert_non_null(name);
        assert_null(strchr(name, '-')); /* the table holds memaslap's underscore spelling */
        for (size_t j = i + 1; j < rows; j++) {
            assert_string_not_equal(name, options_table_long_name(j));
            if (options_table_short(i) != 0) {
                assert_int_not_equal(options_table_short(i), options_table_short(j));
            }
        }
    }
    assert_null(options_table_long_name(rows));
    assert_int_equal(options_table_short(rows), 0);
}

/* Every row answers to both spellings, alike. */
/* The outputs are known by their rows, not by lists: any two given one file are refused, one
 * that does not take "-" refuses it, and a groups run keeps each for itself (handed to every
 * group, each would write it). A new output row is checked here without a line of its own. */
static void test_outputs_from_rows(void **state)
{
    (void)state;
    size_t outputs = 0;
    for (size_t i = 0; i < options_table_size(); i++) {
        unsigned use = options_table_groups(i);
        assert_true(!(use & GROUPS_NONE) || (use & GROUPS_RUN)); /* none with groups: the run's */
        if (!options_table_writes_file(i)) {
            continue;
        }
        outputs++;
        assert_true(use & GROUPS_RUN);
        char a[80], b[80];
        snprintf(a, sizeof(a), "--%s", options_table_long_name(i));
        struct parse_result r;
        parse(&r, (const char *const[]){a, "-", NULL});
        bool takes_stdout = r.outcome == OPTIONS_RUN;
        if (!takes_stdout) {
            assert_int_equal(r.outcome, OPTIONS_USAGE);
            assert_non_null(strstr(r.err, "write to standard output (-)"));
        }
        parse_result_free(&r);
        for (size_t j = i + 1; j < options_table_size(); j++) {
            if (!options_table_writes_file(j)) {
                continue;
            }
            snprintf(b, sizeof(b), "--%s", options_table_long_name(j));
            parse(&r, (const char *const[]){a, "out.same", b, "./out.same", NULL});
            assert_int_equal(r.outcome, OPTIONS_USAGE);
            assert_non_null(strstr(r.err, "are the same file"));
            parse_result_free(&r);
        }
    }
    assert_true(outputs >= 5); /* --json, --csv, --svg, --samples, --hdr_out at least */
}

static void test_table_spellings(void **state)
{
    (void)state;
    for (size_t i = 0; i < options_table_size(); i++) {
        char underscore[64], hyphen[64];
        snprintf(underscore, sizeof(underscore), "--%s", options_table_long_name(i));
        snprintf(hyphen, sizeof(hyphen), "%s", underscore);
        for (char *c = hyphen + 2; *c != '\0'; c++) {
            *c = *c == '_' ? '-' : *c;
        }
        struct parse_result a, b;
        parse(&a, (const char *const[]){underscore, NULL});
        parse(&b, (const char *const[]){hyphen, NULL});
        assert_int_equal(a.outcome, b.outcome);
        assert_string_equal(a.out, b.out);
        assert_string_equal(a.err, b.err);
        assert_null(strstr(a.err, "unknown option"));
        parse_result_free(&a);
        parse_result_free(&b);
    }
}

/* ---- bad command lines ---------------------------------------------------------------- */

struct bad_line {
    const char *args[6];
    const char *expect; /* a part of the first error line */
};

static const struct bad_line bad_lines[] = {
    {{"-T", "0"}, "--threads: must be at least 1"},
    {{"-T", "1025"}, "--threads: must be at most 1024"},
    {{"-T", "abc"}, "slap: --threads: 'abc' is not a number"},
    {{"-T", "2k"}, "--threads: '2k' is not a number"},
    {{"-T", "-1"}, "--threads: '-1' must not be negative"},
    {{"-T", ""}, "--threads"},
    {{"-T"}, "slap: --threads needs a value"},
    {{"--threads"}, "slap: --threads needs a value"},
    {{"-c", "2", "-T", "4"}, "slap: --concurrency (2) must be at least --threads (4)"},
    {{"-T", "32"}, "--concurrency (16) must be at least --threads (32)"},
    {{"-c", "0"}, "--concurrency: must be at least 1"},
    {{"-c", "1000001"}, "--concurrency: must be at most"},
    {{"-n", "0"}, "--conn_sock"},
    {{"--conn-sock=1025"}, "--conn_sock: must be at most 1024"},
    {{"-x", "0"}, "--execute_number: must be at least 1"},
    {{"-x", "99999999999999999999"}, "--execute_number: '99999999999999999999' is too large"},
    {{"-x", "10kk"}, "--execute_number: '10kk' has an unknown unit"},
    {{"-P", "2.5k"}, "--tps: '2.5k' is not a whole number"},
    {{"-t", "10x"}, "slap: --time: '10x' has an unknown unit (use ms, s, m, h or d)"},
    {{"-t", "0"}, "--time: must be more than 0"},
    {{"-t", "1.5.2s"}, "--time"},
    {{"-t", "s"}, "--time: 's' is not a number"},
    {{"-w", "0"}, "slap: --win_size: must be at least 1"},
    {{"-w", "0k"}, "slap: --win_size: must be at least 1"},
    {{"--win-size=5g"}, "--win_size: must be at most 4294967296"},
    {{"-X", "0"}, "--fixed_size: must be at least 1"},
    {{"-X", "2m"}, "--fixed_size: must be at most 1048576"},
    {{"-S", "0s"}, "--stat_freq: must be more than 0"},
    {{"--stat_freq="}, "--stat_freq: '' is not a number"},
    {{"-s", ""}, "--servers"},
    {{"-s", "127.0.0.1:70000"}, "--servers: '127.0.0.1:70000': the port is not a number"},
    {{"-s", "h:0"}, "'h:0': the port is not a number from 1 to 65535"},
    {{"-s", "h:0x57b"}, "'h:0x57b': the port is not a number"},
    {{"-s", "h:-1"}, "'h:-1': the port is not a number"},
    {{"-s", ":11211"}, "':11211': the host is empty"},
    {{"-s", "127.0.0.1:22411abc"}, "'127.0.0.1:22411abc': the port is not a number"},
    {{"-s", ",127.0.0.1:22411"}, "--servers: entry 1 is empty"},
    {{"-s", "a:1,,b:2"}, "--servers: entry 2 is empty"},
    {{"-s", "a:1,"}, "--servers: entry 2 is empty"},
    {{"-s", "[::1"}, "'[::1': no ']' closes the IPv6 address"},
    {{"-s", "[::1]x"}, "'[::1]x': after ']' only ':PORT' may follow"},
    {{"-s", "127.0.0.1:22411:1"}, "'127.0.0.1:22411:1': nothing may follow the port"},
    {{"-s", "::1"}, "'::1': write an IPv6 address in brackets"},
    {{"-s", "2001:db8::1:11211"}, "write an IPv6 address in brackets"},
    {{"-s", "/tmp/x.sock", "-U"}, "--udp needs host:port servers, and --servers lists a unix"},
    {{"-p", "2"}, "--rep_write 2: only 1 server is listed"},
    {{"-x", "1e3"}, "--execute_number: '1e3' is not a whole number (digits, then k, m or g)"},
    {{"--bogus"}, "slap: unknown option '--bogus'"},
    {{"--foo=1"}, "slap: unknown option '--foo'"},
    {{"-Z"}, "slap: unknown option '-Z'"},
    {{"-RZ"}, "unknown option '-Z'"},
    {{"--ver"}, "option '--ver' is ambiguous"},
    {{"--reconnect=yes"}, "slap: --reconnect does not take a value"},
    {{"--protocol=thrift"}, "--protocol: 'thrift' is not one of ascii, binary, meta"},
    {{"--tls-ca=/nonexistent/ca.pem", "--tls"}, "--tls_ca: cannot read '/nonexistent/ca.pem'"},
    {{"--tls-skip-verify"}, "need --tls"},
    {{"--tls", "--flush"}, "cannot be used with --tls"},
    {{"--tls", "--tls-version=1.1"}, "--tls_version: '1.1' is not one of 1.2, 1.3"},
    {{"--tls", "--tls-cert=/dev/null"}, "--tls_cert and --tls_key go together"},
    {{"-F", "/nonexistent/slap.cfg"}, "slap: --cfg_cmd: cannot read '/nonexistent/slap.cfg'"},
    {{"-F"}, "slap: --cfg_cmd needs a value"},
    {{"-d", "0"}, "--division: must be at least 1"},
    {{"-d", "513"}, "--division: must be at most 512"},
    {{"-e", "0"}, "--exp_verify: '0' is not a fraction above 0 and up to 1"},
    {{"-o", "1.5"}, "--overwrite: '1.5' is not a fraction"},
    {{"-p", "0"}, "--rep_write: must be at least 1"},
    {{"--key-size=8"}, "--key_size"},
    {{"--value-size=1-2m"}, "--value_size"},
    {{"--ratio=1"}, "--ratio: '1' is not SET:GET"},
    {{"--ratio=0:0"}, "not both 0"},
    {{"--exp-time=1.5s"}, "--exp_time: '1.5s' is not whole seconds"},
    /* above 30 days memcached reads a Unix time: one past what the protocol carries */
    {{"--exp-time=4294967296"}, "--exp_time: 4294967296 s is more than 30 days"},
    {{"--exp-time=4294967296", "-B"}, "past the latest the binary protocol carries"},
    {{"--exp-time=1000000000"}, "past the latest the ascii protocol carries (2147483647"},
    {{"--exp-time=1000000000", "--protocol=meta"}, "the meta protocol carries"},
    {{"--mix=get=1.7e308,set=1e307"},
     "--mix: 'get=1.7e308,set=1e307': the shares add up to "
     "more than a number can hold"},
    {{"--ratio=1e308:1e308"}, "--ratio: '1e308:1e308' is not SET:GET"},
    {{"--ratio=1e309:1"}, "--ratio: '1e309:1' is not SET:GET"},
    {{"--ratio=1:1e999"}, "--ratio: '1:1e999' is not SET:GET"},
    {{"--distribution=random"}, "--distribution: 'random' is not one of modula, ketama"},
    {{"--hash=sha1"}, "--hash: 'sha1' is not one of"},
    {{"--hash=sha1"},
     "--hash: 'sha1' is not one of default, md5, crc, fnv1_64, fnv1a_64, fnv1_32, fnv1a_32, "
     "hsieh, murmur, jenkins, murmur3\n"},
    {{"--key-dist=pareto"}, "--key_dist"},
    {{"--key-pattern=set"}, "--key_pattern: 'set' is not OP:LAW"},
    {{"--key-pattern=get:zipf,set:pareto"}, "--key_pattern: 'set:pareto': the law is sequential"},
    {{"--key-pattern=set:latest"}, "set:latest: latest ranks keys by when set's walk stored them"},
    {{"--key-pattern=incr:latest"}, "incr cannot take it"},
    {{"--key-pattern=all:latest"},
     "--key_pattern: set:latest: latest ranks keys by when set's walk stored them; set cannot "
     "take it"},
    {{"--key-pattern=set:zipf", "--key_dist=latest"},
     "--key_dist, --key_pattern: get:latest ranks keys by when set's walk stored them: it cannot "
     "be used with --key_pattern set:zipf"},
    {{"--key-pattern=write:gaussian", "-o", "0.1"},
     "--overwrite chooses the sets that rewrite a stored key: it cannot be used with "
     "--key_pattern set:LAW"},
    {{"--key_min=5", "-w", "10"},
     "--win_size sizes each client's own window: it cannot be used "
     "with --key_min"},
    {{"--key_max=5", "-v", "0.1"},
     "--verify checks a value against what its own client set: it "
     "cannot be used with --key_max"},
    {{"--key_max=5", "-o", "0.1"}, "--overwrite overwrites keys its own client set: it cannot"},
    {{"--key_min=5", "-e", "0.1"}, "--exp_verify checks the expiry of what its own client set"},
    {{"--key_min=20", "--key_max=10"}, "--key_min (20) is above --key_max (10)"},
    {{"--key_max=4294967296"}, "--key_max: must be at most 4294967295"},
    {{"--key_min=0", "--key_max=2", "--share=1/4,keys"},
     "--share 1/4,keys gives each host a part of --key_min's range: its 3 keys are fewer than "
     "the hosts"},
    {{"--tps=0"}, "slap: --tps: must be at least 1"},
    {{"-P", "1x"}, "--tps: '1x' has an unknown unit"},
    {{"-P", "1k", "--arrival=zipf"}, "--arrival: 'zipf' is no law of arrivals: uniform, poisson"},
    {{"-P", "1k", "--arrival=gpareto:1"},
     "gpareto:SHAPE takes a shape from 0 and below 0.5 "
     "(from 0.5 the gaps' variance is infinite"},
    {{"-P", "1k", "--arrival=gpareto:0.5"},
     "gpareto:SHAPE takes a shape from 0 and below 0.5 "
     "(from 0.5 the gaps' variance is infinite"},
    {{"-P", "1k", "--arrival=gev:0.5"},
     "gev:SHAPE takes a shape above 0 and below 0.5 (from "
     "0.5 the gaps' variance is infinite"},
    {{"-P", "1k", "--arrival=gev:1e9"}, "gev:SHAPE takes a shape above 0 and below 0.5 (from"},
    {{"-P", "1k", "--arrival=gev:0"},
     "gev:SHAPE takes a shape above 0 and below 0.5 (at 0 "
     "and below the law has no least gap"},
    {{"-P", "1k", "--arrival=gpareto:-1e-9"},
     "gpareto:SHAPE takes a shape from 0 and below "
     "0.5 (below 0 the gaps are bounded"},
    {{"-P", "1k", "--arrival=normal:0.5"},
     "normal:SHAPE takes a shape above 0 and up to 0.33 "
     "(beyond it more gaps fall below 0"},
    {{"-P", "1k", "--arrival=normal:0"},
     "normal:SHAPE takes a shape above 0 and up to 0.33 "
     "(a deviation of 0 is --arrival=uniform)"},
    {{"-P", "1k", "--arrival=poisson:2"}, "--arrival: 'poisson:2' is no law of arrivals"},
    {{"-P", "1k", "--arrival=etc:0.1"}, "--arrival: 'etc:0.1' is no law of arrivals"},
    {{"-P", "1k", "--arrival=gev"}, "gev:SHAPE takes a shape"},
    {{"-P", "1k", "--arrival=gpareto:0.1x"}, "gpareto:SHAPE takes a shape"},
    {{"--arrival=poisson"}, "--arrival needs --tps, --sweep or --ramp"},
    {{"--arrival=uniform"}, "--arrival needs --tps, --sweep or --ramp"}, /* given, the default */
    {{"--ramp=1k:2k"}, "--ramp: '1k:2k' is not FROM:TO/DURATION"},
    {{"--ramp=1k:0/1m"}, "TO one from 1 to 1g"},
    {{"--ramp=x:2k/1m"}, "FROM is a rate from 0 to 1g"},
    {{"--ramp=1k:2k/0"}, "DURATION is a time above 0"},
    {{"--ramp=1k:2k/1us"}, "--ramp: '1k:2k/1us': DURATION has an unknown unit (use ms, s, m, h"},
    {{"--ramp=1k:2k/1000000d"}, "--ramp: '1k:2k/1000000d': DURATION is too large"},
    {{"--ramp=1k:2k/1m", "-P", "1k"},
     "--ramp sets the rate of one timed open-loop run: it cannot "
     "be used with --tps"},
    {{"--ramp=1k:2k/1m", "--sweep=1k:2k:1k"}, "cannot be used with --sweep"},
    {{"--ramp=1k:2k/1m", "-x", "10"}, "cannot be used with --execute_number"},
    {{"--ramp=1k:2k/1m", "--rounds=2"}, "cannot be used with --rounds"},
    {{"--ramp=1k:2k/1m", "--warmup=1s"}, "cannot be used with --warmup"},
    {{"--ramp=1k:2k/1m", "--probe"}, "cannot be used with --probe"},
    {{"--ramp=1k:2k/1m", "--trace=-"}, "cannot be used with --trace"},
    {{"--ramp=1k:2k/1m", "--precision=p99=5%"}, "cannot be used with --precision"},
    {{"--pipeline=0"}, "--pipeline: must be at least 1"},
    {{"--pipeline=2000"}, "--pipeline: must be at most 1024"},
    {{"--latency=raw"}, "--latency: 'raw' is not one of both, corrected, uncorrected"},
    {{"--percentiles=50,abc"}, "--percentiles: 'abc' is not a number"},
    {{"--percentiles=99,50"}, "in increasing order"},
    {{"--percentiles=101"}, "--percentiles: '101'"},
    {{"--percentiles="}, "--percentiles: '' is not a number"},
    {{"--sweep=1k:2k"}, "--sweep: '1k:2k' is not START:END:STEP"},
    {{"--sweep=2k:1k:1"}, "END must be at least START"},
    {{"--sweep=1:100k:1"}, "1000 steps at most"},
    {{"--sweep=1k:2k:1k", "-P", "1k"}, "cannot be used with --tps"},
    {{"--sweep=1k:2k:1k", "-x", "10"}, "cannot be used with --tps or --execute_number"},
    {{"--step-time=2s"}, "--step_time needs --sweep"},
    {{"--step-time=5s"}, "--step_time needs --sweep"}, /* given, though the default */
    {{"--warmup=0"}, "--warmup: must be more than 0"},
    {{"--hdr-out="}, "--hdr_out: the file name is empty"},
    {{"-U", "-X", "2000"}, "--udp: a set of a 2000-byte value does not fit one datagram"},
    {{"-U", "--pipeline=2"}, "cannot be used with --pipeline or --tls"},
    {{"-a", "-d", "100"}, "--facebook: a get of 100 keys"},
    {{"-U", "-a"}, "--udp and --facebook: choose one"},
    {{"--udp=1"}, "slap: --udp does not take a value"},
    {{"--udp-timeout=0"}, "--udp_timeout: must be more than 0"},
    {{"--timeout=0"}, "--timeout: must be more than 0"},
    {{"-v", "0"}, "--verify: '0' is not a fraction above 0 and up to 1"},
    {{"-v", "x"}, "--verify: 'x' is not a fraction"},
    {{"--trace=t.csv", "-P", "1k"},
     "--trace takes its keys, values, mix and times from the "
     "trace: it cannot be used with --tps"},
    {{"--trace=t.csv", "-U"}, "cannot be used with --udp"},
    {{"--trace=t.csv", "-w", "10"}, "cannot be used with --win_size"},
    {{"--trace=t.csv", "--mix=get=1"}, "cannot be used with --mix"},
    {{"--trace-speed=2"}, "--trace_speed needs --trace"},
    {{"--trace-limit=5"}, "--trace_limit needs --trace"},
    {{"--trace-skip-bad"}, "--trace_skip_bad needs --trace"},
    {{"--trace=t.csv", "--trace-speed=0"}, "--trace_speed: '0' is neither max nor a number"},
    {{"--trace=t.csv", "--trace-speed=fast"}, "--trace_speed: 'fast' is neither max"},
    {{"--trace=t.csv", "--trace-spread=random"},
     "--trace_spread: 'random' is not one of client, round-robin"},
    {{"--trace=t.csv", "--trace-value-max=0"}, "--trace_value_max: must be at least 1"},
    {{"--label", "ab\033cd"}, "--label 'ab\\x1bcd': the name holds a control character"},
    {{"--label=tab\there"}, "--label 'tab\\x09here': the name holds a control character"},
    {{"--label", "del\177"}, "--label 'del\\x7f': the name holds a control character"},
    {{"--label", "bad\377utf8"},
     "--label 'bad\\xffutf8': the name holds a control character "
     "or a byte of no UTF-8 character"},
    {{"--label",
      "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890"
      "1234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901"
      "234567890123456789012345678901234567890123456789012345678901234567890123456"},
     "9'...: the name is longer than 255 bytes"},
    {{"--label="}, "--label '': the name is empty"},
    {{"extra"}, "slap: unexpected argument 'extra'"},
    {{"-t", "1s", "extra"}, "unexpected argument 'extra'"},
    {{"--", "-T"}, "unexpected argument '-T'"},
};

static void test_bad_lines(void **state)
{
    (void)state;
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(bad_lines); i++) {
        struct parse_result r;
        parse(&r, bad_lines[i].args);
        if (r.outcome != OPTIONS_USAGE || strstr(r.err, bad_lines[i].expect) == NULL ||
            count_lines(r.err) != 2 || strncmp(r.err, "slap: ", 6) != 0 ||
            strstr(r.err, "\nTry 'slap --help' for more information.\n") == NULL) {
            fail_msg("case %zu (%s ...): outcome %d, err '%s', expected '%s'", i,
                     bad_lines[i].args[0], (int)r.outcome, r.err, bad_lines[i].expect);
        }
        assert_string_equal(r.out, "");
        parse_result_free(&r);
    }
}

/* A failed parse leaves getopt mid-argument; the next parse must start clean. */
static void test_parse_again(void **state)
{
    (void)state;
    struct parse_result r;
    parse(&r, (const char *const[]){"-RZT", "3", NULL}); /* stops with "T" still unread */
    assert_int_equal(r.outcome, OPTIONS_USAGE);
    parse_result_free(&r);
    parse(&r, (const char *const[]){"-c", "5", NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_string_equal(r.err, "");
    assert_int_equal(r.o.concurrency, 5);
    assert_int_equal(r.o.threads, 1);
    assert_false(r.o.reconnect);
    parse_result_free(&r);
}

/* ---- good command lines --------------------------------------------------------------- */

static void test_defaults(void **state)
{
    (void)state;
    struct parse_result r;
    parse(&r, (const char *const[]){NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "");
    assert_string_equal(r.o.servers, SLAP_DEFAULT_SERVER);
    assert_int_equal(r.o.threads, 1);
    assert_int_equal(r.o.concurrency, 16);
    assert_int_equal(r.o.conns_per_client, 1);
    assert_int_equal(r.o.execute_number, 0);
    assert_int_equal(r.o.run_time_ns, 600 * SEC);
    assert_int_equal(r.o.win_size, 10240);
    assert_int_equal(r.o.key_size, 64);
    assert_int_equal(r.o.value_size, 1024);
    assert_int_equal(r.o.stat_freq_ns, 0);
    assert_false(r.o.reconnect);
    assert_true(r.o.mix[OP_SET] == 0.1);
    assert_true(r.o.mix[OP_GET] == 0.9);

    struct slap_options direct;
    options_defaults(&direct);
    assert_same_options(&direct, &r.o);
    parse_result_free(&r);
}

static void test_full_line(void **state)
{
    (void)state;
    struct parse_result r;
    parse(&r, (const char *const[]){"-s", "h1,h2", "-T", "2", "-c", "64", "--win_size=1k", "-t",
                                    "10s", "-S", "1s", NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_string_equal(r.err, "");
    assert_string_equal(r.o.servers, "h1,h2");
    assert_int_equal(r.o.threads, 2);
    assert_int_equal(r.o.concurrency, 64);
    assert_int_equal(r.o.conns_per_client, 1);
    assert_int_equal(r.o.execute_number, 0);
    assert_int_equal(r.o.run_time_ns, 10 * SEC);
    assert_int_equal(r.o.win_size, 1024);
    assert_int_equal(r.o.key_size, 64);
    assert_int_equal(r.o.value_size, 1024);
    assert_int_equal(r.o.stat_freq_ns, SEC);
    assert_false(r.o.reconnect);
    assert_true(r.o.mix[OP_SET] == 0.1);
    assert_true(r.o.mix[OP_GET] == 0.9);
    parse_result_free(&r);
}

/* Every row of arrival_laws by its name: a shaped one takes the ends of its shapes (or the
 * nearest doubles inside them) and refuses the nearest outside, naming the law, the range and
 * the row's reason; the others take no shape. */
static void test_arrival_rows_at_their_ends(void **state)
{
    (void)state;
    for (size_t i = 0; i < arrival_law_count; i++) {
        const struct arrival_law *law = &arrival_laws[i];
        char arg[96];
        struct parse_result r;
        if (!law->shaped) {
            snprintf(arg, sizeof(arg), "--arrival=%s", law->name);
            parse(&r, (const char *const[]){"-P", "1k", arg, NULL});
            assert_int_equal(r.outcome, OPTIONS_RUN);
            assert_true(r.o.arrival == law->arrival && r.o.arrival_shape == law->shape);
            parse_result_free(&r);
            continue;
        }
        const struct {
            double shape;
            const char *why; /* NULL: taken */
        } ends[] = {
            {law->lo_in ? law->lo : nextafter(law->lo, law->hi), NULL},
            {law->hi_in ? law->hi : nextafter(law->hi, law->lo), NULL},
            {law->lo_in ? nextafter(law->lo, -INFINITY) : law->lo, law->why_lo},
            {law->hi_in ? nextafter(law->hi, INFINITY) : law->hi, law->why_hi},
        };
        for (size_t e = 0; e < SLAP_ARRAY_SIZE(ends); e++) {
            snprintf(arg, sizeof(arg), "--arrival=%s:%.17g", law->name, ends[e].shape);
            parse(&r, (const char *const[]){"-P", "1k", arg, NULL});
            if (ends[e].why == NULL) {
                if (r.outcome != OPTIONS_RUN || r.o.arrival != law->arrival ||
                    r.o.arrival_shape != ends[e].shape) {
                    fail_msg("%s: outcome %d, err '%s'", arg, (int)r.outcome, r.err);
                }
            } else if (r.outcome != OPTIONS_USAGE || strstr(r.err, ends[e].why) == NULL ||
                       strstr(r.err, law->name) == NULL || count_lines(r.err) != 2) {
                fail_msg("%s: outcome %d, err '%s', not the reason '%s'", arg, (int)r.outcome,
                         r.err, ends[e].why);
            }
            parse_result_free(&r);
        }
    }
}

static void test_latency_line(void **state)
{
    (void)state;
    struct parse_result r;
    parse(&r, (const char *const[]){"-P", "10k", "--arrival=poisson", "--pipeline", "4",
                                    "--latency=corrected", "--warmup=1.5s",
                                    "--percentiles=50,99.99", "--hdr-out", "h.hgrm", NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_string_equal(r.err, "");
    assert_true(r.o.tps == 10000.0);
    assert_int_equal(r.o.arrival, ARRIVAL_POISSON);
    assert_int_equal(r.o.pipeline, 4);
    assert_int_equal(r.o.latency, LATENCY_CORRECTED);
    assert_int_equal(r.o.warmup_ns, 1500 * SEC / 1000);
    assert_int_equal(r.o.npercentiles, 2);
    assert_true(r.o.percentiles[0] == 50.0 && r.o.percentiles[1] == 99.99);
    assert_string_equal(r.o.hdr_out, "h.hgrm");
    parse_result_free(&r);
    parse(&r, (const char *const[]){"--sweep=1k:5k:2k", "--step_time=2s", NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_true(r.o.sweep_start == 1000.0 && r.o.sweep_end == 5000.0 && r.o.sweep_step == 2000.0);
    assert_int_equal(r.o.step_time_ns, 2 * SEC);
    assert_true(r.o.tps == 0.0);
    parse_result_free(&r);
    /* --ramp: the run lasts the ramp unless -t is given; FROM may be 0, TO below FROM */
    parse(&r, (const char *const[]){"--ramp=0:20k/30m", "--arrival=poisson", NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_true(r.o.ramp.from == 0.0 && r.o.ramp.to == 20000.0);
    assert_int_equal(r.o.ramp.duration_ns, 1800 * SEC);
    assert_int_equal(r.o.run_time_ns, 1800 * SEC);
    parse_result_free(&r);
    parse(&r, (const char *const[]){"--ramp=2k:500/10s", "-t", "15s", NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_true(r.o.ramp.from == 2000.0 && r.o.ramp.to == 500.0);
    assert_int_equal(r.o.run_time_ns, 15 * SEC);
    parse_result_free(&r);
}

static void test_workload_line(void **state)
{
    (void)state;
    char path[] = "/tmp/slap-options-XXXXXX";
    write_cfg_file(path);
    struct parse_result r;
    parse(&r, (const char *const[]){"-F",
                                    path,
                                    "-d",
                                    "10",
                                    "-v",
                                    "0.5",
                                    "-e",
                                    "0.1",
                                    "--exp-time=5s",
                                    "-o",
                                    "0.2",
                                    "-p",
                                    "2",
                                    "-b",
                                    "-s",
                                    "a:1,b:2",
                                    "--distribution=ketama",
                                    "--hash=md5",
                                    "--key-dist=zipf:1.2",
                                    "--flush",
                                    "--preload",
                                    NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_string_equal(r.err, "");
    assert_int_equal(r.o.key_sizes.n, 1);
    assert_int_equal(r.o.key_sizes.r[0].min, 16);
    assert_int_equal(r.o.key_sizes.r[0].max, 32);
    assert_int_equal(r.o.value_sizes.r[0].max, 200);
    assert_true(r.o.mix[OP_SET] == 0.25 && r.o.mix[OP_GET] == 0.75);
    assert_int_equal(r.o.division, 10);
    assert_true(r.o.verify == 0.5 && r.o.exp_verify == 0.1 && r.o.overwrite == 0.2);
    assert_int_equal(r.o.exp_time_ns, 5 * SEC);
    assert_int_equal(r.o.rep_write, 2);
    assert_true(r.o.verbose && r.o.flush && r.o.preload);
    assert_int_equal(r.o.distribution, DISTRIBUTION_KETAMA);
    assert_int_equal(r.o.hash, HASH_MD5);
    assert_int_equal(r.o.key_pop.kind, KEY_DIST_ZIPF);
    assert_true(r.o.key_pop.s == 1.2);
    parse_result_free(&r);
    /* -X wins over the file's values; --ratio and --key_size over its other sections */
    parse(&r, (const char *const[]){"-F", path, "-X", "64", "--ratio=1:1", "--key-size=20", NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_int_equal(r.o.value_sizes.r[0].min, 64);
    assert_int_equal(r.o.value_sizes.r[0].max, 64);
    assert_true(r.o.mix[OP_SET] == 0.5);
    assert_int_equal(r.o.key_sizes.r[0].max, 20);
    parse_result_free(&r);
    unlink(path);
}

static void test_protocol_line(void **state)
{
    (void)state;
    struct parse_result r;
    parse(&r, (const char *const[]){"-B", NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_int_equal(r.o.protocol, PROTO_BINARY);
    parse_result_free(&r);
    parse(&r, (const char *const[]){"--protocol=meta", "--tls", "--tls-ca=/dev/null",
                                    "--tls-version=1.2", "--tls-skip-verify", NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_int_equal(r.o.protocol, PROTO_META);
    assert_true(r.o.tls && r.o.tls_skip_verify);
    assert_string_equal(r.o.tls_ca, "/dev/null");
    assert_int_equal(r.o.tls_version, TLS_VERSION_1_2);
    parse_result_free(&r);
}

static void test_spellings_agree(void **state)
{
    (void)state;
    struct parse_result underscore, hyphen, shorts;
    parse(&underscore,
          (const char *const[]){"--servers=a:1", "--threads", "4", "--concurrency=8", "--conn_sock",
                                "3", "--execute_number=5k", "--time", "2m", "--win_size=2k",
                                "--fixed_size", "100", "--stat_freq=500ms", "--reconnect", NULL});
    parse(&hyphen,
          (const char *const[]){"--servers=a:1", "--threads", "4", "--concurrency=8", "--conn-sock",
                                "3", "--execute-number=5k", "--time", "2m", "--win-size=2k",
                                "--fixed-size", "100", "--stat-freq=500ms", "--reconnect", NULL});
    parse(&shorts, (const char *const[]){"-sa:1", "-T4", "-c", "8", "-n", "3", "-x", "5k", "-t",
                                         "2m", "-w2k", "-X", "100", "-S", "500ms", "-R", NULL});
    assert_int_equal(underscore.outcome, OPTIONS_RUN);
    assert_int_equal(hyphen.outcome, OPTIONS_RUN);
    assert_int_equal(shorts.outcome, OPTIONS_RUN);
    assert_int_equal(underscore.o.conns_per_client, 3);
    assert_int_equal(underscore.o.execute_number, 5000);
    assert_int_equal(underscore.o.win_size, 2048);
    assert_int_equal(underscore.o.value_size, 100);
    assert_int_equal(underscore.o.stat_freq_ns, 500 * SLAP_NS_PER_MS);
    assert_true(underscore.o.reconnect);
    assert_same_options(&underscore.o, &hyphen.o);
    assert_same_options(&underscore.o, &shorts.o);
    parse_result_free(&underscore);
    parse_result_free(&hyphen);
    parse_result_free(&shorts);
}

static void test_counted_and_edges(void **state)
{
    (void)state;
    struct parse_result r;
    parse(&r, (const char *const[]){"-x", "10k", NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_int_equal(r.o.execute_number, 10000);
    parse_result_free(&r);

    parse(&r, (const char *const[]){"-w", "1", "-X", "1m", "-T", "1024", "-c", "1024", NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_int_equal(r.o.win_size, 1);
    assert_int_equal(r.o.value_size, 1048576);
    assert_int_equal(r.o.threads, 1024);
    parse_result_free(&r);

    parse(&r, (const char *const[]){"--win=4g", "--exec=1", "-t", "1", "-t", "2", NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN); /* unique prefixes; the last -t wins */
    assert_int_equal(r.o.win_size, SLAP_MAX_WIN_SIZE);
    assert_int_equal(r.o.execute_number, 1);
    assert_int_equal(r.o.run_time_ns, 2 * SEC);
    parse_result_free(&r);
}

/* Every name of every choice lands on its enum. */
static void test_choices(void **state)
{
    (void)state;
    static const struct {
        const char *arg;
        size_t field;
        unsigned expected;
    } cases[] = {
        {"--protocol=ascii", offsetof(struct slap_options, protocol), PROTO_ASCII},
        {"--protocol=binary", offsetof(struct slap_options, protocol), PROTO_BINARY},
        {"--protocol=meta", offsetof(struct slap_options, protocol), PROTO_META},
        {"--distribution=modula", offsetof(struct slap_options, distribution), DISTRIBUTION_MODULA},
        {"--distribution=ketama", offsetof(struct slap_options, distribution), DISTRIBUTION_KETAMA},
        {"--hash=default", offsetof(struct slap_options, hash), HASH_DEFAULT},
        {"--hash=md5", offsetof(struct slap_options, hash), HASH_MD5},
        {"--hash=crc", offsetof(struct slap_options, hash), HASH_CRC},
        {"--hash=fnv1_64", offsetof(struct slap_options, hash), HASH_FNV1_64},
        {"--hash=fnv1a_64", offsetof(struct slap_options, hash), HASH_FNV1A_64},
        {"--hash=fnv1_32", offsetof(struct slap_options, hash), HASH_FNV1_32},
        {"--hash=fnv1a_32", offsetof(struct slap_options, hash), HASH_FNV1A_32},
        {"--hash=hsieh", offsetof(struct slap_options, hash), HASH_HSIEH},
        {"--hash=murmur", offsetof(struct slap_options, hash), HASH_MURMUR},
        {"--hash=jenkins", offsetof(struct slap_options, hash), HASH_JENKINS},
        {"--hash=murmur3", offsetof(struct slap_options, hash), HASH_MURMUR3},
        {"--arrival=uniform", offsetof(struct slap_options, arrival), ARRIVAL_UNIFORM},
        {"--arrival=poisson", offsetof(struct slap_options, arrival), ARRIVAL_POISSON},
        {"--latency=both", offsetof(struct slap_options, latency), LATENCY_BOTH},
        {"--latency=corrected", offsetof(struct slap_options, latency), LATENCY_CORRECTED},
        {"--latency=uncorrected", offsetof(struct slap_options, latency), LATENCY_UNCORRECTED},
    };
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(cases); i++) {
        struct parse_result r;
        parse(&r, (const char *const[]){"-P", "1k", cases[i].arg, NULL});
        assert_int_equal(r.outcome, OPTIONS_RUN);
        unsigned got;
        memcpy(&got, (const char *)&r.o + cases[i].field, sizeof(got));
        if (got != cases[i].expected) {
            fail_msg("%s: %u, expected %u", cases[i].arg, got, cases[i].expected);
        }
        parse_result_free(&r);
    }
    struct parse_result r;
    parse(&r, (const char *const[]){"--tls", "--tls-version=1.3", NULL});
    assert_int_equal(r.o.tls_version, TLS_VERSION_1_3);
    parse_result_free(&r);
    parse(&r, (const char *const[]){"--tls", NULL});
    assert_int_equal(r.o.tls_version, TLS_VERSION_ANY);
    parse_result_free(&r);
}

/* Counts beyond 32 bits keep every bit; each lands in its own field. */
static void test_count_widths(void **state)
{
    (void)state;
    struct parse_result r;
    parse(&r, (const char *const[]){"-x",
                                    "5000000001",
                                    "-w",
                                    "4g",
                                    "-P",
                                    "1g",
                                    "-T",
                                    "3",
                                    "-c",
                                    "70000",
                                    "-n",
                                    "1024",
                                    "-p",
                                    "3",
                                    "-s",
                                    "a,b,c",
                                    "--pipeline=1000",
                                    "-d",
                                    "512",
                                    "-X",
                                    "1023k",
                                    NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_int_equal(r.o.execute_number, 5000000001ULL);
    assert_int_equal(r.o.win_size, 4ULL << 30);
    assert_true(r.o.tps == 1e9);
    assert_int_equal(r.o.threads, 3);
    assert_int_equal(r.o.concurrency, 70000);
    assert_int_equal(r.o.conns_per_client, 1024);
    assert_int_equal(r.o.rep_write, 3);
    assert_int_equal(r.o.pipeline, 1000);
    assert_int_equal(r.o.division, 512);
    assert_int_equal(r.o.value_size, 1023 * 1024);
    assert_int_equal(r.o.value_sizes.r[0].max, 1023 * 1024); /* -X sets the value sizes too */
    parse_result_free(&r);
}

/* An option on the command line wins over the -F file and the environment even when its
 * value is the default one: what counts is that it was given. */
static void test_given_beats_file_and_env(void **state)
{
    (void)state;
    char path[] = "/tmp/slap-options-XXXXXX";
    write_cfg_file(path);
    struct parse_result r;
    parse(&r, (const char *const[]){"-F", path, "--key-size=64", "--value-size=1024", "--ratio=1:9",
                                    NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_int_equal(r.o.key_sizes.r[0].min, 64);
    assert_int_equal(r.o.key_sizes.r[0].max, 64);
    assert_int_equal(r.o.value_sizes.r[0].max, 1024);
    assert_true(r.o.mix[OP_SET] == 0.1);
    parse_result_free(&r);
    parse(&r, (const char *const[]){"-F", path, "-X", "1024", NULL});
    assert_int_equal(r.o.value_sizes.r[0].min, 1024);
    assert_int_equal(r.o.key_sizes.r[0].max, 32); /* the file's, not given inline */
    parse_result_free(&r);
    unlink(path);

    setenv("MEMCACHED_SERVERS", "envhost:11311", 1);
    parse(&r, (const char *const[]){"-s", SLAP_DEFAULT_SERVER, NULL});
    assert_string_equal(r.o.servers, SLAP_DEFAULT_SERVER);
    parse_result_free(&r);
}

/* --trace: its times unless -t bounds it, its mix, its options. */
static void test_trace_line(void **state)
{
    (void)state;
    struct parse_result r;
    parse(&r, (const char *const[]){"--trace=t.zst", NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_string_equal(r.o.trace, "t.zst");
    assert_int_equal(r.o.run_time_ns, 0); /* the whole trace */
    assert_true(r.o.trace_speed == 1.0);
    assert_int_equal(r.o.trace_limit, 0);
    assert_int_equal(r.o.trace_spread, TRACE_SPREAD_CLIENT);
    assert_int_equal(r.o.trace_value_max, 1023 * 1024);
    for (int op = 0; op < OP_COUNT; op++) {
        assert_true(r.o.mix[op] == 0.0); /* the trace's commands, not the default mix */
    }
    parse_result_free(&r);

    parse(&r, (const char *const[]){"--trace", "-", "-t", "90s", "--trace-speed=max",
                                    "--trace_limit=2m", "--trace-skip-bad",
                                    "--trace-spread=round-robin", "--trace-value-max=64k", "-c",
                                    "32", "--pipeline=4", NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_string_equal(r.o.trace, "-");
    assert_int_equal(r.o.run_time_ns, 90 * SLAP_NS_PER_SEC);
    assert_true(r.o.trace_speed == 0.0); /* max */
    assert_int_equal(r.o.trace_limit, 2000000);
    assert_true(r.o.trace_skip_bad);
    assert_int_equal(r.o.trace_spread, TRACE_SPREAD_ROUND_ROBIN);
    assert_int_equal(r.o.trace_value_max, 64 * 1024);
    parse_result_free(&r);

    parse(&r, (const char *const[]){"--trace=t", "--trace-speed=0.25", NULL});
    assert_true(r.o.trace_speed == 0.25);
    parse_result_free(&r);
}

static void test_servers_env(void **state)
{
    (void)state;
    struct parse_result r;
    setenv("MEMCACHED_SERVERS", "envhost:11311", 1);
    parse(&r, (const char *const[]){NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_string_equal(r.o.servers, "envhost:11311");
    parse_result_free(&r);

    parse(&r, (const char *const[]){"-s", "cli:1", NULL});
    assert_string_equal(r.o.servers, "cli:1");
    parse_result_free(&r);

    /* set but empty: the empty list, refused as -s '' is, naming the variable */
    setenv("MEMCACHED_SERVERS", "", 1);
    parse(&r, (const char *const[]){NULL});
    assert_int_equal(r.outcome, OPTIONS_USAGE);
    assert_non_null(strstr(r.err, "slap: MEMCACHED_SERVERS: the list is empty"));
    parse_result_free(&r);

    unsetenv("MEMCACHED_SERVERS");
    parse(&r, (const char *const[]){NULL});
    assert_string_equal(r.o.servers, SLAP_DEFAULT_SERVER);
    parse_result_free(&r);
}

static void test_help(void **state)
{
    (void)state;
    struct parse_result r;
    parse(&r, (const char *const[]){"-T", "2", "--help", "--bogus", NULL});
    assert_int_equal(r.outcome, OPTIONS_EXIT);
    assert_string_equal(r.err, "");
    assert_true(strncmp(r.out, "Usage: slap [OPTIONS]\n", 22) == 0);
    for (size_t i = 0; i < options_table_size(); i++) {
        char name[64];
        snprintf(name, sizeof(name), "--%s", options_table_long_name(i));
        if (strstr(r.out, name) == NULL) {
            fail_msg("--help does not list %s", name);
        }
    }
    assert_non_null(strstr(r.out, "  -s, --servers=LIST "));
    assert_non_null(strstr(r.out, "  -B, --binary "));
    assert_null(strstr(r.out, "Not yet supported")); /* every memaslap option works now */
    assert_non_null(strstr(r.out, "slap -s host1,host2:11212 -x 100k\n"));
    for (const char *line = r.out; *line != '\0';) {
        size_t length = strcspn(line, "\n");
        if (length > 79) {
            fail_msg("help line over 79 columns: %.*s", (int)length, line);
        }
        line += length + (line[length] == '\n');
    }
    parse_result_free(&r);

    parse(&r, (const char *const[]){"-h", NULL});
    assert_int_equal(r.outcome, OPTIONS_EXIT);
    assert_non_null(strstr(r.out, "Usage: slap"));
    parse_result_free(&r);
}

/* Whether option's --help text names name as a word of its own, followed by suffix ("normal:"
 * of "normal:MEAN,SD"; "zipf" of "zipf[:S]", never of "zipfian"). */
static bool help_names(const char *option, const char *name, const char *suffix)
{
    const char *help = options_table_help(options_table_find(option));
    char word[64];
    snprintf(word, sizeof(word), "%s%s", name, suffix);
    size_t len = strlen(word);
    for (const char *at = help != NULL ? strstr(help, word) : NULL; at != NULL;
         at = strstr(at + 1, word)) {
        bool before = at == help || !(at[-1] >= 'a' && at[-1] <= 'z');
        bool after = *suffix != '\0' || !(at[len] >= 'a' && at[len] <= 'z');
        if (before && after) {
            return true;
        }
    }
    return false;
}

/* The --help text names every law of the tables it reads: --key_size every size law (NAME:)
 * and the preset, --value_size the preset, --arrival every law of arrivals, --key_dist every
 * law of keys and --key_pattern its own (sequential). A row added to a table fails here until
 * its option's help names it. */
static void test_laws_in_help(void **state)
{
    (void)state;
    for (size_t i = 0; i < size_law_row_count; i++) {
        if (!help_names("key_size", size_law_rows[i].name, ":")) {
            fail_msg("--key_size's help does not name the law %s", size_law_rows[i].name);
        }
    }
    assert_true(help_names("key_size", SIZE_DIST_ETC, ""));
    assert_true(help_names("value_size", SIZE_DIST_ETC, ""));
    for (size_t i = 0; i < arrival_law_count; i++) {
        if (!help_names("arrival", arrival_laws[i].name, arrival_laws[i].shaped ? ":" : "")) {
            fail_msg("--arrival's help does not name the law %s", arrival_laws[i].name);
        }
    }
    for (size_t i = 0; i < key_dist_row_count; i++) {
        const char *option = key_dist_rows[i].pattern_only ? "key_pattern" : "key_dist";
        if (!help_names(option, key_dist_rows[i].name, "")) {
            fail_msg("--%s's help does not name the law %s", option, key_dist_rows[i].name);
        }
    }
}

static void test_version(void **state)
{
    (void)state;
    struct parse_result r;
    parse(&r, (const char *const[]){"--version", NULL});
    assert_int_equal(r.outcome, OPTIONS_EXIT);
    assert_string_equal(r.out, "slap " SLAP_VERSION "\n");
    assert_string_equal(r.err, "");
    parse_result_free(&r);

    parse(&r, (const char *const[]){"-V", NULL});
    assert_int_equal(r.outcome, OPTIONS_EXIT);
    assert_true(strncmp(r.out, "slap ", 5) == 0);
    parse_result_free(&r);
}

/* --exp_time: over 30 days is taken while the protocol can carry it. */
static void test_exp_time_long(void **state)
{
    (void)state;
    struct parse_result r;
    parse(&r, (const char *const[]){"--exp-time=31d", NULL});
    assert_int_equal(r.outcome, OPTIONS_RUN);
    assert_int_equal(r.o.exp_time_ns, 31 * 86400 * SEC);
    parse_result_free(&r);
    parse(&r, (const char *const[]){"--exp-time=1000000000", "-B", NULL}); /* 2057: binary only */
    assert_int_equal(r.outcome, OPTIONS_RUN);
    parse_result_free(&r);
}

/* ---- every row shows what it reads ---------------------------------------------------- */

/* An option's value as shown: what options_value said, and its text. */
struct shown {
    enum option_value type;
    char text[1024];
};

static void show(const struct slap_options *o, size_t row, struct shown *s)
{
    s->text[0] = '\0';
    s->type = options_value(o, row, s->text, sizeof(s->text));
}

/* The sample's other words, then option: a command line that must be taken, into r. */
static void parse_sample(const struct option_sample *sample, const char *option,
                         struct parse_result *r)
{
    const char *args[SAMPLE_WITH_MAX + 2] = {NULL};
    size_t n = 0;
    for (; sample->with[n] != NULL; n++) {
        args[n] = sample->with[n];
    }
    args[n] = option;
    parse(r, args);
    if (r->outcome != OPTIONS_RUN) {
        fail_msg("--%s: '%s' is refused: %s", sample->name, option, r->err);
    }
}

/* The document a run of o writes, parsed (root, freed by the caller): its "config". */
static const struct json_value *written_config(const struct slap_options *o,
                                               struct json_value **root)
{
    struct results_doc d;
    assert_int_equal(results_doc_init(&d), SLAP_OK);
    assert_int_equal(plan_output_describe(&d.desc, o), SLAP_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    results_write_json(out, &d);
    fclose(out);
    results_doc_free(&d);
    char err[256] = "";
    if (json_parse(text, len, root, err, sizeof(err)) != SLAP_OK) {
        fail_msg("the document does not parse: %s", err);
    }
    free(text);
    const struct json_value *config = json_get(*root, "config");
    assert_non_null(config);
    assert_int_equal(config->type, JSON_OBJECT);
    return config;
}

/*
 * Row's member of the config o's document holds what s shows; the option that gives it back
 * as a results reader does, into word: "--name=text" (a duration's seconds with "s"), or
 * "--name" for true.
 */
static void word_from_json(const struct slap_options *o, size_t row, const struct shown *s,
                           char *word, size_t len)
{
    const char *name = options_table_long_name(row);
    struct json_value *root = NULL;
    const struct json_value *v = json_get(written_config(o, &root), name);
    if (v == NULL) {
        fail_msg("--%s is missing from the JSON config", name);
    }
    bool same =
        s->type == OPTION_VALUE_BOOL
            ? (v->type == JSON_TRUE) == (strcmp(s->text, "true") == 0)
            : (v->type == JSON_NUMBER || v->type == JSON_STRING) && strcmp(v->text, s->text) == 0;
    if (!same) {
        fail_msg("--%s: the JSON config does not hold '%s'", name, s->text);
    }
    if (v->type == JSON_TRUE) {
        snprintf(word, len, "--%s", name);
    } else {
        snprintf(word, len, "--%s=%s%s", name, v->text,
                 v->type == JSON_NUMBER && options_table_is_duration(row) ? "s" : "");
    }
    json_free(root);
}

/* Row's sample, shown as --json shows it, reads back to what shows the same. */
static void round_trip(size_t row, const struct option_sample *sample)
{
    const char *name = options_table_long_name(row);
    struct slap_options defaults;
    struct parse_result r;
    struct shown plain, given, again;
    char option[1100], word[1100];
    options_defaults(&defaults);
    show(&defaults, row, &plain);
    snprintf(option, sizeof(option), "--%s%s%s", name, sample->value ? "=" : "",
             sample->value ? sample->value : "");
    parse_sample(sample, option, &r);
    show(&r.o, row, &given);
    if (given.type == OPTION_VALUE_SKIP || given.type == OPTION_VALUE_NONE) {
        fail_msg("--%s: its sample '%s' is not shown (has the row no show?)", name, option);
    }
    if (given.type == plain.type && strcmp(given.text, plain.text) == 0) {
        fail_msg("--%s: its sample '%s' shows as the default does", name, option);
    }
    word_from_json(&r.o, row, &given, word, sizeof(word));
    parse_result_free(&r);
    parse_sample(sample, word, &r);
    show(&r.o, row, &again);
    parse_result_free(&r);
    if (again.type != given.type || strcmp(again.text, given.text) != 0) {
        fail_msg("--%s: '%s' shows '%s', which reads back as '%s'", name, option, given.text,
                 again.text);
    }
}

/* Every option has a sample, and each setting's round-trips; --help and --version show none. */
static void test_rows_round_trip(void **state)
{
    (void)state;
    write_cfg_file(sample_file);
    for (size_t row = 0; row < options_table_size(); row++) {
        const char *name = options_table_long_name(row);
        const struct option_sample *sample = sample_of(name);
        if (sample == NULL) {
            fail_msg("--%s has no sample: add one to samples[] in option_samples.h", name);
        }
        if (sample->action) {
            struct slap_options defaults;
            struct shown none;
            options_defaults(&defaults);
            show(&defaults, row, &none);
            assert_int_equal(none.type, OPTION_VALUE_SKIP);
        } else {
            round_trip(row, sample);
        }
    }
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(samples); i++) {
        if (options_table_find(samples[i].name) == options_table_size()) {
            fail_msg("samples[] has --%s, which is no option", samples[i].name);
        }
    }
    unlink(sample_file);
}

/* The config of a document names every setting, nothing else; merge compares what is read. */
static void test_rows_in_json_config(void **state)
{
    (void)state;
    struct slap_options o;
    options_defaults(&o);
    struct json_value *root = NULL;
    const struct json_value *config = written_config(&o, &root);
    size_t settings = 0;
    for (size_t row = 0; row < options_table_size(); row++) {
        const char *name = options_table_long_name(row);
        const struct option_sample *sample = sample_of(name);
        bool setting = sample == NULL || !sample->action;
        settings += setting;
        if (setting != (json_get(config, name) != NULL)) {
            fail_msg("--%s is %s the JSON config", name, setting ? "missing from" : "in");
        }
        if (options_table_workload(row) && !options_table_replayed(row)) {
            fail_msg("--%s is workload, which merge compares, but a reader does not replay it",
                     name);
        }
    }
    assert_int_equal(config->n, settings);
    json_free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_outputs_from_rows),
        cmocka_unit_test_setup(test_table_spellings, unset_servers_env),
        cmocka_unit_test_setup(test_bad_lines, unset_servers_env),
        cmocka_unit_test_setup(test_parse_again, unset_servers_env),
        cmocka_unit_test_setup(test_defaults, unset_servers_env),
        cmocka_unit_test_setup(test_full_line, unset_servers_env),
        cmocka_unit_test_setup(test_spellings_agree, unset_servers_env),
        cmocka_unit_test_setup(test_counted_and_edges, unset_servers_env),
        cmocka_unit_test_teardown(test_servers_env, unset_servers_env),
        cmocka_unit_test_setup(test_help, unset_servers_env),
        cmocka_unit_test(test_laws_in_help),
        cmocka_unit_test(test_arrival_rows_at_their_ends),
        cmocka_unit_test(test_latency_line),
        cmocka_unit_test(test_workload_line),
        cmocka_unit_test(test_protocol_line),
        cmocka_unit_test_setup(test_trace_line, unset_servers_env),
        cmocka_unit_test_setup(test_choices, unset_servers_env),
        cmocka_unit_test_setup(test_count_widths, unset_servers_env),
        cmocka_unit_test_teardown(test_given_beats_file_and_env, unset_servers_env),
        cmocka_unit_test_setup(test_version, unset_servers_env),
        cmocka_unit_test_setup(test_exp_time_long, unset_servers_env),
        cmocka_unit_test_setup(test_rows_round_trip, unset_servers_env),
        cmocka_unit_test(test_rows_in_json_config),
    };
    return cmocka_run_group_tests(tests, unset_servers_env, NULL);
}
