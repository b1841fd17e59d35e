/*
 * --metrics and --push: the run's figures while it runs.
 *
 * --metrics serves GET /metrics over libevent's HTTP server (evhttp) on an event_base of the
 * main thread's own, run while the run waits (run_sinks.wait): the workers and their request
 * path are untouched. The text is made again from the run's total only when a scrape asks
 * after a tick changed it, so a client asking often costs a copy, not a rendering.
 *
 * Hostile clients are bounded: a request line and headers of LIVE_MAX_HEADERS bytes at most,
 * no body, a connection silent LIVE_IDLE_S is closed, none lives longer than LIVE_LIFETIME_S
 * (a slow sender or reader), and at most LIVE_MAX_CONNS are open: the listener pauses at
 * the cap (new ones wait in the kernel's short queue) and resumes when one closes. Every
 * response closes its connection. evhttp tells of a connection only when a request is
 * complete, so the slot of a new one is taken when evhttp asks for its bufferevent
 * (evhttp_set_bevcb) and tied to its evhttp_connection (whose close frees it) just after.
 *
 *   accept ─> new_connection (slot PENDING) ─> attach (OPEN, lifetime timer) ─> closed (FREE)
 *
 * --push PUTs the same text to a Pushgateway: each -S period (a short timeout), and the
 * final figures with the verdict after the report and files are written. The periods' pushes
 * go through a thread of their own (the pusher), one at a time: the thread that collects the
 * periods only hands over the text, so a slow or silent gateway costs pushes (a period whose
 * turn comes while the last push still runs is skipped, and counted as failed), never periods.
 */
#include "slap/export/live.h"

#include <arpa/inet.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "slap/base/quote.h"
#include "slap/base/units.h"
#include "slap/export/push.h"
#include "slap/output/metrics.h"

#define LIVE_BACKLOG 16
#define LIVE_ADDR_MAX 64

enum slot_state {
    SLOT_FREE,
    SLOT_PENDING, /* evhttp made its bufferevent; its evhttp_connection is not known yet */
    SLOT_OPEN,    /* tied to its evhttp_connection, its lifetime running */
};

struct live_server;

struct live_slot {
    struct live_server *srv;
    enum slot_state state;
    struct bufferevent *bev;         /* PENDING: the new connection's */
    struct evhttp_connection *evcon; /* OPEN */
    struct event *lifetime;          /* OPEN: when it is closed whatever it is doing */
};

/* An HTTP server of the live: --metrics's, --control's. */
struct live_server {
    struct live *lv;
    const char *option; /* "--metrics": how messages name it */
    struct evhttp *http;
    struct evconnlistener *listener; /* evhttp's, over our socket */
    struct event *attach;            /* ties PENDING slots to their connections */
    struct live_slot slots[LIVE_MAX_CONNS];
    uint32_t open; /* slots not FREE */
    bool paused;   /* the listener is off: every slot is taken */
};

struct live {
    struct live_setup setup;
    struct event_base *base; /* NULL: nothing served */
    struct live_server metrics;
    struct live_server control;
    bool closing; /* live_close: evhttp frees its connections */
    /* the figures */
    const struct slap_stats *stats; /* the run so far; NULL before the first tick */
    double elapsed_s;
    double start_time_s; /* Unix time the measured part began, from the first tick in it */
    bool finished;
    const struct limits *limits;
    char *body; /* the text last made */
    size_t body_len;
    bool stale; /* a tick came since */
    /* --push */
    bool push;
    struct push_target target;
    uint64_t period_pushes;
    uint64_t period_failures; /* the pusher's lock guards it, while the pusher runs */
    bool failure_said;        /* the first failure's message is out */
    struct pusher {
        pthread_t thread;
        bool started;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        char *body; /* the next period's text, handed over; NULL: none */
        size_t len;
        bool busy; /* a push is running */
        bool quit;
        char err[512]; /* the first failure's reason, for the collecting thread to say */
    } pusher;
};

/* ---- the address ----------------------------------------------------------------------- */

const char *live_metrics_problem(const char *text, char *addr, size_t addr_len, uint16_t *port)
{
    char host[LIVE_ADDR_MAX] = "127.0.0.1";
    const char *port_text = text;
    unsigned char bin[sizeof(struct in6_addr)];
    uint16_t p = 0;
    if (text[0] == '[') {
        const char *close = strchr(text, ']');
        if (close == NULL || close[1] != ':' || (size_t)(close - text - 1) >= sizeof(host)) {
            return "write an IPv6 address as [ADDRESS]:PORT";
        }
        snprintf(host, sizeof(host), "%.*s", (int)(close - text - 1), text + 1);
        if (inet_pton(AF_INET6, host, bin) != 1) {
            return "not an IPv6 address between [ and ]";
        }
        port_text = close + 2;
    } else if (strchr(text, ':') != NULL) {
        const char *colon = strrchr(text, ':');
        if ((size_t)(colon - text) >= sizeof(host)) {
            return "the address is too long";
        }
        if (colon > text) {
            snprintf(host, sizeof(host), "%.*s", (int)(colon - text), text);
        }
        if (strcmp(host, "localhost") == 0) {
            snprintf(host, sizeof(host), "127.0.0.1");
        }
        if (inet_pton(AF_INET, host, bin) != 1) {
            return "the address must be a numeric IPv4 address, [IPv6] or localhost";
        }
        port_text = colon + 1;
    }
    if (!units_parse_port(port_text, strlen(port_text), &p)) {
        return "the port must be a number from 0 (any free one) to 65535";
    }
    if (addr != NULL) {
        snprintf(addr, addr_len, "%s", host);
    }
    if (port != NULL) {
        *port = p;
    }
    return NULL;
}

/* A listening socket on addr:port: its descriptor, the port it got, or -1 with err said. */
static int listen_on(const char *option, const char *addr, uint16_t port, uint16_t *bound,
                     char *err, size_t err_len)
{
    struct sockaddr_storage ss;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
    socklen_t len;
    memset(&ss, 0, sizeof(ss));
    if (inet_pton(AF_INET, addr, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        len = sizeof(*v4);
    } else {
        inet_pton(AF_INET6, addr, &v6->sin6_addr);
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        len = sizeof(*v6);
    }
    int one = 1;
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
        bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, LIVE_BACKLOG) != 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
        snprintf(err, err_len, "%s: cannot listen on %s port %u: %s", option, addr, port,
                 strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    *bound = ntohs(ss.ss_family == AF_INET ? v4->sin_port : v6->sin6_port);
    return fd;
}

/* ---- the text -------------------------------------------------------------------------- */

/* The text of the figures as they are now; the last one stays when it cannot be made. */
static void render(struct live *lv)
{
    static const struct slap_stats none; /* before the first tick: nothing counted */
    struct rusage ru;
    struct metrics_input in = {.label = lv->setup.label,
                               .desc = lv->setup.desc,
                               .stats = lv->stats != NULL ? lv->stats : &none,
                               .elapsed_s = lv->elapsed_s,
                               .target_tps = lv->setup.target_tps,
                               .finished = lv->finished,
                               .limits = lv->limits,
                               .start_time_s = lv->start_time_s,
                               .end_time_s = lv->start_time_s + lv->elapsed_s};
    struct rate_state control;
    if (lv->setup.control.where != NULL) {
        lv->setup.control.state(lv->setup.control.ctx, &control);
        in.control = &control;
    }
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        in.cpu_user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
        in.cpu_sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL) {
        return;
    }
    bool written = metrics_write(f, &in) == SLAP_OK;
    if (fclose(f) != 0 || !written) {
        free(text);
        return;
    }
    free(lv->body);
    lv->body = text;
    lv->body_len = len;
    lv->stale = false;
}

/* ---- serving --------------------------------------------------------------------------- */

static void reply_text(struct evhttp_request *req, int code, const char *reason, const char *type,
                       const char *text, size_t len)
{
    struct evkeyvalq *headers = evhttp_request_get_output_headers(req);
    struct evbuffer *body = evbuffer_new();
    evhttp_add_header(headers, "Content-Type", type);
    evhttp_add_header(headers, "Connection", "close");
    if (body != NULL && evbuffer_add(body, text, len) == 0) {
        evhttp_send_reply(req, code, reason, body);
    } else {
        evhttp_send_error(req, HTTP_SERVUNAVAIL, "out of memory");
    }
    if (body != NULL) {
        evbuffer_free(body);
    }
}

/* GET or HEAD (evhttp refuses the others): /metrics, with or without a query; else 404. */
static void on_request(struct evhttp_request *req, void *arg)
{
    static const char elsewhere[] = "slap serves its figures at /metrics\n";
    struct live *lv = arg;
    const char *uri = evhttp_request_get_uri(req);
    if (uri == NULL || strcspn(uri, "?") != 8 || strncmp(uri, "/metrics", 8) != 0) {
        reply_text(req, HTTP_NOTFOUND, "Not Found", "text/plain; charset=utf-8", elsewhere,
                   sizeof(elsewhere) - 1);
        return;
    }
    if (lv->stale || lv->body == NULL) {
        render(lv);
    }
    reply_text(req, HTTP_OK, "OK", "text/plain; version=0.0.4; charset=utf-8",
               lv->body != NULL ? lv->body : "", lv->body != NULL ? lv->body_len : 0);
}

/* ---- --control ------------------------------------------------------------------------- */

/* Every method evhttp knows reaches on_control, which answers those it does not take 405. */
#define CONTROL_METHODS                                                                            \
    (EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD | EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE |     \
     EVHTTP_REQ_OPTIONS | EVHTTP_REQ_TRACE | EVHTTP_REQ_CONNECT | EVHTTP_REQ_PATCH)

/* A reply of the control: JSON, closing the connection. */
static void control_reply(struct evhttp_request *req, int code, const char *reason,
                          const char *body)
{
    reply_text(req, code, reason, "application/json", body, strlen(body));
}

/* {"error": why}: why is slap's own text (a request's bytes are never echoed). */
static void control_error(struct evhttp_request *req, int code, const char *reason, const char *why)
{
    char body[512];
    snprintf(body, sizeof(body), "{\"error\": \"%s\"}\n", why);
    control_reply(req, code, reason, body);
}

/* The run as it is now, as JSON. */
static void control_state(struct evhttp_request *req, const struct live *lv)
{
    struct rate_state st;
    lv->setup.control.state(lv->setup.control.ctx, &st);
    char body[512];
    snprintf(body, sizeof(body),
             "{\"running\": %s, \"open_loop\": %s, \"paused\": %s, \"stopped\": %s, "
             "\"target_tps\": %.3f, \"elapsed_s\": %.3f, \"changes\": %u}\n",
             st.running ? "true" : "false", st.open_loop ? "true" : "false",
             st.paused ? "true" : "false", st.stopped ? "true" : "false", st.tps, st.elapsed_s,
             st.changes);
    control_reply(req, HTTP_OK, "OK", body);
}

/* /rate's query: exactly to=RATE (k=1000, m, g), from 1 to LIVE_CONTROL_MAX_TPS; NULL, or why
 * not. */
static const char *control_rate(const char *query, double *tps)
{
    if (query == NULL || strncmp(query, "to=", 3) != 0) {
        return "POST /rate?to=RATE: RATE operations per second (k=1000, m, g)";
    }
    const char *text = query + 3;
    size_t len = strlen(text);
    uint64_t value = 0;
    if (len == 0 || strchr(text, '&') != NULL) {
        return "/rate takes one parameter, to=RATE";
    }
    if (units_parse_size(text, len, 1000, &value) != UNITS_OK || value < 1 ||
        (double)value > LIVE_CONTROL_MAX_TPS) {
        return "to=RATE: a whole number of operations per second from 1 to 1g (k=1000, m, g)";
    }
    *tps = (double)value;
    return NULL;
}

/*
 * GET / (or HEAD): the state. POST /rate?to=RATE, /pause, /resume, /stop: the change, then the
 * state. A malformed request 400, a path not here 404, a method the path does not take 405,
 * a change the run cannot take now 409, one too many 429: each changes nothing.
 */
static void on_control(struct evhttp_request *req, void *arg)
{
    struct live *lv = arg;
    const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
    const char *path = uri != NULL ? evhttp_uri_get_path(uri) : NULL;
    const char *query = uri != NULL ? evhttp_uri_get_query(uri) : NULL;
    enum evhttp_cmd_type method = evhttp_request_get_command(req);
    bool post = method == EVHTTP_REQ_POST;
    enum rate_action action = RATE_SET;
    if (!post && method != EVHTTP_REQ_GET && method != EVHTTP_REQ_HEAD) {
        evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", "GET, HEAD, POST");
        control_error(req, HTTP_BADMETHOD, "Method Not Allowed",
                      "the control takes GET / and POST /rate?to=RATE, /pause, /resume, /stop");
        return;
    }
    if (path == NULL) {
        control_error(req, HTTP_BADREQUEST, "Bad Request", "not a request slap reads");
        return;
    }
    if (strcmp(path, "/") == 0) {
        if (post) {
            evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", "GET, HEAD");
            control_error(req, HTTP_BADMETHOD, "Method Not Allowed",
                          "GET / gives the state; POST /rate?to=RATE, /pause, /resume or /stop");
            return;
        }
        control_state(req, lv);
        return;
    }
    if (path[0] != '/' || !rate_action_parse(path + 1, &action)) {
        control_error(req, HTTP_NOTFOUND, "Not Found",
                      "the control takes GET / and POST /rate?to=RATE, /pause, /resume, /stop");
        return;
    }
    if (!post) {
        evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", "POST");
        control_error(req, HTTP_BADMETHOD, "Method Not Allowed", "a change is a POST");
        return;
    }
    double tps = 0.0;
    const char *why = action == RATE_SET ? control_rate(query, &tps)
                      : query != NULL    ? "this change takes no parameters"
                                         : NULL;
    if (why != NULL) {
        control_error(req, HTTP_BADREQUEST, "Bad Request", why);
        return;
    }
    char err[256] = "";
    switch (lv->setup.control.apply(lv->setup.control.ctx, action, tps, err, sizeof(err))) {
    case RATE_DONE:
        lv->stale = true; /* the next scrape shows the change */
        control_state(req, lv);
        return;
    case RATE_CONFLICT:
        control_error(req, 409, "Conflict", err);
        return;
    case RATE_FULL:
        control_error(req, 429, "Too Many Requests", err);
        return;
    }
}

static void slot_release(struct live_slot *s)
{
    struct live_server *srv = s->srv;
    if (s->state == SLOT_FREE) {
        return;
    }
    if (s->lifetime != NULL) {
        evtimer_del(s->lifetime);
    }
    s->state = SLOT_FREE;
    s->bev = NULL;
    s->evcon = NULL;
    srv->open--;
    if (srv->paused && !srv->lv->closing) {
        srv->paused = false;
        evconnlistener_enable(srv->listener);
    }
}

static void on_connection_closed(struct evhttp_connection *evcon, void *arg)
{
    (void)evcon;
    slot_release(arg);
}

/* The lifetime is over: close it, whatever it was doing. */
static void on_lifetime(evutil_socket_t fd, short what, void *arg)
{
    struct live_slot *s = arg;
    (void)fd;
    (void)what;
    if (s->state == SLOT_OPEN) {
        evhttp_connection_free(s->evcon); /* its close callback frees the slot */
        slot_release(s);                  /* if evhttp did not call it */
    }
}

/* evhttp asks for a new connection's bufferevent: the connection takes a slot. */
static struct bufferevent *new_connection(struct event_base *base, void *arg)
{
    struct live_server *srv = arg;
    struct bufferevent *bev = bufferevent_socket_new(base, -1, 0);
    for (size_t i = 0; bev != NULL && i < LIVE_MAX_CONNS; i++) {
        struct live_slot *s = &srv->slots[i];
        if (s->state == SLOT_FREE) {
            s->state = SLOT_PENDING;
            s->bev = bev;
            srv->open++;
            event_active(srv->attach, EV_TIMEOUT, 1);
            break;
        }
    }
    if (srv->open == LIVE_MAX_CONNS && !srv->paused) {
        srv->paused = true; /* the listener stops accepting after this one */
        evconnlistener_disable(srv->listener);
    }
    return bev;
}

/*
 * Just after the accept, before any of its I/O: evhttp set the new bufferevent's callbacks
 * with its evhttp_connection as their argument. Tie the slot to it: its close frees the slot.
 */
static void on_attach(evutil_socket_t fd, short what, void *arg)
{
    struct live_server *srv = arg;
    struct timeval lifetime = {LIVE_LIFETIME_S, 0};
    (void)fd;
    (void)what;
    for (size_t i = 0; i < LIVE_MAX_CONNS; i++) {
        struct live_slot *s = &srv->slots[i];
        void *evcon = NULL;
        if (s->state != SLOT_PENDING) {
            continue;
        }
        bufferevent_getcb(s->bev, NULL, NULL, NULL, &evcon);
        if (evcon == NULL) {
            slot_release(s);
            continue;
        }
        s->state = SLOT_OPEN;
        s->bev = NULL;
        s->evcon = evcon;
        evhttp_connection_set_closecb(s->evcon, on_connection_closed, s);
        evtimer_add(s->lifetime, &lifetime);
    }
}

/* A second after an accept error: listen again. (The listener was off that second, so no
 * connection came to fill the slots: it was not paused at the cap, nor is it now.) */
static void on_resume(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    evconnlistener_enable(arg);
}

/*
 * accept failed (out of descriptors): stop listening for a second rather than spin. The
 * listener's callbacks get evhttp as their argument, not the live, so the second is a one-shot
 * event on the listener's own base (the live's), which frees it with the base if it is still
 * pending when the live closes; no state outside the live is needed to find it.
 */
static void on_accept_error(struct evconnlistener *listener, void *arg)
{
    struct timeval second = {1, 0};
    (void)arg; /* evhttp's */
    evconnlistener_disable(listener);
    /* no memory for the event: the listener stays off rather than spin */
    (void)event_base_once(evconnlistener_get_base(listener), -1, EV_TIMEOUT, on_resume, listener,
                          &second);
}

/* The HTTP server's limits, and its events: requests of the methods go to on_req. */
static enum slap_status setup_http(struct live_server *srv, int fd, uint16_t methods,
                                   void (*on_req)(struct evhttp_request *, void *))
{
    struct event_base *base = srv->lv->base;
    struct evhttp_bound_socket *bound;
    evhttp_set_max_headers_size(srv->http, LIVE_MAX_HEADERS);
    evhttp_set_max_body_size(srv->http, 0);
    evhttp_set_timeout(srv->http, LIVE_IDLE_S);
    evhttp_set_allowed_methods(srv->http, methods);
    evhttp_set_gencb(srv->http, on_req, srv->lv);
    evhttp_set_bevcb(srv->http, new_connection, srv);
    srv->attach = event_new(base, -1, 0, on_attach, srv);
    for (size_t i = 0; i < LIVE_MAX_CONNS; i++) {
        srv->slots[i].srv = srv;
        srv->slots[i].lifetime = evtimer_new(base, on_lifetime, &srv->slots[i]);
        if (srv->slots[i].lifetime == NULL) {
            return SLAP_ERROR;
        }
    }
    bound = srv->attach != NULL ? evhttp_accept_socket_with_handle(srv->http, fd) : NULL;
    if (bound == NULL) {
        return SLAP_ERROR;
    }
    srv->listener = evhttp_bound_socket_get_listener(bound);
    evconnlistener_set_error_cb(srv->listener, on_accept_error);
    return SLAP_OK;
}

/* Listen at where (option's [ADDR:]PORT) and serve: said on standard error as what at the
 * URL's path. */
static enum slap_status serve(struct live *lv, struct live_server *srv, const char *option,
                              const char *where, uint16_t methods,
                              void (*on_req)(struct evhttp_request *, void *), const char *what,
                              const char *path, char *err, size_t err_len)
{
    char addr[LIVE_ADDR_MAX];
    uint16_t port = 0, bound = 0;
    srv->lv = lv;
    srv->option = option;
    const char *problem = live_metrics_problem(where, addr, sizeof(addr), &port);
    if (problem != NULL) {
        snprintf(err, err_len, "%s %s: %s", option, where, problem);
        return SLAP_ERROR;
    }
    int fd = listen_on(option, addr, port, &bound, err, err_len);
    if (fd < 0) {
        return SLAP_ERROR;
    }
    if (lv->base == NULL) {
        lv->base = event_base_new();
    }
    srv->http = lv->base != NULL ? evhttp_new(lv->base) : NULL;
    if (srv->http == NULL || setup_http(srv, fd, methods, on_req) != SLAP_OK) {
        if (srv->listener == NULL) {
            close(fd);
        }
        snprintf(err, err_len, "%s: cannot set up the HTTP server", option);
        return SLAP_ERROR;
    }
    bool v6 = strchr(addr, ':') != NULL;
    fprintf(stderr, "slap: %s at http://%s%s%s:%u%s\n", what, v6 ? "[" : "", addr, v6 ? "]" : "",
            bound, path);
    fflush(stderr);
    return SLAP_OK;
}

/* ---- the pusher ------------------------------------------------------------------------ */

/* The pusher: each text handed over, PUT within LIVE_PERIOD_TIMEOUT_NS. */
static void *pusher_main(void *arg)
{
    struct live *lv = arg;
    struct pusher *p = &lv->pusher;
    char err[512];
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (p->body == NULL && !p->quit) {
            pthread_cond_wait(&p->cond, &p->lock);
        }
        if (p->body == NULL) {
            break;
        }
        char *body = p->body;
        size_t len = p->len;
        p->body = NULL;
        p->busy = true;
        pthread_mutex_unlock(&p->lock);
        enum slap_status st =
            push_put(&lv->target, body, len, LIVE_PERIOD_TIMEOUT_NS, err, sizeof(err));
        free(body);
        pthread_mutex_lock(&p->lock);
        p->busy = false;
        if (st != SLAP_OK && lv->period_failures++ == 0) {
            snprintf(p->err, sizeof(p->err), "%s", err);
        }
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static enum slap_status pusher_start(struct live *lv)
{
    struct pusher *p = &lv->pusher;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cond, NULL);
    p->started = pthread_create(&p->thread, NULL, pusher_main, lv) == 0;
    if (!p->started) {
        pthread_cond_destroy(&p->cond);
        pthread_mutex_destroy(&p->lock);
        return SLAP_ERROR;
    }
    return SLAP_OK;
}

/* The pusher ends once its push is done (bounded by its timeout, or a stop); a text it had
 * not begun is dropped, counted as failed. */
static void pusher_stop(struct live *lv)
{
    struct pusher *p = &lv->pusher;
    if (!p->started) {
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->quit = true;
    if (p->body != NULL) {
        free(p->body);
        p->body = NULL;
        lv->period_failures++;
    }
    pthread_cond_signal(&p->cond);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    pthread_cond_destroy(&p->cond);
    pthread_mutex_destroy(&p->lock);
    p->started = false;
}

/* The first failure of a period's push, said once, by the collecting thread. */
static void say_first_failure(struct live *lv, const char *err)
{
    if (err[0] != '\0' && !lv->failure_said) {
        lv->failure_said = true;
        fprintf(stderr, "slap: --push %s: %s (the run goes on; later failures are counted)\n",
                lv->target.url, err);
    }
}

/* ---- the run's side -------------------------------------------------------------------- */

enum slap_status live_open(struct live **out, const struct live_setup *s, char *err, size_t err_len)
{
    *out = NULL;
    if (s->metrics == NULL && s->push == NULL && s->control.where == NULL) {
        return SLAP_OK;
    }
    struct live *lv = calloc(1, sizeof(*lv));
    if (lv == NULL) {
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    lv->setup = *s;
    if (s->push != NULL && push_target_init(&lv->target, s->push, s->label) != SLAP_OK) {
        char redacted[2048], shown[QUOTE_PATH_BUF];
        push_url_redacted(s->push, redacted, sizeof(redacted));
        snprintf(err, err_len, "--push %s: %s", quote_name(shown, redacted),
                 push_url_problem(s->push));
        live_close(lv);
        return SLAP_ERROR;
    }
    lv->push = s->push != NULL;
    if (lv->push && s->push_periods && pusher_start(lv) != SLAP_OK) {
        snprintf(err, err_len, "--push %s: cannot start its thread", s->push);
        live_close(lv);
        return SLAP_ERROR;
    }
    if (s->metrics != NULL) {
        if (serve(lv, &lv->metrics, "--metrics", s->metrics, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD,
                  on_request, "metrics", "/metrics", err, err_len) != SLAP_OK) {
            live_close(lv);
            return SLAP_ERROR;
        }
        render(lv);
    }
    if (s->control.where != NULL &&
        serve(lv, &lv->control, "--control", s->control.where, CONTROL_METHODS, on_control,
              "control", "/", err, err_len) != SLAP_OK) {
        live_close(lv);
        return SLAP_ERROR;
    }
    *out = lv;
    return SLAP_OK;
}

/* Unix time now, in seconds. */
static double wall_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void live_tick(struct live *lv, const struct slap_stats *global, double elapsed_s)
{
    if (lv != NULL) {
        if (lv->start_time_s == 0 && elapsed_s > 0) {
            lv->start_time_s = wall_now_s() - elapsed_s; /* the tick is said as it ends */
        }
        lv->stats = global;
        lv->elapsed_s = elapsed_s;
        lv->stale = true;
    }
}

bool live_serves(const struct live *lv)
{
    return lv != NULL && lv->base != NULL;
}

void live_wait(struct live *lv, uint64_t ns)
{
    struct timeval tv = slap_ns_to_timeval(ns);
    if (live_serves(lv) && event_base_loopexit(lv->base, &tv) == 0 &&
        event_base_dispatch(lv->base) == 0) {
        return;
    }
    struct timespec ts = {.tv_sec = (time_t)(ns / SLAP_NS_PER_SEC),
                          .tv_nsec = (long)(ns % SLAP_NS_PER_SEC)};
    nanosleep(&ts, NULL);
}

/* Push the text as it is now: SLAP_ERROR with err when it failed. */
static enum slap_status push_now(struct live *lv, uint64_t timeout_ns, char *err, size_t err_len)
{
    render(lv);
    if (lv->body == NULL) {
        snprintf(err, err_len, "out of memory");
        return SLAP_ERROR;
    }
    return push_put(&lv->target, lv->body, lv->body_len, timeout_ns, err, err_len);
}

void live_period(struct live *lv)
{
    if (lv == NULL || !lv->push || !lv->setup.push_periods || !lv->pusher.started) {
        return;
    }
    struct pusher *p = &lv->pusher;
    char err[sizeof(p->err)];
    lv->period_pushes++;
    render(lv);
    char *copy = lv->body != NULL ? malloc(lv->body_len) : NULL;
    pthread_mutex_lock(&p->lock);
    if (copy == NULL || p->busy || p->body != NULL) {
        free(copy); /* the last push still runs: this period's is skipped */
        lv->period_failures++;
        if (copy == NULL && p->err[0] == '\0') {
            snprintf(p->err, sizeof(p->err), "out of memory");
        } else if (p->err[0] == '\0') {
            snprintf(p->err, sizeof(p->err),
                     "a period's push was skipped: the one before had not finished");
        }
    } else {
        memcpy(copy, lv->body, lv->body_len);
        p->body = copy;
        p->len = lv->body_len;
        pthread_cond_signal(&p->cond);
    }
    snprintf(err, sizeof(err), "%s", p->err);
    pthread_mutex_unlock(&p->lock);
    say_first_failure(lv, err);
}

enum slap_status live_finish(struct live *lv, const struct slap_stats *global, double seconds,
                             const struct limits *limits)
{
    char err[512];
    if (lv == NULL) {
        return SLAP_OK;
    }
    pusher_stop(lv);
    say_first_failure(lv, lv->pusher.err);
    lv->stats = global;
    lv->elapsed_s = seconds;
    if (lv->start_time_s == 0) {
        lv->start_time_s = wall_now_s() - seconds; /* no tick came: a run shorter than one */
    }
    lv->finished = true;
    lv->limits = limits;
    enum slap_status st = lv->push ? push_now(lv, LIVE_PUSH_TIMEOUT_NS, err, sizeof(err)) : SLAP_OK;
    lv->limits = NULL; /* the caller's, gone after this */
    lv->stats = NULL;
    if (lv->period_failures > 0) {
        fprintf(stderr, "slap: --push %s: %llu of %llu period pushes failed\n", lv->target.url,
                (unsigned long long)lv->period_failures, (unsigned long long)lv->period_pushes);
    }
    if (st != SLAP_OK) {
        fprintf(stderr,
                "slap: --push %s: the final figures were not pushed: %s (the report and files "
                "are not affected)\n",
                lv->target.url, err);
    }
    return st;
}

static void server_close(struct live_server *srv)
{
    if (srv->http != NULL) {
        evhttp_free(srv->http); /* its connections' close callbacks free their slots */
    }
    for (size_t i = 0; i < LIVE_MAX_CONNS; i++) {
        if (srv->slots[i].lifetime != NULL) {
            event_free(srv->slots[i].lifetime);
        }
    }
    if (srv->attach != NULL) {
        event_free(srv->attach);
    }
}

void live_close(struct live *lv)
{
    if (lv == NULL) {
        return;
    }
    lv->closing = true;
    pusher_stop(lv);
    server_close(&lv->metrics);
    server_close(&lv->control);
    if (lv->base != NULL) {
        event_base_free(lv->base);
    }
    free(lv->body);
    free(lv);
}
