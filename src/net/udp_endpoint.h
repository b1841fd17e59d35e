/* One UDP socket shared by conns: what transport_udp.c asks of it, and what it offers back. */
#ifndef SLAP_UDP_ENDPOINT_H
#define SLAP_UDP_ENDPOINT_H

#include <event2/event.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "slap/net/conn.h"

#define UDP_REQUEST_IOV 3 /* iovecs of one request (conn.c's gather): header, value, "\r\n" */

struct udp_endpoint;

/* What the socket hands back to its conns' transport (transport_udp.c's; given at attach, so
 * that the endpoint depends on no transport). */
struct udp_endpoint_hooks {
    /* One datagram for c (of its request id, or one no conn of the socket waits for, or
     * broken); the endpoint calls ops->drained once c's part of the batch is read. */
    void (*deliver)(struct conn *c, const char *data, size_t len, uint64_t now_ns,
                    uint64_t kernel_ns);
    /* c's answer has not come whole within --udp_timeout. */
    void (*expired)(struct conn *c);
};

/* A slot for c on the socket of its env's set for server (or, with no set or no room there,
 * on a socket of its own: *own), whose datagrams and time-outs go to hooks. NULL if out of
 * memory. */
struct udp_endpoint *udp_endpoint_attach(struct conn *c, uint32_t server, uint32_t *slot, bool *own,
                                         const struct udp_endpoint_hooks *hooks);
/* Room for the slot's answers of several datagrams (bytes of it; the same for every slot),
 * kept until the socket is freed, or NULL (then the conn makes its own). */
char *udp_endpoint_reasm_buf(struct udp_endpoint *ep, uint32_t slot, size_t bytes);
/* Give the slot back (and free a socket of its own). */
void udp_endpoint_detach(struct udp_endpoint *ep, uint32_t slot, bool own);
/* c joins the socket, which the first to join opens and connects: its fd, or -1 with errno. */
int udp_endpoint_join(struct udp_endpoint *ep);
/* c leaves it: its datagram, if still queued, is not sent; the last to leave closes it. */
void udp_endpoint_leave(struct udp_endpoint *ep, struct conn *c);
/* The bits of a request id that name the slot (udp_id_slot). */
uint8_t udp_endpoint_slot_bits(const struct udp_endpoint *ep);
/* The slot's request went out: it is given up (hooks->expired) --udp_timeout from now,
 * unless udp_endpoint_unwait comes first. */
void udp_endpoint_wait(struct udp_endpoint *ep, uint32_t slot);
void udp_endpoint_unwait(struct udp_endpoint *ep, uint32_t slot);
/*
 * Queue c's request (the frame header, then n iovecs, all kept valid until it is sent or
 * unqueued) for the next sendmmsg: at the end of this turn of the loop, or now if the queue
 * is full. Its bytes (without the header), or -1 with errno (EAGAIN: the kernel has no room).
 */
ssize_t udp_endpoint_queue(struct udp_endpoint *ep, struct conn *c, const uint8_t *frame,
                           const struct iovec *iov, int n);
/* c's datagram, if queued, will not be sent. */
void udp_endpoint_unqueue(struct udp_endpoint *ep, const struct conn *c);
/* Take what the socket holds now, handing each datagram to its conn. */
void udp_endpoint_read(struct udp_endpoint *ep);

#endif
