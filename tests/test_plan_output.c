/* Unit tests of plan_output: the options described for the outputs, and results files' configs
 * read back as the options they were written from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/base/json.h"
#include "slap/output/results.h"
#include "slap/output/results_json.h"
#include "slap/output/results_merge.h"
#include "slap/output/results_read.h"
#include "slap/output/sinks.h"

#include "slap/options/plan_output.h"

#define MAX_ARGS 32

/* opts from a command line given as one string of words. */
static void parse_options(struct slap_options *o, const char *line)
{
    static char copies[4][512];
    static int next;
    char *words = copies[next++ % 4];
    char *argv[MAX_ARGS] = {"slap"};
    int argc = 1;
    snprintf(words, sizeof(copies[0]), "%s", line);
    for (char *w = strtok(words, " "); w != NULL && argc < MAX_ARGS; w = strtok(NULL, " ")) {
        argv[argc++] = w;
    }
    FILE *devnull = fopen("/dev/null", "w");
    assert_int_equal(options_parse(o, argc, argv, devnull, devnull), OPTIONS_RUN);
    fclose(devnull);
}

/* A document of a run of the options line (no figures), labelled label. */
static void make_doc(struct results_doc *d, const char *line, const char *label)
{
    struct slap_options o;
    parse_options(&o, line);
    assert_int_equal(results_doc_init(d), SLAP_OK);
    assert_int_equal(plan_output_describe(&d->desc, &o), SLAP_OK);
    snprintf(d->label, sizeof(d->label), "%s", label);
    struct results_run_id id = {.pid = 1};
    snprintf(id.host, sizeof(id.host), "%s", label); /* a file of schema 2 names its runs */
    assert_int_equal(results_add_run(d, &id), SLAP_OK);
}

/* The document as JSON text into *text (freed by the caller). */
static void to_json(const struct results_doc *d, char **text)
{
    size_t len = 0;
    FILE *out = open_memstream(text, &len);
    assert_non_null(out);
    results_write_json(out, d);
    fclose(out);
}

/* The "config" of a document's JSON text replayed as options into r (root freed here). */
static void replay_of(const char *text, struct plan_replay *r)
{
    struct json_value *root = NULL;
    char err[512] = "";
    assert_int_equal(json_parse(text, strlen(text), &root, err, sizeof(err)), SLAP_OK);
    if (plan_output_replay(json_get(root, "config"), r, err, sizeof(err)) != SLAP_OK) {
        fail_msg("%s", err);
    }
    json_free(root);
}

/* A run's options, written as a results file, read back to the same options. */
static void test_round_trip(void **state)
{
    (void)state;
    struct results_doc d, back;
    struct slap_options o;
    struct plan_replay r;
    const char *line =
        "-s 127.0.0.1:1,127.0.0.1:2 -T 2 -c 8 -t 3s --value_size 4-100:0.3,1k-2k:0.7 "
        "--ratio 1:4 --percentiles=50,99.99 --key_dist zipf:0.8 --label run-one "
        "--max_errors 2.5% -P 50k --arrival poisson";
    parse_options(&o, line);
    make_doc(&d, line, "host-7");
    char *text = NULL;
    to_json(&d, &text);
    replay_of(text, &r);
    assert_string_equal(r.opts.servers, "127.0.0.1:1,127.0.0.1:2");
    assert_string_equal(r.opts.label, "run-one");
    assert_int_equal(r.opts.threads, 2);
    assert_int_equal(r.opts.run_time_ns, 3 * SLAP_NS_PER_SEC);
    assert_true(r.opts.tps == 50000.0);
    assert_int_equal(r.opts.arrival, ARRIVAL_POISSON);
    assert_true(r.opts.mix[OP_SET] == o.mix[OP_SET]);
    assert_true(r.opts.mix[OP_SET] == 0.2);
    assert_int_equal(r.opts.npercentiles, 2);
    assert_true(r.opts.percentiles[1] == 99.99);
    assert_true(r.opts.key_pop.s == 0.8);
    assert_true(r.opts.max_errors_pct == 2.5);
    assert_memory_equal(&r.opts.value_sizes, &o.value_sizes, sizeof(o.value_sizes));
    plan_output_replay_free(&r);
    /* and through the results reader: the same description */
    char err[512] = "";
    if (results_parse(text, strlen(text), plan_output_read_config, &back, err, sizeof(err)) !=
        SLAP_OK) {
        fail_msg("%s", err);
    }
    assert_string_equal(back.desc.servers, d.desc.servers);
    assert_string_equal(back.desc.value_sizes, "4-100:0.3,1024-2048:0.7");
    assert_int_equal(back.desc.config.n, d.desc.config.n);
    for (size_t i = 0; i < d.desc.config.n; i++) {
        assert_string_equal(back.desc.config.entries[i].value, d.desc.config.entries[i].value);
    }
    free(text);
    results_doc_free(&d);
    results_doc_free(&back);
}

/* A config edited into one no slap writes is refused, saying what. */
static void test_refuses_bad_configs(void **state)
{
    (void)state;
    static const struct {
        const char *from, *to, *said;
    } edits[] = {
        {"\"threads\": 2", "\"threads\": 0", "threads"},
        {"\"threads\": 2", "\"threadz\": 2", "unknown option"},
        {"\"config\": {", "\"configs\": {", "no \"config\" object"},
    };
    struct results_doc d;
    make_doc(&d, "-s 127.0.0.1:1 -T 2 -c 8 -t 3s", "host-3");
    char *text = NULL;
    to_json(&d, &text);
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(edits); i++) {
        const char *at = strstr(text, edits[i].from);
        assert_non_null(at);
        char *edited = NULL;
        assert_true(asprintf(&edited, "%.*s%s%s", (int)(at - text), text, edits[i].to,
                             at + strlen(edits[i].from)) > 0);
        struct results_doc back;
        char err[512] = "";
        if (results_parse(edited, strlen(edited), plan_output_read_config, &back, err,
                          sizeof(err)) != SLAP_ERROR) {
            fail_msg("edit %zu (%s) was accepted", i, edits[i].to);
        }
        if (strstr(err, edits[i].said) == NULL) {
            fail_msg("edit %zu: '%s' does not say %s", i, err, edits[i].said);
        }
        results_doc_free(&back);
        free(edited);
    }
    free(text);
    results_doc_free(&d);
}

/* A results file of an older slap, which took --arrival shapes up to 1, reads back with its
 * shape (a command line refuses it from 0.5); a shape no slap took is refused. */
static void test_reads_back_older_arrival_shapes(void **state)
{
    (void)state;
    static const struct {
        const char *shape;
        double read; /* the shape read back; 0: refused */
    } shapes[] = {{"gpareto:0.7", 0.7}, {"gev:0.99", 0.99}, {"gpareto:1", 0}, {"normal:0.5", 0}};
    struct results_doc d;
    make_doc(&d, "-s 127.0.0.1:1 -t 3s -P 1k --arrival gpareto:0.3", "old");
    char *text = NULL;
    to_json(&d, &text);
    const char *at = strstr(text, "gpareto:0.3");
    assert_non_null(at);
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(shapes); i++) {
        char *edited = NULL;
        assert_true(asprintf(&edited, "%.*s%s%s", (int)(at - text), text, shapes[i].shape,
                             at + strlen("gpareto:0.3")) > 0);
        struct json_value *root = NULL;
        char err[512] = "";
        assert_int_equal(json_parse(edited, strlen(edited), &root, err, sizeof(err)), SLAP_OK);
        struct plan_replay r;
        enum slap_status status =
            plan_output_replay(json_get(root, "config"), &r, err, sizeof(err));
        bool as_said = shapes[i].read > 0
                           ? status == SLAP_OK && r.opts.arrival_shape == shapes[i].read
                           : status == SLAP_ERROR && strstr(err, "--arrival") != NULL;
        if (!as_said) {
            fail_msg("%s: status %d, '%s'", shapes[i].shape, (int)status, err);
        }
        plan_output_replay_free(&r);
        json_free(root);
        free(edited);
    }
    free(text);
    results_doc_free(&d);
}

/* The options' workload rows are the entries merge compares. */
static void test_merge_refuses_other_workloads(void **state)
{
    (void)state;
    static const char *const others[] = {"-s 127.0.0.1:1 -t 3s -X 100", "-s 127.0.0.1:1 -t 4s",
                                         "-s 127.0.0.1:1 -t 3s -d 4", "-s 127.0.0.1:1 -t 3s -B"};
    static const char *const said[] = {
        "the workloads differ: --value_size is 1024 in 'a' and 100 in 'b'",
        "the runs differ in length: --time is 3s in 'a' and 4s in 'b'",
        "the workloads differ: --division is 1 in 'a' and 4 in 'b'",
        "the workloads differ: --protocol is ascii in 'a' and binary in 'b'"};
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(others); i++) {
        struct results_doc a, b, merged;
        make_doc(&a, "-s 127.0.0.1:1 -t 3s", "a");
        make_doc(&b, others[i], "b");
        struct results_doc *docs[] = {&a, &b};
        char err[512] = "";
        assert_int_equal(results_merge(&merged, docs, 2, err, sizeof(err)), SLAP_ERROR);
        assert_string_equal(err, said[i]);
        results_doc_free(&merged);
        results_doc_free(&a);
        results_doc_free(&b);
    }
}

/* Documents of a and b's options merged: their config is the one of want's options. */
static void assert_merged_config(const char *a_line, const char *b_line, const char *want_line,
                                 bool sweep)
{
    struct results_doc a, b, merged, want;
    make_doc(&a, a_line, "a");
    make_doc(&b, b_line, "b");
    make_doc(&want, want_line, "a+b");
    a.sweep = b.sweep = sweep;
    struct results_doc *docs[] = {&a, &b};
    char err[512] = "";
    if (results_merge(&merged, docs, 2, err, sizeof(err)) != SLAP_OK) {
        fail_msg("%s", err);
    }
    assert_int_equal(merged.desc.config.n, want.desc.config.n);
    for (size_t i = 0; i < want.desc.config.n; i++) {
        const struct run_config_entry *got = &merged.desc.config.entries[i];
        assert_string_equal(got->name, want.desc.config.entries[i].name);
        assert_int_equal(got->kind, want.desc.config.entries[i].kind);
        assert_string_equal(got->value, want.desc.config.entries[i].value);
    }
    results_doc_free(&merged);
    results_doc_free(&want);
    results_doc_free(&a);
    results_doc_free(&b);
}

/* A merged document's config holds the hosts' sums and their labels joined, as the options
 * would show them. */
static void test_merge_shows_sums(void **state)
{
    (void)state;
    assert_merged_config("-s 127.0.0.1:1 -t 3s -T 2 -c 8 -P 1500 --label a",
                         "-s 127.0.0.1:1 -t 3s -T 1 -c 4 -P 500 --label b",
                         "-s 127.0.0.1:1 -t 3s -T 3 -c 12 -P 2000 --label a+b", false);
    assert_merged_config("-s 127.0.0.1:1 -T 2 -c 8 --sweep 1k:2k:500 --label a",
                         "-s 127.0.0.1:1 -T 1 -c 4 --sweep 1k:2k:500 --label b",
                         "-s 127.0.0.1:1 -T 3 -c 12 --sweep 2k:4k:1k --label a+b", true);
}

/* Each sink's option (its row's name, output/sinks.c) puts its file in that sink's path, and
 * in no other: a sink left out of plan_output.c's sink_paths, or given another's field, fails. */
static void test_every_sink_has_its_path(void **state)
{
    (void)state;
    for (size_t k = 0; k < RESULTS_SINKS; k++) {
        struct slap_options o;
        char line[128];
        const char *paths[RESULTS_SINKS];
        snprintf(line, sizeof(line), "-s 127.0.0.1:1 %s /tmp/sink-%zu", results_sinks[k].option, k);
        parse_options(&o, line);
        plan_output_paths(&o, paths);
        for (size_t j = 0; j < RESULTS_SINKS; j++) {
            if (j == k) {
                assert_non_null(paths[j]);
                assert_string_equal(paths[j], strchr(line, '/'));
            } else if (paths[j] != NULL) {
                fail_msg("%s filled the path of %s", results_sinks[k].option,
                         results_sinks[j].option);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refuses_bad_configs),
        cmocka_unit_test(test_reads_back_older_arrival_shapes),
        cmocka_unit_test(test_merge_refuses_other_workloads),
        cmocka_unit_test(test_merge_shows_sums),
        cmocka_unit_test(test_every_sink_has_its_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
