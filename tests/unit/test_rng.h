/* test_rng.h: deterministic random numbers for unit tests that generate data
 * from a known truth: splitmix64 (the synthesizer's seed derivation,
 * tests/synth/prng.h), uniform and normal draws. No libc rand. */
#ifndef TEST_RNG_H
#define TEST_RNG_H

#include <math.h>
#include <stdint.h>

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

#endif
