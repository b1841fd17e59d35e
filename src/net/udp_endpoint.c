/* UDP sockets shared by a thread's conns: requests out by sendmmsg, answers routed by their id. */
#include "udp_endpoint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "slap/net/udp_endpoints.h"
#include "slap/proto/udp.h"
#include "sock_io.h"
#include "stamp.h"
#include "transport.h"

/*
 * One socket per thread and server, connected to the server, for up to UDP_ID_SLOTS_MAX conns
 * (each with one request out at a time: -U allows no --pipeline):
 *
 *   conn_connect ──> join: the first opens and connects the socket and reads it (rev)
 *   udp_writev ──> queue: the datagram waits; the first of a turn activates `flush`, which
 *         runs after the turn's other callbacks: one sendmmsg for all of them (a full queue
 *         goes at once; EAGAIN waits for wev)
 *   rev ──> recvmmsg, a batch at a time until fewer come (at most UDP_RECV_ROUNDS calls)
 *         ──> each datagram to the conn in the slot its id names (udp_id_slot), whose
 *             reassembly checks the rest of the id; one no conn there waits for, or too short
 *             to name one, goes to any conn on the socket, which finds it stale or broken
 *   an error of the socket (ICMP: port unreachable) ──> every conn with a request out fails
 *   conn_close ──> leave: its datagram leaves the queue; the last to leave closes the socket
 *   --udp_timeout: the slots with a request out wait in a list in the order they sent, which is
 *         the order of their deadlines (one time-out for all): linking and unlinking cost a few
 *         instructions, not a timer each; one timer, at the first deadline, gives up the
 *         expired ones (hooks->expired) and is set again for the next
 */

#define UDP_RECV_BATCH 32  /* datagrams per recvmmsg */
#define UDP_RECV_SLOT 2048 /* bytes of the read buffer per datagram (memcached's: 1408 at most) */
#define UDP_RECV_ROUNDS 8  /* recvmmsg calls per readable at most; then the loop turns */
#define UDP_SEND_BATCH 64  /* datagrams a sendmmsg takes at most */
#define UDP_SEND_RETRIES 4 /* sendmmsg calls beyond one per queued datagram, at most */
#define UDP_DGRAM_IOV (1 + UDP_REQUEST_IOV) /* the frame header, then the request's iovecs */
#define UDP_RCVBUF_PER_CONN 8192            /* kernel room asked for each conn's answers */
#define UDP_RCVBUF_MAX (8 * 1024 * 1024)
#define UDP_NONE UINT32_MAX /* no slot */

struct udp_endpoint {
    int fd;              /* -1 while no conn is joined */
    uint32_t joined;     /* conns on the socket now */
    uint32_t nconns;     /* slots handed out: 0 .. nconns - 1 */
    uint32_t cap;        /* slots */
    uint8_t slot_bits;   /* of a request id */
    bool flush_armed;    /* `flush` is active for this turn */
    bool write_blocked;  /* sendmmsg said EAGAIN: wev waits for room */
    struct conn **conns; /* by slot; NULL once detached */
    uint8_t *touched;    /* by slot: got a datagram of the batch being read */
    const struct conn_env *env;
    const struct server *srv;
    const struct udp_endpoint_hooks *hooks; /* the conns' transport */
    struct event rev;                       /* readable, while the socket is open */
    struct event wev;                       /* writable, after a send that would block */
    struct event flush;                     /* made active by the first datagram queued in a turn */
    struct event timer;                     /* at the first deadline of the waiting slots */
    bool timer_armed;
    uint32_t wait_head, wait_tail;   /* slots with a request out, the oldest first */
    uint32_t *wait_prev, *wait_next; /* by slot: the list's links */
    uint64_t *deadline; /* by slot: when its request is given up; 0 if it waits for none */
    char *reasm_slab;   /* by slot, reasm_each bytes: where answers of several datagrams are
                           put together (pages touched only by those) */
    size_t reasm_each;
    uint32_t queued; /* datagrams waiting for sendmmsg: out[0 .. queued - 1] */
    uint32_t queue_cap;
    struct mmsghdr *out;
    struct iovec *out_iov; /* UDP_DGRAM_IOV per queued datagram */
    struct conn **out_conn;
    unsigned recv_batch; /* in[] used: as many UDP_RECV_SLOTs as the read buffer holds */
    unsigned ntouched;   /* conns that got a datagram of the batch: */
    uint32_t touched_slots[UDP_RECV_BATCH];
    struct mmsghdr in[UDP_RECV_BATCH];
    struct iovec in_iov[UDP_RECV_BATCH];
    union { /* --timestamps=kernel: each datagram's arrival stamp */
        char bytes[STAMP_CONTROL];
        size_t align; /* a cmsghdr's alignment */
    } in_control[UDP_RECV_BATCH];
};

struct udp_endpoints {
    uint32_t nservers;
    uint32_t per_server;        /* sockets to each server */
    uint32_t made;              /* items initialised (all of them unless init failed) */
    struct udp_endpoint *items; /* per_server for server 0, then server 1, ... */
};

static enum slap_status endpoint_init(struct udp_endpoint *ep, uint32_t cap)
{
    memset(ep, 0, sizeof(*ep));
    ep->fd = -1;
    ep->cap = cap;
    ep->slot_bits = udp_id_slot_bits(cap);
    ep->queue_cap = cap < UDP_SEND_BATCH ? cap : UDP_SEND_BATCH;
    ep->conns = calloc(cap, sizeof(*ep->conns));
    ep->touched = calloc(cap, sizeof(*ep->touched));
    ep->wait_prev = calloc(cap, sizeof(*ep->wait_prev));
    ep->wait_next = calloc(cap, sizeof(*ep->wait_next));
    ep->deadline = calloc(cap, sizeof(*ep->deadline));
    ep->wait_head = ep->wait_tail = UDP_NONE;
    ep->out = calloc(ep->queue_cap, sizeof(*ep->out));
    ep->out_iov = calloc((size_t)ep->queue_cap * UDP_DGRAM_IOV, sizeof(*ep->out_iov));
    ep->out_conn = calloc(ep->queue_cap, sizeof(*ep->out_conn));
    return ep->conns && ep->touched && ep->wait_prev && ep->wait_next && ep->deadline && ep->out &&
                   ep->out_iov && ep->out_conn
               ? SLAP_OK
               : SLAP_ERROR;
}

static void endpoint_close(struct udp_endpoint *ep)
{
    if (ep->fd < 0) {
        return;
    }
    event_del(&ep->rev);
    event_del(&ep->wev);
    event_del(&ep->flush);
    event_del(&ep->timer);
    ep->timer_armed = false;
    close(ep->fd);
    ep->fd = -1;
    ep->joined = 0;
    ep->queued = 0;
    ep->flush_armed = false;
    ep->write_blocked = false;
}

static void endpoint_free(struct udp_endpoint *ep)
{
    endpoint_close(ep);
    free(ep->conns);
    free(ep->touched);
    free(ep->wait_prev);
    free(ep->wait_next);
    free(ep->deadline);
    free(ep->reasm_slab);
    free(ep->out);
    free(ep->out_iov);
    free(ep->out_conn);
}

enum slap_status udp_endpoints_init(struct udp_endpoints **set, uint32_t nservers,
                                    uint32_t conns_per_server)
{
    struct udp_endpoints *s = calloc(1, sizeof(*s));
    *set = s;
    if (s == NULL) {
        return SLAP_ERROR;
    }
    s->nservers = nservers;
    s->per_server = conns_per_server / UDP_ID_SLOTS_MAX + (conns_per_server % UDP_ID_SLOTS_MAX > 0);
    s->per_server = s->per_server > 0 ? s->per_server : 1;
    s->items = calloc((size_t)nservers * s->per_server, sizeof(*s->items));
    if (s->items == NULL) {
        return SLAP_ERROR;
    }
    for (uint32_t i = 0; i < nservers * s->per_server; i++) {
        uint32_t before = (i % s->per_server) * UDP_ID_SLOTS_MAX;
        uint32_t left = conns_per_server > before ? conns_per_server - before : 1;
        s->made++;
        if (endpoint_init(&s->items[i], left < UDP_ID_SLOTS_MAX ? left : UDP_ID_SLOTS_MAX) !=
            SLAP_OK) {
            return SLAP_ERROR;
        }
    }
    return SLAP_OK;
}

void udp_endpoints_free(struct udp_endpoints *set)
{
    if (set == NULL) {
        return;
    }
    for (uint32_t i = 0; i < set->made; i++) {
        endpoint_free(&set->items[i]);
    }
    free(set->items);
    free(set);
}

/* ---- conns on the socket ---------------------------------------------------------------- */

static struct udp_endpoint *take_slot(struct udp_endpoint *ep, struct conn *c, uint32_t *slot)
{
    ep->env = c->env;
    ep->srv = c->srv;
    *slot = ep->nconns;
    ep->conns[ep->nconns++] = c;
    return ep;
}

struct udp_endpoint *udp_endpoint_attach(struct conn *c, uint32_t server, uint32_t *slot, bool *own,
                                         const struct udp_endpoint_hooks *hooks)
{
    struct udp_endpoints *s = c->env->udp;
    for (uint32_t k = 0; s != NULL && server < s->nservers && k < s->per_server; k++) {
        struct udp_endpoint *ep = &s->items[server * s->per_server + k];
        if (ep->nconns < ep->cap) {
            *own = false;
            ep->hooks = hooks;
            return take_slot(ep, c, slot);
        }
    }
    struct udp_endpoint *ep = malloc(sizeof(*ep)); /* a socket of its own */
    if (ep == NULL) {
        return NULL;
    }
    if (endpoint_init(ep, 1) != SLAP_OK) {
        endpoint_free(ep);
        free(ep);
        return NULL;
    }
    *own = true;
    ep->hooks = hooks;
    return take_slot(ep, c, slot);
}

void udp_endpoint_detach(struct udp_endpoint *ep, uint32_t slot, bool own)
{
    ep->conns[slot] = NULL;
    if (own) {
        endpoint_free(ep);
        free(ep);
    }
}

char *udp_endpoint_reasm_buf(struct udp_endpoint *ep, uint32_t slot, size_t bytes)
{
    if (ep->reasm_slab == NULL) {
        /* one allocation for all the slots: its pages stay the kernel's zero page until an
         * answer of several datagrams is written there */
        ep->reasm_slab = malloc((size_t)ep->cap * bytes);
        ep->reasm_each = bytes;
    }
    return ep->reasm_slab != NULL && bytes == ep->reasm_each ? ep->reasm_slab + (size_t)slot * bytes
                                                             : NULL;
}

uint8_t udp_endpoint_slot_bits(const struct udp_endpoint *ep)
{
    return ep->slot_bits;
}

static void on_readable(evutil_socket_t fd, short what, void *arg);
static void on_timer(evutil_socket_t fd, short what, void *arg);
static void on_writable(evutil_socket_t fd, short what, void *arg);
static void on_flush(evutil_socket_t fd, short what, void *arg);

/* recvmmsg's buffers: UDP_RECV_SLOT bytes each of the thread's read buffer. */
static void recv_buffers(struct udp_endpoint *ep)
{
    size_t slot = ep->env->rbuf_size < UDP_RECV_SLOT ? ep->env->rbuf_size : UDP_RECV_SLOT;
    size_t fit = ep->env->rbuf_size / slot;
    ep->recv_batch = (unsigned)(fit < UDP_RECV_BATCH ? fit : UDP_RECV_BATCH);
    for (unsigned i = 0; i < ep->recv_batch; i++) {
        ep->in_iov[i] = (struct iovec){.iov_base = ep->env->rbuf + i * slot, .iov_len = slot};
        ep->in[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &ep->in_iov[i], .msg_iovlen = 1}};
    }
}

/*
 * Every conn of the socket may have an answer waiting in it at once (each had a socket, and
 * the kernel's default room, of its own): ask for room for all of them, beyond
 * net.core.rmem_max if slap may (SO_RCVBUFFORCE), else up to it.
 */
static void endpoint_room(int fd, uint32_t cap)
{
    if (cap <= 1) {
        return;
    }
    uint64_t want = (uint64_t)cap * UDP_RCVBUF_PER_CONN;
    int bytes = (int)(want < UDP_RCVBUF_MAX ? want : UDP_RCVBUF_MAX);
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) != 0) {
        (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
    }
}

/* The socket, connected to the server (a datagram socket's connect does not wait), read. */
static int endpoint_open(struct udp_endpoint *ep)
{
    const struct conn_env *env = ep->env;
    int fd = socket(ep->srv->addr.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    if (connect(fd, (const struct sockaddr *)&ep->srv->addr, ep->srv->addr_len) < 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    endpoint_room(fd, ep->cap);
    if (env->clock != NULL && stamp_enable(fd) != 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    ep->fd = fd;
    event_assign(&ep->rev, env->base, fd, EV_READ | EV_PERSIST, on_readable, ep);
    event_assign(&ep->wev, env->base, fd, EV_WRITE, on_writable, ep);
    event_assign(&ep->flush, env->base, -1, 0, on_flush, ep);
    event_assign(&ep->timer, env->base, -1, 0, on_timer, ep);
    event_add(&ep->rev, NULL);
    recv_buffers(ep);
    return fd;
}

int udp_endpoint_join(struct udp_endpoint *ep)
{
    if (ep->fd < 0 && endpoint_open(ep) < 0) {
        return -1;
    }
    ep->joined++;
    return ep->fd;
}

void udp_endpoint_leave(struct udp_endpoint *ep, struct conn *c)
{
    udp_endpoint_unqueue(ep, c);
    if (ep->joined > 0 && --ep->joined == 0) {
        endpoint_close(ep);
    }
}

/* ---- --udp_timeout ---------------------------------------------------------------------- */

static void arm_timer(struct udp_endpoint *ep, uint64_t now_ns)
{
    uint64_t first = ep->deadline[ep->wait_head];
    struct timeval tv = slap_ns_to_timeval(first > now_ns ? first - now_ns : 0);
    event_add(&ep->timer, &tv);
    ep->timer_armed = true;
}

void udp_endpoint_wait(struct udp_endpoint *ep, uint32_t slot)
{
    uint64_t now = slap_now_ns();
    udp_endpoint_unwait(ep, slot);
    ep->deadline[slot] = now + ep->env->udp_timeout_ns;
    ep->wait_prev[slot] = ep->wait_tail;
    ep->wait_next[slot] = UDP_NONE;
    if (ep->wait_tail != UDP_NONE) {
        ep->wait_next[ep->wait_tail] = slot;
    } else {
        ep->wait_head = slot;
    }
    ep->wait_tail = slot;
    if (!ep->timer_armed) {
        arm_timer(ep, now);
    }
}

void udp_endpoint_unwait(struct udp_endpoint *ep, uint32_t slot)
{
    if (ep->deadline[slot] == 0) {
        return;
    }
    uint32_t prev = ep->wait_prev[slot], next = ep->wait_next[slot];
    if (prev != UDP_NONE) {
        ep->wait_next[prev] = next;
    } else {
        ep->wait_head = next;
    }
    if (next != UDP_NONE) {
        ep->wait_prev[next] = prev;
    } else {
        ep->wait_tail = prev;
    }
    ep->deadline[slot] = 0;
}

/* The first deadline came: give up every request past its own (a slot that sends again goes
 * to the end, with a later deadline), then wait for the next. */
static void on_timer(evutil_socket_t fd, short what, void *arg)
{
    struct udp_endpoint *ep = arg;
    uint64_t now = slap_now_ns();
    (void)fd;
    (void)what;
    ep->timer_armed = false;
    for (uint32_t n = 0; n < ep->nconns && ep->wait_head != UDP_NONE; n++) {
        uint32_t slot = ep->wait_head;
        if (ep->deadline[slot] > now) {
            break;
        }
        udp_endpoint_unwait(ep, slot);
        ep->hooks->expired(ep->conns[slot]);
    }
    if (ep->wait_head != UDP_NONE && !ep->timer_armed && ep->fd >= 0) {
        arm_timer(ep, now);
    }
}

/* ---- sending ---------------------------------------------------------------------------- */

/* Forget queued datagrams first .. first + count - 1; the later ones move down. */
static void queue_drop(struct udp_endpoint *ep, uint32_t first, uint32_t count)
{
    for (uint32_t to = first, from = first + count; from < ep->queued; to++, from++) {
        struct iovec *dst = ep->out_iov + (size_t)to * UDP_DGRAM_IOV;
        size_t niov = ep->out[from].msg_hdr.msg_iovlen;
        memmove(dst, ep->out[from].msg_hdr.msg_iov, niov * sizeof(*dst));
        ep->out[to].msg_hdr = (struct msghdr){.msg_iov = dst, .msg_iovlen = niov};
        ep->out_conn[to] = ep->out_conn[from];
    }
    ep->queued -= count;
}

void udp_endpoint_unqueue(struct udp_endpoint *ep, const struct conn *c)
{
    for (uint32_t i = 0; i < ep->queued; i++) {
        if (ep->out_conn[i] == c) {
            queue_drop(ep, i, 1);
            return;
        }
    }
}

/* The socket failed (an ICMP error: nothing listens there): so did every request out on it. */
static void endpoint_fail(struct udp_endpoint *ep, int err)
{
    char why[128];
    snprintf(why, sizeof(why), "%s", strerror(err));
    for (uint32_t i = 0; i < ep->nconns && ep->fd >= 0; i++) {
        struct conn *c = ep->conns[i];
        if (c != NULL && c->state == CONN_READY && conn_sent_count(c) > 0) {
            conn_fail(c, why);
        }
    }
}

/* Send what is queued, in as few sendmmsg calls as the kernel takes. */
static void endpoint_flush(struct udp_endpoint *ep)
{
    for (uint32_t tries = 0; ep->queued > 0 && ep->fd >= 0; tries++) {
        if (tries > ep->queue_cap + UDP_SEND_RETRIES) {
            ep->queued = 0; /* refused again and again: lost, their requests time out */
            return;
        }
        int sent = sock_sendmmsg(ep->fd, ep->out, ep->queued);
        if (sent > 0) {
            queue_drop(ep, 0, (uint32_t)sent);
        } else if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            ep->write_blocked = true;
            event_add(&ep->wev, NULL);
            return;
        } else if (sent < 0 && errno != EINTR) {
            endpoint_fail(ep, errno);
        }
    }
}

static void on_flush(evutil_socket_t fd, short what, void *arg)
{
    struct udp_endpoint *ep = arg;
    (void)fd;
    (void)what;
    ep->flush_armed = false;
    if (!ep->write_blocked) {
        endpoint_flush(ep);
    }
}

static void on_writable(evutil_socket_t fd, short what, void *arg)
{
    struct udp_endpoint *ep = arg;
    (void)fd;
    (void)what;
    ep->write_blocked = false;
    endpoint_flush(ep);
}

ssize_t udp_endpoint_queue(struct udp_endpoint *ep, struct conn *c, const uint8_t *frame,
                           const struct iovec *iov, int n)
{
    if (ep->queued == ep->queue_cap && !ep->write_blocked) {
        endpoint_flush(ep);
    }
    if (ep->queued == ep->queue_cap) {
        errno = EAGAIN;
        return -1;
    }
    uint32_t at = ep->queued++;
    struct iovec *dst = ep->out_iov + (size_t)at * UDP_DGRAM_IOV;
    size_t bytes = 0;
    dst[0] = (struct iovec){.iov_base = (void *)frame, .iov_len = UDP_HEADER};
    for (int i = 0; i < n; i++) {
        dst[1 + i] = iov[i];
        bytes += iov[i].iov_len;
    }
    ep->out[at].msg_hdr = (struct msghdr){.msg_iov = dst, .msg_iovlen = (size_t)n + 1};
    ep->out_conn[at] = c;
    if (ep->queued == ep->queue_cap && !ep->write_blocked) {
        endpoint_flush(ep); /* full (a socket of its own: at once) */
    } else if (!ep->flush_armed && !ep->write_blocked) {
        ep->flush_armed = true;
        event_active(&ep->flush, EV_WRITE, 1);
    }
    return (ssize_t)bytes;
}

/* ---- receiving -------------------------------------------------------------------------- */

/* The slot of a conn on the socket, for a datagram that names none: it tells what was wrong,
 * once. ep->nconns if there is none. */
static uint32_t any_ready(const struct udp_endpoint *ep)
{
    uint32_t slot = 0;
    while (slot < ep->nconns && (ep->conns[slot] == NULL || ep->conns[slot]->state != CONN_READY)) {
        slot++;
    }
    return slot;
}

/* One datagram to the conn its id names (or, naming none on the socket, to any conn there). */
static void deliver(struct udp_endpoint *ep, const char *data, size_t len, uint64_t now_ns,
                    uint64_t kernel_ns)
{
    uint32_t slot = ep->nconns;
    if (len >= 2) {
        slot = udp_id_slot((uint16_t)((unsigned)(uint8_t)data[0] << 8 | (uint8_t)data[1]),
                           ep->slot_bits);
    }
    if (slot >= ep->nconns || ep->conns[slot] == NULL || ep->conns[slot]->state != CONN_READY) {
        slot = any_ready(ep);
        if (slot == ep->nconns) {
            return;
        }
    }
    if (!ep->touched[slot]) {
        ep->touched[slot] = 1;
        ep->touched_slots[ep->ntouched++] = slot;
    }
    ep->hooks->deliver(ep->conns[slot], data, len, now_ns, kernel_ns);
}

/* The batch is read: each conn that got some of it hears so once, and may send again. */
static void drained(struct udp_endpoint *ep)
{
    for (unsigned i = 0; i < ep->ntouched; i++) {
        uint32_t slot = ep->touched_slots[i];
        struct conn *c = ep->conns[slot];
        ep->touched[slot] = 0;
        if (c != NULL && c->state == CONN_READY) { /* not closed by what came */
            c->env->ops->drained(c);
        }
    }
    ep->ntouched = 0;
}

/* --timestamps=kernel: each datagram's room for its stamp, which a read uses up. */
static void control_room(struct udp_endpoint *ep)
{
    for (unsigned i = 0; i < ep->recv_batch; i++) {
        ep->in[i].msg_hdr.msg_control = ep->in_control[i].bytes;
        ep->in[i].msg_hdr.msg_controllen = sizeof(ep->in_control[i].bytes);
    }
}

/* The i-th datagram's arrival in slap's clock, or 0 without stamps (said once per conn). */
static uint64_t arrival(struct udp_endpoint *ep, int i, uint64_t now_ns)
{
    if (ep->env->clock == NULL) {
        return 0;
    }
    uint64_t stamp = stamp_of(&ep->in[i].msg_hdr);
    return stamp != 0 ? stamp_in_clock(ep->env->clock, stamp, now_ns) : 0;
}

void udp_endpoint_read(struct udp_endpoint *ep)
{
    for (int round = 0; round < UDP_RECV_ROUNDS && ep->fd >= 0; round++) {
        if (ep->env->clock != NULL) {
            control_room(ep);
        }
        int got = sock_recvmmsg(ep->fd, ep->in, ep->recv_batch);
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                endpoint_fail(ep, errno); /* e.g. ECONNREFUSED: no UDP port there */
            }
            return;
        }
        uint64_t now = slap_now_ns();
        /* what this batch sends times out from now, not from the loop's turn, which a long
         * drain leaves behind */
        event_base_update_cache_time(ep->env->base);
        for (int i = 0; i < got && ep->fd >= 0; i++) {
            deliver(ep, ep->in_iov[i].iov_base, ep->in[i].msg_len, now, arrival(ep, i, now));
        }
        drained(ep);
        if ((unsigned)got < ep->recv_batch) {
            return;
        }
    }
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    udp_endpoint_read(arg);
}
