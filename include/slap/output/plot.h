/*
 * SVG pictures from results: throughput and latency percentiles over time, latency against
 * the achieved rate (sweeps), and the scatter of samples; several runs overlaid.
 */
#ifndef SLAP_PLOT_H
#define SLAP_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "slap/output/results.h"

#define PLOT_MAX_DOCS 64       /* runs overlaid in one picture */
#define PLOT_MAX_SAMPLES 20000 /* points of the scatter; a larger file is thinned evenly */

struct plot_input {
    const struct results_doc *const *docs;
    size_t ndocs;
    const char *samples_path; /* a --samples CSV file to scatter, or NULL */
};

/* The whole picture: a self-contained SVG document. in is a struct plot_input. */
void plot_svg(FILE *out, const void *in);

/* What a run draws, without its periods held: per period (or step), x (elapsed_s; a step's
 * achieved ops/s), the rate and the latency percentiles drawn (p50, p99, p99.9, in us). */
#define PLOT_LINES 3
struct plot_points {
    size_t n;
    size_t cap;
    double *x;
    double *rate;
    double *latency[PLOT_LINES];
};
struct plot_run {
    const char *label; /* not copied */
    struct plot_points periods;
    struct plot_points steps;
};
/* A period's or a step's point added (an empty run is zeroed); SLAP_ERROR when out of memory. */
enum slap_status plot_run_add_period(struct plot_run *run, const struct results_period *p);
enum slap_status plot_run_add_step(struct plot_run *run, const struct results_step *st);
/* Every point of d (its label, periods and steps) into run; plot_run_free releases it. */
enum slap_status plot_run_of(struct plot_run *run, const struct results_doc *d);
void plot_run_free(struct plot_run *run);

/* The picture of runs' points: in is a struct plot_runs. */
struct plot_runs {
    const struct plot_run *runs;
    size_t nruns;
    const char *samples_path; /* a --samples CSV file to scatter, or NULL */
};
void plot_svg_runs(FILE *out, const void *in);

#endif
