/* test_defs.c: unit tests of the trace schema's definition sets (src/hca_defs.c):
 * string deduplication, serialization round trip and rejection of corrupt
 * input, merging of several processes' sets with content deduplication and
 * correct ID maps, parents before children in the merged calling contexts,
 * OpenMP thread teams beside MPI communicators. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hca_defs.h"

/* A process's definitions: main calls MPI_Allreduce at line `line`. */
static void fill(hca_defs *d, uint32_t line, const char *extra_region)
{
    hca_defs_init(d);
    hca_ref fn = hca_defs_region(d, "main", HCA_KIND_FUNCTION, "cg.c", 10, 0, OTF2_REGION_ROLE_FUNCTION,
                                 OTF2_PARADIGM_SAMPLING);
    hca_ref mpi = hca_defs_region(d, "MPI_Allreduce", HCA_KIND_MPI, "", 0, 0, OTF2_REGION_ROLE_COLL_ALL2ALL,
                                  OTF2_PARADIGM_MPI);
    hca_ref scl = hca_defs_scl(d, "cg.c", line);
    hca_ref caller = hca_defs_cc(d, fn, scl, HCA_UNDEF);
    hca_defs_cc(d, mpi, HCA_UNDEF, caller);
    uint32_t world[2] = { 0, 1 };
    hca_defs_comm(d, HCA_COMM_WORLD_NAME, HCA_UNDEF, HCA_COMM_KEY_WORLD, 2, world);
    if (extra_region)
        hca_defs_region(d, extra_region, HCA_KIND_USER, "x.c", 1, 2, OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_USER);
}

static void strings_are_deduplicated(void **state)
{
    (void)state;
    hca_defs d;
    hca_defs_init(&d);
    hca_ref a = hca_defs_string(&d, "alpha");
    hca_ref b = hca_defs_string(&d, "beta");
    assert_int_not_equal(a, b);
    assert_int_equal(hca_defs_string(&d, "alpha"), a);
    for (int i = 0; i < 1000; i++) { /* forces rehashing */
        char s[16];
        snprintf(s, sizeof(s), "s%d", i);
        hca_defs_string(&d, s);
    }
    assert_int_equal(hca_defs_string(&d, "beta"), b);
    assert_int_equal(d.strings.n, 1002);
    hca_defs_free(&d);
}

static void serialization_round_trip(void **state)
{
    (void)state;
    hca_defs d, back;
    fill(&d, 88, "phase");
    hca_defs_metric_member(&d, "instructions", "retired instructions", "#", OTF2_METRIC_TYPE_PAPI,
                           OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64);
    hca_ref m = 0;
    hca_defs_metric_class(&d, 1, &m, OTF2_METRIC_SYNCHRONOUS);
    hca_defs_interrupt_generator(&d, "timer", OTF2_INTERRUPT_GENERATOR_MODE_TIME, 20000000);
    unsigned char *buf;
    size_t len;
    assert_int_equal(hca_defs_serialize(&d, &buf, &len), 0);
    assert_int_equal(hca_defs_deserialize(&back, buf, len), 0);
    assert_int_equal(back.strings.n, d.strings.n);
    for (uint32_t i = 0; i < d.strings.n; i++)
        assert_string_equal(back.strings.items[i], d.strings.items[i]);
    assert_int_equal(back.nregions, 3);
    assert_memory_equal(back.regions, d.regions, 3 * sizeof(hca_region_def));
    assert_int_equal(back.nccs, 2);
    assert_int_equal(back.ccs[1].parent, 0);
    assert_int_equal(back.ncomms, 1);
    assert_int_equal(back.comms[0].nmembers, 2);
    assert_int_equal(back.comms[0].members[1], 1);
    assert_int_equal(back.nmembers, 1);
    assert_int_equal(back.nclasses, 1);
    assert_int_equal(back.igens[0].period_ns, 20000000);
    /* every truncation is rejected, never read past the end */
    for (size_t cut = 0; cut < len; cut++) {
        hca_defs bad;
        assert_int_not_equal(hca_defs_deserialize(&bad, buf, cut), 0);
    }
    free(buf);
    hca_defs_free(&d);
    hca_defs_free(&back);
}

static void merge_deduplicates_and_maps(void **state)
{
    (void)state;
    hca_defs g, p0, p1;
    hca_defs_map m0, m1;
    hca_defs_init(&g);
    fill(&p0, 88, NULL);
    fill(&p1, 120, "only-in-1");
    assert_int_equal(hca_defs_merge(&g, &p0, &m0), 0);
    assert_int_equal(hca_defs_merge(&g, &p1, &m1), 0);
    /* main and MPI_Allreduce once, plus the region only process 1 has */
    assert_int_equal(g.nregions, 3);
    assert_int_equal(m0.regions[0], m1.regions[0]);
    assert_int_equal(m0.regions[1], m1.regions[1]);
    /* two call sites (cg.c:88, cg.c:120): four contexts, not two */
    assert_int_equal(g.nscls, 2);
    assert_int_equal(g.nccs, 4);
    assert_int_not_equal(m0.ccs[1], m1.ccs[1]);
    for (uint32_t i = 0; i < g.nccs; i++)
        assert_true(g.ccs[i].parent == HCA_UNDEF || g.ccs[i].parent < i);
    assert_int_equal(g.ccs[m1.ccs[1]].parent, m1.ccs[0]);
    assert_int_equal(g.scls[g.ccs[m1.ccs[0]].scl].line, 120);
    /* the world communicator is one */
    assert_int_equal(g.ncomms, 1);
    assert_int_equal(m0.comms[0], m1.comms[0]);
    /* mapped strings name the same text */
    for (uint32_t i = 0; i < p1.strings.n; i++)
        assert_string_equal(g.strings.items[m1.strings[i]], p1.strings.items[i]);
    /* merging the same set again adds nothing */
    hca_defs_map again;
    uint32_t before = g.nccs;
    assert_int_equal(hca_defs_merge(&g, &p0, &again), 0);
    assert_int_equal(g.nccs, before);
    assert_memory_equal(again.ccs, m0.ccs, p0.nccs * sizeof(uint64_t));
    hca_defs_map_free(&again);
    hca_defs_map_free(&m0);
    hca_defs_map_free(&m1);
    hca_defs_free(&p0);
    hca_defs_free(&p1);
    hca_defs_free(&g);
}

/* Sampled stacks give processes 10^5 calling contexts: two such sets, half
 * shared, merge into the union (by content, through the index). */
static void large_sets_merge_by_content(void **state)
{
    (void)state;
    enum { N = 100000 };
    hca_defs g, a, b;
    hca_defs_init(&g);
    hca_defs_init(&a);
    hca_defs_init(&b);
    hca_ref ra = hca_defs_region(&a, "f", HCA_KIND_FUNCTION, "x.c", 1, 0, OTF2_REGION_ROLE_FUNCTION,
                                 OTF2_PARADIGM_SAMPLING);
    hca_ref rb = hca_defs_region(&b, "f", HCA_KIND_FUNCTION, "x.c", 1, 0, OTF2_REGION_ROLE_FUNCTION,
                                 OTF2_PARADIGM_SAMPLING);
    for (uint32_t i = 0; i < N; i++) {
        /* chains: context i's parent is i-1; b's lines are shifted by N/2 */
        hca_defs_cc(&a, ra, hca_defs_scl(&a, "x.c", i), i ? i - 1 : HCA_UNDEF);
    }
    for (uint32_t i = 0; i < N; i++)
        hca_defs_cc(&b, rb, hca_defs_scl(&b, "x.c", i < N / 2 ? i : i + N), i ? i - 1 : HCA_UNDEF);
    hca_defs_map ma, mb;
    assert_int_equal(hca_defs_merge(&g, &a, &ma), 0);
    assert_int_equal(hca_defs_merge(&g, &b, &mb), 0);
    assert_int_equal(g.nregions, 1);
    assert_int_equal(g.nscls, N + N / 2);
    assert_int_equal(g.nccs, N + N / 2);
    for (uint32_t i = 0; i < N / 2; i++)
        assert_int_equal(ma.ccs[i], mb.ccs[i]);
    assert_int_not_equal(ma.ccs[N / 2], mb.ccs[N / 2]);
    assert_int_equal(g.ccs[mb.ccs[N - 1]].parent, mb.ccs[N - 2]);
    hca_defs_map_free(&ma);
    hca_defs_map_free(&mb);
    hca_defs_free(&a);
    hca_defs_free(&b);
    hca_defs_free(&g);
}

static void comm_keys_tell_communicators_apart(void **state)
{
    (void)state;
    assert_int_not_equal(HCA_COMM_KEY(0, 1), HCA_COMM_KEY(1, 1));
    assert_int_not_equal(HCA_COMM_KEY(0, 1), HCA_COMM_KEY(0, 2));
    assert_true(HCA_COMM_KEY(0, 1) > HCA_COMM_KEY_SELF);
}

/* Teams of two processes with the same sequence number stay apart, survive
 * serialization with their members and process, and never match an MPI
 * communicator with the same key. */
static void teams_merge_per_process(void **state)
{
    (void)state;
    hca_defs a, b, back, g;
    fill(&a, 88, NULL);
    fill(&b, 88, NULL);
    uint32_t threads[3] = { 0, 2, 5 };
    hca_ref ta = hca_defs_team(&a, "OpenMP team 0.0.1/3", 0, HCA_TEAM_KEY(0, 7), 3, threads);
    hca_defs_team(&b, "OpenMP team 1.0.1/3", 1, HCA_TEAM_KEY(1, 7), 3, threads);
    hca_defs_comm(&b, "same key", HCA_UNDEF, HCA_TEAM_KEY(1, 7), 0, NULL);
    assert_int_equal(ta, 1);
    unsigned char *buf;
    size_t len;
    assert_int_equal(hca_defs_serialize(&a, &buf, &len), 0);
    assert_int_equal(hca_defs_deserialize(&back, buf, len), 0);
    free(buf);
    assert_int_equal(back.ncomms, 2);
    assert_int_equal(back.comms[1].paradigm, OTF2_PARADIGM_OPENMP);
    assert_int_equal(back.comms[1].nmembers, 3);
    assert_int_equal(back.comms[1].members[2], 5);
    assert_int_equal(back.comms[0].paradigm, OTF2_PARADIGM_MPI);
    hca_defs_init(&g);
    hca_defs_map m0, m1;
    assert_int_equal(hca_defs_merge(&g, &back, &m0), 0);
    assert_int_equal(hca_defs_merge(&g, &b, &m1), 0);
    assert_int_equal(g.ncomms, 4); /* world, two teams, the MPI comm with a team's key */
    assert_int_equal(m0.comms[0], m1.comms[0]);
    assert_int_not_equal(m0.comms[1], m1.comms[1]);
    assert_int_equal(g.comms[m1.comms[1]].rank, 1);
    hca_defs_map_free(&m0);
    hca_defs_map_free(&m1);
    hca_defs_free(&a);
    hca_defs_free(&b);
    hca_defs_free(&back);
    hca_defs_free(&g);
}

/* What locations did not write (thinning) survives serialization and merges
 * with its region mapped to the global set, one entry per location. */
static void thinned_regions_merge_per_location(void **state)
{
    (void)state;
    hca_defs a, b, g;
    hca_defs_init(&a);
    hca_defs_init(&b);
    hca_defs_init(&g);
    hca_defs_region(&a, "x", HCA_KIND_USER, "", 0, 0, OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_USER);
    hca_ref ra = hca_defs_region(&a, "omp critical", HCA_KIND_OPENMP, "", 0, 0, OTF2_REGION_ROLE_CRITICAL,
                                 OTF2_PARADIGM_OPENMP);
    hca_ref rb = hca_defs_region(&b, "omp critical", HCA_KIND_OPENMP, "", 0, 0, OTF2_REGION_ROLE_CRITICAL,
                                 OTF2_PARADIGM_OPENMP);
    assert_int_not_equal(hca_defs_thinned(&a, 5, ra, 100, 2000), HCA_UNDEF);
    assert_int_not_equal(hca_defs_thinned(&b, (1ull << 32) | 1, rb, 7, 70), HCA_UNDEF);
    unsigned char *buf;
    size_t len;
    assert_int_equal(hca_defs_serialize(&b, &buf, &len), 0);
    hca_defs b2;
    assert_int_equal(hca_defs_deserialize(&b2, buf, len), 0);
    free(buf);
    assert_int_equal(b2.nthinned, 1);
    hca_defs_map ma, mb;
    assert_int_equal(hca_defs_merge(&g, &b2, &mb), 0);
    assert_int_equal(hca_defs_merge(&g, &a, &ma), 0);
    assert_int_equal(g.nthinned, 2);
    assert_int_equal(g.thinned[0].region, g.thinned[1].region); /* the same region in both */
    assert_int_equal(g.thinned[1].region, ma.regions[ra]);
    assert_int_equal(g.thinned[0].location, (1ull << 32) | 1);
    assert_int_equal(g.thinned[1].instances, 100);
    assert_int_equal(g.thinned[1].time_ns, 2000);
    hca_defs_map_free(&ma);
    hca_defs_map_free(&mb);
    hca_defs_free(&a);
    hca_defs_free(&b);
    hca_defs_free(&b2);
    hca_defs_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strings_are_deduplicated),
        cmocka_unit_test(serialization_round_trip),
        cmocka_unit_test(merge_deduplicates_and_maps),
        cmocka_unit_test(large_sets_merge_by_content),
        cmocka_unit_test(comm_keys_tell_communicators_apart),
        cmocka_unit_test(teams_merge_per_process),
        cmocka_unit_test(thinned_regions_merge_per_location),
    };
    return cmocka_run_group_tests_name("hca_defs", tests, NULL, NULL);
}
