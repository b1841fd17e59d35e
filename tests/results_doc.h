/* What the results tests share: a document as a run of given settings leaves it, its JSON, and
 * the configuration reader the tests read it back with. */
#ifndef SLAP_TEST_RESULTS_DOC_H
#define SLAP_TEST_RESULTS_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slap/model/stats.h"
#include "slap/output/results.h"
#include "slap/output/results_read.h"
#include "slap/output/run_desc.h"

/* What a test's run was given: the settings its description and configuration hold. */
struct spec {
    const char *servers;
    uint32_t threads;        /* 0: 1 */
    uint32_t concurrency;    /* 0: 16 */
    const char *time;        /* --time in seconds */
    const char *value_size;  /* NULL: 1024 */
    const char *division;    /* NULL: 1 */
    const char *protocol;    /* NULL: ascii */
    const char *tps;         /* NULL: a closed loop */
    const char *arrival;     /* NULL: uniform */
    const char *ramp;        /* --ramp FROM:TO/SECONDSs; NULL: none */
    const char *percentiles; /* NULL: 50,90,99,99.9 */
    const char *label;       /* NULL: the host's */
    int samples;             /* latencies of a type's first period (the t-th type's t+1 times,
                                the p-th period's p times); 0: 500 */
};

/* The tests' results_config_reader: every member a setting the tests give, taken as it is. */
enum slap_status read_test_config(const struct json_value *config, struct run_desc *out, char *err,
                                  size_t err_len);
/* The description of a run given spec: its configuration, and the figures read from it. */
void describe(struct run_desc *d, const struct spec *spec);
/* A document as a run of the given options would leave it: its run, figures, three periods of
 * every type and two servers (stats read, and not); each period's latencies also into all
 * unless NULL. */
void make_doc(struct results_doc *d, const struct spec *spec, uint64_t seed,
              struct slap_stats *all);
/* d written as JSON into *text (allocated), *len bytes. */
void to_json(const struct results_doc *d, char **text, size_t *len);

/* A run of every part: open loop, limits (every figure, a proxy, a server read and one not), a
 * round, samples, --precision's outcome; with extras, what is written and not read back (the
 * trace's figures, a server's preload evictions). */
void make_run(struct results_doc *d, bool extras);
/* slap search's sweep: two steps (one judged, one cut short), its outcome. */
void make_search(struct results_doc *d);
/* The texts of the documents of every object: a run (with extras or not), a search. */
void every_object_texts(char **run, char **search, bool extras);

#endif
