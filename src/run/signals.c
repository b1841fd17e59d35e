/* The stop signals of a run, as the command line handles them: blocked in workers, fatal after
 * the report, and fatal anyway when slap is stuck (the watchdog). */
#include "slap/run/signals.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "slap/base/outfile.h"
#include "slap/engine/run.h"
#include "slap/export/push.h"

#define WATCHDOG_POLL_NS (50 * 1000000L)

/* The stop signal pending for the whole process, or 0. */
static int pending_stop(void)
{
    static const int stops[] = {SIGINT, SIGTERM, SIGHUP};
    sigset_t pending;
    if (sigpending(&pending) != 0) {
        return 0;
    }
    for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++) {
        if (sigismember(&pending, stops[i]) == 1) {
            return stops[i];
        }
    }
    return 0;
}

/*
 * The watchdog: a stop signal that no one took for SIGNALS_GRACE_S means slap is stuck where
 * nothing looks for one (a write to a standard output whose reader stopped reading, a flush
 * of it on the way out): the watchdog lets it in, and slap dies of it (the default action),
 * without what it could not write. A signal taken meanwhile by the run leaves it blocked.
 */
static void *watchdog_main(void *arg)
{
    struct timespec pause = {0, WATCHDOG_POLL_NS};
    long waited_ns = 0;
    (void)arg;
    for (;;) {
        nanosleep(&pause, NULL);
        int sig = pending_stop();
        waited_ns = sig == 0 ? 0 : waited_ns + WATCHDOG_POLL_NS;
        if (sig != 0 && waited_ns >= SIGNALS_GRACE_S * 1000000000L) {
            sigset_t one;
            sigemptyset(&one);
            sigaddset(&one, sig);
            signal(sig, SIG_DFL);
            pthread_sigmask(SIG_UNBLOCK, &one, NULL); /* still pending: the process ends here */
            pthread_sigmask(SIG_BLOCK, &one, NULL);
            waited_ns = 0;
        }
    }
    return NULL;
}

void signals_block(void)
{
    sigset_t set;
    pthread_t watchdog;
    pthread_attr_t attr;
    run_stop_signals(&set);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    outfile_set_stop_check(signals_stop_pending);
    push_set_stop_check(signals_stop_pending);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&watchdog, &attr, watchdog_main, NULL) != 0) {
        fprintf(stderr, "slap: cannot start the signals' watchdog (a stuck slap then waits for "
                        "SIGKILL)\n");
    }
    pthread_attr_destroy(&attr);
}

bool signals_stop_pending(void)
{
    return pending_stop() != 0;
}

int signals_take_pending(void)
{
    sigset_t set;
    struct timespec now = {0, 0};
    run_stop_signals(&set);
    int sig = sigtimedwait(&set, NULL, &now);
    return sig > 0 ? sig : 0;
}

void signals_die_of(int sig)
{
    sigset_t set;
    signal(sig, SIG_DFL);
    kill(getpid(), sig); /* pending again: the watchdog's, should the flush below hang */
    fflush(NULL);
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    exit(128 + sig);
}
