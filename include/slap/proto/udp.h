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
    uint16_t total;          /* datagrams of the message being gathered; 0 if none yet */
    uint16_t received;       /* of them */
    uint16_t next_seq;       /* the seq expected next if they came in order */
    uint8_t *seen;           /* per seq: 1 once received (cap / UDP_MAX_DATAGRAM + 1 entries) */
    uint32_t *lens;          /* per seq: payload bytes */
    char *buf;               /* payloads, datagram seq at buf + seq * UDP_MAX_DATAGRAM */
    size_t cap;
    uint64_t disorder;       /* datagrams whose seq is lower than one already received */
    uint64_t duplicates;     /* a seq received twice */
    uint64_t stale;          /* datagrams of another request id (late answers), ignored */
    const char *why;         /* what was wrong with the last datagram refused (SLAP_ERROR) */
};

/* Allocate for answers up to cap bytes. SLAP_OK or SLAP_ERROR. */
enum slap_status udp_reasm_init(struct udp_reasm *r, size_t cap);
void udp_reasm_free(struct udp_reasm *r);
/* Expect the answer to request_id from now on (drops anything gathered). */
void udp_reasm_start(struct udp_reasm *r, uint16_t request_id);
/*
 * Add one datagram. SLAP_OK: a message is complete; *msg and *msg_len give its
 * payload in order (valid until the next call), and the next datagram with
 * this id starts a new message. SLAP_AGAIN: not complete (or the datagram was
 * stale or a duplicate). SLAP_ERROR: not a memcached UDP frame, or a message
 * too big for cap.
 */
enum slap_status udp_reasm_add(struct udp_reasm *r, const uint8_t *dgram, size_t len,
                               const char **msg, size_t *msg_len);
/* Datagrams of the current message still missing (for packet_drop at a time-out). */
uint32_t udp_reasm_missing(const struct udp_reasm *r);

#endif
