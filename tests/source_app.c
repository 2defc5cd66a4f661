/* source_app.c: test program for the counter sources (tests/e2e/counter_source.sh):
 * two threads, the second started late, each running N times three marker
 * regions with known software counts, and printing its own values of each
 * instance, read just outside the region (right before its begin, right after
 * its end), and the window's wall-clock time: "spinT" spins for 1 ms of wall-clock time (reading only the
 * monotonic clock: nothing brings the scheduler's count of its CPU time up
 * to date before the region's end), "touchT" writes to 64 fresh pages (64
 * minor faults), "sleepT" sleeps 5 times 200 us (at least 5 voluntary context
 * switches); T is the thread (0, 1). Lines: "truth REGION INSTANCE CPU_NS
 * FAULTS SWITCHES WALL_NS". */
#define _GNU_SOURCE
#include <hcatrace.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define PAGES 64

static int iterations = 20;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
    uint64_t cpu_ns, faults, switches, wall_ns;
} own_values;

static uint64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* the thread's values; the wall clock read outermost, so that the window's
 * wall time holds its CPU time */
static void own_begin(own_values *v)
{
    struct timespec ts;
    struct rusage ru;
    v->wall_ns = wall_ns();
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    getrusage(RUSAGE_THREAD, &ru);
    v->cpu_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    v->faults = (uint64_t)(ru.ru_minflt + ru.ru_majflt);
    v->switches = (uint64_t)(ru.ru_nvcsw + ru.ru_nivcsw);
}

static void own_end(own_values *v)
{
    own_begin(v);
    v->wall_ns = wall_ns();
}

static void report(const char *region, int i, const own_values *a, const own_values *b)
{
    pthread_mutex_lock(&out_lock);
    printf("truth %s %d %llu %llu %llu %llu\n", region, i, (unsigned long long)(b->cpu_ns - a->cpu_ns),
           (unsigned long long)(b->faults - a->faults), (unsigned long long)(b->switches - a->switches),
           (unsigned long long)(b->wall_ns - a->wall_ns));
    pthread_mutex_unlock(&out_lock);
}

static volatile double sink;

static void spin(uint64_t ns)
{
    uint64_t from = wall_ns();
    double s = 0;
    do
        for (int j = 0; j < 2000; j++)
            s += j * 1e-9;
    while (wall_ns() - from < ns);
    sink += s;
}

static void run(int thread)
{
    char spin_name[16], touch_name[16], sleep_name[16];
    snprintf(spin_name, sizeof(spin_name), "spin%d", thread);
    snprintf(touch_name, sizeof(touch_name), "touch%d", thread);
    snprintf(sleep_name, sizeof(sleep_name), "sleep%d", thread);
    long page = sysconf(_SC_PAGESIZE);
    for (int i = 0; i < iterations; i++) {
        own_values a, b;
        char *mem = mmap(NULL, (size_t)page * PAGES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mem == MAP_FAILED)
            return;

        own_begin(&a);
        HCATRACE_BEGIN(spin_name);
        spin(1000000);
        HCATRACE_END(spin_name);
        own_end(&b);
        report(spin_name, i, &a, &b);

        own_begin(&a);
        HCATRACE_BEGIN(touch_name);
        for (int p = 0; p < PAGES; p++)
            mem[(size_t)p * (size_t)page] = 1;
        HCATRACE_END(touch_name);
        own_end(&b);
        report(touch_name, i, &a, &b);

        own_begin(&a);
        HCATRACE_BEGIN(sleep_name);
        for (int k = 0; k < 5; k++) {
            struct timespec w = { 0, 200000 };
            nanosleep(&w, NULL);
        }
        HCATRACE_END(sleep_name);
        own_end(&b);
        report(sleep_name, i, &a, &b);
        munmap(mem, (size_t)page * PAGES);
    }
}

static void *second(void *arg)
{
    (void)arg;
    run(1);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1 && sscanf(argv[1], "%d", &iterations) != 1)
        return 2;
    pthread_t th;
    /* the second thread starts late: after the first has been counting a while */
    HCATRACE_BEGIN("warmup");
    spin(2000000);
    HCATRACE_END("warmup");
    if (pthread_create(&th, NULL, second, NULL) != 0)
        return 1;
    run(0);
    pthread_join(th, NULL);
    printf("source_app: done\n");
    return 0;
}
