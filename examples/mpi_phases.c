/*
 * mpi_phases.c - iterative MPI program with a KNOWN per-iteration structure,
 * used to validate the tracer (libhcatrace.so) and the folding analysis.
 *
 * Usage: mpi_phases [-n ITERATIONS] [-s SIZE] [-p MIB] [-e CODE] [-q]
 *   -n ITERATIONS  number of iterations (default 200)
 *   -s SIZE        work unit: phase_norm updates SIZE grid points, phase_stencil
 *                  4*SIZE and phase_update 5*SIZE (10*SIZE per iteration).
 *                  The default (DEFAULT_SIZE) makes one iteration take about
 *                  20 ms on a 2 GHz core with 2 ranks.
 *   -p MIB         phase_norm also touches MIB MiB of freshly mapped pages, so
 *                  that page faults happen in that phase only (default 0)
 *   -e CODE        exit with CODE (0..255) after MPI_Finalize (default 0)
 *   -q             quiet: no timing summary on stderr
 * Bad arguments: usage on stderr, exit code 2 (before MPI is initialized).
 *
 * One iteration, in this order:
 *   phase_stencil()      40 % of the compute (4*SIZE point updates)
 *   exchange_halo()      ring halo exchange: 2 x MPI_Irecv, 2 x MPI_Isend,
 *                        MPI_Waitall            (marker waitall_halo)
 *   phase_update()       50 % of the compute (5*SIZE point updates)
 *   reduce_residual()    MPI_Allreduce (SUM)    (marker allreduce_residual)
 *   phase_norm()         10 % of the compute (1*SIZE point updates)
 *   check_convergence()  MPI_Allreduce (MAX)    (marker allreduce_convergence)
 *   iterations i = 10, 20, 30, ... (1-based; i.e. (it+1) % 10 == 0 for
 *   0-based it): MPI_Bcast from rank 0 (marker bcast_params) then
 *   MPI_Barrier (marker barrier_params).
 * All compute goes through the same kernel (run_kernel), so the 40/50/10 split
 * is a split of the work amount; the kernel is deterministic floating-point
 * work (an in-place 5-point smoothing sweep over a cache-resident grid, with a
 * loop-carried dependency so it is latency bound and not vectorized).
 *
 * Before the loop: MPI_Init_thread (MPI_THREAD_FUNNELED), MPI_Comm_rank,
 * MPI_Comm_size, MPI_Comm_split (even/odd ranks), MPI_Comm_dup (world).
 * After the loop: MPI_Reduce on the split communicator, MPI_Gather of the
 * checksums on the dup, MPI_Comm_free (split), MPI_Comm_free (dup),
 * MPI_Gather of the call counts on MPI_COMM_WORLD, MPI_Finalize.
 *
 * COUNTED CALLS: every MPI call the program makes is counted except
 * MPI_Comm_rank, MPI_Comm_size, MPI_Initialized and MPI_Wtime. Counted:
 * MPI_Init_thread, MPI_Comm_split, MPI_Comm_dup, MPI_Irecv, MPI_Isend,
 * MPI_Waitall, MPI_Allreduce, MPI_Bcast, MPI_Barrier, MPI_Reduce,
 * MPI_Gather (both), MPI_Comm_free (both), MPI_Finalize.
 * Per rank, for N iterations and any number of ranks:
 *
 *   calls = 9 + 7*N + 2*(N/10)          (N/10 is integer division)
 *
 *   3 before the loop (Init_thread, Comm_split, Comm_dup)
 *   7 per iteration   (Irecv x2, Isend x2, Waitall, Allreduce x2)
 *   2 per 10th iter.  (Bcast, Barrier)
 *   6 at the end      (Reduce, Gather, Comm_free x2, Gather, Finalize)
 * e.g. N=200: 1449, N=50: 369, N=1: 16. The count a rank reports includes the
 * final MPI_Gather of the counts and MPI_Finalize (it is checked after
 * MPI_Finalize; a mismatch is an error, exit code 1).
 *
 * OUTPUT: rank 0 prints, in rank order, one line per rank on stdout:
 *   mpi_phases: rank R calls N checksum X      (X printed with %.6e)
 * The checksum is deterministic: the grid values depend only on the rank, the
 * rank count and the arguments, and everything reduced across ranks is
 * quantized to integer-valued doubles first (exact in any reduction order).
 *
 * Every MPI call sits on one line that ends with a comment "CALLSITE:" + name
 * (the markers named above), so
 * tests can find its line number with grep.
 */
#define _POSIX_C_SOURCE 200809L

#define _DEFAULT_SOURCE /* MAP_ANONYMOUS with -std=c11 */
#include <errno.h>
#include <hcatrace.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define DEFAULT_ITERATIONS 200
#define DEFAULT_SIZE 350000L
#define MAX_SIZE 100000000L

#define NLOC 4096 /* interior grid points per rank (32 KiB: stays in cache) */
#define HALO 2    /* ghost points on each side (5-point stencil) */
#define NPARAMS 4 /* doubles broadcast from rank 0 */

#define COUNTED(call) (mpi_calls++, (call))

static long long mpi_calls;

static double grid[NLOC + 2 * HALO];
static double params[NPARAMS] = {0.999, 1.0, 0.0, 0.0};

/* Same kernel for every phase: npoints in-place point updates. */
__attribute__((noinline)) double run_kernel(long npoints)
{
    const double damp = params[0];
    const double src = (1.0 - damp) * params[1];
    double acc = 0.0;

    while (npoints > 0) {
        const long n = npoints < NLOC ? npoints : NLOC;
        for (long j = HALO; j < HALO + n; j++) {
            const double v = 0.5 * grid[j] + 0.2 * (grid[j - 1] + grid[j + 1]) +
                             0.05 * (grid[j - 2] + grid[j + 2]);
            grid[j] = damp * v + src;
            acc += grid[j];
        }
        npoints -= n;
    }
    return acc;
}

/* An empty statement the compiler may not move: it keeps the call to
 * run_kernel from becoming a tail jump, so each phase keeps its own stack frame
 * and samples show main -> phase_* -> run_kernel. */
#define KEEP_FRAME() __asm__ volatile("" ::: "memory")

__attribute__((noinline)) double phase_stencil(long size)
{
    const double r = run_kernel(4 * size);
    KEEP_FRAME();
    return r;
}

__attribute__((noinline)) double phase_update(long size)
{
    const double r = run_kernel(5 * size);
    KEEP_FRAME();
    return r;
}

/* -p MIB: phase_norm also touches MIB MiB of freshly mapped memory, so page
 * faults happen in that phase and nowhere else (a known counter signature). */
static long fresh_mib;

static double touch_fresh_pages(void)
{
    const size_t bytes = (size_t)fresh_mib << 20;
    unsigned char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 0.0;
    double sum = 0.0;
    for (size_t i = 0; i < bytes; i += 4096) {
        p[i] = (unsigned char)i;
        sum += p[i];
    }
    munmap(p, bytes);
    return sum * 1e-12;
}

__attribute__((noinline)) double phase_norm(long size)
{
    const double r = run_kernel(size) + (fresh_mib ? touch_fresh_pages() : 0.0);
    KEEP_FRAME();
    return r;
}

/* Ring halo exchange: our edges go to the neighbours, theirs land in our ghosts. */
__attribute__((noinline)) void exchange_halo(int left, int right)
{
    static double send_left[HALO], send_right[HALO];
    static double recv_left[HALO], recv_right[HALO];
    MPI_Request req[4];

    for (int k = 0; k < HALO; k++) {
        send_left[k] = grid[HALO + k];
        send_right[k] = grid[NLOC + k];
    }
    COUNTED(MPI_Irecv(recv_left, HALO, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0])); /* CALLSITE:irecv_left */
    COUNTED(MPI_Irecv(recv_right, HALO, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1])); /* CALLSITE:irecv_right */
    COUNTED(MPI_Isend(send_right, HALO, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[2])); /* CALLSITE:isend_right */
    COUNTED(MPI_Isend(send_left, HALO, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[3])); /* CALLSITE:isend_left */
    COUNTED(MPI_Waitall(4, req, MPI_STATUSES_IGNORE)); /* CALLSITE:waitall_halo */
    for (int k = 0; k < HALO; k++) {
        grid[k] = recv_left[k];
        grid[NLOC + HALO + k] = recv_right[k];
    }
}

/* Quantize to an integer-valued double so sums are exact in any order. */
static double quantize(double x)
{
    return nearbyint(x * 1048576.0);
}

__attribute__((noinline)) double reduce_residual(double local)
{
    double q = quantize(local), sum = 0.0;
    COUNTED(MPI_Allreduce(&q, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD)); /* CALLSITE:allreduce_residual */
    return sum / 1048576.0;
}

__attribute__((noinline)) double check_convergence(double local)
{
    double q = quantize(local), max = 0.0;
    COUNTED(MPI_Allreduce(&q, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD)); /* CALLSITE:allreduce_convergence */
    return max / 1048576.0;
}

__attribute__((noinline)) void broadcast_params(int rank, int it)
{
    if (rank == 0) {
        /* new source strength, deterministic in the iteration number */
        params[1] = 1.0 + 0.25 * (double)((it / 10) % 4);
    }
    COUNTED(MPI_Bcast(params, NPARAMS, MPI_DOUBLE, 0, MPI_COMM_WORLD)); /* CALLSITE:bcast_params */
    COUNTED(MPI_Barrier(MPI_COMM_WORLD)); /* CALLSITE:barrier_params */
}

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [-n ITERATIONS] [-s SIZE] [-p MIB] [-e CODE] [-q]\n"
            "  -n ITERATIONS  iterations (default %d)\n"
            "  -s SIZE        work size per phase unit (default %ld; 1..%ld)\n"
            "  -p MIB         phase_norm also touches MIB MiB of fresh pages (default 0)\n"
            "  -e CODE        exit code after MPI_Finalize (0..255, default 0)\n"
            "  -q             quiet\n",
            prog, DEFAULT_ITERATIONS, DEFAULT_SIZE, MAX_SIZE);
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end = NULL;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    long iterations = DEFAULT_ITERATIONS, size = DEFAULT_SIZE, exit_code = 0;
    int quiet = 0, opt;

    while ((opt = getopt(argc, argv, "n:s:p:e:q")) != -1) {
        switch (opt) {
        case 'n':
            if (parse_long(optarg, 0, INT_MAX, &iterations) != 0) {
                usage(argv[0]);
                return 2;
            }
            break;
        case 's':
            if (parse_long(optarg, 1, MAX_SIZE, &size) != 0) {
                usage(argv[0]);
                return 2;
            }
            break;
        case 'p':
            if (parse_long(optarg, 0, 1024, &fresh_mib) != 0) {
                usage(argv[0]);
                return 2;
            }
            break;
        case 'e':
            if (parse_long(optarg, 0, 255, &exit_code) != 0) {
                usage(argv[0]);
                return 2;
            }
            break;
        case 'q':
            quiet = 1;
            break;
        default:
            usage(argv[0]);
            return 2;
        }
    }
    if (optind != argc) {
        usage(argv[0]);
        return 2;
    }

    int provided = MPI_THREAD_SINGLE, rank = 0, nranks = 1;
    MPI_Comm split_comm = MPI_COMM_NULL, dup_comm = MPI_COMM_NULL;

    COUNTED(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided)); /* CALLSITE:init_thread */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    COUNTED(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split_comm)); /* CALLSITE:comm_split */
    COUNTED(MPI_Comm_dup(MPI_COMM_WORLD, &dup_comm)); /* CALLSITE:comm_dup */

    const int left = (rank + nranks - 1) % nranks;
    const int right = (rank + 1) % nranks;

    /* deterministic, rank-dependent initial grid (ghosts included) */
    for (int j = 0; j < NLOC + 2 * HALO; j++)
        grid[j] = 1.0 + 0.5 * sin(0.01 * (double)j + 0.7 * (double)rank);

    double checksum = 0.0;
    const double t0 = MPI_Wtime();
    for (long it = 0; it < iterations; it++) {
        HCATRACE_BEGIN("iteration"); /* optional marker: a no-op without libhcatrace.so */
        const double s = phase_stencil(size);
        exchange_halo(left, right);
        const double u = phase_update(size);
        const double resid = reduce_residual(u / (5.0 * (double)size));
        const double nrm = phase_norm(size);
        const double conv = check_convergence(nrm / (double)size);
        if ((it + 1) % 10 == 0)
            broadcast_params(rank, (int)it);
        checksum += 1e-6 * (s + u + nrm) + resid + conv;
        HCATRACE_END("iteration");
    }
    const double elapsed = MPI_Wtime() - t0;

    /* end-of-run collectives on the derived communicators */
    double split_sum = 0.0;
    double qsum = quantize(checksum);
    COUNTED(MPI_Reduce(&qsum, &split_sum, 1, MPI_DOUBLE, MPI_SUM, 0, split_comm)); /* CALLSITE:reduce_split */

    double *all_checksums = NULL;
    long long *all_counts = NULL;
    if (rank == 0) {
        all_checksums = malloc((size_t)nranks * sizeof *all_checksums);
        all_counts = malloc((size_t)nranks * sizeof *all_counts);
        if (all_checksums == NULL || all_counts == NULL) {
            fprintf(stderr, "mpi_phases: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    COUNTED(MPI_Gather(&checksum, 1, MPI_DOUBLE, all_checksums, 1, MPI_DOUBLE, 0, dup_comm)); /* CALLSITE:gather_dup */
    COUNTED(MPI_Comm_free(&split_comm)); /* CALLSITE:comm_free_split */
    COUNTED(MPI_Comm_free(&dup_comm)); /* CALLSITE:comm_free_dup */

    /* the count reported includes this gather and MPI_Finalize */
    long long final_count = mpi_calls + 2;
    COUNTED(MPI_Gather(&final_count, 1, MPI_LONG_LONG, all_counts, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD)); /* CALLSITE:gather_counts */

    if (rank == 0) {
        for (int r = 0; r < nranks; r++)
            printf("mpi_phases: rank %d calls %lld checksum %.6e\n", r, all_counts[r],
                   all_checksums[r]);
        fflush(stdout);
        if (!quiet) {
            fprintf(stderr,
                    "mpi_phases: %d ranks, %ld iterations, size %ld, %.3f ms/iteration, "
                    "thread level %d, even/odd reduce %.6e\n",
                    nranks, iterations, size,
                    iterations > 0 ? 1e3 * elapsed / (double)iterations : 0.0, provided,
                    split_sum / 1048576.0);
        }
        free(all_checksums);
        free(all_counts);
    }

    COUNTED(MPI_Finalize()); /* CALLSITE:finalize */

    if (mpi_calls != final_count) {
        fprintf(stderr, "mpi_phases: rank %d counted %lld calls, reported %lld\n", rank,
                mpi_calls, final_count);
        return 1;
    }
    return (int)exit_code;
}
