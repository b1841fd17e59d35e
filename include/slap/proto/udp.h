/* memcached's UDP frame: the 8-byte header, and reassembly of a response's datagrams. */
#ifndef SLAP_UDP_H
#define SLAP_UDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slap/base/common.h"

#define UDP_HEADER 8
#define UDP_MAX_DATAGRAM 1400 /* memcached sends at most this many payload bytes a datagram */
#define UDP_MAX_REQUEST 1400  /* slap sends a request in one datagram of at most this payload */

/*
 * Request ids of a socket that several conns share (at most UDP_ID_SLOTS_MAX): the low slot_bits
 * of an id name the conn's slot, so an answer finds its conn without a table, and ids of
 * different slots never meet; the high bits count that conn's requests, so the answer to an
 * earlier request of the same conn is told apart (for 2^(16 - slot_bits) of its requests).
 * With slot_bits 0 (a socket of its own) the whole id counts, as memaslap's do.
 */
#define UDP_ID_SLOTS_MAX 1024u
/* The bits that number slots 0 .. slots - 1 (0 for one slot); slots <= UDP_ID_SLOTS_MAX. */
uint8_t udp_id_slot_bits(uint32_t slots);
/* The id of a slot's next request after id: the same slot, the count one up (wrapping). */
static inline uint16_t udp_id_next(uint16_t id, uint8_t slot_bits)
{
    return (uint16_t)(id + (1u << slot_bits));
}
/* The slot an id names. */
static inline uint32_t udp_id_slot(uint16_t id, uint8_t slot_bits)
{
    return (uint32_t)id & ((1u << slot_bits) - 1u);
}

/* Header: request id, sequence number, datagrams in the message, 0 (all big-endian u16). */
void udp_frame_encode(uint8_t *out, uint16_t request_id, uint16_t seq, uint16_t total);
/* SLAP_OK and the fields, or SLAP_ERROR if len < 8, total is 0, seq >= total or reserved != 0. */
enum slap_status udp_frame_decode(const uint8_t *dgram, size_t len, uint16_t *request_id,
                                  uint16_t *seq, uint16_t *total);

/*
 * Reassembly of the answer to one request id. The answer is one or more
 * messages (memcached 1.6 answers a multi-get with several messages sharing the
 * id, each seq 0 of total 1); a message is total datagrams, seq 0..total-1, that
 * may arrive in any order and are put back in order. The caller owns buf (cap
 * bytes, enough for the largest answer) and feeds whole messages to a parser.
 */
struct udp_reasm {
    uint16_t request_id;
    uint16_t total;    /* datagrams of the message being gathered; 0 if none yet */
    uint16_t received; /* of them */
    uint16_t next_seq; /* the seq expected next if they came in order */
    uint8_t *seen;     /* per seq: 1 once received (cap / UDP_MAX_DATAGRAM + 1 entries) */
    uint32_t *lens;    /* per seq: payload bytes */
    char *buf;         /* payloads, datagram seq at buf + seq * UDP_MAX_DATAGRAM */
    size_t cap;
    bool own_buf;        /* buf was made by udp_reasm_init (else it is the caller's) */
    uint64_t disorder;   /* datagrams whose seq is lower than one already received */
    uint64_t duplicates; /* a seq received twice */
    uint64_t stale;      /* datagrams of another request id (late answers), ignored */
    const char *why;     /* what was wrong with the last datagram refused (SLAP_ERROR) */
};

/* Allocate for answers up to cap bytes. SLAP_OK or SLAP_ERROR. */
enum slap_status udp_reasm_init(struct udp_reasm *r, size_t cap);
/* The same with buf (cap bytes) the caller's, kept until after udp_reasm_free (which leaves
 * it): conns sharing a socket take their slices of one slab, whose pages a one-datagram
 * answer (handed out where it lies) never touches. */
enum slap_status udp_reasm_init_in(struct udp_reasm *r, size_t cap, char *buf);
void udp_reasm_free(struct udp_reasm *r);
/* Expect the answer to request_id from now on (drops anything gathered). */
void udp_reasm_start(struct udp_reasm *r, uint16_t request_id);
/*
 * Add one datagram. SLAP_OK: a message is complete; *msg and *msg_len give its
 * payload in order (valid until the next call, and while dgram is: a message of one
 * datagram is handed out where it lies, not copied), and the next datagram with
 * this id starts a new message. SLAP_AGAIN: not complete (or the datagram was
 * stale or a duplicate). SLAP_ERROR: not a memcached UDP frame, or a message
 * too big for cap.
 */
enum slap_status udp_reasm_add(struct udp_reasm *r, const uint8_t *dgram, size_t len,
                               const char **msg, size_t *msg_len);
/* Datagrams of the current message still missing (for packet_drop at a time-out). */
uint32_t udp_reasm_missing(const struct udp_reasm *r);

#endif
