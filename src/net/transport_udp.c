/* The UDP transport (-U; -a for gets): memcached's frame on each request, answers reassembled. */
#include "transport.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "slap/proto/udp.h"
#include "udp_endpoint.h"

/*
 * A conn's requests go out, and its answers come in, on the socket its thread shares with its
 * other conns to the same server (udp_endpoint.c): its slot there is in the low bits of its
 * request ids. Without the thread's set of sockets (a conn made alone, as the unit tests
 * make it) it has a socket of its own, through the same code.
 */

/* What a datagram conn keeps for its life, made by udp_attach (memory per connection is what
 * limits -c: only UDP conns pay for it). */
struct conn_dgram {
    struct udp_endpoint *ep;   /* its socket */
    uint32_t slot;             /* its slot there */
    bool own_ep;               /* a socket of its own, freed with it */
    uint16_t request_id;       /* the id of its latest request */
    uint8_t frame[UDP_HEADER]; /* its frame header */
    struct udp_reasm reasm;    /* its answer's datagrams */
    uint64_t disorder_seen;    /* reasm.disorder already counted */
    uint64_t stale_seen;       /* reasm.stale and reasm.duplicates already told */
    uint64_t duplicates_seen;
};

static void transport_udp_deliver(struct conn *c, const char *data, size_t len, uint64_t now_ns,
                                  uint64_t kernel_ns);
static void transport_udp_expired(struct conn *c);
/* What the shared socket hands back: a datagram, a request given up. */
static const struct udp_endpoint_hooks udp_hooks = {transport_udp_deliver, transport_udp_expired};

static enum slap_status udp_attach(struct conn *c, const struct conn_setup *setup)
{
    struct conn_dgram *d = calloc(1, sizeof(*d));
    c->dgram = d;
    if (d == NULL) {
        return SLAP_ERROR;
    }
    d->ep = udp_endpoint_attach(c, setup->server, &d->slot, &d->own_ep, &udp_hooks);
    if (d->ep == NULL) {
        return SLAP_ERROR;
    }
    d->request_id = (uint16_t)d->slot; /* its first request counts one up */
    char *buf = udp_endpoint_reasm_buf(d->ep, d->slot, setup->udp_answer_cap);
    return buf != NULL ? udp_reasm_init_in(&d->reasm, setup->udp_answer_cap, buf)
                       : udp_reasm_init(&d->reasm, setup->udp_answer_cap);
}

/* No --udp_timeout for it any more (answered, given up, closed). */
static void udp_stop_timer(struct conn_dgram *d)
{
    udp_endpoint_unwait(d->ep, d->slot);
}

static void udp_detach(struct conn *c)
{
    struct conn_dgram *d = c->dgram;
    if (d != NULL) {
        udp_reasm_free(&d->reasm);
        if (d->ep != NULL) {
            udp_stop_timer(d);
            udp_endpoint_detach(d->ep, d->slot, d->own_ep);
        }
        free(d);
        c->dgram = NULL;
    }
}

static int udp_join(struct conn *c)
{
    return udp_endpoint_join(c->dgram->ep);
}

static enum slap_status udp_handshake(struct conn *c, int *want_write, char *err, size_t err_len)
{
    (void)c;
    (void)want_write;
    (void)err;
    (void)err_len;
    return SLAP_OK; /* nothing to agree on */
}

/* Forget the request in flight, whose answer did not come whole or came wrong; its late
 * datagrams are stale from now on. The socket goes on with the next request. */
static void udp_give_up(struct conn *c)
{
    struct conn_dgram *d = c->dgram;
    udp_stop_timer(d);
    udp_endpoint_unqueue(d->ep, c);
    udp_reasm_start(&d->reasm, udp_id_next(d->request_id, udp_endpoint_slot_bits(d->ep)));
    conn_give_up(c);
}

/* The answer did not come whole in time: count it, forget the request, go on. */
static void transport_udp_expired(struct conn *c)
{
    struct slap_counters *k = c->env->counters;
    uint32_t missing = udp_reasm_missing(&c->dgram->reasm);
    k->udp_timeout++;
    k->packet_drop += missing > 0 ? missing : 1;
    c->env->ops->fault(c, c->env->udp_timeout_fault,
                       "given up (datagrams lost, late or cut short)");
    udp_give_up(c);
    c->env->ops->drained(c);
}

/* A request went out: gather its answer and give it --udp_timeout to come. */
static void udp_sent(struct conn *c)
{
    struct conn_dgram *d = c->dgram;
    udp_reasm_start(&d->reasm, d->request_id);
    udp_endpoint_wait(d->ep, d->slot);
}

/*
 * One request (requests_per_write is 1) in one datagram, behind a frame header of a new id,
 * queued on the shared socket: it goes with the others of this turn of the loop.
 */
static ssize_t udp_writev(struct conn *c, const struct iovec *iov, int n)
{
    struct conn_dgram *d = c->dgram;
    if (n > UDP_REQUEST_IOV) {
        errno = EMSGSIZE;
        return -1;
    }
    uint16_t id = udp_id_next(d->request_id, udp_endpoint_slot_bits(d->ep));
    udp_frame_encode(d->frame, id, 0, 1);
    ssize_t done = udp_endpoint_queue(d->ep, c, d->frame, iov, n);
    if (done < 0) {
        return -1;
    }
    d->request_id = id;
    c->env->counters->written_bytes += UDP_HEADER;
    udp_sent(c);
    return done;
}

/* One whole message of the answer, after any partial line carried from the last. */
static enum slap_status udp_message(struct conn *c, const char *msg, size_t len, uint64_t now_ns,
                                    uint64_t kernel_ns)
{
    char *ubuf = c->env->ubuf;
    if (c->carry_len == 0) {
        return conn_parse(c, msg, len, now_ns, kernel_ns);
    }
    memcpy(ubuf, c->carry, c->carry_len);
    memcpy(ubuf + c->carry_len, msg, len);
    return conn_parse(c, ubuf, c->carry_len + len, now_ns, kernel_ns);
}

/* One datagram of the answer; SLAP_ERROR if the socket closed while parsing. An answer is
 * timed by the datagram that made it whole. */
static enum slap_status udp_datagram(struct conn *c, const char *data, size_t n, uint64_t now_ns,
                                     uint64_t kernel_ns)
{
    struct slap_counters *k = c->env->counters;
    struct conn_dgram *d = c->dgram;
    const char *msg;
    size_t len;
    k->read_bytes += (uint64_t)n;
    int rc = udp_reasm_add(&d->reasm, (const uint8_t *)data, n, &msg, &len);
    k->packet_disorder += d->reasm.disorder - d->disorder_seen;
    d->disorder_seen = d->reasm.disorder;
    if (rc == SLAP_ERROR) {
        k->protocol_error++;
        c->env->ops->fault(c, "bad UDP datagram", d->reasm.why);
        return SLAP_OK;
    }
    if (d->reasm.stale != d->stale_seen) {
        d->stale_seen = d->reasm.stale;
        c->env->ops->fault(c, "UDP datagram of an unknown request id",
                           "ignored (a late answer, or not ours)");
    }
    if (d->reasm.duplicates != d->duplicates_seen) {
        d->duplicates_seen = d->reasm.duplicates;
        c->env->ops->fault(c, "duplicated UDP datagram", "ignored");
    }
    return rc == SLAP_OK ? udp_message(c, msg, len, now_ns, kernel_ns) : SLAP_OK;
}

static void transport_udp_deliver(struct conn *c, const char *data, size_t len, uint64_t now_ns,
                                  uint64_t kernel_ns)
{
    /* SLAP_ERROR: c closed (the owner heard) */
    (void)udp_datagram(c, data, len, now_ns, kernel_ns);
}

/* The shared socket's own event reads it; this is for a caller that asks all the same. */
static void udp_readable(struct conn *c)
{
    udp_endpoint_read(c->dgram->ep);
}

/* Its answer has come: no time-out for it any more. */
static void udp_answered(struct conn *c)
{
    udp_stop_timer(c->dgram);
}

/* Each answer comes on its own: one to no request (a duplicate, or one late after its
 * request was given up) is told and dropped, and the socket goes on. */
static enum slap_status udp_unasked(struct conn *c, const struct proto_result *res)
{
    (void)res;
    c->env->ops->fault(c, "UDP answer to no request", "ignored (a duplicated or late one)");
    return SLAP_OK;
}

/* Datagrams are separate: a bad answer costs its request, not the socket. */
static enum slap_status udp_garbled(struct conn *c, const char *why)
{
    (void)why;
    c->env->ops->fault(c, "bad UDP answer", "not a memcached response: its request is given up");
    udp_give_up(c);
    return SLAP_OK;
}

/* --timeout is not for UDP: each request has its own --udp_timeout, which gives it up. */
static void udp_late(struct conn *c)
{
    (void)c;
}

static void udp_close(struct conn *c)
{
    udp_stop_timer(c->dgram);
    udp_endpoint_leave(c->dgram->ep, c);
}

const struct conn_transport transport_udp = {
    .name = "UDP",
    .open = NULL, /* the socket is shared: joined */
    .join = udp_join,
    .attach = udp_attach,
    .detach = udp_detach,
    .handshake = udp_handshake,
    .readable = udp_readable,
    .read = NULL, /* datagrams are taken by udp_readable */
    .writev = udp_writev,
    .answered = udp_answered,
    .unasked = udp_unasked,
    .garbled = udp_garbled,
    .late = udp_late,
    .close = udp_close,
    .requests_per_write = 1,
    .read_until_again = false,
};
