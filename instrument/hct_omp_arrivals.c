/* hct_omp_arrivals.c: the arrivals of an OpenMP team's threads at its
 * barriers, a slot per thread (hct_omp_arrivals.h). */
#include "hct_omp_arrivals.h"

#include <stddef.h>

static void atomic_max(_Atomic uint64_t *a, uint64_t v)
{
    uint64_t old = atomic_load_explicit(a, memory_order_relaxed);
    while (old < v && !atomic_compare_exchange_weak(a, &old, v))
        ;
}

void hct_omp_arrivals_init(hct_omp_arrivals *a, hct_omp_arrival *own)
{
    a->own = own;
    for (int i = 0; i < 2; i++) {
        atomic_init(&a->shared.arrived[i], 0);
        atomic_init(&a->shared.untraced[i], 0);
    }
}

void hct_omp_arrivals_put(hct_omp_arrivals *a, uint32_t num, int parity, uint64_t arrived, uint64_t untraced)
{
    if (a->own && num < HCT_OMP_ARRIVAL_SLOTS) { /* its own line: plain stores, nobody else writes it */
        hct_omp_arrival *s = &a->own[num];
        atomic_store_explicit(&s->arrived[parity], arrived, memory_order_release);
        atomic_store_explicit(&s->untraced[parity], untraced, memory_order_release);
        return;
    }
    atomic_max(&a->shared.arrived[parity], arrived);
    atomic_max(&a->shared.untraced[parity], untraced);
}

void hct_omp_arrivals_latest(const hct_omp_arrivals *a, uint32_t team_size, int parity, uint64_t *arrived,
                             uint64_t *untraced)
{
    uint64_t x = atomic_load_explicit(&a->shared.arrived[parity], memory_order_acquire);
    uint64_t u = atomic_load_explicit(&a->shared.untraced[parity], memory_order_acquire);
    uint32_t n = a->own ? (team_size < HCT_OMP_ARRIVAL_SLOTS ? team_size : HCT_OMP_ARRIVAL_SLOTS) : 0;
    for (uint32_t i = 0; i < n; i++) {
        const hct_omp_arrival *s = &a->own[i];
        uint64_t xi = atomic_load_explicit(&s->arrived[parity], memory_order_acquire);
        uint64_t ui = atomic_load_explicit(&s->untraced[parity], memory_order_acquire);
        x = xi > x ? xi : x;
        u = ui > u ? ui : u;
    }
    *arrived = x;
    *untraced = u;
}
