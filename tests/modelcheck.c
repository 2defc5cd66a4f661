/* modelcheck.c: test tool that recomputes, by hand, what hcafold's model
 * evaluation put in fold.json, from the folded counter values in the same
 * file (rates on the grid, phase rates, mean totals per instance), and says
 * whether they agree to a relative 1e-9. It knows two models by their
 * formulas, written here independently of the model language:
 *
 *   modelcheck FOLD.json nethercote A_I A_C1 A_C2 A_B
 *       predicted = A_I*instructions + A_C1*L1-dcache-load-misses
 *                   + A_C2*LLC-load-misses + A_B*branch-misses, its four terms,
 *       the "model" (per cycles) and "cpi" (per instructions) stacks, the
 *       predicted/measured per instance and per phase, and the agreement over
 *       the phases (MAPE, Kendall's tau-b over CPIs).
 *   modelcheck FOLD.json cases P_A P_B [overlap]
 *       tests/models/cases.model: cycles = CYC, a = P_A*A, b = P_B*B,
 *       residual = max(0, CYC - a - b), overlap = max(0, a + b - CYC), the
 *       stack per cycles (never clipped above 1), and the overlap flag: with
 *       "overlap" some points must overlap, without it none may.
 *   modelcheck FOLD.json value PLOT ITEM PHASE
 *       prints one per-phase plot value (for comparisons with the truth).
 *
 * Prints one line per check failed and a count; exits 1 if any failed. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL 1e-9

static int failed, checked;

static cJSON *load_json(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(buf);
        return NULL;
    }
    fclose(f);
    buf[n] = 0;
    cJSON *j = cJSON_Parse(buf);
    free(buf);
    if (!j)
        fprintf(stderr, "modelcheck: %s is not JSON\n", path);
    return j;
}

static void same(double got, double want, const char *what, int index)
{
    checked++;
    double scale = fabs(want) > 1e-300 ? fabs(want) : 1.0;
    if (!(fabs(got - want) <= TOL * scale) && !(isnan(got) && isnan(want))) {
        if (failed < 20)
            printf("MISMATCH %s[%d]: fold.json %.17g, by hand %.17g\n", what, index, got, want);
        failed++;
    }
}

static double num_at(const cJSON *arr, int i)
{
    const cJSON *v = cJSON_GetArrayItem(arr, i);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const cJSON *counter(const cJSON *region, const char *name)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(region, "counters"))
    {
        const cJSON *n = cJSON_GetObjectItem(c, "name");
        if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0)
            return c;
    }
    fprintf(stderr, "modelcheck: no counter %s in the region\n", name);
    exit(2);
}

static const cJSON *node(const cJSON *model, const char *path)
{
    const cJSON *n;
    cJSON_ArrayForEach(n, cJSON_GetObjectItem(model, "nodes"))
    {
        const cJSON *p = cJSON_GetObjectItem(n, "path");
        if (cJSON_IsString(p) && strcmp(p->valuestring, path) == 0)
            return n;
    }
    fprintf(stderr, "modelcheck: no model node %s\n", path);
    exit(2);
}

static const cJSON *plot_item(const cJSON *model, const char *plot, const char *label)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(model, "plots"))
    {
        if (strcmp(cJSON_GetObjectItem(p, "name")->valuestring, plot) != 0)
            continue;
        const cJSON *it;
        cJSON_ArrayForEach(it, cJSON_GetObjectItem(p, "items"))
        if (strcmp(cJSON_GetObjectItem(it, "label")->valuestring, label) == 0)
            return it;
    }
    fprintf(stderr, "modelcheck: no plot item %s/%s\n", plot, label);
    exit(2);
}

/* values of a counter: where = "rate" (grid), "phase_rates", or "mean_total" (one) */
typedef struct {
    const cJSON *rate, *phase;
    double total;
} series;

static series counter_series(const cJSON *region, const char *name)
{
    const cJSON *c = counter(region, name);
    series s = { cJSON_GetObjectItem(c, "rate"), cJSON_GetObjectItem(c, "phase_rates"),
                 cJSON_GetObjectItem(c, "mean_total")->valuedouble };
    return s;
}

static int sgn(double v) { return (v > 0) - (v < 0); }

static double tau_b(const double *x, const double *y, int n)
{
    double c = 0, d = 0, tx = 0, ty = 0, pairs = n * (n - 1) / 2.0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            int s = sgn(x[i] - x[j]) * sgn(y[i] - y[j]);
            c += s > 0;
            d += s < 0;
            tx += x[i] == x[j];
            ty += y[i] == y[j];
        }
    return (c - d) / sqrt((pairs - tx) * (pairs - ty));
}

static void check_nethercote(const cJSON *root, double a_i, double a_c1, double a_c2, double a_b)
{
    const cJSON *region = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "regions"), 0);
    const cJSON *model = cJSON_GetObjectItem(region, "model");
    if (!cJSON_IsTrue(cJSON_GetObjectItem(model, "evaluated"))) {
        printf("MISMATCH: the model was not evaluated\n");
        failed++;
        return;
    }
    series cyc = counter_series(region, "cycles"), ins = counter_series(region, "instructions"),
           c1 = counter_series(region, "L1-dcache-load-misses"), c2 = counter_series(region, "LLC-load-misses"),
           br = counter_series(region, "branch-misses");
    const char *terms[4] = { "predicted.instructions", "predicted.l1_miss", "predicted.l2_miss",
                             "predicted.branch_mispredict" };
    const char *labels[4] = { "Instructions", "L1 data misses", "L2 data misses", "Branch mispredicts" };
    const double coef[4] = { a_i, a_c1, a_c2, a_b };
    const series *ev[4] = { &ins, &c1, &c2, &br };
    int grid = cJSON_GetArraySize(cyc.rate), nph = cJSON_GetArraySize(cyc.phase);
    /* on the grid: the terms, their sum, and the two stacks */
    for (int i = 0; i < grid; i++) {
        double sum = 0;
        for (int k = 0; k < 4; k++) {
            double v = coef[k] * num_at(ev[k]->rate, i);
            sum += v;
            same(num_at(cJSON_GetObjectItem(node(model, terms[k]), "rate"), i), v, terms[k], i);
            same(num_at(cJSON_GetObjectItem(plot_item(model, "model", labels[k]), "values"), i),
                 v / num_at(cyc.rate, i), "plot model", i);
            same(num_at(cJSON_GetObjectItem(plot_item(model, "cpi", labels[k]), "values"), i),
                 v / num_at(ins.rate, i), "plot cpi", i);
        }
        same(num_at(cJSON_GetObjectItem(node(model, "predicted"), "rate"), i), sum, "predicted", i);
        same(num_at(cJSON_GetObjectItem(model, "predicted_rate"), i), sum, "predicted_rate", i);
        same(num_at(cJSON_GetObjectItem(model, "measured_rate"), i), num_at(cyc.rate, i), "measured_rate", i);
    }
    /* per phase, and the agreement over the phases */
    double pred[64], meas[64], ape = 0;
    for (int p = 0; p < nph && p < 64; p++) {
        double sum = 0;
        for (int k = 0; k < 4; k++) {
            double v = coef[k] * num_at(ev[k]->phase, p);
            sum += v;
            same(num_at(cJSON_GetObjectItem(node(model, terms[k]), "phase_rates"), p), v, "phase term", p);
            same(num_at(cJSON_GetObjectItem(plot_item(model, "cpi", labels[k]), "phase_values"), p),
                 v / num_at(ins.phase, p), "phase cpi", p);
        }
        const cJSON *ph = cJSON_GetArrayItem(cJSON_GetObjectItem(model, "phases"), p);
        same(cJSON_GetObjectItem(ph, "predicted_rate")->valuedouble, sum, "phase predicted", p);
        same(cJSON_GetObjectItem(ph, "measured_rate")->valuedouble, num_at(cyc.phase, p), "phase measured", p);
        pred[p] = sum / num_at(ins.phase, p);
        meas[p] = num_at(cyc.phase, p) / num_at(ins.phase, p);
        ape += fabs(sum - num_at(cyc.phase, p)) / num_at(cyc.phase, p);
    }
    const cJSON *agree = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "model"), "agreement"), "phases");
    same(cJSON_GetObjectItem(agree, "n")->valuedouble, nph, "phases n", 0);
    same(cJSON_GetObjectItem(agree, "mape_percent")->valuedouble, 100.0 * ape / nph, "phases MAPE", 0);
    if (nph >= 2)
        same(cJSON_GetObjectItem(agree, "kendall_tau")->valuedouble, tau_b(pred, meas, nph), "phases tau", 0);
    /* per instance */
    double total = 0;
    for (int k = 0; k < 4; k++) {
        double v = coef[k] * ev[k]->total;
        total += v;
        const cJSON *t = cJSON_GetObjectItem(cJSON_GetObjectItem(model, "totals"), terms[k]);
        same(t ? t->valuedouble : NAN, v, "total term", k);
    }
    same(cJSON_GetObjectItem(model, "predicted")->valuedouble, total, "predicted per instance", 0);
    same(cJSON_GetObjectItem(model, "measured")->valuedouble, cyc.total, "measured per instance", 0);
    same(cJSON_GetObjectItem(model, "error_percent")->valuedouble, 100.0 * (total - cyc.total) / cyc.total,
         "error percent", 0);
}

static void check_cases(const cJSON *root, double p_a, double p_b, int expect_overlap)
{
    const cJSON *region = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "regions"), 0);
    const cJSON *model = cJSON_GetObjectItem(region, "model");
    series cyc = counter_series(region, "cycles"), a = counter_series(region, "L1-dcache-load-misses"),
           b = counter_series(region, "LLC-load-misses");
    int grid = cJSON_GetArraySize(cyc.rate), overlapped = 0, above_one = 0;
    const cJSON *ov = cJSON_GetObjectItem(node(model, "cycles"), "overlap_rate");
    for (int i = 0; i < grid; i++) {
        double c = num_at(cyc.rate, i), va = p_a * num_at(a.rate, i), vb = p_b * num_at(b.rate, i);
        double rest = c - va - vb > 0 ? c - va - vb : 0, over = va + vb - c > 0 ? va + vb - c : 0;
        same(num_at(cJSON_GetObjectItem(node(model, "cycles.a"), "rate"), i), va, "a", i);
        same(num_at(cJSON_GetObjectItem(node(model, "cycles.b"), "rate"), i), vb, "b", i);
        same(num_at(cJSON_GetObjectItem(node(model, "cycles.unexplained"), "rate"), i), rest, "residual", i);
        /* the overlap is only written when it is positive somewhere */
        same(ov ? num_at(ov, i) : 0, over > 1e-12 * c ? over : 0, "overlap", i);
        double stack = 0;
        const char *labels[3] = { "a", "b", "unexplained" };
        for (int k = 0; k < 3; k++)
            stack += num_at(cJSON_GetObjectItem(plot_item(model, "time", labels[k]), "values"), i);
        same(stack, (va + vb + rest) / c, "stack top", i);
        overlapped += over > 1e-12 * c;
        above_one += stack > 1 + 1e-9;
    }
    checked++;
    int flagged = 0;
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(model, "flags"))
    flagged |= strcmp(f->valuestring, "overlap") == 0;
    if (!expect_overlap && (overlapped || above_one || flagged)) {
        printf("MISMATCH: no overlap expected, found %d points (flagged %d)\n", overlapped, flagged);
        failed++;
    }
    if (expect_overlap && (!overlapped || !above_one || !flagged)) {
        printf("MISMATCH: the case must overlap somewhere (%d points), draw the stack above 1 there (%d) and be "
               "flagged (%d)\n",
               overlapped, above_one, flagged);
        failed++;
    }
    checked++;
    if ((double)overlapped != cJSON_GetObjectItem(model, "overlap_points")->valuedouble) {
        printf("MISMATCH: overlap_points %g, by hand %d\n", cJSON_GetObjectItem(model, "overlap_points")->valuedouble,
               overlapped);
        failed++;
    }
    printf("# cases: %d of %d points overlap\n", overlapped, grid);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fputs("usage: modelcheck FOLD.json nethercote A_I A_C1 A_C2 A_B | cases P_A P_B [overlap] | value PLOT ITEM PHASE\n",
              stderr);
        return 2;
    }
    cJSON *root = load_json(argv[1]);
    if (!root)
        return 2;
    if (strcmp(argv[2], "nethercote") == 0 && argc == 7)
        check_nethercote(root, atof(argv[3]), atof(argv[4]), atof(argv[5]), atof(argv[6]));
    else if (strcmp(argv[2], "cases") == 0 && (argc == 5 || (argc == 6 && strcmp(argv[5], "overlap") == 0)))
        check_cases(root, atof(argv[3]), atof(argv[4]), argc == 6);
    else if (strcmp(argv[2], "value") == 0 && argc == 6) {
        const cJSON *region = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "regions"), 0);
        const cJSON *it = plot_item(cJSON_GetObjectItem(region, "model"), argv[3], argv[4]);
        printf("%.17g\n", num_at(cJSON_GetObjectItem(it, "phase_values"), atoi(argv[5])));
        cJSON_Delete(root);
        return 0;
    } else {
        fputs("modelcheck: bad arguments\n", stderr);
        cJSON_Delete(root);
        return 2;
    }
    cJSON_Delete(root);
    printf("# %d values checked, %d differ from the hand computation by more than %g relative\n", checked, failed, TOL);
    return failed ? 1 : 0;
}
