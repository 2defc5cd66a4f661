/* prng.h: the synthesizer's own deterministic pseudo-random numbers:
 * splitmix64 to derive seeds, xoshiro256** for the streams. The same seed
 * gives the same sequence on every platform (no libc rand). */
#ifndef SYNTH_PRNG_H
#define SYNTH_PRNG_H

#include <stdint.h>

typedef struct {
    uint64_t s[4];
} synth_rng;

static inline uint64_t synth_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A stream named by a seed and up to three integers (e.g. rank, thread, purpose). */
static inline void synth_rng_init(synth_rng *r, uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t x = seed;
    x ^= synth_splitmix64(&x) ^ a * 0xd1b54a32d192ed03ull;
    x ^= synth_splitmix64(&x) ^ b * 0xabc98388fb8fac03ull;
    x ^= synth_splitmix64(&x) ^ c * 0x8cb92ba72f3d8dd7ull;
    for (int i = 0; i < 4; i++)
        r->s[i] = synth_splitmix64(&x);
}

static inline uint64_t synth_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t synth_next(synth_rng *r)
{
    uint64_t *s = r->s;
    const uint64_t result = synth_rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = synth_rotl(s[3], 45);
    return result;
}

/* Uniform in [0, 1). */
static inline double synth_uniform(synth_rng *r)
{
    return (double)(synth_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform in [-1, 1). */
static inline double synth_symmetric(synth_rng *r)
{
    return 2.0 * synth_uniform(r) - 1.0;
}

#endif
