/* The files a run and slap merge write from their document (--csv, --svg, --json,
 * --hlog): one table. */
#ifndef SLAP_SINKS_H
#define SLAP_SINKS_H

#include <stddef.h>
#include <stdio.h>

#include "slap/base/common.h"
#include "slap/output/results.h"
#include "slap/output/results_merge.h"

/* The file outputs, in the order they are written. */
enum results_sink_id {
    RESULTS_SINK_CSV,  /* a row per period and type, or per step */
    RESULTS_SINK_SVG,  /* the pictures */
    RESULTS_SINK_JSON, /* the document */
    RESULTS_SINK_HLOG, /* HdrHistogram's interval log of the periods */
    RESULTS_SINKS
};

/* Hand every period of a document, in turn, to each (SLAP_ERROR with err to stop). */
typedef enum slap_status (*results_walk)(void *src, results_merge_each each, void *arg, char *err,
                                         size_t err_len);

/* What a sink writes: the document, and where its periods come from. */
struct results_sink_input {
    const struct results_doc *doc;
    results_walk walk;        /* the periods (slap merge: its inputs read again); NULL: doc's */
    void *walk_src;           /* walk's src */
    const char *samples_path; /* a --samples file for the SVG's scatter, or NULL */
};

struct results_sink {
    const char *option; /* "--csv": how command lines and messages name it */
    const char *help;   /* what it writes, for slap merge's --help */
    /* Write in to path, whole: SLAP_ERROR with err saying why not. */
    enum slap_status (*save)(const char *path, const struct results_sink_input *in, char *err,
                             size_t err_len);
};

extern const struct results_sink results_sinks[RESULTS_SINKS];

/* Does any sink have a path? */
bool results_sinks_wanted(const char *const paths[RESULTS_SINKS]);
/* Every sink with a path written, in order, each failure said on msg ("PROGRAM: --csv: why"):
 * SLAP_ERROR when one failed. */
enum slap_status results_sinks_save(const char *const paths[RESULTS_SINKS],
                                    const struct results_sink_input *in, FILE *msg,
                                    const char *program);

#endif
