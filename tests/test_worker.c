/* ctest labels: threads (scripts/tsan.sh runs it: a worker hands its periods to the main thread)
 * Unit tests of a worker's period hand-off on its own, one thread: what the worker publishes
 * the main thread collects once, whole, and nothing twice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h> /* after the four headers above, which it needs */

#include <stdlib.h>

#include "slap/engine/worker.h"

struct fixture {
    struct stats_shape shape;
    struct worker_mailbox box;
    struct slap_stats cur;    /* the worker's, since its last publish */
    struct slap_stats period; /* the main thread's */
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    f->shape = (struct stats_shape){.types = op_bit(OP_GET) | op_bit(OP_SET)};
    assert_int_equal(worker_mailbox_init(&f->box, &f->shape), SLAP_OK);
    assert_int_equal(stats_init(&f->cur, &f->shape), SLAP_OK);
    assert_int_equal(stats_init(&f->period, &f->shape), SLAP_OK);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    worker_mailbox_free(&f->box);
    stats_free(&f->cur);
    stats_free(&f->period);
    free(f);
    return 0;
}

/* The worker's side of a request: its counters and its latency. */
static void count_get(struct slap_stats *s, uint64_t latency_ns)
{
    s->counters.cmd_get++;
    hist_record(s->lat[OP_GET], latency_ns);
}

/* Published statistics leave the worker (it counts the next period from nothing) and arrive,
 * counters and histograms, when collected; the box is then empty. */
static void test_publish_then_collect_moves_a_period(void **state)
{
    struct fixture *f = *state;
    count_get(&f->cur, 1000);
    count_get(&f->cur, 2000);
    f->cur.counters.cmd_set = 1;

    worker_mailbox_publish(&f->box, &f->cur);
    assert_int_equal(f->cur.counters.cmd_get, 0);
    assert_int_equal(f->cur.counters.cmd_set, 0);
    assert_int_equal(f->cur.lat[OP_GET]->count, 0);

    worker_mailbox_collect(&f->box, &f->period);
    assert_int_equal(f->period.counters.cmd_get, 2);
    assert_int_equal(f->period.counters.cmd_set, 1);
    assert_int_equal(f->period.lat[OP_GET]->count, 2);
    assert_int_equal(f->box.box.counters.cmd_get, 0);
    assert_int_equal(f->box.box.lat[OP_GET]->count, 0);
}

/* Two periods published before the main thread came: both arrive in one collect, and a collect
 * with nothing published since adds nothing. */
static void test_nothing_lost_nothing_twice(void **state)
{
    struct fixture *f = *state;
    count_get(&f->cur, 1000);
    worker_mailbox_publish(&f->box, &f->cur);
    count_get(&f->cur, 3000);
    count_get(&f->cur, 5000);
    worker_mailbox_publish(&f->box, &f->cur);

    worker_mailbox_collect(&f->box, &f->period);
    assert_int_equal(f->period.counters.cmd_get, 3);
    assert_int_equal(f->period.lat[OP_GET]->count, 3);

    worker_mailbox_collect(&f->box, &f->period);
    assert_int_equal(f->period.counters.cmd_get, 3);
    assert_int_equal(f->period.lat[OP_GET]->count, 3);

    count_get(&f->cur, 7000);
    worker_mailbox_publish(&f->box, &f->cur);
    stats_reset(&f->period); /* the main thread's next period */
    worker_mailbox_collect(&f->box, &f->period);
    assert_int_equal(f->period.counters.cmd_get, 1);
    assert_int_equal(f->period.lat[OP_GET]->count, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_publish_then_collect_moves_a_period, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nothing_lost_nothing_twice, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
