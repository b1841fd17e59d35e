/*
 * SVG pictures from results: throughput and latency percentiles over time, latency against
 * the achieved rate (sweeps), and the scatter of samples; several runs overlaid.
 */
#ifndef SLAP_PLOT_H
#define SLAP_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "slap/output/results.h"

#define PLOT_MAX_DOCS 64       /* runs overlaid in one picture */
#define PLOT_MAX_SAMPLES 20000 /* points of the scatter; a larger file is thinned evenly */

/* A --samples file's points (slap plot reads it before drawing, to refuse a bad one). */
struct plot_sample {
    double t; /* intended_s */
    double latency_us;
    bool failed; /* error, unanswered or unsent */
};
struct plot_samples {
    size_t n;
    size_t stride; /* one data line in stride kept */
    struct plot_sample *points;
};
/*
 * The samples file at path read once, every line checked (the header slap writes, then lines
 * of samples_drain's form with a known type and outcome; a control byte, a line of 256 bytes
 * or more refused at once), thinned evenly to at most PLOT_MAX_SAMPLES points as it is read:
 * a pipe reads as a file does. SLAP_ERROR with "--samples 'PATH': line N ..." in err.
 */
enum slap_status plot_samples_read(const char *path, struct plot_samples *s, char *err,
                                   size_t err_len);
void plot_samples_free(struct plot_samples *s);

struct plot_input {
    const struct results_doc *const *docs;
    size_t ndocs;
    const struct plot_samples *samples; /* the samples to scatter, or NULL */
};

/* The whole picture: a self-contained SVG document. in is a struct plot_input. */
void plot_svg(FILE *out, const void *in);

/* What a run draws, without its periods held: per period (or step), x (elapsed_s; a step's
 * achieved ops/s; a --ramp period's target ops/s, among the steps), the rate and the latency
 * percentiles drawn (the run's, in us). */
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
    double target_tps; /* an open-loop run's target rate, drawn over its throughput; 0: none */
    struct ramp ramp;  /* --ramp (duration_ns 0: none): its target drawn over the throughput,
                          and each period a point of latency against its target rate (steps) */
    struct rate_change *changes; /* --control's (owned; NULL: none): the target drawn steps at
                                    each, and each period a point against its target rate */
    size_t nchanges;
    size_t nlines;               /* the latency percentiles drawn: */
    double pct[PLOT_LINES];      /* p50, p99, p99.9; a search's objectives' */
    double limit_us[PLOT_LINES]; /* a search's objectives' limits, drawn as lines; 0: none */
    struct plot_points periods;
    struct plot_points steps;
    struct hist *scratch; /* a point's histogram, every type together: mapped at the first */
};
/* An empty run of d's: its label, target and the percentiles it draws (a search: its
 * objectives' percentiles and limits). */
void plot_run_begin(struct plot_run *run, const struct results_doc *d);
/* A period's or a step's point added (the run begun); SLAP_ERROR when out of memory. */
enum slap_status plot_run_add_period(struct plot_run *run, const struct results_period *p);
enum slap_status plot_run_add_step(struct plot_run *run, const struct results_step *st);
/* Every point of d (its label, periods and steps) into run; plot_run_free releases it. */
enum slap_status plot_run_of(struct plot_run *run, const struct results_doc *d);
void plot_run_free(struct plot_run *run);

/*
 * A run's percentile spectrum: latency by percentile on a "nines" axis, x = -log10(1 - p/100)
 * (0 is p0, 1 p90, 2 p99, 3 p99.9: equal steps), with the 95% interval of each percentile
 * from the run's periods (ci_percentile); low and high are NaN where it cannot be estimated.
 */
#define PLOT_SPECTRUM_STEP 0.25 /* nines between two points */
#define PLOT_SPECTRUM_NINES 6   /* up to p99.9999 */
#define PLOT_SPECTRUM_MAX (PLOT_SPECTRUM_NINES * 4 + 1)
struct plot_spectrum {
    const char *label; /* not copied */
    size_t n;
    double x[PLOT_SPECTRUM_MAX];
    double latency_us[PLOT_SPECTRUM_MAX];
    double low_us[PLOT_SPECTRUM_MAX];
    double high_us[PLOT_SPECTRUM_MAX];
};
/* d's spectrum, up to the nines its requests reach (log10 of their count); SLAP_ERROR when
 * out of memory. */
enum slap_status plot_spectrum_of(struct plot_spectrum *s, const struct results_doc *d);

/* The picture of runs' points: in is a struct plot_runs. */
struct plot_runs {
    const struct plot_run *runs;
    size_t nruns;
    const char *samples_path;            /* a --samples CSV file to scatter (read here), or NULL */
    const struct plot_samples *samples;  /* or its points, read already */
    const struct plot_spectrum *spectra; /* several runs compared: their spectra, or NULL */
    size_t nspectra;
};
void plot_svg_runs(FILE *out, const void *in);

#endif
