/* slap: which command the command line asks for (memslap's face, a subcommand, a run or a
 * sweep), and standard streams fit for it. Orchestration only: a run is run_one.c, a sweep
 * sweep.c, memslap's face memslap_run.c, a -F file's groups groups.c, the exit status
 * exit_status.c. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "dispatch.h"
#include "slap/options/memslap.h"
#include "slap/options/options.h"
#include "slap/run/exit_status.h"
#include "slap/run/groups.h"
#include "slap/run/memslap_run.h"
#include "slap/run/run_one.h"
#include "slap/run/signals.h"
#include "slap/run/sweep.h"

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
        return SLAP_EXIT_FAILED;
    }
    /* a file size limit (ulimit -f) makes a write fail with EFBIG, which the outputs report
     * and clean up after, instead of killing slap with its report and files half written */
    signal(SIGXFSZ, SIG_IGN);
    if (memslap_invoked(argc, argv, &memslap_first)) {
        return memslap_main(argc, argv, memslap_first);
    }
    if (argc > 1 && subcommand_find(argv[1]) != NULL) {
        return subcommand_find(argv[1])(argc - 1, argv + 1);
    }
    enum options_outcome outcome = options_parse(&opts, argc, argv, stdout, stderr);
    if (outcome != OPTIONS_RUN) {
        return exit_no_run(outcome);
    }
    signals_block();
    int status;
    if (opts.cfg_file != NULL && groups_run(&opts, argc, argv, &status)) {
        return status;
    }
    return opts.sweep_step > 0 ? sweep_run(&opts) : run_one(&opts);
}
