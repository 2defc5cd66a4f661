/* hct_counter_model.c: the model (HCATRACE_MODEL) in the tracer: found by name or
 * by the PMU (auto), its events resolved and packed into counter sets
 * (hct_model_sets.c), and after the sets are built, what it counts here and why
 * not the rest: one line, and the trace's archive properties (set by rank 0). */
#include "hct_counter_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hca_model_path.h"
#include "hct_counter_pmu.h"
#include "hct_diag.h"

/* What the trace says about the model: archive properties, set by rank 0. */
static struct {
    int loaded;
    char id[128];
    char file[4096];
    char *text;       /* the model file, verbatim */
    char *events;     /* ALIAS=member;... */
    char *missing;    /* ALIAS=why;... */
} P;

static const char *model_fallback(void)
{
    return hct.cfg.counters ? "using HCATRACE_COUNTERS only" : "using the default counters";
}

/* Finds and parses the model HCATRACE_MODEL names; NULL (said in one line) on failure. */
hca_model *hct_ctr_load_model(const char *want, const char *pmu, int have_core)
{
    char path[4096], err[1024], note[256] = "";
    const char *name = want;
    int by_pmu = 0;
    if (strcmp(want, "auto") == 0) {
        name = "generic";
        if (!have_core)
            snprintf(note, sizeof(note), "libpfm4 detects no core PMU here");
        else if (hca_model_for_pmu(pmu, path, sizeof(path)) == 0)
            by_pmu = 1;
        else
            snprintf(note, sizeof(note), "no model for PMU %s", pmu);
    }
    if (!by_pmu && hca_model_find(name, path, sizeof(path), err, sizeof(err)) != 0) {
        hct_config_problem("%s; %s", err, model_fallback());
        return NULL;
    }
    hca_model *m = hca_model_load(path, err, sizeof(err));
    if (!m) {
        hct_config_problem("%s; %s", err, model_fallback());
        return NULL;
    }
    if (by_pmu)
        hct_config_problem("model %s for PMU %s (HCATRACE_MODEL=auto)", hca_model_id(m), pmu);
    else if (note[0])
        hct_config_problem("model %s (HCATRACE_MODEL=auto: %s)", hca_model_id(m), note);
    P.loaded = 1;
    snprintf(P.id, sizeof(P.id), "%s", hca_model_id(m));
    char *abs = realpath(path, NULL);
    snprintf(P.file, sizeof(P.file), "%s", abs ? abs : path);
    free(abs);
    P.text = hca_model_read_file(path, err, sizeof(err)); /* recorded verbatim in the trace */
    return m;
}

/* A reason for a property value (cut to fit): no ';' or '='. */
static void set_why(char *dst, size_t n, const char *text)
{
    size_t k = 0;
    for (; text[k] && k + 1 < n; k++)
        dst[k] = text[k] == ';' ? ',' : text[k] == '=' ? ':' : text[k];
    dst[k] = 0;
}

/* The model's events -> pending sets (want[0..]), instructions and cycles
 * (base) in each when the PMU has them. Returns the number of sets. */
int hct_ctr_model_sets(const hca_model *m, const hct_event *base, int nbase, const hct_pmu_caps *caps,
                      hct_pending_set *want, int maxsets, hct_model_result *r)
{
    size_t ne = hca_model_nevents(m), ng = hca_model_ngroups(m);
    int n = nbase + (int)ne;
    hct_event *ev = calloc((size_t)n, sizeof(*ev));
    int *usable = calloc((size_t)n, sizeof(int)), *same_as = calloc((size_t)n, sizeof(int));
    int *where = calloc((size_t)n, sizeof(int)), *gsize = calloc(ng + 1, sizeof(int));
    int **groups = calloc(ng + 1, sizeof(int *));
    hct_packing *pk = calloc(1, sizeof(*pk));
    r->n = ne;
    r->member = calloc(ne + 1, sizeof(*r->member));
    r->why = calloc(ne + 1, sizeof(*r->why));
    int nsets = 0, ok = ev && usable && same_as && where && gsize && groups && pk && r->member && r->why;
    for (size_t g = 0; ok && g < ng; g++) {
        size_t gn = 0;
        const size_t *members = hca_model_group_at(m, g, &gn);
        groups[g] = calloc(gn + 1, sizeof(int));
        ok = groups[g] != NULL;
        for (size_t k = 0; ok && k < gn; k++)
            groups[g][k] = nbase + (int)members[k];
        gsize[g] = (int)gn;
    }
    if (!ok) { /* nothing counted, nothing reported */
        free(r->member);
        free(r->why);
        r->member = NULL;
        r->why = NULL;
        r->n = 0;
        goto out;
    }
    for (int b = 0; b < nbase; b++) {
        ev[b] = base[b];
        usable[b] = 1;
    }
    for (size_t i = 0; i < ne; i++) {
        const hca_model_event *e = hca_model_event_at(m, i);
        hct_event *x = &ev[nbase + (int)i];
        char why[256];
        int rc = hct_model_event_resolve(e, x, why, sizeof(why));
        if ((rc == HCT_EV_OK && x->hardware && !hct_ctr.has_pmu) || (rc == HCT_EV_OTHER_PMU && !hct_ctr.has_pmu)) {
            set_why(r->why[i], sizeof(r->why[i]), "no CPU PMU");
            r->no_pmu = 1;
        } else if (rc == HCT_EV_OK) {
            int err = hct_ctr_open_alone(x);
            if (err) {
                char text[200];
                snprintf(text, sizeof(text), "refused by the kernel: %s", strerror(err));
                set_why(r->why[i], sizeof(r->why[i]), text);
            }
            usable[nbase + (int)i] = err == 0;
        } else if (rc == HCT_EV_OTHER_PMU || rc == HCT_EV_INVALID) {
            set_why(r->why[i], sizeof(r->why[i]), why);
        } else {
            set_why(r->why[i], sizeof(r->why[i]), "unknown here");
        }
    }
    nsets = hct_model_pack(ev, usable, n, nbase, (const int *const *)groups, gsize, (int)ng, caps, same_as, where, pk);
    if (nsets > maxsets)
        nsets = maxsets;
    for (size_t i = 0; i < ne; i++) {
        int k = nbase + (int)i;
        if (where[k] >= 0)
            snprintf(r->member[i], sizeof(r->member[i]), "%s", ev[same_as[k]].name);
        else if (where[k] == HCT_PACK_TOO_BIG)
            set_why(r->why[i], sizeof(r->why[i]), "its group needs more counters than one set has");
        else if (where[k] == HCT_PACK_NO_ROOM)
            set_why(r->why[i], sizeof(r->why[i]), "more counter sets than the tracer keeps");
    }
    for (int s = 0; s < nsets; s++) {
        hct_pending_set *p = &want[s];
        memset(p, 0, sizeof(*p));
        p->from_model = 1;
        for (int k = 0; k < pk->nevents[s]; k++) {
            int idx = pk->ev[s][k], unit = -1;
            for (int g = 0; g < (int)ng && unit < 0; g++)
                for (int j = 0; j < gsize[g]; j++)
                    if (groups[g][j] == idx)
                        unit = g;
            hct_ctr_pending_add(p, &ev[idx], unit);
        }
    }
out:
    for (size_t g = 0; groups && g < ng; g++)
        free(groups[g]);
    free(groups);
    free(gsize);
    free(pk);
    free(where);
    free(same_as);
    free(usable);
    free(ev);
    return nsets;
}

static int counted(const char *name)
{
    for (int s = 0; s < hct_ctr.nsets; s++)
        for (int k = 0; k < hct_ctr.set[s].nevents; k++)
            if (strcmp(hct_ctr.set[s].ev[k].name, name) == 0)
                return 1;
    return 0;
}

static void append(char **buf, size_t *len, size_t *cap, const char *a, const char *b, const char *c)
{
    size_t add = strlen(a) + strlen(b) + strlen(c);
    if (*len + add + 1 > *cap) {
        size_t ncap = (*len + add + 1) * 2;
        char *nb = realloc(*buf, ncap);
        if (!nb)
            return;
        *buf = nb;
        *cap = ncap;
    }
    *len += (size_t)snprintf(*buf + *len, *cap - *len, "%s%s%s", a, b, c);
}

/* After build_sets: what the model counts here, as properties and one line. */
void hct_ctr_model_report(const hca_model *m, hct_model_result *r, int full, int using_defaults)
{
    if (!r->member || !r->why)
        return;
    size_t ne = r->n, nmissing = 0, len[2] = { 0, 0 }, cap[2] = { 0, 0 };
    char *prop[2] = { NULL, NULL }; /* events, missing */
    const char *first_why = NULL;
    int one_why = 1;
    for (size_t i = 0; i < ne; i++) {
        if (r->member[i][0] && !counted(r->member[i])) {
            set_why(r->why[i], sizeof(r->why[i]),
                    full ? "more counter sets than the tracer keeps" : "refused by the kernel in a group");
            r->member[i][0] = 0;
        }
        const char *alias = hca_model_event_at(m, i)->name;
        int c = r->member[i][0] != 0;
        if (!c) {
            nmissing++;
            if (first_why && strcmp(first_why, r->why[i]) != 0)
                one_why = 0;
            if (!first_why)
                first_why = r->why[i];
        }
        append(&prop[!c], &len[!c], &cap[!c], len[!c] ? ";" : "", alias, "=");
        append(&prop[!c], &len[!c], &cap[!c], c ? r->member[i] : r->why[i], "", "");
    }
    P.events = prop[0];
    P.missing = prop[1];
    if (!nmissing)
        return;
    char line[900], list[700] = "", counting[300] = "";
    size_t ll = 0, lc = 0;
    for (size_t i = 0; i < ne; i++) {
        const char *alias = hca_model_event_at(m, i)->name;
        char *dst = r->member[i][0] ? counting : list;
        size_t *used = r->member[i][0] ? &lc : &ll, size = r->member[i][0] ? sizeof(counting) : sizeof(list);
        int w = snprintf(dst + *used, size - *used, "%s%s%s%s%s", *used ? ", " : "", alias,
                         one_why || r->member[i][0] ? "" : " (", one_why || r->member[i][0] ? "" : r->why[i],
                         one_why || r->member[i][0] ? "" : ")");
        if (w > 0 && *used + (size_t)w < size)
            *used += (size_t)w;
        else if (size - *used > 4)
            snprintf(dst + *used, size - *used, "...");
    }
    snprintf(line, sizeof(line), "model %s: %zu of %zu events cannot be counted here%s%s%s: %s; %s%s", hca_model_id(m),
             nmissing, ne, one_why ? " (" : "", one_why ? first_why : "", one_why ? ")" : "", list,
             lc ? "counting " : using_defaults ? "using the default counters" : "counting nothing", counting);
    hct_config_problem("%s", line);
}

void hct_counters_properties(OTF2_Archive *archive)
{
    const char *pmu = archive ? hct_ctr_pmu_name() : "";
    if (pmu[0])
        OTF2_Archive_SetProperty(archive, HCA_PROP_PMU, pmu, true);
    if (archive && P.loaded) {
        OTF2_Archive_SetProperty(archive, HCA_PROP_MODEL, P.id[0] ? P.id : "?", true);
        OTF2_Archive_SetProperty(archive, HCA_PROP_MODEL_FILE, P.file, true);
        if (P.text && P.text[0])
            OTF2_Archive_SetProperty(archive, HCA_PROP_MODEL_TEXT, P.text, true);
        if (P.events && P.events[0])
            OTF2_Archive_SetProperty(archive, HCA_PROP_MODEL_EVENTS, P.events, true);
        if (P.missing && P.missing[0])
            OTF2_Archive_SetProperty(archive, HCA_PROP_MODEL_MISSING, P.missing, true);
    }
    free(P.text);
    free(P.events);
    free(P.missing);
    P.text = P.events = P.missing = NULL;
}
