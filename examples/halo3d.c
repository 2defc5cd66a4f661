/*
 * halo3d.c - a small MPI+OpenMP proxy application with a KNOWN structure, of
 * the shape real 3-D codes have, for checking how hcafold sees regions:
 *
 *   - a 3-D domain decomposition (MPI_Dims_create) without periodic
 *     boundaries, so a rank has 0 to 6 neighbours; its halo exchange posts one
 *     MPI_Irecv and one MPI_Isend per neighbour, each face on its own line, so
 *     the LAST call of the exchange (the call that opens the time step's
 *     compute burst) sits on a line that depends on the rank's neighbours;
 *   - a time step of three stages (stage_stencil, stage_flux, stage_update, in
 *     this order, OpenMP loops) between the halo's last MPI_Isend and its
 *     MPI_Waitall; every 4th iteration (it % 4 == 3) every stage does twice the
 *     work, so the step's durations are bimodal (3 and 6 work units);
 *   - after the MPI_Waitall, one of two code paths of the same cost (even
 *     iterations path_smooth -> smooth_sweep, odd ones path_residual ->
 *     residual_sweep), both ending in the same MPI_Allreduce (global_sum,
 *     called from one line of time_step): two different computations between
 *     the same two MPI call sites.
 *
 * Usage: halo3d [-n ITERATIONS] [-s EDGE] [-w SWEEPS] [-q]
 *   -n ITERATIONS  time steps (default 100)
 *   -s EDGE        local grid edge, cells per dimension (default 24)
 *   -w SWEEPS      sweeps over the local grid per work unit (default 200)
 *   -q             quiet: no checksum line
 * Bad arguments: usage on stderr, exit code 2 (before MPI is initialized).
 * Output: rank 0 prints "halo3d: ranks P dims AxBxC checksum X" on stdout; X
 * is deterministic (reduced values are quantized to integers first).
 *
 * Every MPI call of the time step sits on one line that ends with a comment
 * "CALLSITE:" + name, so tests can find its line number with grep.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum face { XLO, XHI, YLO, YHI, ZLO, ZHI, NFACES };

static int edge = 24, sweeps = 200;
static int neighbour[NFACES]; /* rank across each face, -1 at the domain's boundary */
static double *grid, *next;   /* (edge + 2)^3 cells with one ghost layer */
static double *send_buf[NFACES], *recv_buf[NFACES];
static MPI_Request requests[2 * NFACES];
static int nrequests;

#define IDX(i, j, k) (((size_t)(i) * (size_t)(edge + 2) + (size_t)(j)) * (size_t)(edge + 2) + (size_t)(k))

/* An empty statement the compiler may not move: keeps each stage's frame. */
#define KEEP_FRAME() __asm__ volatile("" ::: "memory")

static int opposite(int f)
{
    return f ^ 1;
}

/* Face f's cells: the plane next to the ghost layer (inner) or the ghost layer. */
static size_t face_cell(int f, int a, int b, int ghost)
{
    const int lo = ghost ? 0 : 1, hi = ghost ? edge + 1 : edge;
    switch (f) {
    case XLO:
        return IDX(lo, a, b);
    case XHI:
        return IDX(hi, a, b);
    case YLO:
        return IDX(a, lo, b);
    case YHI:
        return IDX(a, hi, b);
    case ZLO:
        return IDX(a, b, lo);
    default:
        return IDX(a, b, hi);
    }
}

static void pack(int f)
{
    for (int a = 1; a <= edge; a++)
        for (int b = 1; b <= edge; b++)
            send_buf[f][(size_t)(a - 1) * (size_t)edge + (size_t)(b - 1)] = grid[face_cell(f, a, b, 0)];
}

static void unpack(int f)
{
    for (int a = 1; a <= edge; a++)
        for (int b = 1; b <= edge; b++)
            grid[face_cell(f, a, b, 1)] = recv_buf[f][(size_t)(a - 1) * (size_t)edge + (size_t)(b - 1)];
}

/* One call per face and direction, each on its own line: which line is last
 * depends on the rank's neighbours. */
__attribute__((noinline)) void halo_start(void)
{
    const int n = edge * edge;
    nrequests = 0;
    if (neighbour[XLO] >= 0) MPI_Irecv(recv_buf[XLO], n, MPI_DOUBLE, neighbour[XLO], opposite(XLO), MPI_COMM_WORLD, &requests[nrequests++]); /* CALLSITE:irecv_xlo */
    if (neighbour[XHI] >= 0) MPI_Irecv(recv_buf[XHI], n, MPI_DOUBLE, neighbour[XHI], opposite(XHI), MPI_COMM_WORLD, &requests[nrequests++]); /* CALLSITE:irecv_xhi */
    if (neighbour[YLO] >= 0) MPI_Irecv(recv_buf[YLO], n, MPI_DOUBLE, neighbour[YLO], opposite(YLO), MPI_COMM_WORLD, &requests[nrequests++]); /* CALLSITE:irecv_ylo */
    if (neighbour[YHI] >= 0) MPI_Irecv(recv_buf[YHI], n, MPI_DOUBLE, neighbour[YHI], opposite(YHI), MPI_COMM_WORLD, &requests[nrequests++]); /* CALLSITE:irecv_yhi */
    if (neighbour[ZLO] >= 0) MPI_Irecv(recv_buf[ZLO], n, MPI_DOUBLE, neighbour[ZLO], opposite(ZLO), MPI_COMM_WORLD, &requests[nrequests++]); /* CALLSITE:irecv_zlo */
    if (neighbour[ZHI] >= 0) MPI_Irecv(recv_buf[ZHI], n, MPI_DOUBLE, neighbour[ZHI], opposite(ZHI), MPI_COMM_WORLD, &requests[nrequests++]); /* CALLSITE:irecv_zhi */
    for (int f = 0; f < NFACES; f++)
        if (neighbour[f] >= 0)
            pack(f);
    if (neighbour[XLO] >= 0) MPI_Isend(send_buf[XLO], n, MPI_DOUBLE, neighbour[XLO], XLO, MPI_COMM_WORLD, &requests[nrequests++]); /* CALLSITE:isend_xlo */
    if (neighbour[XHI] >= 0) MPI_Isend(send_buf[XHI], n, MPI_DOUBLE, neighbour[XHI], XHI, MPI_COMM_WORLD, &requests[nrequests++]); /* CALLSITE:isend_xhi */
    if (neighbour[YLO] >= 0) MPI_Isend(send_buf[YLO], n, MPI_DOUBLE, neighbour[YLO], YLO, MPI_COMM_WORLD, &requests[nrequests++]); /* CALLSITE:isend_ylo */
    if (neighbour[YHI] >= 0) MPI_Isend(send_buf[YHI], n, MPI_DOUBLE, neighbour[YHI], YHI, MPI_COMM_WORLD, &requests[nrequests++]); /* CALLSITE:isend_yhi */
    if (neighbour[ZLO] >= 0) MPI_Isend(send_buf[ZLO], n, MPI_DOUBLE, neighbour[ZLO], ZLO, MPI_COMM_WORLD, &requests[nrequests++]); /* CALLSITE:isend_zlo */
    if (neighbour[ZHI] >= 0) MPI_Isend(send_buf[ZHI], n, MPI_DOUBLE, neighbour[ZHI], ZHI, MPI_COMM_WORLD, &requests[nrequests++]); /* CALLSITE:isend_zhi */
}

__attribute__((noinline)) void halo_finish(void)
{
    MPI_Waitall(nrequests, requests, MPI_STATUSES_IGNORE); /* CALLSITE:waitall_halo */
    for (int f = 0; f < NFACES; f++)
        if (neighbour[f] >= 0)
            unpack(f);
}

/* The stages: `units` work units each (units * sweeps passes over the grid). */
__attribute__((noinline)) void stage_stencil(int units)
{
    for (int s = 0; s < units * sweeps; s++) {
#pragma omp parallel for
        for (int i = 1; i <= edge; i++)
            for (int j = 1; j <= edge; j++)
                for (int k = 1; k <= edge; k++)
                    next[IDX(i, j, k)] = (grid[IDX(i - 1, j, k)] + grid[IDX(i + 1, j, k)] + grid[IDX(i, j - 1, k)] +
                                          grid[IDX(i, j + 1, k)] + grid[IDX(i, j, k - 1)] + grid[IDX(i, j, k + 1)] +
                                          2.0 * grid[IDX(i, j, k)]) / 8.0;
    }
    KEEP_FRAME();
}

__attribute__((noinline)) void stage_flux(int units)
{
    for (int s = 0; s < units * sweeps; s++) {
#pragma omp parallel for
        for (int i = 1; i <= edge; i++)
            for (int j = 1; j <= edge; j++)
                for (int k = 2; k <= edge; k++) /* along k: a loop-carried flux */
                    next[IDX(i, j, k)] = 0.9 * next[IDX(i, j, k)] + 0.1 * (next[IDX(i, j, k - 1)] - grid[IDX(i, j, k)]);
    }
    KEEP_FRAME();
}

__attribute__((noinline)) void stage_update(int units)
{
    for (int s = 0; s < units * sweeps; s++) {
#pragma omp parallel for
        for (int i = 1; i <= edge; i++)
            for (int j = 1; j <= edge; j++)
                for (int k = 1; k <= edge; k++)
                    grid[IDX(i, j, k)] = 0.5 * grid[IDX(i, j, k)] + 0.5 * next[IDX(i, j, k)] + 1e-3;
    }
    KEEP_FRAME();
}

/* The two code paths after the halo: the same cost, different code. */
__attribute__((noinline)) double smooth_sweep(void)
{
    double sum = 0.0;
    for (int s = 0; s < sweeps; s++)
        for (int i = 1; i <= edge; i++)
            for (int j = 1; j <= edge; j++)
                for (int k = 1; k <= edge; k++) {
                    next[IDX(i, j, k)] = 0.25 * (grid[IDX(i, j, k)] + next[IDX(i, j, k)]) + 0.25 * sum * 1e-12;
                    sum += next[IDX(i, j, k)];
                }
    KEEP_FRAME();
    return sum;
}

__attribute__((noinline)) double residual_sweep(void)
{
    double sum = 0.0;
    for (int s = 0; s < sweeps; s++)
        for (int i = 1; i <= edge; i++)
            for (int j = 1; j <= edge; j++)
                for (int k = 1; k <= edge; k++) {
                    const double r = grid[IDX(i, j, k)] - next[IDX(i, j, k)];
                    sum += r * r + sum * 1e-12;
                }
    KEEP_FRAME();
    return sum;
}

__attribute__((noinline)) double path_smooth(void)
{
    const double r = smooth_sweep();
    KEEP_FRAME();
    return r;
}

__attribute__((noinline)) double path_residual(void)
{
    const double r = residual_sweep();
    KEEP_FRAME();
    return r;
}

/* Sum over ranks of an integer-quantized value: exact in any order. */
__attribute__((noinline)) double global_sum(double local)
{
    double q = nearbyint(fmod(local, 1e6)), sum = 0.0;
    MPI_Allreduce(&q, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* CALLSITE:allreduce_sum */
    return sum;
}

__attribute__((noinline)) double time_step(int it)
{
    const int units = it % 4 == 3 ? 2 : 1; /* every 4th step does twice the work */
    halo_start();
    stage_stencil(units);
    stage_flux(units);
    stage_update(units);
    halo_finish();
    const double local = it % 2 == 0 ? path_smooth() : path_residual();
    const double sum = global_sum(local);
    KEEP_FRAME();
    return sum;
}

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [-n ITERATIONS] [-s EDGE] [-w SWEEPS] [-q]\n"
            "  -n ITERATIONS  time steps (default 100)\n"
            "  -s EDGE        local grid edge (4..256, default 24)\n"
            "  -w SWEEPS      sweeps per work unit (1..10000, default 200)\n"
            "  -q             quiet\n",
            prog);
}

static int parse_int(const char *s, long lo, long hi, int *out)
{
    char *end = NULL;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

int main(int argc, char **argv)
{
    int iterations = 100, quiet = 0, opt;
    while ((opt = getopt(argc, argv, "n:s:w:q")) != -1) {
        int bad = 0;
        switch (opt) {
        case 'n':
            bad = parse_int(optarg, 0, INT_MAX, &iterations);
            break;
        case 's':
            bad = parse_int(optarg, 4, 256, &edge);
            break;
        case 'w':
            bad = parse_int(optarg, 1, 10000, &sweeps);
            break;
        case 'q':
            quiet = 1;
            break;
        default:
            bad = 1;
        }
        if (bad) {
            usage(argv[0]);
            return 2;
        }
    }
    if (optind != argc) {
        usage(argv[0]);
        return 2;
    }
    int provided, rank, size, dims[3] = { 0, 0, 0 };
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 3, dims);
    const int x = rank / (dims[1] * dims[2]), y = rank / dims[2] % dims[1], z = rank % dims[2];
    neighbour[XLO] = x > 0 ? rank - dims[1] * dims[2] : -1;
    neighbour[XHI] = x < dims[0] - 1 ? rank + dims[1] * dims[2] : -1;
    neighbour[YLO] = y > 0 ? rank - dims[2] : -1;
    neighbour[YHI] = y < dims[1] - 1 ? rank + dims[2] : -1;
    neighbour[ZLO] = z > 0 ? rank - 1 : -1;
    neighbour[ZHI] = z < dims[2] - 1 ? rank + 1 : -1;
    const size_t cells = (size_t)(edge + 2) * (size_t)(edge + 2) * (size_t)(edge + 2);
    grid = calloc(cells, sizeof(*grid));
    next = calloc(cells, sizeof(*next));
    int ok = grid && next;
    for (int f = 0; f < NFACES && ok; f++) {
        send_buf[f] = calloc((size_t)edge * (size_t)edge, sizeof(double));
        recv_buf[f] = calloc((size_t)edge * (size_t)edge, sizeof(double));
        ok = send_buf[f] && recv_buf[f];
    }
    if (!ok) {
        fprintf(stderr, "halo3d: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t c = 0; c < cells; c++)
        grid[c] = (double)((c * 7 + (size_t)rank) % 13);
    double checksum = 0.0;
    for (int it = 0; it < iterations; it++)
        checksum += time_step(it);
    if (rank == 0 && !quiet)
        printf("halo3d: ranks %d dims %dx%dx%d checksum %.6e\n", size, dims[0], dims[1], dims[2], checksum);
    for (int f = 0; f < NFACES; f++) {
        free(send_buf[f]);
        free(recv_buf[f]);
    }
    free(grid);
    free(next);
    MPI_Finalize();
    return 0;
}
