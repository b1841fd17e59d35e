/* Test helper: a byte stream fed to a codec's parser in chunks as conn.c does, and what it said. */
#include "proto_stream.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one parse call of held bytes at buf said; NULL, or the promise it broke. */
static const char *check_call(enum slap_status rc, const char *buf, size_t held, size_t used,
                              const struct proto_result *res)
{
    if (rc != SLAP_OK && rc != SLAP_AGAIN && rc != SLAP_ERROR) {
        return "answered something other than SLAP_OK, SLAP_AGAIN or SLAP_ERROR";
    }
    if (used > held) {
        return "consumed more bytes than it was given";
    }
    if (rc == SLAP_OK && used == 0) {
        return "completed a response without consuming a byte";
    }
    if (rc == SLAP_OK && res->msg == NULL && res->msg_len != 0) {
        return "gave a msg length without a msg";
    }
    if (rc == SLAP_OK && res->msg != NULL &&
        (res->msg < buf || res->msg > buf + used ||
         res->msg_len > (size_t)(buf + used - res->msg))) {
        return "gave a msg outside the bytes the response consumed";
    }
    return NULL;
}

/* One parse call of the bytes offered but not yet consumed, in a buffer of exactly their size. */
static const char *parse_held(struct proto_stream *s, size_t offered, struct stream_result *r)
{
    size_t held = offered - s->consumed;
    char *buf = malloc(held > 0 ? held : 1);
    struct proto_result res;
    size_t used = SIZE_MAX;
    if (buf == NULL) {
        return "could not be tested: out of memory";
    }
    memcpy(buf, s->input + s->consumed, held);
    const struct stream_request *q =
        s->asked != NULL && s->n_responses < s->n_asked ? &s->asked[s->n_responses] : NULL;
    codec_get(s->kind)->asked(&s->parser, q != NULL ? q->bytes : NULL, q != NULL ? q->len : 0);
    enum slap_status rc = codec_get(s->kind)->parse(&s->parser, buf, held, &used, &res);
    const char *broken = check_call(rc, buf, held, used, &res);
    memset(r, 0, sizeof(*r));
    r->status = rc;
    r->msg_off = SIZE_MAX;
    r->trace = s->trace != NULL ? *s->trace : 0;
    r->fault = rc == SLAP_ERROR ? res.fault : PROTO_FAULT_GARBAGE;
    if (broken == NULL && rc == SLAP_OK) {
        r->reply = res.reply;
        r->hits = res.hits;
        r->value_bytes = res.value_bytes;
        r->msg_len = res.msg_len;
        if (res.msg != NULL) {
            r->msg_off = s->consumed + (size_t)(res.msg - buf);
        }
    }
    if (broken == NULL) {
        s->consumed += used;
    }
    free(buf);
    return broken;
}

/* Keep a complete response. */
static const char *keep(struct proto_stream *s, const struct stream_result *r)
{
    if (s->n_responses == s->room) {
        return "completed more responses than the caller made room for";
    }
    s->responses[s->n_responses++] = *r;
    return NULL;
}

/* A broken promise, said on stderr too. */
static const char *broke(const struct proto_stream *s, const char *promise)
{
    fprintf(stderr, "proto_stream: the %s parser %s\n", codec_get(s->kind)->name, promise);
    return promise;
}

const char *proto_stream_run(struct proto_stream *s, const char *input, size_t len, size_t first,
                             size_t chunk)
{
    size_t offered = first < len ? first : len;
    codec_get(s->kind)->reset(&s->parser, s->hook);
    s->input = input;
    s->len = len;
    s->consumed = 0;
    s->n_responses = 0;
    for (;;) {
        struct stream_result r;
        const char *broken = parse_held(s, offered, &r);
        if (broken == NULL && r.status == SLAP_OK) {
            broken = keep(s, &r);
        }
        if (broken != NULL) {
            return broke(s, broken);
        }
        if (r.status == SLAP_OK) {
            continue;
        }
        s->end = r;
        if (r.status == SLAP_ERROR) {
            return NULL; /* the caller would close the connection */
        }
        if (offered - s->consumed > PROTO_ASCII_MAX_LINE) {
            return broke(s, "left more bytes unconsumed than a caller carries");
        }
        if (offered == len) {
            return NULL;
        }
        offered = len - offered < chunk ? len : offered + chunk;
    }
}

/* A response as the test wanted it? */
static bool same_as_wanted(const struct proto_stream *s, const struct stream_result *got,
                           const struct stream_want *want)
{
    if (got->reply != want->reply || got->hits != want->hits ||
        got->value_bytes != want->value_bytes) {
        return false;
    }
    if (want->msg == NULL || got->msg_off == SIZE_MAX) {
        return want->msg == NULL && got->msg_off == SIZE_MAX && got->msg_len == 0;
    }
    return got->msg_len == strlen(want->msg) &&
           memcmp(s->input + got->msg_off, want->msg, got->msg_len) == 0;
}

static const char *status_name(enum slap_status status)
{
    return status == SLAP_OK ? "SLAP_OK" : status == SLAP_AGAIN ? "SLAP_AGAIN" : "SLAP_ERROR";
}

bool proto_stream_expect(const struct proto_stream *s, const struct stream_want *want,
                         size_t n_want, const char *how, size_t where)
{
    if (s->n_responses != n_want) {
        fprintf(stderr, "%s %zu: %zu responses, expected %zu (the run ended with %s)\n", how, where,
                s->n_responses, n_want, status_name(s->end.status));
        return false;
    }
    for (size_t i = 0; i < n_want; i++) {
        const struct stream_result *got = &s->responses[i];
        if (!same_as_wanted(s, got, &want[i])) {
            bool has_msg = got->msg_off != SIZE_MAX;
            fprintf(stderr, "%s %zu: response %zu is reply %d hits %u bytes %llu msg '%.*s'\n", how,
                    where, i, (int)got->reply, (unsigned)got->hits,
                    (unsigned long long)got->value_bytes, has_msg ? (int)got->msg_len : 0,
                    has_msg ? s->input + got->msg_off : "");
            return false;
        }
    }
    if (s->end.status != SLAP_AGAIN || s->consumed != s->len) {
        fprintf(stderr, "%s %zu: %zu bytes left over\n", how, where, s->len - s->consumed);
        return false;
    }
    return true;
}

bool proto_stream_rejects(struct proto_stream *s, const char *bytes, size_t len, const char *name)
{
    const size_t chunks[] = {len, 1, 7};
    for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
        if (proto_stream_run(s, bytes, len, chunks[i], chunks[i]) != NULL) {
            return false;
        }
        if (s->end.status != SLAP_ERROR) {
            fprintf(stderr, "'%s' in chunks of %zu was not rejected\n", name, chunks[i]);
            return false;
        }
    }
    return true;
}

bool proto_stream_refuses(struct proto_stream *s, const char *req, size_t req_len,
                          const char *bytes, size_t len, enum proto_fault fault, const char *name)
{
    const struct stream_request asked = {req, req_len};
    const struct stream_request *was = s->asked;
    size_t n_was = s->n_asked;
    bool ok = true;
    s->asked = &asked;
    s->n_asked = 1;
    ok = proto_stream_rejects(s, bytes, len, name);
    if (ok && s->end.fault != fault) {
        fprintf(stderr, "'%s' was refused as fault %d, not %d\n", name, (int)s->end.fault,
                (int)fault);
        ok = false;
    }
    s->asked = was;
    s->n_asked = n_was;
    return ok;
}

static bool same_result(const struct stream_result *a, const struct stream_result *b)
{
    return a->status == b->status && a->reply == b->reply && a->hits == b->hits &&
           a->value_bytes == b->value_bytes && a->msg_off == b->msg_off &&
           a->msg_len == b->msg_len && a->trace == b->trace && a->fault == b->fault;
}

const char *proto_stream_agree(struct proto_stream *chunked, struct proto_stream *whole,
                               const char *input, size_t len, size_t chunk)
{
    const char *broken = proto_stream_run(chunked, input, len, chunk, chunk);
    if (broken == NULL) {
        broken = proto_stream_run(whole, input, len, len, len > 0 ? len : 1);
    }
    if (broken != NULL) {
        return broken;
    }
    if (chunked->n_responses != whole->n_responses) {
        return broke(whole, "completed a different number of responses in chunks than whole");
    }
    for (size_t i = 0; i < whole->n_responses; i++) {
        if (!same_result(&chunked->responses[i], &whole->responses[i])) {
            return broke(whole, "completed a response differently in chunks than whole");
        }
    }
    if (!same_result(&chunked->end, &whole->end)) {
        return broke(whole, "ended differently in chunks than whole");
    }
    return NULL;
}
