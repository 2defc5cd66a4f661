/* variability.c: the spread of a region's instance durations, overall and
 * per location (variability.h). Instances are grouped by location already
 * (regions.c keeps them by location, then time). */
#include "variability.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int fold_variability(const fold_trace *t, const fold_region *f, fold_region_result *g)
{
    double *ms = malloc((f->ninstances + 1) * sizeof(double));
    g->per_location = calloc(t->nlocations + 1, sizeof(*g->per_location));
    if (!ms || !g->per_location) {
        free(ms);
        return -1;
    }
    size_t n = 0;
    double sum = 0, sum2 = 0;
    for (size_t i = 0; i < f->ninstances; i++) {
        const fold_instance *in = &f->instances[i];
        if (in->excluded != FOLD_USED)
            continue;
        double d = (double)(in->t1 - in->t0) / 1e6;
        ms[n++] = d;
        sum += d;
        sum2 += d * d;
        fold_location_spread *l = g->nper_location ? &g->per_location[g->nper_location - 1] : NULL;
        if (!l || l->location != in->location) {
            l = &g->per_location[g->nper_location++];
            *l = (fold_location_spread){ in->location, t->locations[in->location].rank,
                                         t->locations[in->location].thread, 0, 0, d, d };
        }
        l->instances++;
        l->mean_ms += d; /* the sum until the end */
        l->min_ms = fmin(l->min_ms, d);
        l->max_ms = fmax(l->max_ms, d);
    }
    for (size_t k = 0; k < g->nper_location; k++)
        g->per_location[k].mean_ms /= (double)g->per_location[k].instances;
    if (n) {
        qsort(ms, n, sizeof(double), by_value);
        double mean = sum / (double)n, var = sum2 / (double)n - mean * mean;
        g->duration = (fold_duration_spread){ ms[0], n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2, ms[n - 1],
                                              mean > 0 && var > 0 ? sqrt(var) / mean : 0 };
    }
    free(ms);
    return 0;
}
