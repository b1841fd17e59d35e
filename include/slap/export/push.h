/* --push: a Prometheus Pushgateway's URL, the run's group in it, and one blocking HTTP PUT. */
#ifndef SLAP_PUSH_H
#define SLAP_PUSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slap/base/common.h"

#define PUSH_URL_MAX 1024
#define PUSH_HOST_MAX 256
#define PUSH_JOB "slap" /* the job of the group a run is pushed to */

/* Where a run is pushed: parsed from --push once, before the run. */
struct push_target {
    char url[PUSH_URL_MAX];   /* as given, for messages */
    char host[PUSH_HOST_MAX]; /* a name or an address (an IPv6 one without its brackets) */
    char port[8];
    char path[3 * PUSH_URL_MAX]; /* the group: /metrics/job/slap/instance/LABEL, or as given */
    char authority[PUSH_HOST_MAX + 10]; /* the Host header: host[:port] as the URL wrote it */
};

/* NULL when url is one --push takes (http://HOST[:PORT][/PATH]), else what is wrong with it. */
const char *push_url_problem(const char *url);
/* url as it may be shown: credentials before an '@' of its host part become "***". out. */
const char *push_url_redacted(const char *url, char *out, size_t len);

/*
 * The target of url (push_url_problem(url) == NULL) for the run labelled label. A URL without
 * a path, or with one that does not start /metrics/job/, gets /metrics/job/slap/instance/LABEL
 * after it (the label base64url-encoded, as instance@base64, when it is not plain URL text).
 */
enum slap_status push_target_init(struct push_target *t, const char *url, const char *label);

/*
 * PUT body (the Prometheus text format) to the target, replacing its group: SLAP_OK on a 2xx
 * answer within timeout_ns, the host's name resolution included (by a thread of its own: a
 * resolver that never answers costs the timeout, nothing more). Else err says why in one
 * line: the address that did not answer and the system's error, or the HTTP status with the
 * start of the answer, made printable. A stop asked (push_set_stop_check) ends it too.
 */
enum slap_status push_put(const struct push_target *t, const char *body, size_t len,
                          uint64_t timeout_ns, char *err, size_t err_len);

/* How a push knows a stop was asked (a signal pending): its waits end within 50 ms. */
void push_set_stop_check(bool (*check)(void));

#endif
