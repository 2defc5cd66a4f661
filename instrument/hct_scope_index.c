/* hct_scope_index.c: which functions (DW_TAG_subprogram, and the
 * DW_TAG_inlined_subroutine instances inlined into it) a code address lies in,
 * per compilation unit. libdw's dwarf_getscopes walks the unit's DIE tree from
 * its root for every address (and again to the abstract origin of an inlined
 * instance), and dwarf_getscopes_die once more: in a large C++ unit with heavy
 * inlining (LULESH is one unit) about 0.1 s per process for its call sites.
 * Here each unit's tree is walked once, at its first question (on the tracer's
 * frames worker or at the end of the run, never in a signal handler): every DIE
 * libdw's walk could reach (a DIE with address ranges whose parent has some,
 * from the unit's top level) is kept with its parent, and its ranges sorted by
 * start with the running maximum of their ends. An address's containing ranges
 * are then a binary search and a backward scan (stopped where no earlier range
 * reaches the address); the chain libdw finds, the first DIE containing the
 * address at each level, is followed from them in the tree's order. Memory is
 * bounded (hct_scope_index_new); a unit that cannot be indexed exactly
 * (imported units, errors reading ranges) is answered by libdw's walk. */
#include "hct_scope_index.h"

#include "hct_cu_units.h"
#include "hct_sorted.h"

#include <dwarf.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Containing ranges followed at one address; more (overlapping ranges of
 * many DIEs): that address is answered by libdw's walk. */
#define MAX_CANDIDATES 1024

typedef struct {
    Dwarf_Die die;
    int parent; /* index of the parent entry, -1: the unit's top level */
    int tag;
} entry;

typedef struct {
    Dwarf_Addr lo, hi;
    int entry;
} range;

static uint64_t range_start(const void *r)
{
    return ((const range *)r)->lo;
}

typedef struct {
    const void *key; /* the unit DIE's address in the debug data */
    int failed;      /* answered by the walk */
    entry *entries;
    size_t nentries, cap_entries;
    range *ranges;
    Dwarf_Addr *max_hi; /* max_hi[i]: the largest end of ranges[0 .. i] */
    size_t nranges, cap_ranges;
} unit;

struct hct_scope_index {
    unit *units; /* sorted by key */
    size_t nunits, cap_units;
    size_t bytes, max_bytes;
};

hct_scope_index *hct_scope_index_new(size_t max_bytes)
{
    hct_scope_index *x = calloc(1, sizeof(*x));
    if (x)
        x->max_bytes = max_bytes;
    return x;
}

static void unit_release(hct_scope_index *x, unit *u)
{
    x->bytes -= u->cap_entries * sizeof(*u->entries) + u->cap_ranges * sizeof(*u->ranges) +
                (u->max_hi ? u->nranges * sizeof(*u->max_hi) : 0);
    free(u->entries);
    free(u->ranges);
    free(u->max_hi);
    u->entries = NULL;
    u->ranges = NULL;
    u->max_hi = NULL;
    u->nentries = u->cap_entries = u->nranges = u->cap_ranges = 0;
}

void hct_scope_index_free(hct_scope_index *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->nunits; i++)
        unit_release(x, &x->units[i]);
    free(x->units);
    free(x);
}

void hct_scope_index_stats(const hct_scope_index *x, size_t *indexed, size_t *walked, size_t *bytes)
{
    *indexed = *walked = *bytes = 0;
    if (!x)
        return;
    for (size_t i = 0; i < x->nunits; i++)
        (*(x->units[i].failed ? walked : indexed))++;
    *bytes = x->bytes;
}

/* Grows an array of *cap elements of size `size` to hold n, within the bound
 * if `bounded` (the list of units is not: a unit's entry says it is walked). */
static int grow(hct_scope_index *x, void **array, size_t *cap, size_t n, size_t size, int bounded)
{
    if (n <= *cap)
        return 0;
    size_t want = *cap ? *cap * 2 : 256;
    while (want < n)
        want *= 2;
    if (bounded && x->bytes + (want - *cap) * size > x->max_bytes)
        return -1;
    void *p = realloc(*array, want * size);
    if (!p)
        return -1;
    if (bounded)
        x->bytes += (want - *cap) * size;
    *array = p;
    *cap = want;
    return 0;
}

static int add_range(hct_scope_index *x, unit *u, Dwarf_Addr lo, Dwarf_Addr hi, int e)
{
    if (grow(x, (void **)&u->ranges, &u->cap_ranges, u->nranges + 1, sizeof(*u->ranges), 1) != 0)
        return -1;
    u->ranges[u->nranges++] = (range){ lo, hi, e };
    return 0;
}

/* Can libdw's walk go below a DIE of this tag (libdw_visit_scopes.c)? */
static int may_have_scopes(int tag)
{
    switch (tag) {
    case DW_TAG_compile_unit:
    case DW_TAG_module:
    case DW_TAG_lexical_block:
    case DW_TAG_with_stmt:
    case DW_TAG_catch_block:
    case DW_TAG_try_block:
    case DW_TAG_entry_point:
    case DW_TAG_inlined_subroutine:
    case DW_TAG_subprogram:
    case DW_TAG_namespace:
    case DW_TAG_class_type:
    case DW_TAG_structure_type:
        return 1;
    default:
        return 0;
    }
}

/* Indexes the children of `die` (entry `parent`) that have address ranges,
 * and theirs, depth first in the tree's order. -1: the unit cannot be
 * indexed exactly. */
static int index_children(hct_scope_index *x, unit *u, Dwarf_Die *die, int parent, int depth)
{
    Dwarf_Die child;
    int rc = dwarf_child(die, &child);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    if (depth > 256)
        return -1;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_imported_unit || tag < 0)
            return -1; /* libdw walks the imported unit's children in place */
        Dwarf_Addr base = 0, lo = 0, hi = 0;
        ptrdiff_t off = 0;
        int e = -1;
        while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
            if (lo >= hi)
                continue; /* an empty range never holds an address */
            if (e < 0) {
                if (grow(x, (void **)&u->entries, &u->cap_entries, u->nentries + 1, sizeof(*u->entries), 1) != 0)
                    return -1;
                e = (int)u->nentries++;
                u->entries[e] = (entry){ child, parent, tag };
            }
            if (add_range(x, u, lo, hi, e) != 0)
                return -1;
        }
        if (off < 0)
            return -1; /* libdw's walk would fail or skip it: its answer is the walk's */
        if (e >= 0 && may_have_scopes(tag) && dwarf_haschildren(&child) > 0 &&
            index_children(x, u, &child, e, depth + 1) != 0)
            return -1;
    } while ((rc = dwarf_siblingof(&child, &child)) == 0);
    return rc < 0 ? -1 : 0;
}

static int by_start(const void *a, const void *b)
{
    const range *p = a, *q = b;
    if (p->lo != q->lo)
        return p->lo < q->lo ? -1 : 1;
    return (p->entry > q->entry) - (p->entry < q->entry);
}

static void unit_build(hct_scope_index *x, unit *u, Dwarf_Die *cu)
{
    size_t need = 0;
    if (dwarf_tag(cu) != DW_TAG_compile_unit || index_children(x, u, cu, -1, 0) != 0 || u->nentries > INT32_MAX ||
        x->bytes + (need = u->nranges * sizeof(*u->max_hi)) > x->max_bytes ||
        (u->nranges && !(u->max_hi = malloc(need)))) {
        unit_release(x, u);
        u->failed = 1;
        return;
    }
    x->bytes += need;
    qsort(u->ranges, u->nranges, sizeof(*u->ranges), by_start);
    Dwarf_Addr m = 0;
    for (size_t i = 0; i < u->nranges; i++) {
        if (u->ranges[i].hi > m)
            m = u->ranges[i].hi;
        u->max_hi[i] = m;
    }
}

/* The unit of cu, indexed at its first question; NULL: no room. */
static unit *unit_of(hct_scope_index *x, Dwarf_Die *cu)
{
    _Static_assert(offsetof(unit, key) == 0, "hct_cu_unit_slot's key first");
    int added;
    unit *u = hct_cu_unit_slot((void **)&x->units, &x->nunits, &x->cap_units, sizeof(*x->units), cu->addr, &added);
    if (u && added)
        unit_build(x, u, cu);
    return u;
}

static int is_function(int tag)
{
    return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;
}

static int by_index(const void *a, const void *b)
{
    int p = *(const int *)a, q = *(const int *)b;
    return (p > q) - (p < q);
}

/* The functions of the chain from entry e up: e's function ancestors (e
 * included) up to the first subprogram; past max, the outermost replaces the
 * last (as dwarf_getscopes' callers did). */
static int chain_functions(const unit *u, int e, Dwarf_Die *fns, int max)
{
    int n = 0;
    for (; e >= 0; e = u->entries[e].parent) {
        if (!is_function(u->entries[e].tag))
            continue;
        if (n < max)
            n++;
        fns[n - 1] = u->entries[e].die;
        if (u->entries[e].tag == DW_TAG_subprogram)
            break;
    }
    return n;
}

int hct_scope_functions(hct_scope_index *x, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *fns, int max)
{
    unit *u = x && max > 0 ? unit_of(x, cu) : NULL;
    if (!u || u->failed)
        return hct_scope_functions_walk(cu, pc, fns, max);
    /* the last range starting at or before pc */
    size_t lo = hct_sorted_count_at_most(u->ranges, u->nranges, sizeof(*u->ranges), range_start, pc);
    int cand[MAX_CANDIDATES] = { 0 }, ncand = 0;
    for (size_t i = lo; i-- > 0 && u->max_hi[i] > pc;) {
        if (u->ranges[i].hi <= pc)
            continue;
        if (ncand == MAX_CANDIDATES)
            return hct_scope_functions_walk(cu, pc, fns, max);
        cand[ncand++] = u->ranges[i].entry;
    }
    /* libdw's chain: at each level the first DIE (in the tree's order)
     * containing pc among the children of the one before */
    qsort(cand, (size_t)ncand, sizeof(*cand), by_index);
    int at = -1, innermost = -1, inlined = -1;
    for (int i = 0; i < ncand; i++) {
        if (u->entries[cand[i]].parent != at)
            continue;
        at = cand[i];
        if (is_function(u->entries[at].tag))
            innermost = at;
        if (u->entries[at].tag == DW_TAG_inlined_subroutine)
            inlined = at;
    }
    if (innermost < 0)
        return 0;
    if (inlined >= 0) {
        /* dwarf_getscopes fails without the deepest inlined instance's
         * abstract origin, and finds nothing when the origin is not in this
         * unit (link-time optimization): its answer there is the walk's */
        Dwarf_Attribute attr;
        Dwarf_Die origin, origin_cu;
        if (!dwarf_formref_die(dwarf_attr(&u->entries[inlined].die, DW_AT_abstract_origin, &attr), &origin))
            return 0;
        if (!dwarf_diecu(&origin, &origin_cu, NULL, NULL) || origin_cu.addr != cu->addr)
            return hct_scope_functions_walk(cu, pc, fns, max);
    }
    return chain_functions(u, innermost, fns, max);
}

/* The function scopes of scopes[0 .. nscopes-1] (innermost first) up to and
 * including the first subprogram, into fns as hct_scope_functions does. */
static int scope_functions(Dwarf_Die *scopes, int nscopes, Dwarf_Die *fns, int max)
{
    int n = 0;
    for (int i = 0; i < nscopes; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (!is_function(tag))
            continue;
        if (n < max)
            n++;
        fns[n - 1] = scopes[i];
        if (tag == DW_TAG_subprogram)
            break;
    }
    return n;
}

int hct_scope_functions_walk(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *fns, int max)
{
    Dwarf_Die *scopes = NULL;
    int nscopes = max > 0 ? dwarf_getscopes(cu, pc, &scopes) : 0;
    int innermost = -1;
    for (int i = 0; i < nscopes && innermost < 0; i++)
        if (is_function(dwarf_tag(&scopes[i])))
            innermost = i;
    if (innermost < 0) {
        free(scopes);
        return 0;
    }
    if (dwarf_tag(&scopes[innermost]) == DW_TAG_inlined_subroutine) {
        Dwarf_Die die = scopes[innermost], *containing = NULL;
        int n = dwarf_getscopes_die(&die, &containing);
        if (n > 0) {
            free(scopes);
            scopes = containing;
            nscopes = n;
        } else {
            free(containing);
        }
    }
    int n = scope_functions(scopes, nscopes, fns, max);
    free(scopes);
    return n;
}
