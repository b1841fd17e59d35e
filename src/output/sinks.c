/* The file sinks of a run and of slap merge: each written whole, its periods as they come. */
#include "slap/output/sinks.h"

#include <string.h>

#include "slap/base/outfile.h"
#include "slap/output/hlog.h"
#include "slap/output/plot.h"
#include "slap/output/results_csv.h"
#include "slap/output/results_json.h"

/* A sink being written: its input, its file, and what its periods go into. */
struct sink_job {
    const struct results_sink_input *in;
    FILE *out;
    struct results_json_stream js; /* JSON */
    struct plot_run run;           /* SVG: the points drawn */
};

/* Every period of the input handed to each. */
static enum slap_status walk_periods(struct sink_job *job, results_merge_each each, char *err,
                                     size_t err_len)
{
    const struct results_doc *d = job->in->doc;
    if (job->in->walk != NULL) {
        return job->in->walk(job->in->walk_src, each, job, err, err_len);
    }
    for (size_t i = 0; i < d->periods.n; i++) {
        /* the sinks take nothing from a period: the document stays as it was */
        struct results_period *p = &((struct results_period *)d->periods.items)[i];
        if (each(job, p) != SLAP_OK) {
            snprintf(err, err_len, "out of memory");
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

static void csv_begin(struct sink_job *job)
{
    results_csv_begin(job->out, job->in->doc);
}

static enum slap_status csv_period(void *arg, struct results_period *p)
{
    struct sink_job *job = arg;
    if (!job->in->doc->sweep) {
        results_csv_period(job->out, job->in->doc, p);
    }
    return SLAP_OK;
}

static void json_begin(struct sink_job *job)
{
    results_json_begin(&job->js, job->out, job->in->doc);
}

static enum slap_status json_period(void *arg, struct results_period *p)
{
    results_json_period(&((struct sink_job *)arg)->js, p);
    return SLAP_OK;
}

static void json_end(struct sink_job *job)
{
    results_json_end(&job->js);
}

/* A file written whole as its periods come: begin, each period, end. */
static enum slap_status save_streamed(const char *path, const struct results_sink_input *in,
                                      void (*begin)(struct sink_job *), results_merge_each each,
                                      void (*end)(struct sink_job *), char *err, size_t err_len)
{
    struct outfile of;
    struct sink_job job = {.in = in};
    if (outfile_open(&of, path, err, err_len) != SLAP_OK) {
        return SLAP_ERROR;
    }
    job.out = of.f;
    begin(&job);
    if (walk_periods(&job, each, err, err_len) != SLAP_OK) {
        outfile_discard(&of);
        return SLAP_ERROR;
    }
    if (end != NULL) {
        end(&job);
    }
    return outfile_close(&of, err, err_len);
}

static enum slap_status save_csv(const char *path, const struct results_sink_input *in, char *err,
                                 size_t err_len)
{
    return save_streamed(path, in, csv_begin, csv_period, NULL, err, err_len);
}

static enum slap_status save_json(const char *path, const struct results_sink_input *in, char *err,
                                  size_t err_len)
{
    return save_streamed(path, in, json_begin, json_period, json_end, err, err_len);
}

static enum slap_status hlog_period_lines(void *arg, struct results_period *p)
{
    struct sink_job *job = arg;
    return hlog_period(job->out, job->in->doc, p);
}

/* The header, then each period's intervals (a sweep's steps, one after another). */
static enum slap_status save_hlog(const char *path, const struct results_sink_input *in, char *err,
                                  size_t err_len)
{
    struct outfile of;
    struct sink_job job = {.in = in};
    if (outfile_open(&of, path, err, err_len) != SLAP_OK) {
        return SLAP_ERROR;
    }
    job.out = of.f;
    hlog_header(of.f, in->doc->start_ms);
    enum slap_status st = in->doc->sweep ? hlog_steps(of.f, in->doc)
                                         : walk_periods(&job, hlog_period_lines, err, err_len);
    if (st != SLAP_OK) {
        if (in->doc->sweep) {
            snprintf(err, err_len, "out of memory");
        }
        outfile_discard(&of);
        return SLAP_ERROR;
    }
    return outfile_close(&of, err, err_len);
}

static enum slap_status svg_point(void *arg, struct results_period *p)
{
    return plot_run_add_period(&((struct sink_job *)arg)->run, p);
}

/* The points of every period and step gathered, then the picture written. */
static enum slap_status save_svg(const char *path, const struct results_sink_input *in, char *err,
                                 size_t err_len)
{
    const struct results_doc *d = in->doc;
    const struct results_step *steps = d->steps.items;
    struct sink_job job = {.in = in};
    plot_run_begin(&job.run, d);
    snprintf(err, err_len, "out of memory");
    enum slap_status st = walk_periods(&job, svg_point, err, err_len);
    for (size_t i = 0; st == SLAP_OK && i < d->steps.n; i++) {
        st = plot_run_add_step(&job.run, &steps[i]);
    }
    if (st == SLAP_OK) {
        struct plot_runs picture = {&job.run, 1, in->samples_path, NULL, NULL, 0};
        st = outfile_save(path, plot_svg_runs, &picture, err, err_len);
    }
    plot_run_free(&job.run);
    return st;
}

const struct results_sink results_sinks[RESULTS_SINKS] = {
    [RESULTS_SINK_CSV] = {"--csv", "the periods and totals as CSV", save_csv},
    [RESULTS_SINK_SVG] = {"--svg", "a picture of the run", save_svg},
    [RESULTS_SINK_JSON] = {"--json", "the results, in slap's results schema", save_json},
    [RESULTS_SINK_HLOG] = {"--hlog", "the latency of each period as an HdrHistogram interval log",
                           save_hlog},
};

_Static_assert(SLAP_ARRAY_SIZE(results_sinks) == RESULTS_SINKS, "a row for every sink");

bool results_sinks_wanted(const char *const paths[RESULTS_SINKS])
{
    for (size_t i = 0; i < RESULTS_SINKS; i++) {
        if (paths[i] != NULL) {
            return true;
        }
    }
    return false;
}

enum slap_status results_sinks_save(const char *const paths[RESULTS_SINKS],
                                    const struct results_sink_input *in, FILE *msg,
                                    const char *program)
{
    enum slap_status status = SLAP_OK;
    for (size_t i = 0; i < RESULTS_SINKS; i++) {
        char err[640];
        if (paths[i] != NULL && results_sinks[i].save(paths[i], in, err, sizeof(err)) != SLAP_OK) {
            fprintf(msg, "%s: %s: %s\n", program, results_sinks[i].option, err);
            status = SLAP_ERROR;
        }
    }
    return status;
}
