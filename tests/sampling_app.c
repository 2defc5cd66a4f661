/* sampling_app.c: test program with known phases for the sampling and counter
 * tests (tests/e2e/sampling.sh). Each phase is a user region (hcatrace.h):
 *   "fresh"  touches MIB MiB of freshly mapped pages (4 KiB pages, no huge
 *            pages): the page-fault counter rises by about MIB*256;
 *   "flat"   computes on a small array for MS ms of this thread's CPU time,
 *            touching no new page;
 *   "worker" a second thread (pthread_create) computes for MS ms of its own CPU
 *            time, while the main thread waits in pthread_join.
 * The computation is busy_leaf(), called from busy_middle() (not a tail call),
 * called from flat_phase() or worker_phase(), so sampled stacks show
 * busy_leaf <- busy_middle <- flat_phase | worker_phase; the lines are marked
 * LINE:<name> for the tests.
 * Usage: sampling_app [MS [MIB]]   (defaults 600 64). Prints one line,
 * "sampling_app: <checksum>", identical with and without the tracer. */
#define _GNU_SOURCE
#include <hcatrace.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double small[512];

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

__attribute__((noinline)) double busy_leaf(long n)
{
    double acc = 0.0;
    for (long i = 0; i < n; i++) {
        double *p = &small[i & 511];
        *p = *p * 0.999 + 1e-3; /* LINE:leaf */
        acc += *p;
    }
    return acc;
}

__attribute__((noinline)) double busy_middle(long n)
{
    double r = busy_leaf(n); /* LINE:middle_call */
    return r * 0.5 + 1.0;
}

/* Deterministic amount of work per chunk; as many chunks as fit in ms of CPU
 * time. The checksum depends on the chunk count only through its parity. */
__attribute__((noinline)) static double busy_for(double ms, double (*fn)(long))
{
    double start = cpu_ms(), acc = 0.0;
    long chunks = 0;
    while (cpu_ms() - start < ms) {
        acc += fn(400000); /* a few ms: few system calls (clock_gettime) */
        chunks++;
    }
    return acc > 0 ? 1.0 : 0.0;
}

__attribute__((noinline)) double flat_phase(double ms)
{
    double r = busy_for(ms, busy_middle); /* LINE:flat_call */
    return r + 0.0;
}

__attribute__((noinline)) double worker_phase(double ms)
{
    double r = busy_for(ms, busy_middle); /* LINE:worker_call */
    return r + 0.0;
}

static double worker_ms;
static double worker_result;

static void *worker(void *arg)
{
    (void)arg;
    HCATRACE_BEGIN("worker");
    worker_result = worker_phase(worker_ms);
    HCATRACE_END("worker");
    return NULL;
}

static long fresh_pages(long mib)
{
    size_t len = (size_t)mib << 20;
    unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    madvise(p, len, MADV_NOHUGEPAGE);
    long sum = 0;
    for (size_t off = 0; off < len; off += 4096) {
        p[off] = (unsigned char)(off >> 12);
        sum += p[off];
    }
    munmap(p, len);
    return sum;
}

int main(int argc, char **argv)
{
    double ms = argc > 1 ? atof(argv[1]) : 600.0;
    long mib = argc > 2 ? atol(argv[2]) : 64;
    if (ms <= 0 || mib <= 0) {
        fprintf(stderr, "usage: %s [MS [MIB]]\n", argv[0]);
        return 2;
    }
    memset(small, 0, sizeof(small));

    HCATRACE_BEGIN("fresh");
    long touched = fresh_pages(mib);
    HCATRACE_END("fresh");

    HCATRACE_BEGIN("flat");
    double r = flat_phase(ms);
    HCATRACE_END("flat");

    worker_ms = ms;
    pthread_t th;
    if (pthread_create(&th, NULL, worker, NULL) != 0) {
        fprintf(stderr, "sampling_app: pthread_create failed\n");
        return 1;
    }
    pthread_join(th, NULL);
    printf("sampling_app: %ld %.1f %.1f\n", touched, r, worker_result);
    return 0;
}
