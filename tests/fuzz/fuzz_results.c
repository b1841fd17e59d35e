/* libFuzzer target: the JSON reader and the results reader stay in bounds on any input, and
 * what they accept holds together (a histogram's buckets add up to its count). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/json.h"
#include "slap/output/results.h"
#include "slap/output/results_read.h"

#include "slap/options/plan_output.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
    if (!ok) {
        __builtin_trap();
    }
}

/* Every node of the tree is what its type says. */
static void check_tree(const struct json_value *v, int depth)
{
    check(depth <= JSON_MAX_DEPTH);
    if (v->type == JSON_STRING || v->type == JSON_NUMBER) {
        check(v->text != NULL && strlen(v->text) <= v->len);
    }
    for (size_t i = 0; i < v->n; i++) {
        check(v->items[i] != NULL);
        check(v->type == JSON_ARRAY || v->keys[i] != NULL);
        check_tree(v->items[i], depth + 1);
    }
}

static void check_doc(const struct results_doc *d)
{
    for (int t = 0; t < STATS_TYPES; t++) {
        uint64_t sum = 0;
        for (size_t i = 0; i < HIST_BUCKETS; i++) {
            sum += d->global->lat[t]->buckets[i];
        }
        check(sum == d->global->lat[t]->count);
    }
    check(d->label[0] != '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct json_value *v = NULL;
    char err[512];
    if (json_parse((const char *)data, size, &v, err, sizeof(err)) == SLAP_OK) {
        check_tree(v, 0);
    } else {
        check(v == NULL && strlen(err) < sizeof(err) && strchr(err, '\n') == NULL);
    }
    json_free(v);
    struct results_doc d;
    if (results_parse((const char *)data, size, plan_output_read_config, &d, err, sizeof(err)) ==
        SLAP_OK) {
        check_doc(&d);
    }
    results_doc_free(&d);
    return 0;
}
