/* band.h: symmetric positive definite band matrices (fold/fit.c's P-spline
 * systems): Cholesky factor, solves, and the elements of the inverse within
 * the band, each linear in the order n. Own code, not GSL's band routines:
 * those report a matrix that is not positive definite through GSL's global
 * error handler (which aborts by default), and the fit must fail quietly. */
#ifndef FOLD_BAND_H
#define FOLD_BAND_H

#include <stddef.h>

/* Storage: an n x n symmetric matrix of half-bandwidth p (A_ij = 0 for
 * |i - j| > p) as its upper band, row-major n x (p + 1): a[i * (p + 1) + k]
 * = A_i,i+k (entries past the last column are ignored). */

/* In place: the upper factor R (A = R'R) in the same layout. Returns 0, or
 * -1 when A is not positive definite. */
int band_cholesky(double *a, size_t n, size_t p);
/* With R from band_cholesky: v <- R'^-1 v (forward) and v <- R^-1 v (backward). */
void band_solve_rt(const double *r, size_t n, size_t p, double *v);
void band_solve_r(const double *r, size_t n, size_t p, double *v);
/* The elements of A^-1 = R^-1 R'^-1 within the band, into z (same layout), by
 * the recurrence R Z = R'^-1 from the last row up (Hutchinson & de Hoog
 * 1985): exact, O(n p^2). */
void band_inverse(const double *r, size_t n, size_t p, double *z);
/* trace(Z A) for symmetric Z and A given by their bands (Z the inverse's
 * band: trace(A^-1 B) for a B within the band). */
double band_trace_product(const double *z, const double *a, size_t n, size_t p);
/* v' A v */
double band_quadratic(const double *a, size_t n, size_t p, const double *v);

#endif
