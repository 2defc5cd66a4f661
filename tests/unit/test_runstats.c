/* test_runstats.c: unit tests of the whole-run figures (fold/runstats.c) on a
 * hand-made trace: processes are thread 0 of each rank (a worker thread adds
 * to the traced time only), compute = elapsed - MPI, the spread over the
 * processes, the POP metrics (load balance = mean / max compute,
 * communication efficiency = max compute / runtime, their product), and MPI
 * call sites merged by label across ranks, largest first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runstats.h"

#define S 1000000000ull /* ns per s */

/* contexts: 0 main@cg.c:88, 1 MPI_Allreduce under 0, 2 main@cg.c:120, 3 MPI_Wait under 2 */
static const fold_region_def regions[] = {
    { "main", "cg.c", 5, 0, 0, FOLD_KIND_FUNCTION },
    { "MPI_Allreduce", "", 0, 0, 0, FOLD_KIND_MPI },
    { "MPI_Wait", "", 0, 0, 0, FOLD_KIND_MPI },
};
static const fold_context_def contexts[] = {
    { 0, FOLD_NONE, "src/cg.c", 88, 0 },
    { 1, 0, NULL, 0, 1 },
    { 0, FOLD_NONE, "src/cg.c", 120, 0 },
    { 2, 2, NULL, 0, 1 },
};

static void test_run_of_two_ranks_and_a_worker(void **state)
{
    (void)state;
    /* rank 0: 0..10 s, 1 s in Allreduce, 3 s in Wait: compute 6 s;
     * rank 1: 1..11 s, 2 s in Allreduce: compute 8 s; its worker thread 2..5 s */
    fold_site_time sites0[] = { { 1, 10, 1 * S }, { 3, 5, 3 * S } }, sites1[] = { { 1, 10, 2 * S } };
    fold_location locs[3];
    memset(locs, 0, sizeof(locs));
    locs[0] = (fold_location){ .rank = 0, .thread = 0, .t_begin = 0, .t_end = 10 * S, .mpi_sites = sites0,
                               .nmpi_sites = 2 };
    locs[1] = (fold_location){ .rank = 1, .thread = 0, .t_begin = 1 * S, .t_end = 11 * S, .mpi_sites = sites1,
                               .nmpi_sites = 1 };
    locs[2] = (fold_location){ .rank = 1, .thread = 1, .t_begin = 2 * S, .t_end = 5 * S };
    fold_trace t;
    memset(&t, 0, sizeof(t));
    t.regions = (fold_region_def *)regions;
    t.nregions = 3;
    t.contexts = (fold_context_def *)contexts;
    t.ncontexts = 4;
    t.locations = locs;
    t.nlocations = 3;
    fold_run run;
    assert_int_equal(fold_run_build(&t, &run), 0);
    assert_int_equal(run.nranks, 2);
    assert_int_equal(run.rank[1], 1);
    assert_float_equal(run.runtime_s, 11, 1e-12);
    assert_float_equal(run.traced_s, 23, 1e-12);
    assert_float_equal(run.compute_s[0], 6, 1e-12);
    assert_float_equal(run.compute_s[1], 8, 1e-12);
    assert_float_equal(run.mpi.min, 2, 1e-12);
    assert_float_equal(run.mpi.max, 4, 1e-12);
    assert_float_equal(run.compute.mean, 7, 1e-12);
    assert_float_equal(run.mpi_share, 6.0 / 20.0, 1e-12);
    assert_float_equal(run.load_balance, 7.0 / 8.0, 1e-12);
    assert_float_equal(run.comm_efficiency, 8.0 / 11.0, 1e-12);
    assert_float_equal(run.parallel_efficiency, 7.0 / 11.0, 1e-12);
    /* Allreduce of both ranks is one site (3 s, 20 calls), above Wait (3 s: ties by name) */
    assert_int_equal(run.nsites, 2);
    assert_string_equal(run.sites[0].site, "MPI_Allreduce@cg.c:88");
    assert_int_equal(run.sites[0].calls, 20);
    assert_float_equal(run.sites[0].time_s, 3, 1e-12);
    assert_string_equal(run.sites[1].site, "MPI_Wait@cg.c:120");
    fold_run_free(&run);
}

static void test_serial_run_without_mpi(void **state)
{
    (void)state;
    fold_location loc;
    memset(&loc, 0, sizeof(loc));
    loc.t_begin = 5 * S;
    loc.t_end = 7 * S;
    fold_trace t;
    memset(&t, 0, sizeof(t));
    t.locations = &loc;
    t.nlocations = 1;
    fold_run run;
    assert_int_equal(fold_run_build(&t, &run), 0);
    assert_int_equal(run.nranks, 1);
    assert_float_equal(run.runtime_s, 2, 1e-12);
    assert_float_equal(run.mpi_share, 0, 1e-12);
    assert_float_equal(run.load_balance, 1, 1e-12);
    assert_float_equal(run.comm_efficiency, 1, 1e-12);
    assert_int_equal(run.nsites, 0);
    fold_run_free(&run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_of_two_ranks_and_a_worker),
        cmocka_unit_test(test_serial_run_without_mpi),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
