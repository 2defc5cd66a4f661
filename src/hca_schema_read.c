/* hca_schema_read.c: reads an archive's global definitions and trace file
 * properties into the tables of hca_schema_read.h, for every reader of the
 * format (hcafold, tracestat, the round-trip test). */
#include "hca_schema_read.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hca_schema.h"

int hca_grow(void **arr, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *p = realloc(*arr, n * size);
    if (!p)
        return -1;
    memset((char *)p + *cap * size, 0, (n - *cap) * size);
    *arr = p;
    *cap = n;
    return 0;
}

/* Makes d->arr[id] exist (zero-filled) and counted in d->n; interrupts the
 * reading on an ID out of range or when memory ran out. */
#define DEF_SLOT(d, arr, n, cap, id)                                                              \
    do {                                                                                          \
        if ((id) >= HCA_READ_MAX_ID) {                                                            \
            (d)->bad = 1;                                                                         \
            snprintf((d)->why, sizeof((d)->why), "definition ID %" PRIu64 " out of range",         \
                     (uint64_t)(id));                                                             \
            return OTF2_CALLBACK_INTERRUPT;                                                       \
        }                                                                                         \
        if (hca_grow((void **)&(d)->arr, &(d)->cap, (size_t)(id) + 1, sizeof(*(d)->arr))) {           \
            (d)->bad = -1;                                                                        \
            return OTF2_CALLBACK_INTERRUPT;                                                       \
        }                                                                                         \
        if ((size_t)(id) >= (d)->n)                                                               \
            (d)->n = (size_t)(id) + 1;                                                            \
    } while (0)

static OTF2_CallbackCode def_clock(void *u, uint64_t res, uint64_t offset, uint64_t length, uint64_t realtime)
{
    hca_trace_defs *d = u;
    (void)realtime;
    d->clock_resolution = res;
    d->global_offset = offset;
    d->trace_length = length;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_string(void *u, OTF2_StringRef self, const char *s)
{
    hca_trace_defs *d = u;
    DEF_SLOT(d, strings, nstrings, cap_strings, self);
    free(d->strings[self]);
    d->strings[self] = strdup(s ? s : "");
    if (!d->strings[self]) {
        d->bad = -1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canon,
                                    OTF2_StringRef descr, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    hca_trace_defs *d = u;
    (void)canon;
    (void)flags;
    (void)end;
    DEF_SLOT(d, regions, nregions, cap_regions, self);
    d->regions[self] = (hca_read_region){ name, descr, file, begin, paradigm, role, 1 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_scl(void *u, OTF2_SourceCodeLocationRef self, OTF2_StringRef file, uint32_t line)
{
    hca_trace_defs *d = u;
    DEF_SLOT(d, scls, nscls, cap_scls, self);
    d->scls[self] = (hca_read_scl){ file, line, 1 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_cc(void *u, OTF2_CallingContextRef self, OTF2_RegionRef region,
                                OTF2_SourceCodeLocationRef scl, OTF2_CallingContextRef parent)
{
    hca_trace_defs *d = u;
    DEF_SLOT(d, ccs, nccs, cap_ccs, self);
    d->ccs[self] = (hca_read_cc){ region, scl, parent, 1 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_member(void *u, OTF2_MetricMemberRef self, OTF2_StringRef name, OTF2_StringRef descr,
                                    OTF2_MetricType type, OTF2_MetricMode mode, OTF2_Type value_type, OTF2_Base base,
                                    int64_t exponent, OTF2_StringRef unit)
{
    hca_trace_defs *d = u;
    (void)type;
    (void)mode;
    (void)value_type;
    (void)base;
    (void)exponent;
    DEF_SLOT(d, members, nmembers, cap_members, self);
    d->members[self] = (hca_read_member){ name, unit, descr, 1 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_class(void *u, OTF2_MetricRef self, uint8_t n, const OTF2_MetricMemberRef *members,
                                   OTF2_MetricOccurrence occurrence, OTF2_RecorderKind recorder)
{
    hca_trace_defs *d = u;
    (void)occurrence;
    (void)recorder;
    DEF_SLOT(d, classes, nclasses, cap_classes, self);
    hca_read_class *c = &d->classes[self];
    free(c->members);
    c->members = calloc(n ? n : 1, sizeof(*c->members));
    if (!c->members) {
        d->bad = -1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    c->n = n;
    c->defined = 1;
    for (uint8_t i = 0; i < n; i++)
        c->members[i] = members[i];
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                      uint64_t nevents, OTF2_LocationGroupRef group)
{
    hca_trace_defs *d = u;
    (void)name;
    (void)type;
    if (hca_grow((void **)&d->locations, &d->cap_locations, d->nlocations + 1, sizeof(*d->locations))) {
        d->bad = -1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    d->locations[d->nlocations++] = (hca_read_location){ self, nevents, group };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                   OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    hca_trace_defs *d = u;
    (void)name;
    (void)paradigm;
    (void)flags;
    (void)members;
    DEF_SLOT(d, groups, ngroups, cap_groups, self);
    d->groups[self] = (hca_read_group){ type, n };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                  OTF2_CommRef parent, OTF2_CommFlag flags)
{
    hca_trace_defs *d = u;
    (void)parent;
    (void)flags;
    DEF_SLOT(d, comms, ncomms, cap_comms, self);
    d->comms[self] = (hca_read_comm){ name, group };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_igen(void *u, OTF2_InterruptGeneratorRef self, OTF2_StringRef name,
                                  OTF2_InterruptGeneratorMode mode, OTF2_Base base, int64_t exponent, uint64_t period)
{
    hca_trace_defs *d = u;
    (void)name;
    (void)mode;
    if (d->sample_period_ns == 0 || self == 0) {
        double p = (double)period * pow(base == OTF2_BASE_BINARY ? 2.0 : 10.0, (double)exponent) * 1e9;
        d->sample_period_ns = p > 0 && p < 1e18 ? (uint64_t)llround(p) : 0;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* HCA_PROP_THINNED: "REGION INSTANCES TIME_NS;..." (other properties ignored). */
static OTF2_CallbackCode def_location_property(void *u, OTF2_LocationRef location, OTF2_StringRef name,
                                               OTF2_Type type, OTF2_AttributeValue value)
{
    hca_trace_defs *d = u;
    if (type != OTF2_TYPE_STRING || strcmp(hca_trace_defs_string(d, name, ""), HCA_PROP_THINNED) != 0)
        return OTF2_CALLBACK_SUCCESS;
    const char *p = hca_trace_defs_string(d, value.stringRef, "");
    while (*p) {
        unsigned region;
        uint64_t instances, ns;
        int used = 0;
        if (sscanf(p, "%u %" SCNu64 " %" SCNu64 "%n", &region, &instances, &ns, &used) != 3 || used <= 0 ||
            (p[used] != ';' && p[used] != 0)) {
            d->bad = 1;
            snprintf(d->why, sizeof(d->why), "malformed %s property", HCA_PROP_THINNED);
            return OTF2_CALLBACK_INTERRUPT;
        }
        if (hca_grow((void **)&d->thinned, &d->cap_thinned, d->nthinned + 1, sizeof(*d->thinned))) {
            d->bad = -1;
            return OTF2_CALLBACK_INTERRUPT;
        }
        d->thinned[d->nthinned++] = (hca_read_thinned){ location, region, instances, ns };
        p += used + (p[used] == ';');
    }
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_ErrorCode hca_read_global_defs(OTF2_Reader *r, OTF2_GlobalDefReader *gd, hca_trace_defs *d)
{
    memset(d, 0, sizeof(*d));
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    if (!cb) {
        d->bad = -1;
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    }
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, def_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
    OTF2_GlobalDefReaderCallbacks_SetSourceCodeLocationCallback(cb, def_scl);
    OTF2_GlobalDefReaderCallbacks_SetCallingContextCallback(cb, def_cc);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(cb, def_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(cb, def_class);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, def_location);
    OTF2_GlobalDefReaderCallbacks_SetLocationPropertyCallback(cb, def_location_property);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, def_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, def_comm);
    OTF2_GlobalDefReaderCallbacks_SetInterruptGeneratorCallback(cb, def_igen);
    OTF2_Reader_RegisterGlobalDefCallbacks(r, gd, cb, d);
    uint64_t ndefs = 0;
    OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalDefinitions(r, gd, &ndefs);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    if (rc == OTF2_SUCCESS && d->bad)
        rc = d->bad < 0 ? OTF2_ERROR_MEM_ALLOC_FAILED : OTF2_ERROR_INTERRUPTED_BY_CALLBACK;
    return rc;
}

void hca_trace_defs_free(hca_trace_defs *d)
{
    for (size_t i = 0; i < d->nstrings; i++)
        free(d->strings[i]);
    for (size_t i = 0; i < d->nclasses; i++)
        free(d->classes[i].members);
    free(d->strings);
    free(d->regions);
    free(d->scls);
    free(d->ccs);
    free(d->members);
    free(d->classes);
    free(d->locations);
    free(d->groups);
    free(d->comms);
    free(d->thinned);
    memset(d, 0, sizeof(*d));
}

const char *hca_trace_defs_string(const hca_trace_defs *d, uint32_t ref, const char *dflt)
{
    return ref < d->nstrings && d->strings[ref] ? d->strings[ref] : dflt;
}

const char *hca_trace_defs_member_name(const hca_trace_defs *d, uint32_t member, const char *dflt)
{
    return member < d->nmembers ? hca_trace_defs_string(d, d->members[member].name, dflt) : dflt;
}

int hca_trace_defs_class_is_stats(const hca_trace_defs *d, uint32_t klass)
{
    if (klass >= d->nclasses)
        return 0;
    const hca_read_class *c = &d->classes[klass];
    for (uint8_t k = 0; k < c->n; k++)
        if (c->members[k] < d->nmembers && hca_is_stats_member(hca_trace_defs_member_name(d, c->members[k], "?")))
            return 1;
    return 0;
}

int hca_read_properties(OTF2_Reader *r, hca_properties *p)
{
    memset(p, 0, sizeof(*p));
    uint32_t n = 0;
    char **names = NULL;
    if (OTF2_Reader_GetPropertyNames(r, &n, &names) != OTF2_SUCCESS || !names)
        return 0;
    int status = 0;
    p->names = calloc(n + 1, sizeof(char *));
    p->values = calloc(n + 1, sizeof(char *));
    if (!p->names || !p->values)
        status = -1;
    for (uint32_t i = 0; status == 0 && i < n; i++) {
        char *value = NULL;
        if (OTF2_Reader_GetProperty(r, names[i], &value) != OTF2_SUCCESS || !value)
            continue;
        p->names[p->n] = strdup(names[i]);
        p->values[p->n] = value; /* OTF2 allocates it with malloc: ours now */
        if (!p->names[p->n])
            status = -1;
        p->n++;
    }
    free(names);
    return status;
}

void hca_properties_free(hca_properties *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->names[i]);
        free(p->values[i]);
    }
    free(p->names);
    free(p->values);
    memset(p, 0, sizeof(*p));
}
