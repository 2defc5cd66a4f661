/* hca_model_parse.c: the parser of the model language (docs/models.md):
 * expressions, symbol definitions, one function per statement, and the entry
 * points hca_model_parse, hca_model_read_file and hca_model_load. Parse errors
 * unwind with longjmp to hca_model_parse. */
#include "hca_model.h"

#include "hca_model_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- expressions */

/* Sets e's height from its arguments; fails past HM_MAX_DEPTH (a long chain such as
 * 1+1+1+... is built by a loop but evaluated by recursion). */
static expr *rooted(parser *p, expr *e)
{
    int h = 0;
    for (int i = 0; i < e->nargs; i++)
        if (e->args[i]->height > h)
            h = e->args[i]->height;
    e->height = h + 1;
    if (e->height > HM_MAX_DEPTH)
        hm_fail_at(p, e->line, e->col, "expression nested too deeply (more than %d levels)", HM_MAX_DEPTH);
    return e;
}

/* Enters one more level of recursive parsing; fails past HM_MAX_DEPTH. */
static void nest(parser *p)
{
    if (++p->depth > HM_MAX_DEPTH)
        hm_fail_at(p, p->tk.line, p->tk.col, "expression nested too deeply (more than %d levels)", HM_MAX_DEPTH);
}

static expr *mk(parser *p, int op, int line, int col, int nargs)
{
    expr *e = hm_alloc(p->m, sizeof(*e), &p->jb);
    e->op = op;
    e->line = line;
    e->col = col;
    e->sym = -1;
    e->height = 1;
    e->nargs = nargs;
    if (nargs)
        e->args = hm_alloc(p->m, (size_t)nargs * sizeof(expr *), &p->jb);
    return e;
}

/* 1 and *v if e is made of numbers only */
static int const_value(const expr *e, double *v)
{
    double a[8] = { 0 };
    if (e->op == X_NUM) {
        *v = e->num;
        return 1;
    }
    if (e->op == X_SYM || e->nargs > 8)
        return 0;
    for (int i = 0; i < e->nargs; i++)
        if (!const_value(e->args[i], &a[i]))
            return 0;
    switch (e->op) {
    case X_NEG: *v = -a[0]; return 1;
    case X_ADD: *v = a[0] + a[1]; return 1;
    case X_SUB: *v = a[0] - a[1]; return 1;
    case X_MUL: *v = a[0] * a[1]; return 1;
    case X_DIV: *v = a[0] / a[1]; return 1;
    default: return 0; /* functions: not needed for the literal-zero check */
    }
}

static expr *parse_expr(parser *p);

static const struct {
    const char *name;
    int op, min, max;
} funcs[] = {
    { "min", X_MIN, 2, 8 }, { "max", X_MAX, 2, 8 }, { "ratio", X_RATIO, 2, 2 },
    { "clamp", X_CLAMP, 3, 3 }, { "if", X_IF, 3, 3 },
};

static int func_index(const char *name)
{
    for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
        if (strcmp(funcs[i].name, name) == 0)
            return (int)i;
    return -1;
}

static expr *parse_primary(parser *p)
{
    tok t = p->tk;
    char b[128];
    if (t.t == T_NUM) {
        hm_next(p);
        expr *e = mk(p, X_NUM, t.line, t.col, 0);
        e->num = t.num;
        return e;
    }
    if (hm_is_punct(p, '(')) {
        hm_next(p);
        expr *e = parse_expr(p);
        hm_expect_punct(p, ')', "to close '('");
        return e;
    }
    if (t.t == T_NAME) {
        hm_next(p);
        if (hm_is_punct(p, '(')) {
            int f = func_index(t.text);
            if (f < 0)
                hm_fail_at(p, t.line, t.col, "unknown function '%s' (functions: min, max, ratio, clamp, if)", t.text);
            hm_next(p);
            expr *args[8];
            int n = 0;
            for (;;) {
                if (n == funcs[f].max)
                    hm_fail_at(p, p->tk.line, p->tk.col, "%s() takes at most %d arguments", t.text, funcs[f].max);
                args[n++] = parse_expr(p);
                if (hm_is_punct(p, ','))
                    hm_next(p);
                else
                    break;
            }
            hm_expect_punct(p, ')', "after the arguments");
            if (n < funcs[f].min)
                hm_fail_at(p, t.line, t.col, "%s() takes %s%d arguments", t.text,
                        funcs[f].min == funcs[f].max ? "" : "at least ", funcs[f].min);
            expr *e = mk(p, funcs[f].op, t.line, t.col, n);
            memcpy(e->args, args, (size_t)n * sizeof(expr *));
            return rooted(p, e);
        }
        if (strchr(t.text, '*'))
            hm_fail_at(p, t.line, t.col, "a glob ('%s') is allowed in plot items only", t.text);
        expr *e = mk(p, X_SYM, t.line, t.col, 0);
        e->name = t.text;
        return e;
    }
    hm_fail_at(p, t.line, t.col, "expected an expression, found %s", hm_tok_desc(&t, b, sizeof(b)));
    return NULL;
}

static expr *parse_unary(parser *p)
{
    if (hm_is_punct(p, '-') || hm_is_punct(p, '+')) {
        tok t = p->tk;
        hm_next(p);
        nest(p);
        expr *a = parse_unary(p);
        p->depth--;
        if (t.punct == '+')
            return a;
        expr *e = mk(p, X_NEG, t.line, t.col, 1);
        e->args[0] = a;
        return rooted(p, e);
    }
    return parse_primary(p);
}

static expr *parse_term(parser *p)
{
    expr *l = parse_unary(p);
    while (hm_is_punct(p, '*') || hm_is_punct(p, '/')) {
        tok t = p->tk;
        hm_next(p);
        expr *r = parse_unary(p);
        double v;
        if (t.punct == '/' && const_value(r, &v) && v == 0)
            hm_fail_at(p, t.line, t.col, "division by zero");
        expr *e = mk(p, t.punct == '*' ? X_MUL : X_DIV, t.line, t.col, 2);
        e->args[0] = l;
        e->args[1] = r;
        l = rooted(p, e);
    }
    return l;
}

static expr *parse_expr(parser *p)
{
    nest(p);
    expr *l = parse_term(p);
    while (hm_is_punct(p, '+') || hm_is_punct(p, '-')) {
        tok t = p->tk;
        hm_next(p);
        expr *r = parse_term(p);
        expr *e = mk(p, t.punct == '+' ? X_ADD : X_SUB, t.line, t.col, 2);
        e->args[0] = l;
        e->args[1] = r;
        l = rooted(p, e);
    }
    p->depth--;
    return l;
}

/* ---------------------------------------------------------------- symbols */

static int add_sym(parser *p, const char *name, int kind, int idx, int line, int col)
{
    if (name) {
        if (func_index(name) >= 0 || strcmp(name, "sum") == 0 || strcmp(name, "rest") == 0 ||
            strcmp(name, "per") == 0)
            hm_fail_at(p, line, col, "'%s' is a reserved word", name);
        int d = hm_find_sym(p->m, name);
        if (d >= 0)
            hm_fail_at(p, line, col, "duplicate definition of '%s' (first defined at line %d)", name,
                    p->m->syms[d].line);
    }
    sym *s = hm_grow(&p->m->syms, &p->m->nsyms, sizeof(sym), &p->jb);
    s->name = name;
    s->kind = kind;
    s->idx = idx;
    s->line = line;
    s->col = col;
    return (int)(p->m->nsyms - 1);
}

/* ---------------------------------------------------------------- statements */

static void stmt_event(parser *p)
{
    hca_model *m = p->m;
    hm_next(p);
    if (p->tk.t != T_NAME || strchr(p->tk.text, '.') || strchr(p->tk.text, '*'))
        hm_fail_at(p, p->tk.line, p->tk.col, "expected an event name (letters, digits, '_')");
    tok n = p->tk;
    hm_next(p);
    if (!hm_is_punct(p, '='))
        hm_fail_at(p, p->tk.line, p->tk.col, "expected '=' after the event name");
    /* the spec is read from the text after '=' (libpfm strings hold ':' and '=') */
    hca_model_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.name = n.text;
    ev.line = n.line;
    hm_skip_blanks(p);
    int is_raw = strncmp(p->s + p->pos, "raw", 3) == 0; /* stops at the text's end */
    size_t q = p->pos + 3;
    while (is_raw && (p->s[q] == ' ' || p->s[q] == '\t'))
        q++;
    if (is_raw && p->s[q] == '(') {
        hm_next(p); /* raw */
        int line = p->tk.line, col = p->tk.col;
        hm_next(p); /* ( */
        hm_next(p);
        double v[3] = { 0 };
        int k = 0;
        for (;;) {
            if (p->tk.t != T_NUM || p->tk.num < 0 || p->tk.num != floor(p->tk.num) || p->tk.num >= 18446744073709551616.0)
                hm_fail_at(p, p->tk.line, p->tk.col, "raw() takes non-negative integers: raw(type, config[, config1])");
            v[k++] = p->tk.num;
            hm_next(p);
            if (k < 3 && hm_is_punct(p, ',')) {
                hm_next(p);
                continue;
            }
            break;
        }
        hm_expect_punct(p, ')', "to close raw(");
        if (k < 2 || v[0] > 4294967295.0)
            hm_fail_at(p, line, col, "raw() takes raw(type, config[, config1]) with a 32-bit type");
        ev.raw = 1;
        ev.type = (uint32_t)v[0];
        ev.config = (uint64_t)v[1];
        ev.config1 = k > 2 ? (uint64_t)v[2] : 0;
    } else {
        ev.spec = hm_word(p, "an event spec after '='");
        hm_next(p);
    }
    while (p->tk.t == T_NAME) {
        if (strcmp(p->tk.text, "optional") == 0)
            ev.optional = 1;
        else
            hm_fail_at(p, p->tk.line, p->tk.col, "unknown event option '%s' (options: optional)", p->tk.text);
        hm_next(p);
    }
    hm_expect_eol(p);
    add_sym(p, n.text, S_EVENT, (int)m->nevents, n.line, n.col);
    *(hca_model_event *)hm_grow(&m->events, &m->nevents, sizeof(hca_model_event), &p->jb) = ev;
}

static void stmt_param(parser *p)
{
    hca_model *m = p->m;
    hm_next(p);
    if (p->tk.t != T_NAME || strchr(p->tk.text, '.') || strchr(p->tk.text, '*'))
        hm_fail_at(p, p->tk.line, p->tk.col, "expected a parameter name");
    tok n = p->tk;
    hm_next(p);
    hm_expect_punct(p, '=', "after the parameter name");
    int neg = 0;
    if (hm_is_punct(p, '-')) {
        neg = 1;
        hm_next(p);
    }
    if (p->tk.t != T_NUM)
        hm_fail_at(p, p->tk.line, p->tk.col, "a parameter's default is a number");
    hca_model_param pa;
    memset(&pa, 0, sizeof(pa));
    pa.name = n.text;
    pa.value = pa.default_value = neg ? -p->tk.num : p->tk.num;
    pa.unit = "";
    pa.doc = "";
    hm_next(p);
    if (p->tk.t == T_NAME) {
        pa.unit = p->tk.text;
        hm_next(p);
    }
    if (p->tk.t == T_STR) {
        pa.doc = p->tk.text;
        hm_next(p);
    }
    hm_expect_eol(p);
    add_sym(p, n.text, S_PARAM, (int)m->nparams, n.line, n.col);
    *(hca_model_param *)hm_grow(&m->params, &m->nparams, sizeof(hca_model_param), &p->jb) = pa;
}

static void stmt_let(parser *p)
{
    hm_next(p);
    if (p->tk.t != T_NAME || strchr(p->tk.text, '.') || strchr(p->tk.text, '*'))
        hm_fail_at(p, p->tk.line, p->tk.col, "expected a name (letters, digits, '_')");
    tok n = p->tk;
    hm_next(p);
    hm_expect_punct(p, '=', "after the name");
    expr *e = parse_expr(p);
    hm_expect_eol(p);
    int s = add_sym(p, n.text, S_LET, -1, n.line, n.col);
    p->m->syms[s].e = e;
}

static void stmt_node(parser *p)
{
    hca_model *m = p->m;
    hm_next(p);
    if (p->tk.t != T_NAME || strchr(p->tk.text, '*'))
        hm_fail_at(p, p->tk.line, p->tk.col, "expected a node path (a, a.b, a.b.c)");
    tok n = p->tk;
    hm_next(p);
    hm_expect_punct(p, '=', "after the node path");
    hca_model_node nd;
    memset(&nd, 0, sizeof(nd));
    nd.path = n.text;
    nd.parent = -1;
    expr *e = NULL;
    if (hm_is_name(p, "sum")) {
        nd.kind = HCA_NODE_SUM;
        hm_next(p);
    } else if (hm_is_name(p, "rest")) {
        nd.kind = HCA_NODE_REST;
        hm_next(p);
    } else {
        e = parse_expr(p);
    }
    const char *dot = strrchr(n.text, '.');
    nd.label = dot ? dot + 1 : n.text;
    while (p->tk.t == T_NAME) {
        tok o = p->tk;
        if (strcmp(o.text, "est") == 0) {
            nd.est = 1;
            hm_next(p);
        } else if (strcmp(o.text, "label") == 0) {
            hm_next(p);
            hm_expect_punct(p, '=', "after label");
            if (p->tk.t != T_STR)
                hm_fail_at(p, p->tk.line, p->tk.col, "label takes a quoted string");
            nd.label = p->tk.text;
            hm_next(p);
        } else {
            hm_fail_at(p, o.line, o.col, "unknown node option '%s' (options: label=\"...\", est)", o.text);
        }
    }
    hm_expect_eol(p);
    int s = add_sym(p, n.text, S_NODE, (int)m->nnodes, n.line, n.col);
    m->syms[s].e = e;
    *(hca_model_node *)hm_grow(&m->nodes, &m->nnodes, sizeof(hca_model_node), &p->jb) = nd;
    size_t k = m->nnodes - 1;
    *(int *)hm_grow(&m->node_sym, &k, sizeof(int), &p->jb) = s;
}

static void stmt_plot(parser *p)
{
    hca_model *m = p->m;
    hm_next(p);
    if (p->tk.t != T_NAME || strchr(p->tk.text, '.') || strchr(p->tk.text, '*'))
        hm_fail_at(p, p->tk.line, p->tk.col, "expected a plot name");
    tok n = p->tk;
    for (size_t i = 0; i < m->nplots; i++)
        if (strcmp(m->plots[i].pub.name, n.text) == 0)
            hm_fail_at(p, n.line, n.col, "duplicate plot '%s'", n.text);
    hm_next(p);
    plot_int *pl = hm_grow(&m->plots, &m->nplots, sizeof(plot_int), &p->jb);
    pl->pub.name = n.text;
    pl->per_sym = -1;
    pl->pub.per = "1";
    if (hm_is_name(p, "stack"))
        pl->pub.style = HCA_PLOT_STACK;
    else if (hm_is_name(p, "lines"))
        pl->pub.style = HCA_PLOT_LINES;
    else
        hm_fail_at(p, p->tk.line, p->tk.col, "expected 'stack' or 'lines'");
    hm_next(p);
    /* items are kept as names for now; globs are expanded once all nodes are known */
    while (p->tk.t == T_NAME && strcmp(p->tk.text, "per") != 0) {
        tok it = p->tk;
        hm_next(p);
        size_t ni = pl->pub.nitems;
        hca_model_plot_item *item = hm_grow(&pl->items, &pl->pub.nitems, sizeof(*item), &p->jb);
        int *is = hm_grow(&pl->item_sym, &ni, sizeof(int), &p->jb);
        item->label = it.text;
        item->node = -1;
        if (hm_is_punct(p, '=')) {
            if (strchr(it.text, '.') || strchr(it.text, '*'))
                hm_fail_at(p, it.line, it.col, "an inline item's label is a plain name");
            hm_next(p);
            int s = add_sym(p, NULL, S_LET, -1, it.line, it.col);
            m->syms[s].e = parse_expr(p);
            *is = s;
        } else {
            /* a node path or glob: a pending reference, resolved by hm_check() */
            int s = add_sym(p, NULL, S_LET, -1, it.line, it.col);
            expr *e = mk(p, X_SYM, it.line, it.col, 0);
            e->name = it.text;
            m->syms[s].e = e;
            *is = -2 - s; /* resolved later */
        }
    }
    if (pl->pub.nitems == 0)
        hm_fail_at(p, p->tk.line, p->tk.col, "a plot needs at least one item");
    if (hm_is_name(p, "per")) {
        hm_next(p);
        int line = p->tk.line, col = p->tk.col;
        expr *e = parse_expr(p);
        int s = add_sym(p, NULL, S_LET, -1, line, col);
        m->syms[s].e = e;
        pl->per_sym = s;
        /* the divisor as written, for titles and legends */
        char buf[256];
        const expr *x = e;
        if (x->op == X_SYM)
            snprintf(buf, sizeof(buf), "%s", x->name);
        else if (x->op == X_NUM)
            snprintf(buf, sizeof(buf), "%.17g", x->num);
        else
            snprintf(buf, sizeof(buf), "expression at %d:%d", line, col);
        pl->pub.per = hm_strndup(m, buf, strlen(buf), &p->jb);
    }
    hm_expect_eol(p);
}

/* group A B C: events the tracer must count in one counter set, A leading */
static void stmt_group(parser *p)
{
    hca_model *m = p->m;
    int line = p->tk.line;
    hm_next(p);
    group_int *g = hm_grow(&m->groups, &m->ngroups, sizeof(group_int), &p->jb);
    g->line = line;
    while (p->tk.t == T_NAME) {
        tok_ref *r = hm_grow(&g->members, &g->nmembers, sizeof(tok_ref), &p->jb);
        r->name = p->tk.text;
        r->line = p->tk.line;
        r->col = p->tk.col;
        hm_next(p);
    }
    if (g->nmembers < 2)
        hm_fail_at(p, p->tk.line, p->tk.col, "a group names at least two events (the first leads)");
    hm_expect_eol(p);
}

/* predict EXPR against EXPR: the model's prediction and what it predicts */
static void stmt_predict(parser *p)
{
    hca_model *m = p->m;
    int line = p->tk.line, col = p->tk.col;
    if (m->predict_sym >= 0)
        hm_fail_at(p, line, col, "'predict' given twice (first at line %d)", m->predict_line);
    hm_next(p);
    int l1 = p->tk.line, c1 = p->tk.col;
    expr *e = parse_expr(p);
    if (!hm_is_name(p, "against"))
        hm_fail_at(p, p->tk.line, p->tk.col, "expected 'against' and the measured expression");
    hm_next(p);
    int l2 = p->tk.line, c2 = p->tk.col;
    expr *a = parse_expr(p);
    hm_expect_eol(p);
    m->predict_sym = add_sym(p, NULL, S_LET, -1, l1, c1);
    m->syms[m->predict_sym].e = e;
    m->actual_sym = add_sym(p, NULL, S_LET, -1, l2, c2);
    m->syms[m->actual_sym].e = a;
    m->predict_line = line;
}

/* instructions NAME: the event counting retired instructions */
static void stmt_instructions(parser *p)
{
    hca_model *m = p->m;
    int line = p->tk.line, col = p->tk.col;
    if (m->instructions.name)
        hm_fail_at(p, line, col, "'instructions' given twice (first at line %d)", m->instructions.line);
    hm_next(p);
    if (p->tk.t != T_NAME || strchr(p->tk.text, '.') || strchr(p->tk.text, '*'))
        hm_fail_at(p, p->tk.line, p->tk.col, "'instructions' takes the name of an event");
    m->instructions.name = p->tk.text;
    m->instructions.line = p->tk.line;
    m->instructions.col = p->tk.col;
    hm_next(p);
    hm_expect_eol(p);
}

static void stmt_header(parser *p, const char *kw)
{
    hca_model *m = p->m;
    if (strcmp(kw, "model") == 0 || strcmp(kw, "match") == 0 || strcmp(kw, "unit") == 0) {
        const char **dst = kw[1] == 'o' ? &m->id : kw[1] == 'a' ? &m->match : &m->unit;
        if (**dst)
            hm_fail_at(p, p->tk.line, p->tk.col, "'%s' given twice", kw);
        *dst = hm_word(p, kw[1] == 'o' ? "a model id" : kw[1] == 'a' ? "'any' or 'pmu=NAME[,NAME...]'" : "a unit");
        if (kw[1] == 'a' && strcmp(*dst, "any") != 0 && (strncmp(*dst, "pmu=", 4) != 0 || !(*dst)[4]))
            hm_fail_at(p, p->tk.line, p->tk.col, "match takes 'any' or 'pmu=NAME[,NAME...]'");
        hm_next(p);
    } else {
        hm_next(p);
        if (p->tk.t != T_STR)
            hm_fail_at(p, p->tk.line, p->tk.col, "%s takes a quoted string", kw);
        if (kw[0] == 't') {
            if (*m->title)
                hm_fail_at(p, p->tk.line, p->tk.col, "'title' given twice");
            m->title = p->tk.text;
        } else {
            *(const char **)hm_grow(&m->sources, &m->nsources, sizeof(char *), &p->jb) = p->tk.text;
        }
        hm_next(p);
    }
    hm_expect_eol(p);
}

/* ---------------------------------------------------------------- entry points */

hca_model *hca_model_parse(const char *text, const char *filename, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    hca_model *volatile m = calloc(1, sizeof(hca_model));
    if (!m) {
        if (err && errlen)
            snprintf(err, errlen, "%s: out of memory", filename);
        return NULL;
    }
    m->id = m->title = m->match = m->unit = "";
    m->predict_sym = m->actual_sym = -1;
    m->inst_event = -1;
    parser p;
    memset(&p, 0, sizeof(p));
    p.m = m;
    p.file = filename ? filename : "<model>";
    p.s = text;
    p.line = 1;
    p.col = 1;
    p.err = err;
    p.errlen = errlen;
    int rc = setjmp(p.jb);
    if (rc) {
        if (rc == 2 && err && errlen)
            snprintf(err, errlen, "%s: out of memory", p.file);
        hca_model_free(m);
        return NULL;
    }
    hm_next(&p);
    for (;;) {
        if (p.tk.t == T_EOF)
            break;
        if (p.tk.t == T_NL) {
            hm_next(&p);
            continue;
        }
        if (p.tk.t != T_NAME) {
            char b[128];
            hm_fail_at(&p, p.tk.line, p.tk.col, "expected a directive (model, title, match, unit, source, event, "
                    "param, let, node, plot, group, predict, instructions), found %s", hm_tok_desc(&p.tk, b, sizeof(b)));
        }
        const char *kw = p.tk.text;
        if (!strcmp(kw, "event"))
            stmt_event(&p);
        else if (!strcmp(kw, "param"))
            stmt_param(&p);
        else if (!strcmp(kw, "let"))
            stmt_let(&p);
        else if (!strcmp(kw, "node"))
            stmt_node(&p);
        else if (!strcmp(kw, "plot"))
            stmt_plot(&p);
        else if (!strcmp(kw, "group"))
            stmt_group(&p);
        else if (!strcmp(kw, "predict"))
            stmt_predict(&p);
        else if (!strcmp(kw, "instructions"))
            stmt_instructions(&p);
        else if (!strcmp(kw, "model") || !strcmp(kw, "title") || !strcmp(kw, "match") || !strcmp(kw, "unit") ||
                 !strcmp(kw, "source"))
            stmt_header(&p, kw);
        else
            hm_fail_at(&p, p.tk.line, p.tk.col, "unknown directive '%s'", kw);
    }
    if (!*m->id)
        hm_fail_at(&p, 1, 1, "the model has no 'model <id>' line");
    if (!m->nnodes)
        hm_fail_at(&p, p.tk.line, p.tk.col, "the model has no node");
    hm_check(&p);
    return m;
}

char *hca_model_read_file(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (err && errlen)
            snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    int oom = buf == NULL;
    while (!oom) {
        if (len + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                oom = 1;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t k = fread(buf + len, 1, cap - len - 1, f);
        len += k;
        if (k == 0)
            break;
    }
    if (oom) {
        free(buf);
        buf = NULL;
    }
    int bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        if (err && errlen)
            snprintf(err, errlen, "%s: cannot read: %s", path, buf ? "read error" : "out of memory");
        free(buf);
        return NULL;
    }
    buf[len] = 0;
    if (strlen(buf) != len) {
        free(buf);
        if (err && errlen)
            snprintf(err, errlen, "%s: not a text file (NUL byte)", path);
        return NULL;
    }
    return buf;
}

hca_model *hca_model_load(const char *path, char *err, size_t errlen)
{
    char *text = hca_model_read_file(path, err, errlen);
    if (!text)
        return NULL;
    hca_model *m = hca_model_parse(text, path, err, errlen);
    free(text);
    return m;
}
