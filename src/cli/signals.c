/* The stop signals of a run, as the command line handles them: blocked in workers, fatal after
 * the report. */
#include "signals.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "push.h"
#include "slap/base/outfile.h"
#include "slap/engine/run.h"

void signals_block(void)
{
    sigset_t set;
    run_stop_signals(&set);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    outfile_set_stop_check(signals_stop_pending);
    push_set_stop_check(signals_stop_pending);
}

bool signals_stop_pending(void)
{
    sigset_t pending;
    if (sigpending(&pending) != 0) {
        return false;
    }
    return sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1 ||
           sigismember(&pending, SIGHUP) == 1;
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
    fflush(NULL);
    signal(sig, SIG_DFL);
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    exit(128 + sig);
}
