/* libFuzzer target: the UDP reassembler stays in bounds and agrees with a plain model of it. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/proto/udp.h"

/*
 * Input: 2 bytes pick cap, 2 bytes the request id, then records until the input ends:
 *   0xff, id_hi, id_lo          -> udp_reasm_start(id)
 *   len (< 0xff), ctl, len bytes -> one datagram, then (ctl & 0x0f) * 100 filler bytes, so
 *                                   payloads reach past UDP_MAX_DATAGRAM. If ctl & 0x80, the
 *                                   len bytes are the payload behind a well-formed header:
 *                                   the current id, total 1 + (ctl >> 4 & 7), seq from the
 *                                   first byte; else they are the datagram as it is.
 */
#define CAP_SPAN (16u * UDP_MAX_DATAGRAM)
#define MODEL_SLOTS ((UDP_MAX_DATAGRAM + CAP_SPAN) / UDP_MAX_DATAGRAM + 1)
#define RESTART_MARK 0xffu
#define WELL_FORMED 0x80u
#define FILLER_UNIT 100u
#define DGRAM_MAX (UDP_HEADER + RESTART_MARK + 15u * FILLER_UNIT)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the reassembler should do, kept the simplest way. */
struct model {
    size_t cap;
    unsigned request_id;
    unsigned total; /* 0: no message */
    unsigned received;
    long highest_seq; /* -1: none yet */
    bool seen[MODEL_SLOTS];
    size_t lens[MODEL_SLOTS];
    uint8_t pieces[MODEL_SLOTS][UDP_MAX_DATAGRAM];
    uint8_t message[MODEL_SLOTS * UDP_MAX_DATAGRAM];
    size_t message_len;
    uint64_t disorder, duplicates, stale;
};

static struct model model;
static uint8_t dgram[DGRAM_MAX];

static void check(int ok)
{
    if (!ok) {
        __builtin_trap();
    }
}

static void model_forget(struct model *m)
{
    m->total = 0;
    m->received = 0;
    m->highest_seq = -1;
    memset(m->seen, 0, sizeof(m->seen));
}

/* The model's verdict on one datagram: SLAP_OK (message in m->message), AGAIN or ERROR. */
static int model_add(struct model *m, const uint8_t *d, size_t len)
{
    if (len == 8 && d[2] == 0 && d[3] == 0 && d[4] == 0 && d[5] == 0 && d[6] == 0 && d[7] == 0) {
        return SLAP_AGAIN; /* memcached's empty message: a header alone, seq 0, total 0 */
    }
    if (len < 8) {
        return SLAP_ERROR;
    }
    unsigned id = d[0] * 256u + d[1], seq = d[2] * 256u + d[3], total = d[4] * 256u + d[5];
    if (total == 0 || seq >= total || d[6] != 0 || d[7] != 0) {
        return SLAP_ERROR;
    }
    if (id != m->request_id) {
        m->stale++;
        return SLAP_AGAIN;
    }
    if (len - 8 > UDP_MAX_DATAGRAM || (m->total != 0 && total != m->total) ||
        (m->total == 0 && total * (size_t)UDP_MAX_DATAGRAM > m->cap)) {
        return SLAP_ERROR;
    }
    if (m->seen[seq]) {
        m->duplicates++;
        return SLAP_AGAIN;
    }
    m->disorder += (long)seq < m->highest_seq;
    m->highest_seq = (long)seq > m->highest_seq ? (long)seq : m->highest_seq;
    m->total = total;
    m->seen[seq] = true;
    m->lens[seq] = len - 8;
    memcpy(m->pieces[seq], d + 8, len - 8);
    if (++m->received < total) {
        return SLAP_AGAIN;
    }
    m->message_len = 0;
    for (unsigned i = 0; i < total; i++) {
        memcpy(m->message + m->message_len, m->pieces[i], m->lens[i]);
        m->message_len += m->lens[i];
    }
    model_forget(m);
    return SLAP_OK;
}

/* The reassembler's own bookkeeping holds together and matches the model. */
static void check_state(const struct udp_reasm *r, const struct model *m)
{
    check(r->total == m->total && r->received == m->received);
    check(r->received <= r->total);
    check(udp_reasm_missing(r) == (uint32_t)(r->total - r->received));
    check(r->total == 0 || (size_t)r->total * UDP_MAX_DATAGRAM <= r->cap);
    check(r->next_seq == (uint16_t)(m->highest_seq + 1));
    unsigned seen = 0;
    for (size_t i = 0; i < r->cap / UDP_MAX_DATAGRAM + 1; i++) {
        check(r->seen[i] <= 1);
        check(i < r->total || r->seen[i] == 0);
        seen += r->seen[i];
    }
    check(seen == r->received);
    check(r->disorder == m->disorder && r->duplicates == m->duplicates && r->stale == m->stale);
}

static void feed(struct udp_reasm *r, size_t len)
{
    const char *msg = NULL;
    size_t msg_len = SIZE_MAX;
    uint64_t events_before = r->disorder + r->duplicates + r->stale;
    int status = udp_reasm_add(r, dgram, len, &msg, &msg_len);
    check(status == model_add(&model, dgram, len));
    check(r->disorder + r->duplicates + r->stale >= events_before);
    if (status == SLAP_OK) {
        bool one_datagram = dgram[4] == 0 && dgram[5] == 1; /* handed out where it lies */
        check(msg == (one_datagram ? (const char *)dgram + UDP_HEADER : r->buf));
        check(msg_len <= r->cap && msg_len == model.message_len);
        check(memcmp(msg, model.message, msg_len) == 0);
    } else {
        check(msg == NULL && msg_len == SIZE_MAX);
    }
    check_state(r, &model);
}

/* Build the next datagram from the record at data; returns the bytes the record used. */
static size_t next_record(struct udp_reasm *r, const uint8_t *data, size_t size)
{
    if (data[0] == RESTART_MARK) {
        if (size < 3) {
            return size;
        }
        udp_reasm_start(r, (uint16_t)(data[1] << 8 | data[2]));
        model.request_id = data[1] * 256u + data[2];
        model_forget(&model);
        check_state(r, &model);
        return 3;
    }
    if (size < 2) {
        return size;
    }
    size_t head = data[0] < size - 2 ? data[0] : size - 2;
    unsigned ctl = data[1];
    size_t at = 0;
    if (ctl & WELL_FORMED) {
        uint16_t total = (uint16_t)(1u + (ctl >> 4 & 7u));
        uint16_t seq = (uint16_t)(head > 0 ? data[2] % total : 0);
        udp_frame_encode(dgram, r->request_id, seq, total);
        at = UDP_HEADER;
    }
    memcpy(dgram + at, data + 2, head);
    at += head;
    for (size_t i = 0; i < (ctl & 0x0fu) * FILLER_UNIT; i++) {
        dgram[at++] = (uint8_t)(i * 13u + ctl);
    }
    feed(r, at);
    return 2 + head;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct udp_reasm r;
    if (size < 4) {
        return 0;
    }
    size_t cap = UDP_MAX_DATAGRAM + (size_t)(data[0] << 8 | data[1]) % CAP_SPAN;
    check(udp_reasm_init(&r, cap) == SLAP_OK);
    memset(&model, 0, sizeof(model));
    model.cap = cap;
    model_forget(&model);
    udp_reasm_start(&r, (uint16_t)(data[2] << 8 | data[3]));
    model.request_id = data[2] * 256u + data[3];

    for (size_t at = 4; at < size;) {
        at += next_record(&r, data + at, size - at);
    }
    udp_reasm_free(&r);
    return 0;
}
