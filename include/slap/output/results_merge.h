/* Results documents of one workload combined: whole, or files read a period at a time. */
#ifndef SLAP_RESULTS_MERGE_H
#define SLAP_RESULTS_MERGE_H

#include <stddef.h>
#include <stdio.h>

#include "slap/output/results.h"
#include "slap/output/results_read.h"

/* Do a and b run one workload (both runs or both sweeps, every workload setting alike)? If
 * not, SLAP_ERROR with err naming the setting that differs ("the workloads differ: --NAME is
 * X in 'A' and Y in 'B'"): slap merge's rule, and slap compare's for the runs of one side. */
enum slap_status results_same_workload(const struct results_doc *a, const struct results_doc *b,
                                       char *err, size_t err_len);
/* Every workload setting b differs in from a, into buf as "--udp (false in A, true in B), ..."
 * ("" when none, cut short with "..." when buf is full); how many. slap compare's sides may
 * differ: it says how. */
size_t results_workload_diff(const struct results_doc *a, const struct results_doc *b, char *buf,
                             size_t len);

/*
 * Combine documents of one workload run on several hosts: counters and histograms added,
 * periods and steps added by position, servers listed. SLAP_ERROR with err naming the
 * setting that differs when a sum would mean nothing. out is initialised either way.
 */
enum slap_status results_merge(struct results_doc *out, struct results_doc *const *docs, size_t n,
                               char *err, size_t err_len);

/* The same over files, read a period at a time (results_merge.c says how): one input. */
struct results_merge_input {
    const char *path;      /* the file (set by the caller), as messages name it */
    const char *open_path; /* where to read it, when not path (a copy of a pipe); else NULL */
    results_config_reader read_config; /* how its "config" reads back (set with path) */
    struct results_doc *doc;           /* the file's document without its periods (owned) */
    size_t nperiods;                   /* its periods */
    size_t overflow_at;                /* its first period whose sum with the files' before passes
                                        * RESULTS_COUNT_MAX; SIZE_MAX: none */
    char overflow[64];                 /* that period's figure */
    bool group; /* a group of one groups run (-F): workloads, loops and servers may differ from
                 * the other groups', and its runs[] entry keeps its latency */
};
/* Each merged period in turn; it may take p's histograms. Anything but SLAP_OK stops. */
typedef enum slap_status (*results_merge_each)(void *arg, struct results_period *p);

/* Read every input (in[i].path) whole, a period at a time, keeping none: SLAP_ERROR with err
 * naming the first file, in order, that does not read. results_merge_inputs_free follows. */
enum slap_status results_merge_read(struct results_merge_input *in, size_t n, char *err,
                                    size_t err_len);
/* The merged document without its periods into out (initialised either way): SLAP_ERROR with
 * err as results_merge's. */
enum slap_status results_merge_heads(struct results_doc *out, struct results_merge_input *in,
                                     size_t n, char *err, size_t err_len);
/* Read the inputs again, in step, handing each merged period to each: SLAP_ERROR with err when
 * a file no longer reads as it did, memory runs out or each says so. */
enum slap_status results_merge_periods(struct results_merge_input *in, size_t n,
                                       results_merge_each each, void *arg, char *err,
                                       size_t err_len);
void results_merge_inputs_free(struct results_merge_input *in, size_t n);

/* Two inputs that hold the same run (host, pid and start), which a merge would count twice. */
struct results_shared_run {
    bool found;
    size_t a, b;               /* the inputs: the first such pair in order (a < b) */
    struct results_run_id run; /* the first of a's runs that b holds too */
};
/* Whether any two of the inputs' documents hold the same run, into *out: their runs sorted
 * together, n log n in the runs they hold (not a scan of every pair). SLAP_ERROR: out of
 * memory. */
enum slap_status results_merge_shared_run(const struct results_merge_input *in, size_t n,
                                          struct results_shared_run *out);

#endif
