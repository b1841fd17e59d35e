/*
 * A run of a -F file's groups (model/cfggroups.h): each group a slap of its own, re-executed
 * with the run's options, its own and a common --start_at, its results in a private directory;
 * then the groups merged as slap merge merges a fleet's runs (their workloads may differ), a
 * block per group before the total.
 *
 *   parse every group (file:line named on error, exit 2) ─> mkdtemp ─> fork+exec each
 *   ─> wait (stop signals forwarded) ─> merge_groups_run ─> rm ─> the worst exit status
 */
#include "slap/run/groups.h"
#include "slap/store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "slap/base/hist.h"
#include "slap/base/outfile.h"
#include "slap/base/quote.h"
#include "slap/base/units.h"
#include "slap/commands/subcommands.h"
#include "slap/export/live.h"
#include "slap/model/cfggroups.h"
#include "slap/options/plan_output.h"
#include "slap/output/report.h"
#include "slap/output/results.h"
#include "slap/output/results_merge.h"
#include "slap/run/exit_status.h"
#include "slap/run/run_one.h"
#include "slap/run/signals.h"

#define GROUPS_LEAD_NS 2000000000ULL     /* from the start of the children to their --start_at */
#define GROUPS_LEAD_EACH_NS 250000000ULL /* and more for many groups: each parses and connects */
#define GROUPS_ARGS_MAX 1024             /* words of one child's command line */
#define GROUPS_MESSAGE 1024              /* a usage error's first line */

/* What a groups run does with each option is its row's (options_table_groups): the run's
 * alone (refused inside a group), kept by the run (not handed to the groups), or none with
 * groups at all. */

/* A command line being built: owned words, NULL-terminated. */
struct words {
    char *v[GROUPS_ARGS_MAX + 1];
    size_t n;
    bool full; /* a word did not fit */
};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
words_add(struct words *w, const char *fmt, ...)
{
    char *text = NULL;
    va_list ap;
    va_start(ap, fmt);
    int len = vasprintf(&text, fmt, ap);
    va_end(ap);
    if (len < 0 || w->n == GROUPS_ARGS_MAX) {
        free(len < 0 ? NULL : text);
        w->full = true;
        return;
    }
    w->v[w->n++] = text;
    w->v[w->n] = NULL;
}

static void words_free(struct words *w)
{
    for (size_t i = 0; i < w->n; i++) {
        free(w->v[i]);
    }
    w->n = 0;
}

/* ---- the run's options, as the groups get them --------------------------------------- */

struct run_scan {
    struct words *words;
    const char *refused; /* the first option that makes no groups run */
};

/* An option of the command line: handed to the groups as "--name=value", or kept. */
static void scan_run(void *arg, size_t row, const char *value)
{
    struct run_scan *scan = arg;
    const char *name = options_table_long_name(row);
    unsigned use = options_table_groups(row);
    if (use & GROUPS_NONE) {
        scan->refused = scan->refused != NULL ? scan->refused : name;
    } else if (!(use & GROUPS_KEPT)) {
        words_add(scan->words, value != NULL ? "--%s=%s" : "--%s%s", name,
                  value != NULL ? value : "");
    }
}

/* ---- a group's options, checked ------------------------------------------------------ */

struct group_scan {
    size_t seen, nrun;    /* options read so far; how many of them are the run's */
    const char *run_only; /* the first of the group's that is the run's */
};

static void scan_group(void *arg, size_t row, const char *value)
{
    struct group_scan *scan = arg;
    const char *name = options_table_long_name(row);
    (void)value;
    if (scan->seen++ >= scan->nrun && scan->run_only == NULL &&
        (options_table_groups(row) & GROUPS_RUN)) {
        scan->run_only = name;
    }
}

/* What parsing the run's words and a group's first lines said: "" when they read well. */
static void group_problem(const struct words *run, const struct cfg_group *grp, size_t last_line,
                          struct slap_options *o, char *problem, size_t len)
{
    struct words argv = {.n = 0};
    struct group_scan scan = {.nrun = run->n - 1};
    char *said = NULL, *shown = NULL;
    size_t said_len = 0, shown_len = 0;
    for (size_t i = 0; i < run->n; i++) {
        words_add(&argv, "%s", run->v[i]);
    }
    for (size_t i = 0; i < grp->nwords && grp->words[i].line <= last_line; i++) {
        words_add(&argv, "%s", grp->words[i].text);
    }
    FILE *err = open_memstream(&said, &said_len), *out = open_memstream(&shown, &shown_len);
    problem[0] = '\0';
    if (err == NULL || out == NULL || argv.full) {
        snprintf(problem, len, "%s", argv.full ? "too many words" : "out of memory");
    } else {
        enum options_outcome outcome =
            options_parse_seen(o, (int)argv.n, argv.v, out, err, scan_group, &scan);
        fflush(err);
        const char *text = said != NULL && strncmp(said, "slap: ", 6) == 0 ? said + 6 : said;
        if (outcome == OPTIONS_EXIT) { /* it printed --help or --version, and would not run */
            snprintf(problem, len, "--help and --version print and exit: a group runs");
        } else if (outcome != OPTIONS_RUN) {
            snprintf(problem, len, "%.*s", text != NULL ? (int)strcspn(text, "\n") : 0,
                     text != NULL ? text : "");
        }
    }
    if (scan.run_only != NULL) {
        snprintf(problem, len,
                 "--%s is the run's, not a group's: give it on the command line beside -F",
                 scan.run_only);
    }
    if (problem[0] == '\0' && o->cfg_file != NULL) {
        struct cfg_groups inner;
        char why[GROUPS_MESSAGE];
        if (cfggroups_load(o->cfg_file, &inner, why, sizeof(why)) == SLAP_OK && inner.n > 0) {
            snprintf(problem, len,
                     "its -F file holds groups: a group's file holds key, value "
                     "and cmd sections");
        }
        cfggroups_free(&inner);
    }
    if (err != NULL) {
        fclose(err);
    }
    if (out != NULL) {
        fclose(out);
    }
    free(said);
    free(shown);
    words_free(&argv);
}

/* A group read with the run's words; on a problem, the first line that brings it is named
 * (file:line: group NAME: what) and exit 2. */
static int check_group(const char *file, const char *label, const struct words *run,
                       const struct cfg_group *grp, struct slap_options *o)
{
    char whole[GROUPS_MESSAGE], part[GROUPS_MESSAGE], shown[QUOTE_PATH_BUF];
    group_problem(run, grp, SIZE_MAX, o, whole, sizeof(whole));
    if (whole[0] == '\0') { /* its label, LABEL/NAME, a label slap merge reads back */
        char composed[2 * RESULTS_LABEL_MAX];
        snprintf(composed, sizeof(composed), "%s/%s", label, grp->name);
        const char *problem = results_label_problem(composed);
        if (problem == NULL) {
            return SLAP_EXIT_OK;
        }
        fprintf(stderr, "slap: --label: the group %s's label, %s/%s: %s\n", grp->name,
                quote_name(shown, label), grp->name, problem);
        fprintf(stderr, "Try 'slap --help' for more information.\n");
        return SLAP_EXIT_USAGE;
    }
    size_t line = grp->words[grp->nwords - 1].line;
    for (size_t i = 0; i < grp->nwords; i++) {
        if (i > 0 && grp->words[i].line == grp->words[i - 1].line) {
            continue;
        }
        struct slap_options scratch;
        group_problem(run, grp, grp->words[i].line, &scratch, part, sizeof(part));
        if (strcmp(part, whole) == 0) {
            line = grp->words[i].line;
            break;
        }
    }
    fprintf(stderr, "slap: --cfg_cmd: %s:%zu: group %s: ", quote_name(shown, file), line,
            grp->name);
    quote_line(stderr, "", whole); /* an option's error: it may hold the file's words */
    fprintf(stderr, "Try 'slap --help' for more information.\n");
    return SLAP_EXIT_USAGE;
}

/* ---- the children --------------------------------------------------------------------- */

struct group_child {
    const struct cfg_group *group;
    struct words argv;
    char json[PATH_MAX];
    char csv[PATH_MAX]; /* its CSV beside the run's --csv FILE; "": none */
    bool json_kept;     /* json is the group's file beside the run's --json: not removed */
    dev_t old_dev;      /* and the file of that name before the run (0, 0: none): an earlier */
    ino_t old_ino;      /* run's, which must not pass for this one's (a new one is renamed in) */
    pid_t pid;          /* 0: not started, or ended */
    int status;         /* waitpid's */
    bool started, ended;
    bool stopped;              /* by a signal (SIGSTOP, SIGTSTP): said once, until it continues */
    int err;                   /* the read end of its standard error, -1: closed */
    char line[GROUPS_MESSAGE]; /* a line of it not yet ended */
    size_t used;
};

/* The groups and what the run hands them. */
struct groups_run {
    const struct slap_options *o;
    const char *argv0;
    struct cfg_groups groups;
    struct words run;        /* the run's options for the groups, argv[0] first */
    char dir[PATH_MAX - 16]; /* the private directory of the groups' results; "": none */
    struct group_child child[CFG_GROUPS_MAX];
    int stop;                        /* the stop signal taken and forwarded; 0: none */
    int saved_stdout;                /* standard output while the report goes elsewhere; -1 */
    const struct results_doc *total; /* the merged document, while it is reported */
    const char *store;               /* where the merged run is kept (--store, SLAP_STORE) */
};

/*
 * A group's file beside the run's: PATH with "-NAME" before its extension (run.json ->
 * run-writer.json, out -> out-writer), so that each group's results are a run's results
 * (any reader of slap's JSON or CSV takes them). false when it does not fit.
 */
static bool group_file(char *out, size_t len, const char *path, const char *name)
{
    const char *base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t stem = dot != NULL && dot > base ? (size_t)(dot - path) : strlen(path);
    int n = snprintf(out, len, "%.*s-%s%s", (int)stem, path, name, path + stem);
    return n > 0 && (size_t)n < len;
}

/* Does the run's output PATH get group files beside it? A regular file or a new one does; -,
 * a FIFO, a device (/dev/null), a descriptor's name (/dev/stdout, /dev/fd/1, /proc/self/fd/1,
 * which would have made /dev/stdout-writer) do not. */
static bool beside(const char *path)
{
    struct stat st;
    return path != NULL && !outfile_is_stream_name(path) &&
           (stat(path, &st) != 0 || S_ISREG(st.st_mode));
}

/* A group's command line: the run's options, its own, its label, results files, start and
 * -q. Its JSON goes beside the run's --json FILE (else into the private directory), its CSV
 * beside the run's --csv FILE. */
static enum slap_status child_argv(struct groups_run *r, size_t i, uint64_t start_at_ns)
{
    struct group_child *c = &r->child[i];
    const struct cfg_group *grp = &r->groups.items[i];
    for (size_t k = 0; k < r->run.n; k++) {
        words_add(&c->argv, "%s", r->run.v[k]);
    }
    for (size_t k = 0; k < grp->nwords; k++) {
        words_add(&c->argv, "%s", grp->words[k].text);
    }
    const char *json = r->o->json_out, *csv = r->o->csv_out;
    c->json_kept = beside(json);
    if (c->json_kept ? !group_file(c->json, sizeof(c->json), json, grp->name)
                     : snprintf(c->json, sizeof(c->json), "%s/%zu.json", r->dir, i) < 0) {
        fprintf(stderr, "slap: group %s: its --json file's name is too long\n", grp->name);
        c->json[0] = '\0';
        return SLAP_ERROR;
    }
    words_add(&c->argv, "--label=%s/%s", r->o->label, grp->name);
    words_add(&c->argv, "--json=%s", c->json);
    if (beside(csv)) {
        if (!group_file(c->csv, sizeof(c->csv), csv, grp->name)) {
            fprintf(stderr, "slap: group %s: its --csv file's name is too long\n", grp->name);
            return SLAP_ERROR;
        }
        words_add(&c->argv, "--csv=%s", c->csv);
    }
    words_add(&c->argv, "--start_at=%llu.%09llu", (unsigned long long)(start_at_ns / 1000000000u),
              (unsigned long long)(start_at_ns % 1000000000u));
    /* Every group keeps the periods the run's options give (a group's own -x would make them
     * 1 s where a short timed group keeps 0.1 s, and the total could not be merged); its
     * report, tables and all, goes to /dev/null (-q takes no -S). */
    uint64_t period = run_one_period_ns(r->o);
    words_add(&c->argv, "--stat_freq=%llu.%09llu", (unsigned long long)(period / 1000000000u),
              (unsigned long long)(period % 1000000000u));
    if (r->o->metrics != NULL) {
        char addr[256];
        uint16_t port = 0;
        live_metrics_problem(r->o->metrics, addr, sizeof(addr), &port);
        words_add(&c->argv, "--metrics=%s:%u", addr, port == 0 ? 0u : (unsigned)(port + i));
        fprintf(stderr, "slap: group %s serves its /metrics at %s:%u%s\n", grp->name, addr,
                port == 0 ? 0u : (unsigned)(port + i),
                port == 0 ? " (a free port, said below)" : "");
    }
    return c->argv.full ? SLAP_ERROR : SLAP_OK;
}

/* ---- the files: each output its own, no input overwritten -------------------------- */

#define GROUPS_FILES_MAX (3 + CFG_GROUPS_MAX * 8)

/* A file the run reads or writes: whose (group NAME's, or the run's), which option. */
struct run_file {
    const char *path, *group, *option;
    bool output;
};

struct input_scan {
    struct run_file *files;
    size_t *n;
    const char *group;
};

/* The inputs among a group's options: the files it reads. */
static void scan_inputs(void *arg, size_t row, const char *value)
{
    struct input_scan *scan = arg;
    const char *name = options_table_long_name(row);
    if (value != NULL && options_table_reads_file(row) && *scan->n < GROUPS_FILES_MAX &&
        strcmp(value, "-") != 0 && strcmp(value, "env") != 0) {
        scan->files[(*scan->n)++] = (struct run_file){value, scan->group, name, false};
    }
}

static const char *whose(char *buf, size_t len, const struct run_file *f)
{
    const char *dash = strcmp(f->option, "cfg_cmd") == 0 ? "-" : "--";
    const char *option = strcmp(f->option, "cfg_cmd") == 0 ? "F" : f->option;
    if (f->group != NULL) {
        snprintf(buf, len, "group %s's %s%s", f->group, dash, option);
    } else {
        snprintf(buf, len, "the run's %s%s", dash, option);
    }
    return buf;
}

/* The groups' files beside the run's (run-writer.json, run-writer.csv) against each other, the
 * run's outputs and every file the run or a group reads (the groups file itself, a group's
 * -F, --trace, TLS and --auth files): one written twice, or an input written over, exit 2. */
static int check_files(struct groups_run *r)
{
    struct run_file *files = calloc(GROUPS_FILES_MAX, sizeof(*files));
    size_t n = 0;
    int status = SLAP_EXIT_OK;
    if (files == NULL) {
        return SLAP_EXIT_FAILED;
    }
    const char *run_out[RESULTS_SINKS]; /* the run's results files, one per sink's row */
    plan_output_paths(r->o, run_out);
    for (size_t k = 0; k < RESULTS_SINKS; k++) {
        if (run_out[k] != NULL && !outfile_is_stream_name(run_out[k])) {
            files[n++] = (struct run_file){run_out[k], NULL, results_sinks[k].option + 2, true};
        }
    }
    files[n++] = (struct run_file){r->o->cfg_file, NULL, "cfg_cmd", false};
    for (size_t i = 0; i < r->groups.n; i++) {
        struct group_child *c = &r->child[i];
        if (c->json_kept) {
            files[n++] = (struct run_file){c->json, c->group->name, "json", true};
        }
        if (c->csv[0] != '\0') {
            files[n++] = (struct run_file){c->csv, c->group->name, "csv", true};
        }
        struct slap_options scratch;
        struct input_scan scan = {files, &n, c->group->name};
        FILE *null = fopen("/dev/null", "w");
        if (null != NULL) { /* the group's words read well (check_group): only its inputs */
            options_parse_seen(&scratch, (int)c->argv.n, c->argv.v, null, null, scan_inputs, &scan);
            fclose(null);
        }
    }
    for (size_t i = 0; i < n && status == SLAP_EXIT_OK; i++) {
        for (size_t j = 0; j < n && status == SLAP_EXIT_OK; j++) {
            const struct run_file *a = &files[i], *b = &files[j];
            /* each pair once, an output first */
            if (i == j || !a->output || (b->output && j < i) || !outfile_same(a->path, b->path)) {
                continue;
            }
            char wa[96], wb[96], qa[QUOTE_PATH_BUF], qb[QUOTE_PATH_BUF];
            fprintf(stderr, "slap: %s %s and %s %s are the same file: %s\n",
                    whose(wa, sizeof(wa), a), quote_name(qa, a->path), whose(wb, sizeof(wb), b),
                    quote_name(qb, b->path),
                    b->output ? "give each output a file of its own"
                              : "it would be written over: give the output another name");
            fprintf(stderr, "Try 'slap --help' for more information.\n");
            status = SLAP_EXIT_USAGE;
        }
    }
    free(files);
    return status;
}

/* The child of group i: its own process group (the terminal's signals reach the run, which
 * hands them on once), ended with the run, its report on /dev/null (its figures are in its
 * results file), its messages on the run's standard error. */
static void start_child(struct groups_run *r, size_t i)
{
    struct group_child *c = &r->child[i];
    struct stat st;
    if (stat(c->json, &st) == 0) {
        c->old_dev = st.st_dev;
        c->old_ino = st.st_ino;
    }
    int err[2] = {-1, -1};
    if (pipe2(err, O_CLOEXEC) != 0) {
        err[0] = err[1] = -1; /* its messages then go straight to the run's standard error */
    }
    pid_t pid = fork();
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, STDOUT_FILENO);
            close(null);
        }
        if (err[1] >= 0) {
            dup2(err[1], STDERR_FILENO);
        }
        signal(SIGPIPE, SIG_DFL);
        pthread_sigmask(SIG_SETMASK, &none, NULL);
        unsetenv(STORE_ENV); /* a group is kept as a part of the run, never alone */
        execv("/proc/self/exe", c->argv.v);
        fprintf(stderr, "slap: group %s: cannot start: %s\n", c->group->name, strerror(errno));
        _exit(SLAP_EXIT_FAILED);
    }
    if (err[1] >= 0) {
        close(err[1]);
    }
    if (pid < 0) {
        fprintf(stderr, "slap: group %s: cannot start: %s\n", c->group->name, strerror(errno));
        c->ended = true;
        c->status = SLAP_EXIT_FAILED << 8;
        if (err[0] >= 0) {
            close(err[0]);
        }
        return;
    }
    c->err = err[0];
    if (c->err >= 0) {
        fcntl(c->err, F_SETFL, O_NONBLOCK);
    }
    c->pid = pid;
    c->started = true;
}

/* A line of a group's standard error on the run's, its group named: "slap: X" becomes
 * "slap: group NAME: X" (its bytes were quoted where they were made). */
static void pass_line(const struct group_child *c, const char *text, size_t len)
{
    if (len >= 6 && memcmp(text, "slap: ", 6) == 0) {
        text += 6;
        len -= 6;
    }
    fprintf(stderr, "slap: group %s: %.*s\n", c->group->name, (int)len, text);
}

/* What group c wrote on its standard error: each whole line passed on, a line longer than the
 * buffer in parts; at the end (its pipe closed) the rest. */
static void pass_messages(struct group_child *c)
{
    while (c->err >= 0) {
        ssize_t n = read(c->err, c->line + c->used, sizeof(c->line) - c->used);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            if (n == 0 || errno != EAGAIN) {
                if (c->used > 0) {
                    pass_line(c, c->line, c->used);
                }
                c->used = 0;
                close(c->err);
                c->err = -1;
            }
            return;
        }
        c->used += (size_t)n;
        char *start = c->line, *nl;
        while ((nl = memchr(start, '\n', c->used - (size_t)(start - c->line))) != NULL) {
            pass_line(c, start, (size_t)(nl - start));
            start = nl + 1;
        }
        c->used -= (size_t)(start - c->line);
        memmove(c->line, start, c->used);
        if (c->used == sizeof(c->line)) {
            pass_line(c, c->line, c->used);
            c->used = 0;
        }
    }
}

/* Reap what ended, say what was stopped; how many are still running. */
static size_t reap(struct groups_run *r)
{
    size_t live = 0;
    for (size_t i = 0; i < r->groups.n; i++) {
        struct group_child *c = &r->child[i];
        int status;
        pid_t got;
        while (c->started && !c->ended &&
               (got = waitpid(c->pid, &status, WNOHANG | WUNTRACED | WCONTINUED)) == c->pid) {
            if (WIFSTOPPED(status) && !c->stopped) {
                fprintf(stderr,
                        "slap: group %s is stopped (signal %d): the run waits for it "
                        "(kill -CONT %ld), or interrupt the run\n",
                        c->group->name, WSTOPSIG(status), (long)c->pid);
            }
            c->stopped = WIFSTOPPED(status);
            if (WIFEXITED(status) || WIFSIGNALED(status)) {
                c->status = status;
                c->ended = true;
            }
        }
        live += c->started && !c->ended;
    }
    return live;
}

/* Wait for every child, passing its messages on; a stop signal is handed to those still
 * running, with SIGCONT for one that was stopped (each then prints its results, and the run
 * its report); the third stop signal kills what still runs. Never a hang: each child ends by
 * its -t or -x, or by the signals. */
static void wait_children(struct groups_run *r, const sigset_t *set)
{
    struct pollfd fds[CFG_GROUPS_MAX];
    int stops = 0;
    for (;;) {
        size_t live = reap(r), nfds = 0;
        for (size_t i = 0; i < r->groups.n; i++) {
            if (r->child[i].err >= 0) {
                fds[nfds++] = (struct pollfd){.fd = r->child[i].err, .events = POLLIN};
            }
        }
        if (live == 0) {
            break;
        }
        struct timespec tick = {.tv_sec = 0, .tv_nsec = 200000000};
        if (nfds > 0) {
            poll(fds, nfds, 200);
            tick.tv_nsec = 0;
        }
        for (size_t i = 0; i < r->groups.n; i++) {
            pass_messages(&r->child[i]);
        }
        int sig = sigtimedwait(set, NULL, &tick);
        if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
            r->stop = sig;
            stops++;
            for (size_t i = 0; i < r->groups.n; i++) {
                struct group_child *c = &r->child[i];
                if (c->started && !c->ended) {
                    kill(c->pid, stops >= 3 ? SIGKILL : sig);
                    kill(c->pid, SIGCONT);
                }
            }
            if (stops == 3) {
                fprintf(stderr, "slap: a third stop signal: the groups still running are "
                                "killed\n");
            }
        }
    }
    for (size_t i = 0; i < r->groups.n; i++) { /* what the ended wrote last */
        struct group_child *c = &r->child[i];
        pass_messages(c);
        if (c->err >= 0) { /* still open: nothing more will come from the group itself */
            if (c->used > 0) {
                pass_line(c, c->line, c->used);
            }
            close(c->err);
            c->err = -1;
        }
    }
}

/* A group's exit status, said when it failed; its results file, when it wrote one. */
static int child_outcome(const struct groups_run *r, const struct group_child *c, bool *results)
{
    struct stat st;
    int status = SLAP_EXIT_FAILED;
    *results = stat(c->json, &st) == 0 && st.st_size > 0 &&
               !(st.st_dev == c->old_dev && st.st_ino == c->old_ino);
    if (WIFEXITED(c->status)) {
        status = WEXITSTATUS(c->status);
        if (status != SLAP_EXIT_OK) {
            fprintf(stderr, "slap: group %s exited with status %d\n", c->group->name, status);
        }
    } else if (WIFSIGNALED(c->status) && WTERMSIG(c->status) == r->stop) {
        status = SLAP_EXIT_OK; /* interrupted as the run was: the run dies of it */
    } else if (WIFSIGNALED(c->status)) {
        fprintf(stderr, "slap: group %s died of signal %d\n", c->group->name, WTERMSIG(c->status));
    }
    if (!*results) {
        fprintf(stderr, "slap: group %s wrote no results: the total lacks it\n", c->group->name);
        status = status == SLAP_EXIT_OK ? SLAP_EXIT_FAILED : status;
    }
    return status;
}

/* ---- the report ----------------------------------------------------------------------- */

/* One latency row of a group's block. */
static void block_row(const char *type, const struct hist *h)
{
    printf("  %-8s %10llu %10.0f %10.0f %10.0f %10.0f %10.0f\n", type, (unsigned long long)h->count,
           (double)hist_percentile_ns(h, 50) / 1e3, (double)hist_percentile_ns(h, 90) / 1e3,
           (double)hist_percentile_ns(h, 99) / 1e3, (double)hist_percentile_ns(h, 99.9) / 1e3,
           (double)h->max_ns / 1e3);
}

/* A group's block: its label, requests, rate, errors and verdict, its latency per type. */
static void print_block(size_t i, const struct results_doc *d)
{
    uint64_t requests = stats_ops(d->global);
    struct hist *total;
    printf("Group %zu: %s\n", i + 1, d->label);
    printf("  servers: %s\n", d->desc.servers != NULL ? d->desc.servers : "-");
    printf("  requests: %llu  tps: %.0f  errors: %llu  limited_by: %s\n",
           (unsigned long long)requests, d->seconds > 0 ? (double)requests / d->seconds : 0.0,
           (unsigned long long)stats_errors(&d->global->counters),
           d->has_limits ? limits_verdict_name(d->limits.verdict) : "-");
    printf("  %-8s %10s %10s %10s %10s %10s %10s\n", "Type", "Requests", "p50_us", "p90_us",
           "p99_us", "p99.9_us", "max_us");
    for (int t = 0; t < STATS_TYPES; t++) {
        if (d->global->lat[t] != NULL && d->global->lat[t]->count > 0) {
            block_row(stats_type_name(t), d->global->lat[t]);
        }
    }
    if (hist_slab_alloc(&total, 1) == SLAP_OK) {
        stats_total_hist(d->global, total);
        block_row(stats_type_name(STATS_TYPES), total);
        hist_slab_free(total, 1);
    }
    printf("\n");
}

/* The total's description: every group's servers, and the mix the groups sent together (its
 * --mix in the configuration, weighted by each group's requests; --ratio null). */
static void describe_total(struct results_doc *m, const struct results_merge_input *in, size_t n)
{
    size_t len = 1;
    double mix[OP_COUNT] = {0}, requests = 0;
    for (size_t i = 0; i < n; i++) {
        len += in[i].doc->desc.servers != NULL ? strlen(in[i].doc->desc.servers) + 1 : 0;
        double r = (double)stats_ops(in[i].doc->global);
        for (int op = 0; op < OP_COUNT; op++) {
            mix[op] += r * in[i].doc->desc.mix[op];
        }
        requests += r;
    }
    char *servers = calloc(1, len);
    for (size_t i = 0; servers != NULL && i < n; i++) {
        const char *s = in[i].doc->desc.servers;
        bool again = false; /* a list another group gave before: once */
        for (size_t k = 0; s != NULL && k < i && !again; k++) {
            again = in[k].doc->desc.servers != NULL && strcmp(in[k].doc->desc.servers, s) == 0;
        }
        if (s != NULL && !again) {
            strcat(strcat(servers, servers[0] != '\0' ? "," : ""), s);
        }
    }
    if (servers != NULL &&
        run_config_set(&m->desc.config, "servers", RUN_CONFIG_TEXT, servers) == SLAP_OK) {
        free(m->desc.servers);
        m->desc.servers = servers;
        servers = NULL;
    }
    free(servers);
    for (int op = 0; requests > 0 && op < OP_COUNT; op++) {
        mix[op] /= requests;
    }
    if (requests > 0) { /* the configuration says the mix the header shows */
        run_desc_set_mix(&m->desc, mix);
    }
}

/* merge_groups' before: a block per group, then the total's header; with --json - the report
 * goes to standard error, as a run's does, and the JSON alone to standard output; with -q
 * nothing but the Run time line (and interrupted:) after it. */
static void groups_before(void *arg, struct results_doc *m, const struct results_merge_input *in,
                          size_t n)
{
    struct groups_run *r = arg;
    r->total = m;
    fflush(stdout);
    if (r->o->json_out != NULL && strcmp(r->o->json_out, "-") == 0) {
        r->saved_stdout = dup(STDOUT_FILENO);
        dup2(STDERR_FILENO, STDOUT_FILENO);
    }
    if (r->o->quiet) { /* -q: the report's last lines alone, after it */
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        r->saved_stdout = r->saved_stdout >= 0 ? r->saved_stdout : dup(STDOUT_FILENO);
        if (null >= 0) {
            dup2(null, STDOUT_FILENO);
            close(null);
        }
    }
    for (size_t i = 0; i < n; i++) {
        print_block(i, in[i].doc);
    }
    describe_total(m, in, n);
    printf("Total of %zu group%s:\n", n, n == 1 ? "" : "s");
}

/* merge_groups' after_report: standard output back for the files; -q's last lines. */
static void groups_after_report(void *arg)
{
    struct groups_run *r = arg;
    if (r->saved_stdout >= 0) {
        fflush(stdout);
        dup2(r->saved_stdout, STDOUT_FILENO);
        close(r->saved_stdout);
        r->saved_stdout = -1;
    }
    if (r->o->quiet) {
        bool json_out = r->o->json_out != NULL && strcmp(r->o->json_out, "-") == 0;
        report_run_line(json_out ? stderr : stdout, r->total->global, r->total->seconds,
                        r->total->signal);
    }
}

/* ---- the run -------------------------------------------------------------------------- */

/* The run's options for the groups (argv[0] first); exit 2 for one that makes no groups run. */
static int scan_command_line(struct groups_run *r, int argc, char **argv)
{
    struct slap_options again;
    struct run_scan scan = {.words = &r->run};
    words_add(&r->run, "%s", argv[0]);
    options_parse_seen(&again, argc, argv, stdout, stderr, scan_run, &scan);
    if (scan.refused != NULL) {
        fprintf(stderr,
                "slap: --%s makes no groups run (-F with groups): each group is one "
                "measured run\n",
                scan.refused);
        fprintf(stderr, "Try 'slap --help' for more information.\n");
        return SLAP_EXIT_USAGE;
    }
    return r->run.full ? SLAP_EXIT_USAGE : SLAP_EXIT_OK;
}

/* The metrics' ports, PORT + i, must all be ports. */
static int check_metrics(const struct groups_run *r)
{
    char addr[256];
    uint16_t port = 0;
    if (r->o->metrics == NULL ||
        live_metrics_problem(r->o->metrics, addr, sizeof(addr), &port) != NULL || port == 0 ||
        port + r->groups.n - 1 <= 65535) {
        return SLAP_EXIT_OK;
    }
    fprintf(stderr, "slap: --metrics %u: group %zu would serve at port %zu, past 65535\n", port,
            r->groups.n, port + r->groups.n - 1);
    return SLAP_EXIT_USAGE;
}

/* Start every group, wait for them all, merge what they wrote: the worst exit status. */
static int run_groups(struct groups_run *r)
{
    sigset_t set;
    struct timespec now;
    uint64_t lead = r->groups.n * GROUPS_LEAD_EACH_NS;
    lead = lead > GROUPS_LEAD_NS ? lead : GROUPS_LEAD_NS;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t start_at = r->o->start_at_ns != 0
                            ? r->o->start_at_ns
                            : (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec + lead;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    for (size_t i = 0; i < r->groups.n; i++) {
        r->child[i].group = &r->groups.items[i];
        r->child[i].err = -1;
        if (child_argv(r, i, start_at) != SLAP_OK) {
            if (r->child[i].argv.full) {
                fprintf(stderr, "slap: group %s: too many words\n", r->groups.items[i].name);
            }
            return SLAP_EXIT_USAGE;
        }
    }
    int files = check_files(r);
    if (files != SLAP_EXIT_OK) {
        return files;
    }
    for (size_t i = 0; i < r->groups.n; i++) {
        start_child(r, i);
    }
    wait_children(r, &set);
    int worst = SLAP_EXIT_OK, n = 0;
    char *paths[CFG_GROUPS_MAX];
    for (size_t i = 0; i < r->groups.n; i++) {
        bool results;
        int status = child_outcome(r, &r->child[i], &results);
        worst = status > worst ? status : worst;
        if (results) {
            paths[n++] = r->child[i].json;
        }
    }
    if (n > 0) {
        const char *out[RESULTS_SINKS];
        struct merge_groups g = {groups_before, groups_after_report, r, r->store};
        plan_output_paths(r->o, out);
        int status = merge_groups_run(paths, n, out, &g);
        worst = status > worst ? status : worst;
    }
    return worst;
}

/* The private directory and what the groups wrote in it, removed. */
static void clean_up(struct groups_run *r)
{
    for (size_t i = 0; i < r->groups.n; i++) {
        if (r->child[i].json[0] != '\0' && !r->child[i].json_kept) {
            unlink(r->child[i].json);
        }
        words_free(&r->child[i].argv);
        if (r->child[i].started && r->child[i].err >= 0) {
            close(r->child[i].err);
        }
    }
    if (r->dir[0] != '\0') {
        rmdir(r->dir);
    }
    words_free(&r->run);
    cfggroups_free(&r->groups);
}

/* The directory the groups' results go to: $TMPDIR's, else /tmp's, private (0700). */
static int make_dir(struct groups_run *r)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(r->dir, sizeof(r->dir), "%s/slap-groups-XXXXXX",
             tmp != NULL && tmp[0] == '/' ? tmp : "/tmp");
    if (mkdtemp(r->dir) == NULL) {
        fprintf(stderr, "slap: cannot make a directory for the groups' results: %s\n",
                strerror(errno));
        r->dir[0] = '\0';
        return SLAP_EXIT_FAILED;
    }
    return SLAP_EXIT_OK;
}

bool groups_run(const struct slap_options *o, int argc, char **argv, int *exit_status)
{
    struct groups_run *r = calloc(1, sizeof(*r));
    char err[GROUPS_MESSAGE];
    if (r == NULL) {
        *exit_status = SLAP_EXIT_FAILED;
        return true;
    }
    r->o = o;
    r->saved_stdout = -1;
    r->store = store_location(o->store);
    if (!o->cfg_groups) { /* a file of memaslap's sections (a pipe among them, read once) */
        free(r);
        return false;
    }
    if (cfggroups_load(o->cfg_file, &r->groups, err, sizeof(err)) != SLAP_OK) {
        quote_line(stderr, "slap: --cfg_cmd: ", err);
        fprintf(stderr, "Try 'slap --help' for more information.\n");
        *exit_status = SLAP_EXIT_USAGE;
        free(r);
        return true;
    }
    if (r->groups.n == 0) { /* its first read found a group: it changed since */
        char shown[QUOTE_PATH_BUF];
        fprintf(stderr,
                "slap: --cfg_cmd: %s: no group on a second read (the file changed)\n"
                "Try 'slap --help' for more information.\n",
                quote_name(shown, o->cfg_file));
        *exit_status = SLAP_EXIT_USAGE;
        free(r);
        return true;
    }
    int status = scan_command_line(r, argc, argv);
    status = status == SLAP_EXIT_OK ? check_metrics(r) : status;
    for (size_t i = 0; status == SLAP_EXIT_OK && i < r->groups.n; i++) {
        struct slap_options group;
        status = check_group(o->cfg_file, o->label, &r->run, &r->groups.items[i], &group);
    }
    status = status == SLAP_EXIT_OK ? make_dir(r) : status;
    status = status == SLAP_EXIT_OK ? run_groups(r) : status;
    int stop = r->stop;
    clean_up(r);
    free(r);
    if (stop != 0) {
        signals_die_of(stop);
    }
    *exit_status = status;
    return true;
}
