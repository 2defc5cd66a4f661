/* synth_spec.h: the ground-truth description of the trace synthesizer: piecewise
 * constant counter rates and sampled functions over normalized region time, and
 * the rotating counter sets; parsed from the command-line syntax of hcasynth. */
#ifndef SYNTH_SPEC_H
#define SYNTH_SPEC_H

#include <stddef.h>

#define SYNTH_MAX_SEGS 32
#define SYNTH_MAX_COUNTERS 48
#define SYNTH_MAX_FUNCS 16
#define SYNTH_MAX_SETS 16
#define SYNTH_NAME_MAX 64

typedef struct {
    double lo, hi, rate; /* [lo, hi) of normalized time, events per second at lo */
    double rate_end;     /* at hi: the rate goes linearly from rate to rate_end (a ramp); = rate: constant */
} synth_seg;

typedef struct {
    char name[SYNTH_NAME_MAX];
    size_t nseg;
    synth_seg seg[SYNTH_MAX_SEGS];
} synth_counter;

typedef struct {
    char name[SYNTH_NAME_MAX];
    double lo, hi;
} synth_func;

typedef struct {
    size_t n;
    size_t idx[SYNTH_MAX_COUNTERS]; /* indices into the counter list */
} synth_set;

/* "instructions:0-0.4=300e6,0.4-0.9=800e6,0.9-1=300e6": contiguous pieces
 * from 0 to 1, rates >= 0; "0-1=100e6~900e6" is a ramp (linear from the
 * first rate to the second); the name ends at the last ':', so PMU event names
 * ("UOPS_RETIRED:STALL_CYCLES:0-1=1e9") work. Returns 0, or -1 with a message in err. */
int synth_parse_counter(const char *spec, synth_counter *out, char *err, size_t errlen);

/* "phase_stencil:0-0.4,phase_update:0.4-0.9,phase_norm:0.9-1": contiguous. */
int synth_parse_functions(const char *spec, synth_func *out, size_t max, size_t *n, char *err, size_t errlen);

/* "instructions,cycles;instructions,page-faults": every name a counter. */
int synth_parse_sets(const char *spec, const synth_counter *counters, size_t ncounters, synth_set *sets,
                     size_t max, size_t *n, char *err, size_t errlen);

/* Integral of the rate over [a, b] of normalized time (events per second x 1). */
double synth_counter_integral(const synth_counter *c, double a, double b);

/* Rate at normalized time x (the piece containing x; x = 1 is in the last). */
double synth_counter_rate(const synth_counter *c, double x);

/* Index of the function sampled at normalized time x. */
size_t synth_function_at(const synth_func *f, size_t n, double x);

#endif
