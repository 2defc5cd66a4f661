/* test_omp_sync.c: unit tests of instrument/hct_omp_sync.c, which thread of
 * an OpenMP team is marked waiting (t->omp_waiting) between its arrival at a
 * barrier or at its share's end and its leave or join. A sample taken while
 * it is marked adds its cost to no tool time (hct_sampling.c): right in a team
 * of more than one, whose waits cover it (the leave adds the team's tool time
 * on the critical path), wrong in a team of one, where nothing is added at the
 * leave or the join: there the mark must never be set, or every sample taken
 * from a one-thread region's end to its join (a deferred one raised at the
 * share end's exit from the tracer) is counted as the program's time. The
 * test stands in for the tracer's sampling (hct_sampling_tool_floor) and its
 * per-thread globals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hct_omp_sync.h"

HCT_TLS _Atomic uint32_t *hct_tool_team_flag;
HCT_TLS uint64_t hct_frame_keys_waited;
static int floors; /* calls of hct_sampling_tool_floor */

void hct_sampling_tool_floor(hct_thread *t, uint64_t since, uint64_t at, uint64_t wall, uint64_t cpu)
{
    (void)t, (void)since, (void)at, (void)wall, (void)cpu;
    floors++;
}

static hct_thread *traced_thread(void)
{
    static hct_thread t;
    memset(&t, 0, sizeof t);
    t.extras = 1; /* counters or samples: tool time to follow */
    return &t;
}

/* A team of `size` begun by hct_omp_sync_begin (kept_back: thinned), its
 * master's share: marked waiting (`waiting`) from each arrival to its leave,
 * and from its end to its join; never after. */
static void check_marks(uint32_t size, int kept_back, int waiting)
{
    hct_thread *t = traced_thread();
    hct_omp_sync s;
    hct_omp_sync_init(&s, 1);
    hct_omp_sync_begin(t, &s, 0, size, kept_back);
    hct_omp_sync_arrive(t, HCT_OMP_SYNC_BARRIER);
    assert_int_equal(t->omp_waiting, waiting);
    hct_omp_sync_leave(t);
    assert_int_equal(t->omp_waiting, 0);
    hct_omp_sync_arrive(t, HCT_OMP_SYNC_END);
    assert_int_equal(t->omp_waiting, waiting);
    hct_omp_sync_join(t, &s);
    assert_int_equal(t->omp_waiting, 0);
}

/* A team of one: not waiting at its barrier, nor from its share's end to its
 * join; nothing added to its tool time. */
static void test_team_of_one(void **state)
{
    (void)state;
    check_marks(1, 1, 0);
    assert_int_equal(floors, 0);
}

/* A team of two (nobody else's tool time: nothing added, the team's
 * `tooled` never set): waiting. */
static void test_team_of_two(void **state)
{
    (void)state;
    check_marks(2, 0, 1);
}

/* A team of one nested in a team of two: its end does not mark the thread
 * (its wait is its own), the outer team's barrier then does. */
static void test_team_of_one_nested(void **state)
{
    (void)state;
    hct_thread *t = traced_thread();
    hct_omp_sync outer, inner;
    hct_omp_sync_init(&outer, 1);
    hct_omp_sync_begin(t, &outer, 0, 2, 0);
    hct_omp_sync_init(&inner, 2);
    hct_omp_sync_begin(t, &inner, 0, 1, 0);
    hct_omp_sync_arrive(t, HCT_OMP_SYNC_END);
    assert_int_equal(t->omp_waiting, 0);
    hct_omp_sync_join(t, &inner);
    hct_omp_sync_arrive(t, HCT_OMP_SYNC_BARRIER);
    assert_int_equal(t->omp_waiting, 1);
    hct_omp_sync_leave(t);
    assert_int_equal(t->omp_waiting, 0);
    hct_omp_sync_arrive(t, HCT_OMP_SYNC_END);
    hct_omp_sync_join(t, &outer);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_team_of_one),
        cmocka_unit_test(test_team_of_two),
        cmocka_unit_test(test_team_of_one_nested),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
