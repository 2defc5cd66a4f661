/* test_data.h: what unit tests need to generate data from a known truth:
 * deterministic random numbers (splitmix64, the synthesizer's seed derivation
 * in tests/synth/prng.h; uniform and normal draws; no libc rand) and a growable
 * point cloud. Include after cmocka.h. */
#ifndef TEST_DATA_H
#define TEST_DATA_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../synth/prng.h"

typedef struct {
    uint64_t s;
} rng;

static inline uint64_t rng_next(rng *r)
{
    return synth_splitmix64(&r->s);
}

static inline double rng_unif(rng *r) /* [0, 1) */
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

static inline double rng_norm(rng *r)
{
    double u1 = rng_unif(r), u2 = rng_unif(r);
    if (u1 < 1e-300)
        u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

typedef struct {
    double *x, *y;
    size_t n, cap;
} points;

static inline void points_add(points *p, double x, double y)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 1024;
        p->x = realloc(p->x, p->cap * sizeof(double));
        p->y = realloc(p->y, p->cap * sizeof(double));
        assert_non_null(p->x);
        assert_non_null(p->y);
    }
    p->x[p->n] = x;
    p->y[p->n] = y;
    p->n++;
}

static inline void points_free(points *p)
{
    free(p->x);
    free(p->y);
    memset(p, 0, sizeof(*p));
}

#endif
