/* A run's exit status: what its counters say, the limits the options set, standard output. */
#include "slap/run/exit_status.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "slap/judge/limits.h"
#include "slap/output/results.h"
#include "slap/run/run_events.h"

const char *exit_nothing_cause(const struct slap_counters *c, const struct slap_options *o)
{
    const char *why = "";
    if ((o->udp || o->facebook) && (c->conn_refused > 0 || c->udp_timeout > 0)) {
        why = o->udp ? ": nothing answered over UDP; is the server started with UDP on its port "
                       "(memcached -U PORT; -U 0 turns it off)?"
                     : ": nothing answered the multi-gets over UDP; is the server started with "
                       "UDP on its port (memcached -U PORT)?";
    } else if (c->conn_refused > 0 && c->conn_refused >= c->conn_closed) {
        why = ": the server closed every connection before its first answer";
    } else if (c->conn_closed > 0) {
        why = ": the connections were lost";
    } else if (c->unanswered > 0) {
        why = ": the server did not answer";
    } else if (c->protocol_error > 0 || c->error_reply + c->server_error + c->client_error > 0) {
        why = ": every answer was an error";
    }
    return why;
}

/* No request succeeded: say so, with the likeliest cause the counters show. */
static void explain_nothing(const struct slap_counters *c, const struct slap_options *o,
                            const char *who)
{
    fprintf(stderr, "%s: no request succeeded, so nothing was measured (no rates, no verdict)%s\n",
            who, exit_nothing_cause(c, o));
}

int exit_verdict(const struct run *r, const struct slap_options *o, int signal, const char *who)
{
    struct run_result res;
    run_result(r, &res);
    const struct slap_counters *c = &res.global->counters;
    uint32_t clients = o->concurrency;
    uint64_t ops = stats_ops(res.global);
    if (signal != 0 && run_seconds(r) == 0.0) {
        fprintf(stderr, "%s: interrupted before the measured run began: nothing was measured\n",
                who);
        return SLAP_EXIT_FAILED;
    }
    if (c->unanswered > 0) {
        run_stalls_print(stderr, &res, who);
    }
    if (ops == 0) {
        explain_nothing(c, o, who);
        return SLAP_EXIT_FAILED;
    }
    if (run_all_blocked(r)) {
        fprintf(stderr,
                "%s: every connection stopped answering: the run measured a server "
                "that no longer answered\n",
                who);
        return SLAP_EXIT_FAILED;
    }
    /* The servers', not slap's lag; nor, when the verdict is that slap held the run back, the
     * requests due behind full lanes: the answers those lanes awaited may have waited for slap
     * to read (slap short of CPU alone is not enough: beside a stalled server it says
     * unknown, and the stalled lanes are the server's). */
    uint64_t silent = c->unanswered - c->client_lag;
    uint64_t behind = c->unsent > c->client_lag ? c->unsent - c->client_lag : 0;
    struct limits limits = {.seconds = 0};
    if (behind > 0 && run_limits(r, &limits) == SLAP_OK && limits.verdict == LIMITS_CLIENT) {
        fprintf(stderr,
                "%s: %llu requests fell due behind connections awaiting answers while slap "
                "itself held the run back (limited_by %s): the answers may have waited for "
                "slap, so they are not counted against the server\n",
                who, (unsigned long long)behind, limits_verdict_name(limits.verdict));
        silent -= behind;
    }
    limits_free(&limits);
    if ((double)silent > LIMITS_UNANSWERED * (double)(ops + c->unanswered)) {
        fprintf(stderr,
                "%s: %llu of %llu requests went unanswered by the server%s, more than "
                "%.0f%%\n",
                who, (unsigned long long)silent, (unsigned long long)(ops + c->unanswered),
                silent == 1 ? "" : "s", LIMITS_UNANSWERED * 100);
        return SLAP_EXIT_FAILED;
    }
    if (c->stored == 0 && c->not_stored > 0) {
        fprintf(stderr,
                "%s: every set was answered NOT_STORED (%llu): the server stored none; the "
                "gets still asked for their keys, as the mix says\n",
                who, (unsigned long long)c->not_stored);
    }
    if (run_down_print(stderr, &res, who) > 0) {
        return SLAP_EXIT_FAILED;
    }
    if (c->conn_refused > 0) {
        fprintf(stderr,
                "%s: %llu connection%s closed before %s first answer: the server "
                "refused %s\n",
                who, (unsigned long long)c->conn_refused, c->conn_refused == 1 ? " was" : "s were",
                c->conn_refused == 1 ? "its" : "their", c->conn_refused == 1 ? "it" : "them");
    }
    if (c->clients_stopped > 0) {
        fprintf(stderr, "%s: %llu of %u %s stopped early after losing a connection%s\n", who,
                (unsigned long long)c->clients_stopped, clients,
                o->memslap_face ? "threads" : "clients", o->memslap_face ? "" : " (-R reconnects)");
        return SLAP_EXIT_FAILED;
    }
    return SLAP_EXIT_OK;
}

bool exit_output_ok(void)
{
    if (fflush(stdout) == 0 && !ferror(stdout)) {
        return true;
    }
    fprintf(stderr, "slap: cannot write to standard output: %s\n",
            strerror(errno != 0 ? errno : EIO));
    return false;
}

/* -v asked for checks the answers never allowed (gets at least VERIFY_EXPECTED_MIN times the
 * share checked, none checked): verify_failed: 0 would vouch for nothing, so the run fails.
 * Chance alone leaves all unchecked with probability below e^-20 (1e-9). */
#define VERIFY_EXPECTED_MIN 20.0

static int exit_verify_checked(const struct slap_options *o, const struct slap_stats *s, int status,
                               const char *who)
{
    const struct slap_counters *c = &s->counters;
    if (o->verify <= 0 || c->verify_checked > 0 ||
        o->verify * (double)c->cmd_get < VERIFY_EXPECTED_MIN) {
        return status;
    }
    fprintf(stderr,
            "%s: -v checked none of %llu gets (verify_checked: 0): no answer could be compared "
            "with a value stored (sets that were never stored, or that always crossed the "
            "gets), so verify_failed: 0 vouches for nothing: the run fails\n",
            who, (unsigned long long)c->cmd_get);
    return SLAP_EXIT_FAILED;
}

/* Without --max_errors, a verification failure (-v: the server handed back a value that was
 * never stored) fails the run, and so does a -v that checked nothing. */
int exit_max_errors(const struct slap_options *o, const struct slap_stats *s, int status,
                    const char *who)
{
    status = exit_verify_checked(o, s, status, who);
    uint64_t errors = stats_errors(&s->counters);
    uint64_t requests = results_requests(s);
    uint64_t failed = s->counters.verify_failed;
    if (o->max_errors == UINT64_MAX && o->max_errors_pct < 0 && failed > 0) {
        fprintf(stderr,
                "%s: %llu checked get%s found a value other than the one stored "
                "(verify_failed): the run fails (--max_errors sets how many errors it "
                "may have)\n",
                who, (unsigned long long)failed, failed == 1 ? "" : "s");
        return SLAP_EXIT_FAILED;
    }
    bool over_count = o->max_errors != UINT64_MAX && errors > o->max_errors;
    bool over_share =
        o->max_errors_pct >= 0 && (double)errors * 100.0 > o->max_errors_pct * (double)requests;
    if (!over_count && !over_share) {
        return status;
    }
    fprintf(stderr, "%s: %llu errors in %llu requests, more than --max_errors allows\n", who,
            (unsigned long long)errors, (unsigned long long)requests);
    return SLAP_EXIT_FAILED;
}

int exit_no_run(enum options_outcome outcome)
{
    if (outcome == OPTIONS_USAGE) {
        return SLAP_EXIT_USAGE;
    }
    return exit_output_ok() ? SLAP_EXIT_OK : SLAP_EXIT_FAILED;
}
