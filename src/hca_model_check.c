/* hca_model_check.c: the checks after parsing a model (docs/models.md): node
 * parents and depths, rest and sum nodes, plot items and their globs, counter
 * groups, names (with "did you mean"), and the evaluation order with cycle
 * detection. */
#include "hca_model_int.h"

#include "hca_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- checks */

static void resolve(parser *p, expr *e)
{
    hca_model *m = p->m;
    if (e->op == X_SYM) {
        e->sym = hm_find_sym(m, e->name);
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
                hm_fail_at(p, e->line, e->col, "unknown name '%s' (did you mean '%s'?)", e->name, best);
            hm_fail_at(p, e->line, e->col, "unknown name '%s'", e->name);
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
    enum { STACK = HM_MAX_DEPTH * 8 }; /* enough for any tree the parser accepts */
    const expr *st[STACK];
    size_t sp = 0;
    st[sp++] = y->e;
    while (sp) {
        const expr *e = st[--sp];
        if (e->op == X_SYM && n < max)
            out[n++] = e->sym;
        for (int i = 0; i < e->nargs && sp < STACK; i++)
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
        hm_fail_at(p, y->line, y->col, "cyclic definition: %s", msg);
    }
    if (depth >= HM_MAX_DEPTH) /* each level is a frame of about 2 KiB */
        hm_fail_at(p, y->line, y->col, "definitions nested too deeply (more than %d levels)", HM_MAX_DEPTH);
    y->state = 1;
    stack[depth] = s;
    int d[512];
    size_t nd = deps(m, s, d, 512);
    for (size_t i = 0; i < nd; i++)
        visit(p, d[i], stack, depth + 1);
    m->syms[s].state = 2;
    m->order[m->norder++] = s;
}

void hm_check(parser *p)
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
                hm_fail_at(p, y->line, y->col, "node path too long");
            memcpy(parent, nd->path, len);
            parent[len] = 0;
            int ps = hm_find_sym(m, parent);
            if (ps < 0 || m->syms[ps].kind != S_NODE)
                hm_fail_at(p, y->line, y->col, "'%s': no parent node '%s'", nd->path, parent);
            nd->parent = m->syms[ps].idx;
            nd->depth = m->nodes[nd->parent].depth + 1;
            if ((size_t)nd->parent > i)
                hm_fail_at(p, y->line, y->col, "'%s' is defined before its parent '%s'", nd->path, parent);
        }
        if (nd->kind == HCA_NODE_REST) {
            if (nd->parent < 0)
                hm_fail_at(p, y->line, y->col, "'%s': a rest node needs a parent", nd->path);
            if (m->nodes[nd->parent].kind == HCA_NODE_SUM)
                hm_fail_at(p, y->line, y->col, "'%s': the parent of a rest node cannot be a sum", nd->path);
            for (size_t j = 0; j < i; j++)
                if (m->nodes[j].parent == nd->parent && m->nodes[j].kind == HCA_NODE_REST)
                    hm_fail_at(p, y->line, y->col, "'%s': a second rest node under '%s'", nd->path,
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
            hm_fail_at(p, y->line, y->col, "'%s': a sum node without children", m->nodes[i].path);
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
                int s = hm_find_sym(m, pat);
                if (s < 0 || m->syms[s].kind != S_NODE)
                    hm_fail_at(p, ref->line, ref->col, "unknown node '%s' (inline expressions are written label=expr)", pat);
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
                hm_fail_at(p, ref->line, ref->col, "'%s' matches no node", pat);
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
        g->events = hm_alloc(m, g->nmembers * sizeof(size_t), &p->jb);
        for (size_t k = 0; k < g->nmembers; k++) {
            const tok_ref *r = &g->members[k];
            int s = hm_find_sym(m, r->name);
            if (s < 0 || m->syms[s].kind != S_EVENT)
                hm_fail_at(p, r->line, r->col, "group: '%s' is not an event", r->name);
            g->events[k] = (size_t)m->syms[s].idx;
            for (size_t j = 0; j <= i; j++)
                for (size_t q = 0; q < (j < i ? m->groups[j].nmembers : k); q++)
                    if (m->groups[j].events[q] == g->events[k])
                        hm_fail_at(p, r->line, r->col, "group: event '%s' is already in the group of line %d", r->name,
                                m->groups[j].line);
        }
    }
    if (m->instructions.name) {
        int s = hm_find_sym(m, m->instructions.name);
        if (s < 0 || m->syms[s].kind != S_EVENT)
            hm_fail_at(p, m->instructions.line, m->instructions.col, "instructions: '%s' is not an event",
                    m->instructions.name);
        m->inst_event = m->syms[s].idx;
    }
    /* names */
    for (size_t i = 0; i < m->nsyms; i++)
        if (m->syms[i].e)
            resolve(p, m->syms[i].e);
    /* evaluation order, cycles */
    m->order = hm_alloc(m, (m->nsyms + 1) * sizeof(int), &p->jb);
    int *stack = hm_alloc(m, (m->nsyms + 1) * sizeof(int), &p->jb);
    for (size_t i = 0; i < m->nsyms; i++)
        visit(p, (int)i, stack, 0);
}
