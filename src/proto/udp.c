/* memcached's UDP frame header, and reassembly of an answer's datagrams into whole messages. */
#include "slap/proto/udp.h"

#include <stdlib.h>
#include <string.h>

#include "slap/base/common.h"

/*
 * Reassembly of one message (all datagrams share r->request_id and r->total):
 *
 *   datagram --> header alone, seq 0 total 0 (memcached's empty message) -> ignored
 *            --decode--> other id?  -> stale++, ignored
 *                        too long / total * UDP_MAX_DATAGRAM > cap / total changed -> SLAP_ERROR
 *                        seq seen?  -> duplicates++, ignored
 *                        else copy payload to buf + seq * UDP_MAX_DATAGRAM
 *                             (disorder++ if a higher seq came first)
 *                             (a message of one datagram is handed out where it lies)
 *   received == total  -> compact the pieces to the front of buf, hand them out,
 *                         forget the message (the next datagram starts a new one)
 *
 * A rejected datagram (SLAP_ERROR) leaves the message in progress as it was.
 */

#define RESERVED_OFFSET 6

static void put_be16(uint8_t *out, uint16_t value)
{
    out[0] = (uint8_t)(value >> 8);
    out[1] = (uint8_t)(value & 0xffu);
}

static uint16_t get_be16(const uint8_t *in)
{
    return (uint16_t)((unsigned)in[0] << 8 | (unsigned)in[1]);
}

void udp_frame_encode(uint8_t *out, uint16_t request_id, uint16_t seq, uint16_t total)
{
    put_be16(out, request_id);
    put_be16(out + 2, seq);
    put_be16(out + 4, total);
    put_be16(out + RESERVED_OFFSET, 0);
}

enum slap_status udp_frame_decode(const uint8_t *dgram, size_t len, uint16_t *request_id,
                                  uint16_t *seq, uint16_t *total)
{
    if (len < UDP_HEADER) {
        return SLAP_ERROR;
    }
    uint16_t frame_seq = get_be16(dgram + 2);
    uint16_t frame_total = get_be16(dgram + 4);
    if (frame_total == 0 || frame_seq >= frame_total || get_be16(dgram + RESERVED_OFFSET) != 0) {
        return SLAP_ERROR;
    }
    *request_id = get_be16(dgram);
    *seq = frame_seq;
    *total = frame_total;
    return SLAP_OK;
}

uint8_t udp_id_slot_bits(uint32_t slots)
{
    uint8_t bits = 0;
    while (bits < 16 && (1u << bits) < slots) {
        bits++;
    }
    return bits;
}

/* Entries of seen and lens: enough for every total that passes the cap check. */
static size_t slot_count(size_t cap)
{
    return cap / UDP_MAX_DATAGRAM + 1;
}

enum slap_status udp_reasm_init_in(struct udp_reasm *r, size_t cap, char *buf)
{
    memset(r, 0, sizeof(*r));
    if (cap < UDP_MAX_DATAGRAM || buf == NULL) {
        return SLAP_ERROR; /* not even a one-datagram message would fit */
    }
    r->seen = calloc(slot_count(cap), sizeof(*r->seen));
    r->lens = calloc(slot_count(cap), sizeof(*r->lens));
    if (r->seen == NULL || r->lens == NULL) {
        udp_reasm_free(r);
        return SLAP_ERROR;
    }
    r->buf = buf;
    r->cap = cap;
    return SLAP_OK;
}

enum slap_status udp_reasm_init(struct udp_reasm *r, size_t cap)
{
    char *buf = cap >= UDP_MAX_DATAGRAM ? malloc(cap) : NULL;
    if (udp_reasm_init_in(r, cap, buf) != SLAP_OK) {
        free(buf);
        return SLAP_ERROR;
    }
    r->own_buf = true;
    return SLAP_OK;
}

void udp_reasm_free(struct udp_reasm *r)
{
    free(r->seen);
    free(r->lens);
    if (r->own_buf) {
        free(r->buf);
    }
    r->seen = NULL;
    r->lens = NULL;
    r->buf = NULL;
    r->own_buf = false;
    r->cap = 0;
    r->total = 0;
    r->received = 0;
    r->next_seq = 0;
}

/* Forget the message in progress; buf keeps its bytes (a returned message stays readable). */
static void forget_message(struct udp_reasm *r)
{
    if (r->total > 0) {
        memset(r->seen, 0, r->total * sizeof(*r->seen));
    }
    r->total = 0;
    r->received = 0;
    r->next_seq = 0;
}

void udp_reasm_start(struct udp_reasm *r, uint16_t request_id)
{
    forget_message(r);
    r->request_id = request_id;
}

/* SLAP_OK if a datagram of total datagrams belongs to (or may open) the current message. */
static enum slap_status check_total(const struct udp_reasm *r, uint16_t total)
{
    if (r->total != 0) {
        return total == r->total ? SLAP_OK : SLAP_ERROR;
    }
    return (size_t)total * UDP_MAX_DATAGRAM <= r->cap ? SLAP_OK : SLAP_ERROR;
}

/* Copy a new datagram's payload into its slot and count it. */
static void place(struct udp_reasm *r, uint16_t seq, uint16_t total, const uint8_t *payload,
                  size_t payload_len)
{
    r->total = total;
    if (seq < r->next_seq) {
        r->disorder++;
    } else {
        r->next_seq = (uint16_t)(seq + 1u);
    }
    memcpy(r->buf + (size_t)seq * UDP_MAX_DATAGRAM, payload, payload_len);
    r->lens[seq] = (uint32_t)payload_len;
    r->seen[seq] = 1;
    r->received++;
}

/*
 * memcached 1.6 opens the answer to a multi-get whose first keys miss with a header alone,
 * seq 0 and total 0: a message of no bytes, not a broken frame.
 */
static bool is_empty_message(const uint8_t *dgram, size_t len)
{
    return len == UDP_HEADER && get_be16(dgram + 2) == 0 && get_be16(dgram + 4) == 0 &&
           get_be16(dgram + RESERVED_OFFSET) == 0;
}

/* Slide every piece down behind the previous one; returns the message length. */
static size_t compact(struct udp_reasm *r)
{
    size_t msg_len = r->lens[0];
    for (uint16_t seq = 1; seq < r->total; seq++) {
        memmove(r->buf + msg_len, r->buf + (size_t)seq * UDP_MAX_DATAGRAM, r->lens[seq]);
        msg_len += r->lens[seq];
    }
    return msg_len;
}

enum slap_status udp_reasm_add(struct udp_reasm *r, const uint8_t *dgram, size_t len,
                               const char **msg, size_t *msg_len)
{
    uint16_t request_id, seq, total;
    if (is_empty_message(dgram, len)) {
        return SLAP_AGAIN;
    }
    if (udp_frame_decode(dgram, len, &request_id, &seq, &total) != SLAP_OK) {
        r->why = len < UDP_HEADER ? "a datagram shorter than the 8-byte frame header"
                                  : "a frame header with total 0, seq not below total, or "
                                    "reserved bytes set";
        return SLAP_ERROR;
    }
    if (request_id != r->request_id) {
        r->stale++;
        return SLAP_AGAIN;
    }
    size_t payload_len = len - UDP_HEADER;
    if (payload_len > UDP_MAX_DATAGRAM) {
        r->why = "a datagram longer than memcached sends (1400 bytes after the header)";
        return SLAP_ERROR;
    }
    if (check_total(r, total) != SLAP_OK) {
        r->why = r->total != 0 ? "datagrams of one message that disagree on their total"
                               : "a message of more datagrams than any answer can have";
        return SLAP_ERROR;
    }
    if (r->seen[seq]) {
        r->duplicates++;
        return SLAP_AGAIN;
    }
    if (total == 1) { /* a message of one datagram, the usual answer: no copy */
        *msg = (const char *)dgram + UDP_HEADER;
        *msg_len = payload_len;
        return SLAP_OK;
    }
    place(r, seq, total, dgram + UDP_HEADER, payload_len);
    if (r->received < r->total) {
        return SLAP_AGAIN;
    }
    *msg_len = compact(r);
    *msg = r->buf;
    forget_message(r);
    return SLAP_OK;
}

uint32_t udp_reasm_missing(const struct udp_reasm *r)
{
    return r->total > 0 ? (uint32_t)(r->total - r->received) : 0u;
}
