/*
 * cg_app.c - test proxy of the shape of a 2-D conjugate-gradient heat solver
 * (MPI + OpenMP, as TeaLeaf-like codes are written), with a KNOWN structure,
 * for checking the regions and bands hcafold shows on such codes:
 *
 *   - a strip decomposition along y: a rank has 0, 1 or 2 neighbours (none
 *     with one rank); the halo exchange (exchange_halo) posts MPI_Irecv and
 *     MPI_Isend per neighbour, in a helper per neighbour (send_recv_up,
 *     send_recv_down: the exchange's first MPI call is in one or the other
 *     depending on the rank), waits in MPI_Waitall, then unpacks the halo
 *     (unpack_halo) in the same function: a burst that starts in a helper
 *     and runs on in other functions of the solver;
 *   - every reduction goes through ONE MPI_Allreduce in global_sum, as a
 *     code's "allsum" helper does; a CG iteration is
 *         exchange_halo  (messages, then unpack_halo: UNPACK_UNITS units)
 *         cg_calc_w      (w = A p: STENCIL_UNITS units)
 *         global_sum     (p.w)
 *         cg_calc_ur     (u += a p, r -= a w: UR_UNITS units)
 *         global_sum     (r.r)
 *         cg_calc_p      (p = r + b p: P_UNITS units)
 *     all called from cg_solve, so the burst from the halo's MPI_Waitall to
 *     the reduction runs unpack_halo (in exchange_halo) then cg_calc_w; with
 *     one rank (no halo messages) the bursts between consecutive reductions
 *     are two different code paths with the same opening and closing call
 *     site (cg_calc_ur; cg_calc_p, exchange_halo then cg_calc_w), of different
 *     durations (UR_UNITS vs P_UNITS + UNPACK_UNITS + STENCIL_UNITS);
 *   - the kernels are OpenMP loops over rows (schedule static, uneven rows:
 *     the threads wait in the runtime's barrier at each loop's end).
 *
 * Usage: cg_app [-n ITERATIONS] [-s EDGE] [-w SWEEPS] [-q]
 *   -n ITERATIONS  CG iterations (default 200)
 *   -s EDGE        local grid edge, cells per dimension (default 64)
 *   -w SWEEPS      passes over the grid per work unit (default 10)
 *   -q             quiet: no checksum line
 * Bad arguments: usage on stderr, exit code 2 (before MPI is initialized).
 * Output: rank 0 prints "cg_app: ranks P checksum X"; X is deterministic.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define STENCIL_UNITS 4
#define UR_UNITS 1
#define P_UNITS 1
#define UNPACK_UNITS 3

static int edge = 64, sweeps = 10;
static int up = -1, down = -1;       /* neighbour ranks, -1 at the domain's edge */
static double *p, *w, *r, *u;         /* (edge + 2) x (edge + 2), one ghost layer */
static double *halo_in[2], *halo_out[2];

#define AT(a, i, j) ((a)[(size_t)(i) * (size_t)(edge + 2) + (size_t)(j)])

/* An empty statement the compiler may not move: keeps each function's frame. */
#define KEEP_FRAME() __asm__ volatile("" ::: "memory")

/* The one reduction of the solver: every dot product goes through here. */
__attribute__((noinline)) double global_sum(double local)
{
    double total = 0.0;
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    KEEP_FRAME();
    return total;
}

__attribute__((noinline)) void unpack_halo(void)
{
    for (int s = 0; s < UNPACK_UNITS * sweeps; s++)
        for (int i = 1; i <= edge; i++)
            for (int j = 1; j <= edge; j++) /* a loop-carried smoothing: latency bound */
                AT(p, i, j) = 0.999 * AT(p, i, j) + 0.0005 * (AT(p, i, j - 1) + AT(p, i - 1, j));
    for (int j = 1; j <= edge; j++) {
        if (up >= 0)
            AT(p, 0, j) = halo_in[0][j - 1];
        if (down >= 0)
            AT(p, edge + 1, j) = halo_in[1][j - 1];
    }
    KEEP_FRAME();
}

/* The messages with the neighbour above, in a helper of their own (as
 * CloverLeaf's clover_send_recv_message_left/right): the halo's first MPI
 * call is in send_recv_up on ranks with a neighbour above, in send_recv_down
 * on the first rank. */
__attribute__((noinline)) int send_recv_up(MPI_Request *req)
{
    MPI_Irecv(halo_in[0], edge, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(halo_out[0], edge, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &req[1]);
    KEEP_FRAME();
    return 2;
}

__attribute__((noinline)) int send_recv_down(MPI_Request *req)
{
    MPI_Irecv(halo_in[1], edge, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(halo_out[1], edge, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &req[1]);
    KEEP_FRAME();
    return 2;
}

/* Rows 1 and edge to the neighbours, their rows into the ghost rows. */
__attribute__((noinline)) void exchange_halo(void)
{
    MPI_Request req[4];
    int n = 0;
    for (int j = 1; j <= edge; j++) {
        halo_out[0][j - 1] = AT(p, 1, j);
        halo_out[1][j - 1] = AT(p, edge, j);
    }
    if (up >= 0)
        n += send_recv_up(req + n);
    if (down >= 0)
        n += send_recv_down(req + n);
    if (n)
        MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    unpack_halo();
}

/* w = A p (5-point Laplacian plus identity); returns the local p.w */
__attribute__((noinline)) double cg_calc_w(void)
{
    double pw = 0.0;
    for (int s = 0; s < STENCIL_UNITS * sweeps; s++) {
        pw = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : pw)
        for (int i = 1; i <= edge; i++)
            for (int j = 1; j <= edge; j++) {
                AT(w, i, j) = 5.0 * AT(p, i, j) - AT(p, i - 1, j) - AT(p, i + 1, j) - AT(p, i, j - 1) -
                              AT(p, i, j + 1);
                pw += AT(p, i, j) * AT(w, i, j);
            }
    }
    KEEP_FRAME();
    return pw;
}

/* u += a p, r -= a w; returns the local r.r */
__attribute__((noinline)) double cg_calc_ur(double alpha)
{
    double rr = 0.0;
    for (int s = 0; s < UR_UNITS * sweeps; s++) {
        rr = 0.0;
        const double a = s == UR_UNITS * sweeps - 1 ? alpha : 0.0;
#pragma omp parallel for schedule(static) reduction(+ : rr)
        for (int i = 1; i <= edge; i++)
            for (int j = 1; j <= edge; j++) {
                AT(u, i, j) += a * AT(p, i, j);
                AT(r, i, j) -= a * AT(w, i, j);
                rr += AT(r, i, j) * AT(r, i, j) + AT(u, i, j) * 1e-30;
            }
    }
    KEEP_FRAME();
    return rr;
}

/* p = r + b p */
__attribute__((noinline)) void cg_calc_p(double beta)
{
    for (int s = 0; s < P_UNITS * sweeps; s++) {
        const double b = s == P_UNITS * sweeps - 1 ? beta : 1.0;
#pragma omp parallel for schedule(static)
        for (int i = 1; i <= edge; i++)
            for (int j = 1; j <= edge; j++)
                AT(p, i, j) = s == P_UNITS * sweeps - 1 ? AT(r, i, j) + b * AT(p, i, j) : AT(p, i, j) * b;
    }
    KEEP_FRAME();
}

/* A reduction's value quantized so that the checksum does not depend on the
 * order of the sums. */
static double quantized(double v)
{
    return v > -1e9 && v < 1e9 ? (double)(long long)(v * 1e6) / 1e6 : 0.0; /* a NaN too: 0 */
}

__attribute__((noinline)) double cg_solve(int iterations)
{
    double rro = 0.0;
    for (int i = 1; i <= edge; i++)
        for (int j = 1; j <= edge; j++)
            rro += AT(r, i, j) * AT(r, i, j);
    rro = global_sum(rro);
    for (int it = 0; it < iterations; it++) {
        exchange_halo();
        const double pw = quantized(global_sum(cg_calc_w()));
        const double alpha = pw != 0.0 ? quantized(rro / pw) : 0.0;
        const double rrn = quantized(global_sum(cg_calc_ur(alpha)));
        const double beta = rro != 0.0 ? quantized(rrn / rro) : 0.0;
        cg_calc_p(beta);
        rro = rrn;
    }
    KEEP_FRAME();
    return rro;
}

static double *grid_alloc(void)
{
    double *g = calloc((size_t)(edge + 2) * (size_t)(edge + 2), sizeof(double));
    if (!g) {
        fprintf(stderr, "cg_app: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return g;
}

int main(int argc, char **argv)
{
    int iterations = 200, quiet = 0, c;
    while ((c = getopt(argc, argv, "n:s:w:q")) != -1) {
        char *end = NULL;
        long v = 0;
        if (c != 'q' && c != '?')
            v = strtol(optarg, &end, 10);
        if (c == 'q') {
            quiet = 1;
        } else if (c == '?' || !end || *end || v < 1 || v > 100000) {
            fprintf(stderr, "usage: cg_app [-n ITERATIONS] [-s EDGE] [-w SWEEPS] [-q]\n");
            return 2;
        } else if (c == 'n') {
            iterations = (int)v;
        } else if (c == 's') {
            edge = (int)v;
        } else {
            sweeps = (int)v;
        }
    }
    int provided = 0, rank = 0, size = 1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    up = rank > 0 ? rank - 1 : -1;
    down = rank + 1 < size ? rank + 1 : -1;
    p = grid_alloc();
    w = grid_alloc();
    r = grid_alloc();
    u = grid_alloc();
    for (int k = 0; k < 2; k++) {
        halo_in[k] = grid_alloc();
        halo_out[k] = grid_alloc();
    }
    for (int i = 1; i <= edge; i++)
        for (int j = 1; j <= edge; j++)
            AT(r, i, j) = AT(p, i, j) = 1.0 + (double)((i * 7 + j * 13 + rank) % 17) / 17.0;
    const double rr = cg_solve(iterations);
    if (rank == 0 && !quiet)
        printf("cg_app: ranks %d checksum %.6e\n", size, rr);
    for (int k = 0; k < 2; k++) {
        free(halo_in[k]);
        free(halo_out[k]);
    }
    free(p);
    free(w);
    free(r);
    free(u);
    MPI_Finalize();
    return 0;
}
