/* read_defs.c: hcafold's view of an archive's global definitions: the
 * schema's reading side (src/hca_schema_read.h) turns the anchor file and the
 * global definitions into tables by OTF2 ID; here they become the trace's
 * regions, calling contexts, counters and counter sets, checked for dangling
 * references; plus the properties and the labels of calling contexts. */
#include "read_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hca_schema.h"
#include "hca_schema_read.h"

static int cmp_loc(const void *a, const void *b)
{
    const hca_read_location *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static const char *string_or(const fold_trace *t, uint32_t ref, const char *dflt)
{
    return ref < t->nstrings && t->strings[ref] ? t->strings[ref] : dflt;
}

static int region_kind(uint32_t paradigm)
{
    switch (paradigm) {
    case OTF2_PARADIGM_MPI:
        return FOLD_KIND_MPI;
    case OTF2_PARADIGM_USER:
        return FOLD_KIND_USER;
    case OTF2_PARADIGM_OPENMP:
        return FOLD_KIND_OPENMP;
    default:
        return FOLD_KIND_FUNCTION;
    }
}

/* Turns the raw definitions into the trace's tables; validates references. */
static int finish_defs(hca_trace_defs *st, fold_trace *t, char *err, size_t errlen)
{
    t->clock_resolution = st->clock_resolution;
    t->global_offset = st->global_offset;
    t->trace_length = st->trace_length;
    t->sample_period_ns = st->sample_period_ns;
    t->strings = st->strings; /* names point here */
    t->nstrings = st->nstrings;
    st->strings = NULL;
    st->nstrings = 0;
    t->nregions = st->nregions;
    t->regions = calloc(st->nregions + 1, sizeof(*t->regions));
    t->ncontexts = st->nccs;
    t->contexts = calloc(st->nccs + 1, sizeof(*t->contexts));
    t->ncounters = st->nmembers;
    t->counters = calloc(st->nmembers + 1, sizeof(*t->counters));
    t->nan_row = malloc((st->nmembers + 1) * sizeof(double));
    t->nlocations = st->nlocations;
    t->locations = calloc(st->nlocations + 1, sizeof(*t->locations));
    if (!t->regions || !t->contexts || !t->counters || !t->nan_row || !t->locations)
        return fold_fail(err, errlen, FOLD_ERR_NOMEM, "out of memory reading the definitions");
    for (size_t i = 0; i <= st->nmembers; i++)
        t->nan_row[i] = NAN;
    for (size_t i = 0; i < st->nregions; i++) {
        const hca_read_region *r = &st->regions[i];
        fold_region_def *d = &t->regions[i];
        d->name = string_or(t, r->name, "?");
        d->file = string_or(t, r->file, "");
        d->line = r->line;
        d->paradigm = (int)r->paradigm;
        d->role = (int)r->role;
        d->kind = region_kind(r->paradigm);
    }
    for (size_t i = 0; i < st->nccs; i++) {
        const hca_read_cc *c = &st->ccs[i];
        fold_context_def *d = &t->contexts[i];
        if (!c->defined || c->region >= st->nregions || !st->regions[c->region].defined ||
            (c->parent != OTF2_UNDEFINED_CALLING_CONTEXT && c->parent >= st->nccs))
            return fold_fail(err, errlen, FOLD_ERR_CORRUPT, "corrupt definitions: calling context %zu", i);
        d->region = c->region;
        d->parent = c->parent == OTF2_UNDEFINED_CALLING_CONTEXT ? FOLD_NONE : c->parent;
        d->file = NULL;
        if (c->scl != OTF2_UNDEFINED_SOURCE_CODE_LOCATION && c->scl < st->nscls && st->scls[c->scl].defined) {
            d->file = string_or(t, st->scls[c->scl].file, "");
            d->line = st->scls[c->scl].line;
        }
    }
    /* depths; a cycle of parents is corrupt */
    for (size_t i = 0; i < t->ncontexts; i++) {
        uint32_t depth = 0, p = t->contexts[i].parent;
        while (p != FOLD_NONE) {
            if (++depth > t->ncontexts)
                return fold_fail(err, errlen, FOLD_ERR_CORRUPT, "corrupt definitions: calling contexts form a cycle");
            p = t->contexts[p].parent;
        }
        t->contexts[i].depth = depth;
    }
    /* counters: the members but the tracer's sampling statistics and tool time */
    uint32_t *counter_of = malloc((st->nmembers + 1) * sizeof(*counter_of));
    if (!counter_of)
        return fold_fail(err, errlen, FOLD_ERR_NOMEM, "out of memory reading the definitions");
    t->ncounters = 0;
    for (size_t i = 0; i < st->nmembers; i++) {
        const char *name = string_or(t, st->members[i].name, "?");
        counter_of[i] = FOLD_NONE;
        if (hca_is_stats_member(name) || hca_is_tool_member(name))
            continue;
        counter_of[i] = (uint32_t)t->ncounters;
        t->counters[t->ncounters].name = name;
        t->counters[t->ncounters].unit = string_or(t, st->members[i].unit, "");
        t->counters[t->ncounters].description = string_or(t, st->members[i].description, "");
        t->counters[t->ncounters].counts_cpu = hca_counts_cpu_time(name);
        t->ncounters++;
    }
    /* counter sets: every metric class, by ID (undefined ones without members) */
    t->sets = calloc(st->nclasses + 1, sizeof(*t->sets));
    if (!t->sets) {
        free(counter_of);
        return fold_fail(err, errlen, FOLD_ERR_NOMEM, "out of memory reading the definitions");
    }
    t->nsets = st->nclasses;
    for (size_t i = 0; i < st->nclasses; i++) {
        const hca_read_class *c = &st->classes[i];
        fold_counter_set *set = &t->sets[i];
        if (!c->defined)
            continue;
        set->counters = calloc(c->n ? c->n : 1, sizeof(*set->counters));
        set->lost = calloc(c->n ? c->n : 1, sizeof(*set->lost));
        set->lost_why = calloc(c->n ? c->n : 1, sizeof(*set->lost_why));
        if (!set->counters || !set->lost || !set->lost_why) {
            free(counter_of);
            return fold_fail(err, errlen, FOLD_ERR_NOMEM, "out of memory reading the definitions");
        }
        set->n = c->n;
        set->tool_time = set->tool_cpu = -1;
        for (size_t k = 0; k < set->n; k++)
            if (c->members[k] >= st->nmembers || !st->members[c->members[k]].defined) {
                free(counter_of);
                return fold_fail(err, errlen, FOLD_ERR_CORRUPT, "corrupt definitions: metric class %zu", i);
            }
        for (size_t k = 0; k < set->n; k++) {
            const char *name = string_or(t, st->members[c->members[k]].name, "?");
            set->lost_why[k] = (uint8_t)hca_lost_reason(name);
            set->lost[k] = (uint8_t)(set->lost_why[k] != 0 || hca_is_lost_member(name));
            set->statistics |= hca_is_stats_member(name);
            set->tool |= hca_is_tool_member(name);
            if (strcmp(name, HCA_TOOL_TIME) == 0)
                set->tool_time = (int)k;
            else if (strcmp(name, HCA_TOOL_CPU_TIME) == 0)
                set->tool_cpu = (int)k;
        }
        t->tool_time |= set->tool;
        for (size_t k = 0; k < set->n; k++)
            set->counters[k] = set->statistics || set->tool ? FOLD_NONE : counter_of[c->members[k]];
    }
    free(counter_of);
    /* what the tracer did not write: per region name (a name may have several IDs) */
    t->thinned = calloc(st->nthinned + 1, sizeof(*t->thinned));
    if (!t->thinned)
        return fold_fail(err, errlen, FOLD_ERR_NOMEM, "out of memory reading the definitions");
    size_t nthinned = 0;
    for (size_t i = 0; i < st->nthinned; i++) {
        const hca_read_thinned *th = &st->thinned[i];
        if (th->region >= st->nregions || !st->regions[th->region].defined)
            return fold_fail(err, errlen, FOLD_ERR_CORRUPT, "corrupt definitions: thinned region %u", th->region);
        const char *name = t->regions[th->region].name;
        size_t k = 0;
        while (k < nthinned && strcmp(t->thinned[k].name, name) != 0)
            k++;
        if (k == nthinned)
            t->thinned[nthinned++].name = name;
        t->thinned[k].instances += th->instances;
        t->thinned[k].time_ns += th->time_ns;
        t->thinned[k].locations++;
    }
    t->nthinned = nthinned;
    qsort(st->locations, st->nlocations, sizeof(*st->locations), cmp_loc);
    for (size_t i = 0; i < st->nlocations; i++) {
        if (i && st->locations[i].id == st->locations[i - 1].id)
            return fold_fail(err, errlen, FOLD_ERR_CORRUPT, "corrupt definitions: location %" PRIu64 " defined twice",
                             st->locations[i].id);
        t->locations[i].id = st->locations[i].id;
        t->locations[i].rank = st->locations[i].group;
        t->locations[i].thread = hca_location_thread(st->locations[i].id);
    }
    return FOLD_OK;
}

/* The archive's trace file properties (from the anchor file). */
static int read_properties(OTF2_Reader *r, fold_trace *t)
{
    hca_properties p;
    int status = hca_read_properties(r, &p) == 0 ? FOLD_OK : FOLD_ERR_NOMEM;
    t->property_names = p.names; /* ours now: freed by fold_trace_free */
    t->property_values = p.values;
    t->nproperties = p.n;
    return status;
}

const char *fold_trace_property(const fold_trace *t, const char *name)
{
    for (size_t i = 0; i < t->nproperties; i++)
        if (strcasecmp(t->property_names[i], name) == 0)
            return t->property_values[i];
    return NULL;
}

int fold_read_global_defs(fold_trace *t, const char *anchor, uint64_t **expected, char *err, size_t errlen)
{
    fold_otf2_message[0] = 0;
    if (!fold_ends_with(anchor, HCA_ANCHOR_SUFFIX) || !fold_has_otf2_magic(anchor))
        return fold_fail(err, errlen, FOLD_ERR_NOT_OTF2, "%s is not an OTF2 archive (%s)", anchor,
                         fold_ends_with(anchor, HCA_ANCHOR_SUFFIX) ? "no OTF2 anchor file header"
                                                                   : "an anchor file ends in .otf2");
    OTF2_Reader *r = OTF2_Reader_Open(anchor);
    if (!r)
        return fold_fail(err, errlen, FOLD_ERR_NOT_OTF2, "%s is not an OTF2 archive (%s)", anchor,
                         fold_otf2_message[0] ? fold_otf2_message : "not a readable OTF2 anchor file");
    hca_trace_defs st;
    memset(&st, 0, sizeof(st));
    if (OTF2_Reader_GetCreator(r, &t->creator) != OTF2_SUCCESS)
        t->creator = NULL;
    int status = read_properties(r, t);
    if (status != FOLD_OK) {
        OTF2_Reader_Close(r);
        return fold_fail(err, errlen, status, "out of memory reading the trace properties");
    }
    OTF2_GlobalDefReader *gd = NULL;
    if (OTF2_Reader_SetSerialCollectiveCallbacks(r) != OTF2_SUCCESS || !(gd = OTF2_Reader_GetGlobalDefReader(r))) {
        status = fold_fail(err, errlen, FOLD_ERR_CORRUPT, "%s: cannot open the global definitions (%s)", anchor,
                           fold_otf2_message[0] ? fold_otf2_message : "missing file");
        goto out;
    }
    OTF2_ErrorCode rc = hca_read_global_defs(r, gd, &st);
    if (st.bad < 0) {
        status = fold_fail(err, errlen, FOLD_ERR_NOMEM, "out of memory reading the definitions");
        goto out;
    }
    if (st.bad > 0 || rc != OTF2_SUCCESS) {
        status = fold_fail(err, errlen, FOLD_ERR_CORRUPT, "%s: truncated or corrupt global definitions (%s)", anchor,
                           st.bad ? st.why : fold_otf2_reason(rc));
        goto out;
    }
    if (st.nlocations == 0) {
        status = fold_fail(err, errlen, FOLD_ERR_CORRUPT, "%s: the archive defines no locations", anchor);
        goto out;
    }
    status = finish_defs(&st, t, err, errlen);
    if (status == FOLD_OK) {
        *expected = calloc(st.nlocations, sizeof(**expected));
        if (!*expected)
            status = fold_fail(err, errlen, FOLD_ERR_NOMEM, "out of memory");
        for (size_t i = 0; *expected && i < st.nlocations; i++)
            (*expected)[i] = st.locations[i].nevents;
    }
out:
    if (gd)
        OTF2_Reader_CloseGlobalDefReader(r, gd);
    OTF2_Reader_Close(r);
    hca_trace_defs_free(&st);
    return status;
}

static const char *basename_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int fold_context_label(const fold_trace *t, uint32_t context, char *buf, size_t len)
{
    if (context >= t->ncontexts)
        return snprintf(buf, len, "?");
    const fold_context_def *c = &t->contexts[context];
    const char *name = t->regions[c->region].name;
    if (c->parent == FOLD_NONE)
        return snprintf(buf, len, "%s", name);
    const fold_context_def *p = &t->contexts[c->parent];
    if (p->file && *p->file)
        return snprintf(buf, len, "%s@%s:%u", name, basename_of(p->file), p->line);
    return snprintf(buf, len, "%s@%s", name, t->regions[p->region].name);
}
