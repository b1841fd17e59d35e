/*
 * slap merge and slap plot: results files read back, combined with exactly merged
 * histograms and counters, reported as text (memaslap's layout) and written as JSON, CSV or
 * SVG. Exit status: 0 done, 1 an output could not be written, 2 bad usage or a file that is
 * not slap's results or cannot be combined.
 */
#include "slap/commands/subcommands.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slap/base/outfile.h"
#include "slap/base/quote.h"
#include "slap/model/tracestats.h"
#include "slap/options/plan_output.h"
#include "slap/options/subargs.h"
#include "slap/options/subcommand_list.h"
#include "slap/output/intervals.h"
#include "slap/output/plot.h"
#include "slap/output/report.h"
#include "slap/output/results.h"
#include "slap/output/results_merge.h"
#include "slap/output/results_read.h"
#include "slap/output/sinks.h"
#include "slap/store/store.h"

#define START_SPREAD_MS 1000 /* runs that started further apart than this did not run together */

/* What a subcommand's command line says. */
struct sub_args {
    const char *out[RESULTS_SINKS]; /* merge: each sink's file; plot: the picture's (SVG) */
    const char *store;              /* merge: --store's location */
    const char *samples;
    char **inputs;
    int ninputs;
};

/* ---- the command lines of merge and plot --------------------------------------------- */

/* "each output its own file": refused as any other bad usage. */
static int refuse(const char *name, const char *problem)
{
    const struct subargs_spec spec = {.name = name};
    return subargs_usage(&spec, problem, NULL);
}

/* Each output its own file (two naming one would leave only the last written). */
static int distinct_outputs(const char *name, const struct sub_args *a)
{
    char one[QUOTE_PATH_BUF], other[QUOTE_PATH_BUF], problem[2 * QUOTE_PATH_BUF + 128];
    for (size_t k = 0; k < RESULTS_SINKS; k++) {
        for (size_t j = k + 1; a->out[k] != NULL && j < RESULTS_SINKS; j++) {
            if (a->out[j] == NULL || !outfile_same(a->out[k], a->out[j])) {
                continue;
            }
            snprintf(problem, sizeof(problem),
                     "%s %s and %s %s name one file: give each output a file of its own",
                     results_sinks[k].option, quote_name(one, a->out[k]), results_sinks[j].option,
                     quote_name(other, a->out[j]));
            return refuse(name, problem);
        }
        for (int i = 0; a->out[k] != NULL && i <= a->ninputs; i++) {
            const char *input = i < a->ninputs ? a->inputs[i] : a->samples;
            if (input == NULL || !outfile_same(a->out[k], input)) {
                continue;
            }
            snprintf(problem, sizeof(problem),
                     "%s %s names the input %s: it would be replaced while read; give the "
                     "output a file of its own",
                     results_sinks[k].option, quote_name(one, a->out[k]), quote_name(other, input));
            return refuse(name, problem);
        }
    }
    return SLAP_EXIT_OK;
}

static const char merge_intro[] =
    "Usage: slap merge RESULT.json... [--json FILE] [--csv FILE] [--svg FILE]\n"
    "                  [--hlog FILE]\n"
    "Runs made together on several load hosts (--start_at, a --label each), as one: the\n"
    "text report on standard output, the merged results in the files asked for. The runs\n"
    "must share their workload, their loop (open or closed) and their measured length; a\n"
    "run given twice is refused. Files are read in memory bounded by their histograms.\n";
static const char merge_outro[] =
    "Exit status: 0 merged, 1 an output could not be written, 2 bad usage, a file that is\n"
    "not slap's results (named, with the field and the reason) or runs that cannot be\n"
    "merged.\n";

#define MERGE_ROWS (RESULTS_SINKS + 1)

/* slap merge's options: one per sink of the table (output/sinks.c), each its file; then the
 * store the merged run is kept in. */
static void merge_rows(struct subarg rows[MERGE_ROWS])
{
    for (size_t k = 0; k < RESULTS_SINKS; k++) {
        rows[k] = (struct subarg){.name = results_sinks[k].option,
                                  .value = "FILE",
                                  .kind = SUBARG_FILE,
                                  .offset = offsetof(struct sub_args, out) + k * sizeof(char *),
                                  .help = results_sinks[k].help};
    }
    rows[RESULTS_SINKS] =
        (struct subarg){.name = "--store",
                        .value = "LOCATION",
                        .kind = SUBARG_TEXT,
                        .offset = offsetof(struct sub_args, store),
                        .help = "the results store the merged run is kept in, with its parts (an "
                                "SQLite file or a postgresql:// URL; default $SLAP_STORE)"};
}

static const struct subarg plot_rows[] = {
    {.name = "-o",
     .alias = "--output",
     .value = "FILE.svg",
     .kind = SUBARG_FILE,
     .offset = offsetof(struct sub_args, out) + RESULTS_SINK_SVG * sizeof(char *),
     .help = "the picture (SVG)"},
    {.name = "--samples",
     .value = "FILE",
     .kind = SUBARG_FILE,
     .offset = offsetof(struct sub_args, samples),
     .help = "a run's --samples file: its requests drawn as points"},
};

static const struct subargs_spec plot_spec = {
    .name = "plot",
    .intro = "Usage: slap plot RESULT.json... -o FILE.svg [--samples FILE]\n"
             "A picture of one run or several (at most 64): rates and percentiles over the run,\n"
             "and, for several, each run's latency spectrum with its intervals.\n",
    .outro =
        "Exit status: 0 drawn, 1 the picture could not be written, 2 bad usage or a file that\n"
        "is not slap's results or samples (named, with the reason).\n",
    .rows = plot_rows,
    .count = SLAP_ARRAY_SIZE(plot_rows),
};

size_t merge_docs(struct optdoc *out, size_t max)
{
    struct subarg rows[MERGE_ROWS];
    const struct subargs_spec spec = {.name = "merge", .rows = rows, .count = MERGE_ROWS};
    merge_rows(rows);
    return subargs_docs(&spec, out, max);
}

size_t plot_docs(struct optdoc *out, size_t max)
{
    return subargs_docs(&plot_spec, out, max);
}

/* The options and input files: *run false when the command ends here with the status. */
static int parse_args(int argc, char **argv, bool plot, struct sub_args *a, bool *run)
{
    struct subarg rows[MERGE_ROWS];
    struct subargs_spec merge_spec = {"merge", merge_intro, merge_outro, rows, MERGE_ROWS, false};
    const struct subargs_spec *spec = plot ? &plot_spec : &merge_spec;
    merge_rows(rows);
    memset(a, 0, sizeof(*a));
    *run = false;
    a->inputs = calloc((size_t)argc, sizeof(*a->inputs));
    if (a->inputs == NULL) {
        return SLAP_EXIT_FAILED;
    }
    int status = subargs_parse(spec, argc, argv, a, a->inputs, &a->ninputs, run);
    if (!*run) {
        return status;
    }
    *run = false;
    if (a->ninputs == 0) {
        return subargs_usage(spec, "give at least one results file (written by --json)", NULL);
    }
    if (plot && a->out[RESULTS_SINK_SVG] == NULL) {
        return subargs_usage(spec, "-o FILE.svg names the picture", NULL);
    }
    const char *problem = a->store != NULL ? store_location_problem(a->store) : NULL;
    if (problem != NULL) {
        return subargs_usage(spec, problem, "--store");
    }
    status = distinct_outputs(spec->name, a);
    *run = status == SLAP_EXIT_OK;
    return status;
}

/* Read every input; on a failure say which file and why. */
static int read_inputs(const struct sub_args *a, const char *name, struct results_doc *docs,
                       struct results_doc **ptrs)
{
    for (int i = 0; i < a->ninputs; i++) {
        char err[640];
        ptrs[i] = &docs[i];
        if (results_read(a->inputs[i], plan_output_read_config, &docs[i], err, sizeof(err)) !=
            SLAP_OK) {
            fprintf(stderr, "slap %s: %s\n", name, err);
            return SLAP_EXIT_USAGE;
        }
    }
    return SLAP_EXIT_OK;
}

/* The same run given twice (the same file, or a copy) would count twice: refuse, naming both. */
static int refuse_same_run(const struct sub_args *a, const struct results_merge_input *in)
{
    struct results_shared_run same;
    if (results_merge_shared_run(in, (size_t)a->ninputs, &same) != SLAP_OK) {
        fprintf(stderr, "slap merge: out of memory\n");
        return SLAP_EXIT_FAILED;
    }
    if (same.found) {
        char qa[QUOTE_PATH_BUF], qb[QUOTE_PATH_BUF], qh[QUOTE_PATH_BUF];
        fprintf(stderr,
                "slap merge: %s and %s hold the same run (host %s, pid %llu, started at %llu "
                "ms): a run is counted once\n",
                quote_name(qa, a->inputs[same.a]), quote_name(qb, a->inputs[same.b]),
                quote_name(qh, same.run.host), (unsigned long long)same.run.pid,
                (unsigned long long)same.run.start_ms);
        return SLAP_EXIT_USAGE;
    }
    return SLAP_EXIT_OK;
}

/*
 * --share: the parts of one load merge when they are parts of the same N, each once. Two runs
 * of one part (or runs with shares beside runs without) are refused: exit 2. Parts missing are
 * named into missing (e.g. "3/4, 4/4"; "" when none): the merge goes on.
 */
/* "part 2/4,keys" or "no --share": a run's share, for messages. */
static const char *share_text(char *buf, size_t len, const struct run_desc *d)
{
    if (d->share_count == 0) {
        return "no --share";
    }
    snprintf(buf, len, "part %u/%u%s", d->share_index, d->share_count,
             d->share_keys ? ",keys" : "");
    return buf;
}

/* The parts of the load no input holds (holder[part] 0) named into missing: "3/4, 4/4", cut
 * with "..." when they pass len. */
static void missing_parts(const int *holder, uint32_t count, char *missing, size_t len)
{
    size_t used = 0;
    missing[0] = '\0';
    for (uint32_t part = 1; part <= count; part++) {
        int n;
        if (holder[part] != 0) {
            continue;
        }
        if (used + 32 >= len) {
            snprintf(missing + used, len - used, "...");
            return;
        }
        n = snprintf(missing + used, len - used, "%s%u/%u", used ? ", " : "", part, count);
        used += n > 0 ? (size_t)n : 0;
    }
}

static int check_shares(const struct sub_args *a, const struct results_merge_input *in,
                        char *missing, size_t len)
{
    const struct run_desc *first = &in[0].doc->desc;
    char qa[QUOTE_PATH_BUF], qb[QUOTE_PATH_BUF];
    /* holder[part]: 1 + the first input that is that part of the load, 0 for none */
    int *holder = calloc((size_t)first->share_count + 1, sizeof(*holder));
    int status = holder != NULL ? SLAP_EXIT_OK : SLAP_EXIT_FAILED;
    missing[0] = '\0';
    if (holder == NULL) {
        fprintf(stderr, "slap merge: out of memory\n");
    }
    for (int i = 0; i < a->ninputs && status == SLAP_EXIT_OK; i++) {
        const struct run_desc *d = &in[i].doc->desc;
        if (d->share_count != first->share_count || d->share_keys != first->share_keys) {
            char sa[32], sb[32];
            fprintf(stderr,
                    "slap merge: %s is %s and %s is %s: only the parts of one load "
                    "(--share I/N, the same N) merge\n",
                    quote_name(qa, a->inputs[0]), share_text(sa, sizeof(sa), first),
                    quote_name(qb, a->inputs[i]), share_text(sb, sizeof(sb), d));
            status = SLAP_EXIT_USAGE;
        } else if (first->share_count > 0 && holder[d->share_index] != 0) {
            fprintf(stderr,
                    "slap merge: %s and %s are both part %u/%u of the load: each part is "
                    "counted once\n",
                    quote_name(qa, a->inputs[holder[d->share_index] - 1]),
                    quote_name(qb, a->inputs[i]), d->share_index, d->share_count);
            status = SLAP_EXIT_USAGE;
        } else if (first->share_count > 0) {
            holder[d->share_index] = i + 1;
        }
    }
    if (status == SLAP_EXIT_OK) {
        missing_parts(holder, first->share_count, missing, len);
    }
    free(holder);
    return status;
}

/* Runs of different servers are a comparison (slap compare), not one load: refused, naming
 * the files. */
static int refuse_other_servers(const struct sub_args *a, const struct results_merge_input *in)
{
    char qa[QUOTE_PATH_BUF], qb[QUOTE_PATH_BUF], qs[QUOTE_PATH_BUF], qt[QUOTE_PATH_BUF];
    const char *first = in[0].doc->desc.servers != NULL ? in[0].doc->desc.servers : "";
    for (int i = 1; i < a->ninputs; i++) {
        const char *other = in[i].doc->desc.servers != NULL ? in[i].doc->desc.servers : "";
        if (strcmp(first, other) != 0) {
            fprintf(stderr,
                    "slap merge: %s loaded %s and %s loaded %s: runs of different servers are "
                    "compared (slap compare), not merged\n",
                    quote_name(qa, a->inputs[0]), quote_name(qs, first),
                    quote_name(qb, a->inputs[i]), quote_name(qt, other));
            return SLAP_EXIT_USAGE;
        }
    }
    return SLAP_EXIT_OK;
}

/* When the inputs measured: the first start, the spread of their starts, and the time all of
 * them were measuring at once (negative: none; the gap between the first end and the last
 * start), in ms. */
struct merge_span {
    uint64_t first_start_ms;
    uint64_t skew_ms;
    int64_t common_ms;
    int late, early; /* the input that started last, the one that ended first */
};

static struct merge_span merge_span_of(const struct results_merge_input *in, int n)
{
    struct merge_span sp = {in[0].doc->start_ms, 0, 0, 0, 0};
    uint64_t last_start = in[0].doc->start_ms, first_end = in[0].doc->end_ms;
    for (int i = 1; i < n; i++) {
        const struct results_doc *d = in[i].doc;
        sp.first_start_ms = d->start_ms < sp.first_start_ms ? d->start_ms : sp.first_start_ms;
        if (d->start_ms > last_start) {
            last_start = d->start_ms;
            sp.late = i;
        }
        if (d->end_ms < first_end) {
            first_end = d->end_ms;
            sp.early = i;
        }
    }
    sp.skew_ms = last_start - sp.first_start_ms;
    sp.common_ms = (int64_t)first_end - (int64_t)last_start;
    return sp;
}

/* Inputs that were never all measuring at once make no load that ran at once, and inputs that
 * started apart (no common --start_at) are summed as if they had not: said, and merged all the
 * same (hosts whose -x runs are short may well miss each other). */
static void warn_apart(const struct sub_args *a, const struct results_merge_input *in)
{
    struct merge_span sp = merge_span_of(in, a->ninputs);
    char qa[QUOTE_PATH_BUF], qb[QUOTE_PATH_BUF];
    if (a->ninputs > 1 && sp.common_ms >= 0 && sp.skew_ms > START_SPREAD_MS) {
        fprintf(stderr,
                "slap merge: the runs started %.1f s apart: rates are summed as if they "
                "ran together (--start_at starts them together)\n",
                (double)sp.skew_ms / 1000.0);
    } else if (a->ninputs > 1 && sp.common_ms < 0) {
        fprintf(stderr,
                "slap merge: %s ended %.1f s before %s began: these runs were not measuring "
                "at once, so their sum is no load that ran together (--start_at starts hosts "
                "together; slap compare compares runs made apart)\n",
                quote_name(qa, a->inputs[sp.early]), (double)-sp.common_ms / 1000.0,
                quote_name(qb, a->inputs[sp.late]));
    }
}

/* After the merged report, a line per input (its label, requests, rate, errors, verdict, and
 * when it started measuring, in ms after the first), then the spread of the starts and how
 * long every input was measuring at once. */
static void print_hosts(const struct sub_args *a, const struct results_merge_input *in)
{
    struct merge_span sp = merge_span_of(in, a->ninputs);
    printf("\nHost   Requests        TPS     Errors  Start_ms  Late_ms  Limited_by  Label\n");
    for (int i = 0; i < a->ninputs; i++) {
        const struct results_doc *d = in[i].doc;
        const struct results_run_id *run = d->runs.items;
        uint64_t requests = stats_ops(d->global); /* as its run line's Ops and runs[] */
        char late[24] = "-"; /* how long after its --start_at it began measuring */
        if (d->runs.n == 1 && run->start_at_ms > 0) {
            snprintf(late, sizeof(late), "%lld",
                     (long long)run->start_ms - (long long)run->start_at_ms);
        }
        printf("%-4d %10llu %10.0f %10llu %9llu %8s  %-10s  %s\n", i + 1,
               (unsigned long long)requests, d->seconds > 0 ? (double)requests / d->seconds : 0.0,
               (unsigned long long)stats_errors(&d->global->counters),
               (unsigned long long)(d->start_ms - sp.first_start_ms), late,
               d->has_limits ? limits_verdict_name(d->limits.verdict) : "-", d->label);
    }
    if (sp.common_ms >= 0) {
        printf("start_skew: %llu ms; all measuring at once: %.1f s\n",
               (unsigned long long)sp.skew_ms, (double)sp.common_ms / 1000.0);
    } else {
        printf("start_skew: %llu ms; all measuring at once: never (%.1f s apart)\n",
               (unsigned long long)sp.skew_ms, (double)-sp.common_ms / 1000.0);
    }
}

/* One step's statistics, for its sweep row. */
static void step_stats(const struct results_step *step, struct slap_stats *s)
{
    stats_reset(s);
    s->counters = step->counters;
    for (int t = 0; t < STATS_TYPES; t++) {
        results_sparse_add(&step->lat[t], s->lat[t]);
    }
}

/* The evictions of the preloads (or warm-ups), where the documents say. */
static double merged_preload_evictions(const struct results_doc *m)
{
    const struct results_server *servers = m->servers.items;
    double sum = 0;
    for (size_t i = 0; i < m->servers.n; i++) {
        sum += server_stats_preload_evictions(&servers[i].stats, 1);
    }
    return sum;
}

/* The combined text report, in the layout of one run's. */
/* The merged report on standard output: SLAP_ERROR when memory for it ran out. */
static enum slap_status merged_report(const struct results_doc *m)
{
    if (!m->sweep) {
        report_header(stdout, &m->desc);
        struct report_confidence conf = {m->intervals, NULL};
        return report_final(stdout, &m->desc, m->global, m->seconds, m->signal, NULL,
                            m->has_limits ? &m->limits : NULL, merged_preload_evictions(m), &conf);
    }
    enum slap_status st = SLAP_OK;
    struct slap_stats *s = malloc(sizeof(*s));
    if (s == NULL || stats_init(s, &stats_shape_all) != SLAP_OK) {
        free(s);
        return SLAP_ERROR;
    }
    const struct results_step *steps = m->steps.items;
    report_sweep_header(stdout, &m->desc);
    report_sweep_columns(stdout, &m->desc);
    for (size_t i = 0; i < m->steps.n; i++) {
        struct report_step row = {steps[i].target_tps,  s,
                                  steps[i].seconds,     steps[i].limited_by,
                                  steps[i].interrupted, steps[i].intervals};
        step_stats(&steps[i], s);
        st = report_sweep_row(stdout, &m->desc, &row) != SLAP_OK ? SLAP_ERROR : st;
    }
    report_preload_evictions(stdout, merged_preload_evictions(m));
    report_interrupted(stdout, m->signal);
    stats_free(s);
    free(s);
    return st;
}

/* Write path (option's) with write, saying why it failed. */
static int save(const char *name, const char *option, const char *path, outfile_writer write,
                const void *arg)
{
    char err[512];
    if (path != NULL && outfile_save(path, write, arg, err, sizeof(err)) != SLAP_OK) {
        fprintf(stderr, "slap %s: %s: %s\n", name, option, err);
        return SLAP_EXIT_FAILED;
    }
    return SLAP_EXIT_OK;
}

/* ---- slap merge's outputs, written as the inputs are read again ---------------------- */

/* The merge being written: its inputs. */
struct merge_job {
    struct results_merge_input *in;
    size_t n;
};

/* The merged periods handed to each (none read when no input has any): a results_walk. */
static enum slap_status merge_walk(void *src, results_merge_each each, void *arg, char *err,
                                   size_t err_len)
{
    struct merge_job *job = src;
    size_t periods = 0;
    for (size_t i = 0; i < job->n; i++) {
        periods += job->in[i].nperiods;
    }
    return periods == 0 ? SLAP_OK : results_merge_periods(job->in, job->n, each, arg, err, err_len);
}

/* A merged period kept for the intervals: a results_merge_each. */
static enum slap_status keep_for_intervals(void *arg, struct results_period *p)
{
    return intervals_add_period(arg, p);
}

/* The merged periods, kept for the intervals of the merged report and files. */
static int merge_intervals(struct merge_job *job, struct results_doc *merged)
{
    char err[640] = "";
    if (merge_walk(job, keep_for_intervals, merged->intervals, err, sizeof(err)) != SLAP_OK) {
        quote_line(stderr, "slap merge: ", err[0] != '\0' ? err : "out of memory");
        return SLAP_EXIT_FAILED;
    }
    return SLAP_EXIT_OK;
}

/* The first byte of buf that cannot be where it is: a control byte (never in JSON text), or
 * before the document's '{' (*started: it was seen) anything but white space; NULL if none. */
static const char *bad_byte(const char *buf, size_t n, bool *started)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)buf[i];
        bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
        if ((c < 0x20 && !space) || (!*started && !space && c != '{')) {
            return buf + i;
        }
        *started = *started || c == '{';
    }
    return NULL;
}

/* src copied into fd, at most RESULTS_STREAM_MAX bytes of text: SLAP_EXIT_OK, or the status
 * and what is wrong in why (SLAP_EXIT_USAGE: the input is no results file; SLAP_EXIT_FAILED:
 * the copy). */
static int copy_stream(FILE *src, int fd, char *why, size_t why_len)
{
    char buf[65536];
    uint64_t copied = 0;
    bool started = false;
    for (size_t n; (n = fread(buf, 1, sizeof(buf), src)) > 0; copied += n) {
        const char *bad = bad_byte(buf, n, &started);
        if (bad != NULL) {
            snprintf(why, why_len, "byte %llu (0x%02x): %s",
                     (unsigned long long)(copied + (uint64_t)(bad - buf)), (unsigned char)*bad,
                     started ? "a control byte, not JSON text"
                             : "not the '{' a results document begins with");
            return SLAP_EXIT_USAGE;
        }
        if (copied + n > RESULTS_STREAM_MAX) {
            snprintf(why, why_len, "more than %llu MiB from a stream: save it to a file first",
                     (unsigned long long)(RESULTS_STREAM_MAX >> 20));
            return SLAP_EXIT_USAGE;
        }
        if (write(fd, buf, n) != (ssize_t)n) {
            snprintf(why, why_len, "cannot copy it to a temporary file: %s", strerror(errno));
            return SLAP_EXIT_FAILED;
        }
    }
    if (ferror(src)) {
        snprintf(why, why_len, "cannot read it: %s", strerror(errno));
        return SLAP_EXIT_USAGE;
    }
    return SLAP_EXIT_OK;
}

/*
 * The merge reads its inputs more than once: one that is not a regular file (a pipe, as
 * `slap merge <(ssh host cat r.json)` gives, or standard input) is first copied whole to an
 * unlinked temporary file, then read through /proc/self/fd/N. The copy stops at a control
 * byte (/dev/zero), at text before the document's '{' (`yes`), or past RESULTS_STREAM_MAX
 * bytes. A directory or a socket is refused; a file that cannot be opened is left for the
 * reader to name. open_path is the caller's to free.
 */
static int spool_if_stream(struct results_merge_input *in)
{
    char path[32], why[160], tmpl[PATH_MAX];
    struct stat st;
    const char *dir = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
    FILE *src;
    if (stat(in->path, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode))) {
        char shown[QUOTE_PATH_BUF];
        fprintf(stderr, "slap merge: %s: %s, not a results file\n", quote_name(shown, in->path),
                S_ISDIR(st.st_mode) ? "a directory" : "a socket");
        return SLAP_EXIT_USAGE;
    }
    if (stat(in->path, &st) != 0 || S_ISREG(st.st_mode) || (src = fopen(in->path, "r")) == NULL) {
        return SLAP_EXIT_OK;
    }
    snprintf(tmpl, sizeof(tmpl), "%s/slap-merge-XXXXXX", dir);
    int fd = mkstemp(tmpl);
    int status = SLAP_EXIT_FAILED;
    if (fd < 0 || unlink(tmpl) != 0) {
        snprintf(why, sizeof(why), "cannot make a temporary file in %s: %s", dir, strerror(errno));
    } else {
        status = copy_stream(src, fd, why, sizeof(why));
    }
    fclose(src);
    if (status != SLAP_EXIT_OK) {
        char shown[QUOTE_PATH_BUF];
        fprintf(stderr, "slap merge: %s: %s\n", quote_name(shown, in->path), why);
        if (fd >= 0) {
            close(fd);
        }
        return status;
    }
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd); /* closed when slap exits */
    in->open_path = strdup(path);
    return in->open_path != NULL ? SLAP_EXIT_OK : SLAP_EXIT_FAILED;
}

/* Read every input whole (nothing kept of its periods) and merge what they hold but their
 * periods into merged; refuse (saying why) what cannot be merged. */
/*
 * --probe runs measure latency beside the load, not part of it: moved after the load's runs
 * (in and the names alike, each side in its order); how many runs are load. Inputs that are
 * all probes are merged as a load of their own.
 */
static int put_probes_last(struct sub_args *a, struct results_merge_input *in)
{
    int nload = 0;
    for (int i = 0; i < a->ninputs; i++) {
        nload += !in[i].doc->desc.probe;
    }
    if (nload == 0 || nload == a->ninputs) {
        return a->ninputs;
    }
    for (int i = 0, next = 0; i < a->ninputs; i++) {
        if (!in[i].doc->desc.probe) {
            /* rotate the run into place: the probes before it move one along, in order */
            struct results_merge_input run = in[i];
            char *name = a->inputs[i];
            memmove(&in[next + 1], &in[next], (size_t)(i - next) * sizeof(*in));
            memmove(&a->inputs[next + 1], &a->inputs[next],
                    (size_t)(i - next) * sizeof(*a->inputs));
            in[next] = run;
            a->inputs[next++] = name;
        }
    }
    return nload;
}

/* After the hosts' lines, each probe's latency (from the intended send time), apart. */
static void print_probes(const struct results_doc *m)
{
    const struct results_probe *probes = m->probes.items;
    if (m->probes.n == 0) {
        return;
    }
    printf("\nProbe latency (not part of the load above; from each request's intended send "
           "time)\n");
    printf("Probe  Requests        TPS      p50_us      p99_us    p99.9_us      max_us  Label\n");
    for (size_t i = 0; i < m->probes.n; i++) {
        const struct results_probe *p = &probes[i];
        printf("%-4zu %10llu %10.0f %11.0f %11.0f %11.0f %11.0f  %s\n", i + 1,
               (unsigned long long)p->requests, p->tps, p->p50_us, p->p99_us, p->p999_us, p->max_us,
               p->label);
    }
}

static int merge_check(struct sub_args *a, struct results_merge_input *in,
                       struct results_doc *merged, int *nload, char *missing, size_t missing_len,
                       bool groups)
{
    char err[640] = "";
    for (int i = 0; i < a->ninputs; i++) {
        in[i].path = a->inputs[i];
        in[i].group = groups;
        in[i].read_config = plan_output_read_config;
        int status = spool_if_stream(&in[i]);
        if (status != SLAP_EXIT_OK) {
            return status;
        }
    }
    if (results_merge_read(in, (size_t)a->ninputs, err, sizeof(err)) != SLAP_OK) {
        quote_line(stderr, "slap merge: ", err);
        return SLAP_EXIT_USAGE;
    }
    int refused = refuse_same_run(a, in);
    if (refused != SLAP_EXIT_OK) {
        return refused;
    }
    if (!groups && refuse_other_servers(a, in) != SLAP_EXIT_OK) {
        return SLAP_EXIT_USAGE;
    }
    *nload = put_probes_last(a, in);
    struct sub_args load = *a;
    load.ninputs = *nload;
    refused = check_shares(&load, in, missing, missing_len);
    if (refused != SLAP_EXIT_OK) {
        return refused;
    }
    if (results_merge_heads(merged, in, (size_t)*nload, err, sizeof(err)) != SLAP_OK) {
        quote_line(stderr, "slap merge: cannot merge: ", err);
        return SLAP_EXIT_USAGE;
    }
    for (int i = 0; i < a->ninputs && !merged->sweep; i++) {
        /* the probes beside the load: its inputs' own (a merged file's), then the probe runs */
        const struct results_probe *kept = in[i].doc->probes.items;
        for (size_t k = 0; i < *nload && k < in[i].doc->probes.n; k++) {
            if (results_keep_probe(merged, &kept[k]) != SLAP_OK) {
                return SLAP_EXIT_FAILED;
            }
        }
        if (i >= *nload && results_add_probe(merged, in[i].doc) != SLAP_OK) {
            return SLAP_EXIT_FAILED;
        }
    }
    if (merged->desc.share_count > 0) {
        /* the merge is the load of the parts it holds, not one host's part */
        merged->desc.share_index = 0;
        if (missing[0] == '\0') {
            merged->desc.share_count = 0;
        }
        if (run_config_set(&merged->desc.config, "share", RUN_CONFIG_NULL, NULL) != SLAP_OK) {
            return SLAP_EXIT_FAILED;
        }
    }
    return SLAP_EXIT_OK;
}

/*
 * slap merge, in memory bounded by the histograms however many periods the files hold: the
 * inputs are read whole once to check them (nothing is written before all are known good),
 * then once more for each output, a period of every input at a time. g: a groups run's.
 */
static int merge_files(struct sub_args *a, int max_inputs, const struct merge_groups *g)
{
    struct results_doc merged;
    char missing[256] = "";
    int nload = 0; /* the inputs that are load (the probes follow them) */
    int status = SLAP_EXIT_OK;
    struct results_merge_input *in = calloc((size_t)max_inputs, sizeof(*in));
    memset(&merged, 0, sizeof(merged));
    if (in == NULL) {
        status = SLAP_EXIT_FAILED;
    }
    if (status == SLAP_EXIT_OK) {
        status = merge_check(a, in, &merged, &nload, missing, sizeof(missing), g != NULL);
    }
    if (status == SLAP_EXIT_OK) {
        struct merge_job job = {.in = in, .n = (size_t)nload};
        warn_apart(a, in);
        status = merge_intervals(&job, &merged);
    }
    if (status == SLAP_EXIT_OK) {
        struct merge_job job = {.in = in, .n = (size_t)nload};
        struct results_sink_input sink = {&merged, merge_walk, &job, NULL};
        struct sub_args load = *a;
        load.ninputs = nload;
        if (g != NULL) {
            g->before(g->arg, &merged, in, (size_t)nload);
        }
        bool whole = merged_report(&merged) == SLAP_OK;
        if (a->ninputs > 1 && !merged.sweep && g == NULL) {
            print_hosts(&load, in);
        }
        print_probes(&merged);
        if (g != NULL) {
            g->after_report(g->arg);
        }
        if (!whole) {
            fprintf(stderr, "slap merge: out of memory: the report could not be written\n");
            status = SLAP_EXIT_FAILED;
        }
        if (results_sinks_save(a->out, &sink, stderr, "slap merge") != SLAP_OK) {
            status = SLAP_EXIT_FAILED;
        }
        const char *store = g != NULL ? g->store : store_location(a->store);
        if (store != NULL && store_save(store, &sink, g != NULL ? "groups" : "merge", stderr,
                                        g != NULL ? "slap" : "slap merge") != SLAP_OK) {
            status = SLAP_EXIT_FAILED;
        }
        status = fflush(stdout) != 0 || ferror(stdout) ? SLAP_EXIT_FAILED : status;
        if (missing[0] != '\0') {
            fprintf(stderr,
                    "slap merge: no results of part %s of the load (--share): the merged "
                    "figures are those of the parts given\n",
                    missing);
            status = SLAP_EXIT_FAILED;
        }
    }
    results_doc_free(&merged);
    for (int i = 0; in != NULL && i < max_inputs; i++) {
        free((char *)in[i].open_path);
    }
    results_merge_inputs_free(in, (size_t)max_inputs);
    free(in);
    return status;
}

int merge_main(int argc, char **argv)
{
    struct sub_args a;
    bool run;
    int status = parse_args(argc, argv, false, &a, &run);
    if (run) {
        status = merge_files(&a, argc, NULL);
    }
    free(a.inputs);
    return status;
}

int merge_groups_run(char **paths, int n, const char *const *out, const struct merge_groups *g)
{
    struct sub_args a = {.inputs = paths, .ninputs = n};
    for (size_t k = 0; k < RESULTS_SINKS; k++) {
        a.out[k] = out[k];
    }
    return merge_files(&a, n, g);
}

int plot_main(int argc, char **argv)
{
    struct sub_args a;
    bool run;
    int status = parse_args(argc, argv, true, &a, &run);
    if (!run) {
        free(a.inputs);
        return status;
    }
    struct results_doc *docs = calloc((size_t)argc, sizeof(*docs));
    struct results_doc **ptrs = calloc((size_t)argc, sizeof(*ptrs));
    if (docs == NULL || ptrs == NULL) {
        status = SLAP_EXIT_FAILED;
    }
    if (status == SLAP_EXIT_OK && a.ninputs > PLOT_MAX_DOCS) {
        status = subargs_usage(&plot_spec, "too many results files for one picture", NULL);
    }
    if (status == SLAP_EXIT_OK) {
        status = read_inputs(&a, argv[0], docs, ptrs);
    }
    struct plot_samples samples = {.stride = 1};
    char err[640];
    if (status == SLAP_EXIT_OK && a.samples != NULL &&
        plot_samples_read(a.samples, &samples, err, sizeof(err)) != SLAP_OK) {
        quote_line(stderr, "slap plot: ", err);
        status = SLAP_EXIT_USAGE;
    }
    if (status == SLAP_EXIT_OK) {
        struct plot_input picture = {(const struct results_doc *const *)ptrs, (size_t)a.ninputs,
                                     a.samples != NULL ? &samples : NULL};
        status = save("plot", "-o", a.out[RESULTS_SINK_SVG], plot_svg, &picture);
    }
    plot_samples_free(&samples);
    for (int i = 0; docs != NULL && i < argc; i++) {
        results_doc_free(&docs[i]);
    }
    free(docs);
    free(ptrs);
    free(a.inputs);
    return status;
}
