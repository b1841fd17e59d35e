/* Unit tests of the UDP frame header, the ids of a shared socket, and datagram reassembly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "slap/base/common.h"
#include "slap/proto/udp.h"

#define PIECES 5
#define ORDERS 120 /* 5! */
#define REQUEST_ID 0x1234u
#define OTHER_ID 0x4321u
#define CAP (8u * UDP_MAX_DATAGRAM)
#define DGRAM_MAX (UDP_HEADER + UDP_MAX_DATAGRAM + 1)

/* A datagram built by the tests: header plus payload. */
struct dgram {
    uint8_t bytes[DGRAM_MAX];
    size_t len;
};

/* Header (request_id, seq, total) and payload_len bytes of a pattern that marks their position. */
static void build(struct dgram *d, uint16_t request_id, uint16_t seq, uint16_t total,
                  size_t payload_len, uint8_t salt)
{
    udp_frame_encode(d->bytes, request_id, seq, total);
    for (size_t i = 0; i < payload_len; i++) {
        d->bytes[UDP_HEADER + i] = (uint8_t)(i * 7u + seq * 31u + salt);
    }
    d->len = UDP_HEADER + payload_len;
}

/* Like build, with a text payload. */
static void build_text(struct dgram *d, uint16_t request_id, uint16_t seq, uint16_t total,
                       const char *text)
{
    udp_frame_encode(d->bytes, request_id, seq, total);
    memcpy(d->bytes + UDP_HEADER, text, strlen(text));
    d->len = UDP_HEADER + strlen(text);
}

static int add(struct udp_reasm *r, const struct dgram *d, const char **msg, size_t *msg_len)
{
    return udp_reasm_add(r, d->bytes, d->len, msg, msg_len);
}

static int setup_reasm(void **state)
{
    struct udp_reasm *r = malloc(sizeof(*r));
    if (r == NULL || udp_reasm_init(r, CAP) != SLAP_OK) {
        free(r);
        return -1;
    }
    udp_reasm_start(r, REQUEST_ID);
    *state = r;
    return 0;
}

static int teardown_reasm(void **state)
{
    struct udp_reasm *r = *state;
    udp_reasm_free(r);
    free(r);
    return 0;
}

static void test_frame_round_trip(void **state)
{
    (void)state;
    static const uint16_t cases[][3] = {
        {0, 0, 1}, {1, 0, 2}, {0x1234, 0x00ff, 0x0100}, {0xffff, 0xfffe, 0xffff}, {0x8001, 3, 4},
    };
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(cases); i++) {
        uint8_t frame[UDP_HEADER + 3];
        memset(frame, 0xee, sizeof(frame));
        udp_frame_encode(frame, cases[i][0], cases[i][1], cases[i][2]);
        assert_int_equal(frame[UDP_HEADER], 0xee); /* nothing written past the header */
        uint16_t request_id = 0, seq = 0, total = 0;
        assert_int_equal(udp_frame_decode(frame, sizeof(frame), &request_id, &seq, &total),
                         SLAP_OK);
        assert_int_equal(request_id, cases[i][0]);
        assert_int_equal(seq, cases[i][1]);
        assert_int_equal(total, cases[i][2]);
    }
}

static void test_frame_is_big_endian(void **state)
{
    (void)state;
    uint8_t frame[UDP_HEADER];
    udp_frame_encode(frame, 0x1234, 0x0102, 0xa0b0);
    static const uint8_t expected[UDP_HEADER] = {0x12, 0x34, 0x01, 0x02, 0xa0, 0xb0, 0, 0};
    assert_memory_equal(frame, expected, UDP_HEADER);

    /* A header as memcached sends it: id 0x4321, seq 2 of 4. */
    static const uint8_t wire[UDP_HEADER] = {0x43, 0x21, 0x00, 0x02, 0x00, 0x04, 0x00, 0x00};
    uint16_t request_id, seq, total;
    assert_int_equal(udp_frame_decode(wire, sizeof(wire), &request_id, &seq, &total), SLAP_OK);
    assert_int_equal(request_id, 0x4321);
    assert_int_equal(seq, 2);
    assert_int_equal(total, 4);
}

static void test_frame_bad(void **state)
{
    (void)state;
    uint8_t frame[UDP_HEADER];
    uint16_t request_id = 7, seq = 7, total = 7;

    udp_frame_encode(frame, 1, 0, 1);
    for (size_t len = 0; len < UDP_HEADER; len++) {
        assert_int_equal(udp_frame_decode(frame, len, &request_id, &seq, &total), SLAP_ERROR);
    }
    assert_int_equal(udp_frame_decode(frame, UDP_HEADER, &request_id, &seq, &total), SLAP_OK);

    udp_frame_encode(frame, 1, 0, 0); /* total 0 */
    assert_int_equal(udp_frame_decode(frame, UDP_HEADER, &request_id, &seq, &total), SLAP_ERROR);
    udp_frame_encode(frame, 1, 3, 3); /* seq == total */
    assert_int_equal(udp_frame_decode(frame, UDP_HEADER, &request_id, &seq, &total), SLAP_ERROR);
    udp_frame_encode(frame, 1, 9, 3); /* seq > total */
    assert_int_equal(udp_frame_decode(frame, UDP_HEADER, &request_id, &seq, &total), SLAP_ERROR);
    for (size_t at = UDP_HEADER - 2; at < UDP_HEADER; at++) { /* reserved bytes not 0 */
        udp_frame_encode(frame, 1, 0, 1);
        frame[at] = 1;
        assert_int_equal(udp_frame_decode(frame, UDP_HEADER, &request_id, &seq, &total),
                         SLAP_ERROR);
    }
}

static void test_init_and_free(void **state)
{
    (void)state;
    struct udp_reasm r;
    assert_int_equal(udp_reasm_init(&r, UDP_MAX_DATAGRAM - 1), SLAP_ERROR);
    assert_null(r.buf);
    assert_int_equal(udp_reasm_init(&r, 3 * UDP_MAX_DATAGRAM + 5), SLAP_OK);
    assert_non_null(r.seen);
    assert_non_null(r.lens);
    assert_non_null(r.buf);
    assert_int_equal(r.cap, 3 * UDP_MAX_DATAGRAM + 5);
    assert_int_equal(r.total, 0);
    assert_int_equal(r.disorder + r.duplicates + r.stale, 0);
    for (size_t i = 0; i < 4; i++) { /* cap / UDP_MAX_DATAGRAM + 1 entries, zeroed */
        assert_int_equal(r.seen[i], 0);
    }
    udp_reasm_free(&r);
    assert_null(r.buf);
    udp_reasm_free(&r); /* a second free is harmless */
}

/* A caller's buffer: messages of several datagrams are put together in it, and it is left. */
static void test_init_in_callers_buffer(void **state)
{
    (void)state;
    static char slab[2 * CAP];
    struct udp_reasm r;
    struct dgram first, second;
    const char *msg = NULL;
    size_t msg_len = 0;
    assert_int_equal(udp_reasm_init_in(&r, CAP, NULL), SLAP_ERROR);
    assert_int_equal(udp_reasm_init_in(&r, UDP_MAX_DATAGRAM - 1, slab), SLAP_ERROR);
    assert_int_equal(udp_reasm_init_in(&r, CAP, slab + CAP), SLAP_OK);
    udp_reasm_start(&r, REQUEST_ID);
    build_text(&first, REQUEST_ID, 0, 2, "first ");
    build_text(&second, REQUEST_ID, 1, 2, "second");
    assert_int_equal(add(&r, &second, &msg, &msg_len), SLAP_AGAIN);
    assert_int_equal(add(&r, &first, &msg, &msg_len), SLAP_OK);
    assert_ptr_equal(msg, slab + CAP);
    assert_memory_equal(msg, "first second", msg_len);
    udp_reasm_free(&r); /* leaves the slab: freeing it would abort */
    assert_null(r.buf);
    assert_memory_equal(slab + CAP, "first second", 12);
}

/* Next permutation in lexicographic order; false after the last. */
static int next_order(uint16_t *order, size_t n)
{
    size_t i = n - 1;
    while (i > 0 && order[i - 1] >= order[i]) {
        i--;
    }
    if (i == 0) {
        return 0;
    }
    size_t j = n - 1;
    while (order[j] <= order[i - 1]) {
        j--;
    }
    uint16_t swap = order[i - 1];
    order[i - 1] = order[j];
    order[j] = swap;
    for (size_t lo = i, hi = n - 1; lo < hi; lo++, hi--) {
        swap = order[lo];
        order[lo] = order[hi];
        order[hi] = swap;
    }
    return 1;
}

/* Datagrams after one with a higher seq (the definition of disorder), computed apart. */
static uint64_t expected_disorder(const uint16_t *order, size_t n)
{
    uint64_t count = 0;
    for (size_t i = 1; i < n; i++) {
        for (size_t k = 0; k < i; k++) {
            if (order[k] > order[i]) {
                count++;
                break;
            }
        }
    }
    return count;
}

/*
 * Every order of a 5-datagram message gives the same payload. Two shapes: memcached's
 * (1392-byte pieces, a short last one) and short pieces in the middle, one of them empty.
 */
static void check_all_orders(struct udp_reasm *r, const size_t *lens)
{
    struct dgram pieces[PIECES];
    uint8_t expected[PIECES * UDP_MAX_DATAGRAM];
    size_t expected_len = 0;
    for (uint16_t seq = 0; seq < PIECES; seq++) {
        build(&pieces[seq], REQUEST_ID, seq, PIECES, lens[seq], 0);
        memcpy(expected + expected_len, pieces[seq].bytes + UDP_HEADER, lens[seq]);
        expected_len += lens[seq];
    }
    uint16_t order[PIECES] = {0, 1, 2, 3, 4};
    size_t orders = 0;
    do {
        uint64_t disorder_before = r->disorder;
        const char *msg = NULL;
        size_t msg_len = 0;
        udp_reasm_start(r, REQUEST_ID);
        for (size_t i = 0; i < PIECES; i++) {
            assert_int_equal(udp_reasm_missing(r), i == 0 ? 0 : PIECES - i);
            int status = add(r, &pieces[order[i]], &msg, &msg_len);
            assert_int_equal(status, i + 1 < PIECES ? SLAP_AGAIN : SLAP_OK);
        }
        assert_int_equal(msg_len, expected_len);
        assert_memory_equal(msg, expected, expected_len);
        assert_int_equal(r->disorder - disorder_before, expected_disorder(order, PIECES));
        assert_int_equal(udp_reasm_missing(r), 0);
        orders++;
    } while (next_order(order, PIECES));
    assert_int_equal(orders, ORDERS);
    assert_int_equal(r->duplicates, 0);
    assert_int_equal(r->stale, 0);
}

static void test_every_order_memcached_sizes(void **state)
{
    static const size_t lens[PIECES] = {1392, 1392, 1392, 1392, 847};
    check_all_orders(*state, lens);
}

static void test_every_order_short_middle_pieces(void **state)
{
    static const size_t lens[PIECES] = {UDP_MAX_DATAGRAM, 10, 0, 1391, 500};
    check_all_orders(*state, lens);
}

/* Deliver a 5-datagram message in the given order; returns the disorder it added. */
static uint64_t deliver(struct udp_reasm *r, const uint16_t *order)
{
    struct dgram d;
    const char *msg = NULL;
    size_t msg_len = 0;
    uint64_t before = r->disorder;
    for (size_t i = 0; i < PIECES; i++) {
        build(&d, REQUEST_ID, order[i], PIECES, 100, 0);
        assert_int_equal(add(r, &d, &msg, &msg_len), i + 1 < PIECES ? SLAP_AGAIN : SLAP_OK);
    }
    assert_int_equal(msg_len, PIECES * 100);
    return r->disorder - before;
}

static void test_disorder_counts(void **state)
{
    struct udp_reasm *r = *state;
    static const uint16_t in_order[PIECES] = {0, 1, 2, 3, 4};
    static const uint16_t reversed[PIECES] = {4, 3, 2, 1, 0};
    static const uint16_t last_first[PIECES] = {4, 0, 1, 2, 3};
    static const uint16_t one_swap[PIECES] = {0, 2, 1, 3, 4};
    assert_int_equal(deliver(r, in_order), 0);
    assert_int_equal(deliver(r, reversed), 4);
    assert_int_equal(deliver(r, last_first), 4);
    assert_int_equal(deliver(r, one_swap), 1);
    assert_int_equal(r->disorder, 9);
}

static void test_duplicates_ignored(void **state)
{
    struct udp_reasm *r = *state;
    struct dgram first, again, second;
    const char *msg = NULL;
    size_t msg_len = 0;
    build_text(&first, REQUEST_ID, 0, 2, "VALUE k 0 3\r\n");
    build_text(&again, REQUEST_ID, 0, 2, "garbage that must not land\r\n");
    build_text(&second, REQUEST_ID, 1, 2, "abc\r\nEND\r\n");

    assert_int_equal(add(r, &first, &msg, &msg_len), SLAP_AGAIN);
    assert_int_equal(add(r, &first, &msg, &msg_len), SLAP_AGAIN);
    assert_int_equal(add(r, &again, &msg, &msg_len), SLAP_AGAIN);
    assert_int_equal(r->duplicates, 2);
    assert_int_equal(r->received, 1);
    assert_int_equal(udp_reasm_missing(r), 1);
    assert_int_equal(add(r, &second, &msg, &msg_len), SLAP_OK);
    assert_int_equal(msg_len, strlen("VALUE k 0 3\r\nabc\r\nEND\r\n"));
    assert_memory_equal(msg, "VALUE k 0 3\r\nabc\r\nEND\r\n", msg_len);
    assert_int_equal(r->disorder, 0);
}

static void test_stale_ignored(void **state)
{
    struct udp_reasm *r = *state;
    struct dgram mine, late, late_other_total;
    const char *msg = NULL;
    size_t msg_len = 0;
    build_text(&mine, REQUEST_ID, 0, 2, "first ");
    build_text(&late, OTHER_ID, 1, 2, "an old answer");
    build_text(&late_other_total, OTHER_ID, 0, 60000, "a total that would not fit");

    assert_int_equal(add(r, &late, &msg, &msg_len), SLAP_AGAIN); /* before any of ours */
    assert_int_equal(udp_reasm_missing(r), 0);
    assert_int_equal(add(r, &mine, &msg, &msg_len), SLAP_AGAIN);
    assert_int_equal(add(r, &late, &msg, &msg_len), SLAP_AGAIN); /* would complete if taken */
    assert_int_equal(add(r, &late_other_total, &msg, &msg_len), SLAP_AGAIN);
    assert_int_equal(r->stale, 3);
    assert_int_equal(r->received, 1);
    assert_int_equal(udp_reasm_missing(r), 1);

    build_text(&mine, REQUEST_ID, 1, 2, "second");
    assert_int_equal(add(r, &mine, &msg, &msg_len), SLAP_OK);
    assert_int_equal(msg_len, strlen("first second"));
    assert_memory_equal(msg, "first second", msg_len);
    assert_int_equal(r->duplicates, 0);
}

/* What memcached 1.6.18 sent for "get k1 k k3" with a 5000-byte k: messages sharing the id. */
static void test_messages_of_one_id(void **state)
{
    struct udp_reasm *r = *state;
    static const char *const singles[] = {
        "VALUE k1 0 11\r\nvalue-of-k1\r\n",
        "VALUE k2 0 11\r\nvalue-of-k2\r\n",
        "VALUE k3 0 11\r\nvalue-of-k3\r\nEND\r\n",
    };
    struct dgram d;
    const char *msg = NULL;
    size_t msg_len = 0;
    for (size_t i = 0; i < SLAP_ARRAY_SIZE(singles); i++) {
        build_text(&d, REQUEST_ID, 0, 1, singles[i]);
        assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_OK);
        assert_int_equal(msg_len, strlen(singles[i]));
        assert_memory_equal(msg, singles[i], msg_len);
        assert_int_equal(udp_reasm_missing(r), 0);
    }

    /* Then a 4-datagram message with the same id, then one more single. */
    for (uint16_t seq = 0; seq < 4; seq++) {
        build(&d, REQUEST_ID, seq, 4, seq < 3 ? 1392 : 842, 0);
        assert_int_equal(add(r, &d, &msg, &msg_len), seq < 3 ? SLAP_AGAIN : SLAP_OK);
    }
    assert_int_equal(msg_len, 3 * 1392 + 842);
    build_text(&d, REQUEST_ID, 0, 1, singles[2]);
    assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_OK);
    assert_memory_equal(msg, singles[2], strlen(singles[2]));
    assert_int_equal(r->duplicates + r->disorder + r->stale, 0);
}

/*
 * memcached 1.6.18 answered "get nokey k1" with a header alone (seq 0, total 0, no payload),
 * then "VALUE k1 0 3\r\nabc\r\nEND\r\n" as seq 0 of 1: the first is ignored.
 */
static void test_empty_message_ignored(void **state)
{
    struct udp_reasm *r = *state;
    struct dgram d;
    const char *msg = NULL;
    size_t msg_len = 0;
    udp_frame_encode(d.bytes, REQUEST_ID, 0, 0);
    d.len = UDP_HEADER;
    assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_AGAIN);
    assert_null(msg);
    assert_int_equal(udp_reasm_missing(r), 0);
    build_text(&d, REQUEST_ID, 0, 1, "VALUE k1 0 3\r\nabc\r\nEND\r\n");
    assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_OK);
    assert_int_equal(msg_len, strlen("VALUE k1 0 3\r\nabc\r\nEND\r\n"));
    assert_memory_equal(msg, "VALUE k1 0 3\r\nabc\r\nEND\r\n", msg_len);

    /* In the middle of a message it changes nothing either. */
    build_text(&d, REQUEST_ID, 1, 2, "b");
    assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_AGAIN);
    udp_frame_encode(d.bytes, REQUEST_ID, 0, 0);
    d.len = UDP_HEADER;
    assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_AGAIN);
    assert_int_equal(udp_reasm_missing(r), 1);
    build_text(&d, REQUEST_ID, 0, 2, "a");
    assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_OK);
    assert_memory_equal(msg, "ab", 2);
    assert_int_equal(r->stale + r->duplicates + r->disorder, 1); /* seq 0 after seq 1 */

    /* Total 0 with a payload, or a seq, is not that: still a bad frame. */
    build_text(&d, REQUEST_ID, 0, 0, "x");
    assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_ERROR);
    udp_frame_encode(d.bytes, REQUEST_ID, 1, 0);
    d.len = UDP_HEADER;
    assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_ERROR);
}

static void test_message_too_big(void **state)
{
    (void)state;
    struct udp_reasm r;
    struct dgram d;
    const char *msg = NULL;
    size_t msg_len = 0;
    assert_int_equal(udp_reasm_init(&r, 3 * UDP_MAX_DATAGRAM + UDP_MAX_DATAGRAM - 1), SLAP_OK);
    udp_reasm_start(&r, REQUEST_ID);

    build(&d, REQUEST_ID, 0, 4, 10, 0); /* 4 * 1400 > cap */
    assert_int_equal(add(&r, &d, &msg, &msg_len), SLAP_ERROR);
    build(&d, REQUEST_ID, 3, 4, 10, 0);
    assert_int_equal(add(&r, &d, &msg, &msg_len), SLAP_ERROR);
    build(&d, REQUEST_ID, 0, 0xffff, 10, 0);
    assert_int_equal(add(&r, &d, &msg, &msg_len), SLAP_ERROR);
    assert_int_equal(udp_reasm_missing(&r), 0);

    build(&d, REQUEST_ID, 0, 1, UDP_MAX_DATAGRAM + 1, 0); /* a payload memcached never sends */
    assert_int_equal(add(&r, &d, &msg, &msg_len), SLAP_ERROR);

    for (uint16_t seq = 0; seq < 3; seq++) { /* 3 full datagrams fit */
        build(&d, REQUEST_ID, seq, 3, UDP_MAX_DATAGRAM, 0);
        assert_int_equal(add(&r, &d, &msg, &msg_len), seq < 2 ? SLAP_AGAIN : SLAP_OK);
    }
    assert_int_equal(msg_len, 3 * UDP_MAX_DATAGRAM);
    assert_true(msg_len <= r.cap);
    udp_reasm_free(&r);
}

static void test_total_changes_mid_message(void **state)
{
    struct udp_reasm *r = *state;
    struct dgram d;
    const char *msg = NULL;
    size_t msg_len = 0;
    build_text(&d, REQUEST_ID, 0, 3, "a");
    assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_AGAIN);
    build_text(&d, REQUEST_ID, 1, 2, "X");
    assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_ERROR);
    build_text(&d, REQUEST_ID, 0, 1, "Y");
    assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_ERROR);
    assert_int_equal(udp_reasm_missing(r), 2); /* the message in progress is untouched */

    build_text(&d, REQUEST_ID, 2, 3, "c");
    assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_AGAIN);
    build_text(&d, REQUEST_ID, 1, 3, "b");
    assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_OK);
    assert_int_equal(msg_len, 3);
    assert_memory_equal(msg, "abc", 3);
}

static void test_bad_frame_rejected(void **state)
{
    struct udp_reasm *r = *state;
    struct dgram d;
    const char *msg = NULL;
    size_t msg_len = 0;
    build_text(&d, REQUEST_ID, 0, 2, "x");
    assert_int_equal(udp_reasm_add(r, d.bytes, UDP_HEADER - 1, &msg, &msg_len), SLAP_ERROR);
    d.bytes[UDP_HEADER - 1] = 1; /* reserved */
    assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_ERROR);
    build_text(&d, OTHER_ID, 2, 2, "x"); /* seq == total: bad even from another id */
    assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_ERROR);
    assert_int_equal(r->stale + r->duplicates + r->received, 0);
}

static void test_missing_counts(void **state)
{
    struct udp_reasm *r = *state;
    struct dgram d;
    const char *msg = NULL;
    size_t msg_len = 0;
    assert_int_equal(udp_reasm_missing(r), 0);
    build(&d, REQUEST_ID, 2, 6, 50, 0);
    assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_AGAIN);
    assert_int_equal(udp_reasm_missing(r), 5);
    assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_AGAIN); /* duplicate */
    assert_int_equal(udp_reasm_missing(r), 5);
    build(&d, REQUEST_ID, 5, 6, 50, 0);
    assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_AGAIN);
    assert_int_equal(udp_reasm_missing(r), 4);
    build(&d, OTHER_ID, 0, 6, 50, 0); /* stale */
    assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_AGAIN);
    assert_int_equal(udp_reasm_missing(r), 4);

    /* A new request drops what was gathered: its old datagrams are now stale. */
    udp_reasm_start(r, OTHER_ID);
    assert_int_equal(udp_reasm_missing(r), 0);
    build(&d, REQUEST_ID, 0, 6, 50, 0);
    assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_AGAIN);
    assert_int_equal(udp_reasm_missing(r), 0);
    build(&d, OTHER_ID, 2, 3, 50, 0); /* seq 2 is fresh: the old seen flags were cleared */
    assert_int_equal(add(r, &d, &msg, &msg_len), SLAP_AGAIN);
    assert_int_equal(udp_reasm_missing(r), 2);
    assert_int_equal(r->duplicates, 1);
}

/* Ids of a shared socket: the slot bits number every slot, and no more. */
static void test_id_slot_bits(void **state)
{
    (void)state;
    assert_int_equal(udp_id_slot_bits(1), 0);
    assert_int_equal(udp_id_slot_bits(2), 1);
    assert_int_equal(udp_id_slot_bits(3), 2);
    assert_int_equal(udp_id_slot_bits(64), 6);
    assert_int_equal(udp_id_slot_bits(65), 7);
    assert_int_equal(udp_id_slot_bits(1000), 10);
    assert_int_equal(udp_id_slot_bits(UDP_ID_SLOTS_MAX), 10);
}

/*
 * Every id a slot uses names that slot, so no two slots ever share an id (an answer reaches the
 * conn that asked); a slot goes through 2^(16 - bits) ids before one comes back, starting from
 * its slot number; with no slot bits (a socket of its own) ids count 1, 2, 3 ... as before.
 */
static void test_id_next_keeps_slot(void **state)
{
    (void)state;
    static uint8_t seen[65536];
    for (uint8_t bits = 0; bits <= 10; bits += 2) {
        uint32_t slots = 1u << bits, per_slot = 65536u >> bits;
        memset(seen, 0, sizeof(seen));
        for (uint32_t slot = 0; slot < slots; slot++) {
            uint16_t id = (uint16_t)slot;
            for (uint32_t n = 0; n < per_slot; n++) {
                id = udp_id_next(id, bits);
                assert_int_equal(udp_id_slot(id, bits), slot);
                assert_int_equal(seen[id], 0); /* unique within the slot and across slots */
                seen[id] = 1;
            }
            assert_int_equal(id, slot); /* the cycle closes after per_slot requests */
        }
    }
    assert_int_equal(udp_id_next(0, 0), 1);
    assert_int_equal(udp_id_next(65535, 0), 0);
    assert_int_equal(udp_id_next(5, 6), 64 + 5);
    assert_int_equal(udp_id_next((uint16_t)(65536 - 64 + 5), 6), 5);
}

/* A message of one datagram is handed out where it lies; one of several is copied together. */
static void test_single_datagram_not_copied(void **state)
{
    struct udp_reasm *r = *state;
    struct dgram one, first, second;
    const char *msg = NULL;
    size_t msg_len = 0;
    build_text(&one, REQUEST_ID, 0, 1, "END\r\n");
    assert_int_equal(add(r, &one, &msg, &msg_len), SLAP_OK);
    assert_ptr_equal(msg, (const char *)one.bytes + UDP_HEADER);
    assert_int_equal(msg_len, 5);
    build_text(&first, REQUEST_ID, 0, 2, "first ");
    build_text(&second, REQUEST_ID, 1, 2, "second");
    assert_int_equal(add(r, &second, &msg, &msg_len), SLAP_AGAIN);
    assert_int_equal(add(r, &one, &msg, &msg_len), SLAP_ERROR); /* its total is not 2 */
    assert_int_equal(add(r, &first, &msg, &msg_len), SLAP_OK);
    assert_memory_equal(msg, "first second", msg_len);
    assert_ptr_not_equal(msg, (const char *)first.bytes + UDP_HEADER);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frame_round_trip),
        cmocka_unit_test(test_frame_is_big_endian),
        cmocka_unit_test(test_frame_bad),
        cmocka_unit_test(test_init_and_free),
        cmocka_unit_test(test_init_in_callers_buffer),
        cmocka_unit_test_setup_teardown(test_every_order_memcached_sizes, setup_reasm,
                                        teardown_reasm),
        cmocka_unit_test_setup_teardown(test_every_order_short_middle_pieces, setup_reasm,
                                        teardown_reasm),
        cmocka_unit_test_setup_teardown(test_disorder_counts, setup_reasm, teardown_reasm),
        cmocka_unit_test_setup_teardown(test_duplicates_ignored, setup_reasm, teardown_reasm),
        cmocka_unit_test_setup_teardown(test_stale_ignored, setup_reasm, teardown_reasm),
        cmocka_unit_test_setup_teardown(test_messages_of_one_id, setup_reasm, teardown_reasm),
        cmocka_unit_test_setup_teardown(test_empty_message_ignored, setup_reasm, teardown_reasm),
        cmocka_unit_test(test_message_too_big),
        cmocka_unit_test_setup_teardown(test_total_changes_mid_message, setup_reasm,
                                        teardown_reasm),
        cmocka_unit_test_setup_teardown(test_bad_frame_rejected, setup_reasm, teardown_reasm),
        cmocka_unit_test_setup_teardown(test_missing_counts, setup_reasm, teardown_reasm),
        cmocka_unit_test(test_id_slot_bits),
        cmocka_unit_test(test_id_next_keeps_slot),
        cmocka_unit_test_setup_teardown(test_single_datagram_not_copied, setup_reasm,
                                        teardown_reasm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
