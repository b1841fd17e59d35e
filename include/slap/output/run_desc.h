/*
 * The outputs' description of a run: the settings the report, results files and slap merge
 * read, and the run's configuration as results files show it. The cli fills it from its
 * options (or from a results file's "config", read back); the outputs never see the options.
 */
#ifndef SLAP_RUN_DESC_H
#define SLAP_RUN_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slap/base/common.h"
#include "slap/model/ops.h"
#include "slap/model/schedule.h"

#define RUN_DESC_MAX_PERCENTILES 16

/* Which latency the tables and blocks show in an open-loop run. */
enum latency_view {
    LATENCY_BOTH = 0,        /* corrected, and the uncorrected final blocks too */
    LATENCY_CORRECTED = 1,   /* from the intended send time */
    LATENCY_UNCORRECTED = 2, /* from the actual send */
};

/* What a configuration entry's value is, as JSON writes it. */
enum run_config_kind {
    RUN_CONFIG_NULL,   /* not set: null */
    RUN_CONFIG_BOOL,   /* true or false */
    RUN_CONFIG_NUMBER, /* a number (durations in seconds) */
    RUN_CONFIG_TEXT,   /* a string */
};

/* What an entry is beyond its value (flags). */
#define RUN_CONFIG_WORKLOAD 1u /* part of the workload: slap merge refuses runs that differ */
#define RUN_CONFIG_REPLAYED 2u /* a results reader reads it back as the option */

/* One setting of the run, by its option's long name, its value shown as the option takes it. */
struct run_config_entry {
    const char *name; /* not copied: a static string */
    enum run_config_kind kind;
    unsigned flags;
    char *value; /* owned; "" when null */
};

/* Every setting, in the option table's order. */
struct run_config {
    size_t n;
    size_t cap;
    struct run_config_entry *entries;
};

/* The texts a description owns: run_desc_free frees them and run_desc_copy copies them
 * (test_plan's test_desc_fields_whole fails on a char * field of run_desc not listed here). */
#define RUN_DESC_TEXTS(X) X(servers) X(trace) X(key_sizes) X(value_sizes)

struct run_desc {
    char *servers; /* the servers as given (owned; NULL: none) */
    uint32_t threads;
    uint32_t concurrency;
    uint64_t execute_number; /* 0: a timed run */
    uint64_t run_time_ns;
    uint64_t win_size;
    double mix[OP_COUNT]; /* share of each operation */
    double tps;           /* the target rate (a ramp's mean over the run); 0: closed loop */
    struct ramp ramp;     /* --ramp, this run's part; duration_ns 0: none */
    uint32_t share_index; /* --share I/N: this run's part of a load made by N hosts (I from 1);
                             0: the whole load (a merge of every part too) */
    uint32_t share_count;
    bool share_keys; /* --share I/N,keys: keys no other part uses */
    bool probe;      /* --probe: a latency probe beside load hosts, not part of the load */
    enum arrival arrival;
    double arrival_shape;
    uint32_t pipeline;
    enum latency_view latency;
    uint64_t warmup_ns;
    uint64_t stat_freq_ns; /* -S: 0 = no periodic tables */
    uint32_t npercentiles;
    double percentiles[RUN_DESC_MAX_PERCENTILES];
    double sweep_start; /* sweep_step 0: no sweep */
    double sweep_end;
    double sweep_step;
    uint64_t step_time_ns;
    char *trace;        /* the trace replayed (owned), or NULL */
    double trace_speed; /* 0: as fast as it goes */
    char *key_sizes;    /* the key and value sizes as --key_size and --value_size take */
    char *value_sizes;  /* them (owned; NULL: not shown) */
    uint32_t division;  /* keys per multi-get */
    double verify;      /* share of gets checked */
    double exp_verify;  /* share of sets with an expiry time */
    bool udp;
    bool facebook;
    struct run_config config; /* what results files record as "config" */
};

/* Release what d owns; it is then empty. */
void run_desc_free(struct run_desc *d);
/* A copy of src into dst (which owns nothing yet). SLAP_ERROR when out of memory (dst is then
 * empty). */
enum slap_status run_desc_copy(struct run_desc *dst, const struct run_desc *src);
/* text copied into *field, replacing what it held (NULL: none). SLAP_ERROR when out of
 * memory. */
enum slap_status run_desc_set_text(char **field, const char *text);

/* The mix the parts of a run sent together (a groups run's, or their hosts'): d->mix and the
 * configuration's --mix ("get=0.75,set=0.25"; --ratio null), weighed by each part's requests. */
enum slap_status run_desc_set_mix(struct run_desc *d, const double mix[OP_COUNT]);

/* Append an entry (value copied; NULL for a null one). SLAP_ERROR when out of memory. */
enum slap_status run_config_add(struct run_config *c, const char *name, enum run_config_kind kind,
                                unsigned flags, const char *value);
/* The entry named name, or NULL. */
const struct run_config_entry *run_config_find(const struct run_config *c, const char *name);
/* Give the entry named name (when there is one) this kind and value. SLAP_ERROR when out of
 * memory. */
enum slap_status run_config_set(struct run_config *c, const char *name, enum run_config_kind kind,
                                const char *value);
void run_config_free(struct run_config *c);

#endif
