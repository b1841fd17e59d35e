/*
 * A fake memcached whose service time is known: each get or set is answered (END, STORED)
 * BASE_US plus an exponential of mean MEAN_US microseconds after it arrives, timed by a timerfd
 * to the microsecond, so the intervals slap puts on its percentiles can be checked against a
 * truth. Answers on a connection keep their order (a later one waits for the one before).
 * stats, version and anything else are answered at once.
 *
 * The truth as the server saw it: each delayed answer's time from the kernel's arrival stamp
 * of its request (SO_TIMESTAMPNS) to the server's write of it is kept, and the command "truth"
 * answers "TRUTH count mean_us p50_us p90_us p99_us p999_us" of the answers written since the last
 * "truth" (or the start), at once, and starts again. A server held up on its CPU is in it.
 * Usage: delay_server PORT BASE_US MEAN_US SEED (listens on 127.0.0.1; runs until killed)
 */
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define CONNS 1024
#define PENDING 64 /* answers awaiting their time on one connection */
#define INBUF 65536

struct answer {
    uint64_t due_ns;
    uint64_t arrived_real_ns; /* the request's kernel stamp (CLOCK_REALTIME); 0: not timed */
    const char *text;
};

struct conn {
    int fd;
    size_t have;
    size_t need; /* data bytes (with their CRLF) of a set still to come */
    struct answer q[PENDING];
    unsigned head, tail;
    char in[INBUF];
};

static struct conn *conns[CONNS];
static uint64_t rng_state;
static double base_ns, mean_ns;

static uint64_t clock_of(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
    return clock_of(CLOCK_MONOTONIC);
}

/* The delays written since the last "truth" (nanoseconds), and that command's answer. */
static uint64_t *truth;
static size_t truth_n, truth_cap;
static char truth_text[128];
static uint64_t arrived_real_ns; /* the stamp of the read being taken */

static void truth_keep(uint64_t ns)
{
    if (truth_n == truth_cap) {
        truth_cap = truth_cap == 0 ? 65536 : 2 * truth_cap;
        truth = realloc(truth, truth_cap * sizeof(*truth));
        if (truth == NULL) {
            fprintf(stderr, "delay_server: out of memory\n");
            exit(1);
        }
    }
    truth[truth_n++] = ns;
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The nearest-rank q-quantile of the sorted delays, in microseconds. */
static double truth_at(double q)
{
    size_t rank = (size_t)ceil(q * (double)truth_n);
    return (double)truth[rank > 0 ? rank - 1 : 0] / 1000.0;
}

static const char *truth_report(void)
{
    double sum = 0;
    for (size_t i = 0; i < truth_n; i++) {
        sum += (double)truth[i];
    }
    if (truth_n == 0) {
        snprintf(truth_text, sizeof(truth_text), "TRUTH 0 0 0 0 0 0\r\n");
    } else {
        qsort(truth, truth_n, sizeof(*truth), by_value);
        snprintf(truth_text, sizeof(truth_text), "TRUTH %zu %.1f %.1f %.1f %.1f %.1f\r\n", truth_n,
                 sum / (double)truth_n / 1000.0, truth_at(0.5), truth_at(0.9), truth_at(0.99),
                 truth_at(0.999));
    }
    truth_n = 0;
    return truth_text;
}

/* Uniform in (0, 1]. */
static double unit_open(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return ((double)((rng_state * 0x2545F4914F6CDD1DULL) >> 11) + 1.0) / 9007199254740992.0;
}

static void queue_answer(struct conn *c, const char *text, int delayed)
{
    uint64_t due = now_ns();
    if (delayed) {
        due += (uint64_t)(base_ns - mean_ns * log(unit_open()));
    }
    if (c->tail != c->head && c->q[(c->tail - 1) % PENDING].due_ns > due) {
        due = c->q[(c->tail - 1) % PENDING].due_ns; /* in order */
    }
    if (c->tail - c->head == PENDING) {
        fprintf(stderr, "delay_server: more than %d requests in flight on a connection\n", PENDING);
        exit(1);
    }
    c->q[c->tail++ % PENDING] = (struct answer){due, delayed ? arrived_real_ns : 0, text};
}

/* One whole line of a request (without its CRLF). */
static void request_line(struct conn *c, const char *line, size_t len)
{
    unsigned long bytes;
    if (len > 4 && memcmp(line, "get ", 4) == 0) {
        queue_answer(c, "END\r\n", 1);
    } else if (len > 4 && memcmp(line, "set ", 4) == 0 &&
               sscanf(line, "set %*s %*u %*d %lu", &bytes) == 1) {
        c->need = bytes + 2;
        queue_answer(c, "STORED\r\n", 1);
    } else if (len >= 7 && memcmp(line, "version", 7) == 0) {
        queue_answer(c, "VERSION 1.6.0\r\n", 0);
    } else if (len == 5 && memcmp(line, "truth", 5) == 0) {
        queue_answer(c, truth_report(), 0);
    } else if (len >= 5 && memcmp(line, "stats", 5) == 0) {
        queue_answer(c, "END\r\n", 0);
    } else {
        queue_answer(c, "ERROR\r\n", 0);
    }
}

/* Take the requests whole in c->in; keep the rest. */
static void take_requests(struct conn *c)
{
    size_t at = 0;
    for (;;) {
        if (c->need > 0) {
            size_t take = c->have - at < c->need ? c->have - at : c->need;
            at += take;
            c->need -= take;
            if (c->need > 0) {
                break;
            }
            continue;
        }
        char *eol = memchr(c->in + at, '\n', c->have - at);
        if (eol == NULL) {
            break;
        }
        size_t len = (size_t)(eol - (c->in + at));
        request_line(c, c->in + at, len > 0 && eol[-1] == '\r' ? len - 1 : len);
        at += len + 1;
    }
    memmove(c->in, c->in + at, c->have - at);
    c->have -= at;
}

static void close_conn(int i)
{
    close(conns[i]->fd);
    free(conns[i]);
    conns[i] = NULL;
}

/* Send every answer due by now; the earliest still waiting (0: none). */
static uint64_t send_due(void)
{
    uint64_t now = now_ns(), next = 0;
    for (int i = 0; i < CONNS; i++) {
        struct conn *c = conns[i];
        while (c != NULL && c->head != c->tail && c->q[c->head % PENDING].due_ns <= now) {
            struct answer *a = &c->q[c->head++ % PENDING];
            if (write(c->fd, a->text, strlen(a->text)) < 0) {
                close_conn(i);
                c = NULL;
            } else if (a->arrived_real_ns != 0) {
                truth_keep(clock_of(CLOCK_REALTIME) - a->arrived_real_ns);
            }
        }
        if (c != NULL && c->head != c->tail) {
            uint64_t due = c->q[c->head % PENDING].due_ns;
            next = next == 0 || due < next ? due : next;
        }
    }
    return next;
}

static void arm(int tfd, uint64_t due_ns)
{
    struct itimerspec its = {0};
    its.it_value.tv_sec = (time_t)(due_ns / 1000000000u);
    its.it_value.tv_nsec = (long)(due_ns % 1000000000u);
    timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL); /* 0 disarms */
}

static int listen_on(int port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 1024) != 0) {
        perror("delay_server: listen");
        exit(1);
    }
    return fd;
}

static void accept_one(int ep, int lfd)
{
    int fd = accept(lfd, NULL, NULL);
    for (int i = 0; fd >= 0 && i < CONNS; i++) {
        if (conns[i] == NULL && (conns[i] = calloc(1, sizeof(struct conn))) != NULL) {
            conns[i]->fd = fd;
            setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &(int){1}, sizeof(int));
            struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i + 2};
            epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
            return;
        }
    }
    if (fd >= 0) {
        close(fd);
    }
}

static void readable(int i)
{
    struct conn *c = conns[i];
    struct iovec iov = {c->in + c->have, sizeof(c->in) - c->have};
    char control[CMSG_SPACE(sizeof(struct timespec))];
    struct msghdr m = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = control,
                       .msg_controllen = sizeof(control)};
    ssize_t got = recvmsg(c->fd, &m, 0);
    arrived_real_ns = clock_of(CLOCK_REALTIME); /* no stamp came: the read's time */
    for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h != NULL; h = CMSG_NXTHDR(&m, h)) {
        if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SO_TIMESTAMPNS) {
            struct timespec ts;
            memcpy(&ts, CMSG_DATA(h), sizeof(ts));
            arrived_real_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        }
    }
    if (got <= 0) {
        close_conn(i);
        return;
    }
    c->have += (size_t)got;
    take_requests(c);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: delay_server PORT BASE_US MEAN_US SEED\n");
        return 2;
    }
    base_ns = atof(argv[2]) * 1000.0;
    mean_ns = atof(argv[3]) * 1000.0;
    rng_state = strtoull(argv[4], NULL, 10) | 1;
    int lfd = listen_on(atoi(argv[1]));
    int ep = epoll_create1(0), tfd = timerfd_create(CLOCK_MONOTONIC, 0);
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = 0};
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
    ev.data.u32 = 1;
    epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
    for (;;) {
        struct epoll_event evs[64];
        int n = epoll_wait(ep, evs, 64, -1);
        for (int k = 0; k < n; k++) {
            uint32_t id = evs[k].data.u32;
            if (id == 0) {
                accept_one(ep, lfd);
            } else if (id == 1) {
                uint64_t expirations;
                (void)!read(tfd, &expirations, sizeof(expirations));
            } else if (conns[id - 2] != NULL) {
                readable((int)id - 2);
            }
        }
        arm(tfd, send_due());
    }
}
