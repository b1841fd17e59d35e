/* What the store keeps of a results document beside its text: its series, its identity, the
 * indexed columns and its figures. */
#ifndef SLAP_STORE_RECORD_H
#define SLAP_STORE_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "slap/output/history.h"
#include "slap/output/results.h"

#define RECORD_FIGURES_MAX 96
#define RECORD_KEY_MAX 8192

struct record_figure {
    char name[HISTORY_FIGURE_MAX];
    double value, low, high; /* low, high NaN: no interval */
};

struct record {
    char key[RECORD_KEY_MAX];    /* the series: kind, label, servers, workload */
    char id[HISTORY_ID_LEN + 1]; /* the key's hash, as slap history names the series */
    char servers[HISTORY_TEXT_MAX];
    char workload[HISTORY_TEXT_MAX];
    char ident[RECORD_KEY_MAX]; /* the runs it holds: host/pid/start, ... */
    char host[RESULTS_LABEL_MAX];
    char limited_by[LIMITS_VERDICT_WORD_MAX];
    int steady; /* 1, 0, -1: not known */
    size_t nfigures;
    struct record_figure figures[RECORD_FIGURES_MAX];
};

/* d as the store keeps it, stored as kind. SLAP_ERROR: out of memory. */
enum slap_status record_of(const struct results_doc *d, const char *kind, struct record *r);

#endif
