/*
 * The floor for scripts/bench.py: the least a memcached client can spend per request. N sockets
 * on one epoll; each sends a get (one in ten a set) of 1 KiB values, waits for the whole answer,
 * sends the next: one write and one read per request, no statistics, no timers.
 * Usage: floor_client HOST PORT CLIENTS SECONDS (keys are set first, so gets hit).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define KEYS 10000
#define VALUE_SIZE 1024
#define KEY_SIZE 64
#define SET_EVERY 10

struct client {
    int fd;
    unsigned next;   /* requests sent */
    size_t have;     /* bytes of the answer read so far */
    char buf[4096];
};

static char value[VALUE_SIZE];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A key of KEY_SIZE bytes, as memaslap's and slap's. */
static void key_of(unsigned n, char *key)
{
    snprintf(key, KEY_SIZE + 1, "floor-%0*u", KEY_SIZE - 6, n % KEYS);
}

/* The request into out; its length. */
static size_t request(unsigned n, int set, char *out)
{
    char key[KEY_SIZE + 1];
    key_of(n, key);
    if (!set) {
        return (size_t)sprintf(out, "get %s\r\n", key);
    }
    size_t len = (size_t)sprintf(out, "set %s 0 0 %d\r\n", key, VALUE_SIZE);
    memcpy(out + len, value, VALUE_SIZE);
    memcpy(out + len + VALUE_SIZE, "\r\n", 2);
    return len + VALUE_SIZE + 2;
}

static int is_set(unsigned n)
{
    return n % SET_EVERY == SET_EVERY - 1;
}

static void send_next(struct client *c)
{
    char out[VALUE_SIZE + 256];
    size_t len = request(c->next, is_set(c->next), out);
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

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: floor_client HOST PORT CLIENTS SECONDS\n");
        return 2;
    }
    int port = atoi(argv[2]), clients = atoi(argv[3]);
    double end = now_s() + atof(argv[4]);
    memset(value, 'v', sizeof(value));
    struct client *cs = calloc((size_t)clients, sizeof(*cs));
    int ep = epoll_create1(0);
    if (cs == NULL || ep < 0) {
        return 1;
    }
    preload(connect_to(argv[1], port));
    for (int i = 0; i < clients; i++) {
        cs[i].fd = connect_to(argv[1], port);
        cs[i].next = (unsigned)i * 7919u;
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &cs[i]};
        epoll_ctl(ep, EPOLL_CTL_ADD, cs[i].fd, &ev);
        send_next(&cs[i]);
    }
    unsigned long done = 0;
    struct epoll_event evs[256];
    for (unsigned loops = 0; (loops & 255) != 0 || now_s() < end; loops++) {
        int n = epoll_wait(ep, evs, 256, 1000);
        for (int i = 0; i < n; i++) {
            struct client *c = evs[i].data.ptr;
            ssize_t got = read(c->fd, c->buf + c->have, sizeof(c->buf) - c->have);
            if (got <= 0) {
                perror("read");
                return 1;
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
    return 0;
}
