/* hca_model.c: lexer, parser, name resolution and evaluator of the model
 * language (docs/models.md). Everything a model allocates lives in one
 * arena freed by hca_model_free; parse errors unwind with longjmp. */
#include "hca_model.h"

#include "hca_names.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { S_EVENT, S_PARAM, S_LET, S_NODE };
enum { X_NUM, X_SYM, X_NEG, X_ADD, X_SUB, X_MUL, X_DIV, X_MIN, X_MAX, X_RATIO, X_CLAMP, X_IF };

typedef struct expr {
    int op;
    double num;
    const char *name; /* X_SYM: as written */
    int sym;          /* X_SYM: resolved symbol */
    int line, col;
    int nargs;
    struct expr **args;
} expr;

typedef struct {
    const char *name; /* NULL for hidden symbols (plot expressions) */
    int kind, idx;    /* idx into events / params / nodes; lets: unused */
    int line, col;
    expr *e;          /* S_LET, S_NODE with HCA_NODE_EXPR */
    int state;        /* cycle detection: 0 new, 1 on the stack, 2 done */
} sym;

typedef struct {
    hca_model_plot pub;
    hca_model_plot_item *items;
    int *item_sym;
    int per_sym;
} plot_int;

typedef struct {
    const char *name;
    int line, col;
} tok_ref;

typedef struct {
    tok_ref *members;    /* as written, resolved by check() */
    size_t nmembers;
    size_t *events;      /* event indices, leader first */
    int line;
} group_int;

struct hca_model {
    void **ar;
    size_t nar;
    const char *id, *title, *match, *unit;
    const char **sources;
    size_t nsources;
    hca_model_event *events;
    size_t nevents;
    hca_model_param *params;
    size_t nparams;
    hca_model_node *nodes;
    size_t nnodes;
    int *node_sym;  /* [nnodes] */
    plot_int *plots;
    size_t nplots;
    sym *syms;
    size_t nsyms;
    int *order;     /* evaluation order of symbols */
    size_t norder;
    group_int *groups;
    size_t ngroups;
    int predict_sym, actual_sym; /* hidden symbols of `predict ... against ...`, -1 if none */
    int predict_line;
    tok_ref instructions;        /* `instructions NAME`; name NULL if none */
    int inst_event;              /* resolved event index, -1 */
};

/* ---------------------------------------------------------------- arena */

static void *ar_alloc(hca_model *m, size_t size, jmp_buf *jb)
{
    void **nar = realloc(m->ar, (m->nar + 1) * sizeof(*nar));
    void *p = nar ? calloc(1, size ? size : 1) : NULL;
    if (nar)
        m->ar = nar;
    if (!p) {
        if (jb)
            longjmp(*jb, 2);
        return NULL;
    }
    m->ar[m->nar++] = p;
    return p;
}

static char *ar_strndup(hca_model *m, const char *s, size_t n, jmp_buf *jb)
{
    char *d = ar_alloc(m, n + 1, jb);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

/* Grows an array (kept in the heap, not the arena) by one zeroed element. */
static void *grow(void *arrp, size_t *n, size_t elsize, jmp_buf *jb)
{
    void **arr = arrp;
    char *na = realloc(*arr, (*n + 1) * elsize);
    if (!na)
        longjmp(*jb, 2);
    *arr = na;
    memset(na + *n * elsize, 0, elsize);
    return na + (*n)++ * elsize;
}

void hca_model_free(hca_model *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nar; i++)
        free(m->ar[i]);
    free(m->ar);
    free(m->sources);
    free(m->events);
    free(m->params);
    free(m->nodes);
    free(m->node_sym);
    for (size_t i = 0; i < m->nplots; i++) {
        free(m->plots[i].items);
        free(m->plots[i].item_sym);
    }
    free(m->plots);
    for (size_t i = 0; i < m->ngroups; i++)
        free(m->groups[i].members);
    free(m->groups);
    free(m->syms);
    free(m);
}

/* ---------------------------------------------------------------- lexer */

enum { T_EOF, T_NL, T_NAME, T_NUM, T_STR, T_PUNCT };

typedef struct {
    int t;
    int line, col;
    double num;
    const char *text; /* T_NAME, T_STR (arena) */
    char punct;
} tok;

typedef struct {
    hca_model *m;
    const char *file;
    const char *s;
    size_t pos;
    int line, col;
    tok tk;      /* current token */
    char *err;
    size_t errlen;
    jmp_buf jb;
} parser;

static _Noreturn void fail_at(parser *p, int line, int col, const char *fmt, ...)
{
    if (p->err && p->errlen) {
        int k = snprintf(p->err, p->errlen, "%s:%d:%d: ", p->file, line, col);
        if (k >= 0 && (size_t)k < p->errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(p->err + k, p->errlen - (size_t)k, fmt, ap);
            va_end(ap);
        }
    }
    longjmp(p->jb, 1);
}

static int cur(const parser *p) { return (unsigned char)p->s[p->pos]; }

static void adv(parser *p)
{
    if (p->s[p->pos] == '\n') {
        p->line++;
        p->col = 1;
    } else {
        p->col++;
    }
    p->pos++;
}

static void skip_blanks(parser *p)
{
    for (;;) {
        int c = cur(p);
        if (c == ' ' || c == '\t' || c == '\r') {
            adv(p);
        } else if (c == '#') {
            while (cur(p) && cur(p) != '\n')
                adv(p);
        } else if (c == '\\') {
            /* a continuation: backslash, optional blanks, newline */
            size_t q = p->pos + 1;
            while (p->s[q] == ' ' || p->s[q] == '\t' || p->s[q] == '\r')
                q++;
            if (p->s[q] != '\n')
                return;
            while (p->pos <= q)
                adv(p);
        } else {
            return;
        }
    }
}

static int name_start(int c) { return isalpha(c) || c == '_'; }
static int name_char(int c) { return isalnum(c) || c == '_'; }

static void next(parser *p)
{
    skip_blanks(p);
    tok *t = &p->tk;
    memset(t, 0, sizeof(*t));
    t->line = p->line;
    t->col = p->col;
    int c = cur(p);
    if (!c) {
        t->t = T_EOF;
    } else if (c == '\n') {
        t->t = T_NL;
        adv(p);
    } else if (name_start(c)) {
        size_t b = p->pos;
        while (name_char(cur(p)))
            adv(p);
        /* dotted paths; a '*' segment is a glob (plots only) */
        while (cur(p) == '.' && (name_char((unsigned char)p->s[p->pos + 1]) || p->s[p->pos + 1] == '*')) {
            adv(p);
            if (cur(p) == '*') {
                adv(p);
            } else {
                while (name_char(cur(p)))
                    adv(p);
            }
        }
        t->t = T_NAME;
        t->text = ar_strndup(p->m, p->s + b, p->pos - b, &p->jb);
    } else if (isdigit(c) || (c == '.' && isdigit((unsigned char)p->s[p->pos + 1]))) {
        char *end;
        errno = 0;
        t->num = strtod(p->s + p->pos, &end);
        size_t len = (size_t)(end - (p->s + p->pos));
        if (errno == ERANGE || !isfinite(t->num))
            fail_at(p, t->line, t->col, "number out of range");
        for (size_t i = 0; i < len; i++)
            adv(p);
        if (name_char(cur(p)) || cur(p) == '.')
            fail_at(p, t->line, t->col, "malformed number");
        t->t = T_NUM;
    } else if (c == '"') {
        adv(p);
        size_t b = p->pos;
        while (cur(p) && cur(p) != '"' && cur(p) != '\n')
            adv(p);
        if (cur(p) != '"')
            fail_at(p, t->line, t->col, "unterminated string");
        t->t = T_STR;
        t->text = ar_strndup(p->m, p->s + b, p->pos - b, &p->jb);
        adv(p);
    } else if (strchr("()+-*/=,", c)) {
        t->t = T_PUNCT;
        t->punct = (char)c;
        adv(p);
    } else {
        fail_at(p, t->line, t->col, "unexpected character '%c'", isprint(c) ? c : '?');
    }
}

/* A word up to a blank, newline or comment (event specs, model ids, match). */
static const char *word(parser *p, const char *what)
{
    skip_blanks(p);
    size_t b = p->pos;
    int line = p->line, col = p->col;
    while (cur(p) && !isspace(cur(p)) && cur(p) != '#')
        adv(p);
    if (p->pos == b)
        fail_at(p, line, col, "expected %s", what);
    return ar_strndup(p->m, p->s + b, p->pos - b, &p->jb);
}

static int is_punct(const parser *p, char c) { return p->tk.t == T_PUNCT && p->tk.punct == c; }
static int is_name(const parser *p, const char *s) { return p->tk.t == T_NAME && strcmp(p->tk.text, s) == 0; }

static const char *tok_desc(const tok *t, char *buf, size_t len)
{
    switch (t->t) {
    case T_EOF: return "end of file";
    case T_NL: return "end of line";
    case T_NAME: snprintf(buf, len, "'%s'", t->text); return buf;
    case T_NUM: snprintf(buf, len, "number %g", t->num); return buf;
    case T_STR: return "a string";
    default: snprintf(buf, len, "'%c'", t->punct); return buf;
    }
}

static void expect_punct(parser *p, char c, const char *ctx)
{
    if (!is_punct(p, c)) {
        char b[128];
        fail_at(p, p->tk.line, p->tk.col, "expected '%c' %s, found %s", c, ctx, tok_desc(&p->tk, b, sizeof(b)));
    }
    next(p);
}

static void expect_eol(parser *p)
{
    if (p->tk.t != T_NL && p->tk.t != T_EOF) {
        char b[128];
        fail_at(p, p->tk.line, p->tk.col, "unexpected %s", tok_desc(&p->tk, b, sizeof(b)));
    }
}

/* ---------------------------------------------------------------- expressions */

static expr *mk(parser *p, int op, int line, int col, int nargs)
{
    expr *e = ar_alloc(p->m, sizeof(*e), &p->jb);
    e->op = op;
    e->line = line;
    e->col = col;
    e->sym = -1;
    e->nargs = nargs;
    if (nargs)
        e->args = ar_alloc(p->m, (size_t)nargs * sizeof(expr *), &p->jb);
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
        next(p);
        expr *e = mk(p, X_NUM, t.line, t.col, 0);
        e->num = t.num;
        return e;
    }
    if (is_punct(p, '(')) {
        next(p);
        expr *e = parse_expr(p);
        expect_punct(p, ')', "to close '('");
        return e;
    }
    if (t.t == T_NAME) {
        next(p);
        if (is_punct(p, '(')) {
            int f = func_index(t.text);
            if (f < 0)
                fail_at(p, t.line, t.col, "unknown function '%s' (functions: min, max, ratio, clamp, if)", t.text);
            next(p);
            expr *args[8];
            int n = 0;
            for (;;) {
                if (n == funcs[f].max)
                    fail_at(p, p->tk.line, p->tk.col, "%s() takes at most %d arguments", t.text, funcs[f].max);
                args[n++] = parse_expr(p);
                if (is_punct(p, ','))
                    next(p);
                else
                    break;
            }
            expect_punct(p, ')', "after the arguments");
            if (n < funcs[f].min)
                fail_at(p, t.line, t.col, "%s() takes %s%d arguments", t.text,
                        funcs[f].min == funcs[f].max ? "" : "at least ", funcs[f].min);
            expr *e = mk(p, funcs[f].op, t.line, t.col, n);
            memcpy(e->args, args, (size_t)n * sizeof(expr *));
            return e;
        }
        if (strchr(t.text, '*'))
            fail_at(p, t.line, t.col, "a glob ('%s') is allowed in plot items only", t.text);
        expr *e = mk(p, X_SYM, t.line, t.col, 0);
        e->name = t.text;
        return e;
    }
    fail_at(p, t.line, t.col, "expected an expression, found %s", tok_desc(&t, b, sizeof(b)));
    return NULL;
}

static expr *parse_unary(parser *p)
{
    if (is_punct(p, '-') || is_punct(p, '+')) {
        tok t = p->tk;
        next(p);
        expr *a = parse_unary(p);
        if (t.punct == '+')
            return a;
        expr *e = mk(p, X_NEG, t.line, t.col, 1);
        e->args[0] = a;
        return e;
    }
    return parse_primary(p);
}

static expr *parse_term(parser *p)
{
    expr *l = parse_unary(p);
    while (is_punct(p, '*') || is_punct(p, '/')) {
        tok t = p->tk;
        next(p);
        expr *r = parse_unary(p);
        double v;
        if (t.punct == '/' && const_value(r, &v) && v == 0)
            fail_at(p, t.line, t.col, "division by zero");
        expr *e = mk(p, t.punct == '*' ? X_MUL : X_DIV, t.line, t.col, 2);
        e->args[0] = l;
        e->args[1] = r;
        l = e;
    }
    return l;
}

static expr *parse_expr(parser *p)
{
    expr *l = parse_term(p);
    while (is_punct(p, '+') || is_punct(p, '-')) {
        tok t = p->tk;
        next(p);
        expr *r = parse_term(p);
        expr *e = mk(p, t.punct == '+' ? X_ADD : X_SUB, t.line, t.col, 2);
        e->args[0] = l;
        e->args[1] = r;
        l = e;
    }
    return l;
}

/* ---------------------------------------------------------------- symbols */

static int find_sym(const hca_model *m, const char *name)
{
    for (size_t i = 0; i < m->nsyms; i++)
        if (m->syms[i].name && strcmp(m->syms[i].name, name) == 0)
            return (int)i;
    return -1;
}

static int add_sym(parser *p, const char *name, int kind, int idx, int line, int col)
{
    if (name) {
        if (func_index(name) >= 0 || strcmp(name, "sum") == 0 || strcmp(name, "rest") == 0 ||
            strcmp(name, "per") == 0)
            fail_at(p, line, col, "'%s' is a reserved word", name);
        int d = find_sym(p->m, name);
        if (d >= 0)
            fail_at(p, line, col, "duplicate definition of '%s' (first defined at line %d)", name,
                    p->m->syms[d].line);
    }
    sym *s = grow(&p->m->syms, &p->m->nsyms, sizeof(sym), &p->jb);
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
    next(p);
    if (p->tk.t != T_NAME || strchr(p->tk.text, '.') || strchr(p->tk.text, '*'))
        fail_at(p, p->tk.line, p->tk.col, "expected an event name (letters, digits, '_')");
    tok n = p->tk;
    next(p);
    if (!is_punct(p, '='))
        fail_at(p, p->tk.line, p->tk.col, "expected '=' after the event name");
    /* the spec is read from the text after '=' (libpfm strings hold ':' and '=') */
    hca_model_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.name = n.text;
    ev.line = n.line;
    skip_blanks(p);
    size_t q = p->pos + 3;
    while (p->s[q] == ' ' || p->s[q] == '\t')
        q++;
    if (strncmp(p->s + p->pos, "raw", 3) == 0 && p->s[q] == '(') {
        next(p); /* raw */
        int line = p->tk.line, col = p->tk.col;
        next(p); /* ( */
        next(p);
        double v[3] = { 0 };
        int k = 0;
        for (;;) {
            if (p->tk.t != T_NUM || p->tk.num < 0 || p->tk.num != floor(p->tk.num) || p->tk.num >= 18446744073709551616.0)
                fail_at(p, p->tk.line, p->tk.col, "raw() takes non-negative integers: raw(type, config[, config1])");
            v[k++] = p->tk.num;
            next(p);
            if (k < 3 && is_punct(p, ',')) {
                next(p);
                continue;
            }
            break;
        }
        expect_punct(p, ')', "to close raw(");
        if (k < 2 || v[0] > 4294967295.0)
            fail_at(p, line, col, "raw() takes raw(type, config[, config1]) with a 32-bit type");
        ev.raw = 1;
        ev.type = (uint32_t)v[0];
        ev.config = (uint64_t)v[1];
        ev.config1 = k > 2 ? (uint64_t)v[2] : 0;
    } else {
        ev.spec = word(p, "an event spec after '='");
        next(p);
    }
    while (p->tk.t == T_NAME) {
        if (strcmp(p->tk.text, "optional") == 0)
            ev.optional = 1;
        else
            fail_at(p, p->tk.line, p->tk.col, "unknown event option '%s' (options: optional)", p->tk.text);
        next(p);
    }
    expect_eol(p);
    add_sym(p, n.text, S_EVENT, (int)m->nevents, n.line, n.col);
    *(hca_model_event *)grow(&m->events, &m->nevents, sizeof(hca_model_event), &p->jb) = ev;
}

static void stmt_param(parser *p)
{
    hca_model *m = p->m;
    next(p);
    if (p->tk.t != T_NAME || strchr(p->tk.text, '.') || strchr(p->tk.text, '*'))
        fail_at(p, p->tk.line, p->tk.col, "expected a parameter name");
    tok n = p->tk;
    next(p);
    expect_punct(p, '=', "after the parameter name");
    int neg = 0;
    if (is_punct(p, '-')) {
        neg = 1;
        next(p);
    }
    if (p->tk.t != T_NUM)
        fail_at(p, p->tk.line, p->tk.col, "a parameter's default is a number");
    hca_model_param pa;
    memset(&pa, 0, sizeof(pa));
    pa.name = n.text;
    pa.value = pa.default_value = neg ? -p->tk.num : p->tk.num;
    pa.unit = "";
    pa.doc = "";
    next(p);
    if (p->tk.t == T_NAME) {
        pa.unit = p->tk.text;
        next(p);
    }
    if (p->tk.t == T_STR) {
        pa.doc = p->tk.text;
        next(p);
    }
    expect_eol(p);
    add_sym(p, n.text, S_PARAM, (int)m->nparams, n.line, n.col);
    *(hca_model_param *)grow(&m->params, &m->nparams, sizeof(hca_model_param), &p->jb) = pa;
}

static void stmt_let(parser *p)
{
    next(p);
    if (p->tk.t != T_NAME || strchr(p->tk.text, '.') || strchr(p->tk.text, '*'))
        fail_at(p, p->tk.line, p->tk.col, "expected a name (letters, digits, '_')");
    tok n = p->tk;
    next(p);
    expect_punct(p, '=', "after the name");
    expr *e = parse_expr(p);
    expect_eol(p);
    int s = add_sym(p, n.text, S_LET, -1, n.line, n.col);
    p->m->syms[s].e = e;
}

static void stmt_node(parser *p)
{
    hca_model *m = p->m;
    next(p);
    if (p->tk.t != T_NAME || strchr(p->tk.text, '*'))
        fail_at(p, p->tk.line, p->tk.col, "expected a node path (a, a.b, a.b.c)");
    tok n = p->tk;
    next(p);
    expect_punct(p, '=', "after the node path");
    hca_model_node nd;
    memset(&nd, 0, sizeof(nd));
    nd.path = n.text;
    nd.parent = -1;
    expr *e = NULL;
    if (is_name(p, "sum")) {
        nd.kind = HCA_NODE_SUM;
        next(p);
    } else if (is_name(p, "rest")) {
        nd.kind = HCA_NODE_REST;
        next(p);
    } else {
        e = parse_expr(p);
    }
    const char *dot = strrchr(n.text, '.');
    nd.label = dot ? dot + 1 : n.text;
    while (p->tk.t == T_NAME) {
        tok o = p->tk;
        if (strcmp(o.text, "est") == 0) {
            nd.est = 1;
            next(p);
        } else if (strcmp(o.text, "label") == 0) {
            next(p);
            expect_punct(p, '=', "after label");
            if (p->tk.t != T_STR)
                fail_at(p, p->tk.line, p->tk.col, "label takes a quoted string");
            nd.label = p->tk.text;
            next(p);
        } else {
            fail_at(p, o.line, o.col, "unknown node option '%s' (options: label=\"...\", est)", o.text);
        }
    }
    expect_eol(p);
    int s = add_sym(p, n.text, S_NODE, (int)m->nnodes, n.line, n.col);
    m->syms[s].e = e;
    *(hca_model_node *)grow(&m->nodes, &m->nnodes, sizeof(hca_model_node), &p->jb) = nd;
    size_t k = m->nnodes - 1;
    *(int *)grow(&m->node_sym, &k, sizeof(int), &p->jb) = s;
}

static void stmt_plot(parser *p)
{
    hca_model *m = p->m;
    next(p);
    if (p->tk.t != T_NAME || strchr(p->tk.text, '.') || strchr(p->tk.text, '*'))
        fail_at(p, p->tk.line, p->tk.col, "expected a plot name");
    tok n = p->tk;
    for (size_t i = 0; i < m->nplots; i++)
        if (strcmp(m->plots[i].pub.name, n.text) == 0)
            fail_at(p, n.line, n.col, "duplicate plot '%s'", n.text);
    next(p);
    plot_int *pl = grow(&m->plots, &m->nplots, sizeof(plot_int), &p->jb);
    pl->pub.name = n.text;
    pl->per_sym = -1;
    pl->pub.per = "1";
    if (is_name(p, "stack"))
        pl->pub.style = HCA_PLOT_STACK;
    else if (is_name(p, "lines"))
        pl->pub.style = HCA_PLOT_LINES;
    else
        fail_at(p, p->tk.line, p->tk.col, "expected 'stack' or 'lines'");
    next(p);
    /* items are kept as names for now; globs are expanded once all nodes are known */
    while (p->tk.t == T_NAME && strcmp(p->tk.text, "per") != 0) {
        tok it = p->tk;
        next(p);
        size_t ni = pl->pub.nitems;
        hca_model_plot_item *item = grow(&pl->items, &pl->pub.nitems, sizeof(*item), &p->jb);
        int *is = grow(&pl->item_sym, &ni, sizeof(int), &p->jb);
        item->label = it.text;
        item->node = -1;
        if (is_punct(p, '=')) {
            if (strchr(it.text, '.') || strchr(it.text, '*'))
                fail_at(p, it.line, it.col, "an inline item's label is a plain name");
            next(p);
            int s = add_sym(p, NULL, S_LET, -1, it.line, it.col);
            m->syms[s].e = parse_expr(p);
            *is = s;
        } else {
            /* a node path or glob: a pending reference, resolved by check() */
            int s = add_sym(p, NULL, S_LET, -1, it.line, it.col);
            expr *e = mk(p, X_SYM, it.line, it.col, 0);
            e->name = it.text;
            m->syms[s].e = e;
            *is = -2 - s; /* resolved later */
        }
    }
    if (pl->pub.nitems == 0)
        fail_at(p, p->tk.line, p->tk.col, "a plot needs at least one item");
    if (is_name(p, "per")) {
        next(p);
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
        pl->pub.per = ar_strndup(m, buf, strlen(buf), &p->jb);
    }
    expect_eol(p);
}

/* group A B C: events the tracer must count in one counter set, A leading */
static void stmt_group(parser *p)
{
    hca_model *m = p->m;
    int line = p->tk.line;
    next(p);
    group_int *g = grow(&m->groups, &m->ngroups, sizeof(group_int), &p->jb);
    g->line = line;
    while (p->tk.t == T_NAME) {
        tok_ref *r = grow(&g->members, &g->nmembers, sizeof(tok_ref), &p->jb);
        r->name = p->tk.text;
        r->line = p->tk.line;
        r->col = p->tk.col;
        next(p);
    }
    if (g->nmembers < 2)
        fail_at(p, p->tk.line, p->tk.col, "a group names at least two events (the first leads)");
    expect_eol(p);
}

/* predict EXPR against EXPR: the model's prediction and what it predicts */
static void stmt_predict(parser *p)
{
    hca_model *m = p->m;
    int line = p->tk.line, col = p->tk.col;
    if (m->predict_sym >= 0)
        fail_at(p, line, col, "'predict' given twice (first at line %d)", m->predict_line);
    next(p);
    int l1 = p->tk.line, c1 = p->tk.col;
    expr *e = parse_expr(p);
    if (!is_name(p, "against"))
        fail_at(p, p->tk.line, p->tk.col, "expected 'against' and the measured expression");
    next(p);
    int l2 = p->tk.line, c2 = p->tk.col;
    expr *a = parse_expr(p);
    expect_eol(p);
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
        fail_at(p, line, col, "'instructions' given twice (first at line %d)", m->instructions.line);
    next(p);
    if (p->tk.t != T_NAME || strchr(p->tk.text, '.') || strchr(p->tk.text, '*'))
        fail_at(p, p->tk.line, p->tk.col, "'instructions' takes the name of an event");
    m->instructions.name = p->tk.text;
    m->instructions.line = p->tk.line;
    m->instructions.col = p->tk.col;
    next(p);
    expect_eol(p);
}

static void stmt_header(parser *p, const char *kw)
{
    hca_model *m = p->m;
    if (strcmp(kw, "model") == 0 || strcmp(kw, "match") == 0 || strcmp(kw, "unit") == 0) {
        const char **dst = kw[1] == 'o' ? &m->id : kw[1] == 'a' ? &m->match : &m->unit;
        if (**dst)
            fail_at(p, p->tk.line, p->tk.col, "'%s' given twice", kw);
        *dst = word(p, kw[1] == 'o' ? "a model id" : kw[1] == 'a' ? "'any' or 'pmu=NAME[,NAME...]'" : "a unit");
        if (kw[1] == 'a' && strcmp(*dst, "any") != 0 && (strncmp(*dst, "pmu=", 4) != 0 || !(*dst)[4]))
            fail_at(p, p->tk.line, p->tk.col, "match takes 'any' or 'pmu=NAME[,NAME...]'");
        next(p);
    } else {
        next(p);
        if (p->tk.t != T_STR)
            fail_at(p, p->tk.line, p->tk.col, "%s takes a quoted string", kw);
        if (kw[0] == 't') {
            if (*m->title)
                fail_at(p, p->tk.line, p->tk.col, "'title' given twice");
            m->title = p->tk.text;
        } else {
            *(const char **)grow(&m->sources, &m->nsources, sizeof(char *), &p->jb) = p->tk.text;
        }
        next(p);
    }
    expect_eol(p);
}

/* ---------------------------------------------------------------- checks */

static void resolve(parser *p, expr *e)
{
    hca_model *m = p->m;
    if (e->op == X_SYM) {
        e->sym = find_sym(m, e->name);
        if (e->sym < 0) {
            const char *best = NULL;
            size_t bd = (size_t)-1;
            for (size_t i = 0; i < m->nsyms; i++) {
                if (!m->syms[i].name)
                    continue;
                size_t d = hca_edit_distance(e->name, m->syms[i].name);
                if (d < bd) {
                    bd = d;
                    best = m->syms[i].name;
                }
            }
            if (best && bd <= 1 + strlen(e->name) / 3)
                fail_at(p, e->line, e->col, "unknown name '%s' (did you mean '%s'?)", e->name, best);
            fail_at(p, e->line, e->col, "unknown name '%s'", e->name);
        }
    }
    for (int i = 0; i < e->nargs; i++)
        resolve(p, e->args[i]);
}

static int glob_match(const char *pat, const char *path)
{
    for (;;) {
        const char *pe = strchr(pat, '.'), *qe = strchr(path, '.');
        size_t pl = pe ? (size_t)(pe - pat) : strlen(pat), ql = qe ? (size_t)(qe - path) : strlen(path);
        if (!(pl == 1 && pat[0] == '*') && (pl != ql || strncmp(pat, path, pl) != 0))
            return 0;
        if (!pe || !qe)
            return !pe && !qe;
        pat = pe + 1;
        path = qe + 1;
    }
}

/* the symbols a symbol's value depends on */
static size_t deps(const hca_model *m, int s, int *out, size_t max)
{
    const sym *y = &m->syms[s];
    size_t n = 0;
    if (y->kind == S_NODE && m->nodes[y->idx].kind != HCA_NODE_EXPR) {
        const hca_model_node *nd = &m->nodes[y->idx];
        if (nd->kind == HCA_NODE_SUM) {
            for (size_t i = 0; i < m->nnodes && n < max; i++)
                if (m->nodes[i].parent == y->idx)
                    out[n++] = m->node_sym[i];
        } else {
            if (nd->parent >= 0 && n < max)
                out[n++] = m->node_sym[nd->parent];
            for (size_t i = 0; i < m->nnodes && n < max; i++)
                if (m->nodes[i].parent == nd->parent && (int)i != y->idx)
                    out[n++] = m->node_sym[i];
        }
        return n;
    }
    if (!y->e)
        return 0;
    /* walk the expression with an explicit stack */
    const expr *st[256];
    size_t sp = 0;
    st[sp++] = y->e;
    while (sp) {
        const expr *e = st[--sp];
        if (e->op == X_SYM && n < max)
            out[n++] = e->sym;
        for (int i = 0; i < e->nargs && sp < 256; i++)
            st[sp++] = e->args[i];
    }
    return n;
}

static void visit(parser *p, int s, int *stack, size_t depth)
{
    hca_model *m = p->m;
    sym *y = &m->syms[s];
    if (y->state == 2)
        return;
    if (y->state == 1) {
        /* the cycle is stack[k..depth-1] where stack[k] == s */
        char msg[512];
        size_t k = 0;
        while (stack[k] != s)
            k++;
        size_t len = 0;
        msg[0] = 0;
        for (size_t i = k; i < depth && len < sizeof(msg); i++) {
            int w = snprintf(msg + len, sizeof(msg) - len, "%s -> ", m->syms[stack[i]].name ? m->syms[stack[i]].name : "(plot)");
            if (w > 0)
                len += (size_t)w;
        }
        if (len < sizeof(msg))
            snprintf(msg + len, sizeof(msg) - len, "%s", y->name ? y->name : "(plot)");
        fail_at(p, y->line, y->col, "cyclic definition: %s", msg);
    }
    if (depth >= 4096)
        fail_at(p, y->line, y->col, "definitions nested too deeply");
    y->state = 1;
    stack[depth] = s;
    int d[512];
    size_t nd = deps(m, s, d, 512);
    for (size_t i = 0; i < nd; i++)
        visit(p, d[i], stack, depth + 1);
    m->syms[s].state = 2;
    m->order[m->norder++] = s;
}

static void check(parser *p)
{
    hca_model *m = p->m;
    /* parents, depth */
    for (size_t i = 0; i < m->nnodes; i++) {
        hca_model_node *nd = &m->nodes[i];
        const sym *y = &m->syms[m->node_sym[i]];
        const char *dot = strrchr(nd->path, '.');
        if (dot) {
            char parent[512];
            size_t len = (size_t)(dot - nd->path);
            if (len >= sizeof(parent))
                fail_at(p, y->line, y->col, "node path too long");
            memcpy(parent, nd->path, len);
            parent[len] = 0;
            int ps = find_sym(m, parent);
            if (ps < 0 || m->syms[ps].kind != S_NODE)
                fail_at(p, y->line, y->col, "'%s': no parent node '%s'", nd->path, parent);
            nd->parent = m->syms[ps].idx;
            nd->depth = m->nodes[nd->parent].depth + 1;
            if ((size_t)nd->parent > i)
                fail_at(p, y->line, y->col, "'%s' is defined before its parent '%s'", nd->path, parent);
        }
        if (nd->kind == HCA_NODE_REST) {
            if (nd->parent < 0)
                fail_at(p, y->line, y->col, "'%s': a rest node needs a parent", nd->path);
            if (m->nodes[nd->parent].kind == HCA_NODE_SUM)
                fail_at(p, y->line, y->col, "'%s': the parent of a rest node cannot be a sum", nd->path);
            for (size_t j = 0; j < i; j++)
                if (m->nodes[j].parent == nd->parent && m->nodes[j].kind == HCA_NODE_REST)
                    fail_at(p, y->line, y->col, "'%s': a second rest node under '%s'", nd->path,
                            m->nodes[nd->parent].path);
        }
    }
    for (size_t i = 0; i < m->nnodes; i++) {
        if (m->nodes[i].kind != HCA_NODE_SUM)
            continue;
        size_t nc = 0;
        for (size_t j = 0; j < m->nnodes; j++)
            nc += m->nodes[j].parent == (int)i;
        if (!nc) {
            const sym *y = &m->syms[m->node_sym[i]];
            fail_at(p, y->line, y->col, "'%s': a sum node without children", m->nodes[i].path);
        }
    }
    /* plot items: node paths and globs */
    for (size_t i = 0; i < m->nplots; i++) {
        plot_int *pl = &m->plots[i];
        size_t n = pl->pub.nitems;
        for (size_t k = 0; k < n; k++) {
            if (pl->item_sym[k] > -2)
                continue;
            int refs = -2 - pl->item_sym[k];
            const sym *ref = &m->syms[refs];
            const char *pat = ref->e->name;
            size_t found = 0;
            if (!strchr(pat, '*')) {
                int s = find_sym(m, pat);
                if (s < 0 || m->syms[s].kind != S_NODE)
                    fail_at(p, ref->line, ref->col, "unknown node '%s' (inline expressions are written label=expr)", pat);
                pl->items[k].node = m->syms[s].idx;
                pl->items[k].label = m->nodes[m->syms[s].idx].label;
                pl->item_sym[k] = s;
                m->syms[refs].e = NULL;
                continue;
            }
            /* expand the glob in place */
            hca_model_plot_item *items = NULL;
            int *isyms = NULL;
            size_t cnt = 0, cnt2 = 0;
            for (size_t j = 0; j < m->nnodes; j++) {
                if (!glob_match(pat, m->nodes[j].path))
                    continue;
                found++;
                hca_model_plot_item *it = realloc(items, (cnt + 1) * sizeof(*it));
                int *is = it ? realloc(isyms, (cnt2 + 1) * sizeof(int)) : NULL;
                if (it)
                    items = it;
                if (is)
                    isyms = is;
                if (!it || !is) {
                    free(items);
                    free(isyms);
                    longjmp(p->jb, 2);
                }
                items[cnt].label = m->nodes[j].label;
                items[cnt++].node = (int)j;
                isyms[cnt2++] = m->node_sym[j];
            }
            m->syms[refs].e = NULL;
            if (!found) {
                free(items);
                free(isyms);
                fail_at(p, ref->line, ref->col, "'%s' matches no node", pat);
            }
            size_t newn = n - 1 + cnt;
            hca_model_plot_item *ni = malloc(newn * sizeof(*ni));
            int *ns = malloc(newn * sizeof(int));
            if (!ni || !ns) {
                free(ni);
                free(ns);
                free(items);
                free(isyms);
                longjmp(p->jb, 2);
            }
            memcpy(ni, pl->items, k * sizeof(*ni));
            memcpy(ni + k, items, cnt * sizeof(*ni));
            memcpy(ni + k + cnt, pl->items + k + 1, (n - k - 1) * sizeof(*ni));
            memcpy(ns, pl->item_sym, k * sizeof(int));
            memcpy(ns + k, isyms, cnt * sizeof(int));
            memcpy(ns + k + cnt, pl->item_sym + k + 1, (n - k - 1) * sizeof(int));
            free(items);
            free(isyms);
            free(pl->items);
            free(pl->item_sym);
            pl->items = ni;
            pl->item_sym = ns;
            n = newn;
            pl->pub.nitems = n;
            k += cnt - 1;
        }
        pl->pub.items = pl->items;
    }
    /* groups: events, each in one group at most */
    for (size_t i = 0; i < m->ngroups; i++) {
        group_int *g = &m->groups[i];
        g->events = ar_alloc(m, g->nmembers * sizeof(size_t), &p->jb);
        for (size_t k = 0; k < g->nmembers; k++) {
            const tok_ref *r = &g->members[k];
            int s = find_sym(m, r->name);
            if (s < 0 || m->syms[s].kind != S_EVENT)
                fail_at(p, r->line, r->col, "group: '%s' is not an event", r->name);
            g->events[k] = (size_t)m->syms[s].idx;
            for (size_t j = 0; j <= i; j++)
                for (size_t q = 0; q < (j < i ? m->groups[j].nmembers : k); q++)
                    if (m->groups[j].events[q] == g->events[k])
                        fail_at(p, r->line, r->col, "group: event '%s' is already in the group of line %d", r->name,
                                m->groups[j].line);
        }
    }
    if (m->instructions.name) {
        int s = find_sym(m, m->instructions.name);
        if (s < 0 || m->syms[s].kind != S_EVENT)
            fail_at(p, m->instructions.line, m->instructions.col, "instructions: '%s' is not an event",
                    m->instructions.name);
        m->inst_event = m->syms[s].idx;
    }
    /* names */
    for (size_t i = 0; i < m->nsyms; i++)
        if (m->syms[i].e)
            resolve(p, m->syms[i].e);
    /* evaluation order, cycles */
    m->order = ar_alloc(m, (m->nsyms + 1) * sizeof(int), &p->jb);
    int *stack = ar_alloc(m, (m->nsyms + 1) * sizeof(int), &p->jb);
    for (size_t i = 0; i < m->nsyms; i++)
        visit(p, (int)i, stack, 0);
}

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
    next(&p);
    for (;;) {
        if (p.tk.t == T_EOF)
            break;
        if (p.tk.t == T_NL) {
            next(&p);
            continue;
        }
        if (p.tk.t != T_NAME) {
            char b[128];
            fail_at(&p, p.tk.line, p.tk.col, "expected a directive (model, title, match, unit, source, event, "
                    "param, let, node, plot, group, predict, instructions), found %s", tok_desc(&p.tk, b, sizeof(b)));
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
            fail_at(&p, p.tk.line, p.tk.col, "unknown directive '%s'", kw);
    }
    if (!*m->id)
        fail_at(&p, 1, 1, "the model has no 'model <id>' line");
    if (!m->nnodes)
        fail_at(&p, p.tk.line, p.tk.col, "the model has no node");
    check(&p);
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

/* ---------------------------------------------------------------- accessors */

const char *hca_model_id(const hca_model *m) { return m->id; }
const char *hca_model_title(const hca_model *m) { return m->title; }
const char *hca_model_match(const hca_model *m) { return m->match; }
const char *hca_model_unit(const hca_model *m) { return m->unit; }
size_t hca_model_nsources(const hca_model *m) { return m->nsources; }
const char *hca_model_source(const hca_model *m, size_t i) { return i < m->nsources ? m->sources[i] : NULL; }
size_t hca_model_nevents(const hca_model *m) { return m->nevents; }
const hca_model_event *hca_model_event_at(const hca_model *m, size_t i) { return i < m->nevents ? &m->events[i] : NULL; }
size_t hca_model_nparams(const hca_model *m) { return m->nparams; }
const hca_model_param *hca_model_param_at(const hca_model *m, size_t i) { return i < m->nparams ? &m->params[i] : NULL; }
size_t hca_model_nnodes(const hca_model *m) { return m->nnodes; }
const hca_model_node *hca_model_node_at(const hca_model *m, size_t i) { return i < m->nnodes ? &m->nodes[i] : NULL; }
size_t hca_model_nplots(const hca_model *m) { return m->nplots; }
const hca_model_plot *hca_model_plot_at(const hca_model *m, size_t i) { return i < m->nplots ? &m->plots[i].pub : NULL; }

size_t hca_model_ngroups(const hca_model *m) { return m->ngroups; }
const size_t *hca_model_group_at(const hca_model *m, size_t i, size_t *n)
{
    if (i >= m->ngroups) {
        *n = 0;
        return NULL;
    }
    *n = m->groups[i].nmembers;
    return m->groups[i].events;
}
int hca_model_has_prediction(const hca_model *m) { return m->predict_sym >= 0; }
int hca_model_instructions(const hca_model *m) { return m->inst_event; }

int hca_model_find_event(const hca_model *m, const char *name)
{
    int s = find_sym(m, name);
    return s >= 0 && m->syms[s].kind == S_EVENT ? m->syms[s].idx : -1;
}

int hca_model_find_node(const hca_model *m, const char *path)
{
    int s = find_sym(m, path);
    return s >= 0 && m->syms[s].kind == S_NODE ? m->syms[s].idx : -1;
}

int hca_model_set_param(hca_model *m, const char *name, double value)
{
    int s = find_sym(m, name);
    if (s < 0 || m->syms[s].kind != S_PARAM)
        return -1;
    m->params[m->syms[s].idx].value = value;
    return 0;
}

int hca_model_set_param_arg(hca_model *m, const char *arg, char *err, size_t errlen)
{
    const char *eq = strchr(arg, '=');
    char name[128];
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(name)) {
        snprintf(err, errlen, "'%s': expected NAME=VALUE", arg);
        return -1;
    }
    memcpy(name, arg, (size_t)(eq - arg));
    name[eq - arg] = 0;
    char *end;
    errno = 0;
    double v = strtod(eq + 1, &end);
    if (end == eq + 1 || *end || errno || !isfinite(v)) {
        snprintf(err, errlen, "'%s': '%s' is not a number", arg, eq + 1);
        return -1;
    }
    if (hca_model_set_param(m, name, v) < 0) {
        const char *best = NULL;
        size_t bd = (size_t)-1;
        for (size_t i = 0; i < m->nparams; i++) {
            size_t d = hca_edit_distance(name, m->params[i].name);
            if (d < bd) {
                bd = d;
                best = m->params[i].name;
            }
        }
        snprintf(err, errlen, "model %s has no parameter '%s'%s%s%s", m->id, name, best ? " (closest: " : "",
                 best ? best : "", best ? ")" : "");
        return -1;
    }
    return 0;
}

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

/* ---------------------------------------------------------------- missing events */

static const char *strip_pmu(const char *s)
{
    const char *c = strstr(s, "::");
    return c ? c + 2 : s;
}

size_t hca_model_missing_events(const hca_model *m, const char *const *avail, size_t navail, int include_optional,
                                char *out, size_t outlen)
{
    size_t missing = 0, len = 0;
    if (out && outlen)
        out[0] = 0;
    for (size_t i = 0; i < m->nevents; i++) {
        const hca_model_event *ev = &m->events[i];
        if (ev->optional && !include_optional)
            continue;
        char rawname[64] = "";
        if (ev->raw)
            snprintf(rawname, sizeof(rawname), "r%llx", (unsigned long long)ev->config);
        const char *want = ev->raw ? rawname : strip_pmu(ev->spec);
        int found = 0;
        for (size_t j = 0; j < navail && !found; j++) {
            const char *a = strip_pmu(avail[j]);
            found = strcasecmp(a, want) == 0 || strcasecmp(avail[j], ev->name) == 0;
        }
        if (found)
            continue;
        missing++;
        if (!out || !outlen || len >= outlen)
            continue;
        int w = snprintf(out + len, outlen - len, "%s%s (%s)", missing > 1 ? "; " : "", ev->name, want);
        if (w > 0)
            len += (size_t)w;
        /* the three closest names present */
        if (navail && len + 20 < outlen) {
            snprintf(out + len, outlen - len, ", closest present: ");
            hca_closest_names(want, avail, navail, 3, strip_pmu, NULL, out, outlen);
            len = strlen(out);
        }
    }
    return missing;
}
