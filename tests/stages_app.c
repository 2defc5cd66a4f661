/* stages_app.c: the shape of a hydrodynamics time step (LULESH's: a time
 * increment ending in one MPI_Allreduce, then nodal stages, element stages
 * and a time constraint), with fixed work per stage, recording its own exact
 * truth: the boundaries of its stage functions, so that hcafold's source bands,
 * shares and task-clock rates of the burst between two MPI_Allreduce calls can
 * be measured against them (tests/truth_bands.py, tests/e2e/fold_stages.sh,
 * docs/benchmarks.md "A public application against its own truth").
 *
 * Per step (CPU ms of one thread, split over the OpenMP threads):
 *   lagrange_nodal:    calc_force { integrate_stress 0.4 (one parallel loop),
 *                      calc_hourglass 1.6 (one parallel loop) }, then
 *                      calc_acceleration, calc_velocity, calc_position 0.03 each;
 *   lagrange_elements: calc_kinematics 0.41 (one parallel loop), calc_q 0.3,
 *                      material_properties 1.2 in 40 short parallel loops (the
 *                      many small regions of an equation of state);
 *   time_constraints:  0.05;
 * then time_increment's MPI_Allreduce. Work is fixed, not time.
 *
 * Truth: the master thread reads CLOCK_MONOTONIC and its CLOCK_THREAD_CPUTIME_ID
 * at each stage's entry and exit into a preallocated array, written at the end
 * to PREFIX.RANK in tests/truth_bands.py's format ("B t cpu" right after an
 * MPI_Allreduce returns, "E t cpu" right before the next is called,
 * "+ NAME t cpu" / "- NAME t cpu" around each stage).
 *
 * Usage: stages_app [STEPS [PREFIX]]   (default 300 steps, PREFIX "stages")
 * Output (rank 0): the steps and the chain steps per ms. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "chain_work.h"

#define EOS_LOOPS 40

enum { T_B, T_E, T_NODAL, T_FORCE, T_STRESS, T_HOURGLASS, T_ACCEL, T_VELOCITY, T_POSITION,
       T_ELEMENTS, T_KINEMATICS, T_Q, T_MATERIAL, T_CONSTRAINTS, T_COUNT };
static const char *const names[T_COUNT] = { "B", "E", "lagrange_nodal", "calc_force", "integrate_stress",
                                            "calc_hourglass", "calc_acceleration", "calc_velocity",
                                            "calc_position", "lagrange_elements", "calc_kinematics",
                                            "calc_q", "material_properties", "time_constraints" };

typedef struct {
    int tag, leave;
    long long t, cpu;
} event;

static event *events;
static size_t nevents, max_events;
static long per_ms; /* chain steps per ms of CPU time */
static volatile unsigned long sink;

static long long now_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* inlined where it records, as LULESH's recorder is (docs/proxy-apps.md):
 * a stage's last mark called as a function was a tail call, and a thread
 * preempted there (at its CPU-clock system call: the scheduler checks the
 * thread's slice when its CPU time is read) had no frame of the stage in its
 * stack, where the record puts that time in the stage */
static inline __attribute__((always_inline)) void mark(int tag, int leave)
{
    if (nevents == max_events)
        return;
    event *e = &events[nevents++];
    e->tag = tag;
    e->leave = leave;
    e->t = now_ns(CLOCK_MONOTONIC);
    e->cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* ms of one thread's work, shared by the team's threads in one parallel loop */
static void parallel_work(double ms)
{
    long n = (long)(ms * (double)per_ms);
#pragma omp parallel
    {
        unsigned long x = sink | 1;
#pragma omp for schedule(static)
        for (long i = 0; i < n; i += 1000)
            x = chain(x, 1000);
        if (x == 0)
            sink = x;
    }
}

static void serial_work(double ms)
{
    sink = chain(sink | 1, (long)(ms * (double)per_ms));
}

/* no two stages with the same body: GCC's identical code folding (-fipa-icf,
 * on at -O2) would make them one function, and every sample of the second
 * would name the first */
__attribute__((noinline)) static void integrate_stress(void) { parallel_work(0.4); }
__attribute__((noinline)) static void calc_hourglass(void) { parallel_work(1.6); }
__attribute__((noinline)) static void calc_acceleration(void) { serial_work(0.03); }
__attribute__((noinline)) static void calc_velocity(void) { serial_work(0.031); }
__attribute__((noinline)) static void calc_position(void) { serial_work(0.032); }
__attribute__((noinline)) static void calc_kinematics(void) { parallel_work(0.41); }
__attribute__((noinline)) static void calc_q(void) { serial_work(0.3); }
__attribute__((noinline)) static void time_constraints(void) { serial_work(0.05); }

__attribute__((noinline)) static void material_properties(void)
{
    for (int i = 0; i < EOS_LOOPS; i++)
        parallel_work(1.2 / EOS_LOOPS);
}

#define STAGE(tag, call) \
    do { \
        mark(tag, 0); \
        call; \
        mark(tag, 1); \
    } while (0)

__attribute__((noinline)) static void calc_force(void)
{
    STAGE(T_STRESS, integrate_stress());
    STAGE(T_HOURGLASS, calc_hourglass());
}

__attribute__((noinline)) static void lagrange_nodal(void)
{
    STAGE(T_FORCE, calc_force());
    STAGE(T_ACCEL, calc_acceleration());
    STAGE(T_VELOCITY, calc_velocity());
    STAGE(T_POSITION, calc_position());
}

__attribute__((noinline)) static void lagrange_elements(void)
{
    STAGE(T_KINEMATICS, calc_kinematics());
    STAGE(T_Q, calc_q());
    STAGE(T_MATERIAL, material_properties());
}

__attribute__((noinline)) static void lagrange_leapfrog(void)
{
    STAGE(T_NODAL, lagrange_nodal());
    STAGE(T_ELEMENTS, lagrange_elements());
    STAGE(T_CONSTRAINTS, time_constraints());
}

__attribute__((noinline)) static void time_increment(void)
{
    double dt = 1.0, newdt = 0.0;
    mark(T_E, 0);
    MPI_Allreduce(&dt, &newdt, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    mark(T_B, 0);
}

static void write_truth(const char *prefix, int rank)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s.%d", prefix, rank);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return;
    }
    for (size_t i = 0; i < nevents; i++) {
        const event *e = &events[i];
        if (e->tag == T_B || e->tag == T_E)
            fprintf(f, "%s %lld %lld\n", names[e->tag], e->t, e->cpu);
        else
            fprintf(f, "%c %s %lld %lld\n", e->leave ? '-' : '+', names[e->tag], e->t, e->cpu);
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int steps = argc > 1 ? atoi(argv[1]) : 300;
    const char *prefix = argc > 2 ? argv[2] : "stages";
    if (steps < 1)
        steps = 1;
    max_events = (size_t)steps * 2 * T_COUNT + 16;
    events = calloc(max_events, sizeof(*events)); /* calloc'ed and touched: no page faults while recording */
    if (!events) {
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    for (size_t i = 0; i < max_events; i++)
        events[i].tag = -1;
    per_ms = chain_calibrate(&sink);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int s = 0; s < steps; s++) {
        time_increment();
        lagrange_leapfrog();
    }
    time_increment();
    MPI_Barrier(MPI_COMM_WORLD);
    write_truth(prefix, rank);
    if (rank == 0)
        printf("stages_app: %d steps, %ld chain steps per ms\n", steps, per_ms);
    free(events);
    MPI_Finalize();
    return 0;
}
