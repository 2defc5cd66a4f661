/* test_omp_arrivals.c: unit tests of instrument/hct_omp_arrivals.c, the
 * arrivals of an OpenMP team's threads at its barriers, a slot per thread.
 * Threads of a team (pthreads) arrive at 6 barriers (a pthread barrier each)
 * with known times, in another order at each barrier, and each with a known
 * tool time since its last barrier; after each barrier every thread reads the
 * team's latest arrival and latest untraced arrival, which must be the
 * maxima of the table (computed here), while thread 0 has already arrived at
 * the next barrier (the other parity) before the others read. Teams: 3
 * threads with a slot each; 10 threads (2 beyond the 8 slots: the shared
 * slot); no slots of their own (every thread on the shared slot); and a
 * team of 3 after a team of 10 on the same master's slots, one of its
 * threads not followed (it never writes its slot): the stale values of the
 * earlier team, older, change nothing. */
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hct_omp_arrivals.h"

#define BARRIERS 6
#define MAX_TEAM 12

typedef struct {
    hct_omp_arrivals *a;
    int team, silent; /* silent: this thread number never writes (not followed) */
    uint64_t base;    /* the run's start time */
    sem_t ahead;      /* thread 0 arrived at the next barrier */
    pthread_barrier_t barrier;
} run;

typedef struct {
    run *r;
    int num;
    uint64_t got[BARRIERS], got_untraced[BARRIERS];
} member;

/* Thread i's arrival at barrier k: barriers 1 ms apart, the threads 10 us
 * apart in an order that changes from barrier to barrier ((7 i + 3 k) mod
 * team: a permutation, 7 and the team sizes coprime). */
static uint64_t arrival(const run *r, int k, int i)
{
    return r->base + 1000000u * (uint64_t)(k + 1) + 10000u * (uint64_t)((7 * i + 3 * k) % r->team);
}

/* Its tool time since its last barrier: 0 to 45 us. */
static uint64_t own(int k, int i)
{
    return 15000u * (uint64_t)((5 * i + k) % 4);
}

static void put(member *m, int k)
{
    if (m->num == m->r->silent)
        return;
    uint64_t t = arrival(m->r, k, m->num);
    hct_omp_arrivals_put(m->r->a, (uint32_t)m->num, k & 1, t, t - own(k, m->num));
}

static void *team_thread(void *p)
{
    member *m = p;
    run *r = m->r;
    if (m->num == 0)
        put(m, 0);
    for (int k = 0; k < BARRIERS; k++) {
        if (m->num != 0)
            put(m, k);
        pthread_barrier_wait(&r->barrier);
        if (m->num == 0) { /* leaves, then arrives at the next barrier before the others read */
            hct_omp_arrivals_latest(r->a, (uint32_t)r->team, k & 1, &m->got[k], &m->got_untraced[k]);
            if (k + 1 < BARRIERS)
                put(m, k + 1);
            for (int i = 1; i < r->team; i++)
                sem_post(&r->ahead);
        } else {
            sem_wait(&r->ahead);
            hct_omp_arrivals_latest(r->a, (uint32_t)r->team, k & 1, &m->got[k], &m->got_untraced[k]);
        }
    }
    return NULL;
}

/* Runs a team on a (initialized by the caller) and checks every read. */
static void check_team(hct_omp_arrivals *a, int team, int silent, uint64_t base)
{
    run r = { a, team, silent, base, { { 0 } }, { { 0 } } };
    member m[MAX_TEAM];
    pthread_t th[MAX_TEAM];
    assert_int_equal(sem_init(&r.ahead, 0, 0), 0);
    assert_int_equal(pthread_barrier_init(&r.barrier, NULL, (unsigned)team), 0);
    for (int i = 0; i < team; i++) {
        m[i] = (member){ &r, i, { 0 }, { 0 } };
        assert_int_equal(pthread_create(&th[i], NULL, team_thread, &m[i]), 0);
    }
    for (int i = 0; i < team; i++)
        pthread_join(th[i], NULL);
    for (int k = 0; k < BARRIERS; k++) {
        uint64_t latest = 0, untraced = 0;
        for (int i = 0; i < team; i++) {
            if (i == silent)
                continue;
            uint64_t t = arrival(&r, k, i), u = t - own(k, i);
            latest = t > latest ? t : latest;
            untraced = u > untraced ? u : untraced;
        }
        for (int i = 0; i < team; i++) {
            assert_int_equal(m[i].got[k], latest);
            assert_int_equal(m[i].got_untraced[k], untraced);
        }
    }
    pthread_barrier_destroy(&r.barrier);
    sem_destroy(&r.ahead);
}

static hct_omp_arrival slots[HCT_OMP_ARRIVAL_SLOTS]; /* a master's, zero at the start */

static void test_own_slots(void **state)
{
    (void)state;
    memset(slots, 0, sizeof(slots));
    hct_omp_arrivals a;
    hct_omp_arrivals_init(&a, slots);
    check_team(&a, 3, -1, 0);
    /* each thread wrote its own slot, the shared one untouched */
    for (int i = 0; i < 3; i++)
        assert_true(atomic_load(&slots[i].arrived[1]) > 0);
    assert_int_equal(atomic_load(&a.shared.arrived[0]), 0);
    assert_int_equal(atomic_load(&a.shared.arrived[1]), 0);
}

static void test_more_threads_than_slots(void **state)
{
    (void)state;
    memset(slots, 0, sizeof(slots));
    hct_omp_arrivals a;
    hct_omp_arrivals_init(&a, slots);
    check_team(&a, 10, -1, 0);
    assert_true(atomic_load(&a.shared.arrived[1]) > 0); /* threads 8 and 9 */
}

static void test_no_slots_of_their_own(void **state)
{
    (void)state;
    hct_omp_arrivals a;
    hct_omp_arrivals_init(&a, NULL);
    check_team(&a, 3, -1, 0);
}

static void test_next_team_on_stale_slots(void **state)
{
    (void)state;
    memset(slots, 0, sizeof(slots));
    hct_omp_arrivals a;
    hct_omp_arrivals_init(&a, slots);
    check_team(&a, 10, -1, 0);
    hct_omp_arrivals_init(&a, slots); /* the master's next team at that level */
    check_team(&a, 3, 2, 100000000u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_own_slots),
        cmocka_unit_test(test_more_threads_than_slots),
        cmocka_unit_test(test_no_slots_of_their_own),
        cmocka_unit_test(test_next_team_on_stale_slots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
