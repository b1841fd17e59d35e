/*
 * SVG pictures from results: throughput and latency percentiles over time, latency against
 * the achieved rate (sweeps), and the scatter of samples; several runs overlaid.
 */
#ifndef SLAP_PLOT_H
#define SLAP_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "slap/results.h"

#define PLOT_MAX_DOCS 64       /* runs overlaid in one picture */
#define PLOT_MAX_SAMPLES 20000 /* points of the scatter; a larger file is thinned evenly */

struct plot_input {
    const struct results_doc *const *docs;
    size_t ndocs;
    const char *samples_path; /* a --samples CSV file to scatter, or NULL */
};

/* The whole picture: a self-contained SVG document. in is a struct plot_input. */
void plot_svg(FILE *out, const void *in);

#endif
