/* foldcheck.c: test tool that judges an hcafold result against the ground
 * truth of the synthesizer (truth.txt) or against another fold. Prints its
 * measurements, one per line, and exits 1 when a bound is exceeded:
 *   foldcheck FOLD.json TRUTH.txt [--region N] [--max-mae F] [--max-boundary F]
 *       per counter of the truth: the mean absolute relative error of the fitted
 *       rate (outside +-0.03 around true discontinuities) and of the phase rates
 *       (everywhere), and the distance of each true boundary to the nearest found
 *       one; the number of phases must equal the number of true ones. A ramp
 *       (counter.NAME.rates_end) is linear within its piece, and only jumps
 *       of the rate count as discontinuities. With --min-coverage F, the
 *       share of grid points (outside +-0.03 around the jumps) where the
 *       true rate lies inside the fold's band [rate_lo, rate_hi] (line
 *       "coverage"; with the band's mean half-width over the true rate,
 *       and how many of the grid points within 0.05 of 0 or 1 it holds)
 *       must be at least F.
 *   foldcheck FOLD.json --compare OTHER.json [--max-diff F]
 *       mean absolute relative difference of the rate curves of the first region. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXB 64
/* The ends of the region in the coverage line: the grid points this near 0
 * or 1 (where a smoother pinned at its anchors is biased). */
#define EDGE 0.05

static cJSON *load_json(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return NULL;
    }
    static char buf[64 << 20];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = 0;
    cJSON *j = cJSON_Parse(buf);
    if (!j)
        fprintf(stderr, "foldcheck: %s is not JSON\n", path);
    return j;
}

/* value of key in truth.txt, or NULL */
static char truth_text[1 << 16];
static const char *truth(const char *key)
{
    static char value[4096];
    size_t klen = strlen(key);
    for (const char *p = truth_text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
            const char *v = p + klen + 1;
            size_t n = strcspn(v, "\n");
            snprintf(value, sizeof(value), "%.*s", (int)n, v);
            return value;
        }
    }
    return NULL;
}

static size_t parse_list(const char *s, double *out)
{
    size_t n = 0;
    while (s && *s && n < MAXB) {
        out[n++] = strtod(s, NULL);
        s = strchr(s, ',');
        if (s)
            s++;
    }
    return n;
}

/* The true rate at x: piece i of [bounds[i], bounds[i+1]) goes linearly
 * from rates[i] to ends[i]. */
static double true_rate(const double *bounds, const double *rates, const double *ends, size_t nb, double x)
{
    for (size_t i = 0; i + 1 < nb; i++)
        if (x < bounds[i + 1] || i + 2 == nb)
            return rates[i] + (ends[i] - rates[i]) * (x - bounds[i]) / (bounds[i + 1] - bounds[i]);
    return rates[0];
}

static cJSON *counter_of(cJSON *region, const char *name)
{
    cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(region, "counters"))
    {
        cJSON *n = cJSON_GetObjectItem(c, "name");
        if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0)
            return c;
    }
    return NULL;
}

static int check_truth(cJSON *region, double max_mae, double max_boundary, double min_coverage)
{
    int bad = 0;
    const char *names = truth("counters");
    if (!names || !*names) {
        fprintf(stderr, "foldcheck: truth has no counters\n");
        return 1;
    }
    cJSON *grid = cJSON_GetObjectItem(region, "grid");
    cJSON *phases = cJSON_GetObjectItem(region, "phases");
    size_t nphases = (size_t)cJSON_GetArraySize(phases);
    double found[MAXB];
    size_t nfound = 0;
    cJSON *ph;
    cJSON_ArrayForEach(ph, phases)
    {
        if (nfound < MAXB - 1)
            found[nfound++] = cJSON_GetObjectItem(ph, "start")->valuedouble;
    }
    found[nfound++] = 1.0;
    /* the true boundaries of all counters */
    double all_true[MAXB];
    size_t nall = 0;
    char list[1024];
    snprintf(list, sizeof(list), "%s", names);
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        char key[256];
        double bounds[MAXB], rates[MAXB], ends[MAXB];
        snprintf(key, sizeof(key), "counter.%s.bounds", name);
        size_t nb = parse_list(truth(key), bounds);
        snprintf(key, sizeof(key), "counter.%s.rates", name);
        size_t nr = parse_list(truth(key), rates);
        snprintf(key, sizeof(key), "counter.%s.rates_end", name);
        if (parse_list(truth(key), ends) != nr) /* no ramps */
            memcpy(ends, rates, sizeof(rates));
        cJSON *c = counter_of(region, name);
        if (!c || nb < 2 || nr + 1 != nb) {
            printf("counter %s missing from the fold or the truth\n", name);
            bad = 1;
            continue;
        }
        int jump[MAXB] = { 0 }; /* the rate jumps at bounds[i] */
        for (size_t i = 1; i + 1 < nb; i++)
            jump[i] = fabs(ends[i - 1] - rates[i]) > 1e-9 * fabs(rates[i]);
        for (size_t i = 1; i + 1 < nb; i++) {
            int dup = 0;
            for (size_t k = 0; k < nall; k++)
                dup |= fabs(all_true[k] - bounds[i]) < 1e-9;
            if (!dup && jump[i] && nall < MAXB)
                all_true[nall++] = bounds[i];
        }
        cJSON *rate = cJSON_GetObjectItem(c, "rate"), *prates = cJSON_GetObjectItem(c, "phase_rates");
        cJSON *lo = cJSON_GetObjectItem(c, "rate_lo"), *hi = cJSON_GetObjectItem(c, "rate_hi");
        double fit_err = 0, phase_err = 0, half_width = 0;
        size_t fit_n = 0, phase_n = 0, covered = 0, g = (size_t)cJSON_GetArraySize(grid);
        size_t ends_n = 0, ends_covered = 0; /* of them, within EDGE of 0 or 1 */
        for (size_t i = 0; i < g; i++) {
            double x = cJSON_GetArrayItem(grid, (int)i)->valuedouble;
            double truth_here = true_rate(bounds, rates, ends, nb, x);
            int near_jump = 0;
            for (size_t b = 1; b + 1 < nb; b++)
                near_jump |= jump[b] && fabs(x - bounds[b]) <= 0.03;
            if (!near_jump) {
                fit_err += fabs(cJSON_GetArrayItem(rate, (int)i)->valuedouble - truth_here) / truth_here;
                fit_n++;
                if (cJSON_IsArray(lo) && cJSON_IsArray(hi)) {
                    double l = cJSON_GetArrayItem(lo, (int)i)->valuedouble;
                    double h = cJSON_GetArrayItem(hi, (int)i)->valuedouble;
                    int in = l <= truth_here && truth_here <= h, end = x <= EDGE || x >= 1 - EDGE;
                    covered += (size_t)in;
                    ends_covered += (size_t)(in && end);
                    ends_n += (size_t)end;
                    half_width += (h - l) / 2 / truth_here;
                }
            }
            size_t p = 0;
            while (p + 1 < nphases && x >= found[p + 1])
                p++;
            phase_err += fabs(cJSON_GetArrayItem(prates, (int)p)->valuedouble - truth_here) / truth_here;
            phase_n++;
        }
        double fit_mae = fit_n ? fit_err / (double)fit_n : 1, phase_mae = phase_n ? phase_err / (double)phase_n : 1;
        printf("counter %s fit_mae %.4f phase_mae %.4f\n", name, fit_mae, phase_mae);
        if (fit_mae > max_mae || phase_mae > max_mae)
            bad = 1;
        if (min_coverage > 0) {
            double cov = fit_n ? (double)covered / (double)fit_n : 0;
            printf("coverage %s %zu of %zu %.4f half_width %.4f ends %zu of %zu\n", name, covered, fit_n, cov,
                   fit_n ? half_width / (double)fit_n : 0, ends_covered, ends_n);
            if (cov < min_coverage)
                bad = 1;
        }
    }
    printf("phases found %zu true %zu\n", nphases, nall + 1);
    if (nphases != nall + 1)
        bad = 1;
    for (size_t k = 0; k < nall; k++) {
        double best = 1;
        for (size_t i = 1; i + 1 < nfound; i++)
            if (fabs(found[i] - all_true[k]) < best)
                best = fabs(found[i] - all_true[k]);
        printf("boundary %.3f error %.4f\n", all_true[k], best);
        if (best > max_boundary)
            bad = 1;
    }
    return bad;
}

static int compare(cJSON *a, cJSON *b, double max_diff)
{
    int bad = 0;
    cJSON *ca;
    cJSON_ArrayForEach(ca, cJSON_GetObjectItem(a, "counters"))
    {
        const char *name = cJSON_GetObjectItem(ca, "name")->valuestring;
        cJSON *cb = counter_of(b, name);
        if (!cb) {
            printf("counter %s missing in the other fold\n", name);
            bad = 1;
            continue;
        }
        cJSON *ra = cJSON_GetObjectItem(ca, "rate"), *rb = cJSON_GetObjectItem(cb, "rate");
        size_t n = (size_t)cJSON_GetArraySize(ra);
        double diff = 0;
        for (size_t i = 0; i < n; i++) {
            double x = cJSON_GetArrayItem(ra, (int)i)->valuedouble, y = cJSON_GetArrayItem(rb, (int)i)->valuedouble;
            diff += fabs(x - y) / (fabs(y) > 0 ? fabs(y) : 1);
        }
        diff = n ? diff / (double)n : 1;
        printf("counter %s mean_relative_difference %.4f\n", name, diff);
        if (diff > max_diff)
            bad = 1;
    }
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: foldcheck FOLD.json TRUTH.txt [--region N] [--max-mae F] [--max-boundary F]"
                        " [--min-coverage F]\n"
                        "       foldcheck FOLD.json --compare OTHER.json [--max-diff F]\n");
        return 2;
    }
    double max_mae = 0.03, max_boundary = 0.02, max_diff = 0.05, min_coverage = 0;
    int region = 0;
    const char *other = NULL;
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--region") == 0 && i + 1 < argc)
            region = atoi(argv[++i]);
        else if (strcmp(argv[i], "--max-mae") == 0 && i + 1 < argc)
            max_mae = atof(argv[++i]);
        else if (strcmp(argv[i], "--max-boundary") == 0 && i + 1 < argc)
            max_boundary = atof(argv[++i]);
        else if (strcmp(argv[i], "--max-diff") == 0 && i + 1 < argc)
            max_diff = atof(argv[++i]);
        else if (strcmp(argv[i], "--min-coverage") == 0 && i + 1 < argc)
            min_coverage = atof(argv[++i]);
    }
    if (strcmp(argv[2], "--compare") == 0)
        other = argc > 3 ? argv[3] : NULL;
    cJSON *fold = load_json(argv[1]);
    if (!fold)
        return 1;
    cJSON *r = cJSON_GetArrayItem(cJSON_GetObjectItem(fold, "regions"), region);
    if (!r) {
        fprintf(stderr, "foldcheck: no region %d in %s\n", region, argv[1]);
        return 1;
    }
    int bad;
    if (other) {
        cJSON *o = load_json(other);
        cJSON *ro = o ? cJSON_GetArrayItem(cJSON_GetObjectItem(o, "regions"), region) : NULL;
        bad = ro ? compare(r, ro, max_diff) : 1;
        cJSON_Delete(o);
    } else {
        FILE *f = fopen(argv[2], "r");
        if (!f) {
            perror(argv[2]);
            return 1;
        }
        size_t n = fread(truth_text, 1, sizeof(truth_text) - 1, f);
        truth_text[n] = 0;
        fclose(f);
        bad = check_truth(r, max_mae, max_boundary, min_coverage);
    }
    cJSON_Delete(fold);
    return bad;
}
