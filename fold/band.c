/* band.c: Cholesky factor, solves and the inverse's band of symmetric
 * positive definite band matrices (fold/band.h). */
#include "band.h"

#include <math.h>

#define AT(m, i, k) (m)[(i) * (p + 1) + (k)] /* element (i, i + k) */

int band_cholesky(double *a, size_t n, size_t p)
{
    for (size_t j = 0; j < n; j++) {
        size_t k0 = j > p ? j - p : 0;
        double d = AT(a, j, 0);
        for (size_t k = k0; k < j; k++)
            d -= AT(a, k, j - k) * AT(a, k, j - k);
        if (!(d > 0.0))
            return -1;
        d = sqrt(d);
        AT(a, j, 0) = d;
        for (size_t i = j + 1; i < n && i <= j + p; i++) {
            double s = AT(a, j, i - j);
            for (size_t k = i > p ? i - p : 0; k < j; k++)
                s -= AT(a, k, j - k) * AT(a, k, i - k);
            AT(a, j, i - j) = s / d;
        }
    }
    return 0;
}

void band_solve_rt(const double *r, size_t n, size_t p, double *v)
{
    for (size_t i = 0; i < n; i++) {
        double s = v[i];
        for (size_t k = i > p ? i - p : 0; k < i; k++)
            s -= AT(r, k, i - k) * v[k];
        v[i] = s / AT(r, i, 0);
    }
}

void band_solve_r(const double *r, size_t n, size_t p, double *v)
{
    for (size_t i = n; i-- > 0;) {
        double s = v[i];
        for (size_t k = i + 1; k < n && k <= i + p; k++)
            s -= AT(r, i, k - i) * v[k];
        v[i] = s / AT(r, i, 0);
    }
}

/* Z_kj for |k - j| <= p from the band */
static double zget(const double *z, size_t p, size_t k, size_t j)
{
    return k <= j ? AT(z, k, j - k) : AT(z, j, k - j);
}

void band_inverse(const double *r, size_t n, size_t p, double *z)
{
    /* row i of R Z = R'^-1 (lower triangular, diagonal 1 / R_ii), for j >= i:
     * Z_ij = (delta_ij / R_ii - sum_{k = i+1..i+p} R_ik Z_kj) / R_ii; the Z_kj
     * needed lie in rows below i and within the band */
    for (size_t i = n; i-- > 0;) {
        double rii = AT(r, i, 0);
        for (size_t j = i + p; j >= i; j--) {
            if (j >= n)
                continue;
            double s = j == i ? 1.0 / rii : 0.0;
            for (size_t k = i + 1; k < n && k <= i + p; k++)
                s -= AT(r, i, k - i) * zget(z, p, k, j);
            AT(z, i, j - i) = s / rii;
            if (j == i)
                break;
        }
    }
}

double band_trace_product(const double *z, const double *a, size_t n, size_t p)
{
    double t = 0.0;
    for (size_t i = 0; i < n; i++) {
        t += AT(z, i, 0) * AT(a, i, 0);
        for (size_t k = 1; k <= p && i + k < n; k++)
            t += 2.0 * AT(z, i, k) * AT(a, i, k);
    }
    return t;
}

double band_quadratic(const double *a, size_t n, size_t p, const double *v)
{
    double t = 0.0;
    for (size_t i = 0; i < n; i++) {
        double s = AT(a, i, 0) * v[i];
        for (size_t k = 1; k <= p && i + k < n; k++)
            s += 2.0 * AT(a, i, k) * v[i + k];
        t += v[i] * s;
    }
    return t;
}
