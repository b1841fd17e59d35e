/* slap: options, plan, run, report, exit status. Orchestration only. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slap/hist_hgrm.h"
#include "slap/memslap.h"
#include "slap/options.h"
#include "slap/report.h"
#include "slap/run.h"
#include "slap/tracestats.h"

enum exit_status {
    EXIT_RUN_OK = 0,     /* the run completed and requests succeeded */
    EXIT_RUN_FAILED = 1, /* could not connect, nothing succeeded, clients lost */
    EXIT_USAGE = 2,      /* bad options */
};

/* Workers inherit a mask without the stop signals; the main thread waits for them. */
static void block_signals(void)
{
    sigset_t set;
    run_stop_signals(&set);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* Die of the signal that interrupted the run, so a surrounding shell loop stops too. */
static void die_of(int sig)
{
    sigset_t set;
    fflush(NULL);
    signal(sig, SIG_DFL);
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    exit(128 + sig);
}

/* More unanswered requests than this share of all due ones fail the run. */
#define UNANSWERED_TOLERANCE 0.01

static int verdict(const struct run *r)
{
    const struct slap_counters *c = &r->global.counters;
    uint32_t clients = r->opts->concurrency;
    uint64_t ops = stats_ops(&r->global);
    if (r->signal != 0 && run_seconds(r) == 0.0) {
        fprintf(stderr, "slap: interrupted before the measured run began: nothing was measured\n");
        return EXIT_RUN_FAILED;
    }
    if (c->unanswered > 0) {
        run_describe_stalls(r, stderr);
    }
    if (ops == 0) {
        fprintf(stderr, "slap: no request succeeded\n");
        return EXIT_RUN_FAILED;
    }
    if (run_all_blocked(r)) {
        fprintf(stderr, "slap: every connection stopped answering: the run measured a server "
                        "that no longer answered\n");
        return EXIT_RUN_FAILED;
    }
    if ((double)c->unanswered > UNANSWERED_TOLERANCE * (double)(ops + c->unanswered)) {
        fprintf(stderr, "slap: %llu of %llu requests went unanswered, more than %.0f%%\n",
                (unsigned long long)c->unanswered, (unsigned long long)(ops + c->unanswered),
                UNANSWERED_TOLERANCE * 100);
        return EXIT_RUN_FAILED;
    }
    if (c->conn_refused > 0) {
        fprintf(stderr, "slap: %llu connection%s closed before %s first answer: the server "
                        "refused %s\n",
                (unsigned long long)c->conn_refused, c->conn_refused == 1 ? " was" : "s were",
                c->conn_refused == 1 ? "its" : "their", c->conn_refused == 1 ? "it" : "them");
    }
    if (c->clients_stopped > 0) {
        fprintf(stderr,
                "slap: %llu of %u clients stopped early after losing a connection "
                "(-R reconnects)\n",
                (unsigned long long)c->clients_stopped, clients);
        return EXIT_RUN_FAILED;
    }
    return EXIT_RUN_OK;
}

/* --hdr-out: the whole run's latency, all types together, as .hgrm text. */
static int write_hdr(const struct slap_options *o, const struct slap_stats *global)
{
    static struct hist total;
    FILE *f = fopen(o->hdr_out, "w");
    if (f == NULL) {
        fprintf(stderr, "slap: --hdr-out: cannot write '%s': %s\n", o->hdr_out, strerror(errno));
        return EXIT_RUN_FAILED;
    }
    if (o->tps > 0 && o->latency == LATENCY_UNCORRECTED) {
        stats_total_raw(global, &total);
    } else {
        stats_total_hist(global, &total);
    }
    int rc = hist_hgrm_write(f, &total, HIST_HGRM_UNIT_NS);
    if (fclose(f) != 0 || rc != 0) {
        fprintf(stderr, "slap: --hdr-out: error writing '%s'\n", o->hdr_out);
        return EXIT_RUN_FAILED;
    }
    return EXIT_RUN_OK;
}

/* Was everything written to standard output so far? If not, say why on standard error. */
static bool output_ok(void)
{
    if (fflush(stdout) == 0 && !ferror(stdout)) {
        return true;
    }
    fprintf(stderr, "slap: cannot write to standard output: %s\n",
            strerror(errno != 0 ? errno : EIO));
    return false;
}

/* One measured run: header, run, report. Dies of the signal that interrupted it. */
static int run_once(const struct slap_options *opts)
{
    struct run run;
    char err[512] = "";
    int status = EXIT_RUN_FAILED;

    if (run_init(&run, opts, stdout, err, sizeof(err)) != 0) {
        fprintf(stderr, "slap: %s\n", err);
        goto out;
    }
    report_header(stdout, opts);
    if (!output_ok()) {
        goto out; /* nowhere to put the report: do not load the servers for nothing */
    }
    if (run_execute(&run, err, sizeof(err)) != 0 && run.signal == 0) {
        fprintf(stderr, "slap: %s\n", err);
        goto out;
    }
    struct report_trace trace = {&run.replay.counts, &run.trace_sent};
    report_final(stdout, opts, &run.global, run_seconds(&run), run.signal,
                 opts->trace != NULL ? &trace : NULL);
    status = verdict(&run);
    if (run.replay.error[0] != '\0') {
        fprintf(stderr, "slap: --trace: %s\n", run.replay.error);
        status = EXIT_RUN_FAILED;
    }
    if (opts->hdr_out != NULL && write_hdr(opts, &run.global) != EXIT_RUN_OK) {
        status = EXIT_RUN_FAILED;
    }
    if (!output_ok()) {
        status = EXIT_RUN_FAILED;
    }
    if (run.signal != 0) {
        run_free(&run);
        die_of(run.signal);
    }
out:
    run_free(&run);
    return status;
}

/* --sweep: one open-loop run per rate, one table row each. */
static int run_sweep(const struct slap_options *opts)
{
    int status = EXIT_RUN_OK;
    report_sweep_header(stdout, opts);
    for (double rate = opts->sweep_start; rate <= opts->sweep_end + 0.5;
         rate += opts->sweep_step) {
        struct slap_options step = *opts;
        struct run run;
        char err[512] = "";
        step.tps = rate;
        step.run_time_ns = opts->step_time_ns;
        step.stat_freq_ns = 0;
        if (run_init(&run, &step, stdout, err, sizeof(err)) != 0 ||
            run_execute(&run, err, sizeof(err)) != 0) {
            int sig = run.signal;
            run_free(&run);
            if (sig != 0) {
                die_of(sig);
            }
            fprintf(stderr, "slap: %s\n", err);
            return EXIT_RUN_FAILED;
        }
        report_sweep_row(stdout, rate, &run.global, run_seconds(&run));
        int sig = run.signal;
        if (verdict(&run) != EXIT_RUN_OK) {
            status = EXIT_RUN_FAILED;
        }
        run_free(&run);
        if (sig != 0) {
            die_of(sig);
        }
    }
    return status;
}

/* Seconds between two clock readings (0 when they are out of order). */
static double seconds_between(uint64_t from_ns, uint64_t to_ns)
{
    return to_ns > from_ns ? (double)(to_ns - from_ns) / (double)SLAP_NS_PER_SEC : 0.0;
}

/* Where a memslap run's time went: planning, flush, load, connecting, the test, all of it. */
static void memslap_timing(const struct run *run, uint64_t begin_ns, uint64_t planned_ns,
                           struct memslap_times *t)
{
    uint64_t load_ns;
    run_preload(run, &t->loaded, &load_ns);
    t->servers = run->servers.count;
    t->flush = seconds_between(0, run->flush_ns);
    t->generate = seconds_between(begin_ns, planned_ns) - t->flush;
    t->load = seconds_between(0, load_ns);
    t->start = seconds_between(planned_ns, run->start_ns) - t->load;
    t->start = t->start > 0 ? t->start : 0;
    t->test = run_seconds(run);
    t->total = seconds_between(begin_ns, run->end_ns > run->start_ns ? run->end_ns : slap_now_ns());
}

/* memslap's face: one run over the same engine, memslap's report, slap's verdict. */
static int run_memslap(const struct slap_options *opts, const struct memslap_args *args)
{
    struct run run;
    struct memslap_times times;
    char err[512] = "";
    int status = EXIT_RUN_FAILED;
    uint64_t begin_ns = slap_now_ns();

    if (run_init(&run, opts, stdout, err, sizeof(err)) != 0) {
        fprintf(stderr, "slap: %s\n", err);
        goto out;
    }
    run.silent_preload = true;
    uint64_t planned_ns = slap_now_ns();
    if (run_execute(&run, err, sizeof(err)) != 0 && run.signal == 0) {
        fprintf(stderr, "slap: %s\n", err);
        goto out;
    }
    memslap_timing(&run, begin_ns, planned_ns, &times);
    if (!args->quiet) {
        memslap_report(stdout, args, &times, &run.global);
    }
    status = verdict(&run);
    if (!output_ok()) {
        status = EXIT_RUN_FAILED;
    }
    if (run.signal != 0) {
        run_free(&run);
        die_of(run.signal);
    }
out:
    run_free(&run);
    return status;
}

/* slap memslap ARGS, or slap run as memslap or memcslap: memslap's options and report. */
static int memslap_main(int argc, char **argv, int first)
{
    struct slap_options opts;
    struct memslap_args args;
    const char *base = strrchr(argv[0], '/');
    const char *program = first > 0 ? "slap memslap" : (base != NULL ? base + 1 : argv[0]);
    switch (memslap_parse(&args, &opts, program, argc - first, argv + first, stdout, stderr)) {
    case OPTIONS_EXIT:
        return output_ok() ? EXIT_RUN_OK : EXIT_RUN_FAILED;
    case OPTIONS_USAGE:
        return EXIT_USAGE;
    case OPTIONS_RUN:
        break;
    }
    block_signals();
    return run_memslap(&opts, &args);
}

/*
 * Standard streams that are closed would be taken by the first sockets opened, and the
 * report written into a server: stdin and stderr get /dev/null; a closed stdout is refused.
 */
static bool standard_streams(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) {
            continue;
        }
        if (fd == STDOUT_FILENO) {
            fprintf(stderr, "slap: standard output is closed: the report would be lost\n");
            return false;
        }
        int null = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
        if (null >= 0 && null != fd) {
            dup2(null, fd);
            close(null);
        }
    }
    return true;
}

int main(int argc, char **argv)
{
    struct slap_options opts;

    int memslap_first;

    if (!standard_streams()) {
        return EXIT_RUN_FAILED;
    }
    if (memslap_invoked(argc, argv, &memslap_first)) {
        return memslap_main(argc, argv, memslap_first);
    }
    if (argc > 1 && strcmp(argv[1], "trace-stats") == 0) {
        return tracestats_main(argc - 1, argv + 1);
    }
    switch (options_parse(&opts, argc, argv, stdout, stderr)) {
    case OPTIONS_EXIT:
        return output_ok() ? EXIT_RUN_OK : EXIT_RUN_FAILED;
    case OPTIONS_USAGE:
        return EXIT_USAGE;
    case OPTIONS_RUN:
        break;
    }
    block_signals();
    return opts.sweep_step > 0 ? run_sweep(&opts) : run_once(&opts);
}
