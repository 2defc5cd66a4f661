/* truth_app.c: an MPI program that records its own exact truth, so that a fold
 * of its trace can be measured against it (tests/truth_fold.py,
 * tests/e2e/fold_truth.sh, issue 17). Each rank runs N iterations of a user
 * region "truth_iter" (include/hcatrace.h) with three phases of fixed work,
 * then an MPI_Barrier outside the region:
 *   phase_compute: a dependent integer chain: one CPU, no page faults;
 *   phase_faults:  touches fresh anonymous pages in bursts with 0.2 ms sleeps
 *                  between them: many page faults, part of a CPU;
 *   phase_wait:    asleep in 0.5 ms slices: no CPU, no faults.
 * Work is fixed, not time: on a loaded machine the phases stretch as the
 * thread gets less of a CPU. While it runs, the thread records (monotonic
 * time, its own CPU time from CLOCK_THREAD_CPUTIME_ID and from perf's
 * task-clock, its page faults from getrusage(RUSAGE_THREAD)) every ~0.1 ms
 * of wall time, around every sleep and at every phase change, into memory;
 * at the end each rank writes them to PREFIX.RANK:
 *   "I iter"                      an instance starts (records follow)
 *   "R t_ns cpu_ns faults phase task_clock_ns"  one record (phase 0..2; 3 =
 *                                 the instance's end; task_clock_ns: perf's
 *                                 task-clock of the thread, -1 if it cannot
 *                                 be opened here)
 * The first record of an instance is taken right after the region's begin
 * marker, the last right before its end marker.
 *
 * Usage: truth_app [N [PREFIX]]   (default 300 iterations, PREFIX "truth")
 * Output (rank 0): the iterations, the work per phase_compute, and how many
 * of its sleeps a signal cut short (nanosleep returned EINTR), all ranks. */
#define _GNU_SOURCE
#include <hcatrace.h>
#include <linux/perf_event.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "chain_work.h"

#define COMPUTE_MS 4.0     /* CPU time of phase_compute */
#define FAULT_BURSTS 10    /* phase_faults: bursts of pages, each followed by a sleep */
#define FAULT_PAGES 48     /* pages per burst */
#define FAULT_SLEEP_NS 200000L
#define WAIT_SLICES 6      /* phase_wait: sleeps of 0.5 ms */
#define WAIT_SLICE_NS 500000L
#define RECORD_EVERY_NS 100000ull
#define MAX_RECORDS_PER_ITER 2048

typedef struct {
    unsigned long long t, cpu, faults, task_clock;
    int phase;
} record;

static record *records;
static size_t nrecords, max_records;
static int *iter_first; /* index of an iteration's first record */
static unsigned long long last_record_t;
static long interrupted_sleeps; /* nanosleep calls that returned early (EINTR) */
static volatile unsigned long sink;
static int task_clock_fd = -1; /* the thread's own perf task-clock, as the tracer counts it */

/* perf's task-clock of this thread, counted as the tracer counts it (user
 * space; software): it leaves out the kernel's context-switch path that
 * CLOCK_THREAD_CPUTIME_ID includes, about 10-20 us per sleep in a VM */
static void open_task_clock(void)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof(attr));
    attr.size = sizeof(attr);
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    task_clock_fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

static unsigned long long task_clock_ns(void)
{
    unsigned long long v;
    if (task_clock_fd < 0 || read(task_clock_fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
        return ~0ull;
    return v;
}

static unsigned long long clock_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static void take_record(int phase)
{
    if (nrecords == max_records)
        return;
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    record *r = &records[nrecords++];
    r->t = clock_ns(CLOCK_MONOTONIC);
    r->cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    r->faults = (unsigned long long)(ru.ru_minflt + ru.ru_majflt);
    r->task_clock = task_clock_ns();
    r->phase = phase;
    last_record_t = r->t;
}

/* a record when ~0.1 ms of wall time passed since the last one */
static void maybe_record(int phase)
{
    if (clock_ns(CLOCK_MONOTONIC) - last_record_t >= RECORD_EVERY_NS)
        take_record(phase);
}

__attribute__((noinline)) static void phase_compute(long steps)
{
    unsigned long x = sink | 1;
    const long chunk = 2000; /* a few microseconds between the clock checks */
    for (long done = 0; done < steps; done += chunk) {
        x = chain(x, chunk);
        maybe_record(0);
    }
    sink = x;
}

__attribute__((noinline)) static void phase_faults(long page)
{
    struct timespec nap = { 0, FAULT_SLEEP_NS };
    for (int b = 0; b < FAULT_BURSTS; b++) {
        size_t len = (size_t)FAULT_PAGES * (size_t)page;
        char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return;
        for (size_t off = 0; off < len; off += (size_t)page) {
            p[off] = (char)off;
            maybe_record(1);
        }
        munmap(p, len);
        take_record(1);
        if (nanosleep(&nap, NULL) != 0)
            interrupted_sleeps++;
        take_record(1);
    }
}

__attribute__((noinline)) static void phase_wait(void)
{
    struct timespec slice = { 0, WAIT_SLICE_NS };
    for (int s = 0; s < WAIT_SLICES; s++) {
        if (nanosleep(&slice, NULL) != 0)
            interrupted_sleeps++;
        take_record(2);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = argc > 1 ? atoi(argv[1]) : 300;
    const char *prefix = argc > 2 ? argv[2] : "truth";
    if (n <= 0 || n > 100000) {
        if (rank == 0)
            fprintf(stderr, "usage: %s [N [PREFIX]]\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    max_records = (size_t)n * MAX_RECORDS_PER_ITER;
    records = malloc(max_records * sizeof(*records));
    iter_first = malloc((size_t)n * sizeof(*iter_first));
    if (!records || !iter_first)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(records, 0, max_records * sizeof(*records)); /* touched now: no faults later */
    long steps = (long)((double)chain_calibrate(&sink) * COMPUTE_MS);
    long page = sysconf(_SC_PAGESIZE);
    open_task_clock();
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < n; i++) {
        HCATRACE_BEGIN("truth_iter");
        iter_first[i] = (int)nrecords;
        take_record(0);
        phase_compute(steps);
        take_record(1);
        phase_faults(page);
        take_record(2);
        phase_wait();
        take_record(3);
        HCATRACE_END("truth_iter");
        MPI_Barrier(MPI_COMM_WORLD);
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s.%d", prefix, rank);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < n; i++) {
        size_t end = i + 1 < n ? (size_t)iter_first[i + 1] : nrecords;
        fprintf(f, "I %d\n", i);
        for (size_t k = (size_t)iter_first[i]; k < end; k++)
            fprintf(f, "R %llu %llu %llu %d %lld\n", records[k].t, records[k].cpu, records[k].faults, records[k].phase,
                    records[k].task_clock == ~0ull ? -1ll : (long long)records[k].task_clock);
    }
    fclose(f);
    long interrupted = 0;
    MPI_Reduce(&interrupted_sleeps, &interrupted, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("truth_app: %d iterations, %ld chain steps per phase_compute, records in %s.RANK, "
               "%ld sleeps interrupted\n",
               n, steps, prefix, interrupted);
    free(records);
    free(iter_first);
    MPI_Finalize();
    return 0;
}
