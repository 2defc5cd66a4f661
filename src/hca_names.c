/* hca_names.c: the edit distance behind every "did you mean", and the
 * closest names of a list (hca_names.h). */
#include "hca_names.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

size_t hca_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 200 || lb > 200)
        return la > lb ? la : lb;
    size_t row[201];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t sub = diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            size_t best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
            row[j] = sub < best ? sub : best;
            diag = up;
        }
    }
    return row[lb];
}

size_t hca_closest_names(const char *want, const char *const *names, size_t n, size_t k,
                         const char *(*key)(const char *), int (*skip)(const char *), char *out, size_t outlen)
{
    size_t best[8], bi[8];
    if (k > 8)
        k = 8;
    for (size_t q = 0; q < k; q++) {
        best[q] = (size_t)-1;
        bi[q] = 0;
    }
    for (size_t j = 0; j < n; j++) {
        if (skip && skip(names[j]))
            continue;
        size_t d = hca_edit_distance(want, key ? key(names[j]) : names[j]);
        for (size_t q = 0; q < k; q++)
            if (d < best[q]) {
                for (size_t r = k - 1; r > q; r--) {
                    best[r] = best[r - 1];
                    bi[r] = bi[r - 1];
                }
                best[q] = d;
                bi[q] = j;
                break;
            }
    }
    size_t used = out && outlen ? strlen(out) : 0, written = 0;
    for (size_t q = 0; q < k && best[q] != (size_t)-1 && used < outlen; q++) {
        int w = snprintf(out + used, outlen - used, "%s%s", q ? ", " : "", names[bi[q]]);
        if (w > 0)
            used += (size_t)w;
        written++;
    }
    return written;
}
