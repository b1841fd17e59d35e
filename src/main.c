/* slap: options, plan, run, report, exit status. Orchestration only. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slap/options.h"
#include "slap/report.h"
#include "slap/run.h"

enum exit_status {
    EXIT_RUN_OK = 0,     /* the run completed and requests succeeded */
    EXIT_RUN_FAILED = 1, /* could not connect, nothing succeeded, clients lost */
    EXIT_USAGE = 2,      /* bad options */
};

/* Workers inherit a mask without SIGINT/SIGTERM; the main thread waits for them. */
static void block_signals(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
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

static int verdict(const struct run *r)
{
    const struct slap_counters *c = &r->global.counters;
    uint32_t clients = r->opts->concurrency;
    if (stats_ops(&r->global) == 0) {
        fprintf(stderr, "slap: no request succeeded\n");
        return EXIT_RUN_FAILED;
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

int main(int argc, char **argv)
{
    struct slap_options opts;
    struct run run;
    char err[512] = "";
    int status = EXIT_RUN_FAILED;

    switch (options_parse(&opts, argc, argv, stdout, stderr)) {
    case OPTIONS_EXIT:
        return EXIT_RUN_OK;
    case OPTIONS_USAGE:
        return EXIT_USAGE;
    case OPTIONS_RUN:
        break;
    }
    block_signals();
    if (run_init(&run, &opts, stdout, err, sizeof(err)) != 0) {
        fprintf(stderr, "slap: %s\n", err);
        goto out;
    }
    report_header(stdout, &opts);
    if (run_execute(&run, err, sizeof(err)) != 0) {
        if (run.signal != 0) {
            fprintf(stderr, "slap: interrupted before the run started\n");
            run_free(&run);
            die_of(run.signal);
        }
        fprintf(stderr, "slap: %s\n", err);
        goto out;
    }
    report_final(stdout, &opts, &run.global, run_seconds(&run), run.signal);
    status = verdict(&run);
    if (run.signal != 0) {
        run_free(&run);
        die_of(run.signal);
    }
out:
    run_free(&run);
    return status;
}
