/* slap trace-stats FILE: its command line, the trace read whole into model/tracestats, the
 * report printed by tracestats_report.c. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/quote.h"
#include "slap/base/units.h"
#include "slap/commands/subcommands.h"
#include "slap/commands/tracestats_report.h"
#include "slap/model/tracestats.h"
#include "slap/options/subargs.h"

struct tracestats_args {
    const char *exact_keys; /* --exact-keys, as given */
    bool skip_bad;
};

static const struct subarg tracestats_rows[] = {
    {.name = "--trace-skip-bad",
     .kind = SUBARG_FLAG,
     .offset = offsetof(struct tracestats_args, skip_bad),
     .help = "skip and count malformed lines instead of stopping at the first"},
    {.name = "--exact-keys",
     .value = "N",
     .kind = SUBARG_TEXT,
     .offset = offsetof(struct tracestats_args, exact_keys),
     .help = "count up to N distinct keys exactly (default 3000000, about 16 bytes\n"
             "each; k = 1000, m); beyond, estimate (HyperLogLog)"},
};

_Static_assert(TRACESTATS_EXACT_KEYS == 3000000u, "--exact-keys' help says its default");

static const struct subargs_spec tracestats_spec = {
    .name = "trace-stats",
    .intro = "Usage: slap trace-stats [--trace-skip-bad] [--exact-keys N] FILE\n"
             "A trace's rate over time, operation mix, key and value sizes, distinct keys and\n"
             "Zipf exponent, read without a server. FILE: Twitter's cache-trace format, plain or\n"
             "zstd-compressed; - reads standard input.\n",
    .outro = "Exit status: 0 done, 1 the trace could not be read or has a malformed line, 2 bad\n"
             "usage.\n",
    .rows = tracestats_rows,
    .count = SLAP_ARRAY_SIZE(tracestats_rows),
};

size_t tracestats_docs(struct optdoc *out, size_t max)
{
    return subargs_docs(&tracestats_spec, out, max);
}

/* The operands and --exact-keys checked: the trace's path and the count, or the refusal. */
static int check_args(const struct tracestats_args *a, char **operands, int n, const char **path,
                      uint64_t *exact_keys)
{
    *exact_keys = TRACESTATS_EXACT_KEYS;
    if (a->exact_keys != NULL &&
        (units_parse_size(a->exact_keys, strlen(a->exact_keys), 1000, exact_keys) != UNITS_OK ||
         *exact_keys < 1 || *exact_keys > TRACESTATS_EXACT_KEYS_MAX)) {
        return subargs_usage(&tracestats_spec,
                             "--exact-keys takes a whole number from 1 to 50m:", a->exact_keys);
    }
    if (n == 0) {
        return subargs_usage(&tracestats_spec, "which trace? Give a file, or - for standard input",
                             NULL);
    }
    if (n > 1) {
        return subargs_usage(&tracestats_spec, "one trace at a time; also given", operands[1]);
    }
    *path = operands[0];
    return SLAP_EXIT_OK;
}

/* The trace and the options: *run false when the command ends here with the status. */
static int parse_args(int argc, char **argv, struct tracestats_args *a, const char **path,
                      uint64_t *exact_keys, bool *run)
{
    char **operands = calloc((size_t)argc + 1, sizeof(*operands));
    int n = 0;
    int status = operands != NULL
                     ? subargs_parse(&tracestats_spec, argc, argv, a, operands, &n, run)
                     : SLAP_EXIT_FAILED;
    if (operands == NULL || !*run) {
        *run = false;
        free(operands);
        return status;
    }
    status = check_args(a, operands, n, path, exact_keys);
    *run = status == SLAP_EXIT_OK;
    free(operands);
    return status;
}

/* Read the whole trace into s: SLAP_ERROR with the message in err. */
static enum slap_status gather(struct trace_reader *t, struct tracestats *s, char *err,
                               size_t err_len)
{
    struct trace_request r;
    enum slap_status st;
    const struct trace_counts *c = trace_counts(t);
    while ((st = trace_next(t, &r, err, err_len)) == SLAP_OK) {
        tracestats_add(s, &r, c->first_second + r.offset_ns / SLAP_NS_PER_SEC);
    }
    return st == SLAP_AGAIN ? SLAP_OK : SLAP_ERROR;
}

int tracestats_main(int argc, char **argv)
{
    struct tracestats_args a = {0};
    struct trace_reader *t = NULL;
    struct tracestats *s = NULL;
    const char *path = NULL;
    uint64_t exact_keys;
    char err[1024] = "";
    bool run;
    int status = parse_args(argc, argv, &a, &path, &exact_keys, &run);
    if (!run) {
        return status;
    }
    status = SLAP_EXIT_FAILED;
    struct trace_options o = {.path = path, .skip_bad = a.skip_bad};
    if (trace_open(&t, &o, err, sizeof(err)) != SLAP_OK) {
        goto out;
    }
    if (tracestats_init(&s, exact_keys) != SLAP_OK) {
        snprintf(err, sizeof(err), "out of memory");
        goto out;
    }
    if (gather(t, s, err, sizeof(err)) != SLAP_OK) {
        goto out;
    }
    tracestats_report(stdout, s, trace_counts(t), strcmp(path, "-") == 0 ? "stdin" : path);
    status = fflush(stdout) == 0 && !ferror(stdout) ? SLAP_EXIT_OK : SLAP_EXIT_FAILED;
    if (status != SLAP_EXIT_OK) {
        snprintf(err, sizeof(err), "cannot write to standard output");
    }
out:
    if (status != SLAP_EXIT_OK) {
        quote_line(stderr, "slap trace-stats: ", err);
    }
    tracestats_free(s);
    trace_close(t);
    return status;
}
