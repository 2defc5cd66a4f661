/* synth_spec.c: parsing and evaluation of the synthesizer's ground truth:
 * piecewise constant rates and functions over normalized time, counter sets. */
#include "synth_spec.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-9

/* Reads "a-b" at *p; advances *p past it. */
static int parse_range(const char **p, double *lo, double *hi)
{
    char *end;
    errno = 0;
    *lo = strtod(*p, &end);
    if (end == *p || errno || *end != '-')
        return -1;
    const char *q = end + 1;
    *hi = strtod(q, &end);
    if (end == q || errno)
        return -1;
    *p = end;
    return 0;
}

/* Copies the name before ':' (or before end/sep) into name. */
static int parse_name(const char **p, char stop, char *name)
{
    const char *s = *p;
    size_t n = 0;
    while (s[n] && s[n] != stop)
        n++;
    if (n == 0 || n >= SYNTH_NAME_MAX || s[n] != stop)
        return -1;
    memcpy(name, s, n);
    name[n] = 0;
    *p = s + n + 1;
    return 0;
}

static int contiguous(double prev_hi, double lo, double hi)
{
    return fabs(lo - prev_hi) < EPS && hi > lo + EPS && hi <= 1.0 + EPS;
}

int synth_parse_counter(const char *spec, synth_counter *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    /* the name ends at the last ':' (PMU event names hold ':' themselves) */
    const char *colon = strrchr(spec, ':');
    const char *p = colon ? colon + 1 : spec;
    size_t len = colon ? (size_t)(colon - spec) : 0;
    if (len)
        snprintf(out->name, sizeof(out->name), "%.*s", (int)len, spec);
    if (!len || len >= SYNTH_NAME_MAX) {
        snprintf(err, errlen, "counter '%s': expected NAME:LO-HI=RATE,...", spec);
        return -1;
    }
    double prev = 0.0;
    for (;;) {
        synth_seg s;
        char *end;
        if (out->nseg == SYNTH_MAX_SEGS || parse_range(&p, &s.lo, &s.hi) || *p != '=') {
            snprintf(err, errlen, "counter '%s': expected LO-HI=RATE pieces (at most %d)", spec, SYNTH_MAX_SEGS);
            return -1;
        }
        errno = 0;
        s.rate = strtod(p + 1, &end);
        if (end == p + 1 || errno || !(s.rate >= 0) || !isfinite(s.rate)) {
            snprintf(err, errlen, "counter '%s': bad rate", spec);
            return -1;
        }
        s.rate_end = s.rate;
        if (*end == '~') {
            const char *from = end + 1;
            errno = 0;
            s.rate_end = strtod(from, &end);
            if (end == from || errno || !(s.rate_end >= 0) || !isfinite(s.rate_end)) {
                snprintf(err, errlen, "counter '%s': bad ramp end rate", spec);
                return -1;
            }
        }
        if (!contiguous(prev, s.lo, s.hi)) {
            snprintf(err, errlen, "counter '%s': pieces must be contiguous from 0 to 1", spec);
            return -1;
        }
        out->seg[out->nseg++] = s;
        prev = s.hi;
        p = end;
        if (*p == 0)
            break;
        if (*p != ',') {
            snprintf(err, errlen, "counter '%s': unexpected '%c'", spec, *p);
            return -1;
        }
        p++;
    }
    if (fabs(prev - 1.0) > EPS) {
        snprintf(err, errlen, "counter '%s': pieces must end at 1", spec);
        return -1;
    }
    out->seg[out->nseg - 1].hi = 1.0;
    return 0;
}

int synth_parse_functions(const char *spec, synth_func *out, size_t max, size_t *n, char *err, size_t errlen)
{
    const char *p = spec;
    double prev = 0.0;
    *n = 0;
    for (;;) {
        synth_func f;
        memset(&f, 0, sizeof(f));
        if (*n == max || parse_name(&p, ':', f.name) || parse_range(&p, &f.lo, &f.hi) ||
            !contiguous(prev, f.lo, f.hi)) {
            snprintf(err, errlen, "functions '%s': expected NAME:LO-HI,... contiguous from 0 to 1 (at most %zu)",
                     spec, max);
            return -1;
        }
        out[(*n)++] = f;
        prev = f.hi;
        if (*p == 0)
            break;
        if (*p != ',') {
            snprintf(err, errlen, "functions '%s': unexpected '%c'", spec, *p);
            return -1;
        }
        p++;
    }
    if (fabs(prev - 1.0) > EPS) {
        snprintf(err, errlen, "functions '%s': must end at 1", spec);
        return -1;
    }
    out[*n - 1].hi = 1.0;
    return 0;
}

int synth_parse_sets(const char *spec, const synth_counter *counters, size_t ncounters, synth_set *sets,
                     size_t max, size_t *n, char *err, size_t errlen)
{
    *n = 0;
    const char *p = spec;
    while (*p) {
        if (*n == max) {
            snprintf(err, errlen, "sets '%s': at most %zu sets", spec, max);
            return -1;
        }
        synth_set *s = &sets[(*n)++];
        s->n = 0;
        for (;;) {
            size_t len = strcspn(p, ",;");
            size_t k = 0;
            while (k < ncounters && (strlen(counters[k].name) != len || strncmp(counters[k].name, p, len) != 0))
                k++;
            if (k == ncounters || s->n == SYNTH_MAX_COUNTERS) {
                snprintf(err, errlen, "sets '%s': '%.*s' is not a --counter", spec, (int)len, p);
                return -1;
            }
            for (size_t j = 0; j < s->n; j++)
                if (s->idx[j] == k) {
                    snprintf(err, errlen, "sets '%s': '%.*s' twice in one set", spec, (int)len, p);
                    return -1;
                }
            s->idx[s->n++] = k;
            p += len;
            if (*p == ',') {
                p++;
                continue;
            }
            if (*p == ';')
                p++;
            break;
        }
    }
    if (*n == 0) {
        snprintf(err, errlen, "sets: empty");
        return -1;
    }
    return 0;
}

static double seg_rate(const synth_seg *s, double x)
{
    double f = s->hi > s->lo ? (x - s->lo) / (s->hi - s->lo) : 0.0;
    return s->rate + (s->rate_end - s->rate) * f;
}

double synth_counter_integral(const synth_counter *c, double a, double b)
{
    double sum = 0.0;
    for (size_t i = 0; i < c->nseg; i++) {
        double lo = c->seg[i].lo > a ? c->seg[i].lo : a;
        double hi = c->seg[i].hi < b ? c->seg[i].hi : b;
        if (hi > lo) /* the rate at the middle of [lo, hi] (linear within the piece) */
            sum += (hi - lo) * seg_rate(&c->seg[i], 0.5 * (lo + hi));
    }
    return sum;
}

double synth_counter_rate(const synth_counter *c, double x)
{
    for (size_t i = 0; i < c->nseg; i++)
        if (x < c->seg[i].hi)
            return seg_rate(&c->seg[i], x);
    return c->seg[c->nseg - 1].rate_end;
}

size_t synth_function_at(const synth_func *f, size_t n, double x)
{
    for (size_t i = 0; i < n; i++)
        if (x < f[i].hi)
            return i;
    return n - 1;
}
