/* --samples: per-worker rings filled on the request path, drained to CSV by the main thread. */
#include "slap/model/samples.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "slap/model/stats.h"

enum slap_status samples_ring_init(struct sample_ring *r, double rate, uint64_t seed)
{
    memset(r, 0, sizeof(*r));
    r->slots = malloc(sizeof(*r->slots) << SAMPLES_RING_BITS);
    if (r->slots == NULL) {
        return SLAP_ERROR;
    }
    r->threshold = rate >= 1.0 ? UINT64_MAX : (uint64_t)(rate * 18446744073709551616.0);
    r->rng.state = seed;
    return SLAP_OK;
}

void samples_ring_free(struct sample_ring *r)
{
    free(r->slots);
    r->slots = NULL;
}

const char *samples_outcome_name(int outcome)
{
    static const char *const names[SAMPLE_OUTCOMES] = {
        [SAMPLE_HIT] = "hit",       [SAMPLE_MISS] = "miss",
        [SAMPLE_STORED] = "stored", [SAMPLE_NOT_STORED] = "not_stored",
        [SAMPLE_ERROR] = "error",   [SAMPLE_UNANSWERED] = "unanswered",
        [SAMPLE_UNSENT] = "unsent",
    };
    return outcome >= 0 && outcome < SAMPLE_OUTCOMES ? names[outcome] : "?";
}

void samples_write_header(FILE *out)
{
    fputs(SAMPLES_HEADER "\n", out);
}

/* Seconds since origin of a monotonic instant (negative before it). */
static double since(uint64_t ns, uint64_t origin_ns)
{
    return ((double)ns - (double)origin_ns) / (double)SLAP_NS_PER_SEC;
}

uint64_t samples_drain(struct sample_ring *r, FILE *out, uint64_t origin_ns)
{
    if (r->slots == NULL) {
        return 0;
    }
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    assert(head - tail <= (1u << SAMPLES_RING_BITS)); /* the writer never laps the reader */
    for (uint64_t i = tail; i < head; i++) {
        const struct sample *s = &r->slots[i & ((1u << SAMPLES_RING_BITS) - 1)];
        fprintf(out, "%.6f,", since(s->intended_ns, origin_ns));
        if (s->sent_ns != 0) {
            fprintf(out, "%.6f", since(s->sent_ns, origin_ns));
        }
        fprintf(out, ",%.3f,%s,%s\n", (double)s->latency_ns / (double)SLAP_NS_PER_US,
                stats_type_name(s->type), samples_outcome_name(s->outcome));
    }
    atomic_store_explicit(&r->tail, head, memory_order_release);
    return head - tail;
}
