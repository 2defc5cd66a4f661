/* hold_gettid.c: a test interposer (LD_PRELOAD before the tracer) whose
 * syscall(SYS_gettid) first spins 3 ms on the clock: the thread held between
 * the tracer's clock reading for a deferred sample and the queueing of its
 * signal (hct_sample_raise_deferred), as a preemption there on a loaded
 * machine held it (tests/e2e/openmp_wait.sh, docs/benchmarks.md). Other
 * system calls pass through unchanged. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <time.h>

#define HOLD_NS 3000000L

typedef long (*syscall_fn)(long, ...);

static long elapsed_ns(const struct timespec *from, const struct timespec *to)
{
    return (to->tv_sec - from->tv_sec) * 1000000000L + (to->tv_nsec - from->tv_nsec);
}

long syscall(long nr, ...)
{
    static syscall_fn real;
    if (!real)
        real = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
    va_list ap;
    va_start(ap, nr);
    long arg[6];
    for (int i = 0; i < 6; i++)
        arg[i] = va_arg(ap, long);
    va_end(ap);
    if (nr == SYS_gettid) {
        struct timespec start, now;
        clock_gettime(CLOCK_MONOTONIC, &start);
        do
            clock_gettime(CLOCK_MONOTONIC, &now);
        while (elapsed_ns(&start, &now) < HOLD_NS);
    }
    return real(nr, arg[0], arg[1], arg[2], arg[3], arg[4], arg[5]);
}
