/*
 * The floor for scripts/bench.py: the least a memcached client can spend per request. N sockets
 * on one epoll; each sends a get (one in ten a set) of 1 KiB values, waits for the whole answer,
 * sends the next: one write and one read per request, no statistics, no timers.
 * Usage: floor_client HOST PORT CLIENTS SECONDS [MODE]. 10000 keys are set first; then, as slap
 * and memaslap do, each set writes a new key and gets ask for keys already set. MODE:
 *   tcp          the above (the default)
 *   pipeline N   each socket keeps N requests in flight and, in each read's turn, writes as many
 *                new ones as answers came, in one write
 *   batch N      each socket writes N requests at once and the next N when all N are answered
 *   mget N       each get asks for N keys at once (and one key in ten is still a set's)
 *   udp          CLIENTS requests in flight on one UDP socket, told apart by the request id of
 *                memcached's frame header: epoll, then one recvmmsg for what came and one
 *                sendmmsg for the requests that replace them
 *   udp-wait     the same without epoll: recvmmsg blocks until at least one answer came
 *   stamped      tcp, each socket asking for the kernel's software arrival stamps and each read
 *                a recvmsg taking its stamp (the design of slap's --timestamps=kernel)
 *   stamped-tx   stamped, and each write's departure stamped too (SOF_TIMESTAMPING_TX_SOFTWARE,
 *                OPT_ID, OPT_TSONLY): the kernel queues each on the socket's error queue, which
 *                wakes epoll (EPOLLERR) and is read by recvmsg(MSG_ERRQUEUE) until empty; the
 *                mean time from before the write to the departure stamp is printed
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define KEYS 10000  /* set first, so the first gets hit */
#define UNSURE 2048 /* the newest keys, whose sets may not be answered yet (at most 1024 out) */
#define VALUE_SIZE 1024
#define KEY_SIZE 64
#define SET_EVERY 10

struct client {
    int fd;
    double sent_real; /* stamped-tx: CLOCK_REALTIME before the latest write */
    unsigned next;    /* requests sent */
    unsigned owed;    /* batch: answers still to come */
    size_t have;      /* bytes of the answer read so far (pipeline: of the unfinished tail) */
    char buf[16384];
};

static char value[VALUE_SIZE];
static int stamps;                /* 1: arrival stamps read; 2: departure stamps too */
static unsigned long stamped_in;  /* reads that brought an arrival stamp */
static unsigned long stamped_out; /* departure stamps read */
static double late_sum;           /* their time after the write began, in seconds */
static unsigned mget = 1;         /* keys per get */
static unsigned stored = 0; /* keys set so far: as slap's and memaslap's, each set a new key */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A key of KEY_SIZE bytes, as memaslap's and slap's. */
static void key_of(unsigned n, char *key)
{
    snprintf(key, KEY_SIZE + 1, "floor-%0*u", KEY_SIZE - 6, n);
}

/* A key that was set, for the i-th key of a get: spread over all but the newest, so that the
 * server holds (and looks up) as many keys as it would for slap or memaslap. */
static unsigned key_stored(unsigned i)
{
    return (i * 2654435761u) % (stored - UNSURE); /* KEYS were set before the first get */
}

/* The request into out; its length. */
static size_t request(unsigned n, int set, char *out)
{
    char key[KEY_SIZE + 1];
    key_of(set ? stored++ : key_stored(n * mget), key);
    if (!set) {
        size_t len = (size_t)sprintf(out, "get %s", key);
        for (unsigned k = 1; k < mget; k++) {
            key_of(key_stored(n * mget + k), key);
            len += (size_t)sprintf(out + len, " %s", key);
        }
        return len + (size_t)sprintf(out + len, "\r\n");
    }
    size_t len = (size_t)sprintf(out, "set %s 0 0 %d\r\n", key, VALUE_SIZE);
    memcpy(out + len, value, VALUE_SIZE);
    memcpy(out + len + VALUE_SIZE, "\r\n", 2);
    return len + VALUE_SIZE + 2;
}

/* One key in ten is set's, as memaslap and slap keep it with multi-gets too: in each cycle of
 * 9 gets (of mget keys each), mget sets. */
static int is_set(unsigned n)
{
    return n % (SET_EVERY - 1 + mget) >= SET_EVERY - 1;
}

static double real_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A socket's stamps asked for: arrivals; with 2, departures too. */
static void stamp_socket(int fd)
{
    int flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
    if (stamps == 2) {
        flags |=
            SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_OPT_ID | SOF_TIMESTAMPING_OPT_TSONLY;
    }
    if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)) != 0) {
        perror("SO_TIMESTAMPING");
        exit(1);
    }
}

/* The software stamp in m's control bytes (seconds, CLOCK_REALTIME), or 0. */
static double stamp_in(struct msghdr *m)
{
    for (struct cmsghdr *h = CMSG_FIRSTHDR(m); h != NULL; h = CMSG_NXTHDR(m, h)) {
        if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SO_TIMESTAMPING) {
            struct scm_timestamping t;
            memcpy(&t, CMSG_DATA(h), sizeof(t));
            return (double)t.ts[0].tv_sec + (double)t.ts[0].tv_nsec / 1e9;
        }
    }
    return 0;
}

/* read(2), or with stamps recvmsg keeping the arrival stamp. */
static ssize_t read_answer(struct client *c, void *buf, size_t len)
{
    if (stamps == 0) {
        return read(c->fd, buf, len);
    }
    char control[256];
    struct iovec iov = {buf, len};
    struct msghdr m = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = control,
                       .msg_controllen = sizeof(control)};
    ssize_t got = recvmsg(c->fd, &m, 0);
    stamped_in += got > 0 && stamp_in(&m) > 0;
    return got;
}

/* stamped-tx: every departure stamp on c's error queue read. */
static void read_departures(struct client *c)
{
    for (;;) {
        char control[256];
        struct msghdr m = {.msg_control = control, .msg_controllen = sizeof(control)};
        if (recvmsg(c->fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                perror("recvmsg(MSG_ERRQUEUE)");
                exit(1);
            }
            return;
        }
        double at = stamp_in(&m);
        if (at > 0) {
            stamped_out++;
            late_sum += at - c->sent_real;
        }
    }
}

static void send_next(struct client *c)
{
    char out[VALUE_SIZE + 256 + 16 * (KEY_SIZE + 1)];
    size_t len = request(c->next, is_set(c->next), out);
    if (stamps == 2) {
        c->sent_real = real_s();
    }
    if (write(c->fd, out, len) != (ssize_t)len) {
        perror("write");
        exit(1);
    }
    c->have = 0;
}

/* Is the answer in c->buf whole (END or STORED ends it)? */
static int answer_done(const struct client *c)
{
    return c->have >= 5 && memcmp(c->buf + c->have - 2, "\r\n", 2) == 0 &&
           (memcmp(c->buf + c->have - 5, "END\r\n", 5) == 0 ||
            (c->have >= 8 && memcmp(c->buf + c->have - 8, "STORED\r\n", 8) == 0));
}

static int connect_to(const char *host, int port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    if (fd < 0 || inet_pton(AF_INET, host, &sa.sin_addr) != 1 ||
        connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        perror("connect");
        exit(1);
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

/* Set every key once, on one socket, so the run's gets hit. */
static void preload(int fd)
{
    char out[VALUE_SIZE + 256], in[64];
    for (unsigned n = 0; n < KEYS; n++) {
        size_t len = request(n, 1, out);
        if (write(fd, out, len) != (ssize_t)len || read(fd, in, sizeof(in)) <= 0) {
            perror("preload");
            exit(1);
        }
    }
}

/* Answers ended in the len new bytes at c->buf + c->have (END or STORED closes one; a value is
 * all 'v's and a key never holds either word). The last 7 bytes stay for the next read, where a
 * word that ends among them was counted already. */
static unsigned answers_ended(struct client *c, size_t len)
{
    unsigned ended = 0;
    size_t old = c->have, all = old + len;
    const char *p = c->buf, *stop = c->buf + all;
    while ((p = memchr(p, '\n', (size_t)(stop - p))) != NULL) {
        size_t end = (size_t)(++p - c->buf); /* just past the newline */
        if (end > old && ((end >= 5 && memcmp(p - 5, "END\r\n", 5) == 0) ||
                          (end >= 8 && memcmp(p - 8, "STORED\r\n", 8) == 0))) {
            ended++;
        }
    }
    c->have = all < 7 ? all : 7;
    memmove(c->buf, c->buf + all - c->have, c->have);
    return ended;
}

/* Write n requests of c in one write. */
static void send_many(struct client *c, unsigned n)
{
    static char out[64 * (VALUE_SIZE + 256)];
    size_t len = 0;
    for (unsigned i = 0; i < n; i++) {
        len += request(c->next + i, is_set(c->next + i), out + len);
    }
    c->next += n;
    if (write(c->fd, out, len) != (ssize_t)len) {
        perror("write");
        exit(1);
    }
}

#define UDP_BATCH 256

static int udp_socket(const char *host, int port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct timeval second = {.tv_sec = 1};
    if (fd < 0 || inet_pton(AF_INET, host, &sa.sin_addr) != 1 ||
        connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        perror("udp");
        exit(1);
    }
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &second, sizeof(second));
    return fd;
}

/* UDP: request id i is client i; each answer (one datagram: 1 KiB fits) sends its client's next
 * request (a lost datagram would idle its client: loopback loses none at this rate). With wait,
 * recvmmsg blocks for the first answer instead of epoll_wait. */
static unsigned long run_udp(const char *host, int port, int clients, double end, int wait)
{
    static char out[UDP_BATCH][VALUE_SIZE + 256], in[UDP_BATCH][2048];
    static struct mmsghdr smsg[UDP_BATCH], rmsg[UDP_BATCH];
    static struct iovec siov[UDP_BATCH], riov[UDP_BATCH];
    unsigned *next = calloc((size_t)clients, sizeof(*next));
    int fd = udp_socket(host, port), ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN};
    if (next == NULL || ep < 0 || clients > UDP_BATCH) {
        fprintf(stderr, "udp: at most %d clients\n", UDP_BATCH);
        exit(1);
    }
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    for (int i = 0; i < UDP_BATCH; i++) {
        riov[i] = (struct iovec){in[i], sizeof(in[i])};
        rmsg[i].msg_hdr = (struct msghdr){.msg_iov = &riov[i], .msg_iovlen = 1};
    }
    for (int i = 0; i < clients; i++) {
        next[i] = (unsigned)i * 7919u;
        unsigned char *f = (unsigned char *)out[i];
        f[0] = (unsigned char)(i >> 8), f[1] = (unsigned char)i;
        memset(f + 2, 0, 6);
        f[5] = 1; /* one datagram */
        siov[i] = (struct iovec){out[i], 8 + request(next[i], is_set(next[i]), out[i] + 8)};
        smsg[i].msg_hdr = (struct msghdr){.msg_iov = &siov[i], .msg_iovlen = 1};
    }
    unsigned nsend = (unsigned)clients;
    unsigned long done = 0;
    for (unsigned loops = 0; (loops & 255) != 0 || now_s() < end; loops++) {
        if (nsend > 0 && sendmmsg(fd, smsg, nsend, 0) != (int)nsend) {
            perror("sendmmsg");
            exit(1);
        }
        nsend = 0;
        if (!wait && epoll_wait(ep, &ev, 1, 1000) != 1) {
            continue;
        }
        int got = recvmmsg(fd, rmsg, UDP_BATCH, wait ? MSG_WAITFORONE : MSG_DONTWAIT, NULL);
        for (int k = 0; k < got; k++) {
            const unsigned char *f = (const unsigned char *)in[k];
            unsigned id = (unsigned)f[0] << 8 | f[1];
            if (rmsg[k].msg_len < 8 || id >= (unsigned)clients) {
                continue;
            }
            unsigned n = ++next[id];
            unsigned char *o = (unsigned char *)out[nsend];
            o[0] = f[0], o[1] = f[1];
            memset(o + 2, 0, 6);
            o[5] = 1;
            siov[nsend] = (struct iovec){out[nsend], 8 + request(n, is_set(n), out[nsend] + 8)};
            smsg[nsend].msg_hdr = (struct msghdr){.msg_iov = &siov[nsend], .msg_iovlen = 1};
            nsend++;
            done++;
        }
    }
    return done;
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc > 7) {
        fprintf(stderr, "usage: floor_client HOST PORT CLIENTS SECONDS "
                        "[tcp | pipeline N | batch N | mget N | udp | udp-wait | stamped | "
                        "stamped-tx]\n");
        return 2;
    }
    int port = atoi(argv[2]), clients = atoi(argv[3]);
    const char *mode = argc > 5 ? argv[5] : "tcp";
    unsigned depth = 1;
    int batch = strcmp(mode, "batch") == 0;
    if (strcmp(mode, "pipeline") == 0 || batch || strcmp(mode, "mget") == 0) {
        unsigned n = argc > 6 ? (unsigned)atoi(argv[6]) : 0;
        if (n < 1 || n > 16) {
            fprintf(stderr, "floor_client: %s takes 1 to 16\n", mode);
            return 2;
        }
        *(mode[0] == 'm' ? &mget : &depth) = n;
    } else if (strcmp(mode, "stamped") == 0 || strcmp(mode, "stamped-tx") == 0) {
        stamps = mode[7] == '-' ? 2 : 1;
    } else if (strcmp(mode, "tcp") != 0 && strcmp(mode, "udp") != 0 &&
               strcmp(mode, "udp-wait") != 0) {
        fprintf(stderr, "floor_client: unknown mode %s\n", mode);
        return 2;
    }
    double end = now_s() + atof(argv[4]);
    memset(value, 'v', sizeof(value));
    preload(connect_to(argv[1], port));
    if (strncmp(mode, "udp", 3) == 0) {
        printf("floor_client: %lu requests\n",
               run_udp(argv[1], port, clients, end, strcmp(mode, "udp-wait") == 0));
        return 0;
    }
    struct client *cs = calloc((size_t)clients, sizeof(*cs));
    int ep = epoll_create1(0);
    if (cs == NULL || ep < 0) {
        return 1;
    }
    for (int i = 0; i < clients; i++) {
        cs[i].fd = connect_to(argv[1], port);
        if (stamps > 0) {
            stamp_socket(cs[i].fd);
        }
        cs[i].next = (unsigned)i * 7919u;
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &cs[i]};
        epoll_ctl(ep, EPOLL_CTL_ADD, cs[i].fd, &ev);
        if (depth > 1) {
            send_many(&cs[i], depth);
            cs[i].owed = depth;
        } else {
            send_next(&cs[i]);
        }
    }
    unsigned long done = 0;
    struct epoll_event evs[256];
    for (unsigned loops = 0; (loops & 255) != 0 || now_s() < end; loops++) {
        int n = epoll_wait(ep, evs, 256, 1000);
        for (int i = 0; i < n; i++) {
            struct client *c = evs[i].data.ptr;
            if (evs[i].events & EPOLLERR) {
                read_departures(c); /* stamped-tx: the error queue woke it */
            }
            if ((evs[i].events & EPOLLIN) == 0) {
                continue;
            }
            ssize_t got = read_answer(c, c->buf + c->have, sizeof(c->buf) - c->have);
            if (got <= 0) {
                perror("read");
                return 1;
            }
            if (depth > 1) {
                unsigned ended = answers_ended(c, (size_t)got);
                done += ended;
                c->owed -= ended;
                if (!batch && ended > 0) {
                    send_many(c, ended);
                    c->owed += ended;
                } else if (batch && c->owed == 0) {
                    send_many(c, depth);
                    c->owed = depth;
                }
                continue;
            }
            c->have += (size_t)got;
            if (answer_done(c)) {
                c->next++;
                done++;
                send_next(c);
            }
        }
    }
    printf("floor_client: %lu requests\n", done);
    if (stamps > 0) {
        printf("floor_client: %lu reads stamped", stamped_in);
        if (stamps == 2) {
            printf(", %lu departures stamped, %.1f us after the write began on average",
                   stamped_out, stamped_out > 0 ? late_sum / (double)stamped_out * 1e6 : 0.0);
        }
        printf("\n");
    }
    return 0;
}
