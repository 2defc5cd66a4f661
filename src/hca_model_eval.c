/* hca_model_eval.c: evaluating a model (docs/models.md) at n points from the
 * events' values: expressions, node values, rest and sum nodes, plots, the
 * prediction, and the flags of what went wrong. */
#include "hca_model.h"

#include "hca_model_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- evaluation */

typedef struct {
    double *val;   /* [nsyms] at the current point */
    int divzero;   /* a '/' by zero at the current point */
} evctx;

static double ev_expr(evctx *c, const expr *e)
{
    double a, b, r;
    switch (e->op) {
    case X_NUM: return e->num;
    case X_SYM: return c->val[e->sym];
    case X_NEG: return -ev_expr(c, e->args[0]);
    case X_ADD: return ev_expr(c, e->args[0]) + ev_expr(c, e->args[1]);
    case X_SUB: return ev_expr(c, e->args[0]) - ev_expr(c, e->args[1]);
    case X_MUL: return ev_expr(c, e->args[0]) * ev_expr(c, e->args[1]);
    case X_DIV:
        a = ev_expr(c, e->args[0]);
        b = ev_expr(c, e->args[1]);
        if (b == 0) {
            c->divzero = 1;
            return NAN;
        }
        return a / b;
    case X_RATIO:
        a = ev_expr(c, e->args[0]);
        b = ev_expr(c, e->args[1]);
        if (isnan(a) || isnan(b))
            return NAN;
        return b == 0 ? 0.0 : a / b;
    case X_MIN:
    case X_MAX:
        r = ev_expr(c, e->args[0]);
        for (int i = 1; i < e->nargs; i++) {
            a = ev_expr(c, e->args[i]);
            if (isnan(a) || isnan(r))
                r = NAN;
            else if (e->op == X_MIN ? a < r : a > r)
                r = a;
        }
        return r;
    case X_CLAMP:
        r = ev_expr(c, e->args[0]);
        a = ev_expr(c, e->args[1]);
        b = ev_expr(c, e->args[2]);
        if (isnan(r) || isnan(a) || isnan(b))
            return NAN;
        return r < a ? a : r > b ? b : r;
    case X_IF:
        r = ev_expr(c, e->args[0]);
        if (isnan(r))
            return NAN;
        return r > 0 ? ev_expr(c, e->args[1]) : ev_expr(c, e->args[2]);
    default: return NAN;
    }
}

void hca_model_result_free(hca_model_result *r)
{
    if (!r)
        return;
    if (r->node)
        for (size_t i = 0; i < r->nnodes; i++)
            free(r->node[i]);
    if (r->overlap)
        for (size_t i = 0; i < r->nnodes; i++)
            free(r->overlap[i]);
    free(r->node);
    free(r->overlap);
    if (r->plot) {
        for (size_t i = 0; i < r->nplots; i++) {
            if (r->plot[i])
                for (size_t j = 0; j < r->nitems[i]; j++)
                    free(r->plot[i][j]);
            free(r->plot[i]);
        }
    }
    free(r->plot);
    if (r->plot_per)
        for (size_t i = 0; i < r->nplots; i++)
            free(r->plot_per[i]);
    free(r->plot_per);
    free(r->nitems);
    free(r->predicted);
    free(r->actual);
    memset(r, 0, sizeof(*r));
}

static int result_alloc(const hca_model *m, size_t n, hca_model_result *r)
{
    size_t nn = n ? n : 1;
    r->n = n;
    r->nnodes = m->nnodes;
    r->nplots = m->nplots;
    r->node = calloc(m->nnodes ? m->nnodes : 1, sizeof(double *));
    r->overlap = calloc(m->nnodes ? m->nnodes : 1, sizeof(double *));
    r->nitems = calloc(m->nplots ? m->nplots : 1, sizeof(size_t));
    r->plot = calloc(m->nplots ? m->nplots : 1, sizeof(double **));
    r->plot_per = calloc(m->nplots ? m->nplots : 1, sizeof(double *));
    if (!r->node || !r->overlap || !r->nitems || !r->plot || !r->plot_per)
        return -1;
    if (m->predict_sym >= 0) {
        r->predicted = calloc(nn, sizeof(double));
        r->actual = calloc(nn, sizeof(double));
        if (!r->predicted || !r->actual)
            return -1;
    }
    for (size_t i = 0; i < m->nnodes; i++) {
        r->node[i] = calloc(nn, sizeof(double));
        r->overlap[i] = calloc(nn, sizeof(double));
        if (!r->node[i] || !r->overlap[i])
            return -1;
    }
    for (size_t i = 0; i < m->nplots; i++) {
        r->plot[i] = calloc(m->plots[i].pub.nitems, sizeof(double *));
        if (!r->plot[i])
            return -1;
        r->nitems[i] = m->plots[i].pub.nitems;
        if (!(r->plot_per[i] = calloc(nn, sizeof(double))))
            return -1;
        for (size_t j = 0; j < r->nitems[i]; j++)
            if (!(r->plot[i][j] = calloc(nn, sizeof(double))))
                return -1;
    }
    return 0;
}

static double children_sum(const hca_model *m, const double *val, int node, int skip_rest)
{
    double s = 0;
    for (size_t j = 0; j < m->nnodes; j++) {
        if (m->nodes[j].parent != node || (skip_rest && m->nodes[j].kind == HCA_NODE_REST))
            continue;
        double v = val[m->node_sym[j]];
        if (!isnan(v))
            s += v;
    }
    return s;
}

int hca_model_eval(const hca_model *m, const double *const *event_values, size_t n, hca_model_result *out)
{
    memset(out, 0, sizeof(*out));
    if (result_alloc(m, n, out) < 0) {
        hca_model_result_free(out);
        return -1;
    }
    double *val = calloc(m->nsyms ? m->nsyms : 1, sizeof(double));
    char *has_kids = calloc(m->nnodes ? m->nnodes : 1, 1);
    if (!val || !has_kids) {
        free(val);
        free(has_kids);
        hca_model_result_free(out);
        return -1;
    }
    for (size_t j = 0; j < m->nnodes; j++)
        if (m->nodes[j].parent >= 0)
            has_kids[m->nodes[j].parent] = 1;
    for (size_t i = 0; i < m->nevents; i++)
        if (!event_values || !event_values[i])
            out->flags |= HCA_EVAL_ABSENT;
    evctx c = { val, 0 };
    for (size_t k = 0; k < n; k++) {
        c.divzero = 0;
        int overlap = 0;
        for (size_t o = 0; o < m->norder; o++) {
            int s = m->order[o];
            const sym *y = &m->syms[s];
            double v;
            switch (y->kind) {
            case S_EVENT:
                v = event_values && event_values[y->idx] ? event_values[y->idx][k] : NAN;
                break;
            case S_PARAM:
                v = m->params[y->idx].value;
                break;
            case S_LET:
                /* a pending glob reference of a plot (never evaluated) has no resolved symbol */
                v = y->e ? ev_expr(&c, y->e) : NAN;
                break;
            default: {
                const hca_model_node *nd = &m->nodes[y->idx];
                if (nd->kind == HCA_NODE_EXPR) {
                    v = ev_expr(&c, y->e);
                } else if (nd->kind == HCA_NODE_SUM) {
                    v = children_sum(m, val, y->idx, 0);
                } else {
                    double pv = val[m->node_sym[nd->parent]];
                    v = pv - children_sum(m, val, nd->parent, 1);
                    if (v < 0)
                        v = 0;
                    if (isnan(pv))
                        v = NAN;
                }
                break;
            }
            }
            val[s] = v;
        }
        for (size_t i = 0; i < m->nnodes; i++) {
            double v = val[m->node_sym[i]];
            out->node[i][k] = v;
            if (has_kids[i] && m->nodes[i].kind != HCA_NODE_SUM && !isnan(v)) {
                double cs = children_sum(m, val, (int)i, 1);
                double ov = cs - v;
                double scale = fabs(v) > fabs(cs) ? fabs(v) : fabs(cs);
                if (ov > 1e-12 * scale) {
                    out->overlap[i][k] = ov;
                    overlap = 1;
                }
            }
            if (!isfinite(v) && !c.divzero)
                out->flags |= HCA_EVAL_NONFINITE;
        }
        for (size_t i = 0; i < m->nplots; i++) {
            const plot_int *pl = &m->plots[i];
            double per = pl->per_sym >= 0 ? val[pl->per_sym] : 1.0;
            out->plot_per[i][k] = per;
            for (size_t j = 0; j < pl->pub.nitems; j++) {
                double v = val[pl->item_sym[j]];
                if (per == 0) {
                    c.divzero = 1;
                    v = NAN;
                } else {
                    v /= per;
                }
                out->plot[i][j][k] = v;
            }
        }
        if (m->predict_sym >= 0) {
            out->predicted[k] = val[m->predict_sym];
            out->actual[k] = val[m->actual_sym];
        }
        if (c.divzero) {
            out->divzero_points++;
            out->flags |= HCA_EVAL_DIVZERO;
        }
        if (overlap) {
            out->overlap_points++;
            out->flags |= HCA_EVAL_OVERLAP;
        }
    }
    if (out->flags & HCA_EVAL_ABSENT)
        out->flags &= ~(unsigned)HCA_EVAL_NONFINITE;
    free(val);
    free(has_kids);
    return 0;
}
