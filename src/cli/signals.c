/* The stop signals of a run, as the command line handles them: blocked in workers, fatal after
 * the report. */
#include "signals.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "slap/engine/run.h"

void signals_block(void)
{
    sigset_t set;
    run_stop_signals(&set);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
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
