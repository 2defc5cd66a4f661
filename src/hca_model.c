/* hca_model.c: the model object of the model language (docs/models.md): its
 * arena and hca_model_free, the accessors, parameters, and the events a trace
 * lacks. Parsing is in hca_model_lex.c, hca_model_parse.c and
 * hca_model_check.c, evaluation in hca_model_eval.c (hca_model_int.h). */
#include "hca_model.h"

#include "hca_model_int.h"
#include "hca_names.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------------------- arena */

void *hm_alloc(hca_model *m, size_t size, jmp_buf *jb)
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

char *hm_strndup(hca_model *m, const char *s, size_t n, jmp_buf *jb)
{
    char *d = hm_alloc(m, n + 1, jb);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

/* Grows an array (kept in the heap, not the arena) by one zeroed element. */
void *hm_grow(void *arrp, size_t *n, size_t elsize, jmp_buf *jb)
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

/* ---------------------------------------------------------------- symbols */

int hm_find_sym(const hca_model *m, const char *name)
{
    for (size_t i = 0; i < m->nsyms; i++)
        if (m->syms[i].name && strcmp(m->syms[i].name, name) == 0)
            return (int)i;
    return -1;
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
    int s = hm_find_sym(m, name);
    return s >= 0 && m->syms[s].kind == S_EVENT ? m->syms[s].idx : -1;
}

int hca_model_find_node(const hca_model *m, const char *path)
{
    int s = hm_find_sym(m, path);
    return s >= 0 && m->syms[s].kind == S_NODE ? m->syms[s].idx : -1;
}

int hca_model_set_param(hca_model *m, const char *name, double value)
{
    int s = hm_find_sym(m, name);
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
