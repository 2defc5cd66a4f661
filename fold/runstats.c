/* runstats.c: the whole run (runstats.h). A process is the location of thread
 * 0 of a rank (the one that began the program and calls MPI); its elapsed time
 * runs from its first to its last event, its MPI time is the sum of its
 * outermost MPI calls, the rest is compute ("useful" time in the POP CoE's
 * efficiency model: load balance = mean / max of the compute times,
 * communication efficiency = max compute / runtime, their product the parallel
 * efficiency). */
#include "runstats.h"

#include <stdlib.h>
#include <string.h>

#include "read.h"

static fold_spread spread(const double *v, size_t n)
{
    fold_spread s = { 0, 0, 0 };
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || v[i] < s.min)
            s.min = v[i];
        if (i == 0 || v[i] > s.max)
            s.max = v[i];
        s.mean += v[i];
    }
    if (n)
        s.mean /= (double)n;
    return s;
}

static int by_time_desc(const void *a, const void *b)
{
    const fold_run_site *x = a, *y = b;
    if (x->time_s != y->time_s)
        return x->time_s < y->time_s ? 1 : -1;
    return strcmp(x->site, y->site);
}

/* Adds a call site's time to the run's sites, merged by label (the same call
 * site has the same label on every rank). */
static int add_site(fold_run *run, size_t *cap, const char *label, uint64_t calls, double time_s)
{
    for (size_t i = 0; i < run->nsites; i++)
        if (strcmp(run->sites[i].site, label) == 0) {
            run->sites[i].calls += calls;
            run->sites[i].time_s += time_s;
            return 0;
        }
    if (run->nsites == *cap) {
        size_t ncap = *cap ? 2 * *cap : 16;
        fold_run_site *s = realloc(run->sites, ncap * sizeof(*s));
        if (!s)
            return -1;
        run->sites = s;
        *cap = ncap;
    }
    char *copy = strdup(label);
    if (!copy)
        return -1;
    run->sites[run->nsites++] = (fold_run_site){ copy, calls, time_s };
    return 0;
}

int fold_run_build(const fold_trace *t, fold_run *run)
{
    memset(run, 0, sizeof(*run));
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < t->nlocations; i++) {
        n += t->locations[i].thread == 0;
        run->traced_s += (double)(t->locations[i].t_end - t->locations[i].t_begin) / 1e9;
    }
    run->rank = calloc(n + 1, sizeof(*run->rank));
    run->elapsed_s = calloc(n + 1, sizeof(double));
    run->mpi_s = calloc(n + 1, sizeof(double));
    run->compute_s = calloc(n + 1, sizeof(double));
    if (!run->rank || !run->elapsed_s || !run->mpi_s || !run->compute_s)
        return -1;
    uint64_t first = 0, last = 0;
    double sum_elapsed = 0, sum_mpi = 0;
    char label[512];
    for (size_t i = 0; i < t->nlocations; i++) { /* locations are sorted by ID: by rank */
        const fold_location *L = &t->locations[i];
        if (L->thread != 0)
            continue;
        size_t k = run->nranks++;
        uint64_t mpi_ns = 0;
        for (size_t s = 0; s < L->nmpi_sites; s++) {
            mpi_ns += L->mpi_sites[s].ns;
            fold_context_label(t, L->mpi_sites[s].context, label, sizeof(label));
            if (add_site(run, &cap, label, L->mpi_sites[s].calls, (double)L->mpi_sites[s].ns / 1e9) != 0)
                return -1;
        }
        run->rank[k] = L->rank;
        run->elapsed_s[k] = (double)(L->t_end - L->t_begin) / 1e9;
        run->mpi_s[k] = (double)mpi_ns / 1e9;
        run->compute_s[k] = run->elapsed_s[k] - run->mpi_s[k];
        sum_elapsed += run->elapsed_s[k];
        sum_mpi += run->mpi_s[k];
        if (k == 0 || L->t_begin < first)
            first = L->t_begin;
        if (k == 0 || L->t_end > last)
            last = L->t_end;
    }
    run->elapsed = spread(run->elapsed_s, run->nranks);
    run->mpi = spread(run->mpi_s, run->nranks);
    run->compute = spread(run->compute_s, run->nranks);
    run->runtime_s = (double)(last - first) / 1e9;
    run->mpi_share = sum_elapsed > 0 ? sum_mpi / sum_elapsed : 0;
    run->load_balance = run->compute.max > 0 ? run->compute.mean / run->compute.max : 1;
    run->comm_efficiency = run->runtime_s > 0 ? run->compute.max / run->runtime_s : 1;
    run->parallel_efficiency = run->load_balance * run->comm_efficiency;
    if (run->nsites > 1)
        qsort(run->sites, run->nsites, sizeof(*run->sites), by_time_desc);
    return 0;
}

void fold_run_free(fold_run *run)
{
    for (size_t i = 0; i < run->nsites; i++)
        free(run->sites[i].site);
    free(run->sites);
    free(run->rank);
    free(run->elapsed_s);
    free(run->mpi_s);
    free(run->compute_s);
    memset(run, 0, sizeof(*run));
}
