/* hca_defs.c: definition sets of the trace schema: collect, serialize, merge with
 * deduplication, and write as OTF2 global definitions and mapping tables. */
#include "hca_defs.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- growable arrays ---------------------------------------------------- */

static int grow(void **items, uint32_t *cap, uint32_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    uint32_t ncap = *cap ? *cap * 2 : 16;
    while (ncap < need)
        ncap *= 2;
    void *p = realloc(*items, (size_t)ncap * size);
    if (!p)
        return -1;
    *items = p;
    *cap = ncap;
    return 0;
}

#define APPEND(d, arr, n, cap, value)                                                        \
    (grow((void **)&(d)->arr, &(d)->cap, (d)->n + 1, sizeof(*(d)->arr)) ? HCA_UNDEF          \
                                                                         : ((d)->arr[(d)->n] = (value), (d)->n++))

/* ---- strings ------------------------------------------------------------ */

static uint64_t hash_bytes(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static int strtab_rehash(hca_strtab *t, uint32_t ncap)
{
    uint32_t *slots = calloc(ncap, sizeof(*slots));
    if (!slots)
        return -1;
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t h = (uint32_t)hash_bytes(t->items[i], strlen(t->items[i])) & (ncap - 1);
        while (slots[h])
            h = (h + 1) & (ncap - 1);
        slots[h] = i + 1;
    }
    free(t->hash_slots);
    t->hash_slots = slots;
    t->hash_cap = ncap;
    return 0;
}

static hca_ref strtab_add(hca_strtab *t, const char *s)
{
    if (!s)
        s = "";
    if ((t->n + 1) * 2 > t->hash_cap && strtab_rehash(t, t->hash_cap ? t->hash_cap * 2 : 64))
        return HCA_UNDEF;
    uint32_t mask = t->hash_cap - 1;
    uint32_t h = (uint32_t)hash_bytes(s, strlen(s)) & mask;
    while (t->hash_slots[h]) {
        if (strcmp(t->items[t->hash_slots[h] - 1], s) == 0)
            return t->hash_slots[h] - 1;
        h = (h + 1) & mask;
    }
    if (grow((void **)&t->items, &t->cap, t->n + 1, sizeof(*t->items)))
        return HCA_UNDEF;
    char *copy = strdup(s);
    if (!copy)
        return HCA_UNDEF;
    t->items[t->n] = copy;
    t->hash_slots[h] = t->n + 1;
    return t->n++;
}

/* ---- set lifecycle and adders ------------------------------------------- */

void hca_defs_init(hca_defs *d)
{
    memset(d, 0, sizeof(*d));
}

void hca_defs_free(hca_defs *d)
{
    for (uint32_t i = 0; i < d->strings.n; i++)
        free(d->strings.items[i]);
    free(d->strings.items);
    free(d->strings.hash_slots);
    for (uint32_t i = 0; i < d->ncomms; i++)
        free(d->comms[i].members);
    free(d->regions);
    free(d->scls);
    free(d->ccs);
    free(d->comms);
    free(d->members);
    free(d->classes);
    free(d->igens);
    free(d->thinned);
    free(d->ix_region.slots);
    free(d->ix_scl.slots);
    free(d->ix_cc.slots);
    free(d->ix_member.slots);
    free(d->ix_class.slots);
    free(d->ix_igen.slots);
    memset(d, 0, sizeof(*d));
}

hca_ref hca_defs_string(hca_defs *d, const char *s)
{
    return strtab_add(&d->strings, s);
}

hca_ref hca_defs_region(hca_defs *d, const char *name, const char *kind, const char *file,
                        uint32_t begin_line, uint32_t end_line, OTF2_RegionRole role,
                        OTF2_Paradigm paradigm)
{
    return hca_defs_region_canonical(d, name, name, kind, file, begin_line, end_line, role, paradigm);
}

hca_ref hca_defs_region_canonical(hca_defs *d, const char *name, const char *canonical, const char *kind,
                                  const char *file, uint32_t begin_line, uint32_t end_line, OTF2_RegionRole role,
                                  OTF2_Paradigm paradigm)
{
    hca_region_def r = { hca_defs_string(d, name), hca_defs_string(d, canonical), hca_defs_string(d, kind),
                         hca_defs_string(d, file), begin_line, end_line, (uint8_t)role, (uint8_t)paradigm };
    if (r.name == HCA_UNDEF || r.canonical == HCA_UNDEF || r.description == HCA_UNDEF || r.file == HCA_UNDEF)
        return HCA_UNDEF;
    return APPEND(d, regions, nregions, cap_regions, r);
}

hca_ref hca_defs_scl(hca_defs *d, const char *file, uint32_t line)
{
    hca_scl_def s = { hca_defs_string(d, file), line };
    if (s.file == HCA_UNDEF)
        return HCA_UNDEF;
    return APPEND(d, scls, nscls, cap_scls, s);
}

hca_ref hca_defs_cc(hca_defs *d, hca_ref region, hca_ref scl, hca_ref parent)
{
    hca_cc_def c = { region, scl, parent };
    return APPEND(d, ccs, nccs, cap_ccs, c);
}

static hca_ref add_comm(hca_defs *d, const char *name, hca_ref parent, uint64_t key, uint32_t nmembers,
                        const uint32_t *members, OTF2_Paradigm paradigm, uint32_t rank)
{
    hca_comm_def c = { hca_defs_string(d, name), parent, key, nmembers, NULL, (uint8_t)paradigm, rank };
    if (c.name == HCA_UNDEF)
        return HCA_UNDEF;
    if (nmembers) {
        c.members = malloc(nmembers * sizeof(*c.members));
        if (!c.members)
            return HCA_UNDEF;
        memcpy(c.members, members, nmembers * sizeof(*c.members));
    }
    hca_ref id = APPEND(d, comms, ncomms, cap_comms, c);
    if (id == HCA_UNDEF)
        free(c.members);
    return id;
}

hca_ref hca_defs_comm(hca_defs *d, const char *name, hca_ref parent, uint64_t key,
                      uint32_t nmembers, const uint32_t *world_ranks)
{
    return add_comm(d, name, parent, key, nmembers, world_ranks, OTF2_PARADIGM_MPI, 0);
}

hca_ref hca_defs_team(hca_defs *d, const char *name, uint32_t rank, uint64_t key, uint32_t nmembers,
                      const uint32_t *thread_indices)
{
    return add_comm(d, name, HCA_UNDEF, key, nmembers, thread_indices, OTF2_PARADIGM_OPENMP, rank);
}

hca_ref hca_defs_metric_member(hca_defs *d, const char *name, const char *description,
                               const char *unit, OTF2_MetricType type, OTF2_MetricMode mode,
                               OTF2_Type value_type)
{
    hca_metric_member_def m = { hca_defs_string(d, name), hca_defs_string(d, description),
                                hca_defs_string(d, unit), (uint8_t)type, (uint8_t)mode,
                                (uint8_t)value_type };
    if (m.name == HCA_UNDEF || m.description == HCA_UNDEF || m.unit == HCA_UNDEF)
        return HCA_UNDEF;
    return APPEND(d, members, nmembers, cap_members, m);
}

hca_ref hca_defs_metric_class(hca_defs *d, uint8_t nmembers, const hca_ref *members,
                              OTF2_MetricOccurrence occurrence)
{
    hca_metric_class_def c;
    memset(&c, 0, sizeof(c));
    if (nmembers > HCA_MAX_CLASS_MEMBERS)
        return HCA_UNDEF;
    c.nmembers = nmembers;
    c.occurrence = occurrence;
    if (nmembers)
        memcpy(c.members, members, nmembers * sizeof(*members));
    return APPEND(d, classes, nclasses, cap_classes, c);
}

hca_ref hca_defs_thinned(hca_defs *d, uint64_t location, hca_ref region, uint64_t instances, uint64_t time_ns)
{
    hca_thinned_def th = { location, region, instances, time_ns };
    return APPEND(d, thinned, nthinned, cap_thinned, th);
}

hca_ref hca_defs_interrupt_generator(hca_defs *d, const char *name,
                                     OTF2_InterruptGeneratorMode mode, uint64_t period_ns)
{
    hca_igen_def g = { hca_defs_string(d, name), (uint8_t)mode, period_ns };
    if (g.name == HCA_UNDEF)
        return HCA_UNDEF;
    return APPEND(d, igens, nigens, cap_igens, g);
}

/* ---- serialization ------------------------------------------------------ */

typedef struct {
    unsigned char *p;
    size_t len, cap;
    int failed;
} outbuf;

static void put(outbuf *o, const void *src, size_t n)
{
    if (o->failed || n == 0)
        return;
    if (o->len + n > o->cap) {
        size_t ncap = o->cap ? o->cap * 2 : 4096;
        while (ncap < o->len + n)
            ncap *= 2;
        unsigned char *p = realloc(o->p, ncap);
        if (!p) {
            o->failed = 1;
            return;
        }
        o->p = p;
        o->cap = ncap;
    }
    memcpy(o->p + o->len, src, n);
    o->len += n;
}

static void put_u32(outbuf *o, uint32_t v)
{
    put(o, &v, sizeof(v));
}

int hca_defs_serialize(const hca_defs *d, unsigned char **buf, size_t *len)
{
    outbuf o = { 0 };
    put_u32(&o, d->strings.n);
    for (uint32_t i = 0; i < d->strings.n; i++) {
        uint32_t n = (uint32_t)strlen(d->strings.items[i]);
        put_u32(&o, n);
        put(&o, d->strings.items[i], n);
    }
    put_u32(&o, d->nregions);
    put(&o, d->regions, d->nregions * sizeof(*d->regions));
    put_u32(&o, d->nscls);
    put(&o, d->scls, d->nscls * sizeof(*d->scls));
    put_u32(&o, d->nccs);
    put(&o, d->ccs, d->nccs * sizeof(*d->ccs));
    put_u32(&o, d->ncomms);
    for (uint32_t i = 0; i < d->ncomms; i++) {
        const hca_comm_def *c = &d->comms[i];
        put(&o, &c->name, sizeof(c->name));
        put(&o, &c->parent, sizeof(c->parent));
        put(&o, &c->key, sizeof(c->key));
        put(&o, &c->paradigm, sizeof(c->paradigm));
        put_u32(&o, c->rank);
        put_u32(&o, c->nmembers);
        put(&o, c->members, c->nmembers * sizeof(*c->members));
    }
    put_u32(&o, d->nmembers);
    put(&o, d->members, d->nmembers * sizeof(*d->members));
    put_u32(&o, d->nclasses);
    put(&o, d->classes, d->nclasses * sizeof(*d->classes));
    put_u32(&o, d->nigens);
    put(&o, d->igens, d->nigens * sizeof(*d->igens));
    put_u32(&o, d->nthinned);
    put(&o, d->thinned, d->nthinned * sizeof(*d->thinned));
    if (o.failed) {
        free(o.p);
        return -1;
    }
    *buf = o.p;
    *len = o.len;
    return 0;
}

typedef struct {
    const unsigned char *p;
    size_t len, pos;
    int failed;
} inbuf;

static void get(inbuf *in, void *dst, size_t n)
{
    if (n == 0)
        return;
    if (in->failed || in->len - in->pos < n) {
        in->failed = 1;
        return;
    }
    memcpy(dst, in->p + in->pos, n);
    in->pos += n;
}

static uint32_t get_count(inbuf *in, size_t elem_size)
{
    uint32_t n = 0;
    get(in, &n, sizeof(n));
    if (elem_size && (size_t)n > (in->len - in->pos) / elem_size)
        in->failed = 1;
    return in->failed ? 0 : n;
}

/* Reads n fixed-size records into a freshly grown array. */
static int get_array(inbuf *in, void **arr, uint32_t *count, uint32_t *cap, size_t size)
{
    uint32_t n = get_count(in, size);
    if (in->failed || grow(arr, cap, n, size))
        return -1;
    get(in, *arr, (size_t)n * size);
    *count = n;
    return in->failed ? -1 : 0;
}

int hca_defs_deserialize(hca_defs *d, const unsigned char *buf, size_t len)
{
    inbuf in = { buf, len, 0, 0 };
    hca_defs_init(d);
    uint32_t nstr = get_count(&in, sizeof(uint32_t));
    for (uint32_t i = 0; i < nstr && !in.failed; i++) {
        uint32_t n = get_count(&in, 1);
        char *s = malloc((size_t)n + 1);
        if (!s)
            goto fail;
        get(&in, s, n);
        s[n] = 0;
        /* keep local IDs: a serialized set has no duplicate strings */
        if (!in.failed && strtab_add(&d->strings, s) != i)
            in.failed = 1;
        free(s);
    }
    if (in.failed)
        goto fail;
    if (get_array(&in, (void **)&d->regions, &d->nregions, &d->cap_regions, sizeof(*d->regions)) ||
        get_array(&in, (void **)&d->scls, &d->nscls, &d->cap_scls, sizeof(*d->scls)) ||
        get_array(&in, (void **)&d->ccs, &d->nccs, &d->cap_ccs, sizeof(*d->ccs)))
        goto fail;
    uint32_t ncomms = get_count(&in, 25);
    for (uint32_t i = 0; i < ncomms && !in.failed; i++) {
        hca_comm_def c = { 0 };
        get(&in, &c.name, sizeof(c.name));
        get(&in, &c.parent, sizeof(c.parent));
        get(&in, &c.key, sizeof(c.key));
        get(&in, &c.paradigm, sizeof(c.paradigm));
        get(&in, &c.rank, sizeof(c.rank));
        c.nmembers = get_count(&in, sizeof(uint32_t));
        if (in.failed)
            goto fail;
        if (c.nmembers) {
            c.members = malloc(c.nmembers * sizeof(*c.members));
            if (!c.members)
                goto fail;
            get(&in, c.members, c.nmembers * sizeof(*c.members));
        }
        if (APPEND(d, comms, ncomms, cap_comms, c) == HCA_UNDEF) {
            free(c.members);
            goto fail;
        }
    }
    if (in.failed ||
        get_array(&in, (void **)&d->members, &d->nmembers, &d->cap_members, sizeof(*d->members)) ||
        get_array(&in, (void **)&d->classes, &d->nclasses, &d->cap_classes, sizeof(*d->classes)) ||
        get_array(&in, (void **)&d->igens, &d->nigens, &d->cap_igens, sizeof(*d->igens)) ||
        get_array(&in, (void **)&d->thinned, &d->nthinned, &d->cap_thinned, sizeof(*d->thinned)) ||
        in.pos != in.len)
        goto fail;
    return 0;
fail:
    hca_defs_free(d);
    return -1;
}

/* ---- deltas (journals) -------------------------------------------------- */

void hca_defs_marks_of(const hca_defs *d, hca_defs_marks *m)
{
    *m = (hca_defs_marks){ d->strings.n, d->nregions, d->nscls, d->nccs, d->nmembers, d->nclasses, d->nigens };
}

int hca_defs_serialize_since(const hca_defs *d, const hca_defs_marks *since, unsigned char **buf, size_t *len)
{
    hca_defs_marks now;
    hca_defs_marks_of(d, &now);
    if (since->strings > now.strings || since->regions > now.regions || since->scls > now.scls ||
        since->ccs > now.ccs || since->members > now.members || since->classes > now.classes ||
        since->igens > now.igens)
        return -1;
    /* a view of the tails: serialization reads only the items and their counts */
    hca_defs view;
    hca_defs_init(&view);
    view.strings.items = d->strings.items + since->strings;
    view.strings.n = now.strings - since->strings;
    view.regions = d->regions + since->regions;
    view.nregions = now.regions - since->regions;
    view.scls = d->scls + since->scls;
    view.nscls = now.scls - since->scls;
    view.ccs = d->ccs + since->ccs;
    view.nccs = now.ccs - since->ccs;
    view.comms = d->comms;
    view.ncomms = d->ncomms;
    view.members = d->members + since->members;
    view.nmembers = now.members - since->members;
    view.classes = d->classes + since->classes;
    view.nclasses = now.classes - since->classes;
    view.igens = d->igens + since->igens;
    view.nigens = now.igens - since->igens;
    return hca_defs_serialize(&view, buf, len);
}

#define APPEND_ALL(d, arr, n, cap, from, count)                                                 \
    (grow((void **)&(d)->arr, &(d)->cap, (d)->n + (count), sizeof(*(d)->arr))                  \
         ? -1                                                                                   \
         : ((count) ? memcpy((d)->arr + (d)->n, (from), (size_t)(count) * sizeof(*(d)->arr)) : NULL, \
            (d)->n += (count), 0))

int hca_defs_append(hca_defs *d, const hca_defs_marks *since, const hca_defs *delta)
{
    hca_defs_marks now;
    hca_defs_marks_of(d, &now);
    if (memcmp(&now, since, sizeof(now)) != 0)
        return -1;
    for (uint32_t i = 0; i < delta->strings.n; i++)
        if (strtab_add(&d->strings, delta->strings.items[i]) != since->strings + i)
            return -1; /* a string defined twice: not a delta of this set */
    hca_comm_def *comms = calloc(delta->ncomms + 1, sizeof(*comms));
    if (!comms)
        return -1;
    for (uint32_t i = 0; i < delta->ncomms; i++) {
        comms[i] = delta->comms[i];
        comms[i].members = NULL;
        if (delta->comms[i].nmembers) {
            comms[i].members = malloc(delta->comms[i].nmembers * sizeof(uint32_t));
            if (!comms[i].members) {
                for (uint32_t k = 0; k < i; k++)
                    free(comms[k].members);
                free(comms);
                return -1;
            }
            memcpy(comms[i].members, delta->comms[i].members, delta->comms[i].nmembers * sizeof(uint32_t));
        }
    }
    for (uint32_t i = 0; i < d->ncomms; i++)
        free(d->comms[i].members);
    free(d->comms);
    d->comms = comms;
    d->ncomms = d->cap_comms = delta->ncomms;
    if (d->cap_comms == 0) {
        free(d->comms);
        d->comms = NULL;
    }
    if (APPEND_ALL(d, regions, nregions, cap_regions, delta->regions, delta->nregions) ||
        APPEND_ALL(d, scls, nscls, cap_scls, delta->scls, delta->nscls) ||
        APPEND_ALL(d, ccs, nccs, cap_ccs, delta->ccs, delta->nccs) ||
        APPEND_ALL(d, members, nmembers, cap_members, delta->members, delta->nmembers) ||
        APPEND_ALL(d, classes, nclasses, cap_classes, delta->classes, delta->nclasses) ||
        APPEND_ALL(d, igens, nigens, cap_igens, delta->igens, delta->nigens))
        return -1;
    return 0;
}

/* ---- merging ------------------------------------------------------------ */

static hca_ref map_ref(const uint64_t *map, uint32_t n, hca_ref r)
{
    return (r == HCA_UNDEF || r >= n) ? HCA_UNDEF : (hca_ref)map[r];
}

/* The global set is indexed by content (hash tables of entry indices, built
 * on first use and kept in step), so merging stays linear in the number of
 * definitions even with the 10^5 calling contexts of sampled stacks. */
typedef uint64_t (*hash_fn)(const void *);
typedef int (*eq_fn)(const void *, const void *);

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static int index_rebuild(hca_index *ix, const void *arr, uint32_t n, size_t size, hash_fn hash)
{
    uint32_t cap = 64;
    while (cap < (n + 1) * 2)
        cap *= 2;
    uint32_t *slots = calloc(cap, sizeof(*slots));
    if (!slots)
        return -1;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = (uint32_t)hash((const char *)arr + (size_t)k * size) & (cap - 1);
        while (slots[i])
            i = (i + 1) & (cap - 1);
        slots[i] = k + 1;
    }
    free(ix->slots);
    ix->slots = slots;
    ix->cap = cap;
    ix->n = n;
    return 0;
}

static hca_ref find_or_add(hca_index *ix, void **arr, uint32_t *n, uint32_t *cap, size_t size, const void *value,
                           hash_fn hash, eq_fn eq)
{
    if ((ix->n != *n || (*n + 1) * 2 > ix->cap) && index_rebuild(ix, *arr, *n, size, hash) != 0)
        return HCA_UNDEF;
    uint32_t mask = ix->cap - 1, i = (uint32_t)hash(value) & mask;
    while (ix->slots[i]) {
        uint32_t k = ix->slots[i] - 1;
        if (eq((const char *)*arr + (size_t)k * size, value))
            return k;
        i = (i + 1) & mask;
    }
    if (grow(arr, cap, *n + 1, size))
        return HCA_UNDEF;
    memcpy((char *)*arr + (size_t)*n * size, value, size);
    ix->slots[i] = *n + 1;
    ix->n = *n + 1;
    return (*n)++;
}

#define FIND_OR_ADD(global, arr, n, cap, value, kind)                                                     \
    (out_ = find_or_add(&(global)->ix_##kind, (void **)&(global)->arr, &(global)->n, &(global)->cap,      \
                        sizeof(*(global)->arr), &(value), kind##_hash, kind##_eq))

static int region_eq(const void *pa, const void *pb)
{
    const hca_region_def *a = pa, *b = pb;
    return a->name == b->name && a->canonical == b->canonical && a->description == b->description &&
           a->file == b->file && a->begin_line == b->begin_line && a->end_line == b->end_line && a->role == b->role &&
           a->paradigm == b->paradigm;
}
static uint64_t region_hash(const void *p)
{
    const hca_region_def *r = p;
    return mix(mix(mix(mix(mix(r->name, r->canonical), r->description), r->file), ((uint64_t)r->begin_line << 32) | r->end_line),
               ((uint64_t)r->role << 8) | r->paradigm);
}
static int scl_eq(const void *pa, const void *pb)
{
    const hca_scl_def *a = pa, *b = pb;
    return a->file == b->file && a->line == b->line;
}
static uint64_t scl_hash(const void *p)
{
    const hca_scl_def *s = p;
    return mix(s->file, s->line);
}
static int cc_eq(const void *pa, const void *pb)
{
    const hca_cc_def *a = pa, *b = pb;
    return a->region == b->region && a->scl == b->scl && a->parent == b->parent;
}
static uint64_t cc_hash(const void *p)
{
    const hca_cc_def *c = p;
    return mix(mix(c->region, c->scl), c->parent);
}
static int member_eq(const void *pa, const void *pb)
{
    const hca_metric_member_def *a = pa, *b = pb;
    return a->name == b->name && a->description == b->description && a->unit == b->unit &&
           a->metric_type == b->metric_type && a->mode == b->mode && a->value_type == b->value_type;
}
static uint64_t member_hash(const void *p)
{
    const hca_metric_member_def *m = p;
    return mix(mix(mix(m->name, m->description), m->unit),
               ((uint64_t)m->metric_type << 16) | ((uint64_t)m->mode << 8) | m->value_type);
}
static int class_eq(const void *pa, const void *pb)
{
    const hca_metric_class_def *a = pa, *b = pb;
    return a->nmembers == b->nmembers && a->occurrence == b->occurrence &&
           memcmp(a->members, b->members, a->nmembers * sizeof(a->members[0])) == 0;
}
static uint64_t class_hash(const void *p)
{
    const hca_metric_class_def *c = p;
    uint64_t h = mix(c->nmembers, c->occurrence);
    for (uint8_t k = 0; k < c->nmembers; k++)
        h = mix(h, c->members[k]);
    return h;
}
static int igen_eq(const void *pa, const void *pb)
{
    const hca_igen_def *a = pa, *b = pb;
    return a->name == b->name && a->mode == b->mode && a->period_ns == b->period_ns;
}
static uint64_t igen_hash(const void *p)
{
    const hca_igen_def *g = p;
    return mix(mix(g->name, g->mode), g->period_ns);
}

int hca_defs_merge(hca_defs *g, const hca_defs *l, hca_defs_map *m)
{
    memset(m, 0, sizeof(*m));
    m->nstrings = l->strings.n;
    m->nregions = l->nregions;
    m->nscls = l->nscls;
    m->nccs = l->nccs;
    m->ncomms = l->ncomms;
    m->nmetrics = l->nclasses;
    m->nigens = l->nigens;
    m->strings = calloc(m->nstrings + 1, sizeof(uint64_t));
    m->regions = calloc(m->nregions + 1, sizeof(uint64_t));
    m->scls = calloc(m->nscls + 1, sizeof(uint64_t));
    m->ccs = calloc(m->nccs + 1, sizeof(uint64_t));
    m->comms = calloc(m->ncomms + 1, sizeof(uint64_t));
    m->metrics = calloc(m->nmetrics + 1, sizeof(uint64_t));
    m->igens = calloc(m->nigens + 1, sizeof(uint64_t));
    uint64_t *member_map = calloc(l->nmembers + 1, sizeof(uint64_t));
    if (!m->strings || !m->regions || !m->scls || !m->ccs || !m->comms || !m->metrics ||
        !m->igens || !member_map)
        goto fail;
    hca_ref out_;
    for (uint32_t i = 0; i < l->strings.n; i++)
        if ((m->strings[i] = strtab_add(&g->strings, l->strings.items[i])) == HCA_UNDEF)
            goto fail;
#define S(r) map_ref(m->strings, m->nstrings, (r))
    for (uint32_t i = 0; i < l->nregions; i++) {
        hca_region_def r = l->regions[i];
        r.name = S(r.name);
        r.canonical = S(r.canonical);
        r.description = S(r.description);
        r.file = S(r.file);
        FIND_OR_ADD(g, regions, nregions, cap_regions, r, region);
        if ((m->regions[i] = out_) == HCA_UNDEF)
            goto fail;
    }
    for (uint32_t i = 0; i < l->nscls; i++) {
        hca_scl_def s = l->scls[i];
        s.file = S(s.file);
        FIND_OR_ADD(g, scls, nscls, cap_scls, s, scl);
        if ((m->scls[i] = out_) == HCA_UNDEF)
            goto fail;
    }
    for (uint32_t i = 0; i < l->nccs; i++) {
        hca_cc_def c = l->ccs[i];
        c.region = map_ref(m->regions, m->nregions, c.region);
        c.scl = map_ref(m->scls, m->nscls, c.scl);
        /* parents precede children, so the parent is mapped already */
        c.parent = c.parent < i ? (hca_ref)m->ccs[c.parent] : HCA_UNDEF;
        FIND_OR_ADD(g, ccs, nccs, cap_ccs, c, cc);
        if ((m->ccs[i] = out_) == HCA_UNDEF)
            goto fail;
    }
    for (uint32_t i = 0; i < l->ncomms; i++) {
        const hca_comm_def *c = &l->comms[i];
        uint32_t found = HCA_UNDEF;
        for (uint32_t j = 0; j < g->ncomms; j++)
            if (g->comms[j].key == c->key && g->comms[j].paradigm == c->paradigm) {
                found = j;
                break;
            }
        if (found == HCA_UNDEF) {
            hca_ref parent = c->parent < i ? (hca_ref)m->comms[c->parent] : HCA_UNDEF;
            found = add_comm(g, l->strings.items[c->name], parent, c->key, c->nmembers, c->members,
                             (OTF2_Paradigm)c->paradigm, c->rank);
        }
        if ((m->comms[i] = found) == HCA_UNDEF)
            goto fail;
    }
    for (uint32_t i = 0; i < l->nmembers; i++) {
        hca_metric_member_def mm = l->members[i];
        mm.name = S(mm.name);
        mm.description = S(mm.description);
        mm.unit = S(mm.unit);
        FIND_OR_ADD(g, members, nmembers, cap_members, mm, member);
        if ((member_map[i] = out_) == HCA_UNDEF)
            goto fail;
    }
    for (uint32_t i = 0; i < l->nclasses; i++) {
        hca_metric_class_def c = l->classes[i];
        for (uint8_t k = 0; k < c.nmembers; k++)
            c.members[k] = map_ref(member_map, l->nmembers, c.members[k]);
        FIND_OR_ADD(g, classes, nclasses, cap_classes, c, class);
        if ((m->metrics[i] = out_) == HCA_UNDEF)
            goto fail;
    }
    for (uint32_t i = 0; i < l->nigens; i++) {
        hca_igen_def ig = l->igens[i];
        ig.name = S(ig.name);
        FIND_OR_ADD(g, igens, nigens, cap_igens, ig, igen);
        if ((m->igens[i] = out_) == HCA_UNDEF)
            goto fail;
    }
    for (uint32_t i = 0; i < l->nthinned; i++) {
        hca_thinned_def th = l->thinned[i];
        th.region = map_ref(m->regions, m->nregions, th.region);
        if (th.region == HCA_UNDEF || APPEND(g, thinned, nthinned, cap_thinned, th) == HCA_UNDEF)
            goto fail;
    }
#undef S
    free(member_map);
    return 0;
fail:
    free(member_map);
    hca_defs_map_free(m);
    return -1;
}

void hca_defs_map_free(hca_defs_map *m)
{
    free(m->strings);
    free(m->regions);
    free(m->scls);
    free(m->ccs);
    free(m->comms);
    free(m->metrics);
    free(m->igens);
    memset(m, 0, sizeof(*m));
}

static int write_map(OTF2_DefWriter *w, OTF2_MappingType type, const uint64_t *map, uint32_t n)
{
    if (n == 0)
        return 0;
    OTF2_IdMap *idmap = OTF2_IdMap_CreateFromUint64Array(n, map, true);
    if (!idmap)
        return 0; /* identity: no table needed */
    OTF2_ErrorCode rc = OTF2_DefWriter_WriteMappingTable(w, type, idmap);
    OTF2_IdMap_Free(idmap);
    return rc == OTF2_SUCCESS ? 0 : -1;
}

int hca_defs_write_mappings(const hca_defs_map *m, OTF2_DefWriter *w)
{
    return write_map(w, OTF2_MAPPING_STRING, m->strings, m->nstrings) |
           write_map(w, OTF2_MAPPING_REGION, m->regions, m->nregions) |
           write_map(w, OTF2_MAPPING_CALLING_CONTEXT, m->ccs, m->nccs) |
           write_map(w, OTF2_MAPPING_COMM, m->comms, m->ncomms) |
           write_map(w, OTF2_MAPPING_METRIC, m->metrics, m->nmetrics) |
           write_map(w, OTF2_MAPPING_INTERRUPT_GENERATOR, m->igens, m->nigens);
}

/* ---- global definitions ------------------------------------------------- */

static OTF2_StringRef sref(hca_ref r)
{
    return r == HCA_UNDEF ? OTF2_UNDEFINED_STRING : r;
}

/* The value of a location's HCA_PROP_THINNED property, as a string of g
 * ("REGION INSTANCES TIME_NS" per thinned region, separated by ';'), or
 * HCA_UNDEF when the location thinned nothing. */
static hca_ref thinned_value(hca_defs *g, uint64_t location)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return HCA_UNDEF;
    int n = 0;
    for (uint32_t i = 0; i < g->nthinned; i++) {
        const hca_thinned_def *th = &g->thinned[i];
        if (th->location == location)
            fprintf(f, "%s%u %" PRIu64 " %" PRIu64, n++ ? ";" : "", th->region, th->instances, th->time_ns);
    }
    hca_ref r = HCA_UNDEF;
    if (fclose(f) == 0 && n)
        r = hca_defs_string(g, text);
    free(text);
    return r;
}

int hca_defs_write_global(hca_defs *g, const hca_system_info *sys, OTF2_GlobalDefWriter *w)
{
    int bad = 0;
    hca_ref *s_thin = NULL;
    /* strings needed by the system tree and groups: added first, written with all */
    hca_ref s_machine = hca_defs_string(g, HCA_STN_CLASS_MACHINE);
    hca_ref s_node = hca_defs_string(g, HCA_STN_CLASS_NODE);
    hca_ref s_machine_name = hca_defs_string(g, HCA_MACHINE_NAME);
    hca_ref s_world = hca_defs_string(g, HCA_GROUP_WORLD_LOCATIONS);
    hca_ref s_self = hca_defs_string(g, HCA_GROUP_SELF);
    hca_ref s_threads = hca_defs_string(g, HCA_GROUP_OPENMP_THREADS);
    hca_ref *s_host = calloc(sys->nranks + 1, sizeof(hca_ref));
    hca_ref *s_proc = calloc(sys->nranks + 1, sizeof(hca_ref));
    hca_ref *s_loc = calloc(sys->nlocs + 1, sizeof(hca_ref));
    uint32_t *node_of_rank = calloc(sys->nranks + 1, sizeof(uint32_t));
    uint32_t *node_host = calloc(sys->nranks + 1, sizeof(uint32_t));
    uint64_t *master_loc = calloc(sys->nranks + 1, sizeof(uint64_t));
    if (!s_host || !s_proc || !s_loc || !node_of_rank || !node_host || !master_loc) {
        bad = -1;
        goto out;
    }
    for (uint32_t r = 0; r < sys->nranks; r++) {
        s_host[r] = hca_defs_string(g, sys->hostnames[r]);
        s_proc[r] = hca_defs_string(g, sys->proc_names[r]);
    }
    for (uint32_t i = 0; i < sys->nlocs; i++) {
        char name[64];
        if (sys->locs[i].thread == 0)
            snprintf(name, sizeof(name), HCA_MASTER_THREAD_NAME);
        else
            snprintf(name, sizeof(name), HCA_THREAD_NAME_FMT, sys->locs[i].thread);
        s_loc[i] = hca_defs_string(g, name);
    }
    hca_ref s_thinned_name = g->nthinned ? hca_defs_string(g, HCA_PROP_THINNED) : HCA_UNDEF;
    s_thin = calloc(sys->nlocs + 1, sizeof(hca_ref));
    if (!s_thin) {
        bad = -1;
        goto out;
    }
    for (uint32_t i = 0; i < sys->nlocs; i++)
        s_thin[i] = g->nthinned ? thinned_value(g, sys->locs[i].id) : HCA_UNDEF;

    bad |= OTF2_GlobalDefWriter_WriteClockProperties(w, sys->clock_resolution, sys->global_offset,
                                                     sys->trace_length, sys->realtime_ns) != OTF2_SUCCESS;
    for (uint32_t i = 0; i < g->strings.n; i++)
        bad |= OTF2_GlobalDefWriter_WriteString(w, i, g->strings.items[i]) != OTF2_SUCCESS;

    /* system tree: machine -> one node per distinct host -> processes */
    bad |= OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, s_machine_name, s_machine,
                                                    OTF2_UNDEFINED_SYSTEM_TREE_NODE) != OTF2_SUCCESS;
    uint32_t nnodes = 0;
    for (uint32_t r = 0; r < sys->nranks; r++) {
        uint32_t n = 0;
        while (n < nnodes && s_host[node_host[n]] != s_host[r])
            n++;
        if (n == nnodes) {
            node_host[nnodes++] = r;
            bad |= OTF2_GlobalDefWriter_WriteSystemTreeNode(w, n + 1, s_host[r], s_node, 0) != OTF2_SUCCESS;
        }
        node_of_rank[r] = n + 1;
    }
    for (uint32_t r = 0; r < sys->nranks; r++)
        bad |= OTF2_GlobalDefWriter_WriteLocationGroup(w, r, s_proc[r], OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                       node_of_rank[r],
                                                       OTF2_UNDEFINED_LOCATION_GROUP) != OTF2_SUCCESS;
    for (uint32_t i = 0; i < sys->nlocs; i++) {
        const hca_location_info *l = &sys->locs[i];
        bad |= OTF2_GlobalDefWriter_WriteLocation(w, l->id, s_loc[i], OTF2_LOCATION_TYPE_CPU_THREAD,
                                                  l->nevents, l->rank) != OTF2_SUCCESS;
        if (l->thread == 0 && l->rank < sys->nranks)
            master_loc[l->rank] = l->id;
    }
    for (uint32_t i = 0; i < sys->nlocs; i++) {
        if (s_thin[i] == HCA_UNDEF)
            continue;
        OTF2_AttributeValue v;
        v.stringRef = s_thin[i];
        bad |= OTF2_GlobalDefWriter_WriteLocationProperty(w, sys->locs[i].id, s_thinned_name, OTF2_TYPE_STRING,
                                                          v) != OTF2_SUCCESS;
    }

    for (uint32_t i = 0; i < g->nregions; i++) {
        const hca_region_def *r = &g->regions[i];
        bad |= OTF2_GlobalDefWriter_WriteRegion(w, i, sref(r->name), sref(r->canonical), sref(r->description),
                                                (OTF2_RegionRole)r->role, (OTF2_Paradigm)r->paradigm,
                                                OTF2_REGION_FLAG_NONE, sref(r->file), r->begin_line,
                                                r->end_line) != OTF2_SUCCESS;
    }
    for (uint32_t i = 0; i < g->nscls; i++)
        bad |= OTF2_GlobalDefWriter_WriteSourceCodeLocation(w, i, sref(g->scls[i].file), g->scls[i].line) !=
               OTF2_SUCCESS;
    for (uint32_t i = 0; i < g->nccs; i++) {
        const hca_cc_def *c = &g->ccs[i];
        bad |= OTF2_GlobalDefWriter_WriteCallingContext(
                   w, i, c->region,
                   c->scl == HCA_UNDEF ? OTF2_UNDEFINED_SOURCE_CODE_LOCATION : c->scl,
                   c->parent == HCA_UNDEF ? OTF2_UNDEFINED_CALLING_CONTEXT : c->parent) != OTF2_SUCCESS;
    }

    /* Groups: with MPI communicators, 0 = rank -> master location and 1 = self;
     * with OpenMP teams, one group of all locations (paradigm OPENMP); then one
     * group per communicator or team, written with its Comm. */
    int any_mpi = 0, any_team = 0;
    for (uint32_t i = 0; i < g->ncomms; i++) {
        if (g->comms[i].paradigm == OTF2_PARADIGM_OPENMP)
            any_team = 1;
        else if (sys->is_mpi)
            any_mpi = 1;
    }
    uint32_t next_group = 0, omp_group = 0;
    if (any_mpi) {
        bad |= OTF2_GlobalDefWriter_WriteGroup(w, 0, s_world, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                               OTF2_GROUP_FLAG_NONE, sys->nranks, master_loc) != OTF2_SUCCESS;
        bad |= OTF2_GlobalDefWriter_WriteGroup(w, 1, s_self, OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
                                               OTF2_GROUP_FLAG_NONE, 0, NULL) != OTF2_SUCCESS;
        next_group = 2;
    }
    if (any_team) {
        uint64_t *all = calloc(sys->nlocs + 1, sizeof(uint64_t));
        if (!all) {
            bad = -1;
            goto out;
        }
        for (uint32_t i = 0; i < sys->nlocs; i++)
            all[i] = sys->locs[i].id;
        omp_group = next_group++;
        bad |= OTF2_GlobalDefWriter_WriteGroup(w, omp_group, s_threads, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                               OTF2_PARADIGM_OPENMP, OTF2_GROUP_FLAG_NONE, sys->nlocs,
                                               all) != OTF2_SUCCESS;
        free(all);
    }
    for (uint32_t i = 0; i < g->ncomms; i++) {
        const hca_comm_def *c = &g->comms[i];
        int team = c->paradigm == OTF2_PARADIGM_OPENMP;
        if (!team && !any_mpi)
            continue;
        uint32_t group = 1;
        if (team || c->key != HCA_COMM_KEY_SELF) {
            uint64_t *members = calloc(c->nmembers + 1, sizeof(uint64_t));
            if (!members) {
                bad = -1;
                goto out;
            }
            uint32_t n = 0;
            for (uint32_t k = 0; k < c->nmembers; k++) {
                if (!team) {
                    members[n++] = c->members[k];
                    continue;
                }
                /* a team member: its index in the OpenMP locations group */
                for (uint32_t j = 0; j < sys->nlocs; j++)
                    if (sys->locs[j].rank == c->rank && sys->locs[j].thread == c->members[k]) {
                        members[n++] = j;
                        break;
                    }
            }
            group = next_group++;
            bad |= OTF2_GlobalDefWriter_WriteGroup(w, group, c->name, OTF2_GROUP_TYPE_COMM_GROUP,
                                                   team ? OTF2_PARADIGM_OPENMP : OTF2_PARADIGM_MPI,
                                                   OTF2_GROUP_FLAG_NONE, n, members) != OTF2_SUCCESS;
            free(members);
        }
        bad |= OTF2_GlobalDefWriter_WriteComm(w, i, c->name, group,
                                              c->parent == HCA_UNDEF ? OTF2_UNDEFINED_COMM : c->parent,
                                              OTF2_COMM_FLAG_NONE) != OTF2_SUCCESS;
    }

    for (uint32_t i = 0; i < g->nmembers; i++) {
        const hca_metric_member_def *mm = &g->members[i];
        bad |= OTF2_GlobalDefWriter_WriteMetricMember(w, i, mm->name, mm->description,
                                                      (OTF2_MetricType)mm->metric_type,
                                                      (OTF2_MetricMode)mm->mode, (OTF2_Type)mm->value_type,
                                                      OTF2_BASE_DECIMAL, 0, mm->unit) != OTF2_SUCCESS;
    }
    for (uint32_t i = 0; i < g->nclasses; i++) {
        OTF2_MetricMemberRef refs[HCA_MAX_CLASS_MEMBERS];
        for (uint8_t k = 0; k < g->classes[i].nmembers; k++)
            refs[k] = g->classes[i].members[k];
        bad |= OTF2_GlobalDefWriter_WriteMetricClass(w, i, g->classes[i].nmembers, refs,
                                                     (OTF2_MetricOccurrence)g->classes[i].occurrence,
                                                     OTF2_RECORDER_KIND_CPU) != OTF2_SUCCESS;
    }
    for (uint32_t i = 0; i < g->nigens; i++) {
        const hca_igen_def *ig = &g->igens[i];
        bad |= OTF2_GlobalDefWriter_WriteInterruptGenerator(w, i, ig->name,
                                                            (OTF2_InterruptGeneratorMode)ig->mode,
                                                            OTF2_BASE_DECIMAL, -9, ig->period_ns) != OTF2_SUCCESS;
    }
out:
    free(s_thin);
    free(s_host);
    free(s_proc);
    free(s_loc);
    free(node_of_rank);
    free(node_host);
    free(master_loc);
    return bad ? -1 : 0;
}
