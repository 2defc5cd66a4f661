/* mpi_call_cost.c: measures the cost per call of cheap MPI calls that
 * libhcatrace.so intercepts, so that the tracer's own cost per intercepted call
 * (the wrapper's time, without counters) is
 *     (ns per call with the tracer preloaded - ns per call without) .
 * bench/run.sh runs it both ways and prints the differences (docs/benchmarks.md).
 *
 * Each kind is a short sequence of intercepted calls whose MPI cost is small and
 * stable (MPI_PROC_NULL peers, MPI_COMM_SELF collectives, a message to self).
 * Kinds are timed in turn inside each batch, so slow phases of the machine hit
 * all kinds alike; after a warm-up batch, `batches` batches of `calls` repetitions
 * are timed with CLOCK_MONOTONIC and the median batch gives ns per intercepted
 * call. Works with any number of ranks (each rank runs the same loops on its own;
 * rank 0 prints). With the tracer, every call makes 2-4 events: the defaults
 * make about 6.5 million events per rank (a 90 MB trace, held in memory until
 * MPI_Finalize), so run it in a scratch directory.
 *
 * Usage: mpi_call_cost [calls_per_batch [batches [kinds]]]   (defaults 20000 11 all)
 * kinds: comma-separated names of the kinds to run (e.g. barrier_self), to
 * profile one wrapper path alone.
 * Output, one line per kind (lines starting with '#' are comments):
 *     call=send_proc_null calls_per_rep=1 ns_per_call=12.3 ns_min=11.9 ns_max=14.0
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, CLOCK_MONOTONIC under -std=c11 */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_BATCHES 1001

static int check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "mpi_call_cost: %s failed (%d)\n", what, rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return rc;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ---- the kinds: each runs `reps` repetitions of its call sequence ---------- */

/* MPI_Send to MPI_PROC_NULL: returns at once in MPI. */
static void send_proc_null(long reps)
{
    int x = 1;
    for (long i = 0; i < reps; i++)
        check(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD), "MPI_Send");
}

/* MPI_Iprobe from MPI_PROC_NULL: the tracer records only enter and leave. */
static void iprobe_proc_null(long reps)
{
    int flag;
    MPI_Status st;
    for (long i = 0; i < reps; i++)
        check(MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe");
}

/* MPI_Test of MPI_REQUEST_NULL. */
static void test_request_null(long reps)
{
    int flag;
    for (long i = 0; i < reps; i++) {
        MPI_Request r = MPI_REQUEST_NULL;
        check(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), "MPI_Test");
    }
}

/* MPI_Irecv from MPI_PROC_NULL + MPI_Wait: 2 intercepted calls. */
static void irecv_wait_proc_null(long reps)
{
    int x;
    for (long i = 0; i < reps; i++) {
        MPI_Request r;
        check(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r), "MPI_Irecv");
        check(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
    }
}

/* MPI_Barrier on MPI_COMM_SELF. */
static void barrier_self(long reps)
{
    for (long i = 0; i < reps; i++)
        check(MPI_Barrier(MPI_COMM_SELF), "MPI_Barrier");
}

/* MPI_Allreduce of 1 int on MPI_COMM_SELF. */
static void allreduce_self(long reps)
{
    int in = 1, out = 0;
    for (long i = 0; i < reps; i++)
        check(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF), "MPI_Allreduce");
}

/* MPI_Isend of 1 int to self + MPI_Recv + MPI_Wait, on MPI_COMM_SELF: 3 calls,
 * with a real message and a tracked request. */
static void isend_recv_wait_self(long reps)
{
    int in = 1, out = 0;
    for (long i = 0; i < reps; i++) {
        MPI_Request r;
        check(MPI_Isend(&in, 1, MPI_INT, 0, 7, MPI_COMM_SELF, &r), "MPI_Isend");
        check(MPI_Recv(&out, 1, MPI_INT, 0, 7, MPI_COMM_SELF, MPI_STATUS_IGNORE), "MPI_Recv");
        check(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
    }
}

typedef struct {
    const char *name;
    int calls_per_rep; /* intercepted MPI calls per repetition */
    void (*run)(long reps);
    int selected;
    double ns[MAX_BATCHES]; /* ns per intercepted call, per batch */
} kind;

static kind kinds[] = {
    { "send_proc_null", 1, send_proc_null, 1, { 0 } },
    { "iprobe_proc_null", 1, iprobe_proc_null, 1, { 0 } },
    { "test_request_null", 1, test_request_null, 1, { 0 } },
    { "irecv_wait_proc_null", 2, irecv_wait_proc_null, 1, { 0 } },
    { "barrier_self", 1, barrier_self, 1, { 0 } },
    { "allreduce_self_1int", 1, allreduce_self, 1, { 0 } },
    { "isend_recv_wait_self", 3, isend_recv_wait_self, 1, { 0 } },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static long parse_arg(const char *s, long lo, long hi, const char *what)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi) {
        fprintf(stderr, "mpi_call_cost: %s must be an integer in [%ld, %ld], not '%s'\n", what, lo, hi, s);
        exit(2);
    }
    return v;
}

/* Keeps only the kinds named in the comma-separated list. */
static void select_kinds(const char *list)
{
    for (size_t k = 0; k < NKINDS; k++) {
        size_t len = strlen(kinds[k].name);
        kinds[k].selected = 0;
        for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
            if (strncmp(p, kinds[k].name, len) == 0 && (p[len] == ',' || p[len] == 0))
                kinds[k].selected = 1;
    }
    for (size_t k = 0; k < NKINDS; k++)
        if (kinds[k].selected)
            return;
    fprintf(stderr, "mpi_call_cost: no known kind in '%s' (see --help)\n", list);
    exit(2);
}

int main(int argc, char **argv)
{
    long calls = 20000;
    int batches = 11;
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("usage: %s [calls_per_batch [batches [kind,...]]]   (defaults 20000 11 all)\nkinds:", argv[0]);
        for (size_t k = 0; k < NKINDS; k++)
            printf(" %s", kinds[k].name);
        printf("\n");
        return 0;
    }
    if (argc > 1)
        calls = parse_arg(argv[1], 1, 100000000, "calls_per_batch");
    if (argc > 2)
        batches = (int)parse_arg(argv[2], 1, MAX_BATCHES, "batches");
    if (argc > 3)
        select_kinds(argv[3]);

    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* warm-up: first-call paths, call-site table, page faults of the buffers */
    for (size_t k = 0; k < NKINDS; k++)
        if (kinds[k].selected)
            kinds[k].run(calls);
    MPI_Barrier(MPI_COMM_WORLD);

    for (int b = 0; b < batches; b++) {
        for (size_t k = 0; k < NKINDS; k++) {
            if (!kinds[k].selected)
                continue;
            double t0 = now_ns();
            kinds[k].run(calls);
            double t1 = now_ns();
            kinds[k].ns[b] = (t1 - t0) / ((double)calls * kinds[k].calls_per_rep);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        const char *pre = getenv("LD_PRELOAD");
        printf("# mpi_call_cost ranks=%d calls_per_batch=%ld batches=%d preload=%s\n", size, calls, batches,
               pre && *pre ? pre : "none");
        for (size_t k = 0; k < NKINDS; k++) {
            kind *kd = &kinds[k];
            if (!kd->selected)
                continue;
            qsort(kd->ns, (size_t)batches, sizeof(double), cmp_double);
            double med = batches % 2 ? kd->ns[batches / 2] : (kd->ns[batches / 2 - 1] + kd->ns[batches / 2]) / 2;
            printf("call=%s calls_per_rep=%d ns_per_call=%.1f ns_min=%.1f ns_max=%.1f\n", kd->name,
                   kd->calls_per_rep, med, kd->ns[0], kd->ns[batches - 1]);
        }
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
