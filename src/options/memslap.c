/* memslap's face: its command line mapped onto slap's options, and its report's lines. */
#include "slap/options/memslap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/hist.h"
#include "slap/base/version.h"
#include "slap/model/keys.h"
#include "slap/proto/proto.h"
#include "slap/proto/udp.h"

#include "slap/options/optdoc.h"

#include "options_table.h"

#define OPTIONS_TARGET struct memslap_args /* what memslap's rows fill */

#define MS_LABEL_WIDTH 19 /* "Time to generate   ": the label, then the count */
#define MS_COUNT_WIDTH 8  /* the count ends in column 27 */
#define MS_SECONDS_END 59 /* the seconds end in column 59, then " seconds." */
#define MS_TOTAL "Time total:"
#define MS_RULE "--------------------------------------------------------------------"

static enum options_outcome ms_help(struct parse_state *st, const char *arg);
static enum options_outcome ms_version(struct parse_state *st, const char *arg);
static enum options_outcome ms_servers(struct parse_state *st, const char *arg);

static const char *const test_names[] = {
    [MEMSLAP_GET] = "get", [MEMSLAP_MGET] = "mget", [MEMSLAP_SET] = "set", NULL};

/* memslap's options, in the order of memcslap --help (less SASL's -p and -u). */
static const struct option_row memslap_rows[] = {
    {'h', "help", NULL, "Print this help and exit.", ACTION(ms_help)},
    {'V', "version", NULL, "Print the version and exit.", ACTION(ms_version)},
    {'v', "verbose", NULL, "Print memslap's progress lines too.", FLAG(verbose)},
    {'d', "debug", NULL, "The same as --verbose.", FLAG(debug)},
    {'q', "quiet", NULL,
     "Print no report (errors still go to standard error); the exit status "
     "tells the outcome.",
     FLAG(quiet)},
    {'b', "binary", NULL, "Use the binary protocol.", FLAG(binary)},
    {'B', "buffer", NULL, "Accepted; no effect (how libmemcached buffered requests).",
     FLAG(buffer)},
    {'n', "non-blocking", NULL, "Accepted; no effect (slap's sockets are always non-blocking).",
     FLAG(non_blocking)},
    {'N', "tcp-nodelay", NULL, "Accepted; no effect (slap always disables Nagle's algorithm).",
     FLAG(tcp_nodelay)},
    {'s', "servers", "LIST",
     "Servers, host[:port] separated by commas (port 11211 if omitted). Default: "
     "$MEMCACHED_SERVERS, else " SLAP_DEFAULT_SERVER ".",
     SPECIAL_UNSHOWN(ms_servers)},
    {'H', "hash", "NAME",
     "Key hash of libmemcached's default (modula) distribution: default, md5, crc, fnv1_64, "
     "fnv1a_64, fnv1_32, fnv1a_32, hsieh, murmur, jenkins, murmur3.",
     CHOICE(hash, enum server_hash, options_hash_names)},
    {'R', "noreply", NULL,
     "Sets without an answer: refused with --test=set (they could be neither counted nor "
     "timed); with get or mget it would only change the initial load, done with answered sets.",
     FLAG(noreply)},
    {'U', "udp", NULL,
     "Use UDP (the server's UDP port equal to its TCP port); values are then cut to fit one "
     "datagram; not with --test=mget.",
     FLAG(udp)},
    {'F', "flush", NULL, "Flush every server before the test.", FLAG(flush)},
    {'t', "test", "TEST", "get, mget or set (default: set, as memslap does).",
     CHOICE(test, enum memslap_test, test_names)},
    {'c', "concurrency", "N", "Threads, each with one connection, 1 to 1024. Default 1.",
     COUNT32(concurrency, 1, SLAP_MAX_THREADS, 0)},
    {'e', "execute-number", "N",
     "Operations of each thread (k=1000), and the number of keys. Default 10000.",
     COUNT64(execute_number, 1, UINT32_MAX, 1000)},
    {'l', "initial-load", "N",
     "Accepted; no effect: as in memslap, --execute-number takes precedence (get and mget "
     "load the --execute-number keys first).",
     COUNT64(initial_load, 0, UINT64_MAX, 1000)},
};

static const char help_intro[] =
    "Usage: slap memslap [OPTIONS]   (or memslap [OPTIONS], through a link named memslap)\n"
    "\n"
    "libmemcached's memslap (Debian's memcslap) over slap: N threads, one connection each,\n"
    "--execute-number operations a thread on one shared set of keys (20 to 59 bytes,\n"
    "values of 50 to 4999), and memslap's \"Time to ...\" lines with measured figures.\n"
    "\n"
    "Options:\n";

static const char help_outro[] =
    "\n"
    "Exit status: 0 the test ran and requests succeeded, 1 it failed (a server could not be\n"
    "reached, nothing succeeded), 2 bad usage.\n"
    "\n"
    "Example:\n"
    "  slap memslap --servers=127.0.0.1:11211 --concurrency=4 --execute-number=10000 --binary\n";

static const struct option_table memslap_table = {memslap_rows, SLAP_ARRAY_SIZE(memslap_rows),
                                                  help_intro, help_outro};

size_t memslap_docs(struct optdoc *out, size_t max)
{
    return options_table_docs(&memslap_table, out, max);
}

/* ---- the handlers --------------------------------------------------------------------- */

static enum options_outcome ms_help(struct parse_state *st, const char *arg)
{
    (void)arg;
    options_table_print_help(st->table, st->out);
    return OPTIONS_EXIT;
}

static enum options_outcome ms_version(struct parse_state *st, const char *arg)
{
    (void)arg;
    fprintf(st->out, "memslap (slap %s)\n", SLAP_VERSION);
    return OPTIONS_EXIT;
}

static enum options_outcome ms_servers(struct parse_state *st, const char *arg)
{
    if (arg[0] == '\0') {
        return options_usage_error(st, "--servers: the list is empty");
    }
    ((struct memslap_args *)st->target)->servers = arg;
    return OPTIONS_RUN;
}

/* ---- who is asking -------------------------------------------------------------------- */

bool memslap_invoked(int argc, char **argv, int *first)
{
    static const char *const names[] = {"memslap", "memcslap", "slap-memslap"};
    const char *base = argc > 0 && argv[0] != NULL ? strrchr(argv[0], '/') : NULL;
    base = base != NULL ? base + 1 : (argc > 0 && argv[0] != NULL ? argv[0] : "");
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(names); i++) {
        if (strcmp(base, names[i]) == 0) {
            *first = 0;
            return true;
        }
    }
    if (argc > 1 && strcmp(argv[1], "memslap") == 0) {
        *first = 1;
        return true;
    }
    return false;
}

/* ---- the run memslap's options ask for ------------------------------------------------ */

/* Servers: --servers, else MEMCACHED_SERVERS when set (empty: refused, as --servers ''), else
 * the default; checked. */
static enum options_outcome plan_servers(const struct parse_state *st, struct slap_options *o)
{
    const struct memslap_args *a = st->target;
    const char *env = getenv("MEMCACHED_SERVERS");
    const char *from = "--servers";
    struct servers_shape shape;
    char why[512];
    o->servers = a->servers;
    if (o->servers == NULL) {
        o->servers = env != NULL ? env : SLAP_DEFAULT_SERVER;
        from = "MEMCACHED_SERVERS";
    }
    if (o->servers[0] == '\0') {
        return options_usage_error(st, "%s: the list is empty", from);
    }
    if (servers_check_list(o->servers, &shape, why, sizeof(why)) != SLAP_OK) {
        return options_usage_error(st, "%s: %s", from, why);
    }
    if (a->udp && shape.unix_sockets > 0) {
        return options_usage_error(st,
                                   "--udp needs host:port servers, and %s lists a unix "
                                   "socket",
                                   from);
    }
    return OPTIONS_RUN;
}

/* --udp: a request must fit one datagram. Values are cut to fit; a multi-get never does. */
static enum options_outcome plan_udp(const struct parse_state *st, struct slap_options *o)
{
    const struct codec *codec = codec_get(o->protocol);
    uint32_t key_max = size_dist_max(&o->key_sizes);
    size_t room = (UDP_MAX_REQUEST - UDP_HEADER) - codec_set_header_bytes(codec, key_max) -
                  (codec->set_crlf ? 2 : 0);
    char sizes[64], why[256];
    if (o->multiget_window) {
        return options_usage_error(st, "--udp: a multi-get of every key does not fit one "
                                       "datagram: use --test=get or --test=set");
    }
    snprintf(sizes, sizeof(sizes), "50-%zu", room);
    if (size_dist_parse(sizes, 1, SLAP_MAX_VALUE_SIZE, &o->value_sizes, why, sizeof(why)) !=
        SLAP_OK) {
        return options_usage_error(st,
                                   "--udp: no value of 50 bytes or more fits one "
                                   "datagram: %s",
                                   why);
    }
    fprintf(st->err,
            "slap: --udp: values of 50 to %zu bytes (memslap's go to 4999), so that a "
            "set fits one datagram\n",
            room);
    return OPTIONS_RUN;
}

/* mget: one request of every key per thread, whose buffers each thread holds. */
static enum options_outcome plan_mget(const struct parse_state *st, struct slap_options *o)
{
    const struct codec *codec = codec_get(o->protocol);
    uint32_t key_max = size_dist_max(&o->key_sizes);
    uint64_t keys = o->win_size;
    uint64_t per_thread = codec_get_bytes(codec, (uint32_t)keys, key_max) +
                          keys * (2ULL * key_max + 2 * sizeof(uint64_t));
    uint64_t bytes = per_thread * o->threads;
    if (bytes > MEMSLAP_MGET_BUFFERS_MAX) {
        return options_usage_error(
            st,
            "--test=mget: a multi-get of %" PRIu64 " keys in each of %" PRIu32 " threads needs "
            "%" PRIu64 " MiB of request buffers, more than %llu: use a smaller --execute-number "
            "or --concurrency",
            keys, o->threads, bytes >> 20, MEMSLAP_MGET_BUFFERS_MAX >> 20);
    }
    o->division = (uint32_t)keys;
    o->multiget_window = true;
    o->execute_number = o->threads; /* one multi-get each */
    return OPTIONS_RUN;
}

/* The test: every thread sets each key once, or reads them (after one load) at random or all
 * at once. The keys are one set shared by every thread, as memslap's. */
static enum options_outcome plan_test(const struct parse_state *st, struct slap_options *o)
{
    const struct memslap_args *a = st->target;
    if (a->noreply && a->test == MEMSLAP_SET) {
        return options_usage_error(
            st, "--noreply: the server does not answer noreply sets, so slap could neither "
                "count nor time them: run --test=set without it");
    }
    memset(o->mix, 0, sizeof(o->mix));
    o->mix[a->test == MEMSLAP_SET ? OP_SET : OP_GET] = 1.0; /* no sets: the keys are loaded
                                                               first */
    o->execute_number = a->execute_number * a->concurrency;
    return a->test == MEMSLAP_MGET ? plan_mget(st, o) : OPTIONS_RUN;
}

static enum options_outcome plan_run(const struct parse_state *st, struct slap_options *o)
{
    const struct memslap_args *a = st->target;
    char why[256];
    options_defaults(o);
    enum options_outcome outcome = plan_servers(st, o);
    if (outcome != OPTIONS_RUN) {
        return outcome;
    }
    o->threads = a->concurrency;
    o->concurrency = a->concurrency;
    o->conns_per_client = 1;
    o->win_size = a->execute_number;
    o->shared_keys = true;
    o->memslap_face = true;
    o->hash = a->hash;
    o->flush = a->flush;
    o->udp = a->udp;
    o->protocol = a->binary ? PROTO_BINARY : PROTO_ASCII;
    if (size_dist_parse(MEMSLAP_KEY_SIZES, KEY_LAYOUT_SIZE_MIN, KEY_LAYOUT_SIZE_MAX, &o->key_sizes,
                        why, sizeof(why)) != SLAP_OK ||
        size_dist_parse(MEMSLAP_VALUE_SIZES, 1, SLAP_MAX_VALUE_SIZE, &o->value_sizes, why,
                        sizeof(why)) != SLAP_OK) {
        return options_usage_error(st, "memslap's sizes: %s", why);
    }
    outcome = plan_test(st, o);
    if (outcome == OPTIONS_RUN && o->udp) {
        outcome = plan_udp(st, o);
    }
    return outcome;
}

enum options_outcome memslap_parse(struct memslap_args *a, struct slap_options *o,
                                   const char *program, int argc, char **argv, FILE *out, FILE *err)
{
    struct parse_state st = {.o = o, .target = a, .table = &memslap_table, .out = out, .err = err};
    *a = (struct memslap_args){.concurrency = 1,
                               .execute_number = MEMSLAP_DEFAULT_NUMBER,
                               .initial_load = MEMSLAP_DEFAULT_NUMBER,
                               .test = MEMSLAP_SET,
                               .hash = HASH_DEFAULT};
    enum options_outcome outcome = options_table_parse(&st, program, argc, argv);
    return outcome == OPTIONS_RUN ? plan_run(&st, o) : outcome;
}

/* ---- the report ----------------------------------------------------------------------- */

/* "LABEL   COUNT WHAT   SECONDS seconds.", the seconds ending in memslap's column. */
static void ms_line(FILE *out, const char *label, uint64_t count, const char *what, double seconds)
{
    char left[160];
    int n = snprintf(left, sizeof(left), "%-*s%*" PRIu64 " %s", MS_LABEL_WIDTH, label,
                     MS_COUNT_WIDTH, count, what);
    int width = n > 0 && n < MS_SECONDS_END ? MS_SECONDS_END - n : 1;
    fprintf(out, "%s%*.3f seconds.\n", left, width, seconds);
}

/* The latency of the measured requests, one line: microseconds, min to max. total: a
 * histogram set up, for every type together. */
static void ms_latency(FILE *out, const struct slap_stats *s, struct hist *total)
{
    static const double pcts[] = {50, 90, 99, 99.9};
    stats_total_hist(s, total);
    if (total->count == 0) {
        return;
    }
    fprintf(out, "Latency(us): min %" PRIu64 " avg %.1f",
            (uint64_t)(total->min_ns / SLAP_NS_PER_US), hist_mean_us(total));
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(pcts); i++) {
        uint64_t us = hist_percentile_ns(total, pcts[i]) / SLAP_NS_PER_US;
        fprintf(out, " p%g %" PRIu64, pcts[i], us);
    }
    fprintf(out, " max %" PRIu64 " requests %" PRIu64 "\n",
            (uint64_t)(total->max_ns / SLAP_NS_PER_US), total->count);
}

enum slap_status memslap_report(FILE *out, const struct memslap_args *a,
                                const struct memslap_times *t, const struct slap_stats *s)
{
    const struct slap_counters *c = &s->counters;
    bool progress = a->verbose || a->debug;
    char label[32], what[48];
    struct hist *total;
    if (hist_slab_alloc(&total, 1) != SLAP_OK) {
        return SLAP_ERROR;
    }
    if (a->flush) {
        ms_line(out, "Time to flush", t->servers, "servers:", t->flush);
    }
    fputs(progress ? "- Generating random test data ...\n" : "", out);
    ms_line(out, "Time to generate", a->execute_number, "test keys:", t->generate);
    if (a->test != MEMSLAP_SET) {
        ms_line(out, "Time to set", t->loaded, "keys:", t->load);
    }
    if (progress) {
        fprintf(out, "- Starting %" PRIu32 " threads ...\n", a->concurrency);
    }
    ms_line(out, "Time to start", a->concurrency, "threads:", t->start);
    if (progress) {
        fprintf(out, "- Starting test: %" PRIu64 " x %s x %" PRIu32 " ...\n", a->execute_number,
                test_names[a->test], a->concurrency);
    }
    snprintf(label, sizeof(label), "Time to %s", test_names[a->test]);
    snprintf(what, sizeof(what), "keys by %4" PRIu32 " threads:", a->concurrency);
    fputs(MS_RULE "\n", out);
    ms_line(out, label, a->test == MEMSLAP_SET ? c->cmd_set : c->cmd_get, what, t->test);
    fputs(MS_RULE "\n", out);
    fprintf(out, "%s%*.3f seconds.\n", MS_TOTAL, MS_SECONDS_END - (int)strlen(MS_TOTAL), t->total);
    if (a->test != MEMSLAP_SET) {
        fprintf(out, "get_misses: %" PRIu64 "\n", c->get_misses);
    }
    stats_print_counters(out, c, COUNTER_NONZERO);
    ms_latency(out, s, total);
    hist_slab_free(total, 1);
    return SLAP_OK;
}
